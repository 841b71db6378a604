"""A leaf's store (:mod:`nodes.data.store`, its writes and its sync from a data file): built once and reused
without embedding, only new text embedded, crashes replayed, updates and deletes at once and after a
restart, dead slots compacted, exact scores, and bad rows skipped and reported."""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from dataclasses import replace

import numpy as np
import pytest

from bus.errors import StoreError
from nodes.data import lexical
from nodes.data import store as store_module
from nodes.data.records import Record
from nodes.data.store import LeafStore
from nodes.data.sync import DataSource, open_leaf
from summarizer.sentences import quotable

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


def opened(tmp_path, data, factory, fingerprint=None):
    if fingerprint is None:
        fingerprint = factory.embedder.fingerprint if isinstance(factory, CountingFactory) else factory().fingerprint
    return open_leaf(tmp_path / "s", DataSource(data), fingerprint, factory, verbose=False)


def texts(store, vector, k=10):
    labels, _ = store.index.search(vector, k)
    return {p.record_id: p.text for p in store.passages(labels).values()}


@contextmanager
def held_by_a_write(store):
    """``with held_by_a_write(store):`` — another thread holds the store's lock, as a write does, until the block ends."""
    held, release = threading.Event(), threading.Event()

    def writer():
        with store._lock:
            held.set()
            release.wait(10)

    thread = threading.Thread(target=writer)
    thread.start()
    held.wait(10)
    try:
        yield
    finally:
        release.set()
        thread.join()


def test_build_then_reuse_without_embedding(tmp_path, data, embedder):
    factory = CountingFactory(embedder)
    store, outcome, report = opened(tmp_path, data, factory)
    assert outcome.added == 3 and outcome.embedded == len(store) and report.accepted == 3
    store.close()
    factory.calls = 0
    again, outcome, _ = opened(tmp_path, data, factory)
    assert outcome is None and len(again) == len(store) and factory.calls == 0, "a restart embeds nothing"


def test_a_changed_loader_reads_the_unchanged_file_again(tmp_path, data, embedder, monkeypatch):
    """A loader that now reads more of a file (Synthea's allergies) must not leave a leaf serving what the old one read."""
    from nodes.data import loaders

    factory = CountingFactory(embedder)
    store, _, _ = opened(tmp_path, data, factory)
    store.close()
    old = loaders.FORMATS["fedrag"]

    def newer(path, report):  # the same file read by other code: this module's
        for where, record in old(path, report):
            yield where, replace(record, text=record.text + " Allergies: penicillin.") if record.id == "n1" else record

    monkeypatch.setitem(loaders.FORMATS, "fedrag", newer)
    store, outcome, _ = opened(tmp_path, data, factory)
    assert (outcome.updated, outcome.unchanged) == (1, 2), "the record the new loader reads otherwise, and only it"
    store.close()
    again, outcome, _ = opened(tmp_path, data, factory)
    assert outcome is None, "read once per loader"


def test_a_changed_file_embeds_only_new_text(tmp_path, data, embedder):
    factory = CountingFactory(embedder)
    store, first, _ = opened(tmp_path, data, factory)
    store.close()
    with open(data, "a") as fh:
        fh.write(json.dumps({"id": "n4", "text": "Seizure at home.", "patient": "Cy Diaz"}) + "\n")
    store, outcome, _ = opened(tmp_path, data, factory)
    assert (outcome.added, outcome.unchanged, outcome.embedded) == (1, 3, 1)
    assert store.records() == 4
    data.write_text("".join(json.dumps(r) + "\n" for r in RECORDS[:2]))
    store.close()
    store, outcome, _ = opened(tmp_path, data, factory)
    assert outcome.deleted == 2 and store.records() == 2, "records gone from the file leave the leaf"


def test_another_model_cuts_and_embeds_again_and_a_wrong_embedder_is_refused(tmp_path, data, embedder):
    factory = CountingFactory(embedder)
    opened(tmp_path, data, factory)[0].close()
    with pytest.raises(StoreError, match="differs"):
        opened(tmp_path, data, factory, "another-model:384:0")


def test_corrupt_or_missing_index_is_rebuilt_from_sqlite_without_embedding(tmp_path, data, embedder):
    factory = CountingFactory(embedder)
    store, _, _ = opened(tmp_path, data, factory)
    count = len(store)
    store.close()
    (tmp_path / "s" / "index.hnsw").write_bytes(b"\x00garbage")
    factory.calls = 0
    store, _, _ = opened(tmp_path, data, factory)
    assert len(store) == count and factory.calls == 0
    store.close()
    (tmp_path / "s" / "index.json").unlink()
    store = LeafStore.existing(tmp_path / "s")
    assert len(store) == count


