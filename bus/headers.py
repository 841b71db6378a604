"""NATS headers that every hop reads without decoding the body, and their bounds.

Every inbound header set is checked by :func:`check` before any work: how many headers, how long
their names and values, and the shape of the ones fedrag reads. A request that breaks a bound gets a
``validation`` error whose reason names the header but never repeats its value, and nothing a
caller sent is copied into a reply except a checked trace id.
"""

from __future__ import annotations

import re
import uuid
from enum import StrEnum

from bus.errors import ValidationError

#: Remaining time budget in milliseconds, relative (like gRPC's ``grpc-timeout``).
BUDGET = "Fed-Budget-Ms"
#: Trace id shared by every message of one question.
TRACE = "Fed-Trace"
#: The message kind: one of :class:`Kind`.
KIND = "Fed-Kind"
#: The caller's credentials, ``Bearer <token>``; forwarded unchanged, verified by every node.
AUTHORIZATION = "Authorization"
#: The caller's proof that the token is used for this question (see ``policies.proof``); forwarded with it.
PROOF = "Fed-Proof"
#: The caller's second proof for the same question, good only for counting its words (the first pass of a
#: lexical search, ``want = "stats"``): an organization that sees it cannot use it to search.
STATS_PROOF = "Fed-Stats-Proof"
#: The caller's third proof, good only for an answer's follow-up: the rest of the record it quotes (``want = "record"``)
#: or the stored vectors of the sentences it weighs (``want = "sentences"``) — a question has at most one of them.
RECORD_PROOF = "Fed-Record-Proof"
#: Which proof header a request of each use carries.
PROOFS = {"search": PROOF, "stats": STATS_PROOF, "record": RECORD_PROOF}

#: At most this many headers on one message.
MAX_HEADERS = 32
#: At most this many characters in a header's name.
MAX_NAME_CHARS = 64
#: At most this many characters in any header value (a signed token fits comfortably).
MAX_VALUE_CHARS = 8_192
#: At most this many characters in all names and values together.
MAX_TOTAL_CHARS = 16_384

_TRACE = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")


class Kind(StrEnum):
    """What a message is, in its :data:`KIND` header: every kind the wire carries."""

    #: a client's question to a gateway (:class:`bus.asking.AskRequest`)
    ASK = "ask"
    #: a query down the tree (:class:`bus.messages.Query`)
    QUERY = "query"
    #: a node's answer to a query (:class:`bus.messages.SearchResult`)
    RESULT = "result"
    #: an error reply (:class:`bus.messages.ErrorInfo`)
    ERROR = "error"
    #: streamed by a gateway: one organization's result (:class:`bus.asking.OrgResult`)
    ORG_RESULT = "org_result"
    #: streamed by a gateway: the next checked sentences of an answer (:class:`bus.asking.AnswerDelta`)
    ANSWER_DELTA = "answer_delta"
    #: streamed by a gateway while it works (:class:`bus.asking.Heartbeat`)
    HEARTBEAT = "heartbeat"
    #: a gateway's last message: the answer (:class:`bus.asking.Answer`)
    FINAL = "final"


_SHAPES = {
    TRACE: (lambda v: bool(_TRACE.match(v)), "a trace id of 1 to 64 characters from A-Z a-z 0-9 _ . : -"),
    BUDGET: (lambda v: len(v) <= 32, "a number of milliseconds"),
    KIND: (lambda v: v in Kind.__members__.values(), f"one of {', '.join(sorted(Kind))}"),
}


def new_trace() -> str:
    """A fresh trace id."""
    return uuid.uuid4().hex[:16]


def check(headers: dict[str, str] | None) -> dict[str, str]:
    """Returns ``headers`` (``{}`` for none) after checking their bounds and the shapes fedrag reads.

    Raises:
        ValidationError: too many headers, a name or value too long, or a trace id, budget or kind
            of the wrong shape. The reason names the header, never its value.
    """
    headers = headers or {}
    if len(headers) > MAX_HEADERS:
        raise ValidationError(f"{len(headers)} headers, at most {MAX_HEADERS} are accepted")
    total = 0
    for name, value in headers.items():
        if len(name) > MAX_NAME_CHARS:
            raise ValidationError(f"a header name of {len(name)} characters, at most {MAX_NAME_CHARS} are accepted")
        if len(value) > MAX_VALUE_CHARS:
            raise ValidationError(f"header {name} holds {len(value)} characters, at most {MAX_VALUE_CHARS} are accepted")
        total += len(name) + len(value)
        shape = _SHAPES.get(name)
        if shape is not None and not shape[0](value):
            raise ValidationError(f"header {name} must be {shape[1]}")
    if total > MAX_TOTAL_CHARS:
        raise ValidationError(f"headers hold {total} characters, at most {MAX_TOTAL_CHARS} are accepted")
    return headers


def forwardable(headers: dict[str, str] | None, use: str = "search") -> dict[str, str]:
    """The headers a node passes on to its children for a request of ``use`` (``search``, ``stats`` or ``record``): the
    trace, the credentials and that use's proof only, from checked headers."""
    headers = headers or {}
    return {name: headers[name] for name in (TRACE, AUTHORIZATION, PROOFS[use]) if name in headers}


def size(headers: dict[str, str]) -> int:
    """About how many bytes ``headers`` take on the wire (``NATS/1.0`` line, names, values, separators)."""
    return 12 + sum(len(name.encode()) + len(value.encode()) + 4 for name, value in headers.items())
