"""The gateway (:mod:`nodes.gateway`) over a real broker: a question reaches every organization, their
results stream to the caller as they arrive with a heartbeat while the caller waits, copies of the same
evidence are shown once, questions are served concurrently, and a caller's mistake comes back to them.
"""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from bus import codec
from bus import headers as h
from bus.client import SILENCE_MS, ask
from bus.connection import connect
from bus.errors import AskError
from bus.asking import Answer, AskRequest
from bus.subjects import ASK
from nodes.demo.federation import SAMPLE_QUESTION
from nodes.run.federation import Federation
from nodes.run.spec import FederationSpec

ORGS = {"hospital_a", "hospital_b", "hospital_c"}


async def test_a_question_reaches_all_three_hospitals(demo_federation, nc):
    events = []
    answer = await ask(nc, AskRequest(question="Which patients have heavy alcohol use with liver disease?", k=30),
                       on_event=events.append)
    assert sorted(e.org for e in events) == sorted(ORGS)
    assert all(e.report.status == "successful" and e.report.hits > 0 for e in events)
    assert {hit.org for hit in answer.hits} == ORGS
    assert answer.coverage.total == answer.coverage.successful == 10
    assert not answer.partial and not answer.timed_out
    assert len(answer.hits) == 30
    assert [hit.score for hit in answer.hits] == sorted((hit.score for hit in answer.hits), reverse=True)
    assert "fed.q.hospital_b.cardiology" in answer.nodes and answer.nodes["fed.ask"].status == "successful"


async def test_ask_validation_error_reaches_the_caller(demo_federation, nc):
    with pytest.raises(AskError, match="validation"):
        await ask(nc, AskRequest.model_construct(question="", k=None, fetch_k=None, deadline_ms=None,
                                                 allow_partial=True, min_coverage=0.0, summarize="none"))


async def test_concurrent_questions_are_served_concurrently(demo_federation, nc):
    questions = ["seizure", "stroke", "pneumonia", "hip fracture", "depression", "heart failure"]
    answers = await asyncio.gather(*(ask(nc, AskRequest(question=q, k=5)) for q in questions))
    assert all(a.coverage.successful == 10 and len(a.hits) == 5 for a in answers)
    assert len({a.trace for a in answers}) == len(questions)


async def test_copied_text_is_shown_once_with_its_other_locations(nats_server, embedder, nc, tmp_path):
    history = "PAST MEDICAL HISTORY: hypertension, type 2 diabetes, chronic kidney disease."
    notes = {  # notes copy text forward: the same history, on other dates, at two sites
        "north.clinic": [("Ana Ruiz", "2023-01-05", history), ("Ana Ruiz", "2023-03-02", history),
                         ("Bo Chen", "2023-03-02", history), ("Ana Ruiz", "2023-04-01", "PLAN: dialysis access.")],
        "south.clinic": [("Ana Ruiz", "2024-06-09", history), ("Cy Diaz", None, "HPI: knee pain after a fall.")],
    }
    lines = ["[federation]", 'state_dir = "state"']
    for path, records in notes.items():
        data = tmp_path / f"{path}.jsonl"
        data.write_text("".join(json.dumps({"id": f"n{i}", "text": text, "patient": who, "date": date}) + "\n"
                                for i, (who, date, text) in enumerate(records)))
        org, unit = path.split(".")
        lines += [f"[orgs.{org}.units.{unit}]", f'data = "{data.name}"']
    (tmp_path / "fed.toml").write_text("\n".join(lines))
    federation = Federation(FederationSpec.load(tmp_path / "fed.toml"), nats_server.url, processes=False,
                            verbose=False, embedder_factory=lambda: embedder)
    await federation.start()
    try:
        question = "history of hypertension and diabetes with kidney disease"
        plain = await ask(nc, AskRequest(question=question, k=6, collapse=False))
        answer = await ask(nc, AskRequest(question=question, k=6))
    finally:
        await federation.stop()
    assert len(plain.hits) == 6
    copies = [h for h in plain.hits if h.patient == "Ana Ruiz" and h.text.endswith(history)]
    assert len(copies) == 3
    kept = [h for h in answer.hits if h.patient == "Ana Ruiz" and h.text.endswith(history)]
    assert len(kept) == 1 and len(answer.hits) == 4, "Ana Ruiz's history once, Bo Chen's (another patient) kept"
    assert kept[0].order_key() == min(h.order_key() for h in copies), "the first copy in the order is the one kept"
    assert {(d.path, d.id) for d in kept[0].duplicates} == {(h.path, h.id) for h in copies} - {(kept[0].path, kept[0].id)}
    assert any(h.patient == "Bo Chen" for h in answer.hits)


@pytest.mark.timing
async def test_the_gateway_beats_while_an_organization_hangs(demo_federation, nats_server, nc):
    await demo_federation.stop_org("hospital_c")
    hang = await connect(nats_server.url, "hung-hospital-c")
    await hang.subscribe("fed.q.hospital_c")  # takes every question, answers none
    try:
        inbox = nc.new_inbox()
        sub = await nc.subscribe(inbox)
        sent = time.monotonic()
        await nc.publish(ASK, codec.encode(AskRequest(question=SAMPLE_QUESTION, deadline_ms=2000)), reply=inbox,
                         headers={h.KIND: "ask"})
        arrivals, kinds = [], []
        while not kinds or kinds[-1] != "final":
            msg = await sub.next_msg(timeout=5)
            arrivals.append(time.monotonic() - sent)
            kinds.append((msg.headers or {}).get(h.KIND))
        beats = [t for t, kind in zip(arrivals, kinds) if kind == "heartbeat"]
        assert len(beats) >= 4, kinds
        gaps = [b - a for a, b in zip([0.0, *arrivals], arrivals)]
        assert max(gaps) * 1000 < SILENCE_MS, "never silent long enough to be taken for dead"
        assert codec.decode(msg.data, Answer).nodes["fed.q.hospital_c"].status == "timed_out"
    finally:
        await hang.close()
