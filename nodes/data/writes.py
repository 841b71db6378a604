"""The write path of a leaf's store: records upserted and deleted by id, data files synced, and what it did.

:class:`StoreWrites` is the half of :class:`nodes.data.store.LeafStore` that changes it (``LeafStore``
inherits it): :meth:`~StoreWrites.apply` commits a batch of upserts and deletes in one SQLite
transaction and only then has the index follow; :meth:`~StoreWrites.sync_file` makes the records from
one data file what that file holds; :meth:`~StoreWrites.refresh` cuts and embeds every record again
after a change of model or chunker. Each returns an :class:`Outcome`, the counts a leaf reports.

Upserts are idempotent by record id and content digest: applying the same record twice changes
nothing, so a redelivered message is harmless. Unchanged text is never embedded twice: a passage
whose text is already stored (about anyone, in any record) takes the stored vector, and the
embedder is only asked for (``embedder_factory()``) when some text is new. The sentences an answer may weigh
of a passage about a patient are embedded with it, once per distinct sentence (:mod:`nodes.data._sentences`).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from bus.errors import StoreError
from nodes.data import _lexicon, _sentences
from nodes.data._sqlite import text_digest
from nodes.data.chunking import Passage, chunk
from nodes.data.records import Record, patient_key

#: Records per transaction when many arrive at once (bounded memory, steady progress).
BATCH = 64


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
    sentences: int = 0

    def counts(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in self.COUNTED}

    @classmethod
    def from_counts(cls, counts: dict[str, int], rejected=()) -> "Outcome":
        return cls(**{name: int(counts.get(name, 0)) for name in cls.COUNTED}, rejected=[tuple(r) for r in rejected])

    def add(self, other: "Outcome") -> None:
        for name in (*self.COUNTED, "embedded", "reused", "sentences"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.rejected += other.rejected

    def summary(self) -> str:
        rejected = f", {len(self.rejected)} rejected" if self.rejected else ""
        return (f"{self.added} added, {self.updated} updated, {self.unchanged} unchanged, {self.deleted} deleted"
                f"{rejected}; {self.embedded} passages embedded, {self.reused} reused, {self.sentences} sentences embedded")


class StoreWrites:
    """Changing a leaf's store; inherited by :class:`nodes.data.store.LeafStore`, which provides the rest.

    From the store it uses: its database and lock (``_db``, ``_lock``), ``_transaction()``,
    ``_settings()`` and ``_stored_records(ids)``, the embedding ``fingerprint`` and ``max_chars`` the
    records are cut to, ``_follow(...)`` to bring the index in step with a committed change, and
    ``save_index()``.
    """

    _db: sqlite3.Connection
    _lock: threading.RLock
    fingerprint: str
    max_chars: int

    @property
    def stale(self) -> bool:
        """Whether the records must be cut and embedded again (another model or chunker than when stored)."""
        return self._settings().get("stale") == "1"

    def refresh(self, embedder_factory: Callable, progress=None, sentence_progress=None) -> Outcome:
        """Cuts and embeds every stored record again if the model or the chunker changed, and embeds the sentences
        of a store from before their vectors were stored; else does nothing. ``progress`` and ``sentence_progress``
        are called ``(done, total)`` as records and sentences are embedded."""
        outcome = Outcome()
        if self.stale:
            with self._lock:
                ids = [row[0] for row in self._db.execute("SELECT id FROM records ORDER BY id")]
            for start in range(0, len(ids), BATCH):
                records = [r for r, _ in self._stored_records(ids[start:start + BATCH])]
                outcome.add(self.apply(records, [], embedder_factory, origin=None, force=True))
                if progress is not None:
                    progress(min(start + BATCH, len(ids)), len(ids))
            with self._transaction() as db:
                db.execute("INSERT OR REPLACE INTO settings VALUES ('stale', '0')")
        with self._lock:
            unfilled = _sentences.unfilled(self._db)
            passages = self._db.execute("SELECT text, patient FROM passages").fetchall() if unfilled else []
        if unfilled:
            sentences, vectors = self._sentence_vectors_for(passages, embedder_factory, outcome, sentence_progress)
            with self._transaction() as db:
                _sentences.store(db, sentences, vectors)
                _sentences.filled(db)
        return outcome

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
        sentences, sentence_vectors = self._sentence_vectors_for(
            [(p.text, p.patient) for r in changed for p in passages[r.id]], embedder_factory, outcome)
        now = time.time()
        with self._transaction() as db:
            _sentences.store(db, sentences, sentence_vectors)
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
                    vector = vectors[text_digest(passage.text)]
                    label = db.execute(
                        "INSERT INTO passages (id, record_id, text, text_digest, patient, patient_key, date, section, "
                        "metadata, vector) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (passage.id, record.id, passage.text, text_digest(passage.text), passage.patient,
                         patient_key(passage.patient), passage.date, passage.section,
                         json.dumps(passage.metadata, sort_keys=True), vector.astype("<f4").tobytes())).lastrowid
                    _lexicon.index(db, label, passage.text)
                    added.append((label, vector))
                if record.id in known and not force:
                    outcome.updated += 1
                elif not force:
                    outcome.added += 1
            db.executemany("INSERT INTO changes (label, op) VALUES (?, 'delete')", [(label,) for label in gone])
            db.executemany("INSERT INTO changes (label, op) VALUES (?, 'add')", [(label,) for label, _ in added])
            last = db.execute("SELECT COALESCE(MAX(seq), 0) FROM changes").fetchone()[0]
        # committed: now the index in memory follows
        self._follow(gone, added, last)
        return outcome

    def _known(self, ids: list[str]) -> dict[str, str]:
        """The stored content digest of each of ``ids`` that is stored."""
        known: dict[str, str] = {}
        for start in range(0, len(ids), 900):
            part = ids[start:start + 900]
            marks = ",".join("?" * len(part))
            known.update(self._db.execute(f"SELECT id, digest FROM records WHERE id IN ({marks})", part).fetchall())
        return known

    def _vectors_for(self, passages: list[Passage], embedder_factory: Callable, outcome: Outcome) -> dict[str, np.ndarray]:
        """A vector per distinct passage text: the stored one if the text is stored, else freshly embedded."""
        texts = {text_digest(p.text): p.text for p in passages}
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
        outcome.reused += sum(1 for p in passages if text_digest(p.text) in found)
        if missing:
            fresh = self._embedder(embedder_factory).embed([texts[d] for d in missing])
            found.update(zip(missing, np.asarray(fresh, dtype=np.float32)))
            outcome.embedded += len(missing)
        return found

    def _sentence_vectors_for(self, passages: list[tuple[str, str | None]], embedder_factory: Callable,
                              outcome: Outcome, progress=None) -> tuple[list[str], np.ndarray]:
        """The sentences weighed against questions of ``passages`` (text, patient) whose vectors are not stored, and
        their vectors, freshly embedded (``progress``: called ``(done, total)`` after each batch, if given)."""
        with self._lock:
            todo = _sentences.missing(self._db, (s for text, patient in passages for s in _sentences.weighed(text, patient)))
        if not todo:
            return [], np.zeros((0, 0), dtype=np.float32)
        outcome.sentences += len(todo)
        embedder = self._embedder(embedder_factory)
        vectors = embedder.embed(todo) if progress is None else embedder.embed(todo, progress=progress)
        return todo, np.asarray(vectors, dtype=np.float32)

    def _embedder(self, embedder_factory: Callable):
        """The embedder, checked to be the store's model.

        Raises:
            StoreError: it is another model.
        """
        embedder = embedder_factory()
        if embedder.fingerprint != self.fingerprint:
            raise StoreError(f"embedder {embedder.fingerprint} differs from the store's {self.fingerprint}")
        return embedder

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
