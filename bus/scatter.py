"""Scatter-gather: ask every child at once, answer at the deadline with what arrived.

:func:`scatter_gather` sends one request to each child subject concurrently and returns one
:class:`ChildOutcome` per child, in the order given, by the deadline at the latest. A child's
outcome is never dropped: it is ``successful`` or ``partial`` (its result came back), ``timed_out``
(no reply in time), ``unavailable`` (no responders: known at once from the broker, not after the
deadline), ``denied``, ``expired`` (an error reply saying so, or no budget left to ask it at all) or
``failed`` (an error reply, a reply that could not be decoded, or one that cannot be true).

A child that lives in the asking process (a router's leaves, in an organization's process) may be asked
without the broker (``here=True``): a node serving a subject registers itself in :data:`HERE`, and is
then handed the same request and headers and goes through the same checks, gate and admission as over
NATS; what is saved is the two hops through the broker, decoding the request the parent already holds,
and encoding and decoding the result (which is checked all the same, :func:`result_outcome`). NATS stays
the wire between processes and sites; a child not registered here (another process, a replica
elsewhere, a node stopped) is asked over the broker.

A child is not believed blindly: :func:`check_result` holds its reply to what the parent can know —
scores finite and within the cosine range, every hit, copy, report, name and summary (and what
it cites) from the child's own subtree, coverage that adds up and counts no more leaves than the subtree has. A reply that breaks
these is ``failed`` (``invalid_reply``) and none of its hits are used.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import nats.errors
from nats.aio.client import Client
from pydantic import BaseModel

from bus import codec
from bus import headers as h
from bus.budget import Budget
from bus.errors import WireError
from bus.messages import COUNTED_STATUSES, Coverage, ErrorInfo, NodeReport, SearchResult, Status
from bus.subjects import QUERY_PREFIX, org_of, within

log = logging.getLogger(__name__)

#: Error types whose reply maps to a status of their own; every other error type is ``failed``.
_ERROR_STATUS: dict[str, Status] = {"denied": "denied", "expired": "expired"}
#: Largest score a hit may carry: the inner product of unit vectors, with room for rounding.
#: No BM25 score of a passage of this federation comes near this (idf is at most ~20, a term's share at most 2.2).
MAX_BM25 = 10_000.0
MAX_SCORE = 1.0 + 1e-3


#: A node of this process that answers a subject without the broker: ``await serve(payload, headers, message)``
#: (``message``: what ``payload`` encodes, or ``None``) returns its reply and the reply's headers — its result as
#: it made it, or an error reply's bytes as the broker would deliver them (see
#: :meth:`nodes._service.NodeService.serve_here`).
Here = Callable[[bytes, dict[str, str], BaseModel | None], Awaitable[tuple[BaseModel | bytes, dict[str, str]]]]
#: The nodes of this process, by the subject they serve (registered while they serve).
HERE: dict[str, Here] = {}


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


def check_result(result: SearchResult, subject: str, max_leaves: int | None = None) -> str | None:
    """Why ``result`` cannot be a true answer from the subtree at ``subject``, or ``None`` if it can.

    Args:
        result: the child's decoded reply.
        subject: the child's query subject (``fed.q.<path>``).
        max_leaves: how many leaves the parent's spec places under that child, if it knows.
    """
    path = subject[len(QUERY_PREFIX) + 1:]
    org = org_of(path)
    inside: set[str] = set()  # the hits' paths found within the subtree (a result's hits come from a few leaves)

    for lexical, hits in ((False, result.hits), (True, result.lexical)):
        for hit in hits:
            if not math.isfinite(hit.score) or (not 0.0 <= hit.score <= MAX_BM25 if lexical else abs(hit.score) > MAX_SCORE):
                return (f"a lexical hit scores {hit.score!r}, not a BM25 score" if lexical else
                        f"a hit scores {hit.score!r}, outside the cosine range [-1, 1]")
            if hit.similarity is not None and (not math.isfinite(hit.similarity) or abs(hit.similarity) > MAX_SCORE):
                return f"a hit's similarity {hit.similarity!r} is outside the cosine range [-1, 1]"
            if hit.org != org or (hit.path not in inside and not within(hit.path, path)):
                return f"a hit claims to come from {hit.path[:80]!r}, outside {path}'s subtree"
            inside.add(hit.path)
            if any(not within(ref.path, path) for ref in hit.duplicates):
                return f"a hit lists copies outside {path}'s subtree"
    stats = result.stats
    if stats is not None and (any(n > stats.docs for n in [*stats.df.values(), *stats.concepts])
                              or stats.length < max(stats.df.values(), default=0)):
        return "its collection statistics do not add up"
    coverage = result.coverage
    counts = [getattr(coverage, status) for status in COUNTED_STATUSES]
    if min(counts + [coverage.total]) < 0 or sum(counts) != coverage.total:
        return "its coverage counts do not add up"
    if max_leaves is not None and coverage.total > max_leaves:
        return f"its coverage counts {coverage.total} units where {path} has {max_leaves}"
    if any(not key.startswith(QUERY_PREFIX + ".") or not within(key[len(QUERY_PREFIX) + 1:], path) for key in result.nodes):
        return f"it reports on nodes outside {path}'s subtree"
    if any(not within(leaf, path) for leaves in result.names.values() for leaf in leaves):
        return f"it places names at leaves outside {path}'s subtree"
    for summary in result.summaries:
        refs = [ref for s in summary.sentences for ref in s.sources] + [ref for c in summary.clusters for ref in c.sources]
        if not within(summary.path, path) or any(not within(ref.path, path) for ref in refs):
            return f"a summary claims to come from, or cite, a node outside {path}'s subtree"
        if summary.confidence is not None and not 0.0 <= summary.confidence <= 1.0:
            return f"a summary's confidence {summary.confidence!r} is not a probability"
    return None


def reply_outcome(subject: str, took_ms: float, data: bytes, headers: dict[str, str] | None,
                  max_leaves: int | None = None) -> ChildOutcome:
    """Interprets a child's reply: a result, an error reply, or bytes that cannot be used (``failed``)."""
    headers = headers or {}
    try:
        if headers.get(h.KIND) == h.Kind.ERROR or "Nats-Service-Error" in headers:
            error = codec.decode(data, ErrorInfo)
            return ChildOutcome(subject, _ERROR_STATUS.get(error.type, "failed"), took_ms, error=error)
        result = codec.decode(data, SearchResult)
    except WireError as exc:
        return ChildOutcome(subject, "failed", took_ms, error=ErrorInfo(type=exc.wire_type, reason=str(exc)))
    return result_outcome(subject, took_ms, result, max_leaves)


