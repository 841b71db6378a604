"""A router (:mod:`nodes.router`) over a real broker, in the demo federation: a child that never answers is
reported ``timed_out`` and the answer still comes by the deadline; an organization that is gone is
``unavailable`` at once, and a caller who wanted full coverage is told so; a child whose reply cannot be
true is ``failed`` and none of its hits are used.
"""

from __future__ import annotations

import math
import time

import pytest

from bus import codec
from bus.client import ask
from bus.messages import Coverage, Hit, SearchResult
from bus.asking import AskRequest
from bus.subjects import query_subject
from tests.helpers.federations import ALL_UNITS
from tests.helpers.timing import AT_ONCE, SLACK_MS


@pytest.mark.timing
async def test_a_leaf_that_never_answers_times_out_by_the_deadline(demo_federation, nc):
    leaf = next(n for n in demo_federation._nodes["hospital_c"] if n.path == "hospital_c.neurology")
    await leaf.stop()
    swallowed = []

    async def black_hole(msg):
        swallowed.append(msg)  # a live subscriber that never replies

    await nc.subscribe(query_subject("hospital_c.neurology"), queue="q", cb=black_hole)
    await nc.flush()
    # long enough that the router's reserve (15 ms + a tenth of what it has left) covers its merge and reply on a
    # loaded machine after both passes (the first, counting words, also waits for the silent leaf)
    deadline_ms = 1500
    started = time.monotonic()
    answer = await ask(nc, AskRequest(question="Which patients had a seizure?", deadline_ms=deadline_ms))
    elapsed_ms = (time.monotonic() - started) * 1000
    assert swallowed, "the request did reach the silent leaf"
    assert elapsed_ms <= deadline_ms + SLACK_MS, f"answered after {elapsed_ms:.0f} ms, with a {deadline_ms} ms deadline"
    assert answer.partial and answer.timed_out
    report = answer.nodes["fed.q.hospital_c.neurology"]
    assert report.status == "timed_out" and report.error.type == "deadline"
    assert answer.nodes["fed.q.hospital_c"].status == "partial"
    assert answer.coverage.timed_out == 1 and answer.coverage.successful == 9
    assert answer.hits and "hospital_c.neurology" not in {hit.path for hit in answer.hits}


async def test_a_router_asks_the_leaves_of_its_own_process_without_the_broker(demo_federation, nc):
    copies = []

    async def spy(msg):
        copies.append(msg.subject)  # every request the broker carries to one of hospital B's leaves

    await nc.subscribe(query_subject("hospital_b") + ".>", cb=spy)
    await nc.flush()
    answer = await ask(nc, AskRequest(question="Who has atrial fibrillation?"))
    b_leaves = [s for s in answer.nodes if s.startswith(query_subject("hospital_b") + ".")]
    assert len(b_leaves) == 3 and all(answer.nodes[s].status == "successful" for s in b_leaves)
    assert any(hit.org == "hospital_b" for hit in answer.hits)
    await nc.flush()
    assert copies == [], "hospital B's router asked its leaves in its own process"

    # a leaf no longer served in this process is asked over the broker (here: nobody answers it there)
    leaf = next(n for n in demo_federation._nodes["hospital_b"] if n.path == "hospital_b.cardiology")
    await leaf.stop()
    answer = await ask(nc, AskRequest(question="Who has atrial fibrillation?", deadline_ms=1500))
    assert query_subject("hospital_b.cardiology") in copies
    assert answer.nodes[query_subject("hospital_b.cardiology")].status == "timed_out"


@pytest.mark.timing
async def test_a_leaf_of_the_same_process_that_hangs_times_out_by_the_deadline(demo_federation, nc):
    leaf = next(n for n in demo_federation._nodes["hospital_c"] if n.path == "hospital_c.neurology")
    search = leaf.retriever.search

    def stuck(query, visible):
        time.sleep(3.0)  # holds one worker thread, as a leaf stuck in its index would
        return search(query, visible)

    leaf.retriever.search = stuck
    deadline_ms = 1500
    started = time.monotonic()
    answer = await ask(nc, AskRequest(question="Which patients had a seizure?", mode="dense", deadline_ms=deadline_ms))
    elapsed_ms = (time.monotonic() - started) * 1000
    assert elapsed_ms <= deadline_ms + SLACK_MS, f"answered after {elapsed_ms:.0f} ms, with a {deadline_ms} ms deadline"
    assert answer.nodes["fed.q.hospital_c.neurology"].status == "timed_out"
    assert answer.coverage.timed_out == 1 and answer.coverage.successful == 9


@pytest.mark.timing
async def test_a_stopped_organization_is_unavailable_at_once(demo_federation, nc):
    await demo_federation.stop_org("hospital_b")
    deadline_ms = 5000
    started = time.monotonic()
    answer = await ask(nc, AskRequest(question="atrial fibrillation", deadline_ms=deadline_ms))
    elapsed_ms = (time.monotonic() - started) * 1000
    assert elapsed_ms < AT_ONCE * deadline_ms, "no responders is known at once, not after the deadline"
    assert answer.nodes["fed.q.hospital_b"].status == "unavailable"
    assert answer.coverage.unavailable == 1 and answer.partial and not answer.timed_out
    assert "hospital_b" not in {hit.org for hit in answer.hits}
    strict = await ask(nc, AskRequest(question="atrial fibrillation", allow_partial=False))
    assert strict.error.type == "coverage" and strict.hits == []
    enough = await ask(nc, AskRequest(question="atrial fibrillation", min_coverage=0.5))
    assert enough.error is None and enough.hits
    await demo_federation.start_org("hospital_b")
    back = await ask(nc, AskRequest(question="atrial fibrillation"))
    assert not back.partial and back.coverage.successful == 10


@pytest.mark.parametrize("lie", ["nan", "huge", "coverage", "elsewhere"])
async def test_a_child_that_lies_is_failed_and_none_of_its_hits_are_used(demo_federation, nc, lie):
    leaf = next(n for n in demo_federation._nodes["hospital_c"] if n.path == "hospital_c.neurology")
    await leaf.stop()
    path = {"elsewhere": "hospital_a.medicine"}.get(lie, "hospital_c.neurology")
    score = {"nan": math.nan, "huge": 1e9}.get(lie, 0.99)
    coverage = Coverage(total=1000, successful=1000) if lie == "coverage" else Coverage(total=1, successful=1)
    fake = Hit(id="FAKE", org=path.split(".")[0], path=path, score=score, text="Made up evidence about everyone.")

    async def liar(msg):
        await msg.respond(codec.encode(SearchResult(hits=[fake], coverage=coverage)))

    await nc.subscribe(query_subject("hospital_c.neurology"), cb=liar)
    await nc.flush()
    for _ in range(3):
        answer = await ask(nc, AskRequest(question="Which patients had a seizure?"))
        report = answer.nodes["fed.q.hospital_c.neurology"]
        assert report.status == "failed" and report.error.type == "invalid_reply", report
        assert "FAKE" not in {hit.id for hit in answer.hits}
        assert answer.coverage.total == ALL_UNITS and answer.coverage.failed == 1
