"""Merging children's results: one node's evidence, reports, names and summaries from its children's.

Hits keep the one total order and copies collapse as at a leaf (:func:`nodes.data.topk.select`), so a
merge of merges gives what one merge over every leaf would: federated top-k equals centralized top-k,
ties and copies included.
"""

from __future__ import annotations

from bus.messages import Coverage, Hit, NodeReport, SearchResult
from bus.scatter import ChildOutcome
from nodes.data.topk import select


def pooled(outcomes: list[ChildOutcome]) -> list[Hit]:
    """Every hit the children returned, except that children which restricted their search to named
    patients win over children that could not (see :class:`bus.messages.Filters`)."""
    results = [o.result for o in outcomes if o.result is not None]
    filtered = any(r.filtered for r in results)
    return [hit for r in results if r.filtered or not filtered for hit in r.hits]


def merge(outcomes: list[ChildOutcome], k: int, subject: str, took_ms: float, *, collapse: bool = True) -> SearchResult:
    """Combines the children's outcomes into this node's result: the top ``k`` of :func:`pooled`, every
    report, name and summary.

    Args:
        outcomes: one per child, as returned by :func:`bus.scatter.scatter_gather`.
        k: how many hits to keep.
        subject: this node's subject, under which its own report is filed.
        took_ms: how long this node took.
        collapse: fold copies of the same evidence (see :func:`select`).
    """
    coverage = Coverage()
    nodes: dict[str, NodeReport] = {}
    names: dict[str, list[str]] = {}
    summaries = []
    for outcome in outcomes:
        coverage.add(outcome.coverage)
        if outcome.result is not None:
            nodes.update(outcome.result.nodes)
            summaries.extend(outcome.result.summaries)
            for name, where in outcome.result.names.items():
                names.setdefault(name, []).extend(where)
        nodes[outcome.subject] = outcome.report  # the parent's view: status, time including transit
    partial = any(o.status != "successful" for o in outcomes)
    timed_out = any(o.status == "timed_out" or (o.result is not None and o.result.timed_out) for o in outcomes)
    kept = select(pooled(outcomes), k, collapse=collapse)
    filtered = any(o.result is not None and o.result.filtered for o in outcomes)
    nodes[subject] = NodeReport(status="partial" if partial else "successful", took_ms=round(took_ms, 2), hits=len(kept))
    return SearchResult(hits=kept, took_ms=round(took_ms, 2), timed_out=timed_out, partial=partial,
                        coverage=coverage, nodes=nodes, filtered=filtered,
                        names={name: sorted(set(where)) for name, where in sorted(names.items())}, summaries=summaries)
