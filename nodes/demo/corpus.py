"""Deterministic synthetic clinical corpus for the fedrag demo federation.

The federation needs data to retrieve from, but the demo must run anywhere
without real patient records or downloads.  This module writes such data
itself: from an integer seed it builds a small hospital network whose records
look like a case study.

* Three hospitals (``hospital_a``, ``hospital_b``, ``hospital_c``), each with
  an ``admissions`` unit of structured admission rows plus clinical units
  (medicine, surgery, orthopaedics, psychiatry, cardiology, neurology) that
  hold multi-section free-text notes.
* About 180 synthetic named patients.  Roughly 15% of them are seen at two
  hospitals, so some questions can only be answered by combining data from
  more than one member of the federation.
* Several *planted trends*: groups of at least eight patients, spread over at
  least two hospitals, whose notes share a clinical pattern (for example heavy
  alcohol use with alcoholic liver disease).  Each trend records the exact
  note ids and patients that carry it, so retrieval recall can be measured
  against a known ground truth.

Everything comes from ``random.Random(seed)``: the same seed always yields
byte-identical output, and nothing depends on the current date or on external
data.  Only the standard library is used.

Typical use::

    corpus = generate(seed=7)
    paths = write(corpus, pathlib.Path("data/demo"))
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import pathlib
import random
import tempfile
from dataclasses import dataclass

from nodes.demo.tables import (
    MALE_FIRST,
    FEMALE_FIRST,
    LAST,
    PMH_ITEMS,
    OCCUPATIONS,
    STUDENT,
    RETIRED,
    OLDER_ONLY_PMH,
    LIVING,
    TOBACCO,
    ALCOHOL,
    DRUGS,
    ALLERGIES,
    FAMILY,
    OPENERS,
    PMH_LEADS,
    CLOSERS,
    Condition,
    CONDITIONS,
    TrendSpec,
    TRENDS,
    NOTE_TYPES,
)

# ---------------------------------------------------------------------------
# Layout of the federation
# ---------------------------------------------------------------------------

ORGS: dict[str, tuple[str, ...]] = {
    "hospital_a": ("admissions", "medicine", "surgery", "orthopaedics", "psychiatry"),
    "hospital_b": ("admissions", "medicine", "cardiology"),
    "hospital_c": ("admissions", "neurology"),
}
"""Units of each hospital; ``admissions`` holds structured rows, the others notes."""

LEAVES: tuple[str, ...] = tuple(f"{org}.{unit}" for org, units in ORGS.items() for unit in units)
"""All ten leaf paths, in a fixed order."""

ORG_CODES = {"hospital_a": "A", "hospital_b": "B", "hospital_c": "C"}
ORG_DISPLAY = {"hospital_a": "Hospital A", "hospital_b": "Hospital B", "hospital_c": "Hospital C"}

REQUIRED_SECTIONS: tuple[str, ...] = (
    "CHIEF COMPLAINT",
    "HISTORY OF PRESENT ILLNESS",
    "PAST MEDICAL HISTORY",
    "SOCIAL HISTORY",
    "MEDICATIONS",
    "ASSESSMENT AND PLAN",
)
"""Sections every clinical note contains (optional ones may be added in between)."""

MAX_NOTE_CHARS = 2500
"""Upper bound on the length of any note text."""

ADMISSION_COLUMNS: tuple[str, ...] = (
    "admission_id",
    "patient",
    "patient_id",
    "date_of_birth",
    "age",
    "sex",
    "admit_date",
    "discharge_date",
    "department",
    "admission_type",
    "primary_diagnosis",
    "disposition",
    "length_of_stay_days",
    "org",
)
"""Columns of an admission row; each one is stored in metadata and spelled out in the text."""

TREND_MARKERS: dict[str, tuple[str, ...]] = {
    "alcohol_liver": ("heavy alcohol use", "alcoholic liver disease"),
    "smoking_copd": ("pack-year smoking history", "COPD"),
    "diabetes_foot": ("poorly controlled type 2 diabetes", "foot ulcer"),
    "afib_stroke": ("off anticoagulation", "atrial fibrillation"),
    "opioid_overdose": ("opioid use disorder", "naloxone"),
}
"""Phrases present in every note of a trend.  The first phrase of each trend is
exclusive: it never occurs in a note outside that trend's ``record_ids``."""


