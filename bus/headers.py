"""NATS headers that every hop reads without decoding the body."""

from __future__ import annotations

import uuid

#: Remaining time budget in milliseconds, relative (like gRPC's ``grpc-timeout``).
BUDGET = "Fed-Budget-Ms"
#: Trace id shared by every message of one question.
TRACE = "Fed-Trace"
#: The message kind: ``query``, ``result``, ``error``, ``ask``, ``org_result``, ``final``.
KIND = "Fed-Kind"
#: The caller's credentials, ``Bearer <token>``; forwarded unchanged, verified by every node.
AUTHORIZATION = "Authorization"


def new_trace() -> str:
    """A fresh trace id."""
    return uuid.uuid4().hex[:16]


def forwardable(headers: dict[str, str] | None) -> dict[str, str]:
    """The headers a node passes on to its children (trace and credentials)."""
    headers = headers or {}
    return {name: headers[name] for name in (TRACE, AUTHORIZATION) if name in headers}
