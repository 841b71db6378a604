"""Cutting a record into passages that read like the record.

A note is read as sections (a heading such as ``MEDICATIONS:`` or ``Chief Complaint:`` and its text)
made of sentences. Sentences are packed, in order, into passages of at most ``max_chars`` characters
(800 by default, the seed thesis's size): a heading always travels with the first sentence of its
section, short sections share a passage, and a sentence is never cut unless it alone is longer than
the size. Lines left empty by de-identification (``Name: ___ Unit No: ___``) are dropped.

Each passage starts with a short prefix — the patient's name and the note's date, once
(``Grace Okafor, 2023-04-02.``), and the record's title as a heading when it has one (``metadata["title"]``: a
reference text's topic, ``Parkinson's Disease: PD is both chronic …``) — so a question naming any of them can match
every passage of the record, not only the one that happens to say it, while the content still carries most of the
passage's weight. ``scripts/chunking_eval.py`` measures what that buys on the demo
questions that name a patient and ask for one section of their notes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

from nodes.data.records import Record, Scalar
from summarizer.sentences import sentences

DEFAULT_MAX_CHARS = 800
#: The most a name-and-date prefix takes before a title's heading (:func:`opening`).
_NAMED_CHARS = 120
#: Bumped whenever chunking changes: stored records are then cut again.
CHUNKER_VERSION = "sentences-v3"

_HEADING = re.compile(r"^\s*([A-Z][A-Za-z0-9 /&,()'-]{1,60}?)\s*:(?:\s*,)?\s*(.*)$")
_PLACEHOLDER = "___"


@dataclass(frozen=True)
class Passage:
    """One retrievable piece of a record."""

    id: str
    record_id: str
    text: str
    patient: str | None = None
    date: str | None = None
    section: str | None = None
    metadata: dict[str, Scalar] = field(default_factory=dict)

    @cached_property  # a stored passage is kept and read by many searches (LeafStore.scored)
    def body(self) -> str:
        """The text without its prefix (name and date, title): what copies of the same evidence share."""
        prefix = _prefix(self.patient, self.date, self.metadata.get("title"))
        return self.text[len(prefix):] if prefix and self.text.startswith(prefix) else self.text


def _prefix(patient: str | None, date: str | None, title: object = None) -> str:
    named = [x for x in (patient, date) if x]
    return (", ".join(named) + ". " if named else "") + _heading(title)


def _heading(title: object) -> str:
    return f"{' '.join(title.split())}: " if isinstance(title, str) and title.strip() else ""


def opening(text: str, metadata: Mapping[str, object]) -> str:
    """``text`` (a passage's, or a hit's) from where it begins to say what it says: after its record's title
    (``metadata["title"]``, the heading :func:`chunk` put first), if it has one. A question's kind is told by how an
    answer opens ("Treatment for kidney stones usually depends on …"), not by the topic every passage of it is under."""
    heading = _heading(metadata.get("title"))
    at = text.find(heading, 0, len(heading) + _NAMED_CHARS) if heading else -1
    return text[at + len(heading):] if at >= 0 else text


def _is_heading(name: str) -> bool:
    letters = [c for c in name if c.isalpha()]
    words = name.split()
    return bool(letters) and len(words) <= 6 and (name.isupper() or all(w[0].isupper() for w in words if w[0].isalpha()))


def _is_debris(line: str) -> bool:
    """A line with nothing left once de-identification placeholders and their labels are taken out."""
    if _PLACEHOLDER not in line:
        return False
    rest = re.sub(r"[A-Za-z][A-Za-z ./#]{0,30}:", " ", line.replace(_PLACEHOLDER, " "))
    return len(re.sub(r"[\s,.;:()\-]", "", rest)) <= 2


def sections(text: str) -> list[tuple[str | None, str]]:
    """``(heading, body)`` pairs in order; text before the first heading has none."""
    out: list[tuple[str | None, list[str]]] = [(None, [])]
    for line in text.splitlines():
        if _is_debris(line):
            continue
        match = _HEADING.match(line)
        if match and _is_heading(match.group(1)):
            out.append((match.group(1).strip(), [match.group(2)] if match.group(2).strip() else []))
        elif line.strip():
            out[-1][1].append(line.strip())
    return [(heading, " ".join(body)) for heading, body in out if " ".join(body).strip()]


def _split_long(sentence: str, size: int) -> list[str]:
    words, pieces, current = sentence.split(), [], ""
    for word in words:
        if current and len(current) + 1 + len(word) > size:
            pieces.append(current)
            current = word
        else:
            current = f"{current} {word}".strip()
    return pieces + ([current] if current else [])


def chunk(record: Record, max_chars: int = DEFAULT_MAX_CHARS) -> list[Passage]:
    """Cuts ``record`` into passages of at most ``max_chars`` characters (before the prefix)."""
    units: list[tuple[str | None, str]] = []
    for heading, body in sections(record.text):
        said = sentences(body)
        if not said:
            continue
        said[0] = f"{heading}: {said[0]}" if heading else said[0]
        for sentence in said:
            units += [(heading, piece) for piece in _split_long(sentence, max_chars)]
    pieces: list[tuple[str | None, str]] = []
    current: list[str] = []
    section: str | None = None
    for heading, text in units:
        if current and sum(len(t) + 1 for t in current) + len(text) > max_chars:
            pieces.append((section, " ".join(current)))
            current = []
        if not current:
            section = heading
        current.append(text)
    if current:
        pieces.append((section, " ".join(current)))
    prefix = _prefix(record.patient, record.date, record.metadata.get("title"))
    return [Passage(id=f"{record.id}#{n}" if len(pieces) > 1 else record.id, record_id=record.id, text=prefix + text,
                    patient=record.patient, date=record.date, section=heading, metadata=dict(record.metadata))
            for n, (heading, text) in enumerate(pieces)]
