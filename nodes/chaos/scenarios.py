"""The chaos scenarios, and running one while questions stream in: every query checked, recovery timed.

A scenario runs in four steps with a fresh :class:`~nodes.chaos.stream.QueryStream`: full coverage
first (the federation is healthy), ``before_s`` of ordinary questions, the fault (held ``hold_s``),
then questions until full coverage is back (timed against the scenario's bound) and ``after_s``
more. Every query is checked (:mod:`nodes.chaos.invariants`), and every process the fault did not
strike must still be the same process at the end (no collateral deaths).
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from nodes.chaos import faults as f
from nodes.chaos.invariants import ANSWER_SLACK_MS, Fault, Query, Violation
from nodes.chaos.lab import Lab, Victims
from nodes.chaos.stream import QueryStream
from nodes.chaos.table import text_table

Inject = Callable[[Lab, float, list[Fault]], Awaitable[list[Victims]]]


@dataclass(frozen=True)
class Scenario:
    """A fault to inject, and how soon full coverage must return once it ends (seconds)."""

    name: str
    description: str
    inject: Callable[[Lab], Inject]
    recovery_s: float
    owned_only: bool = False
    #: Hold the fault past the questions' deadline (a hang shorter than the deadline is only a delay).
    past_deadline: bool = False


SCENARIOS = {s.name: s for s in [
    Scenario("leaf-killed", "SIGKILL the process of one leaf; restarted after the hold",
             lambda lab: functools.partial(f.kill, paths=(lab.targets.leaf,)), recovery_s=60.0),
    Scenario("router-killed", "SIGKILL the process of a router (its leaves keep running); restarted after the hold",
             lambda lab: functools.partial(f.kill, paths=(lab.targets.router,)), recovery_s=60.0),
    Scenario("org-killed", "SIGKILL every process of an organization; restarted after the hold",
             lambda lab: functools.partial(f.kill, org=lab.targets.org), recovery_s=60.0),
    Scenario("org-hung", "SIGSTOP every process of an organization (it hangs), SIGCONT after the hold",
             lambda lab: functools.partial(f.hang, org=lab.targets.org), recovery_s=10.0, past_deadline=True),
    Scenario("org-slow", f"an organization stopped {f.SLOW_CYCLE_MS[0]} ms in every {sum(f.SLOW_CYCLE_MS)} ms "
             "for the hold", lambda lab: functools.partial(f.slow, org=lab.targets.slow), recovery_s=10.0),
    Scenario("impostor", "an organization killed and, with its credentials, something answering in its place "
             "with garbage and with passages it was never asked for",
             lambda lab: functools.partial(f.impostor, org=lab.targets.org), recovery_s=60.0, owned_only=True),
    Scenario("replica-killed", "SIGKILL one of a leaf's two replicas (queue group); restarted after the hold",
             lambda lab: functools.partial(f.kill, paths=(lab.targets.replica,), one=True), recovery_s=60.0,
             owned_only=True),
    Scenario("gateway-killed", "SIGKILL one of two gateways while questions are in flight; restarted after the hold",
             lambda lab: functools.partial(f.kill, paths=("",), one=True), recovery_s=60.0, owned_only=True),
    Scenario("server-killed", "SIGKILL one server of the broker's three-server cluster; every process on it moves "
             "to another; restarted after the hold", lambda lab: functools.partial(f.broker_down, one=True),
             recovery_s=15.0, owned_only=True),
    Scenario("broker-restart", "SIGKILL every server of the broker, start them again on their ports after the hold; "
             "every process reconnects by itself", lambda lab: f.broker_down, recovery_s=15.0, owned_only=True),
]}


@dataclass
class Outcome:
    """What one scenario's run showed."""

    scenario: str
    queries: list[Query]
    faults: list[Fault]
    violations: list[Violation] = field(default_factory=list)
    recovery_s: float | None = None
    recovery_bound_s: float = 0.0
    hold_s: float = 0.0
    #: Answers missing some leaf the user may search (denied leaves do not count).
    incomplete: int = 0

    @property
    def answered_by_deadline(self) -> int:
        return sum(1 for q in self.queries if q.answer is not None and q.took_ms <= q.deadline_ms + ANSWER_SLACK_MS)

    @property
    def unanswered(self) -> int:
        return sum(1 for q in self.queries if q.answer is None)

    @property
    def asked_again(self) -> int:
        return sum(1 for q in self.queries if q.restarted)

    @property
    def slowest_ms(self) -> float:
        return max((q.took_ms for q in self.queries), default=0.0)


