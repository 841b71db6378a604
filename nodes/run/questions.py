"""Question sets for the commands that ask many questions (``compare``, ``chaos``, ``load``)."""

from __future__ import annotations

import json
from pathlib import Path

from bus.errors import SpecError
from nodes.run.spec import FederationSpec


def question_set(spec: FederationSpec, path: str | Path | None = None) -> list[str]:
    """The questions in ``path``, or by default the ones beside the spec (``corpus/questions.json``)."""
    return read_questions(Path(path) if path else spec.source.parent / "corpus" / "questions.json")


def read_questions(path: Path) -> list[str]:
    """A question set: a JSON list of strings, or a text file with one question a line (``#`` comments).

    Raises:
        SpecError: the file is missing, unreadable, not UTF-8, malformed or empty; one line naming it.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SpecError(f"{path}: no such question file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(f"{path}: cannot read questions ({getattr(exc, 'strerror', None) or exc})") from None
    if path.suffix == ".json" or text.lstrip().startswith("["):
        try:
            questions = json.loads(text)
        except ValueError as exc:
            raise SpecError(f"{path}: not valid JSON ({exc})") from None
        if not isinstance(questions, list) or not all(isinstance(q, str) and q.strip() for q in questions):
            raise SpecError(f"{path}: expected a JSON list of non-empty question strings")
    else:
        questions = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    if not questions:
        raise SpecError(f"{path}: holds no questions")
    return questions
