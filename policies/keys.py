"""Each organization's signing key, created on first use in the federation's state directory.

Layout (``<state_dir>/identity/<org>/``)::

    signing.jwk   the private Ed25519 key (JSON Web Key), mode 0600, never printed or sent
    jwks.json     its public key set, the file other sites (or the bus, on ``fed.keys.<org>``) hand out

The key id (``kid``) is the key's RFC 7638 thumbprint, so tokens name the key that signed them and a
key rotation is a new ``kid`` in the set. Each organization also answers with its public key set on
``fed.keys.<org>`` (:func:`serve`), a subject only its own broker user may subscribe to, so sites
that do not share a state directory verify each other's tokens (:func:`fetch`).
"""

from __future__ import annotations

import json
from pathlib import Path

from joserfc.jwk import OKPKey
from nats.aio.client import Client

from bus._system import write_atomically
from bus.errors import DeniedError, StoreError
from bus.subjects import keys_subject


def key_folder(state_dir: Path, org: str) -> Path:
    """Where ``org`` keeps its signing key and public key set."""
    return Path(state_dir) / "identity" / org


def org_key(state_dir: Path, org: str) -> OKPKey:
    """The organization's signing key, created (with its ``jwks.json``) if it does not exist yet.

    Raises:
        StoreError: the key file exists but cannot be read as a private key.
    """
    folder = key_folder(state_dir, org)
    path = folder / "signing.jwk"
    if not path.exists():
        # the organization's processes may start at once: one creates the key, and every one uses that one
        key = OKPKey.generate_key("Ed25519", parameters={"use": "sig"})
        try:
            write_atomically(path, json.dumps(key.as_dict(private=True, kid=key.thumbprint())), exclusive=True)
        except FileExistsError:
            pass
    try:
        key = OKPKey.import_key(json.loads(path.read_text()))
    except (OSError, ValueError) as exc:
        raise StoreError(f"{path}: not a readable signing key ({type(exc).__name__})") from None
    if not key.is_private:
        raise StoreError(f"{path}: holds a public key, a private signing key is needed")
    jwks = folder / "jwks.json"
    public = json.dumps(public_jwks(key), indent=1)
    if not jwks.exists() or jwks.read_text() != public:
        write_atomically(jwks, public, mode=0o644)
    return key


def public_jwks(key: OKPKey) -> dict:
    """The public key set for ``key``: ``{"keys": [{kty, crv, x, kid, alg, use}]}``."""
    return {"keys": [{**key.as_dict(private=False), "kid": key.thumbprint(), "alg": "Ed25519", "use": "sig"}]}


async def serve(nc: Client, org: str, jwks: dict) -> None:
    """Answers requests on ``fed.keys.<org>`` with ``jwks`` (JSON)."""
    body = json.dumps(jwks).encode()

    async def answer(msg) -> None:
        if msg.reply:
            await msg.respond(body)

    await nc.subscribe(keys_subject(org), cb=answer)


async def fetch(nc: Client, org: str, timeout: float = 2.0) -> dict:
    """An organization's public key set, asked over the bus.

    Raises:
        DeniedError: nobody answered, or the answer is not a key set.
    """
    try:
        reply = await nc.request(keys_subject(org), b"", timeout=timeout)
        jwks = json.loads(reply.data)
    except Exception as exc:
        raise DeniedError(f"the public keys of {org} cannot be fetched over the bus ({type(exc).__name__})") from None
    if not isinstance(jwks, dict) or not isinstance(jwks.get("keys"), list):
        raise DeniedError(f"{org} answered with something that is not a key set")
    return jwks
