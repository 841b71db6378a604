"""What the demo corpus can be asked, and the ground truth to check the answers against.

* Planted trends: a trend (a :class:`~nodes.demo.tables.TrendSpec` of :data:`~nodes.demo.tables.TRENDS`)
  is planted in a patient's history by :func:`plant_history` when the patient is made, and
  :func:`planted` collects, after generation, which notes and patients carry each one as a
  :class:`Trend`.  :data:`TREND_MARKERS` are the phrases every note of a trend contains.
* The question set: :func:`questions` (``DemoCorpus.questions``) mixes the trend questions, the
  fixed :data:`GENERAL_QUESTIONS` and a few questions naming patients of the corpus.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

from nodes.demo._layout import ORG_DISPLAY
from nodes.demo.tables import TRENDS, TrendSpec

if TYPE_CHECKING:
    from nodes.demo._encounters import Encounter
    from nodes.demo._model import DemoCorpus, Record

# ---------------------------------------------------------------------------
# Planted trends
# ---------------------------------------------------------------------------

TREND_MARKERS: dict[str, tuple[str, ...]] = {
    "alcohol_liver": ("heavy alcohol use", "alcoholic liver disease"),
    "smoking_copd": ("pack-year smoking history", "COPD"),
    "diabetes_foot": ("poorly controlled type 2 diabetes", "foot ulcer"),
    "afib_stroke": ("off anticoagulation", "atrial fibrillation"),
    "opioid_overdose": ("opioid use disorder", "naloxone"),
}
"""Phrases present in every note of a trend.  The first phrase of each trend is
exclusive: it never occurs in a note outside that trend's ``record_ids``."""


@dataclass(frozen=True)
class Trend:
    """A cross-patient pattern planted in the notes of several patients.

    Attributes:
        name: Short identifier, e.g. ``"alcohol_liver"``.
        description: One sentence describing the pattern.
        question: A clinical question this trend answers.
        patients: Sorted names of the patients carrying the trend.
        record_ids: Sorted ids of the notes (never admissions) where it is planted.
    """

    name: str
    description: str
    question: str
    patients: tuple[str, ...]
    record_ids: tuple[str, ...]


def plant_history(
    rng: random.Random, spec: TrendSpec, pmh: list[tuple[str, str]], social: list[str]
) -> tuple[list[tuple[str, str]], list[str]]:
    """Plants a trend's history and drops generic lines that would contradict it.

    Returns:
        The new past medical history items and social history lines.
    """
    social = list(social)
    slot = {"alcohol_liver": 3, "smoking_copd": 2, "opioid_overdose": 4}.get(spec.name)
    if slot is None:
        social.append(rng.choice(spec.social))
    else:
        social[slot] = rng.choice(spec.social)
    kept = [item for item in pmh if "diabetes" not in item[0] and "asthma" not in item[0]]
    return [(rng.choice(spec.pmh), "")] + kept, social


def planted(encounters: list[Encounter]) -> tuple[Trend, ...]:
    """Collects, for each trend of ``TRENDS``, the patients carrying it and the ids of their notes."""
    trends = []
    for spec in TRENDS:
        carriers = [e for e in encounters if e.patient.trend is spec]
        trends.append(
            Trend(
                name=spec.name,
                description=spec.description,
                question=spec.question,
                patients=tuple(sorted({e.patient.name for e in carriers})),
                record_ids=tuple(sorted(e.note_id for e in carriers)),
            )
        )
    return tuple(trends)


# ---------------------------------------------------------------------------
# The question set
# ---------------------------------------------------------------------------

GENERAL_QUESTIONS = [
    "Which patients were admitted with community-acquired pneumonia and which antibiotics did they receive?",
    "Which patients underwent a laparoscopic cholecystectomy?",
    "Which patients had an appendectomy for acute appendicitis?",
    "Which elderly patients had a hip fracture after a fall and where were they discharged?",
    "Which patients underwent elective total knee arthroplasty?",
    "Which patients were admitted to psychiatry with major depressive disorder and suicidal ideation?",
    "Which patients with bipolar disorder were restarted on lithium?",
    "Which patients presented with chest pain and an elevated troponin?",
    "Which patients were treated for decompensated heart failure with reduced ejection fraction?",
    "Which patients with atrial fibrillation are adherent to apixaban?",
    "Which patients had a breakthrough seizure after missing antiepileptic doses?",
    "Which patients with migraine were started on preventive therapy?",
    "Which patients had a multiple sclerosis relapse treated with IV methylprednisolone?",
    "Which patients were treated for urosepsis?",
    "Which patients were discharged to a skilled nursing facility?",
    "Which patients left the hospital against medical advice?",
    "Which patients were seen at more than one hospital?",
    "What is the typical length of stay for emergency medicine admissions?",
    "Which patients had an elective inguinal hernia repair?",
]
"""Questions over units and conditions that every corpus can answer, whatever its seed."""


def questions(corpus: DemoCorpus) -> list[str]:
    """Returns the question set of ``corpus`` (see ``DemoCorpus.questions``).

    Its own ``random.Random`` is seeded from the corpus's seed, so the set is a
    pure function of the corpus.
    """
    questions = [t.question for t in corpus.trends]
    questions += GENERAL_QUESTIONS
    rng = random.Random(corpus.seed * 7919 + 17)
    notes = [r for leaf, recs in corpus.leaves.items() if not leaf.endswith(".admissions") for r in recs]
    by_patient: dict[str, list[Record]] = {}
    for rec in notes:
        by_patient.setdefault(rec.patient, []).append(rec)
    names = sorted(by_patient)
    multi = sorted(n for n in names if len({r.metadata["org"] for r in by_patient[n]}) > 1)
    picks = rng.sample(names, k=min(6, len(names)))
    templates = (
        "What medications is {name} taking?",
        "What is the past medical history of {name}?",
        "Why was {name} admitted to {org}?",
        "What was the discharge disposition for {name}?",
        "What is the social history of {name}?",
        "What was the assessment and plan for {name}'s {unit} visit?",
    )
    for template, name in zip(templates, picks):
        rec = by_patient[name][0]
        questions.append(
            template.format(
                name=name,
                org=ORG_DISPLAY[rec.metadata["org"]],
                unit=rec.metadata["unit"],
            )
        )
    for name in rng.sample(multi, k=min(2, len(multi))):
        orgs = sorted({r.metadata["org"] for r in by_patient[name]})
        questions.append(
            f"Summarize the care {name} received at {ORG_DISPLAY[orgs[0]]} and {ORG_DISPLAY[orgs[1]]}."
        )
    return list(dict.fromkeys(questions))
