"""Federated top-k equals centralized top-k exactly, on corpora built to be full of ties.

Each seed writes a federation whose passages reuse a few dozen vectors over and over — identical
vectors tie exactly, and copies nudged by one float32 step tie "a float apart" — spread over trees
of depth 1 to 3, with copied text about the same patient (collapsed) and about different patients
(not collapsed). The stores are written from those vectors directly (no embedding), and questions go
through the real gateway and broker.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from bus.connection import connect
from nodes.run.baseline import CentralIndex
from nodes.run.federation import Federation
from nodes.run.assemble import build_leaves
from nodes.data.chunking import chunk
from nodes.data.records import Record
from nodes.run.spec import FederationSpec
from tests.nodes.run.test_federation import ask_and_compare

PATIENTS = ["Ana Ruiz", "Bo Chen", "Grace Okafor", "Dev Patel", None]
WORDS = "fever cough dyspnea edema rash syncope nausea pain fatigue tremor".split()
QUESTIONS = ["Which patients had fever and cough?", "syncope with edema", "chronic pain and fatigue",
             "What medications is Bo Chen taking?"]


def _tree(rng: np.random.Generator, depth: int) -> dict[str, list[str]]:
    """Leaf paths per organization for a tree of ``depth`` levels below the root."""
    leaves = {}
    for org in ("org_a", "org_b", "org_c")[: rng.integers(2, 4)]:
        if depth == 1:
            leaves[org] = [org]
        elif depth == 2:
            leaves[org] = [f"{org}.unit{u}" for u in range(rng.integers(2, 4))]
        else:
            leaves[org] = [f"{org}.dept{d}.unit{u}" for d in range(2) for u in range(rng.integers(1, 3))]
    return leaves


class KnownVectors:
    """An embedder that gives each passage text the vector the test chose for it."""

    def __init__(self, fingerprint: str) -> None:
        self.fingerprint = fingerprint
        self.vectors: dict[str, np.ndarray] = {}

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.stack([self.vectors[text] for text in texts])


def write_tied_federation(folder, seed: int, fingerprint: str) -> FederationSpec:
    """A federation spec over generated leaves whose stores hold heavily tied vectors."""
    rng = np.random.default_rng(seed)
    bases = rng.normal(size=(12, 384)).astype(np.float32)
    bases /= np.linalg.norm(bases, axis=1, keepdims=True)
    nudged = bases.copy()  # each base's copy one float32 step away: a near-tie
    for row in nudged:
        at = int(rng.integers(384))
        row[at] = np.nextafter(row[at], np.float32(2.0))
    texts = [" ".join(rng.choice(WORDS, size=5)) + "." for _ in bases]
    weights = np.linspace(3.0, 1.0, len(bases))
    weights /= weights.sum()
    lines = ['[federation]', 'name = "ties"', 'state_dir = "state"', "deadline_ms = 10000", ""]
    known = KnownVectors(fingerprint)
    for paths in _tree(rng, depth=1 + seed % 3).values():
        for path in paths:
            records = []
            for i in range(int(rng.integers(8, 30))):
                base = int(rng.choice(len(bases), p=weights))
                near = rng.random() < 0.3
                # the store gives equal texts equal vectors, so a near-tie needs its own text
                record = Record(f"r{i:03d}", texts[base] + (" Again." if near else ""),
                                PATIENTS[int(rng.integers(len(PATIENTS)))])
                [passage] = chunk(record)
                known.vectors[passage.text] = (nudged if near else bases)[base]
                records.append({"id": record.id, "text": record.text, "patient": record.patient})
            (folder / f"{path}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
            lines += [f"[orgs.{'.units.'.join(path.split('.'))}]", f'data = "{path}.jsonl"', ""]
    spec_path = folder / "ties.toml"
    spec_path.write_text("\n".join(lines))
    spec = FederationSpec.load(spec_path)
    build_leaves(spec, lambda: known, fingerprint=fingerprint, verbose=False)
    return spec


@pytest.mark.parametrize("seed", range(20))
async def test_federated_equals_centralized_with_ties(seed, tmp_path, nats_server, embedder):
    spec = write_tied_federation(tmp_path, seed, embedder.fingerprint)
    assert max(path.count(".") for path in spec.leaves()) == seed % 3
    federation = Federation(spec, nats_server.url, processes=False, verbose=False, embedder_factory=lambda: embedder)
    await federation.start()
    client = await connect(nats_server.url, "ties")
    try:
        central = CentralIndex.from_spec(spec)
        scores = central.matrix @ central.matrix[0]
        assert len(set(scores.tolist())) < len(scores) / 2, "the corpus is full of exact ties"
        for question in QUESTIONS:
            for k in (3, 7):
                await ask_and_compare(client, central, question, k=k, fetch_k=k)
                await ask_and_compare(client, central, question, k=k, fetch_k=k, collapse=False)
    finally:
        await client.drain()
        await federation.stop()
