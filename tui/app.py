"""The terminal client: ask the federation, watch it work, read the answer with its evidence.

One screen: the question box on top; on the left the federation's tree as discovery found it, each
node turning from pending (a spinner) to its status in words and colour, with its hit count and
latency, and each router's summary state; on the right the answer, streamed as the gateway writes
it, with every ``[n]`` a link to its evidence row, the routers' summaries under it, the evidence
table (sortable by any column) and the selected passage whole, with its metadata and copies.

Everything on the wire goes through :func:`bus.client.events`, consumed by a Textual worker, so the
screen stays live while a question runs and a new question (or Escape) cancels the old one. The
broker going away, a refused token or a gateway error is a notification, never a crash; nats.py
reconnects by itself and the app says when it is back.

The app does not start federations or sign people in itself: ``fedrag tui`` (:mod:`nodes.run.cli`)
gives it a broker URL, credentials, and the spec's users with a function that signs one in.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Header, Input, Markdown, OptionList, Static, Tree
from textual.widgets.option_list import Option

from bus.client import AskError, discover, events
from bus.connection import drain
from bus.errors import FedragError
from bus.messages import Answer, AnswerDelta, AskRequest, OrgResult, Restarted
from policies.access import Credentials, connect_as
from tui import model

HELP = """\
# fedrag

Type a question and press **Enter**. While it runs, the tree shows each organization and unit:
*pending* with a spinner, then **successful** (hits, latency), *partial*, *timed out*,
*unavailable*, *denied* or *failed* — in words as well as colour.

