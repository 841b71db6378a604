"""Broker accounts: who may publish and subscribe to what on the federation's nats-server.

Each organization ``<org>`` connects as user ``org_<org>`` and may only:

* serve its own subjects — subscribe ``fed.q.<org>`` and ``fed.q.<org>.>`` (so no other organization
  can pose as one of its nodes), ``fed.keys.<org>`` (its public keys) and ``$SRV.>`` (discovery);
* call its own children (publish ``fed.q.<org>.>``), fetch other organizations' public keys
  (``fed.keys.*``), discover (``$SRV.>``), feed and consume its own ingestion stream
  ``FEDRAG_INGEST_<org>`` (``fed.ingest.<org>.>`` and that stream's JetStream API);
* receive replies on its own inbox prefix ``_INBOX_<org>.>`` only, and answer the requests it gets.

Each organization may run a gateway for its own users (there is no central party), as user
``gateway_<org>``: it serves ``fed.ask.<org>``, calls organizations' roots (``fed.q.*``), fetches keys
and receives replies on ``_INBOX_gw_<org>.>``; ``fedrag up`` runs one federation-wide gateway, user
``gateway``, on ``fed.ask``.

Each person asks as a broker user of their own, ``user_<id>``: they may ask (``fed.ask``,
``fed.ask.<org>``), discover and fetch keys, and receive replies only on their own inbox prefix
(:func:`user_inbox`, derived from their token's issuer and subject), which the gateway checks before
it answers — so answers reach nobody but the person who asked, and an ask naming someone else's
subject as its reply gets nothing delivered anywhere. The shared ``client`` user may only discover
(``fedrag status``) and fetch keys. Anonymous connections are refused.

Passwords are generated on first use into ``<state_dir>/broker/credentials.json`` (mode 0600; each
site keeps only its own users' lines) and the server's configuration holds only their bcrypt hashes.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from pathlib import Path

import bcrypt

from bus.ingest import stream_name

CLIENT = "client"
#: The federation-wide gateway ``fedrag up`` runs on ``fed.ask`` (organizations' own gateways are ``gateway_<org>``).
GATEWAY = "gateway"


def org_user(org: str) -> str:
    return f"org_{org}"


def person_user(uid: str) -> str:
    """The broker user of a spec's user (development sign-in)."""
    return f"user_{uid}"


def user_inbox(issuer: str, subject: str) -> str:
    """The reply inbox prefix of the person with token issuer ``issuer`` and subject ``subject``.

    Derived by hashing, so any ``sub`` (an e-mail address, say) makes a valid subject token, and both
    the client and the gateway can compute it from the token.
    """
    return "_INBOX_u" + hashlib.sha256(f"{issuer}|{subject}".encode()).hexdigest()[:24]


def gateway_user(org: str) -> str:
    return f"gateway_{org}"


def inbox_prefix(user: str, issuers: dict[str, str] | None = None) -> str:
    """The reply inbox prefix a user's connections use (and may subscribe to).

    ``issuers`` maps a person's id to their token issuer (needed for ``user_<id>`` users).
    """
    if user.startswith("user_"):
        uid = user[5:]
        return user_inbox((issuers or {})[uid], uid)
    if user.startswith("org_"):
        return f"_INBOX_{user[4:]}"
    if user.startswith("gateway_"):
        return f"_INBOX_gw_{user[8:]}"
    if user == GATEWAY:
        return "_INBOX_gw"
    return "_INBOX"


#: A responder may answer one request with many messages: a gateway streams one per organization and
#: a final one, and every service on a connection answers a discovery request. NATS's default is one.
RESPONSES = {"max": 10_000, "expires": "15m"}


