"""Markdown whose citation links say which evidence row they point at (shared by the answer and the passage view).

:func:`tui.model.cited_markdown` and :func:`tui.model.summary_markdown` write each ``[n]`` as a link to
``cite:n``; clicking one posts :class:`Cited`, and the app moves the evidence table to row ``n``.
"""

from __future__ import annotations

from textual import on
from textual.message import Message
from textual.widgets import Markdown


class Cited(Message):
    """A citation ``[n]`` was clicked.

    Args:
        markdown: the widget the link is in.
        n: the evidence row it points at (from 1).
    """

    def __init__(self, markdown: CitingMarkdown, n: int) -> None:
        super().__init__()
        self.markdown = markdown
        self.n = n

    @property
    def control(self) -> CitingMarkdown:
        """The widget the link is in (for :func:`textual.on`'s selectors)."""
        return self.markdown


class CitingMarkdown(Markdown):
    """Markdown that opens no link itself and posts :class:`Cited` for a ``cite:n`` one."""

    def __init__(self, markdown: str, *, id: str | None = None) -> None:
        super().__init__(markdown, id=id, open_links=False)

    @on(Markdown.LinkClicked)
    def _cite(self, event: Markdown.LinkClicked) -> None:
        if event.href.startswith("cite:") and event.href[5:].isdigit():
            self.post_message(Cited(self, int(event.href[5:])))
