"""The embedder: unit vectors, and a question asked again looked up rather than embedded again."""

from __future__ import annotations

import numpy as np
import pytest

from nodes.data import embedder as emb


def test_a_question_asked_again_is_looked_up_with_the_very_vector_it_had(embedder, monkeypatch):
    text = "Which patients take warfarin for atrial fibrillation?"
    first = embedder.embed_one(text)
    assert np.isclose(np.linalg.norm(first), 1.0, atol=1e-5)
    assert np.array_equal(first, embedder.embed([text])[0]), "alone, a text embeds the same as in a batch of one"
    calls = []
    monkeypatch.setattr(embedder, "embed", lambda texts: calls.append(texts) or np.zeros((len(texts), emb.DIM), "f4"))
    assert embedder.embed_one(text) is first and calls == []
    with pytest.raises(ValueError):
        first[0] = 2.0  # shared by every asker: nobody may change it
    embedder.embed_one("another question")
    assert calls == [["another question"]]


def test_the_remembered_questions_are_bounded(embedder, monkeypatch):
    monkeypatch.setattr(emb, "REMEMBERED", 4)
    monkeypatch.setattr(embedder, "embed", lambda texts: np.ones((len(texts), emb.DIM), "f4"))
    for n in range(10):
        embedder.embed_one(f"question {n}")
    assert len(embedder._remembered) == 4 and "question 9" in embedder._remembered
