"""The centralized baseline: one index over every leaf's passages, with the same vectors.

The federation promises that, with every policy open, its top-k equals the top-k of a single
index over the same passages (the seed thesis's ``ixn = 1.0``). :class:`CentralIndex` is that
single index, built from the leaves' saved stores (the same vectors, not a re-embedding), and
:func:`intersection` measures how far a federated answer is from it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from bus.errors import StoreError
from bus.messages import Hit
from nodes.ingest import Passage
from nodes.spec import FederationSpec
from nodes.store import LeafStore

_SEP = "::"


def key(path: str, passage_id: str) -> str:
    """A passage's federation-wide key: its leaf path and its id."""
    return f"{path}{_SEP}{passage_id}"


class CentralIndex:
    """Every passage of a federation in one :class:`~nodes.store.LeafStore`."""

    def __init__(self, store: LeafStore) -> None:
        self.store = store

    @classmethod
    def from_spec(cls, spec: FederationSpec, folder: Path) -> "CentralIndex":
        """Builds the central store in ``folder`` from the leaves' stores (which must exist).

        Raises:
            StoreError: a leaf's store has not been built yet (start the federation once first).
        """
        passages: list[Passage] = []
        vectors: list[np.ndarray] = []
        fingerprints = set()
        for path in spec.leaves():
            leaf = LeafStore.load(spec.leaf_folder(path))
            fingerprints.add(leaf.fingerprint)
            found, matrix = leaf.all_vectors()
            leaf.close()
            passages += [Passage(key(path, p.id), p.record_id, p.text, p.patient, p.metadata) for p in found]
            vectors.append(matrix)
        if len(fingerprints) != 1:
            raise StoreError(f"leaves were built with different models: {sorted(fingerprints)}")
        LeafStore.write(folder, passages, np.concatenate(vectors), fingerprints.pop(), "central")
        return cls(LeafStore.load(folder))

    def search(self, vector: np.ndarray, k: int, fetch_k: int, patients: list[str] | None = None) -> list[tuple[str, float]]:
        """The central top-k as ``(key, score)`` pairs, with the same filters a leaf applies."""
        return [(p.id, score) for p, score in self.store.search(vector, k, fetch_k, patients)]


def intersection(hits: list[Hit], central: list[tuple[str, float]]) -> float:
    """|federated ∩ centralized| / |centralized| over passage keys (1.0 when both are empty)."""
    if not central:
        return 1.0 if not hits else 0.0
    federated = {key(hit.path, hit.id) for hit in hits}
    return len(federated & {k for k, _ in central}) / len(central)