def test_changes_after_the_last_save_are_replayed(tmp_path, data, embedder):
    store, _, _ = opened(tmp_path, data, CountingFactory(embedder))
    store.apply([Record("n9", "Known penicillin allergy with hives.", "Ana Ruiz")], ["n2"], lambda: embedder)
    # no close(), no save: as if the process was killed right after the commit
    assert json.loads((tmp_path / "s" / "index.json").read_text())["seq"] < store._applied
    again = LeafStore.existing(tmp_path / "s")
    q = embedder.embed_one("penicillin allergy")
    found = texts(again, q)
    assert "n9" in found and "n2" not in found and len(again) == len(store)


def test_update_and_delete_take_effect_at_once_and_after_a_restart(tmp_path, data, embedder):
    store, _, _ = opened(tmp_path, data, CountingFactory(embedder))
    q = embedder.embed_one("warfarin dosing for atrial fibrillation")
    outcome = store.apply([Record("n1", "Started warfarin for atrial fibrillation, INR goal 2-3.", "Ana Ruiz")],
                          ["n3"], lambda: embedder)
    assert (outcome.updated, outcome.deleted) == (1, 1)
    found = texts(store, q)
    assert "warfarin" in found["n1"] and "n3" not in found
    assert all("catheterization" not in p.text for p in store.passages(store.labels()).values())
    store.close()
    again = LeafStore.existing(tmp_path / "s")
    found = texts(again, q)
    assert "warfarin" in found["n1"] and "n3" not in found and again.records() == 2


def test_the_same_record_twice_changes_nothing(tmp_path, data, embedder):
    store, _, _ = opened(tmp_path, data, CountingFactory(embedder))
    record = Record("n7", "Asthma exacerbation treated with nebulizers.", "Bo Chen", "2024-01-02", {"dept": "er"})
    first = store.apply([record], [], lambda: embedder)
    labels = store.labels()
    again = store.apply([record], ["never-there"], lambda: embedder)
    assert first.added == 1 and again.unchanged == 1 and again.absent == 1 and store.labels() == labels


def test_dead_and_reused_slots_are_compacted(tmp_path, data, embedder, monkeypatch):
    """A record updated gives its passages' slots to the new ones; a slot reused keeps links of what it held, so an
    index whose every vector was replaced is rebuilt, as one with too many slots deleted is."""
    monkeypatch.setattr(store_module, "MIN_DEAD", 4)
    store, _, _ = opened(tmp_path, data, CountingFactory(embedder))
    for round_ in range(4):
        store.apply([Record(r["id"], f"{r['text']} Visit {round_}.", r["patient"]) for r in RECORDS], [],
                    lambda: embedder)
        assert store.index.dead + store.index.reused <= 4, "12 slots reused over the rounds, rebuilt past 4"
    assert len(store) == 3 and store.index.search(embedder.embed_one("chest pain"), 3)[0].size == 3
    store.apply([Record(RECORDS[0]["id"], "Seen again for chest pain.", RECORDS[0]["patient"])], [], lambda: embedder)
    reused = store.index.reused
    store.save_index()
    store.close()
    assert reused and LeafStore.existing(tmp_path / "s").index.reused == reused, "the count outlives a restart"


def test_missing_data_file_is_a_clear_error(tmp_path, embedder):
    with pytest.raises(StoreError, match="does not exist"):
        opened(tmp_path, tmp_path / "nope.jsonl", lambda: embedder)


def test_scores_are_exact_and_patients_are_known_by_key(tmp_path, data, embedder):
    store, _, _ = opened(tmp_path, data, lambda: embedder)
    q = embedder.embed_one("chest pain")
    passages, matrix = store.all_vectors()
    labels = store.labels()
    scored = store.scored(labels, q)
    assert [label for label, _, _, _ in scored] == labels and [p.id for _, p, _, _ in scored] == [p.id for p in passages]
    assert np.allclose([s for _, _, s, _ in scored], matrix @ q, atol=1e-6)
    assert np.array_equal(np.stack([v for _, _, _, v in scored]), matrix), "each passage comes with its stored vector"
    assert [s for _, _, s, _ in store.scored([labels[1]], q)] == [scored[1][2]], "a score does not depend on its batch"
    assert store.known_patients(["bo  CHEN", "Nobody Here", "ana ruiz"]) == ["bo  CHEN", "ana ruiz"]
    assert {p.record_id for p in store.passages(store.labels_of_patients(["Bo Chen"])).values()} == {"n2", "n3"}