# ---------------------------------------------------------------------------
# Public data model
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Record:
    """One retrievable document: a clinical note or an admission row.

    Attributes:
        id: Globally unique, stable id such as ``"hospital_a.medicine/note-0012"``
            or ``"hospital_b.admissions/ADM-B-0031"``.
        text: The note text (sections separated by a blank line, each starting
            with its UPPERCASE heading and a colon) or the admission row text.
        patient: The patient's full name, ``"First Last"``.
        metadata: Flat mapping of str/int/float/bool values.  Notes carry
            ``kind="note"``, ``note_type``, ``unit``, ``org``, ``patient_id`` and
            ``date``; admissions carry ``kind="admission"`` and every column.
    """

    id: str
    text: str
    patient: str
    metadata: dict


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


@dataclass(frozen=True)
class DemoCorpus:
    """The generated corpus.

    Attributes:
        seed: Seed the corpus was generated from.
        leaves: Leaf path (``"hospital_a.medicine"``) to its records, sorted by id.
        trends: The planted trends.
        patients: Sorted names of all patients.
    """

    seed: int
    leaves: dict[str, list[Record]]
    trends: tuple[Trend, ...]
    patients: tuple[str, ...]

    def records(self) -> list[Record]:
        """Returns every record of every leaf, in leaf order."""
        return [rec for leaf in self.leaves for rec in self.leaves[leaf]]

    def questions(self) -> list[str]:
        """Returns at least 25 varied clinical questions over this corpus.

        The list mixes the trend questions, unit-specific questions and a few
        questions naming specific patients of this corpus.  It is a pure
        function of the corpus, so it is deterministic for a seed.

        Returns:
            Unique question strings.
        """
        questions = [t.question for t in self.trends]
        questions += _GENERAL_QUESTIONS
        rng = random.Random(self.seed * 7919 + 17)
        notes = [r for leaf, recs in self.leaves.items() if not leaf.endswith(".admissions") for r in recs]
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


_GENERAL_QUESTIONS = [
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



# ---------------------------------------------------------------------------
# Generation
# ---------------------------------------------------------------------------

_EPOCH = _dt.date(2023, 1, 2)
_MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)


@dataclass
class _Patient:
    """Internal patient state shared by all of the patient's notes and admissions."""

    pid: str
    first: str
    last: str
    sex: str
    dob: _dt.date
    home: str
    orgs: tuple[str, ...]
    pmh: list[tuple[str, str]]
    social: list[str]
    allergy: str
    trend: TrendSpec | None = None
    trend_leaf: str = ""

    @property
    def name(self) -> str:
        return f"{self.first} {self.last}"


@dataclass
class _Encounter:
    patient: _Patient
    org: str
    unit: str
    condition: Condition
    trend_primary: bool
    admit: _dt.date
    discharge: _dt.date
    admission_type: str
    disposition: str
    note_type: str
    note_date: _dt.date
    side: str
    note_id: str = ""
    admission_id: str = ""


def _age_at(dob: _dt.date, day: _dt.date) -> int:
    return day.year - dob.year - ((day.month, day.day) < (dob.month, dob.day))


def _note_units(org: str) -> tuple[str, ...]:
    return tuple(u for u in ORGS[org] if u != "admissions")


def _pronouns(sex: str) -> dict[str, str]:
    he, his, him = ("he", "his", "him") if sex == "male" else ("she", "her", "her")
    return {"he": he, "He": he.capitalize(), "his": his, "His": his.capitalize(), "him": him}


