"""A leaf: one index and its passages, answering queries on ``fed.q.<path>``.

For each query the leaf checks the embedding model's fingerprint (scores from different models
are not comparable), asks the gate whether the caller may search here, searches ``fetch_k``
candidates, drops what the caller may not see or the filters exclude, and keeps ``k``.
"""

from __future__ import annotations

import asyncio
import time

from bus import codec
from bus.budget import Budget
from bus.errors import ExpiredError, ModelMismatchError
from bus.messages import Coverage, Hit, NodeReport, Query, SearchResult
from bus.subjects import org_of, query_subject
from nodes._service import NodeService
from nodes.store import LeafStore
from policies.gate import AllowAll, Gate


class Leaf(NodeService):
    """Serves one :class:`~nodes.store.LeafStore`."""

    role = "leaf"

    def __init__(self, path: str, store: LeafStore, *, gate: Gate | None = None,
                 default_budget_ms: float = 2000.0) -> None:
        super().__init__(path, query_subject(path), default_budget_ms)
        self.store = store
        self.gate = gate or AllowAll()

    def describe(self) -> dict[str, str]:
        return {**super().describe(), "passages": str(len(self.store)), "model": self.store.fingerprint}

    async def handle(self, request, budget: Budget) -> SearchResult:
        query = codec.decode(request.data, Query)
        if budget.expired:
            raise ExpiredError(f"request reached {self.path} with no budget left ({budget.total_ms:.0f} ms)")
        if query.model != self.store.fingerprint:
            raise ModelMismatchError(
                f"query embedded with {query.model!r} but {self.path} indexes with {self.store.fingerprint!r}; "
                "scores from different models are not comparable")
        vector = query.vector()
        if len(vector) != self.store.index.dim:
            raise ModelMismatchError(f"query vector has {len(vector)} dimensions, {self.path} expects {self.store.index.dim}")
        context = self.gate.check(request.headers or {}, self.path)
        started = time.monotonic()
        found = await asyncio.get_running_loop().run_in_executor(
            None, lambda: self.store.search(vector, query.k, query.fetch_k, query.filters.patients,
                                            lambda passage: self.gate.visible(context, passage)))
        hits = [Hit(id=p.id, org=org_of(self.path), path=self.path, score=score, text=p.text, patient=p.patient,
                    metadata={**p.metadata, "record_id": p.record_id}) for p, score in found]
        took = (time.monotonic() - started) * 1000.0
        self.counters["queries"] += 1
        self.counters["hits"] += len(hits)
        coverage = Coverage()
        coverage.count("successful")
        return SearchResult(hits=hits, took_ms=round(took, 2), coverage=coverage,
                            nodes={self.subject: NodeReport(status="successful", took_ms=round(took, 2), hits=len(hits))})
