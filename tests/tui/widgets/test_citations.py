"""A citation clicked with the mouse (:mod:`tui.widgets._citations`): in the answer (:class:`tui.widgets.AnswerView`)
or in a router's summary (:class:`tui.widgets.PassageView`), it says which evidence row it cites. The panels
run in a bare app with no broker; the whole app's tests press the citation's number instead."""

from __future__ import annotations

from tests.helpers.terminal import Bare, fixed_answer, link
from tui import model
from tui.widgets import AnswerView, PassageView


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
