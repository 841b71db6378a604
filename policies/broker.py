"""Broker accounts: who may publish and subscribe to what on the federation's nats-server.

Each organization ``<org>`` connects as user ``org_<org>`` and may only:

* serve its own subjects — subscribe ``fed.q.<org>`` and ``fed.q.<org>.>`` (so no other organization
  can pose as one of its nodes), ``fed.keys.<org>`` (its public keys) and ``$SRV.>`` (discovery);
* call its own children (publish ``fed.q.<org>.>``), say that its records changed (``fed.changed.<org>``, which
  gateways hear to forget what they counted of them), fetch other organizations' public keys
  (``fed.keys.*``), discover (``$SRV.>``), feed and consume its own ingestion stream
  ``FEDRAG_INGEST_<org>`` (``fed.ingest.<org>.>`` and that stream's JetStream API);
* receive replies on its own inbox prefix ``_INBOX_<org>.>`` only, and answer the requests it gets.

Each organization may run a gateway for its own users (there is no central party), as user
``gateway_<org>``: it serves ``fed.ask.<org>``, calls organizations' roots (``fed.q.*``), hears their changes
(``fed.changed.*``), fetches keys and receives replies on ``_INBOX_gw_<org>.>``; ``fedrag up`` runs one
federation-wide gateway, user ``gateway``, on ``fed.ask``.

Each person asks as a broker user of their own, ``user_<id>``: they may ask (``fed.ask``,
``fed.ask.<org>``), discover and fetch keys, and receive replies only on their own inbox prefix
(:func:`user_inbox`, derived from their token's issuer and subject), which the gateway checks before
it answers — so answers reach nobody but the person who asked, and an ask naming someone else's
subject as its reply gets nothing delivered anywhere. The shared ``client`` user may only discover
(``fedrag status``) and fetch keys. People and ``client`` send discovery requests
(:data:`DISCOVERY_REQUESTS`) but subscribe to nothing but their own inbox, so no one but a node process
can answer ``$SRV.INFO`` as a node. Anonymous connections are refused.

Passwords are generated on first use into ``<state_dir>/broker/credentials.json`` (mode 0600; each
site keeps only its own users' lines) and the server's configuration holds only their bcrypt hashes.

On a broker of several sites (:mod:`bus.sites`), each site's servers know only the users who connect
there (:func:`site_users`: its organizations', their gateways', their people's, the federation-wide
gateway and ``client``), with the same permissions as on a single server, so an organization keeps its
permissions on every site and cannot log in at another's. Servers present logins of their own to each
other (:func:`link_credentials`, ``<state_dir>/broker/links.json``): ``route`` for routes and gateways,
and ``leafnode``, a user of the hub that only leaf links may use and that carries only the
federation's subjects (:func:`leaf_permissions`).
"""

from __future__ import annotations

import hashlib
import json
import secrets
from pathlib import Path

import bcrypt

from bus._system import write_atomically
from bus.ingest import stream_api, stream_subjects
from bus.subjects import (ASK, CHANGED_PREFIX, DISCOVERY, DISCOVERY_VERBS, FEDERATION, KEYS_PREFIX, QUERY_PREFIX,
                          any_under, ask_subject, below, changed_subject, discovery_subject, inbox, keys_subject,
                          query_subject)

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
    return inbox("u" + hashlib.sha256(f"{issuer}|{subject}".encode()).hexdigest()[:24])


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
        return inbox(user[4:])
    if user.startswith("gateway_"):
        return inbox(f"gw_{user[8:]}")
    if user == GATEWAY:
        return inbox("gw")
    return inbox()


#: What a server buffers for one connection before it drops it as a slow consumer (nats-server's default is
#: 64 MB): one person pushing megabyte messages at a gateway must not get the gateway disconnected while
#: it catches up (it reads several hundred megabytes a second when nothing else holds it).
MAX_PENDING = "512MB"

#: What people and ``client`` may publish to discover the federation: the micro services' requests
#: (``$SRV.PING|INFO|STATS``, for every service, a kind or one instance). They may not subscribe to any of
#: them, so only node processes (organizations and gateways) can answer, and only on their own inbox do
#: they read the answers.
DISCOVERY_REQUESTS = [subject for verb in DISCOVERY_VERBS
                      for subject in (discovery_subject(verb), below(discovery_subject(verb)))]

