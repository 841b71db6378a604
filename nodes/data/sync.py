"""Bringing a leaf's store up to date with the data file the spec gives it, when the leaf starts.

:func:`open_leaf` opens the store (replaying its change log — no embedding), cuts and embeds the
stored records again if the model or chunker changed, and, when the data file (or folder) or the
loader's code (:func:`nodes.data.loaders.revision`) changed since the last start, loads it with its
loader and makes the store hold exactly its records (plus any that arrived by ingestion). An
unchanged file costs one digest; an unreadable one leaves the
stored records serving, or the leaf out if it has none.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bus.errors import StoreError
from nodes.data.chunking import DEFAULT_MAX_CHARS
from nodes.data.embedder import DIM
from nodes.data.loaders import load, revision
from nodes.data.records import LoadReport
from nodes.data.store import LeafStore
from nodes.data.writes import Outcome


@dataclass(frozen=True)
class DataSource:
    """A leaf's data: a file or folder, its format, the loader's options, and which records to keep."""

    path: Path
    format: str = "fedrag"
    options: dict = field(default_factory=dict)
    where: dict[str, list] | None = None
    shard: tuple[int, int] | None = None

    def digest(self) -> str:
        """Changes when the data or how it is read changes: the format, its options, its loader's code."""
        how = json.dumps([self.format, revision(self.format), self.options, self.where, self.shard], sort_keys=True,
                         default=str)
        return file_digest(self.path, how)


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


def progress_printer(path: str, verbose: bool = True, what: str = "records") -> Callable[[int, int | None], None] | None:
    """Prints a leaf's loading progress (how many ``what``) to stderr with its rate, at most every few seconds."""
    if not verbose:
        return None
    started = time.monotonic()
    last = {"at": 0.0}

    def report(done: int, total: int | None) -> None:
        now = time.monotonic()
        if now - last["at"] < 3.0 and (total is None or done < total):
            return
        last["at"] = now
        rate = done / max(now - started, 1e-6)
        left = f", about {(total - done) / rate:.0f} s left" if total and rate > 0 else ""
        of = f"/{total}" if total else ""
        print(f"  {path}: {done}{of} {what} ({rate:.0f}/s{left})", file=sys.stderr, flush=True)

    return report


def open_leaf(folder: Path, source: DataSource | None, fingerprint: str, embedder_factory: Callable, *,
              path: str = "", max_chars: int = DEFAULT_MAX_CHARS, verbose: bool = True
              ) -> tuple[LeafStore, Outcome | None, LoadReport | None]:
    """The leaf's store, up to date with ``source``; what the sync did and what the loader skipped.

    Raises:
        StoreError: the data cannot be read and the store holds no records to serve instead.
    """
    store = LeafStore.open(folder, fingerprint, DIM, max_chars=max_chars)
    progress = progress_printer(path, verbose)
    outcome = store.refresh(embedder_factory, progress, progress_printer(path, verbose, "sentences embedded"))
    if source is None:
        return store, outcome if store.records() else None, None
    try:
        if not Path(source.path).exists():
            raise StoreError(f"data {source.path} does not exist")
        digest = source.digest()
        if store.synced(str(source.path), digest):
            return store, None, None

        def records():
            return load(source.path, source.format, where=source.where, shard=source.shard, **source.options)

        # reading is fast next to embedding: a first pass counts, so progress can say how long is left
        total = sum(1 for _ in records()[0]) if progress is not None else None
        stream, report = records()
        synced = store.sync_file(str(source.path), digest, stream, embedder_factory, progress, total)
    except StoreError:
        if store.records() == 0:
            store.close()
            raise
        if verbose:
            print(f"  {path}: data unreadable; serving the {store.records()} records stored before", file=sys.stderr)
        return store, None, None
    return store, synced, report if synced is not None else None
