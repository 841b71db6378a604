"""Labelled sets: a federation's records and the questions whose relevant records are known.

A :class:`LabelledSet` is data: organizations of :class:`~nodes.data.records.Record` and
:class:`Question`s, each with the records that answer it (graded, when the set grades them) and the
gold answer's text. :meth:`LabelledSet.write` turns a set into a federation in a state folder — each
organization's records as ``fedrag`` JSON lines and a spec (TOML) over them, open (no identities) —
and rewriting it is idempotent: an unchanged file keeps its digest, so the leaves embed nothing again.

:data:`SETS` names the sets ``fedrag eval`` runs, read from a data folder (``../shared/data`` by
default; its README.md says where each comes from):

==================  ==============================================================================
set                 what
==================  ==============================================================================
``medquad``         MedQuAD: 3,838 NIH questions; a record per answer, the five publishers as
                    organizations of two leaves each; gold: the question's own answer
``pubmedqa``        PubMedQA (expert-labelled): 1,000 questions, each with its abstract as the
                    record, over three organizations; gold: that abstract (lexically easy: a smoke test)
``demo-negatives``  the demo federation (:mod:`nodes.demo`), asked its own questions and questions
                    nothing in it answers (:mod:`nodes.eval.negatives`), as A.phys.neur
==================  ==============================================================================
"""

from __future__ import annotations

import hashlib
import json
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bus.errors import SpecError, StoreError
from nodes.data.records import Record
from nodes.eval import negatives as neg

#: Where ``fedrag eval`` reads the public sets, and where it builds their federations.
DATA_DIR = "../shared/data"
STATE_DIR = ".fedrag/eval"
#: A question's budget in the sets' specs: generous, so a busy machine measures relevance, not deadlines.
DEADLINE_MS = 30_000


@dataclass(frozen=True)
class Question:
    """One labelled question.

    Attributes:
        id: unique within its set.
        text: what is asked.
        type: its kind (MedQuAD's ``qtype``, PubMedQA's decision, a negative's kind), for per-type figures.
        relevant: the ids of the records that answer it, with their grades (1 in a binary set).
        answer: the gold answer's text, if the set has one (for ROUGE-L).
        negative: nothing in the set answers it: the right answer says so.
        patients: for a question asking which patients, the patients who are the answer.
    """

    id: str
    text: str
    type: str
    relevant: dict[str, int] = field(default_factory=dict)
    answer: str | None = None
    negative: bool = False
    patients: tuple[str, ...] = ()


