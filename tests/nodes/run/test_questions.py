"""Question sets for the commands that ask many questions (:mod:`nodes.run.questions`): a JSON list or a text
file of one question a line, by default the corpus's beside the spec. Their errors, as ``fedrag compare``
reports them, are in ``tests/nodes/cli/test_ask.py``."""

from __future__ import annotations

import json

import pytest

from bus.errors import SpecError
from nodes.run.questions import question_set, read_questions
from nodes.run.spec import FederationSpec


def test_a_text_file_is_one_question_a_line_without_comments_or_blank_lines(tmp_path):
    path = tmp_path / "mine.txt"
    path.write_text("# asked at the ward round\nWhich patients had a stroke?\n\n   \n  What is Ana Ruiz taking?  \n")
    assert read_questions(path) == ["Which patients had a stroke?", "What is Ana Ruiz taking?"]


def test_a_json_list_is_read_whatever_the_file_is_called(tmp_path):
    (tmp_path / "q.json").write_text(json.dumps(["stroke", "  # not a comment in JSON"]))
    (tmp_path / "q.txt").write_text('  ["stroke", "seizure"]')
    assert read_questions(tmp_path / "q.json") == ["stroke", "  # not a comment in JSON"]
    assert read_questions(tmp_path / "q.txt") == ["stroke", "seizure"]
    (tmp_path / "blank.json").write_text('["stroke", "  "]')
    with pytest.raises(SpecError, match="expected a JSON list of non-empty question strings"):
        read_questions(tmp_path / "blank.json")


def test_the_default_set_is_the_corpus_beside_the_spec(tmp_path):
    (tmp_path / "fed.toml").write_text('[orgs.site.units.notes]\ndata = "notes.jsonl"\n')
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "questions.json").write_text('["the corpus question"]')
    (tmp_path / "other.txt").write_text("another question\n")
    spec = FederationSpec.load(tmp_path / "fed.toml")
    assert question_set(spec) == ["the corpus question"]
    assert question_set(spec, tmp_path / "other.txt") == ["another question"]
