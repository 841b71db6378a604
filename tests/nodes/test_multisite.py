"""The demo federation over a broker of two sites, with identities and per-site broker users.

Site 1 is a cluster of three servers where the gateway and hospital A connect; site 2 is one server
where hospitals B and C connect. A question asked at site 1 is answered by hospital B at site 2, across
NATS gateways (a supercluster) or leaf-node links, and still with full coverage after the server the
gateway was connected to dies: the gateway and the asker move to another server of site 1.
"""

from __future__ import annotations

import asyncio
import time

import nats
import nats.errors
import pytest

from bus.client import ask
from bus.errors import FedragError
from bus.asking import AskRequest
from nodes.run.federation import Federation
from nodes.run.assemble import make_access
from nodes.run.brokers import multisite
from policies import broker
from policies.access import connect_as, issuer
from tests.helpers.sites import served

SITES = {"site1": ["hospital_a"], "site2": ["hospital_b", "hospital_c"]}
SERVERS = {"site1": 3, "site2": 1}
QUESTION = "Which patients were discharged to a skilled nursing facility?"  # hits at all three hospitals
#: How long the federation may take to answer in full again after a server of site 1 dies (it takes
#: about a second: nats.py reconnects every 0.5 s).
RECOVERY_S = 30.0


def sign_in(spec, name):
    access = make_access(spec)
    try:
        return access.sign_in(*spec.user(name))
    finally:
        access.close()


@pytest.fixture(params=["supercluster", "leaf"])
async def two_sites(request, tmp_path, demo_spec, embedder):
    """(the sites, the federation): every organization connected at its own site."""
    people = {uid: issuer(user.org) for uid, user in demo_spec.users.items()}
    homes = {uid: user.org for uid, user in demo_spec.users.items()}
    sites = multisite(demo_spec.federation.state_dir, request.param, SITES, SERVERS, tmp_path / "sites",
                             issuers=people, homes=homes)
    sites.start()
    federation = Federation(demo_spec, sites.url("site1"), processes=False, verbose=False,
                            embedder_factory=lambda: embedder,
                            urls={org: sites.url(site) for site, orgs in SITES.items() for org in orgs})
    try:
        await federation.start(startup_timeout=60)
        yield sites, federation
    finally:
        await federation.stop()
        sites.stop()


async def ask_at_site1(sites, spec, deadline_ms=3000):
    creds = sign_in(spec, "A.phys.neur")  # hospital A's: a broker user of site 1 only
    nc = await connect_as(sites.url("site1"), "test-asker", creds, timeout=5.0)
    try:
        return await ask(nc, AskRequest(question=QUESTION, k=20, deadline_ms=deadline_ms),
                         headers=lambda: creds.headers(QUESTION))
    finally:
        await nc.close()


def assert_answered_by_every_site(answer):
    assert not answer.partial and answer.coverage.successful == answer.coverage.total, answer.coverage
    site2 = {subject: report for subject, report in answer.nodes.items()
             if subject.startswith(("fed.q.hospital_b", "fed.q.hospital_c"))}
    assert site2 and all(report.status == "successful" for report in site2.values()), site2
    assert any(hit.path.startswith("hospital_b.") for hit in answer.hits), [hit.path for hit in answer.hits]
    assert any(hit.path.startswith("hospital_a.") for hit in answer.hits)


@pytest.mark.timing
async def test_a_question_at_site_1_is_answered_at_site_2_and_survives_losing_a_server(two_sites, demo_spec):
    sites, federation = two_sites
    assert_answered_by_every_site(await ask_at_site1(sites, demo_spec))

    gateway = federation.link("<gateway>").nc
    victim = sites.server_at(gateway.connected_url.port)
    assert victim.startswith("site1-")
    sites.kill(victim)
    killed = time.monotonic()
    while True:  # until the gateway has moved to another server of site 1 and every organization answers
        try:
            answer = await ask_at_site1(sites, demo_spec)
        except (FedragError, nats.errors.Error, asyncio.TimeoutError):
            answer = None
        if answer is not None and not answer.partial and answer.coverage.successful == answer.coverage.total:
            break
        assert time.monotonic() - killed < RECOVERY_S, answer and answer.coverage
        await asyncio.sleep(0.2)
    assert_answered_by_every_site(answer)
    assert sites.server_at(gateway.connected_url.port) != victim, "the gateway failed over within site 1"
    print(f"{sites.topology}: full coverage again {time.monotonic() - killed:.1f} s after {victim} was killed")


@pytest.mark.parametrize("topology", ["supercluster", "leaf"])
async def test_each_organization_logs_in_only_at_its_site_and_keeps_its_permissions_there(tmp_path, demo_spec, topology):
    state = demo_spec.federation.state_dir
    people = {uid: issuer(user.org) for uid, user in demo_spec.users.items()}
    sites = multisite(state, topology, SITES, {"site1": 1, "site2": 1}, tmp_path / "sites", issuers=people,
                             homes={uid: user.org for uid, user in demo_spec.users.items()})
    await asyncio.to_thread(sites.start)
    errors = []

    async def as_user(user, site):
        async def on_error(exc):
            errors.append(str(exc))
        return await nats.connect(sites.urls(site), allow_reconnect=False, error_cb=on_error,
                                  **broker.connect_options(state, user, people))

    try:
        with pytest.raises(Exception, match="Authorization Violation"):
            await as_user(broker.org_user("hospital_b"), "site1")  # not a user of hospital A's site
        a = await as_user(broker.org_user("hospital_a"), "site1")
        b = await as_user(broker.org_user("hospital_b"), "site2")
        stolen = []

        async def steal(msg):
            stolen.append(msg)

        async def serve(msg):
            await msg.respond(b"from A")

        await a.subscribe("fed.q.hospital_a", cb=serve)
        await b.subscribe("fed.q.hospital_a", cb=steal)
        await asyncio.gather(a.flush(), b.flush())
        gateway = await as_user(broker.GATEWAY, "site2")  # the federation-wide gateway may connect anywhere
        assert (await served(gateway, "fed.q.hospital_a", b"query")).data == b"from A"  # across sites
        await b.flush()
        assert not stolen and any("permissions violation for subscription" in error for error in errors), errors
        with pytest.raises(Exception, match="Authorization Violation"):  # the leaf links' login is no client's
            await as_user(broker.LEAF, "site1")
        await asyncio.gather(a.close(), b.close(), gateway.close())
    finally:
        sites.stop()
