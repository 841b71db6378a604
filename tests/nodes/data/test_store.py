import json

import numpy as np
import pytest

from bus.errors import StoreError
from nodes.data.store import LeafStore

RECORDS = [
    {"id": "n1", "text": "CHIEF COMPLAINT: chest pain.\n\nPLAN: cardiac catheterization.", "patient": "Ana Ruiz"},
    {"id": "n2", "text": "CHIEF COMPLAINT: knee fracture after a fall.\n\nPLAN: open reduction.", "patient": "Bo Chen"},
    {"id": "n3", "text": "CHIEF COMPLAINT: chest pressure on exertion.\n\nPLAN: stress test.", "patient": "Bo Chen"},
]


class CountingFactory:
    def __init__(self, embedder):
        self.embedder, self.calls = embedder, 0

    def __call__(self):
        self.calls += 1
        return self.embedder


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "leaf.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    return path


def test_build_then_reuse_without_embedding(tmp_path, data, embedder):
    factory = CountingFactory(embedder)
    store, built = LeafStore.open(tmp_path / "s", data, factory, embedder.fingerprint)
    assert built and len(store) == 6 and factory.calls == 1
    store.close()
    again, built = LeafStore.open(tmp_path / "s", data, factory, embedder.fingerprint)
    assert not built and len(again) == 6 and factory.calls == 1, "a restart reuses the saved index"


def test_changed_data_or_model_rebuilds(tmp_path, data, embedder):
    factory = CountingFactory(embedder)
    LeafStore.open(tmp_path / "s", data, factory, embedder.fingerprint)[0].close()
    with open(data, "a") as fh:
        fh.write(json.dumps({"id": "n4", "text": "Seizure."}) + "\n")
    store, built = LeafStore.open(tmp_path / "s", data, factory, embedder.fingerprint)
    assert built and len(store) == 7
    with pytest.raises(StoreError, match="differs"):
        LeafStore.open(tmp_path / "s", data, factory, "another-model:384:0")


def test_corrupt_index_is_rebuilt(tmp_path, data, embedder):
    factory = CountingFactory(embedder)
    LeafStore.open(tmp_path / "s", data, factory, embedder.fingerprint)[0].close()
    (tmp_path / "s" / "index.hnsw").write_bytes(b"\x00garbage")
    store, built = LeafStore.open(tmp_path / "s", data, factory, embedder.fingerprint)
    assert built and len(store) == 6


def test_interrupted_build_is_redone(tmp_path, data, embedder):
    factory = CountingFactory(embedder)
    LeafStore.open(tmp_path / "s", data, factory, embedder.fingerprint)[0].close()
    (tmp_path / "s" / "meta.json").unlink()  # as if the process died before the last write
    assert LeafStore.open(tmp_path / "s", data, factory, embedder.fingerprint)[1]


def test_missing_data_file_is_a_clear_error(tmp_path, embedder):
    with pytest.raises(StoreError, match="does not exist"):
        LeafStore.open(tmp_path / "s", tmp_path / "nope.jsonl", lambda: embedder, embedder.fingerprint)


def test_scores_are_exact_and_patients_are_known_by_key(tmp_path, data, embedder):
    store, _ = LeafStore.open(tmp_path / "s", data, lambda: embedder, embedder.fingerprint)
    q = embedder.embed_one("chest pain")
    passages, matrix = store.all_vectors()
    scored = store.scored(range(len(passages)), q)
    assert [p.id for p, _ in scored] == [p.id for p in passages]
    assert np.allclose([s for _, s in scored], matrix @ q, atol=1e-6)
    assert [s for _, s in store.scored([3], q)] == [scored[3][1]], "a score does not depend on its batch"
    assert store.known_patients(["bo  CHEN", "Nobody Here", "ana ruiz"]) == ["bo  CHEN", "ana ruiz"]
    assert len(store.labels_of_patients(["Bo Chen"])) == 4


def test_malformed_new_data_leaves_the_saved_store_intact(tmp_path, data, embedder):
    LeafStore.open(tmp_path / "s", data, lambda: embedder, embedder.fingerprint)[0].close()
    with open(data, "a") as fh:
        fh.write("{broken\n")
    with pytest.raises(StoreError, match="leaf.jsonl:4"):
        LeafStore.open(tmp_path / "s", data, lambda: embedder, embedder.fingerprint)
    assert len(LeafStore.load(tmp_path / "s")) == 6
