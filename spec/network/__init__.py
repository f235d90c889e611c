"""The whole network of queue managers as one transition system (DESIGN §1, §2.1, §2.3).

This package's public names are what the rest of mqcheck (the CLI, properties, tests,
benchmarks) uses of the network model; import them from ``spec.network``.
"""

from spec.system import (  # noqa: F401  (re-exported)
    FLOWING,
    INITIAL,
    NO_MUTATIONS,
    Channel,
    ChannelDeliver,
    ChannelFail,
    ChannelRecover,
    ExpectationResult,
    LogEntry,
    MQNetwork,
    Mutations,
    NetworkState,
    QmgrStart,
    QmgrState,
    QmgrStop,
    RunReport,
    ScenarioStep,
    check_expectations,
    deliveries_of,
    describe_step,
    explanations_of,
    messages_of,
    proxy_subscriptions_of,
    pubsub_links,
    pubsub_space,
    repositories_of,
    resolve_conname,
    run_scenario,
    settle,
    topic_space,
    why_not_joined,
)
from spec.system import _put_qmgr as put_qmgr  # noqa: F401
from spec.system import _wl_status_of as channel_statuses  # noqa: F401

__all__ = [
    "FLOWING", "INITIAL", "NO_MUTATIONS", "Channel", "ChannelDeliver", "ChannelFail", "ChannelRecover",
    "ExpectationResult", "LogEntry", "MQNetwork", "Mutations", "NetworkState", "QmgrStart", "QmgrState",
    "QmgrStop", "RunReport", "ScenarioStep", "channel_statuses", "check_expectations", "deliveries_of",
    "describe_step", "explanations_of", "messages_of", "proxy_subscriptions_of", "pubsub_links", "pubsub_space",
    "put_qmgr", "repositories_of", "resolve_conname", "run_scenario", "settle", "topic_space", "why_not_joined",
]
