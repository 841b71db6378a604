"""A caller is never left waiting blind: the gateway's heartbeats, and a question asked again of
another gateway when the one answering it dies mid-question. Real broker, real gateway; the dying
gateway is a member of the gateways' queue group that takes a question, says it is at work, and dies.
"""

from __future__ import annotations

import asyncio
import time

from bus import codec
from bus import headers as h
from bus.client import HEARTBEAT_MS, SILENCE_MS, events
from bus.connection import connect
from bus.messages import Answer, AskRequest, Heartbeat, Restarted
from bus.subjects import ASK
from nodes.demo.federation import SAMPLE_QUESTION


async def test_the_gateway_beats_while_an_organization_hangs(demo_federation, nats_server, nc):
    await demo_federation.stop_org("hospital_c")
    hang = await connect(nats_server.url, "hung-hospital-c")
    await hang.subscribe("fed.q.hospital_c")  # takes every question, answers none
    try:
        inbox = nc.new_inbox()
        sub = await nc.subscribe(inbox)
        sent = time.monotonic()
        await nc.publish(ASK, codec.encode(AskRequest(question=SAMPLE_QUESTION, deadline_ms=2000)), reply=inbox,
                         headers={h.KIND: "ask"})
        arrivals, kinds = [], []
        while not kinds or kinds[-1] != "final":
            msg = await sub.next_msg(timeout=5)
            arrivals.append(time.monotonic() - sent)
            kinds.append((msg.headers or {}).get(h.KIND))
        beats = [t for t, kind in zip(arrivals, kinds) if kind == "heartbeat"]
        assert len(beats) >= 4, kinds
        gaps = [b - a for a, b in zip([0.0, *arrivals], arrivals)]
        assert max(gaps) < SILENCE_MS / 1000.0, "never silent long enough to be taken for dead"
        assert codec.decode(msg.data, Answer).nodes["fed.q.hospital_c"].status == "timed_out"
    finally:
        await hang.close()


async def test_a_question_whose_gateway_dies_is_answered_by_another(demo_federation, nats_server, nc):
    took_it = asyncio.Event()
    dying = await connect(nats_server.url, "dying-gateway")

    async def take_and_die(msg) -> None:
        await dying.publish(msg.reply, codec.encode(Heartbeat()), headers={h.KIND: "heartbeat"})
        took_it.set()
        await dying.close()  # dies mid-question: its subscription goes with its connection

    await dying.subscribe(ASK, queue="q", cb=take_and_die)  # the gateways' queue group (nats.micro's default)
    answered = 0
    for _ in range(60):  # the broker spreads questions over the group; ask until the dying one took one
        seen, started = [], time.monotonic()
        async for event in events(nc, AskRequest(question=SAMPLE_QUESTION, deadline_ms=5000)):
            seen.append((time.monotonic() - started, event))
        answer = seen[-1][1]
        assert isinstance(answer, Answer) and answer.hits and answer.coverage.successful == answer.coverage.total
        answered += 1
        if took_it.is_set():
            restarts = [(t, e) for t, e in seen if isinstance(e, Restarted)]
            assert len(restarts) == 1 and restarts[0][1].attempt == 1
            assert restarts[0][0] < (SILENCE_MS + 4 * HEARTBEAT_MS) / 1000.0 + 1.0, "known within about a second"
            assert seen[-1][0] < 5.0, "answered within the question's deadline"
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
        lost = 0
        for trial in range(60):
            task = asyncio.create_task(read())
            await asyncio.sleep(0.002 + (trial % 7) * 0.001)  # while heartbeats pour in
            task.cancel()
            done, _ = await asyncio.wait({task}, timeout=2.0)
            if not done:
                lost += 1
                task.cancel()
                await asyncio.wait({task}, timeout=2.0)
            elif not task.cancelled():
                raise AssertionError(f"the stream ended otherwise: {task.exception()!r}")
        assert lost == 0, f"{lost} of 60 cancellations were lost"
    finally:
        await gateway.close()
