"""Broker permissions on a real nats-server: each organization on its own subjects, people on their own inboxes."""

from __future__ import annotations

import asyncio

import nats
import pytest

from bus.server import NatsServer
from nodes.run.brokers import multisite
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
    await u1.flush()  # the inbox's subscription reaches the broker before the replies can
    await u1.publish("fed.ask", b"q", reply=inbox)
    got = [(await sub.next_msg(timeout=2)).data for _ in range(5)]
    assert got == [f"event {i}".encode() for i in range(5)]
    await asyncio.gather(gw.close(), u1.close())


FAKE_INFO = {"type": "io.nats.micro.v1.info_response", "name": "fedrag-leaf", "id": "IMPOSTOR", "version": "0.1.0",
             "description": "", "metadata": {"role": "leaf", "path": "hospital_a.made_up"},
             "endpoints": [{"name": "query", "subject": "fed.q.hospital_a.made_up", "queue_group": "q", "metadata": None}]}


async def _discovery_by_impostors(connect_as, asker_site=None):
    """A real node of hospital A answers discovery; each person and ``client`` tries to answer it too, as a
    node nobody runs. Returns what ``client`` discovers and the impostors' broker errors."""
    import json

    from nats.micro import add_service

    from bus.client import discover

    node, _ = await connect_as("org_hospital_a")
    service = await add_service(node, name="fedrag-leaf", version="0.1.0", metadata={"role": "leaf", "path": "hospital_a.real"})
    await service.add_endpoint(name="query", subject="fed.q.hospital_a.real", handler=lambda request: None)
    impostors, errors = [], {}
    for user in ("user_U1", "user_U7", "client"):
        nc, errors[user] = await connect_as(user)

        async def answer(msg, nc=nc):
            if msg.reply:
                await nc.publish(msg.reply, json.dumps(FAKE_INFO).encode())

        for subject in ("$SRV.INFO", "$SRV.>", "$SRV.INFO.fedrag-leaf"):
            await nc.subscribe(subject, cb=answer)
        await nc.flush()
        impostors.append(nc)
    asker, _ = await connect_as("client")
    await asyncio.sleep(0.2)  # the refusals of the subscriptions arrive
    nodes = await discover(asker, timeout=1.0)
    await asyncio.gather(*(nc.close() for nc in [node, asker, *impostors]))
    return nodes, errors


async def test_only_node_processes_can_answer_discovery(server):
    nodes, errors = await _discovery_by_impostors(lambda user: as_user(server, user))
    assert [node.path for node in nodes] == ["hospital_a.real"]
    for user, seen in errors.items():
        assert any('subscription to "$srv.info"' in e.lower() for e in seen), user
        assert any('subscription to "$srv.>"' in e.lower() for e in seen), user


@pytest.mark.parametrize("topology", ["supercluster", "leaf"])
async def test_only_node_processes_can_answer_discovery_across_sites(tmp_path, topology):
    homes = {"U1": "hospital_a", "U7": "hospital_b"}
    sites = multisite(tmp_path, topology, {"east": ["hospital_a"], "west": ["hospital_b"]}, {"east": 1, "west": 1},
                             tmp_path / "sites", issuers=PEOPLE, homes=homes)
    await asyncio.to_thread(sites.start)

    async def connect_as(user):
        errors = []

        async def on_error(exc):
            errors.append(str(exc))

        site = "west" if user in ("user_U7",) else "east"  # U7 is hospital B's; client asks at east
        nc = await nats.connect(sites.urls(site), error_cb=on_error, allow_reconnect=False,
                                **broker.connect_options(tmp_path, user, PEOPLE))
        return nc, errors

    try:
        nodes, errors = await _discovery_by_impostors(connect_as)
    finally:
        sites.stop()
    assert [node.path for node in nodes] == ["hospital_a.real"]
    assert all(any('subscription to "$srv.info"' in e.lower() for e in seen) for seen in errors.values()), errors
