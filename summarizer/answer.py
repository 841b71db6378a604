"""The extractive answer: the sentences of the evidence that bear most on the question, each cited.

No LLM and no invention: every sentence of an answer is a sentence of one of the passages the
federation returned, word for word, followed by ``[n]`` — the passage's place in the answer's hits
(from 1). Sentences are ranked by their embedding's similarity to the question's (the same model
that ranked the passages) — those saying more of what the question asks about first, when the gateway weighs
it (:class:`Focus`) — at most :data:`PER_PASSAGE` from one passage, the same sentence about the same patient
only once, and grouped by patient in the order their best sentence ranks.

A hit whose organization releases only summaries to the caller (``withheld``) has no text; what
may be quoted of it is what the summaries that cite it say (:func:`evidence_texts`).

With no passage, or a best passage scoring under ``min_score`` (Almanac's "not enough evidence"
threshold), the answer is :data:`INSUFFICIENT` — and names nobody. :func:`check` verifies an answer
against its hits: every ``[n]`` points at a hit, and every sentence is found in the hit it cites.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from bus.messages import Hit, Summary
from summarizer import kinds
from summarizer.sentences import ELLIPSIS, quotable

#: What an answer says when the evidence does not support one.
INSUFFICIENT = "Not enough evidence in the records searched to answer this question."
#: Default floor on the best passage's score below which there is no answer (cosine similarity).
MIN_SCORE = 0.35
#: Sentences in an answer — more only for each patient's first, so that every patient the evidence is about may be
#: named (a question asking which patients has one hit each) — and at most this many from one passage.
MAX_SENTENCES = 8
PER_PASSAGE = 2
#: Sentences in an answer quoted from one reference source (:func:`from_best_source`): on MedQuAD, whose answers
#: are whole records, its record quoted whole up to 14 sentences scores ROUGE-L 0.87, up to 40 0.95, all of it 0.97.
MAX_SOURCE_SENTENCES = 40
#: A question asking yes or no of a reference text is answered by its sentences at most this much less similar to the
#: question than its most similar (:func:`from_best_source`). PubMedQA's first 400, its gold the abstract's
#: conclusion, its 256 yes-or-no questions answered from their own abstract: ROUGE-L 0.22 at 0.1, 0.20 at 0.2, 0.13
#: the whole abstract; through the federation, see the README (Relevance).
DECISIVE = 0.1
#: A sentence this similar to the question is relevant; below it, it is left out — unless it says something the
#: question asks about (``focus.weigh``): "Stopped warfarin after a nosebleed" answers "Is he anticoagulated?"
#: however little its words resemble the question's. Where no passage quoted mentions what is asked, a sentence must
#: hold some word of it (``focus.near``) and be as similar as evidence must be (``focus.floor``, :data:`MIN_SCORE`):
#: "Drinks socially" (0.48) answers "Does he drink alcohol?"; "Excessive thirst" (0.29) does not answer "Does she have
#: hypertension?", nor "Productive cough and shortness of breath" "Does he have COPD?".
MIN_SENTENCE_SCORE = 0.25
#: What a sentence of the kind a question asks of patients' records (:data:`summarizer.kinds.RECORD_KINDS`) says of it,
#: beside the things it asks about (:attr:`Focus.weigh`): more than all of those together (none weighs more than 2), so
#: that each patient's first sentence gives the treatment asked, not the diagnosis the treatment is of.
KIND, KIND_WEIGHT = "kind", 4.0

#: A line of a record's header: a field's name and a short value ("Department: cardiology.", "Length of stay: 3 days.",
#: "Admitted: 2023-03-22."). Beside a sentence of the same patient that says what is asked, one that says nothing of it
#: only says where or when (:func:`select`).
FIELD_LINE = re.compile(r"[^\W\d_][^\W_]*(?: [^\W\d_]+){0,3}: [^\s.;:]+(?: [^\s.;:]+){0,2}\.?")
#: A sentence a plan's numbered problem heads, and its plan follows ("2. Diabetes type 2. - Medical Reasoning: …"): what
#: it says is of that problem (:func:`gives_kind`); not a numbered list's entry alone ("2. Metformin 500 mg daily.").
PROBLEM = re.compile(r"\s*\d{1,2}[.)]\s+(?P<problem>[^.;:]{2,80})\.(?=\s+\S)")
_NUMBERED = re.compile(r"#(\d+)$")
_CITED = re.compile(r"(?P<text>\S.*?) \[(?P<n>\d+)\](?=\s|$)")


@dataclass(frozen=True)
class Focus:
    """What of the evidence an answer leans on, from what its question asks about (the gateway's to say).

    Attributes:
        passages: the only hits (1-based) it may quote (for a reference text quoted whole, the hits its record may be
            chosen from: :func:`from_best_source`); ``None``: any.
        weigh: which of the things the question asks about a sentence says in its words, each with its weight (the
            more it says, the more it tells; a patient's sentences saying what the first did not come next);
            ``None``: not weighed (a question about one thing: its similarity says it).
        strict: a patient's sentences that say nothing of what is asked are left out when some say it (a question
            asking for a thing by name: "What anticoagulant is he on?" is not answered by his age).
        unsaid: why, when ``passages`` leaves nothing to quote ("none of the closest records mentions imaging").
        floor: how similar to the question a sentence that says nothing of what is asked must be to be quoted.
        near: what else must hold of such a sentence (a word of what is asked); ``None``: nothing.
        told: some of ``passages`` say what is asked as it is asked (the gateway's :func:`nodes.concepts.tells`), so
            they are evidence by their words, however little the rest of them resembles the question (no floor on
            the best passage's similarity: :meth:`summarizer.answers.Answerer.floor`).
        says: which of the things the question asks about a text mentions (their places), for a reference text
            quoted whole: its record is quoted from the first passage mentioning all the best hit mentions, or from
            the best hit when it mentions none (:func:`from_best_source`); ``None``: from its start.
        other: whether a sentence names what is asked only as another thing (qualified otherwise: "3. Acute
            pancreatitis." of chronic pancreatitis, :func:`nodes.concepts.otherwise`): such a sentence is not quoted,
            however similar; ``None``: none is.
        around: how much of what is asked each hit (1-based) says, as ``weigh`` weighs it: of sentences saying as much,
            one whose passage says more leads ("What was her glucose on admission for the foot wound?" is answered by
            the glucose of the note on the foot wound); ``None``: their similarity decides.
        kind: the kind of answer the question asks of the patients' records (:func:`summarizer.kinds.asked_of_records`:
            "What treatment did patients with cellulitis receive?"): a sentence of it (:func:`summarizer.kinds.in_record`)
            says what is asked, more than all of ``weigh`` (:data:`KIND_WEIGHT`), and leads its patient's; a patient none
            of whose sentences gives it is not quoted ("Primary diagnosis: pneumonia." is no symptom of it).
    """

    passages: Collection[int] | None = None
    weigh: Callable[[str], dict[Hashable, float]] | None = None
    strict: bool = False
    unsaid: str = ""
    floor: float = MIN_SENTENCE_SCORE
    near: Callable[[str], bool] | None = None
    told: bool = False
    says: Callable[[str], frozenset[int]] | None = None
    other: Callable[[str], bool] | None = None
    around: Mapping[int, float] | None = None
    kind: str | None = None


@dataclass(frozen=True)
class CitedSentence:
    text: str
    source: int  # 1-based place of the hit in the answer
    patient: str | None
    score: float


def evidence_texts(hits: Sequence[Hit], summaries: Sequence[Summary] = ()) -> list[str]:
    """What may be quoted of each hit: its text, or for a withheld hit the summary sentences that cite it."""
    cited: dict[tuple[str, str], list[str]] = {}
    for summary in summaries:
        for sentence in summary.sentences:
            for ref in sentence.sources:
                said = cited.setdefault((ref.path, ref.id), [])
                if sentence.text not in said:
                    said.append(sentence.text)
    return [" ".join(cited.get((hit.path, hit.id), [])) if hit.withheld else hit.text for hit in hits]


def record_of_passage(passage_id: str) -> str:
    """The record a passage id belongs to (a record cut into several passages numbers them ``<record>#<n>``)."""
    return _NUMBERED.sub("", passage_id)


def record_of(hit: Hit) -> str:
    """The record a hit's passage was cut from: its ``record_id``, or what its id says (a withheld hit has no
    metadata)."""
    return str(hit.metadata.get("record_id") or record_of_passage(hit.id))


def record_key(hit: Hit) -> tuple[str, str]:
    """The record a hit's passage was cut from, with the leaf holding it: another leaf's record of the same id is
    another record."""
    return hit.path, record_of(hit)


#: The metadata fields that say which stay or visit a record tells of: an admission's notes and its row (the demo's
#: ``admission_id``, MIMIC-IV's ``hadm_id``), an encounter's. A record naming none is a visit of its own.
VISIT_FIELDS = ("admission_id", "hadm_id", "encounter_id")


def visit_key(hit: Hit) -> tuple[str, str]:
    """The stay or visit a hit's passage tells of (:data:`VISIT_FIELDS`), with the organization holding it; its record
    (:func:`record_key`) when its metadata names none."""
    for field in VISIT_FIELDS:
        value = hit.metadata.get(field)
        if value not in (None, ""):
            return hit.org, f"{field}={value}"
    return record_key(hit)


def passage_number(passage_id: str) -> int:
    """Where a passage stands in its record: ``<record>#<n>`` is its ``n``-th (0 for an id without a number)."""
    numbered = _NUMBERED.search(passage_id)
    return int(numbered[1]) if numbered else 0


def quotes_whole_record(hits: Sequence[Hit]) -> bool:
    """Whether an answer from ``hits`` quotes the best hit's record as it reads (:func:`from_best_source`): the
    evidence is about no patient at all (reference texts), and the best hit's text may be read."""
    return bool(hits) and not any(hit.patient for hit in hits) and not hits[0].withheld


def from_best_source(hits: Sequence[Hit], texts: Sequence[str], max_sentences: int = MAX_SOURCE_SENTENCES,
                     decisive: Callable[[list[str]], np.ndarray] | None = None,
                     says: Callable[[str], frozenset[int]] | None = None,
                     allowed: Collection[int] | None = None) -> list[CitedSentence]:
    """The sentences of the best hit's record, as it reads: each of its passages among ``hits`` in the record's order,
    each sentence in order — what evidence that is about no patient (a reference text) answers with. ``hits`` may
    end with the rest of that record (:attr:`bus.asking.Answer.context`). With ``says`` (which of the things asked a
    text mentions) the record is read from its first passage mentioning all the best hit mentions, or from the best
    hit when it mentions none, and from the first of its sentences that does, where one does: a record that names what
    is asked only in passing is not quoted from its start ("Is tinnitus curable?" is not answered by what a record on
    Whipple disease opens with, nor "What are the early signs of kidney disease?" by the signs of a stroke a record on
    atherosclerosis lists before its renal arteries). With ``decisive`` (each
    sentence's similarity to a question asking yes or no) only the sentences within :data:`DECISIVE` of the most
    similar, still in the record's order: what decides the question, not the record's background and methods, nor a
    question it asks itself. Each sentence is said once, from the first passage saying it. With ``allowed`` (the hits,
    1-based, it may quote) the best of those is the best hit, and none quotes nothing."""
    leader = next((n for n in range(1, len(hits) + 1) if allowed is None or n in allowed), None)
    if leader is None:
        return []
    best = record_key(hits[leader - 1])
    sources = sorted((n for n, hit in enumerate(hits, 1) if record_key(hit) == best and not hit.withheld),
                     key=lambda n: (passage_number(hits[n - 1].id), n))
    wanted = says(texts[leader - 1]) if says is not None else frozenset()
    if says is not None:  # the best hit is among the sources: at the latest, the record is read from it
        start = next(i for i, n in enumerate(sources) if says(texts[n - 1]) >= wanted) if wanted else sources.index(leader)
        sources = sources[start:]
    # each sentence once (a record's passages each open with its title: "Am I at Risk for Type 2 Diabetes?" was quoted
    # nine times), and, deciding a question, no question: it asks, it decides nothing
    first: dict[str, CitedSentence] = {}
    for n in sources:
        for text in quotable(texts[n - 1], None):
            if decisive is None or not text.rstrip().endswith("?"):
                first.setdefault(" ".join(text.lower().split()), CitedSentence(text, n, None, 0.0))
    said = list(first.values())
    if wanted:  # from its first sentence saying it, where one does
        said = said[next((i for i, sentence in enumerate(said) if says(sentence.text) >= wanted), 0):]
    if decisive is not None and said:
        similar = np.asarray(decisive([sentence.text for sentence in said]), dtype=np.float32)
        least = similar.max() - DECISIVE
        said = [CitedSentence(sentence.text, sentence.source, None, float(score))
                for sentence, score in zip(said, similar) if score >= least]
    return said[:max_sentences]


def gives_kind(sentence: str, kind: str | None, names: Callable[[str], object] | None = None) -> bool:
    """Whether a sentence of a patient's record gives the ``kind`` asked of the records (:func:`summarizer.kinds.in_record`),
    not by a field of a header ("Primary diagnosis: cellulitis." is no treatment) unless the field gives it
    ("Disposition: home.", :data:`summarizer.kinds.GIVEN_BY_FIELDS`). A list that ``names`` what is asked (what
    :attr:`Focus.weigh` finds in a text) gives it of that only in an item that names it: "PAST MEDICAL HISTORY: a history
    of overdose treated with naloxone; gout." gives no treatment of gout, "colchicine 0.6 mg daily for gout; …" does; and
    a plan's numbered problem (:data:`PROBLEM`) gives it only of the problem it heads."""
    if not (kinds.in_record(sentence, kind) and (kind in kinds.GIVEN_BY_FIELDS or not FIELD_LINE.fullmatch(sentence))):
        return False
    heading = PROBLEM.match(sentence)
    if names is not None and heading and not names(heading["problem"]):
        return False  # "2. Diabetes type 2. - Medical Reasoning: … a slight adjustment to her dosage." is of the diabetes
    items = sentence.split(";")
    if names is None or len(items) == 1 or not names(sentence):
        return True
    return any(names(item) and kinds.in_record(item, kind) for item in items)


def of_the_present(pool: Sequence[tuple[int, str]], focus: Focus, says: Mapping[str, Mapping]) -> list[str]:
    """The sentences of ``pool`` (each with its passage's number; ``says``, what :attr:`Focus.weigh` finds in each) that
    may give the kind asked of the records
    (:attr:`Focus.kind`): not those of a passage naming what is asked only in the patient's past
    (:func:`summarizer.kinds.of_now`) — "Ms. Donna Perez is a 46-year-old woman with a history of osteoporosis and gout
    who was admitted with left leg redness": her note's treatments and complaints are not her gout's — but for its list
    of her medications (:func:`summarizer.kinds.lists_medications`), what she takes for all she has. Where a header's
    field gives the kind (where the patient went), every sentence may."""
    distinct = list(dict.fromkeys(text for _, text in pool))
    if focus.weigh is None or focus.kind is None or focus.kind in kinds.GIVEN_BY_FIELDS:
        return distinct
    named, now = set(), set()
    for n, text in pool:
        if says[text]:
            named.add(n)
            if focus.weigh(kinds.of_now(text)):
                now.add(n)
    past = named - now
    return list(dict.fromkeys(text for n, text in pool if n not in past
                              or (focus.kind == "treatment" and kinds.lists_medications(text))))


def select(question_vector: np.ndarray, hits: Sequence[Hit], embed: Callable[[list[str]], np.ndarray], *,
           max_sentences: int = MAX_SENTENCES, summaries: Sequence[Summary] = (),
           question: str = "", focus: Focus = Focus()) -> list[CitedSentence]:
    """The answer's sentences, best first (before grouping): those saying more of what the question asks about as
    ``focus`` weighs it first (of those saying as much, one whose passage says more of it), then patients in the order
    of their best-ranked passage quoted, each patient's by similarity to the question, a sentence that speaks of what
    the question's kind asks for (a treatment, a cause ...: :mod:`summarizer.kinds`) weighing more, from the hits
    ``focus`` lets it quote. Evidence about no patient at all (reference texts) is answered from its best source alone
    (:func:`from_best_source`): its own words, in its own order."""
    texts = evidence_texts(hits, summaries)
    if quotes_whole_record(hits):
        def similarity(said: list[str]) -> np.ndarray:
            return np.asarray(embed(said), dtype=np.float32) @ np.asarray(question_vector, dtype=np.float32)

        return from_best_source(hits, texts, decisive=similarity if kinds.asks_whether(question) else None,
                                says=focus.says, allowed=focus.passages)
    pool: list[tuple[int, str]] = [(n, said) for n, (hit, text) in enumerate(zip(hits, texts), 1)
                                   if focus.passages is None or n in focus.passages
                                   for said in quotable(text, hit.patient)]
    if not pool:
        return []
    # each distinct sentence embedded once: the same words quoted by two passages score the same (ties then go
    # to the better-ranked passage), whatever padding the batch they were embedded in had
    distinct = list(dict.fromkeys(text for _, text in pool))
    row = {text: i for i, text in enumerate(distinct)}
    kind = kinds.kind_of(question)
    similar = np.asarray(embed(distinct), dtype=np.float32) @ np.asarray(question_vector, dtype=np.float32) + np.array(
        [kinds.SENTENCE_BONUS if kinds.speaks_of(text, kind) else 0.0 for text in distinct], dtype=np.float32)
    scores = similar[[row[text] for _, text in pool]]
    order = sorted(range(len(pool)), key=lambda i: (-float(scores[i]), pool[i][0], i))
    # a patient's first sentence is the one of the kind asked, if any, then the one saying most of what the question
    # asks about, then those saying what their first did not, then the most similar
    says = {text: focus.weigh(text) for text in distinct} if focus.weigh else {}
    for text in of_the_present(pool, focus, says):  # asked of what the passages quoted say (the treatment of the
        if gives_kind(text, focus.kind, focus.weigh):  # cellulitis they name)
            says[text] = {**says.get(text, {}), KIND: KIND_WEIGHT}
    # of the patients, only those whose sentences give the kind asked: "Conditions: Pneumonia." tells no symptom of it
    giving = {hits[n - 1].patient for n, text in pool if KIND in says.get(text, {})} if focus.kind else None
    if giving is not None and not giving:  # the records found name what is asked, and say nothing of the kind asked
        return []  # of it ("Primary diagnosis: pneumonia." gives no symptom)
    other = {text for text in distinct if focus.other(text)} if focus.other else set()  # named only as another thing
    told_of = [round(sum(says.get(text, {}).values()), 6) for _, text in pool]
    # among sentences saying as much, one whose passage says more of what is asked leads ("What was her glucose on
    # admission for the foot wound?": the glucose of the note on the foot wound), then the more similar
    around = focus.around or {}
    leading = sorted(order, key=lambda i: (-told_of[i], -around.get(pool[i][0], 0.0)))  # stable
    # a strict focus leaves out a patient's sentences that say nothing of what is asked when some say it (a concept of
    # two words may be said only across two sentences: then none is left out)
    telling = {hits[n - 1].patient for (n, _), told in zip(pool, told_of) if told}
    saying = telling if focus.strict else set()
    chosen: list[CitedSentence] = []
    per_source: dict[int, int] = {}
    seen: set[tuple[str | None, str]] = set()
    picked: list[int] = []  # the places in ``pool`` of the chosen sentences
    covered: dict[str | None, set] = {}  # what each patient's chosen sentences say of what is asked
    # first the best sentence of each patient (so the answer covers who the evidence is about), then each patient's
    # sentences saying what theirs did not yet (an answer holds for all of what is asked), then the rest
    for turn in ("first", "covering", "rest"):
        told = {sentence.patient for sentence in chosen}
        for i in order if turn == "rest" else leading:
            n, text = pool[i]
            hit = hits[n - 1]
            key = (hit.patient, " ".join(text.lower().split()))
            unsaid = not told_of[i]  # says nothing of what is asked
            if ((giving is not None and hit.patient not in giving)
                    or (unsaid and (scores[i] < focus.floor or (focus.near is not None and not focus.near(text))))
                    or per_source.get(n, 0) >= PER_PASSAGE or key in seen
                    or text in other
                    or (unsaid and (hit.patient in saying or (hit.patient in telling and FIELD_LINE.fullmatch(text))))
                    or (turn == "first" and hit.patient in told)
                    or (turn == "covering" and not set(says.get(text, ())) - covered.get(hit.patient, set()))
                    or len(chosen) >= (max(max_sentences, len(hits)) if turn == "first" else max_sentences)):
                continue
            picked.append(i)
            chosen.append(CitedSentence(text, n, hit.patient, float(scores[i])))
            per_source[n] = per_source.get(n, 0) + 1
            seen.add(key)
            told.add(hit.patient)
            covered.setdefault(hit.patient, set()).update(says.get(text, ()))
    # patients in the order of their best-ranked passage quoted (the federation's ranking, which weighs the passage's
    # words and its best sentence, not one sentence's similarity alone), each patient's sentences by similarity
    ranks: dict[str | None, int] = {}
    for sentence in chosen:
        ranks[sentence.patient] = min(ranks.get(sentence.patient, sentence.source), sentence.source)
    ranked = sorted(range(len(chosen)), key=lambda j: (-told_of[picked[j]], ranks[chosen[j].patient],
                                                       -around.get(chosen[j].source, 0.0), -chosen[j].score,
                                                       chosen[j].source))
    return [chosen[j] for j in ranked]


def compose(chosen: Sequence[CitedSentence]) -> str:
    """The sentences grouped by patient, in the order their best sentence ranks, one line per patient."""
    groups: dict[str | None, list[CitedSentence]] = {}
    for sentence in chosen:
        groups.setdefault(sentence.patient, []).append(sentence)
    lines = []
    for patient, said in groups.items():
        body = " ".join(f"{s.text} [{s.source}]" for s in said)
        lines.append(f"{patient}: {body}" if patient else body)
    return "\n".join(lines)


def insufficient(why: str = "") -> str:
    """What an answer says when the evidence does not support one: :data:`INSUFFICIENT`, and why when it is
    known ("no record searched mentions Crohn disease")."""
    return INSUFFICIENT + (f" {why[:1].upper()}{why[1:]}." if why else "")


def is_insufficient(answer: str | None) -> bool:
    """Whether ``answer`` says there is not enough evidence (see :func:`insufficient`)."""
    return bool(answer) and answer.startswith(INSUFFICIENT)


def sufficient(hits: Sequence[Hit], min_score: float = MIN_SCORE) -> bool:
    """Whether the evidence can support an answer at all: some hit scores at least ``min_score``."""
    return bool(hits) and max(hit.relevance for hit in hits) >= min_score


def extractive_answer(question_vector: np.ndarray, hits: Sequence[Hit], embed: Callable[[list[str]], np.ndarray], *,
                      min_score: float = MIN_SCORE, max_sentences: int = MAX_SENTENCES,
                      summaries: Sequence[Summary] = (), question: str = "",
                      focus: Focus = Focus()) -> str:
    """The cited extractive answer to a question from its hits (:data:`INSUFFICIENT` without enough evidence),
    leaning on what ``focus`` says (see :func:`select`)."""
    if not sufficient(hits, min_score):
        return INSUFFICIENT
    chosen = select(question_vector, hits, embed, max_sentences=max_sentences, summaries=summaries, question=question,
                    focus=focus)
    return compose(chosen) if chosen else insufficient(focus.unsaid)


def check(answer: str, hits: Sequence[Hit], summaries: Sequence[Summary] = ()) -> list[str]:
    """What is wrong with ``answer`` as an answer from ``hits``: a citation of no hit, a sentence its hit lacks."""
    if is_insufficient(answer):
        return []
    texts = [" ".join(text.split()) for text in evidence_texts(hits, summaries)]
    problems = []
    names = sorted({hit.patient for hit in hits if hit.patient}, key=len, reverse=True)
    for line in answer.splitlines():
        for name in names:
            if line.startswith(f"{name}: "):
                line = line[len(name) + 2:]
                break
        cited = list(_CITED.finditer(line))
        if not cited or cited[-1].end() != len(line.rstrip()):
            problems.append(f"uncited text in {line[:80]!r}")
        for match in cited:
            n, text = int(match["n"]), match["text"].removesuffix(ELLIPSIS)
            if not 1 <= n <= len(hits):
                problems.append(f"[{n}] cites no passage (there are {len(hits)})")
            elif " ".join(text.split()) not in texts[n - 1]:
                problems.append(f"[{n}] does not contain {text[:80]!r}")
    return problems
