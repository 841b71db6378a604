"""Durable ingestion over JetStream: the stream, the messages, and publishing records to a leaf.

Records for the leaf at ``path`` are published to ``fed.ingest.<path>`` (:func:`bus.subjects.ingest_subject`)
and kept by the organization's stream ``FEDRAG_INGEST_<org>`` (work-queue retention, on disk) until
the leaf has committed them to its store and acknowledged them; the leaf consumes with a durable pull
consumer (:func:`durable_name`), so records published while it is down wait for it, and a leaf
killed before it acknowledged a message gets it again. Applying a message twice changes nothing
(upserts are idempotent by record id and content digest), so redelivery is harmless.

A message is an :class:`IngestBatch`: records to upsert and ids to delete, applied in one
transaction. If it names a ``Fed-Report`` subject, the leaf publishes an :class:`IngestReport` there
once the batch is applied, so ``fedrag ingest`` can say what was added, updated, deleted and
rejected, and why. The stream de-duplicates batches by their ``Nats-Msg-Id`` within two minutes,
so a publisher that retries after a lost acknowledgement does not store a batch twice.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Iterable, Iterator

from nats.aio.client import Client
from nats.js.api import RetentionPolicy, StorageType, StreamConfig
from pydantic import Field

from bus import codec
from bus.errors import BrokerError
from bus.messages import MAX_RECORD_ID, Scalar, _Model
from bus.subjects import INGEST_PREFIX, below, ingest_subject, org_of

#: Header naming where the leaf reports what it did with a batch.
REPORT = "Fed-Report"
#: Records per batch, and the body size a batch stays under (well inside the broker's payload bound).
BATCH_RECORDS = 64
BATCH_BYTES = 512 * 1024
#: How long a leaf has to commit and acknowledge a batch before the stream gives it out again (a
#: leaf still working on a batch says so every few seconds, so this is also how soon the batches a
#: killed leaf had taken go to its restarted self).
ACK_WAIT_S = 20.0


def stream_name(org: str) -> str:
    """The JetStream stream holding ``org``'s ingestion subjects."""
    return f"FEDRAG_INGEST_{org}"


def durable_name(path: str) -> str:
    """The durable consumer of the leaf at ``path`` (consumer names cannot hold dots)."""
    return "leaf_" + path.replace(".", "__")


def stream_subjects(org: str) -> list[str]:
    """The subjects ``org``'s stream holds: ``fed.ingest.<org>`` and everything under it."""
    root = f"{INGEST_PREFIX}.{org}"
    return [root, below(root)]


def stream_api(org: str) -> list[str]:
    """The JetStream API subjects that feeding and consuming ``org``'s stream (and nothing else) needs."""
    stream = stream_name(org)
    return ["$JS.API.INFO", f"$JS.API.STREAM.*.{stream}", f"$JS.API.CONSUMER.*.{stream}",
            f"$JS.API.CONSUMER.*.{stream}.>", f"$JS.API.CONSUMER.DURABLE.CREATE.{stream}.>",
            f"$JS.API.CONSUMER.MSG.NEXT.{stream}.>", f"$JS.ACK.{stream}.>"]


def stream_config(org: str) -> StreamConfig:
    return StreamConfig(name=stream_name(org), subjects=stream_subjects(org),
                        retention=RetentionPolicy.WORK_QUEUE, storage=StorageType.FILE, duplicate_window=120.0,
                        max_msg_size=codec.MAX_BODY_BYTES)


async def ensure_stream(nc: Client, org: str) -> None:
    """Creates ``org``'s ingestion stream if it does not exist yet (idempotent).

    Raises:
        BrokerError: the broker has no JetStream, or refused.
    """
    js = nc.jetstream()
    try:
        await js.stream_info(stream_name(org))
        return
    except Exception:  # not found (or no permission to look): try to create it
        pass
    try:
        await js.add_stream(stream_config(org))
    except Exception as exc:
        raise BrokerError(f"cannot create the ingestion stream {stream_name(org)} ({type(exc).__name__}: {exc}); "
                          "is JetStream enabled on the broker (nats-server -js)?") from None


