"""The embedder: unit vectors, and a question asked again looked up rather than embedded again."""

from __future__ import annotations

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
