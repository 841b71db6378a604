"""What a leaf holds: records, as every loader yields them, and the report of what a load read and skipped.

A :class:`Record` is one document of a hospital's — a note, an admission row, an encounter — with
a stable ``id`` (unique within its leaf), its text, whom it is about, its date and flat metadata.
Patients' names are compared by :func:`patient_key` (case and spacing do not matter).
Loaders never stop at a bad row: they skip it and say where and why in a :class:`LoadReport`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

Scalar = str | int | float | bool | None

#: At most this many skipped rows are listed one by one; the rest are counted.
MAX_LISTED = 1_000


@dataclass(frozen=True)
class Record:
    """One document.

    Attributes:
        id: stable and unique within its source (a note id, an admission id).
        text: the text to retrieve from.
        patient: whom it is about (a name), if known.
        date: its date, ISO ``yyyy-mm-dd``, if known.
        metadata: flat scalar fields (department, note type, ...), used by filters and policies; ``title``, if
            there is one, heads each of the record's passages (:func:`nodes.data.chunking.chunk`).
    """

    id: str
    text: str
    patient: str | None = None
    date: str | None = None
    metadata: dict[str, Scalar] = field(default_factory=dict)

    def digest(self) -> str:
        """Identifies the record's content: an update with the same digest changes nothing."""
        body = json.dumps([self.text, self.patient, self.date, self.metadata], sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(body.encode()).hexdigest()[:32]


def patient_key(name: str | None) -> str | None:
    """How patient names are compared: case and spacing do not matter."""
    return " ".join(name.lower().split()) if name else None


#: Titles a question puts before a surname alone ("Mrs. Wright"; :func:`nodes.names.titled_surnames`).
TITLES = ("mr", "mrs", "ms", "mx", "miss")


def surname_of(key: str) -> str | None:
    """The surname a :func:`patient_key` is, if it is a title and a surname alone ("mrs. wright" → "wright")."""
    words = key.split()
    return words[1] if len(words) == 2 and words[0].rstrip(".") in TITLES else None


def answers_to(patient: str, name: str) -> bool:
    """Whether a question's ``name`` names ``patient``: the same name (:func:`patient_key`), a given name alone that
    is the patient's first (:func:`nodes.names.given_names`: "Joseph" names Joseph Davis), or a title and a surname
    alone that is the patient's last ("Mrs. Wright" names Rebecca Wright)."""
    key, full = patient_key(name) or "", patient_key(patient) or ""
    surname = surname_of(key)
    return key == full or (" " not in key and full.startswith(key + " ")) or bool(surname and full.endswith(" " + surname))


@dataclass(frozen=True)
class Skipped:
    """A row a loader could not use: where it is (``file:line``) and why."""

    where: str
    reason: str


@dataclass
class LoadReport:
    """What a load read, accepted and skipped, filled in while the loader's iterator runs."""

    source: str
    read: int = 0
    accepted: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    more_skipped: int = 0
    notes: list[str] = field(default_factory=list)

    def skip(self, where: str, reason: str) -> None:
        """Records a row that was skipped."""
        if len(self.skipped) < MAX_LISTED:
            self.skipped.append(Skipped(where, reason))
        else:
            self.more_skipped += 1

    @property
    def skipped_count(self) -> int:
        return len(self.skipped) + self.more_skipped

    def summary(self, limit: int = 10) -> str:
        """A few lines a person can read: counts, then the first skipped rows with their reasons."""
        lines = [f"{self.source}: read {self.read}, accepted {self.accepted}, skipped {self.skipped_count}"]
        lines += [f"  note: {note}" for note in self.notes]
        lines += [f"  skipped {s.where}: {s.reason}" for s in self.skipped[:limit]]
        if self.skipped_count > limit:
            lines.append(f"  ... and {self.skipped_count - limit} more skipped rows")
        return "\n".join(lines)
