"""``synthea``: a Synthea CSV export folder, one record per encounter.

Reads ``patients.csv`` (the names: ``FIRST LAST``, with the digits Synthea appends removed),
``encounters.csv`` (class, description, reason, start date, organization), and joins each encounter's
``conditions.csv`` and ``medications.csv`` rows, so a question about a named patient's conditions or
drugs finds the encounters that hold them.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from bus.errors import StoreError
from nodes.data.loaders._files import csv_rows
from nodes.data.records import LoadReport, Record

_DIGITS = re.compile(r"\d+")


def person_name(first: str, last: str) -> str:
    """``Alice368 Gleason633`` becomes ``Alice Gleason``."""
    return " ".join(_DIGITS.sub("", part).strip() for part in (first, last) if part and _DIGITS.sub("", part).strip())


def read(path: Path, report: LoadReport) -> Iterator[tuple[str, Record]]:
    folder = Path(path)
    tables = {name: folder / f"{name}.csv" for name in ("patients", "encounters", "conditions", "medications")}
    for name, table in tables.items():
        if not table.is_file():
            raise StoreError(f"{folder}: no {name}.csv (a Synthea CSV export folder is expected)")
    side = LoadReport(str(folder))
    names = {row["Id"]: person_name(row["FIRST"], row["LAST"])
             for _, row in csv_rows(tables["patients"], side, ("Id", "FIRST", "LAST"))}
    conditions, medications = defaultdict(list), defaultdict(list)
    for _, row in csv_rows(tables["conditions"], side, ("ENCOUNTER", "DESCRIPTION")):
        if row["DESCRIPTION"] not in conditions[row["ENCOUNTER"]]:
            conditions[row["ENCOUNTER"]].append(row["DESCRIPTION"])
    for _, row in csv_rows(tables["medications"], side, ("ENCOUNTER", "DESCRIPTION")):
        if row["DESCRIPTION"] not in medications[row["ENCOUNTER"]]:
            medications[row["ENCOUNTER"]].append(row["DESCRIPTION"])
    if side.skipped_count:
        report.notes.append(f"{side.skipped_count} rows of the joined tables were skipped")
    for line, row in csv_rows(tables["encounters"], report, ("Id", "START", "PATIENT", "ENCOUNTERCLASS", "DESCRIPTION")):
        where = f"{tables['encounters']}:{line}"
        if row["PATIENT"] not in names:
            report.skip(where, f"encounter of unknown patient {row['PATIENT'][:40]}")
            continue
        encounter = row["Id"]
        parts = [f"{row['ENCOUNTERCLASS'].capitalize()} encounter on {row['START'][:10]}: {row['DESCRIPTION']}."]
        if row.get("REASONDESCRIPTION"):
            parts.append(f"Reason: {row['REASONDESCRIPTION']}.")
        if conditions[encounter]:
            parts.append(f"Conditions: {'; '.join(conditions[encounter])}.")
        if medications[encounter]:
            parts.append(f"Medications: {'; '.join(medications[encounter])}.")
        metadata = {"encounter_class": row["ENCOUNTERCLASS"], "patient_id": row["PATIENT"],
                    "organization": row.get("ORGANIZATION", "")}
        yield where, Record(encounter, " ".join(parts), names[row["PATIENT"]], row["START"][:10], metadata)
