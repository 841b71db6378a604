"""The terminal client driven by Textual's Pilot against real federations over a real broker.

The app is the real one (:class:`tui.app.FedragApp`), asking the real gateway; one organization is
made to hang by a subscriber that takes its subject and never answers, and the broker is stopped
to see the app say so.
"""

from __future__ import annotations

import time

import pytest
from textual.widgets import DataTable, Markdown

from bus.budget import Reserve
from bus.connection import connect
from nodes.run.federation import Federation
from summarizer.answers import EXTRACTIVE_ANSWER_MS
from tests.helpers.llm import clinic_spec
from tests.helpers.timing import PILOT_SLACK_MS
from tui import model
from tui.app import FedragApp

QUESTION = "Which patients have heavy alcohol use with liver disease or pancreatitis?"


async def until(pilot, condition, timeout: float = 30.0, step: float = 0.02) -> None:
    """Lets the app run until ``condition()`` holds (fails after ``timeout`` seconds)."""
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "the app did not get there in time"
        await pilot.pause(step)


async def ask(pilot, question: str) -> None:
    await pilot.click("#question")
    pilot.app.query_one("#question").value = question
    await pilot.press("enter")


@pytest.mark.timing
async def test_nodes_go_from_pending_to_their_status_and_a_hung_organization_times_out(
        nats_server, open_spec, embedder):
    federation = Federation(open_spec, nats_server.url, processes=False, verbose=False, embedder_factory=lambda: embedder)
    await federation.start()
    await federation.stop_org("hospital_c")
    hang = await connect(nats_server.url, "hung-hospital-c")
    await hang.subscribe("fed.q.hospital_c")  # takes every question, answers none
    try:
        deadline_ms = 2500
        # the organizations get what the gateway does not keep for itself and the extractive answer
        children_ms = deadline_ms - Reserve().plus(EXTRACTIVE_ANSWER_MS).of(deadline_ms)
        app = FedragApp(nats_server.url, deadline_ms=deadline_ms)
        async with app.run_test(size=(180, 50)) as pilot:
            await until(pilot, app.connected.is_set)
            tree = app.federation.nodes
            assert {"hospital_a", "hospital_a.medicine", "hospital_b", "hospital_c"} <= set(tree), \
                "the tree is discovered, with the organization that is down"
            asked = time.monotonic()
            await ask(pilot, QUESTION)
            await until(pilot, lambda: tree["hospital_a"].state == "successful")
            assert tree["hospital_a"].seen[:2] == ["pending", "successful"]
            assert tree["hospital_c"].state == "pending", "a hanging organization stays pending while others answer"
            assert "pending" in str(app.query_one("#tree").root.children[-1].label), "the state is said in words"
            await until(pilot, lambda: app.history, timeout=15)
            took_ms = (time.monotonic() - asked) * 1000
            assert tree["hospital_c"].state == "timed_out"
            assert children_ms < took_ms <= deadline_ms + PILOT_SLACK_MS, "hospital C was waited for, until the deadline"
            assert "timed out" in str(app.query_one("#tree").root.children[-1].label)
            assert tree["hospital_a.medicine"].state == "successful" and tree["hospital_a.medicine"].report.hits > 0
            answer = app.history[-1]
            assert answer.hits and all(hit.org != "hospital_c" for hit in answer.hits)
            table = app.query_one("#evidence", DataTable)
            assert table.row_count == len(answer.hits)
            assert [table.get_row_at(i)[2] for i in range(table.row_count)] == [hit.path for hit in answer.hits]

            app.deadline_ms = 60_000  # the next question surely still runs when Escape comes, however slow the machine
            await ask(pilot, "Who has atrial fibrillation?")  # Escape cancels it while hospital C hangs
            await until(pilot, lambda: tree["hospital_a"].state == "successful" and tree["hospital_c"].state == "pending")
            app.query_one("#evidence").focus()
            await pilot.press("escape")
            await until(pilot, lambda: "cancelled" in app.query_one("#answer", Markdown).source)
            assert tree["hospital_c"].state == "idle" and len(app.history) == 1, "a cancelled question leaves no answer"
    finally:
        await hang.close()
        await federation.stop()


async def test_a_citation_lands_on_its_evidence_row_and_shows_the_passage(nats_server, open_spec, embedder):
    federation = Federation(open_spec, nats_server.url, processes=False, verbose=False, embedder_factory=lambda: embedder)
    await federation.start()
    try:
        app = FedragApp(nats_server.url)
        async with app.run_test(size=(180, 50)) as pilot:
            await until(pilot, app.connected.is_set)
            await ask(pilot, QUESTION)
            await until(pilot, lambda: app.history)
            answer = app.history[-1]
            cited = model.citations(answer.answer)
            assert cited, answer.answer
            n = max(c for c in cited if c <= 9)
            app.query_one("#answer-box").focus()
            await pilot.press(str(n))
            table = app.query_one("#evidence", DataTable)
            await until(pilot, lambda: table.cursor_row == n - 1)
            assert table.has_focus
            hit = answer.hits[n - 1]
            await until(pilot, lambda: hit.id in app.query_one("#detail", Markdown).source)
            assert " ".join(hit.text.split())[:60] in " ".join(app.query_one("#detail", Markdown).source.split())

            await pilot.press("s")  # sort by score: the order the answer numbers them in
            await pilot.press("s")  # by organization/unit
            assert [table.get_row_at(i)[2] for i in range(table.row_count)] == sorted(h.path for h in answer.hits)

            await ask(pilot, "How is Zelda Quartermaine's hip?")
            await until(pilot, lambda: len(app.history) == 2)
            await pilot.press("f2")  # history: re-open the first question
            await pilot.pause(0.2)
            await pilot.press("down", "enter")
            await until(pilot, lambda: app.answer is not None and app.answer.question == QUESTION)
            assert table.row_count == len(answer.hits)
    finally:
        await federation.stop()


