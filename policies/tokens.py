"""Signed identities: issuing a user's token, and verifying one the way every node does.

A token is a JWT signed by the user's organization (Ed25519; RS256 tokens from an identity
provider verify too) with the claims ``sub``, ``org``, ``role``, ``dept``, ``affiliations``,
``iss``, ``aud``, ``exp``, ``iat``, ``jti`` and ``cnf.jkt`` (the thumbprint of the client's proof key,
see :mod:`policies.proof`). It travels in the ``Authorization: Bearer <token>`` header.

:class:`Verifier` checks, in this order: the header's algorithm is on an explicit allowlist (so
``none`` and HS256 — including HS256 keyed with a public key — never reach a key), the issuer is in
the :class:`TrustList`, the key is chosen by ``kid`` from that issuer's key set, the signature, the
audience, ``exp``/``nbf``/``iat`` with a small leeway, the required claims' types, and last that the
issuer may vouch for what the token asserts (:class:`Scope`: an organization's key signs members of
that organization only, never of another). Every failure is a :class:`~bus.errors.DeniedError` with a
short reason that never contains the token. Verified tokens are cached until they expire, so the
second hop of a question pays a dictionary look-up.
"""

from __future__ import annotations

import asyncio
import functools
import json
import time
import urllib.request
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

from bus.errors import DeniedError
from policies._jose import segment

#: Signature algorithms a token may use; anything else is refused before any key is looked at.
ALGORITHMS = ("Ed25519", "RS256")
#: How long a key set fetched from a URL or the bus is kept before it is fetched again (seconds).
KEYS_TTL_S = 300.0


@dataclass(frozen=True)
class Identity:
    """A verified caller. ``attributes()`` is what policies evaluate."""

    sub: str
    org: str
    role: str = ""
    dept: str = ""
    affiliations: tuple[str, ...] = ()
    iss: str = ""
    jkt: str = ""
    exp: float = float("inf")
    claims: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def key(self) -> str:
        """Who this is, for counting what they ask (``""`` for :data:`ANONYMOUS`: nobody in particular)."""
        return f"{self.iss}|{self.sub}" if self.iss else ""

    def attributes(self) -> dict[str, list[str]]:
        """Each attribute a policy may require, as a list of values (made once: read it, never change it)."""
        return self._attributes

    @functools.cached_property
    def _attributes(self) -> dict[str, list[str]]:
        return {"sub": [self.sub], "org": [self.org], "role": [self.role], "dept": [self.dept],
                "affiliations": list(self.affiliations), "iss": [self.iss]}


#: The caller of an open federation (no identities configured).
ANONYMOUS = Identity(sub="anonymous", org="")


def issue(key, *, user: dict, issuer: str, audience: str, jkt: str, ttl_s: float = 900.0,
          now: float | None = None) -> str:
    """A signed token for ``user`` (``sub``, ``org``, ``role``, ``dept``, ``affiliations``).

    Args:
        key: the organization's private signing key (:func:`policies.keys.org_key`).
        user: the user's attributes.
        issuer: the ``iss`` claim (``fedrag:<org>`` for development sign-in).
        audience: the federation's audience.
        jkt: the thumbprint of the client's proof key (:mod:`policies.proof`).
        ttl_s: how long the token is valid.
    """
    now = time.time() if now is None else now
    claims = {"sub": user["sub"], "org": user["org"], "role": user.get("role", ""), "dept": user.get("dept", ""),
              "affiliations": list(user.get("affiliations", [])), "iss": issuer, "aud": audience,
              "iat": int(now), "exp": int(now + ttl_s), "jti": uuid.uuid4().hex, "cnf": {"jkt": jkt}}
    return jwt.encode({"alg": "Ed25519", "kid": key.thumbprint(), "typ": "JWT"}, claims, key, algorithms=["Ed25519"])


KeySource = Path | str | Callable[[], Awaitable[dict]]

#: Attributes an issuer may assert only the values its scope lists (none when it lists none): the ones
#: that reach across organizations. Any other attribute (``role``, ``dept``) is the issuer's own
#: organization's business unless its scope lists values for it too.
LISTED_ONLY = ("affiliations",)