def permissions(user: str, issuers: dict[str, str] | None = None) -> dict:
    """The publish/subscribe permissions of ``user`` (``org_<org>``, ``gateway[_<org>]``, ``user_<id>`` or ``client``)."""
    inbox = f"{inbox_prefix(user, issuers)}.>"
    if user.startswith("org_"):
        org = user[4:]
        stream = stream_name(org)
        return {
            "publish": {"allow": [f"fed.q.{org}.>", "fed.keys.*", "$SRV.>", f"fed.ingest.{org}", f"fed.ingest.{org}.>",
                                  inbox,  # ingestion reports to the org's own `fedrag ingest`
                                  "$JS.API.INFO", f"$JS.API.STREAM.*.{stream}", f"$JS.API.CONSUMER.*.{stream}",
                                  f"$JS.API.CONSUMER.*.{stream}.>", f"$JS.API.CONSUMER.DURABLE.CREATE.{stream}.>",
                                  f"$JS.API.CONSUMER.MSG.NEXT.{stream}.>", f"$JS.ACK.{stream}.>"]},
            "subscribe": {"allow": [f"fed.q.{org}", f"fed.q.{org}.>", f"fed.keys.{org}", "$SRV.>", inbox]},
            "allow_responses": RESPONSES,
        }
    if user == GATEWAY or user.startswith("gateway_"):
        serves = "fed.ask" if user == GATEWAY else f"fed.ask.{user[8:]}"
        return {
            "publish": {"allow": ["fed.q.*", "fed.keys.*", "$SRV.>"]},
            "subscribe": {"allow": [serves, "$SRV.>", inbox]},
            "allow_responses": RESPONSES,
        }
    if user.startswith("user_"):
        return {"publish": {"allow": ["fed.ask", "fed.ask.*", "fed.keys.*", "$SRV.>"]}, "subscribe": {"allow": [inbox]}}
    return {"publish": {"allow": ["fed.keys.*", "$SRV.>"]}, "subscribe": {"allow": [inbox]}}


def users(orgs: list[str], people: list[str] = ()) -> list[str]:
    """Every broker user of a federation of ``orgs`` with the persons ``people`` (user ids)."""
    return [*(org_user(o) for o in orgs), *(gateway_user(o) for o in orgs), GATEWAY, CLIENT,
            *(person_user(uid) for uid in people)]


def credentials(state_dir: Path, orgs: list[str], people: list[str] = ()) -> dict[str, str]:
    """Each user's password, generated once and kept in ``<state_dir>/broker/credentials.json`` (0600)."""
    path = Path(state_dir) / "broker" / "credentials.json"
    known = json.loads(path.read_text()) if path.exists() else {}
    missing = [user for user in users(orgs, people) if user not in known]
    if missing:
        known.update({user: secrets.token_urlsafe(24) for user in missing})
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(json.dumps(known, indent=1))
        os.replace(tmp, path)
    return known


def server_config(passwords: dict[str, str], issuers: dict[str, str] | None = None) -> str:
    """The ``authorization`` block of a nats-server configuration for these users (bcrypt-hashed passwords)."""
    entries = []
    for user, password in passwords.items():
        if user.startswith("user_") and user[5:] not in (issuers or {}):
            continue  # a person no longer in the spec
        hashed = bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds=10)).decode()
        entries.append(f"    {{user: {json.dumps(user)}, password: {json.dumps(hashed)}, "
                       f"permissions: {json.dumps(permissions(user, issuers))}}}")
    return "authorization {\n  users = [\n" + ",\n".join(entries) + "\n  ]\n}\n"


def write_server_config(state_dir: Path, orgs: list[str], issuers: dict[str, str] | None = None) -> Path:
    """Writes ``<state_dir>/broker/nats.conf`` for the federation's users and returns its path.

    Args:
        state_dir: the federation's state directory (credentials live under ``broker/``).
        orgs: the organizations.
        issuers: each person's id and token issuer, for their own broker users.
    """
    path = Path(state_dir) / "broker" / "nats.conf"
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "# Written by fedrag: one user per organization, gateway and person (see policies/broker.py).\n"
    text += server_config(credentials(state_dir, orgs, list(issuers or {})), issuers)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(text)
    return path


def connect_options(state_dir: Path, user: str, issuers: dict[str, str] | None = None) -> dict:
    """The ``nats.connect`` options for ``user`` (name, password, inbox prefix) if this site has its
    credentials, else ``{}`` (an open broker, or credentials given in the broker URL)."""
    path = Path(state_dir) / "broker" / "credentials.json"
    known = json.loads(path.read_text()) if path.exists() else {}
    if user not in known:
        return {}
    return {"user": user, "password": known[user], "inbox_prefix": inbox_prefix(user, issuers)}


def client_url(url: str, state_dir: Path) -> str:
    """``url`` with the ``client`` user's credentials in it, for people and tools that only take a URL."""
    path = Path(state_dir) / "broker" / "credentials.json"
    known = json.loads(path.read_text()) if path.exists() else {}
    if CLIENT not in known or "@" in url:
        return url
    scheme, rest = url.split("://", 1)
    return f"{scheme}://{CLIENT}:{known[CLIENT]}@{rest}"
