"""A leaf: one index and its passages, answering queries on ``fed.q.<path>``.

For each query the leaf checks the embedding model's fingerprint (scores from different models
are not comparable), asks the gate whether the caller may search here, resolves the question's
patient names against the patients it holds (:class:`bus.messages.Filters`), then takes
candidates from its index in growing batches until its top ``k`` is certain
(:func:`nodes.merge.search_complete`), dropping what the caller may not see and collapsing copies
of the same evidence. A query that asks for ``vectors`` (a summarizing router above) gets each
hit's stored vector with it.
"""

from __future__ import annotations

import asyncio
import time

import numpy as np

from bus import headers as h
from bus.budget import Budget
from bus.errors import ModelMismatchError
from bus.messages import MAX_FETCH_K, Coverage, Hit, NodeReport, Query, SearchResult
from bus.subjects import org_of, query_subject
from nodes._admission import Admission
from nodes._service import NodeService
from nodes.data.index import TOLERANCE
from nodes.merge import Candidates, digest, search_complete
from nodes.data.chunking import Passage
from nodes.data.ingest import Ingestor
from nodes.data.store import LeafStore
from policies.gate import Gate


class Leaf(NodeService):
    """Serves one :class:`~nodes.data.store.LeafStore`."""

    role = "leaf"

    request_model = Query

    def __init__(self, path: str, store: LeafStore, *, gate: Gate | None = None,
                 default_budget_ms: float = 2000.0, ingestor: Ingestor | None = None,
                 admission: Admission | None = None) -> None:
        super().__init__(path, query_subject(path), default_budget_ms, gate, admission)
        self.store = store
        self.ingestor = ingestor

    def describe(self) -> dict[str, str]:
        return {**super().describe(), "passages": str(len(self.store)), "model": self.store.fingerprint,
                "ingest": "yes" if self.ingestor else "no"}

    async def start(self, nc) -> None:
        """Serves queries and, if it takes records live, consumes its ingestion subject."""
        await super().start(nc)
        if self.ingestor is not None:
            await self.ingestor.start(nc)

    async def stop(self) -> None:
        if self.ingestor is not None:
            await self.ingestor.stop()
        await super().stop()

    async def handle(self, request, query: Query, budget: Budget, caller) -> SearchResult:
        if query.model != self.store.fingerprint:
            raise ModelMismatchError(
                f"query embedded with {query.model!r} but {self.path} indexes with {self.store.fingerprint!r}; "
                "scores from different models are not comparable")
        if len(query.vector()) != self.store.index.dim:
            raise ModelMismatchError(f"query vector has {len(query.vector())} dimensions, "
                                     f"{self.path} expects {self.store.index.dim}")
        started = time.monotonic()
        trace = (request.headers or {}).get(h.TRACE, "")
        k = self.gate.limit_k(caller, query.k, self.path, trace)
        if k != query.k:
            query = query.model_copy(update={"k": k})
        hidden = 0

        def visible(passage: Passage) -> bool:
            nonlocal hidden
            seen = self.gate.visible(caller, passage.metadata)
            hidden += not seen
            return seen

        hits, known, filtered = await asyncio.get_running_loop().run_in_executor(None, self.search, query, visible)
        self.gate.hidden(caller, self.path, trace, hidden)
        took = (time.monotonic() - started) * 1000.0
        self.counters["queries"] += 1
        self.counters["hits"] += len(hits)
        coverage = Coverage()
        coverage.count("successful")
        return SearchResult(hits=hits, took_ms=round(took, 2), coverage=coverage, filtered=filtered,
                            names={name: [self.path] for name in known},
                            nodes={self.subject: NodeReport(status="successful", took_ms=round(took, 2), hits=len(hits))})

    def search(self, query: Query, visible) -> tuple[list[Hit], list[str], bool]:
        """This leaf's top k for ``query``: the hits, the question's names it knows, and whether it filtered by name."""
        vector = query.vector()
        names = list(dict.fromkeys(query.filters.patients + query.filters.candidates))
        known = self.store.known_patients(names)

        def hits_of(labels) -> list[Hit]:
            return [self._hit(passage, score, stored if query.vectors else None)
                    for passage, score, stored in self.store.scored(labels, vector) if visible(passage)]

        if known or query.filters.patients:
            # A name narrows the set so much that the index's nearest neighbours could all be other
            # patients': score that patient's passages directly (none when no name is known here).
            labels = self.store.labels_of_patients(known)

            def fetch(n: int) -> Candidates:
                return Candidates(hits_of(labels), bound=float("-inf"), exhausted=True)
        else:
            def fetch(n: int) -> Candidates:
                labels, approx = self.store.index.search(vector, n)
                bound = float(approx.min()) + TOLERANCE if len(approx) else float("-inf")
                return Candidates(hits_of(labels), bound=bound, exhausted=len(labels) >= len(self.store))

        hits = search_complete(fetch, query.k, query.fetch_k, limit=MAX_FETCH_K, collapse=query.collapse)
        return hits, known, bool(known or query.filters.patients)

    def _hit(self, passage: Passage, score: float, vector=None) -> Hit:
        return Hit(id=passage.id, org=org_of(self.path), path=self.path, score=score, text=passage.text,
                   patient=passage.patient, metadata={**passage.metadata, "record_id": passage.record_id},
                   digest=digest(passage.body, passage.patient),
                   vector=None if vector is None else np.asarray(vector, dtype="<f4").tobytes())