@dataclass(frozen=True)
class Scope:
    """What one issuer may vouch for.

    Attributes:
        orgs: the organizations whose members it signs (``org`` must be one of them).
        vouches: per attribute, the values it may assert; an attribute of :data:`LISTED_ONLY` not
            listed here may hold no value at all, any other attribute not listed may hold any value.
    """

    orgs: frozenset[str]
    vouches: dict[str, frozenset[str]] = field(default_factory=dict)

    @classmethod
    def of(cls, orgs, vouches: dict[str, list[str]] | None = None) -> "Scope":
        return cls(frozenset(orgs), {name: frozenset(values) for name, values in (vouches or {}).items()})

    def unmet(self, identity: "Identity") -> str | None:
        """The first thing ``identity`` asserts that this issuer may not vouch for, as a phrase, or ``None``."""
        if identity.org not in self.orgs:
            return f"org={identity.org}"
        for name, values in identity.attributes().items():
            if name in ("sub", "org", "iss"):
                continue
            allowed = self.vouches.get(name)
            if allowed is None and name not in LISTED_ONLY:
                continue
            beyond = [value for value in values if value and value not in (allowed or frozenset())]
            if beyond:
                return f"{name}={beyond[0]}"
        return None


@dataclass(frozen=True)
class Trusted:
    """One trusted issuer: where its public key set comes from, and what it may vouch for."""

    keys: KeySource
    scope: Scope


class TrustList:
    """Which issuers are trusted, where each one's public key set comes from, and what each may vouch for.

    A key source is a local JWKS file, an ``https://`` URL (an identity provider's ``jwks_uri``), or an
    async callable returning a JWKS (how keys are fetched over the bus). Sets from URLs and callables
    are cached for :data:`KEYS_TTL_S`, and fetched again at once (at most every few seconds) when a
    token names a ``kid`` the cached set lacks, so a key rotation takes effect without a restart.
    """

    def __init__(self, issuers: dict[str, Trusted]) -> None:
        self.issuers = dict(issuers)
        self.sources = {name: trusted.keys for name, trusted in self.issuers.items()}
        self._cache: dict[str, tuple[float, KeySet]] = {}
        self._lock = asyncio.Lock()

    def scope(self, issuer: str) -> Scope:
        """What ``issuer`` may vouch for (a trusted one: see :meth:`key_set`)."""
        return self.issuers[issuer].scope

    def __contains__(self, issuer: str) -> bool:
        return issuer in self.sources

    async def key_set(self, issuer: str, kid: str | None = None) -> KeySet:
        """The issuer's key set (fetched again if it lacks ``kid`` and was not fetched in the last 5 s).

        Raises:
            DeniedError: the issuer is not trusted or its keys cannot be had.
        """
        if issuer not in self.sources:
            raise DeniedError(f"unknown issuer {issuer[:80]!r}")
        cached = self._cache.get(issuer)
        now = time.monotonic()
        if cached is not None:
            fetched, keys = cached
            fresh = now - fetched < KEYS_TTL_S
            if fresh and (kid is None or _has_kid(keys, kid) or now - fetched < 5.0):
                return keys
        async with self._lock:
            try:
                raw = await self._fetch(self.sources[issuer])
                keys = KeySet.import_key_set(raw)
            except DeniedError:
                raise
            except Exception as exc:
                if cached is not None:  # keep serving with the keys we had
                    return cached[1]
                raise DeniedError(f"the keys of issuer {issuer[:80]!r} cannot be read ({type(exc).__name__})") from None
            self._cache[issuer] = (time.monotonic(), keys)
            return keys

    @staticmethod
    async def _fetch(source: KeySource) -> dict:
        if callable(source):
            return await source()
        text = str(source)
        if text.startswith("https://") or text.startswith("http://"):
            def get() -> dict:
                with urllib.request.urlopen(text, timeout=5) as response:  # noqa: S310 (the operator's own URL)
                    return json.loads(response.read(1 << 20))
            return await asyncio.to_thread(get)
        return json.loads(Path(text).read_text())


def _has_kid(keys: KeySet, kid: str) -> bool:
    return any(key.kid == kid for key in keys.keys)


