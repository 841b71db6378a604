"""Credentials bound to the question, as OAuth DPoP binds them to an HTTP request.

A user's token travels down the tree to every organization a question reaches. So that none of them
can reuse it to ask questions of its own, the client holds a key pair whose thumbprint is in the
token (``cnf.jkt``) and signs, for every question, a *proof*: a JWS with header
``typ: fedrag-proof+jwt``, ``alg`` and the public ``jwk``, over the claims ``qd`` (base64url SHA-256 of
the question text), ``iat`` and ``jti`` (unique). Wire format::

    Authorization: Bearer <token>
    Fed-Proof: <proof>
    Fed-Stats-Proof: <proof>
    Fed-Record-Proof: <proof>

The second proof, with the claim ``use = "stats"``, is good only for the first pass of a lexical search
(counting what the records hold of the question's words), and the third, ``use = "record"``
(``Fed-Record-Proof``), only for an answer's follow-up — fetching the rest of the record it quotes, or the
stored vectors of the sentences it weighs: the gateway sends each
node the proof of the request it makes, so an organization that sees one cannot use it for another.

Every node checks that the proof is signed by the token's key, covers this very question, is recent,
and has not been seen before by that node (:class:`ReplayCache`). A captured token with its proof is
therefore good for nothing but the question it came with, once per node.

The nodes of one process (an organization's router and leaves) see the same proof: its signature is
checked by the first of them, and the process remembers the proofs whose signatures held
(:class:`Signatures`), so the others only read its claims — every other check, the replay check
above all, is still each node's own.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import threading
import time
import uuid
from collections import OrderedDict
from pathlib import Path

from joserfc import jws
from joserfc.errors import JoseError
from joserfc.jwk import OKPKey

from bus import headers as h
from bus._system import write_atomically
from bus.errors import DeniedError
from policies._jose import segment
from policies.tokens import Identity

PROOF_TYPE = "fedrag-proof+jwt"
#: How far a proof's ``iat`` may be from this node's clock (seconds).
WINDOW_S = 120.0


@functools.lru_cache(maxsize=1024)  # every node of a process checks the same question's proofs
def question_digest(question: str) -> str:
    """``qd``: the base64url SHA-256 of the question's UTF-8 text, unpadded."""
    return base64.urlsafe_b64encode(hashlib.sha256(question.encode()).digest()).rstrip(b"=").decode()


class ClientKey:
    """The client's proof key pair (Ed25519), generated at sign-in and kept beside the token."""

    def __init__(self, key: OKPKey) -> None:
        self.key = key

    @classmethod
    def generate(cls) -> "ClientKey":
        return cls(OKPKey.generate_key("Ed25519"))

    @classmethod
    def load(cls, path: Path) -> "ClientKey":
        """Reads a key saved by :meth:`save`.

        Raises:
            DeniedError: the file is missing or not a private key.
        """
        try:
            key = OKPKey.import_key(json.loads(Path(path).read_text()))
        except (OSError, ValueError) as exc:
            raise DeniedError(f"{path}: cannot read the proof key ({type(exc).__name__})") from None
        if not key.is_private:
            raise DeniedError(f"{path}: holds no private proof key")
        return cls(key)

    def save(self, path: Path) -> None:
        """Writes the private key, readable by its owner only."""
        write_atomically(path, json.dumps(self.key.as_dict(private=True)))

    @property
    def thumbprint(self) -> str:
        """The RFC 7638 thumbprint that goes into the token's ``cnf.jkt``."""
        return self.key.thumbprint()

    def prove(self, question: str, now: float | None = None, use: str = "search") -> str:
        """A fresh proof for ``question``, good for ``use`` only (``search``; ``stats``: counting its words; ``record``:
        the rest of a record its answer quotes)."""
        header = {"typ": PROOF_TYPE, "alg": "Ed25519", "jwk": self.key.as_dict(private=False)}
        claims = {"qd": question_digest(question), "iat": int(time.time() if now is None else now),
                  "jti": uuid.uuid4().hex, "use": use}
        return jws.serialize_compact(header, json.dumps(claims, separators=(",", ":")), self.key, algorithms=["Ed25519"])


