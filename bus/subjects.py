"""Every subject fedrag uses, built here and nowhere else.

A node's place in the organization tree is a dotted *path* of lower-case tokens, e.g.
``hospital_a.medicine``. Its query endpoint is ``fed.q.<path>``; ingestion for it goes to
``fed.ingest.<path>``; the federation-wide gateway listens on ``fed.ask`` and an organization's own on
``fed.ask.<org>``; an organization answers with its public keys on ``fed.keys.<org>`` and says that its records
(or what a caller may search of them) may have changed on ``fed.changed.<org>``; every node is a
NATS micro service, discovered on ``$SRV.PING|INFO|STATS``; replies come back on inboxes, ``_INBOX.…``
or ``_INBOX_<name>.…``. Tokens are restricted so that a path can never smuggle a NATS wildcard (``*``,
``>``) or an empty token into a subject.
"""

from __future__ import annotations

import re

from bus.errors import SpecError

#: Every subject of the federation's own (not discovery, not inboxes).
FEDERATION = "fed"
QUERY_PREFIX = "fed.q"
INGEST_PREFIX = "fed.ingest"
KEYS_PREFIX = "fed.keys"
CHANGED_PREFIX = "fed.changed"
ASK = "fed.ask"
#: The micro services' discovery prefix, and the verbs it answers.
DISCOVERY = "$SRV"
DISCOVERY_VERBS = ("PING", "INFO", "STATS")
#: Where replies go: nats.py's inboxes, or ``_INBOX_<name>`` ones a broker user is confined to.
INBOX = "_INBOX"

_TOKEN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


def validate_path(path: str) -> str:
    """Checks that ``path`` is a dotted path of safe tokens and returns it.

    Raises:
        SpecError: if a token is empty, too long, or holds anything but ``a-z 0-9 _ -``.
    """
    tokens = path.split(".")
    for token in tokens:
        if not _TOKEN.match(token):
            raise SpecError(
                f"invalid node path {path!r}: token {token!r} must match {_TOKEN.pattern} "
                "(lower-case letters, digits, '_' or '-', at most 64 characters)"
            )
    return path


def query_subject(path: str) -> str:
    """The query subject of the node at ``path``: ``fed.q.<path>``."""
    return f"{QUERY_PREFIX}.{validate_path(path)}"


def ask_subject(org: str | None = None) -> str:
    """Where a gateway listens: ``fed.ask`` (the federation's), or ``fed.ask.<org>`` (an organization's own)."""
    return f"{ASK}.{validate_path(org)}" if org else ASK


def keys_subject(org: str) -> str:
    """Where ``org`` answers with its public key set: ``fed.keys.<org>``."""
    return f"{KEYS_PREFIX}.{validate_path(org)}"


def changed_subject(org: str) -> str:
    """Where ``org`` says that its records may have changed (a leaf applied a write, or started): ``fed.changed.<org>``."""
    return f"{CHANGED_PREFIX}.{validate_path(org)}"


def discovery_subject(verb: str) -> str:
    """The request of every service for ``verb`` (``PING``, ``INFO``, ``STATS``): ``$SRV.<verb>``."""
    return f"{DISCOVERY}.{verb}"


def inbox(name: str = "") -> str:
    """An inbox prefix: nats.py's own (``_INBOX``), or ``_INBOX_<name>``."""
    return f"{INBOX}_{name}" if name else INBOX


def below(subject: str) -> str:
    """Every subject under ``subject`` (``a.b`` gives ``a.b.>``)."""
    return f"{subject}.>"


def any_under(prefix: str) -> str:
    """Every subject one token under ``prefix`` (``fed.q`` gives ``fed.q.*``)."""
    return f"{prefix}.*"


def ingest_subject(path: str) -> str:
    """The ingestion subject of the leaf at ``path``: ``fed.ingest.<path>``."""
    return f"{INGEST_PREFIX}.{validate_path(path)}"


def path_of(subject: str) -> str:
    """The node path of a query subject (``fed.q.a.b`` gives ``a.b``).

    Raises:
        SpecError: if ``subject`` is not a query subject.
    """
    prefix = QUERY_PREFIX + "."
    if not subject.startswith(prefix):
        raise SpecError(f"{subject!r} is not a query subject (expected {prefix}<path>)")
    return validate_path(subject[len(prefix):])


def within(path: str, node: str) -> bool:
    """Whether ``path`` is the node at ``node`` or below it (``a.b`` is within ``a``; ``ab`` is not)."""
    return path == node or path.startswith(node + ".")


def ancestors(path: str) -> list[str]:
    """The paths from the organization down to ``path`` itself (``a.b.c`` gives ``a``, ``a.b``, ``a.b.c``)."""
    tokens = path.split(".")
    return [".".join(tokens[:i]) for i in range(1, len(tokens) + 1)]


def org_of(path: str) -> str:
    """The organization a path belongs to: its first token."""
    return path.split(".", 1)[0]
