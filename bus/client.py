"""The client side of the wire: ask a question, discover the live nodes, wait until they serve.

:func:`events` is what ``fedrag ask`` and the Textual client use: it sends an
:class:`~bus.asking.AskRequest` to the gateway and yields, as they arrive, each organization's
result, the checked sentences of an answer being written, and the final :class:`~bus.asking.Answer`
(:func:`ask` waits for that answer). :func:`discover` collects the ``$SRV.INFO``
and ``$SRV.STATS`` replies of every fedrag node on the bus as typed :class:`Node` values (nats.py's
micro ``ServiceInfo``/``ServiceStats``), and :func:`wait_until_serving` is how a launcher knows the
nodes it started answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Union

import nats.errors
from nats.aio.client import Client
from nats.micro.service import ServiceInfo, ServiceStats

from bus import codec
from bus import headers as h
from bus.errors import AskError, BrokerError, GatewayLost, NoGatewayYet
from bus.messages import ErrorInfo
from bus.asking import Answer, AnswerDelta, AskRequest, OrgResult, Restarted
from bus.subjects import ASK, discovery_subject, query_subject

#: How long past its deadline a caller waits for the gateway's final message.
SLACK_MS = 2_000.0
#: The wait when a request names no deadline (the gateway then applies its own default).
DEFAULT_WAIT_MS = 30_000.0
#: How often a gateway working on a question says so (a ``heartbeat`` message).
HEARTBEAT_MS = 250.0
#: A gateway silent this long mid-question is taken for dead; the question goes to another gateway.
SILENCE_MS = 1_000.0
#: How many times a question is asked again after its gateway went silent.
RETRIES = 2

Headers = Union[dict[str, str], Callable[[], dict[str, str]], None]


async def ask(nc: Client, request: AskRequest, *, headers: Headers = None,
              on_event: Callable[[OrgResult | AnswerDelta | Restarted], Awaitable[None] | None] | None = None,
              subject: str = ASK) -> Answer:
    """Asks the federation's gateway and returns its final answer (see :func:`events`).

    Args:
        on_event: called with each event before the answer (an organization's result, a sentence
            of the answer, a restart) as it lands.
    """
    stream = events(nc, request, headers=headers, subject=subject)
    try:
        async for event in stream:
            if isinstance(event, Answer):
                return event
            if on_event is not None:
                result = on_event(event)
                if asyncio.iscoroutine(result):
                    await result
    finally:
        await stream.aclose()
    raise BrokerError("the gateway's stream ended without an answer")


#: How long a question asked again waits before a third try when no gateway served it at once.
REASK_PAUSE_S = 0.25

#: What the gateway streams for one question: each organization's result, checked sentences of an
#: LLM answer as they are written, and last the :class:`~bus.asking.Answer`; and, from
#: :func:`events` itself, :class:`~bus.asking.Restarted` when the question had to be asked again.
Event = Union[OrgResult, AnswerDelta, Restarted, Answer]
_EVENT_MODELS = {h.Kind.ORG_RESULT: OrgResult, h.Kind.ANSWER_DELTA: AnswerDelta}


async def events(nc: Client, request: AskRequest, *, headers: Headers = None,
                 subject: str = ASK, retries: int = RETRIES) -> AsyncIterator[Event]:
    """Asks the federation's gateway and yields what it streams, ending with the :class:`Answer`.

    A gateway sends a heartbeat every :data:`HEARTBEAT_MS` while it works; one silent for
    :data:`SILENCE_MS` is taken for dead, and the question (read-only, so safe to repeat) is asked
    again — of another gateway, the dead one's subscription being gone — with what is left of its
    deadline, after a :class:`~bus.asking.Restarted` event that voids what came before.

    Args:
        nc: a connected client.
        request: the question and its options.
        headers: extra headers (e.g. ``Authorization`` and the proof), or a function that makes them
            afresh for each attempt (a proof may be used only once).
        subject: the gateway to ask (``fed.ask``, or an organization's own ``fed.ask.<org>``).
        retries: how many times to ask again after a gateway went silent.

    Raises:
        BrokerError: no gateway is serving ``subject``, or it did not answer in time
            (:class:`GatewayLost` if it went silent and no retry was left).
        AskError: the gateway refused the request (e.g. a validation error).
    """
    wait_ms = (request.deadline_ms or DEFAULT_WAIT_MS) + SLACK_MS
    deadline = time.monotonic() + wait_ms / 1000.0
    for attempt in range(retries + 1):
        left_ms = (deadline - time.monotonic()) * 1000.0 - SLACK_MS
        this = request if attempt == 0 or request.deadline_ms is None else \
            request.model_copy(update={"deadline_ms": max(int(left_ms), 1)})
        stream = _attempt(nc, this, headers() if callable(headers) else headers, subject, deadline, retrying=attempt > 0)
        try:
            async for event in stream:
                yield event
            return
        except GatewayLost as exc:
            if attempt == retries or deadline - time.monotonic() <= SILENCE_MS / 1000.0:
                raise
            lost = exc
        finally:
            await stream.aclose()  # now, not whenever the event loop finalizes it (the connection may be gone)
        yield Restarted(reason=str(lost), attempt=attempt + 1)
        if isinstance(lost, NoGatewayYet):  # a gateway coming back (its connection renewed): give it a moment
            await asyncio.sleep(REASK_PAUSE_S)


class _Inbox:
    """The replies to one inbox, read one at a time with a timeout.

    Not nats.py's ``Subscription.next_msg``: on Python 3.11 its ``wait_for`` returns a reply that arrives
    just as the reading task is cancelled and drops the cancellation, so a question cancelled while
    heartbeats stream in (the terminal client's Escape) could go on to its deadline.
    """

    def __init__(self, nc: Client) -> None:
        self.nc = nc
        self.subject = nc.new_inbox()
        self._queue: asyncio.Queue = asyncio.Queue()
        self._sub = None

    async def open(self) -> "_Inbox":
        async def put(msg) -> None:
            self._queue.put_nowait(msg)

        self._sub = await self.nc.subscribe(self.subject, cb=put)
        return self

    async def next(self, timeout: float):
        """The next reply.

        Raises:
            TimeoutError: none within ``timeout`` seconds.
            nats.errors.ConnectionClosedError: the connection is closed.
        """
        if self.nc.is_closed:
            raise nats.errors.ConnectionClosedError
        async with asyncio.timeout(timeout):
            return await self._queue.get()

    async def close(self) -> None:
        with contextlib.suppress(nats.errors.Error):  # a connection draining or closed has no subscription left
            await self._sub.unsubscribe()


async def _attempt(nc: Client, request: AskRequest, headers: dict[str, str] | None, subject: str,
                   deadline: float, retrying: bool = False) -> AsyncIterator[Event]:
    replies = await _Inbox(nc).open()
    try:
        await nc.publish(subject, codec.encode(request), reply=replies.subject,
                         headers={h.KIND: h.Kind.ASK, h.TRACE: h.new_trace(), **(headers or {})})
        while True:
            remaining = deadline - time.monotonic()
            silence = SILENCE_MS / 1000.0
            try:
                msg = await replies.next(max(min(remaining, silence), 0.001))
            except TimeoutError:
                if remaining <= silence:
                    raise BrokerError(f"the gateway did not answer by the deadline (+{SLACK_MS:.0f} ms)") from None
                raise GatewayLost(f"the gateway went silent for {SILENCE_MS:.0f} ms mid-question") from None
            msg_headers = msg.headers or {}
            if msg_headers.get("Status") == "503":
                if retrying:  # the gateway that went silent may be renewing its connection
                    raise NoGatewayYet(f"no gateway is serving {subject} at the moment")
                raise BrokerError(f"no gateway is serving {subject} (is the federation running?)")
            kind = msg_headers.get(h.KIND)
            if kind == h.Kind.HEARTBEAT:
                continue
            if kind == h.Kind.ERROR:
                raise AskError(codec.decode(msg.data, ErrorInfo))
            if kind in _EVENT_MODELS:
                yield codec.decode(msg.data, _EVENT_MODELS[kind])
            else:
                yield codec.decode(msg.data, Answer)
                return
    finally:
        await replies.close()


async def _gather(nc: Client, subject: str, timeout: float) -> list[dict]:
    inbox = await _Inbox(nc).open()
    replies = []
    try:
        await nc.publish(subject, b"", reply=inbox.subject)
        end = time.monotonic() + timeout
        while (remaining := end - time.monotonic()) > 0:
            try:
                msg = await inbox.next(remaining)
            except TimeoutError:
                break
            try:
                reply = json.loads(msg.data)
            except ValueError:
                continue  # not a micro service reply; ignore it
            if isinstance(reply, dict):
                replies.append(reply)
    finally:
        await inbox.close()
    return replies


@dataclass(frozen=True)
class Node:
    """One live fedrag node instance, as the micro service framework describes it."""

    info: ServiceInfo
    stats: ServiceStats | None

    @property
    def role(self) -> str:
        """``leaf``, ``router`` or ``gateway``."""
        return self.info.metadata.get("role", "?")

    @property
    def path(self) -> str:
        """Its place in the tree (``""`` for a gateway)."""
        return self.info.metadata.get("path", "")

    @property
    def subject(self) -> str:
        """The subject it serves."""
        return self.info.endpoints[0].subject if self.info.endpoints else ""

    @property
    def process(self) -> tuple[str, int] | None:
        """The host and process id serving it, as it publishes them (``None`` if it does not)."""
        meta = self.info.metadata
        pid = meta.get("pid", "")
        return (meta.get("host", ""), int(pid)) if pid.isdigit() else None

    @property
    def requests(self) -> int:
        """Requests it has received: over the broker (its endpoint's count) and from a parent in its own process
        (its ``requests.here`` counter, :data:`bus.scatter.HERE`)."""
        over_the_bus = sum(e.num_requests for e in self.stats.endpoints) if self.stats else 0
        return over_the_bus + self.counters.get("requests.here", 0)

    @property
    def counters(self) -> dict[str, int]:
        """The node's own counters (queries, hits, errors by type ...)."""
        data = self.stats.endpoints[0].data if self.stats and self.stats.endpoints else None
        return dict(data) if isinstance(data, dict) else {}

    @property
    def errors(self) -> int:
        """Error replies it has sent, of every type."""
        return sum(v for key, v in self.counters.items() if key.startswith("errors."))

    def to_dict(self) -> dict:
        """A JSON-ready view (``fedrag status --json``)."""
        return {"id": self.info.id, "role": self.role, "path": self.path, "subject": self.subject,
                "metadata": self.info.metadata, "requests": self.requests, "errors": self.errors,
                "data": self.counters}


def _parse(kind, replies: list[dict]) -> list:
    parsed = []
    for reply in replies:
        try:
            parsed.append(kind.from_dict(reply))
        except (KeyError, TypeError, ValueError):
            continue  # another framework's (or a broken) reply: not ours to show
    return parsed


async def discover(nc: Client, timeout: float = 0.5) -> list[Node]:
    """Every fedrag node answering ``$SRV.INFO`` within ``timeout``, with its stats, sorted by path."""
    infos, stats = await asyncio.gather(_gather(nc, discovery_subject("INFO"), timeout),
                                        _gather(nc, discovery_subject("STATS"), timeout))
    by_id = {s.id: s for s in _parse(ServiceStats, stats)}
    nodes = [Node(info, by_id.get(info.id)) for info in _parse(ServiceInfo, infos) if info.name.startswith("fedrag-")]
    return sorted(nodes, key=lambda n: (n.path, n.info.id))


async def processes(nc: Client, host: str, timeout: float = 0.5) -> dict[int, set[str]]:
    """Which node paths each process on ``host`` serves (a gateway as ``""``), from discovery."""
    served: dict[int, set[str]] = {}
    for node in await discover(nc, timeout):
        if node.process is not None and node.process[0] == host:
            served.setdefault(node.process[1], set()).add(node.path)
    return served


def missing(nodes: list[Node], expected: Iterable[str] = ()) -> dict[str, str]:
    """Subjects that should be served but are not: each router's and gateway's children, and ``expected``.

    Returns:
        Each missing subject with who expects it (a parent's subject, or ``"the spec"``).
    """
    serving = {node.subject for node in nodes}
    wanted = {subject: "the spec" for subject in expected}
    for node in nodes:
        for child in filter(None, node.info.metadata.get("children", "").split(",")):
            wanted.setdefault(query_subject(child), node.subject)
    return {subject: by for subject, by in sorted(wanted.items()) if subject not in serving}


async def wait_until_serving(nc: Client, subjects: Iterable[str], timeout: float = 30.0) -> None:
    """Returns once a node serving each of ``subjects`` answers discovery.

    A node answers ``$SRV.INFO`` on the connection its endpoint subscribed on, after subscribing, so
    an answer listing the subject means requests to it are delivered.

    Raises:
        BrokerError: some subject has no node within ``timeout``; the message names them.
    """
    wanted = set(subjects)
    deadline = time.monotonic() + timeout
    wait = 0.05
    while True:
        missing = wanted - {node.subject for node in await discover(nc, timeout=wait)}
        if not missing:
            return
        if time.monotonic() >= deadline:
            raise BrokerError(f"not serving after {timeout:.0f} s: {', '.join(sorted(missing))}")
        wait = min(wait * 2, 0.5)
