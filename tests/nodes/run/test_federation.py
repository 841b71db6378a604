"""The demo federation end to end over a real nats-server: results, guarantees and failures."""

from __future__ import annotations

import asyncio
import json
import time

import msgpack
import numpy as np
import pytest

from bus import codec
from bus.errors import AskError
from bus import headers as h
from bus.messages import AskRequest, ErrorInfo, Query, SearchResult
from bus.subjects import query_subject
from nodes.run.baseline import CentralIndex, intersection
from bus.client import ask, discover
from nodes.run.federation import Federation
from nodes.run.spec import FederationSpec

ORGS = {"hospital_a", "hospital_b", "hospital_c"}


def reuse_demo_stores(spec: FederationSpec, demo_dir) -> None:
    """Points each leaf of ``spec`` at the session's store for the same data file (no re-embedding).

    A leaf ``org.x.y.unit`` whose data is the demo's ``<org>/<unit>.jsonl`` gets the demo's
    ``org.unit`` store; leaves with other data are left to build their own.
    """
    corpus = demo_dir / "corpus"
    for path, node in spec.leaves().items():
        data = node.data
        if data is not None and data.parent.parent == corpus:
            target = spec.leaf_folder(path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(demo_dir / "state" / "leaves" / f"{data.parent.name}.{data.stem}")


async def test_a_question_reaches_all_three_hospitals(demo_federation, nc):
    events = []
    answer = await ask(nc, AskRequest(question="Which patients have heavy alcohol use with liver disease?", k=30),
                       on_event=events.append)
    assert sorted(e.org for e in events) == sorted(ORGS)
    assert all(e.report.status == "successful" and e.report.hits > 0 for e in events)
    assert {hit.org for hit in answer.hits} == ORGS
    assert answer.coverage.total == answer.coverage.successful == 10
    assert not answer.partial and not answer.timed_out
    assert len(answer.hits) == 30
    assert [hit.score for hit in answer.hits] == sorted((hit.score for hit in answer.hits), reverse=True)
    assert "fed.q.hospital_b.cardiology" in answer.nodes and answer.nodes["fed.ask"].status == "successful"


async def test_planted_trend_is_retrieved(demo_federation, nc, demo_dir):
    trends = json.loads((demo_dir / "corpus" / "trends.json").read_text())
    trend = trends["alcohol_liver"]
    answer = await ask(nc, AskRequest(question=trend["question"], k=10))
    found = {hit.metadata["record_id"] for hit in answer.hits}
    assert len(found & set(trend["record_ids"])) >= 5, "most of the top 10 come from the planted notes"


def assert_same_hits(federated, central, question):
    """Exactly the same passages, in the same order, with bit-identical scores."""
    assert intersection(federated, central) == 1.0, question
    assert [(h.path, h.id, h.score) for h in federated] == [(h.path, h.id, h.score) for h in central], question


async def ask_and_compare(client, central, question, k=10, **options):
    answer = await ask(client, AskRequest(question=question, k=k, include_embedding=True, **options))
    vector = np.frombuffer(answer.embedding, dtype="<f4")
    expected = central.search(vector, k, answer.patients, collapse=options.get("collapse", True))
    assert_same_hits(answer.hits, expected, question)
    return answer


async def test_federated_top_k_equals_centralized(demo_federation, nc, demo_spec, demo_dir):
    questions = json.loads((demo_dir / "corpus" / "questions.json").read_text())
    assert len(questions) >= 20
    central = CentralIndex.from_spec(demo_spec)
    for question in questions:
        await ask_and_compare(nc, central, question)
        await ask_and_compare(nc, central, question, collapse=False)


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


async def test_a_leaf_that_never_answers_times_out_by_the_deadline(demo_federation, nc):
    leaf = next(n for n in demo_federation._nodes["hospital_c"] if n.path == "hospital_c.neurology")
    await leaf.stop()
    swallowed = []

    async def black_hole(msg):
        swallowed.append(msg)  # a live subscriber that never replies

    await nc.subscribe(query_subject("hospital_c.neurology"), queue="q", cb=black_hole)
    await nc.flush()
    deadline_ms = 600
    started = time.monotonic()
    answer = await ask(nc, AskRequest(question="Which patients had a seizure?", deadline_ms=deadline_ms))
    elapsed_ms = (time.monotonic() - started) * 1000
    assert swallowed, "the request did reach the silent leaf"
    assert elapsed_ms < deadline_ms + 150, f"answered {elapsed_ms:.0f} ms after a {deadline_ms} ms deadline"
    assert answer.partial and answer.timed_out
    report = answer.nodes["fed.q.hospital_c.neurology"]
    assert report.status == "timed_out" and report.error.type == "deadline"
    assert answer.nodes["fed.q.hospital_c"].status == "partial"
    assert answer.coverage.timed_out == 1 and answer.coverage.successful == 9
    assert answer.hits and "hospital_c.neurology" not in {hit.path for hit in answer.hits}


async def test_a_stopped_organization_is_unavailable_at_once(demo_federation, nc):
    await demo_federation.stop_org("hospital_b")
    started = time.monotonic()
    answer = await ask(nc, AskRequest(question="atrial fibrillation", deadline_ms=5000))
    elapsed_ms = (time.monotonic() - started) * 1000
    assert elapsed_ms < 1500, "no responders is known at once, not after the 5 s deadline"
    assert answer.nodes["fed.q.hospital_b"].status == "unavailable"
    assert answer.coverage.unavailable == 1 and answer.partial and not answer.timed_out
    assert "hospital_b" not in {hit.org for hit in answer.hits}
    strict = await ask(nc, AskRequest(question="atrial fibrillation", allow_partial=False))
    assert strict.error.type == "coverage" and strict.hits == []
    enough = await ask(nc, AskRequest(question="atrial fibrillation", min_coverage=0.5))
    assert enough.error is None and enough.hits
    await demo_federation.start_org("hospital_b")
    back = await ask(nc, AskRequest(question="atrial fibrillation"))
    assert not back.partial and back.coverage.successful == 10


def _all_subjects(spec):
    return [query_subject(path) for path, _ in spec.nodes()]


@pytest.mark.parametrize("body", [b"\xc1garbage", msgpack.packb({"foo": 1}), msgpack.packb([1, 2, 3]), b""])
async def test_bad_messages_get_error_replies_and_nodes_keep_serving(demo_federation, nc, demo_spec, body):
    for subject in _all_subjects(demo_spec) + ["fed.ask"]:
        reply = await nc.request(subject, body, timeout=2)
        assert reply.headers[h.KIND] == "error", subject
        error = codec.decode(reply.data, ErrorInfo)
        assert error.type in {"decode", "validation"}, (subject, error)
    answer = await ask(nc, AskRequest(question="chest pain"))
    assert answer.coverage.successful == 10


async def test_wrong_model_and_expired_budget_are_refused(demo_federation, nc, embedder):
    vector = embedder.embed_one("chest pain")
    other = Query.with_vector(vector, question="chest pain", model="some-other-model:384:0")
    reply = await nc.request(query_subject("hospital_b.cardiology"), codec.encode(other), timeout=2)
    assert codec.decode(reply.data, ErrorInfo).type == "model_mismatch"
    via_router = await nc.request(query_subject("hospital_b"), codec.encode(other), timeout=2)
    result = codec.decode(via_router.data, SearchResult)
    assert result.partial and result.coverage.failed == 3
    assert result.nodes["fed.q.hospital_b.cardiology"].error.type == "model_mismatch"

    good = Query.with_vector(vector, question="chest pain", model=embedder.fingerprint)
    reply = await nc.request(query_subject("hospital_b"), codec.encode(good), timeout=2, headers={h.BUDGET: "0"})
    assert codec.decode(reply.data, ErrorInfo).type == "expired"
    short = Query.with_vector(np.ones(10, dtype=np.float32) / np.sqrt(10), question="x", model=embedder.fingerprint)
    reply = await nc.request(query_subject("hospital_b.cardiology"), codec.encode(short), timeout=2)
    assert codec.decode(reply.data, ErrorInfo).type == "model_mismatch"


async def test_ask_validation_error_reaches_the_caller(demo_federation, nc):
    with pytest.raises(AskError, match="validation"):
        await ask(nc, AskRequest.model_construct(question="", k=None, fetch_k=None, deadline_ms=None,
                                                 allow_partial=True, min_coverage=0.0, summarize="none"))


async def test_status_lists_every_node_with_counters(demo_federation, nc, demo_spec):
    await ask(nc, AskRequest(question="knee fracture"))
    nodes = await discover(nc)
    paths = {n.path for n in nodes}
    assert paths == {path for path, _ in demo_spec.nodes()} | {""}
    leaf = next(n for n in nodes if n.path == "hospital_a.orthopaedics")
    assert leaf.role == "leaf" and leaf.requests >= 1 and leaf.counters["queries"] >= 1
    assert int(leaf.info.metadata["passages"]) > 0
    gateway = next(n for n in nodes if n.role == "gateway")
    assert gateway.subject == "fed.ask" and gateway.counters["questions"] >= 1


async def test_concurrent_questions_are_served_concurrently(demo_federation, nc):
    questions = ["seizure", "stroke", "pneumonia", "hip fracture", "depression", "heart failure"]
    answers = await asyncio.gather(*(ask(nc, AskRequest(question=q, k=5)) for q in questions))
    assert all(a.coverage.successful == 10 and len(a.hits) == 5 for a in answers)
    assert len({a.trace for a in answers}) == len(questions)


async def test_replicas_share_a_subject_and_cover_for_each_other(demo_federation, nc, demo_spec):
    from nodes.data.retrievers import PassageRetriever
    from nodes.data.store import LeafStore
    from nodes.leaf import Leaf

    path = "hospital_c.neurology"
    original = next(n for n in demo_federation._nodes["hospital_c"] if n.path == path)
    replica = Leaf(path, PassageRetriever(LeafStore.existing(demo_spec.leaf_folder(path)), path))
    await replica.start(nc)
    for _ in range(30):
        answer = await ask(nc, AskRequest(question="migraine with aura"))
        assert answer.coverage.successful == 10
    assert original.counters["queries"] > 0 and replica.counters["queries"] > 0, "the queue group spreads load"
    await original.stop()
    answer = await ask(nc, AskRequest(question="migraine with aura"))
    assert answer.coverage.successful == 10, "the replica serves alone"
    await replica.stop()


async def test_a_crashed_organization_process_is_unavailable(nats_server, open_spec, embedder, nc):
    federation = Federation(open_spec, nats_server.url, processes=True, verbose=False,
                            embedder_factory=lambda: embedder)
    await federation.start()
    try:
        assert (await ask(nc, AskRequest(question="stroke"))).coverage.successful == 10
        federation._procs["hospital_c"].kill()  # SIGKILL: no goodbye, the broker notices the lost connection
        await federation._procs["hospital_c"].wait()
        started = time.monotonic()
        answer = await ask(nc, AskRequest(question="stroke", deadline_ms=5000))
        assert (time.monotonic() - started) < 1.5
        assert answer.nodes["fed.q.hospital_c"].status == "unavailable"
        assert answer.coverage.successful == 8 and answer.partial
    finally:
        await federation.stop()


async def test_bad_rows_are_skipped_and_missing_data_leaves_the_rest_serving(nats_server, demo_dir, embedder, nc,
                                                                              tmp_path, capfd):
    corpus = demo_dir / "corpus"
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"id": "ok", "text": "Stroke with left-sided weakness."}\n{"id": "x", "text": \n')
    spec_path = tmp_path / "fed.toml"
    spec_path.write_text(f"""
[federation]
state_dir = "state"
[orgs.hospital_c.units.admissions]
data = "{corpus}/hospital_c/admissions.jsonl"
[orgs.hospital_c.units.neurology]
data = "{broken}"
[orgs.hospital_c.units.oncology]
data = "{tmp_path}/never-written.jsonl"
""")
    spec = FederationSpec.load(spec_path)
    reuse_demo_stores(spec, demo_dir)
    federation = Federation(spec, nats_server.url, processes=False, embedder_factory=lambda: embedder)
    await federation.start()
    try:
        err = capfd.readouterr().err
        assert "hospital_c.oncology: NOT SERVING" in err and "never-written.jsonl does not exist" in err
        assert "broken.jsonl:2: not valid JSON" in err and "skipped 1" in err
        answer = await ask(nc, AskRequest(question="stroke"))
        assert answer.nodes["fed.q.hospital_c.oncology"].status == "unavailable"
        assert answer.nodes["fed.q.hospital_c.neurology"].status == "successful"
        assert "ok" in {hit.metadata.get("record_id") for hit in answer.hits}
        assert answer.nodes["fed.q.hospital_c.admissions"].status == "successful"
    finally:
        await federation.stop()


async def test_a_reply_too_large_to_send_becomes_an_error_reply(nats_server, embedder, nc, tmp_path):
    big = "x" * 5_000  # 300 hits with 5 kB of metadata each exceed the 1 MiB body bound
    data = tmp_path / "big.jsonl"
    data.write_text("".join(json.dumps({"id": f"r{i}", "text": f"note {i}", "metadata": {"blob": big}}) + "\n"
                            for i in range(300)))
    spec_path = tmp_path / "fed.toml"
    spec_path.write_text(f'[orgs.site.units.big]\ndata = "{data}"\n[orgs.site.units.small]\ndata = "{data}"\n')
    federation = Federation(FederationSpec.load(spec_path), nats_server.url, processes=False, verbose=False,
                            embedder_factory=lambda: embedder)
    await federation.start()
    try:
        answer = await ask(nc, AskRequest(question="note", k=300, fetch_k=300))
        assert answer.nodes["fed.q.site.big"].status == "failed"
        assert answer.nodes["fed.q.site.big"].error.type == "too_large"
        answer = await ask(nc, AskRequest(question="note", k=5))
        assert answer.coverage.successful == 2 and len(answer.hits) == 5
    finally:
        await federation.stop()


async def test_copied_text_is_shown_once_with_its_other_locations(nats_server, embedder, nc, tmp_path):
    history = "PAST MEDICAL HISTORY: hypertension, type 2 diabetes, chronic kidney disease."
    notes = {  # notes copy text forward: the same history, on other dates, at two sites
        "north.clinic": [("Ana Ruiz", "2023-01-05", history), ("Ana Ruiz", "2023-03-02", history),
                         ("Bo Chen", "2023-03-02", history), ("Ana Ruiz", "2023-04-01", "PLAN: dialysis access.")],
        "south.clinic": [("Ana Ruiz", "2024-06-09", history), ("Cy Diaz", None, "HPI: knee pain after a fall.")],
    }
    lines = ["[federation]", 'state_dir = "state"']
    for path, records in notes.items():
        data = tmp_path / f"{path}.jsonl"
        data.write_text("".join(json.dumps({"id": f"n{i}", "text": text, "patient": who, "date": date}) + "\n"
                                for i, (who, date, text) in enumerate(records)))
        org, unit = path.split(".")
        lines += [f"[orgs.{org}.units.{unit}]", f'data = "{data.name}"']
    (tmp_path / "fed.toml").write_text("\n".join(lines))
    federation = Federation(FederationSpec.load(tmp_path / "fed.toml"), nats_server.url, processes=False,
                            verbose=False, embedder_factory=lambda: embedder)
    await federation.start()
    try:
        question = "history of hypertension and diabetes with kidney disease"
        plain = await ask(nc, AskRequest(question=question, k=6, collapse=False))
        answer = await ask(nc, AskRequest(question=question, k=6))
    finally:
        await federation.stop()
    assert len(plain.hits) == 6
    copies = [h for h in plain.hits if h.patient == "Ana Ruiz" and h.text.endswith(history)]
    assert len(copies) == 3
    kept = [h for h in answer.hits if h.patient == "Ana Ruiz" and h.text.endswith(history)]
    assert len(kept) == 1 and len(answer.hits) == 4, "Ana Ruiz's history once, Bo Chen's (another patient) kept"
    assert kept[0].order_key() == min(h.order_key() for h in copies), "the first copy in the order is the one kept"
    assert {(d.path, d.id) for d in kept[0].duplicates} == {(h.path, h.id) for h in copies} - {(kept[0].path, kept[0].id)}
    assert any(h.patient == "Bo Chen" for h in answer.hits)


async def test_names_spacy_misses_are_found_through_the_leaves(nats_server, embedder, nc, tmp_path):
    notes = {
        "north.clinic": [("Grace Okafor", "MEDICATIONS: metformin 500 mg twice daily, lisinopril 10 mg daily."),
                         ("Tom Baker", "MEDICATIONS: metformin 1000 mg twice daily."),
                         ("Ana Ruiz", "PLAN: start metformin and review in two weeks.")],
        "south.clinic": [("Siobhán Ní Bhriain", "PLAN: taper prednisone over two weeks; metformin held."),
                         ("Tom Baker", "PLAN: continue metformin, recheck HbA1c in three months.")],
    }
    lines = ["[federation]", 'state_dir = "state"']
    for path, records in notes.items():
        data = tmp_path / f"{path}.jsonl"
        data.write_text("".join(json.dumps({"id": f"n{i}", "text": text, "patient": who}) + "\n"
                                for i, (who, text) in enumerate(records)))
        org, unit = path.split(".")
        lines += [f"[orgs.{org}.units.{unit}]", f'data = "{data.name}"']
    (tmp_path / "fed.toml").write_text("\n".join(lines))
    spec = FederationSpec.load(tmp_path / "fed.toml")
    federation = Federation(spec, nats_server.url, processes=False, verbose=False, embedder_factory=lambda: embedder)
    await federation.start()
    try:
        for question, name, leaf in [("What is Grace Okafor's metformin dose?", "Grace Okafor", "north.clinic"),
                                     ("What was Siobhán Ní Bhriain's plan?", "Siobhán Ní Bhriain", "south.clinic")]:
            answer = await ask(nc, AskRequest(question=question))
            assert answer.patients == [name], question
            assert answer.names == {name: [leaf]}, "the filter reports which leaf knew the name"
            assert answer.hits and {hit.patient for hit in answer.hits} == {name}
        nobody = await ask(nc, AskRequest(question="What is Hospital North's metformin policy?"))
        assert nobody.patients == [] and len({hit.patient for hit in nobody.hits}) > 1, "unknown spans are ignored"
    finally:
        await federation.stop()
