"""What a run of a labelled set measured: one :class:`Outcome` per question and mode, added up per mode.

:class:`EvalResult` holds the outcomes and gives them as text (aligned tables, one row per ranking
mode so the modes read side by side) and as JSON. Its figures, per mode and per question type:

* retrieval over the questions with relevant records: nDCG@10, MRR@10, recall@10, success@10
  (:mod:`nodes.eval.metrics`), and the same over the centralized index's rankings, mode by mode;
* answers over the questions with a gold answer: the extractive answer's ROUGE-L (an answer saying
  the evidence is not enough scores 0) beside the top passage's (quoting the first hit);
* questions asking which patients, for sets that say who the answer is: of the patients the hits are about, how
  many are the answer (precision), and how many of the answer's patients they are (recall, of at most k);
* negatives, for sets that have them: the share rejected (``insufficient``, naming nobody, and about someone held
  nowhere with no other patient's records), and the
  share of the answerable questions that were wrongly found ``insufficient``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from nodes.chaos.table import text_table
from nodes.eval.metrics import RETRIEVAL, mean, records_ranked, retrieval
from nodes.eval.negatives import PERSON_TYPE
from nodes.eval.sets import Question

#: The cut-off of every metric and the hits each question asks for.
K = 10
_LABELS = {"ndcg": f"nDCG@{K}", "mrr": f"MRR@{K}", "recall": f"recall@{K}", "success": f"success@{K}"}


@dataclass
class Outcome:
    """One question asked in one ranking mode, and what came back.

    Attributes:
        records: the records the hits rank (see :func:`nodes.eval.harness.ranked_records`).
        status: the answer's ``answer_info.status`` (``successful``, ``insufficient`` ...), or ``error: <type>``.
        names_somebody: the answer names a patient the federation holds.
        rouge_answer: ROUGE-L of the answer against the gold answer (``None`` without one).
        rouge_top: ROUGE-L of the top passage against the gold answer.
        central: the centralized index's ranking for the same query vector and terms, in the same mode.
        identical: the federation's hits are the centralized index's: passages, order and scores.
        scored: the hits' passages and scores, in rank order.
        patients: the patients the hits are about, each once, in rank order.
    """

    question: Question
    mode: str
    records: list[str]
    status: str = "none"
    partial: bool = False
    took_ms: float = 0.0
    names_somebody: bool = False
    rouge_answer: float | None = None
    rouge_top: float | None = None
    central: list[str] | None = None
    identical: bool | None = None
    scored: list[tuple[str, float]] = field(default_factory=list)
    patients: list[str] = field(default_factory=list)

    @property
    def rejected(self) -> bool:
        """The answer says the evidence is not enough, and names nobody; asked about someone held nowhere, it shows no
        other patient's records either."""
        return (self.status == "insufficient" and not self.names_somebody
                and not (self.question.type == PERSON_TYPE and self.records))

    @property
    def rank(self) -> int | None:
        """The rank of the first relevant record (from 1), if one was found."""
        ranked = records_ranked(self.records)
        return next((n for n, record in enumerate(ranked, 1) if self.question.relevant.get(record, 0) > 0), None)

    def to_dict(self) -> dict:
        """What a reader comparing modes question by question needs."""
        return {"id": self.question.id, "type": self.question.type, "mode": self.mode, "status": self.status,
                "rank": self.rank, "rouge_l": self.rouge_answer, "rouge_l_top_passage": self.rouge_top,
                "names_somebody": self.names_somebody, "identical": self.identical, "ms": round(self.took_ms, 1)}


def _retrieval(outcomes: Sequence[Outcome], central: bool = False) -> dict | None:
    labelled = [o for o in outcomes if o.question.relevant and (o.central is not None or not central)]
    if not labelled:
        return None
    each = [retrieval(o.central if central else o.records, o.question.relevant, K) for o in labelled]
    return {"questions": len(labelled), **{name: mean(e[name] for e in each) for name in RETRIEVAL}}


def _answers(outcomes: Sequence[Outcome]) -> dict | None:
    gold = [o for o in outcomes if o.rouge_answer is not None]
    if not gold:
        return None
    return {"questions": len(gold), "rouge_l": mean(o.rouge_answer for o in gold),
            "rouge_l_top_passage": mean(o.rouge_top for o in gold)}


