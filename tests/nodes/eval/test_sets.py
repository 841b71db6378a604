"""The set loaders on small files the tests write, on the real data in ``shared/data``, and sets written as federations."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bus.errors import SpecError, StoreError
from nodes.cli import main
from nodes.data.loaders import load as load_records
from nodes.eval import sets
from nodes.run.spec import FederationSpec

#: The public data sets: ../shared/data beside the repository, or where FEDRAG_SHARED_DATA says.
SHARED = Path(os.environ.get("FEDRAG_SHARED_DATA") or Path(__file__).resolve().parents[4] / "shared" / "data")
needs_shared = pytest.mark.skipif(not SHARED.is_dir(), reason=f"the public data folder {SHARED} is absent")


def medquad_xml(source: str, doc: str, focus: str, pairs: list[tuple[str, str, str, str]]) -> str:
    """A MedQuAD document: ``pairs`` of (pid, qtype, question, answer)."""
    body = "".join(f'<QAPair pid="{pid}"><Question qid="{doc}-{pid}" qtype="{qtype}">{question}</Question>'
                   f"<Answer>{answer}</Answer></QAPair>" for pid, qtype, question, answer in pairs)
    return (f'<?xml version="1.0" encoding="UTF-8"?><Document id="{doc}" source="{source}" url="https://x">'
            f"<Focus>{focus}</Focus><QAPairs>{body}</QAPairs></Document>")


@pytest.fixture
def data(tmp_path) -> Path:
    """A tiny MedQuAD (two publishers, a qid repeated across them and by a second file, an empty answer) and PubMedQA."""
    files = {
        "medquad/1_CancerGov_QA/0000001_1.xml": medquad_xml("CancerGov", "0000001_1", "Leukemia", [
            ("1", "information", "What is (are) Leukemia ?", "Leukemia is a cancer\n      of the   blood."),
            ("2", "treatment", "What are the treatments for Leukemia ?", "Chemotherapy is one."),
            ("3", "outlook", "What is the outlook for Leukemia ?", "   ")]),
        "medquad/1_CancerGov_QA/0000001_1_1.xml": medquad_xml("CancerGov", "0000001_1", "Polycythemia Vera", [
            ("1", "information", "What is (are) Polycythemia Vera ?", "Too many red blood cells.")]),
        "medquad/5_NIDDK_QA/0000001_1.xml": medquad_xml("NIDDK", "0000001_1", "Gout", [
            ("1", "causes", "What causes Gout ?", "Uric acid crystals in a joint.")]),
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    rows = {str(pmid): {"QUESTION": f"Does drug {pmid} work?", "CONTEXTS": [f"Drug {pmid} was tested.", "It worked."],
                        "final_decision": decision, "LONG_ANSWER": f"Drug {pmid} works.", "YEAR": "2011"}
            for pmid, decision in [(101, "yes"), (102, "no"), (103, "maybe"), (104, "yes")]}
    (tmp_path / "pubmedqa").mkdir()
    (tmp_path / "pubmedqa" / "ori_pqal.json").write_text(json.dumps(rows))
    return tmp_path


def test_medquad_a_record_per_answer_and_an_organization_per_publisher(data):
    medquad = sets.load("medquad", data)
    assert list(medquad.orgs) == ["cancergov", "niddk"] and medquad.leaves == 2
    ids = [r.id for records in medquad.orgs.values() for r in records]
    assert ids == ["cancergov/0000001_1-1", "cancergov/0000001_1-2", "cancergov/0000001_1_1-1", "niddk/0000001_1-1"]
    first = medquad.orgs["cancergov"][0]
    assert first.text == "Leukemia is a cancer\nof the blood."
    assert first.metadata == {"qid": "0000001_1-1", "title": "Leukemia", "qtype": "information", "source": "CancerGov"}
    question = medquad.questions[0]
    assert (question.id, question.text, question.type) == (first.id, "What is (are) Leukemia ?", "information")
    assert question.relevant == {first.id: 1} and question.answer == first.text and not question.negative
    assert [q.type for q in medquad.questions] == ["information", "treatment", "information", "causes"]  # no empty answer


def test_pubmedqa_an_abstract_per_question_over_three_organizations(data):
    pubmedqa = sets.load("pubmedqa", data)
    assert list(pubmedqa.orgs) == list(sets.PUBMEDQA_ORGS)
    records = {r.id: r for rs in pubmedqa.orgs.values() for r in rs}
    assert records["101"].text == "Drug 101 was tested. It worked."
    assert {q.id: (q.type, q.relevant, q.answer) for q in pubmedqa.questions}["102"] == ("no", {"102": 1}, "Drug 102 works.")
    assert sets.load("pubmedqa", data).orgs == pubmedqa.orgs  # the split is stable


def test_a_set_written_as_a_federation_splits_each_organization_over_two_leaves(data, tmp_path):
    medquad = sets.load("medquad", data)
    spec_path = medquad.write(tmp_path / "state")
    spec = FederationSpec.load(spec_path)
    assert spec.identity is None and sorted(spec.leaves()) == ["cancergov.part_0", "cancergov.part_1", "niddk.part_0",
                                                               "niddk.part_1"]
    held = {}
    for path, node in spec.leaves().items():
        source = node.source()
        records, _ = load_records(source.path, source.format, shard=source.shard)
        held[path] = {r.id for r in records}
    assert held["cancergov.part_0"] | held["cancergov.part_1"] == {r.id for r in medquad.orgs["cancergov"]}
    assert not held["cancergov.part_0"] & held["cancergov.part_1"]
    before = {p: p.stat().st_mtime_ns for p in (tmp_path / "state").rglob("*") if p.is_file()}
    assert medquad.write(tmp_path / "state") == spec_path  # unchanged data is not rewritten
    assert before == {p: p.stat().st_mtime_ns for p in (tmp_path / "state").rglob("*") if p.is_file()}


def test_a_sample_is_the_same_every_run_and_spread_over_the_set(data):
    medquad = sets.load("medquad", data)
    assert medquad.sample(None) == medquad.questions and medquad.sample(10) == medquad.questions
    two = medquad.sample(2)
    assert len(two) == 2 and two == sets.load("medquad", data).sample(2)
    assert [q for q in medquad.questions if q in two] == two  # in the set's order
    held_out = medquad.sample(1, offset=2)  # the set has four questions
    assert len(held_out) == 1 and not set(q.id for q in held_out) & set(q.id for q in two), "the next ones, not the same"
    assert {q.id for q in medquad.sample(3)} == {q.id for q in two + held_out}
    assert len(medquad.sample(None, offset=2)) == len(medquad.questions) - 2 == 2


def test_repeated_record_ids_are_refused(tmp_path):
    from nodes.data.records import Record

    labelled = sets.LabelledSet("twice", [], {"a": [Record("r1", "x")], "b": [Record("r1", "y")]})
    with pytest.raises(SpecError, match="record ids repeat"):
        labelled.write(tmp_path)


def test_errors_name_the_known_sets_and_the_missing_data(tmp_path, capsys):
    with pytest.raises(SpecError, match="known: medquad, pubmedqa, demo-negatives"):
        sets.load("bioasq", tmp_path)
    with pytest.raises(StoreError, match=f"{tmp_path / 'medquad'}: no such folder; get MedQuAD from https://"):
        sets.load("medquad", tmp_path)
    with pytest.raises(StoreError, match="ori_pqal.json: no such file; get ori_pqal.json from https://"):
        sets.load("pubmedqa", tmp_path)
    assert main(["eval", "bioasq"]) == 2
    assert main(["eval", "pubmedqa", "--data", str(tmp_path)]) == 2
    assert main(["eval", "pubmedqa", "--modes", "dense,sparse"]) == 2
    errors = capsys.readouterr().err.splitlines()
    assert errors == ["fedrag: error: unknown set 'bioasq' (known: medquad, pubmedqa, demo-negatives)",
                      f"fedrag: error: {tmp_path / 'pubmedqa' / 'ori_pqal.json'}: no such file; get ori_pqal.json from "
                      "https://github.com/pubmedqa/pubmedqa (data/) as ../shared/data/README.md describes, or pass --data DIR",
                      "fedrag: error: unknown ranking mode 'sparse' (known: dense, lexical, hybrid)"]


@needs_shared
def test_the_real_medquad_has_3838_questions_over_five_publishers():
    medquad = sets.load("medquad", SHARED)
    assert len(medquad.questions) == 3838
    assert {org: len(records) for org, records in medquad.orgs.items()} == {
        "cancergov": 729, "cdc": 270, "nhlbi": 559, "niddk": 1192, "ninds": 1088}
    assert len({q.id for q in medquad.questions}) == 3838


@needs_shared
def test_the_real_pubmedqa_has_1000_questions():
    pubmedqa = sets.load("pubmedqa", SHARED)
    assert len(pubmedqa.questions) == 1000 and sum(len(r) for r in pubmedqa.orgs.values()) == 1000
    assert {q.type for q in pubmedqa.questions} == {"yes", "no", "maybe"}
