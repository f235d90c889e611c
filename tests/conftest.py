"""Shared pytest configuration.

Hypothesis runs real examples everywhere; under CI (CI=true) it is derandomized so a CI
run is reproducible, and there is no per-example deadline (the machine has 2 cores shared
with Spark tests, and tests never assert wall-clock times — STYLE.md habit 10).
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))
