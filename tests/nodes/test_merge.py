"""Merging children's results (:mod:`nodes.merge`): federated top-k equals centralized top-k, exactly.

Unit tests of :func:`~nodes.merge.merge` and :func:`~nodes.merge.pooled` on outcomes made by hand; a
property (hypothesis) that merging what leaves return equals selecting over everything they hold, however
the hits are split; and the real thing over a real broker — the demo federation, a tree of depth three,
and corpora built to be full of ties.

The tied corpora reuse a few dozen vectors over and over — identical vectors tie exactly, and copies
nudged by one float32 step tie "a float apart" — spread over trees of depth 1 to 3, with copied text about
the same patient (collapsed) and about different patients (not collapsed). Their stores are written from
those vectors directly (no embedding), and questions go through the real gateway and broker.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bus.client import ask
from bus.connection import connect
from bus.messages import Coverage, ErrorInfo, Hit, NodeReport, SearchResult, Summary
from bus.asking import AskRequest
from bus.scatter import ChildOutcome
from nodes.data.chunking import chunk
from nodes.data.records import Record
from nodes.data.topk import digest, select
from nodes.concepts import analyse, named_share, things_asked
from nodes.merge import DENSE_WEIGHT, MENTION_BONUS, SENTENCE_WEIGHT, depth, fuse, lexical_depth, merge, pooled
from summarizer import kinds
from nodes.run.assemble import build_leaves
from nodes.run.baseline import CentralIndex, intersection
from nodes.run.federation import Federation
from nodes.run.spec import FederationSpec
from tests.helpers.federations import reuse_demo_stores
from tests.helpers.properties import PROPERTIES, hits, keys



# -- merge, by hand ------------------------------------------------------------------------------


def hit(path: str, id: str, score: float, patient: str | None = None, text: str = "t") -> Hit:
    """A hit as a leaf returns it, with the digest copies of the same evidence share."""
    return Hit(id=id, org=path.split(".")[0], path=path, score=score, text=text, patient=patient,
               digest=digest(text, patient))


def answered(path: str, *found: Hit, filtered: bool = False, **result) -> ChildOutcome:
    """A child that answered with ``found`` (one leaf of coverage unless ``result`` says otherwise)."""
    result.setdefault("coverage", Coverage(total=1, successful=1))
    return ChildOutcome(subject=f"fed.q.{path}", status="successful", took_ms=4.0,
                        result=SearchResult(hits=list(found), filtered=filtered, **result))


def test_merge_keeps_the_top_k_of_every_child_in_one_order_and_reports_each_child():
    a = answered("org.a", hit("org.a", "1", 0.9), hit("org.a", "2", 0.4))
    b = answered("org.b", hit("org.b", "1", 0.7), hit("org.b", "2", 0.7))
    merged = merge([a, b], 3, "fed.q.org", 12.345)
    assert keys(merged.hits) == [("org.a", "1", 0.9), ("org.b", "1", 0.7), ("org.b", "2", 0.7)]
    assert merged.coverage == Coverage(total=2, successful=2) and not merged.partial and not merged.timed_out
    assert merged.nodes["fed.q.org.a"] == NodeReport(status="successful", took_ms=4.0, hits=2)
    assert merged.nodes["fed.q.org"] == NodeReport(status="successful", took_ms=12.35, hits=3) and merged.took_ms == 12.35


def test_a_child_that_failed_makes_the_merge_partial_and_counts_once():
    late = ChildOutcome(subject="fed.q.org.b", status="timed_out", took_ms=500.0,
                        error=ErrorInfo(type="deadline", reason="no reply in time"))
    merged = merge([answered("org.a", hit("org.a", "1", 0.5)), late], 10, "fed.q.org", 501.0)
    assert merged.partial and merged.timed_out and keys(merged.hits) == [("org.a", "1", 0.5)]
    assert merged.coverage == Coverage(total=2, successful=1, timed_out=1)
    assert merged.nodes["fed.q.org.b"].status == "timed_out" and merged.nodes["fed.q.org.b"].error.type == "deadline"
    assert merged.nodes["fed.q.org"].status == "partial"
    deep = answered("org.a", hit("org.a", "1", 0.5), timed_out=True, coverage=Coverage(total=3, successful=2, timed_out=1))
    merged = merge([deep], 10, "fed.q.org", 1.0)
    assert merged.timed_out and not merged.partial, "a timeout deeper down is passed up; this child itself answered"
    assert merged.coverage.total == 3


def test_merge_passes_up_the_reports_names_and_summaries_from_below():
    summary = Summary(path="org.a", method="extractive", status="successful")
    a = answered("org.a", hit("org.a.x", "1", 0.5, "Ana Ruiz"), names={"Ana Ruiz": ["org.a.x"]}, summaries=[summary],
                 nodes={"fed.q.org.a.x": NodeReport(status="successful", hits=1)})
    b = answered("org.b", names={"Ana Ruiz": ["org.b"], "Bo Chen": ["org.b"]})
    merged = merge([a, b], 10, "fed.q.org", 1.0)
    assert merged.names == {"Ana Ruiz": ["org.a.x", "org.b"], "Bo Chen": ["org.b"]}
    assert merged.summaries == [summary]
    assert set(merged.nodes) == {"fed.q.org.a.x", "fed.q.org.a", "fed.q.org.b", "fed.q.org"}


def test_copies_collapse_across_children_only_when_asked():
    ana = [hit("org.a", "1", 0.8, "Ana Ruiz", "Started apixaban."), hit("org.b", "9", 0.8, "Ana Ruiz", "started  APIXABAN.")]
    outcomes = [answered("org.a", ana[0]), answered("org.b", ana[1])]
    collapsed = merge(outcomes, 10, "fed.q.org", 1.0)
    assert keys(collapsed.hits) == [("org.a", "1", 0.8)]
    assert [(d.path, d.id) for d in collapsed.hits[0].duplicates] == [("org.b", "9")]
    assert keys(merge(outcomes, 10, "fed.q.org", 1.0, collapse=False).hits) == [("org.a", "1", 0.8), ("org.b", "9", 0.8)]


def test_children_that_filtered_by_name_win_over_children_that_could_not():
    named = answered("org.a", hit("org.a", "1", 0.4, "Ana Ruiz"), filtered=True)
    unfiltered = answered("org.b", hit("org.b", "1", 0.9, "Bo Chen"))
    assert keys(pooled([named, unfiltered])) == [("org.a", "1", 0.4)]
    merged = merge([named, unfiltered], 10, "fed.q.org", 1.0)
    assert keys(merged.hits) == [("org.a", "1", 0.4)] and merged.filtered
    assert keys(pooled([unfiltered, answered("org.c", hit("org.c", "1", 0.2))])) == [("org.b", "1", 0.9), ("org.c", "1", 0.2)]
    assert pooled([ChildOutcome(subject="fed.q.org.d", status="unavailable", took_ms=0.1)]) == []


# -- the property ----------------------------------------------------------------------------------


@PROPERTIES
@given(hits(), st.integers(1, 12), st.booleans())
def test_merging_what_leaves_return_equals_selecting_over_everything(all_hits, k, collapse):
    by_leaf: dict[str, list[Hit]] = {}
    for hit in all_hits:
        by_leaf.setdefault(hit.path, []).append(hit)
    # each leaf returns its top k with every hit tied with its k-th, as a leaf's search does
    outcomes = [ChildOutcome(subject=f"fed.q.{path}", status="successful", took_ms=1.0,
                             result=SearchResult(hits=select(found, k, collapse=collapse, ties=True)))
                for path, found in sorted(by_leaf.items())]
    merged = merge(outcomes, k, "fed.q.org", 2.0, collapse=collapse)
    assert keys(merged.hits) == keys(select(all_hits, k, collapse=collapse))


# -- through the federation ------------------------------------------------------------------------


def assert_same_hits(federated, central, question):
    """Exactly the same passages, in the same order, with bit-identical scores."""
    assert intersection(federated, central) == 1.0, question
    assert [(h.path, h.id, h.score) for h in federated] == [(h.path, h.id, h.score) for h in central], question


async def ask_and_compare(client, central, question, k=10, **options):
    answer = await ask(client, AskRequest(question=question, k=k, include_embedding=True, **options))
    expected = central.as_answered(answer, options.get("mode", "hybrid"), k, collapse=options.get("collapse", True))
    assert_same_hits(answer.hits, expected, question)
    return answer


async def test_federated_top_k_equals_centralized(demo_federation, nc, demo_spec, demo_dir):
    questions = json.loads((demo_dir / "corpus" / "questions.json").read_text())
    assert len(questions) >= 20
    central = CentralIndex.from_spec(demo_spec)
    focused = 0
    for n, question in enumerate(questions):
        focused += bool((await ask_and_compare(nc, central, question)).focused)  # hybrid, what ships
        await ask_and_compare(nc, central, question, collapse=False)
        if n % 4 == 0:  # each single ranking on a quarter of them (tests/nodes/test_hybrid.py does more)
            await ask_and_compare(nc, central, question, mode="dense")
            await ask_and_compare(nc, central, question, mode="lexical")
    assert focused, "some question asks a thing of a named patient: their passages are scored by it (Query.focused)"


async def test_depth_three_tree_equals_centralized(nats_server, demo_dir, embedder, tmp_path):
    corpus = demo_dir / "corpus"
    spec_path = tmp_path / "deep.toml"
    spec_path.write_text(f"""
