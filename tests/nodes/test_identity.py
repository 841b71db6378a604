"""Access control over a real, permissioned broker: signed identities verified at every hop.

The demo federation runs with the case study's users and policies on a nats-server whose
configuration gives every organization, gateway and person their own broker user.
"""

from __future__ import annotations

import asyncio
import base64
import json

import pytest

from bus import codec
from bus.errors import AskError
from bus.client import ask
from bus.connection import connect
from bus.messages import ErrorInfo, Query
from bus.asking import AskRequest
from bus.subjects import query_subject
from nodes.run.baseline import CentralIndex
from nodes.run.assemble import sign_in
from nodes.demo.access import MATRIX
from policies import broker

from tests.helpers.asking import QUESTION, ask_as, asker


@pytest.mark.parametrize("user", list(MATRIX))
async def test_each_user_reaches_exactly_the_nodes_the_matrix_allows(secure, demo_spec, user):
    _, url = secure
    answer = await ask_as(url, demo_spec, user, k=50)
    allowed = MATRIX[user]
    for path, may in allowed.items():
        report = answer.nodes.get(query_subject(path))
        answered = report is not None and report.status in ("successful", "partial")
        assert answered == may, (user, path, report)
        if not may and report is not None:
            assert report.status == "denied" and report.error.reason, (user, path)
    assert answer.hits or not any(may for path, may in allowed.items() if path.count(".") == 1)
    assert all(allowed[hit.path] for hit in answer.hits), "no passage from a denied node"


async def test_with_every_policy_open_to_the_user_federated_equals_centralized(secure, demo_spec, demo_dir):
    _, url = secure
    central = CentralIndex.from_spec(demo_spec)
    questions = json.loads((demo_dir / "corpus" / "questions.json").read_text())[:12]
    creds, nc = await asker(url, demo_spec, "A.phys.neur")
    try:
        for question in questions:
            answer = await ask(nc, AskRequest(question=question, include_embedding=True), headers=creds.headers(question))
            expected = central.as_answered(answer, "hybrid", 10)
            assert [(h.path, h.id, h.score) for h in answer.hits] == [(h.path, h.id, h.score) for h in expected]
    finally:
        await nc.drain()


def _b64(data: dict | bytes) -> str:
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _forge(token: str, kind: str) -> str:
    head, body, sig = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    if kind == "forged signature":
        return f"{head}.{body}.{_b64(bytes(64))}"
    if kind == "alg none":
        return f"{_b64({'alg': 'none'})}.{body}."
    if kind == "hs256 with the public key":
        return f"{_b64({'alg': 'HS256', 'typ': 'JWT'})}.{body}.{_b64(bytes(32))}"
    if kind == "claims edited to another org":
        return f"{head}.{_b64({**claims, 'org': 'hospital_b', 'role': 'physician'})}.{sig}"
    raise AssertionError(kind)


ATTACKS = ["forged signature", "expired", "unknown issuer", "wrong audience", "alg none", "hs256 with the public key",
           "missing token", "claims edited to another org", "another org's key minting hospital_a",
           "an affiliation its issuer may not assert"]
REASONS = {"forged signature": "signature does not verify", "expired": "token expired", "unknown issuer": "unknown issuer",
           "wrong audience": "audience mismatch", "alg none": "'none' is not allowed",
           "hs256 with the public key": "'HS256' is not allowed", "missing token": "missing token",
           "claims edited to another org": "signature does not verify",
           "another org's key minting hospital_a": "'fedrag:hospital_b' may not vouch for org=hospital_a",
           "an affiliation its issuer may not assert": "'fedrag:hospital_b' may not vouch for affiliations=C_neuro"}


MINTED = {"another org's key minting hospital_a": {"sub": "M1", "org": "hospital_a", "role": "physician"},
          "an affiliation its issuer may not assert": {"sub": "M2", "org": "hospital_b", "role": "physician",
                                                       "affiliations": ["C_neuro"]}}


