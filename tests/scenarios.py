"""Scenario texts that several test files build on."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def stopped_servers_text() -> str:
    """tests/data/scenarios/redrive-both-retrying.toml's queue managers (QMAPP and the two
    hosts of DEMOQ): the application opens DEMOQ NOT_FIXED, both servers are stopped by
    steps, three puts queue on their RETRYING channels, then SERVER2 starts again."""
    head = (ROOT / "tests" / "data" / "scenarios" / "redrive-both-retrying.toml").read_text().split("[[steps]]")[0]
    return head + (
        '[[steps]]\nopen = { qmgr = "QMAPP", handle = "app", queue = "DEMOQ", bind = "NOT_FIXED" }\n'
        '[[steps]]\nwait = { until = "settled" }\n'
        '[[steps]]\nqmgr = { name = "SERVER1", action = "stop" }\n'
        '[[steps]]\nqmgr = { name = "SERVER2", action = "stop" }\n'
        '[[steps]]\nput = { handle = "app", count = 3 }\n'
        '[[steps]]\nqmgr = { name = "SERVER2", action = "start" }\n')