def _patients(outcomes: Sequence[Outcome]) -> dict | None:
    asked = [o for o in outcomes if o.question.patients]
    if not asked:
        return None
    found = [len(set(o.patients) & set(o.question.patients)) for o in asked]
    return {"questions": len(asked), "found": sum(found), "answer": sum(len(o.question.patients) for o in asked),
            "named": sum(len(o.patients) for o in asked),
            "recall": mean(n / min(K, len(o.question.patients)) for n, o in zip(found, asked)),
            "precision": mean(n / len(o.patients) if o.patients else 0.0 for n, o in zip(found, asked))}


def _negatives(outcomes: Sequence[Outcome]) -> dict | None:
    negatives = [o for o in outcomes if o.question.negative]
    if not negatives:
        return None
    positives = [o for o in outcomes if not o.question.negative]
    kinds = {}
    for o in negatives:
        kind = kinds.setdefault(o.question.type, {"questions": 0, "rejected": 0})
        kind["questions"] += 1
        kind["rejected"] += o.rejected
    rejected = sum(o.rejected for o in negatives)
    insufficient = sum(o.status == "insufficient" for o in positives)
    return {"questions": len(negatives), "rejected": rejected, "rejection": rejected / len(negatives), "types": kinds,
            "positives": len(positives), "positives_insufficient": insufficient,
            "positives_insufficient_share": insufficient / len(positives) if positives else None}


