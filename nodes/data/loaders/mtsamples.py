"""``mtsamples``: MTSamples transcriptions, as the JSON lines in ``shared/data`` or the common Kaggle CSV.

Fields read: ``transcription`` (the text), ``medical_specialty`` (metadata, so a spec can make
departments of specialties with ``where``), ``sample_name`` and ``description`` (metadata), the id
(``id`` in the JSON lines; the unnamed first column, else the line, in the CSV). MTSamples has no
patient names; ``synthetic_names = true`` gives each note a stable made-up one. Rows without a
transcription are skipped.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from nodes.data.loaders._files import csv_rows, jsonl_rows
from nodes.data.loaders._names import synthetic_name
from nodes.data.records import LoadReport, Record


def read(path: Path, report: LoadReport, synthetic_names: bool = False) -> Iterator[tuple[str, Record]]:
    path = Path(path)
    rows = (((line, row) for line, row in jsonl_rows(path, report)) if path.suffix != ".csv" and
            not path.name.endswith(".csv.gz") else csv_rows(path, report, ("medical_specialty", "transcription")))
    for line, row in rows:
        where = f"{path}:{line}"
        text = row.get("transcription")
        if not isinstance(text, str) or not text.strip():
            report.skip(where, "no transcription")
            continue
        record_id = str(row.get("id") or row.get("") or f"mtsamples-{line}")
        specialty = str(row.get("medical_specialty") or "").strip()
        metadata = {"medical_specialty": specialty, "sample_name": str(row.get("sample_name") or "").strip(),
                    "description": str(row.get("description") or "").strip()[:500]}
        yield where, Record(record_id, text, synthetic_name(record_id) if synthetic_names else None, None, metadata)