def test_a_passage_read_once_is_kept_and_a_change_is_seen_at_once(tmp_path, data, embedder):
    store, _, _ = opened(tmp_path, data, lambda: embedder)
    q = embedder.embed_one("chest pain")
    before = {p.record_id: p.text for _, p, _, _ in store.scored(store.labels(), q)}  # every passage now kept
    store._db.execute("UPDATE passages SET text = 'tampered'")  # behind the store's back: a kept passage is not read again
    assert {p.record_id: p.text for _, p, _, _ in store.scored(store.labels(), q)} == before
    gone = store.labels_of_patients(["Ana Ruiz"])
    assert store.known_patients(["ana ruiz", "Cy Diaz"]) == ["ana ruiz"] == store.known_patients(["ana ruiz", "Cy Diaz"])
    store.apply([Record("n3", "CHIEF COMPLAINT: palpitations.\n\nPLAN: Holter monitor.", "Bo Chen"),
                 Record("n4", "CHIEF COMPLAINT: cough.", "Cy Diaz")], ["n1"], lambda: embedder)
    assert not set(gone) & set(store._cached), "a deleted passage is let go"
    assert store.known_patients(["ana ruiz", "Cy Diaz"]) == ["Cy Diaz"], "whom it holds, once changed, at once"
    labels, _ = store.index.search(q, 10)
    found = {p.record_id: p.text for _, p, _, _ in store.scored(labels, q)}
    assert "n1" not in found and "palpitations" in found["n3"], "the new text, at once"


def test_the_lexical_index_kept_in_memory_sees_a_change_at_once(tmp_path, data, embedder):
    """Postings, lengths and metadata read once are kept (the next question's words are not read again), and a
    write is seen by the next search as it is by the vector index."""
    store, _, _ = opened(tmp_path, data, lambda: embedder)
    chest = store.term_columns(["chest"])["chest"][0].tolist()
    assert {store.passages([label])[label].record_id for label in chest} == {"n1", "n3"}
    docs, _, df, _, _ = store.term_stats(["chest", "holter"], [], visible=lambda metadata: metadata["record_id"] != "n3")
    assert (docs, df) == (2, {"chest": 1, "holter": 0})
    store._db.execute("DELETE FROM terms WHERE term = 'chest'")  # behind the store's back: kept postings are not read again
    assert store.term_columns(["chest"])["chest"][0].tolist() == chest
    store._db.execute("INSERT INTO terms SELECT 'chest', label, tf FROM terms WHERE term = 'pain'")  # and put back
    store.apply([Record("n3", "CHIEF COMPLAINT: palpitations.\n\nPLAN: Holter monitor.", "Bo Chen"),
                 Record("n4", "Chest wall tenderness on palpation.", "Cy Diaz")], ["n1"], lambda: embedder)
    now = {int(label) for found, _, _ in store.term_columns(["chest", "holter"]).values() for label in found}
    assert sorted(store.passages([label])[label].record_id for label in now) == ["n3", "n4"], \
        "the deleted and the changed passages are gone, the new ones there"
    docs, _, df, _, _ = store.term_stats(["chest", "holter"], [], visible=lambda metadata: metadata["record_id"] != "n3")
    assert (docs, df) == (2, {"chest": 1, "holter": 0}), "n2 and n4 visible; n4 holds 'chest', n3's 'holter' hidden"


def test_a_group_of_synonyms_is_counted_as_one_term_its_members_added(tmp_path, data, embedder):
    """A question's group of one-word synonyms (:func:`nodes.data.lexical.group`) is one term to a store: the passages
    holding any member are its document frequency, and a passage holds it as often as it holds its members in all —
    as the centralized baseline counts it (:func:`nodes.data.lexical.frequency`); a write is counted in it at once."""
    store, _, _ = opened(tmp_path, data, lambda: embedder)
    either = lexical.group(["pressur", "chest"])
    assert store.term_stats([either, "chest"], [])[2] == {either: 2, "chest": 2}, "n1 and n3, each once"
    labels, tf, _ = store.term_columns([either])[either]
    held = {store.passages([label])[label].record_id: f for label, f in zip(labels.tolist(), tf.tolist())}
    assert held == {"n1": 1.0, "n3": 2.0}
    assert {r["id"]: lexical.frequency(lexical.counts(r["text"])[0], either) for r in RECORDS} == {"n1": 1, "n2": 0, "n3": 2}
    store.apply([Record("n4", "Pressure headache, worse lying down.", "Cy Diaz")], [], lambda: embedder)
    assert store.term_stats_at_hand([either], []) is None, "a write forgets the group with its members"
    assert store.term_stats([either], [])[2] == {either: 3}
    assert store.term_stats_at_hand([either], []) == store.term_stats([either], []), "then held as a term is"


