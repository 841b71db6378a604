"""Merging children's outcomes into one result: top-k by score, coverage added, reports kept.

Scores from every leaf are cosine similarities from the same model, so they compare directly;
ties are broken by passage id so that the merge, and therefore the federation's top-k, is
deterministic and equal to a centralized index's top-k over the same passages.
"""

from __future__ import annotations

from bus.messages import Coverage, Hit, NodeReport, SearchResult
from bus.scatter import ChildOutcome


def rank(hits: list[Hit], k: int) -> list[Hit]:
    """The best ``k`` hits, by score then id."""
    return sorted(hits, key=lambda hit: (-hit.score, hit.id))[:k]


def merge(outcomes: list[ChildOutcome], k: int, subject: str, took_ms: float) -> SearchResult:
    """Combines the children's outcomes into this node's result.

    Args:
        outcomes: one per child, as returned by :func:`bus.scatter.scatter_gather`.
        k: how many hits to keep.
        subject: this node's subject, under which its own report is filed.
        took_ms: how long this node took.
    """
    coverage = Coverage()
    nodes: dict[str, NodeReport] = {}
    hits: list[Hit] = []
    for outcome in outcomes:
        coverage.add(outcome.coverage)
        if outcome.result is not None:
            hits.extend(outcome.result.hits)
            nodes.update(outcome.result.nodes)
        nodes[outcome.subject] = outcome.report  # the parent's view: status, time including transit
    partial = any(o.status != "successful" for o in outcomes)
    timed_out = any(o.status == "timed_out" or (o.result is not None and o.result.timed_out) for o in outcomes)
    kept = rank(hits, k)
    nodes[subject] = NodeReport(status="partial" if partial else "successful", took_ms=round(took_ms, 2), hits=len(kept))
    return SearchResult(hits=kept, took_ms=round(took_ms, 2), timed_out=timed_out, partial=partial,
                        coverage=coverage, nodes=nodes)
