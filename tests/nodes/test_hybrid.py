"""Lexical and hybrid ranking are exact: federated equals centralized, whatever the split of the records.

The federation computes BM25 with statistics summed up the tree before it searches (two passes, as
Elasticsearch's ``dfs_query_then_fetch``), merges each list exactly and fuses them once at the gateway, so
its top k — ids, order and scores — is a single index's, and a passage's score does not depend on which
leaf holds it or on what else its leaf holds.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from bus.client import ask
from bus.connection import connect
from bus.asking import AskRequest
from nodes.data.index import best_scores
from nodes.merge import depth, lexical_depth
from nodes.run.assemble import build_leaves
from nodes.run.baseline import CentralIndex
from nodes.run.federation import launched
from nodes.run.spec import FederationSpec

CONDITIONS = ["atrial fibrillation on apixaban", "type 2 diabetes with neuropathy", "community acquired pneumonia",
              "alcoholic liver disease", "knee osteoarthritis after a fall", "migraine with aura", "heart failure with edema",
              "chronic kidney disease stage 3", "asthma exacerbation", "gout flare of the big toe", "HTN on lisinopril",
              "essential hypertension"]
QUESTIONS = ["Which patients have atrial fibrillation?", "diabetes neuropathy", "liver disease from alcohol",
             "What about heart failure and edema?", "gout", "Which patients had a fall?", "asthma or pneumonia",
             "kidney", "\"migraine\" AND aura -NEAR *", "the of and",
             "Which patients have HTN?"]  # one term for "htn" and "hypertension" (nodes.data.lexical.group)


#: Patients the records of :func:`records` may be about (``patients``), each of several.
PATIENTS = ["Ana Ruiz", "Bo Chen", "Cy Park", "Di Moss", "Ed Lowe", "Flo Hart"]


def records(count: int = 48, patients: bool = False) -> list[dict]:
    rng = np.random.default_rng(3)
    found = []
    for i in range(count):
        picked = rng.choice(len(CONDITIONS), size=int(rng.integers(1, 4)), replace=False)
        text = " ".join(f"History of {CONDITIONS[j]}." for j in picked)
        found.append({"id": f"r{i:03d}", "text": text + (" Seen again today." * int(rng.integers(0, 3)))})
        if patients:
            found[-1]["patient"] = PATIENTS[i % len(PATIENTS)]
    if patients:  # one patient seen monthly for one thing: each visit's note a little different
        found += [{"id": f"v{i:03d}", "patient": PATIENTS[0],
                   "text": f"History of atrial fibrillation on apixaban. Visit {i + 1} of the year."} for i in range(8)]
    return found


def write_split(folder, layout: dict[str, int], seed: int, patients: bool = False) -> FederationSpec:
    """The same records spread over ``layout`` (organization: leaves), assigned at random by ``seed``."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    leaves = [f"{org}.unit{u}" for org, n in layout.items() for u in range(n)]
    files: dict[str, list[dict]] = {leaf: [] for leaf in leaves}
    for record in records(patients=patients):
        files[leaves[int(rng.integers(len(leaves)))]].append(record)
    lines = ['[federation]', 'name = "split"', 'state_dir = "state"', "deadline_ms = 15000", ""]
    for leaf, held in files.items():
        (folder / f"{leaf}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in held))
        org, unit = leaf.split(".")
        lines += [f"[orgs.{org}.units.{unit}]", f'data = "{leaf}.jsonl"', ""]
    (folder / "split.toml").write_text("\n".join(lines))
    return FederationSpec.load(folder / "split.toml")


async def scores_by_passage(spec, embedder, mode: str) -> list[dict[str, float]]:
    """Asks every question in ``mode``; checks each answer against the centralized index; returns each
    answer's scores by passage id."""
    build_leaves(spec, lambda: embedder, fingerprint=embedder.fingerprint, verbose=False)
    central = CentralIndex.from_spec(spec)
    found = []
    async with launched(spec, processes=False, verbose=False, embedder_factory=lambda: embedder) as running:
        nc = await connect(running.url, "hybrid-test")
        try:
            for question in QUESTIONS:
                events = []
                answer = await ask(nc, AskRequest(question=question, mode=mode, k=8, include_embedding=True),
                                   on_event=events.append)
                streamed = [hit for event in events if event.result for hit in event.result.hits]
                # each organization's result is streamed with the k asked for of the list the question ranks by, not both
                assert all(not event.result.lexical for event in events if event.result), (mode, question)
                assert all(len(event.result.hits) <= 8 for event in events if event.result), (mode, question)
                assert all(hit.score == (hit.bm25 if mode == "lexical" else hit.similarity) for hit in streamed)
                if mode == "lexical":  # a hybrid answer is fused from both lists; a lexical one is the streamed list's
                    assert {(h.path, h.id) for h in answer.hits} <= {(h.path, h.id) for h in streamed}
                if mode == "lexical" and "HTN" in question:
                    assert {"HTN" in h.text for h in answer.hits} == {True, False}, "found as written either way"
                    assert all("HTN" in h.text or "hypertension" in h.text for h in answer.hits)
                expected = central.as_answered(answer, mode, 8)
                assert [(h.path, h.id, h.score) for h in answer.hits] == [(h.path, h.id, h.score) for h in expected], \
                    (mode, question)
                found.append({hit.id.rsplit("/", 1)[-1]: hit.score for hit in answer.hits})
        finally:
            await nc.drain()
    return found


@pytest.mark.parametrize("mode", ["lexical", "hybrid"])
async def test_federated_equals_centralized_and_scores_ignore_the_split(tmp_path, nats_server, embedder, mode):
    one = await scores_by_passage(write_split(tmp_path / "one", {"a": 1, "b": 1}, seed=1), embedder, mode)
    other = await scores_by_passage(write_split(tmp_path / "other", {"a": 2, "b": 1, "c": 3}, seed=2), embedder, mode)
    assert any(scores for scores in one), "the questions find something"
    for question, mine, theirs in zip(QUESTIONS, one, other):
        shared = mine.keys() & theirs.keys()
        if mode == "lexical":
            assert all(mine[key] == theirs[key] for key in shared), ("a score depends on the split", question)
            assert sorted(mine.values(), reverse=True) == sorted(theirs.values(), reverse=True), question


async def test_a_question_asking_which_patients_gets_each_patient_once_whatever_the_split(tmp_path, nats_server,
                                                                                        embedder):
    """"Who is on insulin?" gave ten of one patient's encounters: asking which patients, each patient's passages are one
    piece of evidence (Query.per_patient), their best first listing the others, in every list and the fusion — exactly
    the centralized index's, and the same however the records are split (a patient's records over several leaves and
    organizations)."""
    question = "Which patients have atrial fibrillation?"
    asked: dict[tuple[str, str], list[float]] = {}
    for name, layout, seed in (("one", {"a": 1}, 1), ("other", {"a": 2, "b": 1, "c": 2}, 2)):
        spec = write_split(tmp_path / name, layout, seed, patients=True)
        build_leaves(spec, lambda: embedder, fingerprint=embedder.fingerprint, verbose=False)
        central = CentralIndex.from_spec(spec)
        async with launched(spec, processes=False, verbose=False, embedder_factory=lambda: embedder) as running:
            nc = await connect(running.url, "which-patients-test")
            try:
                for mode in ("dense", "lexical", "hybrid"):
                    answer = await ask(nc, AskRequest(question=question, mode=mode, k=5, include_embedding=True))
                    expected = central.as_answered(answer, mode, 5)
                    assert [(h.path, h.id, h.score) for h in answer.hits] == \
                        [(h.path, h.id, h.score) for h in expected], (name, mode)
                    patients = [h.patient for h in answer.hits]
                    assert answer.per_patient and len(patients) == 5 and len(set(patients)) == 5, (name, mode, patients)
                    assert any(h.duplicates for h in answer.hits), "a patient's other passages are listed"
                    asked[name, mode] = [h.score for h in answer.hits]  # which of tied passages leads: by leaf path
                named = await ask(nc, AskRequest(question="Who is Ana Ruiz's cardiologist for her atrial fibrillation?",
                                                 mode="hybrid", k=5, include_embedding=True))
                assert named.filtered and not named.per_patient and len(named.hits) == 5, "her passages, not one"
                assert {h.patient for h in named.hits} == {PATIENTS[0]}
                assert [(h.path, h.id, h.score) for h in named.hits] == \
                    [(h.path, h.id, h.score) for h in central.as_answered(named, "hybrid", 5)]
                alike = await ask(nc, AskRequest(question="atrial fibrillation patients", mode="hybrid", k=5))
                assert not alike.per_patient and {h.patient for h in alike.hits} == {PATIENTS[0]}, \
                    "not asking which patients: their passages"
            finally:
                await nc.drain()
    for mode in ("dense", "lexical", "hybrid"):
        assert asked["one", mode] == asked["other", mode], mode


async def test_a_router_weighs_the_best_sentences_of_what_its_merge_keeps_and_no_more(tmp_path, nats_server, embedder):
    """The leaves of an organization's process leave their hits' best sentences to its router, which weighs only the
    passages its merge keeps — each exactly as its leaf weighs it — and the answer is still the centralized one."""
    spec = write_split(tmp_path / "one", {"a": 4}, seed=5)
    build_leaves(spec, lambda: embedder, fingerprint=embedder.fingerprint, verbose=False)
    central = CentralIndex.from_spec(spec)
    async with launched(spec, nats_server.url, processes=False, verbose=False,
                        embedder_factory=lambda: embedder) as running:
        leaves = {node.path: node for node in running.federation.nodes("a") if node.role == "leaf"}
        router = next(node for node in running.federation.nodes("a") if node.role == "router")
        nc = await connect(running.url, "weigh-test")
        try:
            answer = await ask(nc, AskRequest(question="Which patients have atrial fibrillation?", mode="hybrid", k=3,
                                              include_embedding=True))
            assert router.counters["weighed.at_once"] == 0, "their sentences not yet read: weighed off the event loop"
            again = await ask(nc, AskRequest(question="Which patients have atrial fibrillation?", mode="hybrid", k=3,
                                             include_embedding=True))
            assert router.counters["weighed.at_once"] == 1, "read once: weighed on the event loop"
            assert [(h.path, h.id, h.score, h.sentence) for h in again.hits] == \
                [(h.path, h.id, h.score, h.sentence) for h in answer.hits]
        finally:
            await nc.drain()
        vector = np.frombuffer(answer.embedding, dtype="<f4")
        sent = sum(leaf.counters["hits"] for leaf in leaves.values()) // 2  # passages, in either list or both
        weighed = sum(leaf.counters["sentences.weighed"] for leaf in leaves.values()) // 2
        assert 0 < weighed <= depth(3) + lexical_depth(3) < sent, "only what the router's merge kept (its two lists) is weighed"
        for hit in answer.hits:
            store = leaves[hit.path].retriever.store
            rows = store.sentence_rows([(hit.text, hit.patient)])
            assert hit.sentence is not None and [hit.sentence] == best_scores(rows, vector)
    expected = central.as_answered(answer, "hybrid", 3)
    assert [(h.path, h.id, h.score) for h in answer.hits] == [(h.path, h.id, h.score) for h in expected]


async def test_a_question_of_stop_words_or_search_syntax_is_answered_never_an_error(demo_federation, nc):
    for question in ("the of and", "?!", '"heart" AND * NEAR -fever', "' OR 1=1 --"):
        for mode in ("dense", "lexical", "hybrid"):
            answer = await ask(nc, AskRequest(question=question, mode=mode, summarize="extractive"))
            assert answer.error is None and answer.answer_info.status in ("successful", "insufficient"), (question, mode)



async def test_a_question_asked_again_is_counted_from_memory_at_every_leaf_with_the_same_answer(demo_federation, nc):
    leaves = [node for org in ("hospital_a", "hospital_b", "hospital_c") for node in demo_federation._nodes[org]
              if node.role == "leaf"]
    gateway = demo_federation.gateway
    question = "Which patients with heart failure have edema?"
    first = await ask(nc, AskRequest(question=question))
    before = {leaf.path: (leaf.counters["stats"], leaf.counters["stats.recounted"], leaf.counters["stats.at_hand"])
              for leaf in leaves}
    remembered, stale = gateway.counters["counts.remembered"], gateway.counters["counts.stale"]
    again = await ask(nc, AskRequest(question=question))
    assert len(leaves) == 10 and all(leaf.counters["stats"] == before[leaf.path][0] for leaf in leaves), \
        "the gateway remembers what the first question counted: no first pass"
    assert all(leaf.counters["stats.recounted"] == before[leaf.path][1] + 1 for leaf in leaves), "the search counts"
    assert all(leaf.counters["stats.at_hand"] == before[leaf.path][2] + 1 for leaf in leaves), \
        "the words were read by the first question: the search counts them on the event loop"
    assert (gateway.counters["counts.remembered"], gateway.counters["counts.stale"]) == (remembered + 1, stale)
    assert [(hit.path, hit.id, hit.score) for hit in again.hits] == [(hit.path, hit.id, hit.score) for hit in first.hits]
    assert first.hits and (again.absent, again.closest) == (first.absent, first.closest), "grounded on the same counts"