def test_an_abbreviation_in_capitals_is_counted_where_a_passage_writes_it_in_capitals(tmp_path, data, embedder):
    """A leaf counts a concept asked as "AIDS" (:func:`nodes.data.lexical.capitals`) in the passages that write it in
    capitals, not in every one holding its term ("hearing aids"): the counts that tell a question no record answers."""
    store, _, _ = opened(tmp_path, data, lambda: embedder)
    store.apply([Record("n4", "He forgot his hearing aids at home.", "Cy Diaz"),
                 Record("n5", "History of AIDS, on HAART.", "Di Eze")], [], lambda: embedder)
    aids = [[["AIDS"]]]
    assert store.term_stats(["aid"], aids)[2:4] == ({"aid": 2}, [1]), "both hold the term, one writes AIDS"
    assert store.term_stats(["aid"], [[["aid"]]])[3] == [2], "asked in small letters: either"
    assert store.term_stats_at_hand(["aid"], aids) is None, "the text is read for it, off the event loop"


def test_counts_are_at_hand_only_from_memory_without_waiting_and_as_the_store_counts_them(tmp_path, data, embedder):
    """What a leaf counts on its event loop (:meth:`LeafStore.term_stats_at_hand`): nothing until the words were
    read once, then the same counts as :meth:`LeafStore.term_stats`; nothing while a write holds the store, or after
    one until the words are read again, which then counts the write; nothing that would read passages' text."""
    store, _, _ = opened(tmp_path, data, lambda: embedder)
    terms, concepts = ["chest", "pain"], [[["chest", "pain"]], [["stress", "test"], ["holter"]]]
    assert store.term_stats_at_hand(terms, concepts) is None, "nothing read yet"
    counted = store.term_stats(terms, concepts)
    assert counted[0] == 3 and counted[2] == {"chest": 2, "pain": 1} and counted[3] == [1, 1]
    assert store.term_stats_at_hand(terms, concepts) == counted

    with held_by_a_write(store):
        assert store.term_stats_at_hand(terms, concepts) is None, "a write holds the store: not waited for"

    store.apply([Record("n4", "Chest pain at rest.", "Cy Diaz")], [], lambda: embedder)
    assert store.term_stats_at_hand(terms, concepts) is None, "a write forgets what was held"
    recounted = store.term_stats(terms, concepts)
    assert recounted[0] == 4 and recounted[2] == {"chest": 3, "pain": 2} and recounted[3] == [2, 1]
    assert store.term_stats_at_hand(terms, concepts) == recounted
    staged = [[["ckd", "stage", "4"]]]
    store.term_stats(["ckd"], staged)
    assert store.term_stats_at_hand(["ckd"], staged) is None, "a specifier is read in the passages' text"


def test_sentences_are_at_hand_once_read_and_while_no_write_holds_the_store(tmp_path, data, embedder):
    """What a router weighs on its event loop (:meth:`LeafStore.sentence_rows_at_hand`): nothing until the passages'
    sentences were read once, then the same rows as :meth:`LeafStore.sentence_rows`; nothing while a write holds the
    store, which is not waited for."""
    store, _, _ = opened(tmp_path, data, lambda: embedder)
    passages = [(passage.text, passage.patient) for passage in store.passages(store.labels()).values()][:3]
    assert store.sentence_rows_at_hand(passages) is None, "nothing read yet"
    rows = store.sentence_rows(passages)
    held = store.sentence_rows_at_hand(passages)
    assert held is not None and len(held) == 3 and all((a is None and b is None) or np.array_equal(a, b)
                                                        for a, b in zip(held, rows))
    assert any(row is not None for row in held)

    with held_by_a_write(store):
        assert store.sentence_rows_at_hand(passages) is None, "a write holds the store: not waited for"
    assert store.sentence_rows_at_hand(passages) is not None


