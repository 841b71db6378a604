"""A leaf's storage: its passages in SQLite and its hnswlib index, saved under the state folder.

Layout of a leaf's folder (``<state_dir>/leaves/<path>/``)::

    passages.sqlite   the passages (label, id, record id, text, patient, metadata)
    index.hnsw        the saved hnswlib index, labels = passage labels
    meta.json         the store format, the embedding-model fingerprint, the data file's digest and the count

``meta.json`` is written last, after both files are complete, so a build interrupted at any point
is detected on the next start and redone; a restart with the same data and model reuses the saved
files instead of embedding again.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np

from bus.errors import StoreError
from nodes.data.index import VectorIndex, exact_scores
from nodes.data.chunking import Passage, chunk, file_digest, load_jsonl

log = logging.getLogger(__name__)

#: Bumped when the saved layout changes (2: inner-product index keeping vectors bit for bit).
STORE_FORMAT = 2

_SCHEMA = """
CREATE TABLE passages (
    label INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    record_id TEXT NOT NULL,
    text TEXT NOT NULL,
    patient TEXT,
    patient_key TEXT,
    metadata TEXT NOT NULL
);
CREATE INDEX passages_patient ON passages(patient_key);
"""


def patient_key(name: str | None) -> str | None:
    """How patient names are compared: case and spacing do not matter."""
    return " ".join(name.lower().split()) if name else None


class LeafStore:
    """Passages and their index for one leaf. Use :meth:`open` to get one."""

    def __init__(self, folder: Path, index: VectorIndex, fingerprint: str, source_digest: str) -> None:
        self.folder = folder
        self.index = index
        self.fingerprint = fingerprint
        self.source_digest = source_digest
        self._db = sqlite3.connect(folder / "passages.sqlite", check_same_thread=False)
        self._lock = threading.Lock()

    @classmethod
    def open(cls, folder: Path, data_path: Path, embedder_factory: Callable, fingerprint: str,
             progress: Callable[[int, int], None] | None = None) -> tuple["LeafStore", bool]:
        """Opens the saved store, or builds it from ``data_path`` if missing or stale.

        Args:
            folder: the leaf's folder under the state directory.
            data_path: the leaf's JSONL data file.
            embedder_factory: returns the embedder; called only when a build is needed.
            fingerprint: the fingerprint of the embedding model the federation uses.
            progress: called with ``(done, total)`` while embedding.

        Returns:
            The store, and whether it was (re)built.

        Raises:
            StoreError: the data file is missing or malformed.
        """
        if not Path(data_path).is_file():
            raise StoreError(f"data file {data_path} does not exist")
        digest = file_digest(data_path)
        try:
            store = cls.load(folder)
        except StoreError as exc:
            if (folder / "meta.json").exists():
                log.warning("%s; rebuilding", exc)
        else:
            if store.fingerprint == fingerprint and store.source_digest == digest:
                return store, False
            store.close()
        cls._build(folder, data_path, embedder_factory(), fingerprint, digest, progress)
        return cls.load(folder), True

    @staticmethod
    def _build(folder: Path, data_path: Path, embedder, fingerprint: str, digest: str, progress) -> None:
        if embedder.fingerprint != fingerprint:
            raise StoreError(f"embedder fingerprint {embedder.fingerprint} differs from the federation's {fingerprint}")
        # Read everything before touching the saved store: malformed data leaves it as it was.
        passages = [p for record in load_jsonl(data_path) for p in chunk(record)]
        vectors = embedder.embed([p.text for p in passages], progress=progress)
        LeafStore.write(folder, passages, vectors, fingerprint, digest)

    @staticmethod
    def write(folder: Path, passages: list[Passage], vectors: np.ndarray, fingerprint: str, digest: str) -> None:
        """Saves ``passages`` and their ``vectors`` as a store in ``folder`` (``meta.json`` last)."""
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "meta.json").unlink(missing_ok=True)  # the store is incomplete until meta.json is back
        labels = np.arange(len(passages), dtype=np.int64)
        index = VectorIndex(vectors.shape[1], capacity=len(passages))
        index.add(vectors, labels)
        db_tmp = folder / "passages.sqlite.tmp"
        db_tmp.unlink(missing_ok=True)
        db = sqlite3.connect(db_tmp)
        db.executescript(_SCHEMA)
        db.executemany(
            "INSERT INTO passages VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(int(label), p.id, p.record_id, p.text, p.patient, patient_key(p.patient),
              json.dumps(p.metadata, sort_keys=True)) for label, p in zip(labels, passages)],
        )
        db.commit()
        db.close()
        index.save(folder / "index.hnsw")
        os.replace(db_tmp, folder / "passages.sqlite")
        meta = {"format": STORE_FORMAT, "fingerprint": fingerprint, "source_digest": digest, "count": len(passages),
                "dim": int(vectors.shape[1])}
        tmp = folder / "meta.json.tmp"
        tmp.write_text(json.dumps(meta, indent=1))
        os.replace(tmp, folder / "meta.json")

    @classmethod
    def load(cls, folder: Path) -> "LeafStore":
        """Opens a store saved by :meth:`write`.

        Raises:
            StoreError: the folder holds no complete store (missing or unreadable files, or an
                index holding another number of vectors than ``meta.json`` records).
        """
        try:
            meta = json.loads((folder / "meta.json").read_text())
            if meta.get("format") != STORE_FORMAT:
                raise ValueError(f"store format {meta.get('format')}, expected {STORE_FORMAT}")
            index = VectorIndex.load(folder / "index.hnsw", meta["dim"])
        except (OSError, ValueError, KeyError, RuntimeError) as exc:
            raise StoreError(f"{folder} holds no complete leaf store: {exc}") from None
        if len(index) != meta.get("count"):
            raise StoreError(f"{folder}: saved index has {len(index)} vectors, meta.json records {meta.get('count')}")
        return cls(folder, index, meta["fingerprint"], meta.get("source_digest", ""))

    def __len__(self) -> int:
        return len(self.index)

    def passages(self, labels) -> dict[int, Passage]:
        """The passages stored under ``labels``."""
        labels = [int(label) for label in labels]
        if not labels:
            return {}
        marks = ",".join("?" * len(labels))
        with self._lock:
            rows = self._db.execute(
                f"SELECT label, id, record_id, text, patient, metadata FROM passages WHERE label IN ({marks})", labels
            ).fetchall()
        return {row[0]: Passage(row[1], row[2], row[3], row[4], json.loads(row[5])) for row in rows}

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

    def scored(self, labels, vector: np.ndarray) -> list[tuple[Passage, float]]:
        """The passages under ``labels`` with their exact scores for ``vector`` (see :func:`nodes.data.index.exact_scores`)."""
        labels = [int(label) for label in labels]
        found = self.passages(labels)
        labels = [label for label in labels if label in found]
        scores = exact_scores(self.index.vectors(labels), vector)
        return [(found[label], float(score)) for label, score in zip(labels, scores)]

    def all_vectors(self) -> tuple[list[Passage], np.ndarray]:
        """Every passage with its vector, in label order (for the centralized baseline)."""
        with self._lock:
            labels = [row[0] for row in self._db.execute("SELECT label FROM passages ORDER BY label")]
        found = self.passages(labels)
        return [found[label] for label in labels], self.index.vectors(labels)

    def close(self) -> None:
        with self._lock:
            self._db.close()
