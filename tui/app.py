"""The terminal client: ask the federation, watch it work, read the answer with its evidence.

One screen: the question box on top, the federation's tree on the left (:mod:`tui.widgets.tree`), and
on the right the answer as the gateway streams it (:mod:`tui.widgets.answer`), the evidence table and
the selected passage (:mod:`tui.widgets.evidence`); F1, F2 and F3 open the help, the history and the
sign-in (:mod:`tui.screens`).

Everything on the wire goes through :func:`bus.client.events`, consumed by a Textual worker, so the
screen stays live while a question runs and a new question (or Escape) cancels the old one. The
broker going away, a refused token or a gateway error is a notification, never a crash; nats.py
reconnects by itself and the app says when it is back.

The app does not start federations or sign people in itself: ``fedrag tui`` (:mod:`nodes.cli.ask`)
gives it a broker URL, credentials, and the spec's users with a function that signs one in.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Header, Input

from bus.client import AskError, discover, events
from bus.connection import drain
from bus.errors import FedragError
from bus.asking import Answer, AnswerDelta, AskRequest, OrgResult, Restarted
from policies.access import Credentials, connect_as
from tui import model
from tui.screens import HelpScreen, HistoryScreen, SignInScreen, signed_in_as
from tui.widgets import AnswerView, Cited, EvidenceTable, FederationTree, PassageView


class FedragApp(App[None]):
    """The client of one federation.

    Args:
        url: the broker.
        credentials: who asks (``None``: an open federation).
        users: the spec's users, offered at sign-in (F3).
        sign_in: signs one of ``users`` in (development sign-in).
        summarize: the answer the app asks for (``extractive`` or ``llm``).
        deadline_ms: each question's deadline (``None``: the federation's).
    """

    TITLE = "fedrag"
    CSS = """
    #question { margin: 0 1; }
    #right { width: 1fr; }
    """
    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("s", "sort", "Sort"),
        Binding("f2", "history", "History"),
        Binding("f3", "sign_in", "Sign in"),
        Binding("f1", "help", "Help"),
        Binding("ctrl+q", "quit", "Quit"),
        *(Binding(str(n), f"cite({n})", show=False) for n in range(1, 10)),
    ]

    def __init__(self, url: str, credentials: Credentials | None = None, *, users: list[str] | None = None,
                 sign_in: Callable[[str], Credentials] | None = None, summarize: str = "extractive",
                 deadline_ms: int | None = None) -> None:
        super().__init__()
        self.url = url
        self.credentials = credentials
        self.users = list(users or [])
        self.sign_in_user = sign_in
        self.summarize = summarize
        self.deadline_ms = deadline_ms
        self.nc = None
        self.federation = model.Federation()
        self.history: list[Answer] = []
        self.answer: Answer | None = None
        self.connected = asyncio.Event()
        self._streamed = ""

    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(placeholder="Ask the federation a question, then Enter", id="question")
        with Horizontal():
            yield FederationTree(id="tree")
            with Vertical(id="right"):
                yield AnswerView(id="answer-box")
                yield EvidenceTable(id="evidence")
                yield PassageView(id="detail-box")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = signed_in_as(self.credentials)
        self.query_one("#question", Input).focus()
        self.connect()

    # -- the broker ----------------------------------------------------------------------------

    @work(exclusive=True, group="connect")
    async def connect(self) -> None:
        """Connects (again, after a sign-in) and discovers the federation's tree."""
        self.connected.clear()
        old, self.nc = self.nc, None
        await drain(old)
        try:
            self.nc = await connect_as(self.url, "fedrag-tui", self.credentials, timeout=5.0,
                                       disconnected_cb=self._disconnected, reconnected_cb=self._reconnected)
        except FedragError as exc:
            self.notify(f"cannot reach the broker: {exc}", title="broker", severity="error", timeout=10)
            return
        await self.rediscover()
        self.connected.set()

    async def rediscover(self) -> None:
        nodes = await discover(self.nc, timeout=0.5)
        self.federation = model.Federation.discovered(nodes)
        self._draw_tree()

    async def _disconnected(self) -> None:
        self.notify("the broker went away; reconnecting…", title="broker", severity="warning", timeout=10)

    async def _reconnected(self) -> None:
        self.notify("connected to the broker again", title="broker", timeout=5)

    async def on_unmount(self) -> None:
        await drain(self.nc)

    # -- asking --------------------------------------------------------------------------------

    @on(Input.Submitted, "#question")
    def _submitted(self, event: Input.Submitted) -> None:
        question = event.value.strip()
        if question:
            self.ask(question)

    @work(exclusive=True, group="ask")
    async def ask(self, question: str) -> None:
        """Asks ``question`` and shows what streams back; a new question or Escape cancels it."""
        await self.connected.wait()
        self.federation.start()
        self._draw_tree()
        evidence = self.query_one(EvidenceTable)
        evidence.start()
        self._streamed = ""
        answering = await self.query_one(AnswerView).asking(question)
        request = AskRequest(question=question, summarize=self.summarize, deadline_ms=self.deadline_ms)
        credentials = self.credentials
        headers = (lambda: credentials.headers(question)) if credentials else None  # a fresh proof per attempt
        try:
            async for event in events(self.nc, request, headers=headers):
                if isinstance(event, Restarted):  # the gateway died mid-question; another one answers
                    self.notify(f"{event.reason}; asking again", title="gateway lost", severity="warning", timeout=5)
                    self.federation.start()
                    self._draw_tree()
                    evidence.start()
                elif isinstance(event, OrgResult):
                    self.federation.apply(event)
                    self._draw_tree()
                    if event.result:
                        evidence.add(event.result.hits)
                elif isinstance(event, AnswerDelta):
                    self._streamed += event.text + " "
                    await answering.write(event.text)
                elif isinstance(event, Answer):
                    await answering.stop()
                    await self._show_answer(event)
                    self.history.append(event)
        except AskError as exc:
            self.notify(str(exc), title="the gateway refused", severity="error", timeout=10)
            await answering.say(f"refused: {exc.error.reason}")
        except FedragError as exc:
            self.notify(str(exc), title="no answer", severity="error", timeout=10)
            await answering.say(f"no answer: {exc}")
        except asyncio.CancelledError:
            await answering.say("cancelled")
            raise
        finally:
            await answering.stop()
            self.federation.finish()
            self._draw_tree()

    async def _show_answer(self, answer: Answer) -> None:
        self.answer = answer
        self.federation.apply(answer)
        self._draw_tree()
        # the hits, then the rest of a record the answer quotes; titled as the closest records when they fall short
        self.query_one(EvidenceTable).show(answer.cited(), answer.falls_short())
        await self.query_one(AnswerView).show(answer)

    def _draw_tree(self) -> None:
        self.query_one(FederationTree).draw(self.federation)

    def action_cancel(self) -> None:
        if self.workers.cancel_group(self, "ask"):
            self.notify("question cancelled", timeout=3)

    # -- between the panels --------------------------------------------------------------------

    @on(FederationTree.Highlighted)
    async def _node(self, event: FederationTree.Highlighted) -> None:
        """A router's summary (or a node's report) shows below the evidence when its node is highlighted."""
        await self.query_one(PassageView).show_node(event.node, self.answer.cited() if self.answer else [])

    @on(EvidenceTable.PassageHighlighted)
    async def _passage(self, event: EvidenceTable.PassageHighlighted) -> None:
        await self.query_one(PassageView).show_passage(event.row.hit, bool(self.answer and self.answer.per_patient))

    @on(Cited)
    def _cited(self, event: Cited) -> None:
        self.action_cite(event.n)

    def action_cite(self, n: int) -> None:
        """Moves the evidence table to the row citation ``[n]`` points at."""
        self.query_one(EvidenceTable).cite(n)

    def action_sort(self) -> None:
        self.query_one(EvidenceTable).sort_next()

    # -- history, sign-in, help -------------------------------------------------------------

    def action_history(self) -> None:
        if not self.history:
            self.notify("no question asked yet", timeout=3)
            return

        async def reopen(answer: Answer | None) -> None:
            if answer is not None:
                await self._show_answer(answer)
                self.federation.finish()

        self.push_screen(HistoryScreen(self.history), reopen)

    def action_sign_in(self) -> None:
        def signed_in(credentials: Credentials | None) -> None:
            if credentials is not None:
                self.credentials = credentials
                self.sub_title = signed_in_as(self.credentials)
                self.notify(self.sub_title, title="signed in", timeout=4)
                self.connect()

        self.push_screen(SignInScreen(self.users, self.sign_in_user), signed_in)

    def action_help(self) -> None:
        self.push_screen(HelpScreen())
