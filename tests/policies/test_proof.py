"""Proofs bind a token to one question, once per node."""

from __future__ import annotations

import base64
import json
import time

import pytest

from bus import headers as h
from bus.errors import DeniedError
from policies.access import Credentials
from policies.proof import ClientKey, ReplayCache, Signatures, verify_proof
from tests.helpers.tokens import token_for


async def identity(state, verifier, client_key):
    return await verifier.verify(token_for(state, client_key))


async def test_a_proof_for_this_question_passes_once(state, verifier, client_key):
    who = await identity(state, verifier, client_key)
    proof = client_key.prove("Which patients had a stroke?")
    cache = ReplayCache()
    verify_proof(proof, who, "Which patients had a stroke?", cache)
    with pytest.raises(DeniedError, match="proof replayed"):
        verify_proof(proof, who, "Which patients had a stroke?", cache)
    verify_proof(proof, who, "Which patients had a stroke?", ReplayCache())  # another node has not seen it yet


@pytest.mark.parametrize("case, reason", [
    ("other_question", "proof does not match the question"),
    ("other_key", "proof key does not match the token"),
    ("stale", "not recent"),
    ("missing", "missing proof"),
    ("garbage", "not a well-formed"),
])
async def test_bad_proofs_are_denied(state, verifier, client_key, case, reason):
    who = await identity(state, verifier, client_key)
    question = "What medications is Ana Ruiz taking?"
    proof = {"other_question": client_key.prove("Which patients had a stroke?"),
             "other_key": ClientKey.generate().prove(question),
             "stale": client_key.prove(question, now=time.time() - 3600),
             "missing": None, "garbage": "x.y"}[case]
    with pytest.raises(DeniedError, match=reason):
        verify_proof(proof, who, question, ReplayCache())


async def test_a_proof_is_good_for_its_own_use_only(state, verifier, client_key):
    """A node that saw one request of a question (its words counted, its search, the rest of a record) cannot
    use that proof for another: each use has a proof of its own (:data:`bus.headers.PROOFS`)."""
    who = await identity(state, verifier, client_key)
    question = "How is gout treated?"
    for made in h.PROOFS:
        proof = client_key.prove(question, use=made)
        for other in set(h.PROOFS) - {made}:
            with pytest.raises(DeniedError, match=f"good for '{made}', not for '{other}'"):
                verify_proof(proof, who, question, ReplayCache(), use=other)
        verify_proof(proof, who, question, ReplayCache(), use=made)
    sent = Credentials("token", client_key).headers(question)
    assert {header for header in h.PROOFS.values()} <= set(sent), "a client sends a proof for every use"


def test_the_replay_cache_forgets_after_the_window_and_stays_bounded():
    cache = ReplayCache(window_s=10, size=100)
    assert cache.first_time("a", now=0) and not cache.first_time("a", now=5)
    assert cache.first_time("a", now=100), "an id older than the window is forgotten (its proof is stale anyway)"
    for i in range(1000):
        cache.first_time(f"id{i}", now=200)
    assert len(cache._seen) <= 100


async def verified_once(state, verifier, client_key, question: str):
    """The caller, a proof for ``question``, and a process's signatures after one node verified it."""
    who = await identity(state, verifier, client_key)
    signatures = Signatures()
    proof = client_key.prove(question)
    verify_proof(proof, who, question, ReplayCache(), signatures=signatures)
    return who, proof, signatures


async def test_a_signature_checked_once_per_process_still_binds_key_question_and_node(state, verifier, client_key):
    question = "Which patients had a stroke?"
    who, proof, signatures = await verified_once(state, verifier, client_key, question)
    assert signatures.get(proof) is not None
    verify_proof(proof, who, question, ReplayCache(), signatures=signatures)  # a second node of the process
    node = ReplayCache()
    verify_proof(proof, who, question, node, signatures=signatures)
    with pytest.raises(DeniedError, match="proof replayed"):
        verify_proof(proof, who, question, node, signatures=signatures)
    with pytest.raises(DeniedError, match="proof does not match the question"):
        verify_proof(proof, who, "Which patients had a fall?", ReplayCache(), signatures=signatures)
    other = await identity(state, verifier, ClientKey.generate())
    with pytest.raises(DeniedError, match="proof key does not match the token"):
        verify_proof(proof, other, question, ReplayCache(), signatures=signatures)


async def test_only_the_very_bytes_verified_are_remembered(state, verifier, client_key):
    question = "Which patients had a stroke?"
    who, proof, signatures = await verified_once(state, verifier, client_key, question)
    head, payload, signature = proof.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    claims["jti"] = "another"  # a replay dressed up as a new proof, with the old signature
    forged = ".".join([head, base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode(), signature])
    with pytest.raises(DeniedError, match="signature does not verify"):
        verify_proof(forged, who, question, ReplayCache(), signatures=signatures)
    assert signatures.get(forged) is None
    small = Signatures(size=3)
    for _ in range(10):
        one = client_key.prove(question)
        verify_proof(one, who, question, ReplayCache(), signatures=small)
    assert len(small._verified) == 3 and small.get(one) is not None
