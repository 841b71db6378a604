"""Load and soak: many clients asking at once, what the federation sustains, and whether memory stays put.

:func:`load` runs a closed loop of ``clients`` clients (each asks its next question as soon as the
last is answered) for some seconds and returns every :class:`~nodes.chaos.invariants.Query`;
:class:`LoadResult` turns them into throughput, latency percentiles and lost replies (a question
that got no answer at all: it must never happen). :func:`rss_mb` samples the resident memory of
every process serving the federation on this host, found through discovery, for the soak.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bus.client import processes as serving
from bus.connection import connect, drain
from bus.subjects import org_of
from nodes.chaos.invariants import ANSWER_SLACK_MS, Query
from nodes.chaos.stream import QueryStream
from nodes.chaos.table import text_table
from nodes.run.spec import FederationSpec


@dataclass
class LoadResult:
    """What ``clients`` concurrent clients got in ``seconds``."""

    clients: int
    seconds: float
    queries: list[Query] = field(default_factory=list)
    incomplete: int = 0

    @property
    def answered(self) -> list[Query]:
        return [q for q in self.queries if q.answer is not None]

    @property
    def lost(self) -> int:
        """Questions that got no answer at all (a refusal or a partial answer is an answer)."""
        return len(self.queries) - len(self.answered)

    @property
    def throughput(self) -> float:
        """Answers per second."""
        return len(self.answered) / self.seconds if self.seconds else 0.0

    def percentile_ms(self, p: float) -> float:
        took = [q.took_ms for q in self.answered]
        return float(np.percentile(took, p)) if took else 0.0

    @property
    def past_deadline(self) -> int:
        return sum(1 for q in self.answered if q.took_ms > q.deadline_ms + ANSWER_SLACK_MS)

    @property
    def errors(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for q in self.queries:
            if q.error:
                kind = q.error.split(":", 1)[0][:60]
                counts[kind] = counts.get(kind, 0) + 1
        return counts


async def load(spec: FederationSpec, url: str, questions: Sequence[str], users: Sequence[str | None], *, clients: int,
               seconds: float, deadline_ms: int | None = None, answer_every: int = 0) -> LoadResult:
    """``clients`` clients asking back to back for ``seconds`` (questions in flight then are finished and counted)."""
    stream = QueryStream(spec, url, questions, users, clients=clients, pause_s=0.0, answer_every=answer_every,
                         deadline_ms=deadline_ms or spec.federation.deadline_ms)
    await stream.start()
    started = time.monotonic()
    try:
        await asyncio.sleep(seconds)
    finally:
        await stream.stop()
    result = LoadResult(clients, time.monotonic() - started, list(stream.queries))
    result.incomplete = sum(1 for q in result.answered if not stream.invariants.full(q))
    return result


def load_report(results: list[LoadResult]) -> str:
    """A table: per concurrency, questions, answers per second, p50 and p99 latency, incomplete, lost."""
    rows = [("clients", "questions", "answers/s", "p50", "p99", "past deadline", "incomplete", "lost replies")]
    for r in results:
        rows.append((str(r.clients), str(len(r.queries)), f"{r.throughput:.1f}", f"{r.percentile_ms(50):.0f} ms",
                     f"{r.percentile_ms(99):.0f} ms", str(r.past_deadline), str(r.incomplete), str(r.lost)))
    lines = text_table(rows)
    for r in results:
        if r.errors:
            lines.append(f"{r.clients} clients, no answer: " + ", ".join(f"{n}× {e}" for e, n in r.errors.items()))
    return "\n".join(lines)


async def processes(url: str, host: str) -> dict[int, str]:
    """Every process on ``host`` serving a node of the federation at ``url``, named by what it serves."""
    nc = await connect(url, "fedrag-load", timeout=5.0)
    try:
        served = await serving(nc, host)
    finally:
        await drain(nc)
    return {pid: _label({path or "gateway" for path in paths}) for pid, paths in served.items()}


def _label(paths: set[str]) -> str:
    tops = sorted({org_of(path) for path in paths})
    return ", ".join(tops) if len(paths) > 1 or "." not in next(iter(paths)) else next(iter(paths))


def rss_mb(pid: int) -> float | None:
    """The resident memory of process ``pid`` in MB (``None`` if it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        return None
    return None


def memory_report(names: dict[int, str], before: dict[int, float | None], after: dict[int, float | None],
                  questions: int) -> str:
    """Each process's memory before and after ``questions`` questions, and its growth."""
    lines = [f"memory over {questions} questions:"]
    for pid, name in sorted(names.items(), key=lambda item: item[1]):
        start, end = before.get(pid), after.get(pid)
        if start is None or end is None:
            lines.append(f"  {name} (pid {pid}): gone")
            continue
        lines.append(f"  {name:<28} {start:7.0f} MB -> {end:7.0f} MB  ({(end - start) / start * 100:+.1f} %)")
    return "\n".join(lines)
