"""Broker permissions on a real nats-server: each organization on its own subjects, people on their own inboxes."""

from __future__ import annotations

import asyncio

import nats
import pytest

from bus.server import NatsServer
from policies import broker

ORGS = ["hospital_a", "hospital_b"]
PEOPLE = {"U1": "fedrag:hospital_a", "U7": "fedrag:hospital_b"}


@pytest.fixture
def server(tmp_path):
    conf = broker.write_server_config(tmp_path, ORGS, PEOPLE)
    with NatsServer(store_dir=tmp_path / "js", extra_args=["-c", str(conf)]) as running:
        yield running, tmp_path


async def as_user(server, user):
    running, state = server
    errors = []

    async def on_error(exc):
        errors.append(str(exc))

    nc = await nats.connect(running.url, error_cb=on_error, allow_reconnect=False,
                            **broker.connect_options(state, user, PEOPLE))
    return nc, errors


async def test_anonymous_and_wrong_passwords_are_refused(server):
    running, _ = server
    for options in ({}, {"user": "org_hospital_a", "password": "guess"}):
        with pytest.raises(Exception, match="Authorization Violation"):
            await nats.connect(running.url, allow_reconnect=False, max_reconnect_attempts=0, **options)


async def test_an_organization_cannot_pose_as_another(server):
    a, _ = await as_user(server, "org_hospital_a")
    b, b_errors = await as_user(server, "org_hospital_b")
    stolen = []

    async def steal(msg):
        stolen.append(msg)

    async def serve(msg):
        await msg.respond(b"from A")

    await b.subscribe("fed.q.hospital_a.>", cb=steal)
    await b.subscribe("fed.q.hospital_a", queue="q", cb=steal)
    await a.subscribe("fed.q.hospital_a.medicine", cb=serve)
    await asyncio.gather(a.flush(), b.flush())
    reply = await a.request("fed.q.hospital_a.medicine", b"query", timeout=2)
    await b.publish("fed.q.hospital_a.medicine", b"forged")
    await b.flush()
    await asyncio.sleep(0.2)
    assert reply.data == b"from A" and stolen == []
    assert any('subscription to "fed.q.hospital_a.>"' in e for e in b_errors)
    assert any('publish to "fed.q.hospital_a.medicine"' in e for e in b_errors)
    await asyncio.gather(a.close(), b.close())


async def test_people_may_only_ask_and_hear_their_own_answers(server):
    u1, u1_errors = await as_user(server, "user_U1")
    u7, u7_errors = await as_user(server, "user_U7")
    shared, shared_errors = await as_user(server, "client")
    snooped = []

    async def snoop(msg):
        snooped.append(msg)

    await u7.subscribe(f"{broker.user_inbox('fedrag:hospital_a', 'U1')}.>", cb=snoop)  # U1's inbox
    await u7.subscribe("fed.q.>", cb=snoop)
    await shared.subscribe(f"{broker.user_inbox('fedrag:hospital_b', 'U7')}.>", cb=snoop)
    await shared.publish("fed.ask", b"x")
    await u1.publish("fed.q.hospital_a", b"x")
    await asyncio.gather(u1.flush(), u7.flush(), shared.flush())
    await asyncio.sleep(0.2)
    assert snooped == []
    assert any("subscription" in e for e in u7_errors) and any("publish to \"fed.ask\"" in e for e in shared_errors)
    assert any('publish to "fed.q.hospital_a"' in e for e in u1_errors)
    assert u1._inbox_prefix.decode() == broker.user_inbox("fedrag:hospital_a", "U1")
    await asyncio.gather(u1.close(), u7.close(), shared.close())


async def test_a_gateway_may_answer_many_messages_to_one_ask(server):
    gw, _ = await as_user(server, "gateway")
    u1, _ = await as_user(server, "user_U1")

    async def stream(msg):
        for i in range(5):
            await msg.respond(f"event {i}".encode())

    await gw.subscribe("fed.ask", cb=stream)
    await gw.flush()
    inbox = u1.new_inbox()
    sub = await u1.subscribe(inbox)
    await u1.publish("fed.ask", b"q", reply=inbox)
    got = [(await sub.next_msg(timeout=2)).data for _ in range(5)]
    assert got == [f"event {i}".encode() for i in range(5)]
    await asyncio.gather(gw.close(), u1.close())
