"""The text of the demo corpus: one clinical note and one admission row per encounter.

:func:`render_note` writes a note's sections (chief complaint, history of present illness, past
medical and social history, medications, assessment and plan, and sometimes allergies, family
history and a hospital course) from the encounter's condition, the patient's history and the
sentence templates of :mod:`nodes.demo.tables`, filled with the placeholder values of
:func:`_context`.  :func:`note_record` and :func:`admission_record` wrap a note and an admission row
as records (:class:`~nodes.demo._model.Record`).
"""

from __future__ import annotations

import random

from nodes.demo._encounters import Encounter
from nodes.demo._layout import MAX_NOTE_CHARS, MONTHS, ORG_DISPLAY
from nodes.demo._model import Record
from nodes.demo._patients import age_at, pronouns
from nodes.demo.tables import CLOSERS, FAMILY, OPENERS, PMH_LEADS


def _context(rng: random.Random, e: Encounter, age: int) -> dict[str, object]:
    """Builds the placeholder values used by every template of one note."""
    p = e.patient
    male = p.sex == "male"
    ctx: dict[str, object] = dict(pronouns(p.sex))
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


def _diagnosis(e: Encounter) -> str:
    """Returns the encounter's primary diagnosis with its laterality filled in."""
    return e.condition.diagnosis.replace("{side}", e.side)


def _pick(rng: random.Random, options: tuple[str, ...], lo: int, hi: int) -> list[str]:
    """Picks between lo and hi options, keeping their original order."""
    k = min(len(options), rng.randint(lo, hi))
    return [options[i] for i in sorted(rng.sample(range(len(options)), k))]


def render_note(rng: random.Random, e: Encounter, previous: Encounter | None) -> str:
    """Writes the multi-section text of one clinical note."""
    p, cond, spec = e.patient, e.condition, e.patient.trend
    age = age_at(p.dob, e.note_date)
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
            f"{MONTHS[previous.admit.month - 1]} {previous.admit.year} for "
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


def note_record(e: Encounter, text: str) -> Record:
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
            "age": age_at(p.dob, e.note_date),
            "sex": p.sex,
            "admission_id": e.admission_id,
            "primary_diagnosis": _diagnosis(e),
        },
    )


def admission_record(e: Encounter) -> Record:
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
        "age": age_at(p.dob, e.admit),
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
