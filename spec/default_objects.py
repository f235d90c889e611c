"""The objects every queue manager has before any MQSC runs: MQ's default objects (what a
DEFINE of their type starts from), the system queues clustering and publish/subscribe use,
and the topic objects at the root of the topic tree.

They exist, so ALTER of one is accepted (and not modelled: ``objects.AlterDefaultObject``),
LIKE may name one, and a DEFINE of one without REPLACE is AMQ8150. Unless a queue manager's
MQSC defined an object of that name, its attributes are its type's defaults.
docs/decisions.md: "A user trial from IBM's documents", "Session 34: review of 003 and 004",
"Session 35: review of 002 (distributed publish/subscribe)".

Abstracted away: the system queues' depths and attributes (messages between queue managers
travel on the model's channels, proxy subscriptions and publications are processed as they
arrive); SYSTEM.BROKER.DEFAULT.STREAM and SYSTEM.BROKER.DEFAULT.SUBPOINT govern nothing (the
root's attributes are SYSTEM.BASE.TOPIC's, which is a real topic object of ``spec.objects``).
"""

from __future__ import annotations

# the default object of each object type (the type's defaults)
SYSTEM_DEFAULTS = {
    "QLOCAL": "SYSTEM.DEFAULT.LOCAL.QUEUE", "QALIAS": "SYSTEM.DEFAULT.ALIAS.QUEUE",
    "QREMOTE": "SYSTEM.DEFAULT.REMOTE.QUEUE", "TOPIC": "SYSTEM.DEFAULT.TOPIC", "SUB": "SYSTEM.DEFAULT.SUB",
    "NAMELIST": "SYSTEM.DEFAULT.NAMELIST",
    "SDR": "SYSTEM.DEF.SENDER", "RCVR": "SYSTEM.DEF.RECEIVER", "SVR": "SYSTEM.DEF.SERVER",
    "RQSTR": "SYSTEM.DEF.REQUESTER", "CLUSSDR": "SYSTEM.DEF.CLUSSDR", "CLUSRCVR": "SYSTEM.DEF.CLUSRCVR",
    "SVRCONN": "SYSTEM.DEF.SVRCONN", "CLNTCONN": "SYSTEM.DEF.CLNTCONN",
}
# 003 §Cluster transmission queue: "A definition for this queue (and others required for
# clustering) is created by default on every queue manager"; 003 §Queue managers and
# repositories names the other two. With their USAGE.
CLUSTER_QUEUES = {"SYSTEM.CLUSTER.COMMAND.QUEUE": "NORMAL", "SYSTEM.CLUSTER.REPOSITORY.QUEUE": "NORMAL",
                  "SYSTEM.CLUSTER.TRANSMIT.QUEUE": "XMITQ"}
# 002 §Distributed publish/subscribe system queues: "Four system queues are used by queue
# managers for publish/subscribe messaging" (local queues: DEFPSIST YES, MAXDEPTH 999999999)
PUBSUB_QUEUES = dict.fromkeys(("SYSTEM.INTER.QMGR.CONTROL", "SYSTEM.INTER.QMGR.FANREQ", "SYSTEM.INTER.QMGR.PUBS",
                               "SYSTEM.HIERARCHY.STATE"), "NORMAL")
# 002 §Streams and topics ("Authorities"): "By default, at the root of the topic tree there are
# multiple topic objects: SYSTEM.BASE.TOPIC, SYSTEM.BROKER.DEFAULT.STREAM, and
# SYSTEM.BROKER.DEFAULT.SUBPOINT"
ROOT_TOPICS = ("SYSTEM.BROKER.DEFAULT.STREAM", "SYSTEM.BROKER.DEFAULT.SUBPOINT")
# the local queues every queue manager has, with their USAGE (what LIKE of one gives)
SYSTEM_QUEUES = {**CLUSTER_QUEUES, **PUBSUB_QUEUES}
# every object above, by name: its object type
DEFAULT_OBJECTS = {**{name: kind for kind, name in SYSTEM_DEFAULTS.items()}, **dict.fromkeys(SYSTEM_QUEUES, "QLOCAL"),
                   **dict.fromkeys(ROOT_TOPICS, "TOPIC")}
