"""What must hold of every query while faults come and go, and the check of one query against it.

A scenario records what it did to which nodes and when (:class:`Fault`); every query records when
it was asked and answered, by whom, and what came back (:class:`Query`). :class:`Invariants` then
holds each query to the federation's promises:

* **deadline** — it returns by its deadline plus :data:`ANSWER_SLACK_MS`; a question that got no
  answer at all (allowed only while the broker is down) returns by the client's own bound;
* **answered** — it gets an answer unless the broker was down while it was asked;
* **denied** — no passage, summary or summary source from a node the user may not search, and no
  such node reported ``successful``;
* **truthful coverage** — a node reported ``successful`` really answered: it was not down (killed,
  stopped) for the whole query, it is no impostor, every hit comes from a leaf reported successful,
  and the coverage count is the number of leaves reported successful;
* **no collateral** — every leaf untouched by a fault, under routers untouched by one, is
  reported ``successful`` (outside a broker fault, and once a node's own fault has recovered); a
  question asked again after its gateway went silent had only what was left of its deadline, so a
  node that timed out in it timed out because of the fault;
* **recovery** — after a fault ends, full coverage returns within the scenario's bound
  (:meth:`Invariants.recovery`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from bus.asking import Answer
from bus.subjects import QUERY_PREFIX, ancestors, within
from nodes.run.spec import FederationSpec
from policies.explain import access

#: How long past its deadline a question may take to be answered.
ANSWER_SLACK_MS = 1_000.0
#: How long past its deadline a question that gets no answer may take to say so (the client's own bound,
#: :data:`bus.client.SLACK_MS`).
ERROR_SLACK_MS = 2_000.0
#: What an impostor puts in the passages it makes up, so a made-up passage in an answer is caught.
IMPOSTOR_MARK = "IMPOSTOR"

SUCCESS = ("successful", "partial")


@dataclass
class Fault:
    """Something a scenario did to the federation, from ``start`` to ``end`` (monotonic seconds).

    Attributes:
        kind: ``down`` (the nodes cannot answer: killed, stopped, or an impostor stands in for them),
            ``slow`` (they may answer, late or not), ``blip`` (a replica of each was killed at
            ``start``: only queries in flight then may miss them), ``broker`` (the broker, or the
            server some processes were connected to, went away: anything may fail meanwhile).
        nodes: the node paths affected (every node for ``broker``).
        recovered: when full coverage was first seen again after ``end`` (set by the runner).
    """

    kind: str
    nodes: frozenset[str]
    start: float
    end: float | None = None
    recovered: float | None = None

    def overlaps(self, start: float, end: float) -> bool:
        """Whether the fault (up to its recovery) was in effect at some time in ``[start, end]``."""
        until = self.recovered if self.recovered is not None else self.end
        return start <= (until if until is not None else float("inf")) and end >= self.start

    def covers(self, start: float, end: float) -> bool:
        """Whether the fault was in effect for the whole of ``[start, end]``."""
        return self.start <= start and (self.end is None or self.end >= end)


@dataclass
class Query:
    """One question of a scenario's stream and what came of it (monotonic seconds)."""

    user: str | None
    question: str
    deadline_ms: int
    start: float
    end: float = 0.0
    answer: Answer | None = None
    error: str | None = None
    restarted: int = 0

    @property
    def took_ms(self) -> float:
        return (self.end - self.start) * 1000.0


@dataclass
class Violation:
    invariant: str
    detail: str
    query: Query | None = field(default=None, repr=False)

    def __str__(self) -> str:
        who = f" [{self.query.user or 'open'}: {self.query.question[:50]!r}]" if self.query else ""
        return f"{self.invariant}: {self.detail}{who}"


