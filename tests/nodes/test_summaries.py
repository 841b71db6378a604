"""Routers that summarize their subtree, and organizations that release only summaries.

The demo federation runs over a real broker with some of its routers set, in the spec, to summarize
(``summarize = "extractive"``) or to release only summaries (``summaries_only``); questions go
through the real gateway.
"""

from __future__ import annotations

import contextlib

import pytest

from bus.client import ask
from bus.messages import Hit
from bus.asking import AskRequest
from nodes.demo.federation import SAMPLE_QUESTION
from nodes.leaf import Leaf
from nodes.run.brokers import embedded_broker
from nodes.run.federation import Federation
from policies.abac import Policy
from summarizer.answer import INSUFFICIENT, check
from tests.helpers.asking import asker


def all_passages(federation: Federation, org: str) -> dict:
    """Every passage ``org``'s leaves hold, by (path, id)."""
    return {(leaf.path, passage.id): passage for leaf in federation.nodes(org) if isinstance(leaf, Leaf)
            for passage in leaf.retriever.store.all_vectors()[0]}


async def start(spec, url, embedder) -> Federation:
    federation = Federation(spec, url, processes=False, verbose=False, embedder_factory=lambda: embedder)
    await federation.start()
    return federation


async def test_a_router_summarizes_every_passage_its_subtree_returned(nats_server, nc, open_spec, embedder):
    open_spec.orgs["hospital_a"].summarize = "extractive"
    federation = await start(open_spec, nats_server.url, embedder)
    try:
        texts = all_passages(federation, "hospital_a")
        answer = await ask(nc, AskRequest(question=SAMPLE_QUESTION, k=3, summarize="extractive"))
        [summary] = answer.summaries
        assert summary.path == "hospital_a" and summary.method == "extractive" and summary.status == "successful"
        in_top_k = sum(hit.org == "hospital_a" for hit in answer.hits)
        assert summary.passages > in_top_k and summary.passages >= 10, "it read all its units returned, not the top k"
        assert summary.sentences and summary.clusters and all(c.keywords for c in summary.clusters)
        for sentence in summary.sentences:
            for ref in sentence.sources:
                assert ref.path.startswith("hospital_a."), ref
                assert " ".join(sentence.text.removesuffix(" …").split()) in " ".join(texts[(ref.path, ref.id)].text.split())
            assert sorted(sentence.patients) == sorted({texts[(r.path, r.id)].patient for r in sentence.sources}), \
                "a sentence says whom its sources are about"
        assert all(hit.vector is None for hit in answer.hits), "vectors stop at the router that asked for them"
        assert check(answer.answer, answer.hits, answer.summaries) == []

        plain = await ask(nc, AskRequest(question=SAMPLE_QUESTION, k=3))
        assert plain.summaries == [] and plain.answer is None, "no answer asked for: no summary made"
    finally:
        await federation.stop()


async def test_nothing_relevant_makes_an_insufficient_summary_that_says_nothing(nats_server, nc, open_spec, embedder):
    from bus import codec
    from bus.messages import Query, SearchResult
    from bus.subjects import query_subject

    open_spec.orgs["hospital_b"].summarize = "extractive"
    federation = await start(open_spec, nats_server.url, embedder)
    question = "What is the boiling point of tungsten in kelvin?"
    try:
        # the router itself decides: no passage scores its floor, so its summary says nothing
        query = Query.with_vector(embedder.embed_one(question), question=question, model=embedder.fingerprint,
                                  summarize="extractive")
        reply = await nc.request(query_subject("hospital_b"), codec.encode(query), timeout=10)
        [summary] = codec.decode(reply.data, SearchResult).summaries
        assert summary.status == "insufficient" and summary.sentences == [] and summary.relevant == 0
        # through the gateway, which finds no record mentioning any of it, the router is not asked to summarize
        answer = await ask(nc, AskRequest(question=question, summarize="extractive"))
        assert answer.closest and answer.summaries == []
        assert answer.answer_info.status == "insufficient"
        # nor when one thing asked about is absent and the answer would name patients (known only once they answered)
        answer = await ask(nc, AskRequest(question="Which patients with gout were treated with methotrexate?",
                                          summarize="extractive"))
        assert answer.closest and answer.absent == ["methotrexate"] and answer.summaries == []
    finally:
        await federation.stop()


