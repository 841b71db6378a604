"""A gateway's cited answer, made within what is left of the question's budget.

:class:`Answerer` is the gateway's counterpart of a router's :class:`summarizer.summaries.Summarizer`.
It tells the gateway how much of its budget to keep for the answer (:meth:`Answerer.reserve_ms`) and,
once the federation's evidence is merged, writes the answer: when the records hold nothing of what was
asked (the evidence is only the closest records: :attr:`bus.asking.Answer.closest`), with no evidence,
or with evidence scoring under ``min_score``, it says so and why (:func:`summarizer.answer.insufficient`),
names nobody, and no LLM is asked; an
``llm`` answer asks the configured endpoint (:mod:`summarizer.generate`), streaming each checked
sentence through ``delta``, and falls back to the extractive answer (:mod:`summarizer.answer`) when
that fails; :class:`~bus.asking.AnswerInfo` says which it is and why. An answer that cannot be made
by the deadline is ``timed_out``, never late: the evidence still goes out.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping

import numpy as np

from bus.budget import Budget
from bus.messages import Summarize
from bus.asking import Answer, AnswerInfo
from summarizer import generate
from summarizer.answer import INSUFFICIENT, MIN_SCORE, Focus, extractive_answer, insufficient, is_insufficient, sufficient

#: What the gateway keeps, of an LLM answer's time, for the extractive answer that may have to stand in.
EXTRACTIVE_ANSWER_MS = 400.0


def grounded_refusal(evidence: Answer) -> str:
    """Why the records cannot answer: the patient asked about is held nowhere, or nothing the question names
    is mentioned anywhere the caller may search."""
    if evidence.filtered and not evidence.names:
        return "no records of " + ", ".join(evidence.patients)
    return "no record searched mentions " + " or ".join(evidence.absent)


class Answerer:
    """How one gateway answers.

    Args:
        embed: the gateway's embedder's ``embed`` (the extractive answer ranks sentences with the same
            model that ranked the passages).
        llm: the LLM client (:class:`summarizer.llm.LLM`) for answers asked with ``summarize="llm"``, if any.
        min_score: the evidence floor: below this best score there is no answer.
    """

    def __init__(self, embed: Callable, *, llm=None, min_score: float = MIN_SCORE) -> None:
        self.embed = embed
        self.llm = llm
        self.min_score = min_score

    def reserve_ms(self, summarize: Summarize) -> float:
        """How much of its budget a gateway keeps for an answer asked for as ``summarize``."""
        if summarize == "none":
            return 0.0
        llm_ms = self.llm.settings.reserve_ms if summarize == "llm" and self.llm is not None else 0.0
        return EXTRACTIVE_ANSWER_MS + llm_ms

    def floor(self, evidence: Answer, focus: Focus = Focus()) -> float:
        """The similarity the best hit of ``evidence`` must reach for an answer: ``min_score`` — but none for the hits
        of patients a question names (:attr:`bus.asking.Answer.filtered`): they are the patients asked about, scored by
        what is asked of them (:attr:`bus.messages.Query.focused`) or, asked only whom or why, by a question holding
        their name, which lifts every passage of theirs over the floor. Whether their records say what is asked is
        for the question's concepts to tell (the gateway's grounding and focus) and for each quoted sentence's floor.
        None either when some hit says what is asked as it is asked (``focus.told``): "Disposition: against medical
        advice" in a record's header of fields (0.33 to "Which patients left the hospital against medical advice?")."""
        return float("-inf") if evidence.of_named or focus.told else self.min_score

    async def answer(self, summarize: Summarize, question: str, vector: np.ndarray, evidence: Answer, budget: Budget,
                     delta: Callable[[str], Awaitable[None]], sentences: Mapping[str, np.ndarray] | None = None,
                     focus: Focus = Focus()) -> tuple[str | None, AnswerInfo]:
        """The cited answer to ``question`` from ``evidence`` (its hits and summaries) and how it was made
        (no text if the deadline passes first). ``sentences``: vectors of the evidence's sentences already known
        (stored at ingestion), which the extractive answer looks up instead of embedding them. ``focus``: what of the
        evidence the extractive answer leans on (:class:`summarizer.answer.Focus`)."""
        started = time.monotonic()
        method = "llm" if summarize == "llm" else "extractive"
        if evidence.closest:
            # the records hold nothing of what was asked: the hits are only the closest records
            why = grounded_refusal(evidence)
            return insufficient(why), AnswerInfo(method=method, status="insufficient", reason=why)
        if not sufficient(evidence.hits, self.floor(evidence, focus)):
            # no evidence: nothing to rank, nobody to name, and no LLM is asked to make something up — and why, when
            # the focus knows what the closest records say instead ("mention statin, none as started")
            if focus.unsaid:
                return insufficient(focus.unsaid), AnswerInfo(method=method, status="insufficient", reason=focus.unsaid)
            return INSUFFICIENT, AnswerInfo(method=method, status="insufficient",
                                            reason=f"no passage scores {self.min_score:.2f} or more")
        tried = AnswerInfo(method="extractive", status="successful")  # what an LLM that was tried said of itself
        if method == "llm":
            if self.llm is None:
                tried.reason = "no LLM endpoint is configured at this gateway"
            else:
                spend = budget.for_own_work() - EXTRACTIVE_ANSWER_MS
                text, tried = await generate.answer(self.llm, question, evidence.hits, evidence.summaries, spend, delta)
                if text is not None:
                    return text, tried
        fallback = tried.reason
        text = await self.extractive(vector, evidence, budget, question, sentences, focus)
        info = tried.model_copy(update={"method": "extractive", "took_ms": round((time.monotonic() - started) * 1000.0, 2)})
        if text is None:
            return None, info.model_copy(update={"status": "timed_out", "reason": (fallback + "; " if fallback else "")
                                                 + "the deadline passed before the answer"})
        if is_insufficient(text) and not fallback:  # no sentence says what is asked: why, when the focus knows
            return text, info.model_copy(update={"status": "insufficient", "reason": focus.unsaid})
        return text, info.model_copy(update={"status": "fallback" if fallback else "successful"})

    async def extractive(self, vector: np.ndarray, evidence: Answer, budget: Budget, question: str = "",
                         sentences: Mapping[str, np.ndarray] | None = None,
                         focus: Focus = Focus()) -> str | None:
        """The cited extractive answer, or ``None`` if the deadline passes first; the ``sentences`` whose vectors
        are known are looked up, the others embedded."""
        if budget.expired:
            return None
        known = sentences or {}

        def embed(texts: list[str]) -> np.ndarray:
            rest = [text for text in texts if text not in known]
            made = dict(zip(rest, self.embed(rest))) if rest else {}
            return np.stack([known[text] if text in known else made[text] for text in texts])

        work = asyncio.get_running_loop().run_in_executor(None, lambda: extractive_answer(
            vector, evidence.cited(), embed, min_score=self.floor(evidence, focus), summaries=evidence.summaries,
            question=question, focus=focus))
        try:
            return await asyncio.wait_for(work, max(budget.remaining_ms(), 1.0) / 1000.0)
        except asyncio.TimeoutError:
            return None