class Invariants:
    """The promises of one federation to each of its users (from the spec's tree and policies)."""

    def __init__(self, spec: FederationSpec) -> None:
        self.spec = spec
        self.paths = [path for path, _ in spec.nodes()]
        self.leaves = list(spec.leaves())
        self._policies = spec.policies()
        self._reach: dict[str | None, dict[str, bool]] = {}

    def reach(self, user: str | None) -> dict[str, bool]:
        """Whether ``user`` (``None``: an open federation's caller) may search each node."""
        if user not in self._reach:
            if user is None or self.spec.identity is None:
                self._reach[user] = {path: True for path in self.paths}
            else:
                attributes = self.spec.attributes(user)
                self._reach[user] = {path: access(attributes, path, self._policies).allowed for path in self.paths}
        return self._reach[user]

    def denied_tops(self, user: str | None) -> list[str]:
        """The highest nodes ``user`` is denied (their parents admit the user): each is reported ``denied``."""
        reach = self.reach(user)
        return [p for p in self.paths if not reach[p] and ("." not in p or reach[p.rsplit(".", 1)[0]])]

    def full(self, query: Query, nodes: Iterable[str] = ()) -> bool:
        """Whether the query's answer has every leaf the user may search ``successful`` — and the user
        may search every leaf under ``nodes`` (so that recovery is seen, not assumed, from an answer)."""
        if query.answer is None:
            return False
        reach = self.reach(query.user)
        nodes = list(nodes)
        if any(not reach[leaf] for leaf in self.leaves if any(within(leaf, node) for node in nodes)):
            return False
        return all(_status(query.answer, leaf) == "successful" for leaf in self.leaves if reach[leaf])

    def check(self, query: Query, faults: Iterable[Fault]) -> list[Violation]:
        """Every invariant ``query`` breaks, given the faults of its scenario."""
        faults = list(faults)
        found: list[Violation] = []

        def violated(invariant: str, detail: str) -> None:
            found.append(Violation(invariant, detail, query))

        during = [f for f in faults if f.overlaps(query.start, query.end)]
        broker_fault = any(f.kind == "broker" for f in during)
        answer = query.answer
        if answer is None:
            if query.took_ms > query.deadline_ms + ERROR_SLACK_MS:
                violated("deadline", f"no answer after {query.took_ms:.0f} ms (deadline {query.deadline_ms} ms)")
            if not broker_fault:
                violated("answered", f"no answer: {query.error}")
            return found
        if query.took_ms > query.deadline_ms + ANSWER_SLACK_MS:
            violated("deadline", f"answered after {query.took_ms:.0f} ms (deadline {query.deadline_ms} ms "
                     f"+ {ANSWER_SLACK_MS:.0f} ms)")
        reach = self.reach(query.user)
        denied = [p for p in self.paths if not reach[p]]
        down = {node for f in faults if f.kind == "down" and f.covers(query.start, query.end) for node in f.nodes}

        for hit in answer.hits:
            if any(within(hit.path, node) for node in denied):
                violated("denied", f"a passage of {hit.path}, which the user may not search")
            if IMPOSTOR_MARK in hit.text:
                violated("coverage", f"a passage an impostor made up, as {hit.path}")
            if _status(answer, hit.path) != "successful":
                violated("coverage", f"a passage of {hit.path}, reported {_status(answer, hit.path)}")
        for summary in answer.summaries:
            sources = [ref.path for sentence in summary.sentences for ref in sentence.sources]
            for path in [summary.path, *sources]:
                if any(within(path, node) for node in denied):
                    violated("denied", f"a summary by or citing {path}, which the user may not search")
        # a blip touches only the queries in flight when it struck
        touched = [node for f in during if f.kind != "blip" or query.start <= f.start <= query.end for node in f.nodes]
        for node in self.denied_tops(query.user):
            status = _status(answer, node)
            if status in SUCCESS:
                violated("denied", f"{node} reported {status}, but the user may not search it")
        for path, status in _statuses(answer).items():
            if status in SUCCESS and any(within(path, node) for node in down):
                violated("coverage", f"{path} reported {status}, but it was down for the whole query")
        successful = sum(1 for leaf in self.leaves if _status(answer, leaf) == "successful")
        if answer.coverage.successful != successful:
            violated("coverage", f"coverage counts {answer.coverage.successful} successful leaves, "
                     f"{successful} are reported successful")
        if broker_fault:
            return found
        failing = set()
        for leaf in self.leaves:
            if not reach[leaf] or any(within(leaf, node) for node in touched) or _status(answer, leaf) == "successful":
                continue
            # name the highest node that failed (a router that timed out hides its leaves)
            top = next((p for p in ancestors(leaf) if _status(answer, p) not in (None, *SUCCESS)), leaf)
            if query.restarted and _status(answer, top) == "timed_out":
                continue  # the question's second try had only the rest of its deadline
            failing.add(top)
        for node in sorted(failing):
            violated("collateral", f"{node} reported {_status(answer, node)}, though no fault touched it")
        return found

    @staticmethod
    def recovery(fault: Fault) -> float | None:
        """Seconds from the end of ``fault`` to the first answer with full coverage after it."""
        if fault.end is None or fault.recovered is None:
            return None
        return max(0.0, fault.recovered - fault.end)


def _statuses(answer: Answer) -> dict[str, str]:
    return {subject.removeprefix(QUERY_PREFIX + "."): report.status for subject, report in answer.nodes.items()
            if subject.startswith(QUERY_PREFIX + ".")}


def _status(answer: Answer, path: str) -> str | None:
    report = answer.nodes.get(f"{QUERY_PREFIX}.{path}")
    return report.status if report is not None else None
