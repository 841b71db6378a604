import json

import pytest

from bus.errors import StoreError
from nodes.data.chunking import MAX_PASSAGE_CHARS, chunk, load_jsonl


def write(tmp_path, lines):
    path = tmp_path / "d.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_notes_are_cut_at_sections_and_carry_the_patient():
    record = {"id": "n1", "text": "CHIEF COMPLAINT: cough.\n\nPLAN: antibiotics.", "patient": "Ana Ruiz", "metadata": {}}
    passages = chunk(record)
    assert [p.id for p in passages] == ["n1#0", "n1#1"]
    assert all(p.text.startswith("Patient: Ana Ruiz. ") and p.record_id == "n1" for p in passages)
    assert passages[1].text.endswith("PLAN: antibiotics.")


def test_a_one_section_record_keeps_its_id():
    assert [p.id for p in chunk({"id": "row", "text": "Admission A-1.", "patient": None, "metadata": {}})] == ["row"]


def test_long_sections_are_split_at_sentences():
    text = " ".join(f"Sentence number {i} is here." for i in range(200))
    passages = chunk({"id": "x", "text": text, "patient": None, "metadata": {}})
    assert len(passages) > 1
    assert all(len(p.text) <= MAX_PASSAGE_CHARS for p in passages)
    assert all(p.text.endswith(".") for p in passages)
    assert " ".join(p.text for p in passages) == text


@pytest.mark.parametrize("line, message", [
    ("{not json", "not valid JSON"),
    ('["a"]', "expected a JSON object"),
    ('{"text": "x"}', "missing string field 'id'"),
    ('{"id": "a", "text": ""}', "has no 'text'"),
    ('{"id": "a", "text": "x", "metadata": {"n": {"deep": 1}}}', "scalar"),
])
def test_malformed_lines_are_named_by_file_and_line(tmp_path, line, message):
    path = write(tmp_path, [json.dumps({"id": "ok", "text": "fine"}), line])
    with pytest.raises(StoreError, match=rf"d\.jsonl:2: .*{message}"):
        load_jsonl(path)


def test_duplicate_ids_are_refused(tmp_path):
    path = write(tmp_path, [json.dumps({"id": "a", "text": "x"})] * 2)
    with pytest.raises(StoreError, match="duplicate id 'a'"):
        load_jsonl(path)
