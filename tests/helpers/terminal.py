"""The terminal client's tests' shared parts: a fixed answer (so that what is drawn does not depend on a
federation's timings) and a bare app holding the panels alone, with no broker.
"""

from __future__ import annotations

from textual import on
from textual.app import App, ComposeResult

from bus.messages import Coverage, Hit, NodeReport, PassageRef, Summary, SummarySentence
from bus.asking import Answer, AnswerInfo
from tui.widgets import AnswerView, Cited, EvidenceTable, PassageView

#: The units of the fixed answer's federation.
PATHS = ["hospital_a.medicine", "hospital_a.surgery", "hospital_b.cardiology", "hospital_c.neurology"]


def fixed_answer() -> Answer:
    """An answer from three units of two organizations (the third timed out), citing [1] and [2], with
    one collapsed copy and a summary by hospital A's router."""
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


class Bare(App[None]):
    """The panels alone; remembers the citations clicked."""

    def __init__(self) -> None:
        super().__init__()
        self.cited: list[tuple[str, int]] = []

    def compose(self) -> ComposeResult:
        yield AnswerView(id="answer-box")
        yield EvidenceTable(id="evidence")
        yield PassageView(id="detail-box")

    @on(Cited)
    def _cited(self, event: Cited) -> None:
        self.cited.append((event.markdown.id, event.n))


def link(app: App, widget, n: int) -> tuple[int, int]:
    """Where on the screen the link of citation ``[n]`` is, inside ``widget``."""
    region = widget.region
    for y in range(region.y, region.bottom):
        for x in range(region.x, region.right):
            if app.screen.get_style_at(x, y).meta.get("@click") == f"link('cite:{n}')":
                return x, y
    raise AssertionError(f"no link to [{n}] on screen")
