"""What every node shares: a NATS micro service whose requests are served concurrently.

A node registers one endpoint on its subject. nats.py runs a subscription's callbacks one after
another, so the callback only starts a task per request: a router waiting on a slow child keeps
serving other questions. Every request is answered: with the node's result, or with an
:class:`~bus.messages.ErrorInfo` error reply whose ``type`` says what went wrong (``decode``,
``validation``, ``expired``, ``denied``, ``model_mismatch``, ``internal`` ...).

The node's own counters are served through ``$SRV.STATS`` as the endpoint's ``data``.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter

import pydantic
from nats.aio.client import Client
from nats.micro import add_service
from nats.micro.request import Request

from bus import codec
from bus import headers as h
from bus.budget import Budget
from bus.errors import FedragError
from bus.messages import ErrorInfo

log = logging.getLogger(__name__)

VERSION = "0.1.0"


class NodeService:
    """Base of leaves, routers and the gateway.

    Subclasses set :attr:`role` and implement :meth:`handle`, which returns the reply model (or
    raises a :class:`~bus.errors.FedragError` that becomes an error reply).

    Args:
        path: the node's place in the tree (``hospital_a.medicine``), or ``""`` for the gateway.
        subject: the subject it serves.
        default_budget_ms: the budget of a request that carries none.
    """

    role = "node"

    def __init__(self, path: str, subject: str, default_budget_ms: float) -> None:
        self.path = path
        self.subject = subject
        self.default_budget_ms = default_budget_ms
        self.nc: Client | None = None
        self.counters: Counter[str] = Counter()
        self._service = None
        self._tasks: set[asyncio.Task] = set()

    def describe(self) -> dict[str, str]:
        """Metadata published in ``$SRV.INFO`` (strings only)."""
        return {"role": self.role, "path": self.path}

    async def start(self, nc: Client) -> None:
        """Registers the service and its endpoint on ``nc``."""
        self.nc = nc
        self._service = await add_service(
            nc, name=f"fedrag-{self.role}", version=VERSION, description=f"fedrag {self.role} {self.path}".strip(),
            metadata=self.describe(), stats_handler=lambda _endpoint: dict(self.counters),
        )
        await self._service.add_endpoint(name="query", subject=self.subject, handler=self._on_request)

    async def stop(self) -> None:
        """Stops serving; requests in flight are cancelled."""
        if self._service is not None:
            await self._service.stop()
            self._service = None
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _on_request(self, request: Request) -> None:
        task = asyncio.create_task(self._serve(request))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _serve(self, request: Request) -> None:
        headers = request.headers or {}
        try:
            budget = Budget.from_headers(headers, self.default_budget_ms)
            reply = await self.handle(request, budget)
            body = codec.encode(reply) if reply is not None else None
        except FedragError as exc:
            await self.reply_error(request, exc.wire_type, str(exc))
            return
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a bug must still produce an answer, not silence
            log.exception("%s %s: internal error", self.role, self.path)
            await self.reply_error(request, "internal", f"{type(exc).__name__}: {exc}")
            return
        if body is not None and _wants_reply(request):
            await request.respond(body, headers={h.KIND: "result", **h.forwardable(headers)})

    async def reply_error(self, request: Request, error_type: str, reason: str) -> None:
        """Answers ``request`` with an error reply and counts it."""
        self.counters[f"errors.{error_type}"] += 1
        if not _wants_reply(request):
            return
        try:
            body = codec.encode(ErrorInfo(type=error_type, reason=reason[:4000]))
        except (FedragError, pydantic.ValidationError):
            body = codec.encode(ErrorInfo(type="internal", reason="error reason could not be encoded"))
        await request.respond_error(code=error_type, description=" ".join(reason[:200].split()), data=body,
                                    headers={h.KIND: "error", **h.forwardable(request.headers)})

    async def handle(self, request: Request, budget: Budget):
        """Serves one request; returns the reply model, or ``None`` if it already replied."""
        raise NotImplementedError


def _wants_reply(request: Request) -> bool:
    """Whether the request came with a reply subject (a plain publish has none)."""
    return bool(request._msg.reply)  # nats.micro exposes no public accessor for it
