"""The whole network of queue managers as one transition system (DESIGN §1, §2.1, §2.3).

One module per concern, each importing only the ones listed before it:

- ``state``         the state and action types, the mutant switches, state rebuilding helpers
- ``memo``          the delivery memo: a delivery computed once per local situation (issue #17)
- ``topology``      membership, CONNAME resolution, topic spaces, pub/sub links (queries)
- ``channels``      transmission queues and channel status
- ``repositories``  the repository protocol: publish, forward, subscribe, REFRESH, RESET, expiry
- ``pubsub``        proxy subscriptions and publications on the network; pub/sub steps
- ``workload``      MQOPEN/MQPUT/MQCLOSE, the workload algorithm's choices, re-driving
- ``steps``         MQSC at a queue manager, queue-manager and channel steps, the step table
- ``model``         ``MQNetwork`` (the Model) and ``settle`` (the deterministic scheduler)
- ``run``           ``mqcheck run``: the report data and ``[[expect]]`` checking

The per-queue-manager rules stay in the pure modules beside this package
(``spec.pubsub``, ``spec.repository``, ``spec.workload``, ``spec.binding``,
``spec.topic_tree``). The names below are what the rest of mqcheck (the CLI, the property
catalogue, tests, benchmarks) uses; import them from ``spec.network``.
"""

from spec.network.channels import channel_statuses, first_on, route_for
from spec.network.model import SETTLE_LIMIT, MQNetwork, settle
from spec.network.pubsub import backlog_of, deliveries_of, proxy_subscriptions_of
from spec.network.repositories import repositories_of
from spec.network.run import ExpectationResult, RunReport, check_expectations, run_scenario
from spec.network.state import (
    FLOWING, INITIAL, NO_MUTATIONS, Channel, ChannelDeliver, ChannelFail, ChannelRecover, ChannelRetry, LogEntry, Mutations,
    NetworkState, QmgrStart, QmgrState, QmgrStop, ScenarioStep, put_qmgr,
)
from spec.network.steps import describe_step
from spec.network.topology import pubsub_links, pubsub_space, resolve_conname, topic_space, why_not_joined
from spec.network.workload import explanations_of, messages_of, moves_to, retries

__all__ = [
    "FLOWING", "INITIAL", "NO_MUTATIONS", "backlog_of", "Channel", "ChannelDeliver", "ChannelFail", "ChannelRecover", "ChannelRetry",
    "ExpectationResult", "LogEntry", "MQNetwork", "Mutations", "NetworkState", "QmgrStart", "QmgrState",
    "QmgrStop", "RunReport", "SETTLE_LIMIT", "ScenarioStep", "channel_statuses", "check_expectations", "deliveries_of",
    "first_on", "route_for",
    "describe_step", "explanations_of", "messages_of", "moves_to", "proxy_subscriptions_of", "pubsub_links", "pubsub_space",
    "put_qmgr", "repositories_of", "resolve_conname", "retries", "run_scenario", "settle", "topic_space", "why_not_joined",
]