async def test_a_stopped_broker_is_a_notification_and_the_app_comes_back(nats_server, open_spec, embedder):
    app = FedragApp(nats_server.url)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, app.connected.is_set)
        nats_server.stop()
        await until(pilot, lambda: any("went away" in n.message for n in app._notifications), timeout=15)
        nats_server.start()
        await until(pilot, lambda: any("again" in n.message for n in app._notifications), timeout=30)
        assert app.is_running


async def test_the_llm_answer_streams_into_the_answer_pane(llm_server, tmp_path, nats_server, embedder):
    folder = tmp_path / "clinic"
    folder.mkdir()
    federation = Federation(clinic_spec(folder, llm_server.base_url), nats_server.url, processes=False, verbose=False,
                            embedder_factory=lambda: embedder)
    await federation.start()
    try:
        app = FedragApp(nats_server.url, summarize="llm", deadline_ms=120_000)
        on_screen_before = []  # what had been streamed to the answer pane when the complete answer came

        class History(list):
            def append(self, answer):
                on_screen_before.append(app._streamed)
                super().append(answer)

        app.history = History()
        async with app.run_test(size=(160, 45)) as pilot:
            await until(pilot, app.connected.is_set)
            await ask(pilot, "Who started apixaban?")
            await until(pilot, lambda: app.history, timeout=120)
            assert on_screen_before[0].strip(), "the text is on screen before the answer is complete"
            answer = app.history[-1]
            assert answer.answer_info.method == "llm" and app._streamed.strip() == answer.answer
            assert "apixaban" in app.query_one("#answer", Markdown).source
    finally:
        await federation.stop()


async def test_who_you_are_decides_what_answers_and_a_bad_token_is_a_notification(secure_federation, nats_server,
                                                                                    demo_spec):
    from nodes.run.assemble import sign_in
    from policies.access import Credentials

    users = [user.name for user in demo_spec.users.values()]
    app = FedragApp(nats_server.url, sign_in(demo_spec, "B.nurse"), users=users,
                    sign_in=lambda user: sign_in(demo_spec, user))
    async with app.run_test(size=(180, 50)) as pilot:
        await until(pilot, app.connected.is_set)
        assert "B.nurse" in app.sub_title or "U7" in app.sub_title
        await ask(pilot, QUESTION)
        await until(pilot, lambda: app.history)
        tree = app.federation.nodes
        assert tree["hospital_c"].state == "denied" and tree["hospital_b"].state == "successful"
        assert "denied" in str(app.query_one("#tree").root.children[-1].label)
        assert all(hit.org != "hospital_c" for hit in app.history[-1].hits)
        assert tree["hospital_b"].summary is not None, "the demo's hospital routers summarize"
        widget = app.query_one("#tree")
        [b_node] = [node for node in widget.root.children if node.data == "hospital_b"]
        assert "summarized" in str(b_node.label)
        widget.focus()
        widget.move_cursor(b_node)  # the router's summary shows under the evidence
        await until(pilot, lambda: "hospital_b** — extractive" in app.query_one("#detail", Markdown).source)

        await pilot.press("f3")  # sign in as hospital C's researcher, from the spec's users
        await pilot.pause(0.2)
        await pilot.press(*["down"] * users.index("C.research"), "enter")
        await until(pilot, lambda: "U8" in app.sub_title and app.connected.is_set())
        await ask(pilot, QUESTION)
        await until(pilot, lambda: len(app.history) == 2)
        assert app.federation.nodes["hospital_a"].state == "denied"
        assert app.federation.nodes["hospital_c"].state == "successful"

        good = app.credentials  # a token whose claims were edited: refused, said so, and the app goes on
        claims = good.token.split(".")
        app.credentials = Credentials(".".join([claims[0], claims[1][:-4] + "AAAA", claims[2]]), good.key, good.broker)
        await ask(pilot, QUESTION)
        await until(pilot, lambda: any(n.title == "the gateway refused" for n in app._notifications))
        [refusal] = [n for n in app._notifications if n.title == "the gateway refused"]
        assert refusal.message.startswith("denied") and "refused" in app.query_one("#answer", Markdown).source
        assert len(app.history) == 2 and app.is_running