#: A responder may answer one request with many messages: a gateway streams one per organization and
#: a final one, and every service on a connection answers a discovery request. NATS's default is one.
RESPONSES = {"max": 10_000, "expires": "15m"}


def permissions(user: str, issuers: dict[str, str] | None = None) -> dict:
    """The publish/subscribe permissions of ``user`` (``org_<org>``, ``gateway[_<org>]``, ``user_<id>`` or ``client``)."""
    replies = below(inbox_prefix(user, issuers))
    keys, discovery = any_under(KEYS_PREFIX), below(DISCOVERY)
    if user.startswith("org_"):
        org = user[4:]
        root = query_subject(org)
        return {
            "publish": {"allow": [below(root), changed_subject(org), keys, discovery, *stream_subjects(org),
                                  replies,  # ingestion reports to the org's own `fedrag ingest`
                                  *stream_api(org)]},
            "subscribe": {"allow": [root, below(root), keys_subject(org), discovery, replies]},
            "allow_responses": RESPONSES,
        }
    if user == GATEWAY or user.startswith("gateway_"):
        serves = ask_subject(None if user == GATEWAY else user[8:])
        return {
            "publish": {"allow": [any_under(QUERY_PREFIX), keys, discovery]},
            "subscribe": {"allow": [serves, any_under(CHANGED_PREFIX), discovery, replies]},
            "allow_responses": RESPONSES,
        }
    if user.startswith("user_"):
        return {"publish": {"allow": [ASK, any_under(ASK), keys, *DISCOVERY_REQUESTS]},
                "subscribe": {"allow": [replies]}}
    return {"publish": {"allow": [keys, *DISCOVERY_REQUESTS]}, "subscribe": {"allow": [replies]}}


#: The login servers present to each other over routes and gateways (see :func:`link_credentials`).
ROUTE = "route"
#: The hub's user that the servers of leaf-node sites log in as (see :func:`leaf_permissions`).
LEAF = "leafnode"


def leaf_permissions(users: list[str], issuers: dict[str, str] | None = None) -> dict:
    """What may cross a leaf link, in both directions: the federation's subjects (``fed.>``), discovery
    (``$SRV.>``) and replies to the inboxes of ``users`` (every user of the federation, on any site)."""
    allow = [below(FEDERATION), below(DISCOVERY), *dict.fromkeys(below(inbox_prefix(user, issuers)) for user in users)]
    return {"publish": {"allow": allow}, "subscribe": {"allow": allow}}


def site_users(passwords: dict[str, str], orgs: list[str], homes: dict[str, str] | None = None) -> dict[str, str]:
    """The users of ``passwords`` one site knows: its organizations ``orgs`` and their gateways, the people
    whose home organization (``homes``: user id to organization) is one of them, the federation-wide
    gateway and ``client``."""
    mine = set(users(orgs, [uid for uid, org in (homes or {}).items() if org in orgs]))
    return {user: password for user, password in passwords.items() if user in mine}


def link_credentials(state_dir: Path) -> dict[str, str]:
    """The passwords of the logins servers present to each other (:data:`ROUTE`, :data:`LEAF`), generated
    once and kept in ``<state_dir>/broker/links.json`` (0600)."""
    return _passwords(Path(state_dir) / "broker" / "links.json", [ROUTE, LEAF])


def users(orgs: list[str], people: list[str] = ()) -> list[str]:
    """Every broker user of a federation of ``orgs`` with the persons ``people`` (user ids)."""
    return [*(org_user(o) for o in orgs), *(gateway_user(o) for o in orgs), GATEWAY, CLIENT,
            *(person_user(uid) for uid in people)]


def credentials(state_dir: Path, orgs: list[str], people: list[str] = ()) -> dict[str, str]:
    """Each user's password, generated once and kept in ``<state_dir>/broker/credentials.json`` (0600)."""
    return _passwords(Path(state_dir) / "broker" / "credentials.json", users(orgs, people))


def _passwords(path: Path, names: list[str]) -> dict[str, str]:
    """The passwords kept in ``path`` (0600), with one generated for each of ``names`` it lacks."""
    known = json.loads(path.read_text()) if path.exists() else {}
    missing = [user for user in names if user not in known]
    if missing:
        known.update({user: secrets.token_urlsafe(24) for user in missing})
        write_atomically(path, json.dumps(known, indent=1))
    return known


