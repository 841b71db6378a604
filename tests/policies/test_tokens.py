"""Token verification: the good token passes (and is cached); every forgery fails with its own reason."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time

import pytest
from joserfc.jwk import OKPKey

from bus.errors import DeniedError
from policies.keys import org_key
from tests.helpers.tokens import token_for


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def parts(token: str) -> tuple[dict, dict, str]:
    head, body, sig = token.split(".")
    pad = lambda s: s + "=" * (-len(s) % 4)  # noqa: E731
    return json.loads(base64.urlsafe_b64decode(pad(head))), json.loads(base64.urlsafe_b64decode(pad(body))), sig


def reassemble(header: dict, claims: dict, signature: str) -> str:
    return f"{b64(json.dumps(header).encode())}.{b64(json.dumps(claims).encode())}.{signature}"


async def test_a_good_token_verifies_and_the_second_time_is_cached(state, verifier, client_key):
    token = token_for(state, client_key)
    identity = await verifier.verify(token)
    assert (identity.sub, identity.org, identity.role, identity.iss) == ("U2", "hospital_a", "physician", "fedrag:hospital_a")
    assert identity.jkt == client_key.thumbprint and identity.attributes()["org"] == ["hospital_a"]
    assert await verifier.verify(token) == identity
    assert (verifier.misses, verifier.hits) == (1, 1)


async def test_verification_cost_cold_and_cached(state, verifier, client_key):
    tokens = [token_for(state, client_key) for _ in range(50)]
    started = time.perf_counter()
    for token in tokens:
        await verifier.verify(token)
    cold = (time.perf_counter() - started) / len(tokens)
    started = time.perf_counter()
    for token in tokens:
        await verifier.verify(token)
    cached = (time.perf_counter() - started) / len(tokens)
    print(f"token verification: {cold * 1e6:.0f} us cold, {cached * 1e6:.1f} us cached")
    assert verifier.hits == 50 and verifier.misses == 50


@pytest.mark.parametrize("forge, reason", [
    ("signature", "signature does not verify"),
    ("expired", "token expired"),
    ("issuer", "unknown issuer"),
    ("audience", "audience mismatch"),
    ("none", "algorithm 'none' is not allowed"),
    ("hs256", "algorithm 'HS256' is not allowed"),
    ("missing", "missing token"),
    ("edited_org", "signature does not verify"),
    ("foreign_key", "no key"),
    ("garbage", "not a well-formed"),
])
async def test_forgeries_are_denied_with_their_reason(state, verifier, client_key, forge, reason):
    good = token_for(state, client_key)
    header, claims, signature = parts(good)
    if forge == "signature":
        token = reassemble(header, claims, b64(b"\x00" * 64))
    elif forge == "expired":
        token = token_for(state, client_key, ttl_s=-60)
    elif forge == "issuer":
        token = token_for(state, client_key, issuer="https://evil.example")
    elif forge == "audience":
        token = token_for(state, client_key, audience="fedrag:another")
    elif forge == "none":
        token = reassemble({"alg": "none", "typ": "JWT"}, claims, "")
    elif forge == "hs256":  # the classic confusion: HMAC keyed with the public key
        public = json.dumps(org_key(state, "hospital_a").as_dict(private=False)).encode()
        head = b64(json.dumps({"alg": "HS256", "kid": header["kid"]}).encode())
        body = b64(json.dumps(claims).encode())
        token = f"{head}.{body}.{b64(hmac.new(public, f'{head}.{body}'.encode(), hashlib.sha256).digest())}"
    elif forge == "missing":
        token = None
    elif forge == "edited_org":  # an org-A token whose claims were edited to org B
        token = reassemble(header, {**claims, "org": "hospital_b"}, signature)
    elif forge == "foreign_key":  # signed by a key nobody trusts, under a kid nobody published
        stranger = OKPKey.generate_key("Ed25519")
        from policies.tokens import issue
        token = issue(stranger, user={"sub": "U2", "org": "hospital_a"}, issuer="fedrag:hospital_a",
                      audience="fedrag:test", jkt=client_key.thumbprint)
    else:
        token = "not-a-jwt"
    with pytest.raises(DeniedError, match=reason) as caught:
        await verifier.verify(token)
    if token:
        assert token not in str(caught.value), "the reason never repeats the token"


def _minted(state, client_key, signer: str, **user):
    """A token signed with organization ``signer``'s own key under its own issuer, asserting ``user``."""
    from policies.tokens import issue

    claims = {"sub": "M1", "org": signer, "role": "physician", "dept": "", "affiliations": [], **user}
    return issue(org_key(state, signer), user=claims, issuer=f"fedrag:{signer}", audience="fedrag:test",
                 jkt=client_key.thumbprint)


@pytest.mark.parametrize("asserts, reason", [
    ({"org": "hospital_a"}, "may not vouch for org=hospital_a"),
    ({"affiliations": ["C_neuro"]}, "may not vouch for affiliations=C_neuro"),
])
async def test_an_issuer_vouches_only_for_its_own_organization_and_listed_values(state, verifier, client_key,
                                                                                 asserts, reason):
    token = _minted(state, client_key, "hospital_b", **asserts)  # a genuine signature by a trusted key
    with pytest.raises(DeniedError, match=reason):
        await verifier.verify(token)
    with pytest.raises(DeniedError, match=reason):  # refused again, not remembered as verified
        await verifier.verify(token)
    assert verifier.misses == 0


async def test_an_issuers_scope_lists_what_it_may_assert(state, client_key):
    from policies.keys import key_folder
    from policies.tokens import Scope, Trusted, TrustList, Verifier

    jwks = key_folder(state, "hospital_b") / "jwks.json"
    scope = Scope.of(["hospital_b"], {"affiliations": ["C_neuro"], "role": ["nurse"]})
    verifier = Verifier(TrustList({"fedrag:hospital_b": Trusted(jwks, scope)}), "fedrag:test")
    identity = await verifier.verify(_minted(state, client_key, "hospital_b", role="nurse", affiliations=["C_neuro"]))
    assert identity.affiliations == ("C_neuro",)
    with pytest.raises(DeniedError, match="may not vouch for role=physician"):
        await verifier.verify(_minted(state, client_key, "hospital_b", role="physician"))
    with pytest.raises(DeniedError, match="may not vouch for affiliations=B_trial"):
        await verifier.verify(_minted(state, client_key, "hospital_b", role="nurse", affiliations=["C_neuro", "B_trial"]))
