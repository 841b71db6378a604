"""The SQLite side of a leaf's lexical index: each passage's term frequencies and length, and what they add up to.

A passage is indexed when it is stored (:func:`index`), in the same transaction; its rows go when it
does (``ON DELETE CASCADE``). A store built before the index existed, or with another tokenizer, is
indexed again when it opens (:func:`reindex`) — from the stored text, without embedding anything.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable

from nodes.data import lexical

#: The setting holding the tokenizer version the index was built with.
SETTING = "lexical"


def index(db: sqlite3.Connection, label: int, text: str) -> None:
    """Indexes the passage stored under ``label``."""
    tf, length = lexical.counts(text)
    db.executemany("INSERT OR REPLACE INTO terms VALUES (?, ?, ?)", [(term, label, n) for term, n in tf.items()])
    db.execute("INSERT OR REPLACE INTO lengths VALUES (?, ?)", (label, length))


def reindex(db: sqlite3.Connection) -> bool:
    """Indexes every stored passage again if the index is missing or from another tokenizer; whether it did."""
    row = db.execute("SELECT value FROM settings WHERE key = ?", (SETTING,)).fetchone()
    if row is not None and row[0] == str(lexical.VERSION):
        return False
    db.execute("DELETE FROM terms")
    db.execute("DELETE FROM lengths")
    for label, text in db.execute("SELECT label, text FROM passages").fetchall():
        index(db, label, text)
    db.execute("INSERT OR REPLACE INTO settings VALUES (?, ?)", (SETTING, str(lexical.VERSION)))
    return True


def _chunks(items: list, size: int = 900) -> Iterable[list]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def visible_labels(db: sqlite3.Connection, visible: Callable[[dict], bool], read: dict[int, dict]) -> set[int]:
    """The labels of the passages a caller may see (``visible`` judges each passage's metadata, with its
    ``record_id``). ``read`` holds the metadata already parsed, by label (a label's never changes: labels are not
    reused); it is brought in step with the passages stored now, so that no metadata is parsed twice."""
    labels = [label for (label,) in db.execute("SELECT label FROM passages")]
    new = [label for label in labels if label not in read]
    for part in _chunks(new):
        marks = ",".join("?" * len(part))
        for label, record_id, metadata in db.execute(
                f"SELECT label, record_id, metadata FROM passages WHERE label IN ({marks})", part):
            read[label] = {**json.loads(metadata), "record_id": record_id}
    if len(read) > len(labels):  # passages deleted since
        live = set(labels)
        for label in [label for label in read if label not in live]:
            del read[label]
    return {label for label in labels if label in read and visible(read[label])}


def totals(db: sqlite3.Connection, within: set[int] | None) -> tuple[int, int, int]:
    """How many passages there are (of ``within``, if given), their total length in terms, and how many of them are
    about a patient."""
    if within is None:
        docs, length = db.execute("SELECT COUNT(*), COALESCE(SUM(terms), 0) FROM lengths").fetchone()
        people = db.execute("SELECT COUNT(*) FROM passages WHERE patient_key IS NOT NULL").fetchone()[0]
        return int(docs), int(length), int(people)
    docs = length = people = 0
    for part in _chunks(sorted(within)):
        marks = ",".join("?" * len(part))
        n, total, about = db.execute(
            "SELECT COUNT(*), COALESCE(SUM(lengths.terms), 0), COUNT(passages.patient_key) FROM lengths "
            f"JOIN passages ON passages.label = lengths.label WHERE lengths.label IN ({marks})", part).fetchone()
        docs, length, people = docs + int(n), length + int(total), people + int(about)
    return docs, length, people


def postings(db: sqlite3.Connection, terms: list[str]) -> dict[str, dict[int, int]]:
    """For each of ``terms``, the passages holding it and how often."""
    found: dict[str, dict[int, int]] = {term: {} for term in terms}
    for part in _chunks(sorted(set(terms))):
        marks = ",".join("?" * len(part))
        for term, label, tf in db.execute(f"SELECT term, label, tf FROM terms WHERE term IN ({marks})", part):
            found[term][label] = tf
    return found


def lengths(db: sqlite3.Connection, labels: Iterable[int]) -> dict[int, int]:
    """Each passage's length in terms."""
    found: dict[int, int] = {}
    for part in _chunks(sorted(set(labels))):
        marks = ",".join("?" * len(part))
        found.update(db.execute(f"SELECT label, terms FROM lengths WHERE label IN ({marks})", part).fetchall())
    return found
