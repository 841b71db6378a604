"""What every node shares: a NATS micro service whose requests are checked, then served concurrently.

A node registers one endpoint on its subject. nats.py runs a subscription's callbacks one after
another, so the callback only starts a task per request: a router waiting on a slow child keeps
serving other questions.

Every request goes through the same prologue, whatever the node kind, before any work. Steps 1 to 3
cost next to nothing and run as the request is read, before it is decoded or given a task:

1. a request without a reply subject, or whose reply subject is not an inbox, is dropped (nobody
   waits for it, and a reply must never land on someone else's subject); it is counted, and logged
   at most once a minute;
2. a node whose queue is full refuses it as ``overloaded``, with a retry hint (:mod:`nodes._admission`);
3. its headers are bounded (:func:`bus.headers.check`) and its body's size and shape checked
   (:func:`bus.codec.check_shape`: at most :data:`bus.codec.MAX_REQUEST_BYTES`, a msgpack map);
4. its budget is read (:class:`bus.budget.Budget`);
5. its body is decoded and validated as the node's :attr:`NodeService.request_model`;
6. a request that arrives with no budget left is refused as ``expired``;
7. the node's gate verifies the caller, decides whether they may use it and holds them to their
   questions a minute (:mod:`policies.gate`, ``rate_limited`` with a retry hint);
8. the node may refuse to answer to the request's reply subject for that caller
   (:meth:`NodeService.may_answer`: the gateway answers a signed-in person only on their own inbox);
   such a request is dropped and counted;
9. it waits for one of the node's turns — at most the queue's wait, and one person only so many at
   once (:meth:`nodes._admission.Admission.turn`); so nothing is started, and no heartbeat sent, for a
   request still waiting.

Then :meth:`NodeService.handle` runs. Every request that passed step 1 is answered: with the
node's reply, or with an :class:`~bus.messages.ErrorInfo` error reply whose ``type`` says what
went wrong (``decode``, ``validation``, ``expired``, ``denied``, ``too_large``, ``internal`` ...).
A reply never carries what the caller sent except a checked trace id, and never exceeds the
broker's maximum payload, headers included.

The node's own counters are served through ``$SRV.STATS`` as the endpoint's ``data``.

A parent in the same process (a router and its leaves in one organization's process) asks the node
without the broker (:meth:`NodeService.serve_here`, :data:`bus.scatter.HERE`): the request it already
decoded and its headers go through the same steps 2 to 9 (3 only for bytes), and the reply comes back as
made, not encoded — an error reply as bytes, as over NATS.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
from collections import Counter
from typing import Any

import nats.errors
import pydantic
from nats.aio.client import Client
from nats.micro import add_service
from nats.micro.request import Request

from bus import codec, scatter
from bus import headers as h
from bus.budget import Budget
from bus.errors import ExpiredError, FedragError
from bus.messages import ErrorInfo, SearchResult
from bus.subjects import INBOX
from nodes._admission import Admission
from policies.gate import AllowAll, Gate

log = logging.getLogger(__name__)

VERSION = "0.1.0"
#: Reply subjects a node answers to: the inboxes of nats clients (``_INBOX.`` or a custom ``_INBOX_<name>.``).
INBOX_PREFIX = INBOX
#: A dropped request is logged at most this often (seconds); the counters have every one.
_DROP_LOG_INTERVAL = 60.0


class NodeService:
    """Base of leaves, routers and the gateway.

    Subclasses set :attr:`role` and :attr:`request_model` and implement :meth:`handle`, which returns
    the reply model (or raises a :class:`~bus.errors.FedragError` that becomes an error reply).

    Args:
        path: the node's place in the tree (``hospital_a.medicine``), or ``""`` for the gateway.
        subject: the subject it serves.
        default_budget_ms: the budget of a request that carries none.
        gate: who may use this node (everyone by default).
        admission: how many requests it takes on (:class:`nodes._admission.Admission`; the defaults of
            :class:`policies.limits.Limits` unless given).
    """

    role = "node"
    request_model: type[pydantic.BaseModel]

    def __init__(self, path: str, subject: str, default_budget_ms: float, gate: Gate | None = None,
                 admission: Admission | None = None) -> None:
        self.path = path
        self.subject = subject
        self.default_budget_ms = default_budget_ms
        self.gate = gate or AllowAll()
        self.admission = admission or Admission()
        self.nc: Client | None = None
        self.counters: Counter[str] = Counter()
        self._service = None
        self._tasks: set[asyncio.Task] = set()
        self._last_drop_log = float("-inf")

    def describe(self) -> dict[str, str]:
        """Metadata published in ``$SRV.INFO`` (strings only): what it is, and which process on which host
        serves it (how ``fedrag chaos`` finds the process to signal)."""
        return {"role": self.role, "path": self.path, "pid": str(os.getpid()), "host": socket.gethostname()}

    async def start(self, nc: Client, *, here: bool = True) -> None:
        """Registers the service and its endpoint on ``nc`` (again on a new connection after a loss) and, with
        ``here``, for parents in this process (:data:`bus.scatter.HERE`: they then ask this node, not a replica
        of it elsewhere, while it serves)."""
        self.nc = nc
        self._service = await add_service(
            nc, name=f"fedrag-{self.role}", version=VERSION, description=f"fedrag {self.role} {self.path}".strip(),
            metadata=self.describe(), stats_handler=lambda _endpoint: dict(self.counters),
        )
        await self._service.add_endpoint(name="query", subject=self.subject, handler=self._on_request)
        if here:
            scatter.HERE[self.subject] = self.serve_here

    async def stop(self) -> None:
        """Stops serving; requests in flight are cancelled."""
        if scatter.HERE.get(self.subject) == self.serve_here:
            del scatter.HERE[self.subject]
        if self._service is not None:
            service, self._service = self._service, None
            try:
                await service.stop()
            except nats.errors.Error:  # the connection is already gone: nothing left to unsubscribe
                pass
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _on_request(self, request: Request) -> None:
        reply = request._msg.reply  # nats.micro exposes no public accessor for it
        if not reply or not reply.startswith(INBOX_PREFIX):
            self._drop("no_reply" if not reply else "reply_subject")
            return
        await self._take(request)
        # nats.py hands a subscription's queued messages to this callback back to back, without letting the
        # event loop run anything else while the queue is not empty: yield, so that a flood on this subject
        # does not hold up the replies, heartbeats and work of the requests already taken on.
        await asyncio.sleep(0)

    async def _take(self, request) -> None:
        """Steps 2 and 3: refuses ``request`` (an error reply) or takes it on in a task of its own. A request whose
        body its parent in this process already decoded (``_HereRequest.message``) has no bytes' shape to check."""
        try:
            if self.admission.full:
                raise self.admission.overloaded()
            h.check(request.headers)
            if getattr(request, "message", None) is None:
                codec.check_shape(request.data, self.request_model, codec.MAX_REQUEST_BYTES)
        except FedragError as exc:
            await self.reply_error(request, exc.wire_type, str(exc), retry_after_ms=getattr(exc, "retry_after_ms", None))
            return
        self.admission.taken()
        task = asyncio.create_task(self._serve(request))
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task) -> None:
        self._tasks.discard(task)
        self.admission.left()

    def _drop(self, why: str) -> None:
        self.counters[f"dropped.{why}"] += 1
        now = time.monotonic()
        if now - self._last_drop_log >= _DROP_LOG_INTERVAL:
            self._last_drop_log = now
            log.warning("%s %s: dropping requests %s (%d so far; counted in $SRV.STATS)", self.role, self.path,
                        "without a reply subject" if why == "no_reply" else "whose reply subject is not an inbox",
                        self.counters[f"dropped.{why}"])

    async def serve_here(self, data: bytes, headers: dict[str, str],
                         message: pydantic.BaseModel | None = None) -> tuple[pydantic.BaseModel | bytes, dict[str, str]]:
        """Serves a request from a parent in this process — ``message``, if given, is what ``data`` encodes, as
        the parent decoded it — through the steps of a request from the broker (but the reply subject's).
        Returns the reply as made (an error reply as the broker would deliver it) and its headers."""
        if message is not None and not isinstance(message, self.request_model):
            message = None
        request = _HereRequest(data, headers, message)
        self.counters["requests.here"] += 1
        await self._take(request)
        return await request.reply  # a parent that stops waiting leaves the work to finish, as over the broker

    async def _serve(self, request: Request) -> None:
        trace = ""
        try:
            headers = request.headers or {}
            trace = headers.get(h.TRACE, "")
            budget = Budget.from_headers(headers, self.default_budget_ms)
            message = getattr(request, "message", None) or codec.decode(request.data, self.request_model,
                                                                         codec.MAX_REQUEST_BYTES)
            if budget.expired:
                raise ExpiredError(f"request reached {self.path or self.role} with no budget left ({budget.total_ms:.0f} ms)")
            caller = await self.gate.check(headers, message.question, self.path, trace, getattr(message, "use", "search"))
            if not self.may_answer(request, caller):
                self._drop("reply_not_asker")
                return
            async with self.admission.turn(getattr(caller, "key", ""), budget):
                reply = await self.handle(request, message, budget, caller)
                if reply is not None:
                    await self.respond(request, reply, h.Kind.RESULT, trace)
        except FedragError as exc:
            await self.reply_error(request, exc.wire_type, str(exc), trace, getattr(exc, "retry_after_ms", None))
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a bug must still produce an answer, not silence
            log.exception("%s %s: internal error", self.role, self.path)
            await self.reply_error(request, "internal", f"{type(exc).__name__}: {exc}", trace)

    def may_answer(self, request: Request, caller: Any) -> bool:
        """Whether the request's reply subject may receive an answer for ``caller`` (every inbox, here)."""
        return True

    async def respond(self, request: Request, model: pydantic.BaseModel, kind: h.Kind, trace: str) -> None:
        """Sends one reply message to ``request``'s inbox, within the broker's maximum payload.

        Raises:
            bus.errors.TooLargeError: the reply would not fit (it becomes a ``too_large`` error reply).
        """
        headers = {h.KIND: kind, **({h.TRACE: trace} if trace else {})}
        limit = self._payload_limit(headers)
        if isinstance(request, _HereRequest) and _surely_fits(model, limit):  # a parent in this process reads it as is
            await request.respond(model, headers)
            return
        body = codec.encode(model, limit=limit)
        await self._send(request, body, headers)

    async def reply_error(self, request: Request, error_type: str, reason: str, trace: str = "",
                          retry_after_ms: float | None = None) -> None:
        """Answers ``request`` with an error reply (saying when to try again, for a refusal for now) and counts it."""
        self.counters[f"errors.{error_type}"] += 1
        headers = {h.KIND: h.Kind.ERROR, **({h.TRACE: trace} if trace else {})}
        try:
            body = codec.encode(ErrorInfo(type=error_type, reason=reason[:4000], retry_after_ms=retry_after_ms),
                                limit=self._payload_limit(headers))
        except (FedragError, pydantic.ValidationError):
            body = codec.encode(ErrorInfo(type="internal", reason="error reason could not be encoded"))
        try:
            await request.respond_error(code=error_type, description=" ".join(reason[:200].split()), data=body,
                                        headers=headers)
        except nats.errors.Error as exc:
            self.counters["errors.reply_failed"] += 1
            log.debug("%s %s: could not send an error reply: %s", self.role, self.path, exc)

    async def _send(self, request: Request, body: bytes, headers: dict[str, str]) -> None:
        try:
            await request.respond(body, headers=headers)
        except nats.errors.Error as exc:  # the connection went away while we worked: nobody to tell
            self.counters["errors.reply_failed"] += 1
            log.debug("%s %s: could not send a reply: %s", self.role, self.path, exc)

    def _payload_limit(self, headers: dict[str, str]) -> int:
        """The largest body that fits in one message with ``headers`` (and the service-error headers)."""
        max_payload = self.nc.max_payload if self.nc is not None else codec.MAX_BODY_BYTES
        return min(codec.MAX_BODY_BYTES, max_payload) - h.size(headers) - 512

    async def handle(self, request: Request, message: Any, budget: Budget, caller: Any):
        """Serves one checked request; returns the reply model, or ``None`` if it already replied."""
        raise NotImplementedError


