"""Deterministic synthetic patient names, for de-identified sources (MIMIC, MTSamples), as the FEDRAG case study did."""

from __future__ import annotations

import hashlib

FEMALE = ("Mary", "Patricia", "Jennifer", "Linda", "Elizabeth", "Barbara", "Susan", "Jessica", "Sarah", "Karen", "Aisha",
           "Priya", "Sofia", "Fatima", "Amara", "Ingrid", "Chloe", "Zanele", "Leila", "Mei")
MALE = ("James", "Robert", "John", "Michael", "David", "William", "Richard", "Joseph", "Thomas", "Carlos", "Wei", "Mateo",
         "Kwame", "Hiroshi", "Dmitri", "Luis", "Omar", "Ravi", "Tomas", "Andre")
_LAST = ("Smith", "Johnson", "Williams", "Brown", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez", "Hernandez",
         "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson", "Martin", "Lee", "Okafor",
         "Nakamura", "Petrov", "Haddad", "Mensah", "Kowalski", "Singh", "Chen", "Nguyen", "Osei", "Rossi", "Larsen",
         "Novak", "Costa", "Ibrahim", "Dubois", "Kim", "Silva", "Ahmed", "Park")


def synthetic_name(key: str, sex: str | None = None) -> str:
    """A stable "First Last" name for ``key`` (a subject id): the same key always gets the same name.

    ``sex`` (``F``/``M``, as MIMIC records it) picks a first name that matches what the record says.
    """
    digest = hashlib.sha256(key.encode()).digest()
    first = {"F": FEMALE, "M": MALE}.get((sex or "").upper()[:1], FEMALE + MALE)
    return f"{first[digest[0] % len(first)]} {_LAST[digest[1] % len(_LAST)]}"