class IngestRecord(_Model):
    """One record to add or replace, by id."""

    id: str = Field(min_length=1, max_length=MAX_RECORD_ID)
    text: str = Field(max_length=400_000)
    patient: str | None = Field(None, max_length=200)
    date: str | None = Field(None, max_length=40)
    metadata: dict[str, Scalar] = Field(default_factory=dict)


class IngestBatch(_Model):
    """Records to upsert and ids to delete, applied by the leaf in one transaction."""

    batch: str = Field(max_length=64)
    part: int = Field(ge=0)
    upserts: list[IngestRecord] = Field(default_factory=list, max_length=10_000)
    deletes: list[str] = Field(default_factory=list, max_length=100_000)


class IngestReport(_Model):
    """What a leaf did with one :class:`IngestBatch`: counts by what happened to each record, and why some were rejected."""

    batch: str
    part: int
    path: str
    counts: dict[str, int] = Field(default_factory=dict)  # added, updated, unchanged, deleted, absent
    rejected: list[tuple[str, str]] = Field(default_factory=list)


def batches(records: Iterable[IngestRecord], deletes: Iterable[str], batch: str) -> Iterator[IngestBatch]:
    """``records`` and ``deletes`` cut into batches of at most :data:`BATCH_RECORDS` records and :data:`BATCH_BYTES`."""
    part, upserts, size = 0, [], 0
    for record in records:
        weight = len(record.text.encode("utf-8", "surrogatepass")) + 256
        if upserts and (len(upserts) >= BATCH_RECORDS or size + weight > BATCH_BYTES):
            yield IngestBatch(batch=batch, part=part, upserts=upserts)
            part, upserts, size = part + 1, [], 0
        upserts.append(record)
        size += weight
    if upserts:
        yield IngestBatch(batch=batch, part=part, upserts=upserts)
        part += 1
    deletes = list(deletes)
    for start in range(0, len(deletes), 5_000):
        yield IngestBatch(batch=batch, part=part, deletes=deletes[start:start + 5_000])
        part += 1


async def publish(nc: Client, path: str, parts: Iterable[IngestBatch], *, report_to: str | None = None,
                  window: int = 16, progress: Callable[[IngestBatch], None] | None = None) -> int:
    """Publishes ``parts`` to the leaf at ``path``'s stream, ``window`` at a time; returns how many were stored.

    Every part is stored by the stream (acknowledged) before this returns; it is then durable.

    Raises:
        BrokerError: the stream refused a part or did not acknowledge it (nothing after it is sent).
    """
    js = nc.jetstream()
    subject = ingest_subject(path)
    await ensure_stream(nc, org_of(path))
    pending: set[asyncio.Task] = set()
    stored = 0

    async def send(part: IngestBatch) -> IngestBatch:
        headers = {"Nats-Msg-Id": f"{part.batch}:{part.part}"}
        if report_to:
            headers[REPORT] = report_to
        for attempt in range(3):
            try:
                await js.publish(subject, codec.encode(part), headers=headers, timeout=10.0)
                return part
            except Exception as exc:  # a lost acknowledgement: the message id makes a retry safe
                if attempt == 2:
                    raise BrokerError(f"the stream did not store batch part {part.part} for {path} "
                                      f"({type(exc).__name__}: {exc})") from None
                await asyncio.sleep(0.5 * (attempt + 1))
        raise AssertionError("unreachable")

    async def settle(wait) -> None:
        nonlocal stored
        done, _ = await asyncio.wait(pending, return_when=wait)
        for task in done:
            pending.discard(task)
            part = task.result()  # raises the BrokerError of a refused part
            stored += 1
            if progress is not None:
                progress(part)

    try:
        for part in parts:
            pending.add(asyncio.create_task(send(part)))
            if len(pending) >= window:
                await settle(asyncio.FIRST_COMPLETED)
        if pending:
            await settle(asyncio.ALL_COMPLETED)
    finally:
        for task in pending:
            task.cancel()
    return stored


def new_batch_id() -> str:
    return uuid.uuid4().hex[:16]
