"""Proofs bind a token to one question, once per node."""

from __future__ import annotations

import time

import pytest

from bus.errors import DeniedError
from policies.proof import ClientKey, ReplayCache, verify_proof
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


def test_the_replay_cache_forgets_after_the_window_and_stays_bounded():
    cache = ReplayCache(window_s=10, size=100)
    assert cache.first_time("a", now=0) and not cache.first_time("a", now=5)
    assert cache.first_time("a", now=100), "an id older than the window is forgotten (its proof is stale anyway)"
    for i in range(1000):
        cache.first_time(f"id{i}", now=200)
    assert len(cache._seen) <= 100
