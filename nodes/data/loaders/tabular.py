"""``csv`` and ``jsonl``: plain files with a declared text column.

Options: ``text`` (the column holding the text; without it, every column goes into the text as
``column: value`` pairs, which suits structured rows), ``id`` (default ``id``; rows are numbered by
line when the file has no such column), ``patient`` and ``date`` columns. Every other column becomes
metadata.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from nodes.data.loaders._files import csv_rows, jsonl_rows, scalar
from nodes.data.records import LoadReport, Record


def _record(line: int, row: dict, stem: str, text: str | None, id: str, patient: str | None,
            date: str | None) -> Record:
    used = {text, id, patient, date}
    metadata = {k: scalar(v) for k, v in row.items() if k not in used and v not in (None, "")}
    body = row.get(text) if text else "; ".join(f"{k}: {v}" for k, v in row.items() if v not in (None, ""))
    record_id = row.get(id) if row.get(id) not in (None, "") else f"{stem}-{line}"
    return Record(str(record_id), str(body or ""), str(row[patient]) if patient and row.get(patient) else None,
                  str(row[date])[:10] if date and row.get(date) else None, metadata)


def read_csv(path: Path, report: LoadReport, text: str | None = None, id: str = "id", patient: str | None = None,
             date: str | None = None) -> Iterator[tuple[str, Record]]:
    required = tuple(c for c in (text, patient, date) if c)
    for line, row in csv_rows(path, report, required):
        yield f"{path}:{line}", _record(line, row, Path(path).stem, text, id, patient, date)


def read_jsonl(path: Path, report: LoadReport, text: str | None = None, id: str = "id", patient: str | None = None,
               date: str | None = None) -> Iterator[tuple[str, Record]]:
    for line, row in jsonl_rows(path, report):
        where = f"{path}:{line}"
        if text and not isinstance(row.get(text), str):
            report.skip(where, f"no string field {text!r}")
            continue
        yield where, _record(line, row, Path(path).stem, text, id, patient, date)
