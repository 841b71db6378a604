"""A router's summary of its subtree, made within what is left of the router's budget.

:class:`Summarizer` is what a router holds when its spec says ``summarize = "extractive"`` (or
``"llm"``). It tells the router how much more of its budget to keep (:attr:`Summarizer.reserve_ms`)
and, once the children have answered, summarizes every passage they returned in at most the time
left: extractively (:mod:`summarizer.extractive`), or with an LLM (:mod:`summarizer.generate`),
falling back to the extractive summary when the LLM fails, is too slow or not confident enough.
A summary that cannot be made in time is ``timed_out``, never late: the passages still go up.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import Literal

from bus.messages import ErrorInfo, Hit, Query, Summary
from summarizer import extractive, generate


class Summarizer:
    """How one router summarizes.

    Args:
        method: ``extractive``, or ``llm`` (which needs ``llm``).
        llm: the LLM client (:class:`summarizer.llm.LLM`) for ``method="llm"``.
        budget_tokens: about how long a summary may be.
        min_score: a passage must score this much to be summarized at all (decide, then summarize).
    """

    def __init__(self, method: Literal["extractive", "llm"] = "extractive", *, llm=None,
                 budget_tokens: int = extractive.BUDGET_TOKENS, min_score: float = extractive.MIN_SCORE) -> None:
        if method == "llm" and llm is None:
            raise ValueError("an LLM summarizer needs an LLM endpoint (the spec's [llm] table)")
        self.method = method
        self.llm = llm
        self.budget_tokens = budget_tokens
        self.min_score = min_score

    @classmethod
    def default(cls) -> "Summarizer":
        """The extractive summarizer with default settings (a router that releases only summaries uses it)."""
        return _DEFAULT

    @property
    def reserve_ms(self) -> float:
        """How much more of its budget a router keeps for this summarizer."""
        if self.method == "llm":
            return self.llm.settings.reserve_ms + extractive.RESERVE_MS
        return extractive.RESERVE_MS

    def floor(self, named: bool) -> float:
        """The score a passage needs to be summarized: ``min_score`` — but none when the hits are the passages of
        patients the question names (``named``: the subtree held them and searched only theirs), as the gateway's
        answer has none for them (:meth:`summarizer.answers.Answerer.floor`): they are scored by what is asked of
        them, which their records may say in other words, and a summary calling all of them irrelevant would stand
        beside an answer quoting them."""
        return float("-inf") if named else self.min_score

    async def summarize(self, path: str, query: Query, hits: Sequence[Hit], available_ms: float,
                        named: bool = False) -> Summary:
        """The summary of ``hits`` for ``query``, made within ``available_ms`` (``named``: see :meth:`floor`)."""
        started = time.monotonic()

        def left_ms() -> float:
            return available_ms - (time.monotonic() - started) * 1000.0

        floor = self.floor(named)
        if self.method == "llm":
            return await generate.summary(self, path, query, hits, left_ms, floor)
        return await self.extractive(path, query, hits, left_ms(), floor)

    async def extractive(self, path: str, query: Query, hits: Sequence[Hit], available_ms: float,
                         min_score: float) -> Summary:
        """The extractive summary of the ``hits`` scoring ``min_score`` (:meth:`floor`), or a ``timed_out`` one if it
        cannot be made in ``available_ms``."""
        if available_ms <= 0:
            return timed_out(path, "extractive", "no time was left to summarize")
        work = asyncio.get_running_loop().run_in_executor(None, lambda: extractive.summarize(
            query.vector(), hits, path=path, question=query.question, budget_tokens=self.budget_tokens,
            min_score=min_score))
        try:
            return await asyncio.wait_for(work, available_ms / 1000.0)
        except asyncio.TimeoutError:
            return timed_out(path, "extractive", f"the summary did not finish within {available_ms:.0f} ms")


def withdrawn(summaries: Sequence[Summary], why: str) -> list[Summary]:
    """``summaries`` once the gateway has found that the passages they read are only the closest records (they do
    not mention what was asked, ``why``): each that says something (a successful one, or an LLM's failed one with the
    extractive stand-in) ``insufficient``, saying nothing — a summary of them would read like an answer and name
    patients the question is not about. What each read is still counted."""
    return [summary if not (summary.sentences or summary.clusters) else
            Summary(path=summary.path, method=summary.method, status="insufficient", passages=summary.passages,
                    took_ms=summary.took_ms, error=ErrorInfo(type="ungrounded", reason=why))
            for summary in summaries]


def on_topic(summaries: Sequence[Summary], says: Callable[[str], bool], why: str) -> list[Summary]:
    """``summaries`` with only those of their extractive sentences about patients that ``says`` (they mention what the
    question asks about): a router quotes the sentences nearest the question of every passage near enough, and beside
    an answer a sentence of a patient's record that says none of what is asked — the medications of a patient with
    another illness — reads as if it did and names a patient the answer is not about. A summary left with nothing to
    say is ``insufficient`` (``why``), as :func:`withdrawn` makes it; one that had already failed (an LLM's, with the
    extractive stand-in) keeps its status and reason. Kept: sentences about no patient (reference texts need not
    repeat what they are about in every sentence), the clusters the kept sentences come from (renumbered), and an
    LLM's summary, written for the question and checked sentence by sentence against its sources."""
    kept_summaries = []
    for summary in summaries:
        kept = [sentence for sentence in summary.sentences if not sentence.patients or says(sentence.text)]
        if summary.method != "extractive" or len(kept) == len(summary.sentences):
            kept_summaries.append(summary)
        elif not kept and summary.status == "successful":
            kept_summaries.extend(withdrawn([summary], why))
        else:
            used = sorted({sentence.cluster for sentence in kept
                           if sentence.cluster is not None and sentence.cluster < len(summary.clusters)})
            place = {old: new for new, old in enumerate(used)}
            sentences = [sentence.model_copy(update={"cluster": place.get(sentence.cluster)}) for sentence in kept]
            clusters = [summary.clusters[old] for old in used]
            kept_summaries.append(summary.model_copy(update={"sentences": sentences, "clusters": clusters}))
    return kept_summaries


def timed_out(path: str, method: Literal["extractive", "llm"], reason: str) -> Summary:
    """A summary that could not be made by the deadline."""
    return Summary(path=path, method=method, status="timed_out", error=ErrorInfo(type="deadline", reason=reason))


_DEFAULT = Summarizer()