async def test_the_named_patients_passages_are_summarized_as_the_answer_quotes_them(nats_server, nc, open_spec, embedder):
    from summarizer.extractive import MIN_SCORE

    open_spec.orgs["hospital_b"].summarize = "extractive"
    federation = await start(open_spec, nats_server.url, embedder)
    try:
        patient = "Stephanie Nelson"  # a patient of hospital B's, whose records say 'Never used tobacco.'
        answer = await ask(nc, AskRequest(question=f"Does {patient} smoke?", summarize="extractive"))
        assert answer.filtered and patient in answer.names and answer.answer_info.status == "successful"
        assert answer.hits and all(hit.patient == patient for hit in answer.hits)
        assert any(hit.similarity < MIN_SCORE for hit in answer.hits), "scored by what is asked of her: some low"
        [summary] = answer.summaries
        # her passages are what was asked about, whatever their similarity: a summary calling them irrelevant would
        # stand beside an answer quoting them
        assert summary.status == "successful" and summary.relevant == summary.passages > 0 and summary.sentences
        assert all(sentence.patients == [patient] for sentence in summary.sentences)
        assert check(answer.answer, answer.hits, answer.summaries) == []
    finally:
        await federation.stop()


@contextlib.asynccontextmanager
async def secure(spec, embedder):
    """``spec``'s federation, with identities, over a broker that enforces each organization's permissions."""
    with embedded_broker(spec, spec.federation.state_dir / "js-secure") as server:
        federation = await start(spec, server.url, embedder)
        try:
            yield server.url
        finally:
            await federation.stop()


@pytest.fixture
async def released(demo_spec, embedder):
    """The secure demo federation where hospital A releases only summaries to other organizations' users."""
    demo_spec.orgs["hospital_a"].summaries_only = [Policy(name="outside-a", require={"org": ["hospital_b", "hospital_c"]})]
    async with secure(demo_spec, embedder) as url:
        yield url


async def ask_as(url, spec, user, question, **options):
    creds, nc = await asker(url, spec, user)
    try:
        return await ask(nc, AskRequest(question=question, **options), headers=creds.headers(question))
    finally:
        await nc.drain()


async def test_an_organization_releases_only_summaries_to_outside_users(released, demo_spec):
    question = SAMPLE_QUESTION
    inside = await ask_as(released, demo_spec, "A.phys", question, k=50, collapse=False)
    a_texts = {(hit.path, hit.id): hit.text for hit in inside.hits if hit.org == "hospital_a"}
    assert a_texts and all(a_texts.values()), "hospital A's own physician reads its passages"
    assert not any(hit.withheld for hit in inside.hits)

    # a generous deadline: what is checked is what the answer may quote, not how fast it comes on a busy machine
    outside = await ask_as(released, demo_spec, "B.phys", question, k=50, collapse=False, summarize="extractive",
                           deadline_ms=15_000)
    from_a = [hit for hit in outside.hits if hit.org == "hospital_a"]
    assert from_a and all(hit.withheld and hit.text == "" and hit.metadata == {} for hit in from_a)
    assert any(hit.text for hit in outside.hits if hit.org == "hospital_b"), "hospital B's own passages are released"
    dumped = outside.model_dump_json()
    assert not any(text in dumped for text in a_texts.values()), "no passage of hospital A reaches an outside user whole"
    [summary] = [s for s in outside.summaries if s.path == "hospital_a"]
    assert summary.status == "successful" and summary.sentences
    assert all(ref.path.startswith("hospital_a.") for s in summary.sentences for ref in s.sources)
    assert {(h.path, h.id) for h in from_a} & {(r.path, r.id) for s in summary.sentences for r in s.sources}
    assert check(outside.answer, outside.hits, outside.summaries) == [], "the answer quotes only what was released"

    plain = await ask_as(released, demo_spec, "B.phys", question, k=50)
    assert any(s.path == "hospital_a" for s in plain.summaries), "summaries-only means a summary even unasked"


