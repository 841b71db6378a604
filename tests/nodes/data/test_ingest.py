"""A leaf taking records live over JetStream (:mod:`nodes.data.ingest`): applied, updated, deleted, reported —
and kept across restarts. ``fedrag ingest`` reading files is tested in ``tests/nodes/run/test_ingest.py``."""

from __future__ import annotations

from bus import codec
from bus.client import ask
from bus.ingest import REPORT, IngestRecord, IngestReport
from bus.asking import AskRequest
from bus.subjects import ingest_subject
from nodes.run.federation import Federation
from nodes.run.ingest import IngestSummary, ingest
from nodes.run.spec import FederationSpec


def live_spec(tmp_path) -> FederationSpec:
    (tmp_path / "fed.toml").write_text('[federation]\nstate_dir = "state"\n'
                                       "[orgs.site.units.live]\ningest = true\n")
    return FederationSpec.load(tmp_path / "fed.toml")


async def send(nc, records=(), deletes=(), wait_s=60.0) -> IngestSummary:
    summary = IngestSummary("site.live")
    return await ingest(nc, "site.live", list(records), list(deletes), summary, wait_s=wait_s, verbose=False)


def found(answer, record_id):
    return [h for h in answer.hits if h.metadata.get("record_id") == record_id]


async def test_records_updates_and_deletes_take_effect_at_once_and_survive_a_restart(tmp_path, nats_server, nc,
                                                                                    embedder):
    spec = live_spec(tmp_path)
    federation = Federation(spec, nats_server.url, processes=False, verbose=False, embedder_factory=lambda: embedder)
    await federation.start()
    try:
        summary = await send(nc, [
            IngestRecord(id="n1", text="Started warfarin for atrial fibrillation.", patient="Ana Ruiz"),
            IngestRecord(id="n2", text="Knee replaced; walking with a frame.", patient="Bo Chen"),
            IngestRecord(id="n3", text="Migraine with aura, treated with sumatriptan.", patient="Cy Diaz"),
        ])
        assert summary.complete and (summary.applied.added, summary.applied.rejected) == (3, [])
        answer = await ask(nc, AskRequest(question="anticoagulation for atrial fibrillation", k=1))
        assert found(answer, "n1")

        summary = await send(nc, [IngestRecord(id="n1", text="Warfarin stopped; now on apixaban 5 mg twice daily.",
                                               patient="Ana Ruiz"),
                                  IngestRecord(id="n2", text="Knee replaced; walking with a frame.", patient="Bo Chen")],
                             ["n3", "never-there"])
        done = summary.applied
        assert (done.updated, done.unchanged, done.deleted, done.absent) == (1, 1, 1, 1)
        answer = await ask(nc, AskRequest(question="apixaban", k=3))
        assert "apixaban" in found(answer, "n1")[0].text
        answer = await ask(nc, AskRequest(question="migraine with aura", k=3))
        assert not found(answer, "n3") and len(answer.hits) == 2
    finally:
        await federation.stop()

    again = Federation(spec, nats_server.url, processes=False, verbose=False, embedder_factory=lambda: embedder)
    await again.start()
    try:
        answer = await ask(nc, AskRequest(question="migraine with aura", k=5))
        assert {h.metadata["record_id"] for h in answer.hits} == {"n1", "n2"}, "deleted stays deleted"
        assert "apixaban" in found(answer, "n1")[0].text, "the update is what a restart serves"
    finally:
        await again.stop()


async def test_records_sent_while_the_leaf_is_down_wait_for_it(tmp_path, nats_server, nc, embedder):
    spec = live_spec(tmp_path)
    summary = await send(nc, [IngestRecord(id="late", text="Seizure at home, started levetiracetam.")], wait_s=0.5)
    assert not summary.complete and "stay in the stream" in summary.text()
    federation = Federation(spec, nats_server.url, processes=False, verbose=False, embedder_factory=lambda: embedder)
    await federation.start()
    try:
        for _ in range(100):
            answer = await ask(nc, AskRequest(question="levetiracetam", k=1))
            if answer.hits:
                break
        assert found(answer, "late")
    finally:
        await federation.stop()


async def test_a_malformed_batch_is_rejected_and_reported_and_the_next_one_applies(tmp_path, nats_server, nc, embedder):
    federation = Federation(live_spec(tmp_path), nats_server.url, processes=False, verbose=False,
                            embedder_factory=lambda: embedder)
    await federation.start()
    try:
        inbox = nc.new_inbox()
        sub = await nc.subscribe(inbox)
        await nc.jetstream().publish(ingest_subject("site.live"), b"\xc1 not msgpack", headers={REPORT: inbox})
        report = codec.decode((await sub.next_msg(timeout=20)).data, IngestReport)
        assert report.rejected and "not a batch" in report.rejected[0][1]
        summary = await send(nc, [IngestRecord(id="ok", text="Pneumonia treated with amoxicillin."),
                                  IngestRecord(id="blank", text="Name: ___  Unit No: ___")])
        assert summary.applied.added == 1 and summary.applied.rejected == [("blank", "no text left to index after cleaning")]
    finally:
        await federation.stop()


SYMPTOMS = ["fever", "cough", "chest pain", "dizziness", "rash", "back pain", "headache", "nausea"]
DRUGS = ["amoxicillin", "ibuprofen", "metformin", "lisinopril", "prednisone", "omeprazole", "sertraline"]
#: Records in the killed ingestion: 32 parts of 64 (bus.ingest.BATCH_RECORDS), the kill after the fourth is applied.
RECORDS = 2048


async def test_a_leaf_killed_mid_ingestion_keeps_every_acknowledged_record_exactly_once(tmp_path, nats_server, nc,
                                                                                        embedder):
    import asyncio

    from nodes.data.store import LeafStore

    records = [IngestRecord(id=f"v{i:04d}", patient=f"Patient {i % 400}",
                            text=f"Visit {i}: {SYMPTOMS[i % 8]} for {i % 13 + 1} days, treated with {DRUGS[i % 7]}.")
               for i in range(RECORDS)]
    spec = live_spec(tmp_path)
    federation = Federation(spec, nats_server.url, processes=True, verbose=False, embedder_factory=lambda: embedder)
    await federation.start()
    try:
        summary = IngestSummary("site.live")
        sending = asyncio.create_task(ingest(nc, "site.live", records, [], summary, wait_s=600, verbose=False))
        while summary.applied_parts < 4:
            await asyncio.sleep(0.05)
            assert not sending.done(), "the ingestion ended before the kill"
        first = federation._procs["site"]
        first.kill()  # SIGKILL mid-ingestion; the federation starts the organization again
        await first.wait()
        assert summary.applied_parts < summary.parts, "killed in the middle"
        await sending
        assert federation._procs["site"] is not first, "a new process finished the job"
        assert summary.complete and summary.applied.added + summary.applied.unchanged == RECORDS
        assert not summary.applied.rejected
        for i in (0, 1234, RECORDS - 1):
            answer = await ask(nc, AskRequest(question=records[i].text, k=10, collapse=False))
            assert [h.metadata["record_id"] for h in answer.hits].count(records[i].id) == 1
            assert answer.hits[0].metadata["record_id"] == records[i].id
    finally:
        await federation.stop()
    store = LeafStore.existing(spec.leaf_folder("site.live"))
    try:
        assert store.records() == RECORDS and len(store.labels()) == RECORDS and len(store) == RECORDS, "each record once"
    finally:
        store.close()
