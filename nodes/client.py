"""Talking to a running federation: ask a question, discover the live nodes.

:func:`ask` is what ``fedrag ask`` (and later the Textual client) uses: it sends an
:class:`~bus.messages.AskRequest` to the gateway and receives the stream of per-organization
events and the final :class:`~bus.messages.Answer`. :func:`discover` collects the
``$SRV.INFO`` and ``$SRV.STATS`` replies of every fedrag node on the bus.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable

import nats.errors
from nats.aio.client import Client

from bus import codec
from bus import headers as h
from bus.errors import BrokerError, FedragError
from bus.messages import Answer, AskRequest, ErrorInfo, OrgResult
from bus.subjects import ASK

#: How long past its deadline a caller waits for the gateway's final message.
SLACK_MS = 2_000.0
#: The wait when a request names no deadline (the gateway then applies its own default).
DEFAULT_WAIT_MS = 30_000.0


class AskError(FedragError):
    """The gateway answered with an error reply."""

    def __init__(self, error: ErrorInfo) -> None:
        super().__init__(f"{error.type}: {error.reason}")
        self.error = error
        self.wire_type = error.type


async def ask(nc: Client, request: AskRequest, *, headers: dict[str, str] | None = None,
              on_event: Callable[[OrgResult], Awaitable[None] | None] | None = None) -> Answer:
    """Asks the federation's gateway and returns its final answer.

    Args:
        nc: a connected client.
        request: the question and its options.
        headers: extra headers (e.g. ``Authorization``).
        on_event: called with each organization's result as it lands.

    Raises:
        BrokerError: no gateway is serving ``fed.ask``, or it did not answer in time.
        AskError: the gateway refused the request (e.g. a validation error).
    """
    inbox = nc.new_inbox()
    sub = await nc.subscribe(inbox)
    wait_ms = (request.deadline_ms or DEFAULT_WAIT_MS) + SLACK_MS
    deadline = time.monotonic() + wait_ms / 1000.0
    try:
        await nc.publish(ASK, codec.encode(request), reply=inbox,
                         headers={h.KIND: "ask", h.TRACE: h.new_trace(), **(headers or {})})
        while True:
            remaining = deadline - time.monotonic()
            try:
                msg = await sub.next_msg(timeout=max(remaining, 0.001))
            except (nats.errors.TimeoutError, asyncio.TimeoutError):
                raise BrokerError(f"the gateway did not answer within {wait_ms:.0f} ms") from None
            msg_headers = msg.headers or {}
            if msg_headers.get("Status") == "503":
                raise BrokerError("no gateway is serving fed.ask (is the federation running?)")
            kind = msg_headers.get(h.KIND)
            if kind == "org_result":
                if on_event is not None:
                    result = on_event(codec.decode(msg.data, OrgResult))
                    if asyncio.iscoroutine(result):
                        await result
            elif kind == "error":
                raise AskError(codec.decode(msg.data, ErrorInfo))
            else:
                return codec.decode(msg.data, Answer)
    finally:
        await sub.unsubscribe()


async def _gather(nc: Client, subject: str, timeout: float) -> list[dict]:
    inbox = nc.new_inbox()
    sub = await nc.subscribe(inbox)
    replies = []
    try:
        await nc.publish(subject, b"", reply=inbox)
        end = time.monotonic() + timeout
        while (remaining := end - time.monotonic()) > 0:
            try:
                msg = await sub.next_msg(timeout=remaining)
            except (nats.errors.TimeoutError, asyncio.TimeoutError):
                break
            if msg.data:
                try:
                    replies.append(json.loads(msg.data))
                except ValueError:
                    continue  # not a micro service reply; ignore it
    finally:
        await sub.unsubscribe()
    return replies


async def discover(nc: Client, timeout: float = 0.5) -> list[dict]:
    """Every fedrag node answering ``$SRV.INFO``, with its ``$SRV.STATS`` merged in.

    Returns:
        One dict per service instance: ``id``, ``role``, ``path``, ``subject``, ``metadata``,
        ``requests``, ``errors`` and the node's own counters (``data``), sorted by path.
    """
    infos, stats = await asyncio.gather(_gather(nc, "$SRV.INFO", timeout), _gather(nc, "$SRV.STATS", timeout))
    by_id = {s.get("id"): s for s in stats}
    nodes = []
    for info in infos:
        if not str(info.get("name", "")).startswith("fedrag-"):
            continue
        metadata = info.get("metadata") or {}
        endpoint = (info.get("endpoints") or [{}])[0]
        stat = (by_id.get(info.get("id")) or {}).get("endpoints") or [{}]
        data = stat[0].get("data") or {}
        nodes.append({
            "id": info.get("id"), "role": metadata.get("role", "?"), "path": metadata.get("path", ""),
            "subject": endpoint.get("subject", ""), "metadata": metadata,
            "requests": stat[0].get("num_requests", 0), "data": data,
            "errors": sum(v for key, v in data.items() if key.startswith("errors.")),
        })
    return sorted(nodes, key=lambda n: (n["path"], n["id"]))
