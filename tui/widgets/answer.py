"""The answer: the question, the answer as the gateway writes it, how it was made, and the routers' summaries.

Every ``[n]`` in the answer and in the summaries is a link to evidence row ``n`` (clicking one posts
:class:`~tui.widgets.Cited`); under the answer come its method and status, each router's summary with
its sources, and how long it took and how many units answered.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownStream

from bus.asking import Answer
from tui import model
from tui.widgets._citations import CitingMarkdown


def answer_markdown(answer: Answer) -> str:
    """The whole answer as Markdown: question, answer (or error), method, routers' summaries, coverage."""
    parts = [f"**Q:** {answer.question}", ""]
    if answer.read_as:
        parts += [f"*read as the records spell it: {answer.respelled()}*", ""]
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


class Answering:
    """One question's answer as it comes: a note while there is none, then the text as the gateway streams it.

    Args:
        markdown: the widget it is shown in.
        question: the question.
    """

    def __init__(self, markdown: Markdown, question: str) -> None:
        self.markdown, self.question = markdown, question
        self._stream: MarkdownStream | None = None

    async def say(self, note: str) -> None:
        """Shows the question with ``note`` in place of its answer (``cancelled``, ``refused: …``)."""
        await self.markdown.update(f"**Q:** {self.question}\n\n*{note}*")

    async def write(self, text: str) -> None:
        """Appends one piece of the answer, its citations linked (the first piece replaces the note)."""
        if self._stream is None:
            await self.markdown.update(f"**Q:** {self.question}\n\n")
            self._stream = Markdown.get_stream(self.markdown)
        await self._stream.write(model.cited_markdown(text) + " ")

    async def stop(self) -> None:
        """Writes out what was streamed and stops streaming (if it had started)."""
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None


class AnswerView(VerticalScroll):
    """The answer to the question last asked (or re-opened), scrollable.

    The Markdown's id is ``answer``.
    """

    DEFAULT_CSS = """
    AnswerView {
        height: 2fr;
        border: round $primary;

        & > CitingMarkdown {
            link-color: $accent;
            link-style: bold underline;
        }
    }
    """

    def compose(self) -> ComposeResult:
        yield CitingMarkdown("*No question asked yet.*", id="answer")

    async def asking(self, question: str) -> Answering:
        """Shows ``question`` waiting for the federation, and returns where its answer is written."""
        answering = Answering(self.query_one(CitingMarkdown), question)
        await answering.say("waiting for the federation…")
        return answering

    async def show(self, answer: Answer) -> None:
        """Shows the whole answer (:func:`answer_markdown`)."""
        await self.query_one(CitingMarkdown).update(answer_markdown(answer))
