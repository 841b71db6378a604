"""A vector index over unit vectors, backed by hnswlib, and the one way fedrag scores a passage.

Scores are inner products of unit vectors (cosine similarities). hnswlib finds *candidates* quickly
and approximately (float32 arithmetic, search breadth ``ef``); the score a hit carries is then
recomputed by :func:`exact_scores` from the stored float32 vectors: every product of two float32
values is exact in float64, and the products are summed in float64 in one fixed pairwise order made
of elementwise additions (each an IEEE-rounded operation, whatever the CPU's vector width). So a
passage gets the same score, bit for bit, at its leaf, in any merge and in the centralized
baseline, whatever the batch or the number of rows scored together. That is what lets near-ties be
broken the same way everywhere.

The index uses hnswlib's inner-product space (``ip``), which stores vectors as given: the cosine
space would re-normalize them and change their last bits. Vectors must be unit vectors (the
embedder normalizes them).

hnswlib is approximate: ``ef`` is kept at least :data:`EF_FLOOR` and at least ``2 * n``. With
``M = 32`` that keeps recall@10 against exact search at or above 0.99 even on structureless random
unit vectors; ``scripts/bench.py`` measures it on the demo leaves. Recall 0.99 is not 1: over MedQuAD's
3,438 held-out questions one leaf of 1,200 passages left out a passage the exact index ranks 14th, and the
federation's list then differed from the centralized one. An index of at most :data:`FLAT_BELOW` vectors is
therefore searched by every vector (one float32 matrix product and a partition, faster than the graph at that size:
0.03 ms against 0.17 for 1,200 random vectors of 384 dimensions, 0.34 against 0.75 for 10,000), which misses nothing;
the graph serves larger ones. The vectors it scores are kept as they are added and deleted, so a write costs a search
no rebuild.
:data:`TOLERANCE` bounds how far an approximate score may be from the exact one, so a caller can tell when no
passage it was not given can still reach its k-th score (see :func:`nodes.merge.search_complete`).
"""

from __future__ import annotations

import threading
from pathlib import Path

import hnswlib
import numpy as np

from nodes.data._files import replacing

EF_FLOOR = 256
M = 32
EF_CONSTRUCTION = 200
#: Bound on |approximate score - exact score| for hnswlib's float32 inner products of unit vectors
#: of up to a few thousand dimensions (the float32 rounding of a 384-term sum is below 3e-5).
TOLERANCE = 1e-4
#: Up to how many live vectors :meth:`VectorIndex.search` scores every one instead of walking the graph.
FLAT_BELOW = 10_000