def test_withheld_hits_are_quoted_only_through_the_summaries_that_cite_them():
    from bus.messages import PassageRef, Summary, SummarySentence

    hits = [Hit(id="p1", org="a", path="a.u", score=0.7, text="", patient="Ana Ruiz", withheld=True)]
    summary = Summary(path="a", method="extractive", status="successful",
                      sentences=[SummarySentence(text="Started warfarin for atrial fibrillation.",
                                                 sources=[PassageRef(path="a.u", id="p1")])])
    assert check("Ana Ruiz: Started warfarin for atrial fibrillation. [1]", hits, [summary]) == []
    assert check("Ana Ruiz: She stopped smoking. [1]", hits, [summary])[0].startswith("[1] does not contain")
    assert check("Ana Ruiz: Started warfarin for atrial fibrillation. [1]", hits)[0].startswith("[1] does not contain")


async def streamed_summaries(url, spec, user, question):
    """``question`` asked of the federation at ``url`` as ``user`` for an extractive answer: the final answer and every
    summary the caller saw, streamed with an organization's result or in the answer."""
    from bus.asking import OrgResult
    from bus.client import events

    creds, nc = await asker(url, spec, user)
    try:
        streamed = [event async for event in events(nc, AskRequest(question=question, summarize="extractive", k=50,
                                                                   deadline_ms=15_000), headers=creds.headers(question))]
    finally:
        await nc.drain()
    answer = streamed[-1]
    return answer, [s for event in streamed if isinstance(event, OrgResult) and event.result
                    for s in event.result.summaries] + answer.summaries


async def test_the_closest_records_are_not_summarized_as_if_they_answered(released, demo_spec):
    from nodes.demo import corpus as demo_corpus

    patients = list(demo_corpus.generate().patients)
    # no demo record mentions it (tests/nodes/test_concepts.py)
    answer, summaries = await streamed_summaries(released, demo_spec, "B.phys", "Which patients have Crohn's disease?")
    assert answer.closest and answer.hits, "the closest records are shown, labelled so"
    # hospital A releases only summaries to B.phys, so it summarizes whatever is asked: it is withdrawn here
    assert any(s.path == "hospital_a" for s in answer.summaries)
    assert all(s.status == "insufficient" and not s.sentences and not s.clusters and s.error.type == "ungrounded"
               for s in summaries), summaries
    assert "Crohn's disease" in answer.summaries[0].error.reason
    assert not any(name in s.model_dump_json() for s in summaries for name in patients), "no summary names anyone"


async def test_no_summary_reads_as_the_answer_the_records_of_a_named_patient_do_not_give(released, demo_spec):
    """Other patients' records mention hemoglobin A1c, so her organization was asked to summarize; hers do not (her
    hemoglobin is another test), and the answer says so: the summary of her records under it must not read like one."""
    answer = await ask_as(released, demo_spec, "B.phys", "What is Donna Perez's hemoglobin A1c?", summarize="extractive")
    assert answer.answer_info.status == "insufficient" and "hemoglobin A1c" in answer.answer_info.reason, answer.answer
    [summary] = [s for s in answer.summaries if s.path == "hospital_b"]
    assert summary.status == "insufficient" and not summary.sentences and not summary.clusters, summary
    assert summary.error.type == "ungrounded" and summary.error.reason == answer.answer_info.reason
    assert summary.passages and answer.hits, "what it read is still counted, and the closest records still shown"


async def test_a_user_who_may_see_nothing_is_told_so_and_no_one_is_named(demo_spec, embedder):
    # hospital C's researcher may search only hospital C: closed to everyone, nothing reaches them
    demo_spec.orgs["hospital_c"].gate = [Policy(name="nobody", require={"org": ["hospital_z"]})]
    async with secure(demo_spec, embedder) as url:
        for question in (SAMPLE_QUESTION, "What medications is Kevin Kelly taking?"):
            answer = await ask_as(url, demo_spec, "C.research", question, summarize="extractive")
            assert answer.hits == [] and answer.nodes["fed.q.hospital_c"].status == "denied"
            assert answer.answer == INSUFFICIENT and answer.answer_info.status == "insufficient"
            assert "Kevin" not in answer.answer and "Kelly" not in answer.answer


