"""Deterministic synthetic patient names, for de-identified sources (MIMIC, MTSamples), as the FEDRAG case study did."""

from __future__ import annotations

import hashlib

_FIRST = ("James", "Mary", "Robert", "Patricia", "John", "Jennifer", "Michael", "Linda", "David", "Elizabeth", "William",
          "Barbara", "Richard", "Susan", "Joseph", "Jessica", "Thomas", "Sarah", "Carlos", "Karen", "Wei", "Aisha",
          "Mateo", "Priya", "Kwame", "Sofia", "Hiroshi", "Fatima", "Dmitri", "Amara", "Luis", "Ingrid", "Omar",
          "Chloe", "Ravi", "Zanele", "Tomas", "Leila", "Andre", "Mei")
_LAST = ("Smith", "Johnson", "Williams", "Brown", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez", "Hernandez",
         "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson", "Martin", "Lee", "Okafor",
         "Nakamura", "Petrov", "Haddad", "Mensah", "Kowalski", "Singh", "Chen", "Nguyen", "Osei", "Rossi", "Larsen",
         "Novak", "Costa", "Ibrahim", "Dubois", "Kim", "Silva", "Ahmed", "Park")


def synthetic_name(key: str) -> str:
    """A stable "First Last" name for ``key`` (a subject id): the same key always gets the same name."""
    digest = hashlib.sha256(key.encode()).digest()
    return f"{_FIRST[digest[0] % len(_FIRST)]} {_LAST[digest[1] % len(_LAST)]}"