def exact_scores(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """The inner product of each row of ``matrix`` with ``vector``, in float64, reproducibly.

    Both are float32. The products are exact in float64; they are then added pairwise in a fixed
    tree (columns padded with zeros to a power of two, then halves added elementwise), so each
    row's score depends only on that row and ``vector`` — never on BLAS, threads or batch size.
    The products are laid out a dimension per row, so that each halving adds two contiguous blocks in
    place (the same additions, three to four times faster than column slices for a few hundred rows).
    """
    products = np.asarray(matrix, dtype=np.float32).T.astype(np.float64, order="C")
    products *= np.asarray(vector, dtype=np.float32).astype(np.float64)[:, None]
    dims = products.shape[0]
    width = 1 << max(dims - 1, 0).bit_length()
    if width != dims:  # the first halving of the zero-padded products, without padding: a zero adds nothing
        half = width // 2
        products[:dims - half] += products[half:]
        products = products[:half]
    while products.shape[0] > 1:
        half = products.shape[0] // 2
        products[:half] += products[half:]  # the halves do not overlap
        products = products[:half]
    return products[0].copy() if products.shape[0] else np.zeros(products.shape[1])


def best_scores(matrices: list[np.ndarray | None], vector: np.ndarray) -> list[float | None]:
    """For each matrix, the best :func:`exact_scores` of its rows with ``vector`` (``None`` for ``None`` or no rows):
    a passage's sentence most similar to a question. Each row is scored on its own, so the result does not
    depend on which matrices are scored together.

    Only rows whose float32 score is within twice :data:`TOLERANCE` of their matrix's best float32 score are
    scored exactly: the exactly best row is always among them."""
    rows = [m for m in matrices if m is not None and len(m)]
    if not rows:
        return [None] * len(matrices)
    lengths = np.fromiter((len(m) for m in rows), dtype=np.int64, count=len(rows))
    starts = np.zeros(len(rows), dtype=np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    stacked = np.concatenate(rows)
    owner = np.repeat(np.arange(len(rows)), lengths)
    approx = stacked @ np.asarray(vector, dtype=np.float32)
    near = np.flatnonzero(approx >= np.maximum.reduceat(approx, starts)[owner] - 2 * TOLERANCE)  # each matrix's, in order
    best = np.maximum.reduceat(exact_scores(stacked[near], vector), np.flatnonzero(np.diff(owner[near], prepend=-1)))
    found = iter(best.tolist())
    return [next(found) if m is not None and len(m) else None for m in matrices]


class VectorIndex:
    """Unit vectors with integer labels; :meth:`search` gives approximate inner products.

    Labels can be deleted (hnswlib marks them, and a later :meth:`add` reuses their slots), so
    records are updated and removed without a rebuild; :attr:`dead` says how many marked slots wait
    for reuse and :attr:`reused` how many were reused since the index was built, so the owner can rebuild
    when too many are: a slot reused keeps some of the links of the vector it held, and an index whose every
    vector was replaced (a whole data file upserted again) misses some of the exact top 10 a fresh one finds.
    """

    def __init__(self, dim: int, capacity: int = 16) -> None:
        self.dim = dim
        self._index = hnswlib.Index(space="ip", dim=dim)
        self._index.init_index(max_elements=max(capacity, 16), ef_construction=EF_CONSTRUCTION, M=M,
                               random_seed=100, allow_replace_deleted=True)
        self._lock = threading.Lock()
        #: Slots marked deleted and not reused yet.
        self.dead = 0
        #: Slots reused since the index was built.
        self.reused = 0
        #: The live labels and their vectors, as :meth:`search` scores them at most :data:`FLAT_BELOW` (kept as they are
        #: added and deleted; read from the graph once for an index loaded from a file), and what was added since.
        self._flat: tuple[np.ndarray, np.ndarray] | None = (np.empty(0, dtype=np.int64), np.empty((0, dim), np.float32))
        self._added: list[tuple[np.ndarray, np.ndarray]] = []

    def __len__(self) -> int:
        """Live vectors."""
        return self._index.get_current_count() - self.dead

    def add(self, vectors: np.ndarray, labels: np.ndarray) -> None:
        """Adds ``vectors`` (``(n, dim)`` float32 unit vectors) under new ``labels`` (``(n,)`` ints)."""
        if len(labels) == 0:
            return
        with self._lock:
            needed = self._index.get_current_count() + max(len(labels) - self.dead, 0)
            if needed > self._index.get_max_elements():
                self._index.resize_index(max(needed, 2 * self._index.get_max_elements()))
            # One thread keeps construction deterministic: the same data gives the same graph.
            self._index.add_items(np.asarray(vectors, dtype=np.float32), np.asarray(labels), num_threads=1,
                                  replace_deleted=True)
            self.reused += min(len(labels), self.dead)
            self.dead = max(self.dead - len(labels), 0)
            if self._flat is not None:
                self._added.append((np.asarray(labels, dtype=np.int64).copy(), np.asarray(vectors, dtype=np.float32).copy()))

    def delete(self, labels) -> None:
        """Removes ``labels`` from every later search (labels it does not hold are ignored)."""
        with self._lock:
            gone = []
            for label in labels:
                try:
                    self._index.mark_deleted(int(label))
                except RuntimeError:  # not in the index, or already deleted
                    continue
                self.dead += 1
                gone.append(int(label))
            if gone and self._flat is not None:
                live, matrix = self._rows()
                kept = ~np.isin(live, gone)
                self._flat = live[kept], matrix[kept]

    def search(self, vector: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        """The ``n`` nearest labels and their approximate scores (within :data:`TOLERANCE`), best first (``n``
        clamped to the size): exactly those of an index of at most :data:`FLAT_BELOW` vectors, about those of a
        larger one."""
        n = min(n, len(self))
        if n <= 0:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32)
        vector = np.asarray(vector, dtype=np.float32)
        with self._lock:
            if len(self) <= FLAT_BELOW:
                live, matrix = self._rows()
                return _nearest(live, matrix @ vector, n)
            self._index.set_ef(max(EF_FLOOR, 2 * n))
            labels, distances = self._index.knn_query(vector.reshape(1, -1), k=n)
        return labels[0].astype(np.int64), (1.0 - distances[0]).astype(np.float32)

    def _rows(self) -> tuple[np.ndarray, np.ndarray]:
        """Every live label and its vector (the lock held): read from the graph the first time after a load, which
        takes about 40 µs a vector, then kept."""
        if self._flat is None:
            self._flat, self._added = self._live(), []
        elif self._added:
            live, matrix = self._flat
            self._flat = (np.concatenate([live, *(labels for labels, _ in self._added)]),
                          np.concatenate([matrix, *(vectors for _, vectors in self._added)]))
            self._added = []
        return self._flat

    def _live(self) -> tuple[np.ndarray, np.ndarray]:
        """Every live label, in order, and its vector, as the graph holds them."""
        labels = sorted(self._index.get_ids_list())
        try:
            return np.asarray(labels, dtype=np.int64), np.asarray(self._index.get_items(labels), dtype=np.float32)
        except RuntimeError:  # a label marked deleted: hnswlib lists it and will not give its vector
            live, rows = [], []
            for label in labels:
                try:
                    rows.append(self._index.get_items([label])[0])
                except RuntimeError:
                    continue
                live.append(label)
            return np.asarray(live, dtype=np.int64), np.asarray(rows, dtype=np.float32).reshape(len(live), self.dim)

    def vectors(self, labels) -> np.ndarray:
        """The stored vectors of ``labels``, exactly as they were added."""
        labels = list(labels)
        if not labels:
            return np.empty((0, self.dim), dtype=np.float32)
        with self._lock:
            return np.asarray(self._index.get_items(labels), dtype=np.float32)

    def save(self, path: Path) -> None:
        """Writes the index to ``path`` atomically (temporary file, then rename)."""
        with replacing(path) as tmp, self._lock:
            self._index.save_index(str(tmp))

    @classmethod
    def load(cls, path: Path, dim: int, dead: int = 0, reused: int = 0) -> "VectorIndex":
        """Reads an index written by :meth:`save` (``dead``: how many of its slots were marked deleted, ``reused``:
        how many were reused since it was built)."""
        index = cls.__new__(cls)
        index.dim = dim
        index._index = hnswlib.Index(space="ip", dim=dim)
        index._index.load_index(str(path), allow_replace_deleted=True)
        index._lock = threading.Lock()
        index.dead = dead
        index.reused = reused
        index._flat, index._added = None, []
        return index


def _nearest(labels: np.ndarray, scores: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``n`` best of ``labels`` by ``scores`` and their scores, best first, ties by label (a partition, then a sort
    of those that reach the ``n``-th score)."""
    if n < len(scores):
        chosen = np.flatnonzero(scores >= np.partition(scores, len(scores) - n)[len(scores) - n])
    else:
        chosen = np.arange(len(scores))
    best = chosen[np.lexsort((labels[chosen], -scores[chosen]))][:n]
    return labels[best], scores[best]


def exact_search(matrix: np.ndarray, vector: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact top-k over the rows of ``matrix``: positions and :func:`exact_scores`, best first, ties by position."""
    k = min(k, len(matrix))
    if k <= 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float64)
    scores = exact_scores(matrix, vector)
    order = np.lexsort((np.arange(len(scores)), -scores))[:k]
    return order.astype(np.int64), scores[order]
