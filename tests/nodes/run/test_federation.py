"""Supervising a federation's processes (:mod:`nodes.run.federation`) over a real broker: replicas of a leaf
share its subject and cover for each other, and an organization's process that is killed is reported
``unavailable`` at once while the others answer.
"""

from __future__ import annotations

import time

import pytest

from bus.client import ask
from bus.asking import AskRequest
from nodes.run.federation import Federation
from tests.helpers.timing import AT_ONCE


async def test_replicas_share_a_subject_and_cover_for_each_other(demo_federation, nc, demo_spec):
    from bus import codec
    from bus.messages import Query, SearchResult
    from bus.subjects import query_subject
    from nodes.data.retrievers import PassageRetriever
    from nodes.data.store import LeafStore
    from nodes.leaf import Leaf

    path = "hospital_c.neurology"
    original = next(n for n in demo_federation._nodes["hospital_c"] if n.path == path)
    replica = Leaf(path, PassageRetriever(LeafStore.existing(demo_spec.leaf_folder(path)), path))
    await replica.start(nc, here=False)  # as a replica in another process is: reached over the broker only
    for _ in range(5):
        assert (await ask(nc, AskRequest(question="migraine with aura"))).coverage.successful == 10
    assert replica.counters["queries"] == 0, "hospital C's router asks the leaf of its own process"
    vector = original.retriever.store.index.vectors(original.retriever.store.labels()[:1])[0]
    query = codec.encode(Query.with_vector(vector, question="migraine", model=original.retriever.fingerprint))
    for _ in range(30):  # over the broker, the queue group spreads the requests
        reply = await nc.request(query_subject(path), query, timeout=5)
        assert codec.decode(reply.data, SearchResult).hits
    assert original.counters["queries"] > 5 and replica.counters["queries"] > 0, "the queue group spreads load"
    await original.stop()
    answer = await ask(nc, AskRequest(question="migraine with aura"))
    assert answer.coverage.successful == 10, "the replica serves alone"
    await replica.stop()


@pytest.mark.timing
async def test_a_crashed_organization_process_is_unavailable(nats_server, open_spec, embedder, nc):
    federation = Federation(open_spec, nats_server.url, processes=True, verbose=False,
                            embedder_factory=lambda: embedder)
    await federation.start()
    try:
        assert (await ask(nc, AskRequest(question="stroke"))).coverage.successful == 10
        federation._procs["hospital_c"].kill()  # SIGKILL: no goodbye, the broker notices the lost connection
        await federation._procs["hospital_c"].wait()
        deadline_ms = 5000
        started = time.monotonic()
        answer = await ask(nc, AskRequest(question="stroke", deadline_ms=deadline_ms))
        assert (time.monotonic() - started) * 1000 < AT_ONCE * deadline_ms, "a lost connection is known, not waited out"
        assert answer.nodes["fed.q.hospital_c"].status == "unavailable"
        assert answer.coverage.successful == 8 and answer.partial
    finally:
        await federation.stop()
