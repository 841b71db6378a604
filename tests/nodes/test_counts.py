"""The gateway's memory of what the records hold of words (:mod:`nodes.counts`): a question whose words were
counted before skips the first pass, and what it remembers is forgotten when records change — on the
organization's notice, or, when a notice never came, on the search's own count — so an answer is never judged
by counts that no longer hold."""

from __future__ import annotations

import asyncio
import time

from bus.asking import AskRequest
from bus.client import ask
from bus.ingest import IngestRecord
from bus.messages import CollectionStats, ErrorInfo, SearchResult
from bus.scatter import ChildOutcome
from bus.subjects import changed_subject
from nodes.counts import REMEMBERED_CALLERS, Counts
from nodes.gateway import NOTICES_KEPT
from nodes.run.federation import Federation
from nodes.run.ingest import IngestSummary, ingest
from nodes.run.spec import FederationSpec

GOUT = (("gout",),)  # a concept: its one way of being written
QUESTION = "Which patients have gout?"


def outcome(status: str = "successful", partial: bool = False) -> ChildOutcome:
    if status != "successful":
        return ChildOutcome("fed.q.x", status, 1.0, error=ErrorInfo(type=status, reason=status))
    return ChildOutcome("fed.q.x", "partial" if partial else status, 1.0, result=SearchResult(partial=partial))


def test_counts_are_remembered_per_caller_only_when_every_organization_gave_them():
    counts = Counts(size=4)
    stats = CollectionStats(docs=9, length=90, people=3, df={"gout": 2, "flare": 1}, concepts=[2])
    counts.remember("alice", ["gout", "flare"], [GOUT], stats, [outcome(), outcome("denied")])
    assert counts.recall("alice", ["gout"], [GOUT]) == CollectionStats(docs=9, length=90, people=3, df={"gout": 2},
                                                                       concepts=[2])
    assert counts.recall("alice", ["gout"], [[["gout"]]]).concepts == [2], "a decoded query's lists are the same word"
    assert counts.recall("bob", ["gout"], [GOUT]) is None, "what one caller may search is not another's"
    assert counts.recall("alice", ["gout", "toe"], [GOUT]) is None, "a word never counted is not known"
    for partly in ([outcome(), outcome("timed_out")], [outcome(partial=True)], [outcome("failed")]):
        counts.remember("bob", ["gout"], [GOUT], stats, partly)
        assert counts.recall("bob", ["gout"], [GOUT]) is None, partly
    counts.remember("alice", ["toe", "big", "left"], [], CollectionStats(docs=9, length=90, people=3, df={"toe": 1}),
                    [outcome()])
    assert len(counts) == 4 and counts.recall("alice", ["gout"], []) is None, "the least recently used go first"
    counts.remember("alice", ["toe"], [], CollectionStats(docs=10, length=99, people=3, df={"toe": 1}), [outcome()])
    assert counts.recall("alice", ["big"], []) is None, "counted in another collection: the rest is forgotten"
    counts.forget()
    assert counts.recall("alice", ["toe"], []) is None and len(counts) == 0
    for n in range(REMEMBERED_CALLERS + 1):
        counts.remember(n, [], [], stats, [outcome()])
    assert counts.recall(REMEMBERED_CALLERS, [], []) and counts.recall(0, [], []) is None, "callers are bounded too"


def live(tmp_path) -> FederationSpec:
    (tmp_path / "fed.toml").write_text('[federation]\nstate_dir = "state"\n'
                                       "[orgs.site.units.live]\ningest = true\n"
                                       "[orgs.other.units.notes]\ningest = true\n")
    return FederationSpec.load(tmp_path / "fed.toml")


async def send(nc, path: str, *records: IngestRecord) -> None:
    summary = await ingest(nc, path, list(records), [], IngestSummary(path), wait_s=60, verbose=False)
    assert summary.complete and not summary.applied.rejected


async def until(condition, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "not within the time allowed"
        await asyncio.sleep(0.02)


def first_passes(federation: Federation) -> int:
    return sum(node.counters["stats"] for org in ("site", "other") for node in federation.nodes(org) if node.role == "leaf")


async def test_a_write_makes_the_gateway_count_again_and_a_missed_notice_is_caught_by_the_search(tmp_path, nats_server,
                                                                                                nc, embedder):
    federation = Federation(live(tmp_path), nats_server.url, processes=False, verbose=False,
                            embedder_factory=lambda: embedder)
    await federation.start()
    gateway = federation.gateway
    try:
        await send(nc, "site.live", IngestRecord(id="n1", text="Started warfarin for atrial fibrillation.",
                                                 patient="Ana Ruiz"))
        await send(nc, "other.notes", IngestRecord(id="m1", text="Knee replaced; walking with a frame.",
                                                   patient="Bo Chen"))
        answer = await ask(nc, AskRequest(question=QUESTION))
        assert answer.closest and "gout" in " ".join(answer.absent), "no record mentions gout yet"
        passes = first_passes(federation)
        again = await ask(nc, AskRequest(question=QUESTION))
        assert first_passes(federation) == passes and again.closest, "asked again: counted from memory"

        forgotten = gateway.counters["counts.forgotten"]
        await send(nc, "other.notes", IngestRecord(id="m2", text="Gout flare of the big toe; started colchicine.",
                                                   patient="Cy Diaz"))
        await until(lambda: gateway._changes.pending_msgs > 0)  # heard, and read before the next question
        for _ in range(3 * NOTICES_KEPT):  # a long ingestion while nobody asks: the notices wait, but not all
            await nc.publish(changed_subject("other"), b"")
        await nc.flush()
        await until(lambda: gateway._changes.pending_msgs >= NOTICES_KEPT)
        await asyncio.sleep(0.2)
        assert gateway._changes.pending_msgs == NOTICES_KEPT
        answer = await ask(nc, AskRequest(question=QUESTION))
        assert gateway.counters["counts.forgotten"] == forgotten + 1
        assert first_passes(federation) == passes + 2, "the organization said its records changed: counted again"
        assert not answer.closest and not answer.absent and answer.hits[0].metadata["record_id"] == "m2"

        # a notice that never arrives (lost with a connection): the search's own count corrects the memory
        changes, gateway._changes = gateway._changes, None
        await changes.unsubscribe()
        stale = gateway.counters["counts.stale"]
        await send(nc, "site.live", IngestRecord(id="n2", text="Gout of the left ankle, on allopurinol.",
                                                 patient="Ana Ruiz"))
        await asyncio.sleep(0.2)
        passes = first_passes(federation)
        answer = await ask(nc, AskRequest(question=QUESTION, mode="lexical"))
        assert first_passes(federation) == passes and gateway.counters["counts.stale"] == stale + 1
        assert not answer.closest and {h.metadata["record_id"] for h in answer.hits} >= {"m2", "n2"}
        exact = await ask(nc, AskRequest(question=QUESTION, mode="lexical"))
        assert first_passes(federation) == passes and gateway.counters["counts.stale"] == stale + 1, \
            "what the search counted is remembered: the next question is searched with it"
        assert [(h.id, h.score) for h in exact.hits] != [(h.id, h.score) for h in answer.hits], \
            "the first was scored with the document counts from before the write"
    finally:
        await federation.stop()
