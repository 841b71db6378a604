"""What every node does with a request before any work, and with its reply (:mod:`nodes._service`), over a
real broker: no single message takes a node down or starves everyone else.

Malformed bodies, oversized or invalid headers, a question too long, a query for another embedding model
and a request with no budget left get an error reply (never echoing the input); requests nobody waits
for are dropped and counted; a reply too large to send becomes an error reply; a burst of long questions
leaves a normal client answered by its deadline. Every case is followed by a normal question that must
still be answered by all ten units of the demo federation.
"""

from __future__ import annotations

import asyncio
import json
import time

import msgpack
import numpy as np
import pytest

from bus import codec
from bus import headers as h
from bus.client import ask, discover
from bus.errors import AskError
from bus.messages import ErrorInfo, Query, SearchResult
from bus.asking import AskRequest
from bus.subjects import query_subject
from nodes.run.federation import Federation
from nodes.run.spec import FederationSpec
from tests.helpers.federations import ALL_UNITS, everyone_still_answers
from tests.helpers.timing import SLACK_MS


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
        assert answer.coverage.successful == 2 and len(answer.hits) == 5, answer.nodes
    finally:
        await federation.stop()


async def test_an_oversized_header_is_refused_by_every_node_without_being_echoed(demo_federation, nc, demo_spec):
    huge = "t" * 600_000
    for subject in [query_subject(path) for path, _ in demo_spec.nodes()] + ["fed.ask"]:
        reply = await nc.request(subject, b"", timeout=5, headers={h.TRACE: huge})
        error = codec.decode(reply.data, ErrorInfo)
        assert error.type == "validation" and "Fed-Trace" in error.reason, (subject, error)
        assert huge[:100] not in reply.data.decode(errors="replace") and h.TRACE not in (reply.headers or {})
    many = {f"X-Junk-{i}": "v" for i in range(40)}
    reply = await nc.request("fed.ask", codec.encode(AskRequest(question="stroke")), timeout=5, headers=many)
    assert codec.decode(reply.data, ErrorInfo).type == "validation"
    bad_trace = await nc.request("fed.ask", codec.encode(AskRequest(question="stroke")), timeout=5,
                                 headers={h.TRACE: "not a token!"})
    assert "Fed-Trace" in codec.decode(bad_trace.data, ErrorInfo).reason
    await everyone_still_answers(nc)
    assert all(not link.reopened for link in demo_federation._links.values()), "no connection was closed"


@pytest.mark.timing
async def test_a_long_question_is_answered_and_a_longer_one_refused(demo_federation, nc):
    words = "chest pain with dyspnea and a history of heart failure ".split()
    long_question = " ".join(words[i % len(words)] for i in range(2000))[:8000]
    deadline_ms = 3000
    started = time.monotonic()
    answer = await ask(nc, AskRequest(question=long_question, deadline_ms=deadline_ms))
    assert (time.monotonic() - started) * 1000 <= deadline_ms + SLACK_MS and answer.coverage.successful == ALL_UNITS
    reply = await nc.request("fed.ask", codec.encode(AskRequest.model_construct(
        question=long_question + "x", k=None, fetch_k=None, deadline_ms=None, allow_partial=True, min_coverage=0.0,
        collapse=True, summarize="none", include_embedding=False)), timeout=5)
    assert codec.decode(reply.data, ErrorInfo).type == "validation"
    await everyone_still_answers(nc)


async def test_requests_nobody_waits_for_are_dropped_before_any_work(demo_federation, nc):
    gateway = demo_federation.gateway
    asked = gateway.counters["questions"]
    for _ in range(10):
        await nc.publish("fed.ask", codec.encode(AskRequest(question="Which patients had a stroke?")))
    await nc.publish("fed.ask", codec.encode(AskRequest(question="stroke")), reply="fed.q.hospital_a")
    await nc.flush()
    await everyone_still_answers(nc)
    assert gateway.counters["dropped.no_reply"] == 10 and gateway.counters["dropped.reply_subject"] == 1
    assert gateway.counters["questions"] == asked + 1, "only the normal question was worked on"


@pytest.mark.timing
async def test_a_burst_of_long_questions_does_not_starve_a_normal_client(demo_federation, nc):
    long_question = ("persistent cough with fever night sweats weight loss and hemoptysis " * 120)[:8000]
    deadline_ms = 3000
    stop = asyncio.Event()
    long_outcomes = []

    async def flood():
        while not stop.is_set():
            try:
                long_outcomes.append(await ask(nc, AskRequest(question=long_question, deadline_ms=deadline_ms)))
            except AskError as exc:
                long_outcomes.append(exc.error.type)

    floods = [asyncio.create_task(flood()) for _ in range(4)]
    try:
        await asyncio.sleep(0.5)
        timings = []
        for _ in range(15):
            started = time.monotonic()
            answer = await ask(nc, AskRequest(question="Which patients had a stroke?", deadline_ms=deadline_ms))
            timings.append(time.monotonic() - started)
            assert answer.error is None and answer.coverage.successful == ALL_UNITS, answer.nodes
    finally:
        stop.set()
        await asyncio.gather(*floods)
    assert max(timings) * 1000 <= deadline_ms + SLACK_MS, \
        f"normal answers took up to {max(timings):.2f} s against a {deadline_ms} ms deadline"
    assert long_outcomes, "the flood really ran"
    print(f"normal answers: max {max(timings):.2f} s; long questions: {len(long_outcomes)} answered or refused")


async def test_status_counts_drops_and_errors(demo_federation, nc):
    await nc.publish("fed.q.hospital_a", b"")
    await nc.request("fed.q.hospital_a", b"\xc1", timeout=5)
    nodes = {n.path: n for n in await discover(nc)}
    assert nodes["hospital_a"].counters["dropped.no_reply"] >= 1 and nodes["hospital_a"].errors >= 1
