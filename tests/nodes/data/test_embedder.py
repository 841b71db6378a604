"""The embedder: unit vectors, a question asked again looked up rather than embedded again, and its two backends."""

from __future__ import annotations

import concurrent.futures
import os
import tempfile
from collections import OrderedDict

import numpy as np
import pytest

from nodes.data import embedder as emb


def test_a_text_seen_again_is_looked_up_with_the_very_vector_it_had(embedder, monkeypatch):
    monkeypatch.setattr(embedder, "_remembered", OrderedDict())  # the session's embedder is left as it was
    text = "Which patients take warfarin for atrial fibrillation?"
    first = embedder.embed_one(text)
    assert np.isclose(np.linalg.norm(first), 1.0, atol=1e-5)
    assert np.array_equal(first, embedder.embed([text])[0]), "alone, a text embeds the same as in a batch of one"
    calls = []
    monkeypatch.setattr(embedder, "embed", lambda texts: calls.append(texts) or np.zeros((len(texts), emb.DIM), "f4"))
    assert np.array_equal(embedder.embed_one(text), first) and calls == []
    with pytest.raises(ValueError):
        embedder.embed_one(text)[0] = 2.0  # shared by every asker: nobody may change it
    both = embedder.embed_remembered(["a new sentence.", text, "a new sentence."])
    assert calls == [["a new sentence."]], "only what was never seen is embedded, once"
    assert both.shape == (3, emb.DIM) and np.array_equal(both[1], first) and np.array_equal(both[0], both[2])
    assert embedder.embed_remembered([]).shape == (0, emb.DIM)


def test_the_remembered_texts_are_bounded(embedder, monkeypatch):
    monkeypatch.setattr(embedder, "_remembered", OrderedDict())
    monkeypatch.setattr(emb, "REMEMBERED", 4)
    monkeypatch.setattr(embedder, "embed", lambda texts: np.ones((len(texts), emb.DIM), "f4"))
    for n in range(10):
        embedder.embed_one(f"question {n}")
    assert len(embedder._remembered) == 4 and "question 9" in embedder._remembered


def test_the_backends_give_the_same_vectors_under_fingerprints_of_their_own(embedder):
    assert embedder.backend == "onnx" and embedder.fingerprint == emb.fingerprint() == emb.fingerprint(None, "onnx")
    plain = emb.Embedder(backend_name="torch")
    assert plain.fingerprint != embedder.fingerprint and embedder.fingerprint.startswith(plain.fingerprint + ":")
    texts = ["Which patients take warfarin for atrial fibrillation?", "chest pain",
             "Patient is a 67-year-old man with a history of hypertension, type 2 diabetes and chronic kidney disease. " * 12]
    ours, theirs = embedder.embed(texts), plain.embed(texts)
    assert np.abs(ours - theirs).max() < 1e-5 and np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    # truncated at the same token: the long text's vector is not the one of a shorter text
    assert np.abs(embedder.embed([texts[2] * 3])[0] - ours[2]).max() < 1e-5


def test_an_unknown_backend_is_refused_by_name(monkeypatch):
    monkeypatch.setenv("FEDRAG_EMBEDDER", "tensorflow")
    with pytest.raises(ValueError, match="unknown embedder backend 'tensorflow'.*onnx, torch"):
        emb.fingerprint()


def test_a_damaged_graph_is_exported_again_and_processes_starting_together_export_it_once(tmp_path, monkeypatch):
    from nodes.data import _onnx

    monkeypatch.setenv("FEDRAG_MODEL_CACHE", str(tmp_path))
    path = emb.model_path()
    exports = []
    real = _onnx.export
    monkeypatch.setattr(_onnx, "export", lambda *args: exports.append(args) or real(*args))
    with concurrent.futures.ThreadPoolExecutor(3) as pool:  # the lock is a file lock: threads contend as processes do
        files = set(pool.map(lambda _: _onnx.graph_file(path, emb.weights_digest(path)), range(3)))
    assert len(files) == 1 and len(exports) == 1
    graph = files.pop()
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".part"] == []
    graph.write_bytes(graph.read_bytes()[:1000])  # cut short, as by a full disk
    model = emb.Embedder(backend_name="onnx")
    assert len(exports) == 2 and graph.stat().st_size > 1_000_000
    assert np.abs(model.embed(["chest pain"])[0] - emb.shared().embed(["chest pain"])[0]).max() < 1e-6


def test_a_cache_folder_that_cannot_be_written_falls_back_to_the_temporary_folder(tmp_path, monkeypatch, caplog):
    from nodes.data import _onnx

    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("FEDRAG_MODEL_CACHE", str(blocker / "models"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    path = emb.model_path()
    graph = _onnx.graph_file(path, emb.weights_digest(path))
    assert graph.parent == tmp_path / "tmp" / f"fedrag-{os.getuid()}" and graph.stat().st_size > 1_000_000
    assert "cannot write" in caplog.text and str(blocker / "models") in caplog.text


def test_long_texts_are_embedded_a_few_at_a_time_and_short_ones_many(embedder, monkeypatch):
    texts = ["short sentence %d." % n for n in range(40)] + ["a long passage " * 50 + str(n) for n in range(10)]
    sizes, progress = [], []
    real = embedder._model
    monkeypatch.setattr(embedder, "_model", lambda batch: sizes.append(len(batch)) or real(batch))
    vectors = embedder.embed(texts, progress=lambda done, total: progress.append((done, total)))
    longest = len(texts[-1])
    per = emb.BATCH_CHARS // longest  # 7 passages of 751 characters
    assert 5 <= per < 10 and sizes == [embedder.batch_size, 8, per, 10 - per], sizes
    assert progress[-1] == (50, 50) and [done for done, _ in progress] == sorted({done for done, _ in progress})
    alone = np.stack([embedder.embed([text])[0] for text in (texts[0], texts[-1])])
    assert np.abs(vectors[[0, -1]] - alone).max() < 1e-5, "batched or alone, a text's vector is the same"
