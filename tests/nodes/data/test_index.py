"""The vector index (:mod:`nodes.data.index`): recall against exact search, cosine scores best first, ``k``
clamped, the same answers after saving and loading, and ties broken by position."""

from __future__ import annotations

import numpy as np

from nodes.data.index import VectorIndex, best_scores, exact_scores, exact_search


def unit_rows(n, dim, seed=0):
    rows = np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_recall_at_10_against_exact_search_is_at_least_099(monkeypatch):
    monkeypatch.setattr("nodes.data.index.FLAT_BELOW", 0)  # the graph, not every vector
    data, queries = unit_rows(5000, 64), unit_rows(100, 64, seed=1)
    index = VectorIndex(64)
    index.add(data, np.arange(len(data)))
    found = 0
    for q in queries:
        labels, _ = index.search(q, 10)
        exact, _ = exact_search(data, q, 10)
        found += len(set(labels.tolist()) & set(exact.tolist()))
    assert found / (10 * len(queries)) >= 0.99


def test_scores_are_cosine_similarities_best_first():
    data = unit_rows(50, 16)
    index = VectorIndex(16)
    index.add(data, np.arange(50))
    labels, scores = index.search(data[7], 5)
    assert labels[0] == 7 and abs(scores[0] - 1.0) < 1e-5
    assert np.all(np.diff(scores) <= 1e-7)
    assert np.allclose(scores, data[labels] @ data[7], atol=1e-5)


def test_k_is_clamped_to_what_exists():
    index = VectorIndex(8)
    assert len(index.search(unit_rows(1, 8)[0], 10)[0]) == 0
    index.add(unit_rows(3, 8), np.arange(3))
    labels, scores = index.search(unit_rows(1, 8, seed=3)[0], 10)
    assert sorted(labels.tolist()) == [0, 1, 2] and len(scores) == 3


def test_save_and_load_give_the_same_answers(tmp_path):
    data = unit_rows(300, 32)
    index = VectorIndex(32)
    index.add(data, np.arange(300) + 1000)
    index.save(tmp_path / "i.hnsw")
    loaded = VectorIndex.load(tmp_path / "i.hnsw", 32)
    q = unit_rows(1, 32, seed=9)[0]
    assert np.array_equal(index.search(q, 10)[0], loaded.search(q, 10)[0])
    assert len(loaded) == 300
    assert not (tmp_path / "i.hnsw.tmp").exists()


def test_exact_search_breaks_ties_by_position():
    data = np.array([[1, 0], [1, 0], [0, 1]], dtype=np.float32)
    positions, _ = exact_search(data, np.array([1, 0], dtype=np.float32), 2)
    assert positions.tolist() == [0, 1]


def test_a_passages_best_sentence_is_its_exactly_best_row_whatever_is_scored_with_it():
    rng = np.random.default_rng(7)

    def unit(rows):
        m = rng.normal(size=(rows, 384))
        return (m / np.linalg.norm(m, axis=1, keepdims=True)).astype(np.float32)

    for trial in range(50):
        vector = unit(1)[0]
        matrices = [None if rng.random() < 0.1 else unit(int(rng.integers(0, 9))) for _ in range(12)]
        if trial % 2:  # rows a float32 step apart: near-ties the float32 pre-selection must not break
            for m in matrices:
                if m is not None and len(m) > 1:
                    m[1] = m[0]
                    m[1, 0] = np.nextafter(m[0, 0], np.float32(2.0))
        want = [None if m is None or not len(m) else float(exact_scores(m, vector).max()) for m in matrices]
        assert best_scores(matrices, vector) == want
        assert [best_scores([m], vector)[0] for m in matrices] == want, "the same alone as together"


def test_an_exact_score_is_the_fixed_pairwise_sum_of_its_row_alone():
    def pairwise(row, vector):  # the tree written out: products in float64, zero-padded to a power of two, halves added
        values = [float(a) * float(b) for a, b in zip(row, vector)]
        values += [0.0] * ((1 << max(len(values) - 1, 0).bit_length()) - len(values))
        while len(values) > 1:
            half = len(values) // 2
            values = [values[i] + values[half + i] for i in range(half)]
        return values[0]

    rng = np.random.default_rng(3)
    for dims in (1, 3, 64, 100, 384):
        matrix = rng.normal(size=(9, dims)).astype(np.float32)
        vector = rng.normal(size=dims).astype(np.float32)
        want = [pairwise(row, vector) for row in matrix]
        assert exact_scores(matrix, vector).tolist() == want, dims
        assert [float(exact_scores(matrix[i:i + 1], vector)[0]) for i in range(9)] == want, "the same alone as together"
    assert exact_scores(np.zeros((0, 8), np.float32), np.ones(8, np.float32)).shape == (0,)


def test_an_index_of_few_vectors_finds_exactly_the_nearest_after_deletes_reuse_and_a_restart(tmp_path):
    """hnswlib's recall is 0.99, not 1: over MedQuAD one leaf of 1,200 passages left out the 14th nearest, and the
    federation then differed from the centralized index; on these tight clusters the graph misses a few of the 15
    nearest. An index of at most FLAT_BELOW vectors scores every one: it finds the exact top k — after deletes, slots
    reused (which cost the graph links) and a restart."""
    rng = np.random.default_rng(3)
    clusters = np.repeat(rng.normal(size=(40, 64)), 30, axis=0) + 0.05 * rng.normal(size=(1200, 64))
    data = (clusters / np.linalg.norm(clusters, axis=1, keepdims=True)).astype(np.float32)
    queries = unit_rows(200, 64, seed=103)
    index = VectorIndex(64)
    index.add(data, np.arange(len(data)))
    for q in queries:
        assert index.search(q, 15)[0].tolist() == exact_search(data, q, 15)[0].tolist()
    index.delete(range(0, 1200, 3))  # a third gone, then half of those slots reused by new vectors
    fresh = unit_rows(200, 64, seed=4)
    index.add(fresh, np.arange(5000, 5200))
    assert index.dead == 200 and index.reused == 200
    labels = np.array([n for n in range(1200) if n % 3] + list(range(5000, 5200)))
    rows = np.concatenate([data[labels[:-200]], fresh])
    index.save(tmp_path / "i.hnsw")
    loaded = VectorIndex.load(tmp_path / "i.hnsw", 64, dead=index.dead, reused=index.reused)
    for searched in (index, loaded):
        for q in queries:
            found, scores = searched.search(q, 15)
            exact, exact_scored = exact_search(rows, q, 15)
            assert found.tolist() == labels[exact].tolist()
            assert np.allclose(scores, exact_scored, atol=1e-4)
