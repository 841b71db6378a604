"""Where, when and why each patient of the demo corpus is seen.

An :class:`Encounter` is one stay of a patient in one unit: it becomes one clinical note in that
unit and one admission row in its hospital's ``admissions`` unit.  :func:`plan_encounters` decides
the encounters of every patient in chronological order; :func:`assign_ids` then numbers the notes
per leaf and the admissions per hospital in date order.
"""

from __future__ import annotations

import datetime as _dt
import random
from dataclasses import dataclass

from nodes.demo._layout import EPOCH, ORG_CODES, ORGS
from nodes.demo._patients import Patient, age_at
from nodes.demo.tables import CONDITIONS, NOTE_TYPES, Condition


@dataclass
class Encounter:
    """One stay of a patient in one unit: one clinical note there and one admission row at its hospital."""

    patient: Patient
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


def _note_units(org: str) -> tuple[str, ...]:
    return tuple(u for u in ORGS[org] if u != "admissions")


def plan_encounters(rng: random.Random, patients: list[Patient]) -> list[Encounter]:
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
        day = EPOCH + _dt.timedelta(days=rng.randint(0, 330))
        used_dx: set[str] = set()
        for org, unit, primary in slots:
            age = age_at(p.dob, day)
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
                Encounter(
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


def assign_ids(encounters: list[Encounter]) -> None:
    """Numbers notes per leaf and admissions per hospital in date order."""
    by_org: dict[str, list[Encounter]] = {}
    by_leaf: dict[str, list[Encounter]] = {}
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