def _surely_fits(model: pydantic.BaseModel, limit: int) -> bool:
    """Whether a result is sure to encode within ``limit`` bytes, judged without encoding it: its passages' text,
    metadata and vectors, and its summaries, at four bytes a character, come to less (a metadata field at its key's
    and its text's length and 16 more: more than any number, or a string's header, takes in MessagePack). What may
    not fit is encoded, and held to the bound, as it would be for the broker."""
    if not isinstance(model, SearchResult):
        return False
    chars = sum(len(hit.text) + len(hit.vector or b"") + len(hit.sentences or b"") + 256
                + sum(len(key) + (len(value) if isinstance(value, str) else 0) + 16 for key, value in hit.metadata.items())
                for hit in (*model.hits, *model.lexical))
    chars += sum(len(summary.model_dump_json()) for summary in model.summaries)
    return 4 * chars < limit


class _HereRequest:
    """A request from a parent in this process: what :meth:`NodeService._serve` reads of a
    :class:`nats.micro.request.Request`, the reply kept for the parent instead of published."""

    def __init__(self, data: bytes, headers: dict[str, str], message: pydantic.BaseModel | None = None) -> None:
        self.data = data
        self.headers = headers
        self.message = message
        self.reply: asyncio.Future[tuple[pydantic.BaseModel | bytes, dict[str, str]]] = \
            asyncio.get_running_loop().create_future()

    async def respond(self, data: pydantic.BaseModel | bytes, headers: dict[str, str] | None = None) -> None:
        if not self.reply.done():
            self.reply.set_result((data, dict(headers or {})))

    async def respond_error(self, code: str, description: str, data: bytes = b"",
                            headers: dict[str, str] | None = None) -> None:
        # the headers nats.micro adds to an error reply (what :func:`bus.scatter.reply_outcome` recognizes)
        await self.respond(data, {**(headers or {}), "Nats-Service-Error": description, "Nats-Service-Error-Code": code})
