"""Snapshots of the main screen (pytest-textual-snapshot): before a question, and after an answer.

The app is connected to a real, empty broker; the tree and the answer are set from fixed values so
that the picture does not depend on timings. ``pytest --snapshot-update`` re-records the SVGs in
``__snapshots__`` after a change meant to alter the screen (look at them before committing).
"""

from __future__ import annotations

import asyncio

from bus.messages import (Answer, AnswerInfo, Coverage, Hit, NodeReport, PassageRef, Summary, SummarySentence)
from tui import model
from tui.app import FedragApp

SIZE = (150, 42)
PATHS = ["hospital_a.medicine", "hospital_a.surgery", "hospital_b.cardiology", "hospital_c.neurology"]


def fixed_answer() -> Answer:
    hits = [
        Hit(id="hospital_a.medicine/note-1#0", org="hospital_a", path="hospital_a.medicine", score=0.612,
            patient="Ana Ruiz", text="Ana Ruiz, 2023-02-01. Started apixaban 5 mg twice daily for atrial fibrillation.",
            metadata={"note_type": "Progress note", "date": "2023-02-01"},
            duplicates=[PassageRef(path="hospital_a.medicine", id="hospital_a.medicine/note-7#0")]),
        Hit(id="hospital_b.cardiology/note-3#1", org="hospital_b", path="hospital_b.cardiology", score=0.574,
            patient="Bo Chen", text="Bo Chen, 2023-03-09. Warfarin was stopped because of a gastrointestinal bleed."),
        Hit(id="hospital_a.surgery/note-2#0", org="hospital_a", path="hospital_a.surgery", score=0.501,
            patient="Cy Diaz", text="Cy Diaz, 2023-01-15. Rate control with metoprolol; no anticoagulation."),
    ]
    reports = {f"fed.q.{path}": NodeReport(status="successful", took_ms=12.0 + n, hits=1 + n % 2)
               for n, path in enumerate(PATHS) if not path.startswith("hospital_c")}
    reports["fed.q.hospital_a"] = NodeReport(status="successful", took_ms=31.0, hits=2)
    reports["fed.q.hospital_b"] = NodeReport(status="successful", took_ms=28.0, hits=1)
    reports["fed.q.hospital_c"] = NodeReport(status="timed_out", took_ms=3000.0)
    summary = Summary(path="hospital_a", method="extractive", status="successful", passages=20, relevant=6,
                      sentences=[SummarySentence(text="Started apixaban 5 mg twice daily for atrial fibrillation.",
                                                 sources=[hits[0].ref()], patients=["Ana Ruiz"])])
    return Answer(question="Which patients take anticoagulants for atrial fibrillation?", hits=hits, took_ms=3004.0,
                  answer="Ana Ruiz: Started apixaban 5 mg twice daily for atrial fibrillation. [1]\n"
                         "Bo Chen: Warfarin was stopped because of a gastrointestinal bleed. [2]",
                  answer_info=AnswerInfo(method="extractive", status="successful"), summaries=[summary],
                  coverage=Coverage(total=4, successful=3, timed_out=1), nodes=reports, partial=True)


async def _ready(pilot) -> None:
    app = pilot.app
    await asyncio.wait_for(app.connected.wait(), 15)
    app.federation = model.Federation.of(PATHS)
    app._draw_tree()
    app.query_one("#tree").focus()  # not the question box: its blinking cursor would make the picture vary
    await pilot.pause(0.1)


def test_main_screen_before_a_question(snap_compare, nats_server):
    assert snap_compare(FedragApp(nats_server.url), terminal_size=SIZE, run_before=_ready)


def test_main_screen_after_an_answer(snap_compare, nats_server):
    async def answered(pilot) -> None:
        await _ready(pilot)
        app = pilot.app
        app.query_one("#question").value = fixed_answer().question
        app.federation.start()
        await app._show_answer(fixed_answer())
        app.federation.finish()
        app._draw_tree()
        app.query_one("#evidence").focus()
        await pilot.pause(0.2)

    assert snap_compare(FedragApp(nats_server.url), terminal_size=SIZE, run_before=answered)
