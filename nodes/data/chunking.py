"""Reading a leaf's data and cutting it into passages.

A leaf's data is a JSONL file, one record a line::

    {"id": "note-1", "text": "CHIEF COMPLAINT: ...\\n\\nHISTORY: ...", "patient": "Ana Ruiz", "metadata": {...}}

``id`` and ``text`` are required; ``patient`` and ``metadata`` (flat scalars) are optional.
Each record becomes one or more :class:`Passage` objects: a note is cut at its blank-line-separated
sections, and a section longer than :data:`MAX_PASSAGE_CHARS` at sentence boundaries. Every passage
starts with the patient's name, so a passage read alone still says whom it is about.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from bus.errors import StoreError

MAX_PASSAGE_CHARS = 1_000
#: Bumped whenever chunking changes, so leaves rebuild their saved indexes.
CHUNKER_VERSION = "sections-v1"

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9])")


@dataclass(frozen=True)
class Passage:
    """One retrievable piece of a record."""

    id: str
    record_id: str
    text: str
    patient: str | None = None
    metadata: dict = field(default_factory=dict)


def load_jsonl(path: Path) -> list[dict]:
    """Reads and checks a JSONL data file.

    Raises:
        StoreError: the file is missing, a line is not JSON, or a record lacks ``id``/``text``,
            has a duplicate ``id``, or nested metadata. The message names the file and line.
    """
    path = Path(path)
    if not path.is_file():
        raise StoreError(f"data file {path} does not exist")
    records, seen = [], set()
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise StoreError(f"{where}: not valid JSON ({exc.msg})") from None
            if not isinstance(record, dict):
                raise StoreError(f"{where}: expected a JSON object, got {type(record).__name__}")
            if not isinstance(record.get("id"), str) or not record["id"]:
                raise StoreError(f"{where}: missing string field 'id'")
            if not isinstance(record.get("text"), str) or not record["text"].strip():
                raise StoreError(f"{where}: record {record['id']!r} has no 'text'")
            if record["id"] in seen:
                raise StoreError(f"{where}: duplicate id {record['id']!r}")
            metadata = record.get("metadata") or {}
            if not isinstance(metadata, dict) or any(isinstance(v, (dict, list)) for v in metadata.values()):
                raise StoreError(f"{where}: 'metadata' must be an object of scalar values")
            patient = record.get("patient")
            if patient is not None and not isinstance(patient, str):
                raise StoreError(f"{where}: 'patient' must be a string")
            seen.add(record["id"])
            records.append({"id": record["id"], "text": record["text"], "patient": patient or None,
                            "metadata": metadata})
    return records


def file_digest(path: Path) -> str:
    """A digest of a data file and the chunker version: when it changes, the index is rebuilt."""
    digest = hashlib.sha256(CHUNKER_VERSION.encode())
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _split_long(section: str) -> list[str]:
    if len(section) <= MAX_PASSAGE_CHARS:
        return [section]
    pieces, current = [], ""
    for sentence in _SENTENCE_END.split(section):
        if current and len(current) + 1 + len(sentence) > MAX_PASSAGE_CHARS:
            pieces.append(current)
            current = sentence
        else:
            current = f"{current} {sentence}".strip()
    if current:
        pieces.append(current)
    return pieces


def chunk(record: dict) -> list[Passage]:
    """Cuts one record into passages, each prefixed with the patient's name."""
    sections = [s.strip() for s in re.split(r"\n\s*\n", record["text"]) if s.strip()]
    prefix = f"Patient: {record['patient']}. " if record.get("patient") else ""
    pieces = [piece for section in sections for piece in _split_long(section)]
    if len(pieces) == 1:
        return [Passage(record["id"], record["id"], prefix + pieces[0], record.get("patient"), record["metadata"])]
    return [Passage(f"{record['id']}#{n}", record["id"], prefix + piece, record.get("patient"), record["metadata"])
            for n, piece in enumerate(pieces)]