def test_a_summary_keeps_only_its_sentences_about_patients_that_mention_what_is_asked():
    from bus.messages import Cluster, ErrorInfo, PassageRef, Summary, SummarySentence
    from summarizer.summaries import on_topic

    def sentence(text: str, cluster: int, patient: str | None = "Ana Ruiz") -> SummarySentence:
        return SummarySentence(text=text, sources=[PassageRef(path="a.u", id=text[:8])], cluster=cluster,
                               patients=[patient] if patient else [])

    says = lambda text: "fibrillation" in text  # noqa: E731
    why = "none of its sentences about patients mentions atrial fibrillation"
    clusters = [Cluster(keywords=[word]) for word in ("sertraline", "rhythm", "stroke")]
    summary = Summary(path="a", method="extractive", status="successful", passages=9, relevant=5, clusters=clusters,
                      sentences=[sentence("Current medications: sertraline 50 mg daily.", 0),
                                 sentence("Known paroxysmal atrial fibrillation, off anticoagulation.", 1),
                                 sentence("Strokes are often embolic.", 2, patient=None)])
    [kept] = on_topic([summary], says, why)
    assert [s.text for s in kept.sentences] == [summary.sentences[1].text, summary.sentences[2].text], \
        "a patient's sentence off the topic goes; a reference text's sentence stays"
    assert [s.cluster for s in kept.sentences] == [0, 1] and kept.clusters == clusters[1:]
    assert kept.status == "successful" and (kept.passages, kept.relevant) == (9, 5)

    off = summary.model_copy(update={"sentences": summary.sentences[:1]})
    [withdrawn] = on_topic([off], says, why)
    assert withdrawn.status == "insufficient" and not withdrawn.sentences and not withdrawn.clusters
    assert withdrawn.error.type == "ungrounded" and withdrawn.error.reason == why
    failed = off.model_copy(update={"status": "failed", "error": ErrorInfo(type="llm", reason="too slow")})
    [stood_in] = on_topic([failed], says, why)
    assert stood_in.status == "failed" and stood_in.error.type == "llm" and not stood_in.sentences
    written = off.model_copy(update={"method": "llm"})
    assert on_topic([written], says, why) == [written], "an LLM's summary is written for the question and checked"


async def test_the_summaries_beside_a_refusal_say_why_as_it_does(released, demo_spec):
    """"Which patients had a colonoscopy?" is refused, the demo's records mentioning it only as planned; hospital A's
    summary under it said "none of its sentences about patients mentions colonoscopy" (its sentences nearest the
    question were off the topic), as if its records did not mention it."""
    answer = await ask_as(released, demo_spec, "B.phys", "Which patients had a colonoscopy?", summarize="extractive")
    assert answer.answer_info.status == "insufficient" and "only as planned" in answer.answer_info.reason, answer.answer
    assert any(s.path == "hospital_a" for s in answer.summaries), "hospital A releases only summaries to B.phys"
    for summary in answer.summaries:
        assert summary.status == "insufficient" and not summary.sentences and not summary.clusters, summary
        assert summary.error is None or summary.error.reason == answer.answer_info.reason, summary.error
    hospital_a = next(s for s in answer.summaries if s.path == "hospital_a")
    assert hospital_a.error is not None and hospital_a.error.reason == answer.answer_info.reason, hospital_a.error


async def test_a_summary_beside_an_answer_says_only_what_is_asked_of_its_patients(released, demo_spec):
    question = "Which patients have atrial fibrillation?"
    answer, summaries = await streamed_summaries(released, demo_spec, "B.phys", question)
    assert not answer.closest and answer.answer_info.status == "successful"
    # hospital A releases only summaries to B.phys, so it summarizes its passages nearest the question, whatever they say
    assert any(s.path == "hospital_a" for s in answer.summaries)
    assert any(s.sentences for s in answer.summaries), "the summaries of what mentions it still say it"
    said = ("fibrillation", "atrial", "afib", "arrhythmia", "irregular")  # a word of it, as the records may write it
    for summary in summaries:
        for sentence in summary.sentences:
            assert not sentence.patients or any(word in sentence.text.lower() for word in said), (summary.path,
                                                                                                   sentence.text)
        if summary.status == "insufficient" and summary.error is not None:
            assert "atrial fibrillation" in summary.error.reason
