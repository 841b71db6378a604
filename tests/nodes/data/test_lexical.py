"""The lexical index: the one tokenizer, BM25, and a store's term counts kept in step with its records."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from nodes.data import lexical
from nodes.data.records import Record
from nodes.data.store import LeafStore
from tests.helpers.embedders import Fixed


def test_words_are_folded_stemmed_and_stop_words_dropped():
    assert lexical.terms("The patients' Radiating PAIN, radiates; Crohn’s disease") == \
        ["patient", "radiat", "pain", "radiat", "crohn", "diseas"]
    assert lexical.terms("ＣＯＶＩＤ-19 Ümlaut café") == ["covid", "19", "ümlaut", "café"]


@pytest.mark.parametrize("british, american", [
    ("Haemorrhage with anaemia and leukaemia", "hemorrhage with anemia and leukemia"),
    ("Paediatric orthopaedic and gynaecological care", "pediatric orthopedic and gynecological care"),
    ("Oedema, oesophageal varices, diarrhoea and dyspnoea", "edema, esophageal varices, diarrhea and dyspnea"),
    ("Coeliac disease in the foetus; caesarean section under anaesthesia",
     "celiac disease in the fetus; cesarean section under anesthesia"),
    ("Tumours, behaviour and favourable labour", "tumors, behavior and favorable labor"),
    ("Fibre per litre at the centre", "fiber per liter at the center"),
    ("Hospitalised twice; a hospitalisation to stabilise", "hospitalized twice; a hospitalization to stabilize"),
])
def test_british_and_american_spellings_are_one_term(british, american):
    assert lexical.terms(british) == lexical.terms(american)


def test_spelling_joins_no_two_words():
    words = "hour four your tour shoe toe does goes canoe poem aerobic academic genre acre diagnosis crisis disease"
    assert [lexical.american(word) for word in words.split()] == words.split()


def test_an_inflammation_is_not_the_organ_s_adjective():
    """Stemmed, "pancreatitis" was "pancreatic" and "hepatitis" "hepatic": a question about pancreatitis scored, and was
    mentioned by, every note of pancreatic insufficiency."""
    for inflamed, other in [("pancreatitis", "pancreatic"), ("hepatitis", "hepatic"), ("appendicitis", "appended"),
                            ("esophagitis", "esophageal"), ("sinusitis", "sinus"), ("arthritis", "arthritic")]:
        assert lexical.terms(inflamed) != lexical.terms(other), inflamed
    assert lexical.terms("Acute Pancreatitis, twice") == ["acut", "pancreatitis", "twice"]
    assert lexical.terms("pancreatic enzymes") == lexical.terms("pancreatic enzyme"), "every other word is stemmed"


@pytest.mark.parametrize("text", ['"heart failure"', "pain*", "chest NEAR pain", "-fever", "fever AND cough OR",
                                  "a ( b ) : c ^ d", "'; DROP TABLE terms; --", "", "?!", "of the and"])
def test_search_syntax_and_punctuation_are_only_text(text):
    found = lexical.terms(text)
    assert all(term.isalnum() for term in found)
    assert set(found) <= {"heart", "failur", "pain", "chest", "near", "fever", "cough", "b", "c", "d", "drop",
                          "tabl", "term"}


def test_bm25_by_hand():
    # two passages of 4 and 8 terms; "fever" in one of them, "cough" in both
    docs, total = 2, 12
    df = {"fever": 1, "cough": 2}
    idf_fever = math.log(1 + (2 - 1 + 0.5) / (1 + 0.5))
    idf_cough = math.log(1 + (2 - 2 + 0.5) / (2 + 0.5))
    average = total / docs
    expected = (idf_cough * 1 * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 4 / average))
                + idf_fever * 2 * 2.2 / (2 + 1.2 * (0.25 + 0.75 * 4 / average)))
    assert lexical.scorer(df, docs, total)({"fever": 2, "cough": 1}, 4) == pytest.approx(expected, rel=1e-12)
    assert lexical.scorer(df, docs, total)({"rash": 3}, 4) == 0.0
    assert lexical.scorer(df, 0, 0)({"fever": 1}, 4) == 0.0
    # a group of synonyms is one term: its members' frequencies added, the passages holding any of them its df
    group = lexical.group(["fever", "cough"])
    assert group == "cough|fever" and lexical.parts(group) == ["cough", "fever"]
    idf_group = math.log(1 + (2 - 2 + 0.5) / (2 + 0.5))
    assert lexical.scorer({group: 2}, docs, total)({"fever": 2, "cough": 1}, 4) == \
        pytest.approx(idf_group * 3 * 2.2 / (3 + 1.2 * (0.25 + 0.75 * 4 / average)), rel=1e-12)
    assert lexical.frequency({"fever": 2, "cough": 1}, group) == 3 and lexical.frequency({"fever": 2}, "cough") == 0


@pytest.mark.parametrize("spread", [1, 1_000_003])
def test_a_leaf_scores_all_its_passages_at_once_to_the_same_bits(spread):
    """lexical.scores (numpy, every passage at once) gives what scorer (one passage at a time, as the centralized
    baseline scores) gives, bit for bit: federated = centralized depends on it. Labels few enough are added up in an
    array of them all, labels far apart by their places among those held (``spread``): the same bits either way."""
    rng = np.random.default_rng(7)
    terms = ["a", "b", "c", "d", "e"]
    docs, passages = 500, 300
    lengths = rng.integers(1, 400, passages)
    held = {term: sorted(rng.choice(passages, int(rng.integers(0, 120)), replace=False).tolist()) for term in terms}
    tf = {term: {label: int(rng.integers(1, 9)) for label in labels} for term, labels in held.items()}
    df = {term: len(held[term]) + int(rng.integers(0, 50)) for term in terms} | {"unseen": 0}
    columns = {term: (np.asarray(labels, dtype=np.int64) * spread, np.asarray([tf[term][n] for n in labels], dtype=np.float64),
                      np.asarray([lengths[n] for n in labels], dtype=np.float64)) for term, labels in held.items()}
    labels, scores = lexical.scores(df, docs, int(lengths.sum()), columns)
    one = lexical.scorer(df, docs, int(lengths.sum()))
    expected = {n * spread: one({t: tf[t][n] for t in terms if n in tf[t]}, int(lengths[n]))
                for n in sorted(set().union(*held.values()))}
    assert labels.tolist() == list(expected)
    assert scores.tolist() == list(expected.values()), "the same floats, not merely close ones"
    assert lexical.scores(df, 0, 0, columns)[1].tolist() == [0.0] * len(expected)


def test_a_store_counts_terms_and_follows_upserts_and_deletes(tmp_path):
    store = LeafStore.open(tmp_path, "fixed", 4)
    try:
        store.apply([Record("a", "Fever and cough for three days."), Record("b", "Cough, no fever. Chest pain."),
                     Record("c", "Knee pain after a fall.")], [], Fixed)
        docs, length, df, mentions, _ = store.term_stats(["fever", "cough", "pain"], [[["chest", "pain"]], [["gout"]]])
        assert (docs, df, mentions) == (3, {"fever": 2, "cough": 2, "pain": 2}, [1, 0])
        held = {int(label): n for found, _, lengths in store.term_columns(["fever", "cough", "pain", "knee"]).values()
                for label, n in zip(found, lengths)}
        assert length == sum(held.values())
        store.apply([Record("c", "Gout flare in the left big toe.")], ["a"], Fixed)
        docs, _, df, mentions, _ = store.term_stats(["fever", "gout"], [[["gout"]]])
        assert (docs, df, mentions) == (2, {"fever": 1, "gout": 1}, [1])
        visible = store.term_stats(["gout", "fever"], [[["gout"]]],
                                   visible=lambda metadata: metadata["record_id"] != "c")
        assert visible[0] == 1 and visible[2] == {"gout": 0, "fever": 1} and visible[3] == [0], \
            "what a caller may not see is not counted"
    finally:
        store.close()


def test_a_store_counts_the_passages_about_a_patient_that_a_caller_may_see(tmp_path):
    """What tells records of patients, which a name may pick from, from reference texts (:func:`nodes.names.held_nowhere`)."""
    store = LeafStore.open(tmp_path, "fixed", 4)
    try:
        store.apply([Record("a", "Gout flare.", "Ana Ruiz"), Record("b", "Knee pain.", "Bo Chen"),
                     Record("c", "Gout is a form of arthritis.")], [], Fixed)
        assert store.term_stats(["gout"], [])[4] == 2
        assert store.term_stats(["gout"], [], visible=lambda metadata: metadata["record_id"] != "a")[4] == 1
        store.apply([], ["b"], Fixed)
        assert store.term_stats(["gout"], [])[4] == 1, "a write is counted at once"
    finally:
        store.close()


def test_a_store_built_before_the_index_is_indexed_when_it_opens(tmp_path):
    store = LeafStore.open(tmp_path, "fixed", 4)
    store.apply([Record("a", "Fever and cough."), Record("b", "Chest pain.")], [], Fixed)
    with store._transaction() as db:  # as a store written before the lexical index existed
        db.execute("DELETE FROM terms")
        db.execute("DELETE FROM lengths")
        db.execute("DELETE FROM settings WHERE key = 'lexical'")
    store.save_index()
    store.close()
    again = LeafStore.open(tmp_path, "fixed", 4)
    try:
        assert again.term_stats(["cough", "pain"], [])[2] == {"cough": 1, "pain": 1}
        assert json.loads(json.dumps(again._settings()))["lexical"] == str(lexical.VERSION)
    finally:
        again.close()
