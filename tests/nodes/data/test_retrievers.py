"""A leaf's retriever: ranking, name filters, visibility, collapsing copies and ties (no broker needed)."""

from __future__ import annotations

import json

import pytest

from bus.messages import Filters, Query
from nodes.data import lexical
from nodes.data.retrievers import PassageRetriever, make
from nodes.data.sync import DataSource, open_leaf

HISTORY = "PAST MEDICAL HISTORY: hypertension, type 2 diabetes, chronic kidney disease."
RECORDS = [
    {"id": "n1", "text": "CHIEF COMPLAINT: chest pain radiating to the left arm.\n\n" + HISTORY, "patient": "Ana Ruiz"},
    {"id": "n2", "text": "CHIEF COMPLAINT: follow-up of chest pain.\n\n" + HISTORY, "patient": "Ana Ruiz"},
    {"id": "n3", "text": "CHIEF COMPLAINT: knee fracture after a fall.\n\n" + HISTORY, "patient": "Bo Chen"},
    {"id": "n4", "text": "CHIEF COMPLAINT: chest pressure on exertion.", "patient": "Grace Okafor"},
]


@pytest.fixture
def leaf(tmp_path, embedder):
    data = tmp_path / "leaf.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    # passages of at most 100 characters: each section is a passage of its own
    store = open_leaf(tmp_path / "s", DataSource(data), embedder.fingerprint, lambda: embedder, max_chars=100,
                      verbose=False)[0]
    yield PassageRetriever(store, "site.cardiology")
    store.close()


def query(embedder, text, **fields):
    return Query.with_vector(embedder.embed_one(text), question=text, model=embedder.fingerprint, **fields)


def search(leaf, q, visible=lambda metadata: True):
    """The dense hits, the names the leaf knows, and whether it filtered."""
    return leaf.search(q, visible)[:3]


def test_hits_follow_the_total_order(leaf, embedder):
    hits, known, filtered = search(leaf, query(embedder, "chest pain", k=3, collapse=False))
    assert "chest pain" in hits[0].text and len(hits) == 3
    assert [h.order_key() for h in hits] == sorted(h.order_key() for h in hits)
    assert known == [] and not filtered


def test_copies_collapse_into_the_first_and_list_the_others(leaf, embedder):
    q = "history of hypertension and diabetes"
    plain, _, _ = search(leaf, query(embedder, q, k=10, collapse=False))
    assert len(plain) == 7, "k is clamped to the 7 passages there are"
    collapsed, _, _ = search(leaf, query(embedder, q, k=10))
    ana_history = [h for h in collapsed if h.patient == "Ana Ruiz" and h.text.endswith(HISTORY)]
    assert len(ana_history) == 1, "Ana Ruiz's copied history counts once"
    kept = ana_history[0]
    copies = [h for h in plain if h.digest == kept.digest and h.id != kept.id]
    assert [(r.path, r.id) for r in kept.duplicates] == [(h.path, h.id) for h in copies]
    assert kept.order_key() < copies[0].order_key(), "the first in the order is kept"
    assert any(h.patient == "Bo Chen" and h.text.endswith(HISTORY) for h in collapsed), "another patient's copy stays"
    assert len(collapsed) == 6


def test_a_known_candidate_restricts_and_an_unknown_one_is_ignored(leaf, embedder):
    q = "What is Grace Okafor's chief complaint?"
    hits, known, filtered = search(leaf, query(embedder, q, filters=Filters(candidates=["Grace Okafor", "Chief Nobody"])))
    assert known == ["Grace Okafor"] and filtered
    assert {h.patient for h in hits} == {"Grace Okafor"} and len(hits) == 1
    hits, known, filtered = search(leaf, query(embedder, q, filters=Filters(candidates=["Chief Nobody"])))
    assert known == [] and not filtered and len(hits) > 1


