"""Every code the model writes to a queue manager's error log.

A scenario's ``[[expect]]`` names codes in ``errors`` (each must be logged) and
``absent_errors`` (none may be). A code the model never logs makes the first an
expectation that can never hold and the second one that can never fail: a misspelt
``MQRC_UNKNOWN_OBJECT`` for ``MQRC_UNKNOWN_OBJECT_NAME`` passed silently (a user trial,
session 34). So the scenario loader accepts only the codes listed here and names the
nearest one. ``tests/test_log_codes.py`` keeps the list complete: it reads the spec's
sources for the codes written at each logging site and runs every bundled scenario.

Three kinds of code:

- MQ reason codes an application or a channel would see (``MQRC_*``);
- the number of the message runmqsc answers a rejected command with (``AMQnnnn``;
  ``MQSC_REJECTED`` when the model has no number for it);
- the model's names for what a queue manager writes to its error log in words, or for
  what the checker notes (``LOOP_DETECTED``, ``NOT_SETTLED``, ...).
"""

from __future__ import annotations

from spec.errors import near_miss

# MQ reason codes (MQRC_*)
REASON_CODES = frozenset({
    "MQRC_ALIAS_BASE_Q_TYPE_ERROR",   # an alias whose base is neither a queue nor a topic
    "MQRC_CLUSTER_PUT_INHIBITED",     # every instance PUT(DISABLED) (001 rule 5)
    "MQRC_CONNECTION_BROKEN",         # a uniform-cluster application without auto-reconnect
    "MQRC_DURABILITY_NOT_ALLOWED",    # a durable subscription where DURSUB(NO)
    "MQRC_HOBJ_ERROR",                # a put or close through a handle never opened
    "MQRC_NO_SUBSCRIPTION",           # unsubscribe or republish of no such subscription
    "MQRC_PUBSUB_INHIBITED",          # PSMODE(DISABLED)
    "MQRC_PUT_INHIBITED",             # PUT(DISABLED) on a queue or a topic
    "MQRC_Q_MGR_NOT_AVAILABLE",       # a client connection to a stopped queue manager
    "MQRC_SUB_ALREADY_EXISTS",        # a second subscription of one name
    "MQRC_SUB_INHIBITED",             # SUB(DISABLED) on a topic
    "MQRC_TOPIC_STRING_ERROR",        # a malformed topic string
    "MQRC_UNKNOWN_OBJECT_NAME",       # no queue or topic object of that name (and dead-lettered messages)
    "MQRC_UNKNOWN_REMOTE_Q_MGR",      # a named queue manager no route reaches
})

# runmqsc's answers to a rejected command (spec.objects; spec.network.steps._amq_code)
MQSC_CODES = frozenset({
    "AMQ7048",   # a qmgr step starts a queue manager that was deleted
    "AMQ8110",   # a qmgr step recreates a queue manager that exists
    "AMQ8147",   # object not found
    "AMQ8150",   # object already exists
    "AMQ8151",   # object has a different type
    "AMQ9406",   # REFRESH CLUSTER REPOS(YES) on a full repository
    "MQSC_REJECTED",   # any other rejected command
})

# the model's own names
MODEL_CODES = frozenset({
    "CHANNEL_NOT_FOUND",       # a channel step names no channel of that queue manager
    "CHANNEL_RETRYING",        # a channel cannot reach a stopped or unknown queue manager
    "HOP_LIMIT",               # a message bounced between queue managers too often
    "LOOP_DETECTED",           # a publication came back (002 §How loop detection works)
    "NOT_A_FULL_REPOSITORY",   # a repository message at a queue manager that is not one
    "NOT_A_MEMBER",            # a cluster message for a cluster the receiver is not in
    "NOT_SETTLED",             # messages still in flight after settling's limit
    "PARENT_SELF",             # PARENT names this queue manager
    "PARENT_UNKNOWN",          # PARENT names no queue manager of the network
    "PSCLUS_DISABLED",         # cluster publish/subscribe traffic where PSCLUS(DISABLED)
    "QMNAME_AMBIGUOUS",        # a CCDT entry's queue manager name matches several
    "RECORD_EXPIRED",          # a cluster record not refreshed within its lifetime
    "REFRESH_MISSING",         # a record a queue manager needs has not been refreshed
    "STEP_NEVER_TAKEN",        # a scenario step that could not be taken
    "TOPIC_CONFLICT",          # a cluster topic defined differently on two hosts (AMQ5465/AMQ5466)
    "UC_NO_CCDT_ENTRY",        # a uniform cluster cannot direct an application: no CCDT entry
    "XMITQ_NO_CHANNEL",        # a transmission queue no channel serves
})

LOGGED = REASON_CODES | MQSC_CODES | MODEL_CODES


def unknown_code(code: str) -> str:
    """Why ``code`` cannot be expected, or ``""`` if the model can log it."""
    if code in LOGGED:
        return ""
    hint = near_miss(code, LOGGED)
    return (f"mqcheck never logs {code}, so an expectation about it could never be met (errors) or never "
            f"fail (absent_errors); {hint or 'the codes it logs: ' + ', '.join(sorted(LOGGED))}")
