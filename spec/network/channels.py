"""The channels between queue managers: putting a message on a transmission queue, setting
a channel's status (STOP/START CHANNEL, a scenario's ``channel`` step), which RETRYING
channels reconnect by themselves, and the channel statuses the workload algorithm reads.

A channel is one FIFO per directed pair (003 §Cluster transmission queue); messages are
never lost in transit (MQ's assured delivery), only when an administrator clears a
transmission queue. Delivery itself is ``MQNetwork``'s ``ChannelDeliver`` (model.py).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from spec.binding import local_receiver_key
from spec.network.state import Channel, ChannelRecover, LogEntry, NetworkState, QmgrState, add_log
from spec.network.topology import resolve_conname

def send(state: NetworkState, src: str, dst: str, msg: Any) -> NetworkState:
    """Put a message on ``src``'s transmission queue for ``dst``."""
    if src == dst:
        return state
    ch = state.channel(src, dst)
    if ch is None:
        new = Channel(src, dst, "INACTIVE", (msg,))
        channels = tuple(sorted(state.channels + (new,), key=lambda c: (c.src, c.dst)))
        return replace(state, channels=channels)
    channels = tuple(replace(c, messages=c.messages + (msg,)) if c is ch else c for c in state.channels)
    return replace(state, channels=channels)


def set_channel(state: NetworkState, ch: Channel) -> NetworkState:
    if state.channel(ch.src, ch.dst) is None:
        channels = tuple(sorted(state.channels + (ch,), key=lambda c: (c.src, c.dst)))
    else:
        channels = tuple(ch if (c.src, c.dst) == (ch.src, ch.dst) else c for c in state.channels)
    return replace(state, channels=channels)


def hold_channel(state: NetworkState, src: str, dst: str) -> NetworkState:
    if (src, dst) in state.held_by_step:
        return state
    return replace(state, held_by_step=tuple(sorted(state.held_by_step + ((src, dst),))))


def set_status_by_name(state: NetworkState, name: str, channel: str, status: str) -> NetworkState:
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
        targets = [local_receiver_key(name, channel)]
    if not targets and not any(ch.name == channel for ch in q.defs.channels):
        return add_log(state, [LogEntry(name, "CHANNEL_NOT_FOUND", f"channel {channel} not found at {name} (no "
                                                                "manual or auto-defined sender of that name)",
                                     state.next_step - 1)])
    for target in targets:
        existing = state.channel(name, target) or Channel(name, target)
        state = hold_channel(set_channel(state, replace(existing, status=status)), name, target)
    return state


def reconnectable(state: NetworkState) -> tuple[ChannelRecover, ...]:
    """The deterministic scheduler's channel recovery (the checker's ``ChannelRecover``,
    taken at the first chance): a RETRYING channel whose two ends run reconnects, unless a
    scenario step set its status. 000 §Resource definition for Full Repositories: channels
    "in retry ... hit a retry interval"; 000 §Workload management features: messages "wait
    on the transmission queue for the network to come back up" (retry intervals abstracted
    to: at the next chance once the partner runs)."""
    running = {q.name for q in state.qmgrs if q.running}
    return tuple(ChannelRecover(ch.src, ch.dst) for ch in state.channels
                 if ch.status == "RETRYING" and (ch.src, ch.dst) not in state.held_by_step
                 and ch.src in running and ch.dst in running)


def channel_statuses(state: NetworkState, q: QmgrState) -> dict[str, str]:
    """Destination -> status of q's channel to it (a channel never used is INACTIVE)."""
    return {ch.dst: ch.status for ch in state.channels if ch.src == q.name}
