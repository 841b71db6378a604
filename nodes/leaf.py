"""A leaf: one retriever over its records, answering queries on ``fed.q.<path>``.

For each query the leaf checks the embedding model's fingerprint (scores from different models
are not comparable), lowers ``k`` to what the caller may read (:meth:`policies.gate.Gate.limit_k`), and
asks its retriever (:mod:`nodes.data.retrievers`) for its complete top ``k`` of what the caller may see
(:meth:`policies.gate.Gate.visible`, per passage), counting what was hidden. A query that asks for
``vectors`` (a summarizing router above) gets each hit's stored vector with it. A query that wants
``stats`` gets, instead of hits, what the passages the caller may see hold of its words; one that wants a
``record`` gets every passage of the records it names that the caller may see. A search that asks to ``recount`` gets
those counts beside its hits (the gateway searched with counts it remembered, and checks them: :mod:`nodes.counts`).
A hybrid query from a router of the same process comes with ``weigh`` false: the router weighs its hits' best
sentences once its merge has chosen which go up (:func:`weigh_here`), most of what its leaves send going no further.
"""

from __future__ import annotations

import asyncio
import time

import numpy as np

from bus import headers as h
from bus.budget import Budget
from bus.errors import ModelMismatchError
from bus.messages import CollectionStats, Coverage, Hit, NodeReport, Query, SearchResult
from bus.subjects import query_subject
from nodes._admission import Admission
from nodes._service import NodeService
from nodes.data.ingest import Ingestor, changed
from nodes.data.retrievers import Retriever, weigh
from nodes.merge import capped, distinct
from policies.gate import Gate


#: The leaves serving parents in this process, by path (what :func:`weigh_here` asks).
_HERE: dict[str, "Leaf"] = {}


def weigh_here(hits: list[Hit], vector: np.ndarray, *, at_once: bool = False) -> bool:
    """Weighs the best sentences (:attr:`Hit.sentence`) of those of ``hits`` whose leaf serves in this process —
    what a router kept of its leaves' hits of a hybrid query it asked them not to weigh (``weigh`` false) —
    their sentences from their own leaf, all weighed at once. Hits of other processes' leaves were weighed there;
    withheld ones by the router that withheld their text. ``at_once`` (on an event loop, where a hop to a worker
    thread would cost more than the weighing), only if every leaf has their sentences at hand
    (:meth:`~nodes.data.retrievers.Retriever.sentence_rows_at_hand`); returns whether it weighed."""
    by_leaf: dict[Leaf, list[Hit]] = {}
    for hit in hits:
        leaf = _HERE.get(hit.path)
        if leaf is not None and not hit.withheld:
            by_leaf.setdefault(leaf, []).append(hit)
    rows: list[np.ndarray | None] = []
    for leaf, group in by_leaf.items():
        found = leaf.retriever.sentence_rows_at_hand(group) if at_once else leaf.retriever.sentence_rows(group)
        if found is None:
            return False
        rows += found
    for leaf, group in by_leaf.items():
        leaf.counters["sentences.weighed"] += len(group)
    weigh([hit for group in by_leaf.values() for hit in group], rows, vector)
    return True


class Leaf(NodeService):
    """Serves one :class:`~nodes.data.retrievers.Retriever` (and, with an ``ingestor``, takes records live)."""

    role = "leaf"

    request_model = Query

    def __init__(self, path: str, retriever: Retriever, *, gate: Gate | None = None,
                 default_budget_ms: float = 2000.0, ingestor: Ingestor | None = None,
                 admission: Admission | None = None) -> None:
        super().__init__(path, query_subject(path), default_budget_ms, gate, admission)
        self.retriever = retriever
        self.ingestor = ingestor

    def describe(self) -> dict[str, str]:
        return {**super().describe(), "passages": str(len(self.retriever)), "model": self.retriever.fingerprint,
                "ingest": "yes" if self.ingestor else "no"}

    async def start(self, nc, *, here: bool = True) -> None:
        """Serves queries and, if it takes records live, consumes its ingestion subject."""
        await super().start(nc, here=here)
        if here:
            _HERE[self.path] = self
        await changed(nc, self.path)  # what it holds, or whom it lets search it, may not be what it was
        if self.ingestor is not None:
            await self.ingestor.start(nc)

    async def stop(self) -> None:
        if _HERE.get(self.path) is self:
            del _HERE[self.path]
        if self.ingestor is not None:
            await self.ingestor.stop()
        await super().stop()

    def _check_model(self, query: Query) -> None:
        if query.model != self.retriever.fingerprint:
            raise ModelMismatchError(
                f"query embedded with {query.model!r} but {self.path} indexes with {self.retriever.fingerprint!r}; "
                "scores from different models are not comparable")
        if len(query.vector()) != self.retriever.dim:
            raise ModelMismatchError(f"query vector has {len(query.vector())} dimensions, "
                                     f"{self.path} expects {self.retriever.dim}")

    async def _count(self, query: Query, caller) -> CollectionStats:
        """What the passages the caller may see hold of the query's terms and concepts — counted from memory at once
        when it can be (the terms of recent questions, no write under way, nothing hidden from the caller): a hop to
        a worker thread costs more than the counting."""
        if self.gate.filters_passages(caller):
            return await asyncio.get_running_loop().run_in_executor(
                None, self.retriever.stats, query, lambda metadata: self.gate.visible(caller, metadata))
        stats = self.retriever.stats_at_hand(query)
        self.counters["stats.at_hand"] += stats is not None
        if stats is None:
            stats = await asyncio.get_running_loop().run_in_executor(None, self.retriever.stats, query, None)
        return stats

    async def handle(self, request, query: Query, budget: Budget, caller) -> SearchResult:
        if query.want != "stats":
            self._check_model(query)
        started = time.monotonic()
        trace = (request.headers or {}).get(h.TRACE, "")
        k = self.gate.limit_k(caller, query.k, self.path, trace)
        if k != query.k:
            query = query.model_copy(update={"k": k})
        hidden = 0

        def visible(metadata: dict) -> bool:
            nonlocal hidden
            seen = self.gate.visible(caller, metadata)
            hidden += not seen
            return seen

        loop = asyncio.get_running_loop()
        coverage = Coverage()
        coverage.count("successful")
        if query.want == "stats":
            stats = await self._count(query, caller)
            took = round((time.monotonic() - started) * 1000.0, 2)
            self.counters["stats"] += 1
            return SearchResult(stats=stats, took_ms=took, coverage=coverage,
                                nodes={self.subject: NodeReport(status="successful", took_ms=took)})
        found = await loop.run_in_executor(None, self.retriever.search, query, visible)
        stats = await self._count(query, caller) if query.recount and query.want == "hits" else None
        self.counters["stats.recounted"] += stats is not None
        self.gate.hidden(caller, self.path, trace, hidden)
        hits, lexical = capped(found.hits, found.lexical, self.gate.max_passages(caller))
        took = round((time.monotonic() - started) * 1000.0, 2)
        self.counters["queries"] += 1
        self.counters["hits"] += distinct(hits, lexical)
        if query.mode == "hybrid" and query.weigh:
            self.counters["sentences.weighed"] += distinct(found.hits, found.lexical)
        return SearchResult(hits=hits, lexical=lexical, took_ms=took, coverage=coverage, stats=stats,
                            filtered=found.filtered, names={name: [self.path] for name in found.known},
                            nodes={self.subject: NodeReport(status="successful", took_ms=took,
                                                            hits=distinct(hits, lexical))})
