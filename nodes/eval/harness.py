"""Running a labelled set: its federation built and started, every question asked once per ranking mode.

:func:`run` writes the set's federation into a state folder (:meth:`~nodes.eval.sets.LabelledSet.write`),
brings its leaf stores up to date (embedding only text they have never seen), starts it with its broker
(:func:`nodes.run.federation.launched`) and asks each question through the gateway — ``k`` = 10, the
ranking ``mode``, a cited extractive answer — once per mode, one at a time. For each it keeps an
:class:`Outcome`: the records the hits rank (:func:`ranked_records`), the answer's status, its ROUGE-L
against the gold answer (citation markers stripped) beside the top passage's, and, in the dense mode,
the ranking of an exact centralized index over every passage searched with the very query vector, terms
and patient filter the gateway used and ranked the same way (:class:`nodes.run.baseline.CentralIndex`) —
the federation promises the two are identical, in every mode. :class:`~nodes.eval.report.EvalResult` adds them up.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bus.client import ask
from bus.errors import AskError, SpecError
from bus.messages import Hit
from bus.asking import Answer, AskRequest
from nodes.data import embedder as emb
from nodes.eval.metrics import rouge_l
from nodes.eval.report import K, EvalResult, Outcome
from nodes.eval.sets import LabelledSet, Question
from nodes.run.assemble import build_leaves, sign_in
from nodes.run.baseline import CentralIndex
from nodes.run.federation import launched
from nodes.run.spec import FederationSpec
from policies.access import Credentials, connect_as
from summarizer.answer import record_of, record_of_passage

#: The ranking modes a question can be asked in (:class:`bus.asking.AskRequest`'s ``mode``).
MODES = ("dense", "lexical", "hybrid")
#: Each question's budget: generous, so a busy machine measures relevance, not deadlines.
ASK_DEADLINE_MS = 60_000

_CITATION = re.compile(r"\s*\[\d+\]")


def ranked_records(hits: Sequence[Hit], copies: bool = True) -> list[str]:
    """The records the hits stand for, in rank order: each hit's record, then the records of the copies of
    its text it collapsed (they hold the same words; not with ``copies`` false: the hits of a question asking which
    patients fold in each patient's other passages, which say other things — :attr:`bus.asking.Answer.per_patient`);
    repeats are left for the metrics to skip."""
    records = []
    for hit in hits:
        records.append(record_of(hit))
        if copies:
            records += [record_of_passage(copy.id) for copy in hit.duplicates]
    return records


def strip_citations(answer: str) -> str:
    """An extractive answer without its ``[n]`` markers."""
    return _CITATION.sub("", answer)


def names_somebody(text: str, people: Sequence[str]) -> bool:
    """Whether ``text`` names one of ``people`` (case ignored)."""
    lowered = text.lower()
    return any(person.lower() in lowered for person in people)


def parse_modes(text: str) -> tuple[str, ...]:
    """``dense,lexical`` as modes, in the order given.

    Raises:
        SpecError: a name is not a ranking mode (the message lists those there are).
    """
    modes = tuple(dict.fromkeys(m.strip() for m in text.split(",") if m.strip()))
    unknown = [m for m in modes if m not in MODES]
    if unknown or not modes:
        raise SpecError(f"unknown ranking mode {', '.join(map(repr, unknown)) or '(none given)'} (known: {', '.join(MODES)})")
    return modes


async def run(labelled: LabelledSet, folder: Path, *, modes: Sequence[str] = MODES, limit: int | None = None,
              offset: int = 0, url: str | None = None, processes: bool = False, embedder_factory: Callable = emb.shared,
              verbose: bool = True, say: Callable[[str], None] | None = None) -> EvalResult:
    """Asks ``labelled``'s questions (at most ``limit``) of its federation, once per mode.

    Args:
        labelled: the set.
        folder: its state folder (the spec, data and leaf stores; reused by the next run).
        modes: the ranking modes to ask in.
        limit: ask at most this many questions (the same ones every run, see :meth:`LabelledSet.sample`).
        offset: skip the first this many of them (a held-out sample beside the first ``limit``).
        url: an existing broker; none: start one.
        processes: run each organization in a process of its own (default: all in this process, one model).
        embedder_factory: the embedding model (tests pass the session's).
        verbose: let the leaves print their building progress on stderr.
        say: called with each progress line (building, questions asked).
    """
    say = say or (lambda text: None)
    questions = labelled.sample(limit, offset)
    spec = FederationSpec.load(labelled.write(Path(folder)))
    result = EvalResult(labelled.name, len(labelled.questions), tuple(modes), orgs=len(spec.orgs), leaves=len(spec.leaves()))
    say(f"building {labelled.name} in {folder}: {len(spec.orgs)} organizations, {len(spec.leaves())} leaves")
    started = time.monotonic()
    build_leaves(spec, embedder_factory, verbose=verbose)
    central = CentralIndex.from_spec(spec)
    result.passages = len(central.passages)
    result.build_s = time.monotonic() - started
    say(f"built in {result.build_s:.1f} s ({result.passages} passages); starting the federation")
    started = time.monotonic()
    async with launched(spec, url, processes=processes, verbose=False, embedder_factory=embedder_factory) as running:
        result.start_s = time.monotonic() - started
        creds = sign_in(spec, labelled.user) if labelled.user else None
        nc = await connect_as(running.client_url, "fedrag-eval", creds)
        try:
            for mode in modes:
                started = time.monotonic()
                for n, question in enumerate(questions, 1):
                    result.outcomes.append(await ask_one(nc, question, mode, creds, central, labelled.people))
                    if n == len(questions) or n % max(len(questions) // 10, 1) == 0:
                        say(f"  {mode}: {n}/{len(questions)} questions asked")
                result.ask_s[mode] = time.monotonic() - started
        finally:
            await nc.drain()
    return result


async def ask_one(nc, question: Question, mode: str, creds: Credentials | None, central: CentralIndex | None,
                  people: Sequence[str] = ()) -> Outcome:
    """Asks one question in one mode and scores what came back."""
    request = AskRequest(question=question.text, k=K, mode=mode, summarize="extractive", include_embedding=True,
                         deadline_ms=ASK_DEADLINE_MS)
    started = time.monotonic()
    try:
        answer = await ask(nc, request, headers=(lambda: creds.headers(question.text)) if creds else None)
    except AskError as exc:
        return Outcome(question, mode, [], status=f"error: {exc.wire_type}", took_ms=_ms(started))
    outcome = Outcome(question, mode, ranked_records(answer.hits, copies=not answer.per_patient), status=_status(answer),
                      partial=answer.partial,
                      took_ms=_ms(started), scored=[(h.id, h.score) for h in answer.hits],
                      patients=list(dict.fromkeys(h.patient for h in answer.hits if h.patient)))
    text = answer.answer or ""
    outcome.names_somebody = names_somebody(text, people)
    if question.answer:
        answered = outcome.status in ("successful", "fallback")
        outcome.rouge_answer = rouge_l(strip_citations(text), question.answer) if answered else 0.0
        outcome.rouge_top = rouge_l(answer.hits[0].text, question.answer) if answer.hits else 0.0
    if central is not None and answer.embedding is not None:
        expected = central.as_answered(answer, mode, K)
        outcome.central = ranked_records(expected, copies=not answer.per_patient)
        outcome.identical = [(h.path, h.id, h.score) for h in answer.hits] == [(h.path, h.id, h.score) for h in expected]
    return outcome


def _status(answer: Answer) -> str:
    if answer.error is not None:
        return f"error: {answer.error.type}"
    return answer.answer_info.status if answer.answer_info is not None else "none"


def _ms(started: float) -> float:
    return (time.monotonic() - started) * 1000.0
