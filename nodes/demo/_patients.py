"""The demo corpus's patients: their unique names, demographics, hospitals, history and trends.

:func:`make_patients` draws every patient once, before any encounter is planned, so all notes and
admission rows of a patient agree on who they are (name, sex, date of birth, past medical and social
history, allergy) and on the trend planted in them.
"""

from __future__ import annotations

import datetime as _dt
import random
from dataclasses import dataclass

from nodes.demo._layout import EPOCH, MONTHS, ORGS
from nodes.demo._trends import plant_history
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
    TrendSpec,
    TRENDS,
)


@dataclass
class Patient:
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


def age_at(dob: _dt.date, day: _dt.date) -> int:
    return day.year - dob.year - ((day.month, day.day) < (dob.month, dob.day))


def pronouns(sex: str) -> dict[str, str]:
    he, his, him = ("he", "his", "him") if sex == "male" else ("she", "her", "her")
    return {"he": he, "He": he.capitalize(), "his": his, "His": his.capitalize(), "him": him}


def make_patients(rng: random.Random, n_patients: int) -> list[Patient]:
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
        dob = EPOCH - _dt.timedelta(days=365 * age + rng.randint(0, 364) + age // 4)
        orgs: tuple[str, ...] = (home,)
        if i in cross:
            orgs = (home, rng.choice([o for o in ORGS if o != home]))
        # History is written once per patient so that all of their notes agree.
        ctx = dict(
            pronouns(sex),
            years=rng.randint(3, 30), months=rng.randint(2, 18), py=rng.randint(30, 79),
            drinks=rng.randint(8, 16), a1c=round(rng.uniform(9.2, 13.8), 1),
            chads=rng.randint(3, 7), month=rng.choice(MONTHS), year=rng.randint(2012, 2021),
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
            pmh, social = plant_history(rng, spec, pmh, social)
        patients.append(
            Patient(
                pid=f"P{i + 1:04d}", first=first, last=last, sex=sex, dob=dob, home=home,
                orgs=orgs, pmh=[(item.format_map(ctx), med) for item, med in pmh],
                social=[line.format_map(ctx) for line in social],
                allergy=rng.choice(ALLERGIES), trend=spec, trend_leaf=trend_leaf,
            )
        )
    return patients
