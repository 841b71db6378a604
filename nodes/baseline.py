"""The centralized baseline: one index over every leaf's passages, with the same vectors.

The federation promises that, with every policy open, its top-k equals the top-k of a single
index over the same passages (the seed thesis's ``ixn = 1.0``). :class:`CentralIndex` is that
single index, built from the leaves' saved stores (the same vectors, not a re-embedding), and
:func:`intersection` measures how far a federated answer is from it.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from bus.errors import StoreError
from bus.messages import Hit
from nodes.ingest import chunk, file_digest, load_jsonl
from nodes.spec import FederationSpec
from nodes.store import LeafStore

_SEP = "::"


def key(path: str, passage_id: str) -> str:
    """A passage's federation-wide key: its leaf path and its id."""
    return f"{path}{_SEP}{passage_id}"


def central_spec(spec: FederationSpec, folder: Path) -> FederationSpec:
    """A one-leaf federation (organization ``central``) holding every record of ``spec``.

    Its data file holds every leaf's records, ids prefixed with the leaf path (:func:`key`), so
    chunking gives the same passages; its store is written from the vectors the leaves already
    computed rather than embedding everything again. Served like any federation, it is the
    baseline the benchmark measures the federation against.

    Raises:
        StoreError: a leaf's store has not been built yet (start the federation once first), or
            the leaves were built with different models.
    """
    folder.mkdir(parents=True, exist_ok=True)
    data = folder / "central.jsonl"
    vectors: dict[str, np.ndarray] = {}
    fingerprints = set()
    with open(data, "w", encoding="utf-8") as fh:
        for path, leaf_data in spec.leaves().items():
            store = LeafStore.load(spec.leaf_folder(path))
            fingerprints.add(store.fingerprint)
            passages, matrix = store.all_vectors()
            store.close()
            vectors.update({key(path, p.id): v for p, v in zip(passages, matrix)})
            for record in load_jsonl(leaf_data):
                fh.write(json.dumps({**record, "id": key(path, record["id"])}) + "\n")
    if len(fingerprints) != 1:
        raise StoreError(f"leaves were built with different models: {sorted(fingerprints)}")
    spec_path = folder / "central.toml"
    spec_path.write_text(f'[federation]\nname = "central"\nstate_dir = "state"\n'
                         f'deadline_ms = {spec.federation.deadline_ms}\n[orgs.central]\ndata = "central.jsonl"\n')
    central = FederationSpec.load(spec_path)
    passages = [p for record in load_jsonl(data) for p in chunk(record)]
    LeafStore.write(central.leaf_folder("central"), passages, np.stack([vectors[p.id] for p in passages]),
                    fingerprints.pop(), file_digest(data))
    return central


class CentralIndex:
    """Every passage of a federation in one :class:`~nodes.store.LeafStore` (see :func:`central_spec`)."""

    def __init__(self, store: LeafStore) -> None:
        self.store = store

    @classmethod
    def from_spec(cls, spec: FederationSpec, folder: Path) -> "CentralIndex":
        """Builds the central store in ``folder`` from the leaves' stores (which must exist)."""
        central = central_spec(spec, folder)
        return cls(LeafStore.load(central.leaf_folder("central")))

    def search(self, vector: np.ndarray, k: int, patients: list[str] | None = None) -> list[tuple[str, float]]:
        """The central top-k as ``(key, score)`` pairs, with the same patient filter a leaf applies.

        Nothing is hidden per passage here, so there is no ``fetch_k`` to over-fetch for.
        """
        return [(p.id, score) for p, score in self.store.search(vector, k, k, patients)]


def intersection(hits: list[Hit], central: list[tuple[str, float]]) -> float:
    """|federated ∩ centralized| / |centralized| over passage keys (1.0 when both are empty)."""
    if not central:
        return 1.0 if not hits else 0.0
    federated = {key(hit.path, hit.id) for hit in hits}
    return len(federated & {k for k, _ in central}) / len(central)
