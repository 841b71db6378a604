"""What the terminal client shows, computed from the wire's messages with no widget in sight.

:class:`Federation` is the live tree: the nodes discovery found (organizations and their units), and
for the question in flight each node's state — ``pending`` until a reply says otherwise, then the
status of its :class:`~bus.messages.NodeReport` with its hit count and latency. :func:`label` says it
in words as well as colour (a terminal may have no colour, a reader may not see it).
:func:`evidence_rows` and :func:`cited_markdown` turn an answer's hits and text into table rows and
Markdown whose ``[n]`` citations link to their rows. The widgets (:mod:`tui.widgets`) only render these.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bus.client import Node
from bus.messages import Hit, NodeReport, Summary
from bus.asking import Answer, OrgResult, folded_heading
from bus.subjects import QUERY_PREFIX

#: Words and a colour for every state a node can be in; the words alone must say it.
STATES = {
    "idle": ("·", "idle", "grey50"),
    "pending": ("…", "pending", "yellow"),
    "successful": ("✓", "successful", "green"),
    "partial": ("◐", "partial", "dark_orange"),
    "timed_out": ("✗", "timed out", "red"),
    "unavailable": ("✗", "unavailable", "red"),
    "denied": ("⊘", "denied", "magenta"),
    "failed": ("✗", "failed", "red"),
    "expired": ("✗", "expired", "red"),
}
#: Frames of the spinner a pending node shows.
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"

_CITATION = re.compile(r"\[(\d+)\]")


@dataclass
class NodeState:
    """One node of the tree and what it did for the current question."""

    path: str
    children: list[str] = field(default_factory=list)
    state: str = "idle"
    report: NodeReport | None = None
    summary: Summary | None = None
    #: The states it went through for the current question, in order.
    seen: list[str] = field(default_factory=list)

    def become(self, state: str) -> None:
        self.state = state
        self.seen.append(state)

    @property
    def name(self) -> str:
        return self.path.rsplit(".", 1)[-1]


def label(node: NodeState, frame: int = 0) -> str:
    """The node's line in the tree, as Rich markup: name, state in words (spinner while pending), hits, latency."""
    mark, words, colour = STATES.get(node.state, ("?", node.state, "white"))
    if node.state == "pending":
        mark = SPINNER[frame % len(SPINNER)]
    text = f"{node.name}  [{colour}]{mark} {words}[/]"
    if node.report is not None and node.state != "pending":
        if node.state in ("successful", "partial"):
            text += f"  {node.report.hits} hits"
        text += f"  {node.report.took_ms:.0f} ms"
    if node.summary is not None:
        status = node.summary.status
        text += "  [italic]summarized[/]" if status == "successful" else f"  [italic]summary {status}[/]"
    return text


class Federation:
    """The federation's tree as discovery found it, and each node's state for the question in flight."""

    def __init__(self) -> None:
        self.nodes: dict[str, NodeState] = {}

    @classmethod
    def discovered(cls, nodes: list[Node]) -> "Federation":
        """The tree of the routers and leaves ``nodes`` lists, and of every child a router or gateway names
        (an organization that is down is still part of the federation)."""
        paths = [node.path for node in nodes if node.role in ("router", "leaf") and node.path]
        paths += [child for node in nodes for child in node.info.metadata.get("children", "").split(",") if child]
        return cls.of(paths)

    @classmethod
    def of(cls, paths) -> "Federation":
        """The tree of ``paths`` (and of every path above them)."""
        tree = cls()
        for path in paths:
            tree._add(path)
        return tree

    def _add(self, path: str) -> None:
        parts = path.split(".")
        for depth in range(1, len(parts) + 1):
            here = ".".join(parts[:depth])
            if here not in self.nodes:
                self.nodes[here] = NodeState(here)
                if depth > 1:
                    self.nodes[".".join(parts[:depth - 1])].children.append(here)
        for node in self.nodes.values():
            node.children.sort()

    @property
    def roots(self) -> list[str]:
        """The organizations, in name order."""
        return sorted(path for path in self.nodes if "." not in path)

    def start(self) -> None:
        """A question was sent: every node is pending until a reply says otherwise."""
        for node in self.nodes.values():
            node.report, node.summary, node.seen = None, None, []
            node.become("pending")

    def apply(self, event: OrgResult | Answer) -> list[str]:
        """Takes in one organization's result (or the final answer); returns the paths whose state changed."""
        reports = dict(event.result.nodes) if isinstance(event, OrgResult) and event.result else {}
        summaries = event.result.summaries if isinstance(event, OrgResult) and event.result else []
        if isinstance(event, OrgResult):
            reports[event.subject] = event.report
        else:
            reports, summaries = event.nodes, event.summaries
        changed = []
        for subject, report in reports.items():
            path = subject.removeprefix(QUERY_PREFIX + ".")
            if subject == path:
                continue  # not a node of the tree (a gateway's own report)
            self._add(path)
            node = self.nodes[path]
            node.report = report
            node.become(report.status)
            changed.append(path)
            if report.status not in ("successful", "partial"):
                # whatever is below a node that did not answer did not answer either
                for below in self.below(path):
                    if self.nodes[below].state == "pending":
                        self.nodes[below].become(report.status)
                        changed.append(below)
        for summary in summaries:
            if summary.path in self.nodes:
                self.nodes[summary.path].summary = summary
                changed.append(summary.path)
        return changed

    def below(self, path: str) -> list[str]:
        """Every node under ``path``."""
        found, todo = [], list(self.nodes[path].children) if path in self.nodes else []
        while todo:
            here = todo.pop()
            found.append(here)
            todo += self.nodes[here].children
        return found

    def pending(self) -> list[str]:
        return [path for path, node in self.nodes.items() if node.state == "pending"]

    def finish(self) -> None:
        """The answer is in (or the question was cancelled): nothing is pending any more."""
        for node in self.nodes.values():
            if node.state == "pending":
                node.become("idle")


