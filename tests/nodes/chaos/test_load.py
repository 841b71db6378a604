"""Load (:mod:`nodes.chaos.load`): concurrent clients against the demo federation lose no reply, the figures
are what was measured, and the soak finds every process serving and its memory."""

from __future__ import annotations

import json
import os
import socket

import pytest

from nodes.chaos import load


async def test_concurrent_clients_lose_no_reply_and_every_answer_is_counted(demo_federation, nats_server, demo_dir):
    questions = json.loads((demo_dir / "corpus" / "questions.json").read_text())
    result = await load.load(demo_federation.spec, nats_server.url, questions, [None], clients=4, seconds=3.0)
    assert result.queries and result.lost == 0, result.errors
    assert len(result.answered) == len(result.queries)
    assert result.throughput == pytest.approx(len(result.queries) / result.seconds)
    assert 0 < result.percentile_ms(50) <= result.percentile_ms(99) <= max(q.took_ms for q in result.queries)
    assert {q.question for q in result.queries} <= set(questions)
    table = load.load_report([result])
    assert f"{result.throughput:.1f}" in table and table.splitlines()[-1].split()[-1] == "0"  # lost replies


async def test_the_soak_finds_every_process_serving_and_its_memory(demo_federation, nats_server):
    names = await load.processes(nats_server.url, socket.gethostname())
    assert list(names) == [os.getpid()]  # this in-process federation: every node is served by this process
    assert "hospital_a" in names[os.getpid()] and "gateway" in names[os.getpid()]
    rss = load.rss_mb(os.getpid())
    assert rss is not None and rss > 50
    report = load.memory_report(names, {os.getpid(): rss}, {os.getpid(): rss * 1.1}, 10)
    assert "+10.0 %" in report
    assert load.rss_mb(2**22 + 12345) is None  # no such process
