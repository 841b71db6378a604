"""The SQLite side of a leaf's store: its tables, how the database is opened, and one transaction.

Tables of ``leaf.sqlite``:

    settings  key/value: the store's format, embedding model, dimension and chunker, whether its
              records must be embedded again (``stale``), where the change log starts, and the digest
              of each data file synced (``file:<path>``)
    records   one row per record: its text, patient, date and metadata, the digest of its content,
              where it came from (``ingest`` or ``file:<path>``)
    passages  the passages cut from the records, each under a stable label (AUTOINCREMENT, never
              reused) with its float32 vector; ``patient_key`` and ``text_digest`` are looked up
    changes   the log of index changes (a label added or deleted) not yet in the saved index
    terms     the lexical index: how often each term occurs in each passage (:mod:`nodes.data.lexical`)
    lengths   each passage's length in terms
    sentences the vector of each sentence that answers may quote from passages about a patient, by the
              digest of its text, embedded once, at ingestion (:mod:`nodes.data._sentences`)
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bus.errors import StoreError

SCHEMA = """
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS records (
    id TEXT PRIMARY KEY, digest TEXT NOT NULL, origin TEXT NOT NULL, text TEXT NOT NULL, patient TEXT,
    date TEXT, metadata TEXT NOT NULL, updated REAL NOT NULL);
CREATE TABLE IF NOT EXISTS passages (
    label INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
    record_id TEXT NOT NULL REFERENCES records(id) ON DELETE CASCADE,
    text TEXT NOT NULL, text_digest TEXT NOT NULL, patient TEXT, patient_key TEXT, date TEXT, section TEXT,
    metadata TEXT NOT NULL, vector BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS passages_record ON passages(record_id);
CREATE INDEX IF NOT EXISTS passages_patient ON passages(patient_key);
CREATE INDEX IF NOT EXISTS passages_text ON passages(text_digest);
CREATE TABLE IF NOT EXISTS changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, label INTEGER NOT NULL, op TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS terms (
    term TEXT NOT NULL, label INTEGER NOT NULL REFERENCES passages(label) ON DELETE CASCADE, tf INTEGER NOT NULL,
    PRIMARY KEY (term, label)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS terms_label ON terms(label);
CREATE TABLE IF NOT EXISTS lengths (
    label INTEGER PRIMARY KEY REFERENCES passages(label) ON DELETE CASCADE, terms INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS sentences (digest TEXT PRIMARY KEY, vector BLOB NOT NULL) WITHOUT ROWID;
"""


def text_digest(text: str) -> str:
    """What a text is looked up by in the store: a passage's ``text_digest``, a sentence's key in ``sentences``."""
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def connect(path: Path) -> sqlite3.Connection:
    """Opens (creating if need be) the database at ``path`` with its tables.

    WAL with ``synchronous=FULL``: a committed transaction survives a crash. Autocommit mode
    (``isolation_level=None``): transactions are opened explicitly by :func:`transaction`.

    Raises:
        StoreError: the file is not a usable leaf store.
    """
    try:
        db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        db.execute("PRAGMA foreign_keys=ON")
        db.executescript(SCHEMA)
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{path} is not a usable leaf store ({exc})") from None
    return db


def read_settings(path: Path) -> dict[str, str]:
    """The settings of the database at ``path``, read without writing to it.

    Raises:
        StoreError: the file is not a usable leaf store.
    """
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            return dict(db.execute("SELECT key, value FROM settings").fetchall())
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{path} is not a usable leaf store ({exc})") from None


@contextmanager
def transaction(db: sqlite3.Connection, lock: threading.RLock) -> Iterator[sqlite3.Connection]:
    """One write transaction under ``lock``: committed if the block ends without error, else rolled back."""
    with lock:
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
