"""A leaf taking records live from its JetStream subject (see :mod:`bus.ingest` for the wire side).

:class:`Ingestor` pulls batches from the leaf's durable consumer, applies each to the store in one
SQLite transaction (:meth:`nodes.data.store.LeafStore.apply`), and only then acknowledges it — so a
leaf killed at any point loses nothing: what was committed is replayed into its index when it
starts again, and what was not acknowledged is delivered again and applied idempotently. A batch
that cannot be decoded is terminated (never redelivered) and reported. The embedding model is
loaded for a batch with new text and released once the stream has been idle for a while.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

import nats.errors
from nats.aio.client import Client
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy

from bus.subjects import INBOX
from bus import codec
from bus.errors import FedragError
from bus.ingest import ACK_WAIT_S, REPORT, IngestBatch, IngestReport, durable_name, ensure_stream, stream_name
from bus.subjects import changed_subject, ingest_subject, org_of
from nodes.data.records import Record
from nodes.data.store import LeafStore

log = logging.getLogger(__name__)

#: Batches fetched per pull, and how long a pull waits for the first.
FETCH = 4
FETCH_WAIT_S = 1.0
#: How often a leaf working on a long batch tells the stream it is still on it.
WORKING_EVERY_S = 5.0
#: Release the embedding model after the stream has been idle this long.
IDLE_RELEASE_S = 10.0


class Ingestor:
    """Consumes ``fed.ingest.<path>`` into ``store``.

    Args:
        path: the leaf's path.
        store: its store.
        embedder_factory: returns the embedder (loaded on first use).
        release: called to free the embedder once idle (``None``: keep it).
    """

    def __init__(self, path: str, store: LeafStore, embedder_factory: Callable, release: Callable[[], None] | None = None
                 ) -> None:
        self.path = path
        self.store = store
        self.embedder_factory = embedder_factory
        self.release = release
        self.counters = {"batches": 0, "records": 0, "rejected_batches": 0}
        self._task: asyncio.Task | None = None
        self._sub = None
        self._nc: Client | None = None
        self._loaded = False

    def _factory(self):
        self._loaded = True
        return self.embedder_factory()

    async def start(self, nc: Client) -> None:
        """Binds the durable consumer (creating the stream if needed) and starts pulling."""
        await self.stop()
        self._nc = nc
        await ensure_stream(nc, org_of(self.path))
        config = ConsumerConfig(durable_name=durable_name(self.path), ack_policy=AckPolicy.EXPLICIT,
                                deliver_policy=DeliverPolicy.ALL, ack_wait=ACK_WAIT_S, max_ack_pending=FETCH,
                                filter_subject=ingest_subject(self.path))
        self._sub = await nc.jetstream().pull_subscribe(ingest_subject(self.path), durable=durable_name(self.path),
                                                        stream=stream_name(org_of(self.path)), config=config)
        self._task = asyncio.create_task(self._run(), name=f"ingest {self.path}")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        sub, self._sub = self._sub, None
        if sub is not None:
            try:
                await sub.unsubscribe()
            except (nats.errors.Error, FedragError):
                pass

    async def _run(self) -> None:
        idle_since = time.monotonic()
        while True:
            try:
                messages = await self._sub.fetch(FETCH, timeout=FETCH_WAIT_S)
            except (nats.errors.TimeoutError, asyncio.TimeoutError):
                if self._loaded and self.release is not None and time.monotonic() - idle_since > IDLE_RELEASE_S:
                    self.release()
                    self._loaded = False
                continue
            except nats.errors.ConnectionClosedError:
                return  # the process's link opens a new connection and starts us again
            except Exception as exc:  # a broker hiccup: try again shortly
                log.warning("%s: pulling ingestion batches failed (%s: %s)", self.path, type(exc).__name__, exc)
                await asyncio.sleep(1.0)
                continue
            for message in messages:
                await self._handle(message)
            idle_since = time.monotonic()

    async def _handle(self, message) -> None:
        try:
            batch = codec.decode(message.data, IngestBatch)
        except FedragError as exc:
            self.counters["rejected_batches"] += 1
            log.warning("%s: dropping an ingestion message that is not a batch: %s", self.path, exc)
            await self._report(message, IngestReport(batch="?", part=0, path=self.path,
                                                     rejected=[("*", f"not a batch: {exc}")]))
            await message.term()
            return
        records = [Record(r.id, r.text, r.patient, r.date, dict(r.metadata)) for r in batch.upserts]
        loop = asyncio.get_running_loop()
        applying = loop.run_in_executor(None, lambda: self.store.apply(records, batch.deletes, self._factory))
        try:
            while True:
                try:
                    outcome = await asyncio.wait_for(asyncio.shield(applying), timeout=WORKING_EVERY_S)
                    break
                except asyncio.TimeoutError:
                    await message.in_progress()  # still embedding: do not give the batch to anyone else yet
        except Exception as exc:  # the store could not commit: leave the batch for a redelivery
            log.error("%s: could not apply batch %s part %d: %s", self.path, batch.batch, batch.part, exc)
            await message.nak(delay=5.0)
            return
        await message.ack()  # after the commit: a crash before this line means a harmless redelivery
        await changed(self._nc, self.path)
        self.counters["batches"] += 1
        self.counters["records"] += len(records) + len(batch.deletes)
        await self._report(message, IngestReport(batch=batch.batch, part=batch.part, path=self.path,
                                                 counts=outcome.counts(), rejected=outcome.rejected))

    async def _report(self, message, report: IngestReport) -> None:
        subject = (message.headers or {}).get(REPORT)
        if not subject or not subject.startswith(INBOX) or self._nc is None:
            return
        try:
            await self._nc.publish(subject, codec.encode(report))
        except (nats.errors.Error, FedragError) as exc:
            log.info("%s: could not report batch %s: %s", self.path, report.batch, exc)


async def changed(nc: Client | None, path: str) -> None:
    """Says that the records of the leaf at ``path`` may have changed (:func:`bus.subjects.changed_subject`), so that
    gateways forget what they counted of them (:mod:`nodes.counts`)."""
    if nc is None:
        return
    try:
        await nc.publish(changed_subject(org_of(path)), b"")
    except nats.errors.Error as exc:  # a gateway that misses it learns it from the next search's count
        log.info("%s: could not say that its records changed: %s", path, exc)