@dataclass
class EvalResult:
    """A labelled set's run: every outcome, and how long building, starting and asking took (seconds)."""

    name: str
    total_questions: int
    modes: tuple[str, ...]
    orgs: int = 0
    leaves: int = 0
    passages: int = 0
    build_s: float = 0.0
    start_s: float = 0.0
    ask_s: dict[str, float] = field(default_factory=dict)
    outcomes: list[Outcome] = field(default_factory=list)

    def of(self, mode: str) -> list[Outcome]:
        return [o for o in self.outcomes if o.mode == mode]

    def summary(self, mode: str) -> dict:
        """One mode's figures, overall and per question type (see the module's docstring)."""
        outcomes = self.of(mode)
        answerable = [o for o in outcomes if not o.question.negative]
        figures = {"mode": mode, "questions": len(outcomes), "retrieval": _retrieval(outcomes),
                   "answers": _answers(outcomes), "patients": _patients(outcomes), "negatives": _negatives(outcomes),
                   "insufficient": sum(o.status == "insufficient" for o in answerable),
                   "errors": sum(o.status.startswith("error") for o in outcomes),
                   "partial": sum(o.partial for o in outcomes), "mean_ms": mean(o.took_ms for o in outcomes),
                   "seconds": self.ask_s.get(mode)}
        if any(o.central is not None for o in outcomes):
            figures["central"] = _retrieval(outcomes, central=True)
            figures["identical"] = sum(bool(o.identical) for o in outcomes)
        types = sorted({o.question.type for o in outcomes}, key=lambda t: (-sum(o.question.type == t for o in outcomes), t))
        figures["types"] = {t: {"questions": len(of), "retrieval": _retrieval(of), "answers": _answers(of)}
                            for t in types for of in [[o for o in outcomes if o.question.type == t]]}
        return figures

    def to_dict(self) -> dict:
        """The run as JSON-ready data: the set, the federation, timings, each mode's figures, each outcome."""
        return {"set": self.name, "questions": len(self.of(self.modes[0])) if self.modes else 0,
                "total_questions": self.total_questions, "k": K, "orgs": self.orgs, "leaves": self.leaves,
                "passages": self.passages, "build_s": round(self.build_s, 2), "start_s": round(self.start_s, 2),
                "modes": {mode: self.summary(mode) for mode in self.modes},
                "outcomes": [outcome.to_dict() for outcome in self.outcomes]}

    def text(self) -> str:
        """The tables a person reads: per mode, federated against centralized, per question type, negatives."""
        summaries = [self.summary(mode) for mode in self.modes]
        asked = summaries[0]["questions"] if summaries else 0
        lines = [f"{self.name}: {asked} of {self.total_questions:,} questions asked; {self.orgs} organizations, "
                 f"{self.leaves} leaves, {self.passages:,} passages; k = {K}",
                 f"built in {self.build_s:.1f} s, started in {self.start_s:.1f} s; asked in "
                 + ", ".join(f"{s['seconds']:.1f} s ({s['mode']})" for s in summaries if s["seconds"] is not None), ""]
        rows = [("mode", "asked", "labelled", *_LABELS.values(), "ROUGE-L answer", "ROUGE-L top passage",
                 "insufficient", "partial", "ms/question")]
        for s in summaries:
            found, said = s["retrieval"] or {}, s["answers"] or {}
            rows.append((s["mode"], str(s["questions"]), str(found.get("questions", 0)),
                         *(_f(found.get(m)) for m in RETRIEVAL), _f(said.get("rouge_l")), _f(said.get("rouge_l_top_passage")),
                         str(s["insufficient"]), str(s["partial"]), f"{s['mean_ms'] or 0:.0f}"))
        lines += ["per ranking mode", *text_table(rows, first_left=True), ""]
        for s in summaries:
            if s.get("central") is not None and s["retrieval"] is not None:
                rows = [("metric", "federated", "centralized")]
                rows += [(_LABELS[m], _f(s["retrieval"][m]), _f(s["central"][m])) for m in RETRIEVAL]
                lines += [f"{s['mode']}: the federation against one exact index over every passage, searched with the "
                          "same query vectors", *text_table(rows, first_left=True),
                          f"identical top-{K} (passages, order, scores): {s['identical']}/{s['questions']} questions", ""]
        lines += self._types_table(summaries)
        lines += self._patients_table(summaries)
        lines += self._negatives_table(summaries)
        return "\n".join(lines).rstrip()

    def _types_table(self, summaries: list[dict]) -> list[str]:
        rows = [("question type", "labelled", "mode", *_LABELS.values(), "ROUGE-L answer", "ROUGE-L top passage")]
        types = [t for t, figures in summaries[0]["types"].items() if figures["retrieval"] or figures["answers"]]
        width = max(len(s["mode"]) for s in summaries + [{"mode": "mode"}])  # the mode column reads left-aligned
        rows[0] = (*rows[0][:2], "mode".ljust(width), *rows[0][3:])
        for t in types:
            for n, s in enumerate(summaries):
                found, said = s["types"][t]["retrieval"] or {}, s["types"][t]["answers"] or {}
                rows.append((t if n == 0 else "", str(found.get("questions", "-")) if n == 0 else "", s["mode"].ljust(width),
                             *(_f(found.get(m)) for m in RETRIEVAL), _f(said.get("rouge_l")),
                             _f(said.get("rouge_l_top_passage"))))
        return ["per question type", *text_table(rows, first_left=True), ""] if types else []

    def _patients_table(self, summaries: list[dict]) -> list[str]:
        if not summaries or summaries[0]["patients"] is None:
            return []
        rows = [("mode", "questions", "patients who are the answer", f"found in the top {K}", "patients the hits are about",
                 f"recall@{K}", f"precision@{K}")]
        for s in summaries:
            got = s["patients"]
            rows.append((s["mode"], str(got["questions"]), str(got["answer"]), str(got["found"]), str(got["named"]),
                         _f(got["recall"]), _f(got["precision"])))
        return ["questions asking which patients, by the patients the hits are about", *text_table(rows, first_left=True),
                ""]

    def _negatives_table(self, summaries: list[dict]) -> list[str]:
        if not summaries or summaries[0]["negatives"] is None:
            return []
        kinds = list(summaries[0]["negatives"]["types"])
        rows = [("mode", "negatives", "rejected", "rejection", *kinds, "answerable", "answerable insufficient")]
        for s in summaries:
            neg = s["negatives"]
            rows.append((s["mode"], str(neg["questions"]), str(neg["rejected"]), _f(neg["rejection"]),
                         *(f"{neg['types'][k]['rejected']}/{neg['types'][k]['questions']}" for k in kinds),
                         str(neg["positives"]), f"{neg['positives_insufficient']} ({_f(neg['positives_insufficient_share'])})"))
        return ["negative rejection (answered 'insufficient', naming nobody; about someone held nowhere, with no records)",
                *text_table(rows, first_left=True), ""]


def _f(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