@dataclass(frozen=True)
class Row:
    """One row of the evidence table."""

    n: int
    score: float
    where: str
    patient: str
    snippet: str
    hit: Hit


def snippet(hit: Hit, chars: int = 120) -> str:
    """The start of the hit's text on one line (or why there is none)."""
    if hit.withheld:
        return "(released only as a summary)"
    text = " ".join(hit.text.split())
    return text if len(text) <= chars else text[:chars - 1] + "…"


def evidence_rows(hits: list[Hit]) -> list[Row]:
    """The hits as table rows, numbered as the answer cites them (from 1)."""
    return [Row(n, hit.score, hit.path, hit.patient or "", snippet(hit), hit) for n, hit in enumerate(hits, 1)]


def cited_markdown(text: str) -> str:
    """The answer as Markdown, each ``[n]`` a link (``cite:n``) to its evidence row and each line its own paragraph."""
    linked = _CITATION.sub(lambda m: f"[\\[{m[1]}\\]](cite:{m[1]})", text)
    return "\n\n".join(line for line in linked.splitlines() if line.strip())


def citations(text: str) -> list[int]:
    """The passage numbers ``text`` cites, in order of first appearance."""
    return list(dict.fromkeys(int(n) for n in _CITATION.findall(text)))


def passage_details(hit: Hit, per_patient: bool = False) -> str:
    """The whole passage, its metadata and its collapsed copies (``per_patient``: the patient's other passages the
    answer folded into it, :attr:`bus.asking.Answer.per_patient`), as Markdown."""
    lines = [f"**{hit.patient or 'no patient'}** · `{hit.path}` · `{hit.id}` · score {hit.score:.3f}", ""]
    lines.append("*released only as a summary: no text*" if hit.withheld else hit.text.replace("\n", "  \n"))
    if hit.metadata:
        lines += ["", " · ".join(f"{key}: {value}" for key, value in sorted(hit.metadata.items()))]
    if hit.duplicates:
        said = folded_heading(per_patient)
        lines += ["", f"{said[:1].upper()}{said[1:]}: " + ", ".join(f"`{d.path}` `{d.id}`" for d in hit.duplicates)]
    return "\n".join(lines)


def summary_markdown(summary: Summary, hits: list[Hit]) -> str:
    """A router's summary as Markdown: how it was made, then its sentences with their sources."""
    place = {(hit.path, hit.id): n for n, hit in enumerate(hits, 1)}
    head = f"**{summary.path}** — {summary.method}, {summary.status}; {summary.relevant} of {summary.passages} passages relevant"
    lines = [head]
    if summary.error:
        lines.append(f"*{summary.error.reason}*")
    for sentence in summary.sentences:
        cited = ", ".join(f"[\\[{place[(r.path, r.id)]}\\]](cite:{place[(r.path, r.id)]})" if (r.path, r.id) in place
                          else f"`{r.id}`" for r in sentence.sources)
        about = f"{', '.join(sentence.patients)}: " if sentence.patients else ""
        lines.append(f"- {about}{sentence.text} ({cited})")
    return "\n".join(lines)
