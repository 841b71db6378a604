"""The evidence: a table of the passages the answer stands on, and the selected one whole.

:class:`EvidenceTable` lists the hits numbered as the answer cites them (``#``, score,
organization/unit, patient, the passage's start) — while a question runs, as each organization's come
in — sorted by ``s`` or a click on a column's header; highlighting a row posts
:class:`EvidenceTable.PassageHighlighted`. :class:`PassageView` shows that passage whole, with its
metadata and where the same text also is — or, for a highlighted node of the tree, its router's
summary or its report.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import DataTable

from bus.messages import Hit
from tui import model
from tui.widgets._citations import CitingMarkdown


class EvidenceTable(DataTable):
    """The answer's passages, one row each, keyed by their number ``n``.

    Args:
        id: the widget's id.
    """

    DEFAULT_CSS = """
    EvidenceTable {
        height: 1fr;
        border: round $primary;
    }
    """
    #: The columns: key and header.
    COLUMNS = (("n", "#"), ("score", "score"), ("where", "organization/unit"), ("patient", "patient"),
               ("snippet", "passage"))
    #: The columns the table sorts by, in the order ``s`` goes through them.
    SORTS = ("n", "score", "where", "patient")

    class PassageHighlighted(Message):
        """A passage's row was highlighted.

        Args:
            table: the table.
            row: the passage's row.
        """

        def __init__(self, table: EvidenceTable, row: model.Row) -> None:
            super().__init__()
            self.table = table
            self.row = row

        @property
        def control(self) -> EvidenceTable:
            """The table (for :func:`textual.on`'s selectors)."""
            return self.table

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.passages: list[model.Row] = []
        self._sorted_by = 0
        self._coming: list[Hit] = []

    def on_mount(self) -> None:
        for key, label in self.COLUMNS:
            self.add_column(label, key=key)

    def show(self, hits: list[Hit], falls_short: str | None = None) -> None:
        """Shows ``hits`` (a whole answer's), numbered from 1 in their order; with ``falls_short`` (why they are only
        the closest records, :meth:`bus.asking.Answer.falls_short`), says so in the table's title."""
        self.border_title = f"closest records: {falls_short}" if falls_short else ""
        self.passages = model.evidence_rows(list(hits))
        self.clear()
        for row in self.passages:
            self.add_row(str(row.n), f"{row.score:.3f}", row.where, row.patient, row.snippet, key=str(row.n))

    def start(self) -> None:
        """A question goes out (again): no evidence yet."""
        self._coming = []
        self.show([])

    def add(self, hits: list[Hit]) -> None:
        """An organization answered with ``hits``: shows them with the question's others, in the federation's order."""
        self._coming = sorted(self._coming + hits, key=lambda hit: hit.order_key())
        self.show(self._coming)

    def cite(self, n: int) -> None:
        """Moves the cursor to the row citation ``[n]`` points at, and the focus here."""
        if not 1 <= n <= len(self.passages):
            self.notify(f"there is no passage [{n}]", severity="warning", timeout=3)
            return
        self.move_cursor(row=self.get_row_index(str(n)))
        self.focus()

    def sort_next(self) -> None:
        """Sorts by the next of :attr:`SORTS`."""
        self._sorted_by = (self._sorted_by + 1) % len(self.SORTS)
        self._apply_sort()

    def _apply_sort(self) -> None:
        key = self.SORTS[self._sorted_by]
        numeric = {"n": int, "score": lambda v: -float(v)}
        self.sort(key, key=numeric.get(key, str))
        self.notify(f"evidence sorted by {key}", timeout=2)

    @on(DataTable.HeaderSelected)
    def _header(self, event: DataTable.HeaderSelected) -> None:
        key = event.column_key.value
        if key in self.SORTS:
            self._sorted_by = self.SORTS.index(key)
            self._apply_sort()

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key is None or event.row_key.value is None:
            return
        self.post_message(self.PassageHighlighted(self, self.passages[int(event.row_key.value) - 1]))


class PassageView(VerticalScroll):
    """The selected passage whole (or a tree node's summary or report), as Markdown with linked citations.

    The Markdown's id is ``detail``.
    """

    DEFAULT_CSS = """
    PassageView {
        height: 1fr;
        border: round $primary;
    }
    """

    def compose(self) -> ComposeResult:
        yield CitingMarkdown("", id="detail")

    async def show_passage(self, hit: Hit, per_patient: bool = False) -> None:
        """Shows the whole passage, its metadata and its copies (or, ``per_patient``, the patient's other passages)."""
        await self.query_one(CitingMarkdown).update(model.passage_details(hit, per_patient))

    async def show_node(self, node: model.NodeState, hits: list[Hit]) -> None:
        """Shows the router's summary of ``node`` (its citations numbered as in ``hits``), else its state and error."""
        if node.summary is not None:
            text = model.summary_markdown(node.summary, hits)
        else:
            text = f"**{node.path}** — {model.STATES.get(node.state, ('', node.state, ''))[1]}"
            if node.report is not None and node.report.error is not None:
                text += f"\n\n{node.report.error.type}: {node.report.error.reason}"
        await self.query_one(CitingMarkdown).update(text)
