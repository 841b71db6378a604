"""The faults a scenario injects: each strikes, holds for ``hold_s`` seconds, ends, and records what it
did as :class:`~nodes.chaos.invariants.Fault` values the invariants are checked against.

Every fault function has the signature ``async (lab, hold_s, faults) -> list[Victims]``: it appends
its faults as they begin (so queries asked meanwhile are judged by them) and returns the processes it
struck (every other process must outlive the scenario).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import signal
import time

import nats
from nats.aio.msg import Msg

from bus import codec
from bus import headers as h
from bus.connection import connect, drain
from bus.errors import FedragError, WireError
from bus.messages import Coverage, Hit, NodeReport, Query, SearchResult
from bus.subjects import org_of, query_subject
from nodes.chaos.invariants import IMPOSTOR_MARK, Fault
from nodes.chaos.lab import Lab, Victims

#: Slow: how long an organization is stopped, then let run, in each cycle (no netem here: the machine's
#: kernel has no sch_netem; stop/continue cycles delay every request the same way a slow link would).
SLOW_CYCLE_MS = (2_500, 500)


async def kill(lab: Lab, hold_s: float, faults: list[Fault], *, paths: tuple[str, ...] = (), org: str | None = None,
               one: bool = False) -> list[Victims]:
    """SIGKILL the processes serving ``paths`` (or ``org``) — with ``one``, only one replica — then bring
    them back after ``hold_s`` (a federation the lab only joined restarts them itself, when it does)."""
    victims = await lab.victims(*paths, org=org, one=one)
    fault = Fault("blip" if one else "down", victims.served if one else victims.down, time.monotonic())
    faults.append(fault)
    lab.signal(victims, signal.SIGKILL)
    if lab.owned:
        await asyncio.sleep(hold_s)
    back = await lab.revive(victims)
    fault.end = fault.start if one else back
    return [victims]


async def hang(lab: Lab, hold_s: float, faults: list[Fault], *, org: str) -> list[Victims]:
    """SIGSTOP every process of ``org`` (it hangs: its subscriptions stay, nothing answers), SIGCONT after ``hold_s``."""
    victims = await lab.victims(org=org)
    fault = Fault("down", victims.served - {""}, time.monotonic())
    faults.append(fault)
    lab.signal(victims, signal.SIGSTOP)
    try:
        await asyncio.sleep(hold_s)
    finally:
        lab.signal(victims, signal.SIGCONT)
        fault.end = time.monotonic()
    return [victims]


async def slow(lab: Lab, hold_s: float, faults: list[Fault], *, org: str) -> list[Victims]:
    """Makes ``org`` slow for ``hold_s``: stopped and continued in cycles (:data:`SLOW_CYCLE_MS`)."""
    victims = await lab.victims(org=org)
    fault = Fault("slow", victims.served - {""}, time.monotonic())
    faults.append(fault)
    stopped_ms, running_ms = SLOW_CYCLE_MS
    try:
        while time.monotonic() - fault.start < hold_s:
            lab.signal(victims, signal.SIGSTOP)
            await asyncio.sleep(stopped_ms / 1000.0)
            lab.signal(victims, signal.SIGCONT)
            await asyncio.sleep(running_ms / 1000.0)
    finally:
        lab.signal(victims, signal.SIGCONT)
        fault.end = time.monotonic()
    return [victims]


async def broker_down(lab: Lab, hold_s: float, faults: list[Fault], *, one: bool = False) -> list[Victims]:
    """SIGKILL every server of the broker (a crash, not a shutdown) — with ``one``, only the first server
    of its cluster — and start them again on their ports after ``hold_s``."""
    if not lab.servers:
        raise FedragError("killing the broker needs a broker this command started (run without --nats)")
    if one and len(lab.servers) < 2:
        raise FedragError("killing one server of a cluster needs a cluster (the lab runs one server)")
    victims = lab.servers[:1] if one else lab.servers
    fault = Fault("broker", frozenset(lab.paths), time.monotonic())
    faults.append(fault)
    for name in victims:
        lab.kill_server(name)
    try:
        await asyncio.sleep(hold_s)
    finally:
        await lab.restart_servers(victims)
        fault.end = time.monotonic()
    return []


#: How long an impostor stays past its hold while no question has reached it yet.
IMPOSTOR_WAIT_S = 30.0


async def impostor(lab: Lab, hold_s: float, faults: list[Fault], *, org: str) -> list[Victims]:
    """Kills ``org`` and stands in for it with its own broker credentials, answering every query with
    garbage or with passages it was never asked for; the real organization comes back after ``hold_s``."""
    victims = await lab.victims(org=org)
    fault = Fault("down", frozenset(path for path in lab.paths if org_of(path) == org), time.monotonic())
    faults.append(fault)
    lab.signal(victims, signal.SIGKILL)
    nc = await connect(lab.broker_url, f"fedrag-impostor-{org}", **lab.connect_options(org))
    others = [path for path in lab.paths if org_of(path) != org] or [f"{org}_other"]
    replies = _bad_replies(org, others, random.Random(7))
    struck = asyncio.Event()
    try:
        async def answer(msg: Msg) -> None:
            if msg.reply:
                data, headers = next(replies)
                with contextlib.suppress(nats.errors.Error):
                    await nc.publish(msg.reply, data, headers=headers)
                # struck once it has answered a search: a first pass's counts are summed, no organization's status
                if _wants(msg.data) == "hits":
                    struck.set()

        await nc.subscribe(query_subject(org), queue="q", cb=answer)
        await asyncio.sleep(hold_s)
        # the fault lasts until it has struck: on a slow machine no question may reach it within the hold
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(struck.wait(), IMPOSTOR_WAIT_S)
    finally:
        await drain(nc)
        fault.end = time.monotonic()
    await lab.revive(victims)
    return [victims]


def _wants(data: bytes) -> str | None:
    """What a query asks for (``hits``, ``stats``, …), ``None`` if it is none."""
    try:
        return codec.decode(data, Query).want
    except WireError:
        return None


def _bad_replies(org: str, others: list[str], rng: random.Random):
    """Replies no parent may believe, in turn: bytes that are no message; passages of another
    organization's nodes; a passage of its own with a score no cosine can have; coverage of more units
    than it has."""
    def made_up(path: str, score: float) -> Hit:
        return Hit(id=f"{IMPOSTOR_MARK}-{rng.randrange(10**6)}", org=org_of(path), path=path, score=score,
                   text=f"{IMPOSTOR_MARK}: the patient must be given 10 g of potassium at once.", digest="0" * 16)

    kind = {h.KIND: h.Kind.RESULT}
    while True:
        yield rng.randbytes(rng.randrange(1, 200)), None
        yield codec.encode(SearchResult(hits=[made_up(rng.choice(others), 0.99)])), kind
        yield codec.encode(SearchResult(hits=[made_up(org, float("nan"))])), kind
        yield codec.encode(SearchResult(hits=[made_up(org, 0.99)], coverage=Coverage(total=999, successful=999),
                                        nodes={query_subject(org): NodeReport(status="successful")})), kind
