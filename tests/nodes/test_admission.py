"""What a node takes on, and what one person may ask and read (real broker; the demo federation with identities).

A full queue is refused at once with a hint of when to try again; one person cannot take every turn;
questions beyond a person's rate are refused and audited at every node; no question returns more
passages than its asker's limits allow, whichever node it is sent to; and while one signed-in user
floods ``fed.ask`` with malformed and oversized messages, another is answered by every deadline.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from bus import codec
from bus.budget import Budget
from bus.client import ask
from bus.connection import connect
from bus.errors import AskError, OverloadedError, RateLimitedError
from bus.messages import MAX_K, ErrorInfo, Query, SearchResult
from bus.asking import AskRequest
from bus.subjects import query_subject
from nodes._admission import Admission
from nodes._service import NodeService
from nodes.demo.access import MATRIX, MAX_PASSAGES
from nodes.run.assemble import sign_in
from policies import broker
from policies.limits import Limits
from tests.helpers.asking import QUESTION, ask_as, asker
from tests.helpers.timing import SLACK_MS


class Slow(NodeService):
    """A node whose every answer takes ``seconds``."""

    role = "slow"
    request_model = AskRequest

    def __init__(self, seconds: float, limits: Limits) -> None:
        super().__init__("", "slow.q", 5000.0, admission=Admission(limits))
        self.seconds = seconds

    async def handle(self, request, message, budget, caller):
        await asyncio.sleep(self.seconds)
        return ErrorInfo(type="none", reason="done")


@pytest.mark.timing
async def test_a_full_queue_is_refused_at_once_with_a_hint_and_a_long_wait_is_overloaded(nc):
    limits = Limits(concurrency=1, queue=1, queue_wait_ms=300)
    node = Slow(0.6, limits)
    await node.start(nc)
    body = codec.encode(AskRequest(question="x"))
    try:
        first = asyncio.create_task(nc.request("slow.q", body, timeout=5))
        await asyncio.sleep(0.1)
        waiting = asyncio.create_task(nc.request("slow.q", body, timeout=5))
        await asyncio.sleep(0.1)
        started = asyncio.get_running_loop().time()
        refused = await nc.request("slow.q", body, timeout=5)  # one working, one waiting: no room
        waited_ms = (asyncio.get_running_loop().time() - started) * 1000
        assert waited_ms < limits.queue_wait_ms, "refused before anything else is done, not after waiting for a turn"
        error = codec.decode(refused.data, ErrorInfo)
        assert error.type == "overloaded" and "queue is full" in error.reason and error.retry_after_ms > 0
        waited = codec.decode((await waiting).data, ErrorInfo)  # no turn within 300 ms of the 600 ms answer
        assert waited.type == "overloaded" and "no turn within 300 ms" in waited.reason
        assert codec.decode((await first).data, ErrorInfo).reason == "done"
        assert node.counters["errors.overloaded"] == 2
    finally:
        await node.stop()


async def test_one_person_cannot_take_every_turn():
    admission = Admission(Limits(concurrency=4, concurrent_per_person=2))
    budget = Budget.start(5000)
    held = asyncio.Event()

    async def hold(person):
        async with admission.turn(person, budget):
            await held.wait()

    mine = [asyncio.create_task(hold("flooder")) for _ in range(2)]
    await asyncio.sleep(0.01)
    with pytest.raises(RateLimitedError, match="2 questions of yours are already in progress"):
        async with admission.turn("flooder", budget):
            pass
    async with admission.turn("someone else", budget):  # the others still find a turn at once
        assert admission.running == 3
    async with admission.turn("", budget):  # nobody in particular (an open federation) has no share
        pass
    held.set()
    await asyncio.gather(*mine)
    assert (admission.running, admission._people) == (0, {})
    with pytest.raises(OverloadedError):  # a budget already spent gets no turn
        full = Admission(Limits(concurrency=1))
        async with full.turn("a", budget):
            async with full.turn("b", Budget.start(0)):
                pass


@pytest.mark.parametrize("user", list(MATRIX))
async def test_no_question_returns_more_passages_than_its_askers_limit(secure, demo_spec, user):
    federation, url = secure
    cap = MAX_PASSAGES[demo_spec.users[demo_spec.user(user)[0]].role]
    answer = await ask_as(url, demo_spec, user, k=MAX_K, collapse=False)
    assert 0 < len(answer.hits) <= cap, (user, len(answer.hits))
    assert all(report.hits <= cap for report in answer.nodes.values()), answer.nodes
    audit = (demo_spec.federation.state_dir / "audit" / "gateway.jsonl").read_text().splitlines()
    capped = [line for line in map(json.loads, audit) if line["decision"] == "cap" and line["sub"] == demo_spec.user(user)[0]]
    assert capped and f"asked for {MAX_K} passages, at most {cap}" in capped[-1]["reason"]


async def test_a_leaf_holds_the_limit_for_a_query_that_goes_around_the_gateway(secure, demo_spec, embedder):
    creds = sign_in(demo_spec, "B.nurse")  # a nurse: 20 passages a question
    state = demo_spec.federation.state_dir
    query = Query.with_vector(embedder.embed_one("patients"), question="patients", model=embedder.fingerprint,
                              k=MAX_K, fetch_k=MAX_K, collapse=False)
    # a router calling its leaf, and a gateway calling an organization: each node holds the limit itself
    for path, user in (("hospital_b.medicine", broker.org_user("hospital_b")), ("hospital_b", broker.GATEWAY)):
        nc = await connect(secure[1], "around-the-gateway", **broker.connect_options(state, user))
        try:
            reply = await nc.request(query_subject(path), codec.encode(query), timeout=10,
                                     headers=creds.headers("patients"))
        finally:
            await nc.drain()
        assert reply.headers.get("Fed-Kind") == "result", codec.decode(reply.data, ErrorInfo)
        assert len(codec.decode(reply.data, SearchResult).hits) == MAX_PASSAGES["nurse"], path


async def test_questions_beyond_a_persons_rate_are_refused_with_a_hint_and_audited(demo_spec, embedder, tmp_path):
    from nodes.run.brokers import embedded_broker
    from nodes.run.federation import Federation

    demo_spec.limits = Limits(max_questions_per_minute=30)  # bursts of three
    with embedded_broker(demo_spec, tmp_path / "js") as server:
        federation = Federation(demo_spec, server.url, processes=False, verbose=False, embedder_factory=lambda: embedder)
        await federation.start()
        try:
            creds, nc = await asker(server.url, demo_spec, "B.phys")
            try:
                for _ in range(3):
                    await ask(nc, AskRequest(question=QUESTION), headers=creds.headers(QUESTION))
                with pytest.raises(AskError) as caught:
                    await ask(nc, AskRequest(question=QUESTION), headers=creds.headers(QUESTION))
                assert caught.value.error.type == "rate_limited" and "more than 30 questions a minute" in str(caught.value)
                assert 0 < caught.value.retry_after_ms <= 2000.0
                other = await ask_as(server.url, demo_spec, "A.phys")  # someone else is not held to B.phys's count
                assert other.coverage.successful == other.coverage.total - other.coverage.denied
                await asyncio.sleep(caught.value.retry_after_ms / 1000.0 + 0.1)
                assert (await ask(nc, AskRequest(question=QUESTION), headers=creds.headers(QUESTION))).hits
            finally:
                await nc.drain()
        finally:
            await federation.stop()
    audit = [json.loads(line) for line in (demo_spec.federation.state_dir / "audit" / "gateway.jsonl").read_text().splitlines()]
    assert any(line["decision"] == "limit" and line["sub"] == "U6" and "30 questions a minute" in line["reason"]
               for line in audit)


async def test_an_organization_refusing_a_caller_for_now_is_no_evidence_that_its_records_hold_nothing(demo_spec, embedder,
                                                                                                   tmp_path):
    """An organization may hold a person to a lower rate than the federation's (``limits`` on its node). Asked beyond it,
    that organization refuses them for now: the answer is the others' — partial, its coverage saying who refused — and
    claims nothing the refusing organization's records could contradict (Carol Dubois's records are hospital_a's: not
    "No records of Carol Dubois"); refused by every organization, the question is refused as the gateway's own limit
    refuses it, with when to try again — not answered as if the records held nothing."""
    from nodes.run.brokers import embedded_broker
    from nodes.run.federation import Federation
    from policies.limits import LimitRule

    demo_spec.orgs["hospital_a"].limits = [LimitRule(name="a-surgeons", require={"dept": ["surgery"]},
                                                     max_questions_per_minute=6)]  # a burst of one
    for org in demo_spec.orgs.values():
        org.limits = [*org.limits, LimitRule(name="cardiologists", require={"dept": ["cardiology"]},
                                             max_questions_per_minute=6)]
    question = "Where did Carol Dubois go after her admission?"
    with embedded_broker(demo_spec, tmp_path / "js") as server:
        federation = Federation(demo_spec, server.url, processes=False, verbose=False, embedder_factory=lambda: embedder)
        await federation.start()
        try:
            first, second = [await ask_as(server.url, demo_spec, "A.phys.neur", question, summarize="extractive")
                             for _ in range(2)]
            assert first.names and not first.partial and first.answer_info.status == "successful", first.answer
            refused = second.nodes["fed.q.hospital_a"]
            assert refused.status == "failed" and refused.error.type == "rate_limited", second.nodes
            assert second.partial and second.coverage.failed >= 1
            assert not second.closest and "Carol Dubois" not in (second.answer or ""), second.answer
            await ask_as(server.url, demo_spec, "B.phys", question)
            with pytest.raises(AskError) as caught:
                await ask_as(server.url, demo_spec, "B.phys", question)
            assert caught.value.error.type == "rate_limited" and "6 questions a minute" in str(caught.value)
            assert caught.value.retry_after_ms > 0
        finally:
            await federation.stop()


@pytest.mark.timing
async def test_one_users_flood_leaves_another_users_questions_answered_by_their_deadline(demo_spec, tmp_path):
    """A smaller run of ``fedrag flood`` (a process per organization, a gateway process, the flooder in its own)."""
    from nodes.chaos import flood
    from nodes.run.brokers import embedded_broker
    from nodes.run.federation import Federation, Unit, one_per_org

    with embedded_broker(demo_spec, tmp_path / "js") as server:
        federation = Federation(demo_spec, server.url, units=[*one_per_org(demo_spec), Unit("gateway")], verbose=False)
        await federation.start()
        try:
            url = broker.client_url(server.url, demo_spec.federation.state_dir)
            report = await flood.run(url, sign_in(demo_spec, "B.nurse"), sign_in(demo_spec, "A.phys.neur"), 3_000)
        finally:
            await federation.stop()
    print(report.text())
    assert sum(report.flood.sent.values()) == 3_000 and report.asked >= 3
    assert not report.failed and len(report.took_ms) == report.asked == report.full, report.failed
    assert max(report.took_ms) <= report.deadline_ms + SLACK_MS, f"answered up to {max(report.took_ms):.0f} ms"
    replies = report.flood.replies
    assert replies["error.decode"] and replies["error.validation"] and replies["error.rate_limited"], replies