@dataclass
class LabelledSet:
    """Questions over a federation's records.

    Attributes:
        name: the set's name (also the federation's).
        questions: every question, in the set's order.
        orgs: each organization's records (record ids unique across the set).
        leaves: leaves per organization: its records are split by a stable hash of their ids.
        user: the spec user who asks (the federation has identities), or ``None`` (open).
        people: the patients the federation holds: an answer naming one names somebody.
        prepare: writes a federation of its own into a folder and returns its spec (the demo's);
            without it, :meth:`write` writes :attr:`orgs`.
    """

    name: str
    questions: list[Question]
    orgs: dict[str, list[Record]] = field(default_factory=dict)
    leaves: int = 1
    user: str | None = None
    people: tuple[str, ...] = ()
    prepare: Callable[[Path], Path] | None = None

    def sample(self, limit: int | None, offset: int = 0) -> list[Question]:
        """At most ``limit`` questions, the same ones every run, spread over the set (by a hash of their ids),
        after the first ``offset`` in that order: ``limit=400, offset=400`` are the 400 next to the first 400
        (a held-out half for figures chosen on the first)."""
        if offset == 0 and (limit is None or limit >= len(self.questions)):
            return list(self.questions)
        ordered = sorted((q.id for q in self.questions), key=lambda qid: (_hash(qid), qid))[offset:]
        chosen = set(ordered if limit is None else ordered[:limit])
        return [q for q in self.questions if q.id in chosen]

    def write(self, folder: Path) -> Path:
        """Writes the federation into ``folder`` (created) and returns its spec's path."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        if self.prepare is not None:
            return self.prepare(folder)
        seen: set[str] = set()
        for org, records in self.orgs.items():
            ids = [r.id for r in records]
            if len(set(ids)) != len(ids) or seen.intersection(ids):
                raise SpecError(f"set {self.name}: record ids repeat (in {org}); metrics need them unique in the set")
            seen.update(ids)
            _write_if_changed(folder / "data" / f"{org}.jsonl", "".join(_line(r) for r in records))
        return _write_if_changed(folder / f"{self.name}.toml", self.spec_text())

    def spec_text(self) -> str:
        """The spec of :attr:`orgs` as a federation with no identities."""
        lines = [f"# Written by `fedrag eval {self.name}`: the labelled set as an open federation.", "[federation]",
                 f'name = "{self.name}"', f"deadline_ms = {DEADLINE_MS}", "k = 10", 'state_dir = "state"', ""]
        for org in self.orgs:
            if self.leaves == 1:
                lines += [f"[orgs.{org}]", f'data = "data/{org}.jsonl"', ""]
                continue
            for part in range(self.leaves):
                lines += [f"[orgs.{org}.units.part_{part}]", f'data = "data/{org}.jsonl"', f"shard = [{self.leaves}, {part}]", ""]
        return "\n".join(lines)


def _hash(key: str) -> int:
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:4], "big")


def _line(record: Record) -> str:
    return json.dumps({"id": record.id, "text": record.text, "patient": record.patient, "date": record.date,
                       "metadata": record.metadata}, ensure_ascii=False, sort_keys=True) + "\n"


def _write_if_changed(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
    return path


def _tidy(text: str) -> str:
    """Lines stripped and their runs of spaces collapsed; empty lines dropped."""
    return "\n".join(" ".join(line.split()) for line in text.splitlines() if line.strip())


def medquad(data: Path) -> LabelledSet:
    """MedQuAD from ``data/medquad/<n>_<Source>_QA*/*.xml``: a record per answer, an organization per publisher.

    A record's id is ``<publisher>/<file>-<pair>`` (the ``qid`` with its publisher: qids repeat across
    publishers, and ten CancerGov files reuse their document's); its metadata keep ``qid``, ``qtype``
    and ``source``, and the document's ``Focus`` as its ``title``: each of its passages is headed by the topic it is
    about, as a search engine indexes a page's title ("PD is both chronic …" is about Parkinson's disease). Pairs
    without an answer are left out.
    """
    folder = Path(data) / "medquad"
    files = sorted(folder.glob("*_QA*/*.xml"))
    if not files:
        missing = "no MedQuAD files (<n>_<Source>_QA*/*.xml)" if folder.is_dir() else "no such folder"
        raise StoreError(f"{folder}: {missing}; get MedQuAD from https://github.com/abachaa/MedQuAD as "
                         "../shared/data/README.md describes, or pass --data DIR")
    orgs: dict[str, list[Record]] = {}
    questions = []
    for path in files:
        root = ET.parse(path).getroot()
        source = root.get("source") or path.parent.name.split("_")[1]
        focus = " ".join((root.findtext("Focus") or "").split())
        for pair in root.iter("QAPair"):
            question, answer = pair.find("Question"), _tidy(pair.findtext("Answer") or "")
            if question is None or not answer or not (question.text or "").strip():
                continue
            rid = f"{source.lower()}/{path.stem}-{pair.get('pid')}"
            qtype = question.get("qtype") or "unknown"
            orgs.setdefault(source.lower(), []).append(Record(rid, answer, metadata={
                "qid": question.get("qid") or "", "title": focus, "qtype": qtype, "source": source}))
            questions.append(Question(rid, " ".join(question.text.split()), qtype, {rid: 1}, answer))
    return LabelledSet("medquad", questions, dict(sorted(orgs.items())), leaves=2)