def test_a_confident_name_nobody_holds_finds_nothing(leaf, embedder):
    hits, known, filtered = search(leaf, query(embedder, "chest pain", filters=Filters(patients=["Zed Unknown"])))
    assert hits == [] and known == [] and filtered


def test_hidden_passages_are_dropped_and_the_rest_still_fills_k(leaf, embedder):
    hits, _, _ = search(leaf, query(embedder, "chest pain", k=5, fetch_k=1, collapse=False),
                        visible=lambda metadata: metadata["record_id"] != "n1")
    assert len(hits) == 5 and "n1" not in {h.metadata["record_id"] for h in hits}


def test_a_hybrid_search_judges_each_passage_once_however_many_batches_and_lists_hold_it(leaf, embedder):
    from bus.messages import CollectionStats

    judged = []

    def visible(metadata):
        judged.append(metadata["record_id"])
        return metadata["record_id"] != "n2"

    terms = ["chest", "pain", "histori"]
    stats = CollectionStats(docs=7, length=40, df={"chest": 3, "pain": 2, "histori": 3})
    # fetch_k 1 makes the dense list grow in batches over passages it has already judged
    found = leaf.search(query(embedder, "chest pain history", k=4, fetch_k=1, collapse=False, mode="hybrid",
                              terms=terms, stats=stats), visible)
    assert found.hits and found.lexical
    assert "n2" not in {hit.metadata["record_id"] for hit in [*found.hits, *found.lexical]}
    assert len(judged) <= 7 and "n2" in judged, "seven passages, each judged once"
    both = {hit.id for hit in found.hits} & {hit.id for hit in found.lexical}
    assert both, "a passage in both lists"
    for passage in both:
        dense = next(hit for hit in found.hits if hit.id == passage)
        lexical = next(hit for hit in found.lexical if hit.id == passage)
        assert (dense.score, lexical.score) == (dense.similarity, lexical.bm25) and dense.bm25 == lexical.bm25


def test_every_passage_tied_with_the_kth_is_returned(tmp_path, embedder):
    same = "Patient reports no known drug allergies."
    data = tmp_path / "ties.jsonl"
    data.write_text("".join(json.dumps({"id": f"r{i:02d}", "text": same}) + "\n" for i in range(12)))
    store = open_leaf(tmp_path / "s", DataSource(data), embedder.fingerprint, lambda: embedder, verbose=False)[0]
    hits = PassageRetriever(store, "site.x").search(query(embedder, "allergies", k=3, fetch_k=3), lambda m: True).hits
    scores = {h.score for h in hits}
    # identical texts embedded in one batch get identical vectors, so all twelve tie
    assert len(scores) == 1 and len(hits) == 12
    assert [h.id for h in hits] == sorted(h.id for h in hits), "ties are ordered by the stable key"
    store.close()


def test_the_kind_of_retriever_comes_from_the_table_and_an_unknown_one_is_named(tmp_path, embedder):
    from bus.errors import SpecError

    data = tmp_path / "one.jsonl"
    data.write_text(json.dumps(RECORDS[0]) + "\n")
    store = open_leaf(tmp_path / "s", DataSource(data), embedder.fingerprint, lambda: embedder, verbose=False)[0]
    try:
        assert isinstance(make("passages", store, "site.x"), PassageRetriever)
        with pytest.raises(SpecError, match="unknown retriever 'vectors' \\(there are: passages\\)"):
            make("vectors", store, "site.x")
    finally:
        store.close()


