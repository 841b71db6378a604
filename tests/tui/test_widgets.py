"""The panels on their own (:mod:`tui.widgets`), in a bare app with no broker: what the whole app's tests
do not reach — a citation clicked with the mouse, and the evidence as organizations answer one by one."""

from __future__ import annotations

from textual import on
from textual.app import App, ComposeResult

from tests.tui.test_snapshots import fixed_answer
from tui import model
from tui.widgets import AnswerView, Cited, EvidenceTable, PassageView


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


async def test_a_citation_clicked_in_the_answer_or_a_summary_says_its_row():
    app = Bare()
    async with app.run_test(size=(150, 50)) as pilot:
        answer = fixed_answer()
        await app.query_one(AnswerView).show(answer)
        await pilot.pause()
        await pilot.click(offset=link(app, app.query_one(AnswerView), 2))  # in the answer's text
        summary = model.NodeState("hospital_a", summary=answer.summaries[0])
        await app.query_one(PassageView).show_node(summary, answer.hits)
        await pilot.pause()
        await pilot.click(offset=link(app, app.query_one(PassageView), 1))  # in a router's summary
        await pilot.pause()
        assert app.cited == [("answer", 2), ("detail", 1)]


async def test_the_evidence_keeps_the_federations_order_as_organizations_answer_and_a_header_click_sorts():
    app = Bare()
    async with app.run_test(size=(150, 50)) as pilot:
        a1, b1, a2 = fixed_answer().hits  # scores 0.612, 0.574, 0.501
        table = app.query_one(EvidenceTable)
        table.start()
        table.add([b1])
        table.add([a1, a2])
        assert [table.get_row_at(i)[1:3] for i in range(table.row_count)] == \
            [["0.612", "hospital_a.medicine"], ["0.574", "hospital_b.cardiology"], ["0.501", "hospital_a.surgery"]]
        assert [row.n for row in table.passages] == [1, 2, 3], "numbered as the answer cites them"

        await pilot.pause()
        header = table.region.y + 1  # under the border
        where = next(x for x in range(table.region.x, table.region.right)
                     if app.screen.get_style_at(x, header).meta == {"row": -1, "column": 2})
        await pilot.click(offset=(where, header))  # the organization/unit header
        await pilot.pause()
        assert [table.get_row_at(i)[2] for i in range(table.row_count)] == \
            ["hospital_a.medicine", "hospital_a.surgery", "hospital_b.cardiology"]
        table.start()  # the gateway restarted: what came before is gone
        table.add([a2])
        assert table.row_count == 1 and table.passages[0].hit is a2
