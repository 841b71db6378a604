"""Snapshots of the main screen (pytest-textual-snapshot): before a question, and after an answer.

The app is connected to a real, empty broker; the tree and the answer are set from fixed values so
that the picture does not depend on timings. ``pytest --snapshot-update`` re-records the SVGs in
``__snapshots__`` after a change meant to alter the screen (look at them before committing).
"""

from __future__ import annotations

import asyncio

from tests.helpers.terminal import PATHS, fixed_answer
from tui import model
from tui.app import FedragApp

SIZE = (150, 42)


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