[federation]
name = "deep"
state_dir = "state"
[orgs.hospital_a.units.admissions]
data = "{corpus}/hospital_a/admissions.jsonl"
[orgs.hospital_a.units.clinical.units.medicine]
data = "{corpus}/hospital_a/medicine.jsonl"
[orgs.hospital_a.units.clinical.units.surgery]
data = "{corpus}/hospital_a/surgery.jsonl"
[orgs.hospital_a.units.clinical.units.specialty.units.orthopaedics]
data = "{corpus}/hospital_a/orthopaedics.jsonl"
[orgs.hospital_a.units.clinical.units.specialty.units.psychiatry]
data = "{corpus}/hospital_a/psychiatry.jsonl"
[orgs.hospital_b.units.cardiology]
data = "{corpus}/hospital_b/cardiology.jsonl"
""")
    spec = FederationSpec.load(spec_path)
    assert max(path.count(".") for path in spec.leaves()) == 3
    reuse_demo_stores(spec, demo_dir)
    federation = Federation(spec, nats_server.url, processes=False, verbose=False, embedder_factory=lambda: embedder)
    await federation.start()
    try:
        from bus.connection import connect

        client = await connect(nats_server.url, "t")
        central = CentralIndex.from_spec(spec)
        questions = json.loads((corpus / "questions.json").read_text())[:20]
        for question in questions:
            answer = await ask_and_compare(client, central, question)
            assert "fed.q.hospital_a.clinical.specialty.psychiatry" in answer.nodes
        await client.drain()
    finally:
        await federation.stop()


# -- corpora full of ties ----------------------------------------------------------------------------


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
    """An embedder that gives each passage text the vector the test chose for it (and any other text, a sentence
    an answer may weigh, the first base vector: the ranking never reads them)."""

    def __init__(self, fingerprint: str) -> None:
        self.fingerprint = fingerprint
        self.vectors: dict[str, np.ndarray] = {}

    def embed(self, texts: list[str]) -> np.ndarray:
        other = next(iter(self.vectors.values()))
        return np.stack([self.vectors.get(text, other) for text in texts])


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


def test_both_rankings_together_hold_at_most_the_callers_passages():
    from nodes.merge import capped, distinct

    def hit(i):
        return Hit(id=f"r{i}", org="o", path="o.u", score=1.0 / (i + 1), text=f"t{i}")

    dense, lexical = [hit(i) for i in range(6)], [hit(i) for i in (0, 7, 1, 8, 9)]
    assert capped(dense, lexical, 20) == (dense, lexical), "within the cap nothing changes"
    kept, more = capped(dense, lexical, 8)
    assert kept == dense and [h.id for h in more] == ["r0", "r7", "r1", "r8"], "a passage in both lists costs nothing"
    assert distinct(kept, more) == 8
    kept, more = capped(dense, lexical, 4)
    assert [h.id for h in kept] == ["r0", "r1", "r2", "r3"] and [h.id for h in more] == ["r0"]


def scored(n: int, similarity: float, bm25: float, text: str = "A passage.", patient: str | None = None) -> Hit:
    return Hit(id=f"p{n}", org="a", path="a.unit", score=similarity, text=text, similarity=similarity, bm25=bm25,
               patient=patient)


def test_fusion_scores_every_candidate_on_both_its_similarity_and_its_words():
    dense = [scored(1, 0.80, 0.0), scored(2, 0.78, 6.0)]
    lexical = [scored(3, 0.70, 8.0), scored(2, 0.78, 6.0)]  # p2 in both lists: one candidate
    fused = fuse(dense, lexical, k=10)
    assert [h.id for h in fused] == ["p2", "p3", "p1"]  # p3, lexical only, keeps its similarity
    want = {"p1": DENSE_WEIGHT * 0.80, "p2": DENSE_WEIGHT * 0.78 + (1 - DENSE_WEIGHT) * 6.0 / 8.0,
            "p3": DENSE_WEIGHT * 0.70 + (1 - DENSE_WEIGHT) * 1.0}
    assert {h.id: h.score for h in fused} == pytest.approx(want, abs=1e-12)
    assert [h.id for h in fuse(dense, lexical, k=2)] == ["p2", "p3"]
    # no passage holds the question's words: the embedding's order, scaled
    assert [h.id for h in fuse([scored(1, 0.5, 0.0), scored(2, 0.6, 0.0)], [], k=10)] == ["p2", "p1"]


_TEXTS = ["Treatment includes colchicine for gout.", "Gout, on allopurinol.", "The causes of gout include diet.",
          "History of asthma.", "Hypertension and gout, treated with colchicine."]


@PROPERTIES
@given(st.lists(st.tuples(st.sampled_from([0.3, 0.5, 0.7]) | st.floats(0.0, 1.0), st.sampled_from([0.0, 1.0, 2.5]),
                          st.none() | st.floats(0.0, 1.0), st.sampled_from(_TEXTS), st.none() | st.just("Ann Lee"),
                          st.sampled_from(["a.unit", "b.unit"])), max_size=24),
       st.integers(1, 12), st.sampled_from([None, "treatment", "causes"]), st.booleans())
def test_fusion_ranks_as_scoring_every_candidate_whole_does(rows, k, kind, asks_about):
    """The fusion reads a candidate's text for its bonuses only while they could lift it into the top k: its top k —
    ties, bonuses and all — is what scoring every candidate in full and sorting gives."""
    about = things_asked(analyse("Which patients with gout were treated with colchicine?")) if asks_about else []
    candidates = [Hit(id=f"p{i}", org=path[0], path=path, score=similarity, text=text, patient=patient,
                      similarity=similarity, bm25=bm25, sentence=sentence, digest=digest(text, patient))
                  for i, (similarity, bm25, sentence, text, patient, path) in enumerate(rows)]
    best = max((hit.bm25 for hit in candidates), default=0.0)
    share = named_share(about)

    def whole(hit: Hit) -> float:
        similarity = hit.similarity if hit.sentence is None else (
            (1.0 - SENTENCE_WEIGHT) * hit.similarity + SENTENCE_WEIGHT * hit.sentence)
        score = DENSE_WEIGHT * similarity + ((1.0 - DENSE_WEIGHT) * hit.bm25 / best if best > 0 else 0.0)
        if kinds.speaks_of(hit.text[:kinds.OPENING_CHARS], kind):
            score += kinds.PASSAGE_BONUS
        if about:
            score += MENTION_BONUS * share(hit.text)
        return score

    want = select([hit.model_copy(update={"score": whole(hit)}) for hit in candidates], k)  # copies fold, as anywhere
    fused = fuse(candidates[::2], candidates[1::2], k, kind, about)
    assert [(hit.path, hit.id, hit.score) for hit in fused] == [(hit.path, hit.id, hit.score) for hit in want]


def test_copies_that_head_each_list_are_one_fused_hit():
    """A patient's visit repeated on other days is one piece of evidence; the dense list may head its group with one
    copy and the lexical list with another: fused, they are one hit listing every other copy once."""
    def copy(n, similarity, bm25):
        return scored(n, similarity, bm25, "Reason: chronic kidney disease.", "Ann Lee").model_copy(
            update={"digest": digest("Reason: chronic kidney disease.", "Ann Lee")})

    a, b, c = copy(1, 0.80, 5.0), copy(2, 0.79, 6.0), copy(3, 0.78, 4.0)
    dense = [a.model_copy(update={"duplicates": [b.ref(), c.ref()]}), scored(4, 0.7, 1.0)]
    lexical = [b.model_copy(update={"duplicates": [a.ref(), c.ref()]}), scored(4, 0.7, 1.0)]
    fused = fuse(dense, lexical, k=2)
    assert [h.id for h in fused] == ["p2", "p4"], "the group's best fused copy, then the next piece of evidence"
    assert [r.id for r in fused[0].duplicates] == ["p1", "p3"]
    assert [h.id for h in fuse(dense, lexical, k=2, collapse=False)] == ["p2", "p1"]


def test_fusion_reads_no_text_that_could_not_reach_the_top_k(monkeypatch):
    import nodes.merge

    read = []

    def share_of(about):
        return lambda text: read.append(text) or 1.0
    monkeypatch.setattr(nodes.merge, "named_share", share_of)
    about = things_asked(analyse("Which patients have gout?"))
    near = [scored(i, 0.9 - 0.01 * i, 0.0, f"Near {i}.", "Ann Lee") for i in range(3)]
    far = [scored(10 + i, 0.3, 0.0, f"Far {i}.", "Bo Chan") for i in range(5)]
    fused = fuse(near + far, [], k=3, about=about)
    assert [hit.id for hit in fused] == ["p0", "p1", "p2"]
    assert read == ["Near 0.", "Near 1.", "Near 2."], "0.3 + every bonus cannot reach 0.9 x 0.88 + the bonus"
    read.clear()
    assert len(fuse(near + far, [], k=4, about=about)) == 4 and len(read) == 8, "a fourth place is open to all"


def test_a_passage_leading_with_the_asked_kind_wins_its_topic():
    treatment = scored(1, 0.70, 0.0, "Treatment includes warfarin and rate control.")
    cause = scored(2, 0.74, 0.0, "The condition is caused by scarring of the atria.")
    fused = fuse([cause, treatment], [], k=2, kind=kinds.kind_of("How is atrial fibrillation treated?"))
    assert [h.id for h in fused] == ["p1", "p2"]
    assert [h.id for h in fuse([cause, treatment], [], k=2)] == ["p2", "p1"]
    # under its record's title (the heading each of its passages carries) a passage still opens with what it says
    titled = [hit.model_copy(update={"text": f"Treating atrial fibrillation: {hit.text}",
                                     "metadata": {"title": "Treating atrial fibrillation"}}) for hit in (cause, treatment)]
    fused = fuse(titled, [], k=2, kind=kinds.kind_of("How is atrial fibrillation treated?"))
    assert [h.id for h in fused] == ["p1", "p2"], "the title's 'treating' is not the cause's opening"


def test_a_kind_every_header_gives_lifts_no_passage():
    """Every admission's header ends "Disposition: …": asked where patients were discharged to, a bonus for passages
    giving it would lift every admission over the notes of what else is asked ("Which elderly patients had a hip
    fracture after a fall and where were they discharged?" lost its fracture notes to other patients' headers). The
    answer quotes the field (summarizer.answer.select); the ranking is by what is asked."""
    header = scored(1, 0.60, 0.0, "Admission A1. Patient: Ann Lee. Primary diagnosis: asthma. Disposition: home.", "Ann Lee")
    note = scored(2, 0.66, 0.0, "She fell at home and fractured her left hip.", "Bo Chan")
    kind = kinds.kind_of("Which patients had a hip fracture and where were they discharged?")
    assert kind == "disposition" and kinds.speaks_of(header.text, kind)
    assert [h.id for h in fuse([note, header], [], k=2, kind=kind)] == ["p2", "p1"]
    assert [h.id for h in fuse([note, header], [], k=2, kind=kind)] == [h.id for h in fuse([note, header], [], k=2)]


def test_what_a_thing_is_is_answered_by_the_passage_saying_what_it_is():
    treated = scored(1, 0.74, 0.0, "Lupus: Treatment depends on the symptoms and may include hydroxychloroquine.")
    defined = scored(2, 0.70, 0.0, "Lupus: Lupus is a disorder of the immune system in which it attacks healthy tissue.")
    titled = {"metadata": {"title": "Lupus"}}
    treated, defined = treated.model_copy(update=titled), defined.model_copy(update=titled)
    assert [h.id for h in fuse([treated, defined], [], k=2, kind=kinds.kind_of("What is lupus?"))] == ["p2", "p1"]
    assert [h.id for h in fuse([treated, defined], [], k=2, kind=kinds.kind_of("What is her lupus like?"))] == [
        "p1", "p2"], "what a pronoun's thing is like asks for no definition"


def test_a_passage_that_names_what_is_asked_beats_a_nearer_one_that_does_not():
    question = "What is the treatment for gout?"
    about = things_asked(analyse(question))
    medications = scored(1, 0.60, 0.0, "MEDICATIONS: ceftriaxone 1 g IV daily; allopurinol 100 mg daily.", "Ann Lee")
    gout = scored(2, 0.50, 0.0, "PAST MEDICAL HISTORY: chronic kidney disease stage 3a; gout.", "Bo Chan")
    fused = fuse([medications, gout], [], k=2, about=about)
    assert [h.id for h in fused] == ["p2", "p1"]
    assert fused[0].score == pytest.approx(DENSE_WEIGHT * 0.50 + MENTION_BONUS, abs=1e-12)
    assert [h.id for h in fuse([medications, gout], [], k=2)] == ["p1", "p2"], "without what is asked, the nearer first"
    # so does a reference text: a text on hereditary neuropathies does not say whether Parkinson's disease is hereditary
    handouts = [hit.model_copy(update={"patient": None}) for hit in (medications, gout)]
    assert [h.id for h in fuse(handouts, [], k=2, about=about)] == ["p2", "p1"]
    # a share for each of the things asked that a passage names, an accepted synonym as well as the word asked
    about = things_asked(analyse("Which patients have hypertension and an MI?"))
    both = scored(3, 0.45, 0.0, "History of high blood pressure and a myocardial infarction in 2019.", "Cy Dunn")
    one = scored(4, 0.50, 0.0, "History of hypertension.", "Di Eng")
    neither = scored(5, 0.55, 0.0, "History of asthma.", "Ed Fox")
    fused = fuse([neither, one, both], [], k=3, about=about)
    assert [h.id for h in fused] == ["p3", "p4", "p5"]
    assert fused[1].score == pytest.approx(DENSE_WEIGHT * 0.50 + MENTION_BONUS / 2, abs=1e-12)


def test_a_passage_names_what_is_asked_in_one_sentence_not_in_words_of_several():
    """"Which patients were seen in the emergency department?" was refused on the demo: its top ten were admissions'
    headers of fields ("Type: emergency. … Department: medicine."), which hold both words and so gained the bonus over
    the notes saying "in the emergency department", and which the answer, reading other patients' passages sentence
    by sentence, could not quote."""
    about = things_asked(analyse("Which patients were seen in the emergency department?"))
    header = scored(1, 0.60, 0.0, "Admission ADM-A-1. Type: emergency. Department: medicine. Discharged: 2023-02-06.",
                    "Ann Lee")
    note = scored(2, 0.50, 0.0, "She received a fluid bolus in the emergency department with improvement.", "Bo Chan")
    assert named_share(about)(header.text) == 0.0 and named_share(about)(note.text) == 1.0
    assert [h.id for h in fuse([header, note], [], k=2, about=about)] == ["p2", "p1"]
    both = things_asked(analyse("Which patients have hypertension and an MI?"))
    assert named_share(both)("History of hypertension. Myocardial infarction in 2019.") == 1.0, \
        "each thing in a sentence of its own"


def test_a_passage_saying_the_answer_in_one_sentence_beats_one_only_about_its_topic():
    topic = scored(1, 0.72, 0.0)  # about the same topic throughout, no sentence says it
    says = scored(2, 0.68, 0.0).model_copy(update={"sentence": 0.90})  # one sentence answers the question
    topic = topic.model_copy(update={"sentence": 0.70})
    fused = fuse([topic, says], [], k=2)
    assert [h.id for h in fused] == ["p2", "p1"]
    assert fused[0].score == pytest.approx(DENSE_WEIGHT * ((1 - SENTENCE_WEIGHT) * 0.68 + SENTENCE_WEIGHT * 0.90), abs=1e-12)
    # a passage with no sentence weighed (None) is ranked on its own similarity
    assert [h.id for h in fuse([scored(1, 0.72, 0.0), scored(2, 0.68, 0.0)], [], k=2)] == ["p1", "p2"]
    assert depth(10) == 15 and depth(1) == 1


def test_a_merge_keeps_lexical_k_of_the_lexical_list_and_k_of_the_dense_one():
    dense = [hit("org.a", str(i), 0.9 - i / 100) for i in range(6)]
    words = [hit("org.a", str(i), 9.0 - i) for i in range(6)]
    merged = merge([answered("org.a", *dense, lexical=words)], 5, "fed.q.org", 1.0, lexical_k=2)
    assert len(merged.hits) == 5 and keys(merged.lexical) == keys(words[:2])
    assert len(merge([answered("org.a", *dense, lexical=words)], 5, "fed.q.org", 1.0, lexical_k=lexical_depth(5)).lexical) \
        == lexical_depth(5) == 5, "a hybrid question's lexical list is as deep as its answer"
    assert len(merge([answered("org.a", *dense, lexical=words)], 5, "fed.q.org", 1.0).lexical) == 5


def test_counts_summed_over_a_child_that_did_not_count_may_be_of_patients():
    """Where no record is about a patient a name filters nothing (:func:`nodes.names.held_nowhere`); a child that
    did not count may hold the patient named, so its silence must not read as "nobody's records"."""
    from bus.messages import CollectionStats
    from nodes.merge import complete, summed

    def counted(path: str, people: int, **result) -> ChildOutcome:
        return answered(path, stats=CollectionStats(docs=5, length=50, people=people), **result)

    late = ChildOutcome(subject="fed.q.org.b", status="timed_out", took_ms=500.0,
                        error=ErrorInfo(type="deadline", reason="no reply in time"))
    denied = ChildOutcome(subject="fed.q.org.c", status="denied", took_ms=1.0,
                          error=ErrorInfo(type="denied", reason="no policy allows it"))
    assert summed([counted("org.a", 0), counted("org.b", 0)]).people == 0
    assert summed([counted("org.a", 0), denied]).people == 0, "what the caller may not search holds nobody for them"
    assert summed([counted("org.a", 0), late]).people == 1
    assert summed([counted("org.a", 3), late]).people == 3
    deep = counted("org.a", 0, timed_out=True, coverage=Coverage(total=3, successful=2, timed_out=1))
    assert summed([deep]).people == 1, "nor a leaf further down"
    partial = ChildOutcome(subject="fed.q.org.d", status="partial", took_ms=4.0,
                           result=SearchResult(stats=CollectionStats(docs=5, length=50), partial=True))
    assert summed([partial]).people == 1, "nor a child that answered for part of its units"
    by_policy = ChildOutcome(subject="fed.q.org.e", status="partial", took_ms=4.0,
                             result=SearchResult(stats=CollectionStats(docs=5, length=50), partial=True,
                                                 coverage=Coverage(total=3, successful=1, denied=2)))
    assert summed([by_policy]).people == 0, "a child partial only by units the caller may not search counted all"
    assert complete([counted("org.a", 0), by_policy]) and not complete([by_policy, late])
    assert summed([counted("org.a", 0), late]).docs == 5
