"""The gateway: where a question enters the federation, on ``fed.ask``.

It embeds the question once (so every leaf scores against the same vector), detects patient
names, sends the query to every organization concurrently, and streams to the caller: one
``org_result`` message per organization as soon as its subtree has answered (or failed), then
one ``final`` message with the merged :class:`~bus.messages.Answer`.

A caller who asked for full coverage (``allow_partial = false``) or a minimum coverage fraction
gets an answer with ``error.type == "coverage"`` and no hits when the federation fell short.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from bus import codec
from bus import headers as h
from bus.budget import Budget
from bus.messages import Answer, AskRequest, ErrorInfo, OrgResult, Query
from bus.scatter import ChildOutcome, scatter_gather
from bus.subjects import ASK, path_of, query_subject
from nodes._service import NodeService
from nodes.merge import merge
from nodes.names import applied_filter, detect_names, name_filters


class Gateway(NodeService):
    """Answers :class:`~bus.messages.AskRequest` messages for the organizations ``orgs``."""

    role = "gateway"

    def __init__(self, orgs: list[str], embedder_factory: Callable, *, k: int = 10, fetch_k: int = 50,
                 default_budget_ms: float = 2000.0, use_spacy: bool = True) -> None:
        super().__init__("", ASK, default_budget_ms)
        self.orgs = list(orgs)
        self.k = k
        self.fetch_k = fetch_k
        self.use_spacy = use_spacy
        self._embedder_factory = embedder_factory
        self.embedder = None

    def describe(self) -> dict[str, str]:
        return {**super().describe(), "children": ",".join(self.orgs)}

    async def start(self, nc) -> None:
        loop = asyncio.get_running_loop()
        # Load the model (and spaCy) before serving, so the first question does not pay for it.
        self.embedder = await loop.run_in_executor(None, self._embedder_factory)
        await loop.run_in_executor(None, detect_names, "warm up Mr. John Smith", self.use_spacy)
        await super().start(nc)

    async def handle(self, request, budget: Budget) -> None:
        ask = codec.decode(request.data, AskRequest)
        if ask.deadline_ms is not None:
            budget = Budget.start(ask.deadline_ms)
        trace = (request.headers or {}).get(h.TRACE) or h.new_trace()
        reply_headers = {h.TRACE: trace}
        loop = asyncio.get_running_loop()
        started = time.monotonic()
        vector = await loop.run_in_executor(None, self.embedder.embed_one, ask.question)
        filters = await loop.run_in_executor(None, name_filters, ask.question, self.use_spacy)
        k = ask.k or self.k
        query = Query.with_vector(vector, question=ask.question, model=self.embedder.fingerprint, k=k,
                                  fetch_k=max(ask.fetch_k or self.fetch_k, k), filters=filters,
                                  collapse=ask.collapse, summarize=ask.summarize)

        async def stream(outcome: ChildOutcome) -> None:
            event = OrgResult(org=path_of(outcome.subject), subject=outcome.subject, report=outcome.report,
                              result=outcome.result)
            await request.respond(codec.encode(event), headers={h.KIND: "org_result", **reply_headers})

        outcomes = await scatter_gather(
            self.nc, [query_subject(org) for org in self.orgs], codec.encode(query),
            budget_ms=budget.for_children(),
            headers={h.KIND: "query", **h.forwardable(request.headers), h.TRACE: trace},
            on_outcome=stream,
        )
        result = merge(outcomes, k, ASK, (time.monotonic() - started) * 1000.0, collapse=ask.collapse)
        answer = Answer(**dict(result), question=ask.question, trace=trace,
                        patients=applied_filter(filters, list(result.names)) if result.filtered else [],
                        embedding=query.embedding if ask.include_embedding else None)
        short = self._shortfall(ask, answer)
        if short:
            answer.error = ErrorInfo(type="coverage", reason=short)
            answer.hits = []
        self.counters["questions"] += 1
        self.counters["partial"] += int(answer.partial)
        await request.respond(codec.encode(answer), headers={h.KIND: "final", **reply_headers})

    @staticmethod
    def _shortfall(ask: AskRequest, answer: Answer) -> str | None:
        fraction = answer.coverage.fraction
        if not ask.allow_partial and answer.partial:
            return (f"full coverage required but only {answer.coverage.successful} of "
                    f"{answer.coverage.total} units answered")
        if fraction < ask.min_coverage:
            return f"coverage {fraction:.2f} is below the required {ask.min_coverage:.2f}"
        return None
