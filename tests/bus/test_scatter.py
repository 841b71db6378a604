"""Scatter-gather against a real nats-server: every child gets a status, none is waited for too long."""

import asyncio
import time

import msgpack
import pytest

from bus import codec
from bus import headers as h
from bus.messages import Coverage, ErrorInfo, Hit, SearchResult
from bus.scatter import reply_outcome, scatter_gather
from tests.helpers.timing import AT_ONCE, EARLY_MS, SLACK_MS


def result(score: float, path: str) -> bytes:
    cov = Coverage()
    cov.count("successful")
    hit = Hit(id=f"doc-{score}", org=path.split(".")[0], path=path, score=score, text="t")
    return codec.encode(SearchResult(hits=[hit], coverage=cov))


@pytest.mark.timing
async def test_each_child_gets_its_status(nc):
    budget_ms = 400

    async def good(msg):
        assert float(msg.headers[h.BUDGET]) <= budget_ms
        await msg.respond(result(0.9, "good"))

    async def silent(msg):
        pass  # receives the request, never answers

    async def refuses(msg):
        await nc.publish(msg.reply, codec.encode(ErrorInfo(type="denied", reason="no")), headers={h.KIND: "error"})

    async def broken(msg):
        await msg.respond(b"\xc1 not msgpack")

    for subject, cb in [("fed.q.good", good), ("fed.q.silent", silent), ("fed.q.refuses", refuses),
                        ("fed.q.broken", broken)]:
        await nc.subscribe(subject, cb=cb)
    await nc.flush()

    started = time.monotonic()
    outcomes = await scatter_gather(
        nc, ["fed.q.good", "fed.q.silent", "fed.q.absent", "fed.q.refuses", "fed.q.broken"],
        b"request", budget_ms=budget_ms)
    elapsed = (time.monotonic() - started) * 1000

    statuses = {o.subject: o.status for o in outcomes}
    assert statuses == {"fed.q.good": "successful", "fed.q.silent": "timed_out", "fed.q.absent": "unavailable",
                        "fed.q.refuses": "denied", "fed.q.broken": "failed"}
    assert budget_ms - EARLY_MS <= elapsed <= budget_ms + SLACK_MS, "returns at the deadline, not before and not long after"
    by_subject = {o.subject: o for o in outcomes}
    assert by_subject["fed.q.absent"].took_ms < AT_ONCE * budget_ms, "no responders is known at once"
    assert by_subject["fed.q.silent"].error.type == "deadline"
    assert by_subject["fed.q.broken"].error.type == "decode"
    assert by_subject["fed.q.good"].result.hits[0].score == 0.9


@pytest.mark.timing
async def test_outcomes_are_streamed_as_they_land(nc):
    slow_answered = []

    async def slow(msg):
        await asyncio.sleep(0.2)
        slow_answered.append(time.monotonic())
        await msg.respond(result(0.5, "slow"))

    async def fast(msg):
        await msg.respond(result(0.7, "fast"))

    async def slow_cb(msg):
        asyncio.ensure_future(slow(msg))  # callbacks of one subscription run one at a time

    await nc.subscribe("fed.q.slow", cb=slow_cb)
    await nc.subscribe("fed.q.fast", cb=fast)
    await nc.flush()
    seen = []

    async def on_outcome(outcome):
        seen.append((outcome.subject, time.monotonic()))

    outcomes = await scatter_gather(nc, ["fed.q.slow", "fed.q.fast"], b"x", budget_ms=1000, on_outcome=on_outcome)
    assert [s for s, _ in seen] == ["fed.q.fast", "fed.q.slow"]
    assert seen[0][1] < slow_answered[0], "the fast child's outcome is passed on before the slow child has answered"
    assert [o.subject for o in outcomes] == ["fed.q.slow", "fed.q.fast"], "results keep the order asked"


async def test_no_budget_means_no_request(nc):
    received = []

    async def record(msg):
        received.append(msg)

    await nc.subscribe("fed.q.child", cb=record)
    await nc.flush()
    outcomes = await scatter_gather(nc, ["fed.q.child"], msgpack.packb({}), budget_ms=0)
    await nc.flush()
    assert outcomes[0].status == "expired" and outcomes[0].error.reason == "no budget left to ask it"
    assert received == []


def _reply(path="org.unit", score=0.5, hit_path=None, total=1, successful=1, **extra):
    hit = Hit(id="p1", org=(hit_path or path).split(".")[0], path=hit_path or path, score=score, text="t")
    coverage = Coverage(total=total, successful=successful)
    return SearchResult(hits=[hit], coverage=coverage, **extra)


@pytest.mark.parametrize("reply, why", [
    (_reply(score=float("nan")), "outside the cosine range"),
    (_reply(score=1e9), "outside the cosine range"),
    (_reply(hit_path="other.unit"), "outside org.unit's subtree"),
    (_reply(hit_path="org.unit2"), "outside org.unit's subtree"),
    (_reply(total=1000, successful=1000), "counts 1000 units where org.unit has 3"),
    (_reply(total=2, successful=1), "do not add up"),
    (_reply(nodes={"fed.q.other": {"status": "successful"}}), "reports on nodes outside"),
    (_reply(names={"Ana Ruiz": ["other.leaf"]}), "places names at leaves outside"),
    # a hit after one from the same leaf is judged as the first was: its organization too, and its own path
    (_reply(lexical=[Hit(id="p2", org="other", path="org.unit", score=1.0, text="t")]), "outside org.unit's subtree"),
    (_reply(lexical=[Hit(id="p2", org="org", path="org.unit2", score=1.0, text="t")]), "outside org.unit's subtree"),
])
def test_a_reply_that_cannot_be_true_fails_and_loses_its_hits(reply, why):
    outcome = reply_outcome("fed.q.org.unit", 1.0, codec.encode(reply), {}, max_leaves=3)
    assert outcome.status == "failed" and outcome.result is None
    assert outcome.error.type == "invalid_reply" and why in outcome.error.reason
    assert outcome.coverage.failed == 1 and outcome.coverage.total == 1


def test_a_true_reply_from_deeper_in_the_subtree_is_believed():
    outcome = reply_outcome("fed.q.org", 1.0, codec.encode(_reply(path="org", hit_path="org.unit.x", total=3, successful=3)),
                            {}, max_leaves=3)
    assert outcome.status == "successful" and outcome.result.hits[0].path == "org.unit.x"