def server_config(passwords: dict[str, str], issuers: dict[str, str] | None = None, *,
                  leaf: tuple[str, list[str]] | None = None) -> str:
    """The ``authorization`` block of a nats-server configuration for these users (bcrypt-hashed passwords),
    after the per-connection buffer a flood must not exhaust (:data:`MAX_PENDING`).

    Args:
        passwords: each user's password.
        issuers: each person's id and token issuer.
        leaf: on a hub of leaf-node sites, the :data:`LEAF` user's password and every user of the
            federation (whose inboxes replies may cross the link to).
    """
    entries = []
    for user, password in passwords.items():
        if user.startswith("user_") and user[5:] not in (issuers or {}):
            continue  # a person no longer in the spec
        entries.append(_entry(user, password, permissions(user, issuers)))
    if leaf is not None:
        password, everyone = leaf
        entries.append(_entry(LEAF, password, leaf_permissions(everyone, issuers), ', allowed_connection_types: ["LEAFNODE"]'))
    return (f"max_pending: {MAX_PENDING}\n"
            "authorization {\n  users = [\n" + ",\n".join(entries) + "\n  ]\n}\n")


def _entry(user: str, password: str, allowed: dict, extra: str = "") -> str:
    hashed = bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds=10)).decode()
    return (f"    {{user: {json.dumps(user)}, password: {json.dumps(hashed)}, "
            f"permissions: {json.dumps(allowed)}{extra}}}")


def site_configs(state_dir: Path, sites: dict[str, list[str]], issuers: dict[str, str] | None = None,
                 homes: dict[str, str] | None = None, hub: str | None = None) -> dict[str, str]:
    """The ``authorization`` block of each site of a multi-site broker (see :mod:`bus.sites`).

    Args:
        state_dir: the federation's state directory (credentials live under ``broker/``).
        sites: each site's name and the organizations that connect there.
        issuers: each person's id and token issuer.
        homes: each person's id and organization (people log in at their organization's site).
        hub: the hub of leaf-node sites, whose servers also know the :data:`LEAF` user.
    """
    orgs = [org for site_orgs in sites.values() for org in site_orgs]
    people = list(issuers or {})
    passwords = credentials(state_dir, orgs, people)
    leaf = (link_credentials(state_dir)[LEAF], users(orgs, people)) if hub is not None else None
    return {site: server_config(site_users(passwords, site_orgs, homes), issuers, leaf=leaf if site == hub else None)
            for site, site_orgs in sites.items()}


def write_server_config(state_dir: Path, orgs: list[str], issuers: dict[str, str] | None = None) -> Path:
    """Writes ``<state_dir>/broker/nats.conf`` for the federation's users and returns its path.

    Args:
        state_dir: the federation's state directory (credentials live under ``broker/``).
        orgs: the organizations.
        issuers: each person's id and token issuer, for their own broker users.
    """
    text = "# Written by fedrag: one user per organization, gateway and person (see policies/broker.py).\n"
    text += server_config(credentials(state_dir, orgs, list(issuers or {})), issuers)
    return write_atomically(Path(state_dir) / "broker" / "nats.conf", text)


def connect_options(state_dir: Path, user: str, issuers: dict[str, str] | None = None) -> dict:
    """The ``nats.connect`` options for ``user`` (name, password, inbox prefix) if this site has its
    credentials, else ``{}`` (an open broker, or credentials given in the broker URL)."""
    path = Path(state_dir) / "broker" / "credentials.json"
    known = json.loads(path.read_text()) if path.exists() else {}
    if user not in known:
        return {}
    return {"user": user, "password": known[user], "inbox_prefix": inbox_prefix(user, issuers)}


def client_url(url: str, state_dir: Path) -> str:
    """``url`` (or each of a comma-separated list of a site's servers) with the ``client`` user's credentials
    in it, for people and tools that only take a URL."""
    path = Path(state_dir) / "broker" / "credentials.json"
    known = json.loads(path.read_text()) if path.exists() else {}
    if CLIENT not in known or "@" in url:
        return url
    with_login = []
    for one in url.split(","):
        scheme, rest = one.strip().split("://", 1) if "://" in one else ("nats", one.strip())
        with_login.append(f"{scheme}://{CLIENT}:{known[CLIENT]}@{rest}")
    return ",".join(with_login)