def result_outcome(subject: str, took_ms: float, result: SearchResult, max_leaves: int | None = None) -> ChildOutcome:
    """A child's result, held to what its parent can know (:func:`check_result`)."""
    problem = check_result(result, subject, max_leaves)
    if problem is not None:
        return ChildOutcome(subject, "failed", took_ms, error=ErrorInfo(type="invalid_reply", reason=problem))
    status: Status = "partial" if result.partial else "successful"
    return ChildOutcome(subject, status, took_ms, result=result)


async def _ask(nc: Client, subject: str, payload: bytes, headers: dict[str, str], budget_ms: float,
               max_leaves: int | None, here: bool = False, message: BaseModel | None = None) -> ChildOutcome:
    started = time.monotonic()

    def took() -> float:
        return (time.monotonic() - started) * 1000.0

    serve = HERE.get(subject) if here else None
    if serve is not None:
        try:
            reply, reply_headers = await asyncio.wait_for(serve(payload, headers, message), budget_ms / 1000.0)
        except asyncio.TimeoutError:
            return _timed_out(subject, took(), budget_ms)
        if isinstance(reply, SearchResult):  # made in this process: not encoded, not decoded, still checked
            return result_outcome(subject, took(), reply, max_leaves)
        return reply_outcome(subject, took(), reply, reply_headers, max_leaves)
    try:
        msg = await nc.request(subject, payload, timeout=budget_ms / 1000.0, headers=headers)
    except nats.errors.NoRespondersError:
        return ChildOutcome(subject, "unavailable", took(),
                            error=ErrorInfo(type="no_responders", reason=f"no node is serving {subject}"))
    except (nats.errors.TimeoutError, asyncio.TimeoutError):
        return _timed_out(subject, took(), budget_ms)
    except nats.errors.Error as exc:
        return ChildOutcome(subject, "failed", took(), error=ErrorInfo(type="bus", reason=str(exc) or type(exc).__name__))
    return reply_outcome(subject, took(), msg.data, msg.headers, max_leaves)


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
    max_leaves: dict[str, int] | None = None,
    here: bool = False,
    message: BaseModel | None = None,
) -> list[ChildOutcome]:
    """Sends ``payload`` to every subject concurrently and gathers the outcomes.

    Args:
        nc: a connected NATS client.
        subjects: the children's query subjects.
        payload: the encoded request, the same for every child.
        budget_ms: how long each child has; the call returns by then (plus scheduling slack).
        headers: headers to send besides the budget (trace, credentials, kind).
        on_outcome: awaited with each outcome as soon as it is known, e.g. to stream it.
        max_leaves: per subject, how many leaves the child's subtree has (see :func:`check_result`).
        here: ask a child that lives in this process directly (:data:`HERE`), without the broker.
        message: what ``payload`` encodes, handed as it is to a child asked directly (it need not decode it).

    Returns:
        One outcome per subject, in the order of ``subjects``.
    """
    if not subjects:  # no child to ask (a router above none of the records a query names)
        return []
    if budget_ms <= 0:  # nothing left to give: the children are never asked
        return [ChildOutcome(s, "expired", 0.0, error=ErrorInfo(type="expired", reason="no budget left to ask it"))
                for s in subjects]
    send_headers = {**(headers or {}), **Budget.header(budget_ms)}

    async def notify(outcome: ChildOutcome) -> None:
        if on_outcome is None:
            return
        try:
            await on_outcome(outcome)
        except Exception:  # a failing listener must not lose the outcome itself
            log.exception("on_outcome failed for %s", outcome.subject)

    async def one(subject: str) -> ChildOutcome:
        outcome = await _ask(nc, subject, payload, send_headers, budget_ms, (max_leaves or {}).get(subject), here,
                             message)
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
