"""The gateway: where a question enters the federation, on ``fed.ask``.

It embeds the question once (so every leaf scores against the same vector), detects patient
names, sends the query to every organization concurrently, and streams to the caller: one
``org_result`` message per organization as soon as its subtree has answered (or failed), then,
when an LLM writes the answer, one ``answer_delta`` message per checked sentence, then one
``final`` message with the merged :class:`~bus.asking.Answer` — and all along a ``heartbeat``
every :data:`bus.client.HEARTBEAT_MS`, so a caller knows within a second if this gateway died
(:func:`bus.client.events` then asks another).

A question is four steps, in this order: analyze (embed it and find its names), scatter (ask every
organization), merge (one total order over their hits), answer. A question that asks for an answer
(``summarize``) gets one, cited, made from the hits it returns and the summaries routers wrote, by the
gateway's :class:`summarizer.answers.Answerer` within the budget the gateway keeps for it. When the records
hold nothing the question names, or an answer naming patients would hold for only part of what it asks
(:func:`nodes.concepts.grounding`), its hits are only the closest records: the
answer says so, routers are not asked to summarize them, and a summary made anyway (an organization that releases
only summaries) is withdrawn, in the stream and the final answer (:func:`summarizer.summaries.withdrawn`). So are the
summaries under any answer that says the evidence does not answer the question (none of a named patient's records
mentions what is asked of them): they would read like the answer it is not. Beside an answer, a summary keeps
only its sentences about patients that hold a word of what is asked (:func:`summarizer.summaries.on_topic`).
An answer that quotes a reference text whole (:func:`summarizer.answer.quotes_whole_record`) first gets the rest
of its record, asked of every organization as the other passes are (:attr:`bus.asking.Answer.context`); one that
weighs the sentences of passages about patients first gets their vectors, stored at ingestion, from the
organizations holding the passages (``want = "sentences"``; the gateway remembers them by passage), so that it
embeds nothing at question time.

A caller who asked for full coverage (``allow_partial = false``) or a minimum coverage fraction
gets an answer with ``error.type == "coverage"`` and no hits when the federation fell short.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import re
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import replace

import nats.errors
import numpy as np

from bus import codec
from bus import headers as h
from bus.budget import Budget
from bus.errors import ExpiredError, RateLimitedError
from bus.client import HEARTBEAT_MS
from bus.asking import Answer, AnswerDelta, AskRequest, Heartbeat, OrgResult
from bus.messages import FETCH_K, MAX_CONCEPTS, MAX_PASSAGES_NAMED, CollectionStats, ErrorInfo, Filters, Hit, Query, RecordRef
from bus.scatter import ChildOutcome, scatter_gather
from bus.subjects import ASK, CHANGED_PREFIX, any_under, path_of, query_subject
from nodes._admission import Admission
from nodes._service import NodeService
from nodes.counts import Counts, agrees
from nodes.concepts import (OF_A_RELATIVE, PATIENT_WORDS, Analysis, Concept, affirms, analyse, asked, focal, grounding,
                            is_site, mention_counts, mentions, names_kind, of_one_said, otherwise, sited_elsewhere,
                            spelled_out, tells, things_asked, touches, unshouted, unstated, ways_said, weighed, weighing,
                            written_out)
from nodes.data.lexical import terms as index_terms
from nodes.data.records import answers_to
from nodes.demographics import Whom, asks_which, kept, states, whom, widened
from nodes.merge import complete, depth, fuse, lexical_depth, merge, summed
from nodes.names import (applied_filter, held_nowhere, name_filters, nameless, parse, spoken_names, unnamed,
                          unsigned)
from nodes.spelling import Guesses, dictionary, guesses, respelled, rewritten, settled
from policies.broker import user_inbox
from policies.gate import Gate
from policies.tokens import ANONYMOUS
from summarizer.answer import (FIELD_LINE, KIND, KIND_WEIGHT, MIN_SCORE, Focus, gives_kind, passage_number,
                               quotes_whole_record, record_key, sufficient, visit_key)
from summarizer.answers import Answerer, grounded_refusal
from summarizer.kinds import GIVEN_BY_FIELDS, asked_of_records, asking_sentence, kind_of, unsaid
from summarizer.sentences import quotable
from summarizer.summaries import on_topic, withdrawn

#: The embedder and the name detector read at most this much of a question (the model reads 256
#: tokens, about 1,000 characters, anyway), so an 8,000-character question costs what a short one does; they read it
#: without the writer's own signature (:func:`nodes.names.unsigned`) and with clinicians' shorthand in words
#: (:func:`nodes.concepts.written_out`).
MAX_ANALYZED_CHARS = 2_000
#: At most this share of what is left of a question's budget goes to counting its words (the first pass).
STATS_SHARE = 0.25
#: Questions longer than this take the long lane: one at a time, so a burst of them queues (and
#: expires at its deadline) instead of starving short questions.
SHORT_QUESTION_CHARS = 600
#: At most this many passages of the record an answer quotes whole are fetched (it quotes at most
#: :data:`summarizer.answer.MAX_SOURCE_SENTENCES` sentences of them).
RECORD_PASSAGES = 64
#: The sentence vectors of this many passages are kept (:meth:`Gateway._stored_sentences`): an answer from passages
#: answered from before asks no organization for them again (about 16 kB a passage about a patient of the demo).
REMEMBERED_PASSAGES = 2048
#: At most this many organizations' change notices wait for the next question (:meth:`Gateway._heard`).
NOTICES_KEPT = 16


class Gateway(NodeService):
    """Answers :class:`~bus.asking.AskRequest` messages for the organizations ``orgs``."""

    role = "gateway"
    request_model = AskRequest

    def __init__(self, orgs: list[str], embedder_factory: Callable, *, k: int = 10, fetch_k: int = FETCH_K,
                 default_budget_ms: float = 2000.0, use_spacy: bool = True, leaves: dict[str, int] | None = None,
                 gate: Gate | None = None, subject: str = ASK, answer_min_score: float = MIN_SCORE, llm=None,
                 admission: Admission | None = None) -> None:
        super().__init__("", subject, default_budget_ms, gate, admission)
        self.orgs = list(orgs)
        self.k = k
        self.fetch_k = fetch_k
        self.use_spacy = use_spacy
        self.max_leaves = {query_subject(org): n for org, n in (leaves or {}).items()}
        self._embedder_factory = embedder_factory
        self.embedder = None
        #: Writes the answers (with the LLM that writes those asked with ``summarize="llm"``, if any).
        # a sentence quoted by an earlier answer is looked up, not embedded again
        self.answerer = Answerer(lambda texts: self.embedder.embed_remembered(texts), llm=llm, min_score=answer_min_score)
        self._long_lane = asyncio.Semaphore(1)
        # (leaf path, passage id, digest of its text and patient) -> its quotable sentences' vectors, stored at ingestion
        self._passage_sentences: OrderedDict[tuple[str, str, str], np.ndarray] = OrderedDict()
        #: What the records hold of the words of questions asked before, per caller: the first pass, remembered.
        self.counts = Counts()
        self._changes = None
        self._reconnects = 0

    def describe(self) -> dict[str, str]:
        return {**super().describe(), "children": ",".join(self.orgs)}

    def may_answer(self, request, caller) -> bool:
        """A signed-in person is answered only on their own inbox, so nobody can direct answers elsewhere."""
        if caller is ANONYMOUS:
            return True
        return request._msg.reply.startswith(user_inbox(caller.iss, caller.sub) + ".")

    async def start(self, nc, *, here: bool = False) -> None:
        """Loads the model and spaCy, then serves; only over the broker (people ask it), unless ``here``."""
        if self.embedder is None:
            loop = asyncio.get_running_loop()
            # Load the model (and spaCy) before serving, so the first question does not pay for it.
            self.embedder = await loop.run_in_executor(None, self._embedder_factory)
            await loop.run_in_executor(None, name_filters, "warm up Mr. John Smith", self.use_spacy)
            await loop.run_in_executor(None, dictionary)
        await super().start(nc, here=here)
        # what changed while no connection could hear it is not known: counted again (:mod:`nodes.counts`)
        self.counts.forget()
        self._reconnects = nc.stats["reconnects"]
        # its notices wait here, read as a question comes in (:meth:`_heard`): forgetting matters only then
        # (one waiting is as good as many: past a few, the broker's are dropped, quietly — see bus.connection)
        self._changes = await nc.subscribe(any_under(CHANGED_PREFIX), pending_msgs_limit=NOTICES_KEPT)

    async def stop(self) -> None:
        if self._changes is not None:
            changes, self._changes = self._changes, None
            try:
                await changes.unsubscribe()
            except nats.errors.Error:  # the connection is gone: so is the subscription
                pass
        await super().stop()

    async def _heard(self) -> None:
        """Forgets every count if an organization said its records may have changed since the last question (nothing
        counted before is then known to hold), or if the connection was lost meanwhile (see :meth:`start`)."""
        changes, heard = self._changes, False
        while changes is not None and changes.pending_msgs:
            await changes.next_msg(timeout=1.0)  # waiting already: no wait
            heard = True
        if heard or self.nc.stats["reconnects"] != self._reconnects:
            self.counts.forget()
            self.counters["counts.forgotten"] += 1
            self._reconnects = self.nc.stats["reconnects"]

    async def handle(self, request, ask: AskRequest, budget: Budget, caller) -> None:
        await self._heard()
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
                               h.Kind.HEARTBEAT, trace)
            await asyncio.sleep(HEARTBEAT_MS / 1000.0)

    async def _handle(self, request, ask: AskRequest, budget: Budget, trace: str, k: int) -> None:
        if ask.deadline_ms is not None:
            budget = Budget.start(ask.deadline_ms)
        budget = budget.with_reserve(budget.reserve.plus(self.answerer.reserve_ms(ask.summarize)))
        started = time.monotonic()
        vector, focused, filters, analysis, stats, meant, remembered, whole = await self._analyze(request, ask, budget, trace)
        filters = held_nowhere(ask.question, filters, stats)  # a name no record holds a word of is someone held nowhere
        lexical = ask.mode != "dense"
        # in records of patients, whom a question asks about (women, over 80) drops others' hits from deeper lists
        asked = whom(ask.question) if stats is not None and stats.people else Whom()
        if asked.only:  # "Which patients are older than 80?": its words "older", "women" are whom, no thing asked
            analysis = Analysis(terms=analysis.terms)
        # what no record mentions, told only of counts every organization gave (one that did not answer, or refused the
        # caller for now, may hold it)
        absent, closest = grounding(analysis, stats if whole else None)
        # routers are not asked for summaries of what may turn out to be only the closest records: nothing the
        # question names is mentioned, or something is and the answer names patients (known once they answered)
        unsummarized = grounding(analysis, stats if whole else None, naming=True)[1]
        # … and, asking which patients, one hit each: a patient's many visits do not fill the top k
        per_patient = bool(ask.collapse and stats is not None and stats.people and asks_which(ask.question))
        wide = widened(asked, k)
        asked_k = depth(wide) if ask.mode == "hybrid" else wide  # a hybrid question fuses a deeper dense list
        query = Query.with_vector(vector, question=ask.question, model=self.embedder.fingerprint, k=asked_k,
                                  fetch_k=max(ask.fetch_k or self.fetch_k, asked_k), filters=filters,
                                  collapse=ask.collapse, per_patient=per_patient,
                                  summarize="none" if unsummarized else ask.summarize, mode=ask.mode,
                                  terms=analysis.terms if lexical or remembered else [], stats=stats if lexical else None,
                                  recount=remembered, concepts=[[list(option) for option in c.alternatives]
                                                                for c in analysis.concepts] if remembered else [],
                                  lexical_k=lexical_depth(wide) if ask.mode == "hybrid" else None,
                                  focused=b"" if focused is None else np.asarray(focused, dtype="<f4").tobytes())
        why = grounded_refusal(Answer(question=ask.question, absent=absent)) if closest else None
        outcomes = await self._scatter(request, query, k, budget, trace, why, asked, _topic(analysis))
        _refused_for_now(outcomes)
        whole = whole and complete(outcomes)  # … and no patient is held nowhere while an organization has not said
        stats = self._recounted(request, query, stats, outcomes)
        about = things_asked(analysis) if ask.mode == "hybrid" else []  # what the fusion favours
        answer = self._merge(ask, query, k, outcomes, filters, about, asked, trace, (time.monotonic() - started) * 1000.0)
        analysis, stats, recounted_whole = await self._whose(request, ask, filters, analysis, stats, answer, budget, trace)
        whole = whole and recounted_whole
        # a concept no record mentions as the question spells it may be mentioned by the hits as the records spell it
        analysis, stats, later = respelled(analysis, stats, answer.hits) or (analysis, stats, {})
        answer.read_as = dict(list({**meant, **later}.items())[:MAX_CONCEPTS])
        answer.absent, answer.closest = grounding(analysis, stats if whole else None,
                                                  unknown_patient=whole and answer.filtered and not answer.names,
                                                  naming=of_patients(answer.hits))
        if asked:  # "women", "men": no record need say it of the patients their sex and age were judged by
            answer.absent = [text for text in answer.absent if not whom(text)]
        received = answer.summaries  # as the routers made them: withdrawn whole if the answer turns out insufficient
        if answer.closest:
            answer.summaries = withdrawn(answer.summaries, grounded_refusal(answer))
        elif not answer.of_named and (topic := _topic(analysis)) is not None:
            answer.summaries = on_topic(answer.summaries, *topic)
        if ask.summarize != "none" and answer.error is None:
            if asked.only:
                focus = _whom_focus(asked, answer)
            else:
                focus = _focus(analysis, stats, answer, self.answerer.min_score)
                if focus.told:  # the kind asked of what some passage tells: not a treatment of another thing
                    # ("How was Priya Clark's cellulitis treated?", of a patient without cellulitis, is refused)
                    things = [c.text for c in analysis.concepts]
                    kind = asked_of_records(ask.question, things)
                    focus = replace(focus, kind=kind, unsaid=unsaid(kind, things) if kind else focus.unsaid)
            sentences: dict[str, np.ndarray] = {}
            if not answer.closest and sufficient(answer.hits, self.answerer.floor(answer, focus)):
                if quotes_whole_record(answer.hits):
                    answer.context = await self._rest_of_record(request, answer.hits, query, budget, trace)
                elif ask.summarize == "extractive" or self.answerer.llm is None:
                    sentences = await self._stored_sentences(request, answer.hits, query, budget, trace)

            async def delta(sentence: str) -> None:
                await self.respond(request, AnswerDelta(text=sentence), h.Kind.ANSWER_DELTA, trace)

            # once names filtered the evidence, it is weighed by what is asked of the patients (Query.focused)
            asked_of = query.vector(named=answer.of_named)
            answer.answer, answer.answer_info = await self.answerer.answer(ask.summarize, ask.question, asked_of, answer,
                                                                           budget, delta, sentences, focus)
            self.counters[f"answers.{answer.answer_info.method}.{answer.answer_info.status}"] += 1
            if answer.answer_info.status == "insufficient":  # the hits turned out to be only the closest records, and
                # every summary says why, the answer's reason (not "none of its sentences … mentions colonoscopy" of one
                # whose sentences were off the topic, beside "the closest records mention colonoscopy only as planned")
                answer.summaries = withdrawn(received, answer.answer_info.reason or "none of them says what is asked")
        self.counters["questions"] += 1
        self.counters["partial"] += int(answer.partial)
        await self.respond(request, answer, h.Kind.FINAL, trace)

    async def _whose(self, request, ask: AskRequest, filters: Filters, analysis: Analysis,
                     stats: CollectionStats | None, answer: Answer, budget: Budget,
                     trace: str) -> tuple[Analysis, CollectionStats | None, bool]:
        """The question's analysis and counts, but for a candidate name the leaves took for their patients — a given
        name alone ("Is Justin on apixaban?"), a name in a question without capitals ("what is chu bosco's blood
        pressure?"): whose, not what is asked, once it filters — the question is then read again with it as a name,
        its concepts' counts kept where they are the first reading's, counted again where the name was part of one
        ("chu bosco's blood pressure" is "blood pressure") — and whether those were counted whole, if counted again."""
        taken = [name for name in filters.candidates if any(answers_to(known, name) for known in answer.names)]
        if not taken:
            return analysis, stats, True
        text = _read(ask.question)
        parsed = await asyncio.get_running_loop().run_in_executor(None, parse, text, self.use_spacy)
        again = analyse(text, [*filters.patients, *taken], parsed.phrases, parsed.verbs)
        if stats is None:  # nothing was counted the first time: nothing to count again
            return again, None, True
        counted = dict(zip((concept.alternatives for concept in analysis.concepts), mention_counts(analysis, stats) or ()))
        if all(concept.alternatives in counted for concept in again.concepts):
            return again, stats.model_copy(update={"concepts": [counted[c.alternatives] for c in again.concepts]}), True
        recounted, _, whole = await self._count(request, ask.question, again, budget, trace, Guesses())
        return again, recounted, whole

    async def _scatter(self, request, query: Query, k: int, budget: Budget, trace: str, why: str | None,
                       asked: Whom, topic: tuple[Callable[[str], bool], str] | None) -> list[ChildOutcome]:
        """Asks every organization, streaming each one's result to the caller as it lands — the first ``k`` (what the
        caller asked for) of the one list the question ranks by (the lexical list in a lexical question, else the
        dense one: the other, and a hybrid question's deeper dense list, are the gateway's to fuse), but for patients
        who are not whom it ``asked`` about, its summaries withdrawn, ``why``, when the hits are already known to be
        only the closest records, else only their sentences on the ``topic`` (:func:`_topic`) unless it took a name of
        the question for one of its patients (the question is then read again: :meth:`_whose`)."""
        async def stream(outcome: ChildOutcome) -> None:
            result = outcome.result
            if result is not None and (result.lexical or len(result.hits) > k):  # the client is shown one list of k
                shown = kept(asked, result.lexical if query.mode == "lexical" else result.hits)[0]
                result = result.model_copy(update={"hits": shown[:k], "lexical": []})
            if why and result is not None and result.summaries:
                result = result.model_copy(update={"summaries": withdrawn(result.summaries, why)})
            elif topic and result is not None and result.summaries and not (result.filtered or result.names):
                result = result.model_copy(update={"summaries": on_topic(result.summaries, *topic)})
            event = OrgResult(org=path_of(outcome.subject), subject=outcome.subject, report=outcome.report,
                              result=result)
            await self.respond(request, event, h.Kind.ORG_RESULT, trace)

        return await scatter_gather(
            self.nc, [query_subject(org) for org in self.orgs], codec.encode(query),
            budget_ms=budget.for_children(),
            headers={h.KIND: h.Kind.QUERY, **h.forwardable(request.headers), h.TRACE: trace},
            on_outcome=stream, max_leaves=self.max_leaves,
        )

    async def _rest_of_record(self, request, hits: list[Hit], query: Query, budget: Budget, trace: str) -> list[Hit]:
        """The passages of the best hit's record that are not among ``hits``, in the record's order, from the
        organization that holds it (``want = "record"``: its policies and the caller's proof for it, as for any
        question); none when it cannot say in time, and the answer quotes what the hits hold."""
        best, headers = hits[0], request.headers or {}
        if best.org not in self.orgs or (h.AUTHORIZATION in headers and h.RECORD_PROOF not in headers):
            return []  # not an organization of this gateway's, or a client that sent no proof for it
        path, record = record_key(best)
        asked = Query(question=query.question, embedding=query.embedding, model=query.model, want="record",
                      records=[RecordRef(path=path, id=record)], k=RECORD_PASSAGES, fetch_k=RECORD_PASSAGES,
                      collapse=False)
        # every organization is asked, as in the other passes, so that each spends the caller's proof for it: one
        # that received it could otherwise ask another organization for records with it
        outcomes = await scatter_gather(
            self.nc, [query_subject(org) for org in self.orgs], codec.encode(asked), budget_ms=budget.for_children(),
            headers={h.KIND: h.Kind.QUERY, **h.forwardable(headers, "record"), h.TRACE: trace},
            max_leaves=self.max_leaves,
        )
        holder = next(outcome for outcome in outcomes if path_of(outcome.subject) == best.org)
        self.counters[f"records.{holder.status}"] += 1
        have = {(hit.path, hit.id) for hit in hits}
        rest = [hit for hit in (holder.result.hits if holder.result else []) if record_key(hit) == (path, record)
                and not hit.withheld and (hit.path, hit.id) not in have]
        return sorted(rest, key=lambda hit: (passage_number(hit.id), hit.id))

    async def _stored_sentences(self, request, hits: list[Hit], query: Query, budget: Budget,
                                trace: str) -> dict[str, np.ndarray]:
        """The vectors, stored at ingestion, of the sentences an extractive answer weighs, by sentence: of the best
        :data:`~bus.messages.MAX_PASSAGES_NAMED` passages about patients — those not remembered from an earlier answer
        fetched from the organizations that hold them (``want = "sentences"``: their policies and the caller's proof
        for a follow-up, as for any question). A passage's vectors are used for its own sentences only, as its
        organization sent them for its text; a sentence keeps the vector of the best-ranked passage that has one.
        The answer embeds what no organization sent in time, or sent as no set of unit vectors, one per sentence
        it quotes of that passage (:meth:`bus.messages.Hit.sentence_vectors`)."""
        named = [hit for hit in hits if hit.patient and not hit.withheld and hit.org in self.orgs][:MAX_PASSAGES_NAMED]
        keys = {(hit.path, hit.id): _passage_key(hit) for hit in named}
        said = {(hit.path, hit.id): quotable(hit.text, hit.patient) for hit in named}
        wanted = [hit for hit in named if keys[hit.path, hit.id] not in self._passage_sentences]
        headers = request.headers or {}
        if wanted and not (h.AUTHORIZATION in headers and h.RECORD_PROOF not in headers):  # else: no proof for it
            asked = Query(question=query.question, embedding=query.embedding, model=query.model, want="sentences",
                          passages=[hit.ref() for hit in wanted], k=len(wanted), fetch_k=len(wanted), collapse=False)
            # every organization is asked, as in the other passes, so that each spends the caller's proof for it
            outcomes = await scatter_gather(
                self.nc, [query_subject(org) for org in self.orgs], codec.encode(asked), budget_ms=budget.for_children(),
                headers={h.KIND: h.Kind.QUERY, **h.forwardable(headers, "record"), h.TRACE: trace},
                max_leaves=self.max_leaves,
            )
            sent = {(hit.path, hit.id): hit for outcome in outcomes if outcome.result for hit in outcome.result.hits}
            for hit in wanted:
                got = sent.get((hit.path, hit.id))
                rows = got.sentence_vectors(len(query.vector())) if got is not None and got.text == hit.text else None
                if rows is None or len(rows) != len(said[hit.path, hit.id]):
                    self.counters["sentences.missing"] += 1
                    continue
                self._passage_sentences[keys[hit.path, hit.id]] = rows
        found: dict[str, np.ndarray] = {}
        for hit in named:
            rows = self._passage_sentences.get(keys[hit.path, hit.id])
            if rows is not None:
                self._passage_sentences.move_to_end(keys[hit.path, hit.id])
                for text, row in zip(said[hit.path, hit.id], rows):
                    found.setdefault(text, row)
        while len(self._passage_sentences) > REMEMBERED_PASSAGES:
            self._passage_sentences.popitem(last=False)
        return found

    async def _count(self, request, question: str, analysis: Analysis, budget: Budget, trace: str,
                     guessed: Guesses) -> tuple[CollectionStats | None, bool, bool]:
        """The first pass: what the records every organization lets the caller search hold of the question's
        terms and concepts, and of its concepts as its misspelled words may be meant (``guessed``, counted after its
        own: :func:`nodes.spelling.settled`), summed (``None`` when no organization could say) — whether it was
        remembered instead (:mod:`nodes.counts`: the search then recounts), and whether every organization counted all
        it holds (:func:`nodes.merge.complete`: else no record's silence is told as absence)."""
        if not analysis.terms and not analysis.concepts:
            return None, False, True
        terms, concepts = analysis.terms + guessed.terms, [c.alternatives for c in analysis.concepts + guessed.concepts]
        scope = _scope(request)
        remembered = self.counts.recall(scope, terms, concepts)
        if remembered is not None:
            self.counters["counts.remembered"] += 1
            return remembered, True, True
        query = Query(question=question, model=self.embedder.fingerprint, want="stats", terms=terms,
                      concepts=[[list(option) for option in concept] for concept in concepts])
        outcomes = await scatter_gather(
            self.nc, [query_subject(org) for org in self.orgs], codec.encode(query),
            budget_ms=min(budget.for_children(), STATS_SHARE * budget.remaining_ms()),
            headers={h.KIND: h.Kind.QUERY, **h.forwardable(request.headers, "stats"), h.TRACE: trace},
            max_leaves=self.max_leaves,
        )
        _refused_for_now(outcomes)
        stats = summed(outcomes)
        if stats is not None:
            self.counts.remember(scope, terms, concepts, stats, outcomes)
        return stats, False, complete(outcomes)

    def _recounted(self, request, query: Query, stats: CollectionStats | None,
                   outcomes: list[ChildOutcome]) -> CollectionStats | None:
        """The counts the rest of the answer is judged by: those the search was made with (``stats``) if they were just
        counted, or were remembered and the search, which then counted its words again at every leaf, agrees; else
        what it counted — the memory missed a change, or a write raced the question — which is remembered instead,
        when every organization gave it (:mod:`nodes.counts`)."""
        if stats is None or not query.recount:
            return stats
        counted = summed(outcomes)
        if agrees(stats, counted, query.terms, len(query.concepts)) or not complete(outcomes):
            return stats
        self.counters["counts.stale"] += 1
        scope = _scope(request)
        self.counts.forget(scope)
        self.counts.remember(scope, query.terms, query.concepts, counted, outcomes)
        return counted

    def _merge(self, ask: AskRequest, query: Query, k: int, outcomes: list[ChildOutcome], filters: Filters,
               about: list[list[list[str]]], asked: Whom, trace: str, took_ms: float) -> Answer:
        """The organizations' results as one answer — the top ``k`` of the dense list, the lexical list or both
        fused, favouring what mentions the things asked ``about``, of the patients whom it ``asked`` about
        (:func:`nodes.demographics.kept`) — with no hits, and the reason, when coverage fell short."""
        result = merge(outcomes, query.k, self.subject, took_ms, collapse=ask.collapse, lexical_k=query.lexical_depth())
        dense, lexical = kept(asked, result.hits, result.lexical)
        hits = {"dense": dense[:k], "lexical": lexical[:k]}.get(ask.mode)
        if ask.mode == "hybrid":
            hits = fuse(dense, lexical, k, kind_of(ask.question), about, collapse=ask.collapse)
        result.nodes[self.subject].hits = len(hits)  # what the caller gets, not the lists it was fused from
        answer = Answer(**dict(result, hits=hits, lexical=[], stats=None), question=ask.question, trace=trace,
                        per_patient=query.per_patient and not result.filtered,
                        patients=applied_filter(filters, list(result.names)) if result.filtered else [],
                        embedding=query.embedding if ask.include_embedding else None,
                        focused=(query.focused or None) if ask.include_embedding else None,
                        terms=query.terms if ask.include_embedding and ask.mode != "dense" else [],
                        about=about if ask.include_embedding else [])
        short = self._shortfall(ask, answer)
        if short:
            answer.error = ErrorInfo(type="coverage", reason=short)
            answer.hits = []
        return answer

    async def _analyze(self, request, ask: AskRequest, budget: Budget, trace: str):
        """Embeds the question while finding its names and concepts and counting its words in the records,
        within the budget and the CPU's fair share: questions over :data:`SHORT_QUESTION_CHARS` one at a time."""
        if len(ask.question) <= SHORT_QUESTION_CHARS:
            return await self._embed_and_count(request, ask, budget, trace)
        try:
            await asyncio.wait_for(self._long_lane.acquire(), max(budget.remaining_ms(), 0.0) / 1000.0)
        except asyncio.TimeoutError:
            self.counters["expired.queued"] += 1
            raise ExpiredError("the deadline passed while the question waited for the long-question lane") from None
        try:
            return await self._embed_and_count(request, ask, budget, trace)
        finally:
            self._long_lane.release()

    async def _embed_and_count(self, request, ask: AskRequest, budget: Budget, trace: str):
        if budget.expired:
            raise ExpiredError("the deadline passed before the question could be embedded")
        text = _read(ask.question)
        loop = asyncio.get_running_loop()

        def focus(text: str, filters: Filters, analysis: Analysis) -> str | None:
            start, end = asking_sentence(text) if analysis.aside else (0, len(text))  # not what is said around it
            asked = [concept.text for concept in analysis.concepts]
            rest = text[start:end].strip()
            rest = nameless(rest, spoken_names(filters, asked)) if _asks_a_thing(text, analysis) else rest
            return spelled_out(rest) if rest != text and any(c.isalnum() for c in rest) else None  # asked but the names

        async def embedded(text: str | None):
            return None if text is None else await loop.run_in_executor(None, self.embedder.embed_one, text)

        async def words():
            filters, phrases, verbs = await loop.run_in_executor(None, parse, text, self.use_spacy)
            analysis = analyse(text, filters.patients, phrases, verbs)
            guessed = guesses(analysis, [*filters.patients, *filters.candidates])
            (stats, remembered, whole), focused = await asyncio.gather(
                self._count(request, ask.question, analysis, budget, trace, guessed), embedded(focus(text, filters, analysis)))
            analysis, stats, meant = settled(analysis, stats, guessed)
            return filters, analysis, stats, focused, meant, remembered, whole

        vector, (filters, analysis, stats, focused, meant, remembered, whole) = await asyncio.gather(
            embedded(spelled_out(text)), words())
        if meant:  # misspelled: embedded again as the records spell it
            meant_text = rewritten(text, meant)
            refocused = focus(meant_text, filters, analysis) if focused is not None else None
            vector, focused = await asyncio.gather(embedded(spelled_out(meant_text)), embedded(refocused))
        if budget.expired:
            raise ExpiredError("the deadline passed while the question was being embedded")
        return vector, focused, filters, analysis, stats, meant, remembered, whole

    @staticmethod
    def _shortfall(ask: AskRequest, answer: Answer) -> str | None:
        fraction = answer.coverage.fraction
        if not ask.allow_partial and answer.partial:
            return (f"full coverage required but only {answer.coverage.successful} of "
                    f"{answer.coverage.total} units answered")
        if fraction < ask.min_coverage:
            return f"coverage {fraction:.2f} is below the required {ask.min_coverage:.2f}"
        return None


#: Words asking for a patient's story rather than a thing (:func:`_asks_a_thing`).
_STORY = re.compile(r"\b(?:summari[sz]|describ|tell|happen|overview|course|story)", re.IGNORECASE)


def _refused_for_now(outcomes: list[ChildOutcome]) -> None:
    """Refuses the question as the gateway's own rate limit would when no organization answered and some refused the
    caller for now (their rate at that organization: ``rate_limited``), saying when all will take it again — not
    answered as if the records held nothing. Where some answered, the answer is theirs, its coverage saying who did not.

    Raises:
        RateLimitedError: no organization answered, and some said the caller asked too much.
    """
    refused = [outcome.error for outcome in outcomes if outcome.error is not None and outcome.error.type == "rate_limited"]
    if refused and not any(outcome.result is not None for outcome in outcomes):
        raise RateLimitedError("; ".join(dict.fromkeys(error.reason for error in refused)),
                               max(error.retry_after_ms or 1.0 for error in refused))


def _asks_a_thing(question: str, analysis: Analysis) -> bool:
    """Whether ``question`` asks for a thing of the patients it names — a concept, or a kind of answer other than
    why — so that their passages are scored by it without their names (:attr:`bus.messages.Query.focused`): "Is
    Jason Rossi a smoker?" is nearer "Patient: Jason Rossi." than "Smoked occasionally in college"; "Is a smoker?"
    is not. "Tell me about Jason Rossi" asks only whom, and a question asking why, or for the story ("Summarize the
    care Nancy Levy received"), is answered by the story of the illness, which notes tell with the patient's name."""
    kind = kind_of(question)
    return bool(analysis.concepts or kind) and kind != "causes" and not _STORY.search(question)


def _scope(request) -> str:
    """Whose counts a question's are (:mod:`nodes.counts`): its bearer token's (a token is one identity, with the
    policies that admit it), or nobody's in particular in an open federation."""
    return (request.headers or {}).get(h.AUTHORIZATION, "")


def _read(question: str) -> str:
    """What the gateway reads of ``question`` — embeds, parses and counts: its first :data:`MAX_ANALYZED_CHARS`, without
    the writer's signature (:func:`nodes.names.unsigned`), with clinicians' shorthand in words
    (:func:`nodes.concepts.written_out`), its runs of spaces one ("Nancy  Levy" is a name), and read in lower case if
    written all in capitals (:func:`nodes.concepts.unshouted`: before the signature is found, which capitals tell)."""
    return written_out(unsigned(unshouted(_SPACES.sub(" ", question[:MAX_ANALYZED_CHARS]).strip())))


_SPACES = re.compile(r"[ \t\u00a0]+")


def of_patients(hits: list[Hit]) -> bool:
    """Whether ``hits`` are patients' records — some of them name their patient (a note whose patient went unnamed,
    ranked first, makes the others no reference texts) — and an answer from them names patients."""
    return any(hit.patient for hit in hits)


def _whom_focus(asked: Whom, answer: Answer) -> Focus:
    """What an answer to a question asking for nothing but whom ("Which patients are over 80?") leans on: the passages
    saying a patient is (:func:`nodes.demographics.states`: "Age: 84.", "This 83-year-old man"), and of them those
    sentences, not the ones most similar to the question ("atorvastatin 80 mg nightly") — evidence by their words
    whatever their similarity. A patient kept for what their other passages or metadata say is not named by a passage
    that does not say it."""
    patients: dict[str, set[str]] = {}  # the patients each sentence is said of (a title names one by surname)
    telling = set()
    for n, hit in enumerate(answer.cited(), 1):
        for text in quotable(hit.text, hit.patient) if hit.patient and not hit.withheld else ():
            patients.setdefault(text, set()).add(hit.patient)
            if states(asked, text, hit.patient):
                telling.add(n)

    def weigh(text: str) -> dict[Hashable, float]:
        return {"whom": 1.0} if any(states(asked, text, patient) for patient in patients.get(text, ())) else {}
    return Focus(passages=telling, weigh=weigh, strict=True, told=bool(telling),
                 unsaid="none of the closest records says a patient's sex or age as asked")


_PATIENT_TERMS = frozenset(index_terms(" ".join(PATIENT_WORDS)))


def _worded(analysis: Analysis, answer: Answer) -> Focus:
    """What an answer naming patients leans on when its question asks about no thing but in words a record may hold
    ("What is Nicole Wright's *diagnosis*?", "What are Kevin Jenkins's *allergies*?"): a sentence holding more of the
    question's own words (its patients' names and the word "patient" apart) leads its patient's, as a sentence saying
    more of the things asked does (:attr:`summarizer.answer.Focus.weigh`) — "Primary diagnosis: acute alcohol-related
    pancreatitis.", not "Department: neurology.", which the embedding holds nearer a question of four words."""
    left = {term for hit in answer.hits if hit.patient for term in index_terms(hit.patient)} | _PATIENT_TERMS
    own = [frozenset(term.split("|")) for term in analysis.terms if not set(term.split("|")) & left]
    # a kind a header's field gives leads, more than all those words: "Where did Carol Dubois go after her admission?"
    # is answered by her "Disposition: home.", not by "Admission ADM-A-0097." Not the other kinds: a named patient's
    # complaints and treatments are what the question is nearest, and a kind's words would rather lead with a history's
    # "COPD on home inhaler therapy" ("What treatment did Dorothy Haddad receive?") or "Vital signs on arrival" ("What
    # did Brian Ali complain of?") than with "She received a 30 mL/kg fluid bolus" or his chief complaints
    kind = asked_of_records(answer.question, [concept.text for concept in analysis.concepts])
    kind = kind if kind in GIVEN_BY_FIELDS else None
    if not own and kind is None:
        return Focus()
    why = kind_of(answer.question) == "causes"  # a field's value is no reason: "Why was Luis Davis admitted?" is not
    # answered by "Admitted: 2023-02-18."

    def weigh(text: str) -> dict[Hashable, float]:
        if why and FIELD_LINE.fullmatch(text):
            return {}
        held = frozenset(index_terms(text))
        said: dict[Hashable, float] = {term: 1.0 for term in own if term & held}
        return {**said, KIND: KIND_WEIGHT} if gives_kind(text, kind) else said
    return Focus(weigh=weigh)


def _focus(analysis: Analysis, stats: CollectionStats | None, answer: Answer, floor: float = MIN_SCORE) -> Focus:
    """What an extractive answer that names patients leans on (a reference text is quoted as it reads, from the best
    text holding a word of what is asked — of what the writer has, one that mentions it — and from where it mentions
    what that passage mentions of what is asked: :attr:`summarizer.answer.Focus.says`): the passages that
    say something the question asks about, as it asks it (:func:`nodes.concepts.tells`: "Which patients are on
    warfarin?" is not answered by "Stopped warfarin after a nosebleed", "Which patients do not have diabetes?" by "no
    history of diabetes", "…oxygen saturation below 88%?" by a saturation of 92%), and those their organization
    withholds (no text to judge).
    When some passage mentions what is asked but none says it as asked, there is nothing to quote; when none mentions
    it at all, only the named patients' records may say it otherwise, in a sentence holding a word of it and as
    similar to the question as evidence must be (``floor``: "Drinks socially" answers "Does Arjun Allen drink
    alcohol?"). A question asking for a kind by name ("What *imaging* was done for headache?", "Which *antibiotics*
    …") is answered only from what says it or one of its members — headaches are not imaging. A sentence saying more
    of what is asked weighs more (:func:`nodes.concepts.weighing`); one naming it only as another thing is not quoted
    (:func:`nodes.concepts.otherwise`: "3. Acute pancreatitis." of "Which patients have chronic pancreatitis?")."""
    if not answer.hits:
        return Focus()
    if not focal(analysis):
        return _worded(analysis, answer) if of_patients(answer.hits) else Focus()
    groups = asked(analysis)
    if not of_patients(answer.hits):  # reference texts, quoted from where they mention what the best one mentions
        things = [[analysis.concepts[i] for i in group] for group in groups]

        def says(text: str) -> frozenset[int]:
            return frozenset(g for g, concepts in enumerate(things) if mentions(text, concepts))
        # … from a text on what the writer has, if the records mention it ("I have gout. What foods should I avoid?"
        # is not answered by a text on diverticular disease)
        counted = mention_counts(analysis, stats)
        had = [g for g, group in enumerate(groups)
               if set(group) & analysis.had and counted is not None and any(counted[i] for i in group)]
        # … and from the best text holding a word of what is asked: "Is there a cure for tinnitus?" is not answered
        # by "There is no cure or standard treatment for anencephaly.", the nearest text, when one further down names
        # tinnitus; when none does, the hits are only the closest records
        cited = list(enumerate(answer.cited(), 1))
        about = [i for g in had for i in groups[g]] or [i for group in groups for i in group]
        near = [analysis.concepts[i] for i in about]
        return Focus(says=says, passages={n for n, hit in cited if not hit.withheld and set(had) <= says(hit.text)
                                          and touches(hit.text, near)},
                     unsaid=f"none of the closest records mentions {_said(analysis, about)}")
    about = [i for group in groups for i in group]
    weights = weighing(analysis, stats)
    weigh = (lambda text: weighed(text, analysis, weights)) if weights else None
    if not about:
        return Focus(weigh=weigh)
    concepts = [analysis.concepts[i] for i in about]
    other = functools.partial(otherwise, concepts=concepts)  # a sentence naming what is asked only as another thing
    cited = list(enumerate(answer.cited(), 1))
    withheld = {n for n, hit in cited if hit.withheld}
    named = answer.of_named
    # what is judged of a hit: a named patient's whole passage (their record, a field's words apart: "Discharged: …
    # Disposition: home" tells a discharge disposition); another patient's only sentence by sentence (a passage
    # holding a concept's words in different sentences, "Type: emergency. … Department: medicine.", does not say it)
    # holding a word of what is asked: the patient's own name is none of it (Michael Wilson has no Wilson's disease)
    judged = {n: [unnamed(text, hit.patient) for text in ([hit.text] if named else quotable(hit.text, hit.patient))]
              for n, hit in cited if not hit.withheld}
    wanted = analysis.concepts[analysis.wanted] if analysis.wanted is not None else None
    if wanted is not None and analysis.wanted in about and names_kind(wanted):
        kind = next(group for group in groups if analysis.wanted in group)
        saying = {n for n, texts in judged.items() if any(tells(text, analysis, kind) for text in texts)}
        return Focus(passages=saying | withheld, weigh=weigh, strict=True, told=bool(saying), other=other,
                     unsaid=_unmentioned(answer, _said(analysis, kind)))
    # which of the things asked each passage tells (as the question asks it)
    told = {n: {g for g, group in enumerate(groups) if any(tells(text, analysis, group) for text in texts)}
            for n, texts in judged.items()}
    # … but a patient whose passages say present a thing asked absent, and none says it absent, is no answer to it
    # ("Which patients have diabetes but are not on metformin?" is not answered by "Continue metformin 500 mg daily")
    absent = [g for g, group in enumerate(groups) if set(group) <= analysis.negated]
    said = {n: {g for g in absent if any(affirms(text, analysis, groups[g]) for text in texts)} for n, texts in judged.items()}
    telling = {n for n, things in told.items() if things} - _contradicted(told, said, dict(cited))
    # the patients whose passages say all of it; when none's do, those saying part — a patient's best passage may
    # leave the rest to passages that did not make the hits ("…had a hip fracture after a fall") — but where the
    # question asks for both, each saying one is not the answer ("Any patients with both COPD and heart failure?")
    # … and where it asks them of one another ("an X-ray of the knee"), the records of one visit must say those together
    joined = {g for g, group in enumerate(groups) for pair in analysis.of_one if set(group) & set(pair)}
    whole = _of_whole(told, len(groups), dict(cited), telling, joined)
    # … unless the hits mention a thing told by none of them only otherwise: then they say it is not so as asked
    # ("Which patients with diabetes had a colonoscopy?" of "Outpatient colonoscopy and upper endoscopy …": planned)
    untold = [i for g, group in enumerate(groups) if not any(g in things for things in told.values()) for i in group]
    otherwise_said = [i for i in untold if any(mentions(text, [analysis.concepts[i]])
                                               for texts in judged.values() for text in texts)]
    if whole or (telling and not analysis.together and not joined and not otherwise_said):
        # how much of it each passage says: of a patient's sentences saying as much, one whose passage says more leads
        around = {n: sum(weights.get(tuple(groups[g]), 0.0) for g in things) for n, things in told.items()} if weights else None
        return Focus(passages=(whole or telling) | withheld, weigh=weigh, told=True, other=other, around=around)
    if telling and analysis.together:
        return Focus(passages=withheld, weigh=weigh, unsaid="none of the closest records says "
                     + " and ".join(_said(analysis, group) for group in groups) + " of one patient")
    if telling and joined and not otherwise_said:  # … and when none's do, those saying the thing asked, not only what
        # it is asked of: the knee of an X-ray of it may be left to passages that did not make the hits, not the X-ray —
        # and an event ("…a hip fracture after a fall?") where the hits tell some: "Who had a stroke after surgery?",
        # whose hits tell strokes and no surgery, is not answered by strokes
        said_of = {i for things in told.values() for g in things for i in groups[g]}  # the concepts some hit tells
        heads = {g for g, group in enumerate(groups) for head, part in analysis.of_one
                 if head in group and (part in said_of or is_site(analysis.concepts[part]))}
        leading = {n for n in telling if told[n] & heads}
        if leading:
            return Focus(passages=leading | withheld, weigh=weigh, told=True, other=other)
        return Focus(passages=withheld, weigh=weigh,
                     unsaid=f"none of the closest records says {of_one_said(answer.question, analysis)}")
    texts = [text for said in judged.values() for text in said]
    if otherwise_said:
        return Focus(passages=withheld, weigh=weigh,
                     unsaid=f"the closest records mention {_said(analysis, otherwise_said)}"
                            f"{_how_else(analysis, otherwise_said, texts)}")
    if any(mentions(text, concepts) for text in texts):
        return Focus(passages=withheld, weigh=weigh,
                     unsaid=f"the closest records mention {_said(analysis, about)}{_how_else(analysis, about, texts)}")
    # none mentions it in words: the records of the patients the question names may say it otherwise ("Drinks
    # socially" of "Does he drink alcohol?"), in a sentence holding a word of it, as similar to the question as
    # evidence must be (not "Productive cough" of "Does he have COPD?"), and a field by its label ("Alcohol:
    # occasional.", not "Type: emergency." of "Who is her emergency contact?": the admission's type); other patients'
    # records that mention none of it are not an answer, however near ("Which patients had a DVT?" is not answered by
    # dysuria): nothing of them is quoted
    plain = [found for concept in concepts if (found := unstated(concept)) and any(mentions(text, [found[0]]) for text in texts)]
    if plain and not named:  # "severe hypertension" of records of hypertension, none saying how severe
        return Focus(passages=withheld, weigh=weigh, unsaid=" and ".join(
            f"the closest records mention {concept.text}, none as {how}" for concept, how in plain))
    if named:
        return Focus(weigh=weigh, floor=floor, near=functools.partial(_near, concepts=concepts), other=other,
                     unsaid=_unmentioned(answer, _said(analysis, about)))
    return Focus(passages=withheld, weigh=weigh, unsaid=_unmentioned(answer, _said(analysis, about)))


def _unmentioned(answer: Answer, what: str) -> str:
    """Why nothing is quoted when none of the hits mentions ``what`` as asked: of the named patients' records, when the
    question names them ("none of the closest records of Arjun Allen mentions job")."""
    whose = f" of {' and '.join(answer.patients)}" if answer.of_named else ""
    return f"none of the closest records{whose} mentions {what}"


def _near(text: str, concepts: list[Concept]) -> bool:
    """Whether ``text`` holds a word of ``concepts`` (:func:`nodes.concepts.touches`) — a field ("Key: value.") in its
    label: a value holding one says what the field is of, not what is asked ("Type: emergency." of an emergency
    contact)."""
    return touches(text.split(":", 1)[0] if FIELD_LINE.fullmatch(text) else text, concepts)


def _contradicted(told: dict[int, set[int]], said: dict[int, set[int]], hits: dict[int, Hit]) -> set[int]:
    """The passages (1-based) of the patients whose passages say present a thing the question asks absent (``said``: which,
    by passage) and none tells it as asked (``told``)."""
    present: dict[str | None, set[int]] = {}
    as_asked: dict[str | None, set[int]] = {}
    for n, things in said.items():
        present.setdefault(hits[n].patient, set()).update(things)
        as_asked.setdefault(hits[n].patient, set()).update(told[n])
    against = {patient for patient, things in present.items() if things - as_asked[patient]}
    return {n for n in told if hits[n].patient in against}


def _of_whole(told: dict[int, set[int]], things: int, hits: dict[int, Hit], telling: set[int],
              joined: set[int] = frozenset()) -> set[int]:
    """Of the passages (1-based) ``telling`` some of the ``things`` a question asks about (``told``: which, by passage),
    those of the patients whose passages between them tell each — and the things ``joined`` (asked of one another:
    :attr:`nodes.concepts.Analysis.of_one`) in the records of one visit (:func:`summarizer.answer.visit_key`): "Which
    patients had surgery on their hip?" is answered by the patient whose records of a stay say both, not by every
    "Department: surgery", nor "Who had an X-ray of the knee?" by one X-rayed for a broken wrist who had knee pain at
    another visit."""
    by_patient: dict[str | None, set[int]] = {}
    for n in telling:
        by_patient.setdefault(hits[n].patient, set()).update(told[n])
    whole = {n for n in telling if len(by_patient[hits[n].patient]) == things}
    if not joined:
        return whole
    by_visit: dict[tuple[str | None, tuple[str, str]], set[int]] = {}
    for n in whole:
        by_visit.setdefault((hits[n].patient, visit_key(hits[n])), set()).update(told[n])
    together = {patient for (patient, _), things_told in by_visit.items() if joined <= things_told}
    return {n for n in whole if hits[n].patient in together}


def _topic(analysis: Analysis) -> tuple[Callable[[str], bool], str] | None:
    """What a summary's sentence about a patient must do to stand beside the answer
    (:func:`summarizer.summaries.on_topic`) — hold a word of one of the things the question asks about
    (:func:`nodes.concepts.asked`, :func:`nodes.concepts.touches`: "Has a 42 pack-year smoking history" of "a long
    smoking history", a kind's members of the kind) — and why a summary that says none of it is withdrawn; ``None``
    when the question names only context."""
    indices = [i for group in asked(analysis) for i in group]
    if not focal(analysis):  # then asked() gives every concept, context too
        return None
    concepts = [analysis.concepts[i] for i in indices]
    return (lambda text: touches(text, concepts)), f"none of its sentences about patients mentions {_said(analysis, indices)}"


def _said(analysis: Analysis, indices: list[int]) -> str:
    """The question's concepts at ``indices``, as it words them."""
    return " or ".join(analysis.concepts[i].text for i in indices)


def _how_else(analysis: Analysis, indices: list[int], texts: list[str]) -> str:
    """How the records' ``texts`` mention the question's concepts at ``indices`` when none says them as asked: at other
    values, with the other polarity — the ways they do ("only as planned", not every way there is) — of a relative
    (:data:`nodes.concepts.RELATIVES`), or, asked of one relative, of others, or of other parts of the body than asked
    (:func:`nodes.concepts.sited_elsewhere`: "X-ray only of other parts of the body")."""
    held_to = [comparison.text for comparison in analysis.compared if comparison.concept in indices]
    if held_to:
        return ", none " + " or ".join(held_to)
    if all(i in analysis.kin for i in indices):
        theirs = analysis.kindred and OF_A_RELATIVE in ways_said(texts, analysis, indices)  # not of the one named
        return " only of other relatives" if theirs else " only as the patients' own"
    if all(i in analysis.begun for i in indices) and not any(i in analysis.negated for i in indices):
        return ", none as started"
    if all(i in analysis.negated for i in indices):
        return " only as present"
    if not any(i in analysis.negated for i in indices):
        ways = ways_said(texts, analysis, indices)
        if ways:
            return " only as " + (ways[0] if len(ways) == 1 else ", ".join(ways[:-1]) + " or " + ways[-1])
        if sited_elsewhere(texts, analysis, indices):
            return " only of other parts of the body"
    return " otherwise"


def _passage_key(hit: Hit) -> tuple[str, str, str]:
    """What a passage's sentence vectors are remembered by: its leaf, its id, and what its sentences are cut from."""
    said = hashlib.sha256(f"{hit.patient}\x00{hit.text}".encode()).hexdigest()[:32]
    return hit.path, hit.id, said