def _make_patients(rng: random.Random, n_patients: int) -> list[_Patient]:
    """Creates patients with unique names, demographics, hospitals, history and trends.

    Every trend gets ``max(8, n_patients / 15)`` patients; their acute
    presentations rotate over the trend's leaves, so each trend spans at least
    two hospitals.  About 15% of patients are seen at a second hospital.
    """
    per_trend = max(8, round(n_patients / 15))
    trend_slots = [(spec, k) for spec in TRENDS for k in range(per_trend)]
    trend_of = dict(zip(rng.sample(range(n_patients), len(trend_slots)), trend_slots))
    cross = set(rng.sample(range(n_patients), round(0.15 * n_patients)))
    used: set[str] = set()
    patients = []
    for i in range(n_patients):
        sex = rng.choice(("male", "female"))
        while True:
            first = rng.choice(MALE_FIRST if sex == "male" else FEMALE_FIRST)
            last = rng.choice(LAST)
            if f"{first} {last}" not in used:
                used.add(f"{first} {last}")
                break
        spec, k = trend_of.get(i, (None, 0))
        if spec is not None:
            lo, hi = spec.age_range
            trend_leaf = list(spec.conditions)[k % len(spec.conditions)]
            home = trend_leaf.split(".")[0]
        else:
            lo, hi = 18, 92
            trend_leaf = ""
            home = rng.choices(list(ORGS), weights=(45, 30, 25))[0]
        age = rng.randint(lo, hi)
        dob = _EPOCH - _dt.timedelta(days=365 * age + rng.randint(0, 364) + age // 4)
        orgs: tuple[str, ...] = (home,)
        if i in cross:
            orgs = (home, rng.choice([o for o in ORGS if o != home]))
        # History is written once per patient so that all of their notes agree.
        ctx = dict(
            _pronouns(sex),
            years=rng.randint(3, 30), months=rng.randint(2, 18), py=rng.randint(30, 79),
            drinks=rng.randint(8, 16), a1c=round(rng.uniform(9.2, 13.8), 1),
            chads=rng.randint(3, 7), month=rng.choice(_MONTHS), year=rng.randint(2012, 2021),
            n_od=rng.choice(("two", "three", "four")),
        )
        pmh_pool = [
            item for item in PMH_ITEMS
            if age >= 45 or not any(word in item[0] for word in OLDER_ONLY_PMH)
        ]
        pmh = rng.sample(pmh_pool, rng.randint(1, 3))
        jobs = RETIRED if age >= 67 else OCCUPATIONS + (STUDENT if age < 26 else ())
        social = [
            f"{first} {rng.choice(jobs)}.",
            rng.choice(LIVING),
            rng.choice(TOBACCO),
            rng.choice(ALCOHOL),
            rng.choice(DRUGS),
        ]
        if spec is not None:
            pmh, social = _apply_trend_history(rng, spec, pmh, social)
        patients.append(
            _Patient(
                pid=f"P{i + 1:04d}", first=first, last=last, sex=sex, dob=dob, home=home,
                orgs=orgs, pmh=[(item.format_map(ctx), med) for item, med in pmh],
                social=[line.format_map(ctx) for line in social],
                allergy=rng.choice(ALLERGIES), trend=spec, trend_leaf=trend_leaf,
            )
        )
    return patients


def _apply_trend_history(
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


def _plan_encounters(rng: random.Random, patients: list[_Patient]) -> list[_Encounter]:
    """Decides where and when each patient is seen and for which condition."""
    encounters = []
    for p in patients:
        n_notes = rng.choices((1, 2, 3), weights=(15, 35, 50))[0]
        if len(p.orgs) > 1:
            n_notes = max(2, n_notes)
        slots: list[tuple[str, str, bool]] = []
        if p.trend is not None:
            org, unit = p.trend_leaf.split(".")
            slots.append((org, unit, True))
        else:
            slots.append((p.home, rng.choice(_note_units(p.home)), False))
        if len(p.orgs) > 1:
            slots.append((p.orgs[1], rng.choice(_note_units(p.orgs[1])), False))
        while len(slots) < n_notes:
            org = rng.choice(p.orgs)
            slots.append((org, rng.choice(_note_units(org)), False))
        day = _EPOCH + _dt.timedelta(days=rng.randint(0, 330))
        used_dx: set[str] = set()
        for org, unit, primary in slots:
            age = _age_at(p.dob, day)
            if primary:
                options = p.trend.conditions[f"{org}.{unit}"]  # type: ignore[union-attr]
            else:
                excluded = used_dx | set(p.trend.excludes if p.trend else ())
                options = tuple(
                    c for c in CONDITIONS[unit] if c.min_age <= age and c.diagnosis not in excluded
                ) or tuple(c for c in CONDITIONS[unit] if c.min_age <= age)
            cond = rng.choice(options)
            used_dx.add(cond.diagnosis)
            los = rng.randint(*cond.los)
            discharge = day + _dt.timedelta(days=los)
            kinds = NOTE_TYPES.get(unit, NOTE_TYPES["default"])
            note_type = rng.choice(kinds)
            if note_type == "Discharge Summary":
                note_date = discharge
            elif note_type in kinds[1:] and los > 0:
                note_date = day + _dt.timedelta(days=rng.randint(1, los))
            else:
                note_date = day
            encounters.append(
                _Encounter(
                    patient=p, org=org, unit=unit, condition=cond, trend_primary=primary,
                    admit=day, discharge=discharge,
                    admission_type=rng.choice(cond.admission_types),
                    disposition=rng.choice(cond.dispositions),
                    note_type=note_type, note_date=note_date,
                    side=rng.choice(("left", "right")),
                )
            )
            day = discharge + _dt.timedelta(days=rng.randint(21, 200))
    return encounters


def _assign_ids(encounters: list[_Encounter]) -> None:
    """Numbers notes per leaf and admissions per hospital in date order."""
    by_org: dict[str, list[_Encounter]] = {}
    by_leaf: dict[str, list[_Encounter]] = {}
    for e in encounters:
        by_org.setdefault(e.org, []).append(e)
        by_leaf.setdefault(f"{e.org}.{e.unit}", []).append(e)
    for org, items in by_org.items():
        items.sort(key=lambda e: (e.admit, e.patient.pid, e.unit))
        for i, e in enumerate(items, 1):
            e.admission_id = f"ADM-{ORG_CODES[org]}-{i:04d}"
    for leaf, items in by_leaf.items():
        items.sort(key=lambda e: (e.note_date, e.patient.pid))
        for i, e in enumerate(items, 1):
            e.note_id = f"{leaf}/note-{i:04d}"


def _context(rng: random.Random, e: _Encounter, age: int) -> dict[str, object]:
    """Builds the placeholder values used by every template of one note."""
    p = e.patient
    male = p.sex == "male"
    ctx: dict[str, object] = dict(_pronouns(p.sex))
    ctx.update({
        "name": p.name, "first": p.first, "last": p.last,
        "full": f"{'Mr.' if male else 'Ms.'} {p.name}",
        "age": age, "man": "man" if male else "woman",
        "side": e.side, "Side": e.side.capitalize(),
        "unit": e.unit, "org": ORG_DISPLAY[e.org],
        "days": rng.randint(2, 6), "weeks": rng.randint(2, 8), "months": rng.randint(3, 14),
        "years": rng.randint(3, 25), "hours": rng.randint(6, 30), "minutes": rng.randint(2, 5),
        "temp": round(rng.uniform(37.9, 39.6), 1), "spo2": rng.randint(84, 93),
        "hr": rng.randint(72, 118), "hr_high": rng.randint(128, 165),
        "sbp": rng.randint(98, 168), "dbp": rng.randint(58, 96),
        "wbc": round(rng.uniform(11.5, 21.0), 1), "lactate": round(rng.uniform(2.1, 4.8), 1),
        "creat": round(rng.uniform(2.0, 4.5), 1), "hgb": round(rng.uniform(6.1, 8.4), 1),
        "ferritin": rng.randint(3, 14), "glucose": rng.randint(310, 640),
        "a1c": round(rng.uniform(9.2, 13.8), 1), "kg": rng.randint(3, 8),
        "trop": rng.randint(60, 2400), "mm": rng.randint(1, 3), "ef": rng.randint(20, 35),
        "bnp": rng.randint(900, 4200), "phq": rng.randint(15, 26), "ciwa": rng.randint(12, 24),
        "bili": round(rng.uniform(2.5, 9.8), 1), "inr": round(rng.uniform(1.5, 2.6), 1),
        "alb": round(rng.uniform(2.1, 3.0), 1), "lipase": rng.randint(600, 4200),
        "ph": round(rng.uniform(7.21, 7.33), 2), "pco2": rng.randint(52, 78),
        "size": rng.randint(11, 26), "suv": round(rng.uniform(3.5, 11.0), 1),
        "fev1": rng.randint(38, 72), "nihss": rng.randint(6, 19),
        "n_days": rng.randint(3, 14), "esr": rng.randint(60, 110),
        "gradient": rng.randint(42, 68),
    })
    return ctx


def _days(n: int) -> str:
    return f"{n} day" if n == 1 else f"{n} days"


def _diagnosis(e: _Encounter) -> str:
    """Returns the encounter's primary diagnosis with its laterality filled in."""
    return e.condition.diagnosis.replace("{side}", e.side)


def _pick(rng: random.Random, options: tuple[str, ...], lo: int, hi: int) -> list[str]:
    """Picks between lo and hi options, keeping their original order."""
    k = min(len(options), rng.randint(lo, hi))
    return [options[i] for i in sorted(rng.sample(range(len(options)), k))]


def _render_note(rng: random.Random, e: _Encounter, previous: _Encounter | None) -> str:
    """Writes the multi-section text of one clinical note."""
    p, cond, spec = e.patient, e.condition, e.patient.trend
    age = _age_at(p.dob, e.note_date)
    ctx = _context(rng, e, age)
    fill = lambda s: s.format_map(ctx)  # noqa: E731 - tiny local helper
    diagnosis = _diagnosis(e)
    pmh_items = [item for item, _ in p.pmh]
    ctx["pmh_short"] = pmh_items[0] if spec is not None else " and ".join(pmh_items[:2])
    complaint = fill(rng.choice(cond.complaints))
    ctx["complaint"] = complaint

    hpi = [fill(rng.choice(OPENERS))] + [fill(s) for s in _pick(rng, cond.hpi, 2, 3)]
    if previous is not None and previous.org != e.org:
        hpi.append(
            f"{ctx['He']} was admitted to {ORG_DISPLAY[previous.org]} in "
            f"{_MONTHS[previous.admit.month - 1]} {previous.admit.year} for "
            f"{_diagnosis(previous)}."
        )
    closer = fill(rng.choice(CLOSERS))
    if closer:
        hpi.append(closer)

    meds = list(cond.meds) + (list(spec.meds) if spec else []) + [m for _, m in p.pmh if m]
    meds = list(dict.fromkeys(fill(m) for m in meds))
    med_text = rng.choice(("{}.", "Current medications: {}.", "Medications on this admission include {}."))
    med_text = med_text.format("; ".join(meds))
    med_text = med_text[0].upper() + med_text[1:]

    plan = [
        rng.choice(
            (
                f"{age}-year-old {ctx['man']} with {diagnosis}.",
                f"{ctx['full']} is being treated for {diagnosis}.",
                f"Impression: {diagnosis}.",
            )
        )
    ]
    if e.note_type == "Discharge Summary":
        plan[0] = f"Discharge diagnosis: {diagnosis}."
    plan += [fill(s) for s in _pick(rng, cond.plan, 2, 3)]
    if spec is not None and not e.trend_primary:
        plan.append(fill(rng.choice(spec.background_plan)))
    plan.append(f"Anticipated disposition: {e.disposition}.")

    sections: list[tuple[str, str]] = [
        ("CHIEF COMPLAINT", complaint[0].upper() + complaint[1:] + "."),
        ("HISTORY OF PRESENT ILLNESS", " ".join(hpi)),
        ("PAST MEDICAL HISTORY", rng.choice(PMH_LEADS).format("; ".join(pmh_items))),
        ("ALLERGIES", p.allergy),
        ("SOCIAL HISTORY", " ".join(p.social)),
        ("FAMILY HISTORY", rng.choice(FAMILY)),
        ("MEDICATIONS", med_text),
        ("ASSESSMENT AND PLAN", " ".join(plan)),
    ]
    if e.note_type == "Discharge Summary":
        course = (
            f"{ctx['He']} was admitted to the {e.unit} service on {e.admit.isoformat()} for {diagnosis} "
            f"and discharged on {e.discharge.isoformat()} to {e.disposition} after "
            f"{_days((e.discharge - e.admit).days)}."
        )
        sections.insert(-1, ("HOSPITAL COURSE", course))
    optional = {"ALLERGIES", "FAMILY HISTORY"}
    sections = [(h, b) for h, b in sections if h not in optional or rng.random() < 0.6]

    text = "\n\n".join(f"{h}: {b}" for h, b in sections)
    while len(text) > MAX_NOTE_CHARS and len(hpi) > 3:
        hpi.pop()
        sections = [(h, " ".join(hpi) if h == "HISTORY OF PRESENT ILLNESS" else b) for h, b in sections]
        text = "\n\n".join(f"{h}: {b}" for h, b in sections)
    return text


def _note_record(e: _Encounter, text: str) -> Record:
    p = e.patient
    return Record(
        id=e.note_id,
        text=text,
        patient=p.name,
        metadata={
            "kind": "note",
            "note_type": e.note_type,
            "unit": e.unit,
            "org": e.org,
            "patient_id": p.pid,
            "date": e.note_date.isoformat(),
            "age": _age_at(p.dob, e.note_date),
            "sex": p.sex,
            "admission_id": e.admission_id,
            "primary_diagnosis": _diagnosis(e),
        },
    )


def _admission_record(e: _Encounter) -> Record:
    p = e.patient
    los = (e.discharge - e.admit).days
    meta: dict[str, object] = {
        "kind": "admission",
        "unit": "admissions",
        "org": e.org,
        "admission_id": e.admission_id,
        "patient": p.name,
        "patient_id": p.pid,
        "date_of_birth": p.dob.isoformat(),
        "age": _age_at(p.dob, e.admit),
        "sex": p.sex,
        "admit_date": e.admit.isoformat(),
        "discharge_date": e.discharge.isoformat(),
        "department": e.unit,
        "admission_type": e.admission_type,
        "primary_diagnosis": _diagnosis(e),
        "disposition": e.disposition,
        "length_of_stay_days": los,
    }
    text = (
        f"Admission {e.admission_id}. Hospital: {e.org}. Patient: {p.name}. Patient ID: {p.pid}. "
        f"Date of birth: {meta['date_of_birth']}. Age: {meta['age']}. Sex: {p.sex}. "
        f"Admitted: {meta['admit_date']}. Discharged: {meta['discharge_date']}. "
        f"Department: {e.unit}. Type: {e.admission_type}. "
        f"Primary diagnosis: {meta['primary_diagnosis']}. Disposition: {e.disposition}. "
        f"Length of stay: {_days(los)}."
    )
    return Record(id=f"{e.org}.admissions/{e.admission_id}", text=text, patient=p.name, metadata=meta)


def generate(seed: int = 7, n_patients: int = 180) -> DemoCorpus:
    """Generates the demo corpus deterministically from a seed.

    Args:
        seed: Seed for ``random.Random``; equal seeds give identical corpora.
        n_patients: Number of patients, at least 60 so every trend has
            enough patients.

    Returns:
        The corpus with all ten leaves, the planted trends and patient names.

    Raises:
        ValueError: If ``n_patients`` is below 60.
    """
    if n_patients < 60:
        raise ValueError("n_patients must be at least 60")
    rng = random.Random(seed)
    patients = _make_patients(rng, n_patients)
    encounters = _plan_encounters(rng, patients)
    _assign_ids(encounters)

    leaves: dict[str, list[Record]] = {leaf: [] for leaf in LEAVES}
    last_seen: dict[str, _Encounter] = {}
    for e in encounters:  # planned per patient in chronological order
        text = _render_note(rng, e, last_seen.get(e.patient.pid))
        last_seen[e.patient.pid] = e
        leaves[f"{e.org}.{e.unit}"].append(_note_record(e, text))
        leaves[f"{e.org}.admissions"].append(_admission_record(e))
    for leaf in leaves:
        leaves[leaf].sort(key=lambda r: r.id)

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
    return DemoCorpus(
        seed=seed,
        leaves=leaves,
        trends=tuple(trends),
        patients=tuple(sorted(p.name for p in patients)),
    )


# ---------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------


def _dumps(obj: object, **kwargs: object) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, **kwargs)


def _write_atomic(path: pathlib.Path, content: str) -> None:
    """Writes ``content`` to ``path`` through a temporary file and ``os.replace``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(content)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write(corpus: DemoCorpus, out_dir: pathlib.Path) -> dict[str, pathlib.Path]:
    """Writes the corpus as JSONL files plus trend and question manifests.

    Layout: ``out_dir/<org>/<unit>.jsonl`` (one JSON object per line with keys
    ``id``, ``text``, ``patient``, ``metadata``), ``out_dir/trends.json``
    (``{name: {description, question, patients, record_ids}}``) and
    ``out_dir/questions.json`` (a list of strings).  Each file is written
    atomically, and the bytes are identical for the same seed.

    Args:
        corpus: Corpus returned by ``generate``.
        out_dir: Destination directory, created if missing.

    Returns:
        Mapping of leaf path to its JSONL file.
    """
    out_dir = pathlib.Path(out_dir)
    paths: dict[str, pathlib.Path] = {}
    for leaf, records in corpus.leaves.items():
        org, unit = leaf.split(".", 1)
        path = out_dir / org / f"{unit}.jsonl"
        lines = [
            _dumps({"id": r.id, "text": r.text, "patient": r.patient, "metadata": r.metadata}) + "\n"
            for r in records
        ]
        _write_atomic(path, "".join(lines))
        paths[leaf] = path
    trends = {
        t.name: {
            "description": t.description,
            "question": t.question,
            "patients": list(t.patients),
            "record_ids": list(t.record_ids),
        }
        for t in corpus.trends
    }
    _write_atomic(out_dir / "trends.json", _dumps(trends, indent=2) + "\n")
    _write_atomic(out_dir / "questions.json", _dumps(corpus.questions(), indent=2) + "\n")
    return paths


def main(argv: list[str] | None = None) -> None:
    """Command line entry point: ``python -m nodes.demo.corpus --out DIR``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--patients", type=int, default=180)
    parser.add_argument("--out", type=pathlib.Path, required=True)
    args = parser.parse_args(argv)
    corpus = generate(args.seed, args.patients)
    for leaf, path in write(corpus, args.out).items():
        print(f"{leaf}: {len(corpus.leaves[leaf])} records -> {path}")


if __name__ == "__main__":
    main()
