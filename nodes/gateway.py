"""The gateway: where a question enters the federation, on ``fed.ask``.

It embeds the question once (so every leaf scores against the same vector), detects patient
names, sends the query to every organization concurrently, and streams to the caller: one
``org_result`` message per organization as soon as its subtree has answered (or failed), then,
when an LLM writes the answer, one ``answer_delta`` message per checked sentence, then one
``final`` message with the merged :class:`~bus.messages.Answer` — and all along a ``heartbeat``
every :data:`bus.client.HEARTBEAT_MS`, so a caller knows within a second if this gateway died
(:func:`bus.client.events` then asks another).

A question that asks for an answer (``summarize``) gets one, cited, made from the hits it returns
and the summaries routers wrote: with no evidence, or evidence scoring under ``answer_min_score``,
the answer says so and no LLM is asked (:data:`summarizer.answer.INSUFFICIENT`); ``llm`` asks the
configured endpoint (:mod:`summarizer.generate`) within the budget the gateway keeps for it, and
falls back to the extractive answer (:mod:`summarizer.answer`) when that fails; ``answer_info``
says which it is and why.

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
from bus.client import HEARTBEAT_MS
from bus.messages import Answer, AnswerDelta, AnswerInfo, AskRequest, ErrorInfo, Heartbeat, OrgResult, Query
from bus.scatter import ChildOutcome, scatter_gather
from bus.subjects import ASK, path_of, query_subject
from nodes._admission import Admission
from nodes._service import NodeService
from nodes.merge import merge
from nodes.names import applied_filter, name_filters
from policies.broker import user_inbox
from policies.gate import Gate
from policies.tokens import ANONYMOUS
from summarizer import generate
from summarizer.answer import INSUFFICIENT, MIN_SCORE, extractive_answer, sufficient

#: The embedder and the name detector read at most this much of a question (the model reads 256
#: tokens, about 1,000 characters, anyway), so an 8,000-character question costs what a short one does.
MAX_ANALYZED_CHARS = 2_000
#: Questions longer than this take the long lane: one at a time, so a burst of them queues (and
#: expires at its deadline) instead of starving short questions.
SHORT_QUESTION_CHARS = 600
#: What the gateway keeps, of an LLM answer's time, for the extractive answer that may have to stand in.
EXTRACTIVE_ANSWER_MS = 400.0


class Gateway(NodeService):
    """Answers :class:`~bus.messages.AskRequest` messages for the organizations ``orgs``."""

    role = "gateway"
    request_model = AskRequest

    def __init__(self, orgs: list[str], embedder_factory: Callable, *, k: int = 10, fetch_k: int = 50,
                 default_budget_ms: float = 2000.0, use_spacy: bool = True, leaves: dict[str, int] | None = None,
                 gate: Gate | None = None, subject: str = ASK, answer_min_score: float = MIN_SCORE, llm=None,
                 admission: Admission | None = None) -> None:
        super().__init__("", subject, default_budget_ms, gate, admission)
        self.answer_min_score = answer_min_score
        #: The LLM that writes answers asked for with ``summarize="llm"`` (:class:`summarizer.llm.LLM`), if any.
        self.llm = llm
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
        trace = (request.headers or {}).get(h.TRACE) or h.new_trace()
        k = self.gate.limit_k(caller, ask.k or self.k, self.path, trace)
        beating = asyncio.get_running_loop().create_task(self._heartbeats(request, trace))
        try:
            await self._handle(request, ask, budget, trace, k)
        finally:
            beating.cancel()

    async def _heartbeats(self, request, trace: str) -> None:
        """Tells the caller every :data:`bus.client.HEARTBEAT_MS` that this gateway is still at work."""
        started = time.monotonic()
        while True:
            await self.respond(request, Heartbeat(elapsed_ms=round((time.monotonic() - started) * 1000.0, 1)),
                               "heartbeat", trace)
            await asyncio.sleep(HEARTBEAT_MS / 1000.0)

    async def _handle(self, request, ask: AskRequest, budget: Budget, trace: str, k: int) -> None:
        if ask.deadline_ms is not None:
            budget = Budget.start(ask.deadline_ms)
        if ask.summarize != "none":  # keep time to write the answer (and for the LLM to, if it is asked)
            llm_ms = self.llm.settings.reserve_ms if ask.summarize == "llm" and self.llm is not None else 0.0
            budget = budget.with_reserve(budget.reserve.plus(EXTRACTIVE_ANSWER_MS + llm_ms))
        started = time.monotonic()
        vector, filters = await self._analyze(ask.question, budget)
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
        if ask.summarize != "none" and answer.error is None:
            async def delta(sentence: str) -> None:
                await self.respond(request, AnswerDelta(text=sentence), "answer_delta", trace)

            answer.answer, answer.answer_info = await self._answer(ask, vector, answer, budget, delta)
            self.counters[f"answers.{answer.answer_info.method}.{answer.answer_info.status}"] += 1
        self.counters["questions"] += 1
        self.counters["partial"] += int(answer.partial)
        await self.respond(request, answer, "final", trace)

    async def _answer(self, ask: AskRequest, vector, answer: Answer, budget: Budget, delta) -> tuple[str | None, AnswerInfo]:
        """The cited answer and how it was made (no text if the deadline passes first: the hits still go out)."""
        started = time.monotonic()
        method = "llm" if ask.summarize == "llm" else "extractive"
        if not sufficient(answer.hits, self.answer_min_score):
            # no evidence: nothing to rank, nobody to name, and no LLM is asked to make something up
            return INSUFFICIENT, AnswerInfo(method=method, status="insufficient",
                                            reason=f"no passage scores {self.answer_min_score:.2f} or more")
        tried = AnswerInfo(method="extractive", status="successful")  # what an LLM that was tried said of itself
        if method == "llm":
            if self.llm is None:
                tried.reason = "no LLM endpoint is configured at this gateway"
            else:
                spend = budget.for_own_work() - EXTRACTIVE_ANSWER_MS
                text, tried = await generate.answer(self.llm, ask.question, answer.hits, answer.summaries, spend, delta)
                if text is not None:
                    return text, tried
        fallback = tried.reason
        text = await self._extractive(vector, answer, budget)
        info = tried.model_copy(update={"method": "extractive", "took_ms": round((time.monotonic() - started) * 1000.0, 2)})
        if text is None:
            return None, info.model_copy(update={"status": "timed_out", "reason": (fallback + "; " if fallback else "")
                                                 + "the deadline passed before the answer"})
        status = "fallback" if fallback else "insufficient" if text == INSUFFICIENT else "successful"
        return text, info.model_copy(update={"status": status})

    async def _extractive(self, vector, answer: Answer, budget: Budget) -> str | None:
        """The cited extractive answer, or ``None`` if the deadline passes first."""
        if budget.expired:
            return None
        work = asyncio.get_running_loop().run_in_executor(None, lambda: extractive_answer(
            vector, answer.hits, self.embedder.embed, min_score=self.answer_min_score, summaries=answer.summaries))
        try:
            return await asyncio.wait_for(work, max(budget.remaining_ms(), 1.0) / 1000.0)
        except asyncio.TimeoutError:
            return None

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
