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
from bus.errors import ExpiredError
from bus.messages import Answer, AskRequest, ErrorInfo, OrgResult, Query
from bus.scatter import ChildOutcome, scatter_gather
from bus.subjects import ASK, path_of, query_subject
from nodes._service import NodeService
from nodes.merge import merge
from nodes.names import applied_filter, name_filters
from policies.broker import user_inbox
from policies.gate import Gate
from policies.tokens import ANONYMOUS

#: The embedder and the name detector read at most this much of a question (the model reads 256
#: tokens, about 1,000 characters, anyway), so an 8,000-character question costs what a short one does.
MAX_ANALYZED_CHARS = 2_000
#: Questions longer than this take the long lane: one at a time, so a burst of them queues (and
#: expires at its deadline) instead of starving short questions.
SHORT_QUESTION_CHARS = 600


class Gateway(NodeService):
    """Answers :class:`~bus.messages.AskRequest` messages for the organizations ``orgs``."""

    role = "gateway"
    request_model = AskRequest

    def __init__(self, orgs: list[str], embedder_factory: Callable, *, k: int = 10, fetch_k: int = 50,
                 default_budget_ms: float = 2000.0, use_spacy: bool = True, leaves: dict[str, int] | None = None,
                 gate: Gate | None = None, subject: str = ASK) -> None:
        super().__init__("", subject, default_budget_ms, gate)
        self.orgs = list(orgs)
        self.k = k
        self.fetch_k = fetch_k
        self.use_spacy = use_spacy
        self.max_leaves = {query_subject(org): n for org, n in (leaves or {}).items()}
        self._embedder_factory = embedder_factory
        self.embedder = None
        self._long_lane = asyncio.Semaphore(1)

    def describe(self) -> dict[str, str]:
        return {**super().describe(), "children": ",".join(self.orgs)}

    def may_answer(self, request, caller) -> bool:
        """A signed-in person is answered only on their own inbox, so nobody can direct answers elsewhere."""
        if caller is ANONYMOUS:
            return True
        return request._msg.reply.startswith(user_inbox(caller.iss, caller.sub) + ".")

    async def start(self, nc) -> None:
        if self.embedder is None:
            loop = asyncio.get_running_loop()
            # Load the model (and spaCy) before serving, so the first question does not pay for it.
            self.embedder = await loop.run_in_executor(None, self._embedder_factory)
            await loop.run_in_executor(None, name_filters, "warm up Mr. John Smith", self.use_spacy)
        await super().start(nc)

    async def handle(self, request, ask: AskRequest, budget: Budget, caller) -> None:
        if ask.deadline_ms is not None:
            budget = Budget.start(ask.deadline_ms)
        trace = (request.headers or {}).get(h.TRACE) or h.new_trace()
        started = time.monotonic()
        vector, filters = await self._analyze(ask.question, budget)
        k = ask.k or self.k
        query = Query.with_vector(vector, question=ask.question, model=self.embedder.fingerprint, k=k,
                                  fetch_k=max(ask.fetch_k or self.fetch_k, k), filters=filters,
                                  collapse=ask.collapse, summarize=ask.summarize)

        async def stream(outcome: ChildOutcome) -> None:
            event = OrgResult(org=path_of(outcome.subject), subject=outcome.subject, report=outcome.report,
                              result=outcome.result)
            await self.respond(request, event, "org_result", trace)

        outcomes = await scatter_gather(
            self.nc, [query_subject(org) for org in self.orgs], codec.encode(query),
            budget_ms=budget.for_children(),
            headers={h.KIND: "query", **h.forwardable(request.headers), h.TRACE: trace},
            on_outcome=stream, max_leaves=self.max_leaves,
        )
        result = merge(outcomes, k, self.subject, (time.monotonic() - started) * 1000.0, collapse=ask.collapse)
        answer = Answer(**dict(result), question=ask.question, trace=trace,
                        patients=applied_filter(filters, list(result.names)) if result.filtered else [],
                        embedding=query.embedding if ask.include_embedding else None)
        short = self._shortfall(ask, answer)
        if short:
            answer.error = ErrorInfo(type="coverage", reason=short)
            answer.hits = []
        self.counters["questions"] += 1
        self.counters["partial"] += int(answer.partial)
        await self.respond(request, answer, "final", trace)

    async def _analyze(self, question: str, budget: Budget):
        """Embeds the question and finds its names, within the budget and the CPU's fair share."""
        text = question[:MAX_ANALYZED_CHARS]
        loop = asyncio.get_running_loop()
        if len(question) <= SHORT_QUESTION_CHARS:
            return await self._embed_and_name(loop, text, budget)
        try:
            await asyncio.wait_for(self._long_lane.acquire(), max(budget.remaining_ms(), 0.0) / 1000.0)
        except asyncio.TimeoutError:
            self.counters["expired.queued"] += 1
            raise ExpiredError("the deadline passed while the question waited for the long-question lane") from None
        try:
            return await self._embed_and_name(loop, text, budget)
        finally:
            self._long_lane.release()

    async def _embed_and_name(self, loop, text: str, budget: Budget):
        if budget.expired:
            raise ExpiredError("the deadline passed before the question could be embedded")
        vector = await loop.run_in_executor(None, self.embedder.embed_one, text)
        filters = await loop.run_in_executor(None, name_filters, text, self.use_spacy)
        if budget.expired:
            raise ExpiredError("the deadline passed while the question was being embedded")
        return vector, filters

    @staticmethod
    def _shortfall(ask: AskRequest, answer: Answer) -> str | None:
        fraction = answer.coverage.fraction
        if not ask.allow_partial and answer.partial:
            return (f"full coverage required but only {answer.coverage.successful} of "
                    f"{answer.coverage.total} units answered")
        if fraction < ask.min_coverage:
            return f"coverage {fraction:.2f} is below the required {ask.min_coverage:.2f}"
        return None