#: PubMedQA's organizations: each abstract goes to one by a stable hash of its PubMed id.
PUBMEDQA_ORGS = ("site_a", "site_b", "site_c")


def pubmedqa(data: Path) -> LabelledSet:
    """PubMedQA's expert-labelled set from ``data/pubmedqa/ori_pqal.json``: an abstract per question."""
    path = Path(data) / "pubmedqa" / "ori_pqal.json"
    if not path.is_file():
        raise StoreError(f"{path}: no such file; get ori_pqal.json from https://github.com/pubmedqa/pubmedqa (data/) "
                         "as ../shared/data/README.md describes, or pass --data DIR")
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise StoreError(f"{path}: not valid JSON ({exc})") from None
    orgs: dict[str, list[Record]] = {org: [] for org in PUBMEDQA_ORGS}
    questions = []
    for pmid, row in rows.items():
        contexts = row.get("CONTEXTS") or []
        text = " ".join(contexts) if isinstance(contexts, list) else str(contexts)
        decision = row.get("final_decision") or "unknown"
        orgs[PUBMEDQA_ORGS[_hash(pmid) % len(PUBMEDQA_ORGS)]].append(
            Record(pmid, text, date=None, metadata={"year": str(row.get("YEAR") or ""), "decision": decision}))
        questions.append(Question(pmid, row["QUESTION"], decision, {pmid: 1}, row.get("LONG_ANSWER") or None))
    return LabelledSet("pubmedqa", questions, orgs)


def demo_negatives(data: Path | None = None) -> LabelledSet:
    """The demo federation with its own questions (the trends' with their notes as relevant, and their patients as the
    answer) and the negatives.

    Raises:
        SpecError: the demo corpus or its tables mention what a negative asks about (it would be answerable).
    """
    from nodes.demo import corpus as demo_corpus
    from nodes.demo.federation import DEMO_USER, prepare

    corpus = demo_corpus.generate()
    texts = [r.text + " " + json.dumps(r.metadata) for records in corpus.leaves.values() for r in records]
    problems = neg.check_absent(texts + neg.vocabulary())
    if problems:
        raise SpecError(f"nodes/eval/negatives.py needs other questions: {'; '.join(problems)}")
    trends = {trend.question: trend for trend in corpus.trends}
    questions = [Question(f"demo-{n:02d}", text, "trend" if text in trends else "answerable",
                          {rid: 1 for rid in trends[text].record_ids} if text in trends else {},
                          patients=trends[text].patients if text in trends else ())
                 for n, text in enumerate(corpus.questions(), 1)]
    for prefix, kind, negatives in (("absent", neg.ABSENT_TYPE, neg.ABSENT), ("partly", neg.PARTLY_TYPE, neg.PARTLY_ABSENT),
                                    ("person", neg.PERSON_TYPE, neg.UNKNOWN_PEOPLE)):
        questions += [Question(f"{prefix}-{n:02d}", q.text, kind, negative=True) for n, q in enumerate(negatives, 1)]
    # asked back to back, three modes in a minute, far faster than a person asks: within the limits made for
    # load tests (load.toml), as `make bench` and `fedrag load` are — the demo's own would refuse it as rate_limited
    return LabelledSet("demo-negatives", questions, user=DEMO_USER, people=corpus.patients,
                       prepare=lambda folder: prepare(folder, load=True))


#: The sets ``fedrag eval`` knows: name → loader (given the data folder).
SETS: dict[str, Callable[[Path], LabelledSet]] = {"medquad": medquad, "pubmedqa": pubmedqa, "demo-negatives": demo_negatives}


def load(name: str, data: Path | str = DATA_DIR) -> LabelledSet:
    """The set called ``name``, read from ``data``.

    Raises:
        SpecError: no set has that name (the message lists those there are).
        StoreError: the set's files are not in ``data``.
    """
    if name not in SETS:
        raise SpecError(f"unknown set {name!r} (known: {', '.join(SETS)})")
    return SETS[name](Path(data))