def test_a_hybrid_hit_carries_its_best_sentence_as_its_stored_vectors_score_it(leaf, embedder):
    import numpy as np

    from bus.messages import CollectionStats
    from nodes.data.index import exact_scores
    from summarizer.sentences import quotable

    text = "history of chest pain"
    stats = CollectionStats(docs=7, length=40, df={"chest": 3, "pain": 2, "histori": 3})
    asked = query(embedder, text, k=4, collapse=False, mode="hybrid", terms=["chest", "pain", "histori"], stats=stats)
    found = leaf.search(asked, lambda metadata: True)
    for hit in [*found.hits, *found.lexical]:
        said = quotable(hit.text, hit.patient)
        vectors = leaf.store.sentence_vectors(said)
        assert vectors is not None and len(vectors) == len(said) > 0
        assert hit.sentence == float(exact_scores(vectors, asked.vector()).max()), hit.id
    assert all(hit.sentence is None for hit in leaf.search(asked.model_copy(update={"mode": "dense"}),
                                                           lambda metadata: True).hits), "only a hybrid question weighs"
    assert np.isfinite([hit.sentence for hit in found.hits]).all()


def test_the_lexical_list_is_lexical_k_deep_if_the_query_says_and_k_deep_otherwise(leaf, embedder):
    """A hybrid question fuses a shallower lexical list (``lexical_k``): the leaf reads and sends no more of it."""
    asked = query(embedder, "chest pain history", k=5, mode="hybrid", collapse=False,
                  terms=lexical.terms("chest pain history"))
    asked = asked.model_copy(update={"stats": leaf.stats(asked, None)})  # six passages hold a term
    assert len(leaf.search(asked, lambda metadata: True).lexical) == 5
    shallow = leaf.search(asked.model_copy(update={"lexical_k": 2}), lambda metadata: True)
    assert [hit.bm25 for hit in shallow.lexical] == [hit.bm25 for hit in leaf.search(asked, lambda m: True).lexical][:2]
    assert len(shallow.hits) >= 5, "the dense list keeps its k (and what ties with the k-th)"


def test_a_lexical_list_reads_every_passage_tied_with_its_last_in_its_first_batch(leaf, embedder, monkeypatch):
    """Ana Ruiz's two notes hold "hypertension" in the same passage: BM25 ties them, the total order picks the first
    by passage id, and the leaf reads both with the dense list's first batch instead of in growing batches."""
    asked = query(embedder, "hypertension", k=1, fetch_k=1, mode="hybrid", collapse=False, lexical_k=1,
                  terms=lexical.terms("hypertension"))
    asked = asked.model_copy(update={"stats": leaf.stats(asked, None)})
    reads = []
    scored = leaf.store.scored
    monkeypatch.setattr(leaf.store, "scored", lambda labels, vector: reads.append(list(labels)) or scored(labels, vector))
    found = leaf.search(asked, lambda metadata: True)
    tied = leaf.search(asked.model_copy(update={"k": 3, "lexical_k": 3}), lambda m: True).lexical[:2]
    assert tied[0].bm25 == tied[1].bm25 and tied[0].patient == tied[1].patient == "Ana Ruiz"
    assert [hit.id for hit in found.lexical] == [min(hit.id for hit in tied)]
    assert {hit.id for hit in tied} <= {passage.id for passage in leaf.store.passages(reads[0]).values()}


def test_a_record_with_the_longest_id_cut_into_passages_is_found(tmp_path, embedder):
    """Its passages' ids are the record's and "#n": a hit, a reference and a citation hold them."""
    from bus.messages import MAX_RECORD_ID, PassageRef

    long = "r" * MAX_RECORD_ID
    text = ("CHIEF COMPLAINT: chest pain radiating to the left arm for three days. " * 2 + "\n\n") * 12
    data = tmp_path / "leaf.jsonl"
    data.write_text(json.dumps({"id": long, "text": text, "patient": "Ana Ruiz"}) + "\n")
    store = open_leaf(tmp_path / "s", DataSource(data), embedder.fingerprint, lambda: embedder, max_chars=100,
                      verbose=False)[0]
    try:
        hits = search(PassageRetriever(store, "site.cardiology"), query(embedder, "chest pain", k=12, collapse=False))[0]
        assert len(hits) >= 12 and all(hit.id.startswith(long + "#") for hit in hits)  # and what ties with the 12th
        assert PassageRef(path="site.cardiology", id=max((hit.id for hit in hits), key=len))
    finally:
        store.close()
