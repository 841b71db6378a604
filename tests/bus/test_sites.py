"""Multi-site brokers on real nats-servers: a cluster, a supercluster (gateways) and leaf-node sites."""

from __future__ import annotations

import asyncio
import os
import subprocess

import nats
import pytest

from bus.connection import connect
from bus.errors import BrokerError
from bus.server import find_binary
from bus.sites import Login, Sites
from tests.helpers.sites import served

ROUTES = Login("route", "route-secret")


def check_config(path):
    """nats-server's own check of a configuration file (``-t``)."""
    done = subprocess.run([find_binary(), "-t", "-c", str(path)], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_supercluster_renders_routes_gateways_and_unique_names(tmp_path):
    sites = Sites("supercluster", {"east": 3, "west": 1}, tmp_path, routes=ROUTES, base_port=20000)
    paths = sites.render()
    assert [p.name for p in paths] == ["east-1.conf", "east-2.conf", "east-3.conf", "west-1.conf"]
    for path in paths:
        check_config(path)
        assert oct(path.stat().st_mode & 0o777) == "0o600"  # it holds the routes' password
    east1, west1 = sites.config("east-1"), sites.config("west-1")
    plans = sites.plans
    assert len({port for p in plans.values() for port in (p.client, p.monitor, p.route, p.gateway) if port}) == 16
    assert 'server_name: "east-1"' in east1 and "jetstream" in east1 and "domain" not in east1
    assert f"nats-route://route:route-secret@127.0.0.1:{plans['east-2'].route}" in east1
    assert f"127.0.0.1:{plans['east-1'].route}\"]" not in east1.split("routes:")[1]  # no route to itself
    for n in ("east-1", "east-2", "east-3"):
        assert f"nats://route:route-secret@127.0.0.1:{plans[n].gateway}" in west1
    assert "jetstream" not in west1  # a one-server site of a supercluster uses the others' JetStream
    assert sites.url("east") == ",".join(f"nats://127.0.0.1:{plans[n].client}" for n in ("east-1", "east-2", "east-3"))


def test_leaf_sites_render_domains_and_remotes_to_every_hub_server(tmp_path):
    sites = Sites("leaf", {"hub": 2, "clinic": 1}, tmp_path, leaf=Login("leafnode", "pw"),
                  authorization={"hub": 'authorization {users = [{user: "leafnode", password: "pw"}]}'})
    for path in sites.render():
        check_config(path)
    hub, clinic = sites.config("hub-1"), sites.config("clinic-1")
    assert 'domain: "hub"' in hub and f'leafnodes {{listen: "127.0.0.1:{sites.plans["hub-1"].leaf}"}}' in hub
    assert 'domain: "clinic"' in clinic and "cluster" not in clinic and "authorization" not in clinic
    for n in ("hub-1", "hub-2"):
        assert f"nats-leaf://leafnode:pw@127.0.0.1:{sites.plans[n].leaf}" in clinic


@pytest.mark.parametrize("topology, layout, message", [
    ("mesh", {"a": 1}, "unknown topology 'mesh'"),
    ("cluster", {"a": 2, "b": 2}, "a cluster is one site"),
    ("supercluster", {"a": 3}, "joins two or more sites"),
    ("leaf", {"a": 1, "b": 0}, "site b has 0 servers"),
    ("leaf", {"a b": 1, "c": 1}, "site name 'a b'"),
    ("cluster", {}, "no sites"),
])
def test_a_topology_that_cannot_work_is_a_clear_error(tmp_path, topology, layout, message):
    with pytest.raises(BrokerError, match=message):
        Sites(topology, layout, tmp_path)


async def test_a_client_of_a_cluster_moves_to_another_server_when_its_own_dies(tmp_path):
    sites = Sites("cluster", {"site": 3}, tmp_path, routes=ROUTES)
    await asyncio.to_thread(sites.start)
    try:
        got = asyncio.Queue()
        listener = await connect(sites.url("site"), "listener")
        await listener.subscribe("fed.ping", cb=got.put)
        victim = sites.server_at(listener.connected_url.port)
        others = [url for url in sites.urls("site") if not url.endswith(f":{sites.plans[victim].client}")]
        talker = await connect(others[0], "talker")
        await listener.flush()
        await talker.publish("fed.ping", b"1")
        assert (await asyncio.wait_for(got.get(), 5)).data == b"1"

        pid, port = sites.servers[victim].process.pid, sites.plans[victim].client
        sites.kill(victim)
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
        async def delivered():  # until the listener is on another server and its subscription followed it
            while got.empty():
                await talker.publish("fed.ping", b"2")
                await asyncio.sleep(0.1)
        await asyncio.wait_for(delivered(), 15)
        assert sites.server_at(listener.connected_url.port) != victim

        await asyncio.to_thread(sites.restart, victim)
        assert sites.servers[victim].port == port  # the same ports again: clients and peers know them
        back = await connect(f"nats://127.0.0.1:{port}", "back")
        await back.publish("fed.ping", b"3")
        await back.close()
        while (await asyncio.wait_for(got.get(), 5)).data != b"3":
            pass
        await asyncio.gather(listener.close(), talker.close())
    finally:
        processes = [server.process for server in sites.servers.values() if server.process is not None]
        sites.stop()
    assert processes and all(process.poll() is not None for process in processes)


async def test_a_request_crosses_the_gateways_of_a_supercluster(tmp_path):
    with Sites("supercluster", {"east": 3, "west": 1}, tmp_path, routes=ROUTES) as sites:
        responder = await connect(sites.url("west"), "responder")

        async def answer(msg):
            await msg.respond(b"from west")

        await responder.subscribe("fed.q.west", cb=answer)
        await responder.flush()
        asker = await connect(sites.url("east"), "asker")
        reply = await served(asker, "fed.q.west")  # the gateways carry its interest a moment after
        assert reply.data == b"from west"
        await asyncio.gather(asker.close(), responder.close())


async def test_a_leaf_link_carries_only_what_its_user_may(tmp_path):
    link = ('{user: "leafnode", password: "pw", allowed_connection_types: ["LEAFNODE"], '
            'permissions: {publish: {allow: ["fed.>", "_INBOX.>"]}, subscribe: {allow: ["fed.>", "_INBOX.>"]}}}')
    authorization = {"hub": f'authorization {{users = [{{user: "staff", password: "s"}}, {link}]}}',
                     "clinic": 'authorization {users = [{user: "staff", password: "s"}]}'}
    with Sites("leaf", {"hub": 1, "clinic": 1}, tmp_path, authorization=authorization,
               leaf=Login("leafnode", "pw")) as sites:
        clinic = await connect(sites.url("clinic"), "clinic", user="staff", password="s")
        got = []

        async def receive(msg):
            got.append(msg.subject)
            if msg.reply:
                await msg.respond(b"from the clinic")

        # the secret subject first: once the link has carried the clinic's interest in fed.q.clinic to the hub, it
        # has carried (or refused) the one subscribed before it
        await clinic.subscribe("secret.q.clinic", cb=receive)
        await clinic.subscribe("fed.q.clinic", cb=receive)
        await clinic.flush()
        hub = await connect(sites.url("hub"), "hub", user="staff", password="s")
        assert (await served(hub, "fed.q.clinic")).data == b"from the clinic"
        with pytest.raises(nats.errors.NoRespondersError):
            await hub.request("secret.q.clinic", b"?", timeout=5)  # the link's user may not carry it
        assert got == ["fed.q.clinic"]
        with pytest.raises(Exception, match="Authorization Violation"):  # the link's login is no client's
            await nats.connect(sites.urls("hub")[0], user="leafnode", password="pw", allow_reconnect=False)
        await asyncio.gather(hub.close(), clinic.close())