class ReplayCache:
    """The proof ids one node has seen, each kept for the proof window; bounded in size."""

    def __init__(self, window_s: float = WINDOW_S, size: int = 100_000) -> None:
        self.window_s = window_s
        self.size = size
        self._seen: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()

    def first_time(self, jti: str, now: float | None = None) -> bool:
        """Records ``jti``; whether it was new."""
        now = time.time() if now is None else now
        with self._lock:
            while self._seen and (next(iter(self._seen.values())) < now or len(self._seen) >= self.size):
                self._seen.popitem(last=False)
            if jti in self._seen:
                return False
            self._seen[jti] = now + 2 * self.window_s
            return True


class Signatures:
    """The proofs whose signatures this process has verified, each with its key's thumbprint and its claims.

    A proof is kept by its whole compact text, so only the very bytes verified are ever taken as
    verified; bounded (the oldest forgotten first), and safe to share between threads.
    """

    def __init__(self, size: int = 4_096) -> None:
        self.size = size
        self._verified: OrderedDict[str, tuple[str, dict]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, proof: str) -> tuple[str, dict] | None:
        with self._lock:
            return self._verified.get(proof)

    def put(self, proof: str, thumbprint: str, claims: dict) -> None:
        with self._lock:
            self._verified[proof] = (thumbprint, claims)
            while len(self._verified) > self.size:
                self._verified.popitem(last=False)


#: This process's verified proof signatures (shared by its nodes).
SIGNATURES = Signatures()


def _signed_claims(proof: str) -> tuple[str, dict]:
    """The thumbprint of the key that signed ``proof`` and its claims, once the signature is checked.

    Raises:
        DeniedError: malformed, not an Ed25519 fedrag proof, no usable key, or a signature that does not verify.
    """
    header = segment(proof, 0)
    if header.get("typ") != PROOF_TYPE or header.get("alg") != "Ed25519" or not isinstance(header.get("jwk"), dict):
        raise DeniedError("the proof is not a fedrag proof signed with Ed25519")
    try:
        key = OKPKey.import_key(header["jwk"])
    except (ValueError, KeyError, JoseError):
        raise DeniedError("the proof carries no usable public key") from None
    if key.is_private:
        raise DeniedError("proof key does not match the token")
    try:
        claims = json.loads(jws.deserialize_compact(proof, key, algorithms=["Ed25519"]).payload)
    except (JoseError, ValueError):
        raise DeniedError("the proof's signature does not verify") from None
    if not isinstance(claims, dict):
        raise DeniedError("proof does not match the question")
    return key.thumbprint(), claims


def verify_proof(proof: str | None, identity: Identity, question: str, replay: ReplayCache,
                 window_s: float = WINDOW_S, now: float | None = None, use: str = "search",
                 signatures: Signatures | None = SIGNATURES) -> None:
    """Checks that ``proof`` binds ``identity``'s token to ``question``, for ``use``, once.

    Raises:
        DeniedError: missing or malformed proof, wrong key, another question or use, too old or from the
            future, or seen before.
    """
    if not proof:
        raise DeniedError(f"missing proof: every question needs a {h.PROOFS[use]} header signed with the token's key")
    known = signatures.get(proof) if signatures is not None else None
    if known is None:
        known = _signed_claims(proof)
        if signatures is not None:
            signatures.put(proof, *known)
    thumbprint, claims = known
    if thumbprint != identity.jkt:
        raise DeniedError("proof key does not match the token")
    if claims.get("qd") != question_digest(question):
        raise DeniedError("proof does not match the question")
    if claims.get("use", "search") != use:
        raise DeniedError(f"the proof is good for {str(claims.get('use'))[:20]!r}, not for {use!r}")
    now = time.time() if now is None else now
    iat = claims.get("iat")
    if not isinstance(iat, (int, float)) or abs(now - iat) > window_s:
        raise DeniedError(f"the proof is not recent (more than {window_s:.0f} s from this node's clock)")
    jti = claims.get("jti")
    if not isinstance(jti, str) or not jti or len(jti) > 128:
        raise DeniedError("the proof has no id")
    if not replay.first_time(jti, now):
        raise DeniedError("proof replayed: this node has already served it")
