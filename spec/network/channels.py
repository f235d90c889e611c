"""The channels between queue managers: putting a message on a transmission queue, setting
a channel's status (STOP/START CHANNEL, a scenario's ``channel`` step), which RETRYING
channels reconnect by themselves, and the channel statuses the workload algorithm reads.

A channel is one FIFO per directed pair (003 §Cluster transmission queue); messages are
never lost in transit (MQ's assured delivery), only when an administrator clears a
transmission queue. Delivery itself is ``MQNetwork``'s ``ChannelDeliver`` (model.py).

Several routes to one queue manager (its further CLUSRCVRs in a cluster,
``spec.binding.separate_routes``) share the pair's FIFO, as they share the sender's
SYSTEM.CLUSTER.TRANSMIT.QUEUE, but each has a status of its own, kept in a status-only
entry ``Channel(src, route_key(dst, channel))``; a message records the route chosen for it
(``AppMessage.route``) and leaves by that route only, in order with that route's other
messages (000 §Workload management features: "The higher network priority route is always
used when it's channel is in a good state").
"""

from __future__ import annotations

from bisect import bisect_left
from operator import attrgetter
from typing import Any

from spec.binding import local_receiver_key, route_key, separate_routes, split_route_key
from spec.network.state import (
    NO_MUTATIONS, Channel, ChannelRecover, LogEntry, Mutations, NetworkState, QmgrState, add_log, channel_position,
    route_of,
)
from spec.network.topology import resolve_conname
from spec.values import replace


def _with(channels: tuple[Channel, ...], i: int, ch: Channel) -> tuple[Channel, ...]:
    """``channels`` with ``ch`` at index ``i``, or added in (src, dst) order if ``i`` < 0."""
    if i < 0:
        i = bisect_left(channels, (ch.src, ch.dst), key=_ENDS)
        return channels[:i] + (ch,) + channels[i:]
    return channels[:i] + (ch,) + channels[i + 1:]


_ENDS = attrgetter("src", "dst")
_STATUS = attrgetter("status")


def send(state: NetworkState, src: str, dst: str, msg: Any) -> NetworkState:
    """Put a message on ``src``'s transmission queue for ``dst``."""
    if src == dst:
        return state
    channels = state.channels
    i = channel_position(channels, src, dst)
    new = Channel(src, dst, "INACTIVE", (msg,)) if i < 0 else replace(channels[i], messages=channels[i].messages + (msg,))
    return replace(state, channels=_with(channels, i, new))


def set_channel(state: NetworkState, ch: Channel) -> NetworkState:
    return replace(state, channels=_with(state.channels, channel_position(state.channels, ch.src, ch.dst), ch))


def hold_channel(state: NetworkState, src: str, dst: str) -> NetworkState:
    if (src, dst) in state.held_by_step:
        return state
    return replace(state, held_by_step=tuple(sorted(state.held_by_step + ((src, dst),))))


def route_for(state: NetworkState, src: str, dst: str, channel: str) -> str:
    """The route a message chosen through CLUSSDR ``channel`` to ``dst`` takes from ``src``:
    the channel's name when it is a separate route, else "" (the pair's channel)."""
    q = state.find(src)
    return channel if channel and q is not None and (dst, channel) in separate_routes(q) else ""


def routes_waiting(ch: Channel) -> tuple[str, ...]:
    """The routes that have messages on the pair's FIFO ``ch`` ("" first, then by name)."""
    return tuple(sorted({route_of(m) for m in ch.messages}))


def first_on(ch: Channel, route: str) -> int:
    """The index in ``ch.messages`` of the first message on ``route`` (-1: none)."""
    for i, m in enumerate(ch.messages):
        if route_of(m) == route:
            return i
    return -1


def set_route_status(state: NetworkState, src: str, dst: str, route: str, status: str) -> NetworkState:
    """Set the status of the pair's channel (``route`` "") or of a separate route."""
    key = route_key(dst, route) if route else dst
    existing = state.channel(src, key) or Channel(src, key)
    return set_channel(state, replace(existing, status=status))


