"""The fixed shape of the demo corpus: its hospitals and units, the form of its records, its calendar.

Everything here is a constant.  :mod:`nodes.demo.corpus` re-exports the public ones (``ORGS``,
``LEAVES``, ``REQUIRED_SECTIONS``, ``MAX_NOTE_CHARS``, ``ADMISSION_COLUMNS`` ...); the generator's
private modules read them from here.
"""

from __future__ import annotations

import datetime as _dt

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

# ---------------------------------------------------------------------------
# The form of a record
# ---------------------------------------------------------------------------

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

# ---------------------------------------------------------------------------
# Calendar: every date is counted from EPOCH, never from today
# ---------------------------------------------------------------------------

EPOCH = _dt.date(2023, 1, 2)
MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)
