"""Scatter-gather: ask every child at once, answer at the deadline with what arrived.

:func:`scatter_gather` sends one request to each child subject concurrently and returns one
:class:`ChildOutcome` per child, in the order given, by the deadline at the latest. A child's
outcome is never dropped: it is ``successful`` or ``partial`` (its result came back), ``timed_out``
(no reply in time), ``unavailable`` (no responders: known at once from the broker, not after the
deadline), ``denied``, ``expired`` or ``failed`` (an error reply, or a reply that could not be
decoded).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import nats.errors
from nats.aio.client import Client

from bus import codec
from bus import headers as h
from bus.budget import Budget
from bus.errors import WireError
from bus.messages import Coverage, ErrorInfo, NodeReport, SearchResult, Status

log = logging.getLogger(__name__)

#: Error types whose reply maps to a status of their own; every other error type is ``failed``.
_ERROR_STATUS: dict[str, Status] = {"denied": "denied", "expired": "expired"}


@dataclass
class ChildOutcome:
    """What became of one child's request."""

    subject: str
    status: Status
    took_ms: float
    result: SearchResult | None = None
    error: ErrorInfo | None = None

    @property
    def report(self) -> NodeReport:
        """This child's line in the per-node report."""
        hits = len(self.result.hits) if self.result else 0
        return NodeReport(status=self.status, took_ms=round(self.took_ms, 2), hits=hits, error=self.error)

    @property
    def coverage(self) -> Coverage:
        """This child's contribution to coverage: its subtree's counts, or one failed unit."""
        if self.result is not None:
            return self.result.coverage.model_copy()
        cov = Coverage()
        cov.count(self.status)
        return cov


def reply_outcome(subject: str, took_ms: float, data: bytes, headers: dict[str, str] | None) -> ChildOutcome:
    """Interprets a child's reply: a result, or an error reply, or undecodable bytes (``failed``)."""
    headers = headers or {}
    try:
        if headers.get(h.KIND) == "error" or "Nats-Service-Error" in headers:
            error = codec.decode(data, ErrorInfo)
            return ChildOutcome(subject, _ERROR_STATUS.get(error.type, "failed"), took_ms, error=error)
        result = codec.decode(data, SearchResult)
    except WireError as exc:
        return ChildOutcome(subject, "failed", took_ms, error=ErrorInfo(type=exc.wire_type, reason=str(exc)))
    status: Status = "partial" if result.partial else "successful"
    return ChildOutcome(subject, status, took_ms, result=result)


async def _ask(nc: Client, subject: str, payload: bytes, headers: dict[str, str], budget_ms: float) -> ChildOutcome:
    started = time.monotonic()

    def took() -> float:
        return (time.monotonic() - started) * 1000.0

    try:
        msg = await nc.request(subject, payload, timeout=budget_ms / 1000.0, headers=headers)
    except nats.errors.NoRespondersError:
        return ChildOutcome(subject, "unavailable", took(),
                            error=ErrorInfo(type="no_responders", reason=f"no node is serving {subject}"))
    except (nats.errors.TimeoutError, asyncio.TimeoutError):
        return _timed_out(subject, took(), budget_ms)
    except nats.errors.Error as exc:
        return ChildOutcome(subject, "failed", took(), error=ErrorInfo(type="bus", reason=str(exc) or type(exc).__name__))
    return reply_outcome(subject, took(), msg.data, msg.headers)


def _timed_out(subject: str, took_ms: float, budget_ms: float) -> ChildOutcome:
    return ChildOutcome(subject, "timed_out", took_ms,
                        error=ErrorInfo(type="deadline", reason=f"no reply within {budget_ms:.0f} ms"))


async def scatter_gather(
    nc: Client,
    subjects: list[str],
    payload: bytes,
    *,
    budget_ms: float,
    headers: dict[str, str] | None = None,
    on_outcome: Callable[[ChildOutcome], Awaitable[None]] | None = None,
) -> list[ChildOutcome]:
    """Sends ``payload`` to every subject concurrently and gathers the outcomes.

    Args:
        nc: a connected NATS client.
        subjects: the children's query subjects.
        payload: the encoded request, the same for every child.
        budget_ms: how long each child has; the call returns by then (plus scheduling slack).
        headers: headers to send besides the budget (trace, credentials, kind).
        on_outcome: awaited with each outcome as soon as it is known, e.g. to stream it.

    Returns:
        One outcome per subject, in the order of ``subjects``.
    """
    if budget_ms <= 0:
        return [_timed_out(s, 0.0, budget_ms) for s in subjects]
    send_headers = {**(headers or {}), **Budget.header(budget_ms)}

    async def notify(outcome: ChildOutcome) -> None:
        if on_outcome is None:
            return
        try:
            await on_outcome(outcome)
        except Exception:  # a failing listener must not lose the outcome itself
            log.exception("on_outcome failed for %s", outcome.subject)

    async def one(subject: str) -> ChildOutcome:
        outcome = await _ask(nc, subject, payload, send_headers, budget_ms)
        await notify(outcome)
        return outcome

    tasks = {asyncio.ensure_future(one(s)): s for s in subjects}
    done, pending = await asyncio.wait(tasks, timeout=budget_ms / 1000.0 + 0.05)
    outcomes: dict[str, ChildOutcome] = {}
    for task in done:
        outcomes[tasks[task]] = task.result()
    for task in pending:  # the client's own timeout should have fired; never wait past the deadline
        task.cancel()
        outcome = _timed_out(tasks[task], budget_ms, budget_ms)
        outcomes[tasks[task]] = outcome
        await notify(outcome)
    return [outcomes[s] for s in subjects]
