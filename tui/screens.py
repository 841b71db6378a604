"""The terminal client's modal screens: the help (F1), the history (F2) and the sign-in (F3)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, ScreenResultType
from textual.widgets import Input, Markdown, OptionList, Static
from textual.widgets.option_list import Option

from bus.errors import FedragError
from bus.asking import Answer
from policies.access import Credentials

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


class Dialog(ModalScreen[ScreenResultType]):
    """A modal screen whose one container (of class ``dialog``) floats in the middle, framed."""

    DEFAULT_CSS = """
    Dialog {
        align: center middle;

        .dialog {
            width: 90;
            height: auto;
            max-height: 90%;
            border: thick $primary;
            background: $surface;
        }
    }
    """


class HelpScreen(Dialog[None]):
    """The keys, and what the tree's states mean."""

    BINDINGS = [Binding("escape,f1,q", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help", classes="dialog"):
            yield Markdown(HELP)


class PickScreen(Dialog[ScreenResultType]):
    """A list to pick one entry from, with an optional free-text line; subclasses say what a pick means.

    Args:
        title: what to pick.
        options: each entry's key and text.
        placeholder: the free-text line's placeholder (``None``: no such line).
    """

    BINDINGS = [Binding("escape", "dismiss", "Close")]

    def __init__(self, title: str, options: list[tuple[str, str]], placeholder: str | None = None) -> None:
        super().__init__()
        self.title_text, self.options, self.placeholder = title, options, placeholder

    def compose(self) -> ComposeResult:
        with Vertical(id="pick", classes="dialog"):
            yield Static(self.title_text, id="pick-title")
            yield OptionList(*(Option(text, id=key) for key, text in self.options), id="pick-list")
            if self.placeholder:
                yield Input(placeholder=self.placeholder, id="pick-input")

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self.picked(event.option.id)

    @on(Input.Submitted, "#pick-input")
    def _typed(self, event: Input.Submitted) -> None:
        self.typed(event.value.strip())

    def picked(self, key: str) -> None:
        """The entry ``key`` was picked."""
        raise NotImplementedError

    def typed(self, text: str) -> None:
        """``text`` was typed in the free-text line (it may be empty)."""
        raise NotImplementedError


class HistoryScreen(PickScreen[Answer | None]):
    """Re-open an earlier question's answer (the latest first); dismissed with that answer.

    Args:
        answers: the answers so far, oldest first.
    """

    def __init__(self, answers: list[Answer]) -> None:
        options = [(str(i), f"{a.question}  ({len(a.hits)} hits)") for i, a in enumerate(answers)]
        super().__init__("Re-open an earlier question", options[::-1])
        self.answers = answers

    def picked(self, key: str) -> None:
        self.dismiss(self.answers[int(key)])


def signed_in_as(credentials: Credentials | None) -> str:
    """Who asks with ``credentials``, as the header says it."""
    if credentials is None:
        return "open federation (not signed in)"
    claims = credentials.claims
    role = " ".join(str(claims.get(key, "")) for key in ("org", "role") if claims.get(key))
    return f"signed in as {claims.get('sub', '?')} ({role})"


class SignInScreen(PickScreen[Credentials | None]):
    """Sign in as one of the spec's users, or with a token file; dismissed with the new credentials.

    A sign-in that fails is a notification, and the screen is dismissed with ``None``, as when it is closed.

    Args:
        users: the spec's users.
        sign_in: signs one of ``users`` in (``None``: only a token file signs in).
    """

    def __init__(self, users: list[str], sign_in: Callable[[str], Credentials] | None) -> None:
        options = [(user, user) for user in users]
        title = "Sign in as one of the spec's users, or type a token file's path" if options else \
            "Type the path of a token file written by fedrag login"
        super().__init__(title, options, placeholder="token file, e.g. state/tokens/U2.token")
        self.sign_in = sign_in

    def picked(self, key: str) -> None:
        self._dismiss_with(lambda: self.sign_in(key) if self.sign_in is not None else None)

    def typed(self, text: str) -> None:
        self._dismiss_with(lambda: Credentials.load(Path(text).expanduser()) if text else None)

    def _dismiss_with(self, credentials: Callable[[], Credentials | None]) -> None:
        try:
            self.dismiss(credentials())
        except FedragError as exc:
            self.dismiss(None)
            self.notify(str(exc), title="sign-in failed", severity="error", timeout=10)
