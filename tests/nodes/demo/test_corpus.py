"""The deterministic synthetic demo corpus (:mod:`nodes.demo.corpus`): stable bytes for a seed, patients,
notes and admissions that fit their units, planted trends — and a planted trend retrieved by the demo
federation over a real broker."""

from __future__ import annotations

import json
import pathlib
import re

import pytest

from bus.client import ask
from bus.asking import AskRequest
from nodes.demo import corpus as dc

SECTION_RE = re.compile(r"^([A-Z][A-Z ]+): \S")


@pytest.fixture(scope="module")
def corpus() -> dc.DemoCorpus:
    return dc.generate()


def _notes(c: dc.DemoCorpus) -> list[dc.Record]:
    return [r for leaf, recs in c.leaves.items() if not leaf.endswith(".admissions") for r in recs]


def _admissions(c: dc.DemoCorpus) -> list[dc.Record]:
    return [r for leaf, recs in c.leaves.items() if leaf.endswith(".admissions") for r in recs]


def _read_tree(root: pathlib.Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_same_seed_gives_identical_bytes(tmp_path: pathlib.Path) -> None:
    first = dc.write(dc.generate(seed=11), tmp_path / "one")
    dc.write(dc.generate(seed=11), tmp_path / "two")
    one, two = _read_tree(tmp_path / "one"), _read_tree(tmp_path / "two")
    assert one == two
    assert set(first) == set(dc.LEAVES)
    assert "trends.json" in one and "questions.json" in one
    assert not [name for name in one if name.endswith(".tmp")]


def test_rewrite_in_place_is_stable(tmp_path: pathlib.Path) -> None:
    c = dc.generate(seed=3)
    dc.write(c, tmp_path)
    before = _read_tree(tmp_path)
    dc.write(c, tmp_path)
    assert _read_tree(tmp_path) == before


def test_different_seed_gives_different_corpus() -> None:
    a, b = dc.generate(seed=1), dc.generate(seed=2)
    assert a.patients != b.patients
    assert [r.text for r in a.records()] != [r.text for r in b.records()]


def test_written_files_match_corpus(tmp_path: pathlib.Path, corpus: dc.DemoCorpus) -> None:
    paths = dc.write(corpus, tmp_path)
    for leaf, path in paths.items():
        org, unit = leaf.split(".")
        assert path == tmp_path / org / f"{unit}.jsonl"
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        assert [row["id"] for row in rows] == [r.id for r in corpus.leaves[leaf]]
        assert all(set(row) == {"id", "text", "patient", "metadata"} for row in rows)
    trends = json.loads((tmp_path / "trends.json").read_text(encoding="utf-8"))
    assert set(trends) == {t.name for t in corpus.trends}
    for t in corpus.trends:
        assert trends[t.name]["record_ids"] == list(t.record_ids)
        assert set(trends[t.name]) == {"description", "question", "patients", "record_ids"}
    questions = json.loads((tmp_path / "questions.json").read_text(encoding="utf-8"))
    assert questions == corpus.questions()


def test_patients_unique_and_enough(corpus: dc.DemoCorpus) -> None:
    assert len(corpus.patients) >= 150
    assert len(set(corpus.patients)) == len(corpus.patients)
    assert len({name.split()[0] for name in corpus.patients}) >= 40
    assert len({name.split()[1] for name in corpus.patients}) >= 40
    assert {r.patient for r in _notes(corpus)} == set(corpus.patients)


def test_all_leaves_present_non_empty(corpus: dc.DemoCorpus) -> None:
    assert list(corpus.leaves) == list(dc.LEAVES)
    assert len(dc.LEAVES) == 10
    assert all(corpus.leaves[leaf] for leaf in dc.LEAVES)
    for leaf, records in corpus.leaves.items():
        org, unit = leaf.split(".")
        assert all(r.id.startswith(leaf + "/") for r in records)
        assert all(r.metadata["org"] == org and r.metadata["unit"] == unit for r in records)


def test_ids_globally_unique(corpus: dc.DemoCorpus) -> None:
    ids = [r.id for r in corpus.records()]
    assert len(ids) == len(set(ids))


def test_note_count_in_range(corpus: dc.DemoCorpus) -> None:
    notes = _notes(corpus)
    assert 400 <= len(notes) <= 700
    per_patient: dict[str, int] = {}
    for r in notes:
        per_patient[r.patient] = per_patient.get(r.patient, 0) + 1
    assert set(per_patient.values()) <= {1, 2, 3}


def test_metadata_is_flat(corpus: dc.DemoCorpus) -> None:
    for r in corpus.records():
        assert all(isinstance(v, (str, int, float, bool)) for v in r.metadata.values()), r.id


def test_some_patients_at_two_hospitals(corpus: dc.DemoCorpus) -> None:
    orgs: dict[str, set[str]] = {}
    for r in _notes(corpus):
        orgs.setdefault(r.patient, set()).add(r.metadata["org"])
    multi = [p for p, o in orgs.items() if len(o) >= 2]
    assert 0.08 * len(corpus.patients) <= len(multi) <= 0.3 * len(corpus.patients)


def test_every_admission_text_contains_every_column(corpus: dc.DemoCorpus) -> None:
    admissions = _admissions(corpus)
    assert admissions
    for r in admissions:
        assert r.metadata["kind"] == "admission"
        assert set(r.metadata) == set(dc.ADMISSION_COLUMNS) | {"kind", "unit"}
        for column in dc.ADMISSION_COLUMNS:
            assert str(r.metadata[column]) in r.text, (r.id, column)
        assert r.metadata["patient"] == r.patient
        assert r.metadata["department"] in dc.ORGS[r.metadata["org"]]
        assert r.metadata["discharge_date"] >= r.metadata["admit_date"]


def test_every_note_has_an_admission_at_its_hospital(corpus: dc.DemoCorpus) -> None:
    admitted = {(r.patient, r.metadata["org"]) for r in _admissions(corpus)}
    by_id = {r.metadata["admission_id"]: r for r in _admissions(corpus)}
    for note in _notes(corpus):
        assert (note.patient, note.metadata["org"]) in admitted
        adm = by_id[note.metadata["admission_id"]]
        assert adm.patient == note.patient and adm.metadata["org"] == note.metadata["org"]


def test_notes_have_sections_and_bounded_size(corpus: dc.DemoCorpus) -> None:
    for r in _notes(corpus):
        assert r.metadata["kind"] == "note"
        assert len(r.text) < dc.MAX_NOTE_CHARS
        blocks = r.text.split("\n\n")
        headings = []
        for block in blocks:
            match = SECTION_RE.match(block)
            assert match, (r.id, block[:60])
            headings.append(match.group(1))
        assert len(headings) >= 4
        assert set(dc.REQUIRED_SECTIONS) <= set(headings), r.id
        assert r.patient in r.text


def test_admission_texts_are_short(corpus: dc.DemoCorpus) -> None:
    assert all(len(r.text) < 600 for r in _admissions(corpus))


def test_notes_are_not_near_identical(corpus: dc.DemoCorpus) -> None:
    notes = _notes(corpus)
    hpis = [r.text.split("\n\n")[1] for r in notes]
    assert len(set(hpis)) == len(hpis)
    per_leaf_dx = {}
    for r in notes:
        leaf = f"{r.metadata['org']}.{r.metadata['unit']}"
        per_leaf_dx.setdefault(leaf, set()).add(r.metadata["primary_diagnosis"])
    assert all(len(dx) >= 3 for dx in per_leaf_dx.values()), per_leaf_dx


def test_unit_content_fits_unit(corpus: dc.DemoCorpus) -> None:
    keywords = {
        "cardiology": ("atrial fibrillation", "myocardial", "heart failure", "aortic", "pericard"),
        "neurology": ("seizure", "stroke", "migraine", "sclerosis", "Parkinson", "brain"),
        "orthopaedics": ("fracture", "arthroplasty", "osteoarthritis", "osteomyelitis"),
        "psychiatry": ("depress", "bipolar", "schizophrenia", "anxiety", "alcohol", "opioid"),
    }
    for r in _notes(corpus):
        words = keywords.get(r.metadata["unit"])
        if words:
            assert any(w in r.metadata["primary_diagnosis"] for w in words), r.metadata


def test_trends_planted(corpus: dc.DemoCorpus) -> None:
    assert len(corpus.trends) >= 4
    assert {t.name for t in corpus.trends} == set(dc.TREND_MARKERS)
    notes = {r.id: r for r in _notes(corpus)}
    all_ids = {r.id for r in corpus.records()}
    for t in corpus.trends:
        assert len(t.patients) >= 8, t.name
        assert t.question.endswith("?")
        hospitals = {notes[rid].metadata["org"] for rid in t.record_ids}
        assert len(hospitals) >= 2, t.name
        assert set(t.record_ids) <= all_ids
        assert {notes[rid].patient for rid in t.record_ids} == set(t.patients)
        for rid in t.record_ids:
            for marker in dc.TREND_MARKERS[t.name]:
                assert marker in notes[rid].text, (t.name, rid, marker)


def test_trend_signature_is_exclusive(corpus: dc.DemoCorpus) -> None:
    for t in corpus.trends:
        signature = dc.TREND_MARKERS[t.name][0]
        carriers = {r.id for r in _notes(corpus) if signature in r.text}
        assert carriers == set(t.record_ids), t.name


def test_trend_text_in_relevant_sections(corpus: dc.DemoCorpus) -> None:
    notes = {r.id: r for r in _notes(corpus)}
    for t in corpus.trends:
        for rid in t.record_ids:
            sections = dict(block.split(": ", 1) for block in notes[rid].text.split("\n\n"))
            history = sections["SOCIAL HISTORY"] + sections["PAST MEDICAL HISTORY"]
            assert any(m in history for m in dc.TREND_MARKERS[t.name]), (t.name, rid)


def test_questions(corpus: dc.DemoCorpus) -> None:
    questions = corpus.questions()
    assert len(questions) >= 25
    assert len(set(questions)) == len(questions)
    assert all(q.endswith("?") or q.endswith(".") for q in questions)
    named = [q for q in questions if any(p in q for p in corpus.patients)]
    assert len(named) >= 3
    assert {t.question for t in corpus.trends} <= set(questions)
    assert dc.generate().questions() == questions


def test_rejects_too_few_patients() -> None:
    with pytest.raises(ValueError):
        dc.generate(n_patients=10)


@pytest.mark.parametrize("seed", [0, 5, 123])
def test_invariants_hold_for_other_seeds(seed: int) -> None:
    c = dc.generate(seed=seed, n_patients=150)
    assert len(c.patients) == 150
    assert all(c.leaves[leaf] for leaf in dc.LEAVES)
    notes = {r.id: r for r in _notes(c)}
    for t in c.trends:
        assert len(t.patients) >= 8
        assert len({notes[rid].metadata["org"] for rid in t.record_ids}) >= 2
    assert max(len(r.text) for r in notes.values()) < dc.MAX_NOTE_CHARS


async def test_planted_trend_is_retrieved(demo_federation, nc, demo_dir):
    trends = json.loads((demo_dir / "corpus" / "trends.json").read_text())
    trend = trends["alcohol_liver"]
    answer = await ask(nc, AskRequest(question=trend["question"], k=10))
    found = {hit.metadata["record_id"] for hit in answer.hits}
    assert len(found & set(trend["record_ids"])) >= 5, "most of the top 10 come from the planted notes"
