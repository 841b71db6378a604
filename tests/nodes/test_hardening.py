"""No single message takes a node down or starves everyone else (real broker, the demo federation).

Every case below is followed by a normal question that must still be answered by all ten units.
"""

from __future__ import annotations

import asyncio
import math
import time

import pytest

from bus import codec
from bus.errors import AskError
from bus import headers as h
from bus.client import ask, discover, wait_until_serving
from bus.messages import AskRequest, Coverage, ErrorInfo, Hit, SearchResult
from bus.subjects import query_subject

ALL_UNITS = 10


async def everyone_still_answers(nc):
    answer = await ask(nc, AskRequest(question="Which patients had a stroke?", deadline_ms=5000))
    assert answer.coverage.successful == ALL_UNITS and not answer.partial, answer.nodes
    return answer


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


async def test_a_question_naming_too_many_people_is_a_validation_error(demo_federation, nc):
    firsts = ["James", "Mary", "John", "Linda", "Robert", "Susan", "Michael", "Karen", "David", "Nancy", "Paul"]
    lasts = ["Smith", "Jones", "Brown"]
    people = [f"Mr. {first} {last}" if i % 2 else f"Mrs. {first} {last}"
              for i, (first, last) in enumerate((f, la) for la in lasts for f in firsts)]
    question = "Compare the medications of " + ", ".join(people) + "."
    with pytest.raises(AskError) as caught:
        await ask(nc, AskRequest(question=question))
    assert caught.value.error.type == "validation" and "at most 32" in caught.value.error.reason
    assert "Smith" not in caught.value.error.reason, "the names are not echoed"
    await everyone_still_answers(nc)


async def test_a_long_question_is_answered_and_a_longer_one_refused(demo_federation, nc):
    words = "chest pain with dyspnea and a history of heart failure ".split()
    long_question = " ".join(words[i % len(words)] for i in range(2000))[:8000]
    started = time.monotonic()
    answer = await ask(nc, AskRequest(question=long_question, deadline_ms=3000))
    assert (time.monotonic() - started) < 3.0 + 1.5 and answer.coverage.successful == ALL_UNITS
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


async def test_a_node_whose_connection_the_broker_closes_comes_back(demo_federation, nc):
    link = demo_federation.link("hospital_b")
    closed = link.nc
    closed._transport.write(b"THIS IS NOT NATS\r\n")  # a protocol error: the broker closes the connection
    await closed._transport.drain()
    for _ in range(100):
        if link.reopened:
            break
        await asyncio.sleep(0.05)
    assert closed.is_closed and link.reopened == 1 and link.nc is not closed
    await wait_until_serving(nc, [query_subject(p) for p in ("hospital_b", "hospital_b.cardiology")], timeout=30)
    await everyone_still_answers(nc)


async def test_a_burst_of_long_questions_does_not_starve_a_normal_client(demo_federation, nc):
    long_question = ("persistent cough with fever night sweats weight loss and hemoptysis " * 120)[:8000]
    stop = asyncio.Event()
    long_outcomes = []

    async def flood():
        while not stop.is_set():
            try:
                long_outcomes.append(await ask(nc, AskRequest(question=long_question, deadline_ms=3000)))
            except AskError as exc:
                long_outcomes.append(exc.error.type)

    floods = [asyncio.create_task(flood()) for _ in range(4)]
    try:
        await asyncio.sleep(0.5)
        timings = []
        for _ in range(15):
            started = time.monotonic()
            answer = await ask(nc, AskRequest(question="Which patients had a stroke?", deadline_ms=3000))
            timings.append(time.monotonic() - started)
            assert answer.error is None and answer.coverage.successful == ALL_UNITS, answer.nodes
    finally:
        stop.set()
        await asyncio.gather(*floods)
    assert max(timings) < 3.0 + 1.0, f"normal answers took up to {max(timings):.2f} s against a 3 s deadline"
    assert long_outcomes, "the flood really ran"
    print(f"normal answers: max {max(timings):.2f} s; long questions: {len(long_outcomes)} answered or refused")


@pytest.mark.parametrize("lie", ["nan", "huge", "coverage", "elsewhere"])
async def test_a_child_that_lies_is_failed_and_none_of_its_hits_are_used(demo_federation, nc, lie):
    leaf = next(n for n in demo_federation._nodes["hospital_c"] if n.path == "hospital_c.neurology")
    await leaf.stop()
    path = {"elsewhere": "hospital_a.medicine"}.get(lie, "hospital_c.neurology")
    score = {"nan": math.nan, "huge": 1e9}.get(lie, 0.99)
    coverage = Coverage(total=1000, successful=1000) if lie == "coverage" else Coverage(total=1, successful=1)
    fake = Hit(id="FAKE", org=path.split(".")[0], path=path, score=score, text="Made up evidence about everyone.")

    async def liar(msg):
        await msg.respond(codec.encode(SearchResult(hits=[fake], coverage=coverage)))

    await nc.subscribe(query_subject("hospital_c.neurology"), cb=liar)
    await nc.flush()
    for _ in range(3):
        answer = await ask(nc, AskRequest(question="Which patients had a seizure?"))
        report = answer.nodes["fed.q.hospital_c.neurology"]
        assert report.status == "failed" and report.error.type == "invalid_reply", report
        assert "FAKE" not in {hit.id for hit in answer.hits}
        assert answer.coverage.total == ALL_UNITS and answer.coverage.failed == 1


async def test_status_counts_drops_and_errors(demo_federation, nc):
    await nc.publish("fed.q.hospital_a", b"")
    await nc.request("fed.q.hospital_a", b"\xc1", timeout=5)
    nodes = {n.path: n for n in await discover(nc)}
    assert nodes["hospital_a"].counters["dropped.no_reply"] >= 1 and nodes["hospital_a"].errors >= 1
