"""``aci-bench``: ACI-BENCH visit notes, with the patients' names from each split's metadata file.

A folder (or one split's CSV) is read: every ``<split>.csv`` (``dataset``, ``encounter_id``, ``note``,
``dialogue``) is joined with ``<split>_metadata.csv`` (``patient_firstname``, ``patient_familyname``,
``patient_age``, ``patient_gender``, ``cc`` ...) on ``encounter_id``. One record per note, id
``<split>/<encounter_id>``; with ``dialogue = true`` the doctor-patient dialogue is appended to the note.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from bus.errors import StoreError
from nodes.data.loaders._files import csv_rows
from nodes.data.records import LoadReport, Record


def read(path: Path, report: LoadReport, dialogue: bool = False) -> Iterator[tuple[str, Record]]:
    path = Path(path)
    splits = [path] if path.is_file() else sorted(p for p in path.glob("*.csv") if not p.stem.endswith("_metadata"))
    if not splits:
        raise StoreError(f"{path}: no ACI-BENCH split (<split>.csv beside <split>_metadata.csv)")
    for split in splits:
        meta_file = split.with_name(f"{split.stem}_metadata.csv")
        side = LoadReport(str(meta_file))
        people = {row["encounter_id"]: row for _, row in csv_rows(meta_file, side, ("encounter_id",))} \
            if meta_file.is_file() else {}
        if not meta_file.is_file():
            report.notes.append(f"{split.name}: no {meta_file.name}, notes have no patient names")
        for line, row in csv_rows(split, report, ("encounter_id", "note")):
            if not row["note"].strip():
                report.skip(f"{split}:{line}", f"encounter {row['encounter_id'][:40]!r} has an empty note")
                continue
            person = people.get(row["encounter_id"], {})
            name = " ".join(p.strip() for p in (person.get("patient_firstname", ""), person.get("patient_familyname", ""))
                            if p and p.strip()) or None
            if name and name.islower():  # some visits' metadata write the name all in small letters
                name = name.title()
            text = row["note"] + (f"\n\nDIALOGUE:\n{row['dialogue']}" if dialogue and row.get("dialogue") else "")
            metadata = {"dataset": row.get("dataset", ""), "split": split.stem, "age": person.get("patient_age", ""),
                        "gender": person.get("patient_gender", ""), "chief_complaint": person.get("cc", "")}
            yield f"{split}:{line}", Record(f"{split.stem}/{row['encounter_id']}", text, name, None, metadata)