async def run(lab: Lab, scenario: Scenario, questions: Sequence[str], users: Sequence[str | None], *,
              clients: int = 3, deadline_ms: int = 3_000, before_s: float = 2.0, hold_s: float = 5.0,
              after_s: float = 3.0, say: Callable[[str], None] = lambda _text: None) -> Outcome:
    """Runs ``scenario`` on ``lab`` while ``clients`` ask ``questions`` as ``users``; returns its outcome."""
    stream = QueryStream(lab.spec, lab.url, questions, users, clients=clients, deadline_ms=deadline_ms)
    outcome = Outcome(scenario.name, [], [], recovery_bound_s=scenario.recovery_s, hold_s=hold_s)
    struck: list[Victims] = []
    await stream.start()
    try:
        began = time.monotonic()
        if await stream.until_full(began, timeout=60.0) is None:
            outcome.violations.append(Violation("recovery", "the federation was not at full coverage before the fault"))
        before = await lab.serving()
        await asyncio.sleep(before_s)
        say(f"{scenario.name}: {scenario.description}")
        if scenario.past_deadline:
            outcome.hold_s = hold_s = max(hold_s, deadline_ms / 1000.0 + 1.0)
        struck = await scenario.inject(lab)(lab, hold_s, outcome.faults)
        ended = max((fault.end or fault.start) for fault in outcome.faults) if outcome.faults else time.monotonic()
        touched = {node for fault in outcome.faults for node in fault.nodes}
        recovered = await stream.until_full(ended, timeout=scenario.recovery_s, nodes=touched)
        for fault in outcome.faults:
            fault.recovered = recovered
        if recovered is None:
            outcome.violations.append(Violation("recovery", f"no full coverage within {scenario.recovery_s:.0f} s "
                                                "of the fault's end"))
        else:
            outcome.recovery_s = recovered - ended
        await asyncio.sleep(after_s)
    finally:
        await stream.stop()
    outcome.queries = [q for q in stream.queries if q.start >= began]
    invariants = stream.invariants
    for query in outcome.queries:
        outcome.violations += invariants.check(query, outcome.faults)
        outcome.incomplete += query.answer is not None and not invariants.full(query)
    outcome.violations += await _collateral(lab, before, struck)
    return outcome


async def _collateral(lab: Lab, before: dict[int, set[str]], struck: list[Victims]) -> list[Violation]:
    """Every process the fault did not strike is still serving what it served before."""
    hit = {pid for victims in struck for pid in victims.pids}
    after = await lab.serving()
    return [Violation("collateral", f"process {pid} serving {', '.join(sorted(nodes)) or 'the gateway'} died or "
                      "stopped serving, though no fault struck it")
            for pid, nodes in before.items() if pid not in hit and not nodes <= after.get(pid, set())]


def report(outcomes: list[Outcome]) -> str:
    """A table: per scenario, queries, answered by deadline, incomplete, unanswered, violations, recovery."""
    rows = [("scenario", "queries", "by deadline", "incomplete", "unanswered", "asked again", "slowest",
             "violations", "recovery (bound)")]
    for o in outcomes:
        recovery = f"{o.recovery_s:.1f} s" if o.recovery_s is not None else "never"
        rows.append((o.scenario, str(len(o.queries)), str(o.answered_by_deadline), str(o.incomplete), str(o.unanswered),
                     str(o.asked_again), f"{o.slowest_ms / 1000:.2f} s", str(len(o.violations)),
                     f"{recovery} ({o.recovery_bound_s:.0f} s)"))
    total = [q for o in outcomes for q in o.queries]
    rows.append(("all", str(len(total)), str(sum(o.answered_by_deadline for o in outcomes)),
                 str(sum(o.incomplete for o in outcomes)), str(sum(o.unanswered for o in outcomes)),
                 str(sum(o.asked_again for o in outcomes)), f"{max((q.took_ms for q in total), default=0) / 1000:.2f} s",
                 str(sum(len(o.violations) for o in outcomes)), ""))
    lines = text_table(rows, first_left=True, total=True)
    problems = [f"  {o.scenario} ({_when(o, v)}): {v}" for o in outcomes for v in o.violations]
    if problems:
        lines += ["", "violations:", *problems[:50]]
        if len(problems) > 50:
            lines.append(f"  ... and {len(problems) - 50} more")
    return "\n".join(lines)


def _when(outcome: Outcome, violation: Violation) -> str:
    """When the violating query was asked, relative to the fault's start."""
    if violation.query is None or not outcome.faults:
        return "after"
    return f"t{violation.query.start - outcome.faults[0].start:+.1f} s"
