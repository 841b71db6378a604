"""An extractive answer about patients embeds nothing at question time: leaves embed the sentences an answer may
weigh when they store the passages (:mod:`nodes.data._sentences`), and the gateway fetches their vectors for the
passages it answers from (``want = "sentences"``) under the caller's proof for a follow-up."""

from __future__ import annotations

import numpy as np
import pytest
from pydantic import ValidationError

from bus import headers as h
from bus.asking import AskRequest
from bus.client import ask
from bus.connection import connect
from bus.messages import Hit, PassageRef, Query
from nodes.run.assemble import sign_in
from summarizer.answer import check, extractive_answer
from tests.helpers.asking import ask_as

QUESTION = "Which patients with diabetes take metformin?"


async def test_an_answer_about_patients_looks_up_its_sentences_instead_of_embedding_them(secure, demo_spec, embedder):
    federation, url = secure
    gateway = federation.gateway
    embedded: list[str] = []
    own = gateway.answerer.embed
    gateway.answerer.embed = lambda texts: (embedded.extend(texts), own(texts))[1]
    leaves = {node.path: node for org in ("hospital_a", "hospital_b", "hospital_c") for node in federation.nodes(org)
              if node.role == "leaf"}
    before = {path: leaf.counters["queries"] for path, leaf in leaves.items()}

    answer = await ask_as(url, demo_spec, "A.phys", QUESTION, summarize="extractive", include_embedding=True)

    assert answer.answer_info.status == "successful" and answer.hits[0].patient and not check(answer.answer, answer.hits)
    assert embedded == [], "every sentence the answer weighed was looked up, none embedded at question time"
    asked = {path: leaf.counters["queries"] - before[path] for path, leaf in leaves.items()}
    holding = {hit.path for hit in answer.hits}
    assert all(asked[path] == 2 for path in holding) and all(asked[p] <= 1 for p in asked if p not in holding), \
        f"the follow-up reaches only the leaves holding a passage of the answer (the others: the search, if the " \
        f"caller may search them): {asked}"
    vector = np.frombuffer(answer.embedding, dtype="<f4")
    assert answer.answer == extractive_answer(vector, answer.hits, embedder.embed, question=QUESTION), \
        "the answer the gateway would have written by embedding every sentence itself"

    before = {path: leaf.counters["queries"] for path, leaf in leaves.items()}
    again = await ask_as(url, demo_spec, "A.phys", QUESTION, summarize="extractive")
    asked = {path: leaf.counters["queries"] - before[path] for path, leaf in leaves.items()}
    assert again.answer == answer.answer and embedded == [] and all(asked[hit.path] == 1 for hit in again.hits), \
        f"the same passages again: their vectors are remembered, no leaf is asked for them twice: {asked}"


async def test_without_a_proof_for_the_follow_up_the_answer_embeds_its_sentences(secure, demo_spec):
    federation, url = secure
    gateway = federation.gateway
    embedded: list[str] = []
    own = gateway.answerer.embed
    gateway.answerer.embed = lambda texts: (embedded.extend(texts), own(texts))[1]
    nodes = {node.path: node for org in ("hospital_a", "hospital_b") for node in federation.nodes(org)}  # A.phys's

    def errors() -> dict[str, int]:
        return {path: sum(n for name, n in node.counters.items() if name.startswith("errors.")) for path, node in
                nodes.items()}

    before = errors()
    creds = sign_in(demo_spec, "A.phys")
    nc = await connect(url, "test-A.phys", **creds.connect_options())
    try:
        headers = {name: value for name, value in creds.headers(QUESTION).items() if name != h.RECORD_PROOF}
        answer = await ask(nc, AskRequest(question=QUESTION, summarize="extractive"), headers=headers)
    finally:
        await nc.drain()
    assert answer.answer_info.status == "successful" and embedded, "the gateway embeds the sentences itself"
    assert {hit.org for hit in answer.hits} <= {"hospital_a", "hospital_b"} and errors() == before, \
        "and asks no organization for a follow-up the caller did not sign for (each would refuse it)"


def test_passages_are_named_by_and_only_by_a_query_for_their_sentences():
    vector = np.zeros(384, dtype="<f4")
    vector[0] = 1.0
    ref = PassageRef(path="hospital_a.medicine", id="note-1#0")
    with pytest.raises(ValidationError, match="passages are named"):
        Query.with_vector(vector, question="q", model="m", want="sentences")
    with pytest.raises(ValidationError, match="passages are named"):
        Query.with_vector(vector, question="q", model="m", passages=[ref])
    query = Query.with_vector(vector, question="q", model="m", want="sentences", passages=[ref])
    assert query.use == "record" and query.named() == ["hospital_a.medicine"]


def test_a_hit_carries_sentence_vectors_only_of_the_size_asked():
    rows = np.eye(3, 384, dtype="<f4")
    hit = Hit(id="n#0", org="o", path="o.u", score=0.5, text="t", sentences=rows.tobytes())
    assert np.array_equal(hit.sentence_vectors(384), rows)
    bare = Hit(id="n", org="o", path="o.u", score=0.5, text="t")
    assert hit.sentence_vectors(768) is None and bare.sentence_vectors(384) is None
    skewed = Hit(id="n#0", org="o", path="o.u", score=0.5, text="t", sentences=(2 * rows).tobytes())
    assert skewed.sentence_vectors(384) is None, "no vectors that are not what an embedding is"
