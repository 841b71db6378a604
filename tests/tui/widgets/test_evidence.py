"""The evidence panel on its own (:mod:`tui.widgets.evidence`), in a bare app with no broker: the passages
as organizations answer one by one, in the federation's order, and sorted by a click on a column header."""

from __future__ import annotations

from tests.helpers.terminal import Bare, fixed_answer
from tui.widgets import EvidenceTable


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


async def test_hits_that_fall_short_of_an_answer_are_titled_the_closest_records():
    app = Bare()
    async with app.run_test(size=(150, 50)) as pilot:
        answer = fixed_answer()
        table = app.query_one(EvidenceTable)
        short = answer.model_copy(update={"answer_info": answer.answer_info.model_copy(update={"status": "insufficient"})})
        table.show(short.cited(), short.falls_short())
        await pilot.pause()
        assert table.border_title == "closest records: not enough to answer the question" and table.row_count == 3
        table.show(answer.cited(), answer.falls_short())
        assert table.border_title == "", "evidence that answers is not titled so"