| key | does |
|---|---|
| Enter | ask the question in the box |
| Escape | cancel the running question |
| 1–9 | jump to the evidence row a citation `[n]` points at (outside the question box) |
| s | sort the evidence by the next column (or click a column's header) |
| Tab | move between the question, the tree, the answer and the evidence |
| F2 | history: re-open an earlier question's answer |
| F3 | sign in as one of the spec's users, or with a token file |
| F1 | this help |
| Ctrl+Q | quit |

Selecting an evidence row shows the whole passage, its metadata and where the same text also is.
"""


class HelpScreen(ModalScreen[None]):
    """The keys, and what the tree's states mean."""

    BINDINGS = [Binding("escape,f1,q", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Markdown(HELP)


class PickScreen(ModalScreen[str | None]):
    """A list to pick one entry from (history, users), with an optional free-text line (a token file)."""

    BINDINGS = [Binding("escape", "dismiss", "Close")]

    def __init__(self, title: str, options: list[tuple[str, str]], placeholder: str | None = None) -> None:
        super().__init__()
        self.title_text, self.options, self.placeholder = title, options, placeholder

    def compose(self) -> ComposeResult:
        with Vertical(id="pick"):
            yield Static(self.title_text, id="pick-title")
            yield OptionList(*(Option(text, id=key) for key, text in self.options), id="pick-list")
            if self.placeholder:
                yield Input(placeholder=self.placeholder, id="pick-input")

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    @on(Input.Submitted, "#pick-input")
    def _typed(self, event: Input.Submitted) -> None:
        self.dismiss("file:" + event.value.strip() if event.value.strip() else None)


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
    #tree { width: 60; border: round $primary; }
    #answer { link-color: $accent; link-style: bold underline; }
    #right { width: 1fr; }
    #answer-box { height: 2fr; border: round $primary; }
    #evidence { height: 1fr; border: round $primary; }
    #detail-box { height: 1fr; border: round $primary; }
    #help, #pick { width: 90; height: auto; max-height: 90%; border: thick $primary; background: $surface; }
    HelpScreen, PickScreen { align: center middle; }
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
    SORTS = ("n", "score", "where", "patient")

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
        self.rows: list[model.Row] = []
        self.connected = asyncio.Event()
        self._frame = 0
        self._sort = 0
        self._streamed = ""

    # -- layout --------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(placeholder="Ask the federation a question, then Enter", id="question")
        with Horizontal():
            yield Tree("federation", id="tree")
            with Vertical(id="right"):
                with VerticalScroll(id="answer-box"):
                    yield Markdown("*No question asked yet.*", id="answer", open_links=False)
                yield DataTable(id="evidence", cursor_type="row", zebra_stripes=True)
                with VerticalScroll(id="detail-box"):
                    yield Markdown("", id="detail", open_links=False)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#evidence", DataTable)
        for key, label in (("n", "#"), ("score", "score"), ("where", "organization/unit"), ("patient", "patient"),
                           ("snippet", "passage")):
            table.add_column(label, key=key)
        self.query_one("#tree", Tree).show_root = False
        self.sub_title = self._who()
        self.set_interval(0.1, self._spin)
        self.query_one("#question", Input).focus()
        self.connect()

    def _who(self) -> str:
        if self.credentials is None:
            return "open federation (not signed in)"
        claims = self.credentials.claims
        role = " ".join(str(claims.get(key, "")) for key in ("org", "role") if claims.get(key))
        return f"signed in as {claims.get('sub', '?')} ({role})"

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
        self._show_rows([])
        self._streamed = ""
        answer_md = self.query_one("#answer", Markdown)
        await answer_md.update(f"**Q:** {question}\n\n*waiting for the federation…*")
        stream = None
        request = AskRequest(question=question, summarize=self.summarize, deadline_ms=self.deadline_ms)
        credentials = self.credentials
        headers = (lambda: credentials.headers(question)) if credentials else None  # a fresh proof per attempt
        evidence: list = []
        try:
            async for event in events(self.nc, request, headers=headers):
                if isinstance(event, Restarted):  # the gateway died mid-question; another one answers
                    self.notify(f"{event.reason}; asking again", title="gateway lost", severity="warning", timeout=5)
                    self.federation.start()
                    self._draw_tree()
                    evidence = []
                    self._show_rows([])
                elif isinstance(event, OrgResult):
                    self.federation.apply(event)
                    self._draw_tree()
                    if event.result:
                        evidence = sorted(evidence + event.result.hits, key=lambda hit: hit.order_key())
                        self._show_rows(evidence)
                elif isinstance(event, AnswerDelta):
                    if stream is None:
                        await answer_md.update(f"**Q:** {question}\n\n")
                        stream = Markdown.get_stream(answer_md)
                    self._streamed += event.text + " "
                    await stream.write(model.cited_markdown(event.text) + " ")
                elif isinstance(event, Answer):
                    if stream is not None:
                        await stream.stop()
                        stream = None
                    await self._show_answer(event)
                    self.history.append(event)
        except AskError as exc:
            self.notify(str(exc), title="the gateway refused", severity="error", timeout=10)
            await answer_md.update(f"**Q:** {question}\n\n*refused: {exc.error.reason}*")
        except FedragError as exc:
            self.notify(str(exc), title="no answer", severity="error", timeout=10)
            await answer_md.update(f"**Q:** {question}\n\n*no answer: {exc}*")
        except asyncio.CancelledError:
            await answer_md.update(f"**Q:** {question}\n\n*cancelled*")
            raise
        finally:
            if stream is not None:
                await stream.stop()
            self.federation.finish()
            self._draw_tree()

    async def _show_answer(self, answer: Answer) -> None:
        self.answer = answer
        self.federation.apply(answer)
        self._draw_tree()
        self._show_rows(answer.hits)
        await self.query_one("#answer", Markdown).update(self.answer_markdown(answer))

    @staticmethod
    def answer_markdown(answer: Answer) -> str:
        parts = [f"**Q:** {answer.question}", ""]
        if answer.error:
            parts += [f"**{answer.error.type}:** {answer.error.reason}", ""]
        if answer.answer:
            parts += [model.cited_markdown(answer.answer), ""]
        info = answer.answer_info
        if info is not None:
            how = f"*{info.method}, {info.status}*" + (f" — {info.reason}" if info.reason else "")
            if info.confidence is not None:
                how += f" · confidence {info.confidence:.2f}"
            parts += [how, ""]
        for summary in answer.summaries:
            parts += ["---", model.summary_markdown(summary, answer.hits), ""]
        coverage = answer.coverage
        parts.append(f"*{answer.took_ms:.0f} ms · {coverage.successful} of {coverage.total} units answered*")
        return "\n".join(parts)

    def action_cancel(self) -> None:
        if self.workers.cancel_group(self, "ask"):
            self.notify("question cancelled", timeout=3)

    # -- the tree ------------------------------------------------------------------------------

    def _draw_tree(self) -> None:
        tree = self.query_one("#tree", Tree)
        tree.clear()

        def add(parent, path: str) -> None:
            node = self.federation.nodes[path]
            if node.children:
                branch = parent.add(model.label(node, self._frame), data=path, expand=True)
                for child in node.children:
                    add(branch, child)
            else:
                parent.add_leaf(model.label(node, self._frame), data=path)

        for root in self.federation.roots:
            add(tree.root, root)
        tree.root.expand()

    def _spin(self) -> None:
        if not self.federation.pending():
            return
        self._frame += 1
        tree = self.query_one("#tree", Tree)

        def relabel(node) -> None:
            path = node.data
            if path in self.federation.nodes and self.federation.nodes[path].state == "pending":
                node.set_label(model.label(self.federation.nodes[path], self._frame))
            for child in node.children:
                relabel(child)

        relabel(tree.root)

    @on(Tree.NodeHighlighted, "#tree")
    async def _node(self, event: Tree.NodeHighlighted) -> None:
        """A router's summary (or a node's report) shows below the evidence when its node is highlighted."""
        node = self.federation.nodes.get(event.node.data) if event.node.data else None
        if node is None:
            return
        if node.summary is not None:
            text = model.summary_markdown(node.summary, self.answer.hits if self.answer else [])
        else:
            text = f"**{node.path}** — {model.STATES.get(node.state, ('', node.state, ''))[1]}"
            if node.report is not None and node.report.error is not None:
                text += f"\n\n{node.report.error.type}: {node.report.error.reason}"
        await self.query_one("#detail", Markdown).update(text)

    # -- the evidence --------------------------------------------------------------------------

    def _show_rows(self, hits) -> None:
        self.rows = model.evidence_rows(list(hits))
        table = self.query_one("#evidence", DataTable)
        table.clear()
        for row in self.rows:
            table.add_row(str(row.n), f"{row.score:.3f}", row.where, row.patient, row.snippet, key=str(row.n))

    @on(DataTable.RowHighlighted, "#evidence")
    async def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key is None or event.row_key.value is None:
            return
        row = self.rows[int(event.row_key.value) - 1]
        await self.query_one("#detail", Markdown).update(model.passage_details(row.hit))

    @on(DataTable.HeaderSelected, "#evidence")
    def _header(self, event: DataTable.HeaderSelected) -> None:
        key = event.column_key.value
        if key in self.SORTS:
            self._sort = self.SORTS.index(key)
            self._apply_sort()

    def action_sort(self) -> None:
        self._sort = (self._sort + 1) % len(self.SORTS)
        self._apply_sort()

    def _apply_sort(self) -> None:
        key = self.SORTS[self._sort]
        table = self.query_one("#evidence", DataTable)
        numeric = {"n": int, "score": lambda v: -float(v)}
        table.sort(key, key=numeric.get(key, str))
        self.notify(f"evidence sorted by {key}", timeout=2)

    def action_cite(self, n: int) -> None:
        """Moves the evidence table to the row citation ``[n]`` points at."""
        if not 1 <= n <= len(self.rows):
            self.notify(f"there is no passage [{n}]", severity="warning", timeout=3)
            return
        table = self.query_one("#evidence", DataTable)
        table.move_cursor(row=table.get_row_index(str(n)))
        table.focus()

    @on(Markdown.LinkClicked)
    def _link(self, event: Markdown.LinkClicked) -> None:
        if event.href.startswith("cite:") and event.href[5:].isdigit():
            self.action_cite(int(event.href[5:]))

    # -- history, sign-in, help -------------------------------------------------------------

    def action_history(self) -> None:
        if not self.history:
            self.notify("no question asked yet", timeout=3)
            return
        options = [(str(i), f"{a.question}  ({len(a.hits)} hits)") for i, a in enumerate(self.history)]

        async def reopen(choice: str | None) -> None:
            if choice is not None:
                await self._show_answer(self.history[int(choice)])
                self.federation.finish()

        self.push_screen(PickScreen("Re-open an earlier question", options[::-1]), reopen)

    def action_sign_in(self) -> None:
        options = [(f"user:{user}", user) for user in self.users]
        title = "Sign in as one of the spec's users, or type a token file's path" if options else \
            "Type the path of a token file written by fedrag login"

        def chosen(choice: str | None) -> None:
            if choice is None:
                return
            try:
                if choice.startswith("user:") and self.sign_in_user is not None:
                    self.credentials = self.sign_in_user(choice[5:])
                elif choice.startswith("file:"):
                    self.credentials = Credentials.load(Path(choice[5:]).expanduser())
                else:
                    return
            except FedragError as exc:
                self.notify(str(exc), title="sign-in failed", severity="error", timeout=10)
                return
            self.sub_title = self._who()
            self.notify(self.sub_title, title="signed in", timeout=4)
            self.connect()

        self.push_screen(PickScreen(title, options, placeholder="token file, e.g. state/tokens/U2.token"), chosen)

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    async def on_unmount(self) -> None:
        await drain(self.nc)