def _attack_headers(creds, kind, question, demo_spec):
    from policies.keys import org_key
    from policies.tokens import issue

    headers = creds.headers(question)
    token = creds.token
    user = {"sub": "U2", "org": "hospital_a", "role": "physician"}
    key = org_key(demo_spec.federation.state_dir, "hospital_a")
    if kind == "expired":
        token = issue(key, user=user, issuer="fedrag:hospital_a", audience="fedrag:demo", jkt=creds.key.thumbprint, ttl_s=-120)
    elif kind == "unknown issuer":
        token = issue(key, user=user, issuer="fedrag:elsewhere", audience="fedrag:demo", jkt=creds.key.thumbprint)
    elif kind == "wrong audience":
        token = issue(key, user=user, issuer="fedrag:hospital_a", audience="fedrag:other", jkt=creds.key.thumbprint)
    elif kind in MINTED:  # hospital B's own key, its own issuer: a genuine signature asserting too much
        token = issue(org_key(demo_spec.federation.state_dir, "hospital_b"), user=MINTED[kind], issuer="fedrag:hospital_b",
                      audience="fedrag:demo", jkt=creds.key.thumbprint)
    elif kind == "missing token":
        del headers["Authorization"]
        return headers
    elif kind in ("forged signature", "alg none", "hs256 with the public key", "claims edited to another org"):
        token = _forge(creds.token, kind)
    headers["Authorization"] = f"Bearer {token}"
    return headers


@pytest.mark.parametrize("kind", ATTACKS)
async def test_bad_credentials_get_nothing_anywhere_while_others_are_served(secure, demo_spec, embedder, kind):
    federation, url = secure
    creds, nc = await asker(url, demo_spec, "A.phys")
    try:
        honest = asyncio.create_task(ask_as(url, demo_spec, "B.phys"))
        with pytest.raises(AskError) as caught:
            await ask(nc, AskRequest(question=QUESTION), headers=_attack_headers(creds, kind, QUESTION, demo_spec))
        assert caught.value.error.type == "denied" and REASONS[kind] in caught.value.error.reason
        assert (await honest).coverage.successful > 0, "other users go on being served"
    finally:
        await nc.drain()
    # every node checks for itself: the same credentials sent straight to an organization are refused there too
    org = await connect(url, "org-a-router-caller", **broker.connect_options(demo_spec.federation.state_dir,
                                                                               "gateway", {}))
    try:
        query = Query.with_vector(embedder.embed_one(QUESTION), question=QUESTION, model=embedder.fingerprint)
        reply = await org.request("fed.q.hospital_a", codec.encode(query), timeout=5,
                                  headers=_attack_headers(creds, kind, QUESTION, demo_spec))
        error = codec.decode(reply.data, ErrorInfo)
        assert error.type == "denied" and REASONS[kind] in error.reason
    finally:
        await org.drain()


@pytest.mark.parametrize("kind", list(MINTED))
async def test_a_token_asserting_what_its_issuer_may_not_is_denied_at_every_node(secure, demo_spec, embedder, kind):
    """Whatever subject it is sent to, as the organization that would forward it: no passage, every node
    says why, and every node's organization audits the refusal."""
    _, url = secure
    creds = sign_in(demo_spec, "B.phys")
    query = Query.with_vector(embedder.embed_one(QUESTION), question=QUESTION, model=embedder.fingerprint, k=50)
    state = demo_spec.federation.state_dir
    gateway = await connect(url, "forwarder-gateway", **broker.connect_options(state, broker.GATEWAY))
    for org in demo_spec.orgs:
        router = await connect(url, f"forwarder-{org}", **broker.connect_options(state, broker.org_user(org)))
        try:
            for path, _ in demo_spec.nodes(org):
                headers = _attack_headers(creds, kind, QUESTION, demo_spec)  # a fresh proof for every node
                caller = gateway if path == org else router  # who calls an organization, and who calls its units
                reply = await caller.request(query_subject(path), codec.encode(query), timeout=5, headers=headers)
                assert reply.headers.get("Fed-Kind") == "error", path
                error = codec.decode(reply.data, ErrorInfo)
                assert error.type == "denied" and REASONS[kind] in error.reason, (path, error)
        finally:
            await router.drain()
        audit = (state / "audit" / f"{org}.jsonl").read_text().splitlines()
        refused = {line["node"] for line in map(json.loads, audit) if REASONS[kind] in line["reason"]}
        assert refused == {path for path, _ in demo_spec.nodes(org)}, org
    await gateway.drain()