def known_routes(state: NetworkState, src: str, dst: str) -> tuple[str, ...]:
    """The routes from ``src`` to ``dst``: the pair's channel ("") and the separate ones."""
    q = state.find(src)
    extra = sorted(c for d, c in separate_routes(q) if d == dst) if q is not None else []
    return ("", *extra)


def set_status_by_name(state: NetworkState, name: str, channel: str, status: str,
                       mut: Mutations = NO_MUTATIONS) -> NetworkState:
    """STOP/START CHANNEL of a sender: a manual CLUSSDR or SDR, or else an auto-defined
    CLUSSDR, which carries the name of the CLUSRCVR it was made from (003 §Auto-definition
    of channels)."""
    q = state.qmgr(name)
    targets = []
    for ch in q.defs.channels:
        if ch.name == channel and ch.chltype in ("CLUSSDR", "SDR"):
            target = resolve_conname(state, ch.conname, ch.cluster)
            if target:
                targets.append(target)
    if not targets:
        targets = sorted({r.owner_name for c in q.caches for r in c.qmgr_records()
                          if r.info.channel == channel and r.owner != q.qmid and state.find(r.owner_name)})
    if not targets and any(ch.name == channel and ch.chltype == "CLUSRCVR" for ch in q.defs.channels):
        # its own CLUSRCVR: other queue managers' CLUSSDRs to it are theirs; here its status
        # is what 001 rule 6 compares under CLWLUSEQ(ANY) (spec.binding.view_of)
        if mut.local_clusrcvr_status_ignored:  # the old defect: nothing happens
            return state
        targets = [local_receiver_key(name, channel)]
    if not targets and not any(ch.name == channel for ch in q.defs.channels):
        return add_log(state, [LogEntry(name, "CHANNEL_NOT_FOUND", f"channel {channel} not found at {name} (no "
                                                                "manual or auto-defined sender of that name)",
                                     state.next_step - 1)])
    separate = separate_routes(q)
    for target in targets:
        if (target, channel) in separate:  # one route of several: only its own status
            target = route_key(target, channel)
        existing = state.channel(name, target) or Channel(name, target)
        state = hold_channel(set_channel(state, replace(existing, status=status)), name, target)
    return state


def reconnectable(state: NetworkState) -> tuple[ChannelRecover, ...]:
    """The deterministic scheduler's channel recovery: the checker's ``ChannelRecover``
    (:func:`recoverable`), every one taken at the first chance. 000 §Resource definition for
    Full Repositories: channels "in retry ... hit a retry interval"; 000 §Workload
    management features: messages "wait on the transmission queue for the network to come
    back up" (retry intervals abstracted to: at the next chance once the partner runs)."""
    return recoverable(state)


def recoverable(state: NetworkState) -> tuple[ChannelRecover, ...]:
    """The checker's ``ChannelRecover`` actions (the retry that connects): every RETRYING
    channel or separate route a scenario step did not set, whose two ends run. A channel
    cannot run to a stopped queue manager: it stays in retry (000 §Checking initial
    definitions: RETRYING means "check ... that the listener on the Full Repository is
    running"), and each retry re-routes its queued unbound messages (``ChannelRetry``; 004
    §Channel availability routing: "every time the channel is retried"; 004 §Clustering for
    availability: "routing messages to running queue managers"). Nor does a stopped queue
    manager run its own channels."""
    if "RETRYING" not in map(_STATUS, state.channels):   # the common case, looked at in C
        return ()
    running = state.running_names()
    return tuple(ChannelRecover(ch.src, *split_route_key(ch.dst)) for ch in state.channels
                 if ch.status == "RETRYING" and (ch.src, ch.dst) not in state.held_by_step
                 and ch.src in running and split_route_key(ch.dst)[0] in running)


def channel_statuses(state: NetworkState, q: QmgrState) -> dict[str, str]:
    """Destination -> status of q's channel to it (a channel never used is INACTIVE), with
    its own CLUSRCVRs' (``local_receiver_key``) and its separate routes' (``route_key``)."""
    return {ch.dst: ch.status for ch in state.channels if ch.src == q.name}
