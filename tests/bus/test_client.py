"""The client side of the wire (:mod:`bus.client`), over a real broker: a question asked again of another
gateway when the one answering it dies mid-question, a cancelled question that is always cancelled, and
discovery listing every node with its counters (and what is missing).

The dying gateway is a member of the gateways' queue group that takes a question, says it is at work, and
dies; the cancelled question's gateway is a stand-in that streams heartbeats back to back.
"""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace

import pytest

from bus import codec
from bus import headers as h
from bus.client import HEARTBEAT_MS, SILENCE_MS, Node, ask, discover, events, missing
from bus.connection import connect
from bus.errors import BrokerError
from bus.asking import Answer, AskRequest, Heartbeat, Restarted
from bus.subjects import ASK
from nodes.demo.federation import SAMPLE_QUESTION
from tests.helpers.timing import SLACK_MS


@pytest.mark.timing
async def test_a_question_whose_gateway_dies_is_answered_by_another(demo_federation, nats_server, nc):
    took_it = asyncio.Event()
    dying = await connect(nats_server.url, "dying-gateway")

    async def take_and_die(msg) -> None:
        await dying.publish(msg.reply, codec.encode(Heartbeat()), headers={h.KIND: "heartbeat"})
        took_it.set()
        await dying.close()  # dies mid-question: its subscription goes with its connection

    await dying.subscribe(ASK, queue="q", cb=take_and_die)  # the gateways' queue group (nats.micro's default)
    deadline_ms = 5000
    answered = 0
    for _ in range(60):  # the broker spreads questions over the group; ask until the dying one took one
        seen, started = [], time.monotonic()
        async for event in events(nc, AskRequest(question=SAMPLE_QUESTION, deadline_ms=deadline_ms)):
            seen.append((time.monotonic() - started, event))
        answer = seen[-1][1]
        assert isinstance(answer, Answer) and answer.hits and answer.coverage.successful == answer.coverage.total
        answered += 1
        if took_it.is_set():
            restarts = [(t, e) for t, e in seen if isinstance(e, Restarted)]
            assert len(restarts) == 1 and restarts[0][1].attempt == 1
            assert restarts[0][0] * 1000 <= SILENCE_MS + 4 * HEARTBEAT_MS + SLACK_MS, "known within about a second"
            assert seen[-1][0] * 1000 <= deadline_ms + SLACK_MS, "answered within the question's deadline"
            break
    assert took_it.is_set(), f"the dying gateway never took a question in {answered} tries"


async def test_a_question_cancelled_while_replies_stream_in_is_always_cancelled(nats_server, nc):
    """Cancelling the task reading a question's stream ends it, even when a reply arrives at that very
    moment (the terminal client's Escape): a gateway stand-in streams heartbeats back to back."""
    subject = "fed.ask.flood"
    beat = codec.encode(Heartbeat())

    async def flood(msg):
        for _ in range(400):
            await gateway.publish(msg.reply, beat, headers={h.KIND: "heartbeat"})
            await asyncio.sleep(0)

    gateway = await connect(nats_server.url, "flooding-gateway")
    await gateway.subscribe(subject, cb=flood)
    await gateway.flush()

    async def read() -> None:
        async for _event in events(nc, AskRequest(question="q", deadline_ms=60_000), subject=subject):
            pass

    try:
        lost = refused = trial = 0
        while trial < 60:
            task = asyncio.create_task(read())
            await asyncio.sleep(0.002 + (trial % 7) * 0.001)  # while heartbeats pour in
            task.cancel()
            done, _ = await asyncio.wait({task}, timeout=2.0)
            if not done:
                lost += 1
                task.cancel()
                await asyncio.wait({task}, timeout=2.0)
            elif not task.cancelled():
                # under this flood the broker has, once in many runs, answered a question "no responders" before
                # it was cancelled: the stream then ends as it should, and the trial says nothing of cancelling
                if isinstance(task.exception(), BrokerError) and "no gateway is serving" in str(task.exception()) \
                        and refused < 10:
                    refused += 1
                    continue
                raise AssertionError(f"the stream ended otherwise: {task.exception()!r}")
            trial += 1
        assert lost == 0, f"{lost} of 60 cancellations were lost"
    finally:
        await gateway.close()


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


def test_missing_names_each_unserved_child_with_who_expects_it():
    def node(subject, children=""):
        return Node(info=SimpleNamespace(metadata={"children": children}, endpoints=[SimpleNamespace(subject=subject)]),
                    stats=None)

    nodes = [node("fed.ask", "hospital_a,hospital_b"), node("fed.q.hospital_a", "hospital_a.medicine,hospital_a.icu"),
             node("fed.q.hospital_a.medicine")]
    assert missing(nodes) == {"fed.q.hospital_a.icu": "fed.q.hospital_a", "fed.q.hospital_b": "fed.ask"}
    assert missing(nodes, ["fed.q.hospital_c", "fed.q.hospital_b"]) == {
        "fed.q.hospital_a.icu": "fed.q.hospital_a", "fed.q.hospital_b": "the spec", "fed.q.hospital_c": "the spec"}
    assert missing(nodes[2:], ["fed.q.hospital_a.medicine"]) == {}
