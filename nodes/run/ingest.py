"""``fedrag ingest``: records from a file (and deletions by id) sent to one leaf through its stream.

The file is read with its loader (rows it cannot use are listed with file and line), the records
are published in batches to ``fed.ingest.<path>`` and stored by the organization's stream, and the
command then waits for the leaf's report on each batch, showing progress, and ends with what was
added, updated, unchanged, deleted and rejected, and why. Batches the leaf has not applied when
the wait ends are not lost: they stay in the stream until the leaf applies them.
"""

from __future__ import annotations

import asyncio
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pydantic
from nats.aio.client import Client

from bus import codec
from bus.errors import FedragError
from bus.ingest import IngestBatch, IngestRecord, IngestReport, batches, new_batch_id, publish
from nodes.data.loaders import load
from nodes.data.records import LoadReport, Record
from nodes.data.writes import Outcome


@dataclass
class IngestSummary:
    """What one ``fedrag ingest`` did."""

    path: str
    sent_records: int = 0
    sent_deletes: int = 0
    parts: int = 0
    applied_parts: int = 0
    applied: Outcome = field(default_factory=Outcome)  # what the leaf reported, summed over the batches
    loads: list[LoadReport] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def skipped(self) -> int:
        return sum(report.skipped_count for report in self.loads)

    @property
    def complete(self) -> bool:
        return self.applied_parts == self.parts

    def add(self, report: IngestReport) -> None:
        self.applied_parts += 1
        self.applied.add(Outcome.from_counts(report.counts, report.rejected))

    def text(self, limit: int = 10) -> str:
        rate = self.sent_records / self.seconds if self.seconds > 0 else 0.0
        lines = [f"{self.path}: sent {self.sent_records} records and {self.sent_deletes} deletions in {self.parts} "
                 f"batches, stored by the stream ({rate:.0f} records/s end to end)"]
        lines += ["  " + line for report in self.loads for line in report.summary(limit).splitlines()]
        done = self.applied
        lines.append(f"  applied: {done.added} added, {done.updated} updated, {done.unchanged} unchanged, "
                     f"{done.deleted} deleted, {done.absent} deletions of unknown ids, {len(done.rejected)} rejected")
        lines += [f"  rejected {rid}: {why}" for rid, why in done.rejected[:limit]]
        if len(done.rejected) > limit:
            lines.append(f"  ... and {len(done.rejected) - limit} more rejected")
        if not self.complete:
            lines.append(f"  {self.parts - self.applied_parts} of {self.parts} batches not applied yet: they stay in the "
                         f"stream, and the leaf applies them when it runs")
        return "\n".join(lines)


def read_records(files: list[Path], format: str, options: dict, summary: IngestSummary) -> list[IngestRecord]:
    """The records of ``files`` as messages; rows the loader or the message rules refuse are counted as skipped."""
    out: list[IngestRecord] = []
    for file in files:
        records, report = load(file, format, **options)
        summary.loads.append(report)
        for record in records:
            try:
                out.append(_message(record))
            except pydantic.ValidationError as exc:
                error = exc.errors()[0]
                report.skip(f"{file} record {record.id[:80]!r}", f"{'.'.join(map(str, error['loc']))}: {error['msg']}")
                report.accepted -= 1
    return out


def _message(record: Record) -> IngestRecord:
    return IngestRecord(id=record.id, text=record.text, patient=record.patient, date=record.date,
                        metadata=dict(record.metadata))


async def ingest(nc: Client, path: str, records: list[IngestRecord], deletes: list[str], summary: IngestSummary, *,
                 wait_s: float = 120.0, verbose: bool = True) -> IngestSummary:
    """Publishes ``records`` and ``deletes`` to ``path`` and waits up to ``wait_s`` for the leaf's reports."""
    started = time.monotonic()
    batch = new_batch_id()
    parts = list(batches(records, deletes, batch))
    summary.parts, summary.sent_records, summary.sent_deletes = len(parts), len(records), len(deletes)
    applied: set[int] = set()
    everything = asyncio.Event()
    if not parts:
        everything.set()

    async def on_report(message) -> None:
        try:
            report = codec.decode(message.data, IngestReport)
        except FedragError:
            return
        if report.batch != batch or report.part in applied:
            return  # another run's report, or a redelivered batch reported twice
        applied.add(report.part)
        summary.add(report)
        if len(applied) == len(parts):
            everything.set()

    inbox = nc.new_inbox()
    sub = await nc.subscribe(inbox, cb=on_report)
    show = _Progress(len(records) + len(deletes), verbose)
    stored = {"records": 0}

    def sent(part: IngestBatch) -> None:
        stored["records"] += len(part.upserts) + len(part.deletes)
        show("stored by the stream", stored["records"], len(applied))

    try:
        await publish(nc, path, parts, report_to=inbox, progress=sent)
        deadline = time.monotonic() + wait_s
        while not everything.is_set() and time.monotonic() < deadline:
            try:
                await asyncio.wait_for(everything.wait(), timeout=min(2.0, max(deadline - time.monotonic(), 0.01)))
            except asyncio.TimeoutError:
                pass
            show("applied by the leaf", 0, len(applied), parts=len(parts))
    finally:
        await sub.unsubscribe()
    summary.seconds = time.monotonic() - started
    return summary


class _Progress:
    """Progress on stderr, at most every two seconds, with a rate and the time left."""

    def __init__(self, total: int, verbose: bool) -> None:
        self.total, self.verbose = total, verbose
        self.started = time.monotonic()
        self.last = 0.0

    def __call__(self, stage: str, done: int, applied_parts: int, parts: int | None = None) -> None:
        now = time.monotonic()
        if not self.verbose or now - self.last < 2.0:
            return
        self.last = now
        if parts is not None:
            print(f"  {stage}: {applied_parts}/{parts} batches", file=sys.stderr, flush=True)
            return
        rate = done / max(now - self.started, 1e-6)
        left = (self.total - done) / rate if rate > 0 else 0.0
        print(f"  {stage}: {done}/{self.total} records ({rate:.0f}/s, about {left:.0f} s left)", file=sys.stderr,
              flush=True)