def test_bad_rows_are_skipped_and_reported_and_a_broken_file_keeps_the_stored_records(tmp_path, data, embedder):
    with open(data, "a") as fh:
        fh.write("{broken\n")
        fh.write(json.dumps({"id": "n1", "text": "duplicate"}) + "\n")
        fh.write(json.dumps({"id": "n5", "text": "   "}) + "\n")
    store, outcome, report = opened(tmp_path, data, lambda: embedder)
    assert outcome.added == 3 and report.skipped_count == 3
    where = [s.where for s in report.skipped]
    assert where == [f"{data}:4", f"{data}:5", f"{data}:6"], report.summary()
    store.close()
    data.unlink()
    store, _, _ = opened(tmp_path, data, lambda: embedder)
    assert store.records() == 3, "data that cannot be read leaves the stored records serving"


def stored_sentences(store) -> int:
    return store._db.execute("SELECT COUNT(*) FROM sentences").fetchone()[0]


def test_the_sentences_an_answer_weighs_are_embedded_once_at_ingestion(tmp_path, data, embedder):
    store, outcome, _ = opened(tmp_path, data, CountingFactory(embedder))
    passages = store.passages(store.labels()).values()
    said = {passage.id: quotable(passage.text, passage.patient) for passage in passages}
    assert all(said.values()) and outcome.sentences == len({s for ss in said.values() for s in ss})
    for passage_id, sentences in said.items():
        vectors = store.sentence_vectors(sentences)
        assert vectors is not None and vectors.shape == (len(sentences), store.index.dim), passage_id
        assert np.allclose(vectors, embedder.embed(sentences), atol=1e-5), "the model's own vectors, one per sentence"

    reference = Record("ref", "Gout is a form of arthritis. Uric acid crystals build up in a joint.", None)
    copy = Record("n4", RECORDS[0]["text"], "Cy Dorn")  # the same sentences about someone else: nothing new
    outcome = store.apply([reference, copy], [], lambda: embedder)
    assert outcome.sentences == 2 and store.sentence_vectors(["Gout is a form of arthritis."]) is not None, \
        "a passage about nobody has its sentences embedded too (a hybrid question weighs them); the copy, nothing new"

    changed = Record("n2", "Knee fracture after a fall on the ice. Open reduction with plate fixation.", "Bo Chen")
    outcome = store.apply([changed], [], lambda: embedder)
    assert outcome.sentences == 2 and store.sentence_vectors(quotable(changed.text, "Bo Chen")) is not None
    gone = next(sentences for passage_id, sentences in said.items() if passage_id.startswith("n2"))
    assert store.sentence_vectors(gone) is not None, "kept until the store is compacted"
    store.compact()
    assert store.sentence_vectors(gone) is None and store.sentence_vectors(quotable(changed.text, "Bo Chen")) is not None


def test_a_store_from_before_sentence_vectors_gets_them_when_next_opened(tmp_path, data, embedder):
    store, _, _ = opened(tmp_path, data, CountingFactory(embedder))
    before = stored_sentences(store)
    with store._transaction() as db:
        db.execute("DELETE FROM sentences")
        db.execute("DELETE FROM settings WHERE key = 'sentences'")
    store.close()
    factory = CountingFactory(embedder)
    again, _, _ = opened(tmp_path, data, factory)
    assert stored_sentences(again) == before > 0 and factory.calls == 1, "filled from the stored passages"
    again.close()
    factory.calls = 0
    third, _, _ = opened(tmp_path, data, factory)
    assert factory.calls == 0 and stored_sentences(third) == before, "and only once"


def test_a_store_whose_reference_texts_lack_sentence_vectors_embeds_them_with_progress(tmp_path, data, embedder):
    from nodes.data import _sentences

    store, _, _ = opened(tmp_path, data, CountingFactory(embedder))
    store.apply([Record("ref", "Gout is a form of arthritis. Uric acid crystals build up in a joint.", None)], [],
                lambda: embedder)
    with store._transaction() as db:  # as a store of VERSION 1 left it: no vectors for passages about nobody
        db.execute("DELETE FROM sentences WHERE digest IN (?, ?)", [store.sentence_key("Gout is a form of arthritis."),
                   store.sentence_key("Uric acid crystals build up in a joint.")])
        db.execute("UPDATE settings SET value = '1' WHERE key = ?", (_sentences.SETTING,))
    seen = []
    outcome = store.refresh(lambda: embedder, None, lambda done, total: seen.append((done, total)))
    assert outcome.sentences == 2 and seen and seen[-1] == (2, 2)
    assert store.sentence_vectors(["Gout is a form of arthritis."]) is not None
