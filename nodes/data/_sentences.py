"""The SQLite side of a leaf's sentence vectors: embedded once, at ingestion, what questions weigh sentence by sentence.

An answer from passages about patients ranks their quotable sentences (:func:`summarizer.sentences.quotable`)
by similarity to the question (:func:`summarizer.answer.select`), and a hybrid question ranks every passage also
by its sentence most similar to the question (:func:`nodes.data.retrievers.weigh`). So that
neither embeds anything at question time, a leaf embeds those sentences when it stores the passages and keeps
one vector per distinct sentence, by the digest of its text (notes copy text forward: the same sentence is stored
once); the gateway fetches them for the passages it answers from (``want = "sentences"``,
:attr:`bus.messages.Hit.sentences`).

A store built before the table existed, before passages about nobody had theirs (:data:`VERSION` 1), before a
long sentence was quoted in parts (2), or while it was also cut within a dose (3), is filled
when it is next opened with an embedder (:meth:`nodes.data.writes.StoreWrites.refresh`, :data:`SETTING`); a vector
of a sentence no passage holds any more stays until the store is compacted (:func:`prune`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

import numpy as np

from nodes.data._sqlite import text_digest
from summarizer.sentences import quotable

#: The setting recording that every passage's sentences have their vectors.
SETTING = "sentences"
VERSION = "4"


def weighed(text: str, patient: str | None) -> list[str]:
    """The sentences of a passage that are weighed against a question: its quotable ones."""
    return quotable(text, patient)


def missing(db: sqlite3.Connection, sentences: Iterable[str]) -> list[str]:
    """The distinct ``sentences`` with no stored vector, in their first order."""
    wanted = {text_digest(s): s for s in dict.fromkeys(sentences)}
    have = set(_found(db, list(wanted), "digest"))
    return [s for d, s in wanted.items() if d not in have]


def store(db: sqlite3.Connection, sentences: list[str], vectors: np.ndarray) -> None:
    """Stores the vector of each sentence (within a transaction)."""
    db.executemany("INSERT OR REPLACE INTO sentences VALUES (?, ?)",
                   [(text_digest(s), np.asarray(v, dtype="<f4").tobytes()) for s, v in zip(sentences, vectors)])


def vectors(db: sqlite3.Connection, sentences: list[str], dim: int) -> np.ndarray | None:
    """The stored vectors of ``sentences``, one row each in their order, or ``None`` if any is not stored."""
    digests = [text_digest(s) for s in sentences]
    found = _found(db, list(dict.fromkeys(digests)))
    if any(d not in found for d in digests):
        return None
    if not digests:
        return np.zeros((0, dim), dtype=np.float32)
    return np.stack([np.frombuffer(found[d], dtype="<f4") for d in digests])


def every(db: sqlite3.Connection) -> dict[str, np.ndarray]:
    """Every stored vector, by the digest of its sentence."""
    return {d: np.frombuffer(blob, dtype="<f4") for d, blob in db.execute("SELECT digest, vector FROM sentences")}


def unfilled(db: sqlite3.Connection) -> bool:
    """Whether some passage may lack its sentences' vectors (a store from before they were stored)."""
    row = db.execute("SELECT value FROM settings WHERE key = ?", (SETTING,)).fetchone()
    return row is None or row[0] != VERSION


def filled(db: sqlite3.Connection) -> None:
    """Records that every passage's sentences have their vectors."""
    db.execute("INSERT OR REPLACE INTO settings VALUES (?, ?)", (SETTING, VERSION))


def prune(db: sqlite3.Connection) -> int:
    """Drops the vectors of sentences no stored passage holds any more; how many."""
    live = {text_digest(s) for text, patient in db.execute("SELECT text, patient FROM passages")
            for s in weighed(text, patient)}
    dead = [d for (d,) in db.execute("SELECT digest FROM sentences") if d not in live]
    db.executemany("DELETE FROM sentences WHERE digest = ?", [(d,) for d in dead])
    return len(dead)


def _found(db: sqlite3.Connection, digests: list[str], column: str = "vector") -> dict[str, bytes]:
    """The stored ``column`` (``vector``, or ``digest`` only to learn which are stored) of each of ``digests``."""
    found: dict[str, bytes] = {}
    for start in range(0, len(digests), 900):
        part = digests[start:start + 900]
        marks = ",".join("?" * len(part))
        found.update(db.execute(f"SELECT digest, {column} FROM sentences WHERE digest IN ({marks})", part).fetchall())
    return found
