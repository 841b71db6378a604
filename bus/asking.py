"""What a client and a gateway say to each other on ``fed.ask``: the question, what is streamed back, the answer.

:class:`AskRequest` is what a client sends; the gateway streams back :class:`OrgResult` events as
organizations answer, :class:`AnswerDelta` events as an LLM's answer is written and a :class:`Heartbeat`
while it works, then one :class:`Answer`. :class:`Restarted` is never sent: :func:`bus.client.events`
yields it when a question had to be asked again of another gateway. msgpack bodies, validated by pydantic
on both ends, like every message of :mod:`bus.messages`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from bus.messages import (MAX_CONCEPTS, MAX_FETCH_K, MAX_K, MAX_QUESTION_CHARS, ErrorInfo, Hit, Mode, NodeReport, SearchResult,
                          Summarize, _Concept, _Model)


class AskRequest(_Model):
    """A question sent to the gateway on ``fed.ask``; unset numbers take the federation's defaults."""

    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS)
    k: int | None = Field(None, ge=1, le=MAX_K)
    fetch_k: int | None = Field(None, ge=1, le=MAX_FETCH_K)
    deadline_ms: int | None = Field(None, ge=1, le=600_000)
    allow_partial: bool = True
    min_coverage: float = Field(0.0, ge=0.0, le=1.0)
    collapse: bool = True
    summarize: Summarize = "none"
    include_embedding: bool = False
    mode: Mode = "hybrid"


class OrgResult(_Model):
    """Streamed by the gateway as soon as one organization's subtree has answered (or failed)."""

    org: str
    subject: str
    report: NodeReport
    result: SearchResult | None = None


class AnswerDelta(_Model):
    """Streamed by the gateway while an LLM writes the answer: the next checked sentence(s)."""

    text: str


class Heartbeat(_Model):
    """Streamed by the gateway every :data:`bus.client.HEARTBEAT_MS` while it works on a question, so a
    caller whose gateway died learns it within a second instead of at the deadline."""

    elapsed_ms: float = 0.0


class Restarted(_Model):
    """Yielded by :func:`bus.client.events` (never sent) when the gateway went silent mid-question and
    the question was asked again of another gateway: what came before it is void."""

    reason: str
    attempt: int


class AnswerInfo(_Model):
    """How the answer was made.

    Attributes:
        method: ``extractive`` or ``llm`` (what produced the text in :attr:`Answer.answer`).
        status: ``successful``; ``insufficient`` (no evidence, or too weak: nothing was generated; or
            the LLM said the passages do not answer the question);
            ``fallback`` (an LLM was asked but its answer could not be used, see ``reason``: the
            extractive answer stands in); ``timed_out`` (no answer by the deadline).
        confidence: the LLM's mean token probability, when the endpoint reports it.
        dropped: LLM sentences left out: citations missing or of no passage given, or not borne out
            by the passages they cite (:mod:`summarizer.generate`).
    """

    method: Literal["extractive", "llm"]
    status: Literal["successful", "insufficient", "fallback", "timed_out"]
    reason: str = ""
    confidence: float | None = None
    dropped: int = 0
    took_ms: float = 0.0


def folded_heading(per_patient: bool) -> str:
    """How a hit's ``duplicates`` are introduced to a reader: copies of its text, or, in an answer ``per_patient``
    (:attr:`Answer.per_patient`), the patient's other passages."""
    return "more of this patient's passages" if per_patient else "same text also in"


class Answer(SearchResult):
    """The gateway's final message: the merged result for the whole federation.

    Attributes:
        patients: the patient filter the federation applied (empty when the search was not
            restricted); ``names`` says which leaves knew each name.
        per_patient: the question asked which patients, so each patient is one hit: their best passage, listing their
            others among the candidates as its ``duplicates`` (:attr:`bus.messages.Query.per_patient`).
        embedding: the query vector the gateway used, when the request asked for it (so a
            centralized baseline can be searched with exactly the same vector); ``focused``, likewise, the one the
            named patients' passages were scored by (:attr:`bus.messages.Query.focused`), if any.
        terms: the question's terms as the lexical index counts them (for the same reason); ``about``, the things it
            asks about, each as the term lists that mention it, which a hybrid question's fusion favours
            (:func:`nodes.merge.fuse`).
        absent: the question's concepts that no passage the caller may search mentions.
        read_as: the question's misspelled words and how the records spell them, as the gateway read them ("pnemonia":
            "pneumonia", :mod:`nodes.spelling`).
        closest: the hits are only the closest records, not evidence of what was asked: every concept
            of the question is absent, or the patient it is about is held nowhere.
        context: the rest of the record an answer quotes whole (a reference text's, :func:`summarizer.answer.
            quotes_whole_record`): its passages that are not among the hits, in the record's order, fetched from
            the leaf that holds it. The answer cites them after the hits: ``[len(hits) + 1]`` is the first.
    """

    question: str
    answer: str | None = None
    answer_info: AnswerInfo | None = None
    patients: list[str] = Field(default_factory=list)
    trace: str = ""
    error: ErrorInfo | None = None
    embedding: bytes | None = None
    focused: bytes | None = None
    terms: list[str] = Field(default_factory=list)
    about: list[_Concept] = Field(default_factory=list, max_length=MAX_CONCEPTS)
    absent: list[str] = Field(default_factory=list)
    read_as: dict[str, str] = Field(default_factory=dict, max_length=MAX_CONCEPTS)
    closest: bool = False
    context: list[Hit] = Field(default_factory=list)
    per_patient: bool = False

    def falls_short(self) -> str | None:
        """Why the hits are only the closest records, not evidence, if they are — what no record mentions
        (:attr:`closest`), or that the answer found them not enough (``insufficient``, e.g. none of a named
        patient's closest records mentions what is asked) — for a reader to title them so; ``None`` otherwise, and
        without hits (nothing to title). Said as the answer says it (:func:`summarizer.answers.grounded_refusal`)."""
        if not self.hits:
            return None
        if self.closest and self.filtered and not self.names:
            return "no records of " + ", ".join(self.patients)
        if self.closest:
            return "they do not mention " + (" or ".join(self.absent) or "what was asked")
        if self.answer_info is not None and self.answer_info.status == "insufficient":
            return "not enough to answer the question"
        return None

    def respelled(self) -> str | None:
        """How the question's misspelled words were read (:attr:`read_as`), for a reader: "pnemonia → pneumonia";
        ``None`` when none was."""
        return ", ".join(f"{written} → {meant}" for written, meant in self.read_as.items()) or None

    def cited(self) -> list[Hit]:
        """Every passage the answer may cite, in the order of its citations: the hits, then :attr:`context`."""
        return [*self.hits, *self.context]
