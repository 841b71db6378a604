"""``fedrag``: the project's own JSON lines, one record a line.

    {"id": "note-1", "text": "CHIEF COMPLAINT: ...", "patient": "Ana Ruiz", "date": "2023-04-02", "metadata": {...}}

``id`` and ``text`` are required; ``patient``, ``date`` and ``metadata`` (flat scalars) are optional.
A line that breaks these is reported and skipped.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from nodes.data.loaders._files import jsonl_rows
from nodes.data.records import LoadReport, Record


def read(path: Path, report: LoadReport) -> Iterator[tuple[str, Record]]:
    for line, obj in jsonl_rows(path, report):
        where = f"{path}:{line}"
        if not isinstance(obj.get("id"), str) or not obj["id"]:
            report.skip(where, "missing string field 'id'")
            continue
        if not isinstance(obj.get("text"), str):
            report.skip(where, f"record {obj['id']!r} has no string 'text'")
            continue
        metadata = obj.get("metadata") or {}
        if not isinstance(metadata, dict) or any(isinstance(v, (dict, list)) for v in metadata.values()):
            report.skip(where, "'metadata' must be an object of scalar values")
            continue
        patient, date = obj.get("patient"), obj.get("date", metadata.get("date"))
        if patient is not None and not isinstance(patient, str):
            report.skip(where, "'patient' must be a string")
            continue
        yield where, Record(obj["id"], obj["text"], patient or None, str(date) if date else None, metadata)
