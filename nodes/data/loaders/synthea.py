"""``synthea``: a Synthea CSV export folder, one record per encounter.

Reads ``patients.csv`` (the names: ``FIRST LAST``, with the digits Synthea appends removed; the sex and the age at
each encounter, from ``GENDER`` and ``BIRTHDATE``, go in its metadata),
``encounters.csv`` (class, description, reason, start date, organization), and joins each encounter's
``conditions.csv`` and ``medications.csv`` rows, and those of ``allergies.csv``, ``procedures.csv`` and
``immunizations.csv`` where the export has them, so a question about a named patient's conditions, drugs,
allergies, procedures or vaccines — or about who has one — finds the encounters that hold them.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path

from bus.errors import StoreError
from nodes.data.loaders._files import csv_rows
from nodes.data.records import LoadReport, Record

_DIGITS = re.compile(r"\d+")


def person_name(first: str, last: str) -> str:
    """``Alice368 Gleason633`` becomes ``Alice Gleason``."""
    return " ".join(_DIGITS.sub("", part).strip() for part in (first, last) if part and _DIGITS.sub("", part).strip())


_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


def _who(person: dict[str, str], start: str) -> dict[str, str | int]:
    """The patient's sex and age at an encounter starting at ``start``, as far as ``patients.csv`` gives them
    (``GENDER`` F or M, ``BIRTHDATE``), for questions about women, men, children or an age
    (:mod:`nodes.demographics`)."""
    found: dict[str, str | int] = {}
    sex = {"F": "female", "M": "male"}.get((person.get("GENDER") or "").strip().upper())
    if sex:
        found["sex"] = sex
    born, then = _DATE.match(person.get("BIRTHDATE") or ""), _DATE.match(start or "")
    if born and then:
        (year, month, day), (at, at_month, at_day) = (tuple(map(int, date.groups())) for date in (born, then))
        age = at - year - ((at_month, at_day) < (month, day))
        if 0 <= age <= 130:
            found["age"] = age
    return found


def _allergy(row: dict[str, str]) -> str:
    """"Penicillin V (reaction: Wheal (finding))": the substance and what it did."""
    reactions = [row.get(f"DESCRIPTION{n}", "") for n in (1, 2)]
    reactions = [reaction for reaction in reactions if reaction]
    return row["DESCRIPTION"] + (f" (reaction: {'; '.join(reactions)})" if reactions else "")


#: The tables joined to their encounters: the heading they go under in its passage, the table, and what a row says.
_JOINED = (("Conditions", "conditions", lambda row: row["DESCRIPTION"]),
           ("Medications", "medications", lambda row: row["DESCRIPTION"]),
           ("Allergies", "allergies", _allergy),
           ("Procedures", "procedures", lambda row: row["DESCRIPTION"]),
           ("Immunizations", "immunizations", lambda row: row["DESCRIPTION"]))


def _by_encounter(table: Path, report: LoadReport, said: Callable[[dict[str, str]], str]) -> dict[str, list[str]]:
    """What ``table``'s rows say, each once, by encounter."""
    found: dict[str, list[str]] = defaultdict(list)
    for _, row in csv_rows(table, report, ("ENCOUNTER", "DESCRIPTION")):
        text = said(row).strip()
        if text and text not in found[row["ENCOUNTER"]]:
            found[row["ENCOUNTER"]].append(text)
    return found


def read(path: Path, report: LoadReport) -> Iterator[tuple[str, Record]]:
    folder = Path(path)
    tables = {name: folder / f"{name}.csv" for name in ("patients", "encounters", "conditions", "medications")}
    for name, table in tables.items():
        if not table.is_file():
            raise StoreError(f"{folder}: no {name}.csv (a Synthea CSV export folder is expected)")
    side = LoadReport(str(folder))
    people = {row["Id"]: row for _, row in csv_rows(tables["patients"], side, ("Id", "FIRST", "LAST"))}
    names = {person: person_name(row["FIRST"], row["LAST"]) for person, row in people.items()}
    joined = {heading: _by_encounter(folder / f"{name}.csv", side, said)
              for heading, name, said in _JOINED if (folder / f"{name}.csv").is_file()}
    if side.skipped_count:
        report.notes.append(f"{side.skipped_count} rows of the joined tables were skipped")
    for line, row in csv_rows(tables["encounters"], report, ("Id", "START", "PATIENT", "ENCOUNTERCLASS", "DESCRIPTION")):
        where = f"{tables['encounters']}:{line}"
        if row["PATIENT"] not in names:
            report.skip(where, f"encounter of unknown patient {row['PATIENT'][:40]}")
            continue
        encounter = row["Id"]
        # the date heads every passage of the record (chunking's prefix), so the same visit repeated on other days is
        # the same evidence (nodes.data.topk.digest): one hit of a patient's monthly encounters for their CKD, not ten
        parts = [f"{row['ENCOUNTERCLASS'].capitalize()} encounter: {row['DESCRIPTION']}."]
        if row.get("REASONDESCRIPTION"):
            parts.append(f"Reason: {row['REASONDESCRIPTION']}.")
        parts += [f"{heading}: {'; '.join(said[encounter])}." for heading, said in joined.items() if said[encounter]]
        metadata = {"encounter_class": row["ENCOUNTERCLASS"], "patient_id": row["PATIENT"],
                    "organization": row.get("ORGANIZATION", ""), **_who(people[row["PATIENT"]], row["START"])}
        yield where, Record(encounter, " ".join(parts), names[row["PATIENT"]], row["START"][:10], metadata)