async def test_a_captured_token_and_proof_are_good_for_nothing_else(secure, demo_spec, embedder):
    _, url = secure
    creds = sign_in(demo_spec, "A.phys")
    captured = creds.headers(QUESTION)  # what an organization on the question's path sees
    thief = await connect(url, "thief", **broker.connect_options(demo_spec.federation.state_dir, "gateway", {}))
    try:
        other = "What medications is Donna Clark taking?"
        query = Query.with_vector(embedder.embed_one(other), question=other, model=embedder.fingerprint)
        reply = await thief.request("fed.q.hospital_b", codec.encode(query), timeout=5, headers=captured)
        assert "proof does not match the question" in codec.decode(reply.data, ErrorInfo).reason
        same = Query.with_vector(embedder.embed_one(QUESTION), question=QUESTION, model=embedder.fingerprint)
        first = await thief.request("fed.q.hospital_b", codec.encode(same), timeout=5, headers=captured)
        assert first.headers.get("Fed-Kind") == "result"
        again = await thief.request("fed.q.hospital_b", codec.encode(same), timeout=5, headers=captured)
        assert "proof replayed" in codec.decode(again.data, ErrorInfo).reason
    finally:
        await thief.drain()


async def test_answers_go_only_to_the_askers_own_inbox(secure, demo_spec):
    federation, url = secure
    creds, nc = await asker(url, demo_spec, "A.phys")
    victim_creds, victim = await asker(url, demo_spec, "B.phys")
    delivered = []

    async def record(msg):
        delivered.append(msg)

    await victim.subscribe(f"{victim_creds.inbox_prefix}.spied", cb=record)
    await victim.flush()
    try:
        for reply in (f"{victim_creds.inbox_prefix}.spied", "fed.q.hospital_a"):
            await nc.publish("fed.ask", codec.encode(AskRequest(question=QUESTION)), reply=reply,
                             headers=creds.headers(QUESTION))
        await nc.flush()
        await ask(nc, AskRequest(question="stroke"), headers=creds.headers("stroke"))  # the gateway is past both
        await asyncio.sleep(0.2)
        assert delivered == []
        counters = federation.gateway.counters
        assert counters["dropped.reply_not_asker"] == 1 and counters["dropped.reply_subject"] == 1
    finally:
        await nc.drain()
        await victim.drain()


async def test_every_organization_may_run_a_gateway_for_its_own_users(secure, demo_spec, embedder):
    from nodes.run.assemble import make_gateway, serving
    from bus.connection import Link

    federation, url = secure
    links = []
    for org in ("hospital_a", "hospital_b"):
        gateway = make_gateway(demo_spec, lambda: embedder, access=federation.access, org=org)
        link = Link(url, f"gw-{org}", on_connect=serving([gateway], access=federation.access),
                    **broker.connect_options(demo_spec.federation.state_dir, broker.gateway_user(org)))
        await link.open()
        links.append((gateway, link))
    try:
        own_a = await ask_as_via(url, demo_spec, "A.phys", "hospital_a")
        own_b = await ask_as_via(url, demo_spec, "B.phys", "hospital_b")
        assert own_a.coverage.successful > 0 and own_b.coverage.successful > 0
        assert links[0][0].counters["questions"] == 1 and links[1][0].counters["questions"] == 1
        with pytest.raises(AskError, match="denied"):
            await ask_as_via(url, demo_spec, "B.phys", "hospital_a")
    finally:
        for gateway, link in links:
            await gateway.stop()
            await link.close()


async def ask_as_via(url, spec, user, org):
    creds, nc = await asker(url, spec, user)
    try:
        return await ask(nc, AskRequest(question=QUESTION), headers=creds.headers(QUESTION), subject=f"fed.ask.{org}")
    finally:
        await nc.drain()


async def test_decisions_are_audited_per_organization_without_the_question(secure, demo_spec):
    _, url = secure
    await ask_as(url, demo_spec, "C.research")
    lines = [json.loads(line) for line in
             (demo_spec.federation.state_dir / "audit" / "hospital_a.jsonl").read_text().splitlines()]
    denial = [line for line in lines if line["sub"] == "U8" and line["node"] == "hospital_a"][-1]
    assert denial["decision"] == "deny" and "org=hospital_c" in denial["reason"] and "question" not in denial
    assert QUESTION not in (demo_spec.federation.state_dir / "audit" / "hospital_a.jsonl").read_text()