class Verifier:
    """Verifies tokens as one node does; share one per process and per federation.

    Args:
        trust: the trusted issuers.
        audience: the audience every token must name.
        leeway_s: clock skew tolerated on ``exp``, ``nbf`` and ``iat``.
        algorithms: the signature algorithms allowed.
        cache_size: how many verified tokens are remembered.
    """

    def __init__(self, trust: TrustList, audience: str, *, leeway_s: float = 30.0,
                 algorithms: tuple[str, ...] = ALGORITHMS, cache_size: int = 4096) -> None:
        self.trust = trust
        self.audience = audience
        self.leeway_s = leeway_s
        self.algorithms = tuple(algorithms)
        self._cache: OrderedDict[str, Identity] = OrderedDict()
        self._cache_size = cache_size
        #: Verifications answered from the cache, and verified in full.
        self.hits = 0
        self.misses = 0

    async def verify(self, token: str | None) -> Identity:
        """The identity ``token`` proves.

        Raises:
            DeniedError: with the reason (missing, malformed, algorithm, issuer, key, signature,
                audience, expiry, claims).
        """
        if not token:
            raise DeniedError("missing token: sign in (fedrag login, or fedrag ask --as USER)")
        now = time.time()
        cached = self._cache.get(token)
        if cached is not None:
            if cached.exp + self.leeway_s < now:
                del self._cache[token]
                raise DeniedError("token expired")
            self._cache.move_to_end(token)
            self.hits += 1
            return cached
        header = segment(token, 0)
        alg = header.get("alg")
        if alg not in self.algorithms:
            raise DeniedError(f"algorithm {str(alg)[:20]!r} is not allowed (allowed: {', '.join(self.algorithms)})")
        issuer = segment(token, 1).get("iss")
        if not isinstance(issuer, str):
            raise DeniedError("the token names no issuer")
        kid = header.get("kid") if isinstance(header.get("kid"), str) else None
        keys = await self.trust.key_set(issuer, kid)
        if kid is None or not _has_kid(keys, kid):
            raise DeniedError(f"no key {str(kid)[:60]!r} in the key set of issuer {issuer[:80]!r}")
        try:
            decoded = jwt.decode(token, keys, algorithms=list(self.algorithms))
        except JoseError:
            raise DeniedError("signature does not verify") from None
        identity = self._check_claims(decoded.claims, issuer, now)
        beyond = self.trust.scope(issuer).unmet(identity)
        if beyond is not None:
            raise DeniedError(f"issuer {issuer[:80]!r} may not vouch for {beyond[:80]}")
        self.misses += 1
        self._cache[token] = identity
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return identity

    def _check_claims(self, claims: dict, issuer: str, now: float) -> Identity:
        aud = claims.get("aud")
        if not (aud == self.audience or (isinstance(aud, list) and self.audience in aud)):
            raise DeniedError("audience mismatch: the token is not for this federation")
        for name in ("exp", "iat"):
            if not isinstance(claims.get(name), (int, float)):
                raise DeniedError(f"the token has no numeric {name!r} claim")
        if claims["exp"] + self.leeway_s < now:
            raise DeniedError("token expired")
        if claims["iat"] - self.leeway_s > now or (isinstance(claims.get("nbf"), (int, float))
                                                   and claims["nbf"] - self.leeway_s > now):
            raise DeniedError("token not valid yet")
        for name in ("sub", "org"):
            if not isinstance(claims.get(name), str) or not claims[name]:
                raise DeniedError(f"the token has no {name!r} claim")
        affiliations = claims.get("affiliations", [])
        if not isinstance(affiliations, list) or not all(isinstance(a, str) for a in affiliations):
            raise DeniedError("the token's 'affiliations' claim must be a list of strings")
        cnf = claims.get("cnf")
        jkt = cnf.get("jkt") if isinstance(cnf, dict) else None
        if not isinstance(jkt, str) or not jkt:
            raise DeniedError("the token is not bound to a proof key (no 'cnf.jkt')")
        return Identity(sub=claims["sub"], org=claims["org"], role=str(claims.get("role", "")),
                        dept=str(claims.get("dept", "")), affiliations=tuple(affiliations), iss=issuer, jkt=jkt,
                        exp=float(claims["exp"]), claims=claims)
