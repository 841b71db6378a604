"""A leaf's storage: records, passages and their vectors in SQLite, and an hnswlib index beside it.

Layout of a leaf's folder (``<state_dir>/leaves/<path>/``)::

    leaf.sqlite   records (text, patient, date, metadata, digest, origin), passages (text, metadata and
                  the float32 vector, under a stable label), the log of index changes, settings
    index.hnsw    the hnswlib index of the live passages, labels = passage labels
    index.json    the last logged change the saved index includes, and its dead slots

SQLite (WAL, ``synchronous=FULL``) is the truth. Every change — a batch of upserts and deletes by
record id — commits in one transaction, and only then does the index in memory follow (hnswlib marks
replaced passages deleted and reuses their slots), so a query sees it at once, without a rebuild.
The saved index may lag behind: when a leaf opens, it replays the changes logged after the saved
index, or rebuilds the index from the stored vectors if the index file is missing or unreadable — a
leaf killed at any point comes back with exactly the committed records, and never embeds again what
it stored. When too many slots are dead the index is rebuilt (:meth:`LeafStore.compact`).

Labels come from an AUTOINCREMENT counter and are never reused. Upserts are idempotent by record id
and content digest: applying the same record twice changes nothing, so a redelivered message is
harmless. Unchanged text is never embedded twice: a passage whose text is already stored (about
anyone, in any record) takes the stored vector.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bus.errors import StoreError
from nodes.data.chunking import CHUNKER_VERSION, DEFAULT_MAX_CHARS, Passage, chunk
from nodes.data.index import VectorIndex, exact_scores
from nodes.data.records import Record

log = logging.getLogger(__name__)

#: Bumped when the saved layout changes.
STORE_FORMAT = 3
#: Records per transaction when many arrive at once (bounded memory, steady progress).
BATCH = 64
#: Rebuild the index when dead slots exceed this share of the live ones (and :data:`MIN_DEAD`).
DEAD_SHARE = 0.25
MIN_DEAD = 500

_SCHEMA = """
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
"""


def patient_key(name: str | None) -> str | None:
    """How patient names are compared: case and spacing do not matter."""
    return " ".join(name.lower().split()) if name else None


def _text_digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


@dataclass
class Outcome:
    """What one change did, record by record."""

    #: The counts a leaf reports for an ingested batch (:class:`bus.ingest.IngestReport`).
    COUNTED = ("added", "updated", "unchanged", "deleted", "absent")

    added: int = 0
    updated: int = 0
    unchanged: int = 0
    deleted: int = 0
    absent: int = 0
    rejected: list[tuple[str, str]] = field(default_factory=list)
    embedded: int = 0
    reused: int = 0

    def counts(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in self.COUNTED}

    @classmethod
    def from_counts(cls, counts: dict[str, int], rejected=()) -> "Outcome":
        return cls(**{name: int(counts.get(name, 0)) for name in cls.COUNTED}, rejected=[tuple(r) for r in rejected])

    def add(self, other: "Outcome") -> None:
        for name in (*self.COUNTED, "embedded", "reused"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.rejected += other.rejected

    def summary(self) -> str:
        rejected = f", {len(self.rejected)} rejected" if self.rejected else ""
        return (f"{self.added} added, {self.updated} updated, {self.unchanged} unchanged, {self.deleted} deleted"
                f"{rejected}; {self.embedded} passages embedded, {self.reused} reused")


class LeafStore:
    """Records and passages of one leaf, and its index. Use :meth:`open`."""

    def __init__(self, folder: Path, db: sqlite3.Connection, fingerprint: str, dim: int, max_chars: int) -> None:
        self.folder = folder
        self._db = db
        self._lock = threading.RLock()
        self.fingerprint = fingerprint
        self.max_chars = max_chars
        self.index = VectorIndex(dim)
        self._applied = 0  # the last logged change the index in memory includes

    # -- opening ---------------------------------------------------------------------------------

    @classmethod
    def open(cls, folder: Path, fingerprint: str, dim: int, *, max_chars: int = DEFAULT_MAX_CHARS) -> "LeafStore":
        """Opens the leaf's store (creating an empty one) and brings its index up to date, without embedding.

        If the store was built with another embedding model or chunker, its passages are dropped
        (the records stay) and :meth:`refresh` must cut and embed them again.

        Raises:
            StoreError: the database cannot be opened or is not a leaf store.
        """
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        try:
            db = sqlite3.connect(folder / "leaf.sqlite", check_same_thread=False, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA foreign_keys=ON")
            db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{folder / 'leaf.sqlite'} is not a usable leaf store ({exc})") from None
        store = cls(folder, db, fingerprint, dim, max_chars)
        settings = store._settings()
        fresh = not settings
        wanted = {"format": str(STORE_FORMAT), "fingerprint": fingerprint, "dim": str(dim),
                  "chunker": f"{CHUNKER_VERSION}:{max_chars}"}
        if fresh or any(settings.get(k) != v for k, v in wanted.items()):
            if not fresh:
                log.warning("%s: stored with %s, now %s: its records will be cut and embedded again", folder,
                            {k: settings.get(k) for k in wanted}, wanted)
            with store._transaction() as db:
                db.execute("DELETE FROM passages")
                db.execute("DELETE FROM changes")
                db.executemany("INSERT OR REPLACE INTO settings VALUES (?, ?)", list(wanted.items()))
                db.execute("INSERT OR REPLACE INTO settings VALUES ('stale', ?)", ("0" if fresh else "1",))
            for name in ("index.hnsw", "index.json"):
                (folder / name).unlink(missing_ok=True)
        store._load_index()
        return store

    @classmethod
    def existing(cls, folder: Path) -> "LeafStore":
        """Opens a store a leaf has already built, with the model and chunker it was built with.

        Raises:
            StoreError: there is no built store in ``folder``.
        """
        path = Path(folder) / "leaf.sqlite"
        if not path.exists():
            raise StoreError(f"no leaf store in {folder}: start the federation once to build it")
        try:
            with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
                settings = dict(db.execute("SELECT key, value FROM settings").fetchall())
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{path} is not a usable leaf store ({exc})") from None
        if "fingerprint" not in settings:
            raise StoreError(f"{path} was never built")
        max_chars = int(settings.get("chunker", f":{DEFAULT_MAX_CHARS}").rsplit(":", 1)[1])
        return cls.open(folder, settings["fingerprint"], int(settings["dim"]), max_chars=max_chars)

    def _settings(self) -> dict[str, str]:
        with self._lock:
            return dict(self._db.execute("SELECT key, value FROM settings").fetchall())

    def _load_index(self) -> None:
        """The saved index plus the changes logged after it, or a rebuild from the stored vectors."""
        with self._lock:
            last = self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM changes").fetchone()[0]
            log_start = int(self._settings().get("log_start", "0"))
            count = self._db.execute("SELECT COUNT(*) FROM passages").fetchone()[0]
        try:
            meta = json.loads((self.folder / "index.json").read_text())
            if meta.get("seq", -1) < log_start or meta.get("seq", 0) > last and last:
                raise ValueError("the saved index does not match the change log")
            index = VectorIndex.load(self.folder / "index.hnsw", self.index.dim, dead=int(meta.get("dead", 0)))
            self.index, self._applied = index, int(meta["seq"])
            self._replay()
            if len(self.index) != count:
                raise ValueError(f"index holds {len(self.index)} passages, the store {count}")
        except (OSError, ValueError, KeyError, RuntimeError) as exc:
            if count or (self.folder / "index.json").exists():
                log.warning("%s: rebuilding the index from the stored vectors (%s)", self.folder, exc)
            self._rebuild()

    def _replay(self) -> None:
        with self._lock:
            rows = self._db.execute("SELECT seq, label, op FROM changes WHERE seq > ? ORDER BY seq",
                                    (self._applied,)).fetchall()
            live = {label for (label,) in self._db.execute("SELECT label FROM passages")} if rows else set()
        for seq, label, op in rows:
            if op == "add" and label in live:
                self.index.add(self._vectors([label]), np.asarray([label]))
            elif op == "delete":
                self.index.delete([label])
            self._applied = seq

    def _rebuild(self) -> None:
        with self._lock:
            labels = [label for (label,) in self._db.execute("SELECT label FROM passages ORDER BY label")]
            last = self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM changes").fetchone()[0]
            index = VectorIndex(self.index.dim, capacity=len(labels))
            for start in range(0, len(labels), 4096):
                chunk_labels = labels[start:start + 4096]
                index.add(self._vectors(chunk_labels), np.asarray(chunk_labels))
            self.index, self._applied = index, last
        self.save_index()

    def _vectors(self, labels: list[int]) -> np.ndarray:
        labels = [int(label) for label in labels]
        marks = ",".join("?" * len(labels))
        with self._lock:
            rows = dict(self._db.execute(f"SELECT label, vector FROM passages WHERE label IN ({marks})", labels).fetchall())
        return np.stack([np.frombuffer(rows[label], dtype="<f4") for label in labels])

    # -- changing --------------------------------------------------------------------------------

    @property
    def stale(self) -> bool:
        """Whether the records must be cut and embedded again (another model or chunker than when stored)."""
        return self._settings().get("stale") == "1"

    def refresh(self, embedder_factory: Callable, progress=None) -> Outcome:
        """Cuts and embeds every stored record again if the model or the chunker changed; else does nothing."""
        outcome = Outcome()
        if not self.stale:
            return outcome
        with self._lock:
            ids = [row[0] for row in self._db.execute("SELECT id FROM records ORDER BY id")]
        for start in range(0, len(ids), BATCH):
            records = [r for r, _ in self._stored_records(ids[start:start + BATCH])]
            outcome.add(self.apply(records, [], embedder_factory, origin=None, force=True))
            if progress is not None:
                progress(min(start + BATCH, len(ids)), len(ids))
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO settings VALUES ('stale', '0')")
        return outcome

    def _stored_records(self, ids: list[str]) -> list[tuple[Record, str]]:
        marks = ",".join("?" * len(ids))
        with self._lock:
            rows = self._db.execute(f"SELECT id, text, patient, date, metadata, origin FROM records WHERE id IN ({marks})",
                                    ids).fetchall()
        return [(Record(r[0], r[1], r[2], r[3], json.loads(r[4])), r[5]) for r in rows]

    def apply(self, upserts: Iterable[Record], deletes: Iterable[str], embedder_factory: Callable,
              origin: str | None = "ingest", *, force: bool = False) -> Outcome:
        """Upserts and deletes records by id, in one transaction, then updates the index.

        Args:
            upserts: records to add or replace (a record whose content digest is stored is left as is).
            deletes: ids of records to remove (unknown ids are counted as ``absent``).
            embedder_factory: returns the embedder; called only if some passage text is new.
            origin: where the records come from (``ingest``, or ``file:<path>`` for a data file).
            force: cut and embed even records whose digest is unchanged (after a model change).
        """
        outcome = Outcome()
        upserts, deletes = list(upserts), list(dict.fromkeys(deletes))
        with self._lock:
            known = self._known([r.id for r in upserts] + deletes)
        changed: list[Record] = []
        for record in upserts:
            before = known.get(record.id)
            if before is not None and before == record.digest() and not force:
                outcome.unchanged += 1
            else:
                changed.append(record)
        passages = {record.id: chunk(record, self.max_chars) for record in changed}
        for record in changed:
            if not passages[record.id]:
                outcome.rejected.append((record.id, "no text left to index after cleaning"))
        changed = [record for record in changed if passages[record.id]]
        vectors = self._vectors_for([p for r in changed for p in passages[r.id]], embedder_factory, outcome)
        now = time.time()
        with self._transaction() as db:
            gone: list[int] = []
            for record_id in [r.id for r in changed] + deletes:
                gone += [label for (label,) in db.execute("SELECT label FROM passages WHERE record_id = ?", (record_id,))]
            for record_id in deletes:
                if record_id in known:
                    db.execute("DELETE FROM records WHERE id = ?", (record_id,))
                    outcome.deleted += 1
                else:
                    outcome.absent += 1
            added: list[tuple[int, np.ndarray]] = []
            for record in changed:
                keep_origin = origin or db.execute("SELECT origin FROM records WHERE id = ?", (record.id,)).fetchone()[0]
                db.execute("DELETE FROM passages WHERE record_id = ?", (record.id,))
                db.execute("INSERT OR REPLACE INTO records VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                           (record.id, record.digest(), keep_origin, record.text, record.patient, record.date,
                            json.dumps(record.metadata, sort_keys=True), now))
                for passage in passages[record.id]:
                    vector = vectors[_text_digest(passage.text)]
                    label = db.execute(
                        "INSERT INTO passages (id, record_id, text, text_digest, patient, patient_key, date, section, "
                        "metadata, vector) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (passage.id, record.id, passage.text, _text_digest(passage.text), passage.patient,
                         patient_key(passage.patient), passage.date, passage.section,
                         json.dumps(passage.metadata, sort_keys=True), vector.astype("<f4").tobytes())).lastrowid
                    added.append((label, vector))
                if record.id in known and not force:
                    outcome.updated += 1
                elif not force:
                    outcome.added += 1
            db.executemany("INSERT INTO changes (label, op) VALUES (?, 'delete')", [(label,) for label in gone])
            db.executemany("INSERT INTO changes (label, op) VALUES (?, 'add')", [(label,) for label, _ in added])
            last = db.execute("SELECT COALESCE(MAX(seq), 0) FROM changes").fetchone()[0]
        # committed: now the index in memory follows
        self.index.delete(gone)
        if added:
            self.index.add(np.stack([v for _, v in added]), np.asarray([label for label, _ in added]))
        self._applied = last
        if self.index.dead > max(MIN_DEAD, DEAD_SHARE * len(self.index)):
            self.compact()
        return outcome

    def _known(self, ids: list[str]) -> dict[str, str]:
        known: dict[str, str] = {}
        for start in range(0, len(ids), 900):
            part = ids[start:start + 900]
            marks = ",".join("?" * len(part))
            known.update(self._db.execute(f"SELECT id, digest FROM records WHERE id IN ({marks})", part).fetchall())
        return known

    def _vectors_for(self, passages: list[Passage], embedder_factory: Callable, outcome: Outcome) -> dict[str, np.ndarray]:
        """A vector per distinct passage text: the stored one if the text is stored, else freshly embedded."""
        texts = {_text_digest(p.text): p.text for p in passages}
        found: dict[str, np.ndarray] = {}
        digests = list(texts)
        with self._lock:
            for start in range(0, len(digests), 900):
                part = digests[start:start + 900]
                marks = ",".join("?" * len(part))
                for digest, blob in self._db.execute(
                        f"SELECT text_digest, vector FROM passages WHERE text_digest IN ({marks}) GROUP BY text_digest", part):
                    found[digest] = np.frombuffer(blob, dtype="<f4")
        missing = [d for d in digests if d not in found]
        outcome.reused += sum(1 for p in passages if _text_digest(p.text) in found)
        if missing:
            embedder = embedder_factory()
            if embedder.fingerprint != self.fingerprint:
                raise StoreError(f"embedder {embedder.fingerprint} differs from the store's {self.fingerprint}")
            fresh = embedder.embed([texts[d] for d in missing])
            found.update(zip(missing, np.asarray(fresh, dtype=np.float32)))
            outcome.embedded += len(missing)
        return found

    def synced(self, key: str, digest: str) -> bool:
        """Whether the store holds data file ``key`` as it was when its digest was ``digest``."""
        return self._settings().get(f"file:{key}") == digest and not self.stale

    def sync_file(self, key: str, digest: str, records: Iterable[Record], embedder_factory: Callable,
                  progress=None, total: int | None = None) -> Outcome | None:
        """Makes the records from data file ``key`` what ``records`` holds (``None``: ``digest`` is unchanged).

        Records of that file that are no longer in it are deleted; records from elsewhere (ingestion)
        are left alone. Commits in batches, then remembers ``digest``. ``progress(done, total)`` is
        called after each batch.
        """
        origin = f"file:{key}"
        if self.synced(key, digest):
            return None
        outcome = Outcome()
        seen: set[str] = set()
        batch: list[Record] = []

        def flush() -> None:
            outcome.add(self.apply(batch, [], embedder_factory, origin))
            if progress is not None:
                progress(len(seen), total)
            batch.clear()

        for record in records:
            seen.add(record.id)
            batch.append(record)
            if len(batch) >= BATCH:
                flush()
        flush()
        with self._lock:
            stale = [row[0] for row in self._db.execute("SELECT id FROM records WHERE origin = ?", (origin,))
                     if row[0] not in seen]
        for start in range(0, len(stale), BATCH):
            outcome.add(self.apply([], stale[start:start + BATCH], embedder_factory, origin))
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO settings VALUES (?, ?)", (origin, digest))
            db.execute("INSERT OR REPLACE INTO settings VALUES ('stale', '0')")
        self.save_index()
        return outcome

    def compact(self) -> None:
        """Rebuilds the index from the stored vectors, dropping its dead slots."""
        log.info("%s: compacting the index (%d dead slots, %d live)", self.folder, self.index.dead, len(self.index))
        self._rebuild()

    def save_index(self) -> None:
        """Saves the index and forgets the logged changes it includes (atomically: a crash leaves a usable pair)."""
        with self._lock:
            applied, dead = self._applied, self.index.dead
            self.index.save(self.folder / "index.hnsw")
            tmp = self.folder / "index.json.tmp"
            tmp.write_text(json.dumps({"format": STORE_FORMAT, "seq": applied, "dead": dead, "count": len(self.index)}))
            os.replace(tmp, self.folder / "index.json")
            with self._transaction() as db:
                db.execute("DELETE FROM changes WHERE seq <= ?", (applied,))
                db.execute("INSERT OR REPLACE INTO settings VALUES ('log_start', ?)", (str(applied),))

    def _transaction(self):
        store = self

        class _Tx:
            def __enter__(self):
                store._lock.acquire()
                store._db.execute("BEGIN IMMEDIATE")
                return store._db

            def __exit__(self, kind, *_):
                try:
                    store._db.execute("COMMIT" if kind is None else "ROLLBACK")
                finally:
                    store._lock.release()
                return False

        return _Tx()

    # -- reading ---------------------------------------------------------------------------------

    def __len__(self) -> int:
        """Live passages."""
        return len(self.index)

    def records(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM records").fetchone()[0]

    def passages(self, labels) -> dict[int, Passage]:
        """The passages stored under ``labels``."""
        labels = [int(label) for label in labels]
        if not labels:
            return {}
        marks = ",".join("?" * len(labels))
        with self._lock:
            rows = self._db.execute(
                f"SELECT label, id, record_id, text, patient, date, section, metadata FROM passages WHERE label IN ({marks})",
                labels).fetchall()
        return {row[0]: Passage(row[1], row[2], row[3], row[4], row[5], row[6], json.loads(row[7])) for row in rows}

    def labels_of_patients(self, names: list[str]) -> list[int]:
        """The labels of every passage about one of ``names``."""
        keys = [patient_key(n) for n in names if n.strip()]
        marks = ",".join("?" * len(keys))
        with self._lock:
            rows = self._db.execute(f"SELECT label FROM passages WHERE patient_key IN ({marks})", keys).fetchall()
        return [row[0] for row in rows]

    def known_patients(self, names: list[str]) -> list[str]:
        """Those of ``names`` (as given) that some passage of this store is about."""
        keys = {patient_key(n): n for n in names if n.strip()}
        if not keys:
            return []
        marks = ",".join("?" * len(keys))
        with self._lock:
            rows = self._db.execute(f"SELECT DISTINCT patient_key FROM passages WHERE patient_key IN ({marks})",
                                    list(keys)).fetchall()
        found = {row[0] for row in rows}
        return [name for key, name in keys.items() if key in found]

    def scored(self, labels, vector: np.ndarray) -> list[tuple[Passage, float, np.ndarray]]:
        """The passages under ``labels`` with their exact scores for ``vector`` (see :func:`nodes.data.index.exact_scores`)
        and their stored vectors."""
        labels = [int(label) for label in labels]
        found = self.passages(labels)
        labels = [label for label in labels if label in found]
        if not labels:
            return []
        vectors = self._vectors(labels)
        scores = exact_scores(vectors, vector)
        return [(found[label], float(score), row) for label, score, row in zip(labels, scores, vectors)]

    def iter_records(self) -> Iterable[Record]:
        """Every stored record, in id order."""
        with self._lock:
            ids = [row[0] for row in self._db.execute("SELECT id FROM records ORDER BY id")]
        for start in range(0, len(ids), BATCH):
            yield from sorted((r for r, _ in self._stored_records(ids[start:start + BATCH])), key=lambda r: r.id)

    def labels(self) -> list[int]:
        """Every live passage's label, in order."""
        with self._lock:
            return [row[0] for row in self._db.execute("SELECT label FROM passages ORDER BY label")]

    def all_vectors(self) -> tuple[list[Passage], np.ndarray]:
        """Every passage with its vector, in label order (for the centralized baseline)."""
        labels = self.labels()
        found = self.passages(labels)
        vectors = self._vectors(labels) if labels else np.empty((0, self.index.dim), dtype=np.float32)
        return [found[label] for label in labels], vectors

    def close(self) -> None:
        """Saves the index if it moved since the last save, and closes the database."""
        with self._lock:
            try:
                pending = self._db.execute("SELECT COUNT(*) FROM changes").fetchone()[0]
            except sqlite3.ProgrammingError:
                return  # already closed
        if pending:
            self.save_index()
        with self._lock:
            self._db.close()


def file_digest(path: Path, extra: str = "") -> str:
    """A digest of a data file (or every file of a data folder) and ``extra`` (its format and options)."""
    digest = hashlib.sha256(extra.encode())
    path = Path(path)
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for file in files:
        digest.update(str(file.relative_to(path) if path.is_dir() else file.name).encode())
        with open(file, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()
