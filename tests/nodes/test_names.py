import re
import subprocess
import sys

import pytest

from bus.messages import Filters
from nodes.names import _spacy_model, applied_filter, candidate_names, detect_names, name_filters


@pytest.mark.parametrize("question, names", [
    ("What medications is Mr. John Smith taking?", ["John Smith"]),
    ("Summarize patient Maria Lopez-Garcia's cardiology visits", ["Maria Lopez-Garcia"]),
    ("What did Donna Clark's echocardiogram show?", ["Donna Clark"]),
    ("Which patients have Heavy Alcohol Use with Liver Disease?", []),
    ("Which patients were treated for atrial fibrillation?", []),
])
def test_built_in_rule(question, names):
    assert detect_names(question, use_spacy=False) == names


@pytest.mark.skipif(_spacy_model() is None, reason="the optional 'names' extra (spaCy) is not installed")
def test_spacy_finds_uncued_names():
    assert detect_names("What medications is Donna Clark taking?") == ["Donna Clark"]
    assert detect_names("Which patients had a stroke?") == []


@pytest.mark.parametrize("question, spans", [
    ("What was in Grace Okafor's plan?", ["Grace Okafor"]),
    ("Summarize the care Maria de la Cruz received", ["Maria de la Cruz"]),
    ("Which patients have COPD and CHF?", []),
    ("What did Dr. Ana Ruiz prescribe for Bo Chen?", ["Ana Ruiz", "Bo Chen"]),
])
def test_candidate_spans(question, spans):
    assert [s for s in candidate_names(question) if len(s.split()) >= 2 and s in spans] == spans
    assert all(len(s.split()) >= 2 for s in candidate_names(question))


def test_applied_filter_prefers_names_some_leaf_knows():
    filters = name_filters("What did Hospital North do for Grace Okafor's fever?", use_spacy=False)
    assert filters.patients == ["Grace Okafor"] and filters.candidates == ["Hospital North"]
    assert applied_filter(filters, ["Grace Okafor"]) == ["Grace Okafor"]
    wrong = Filters(patients=["Hospital North"], candidates=["Grace Okafor"])
    assert applied_filter(wrong, ["Grace Okafor"]) == ["Grace Okafor"], "a confident name no leaf knows loses to a known one"
    confident = name_filters("What medications is patient Zed Unknown taking?", use_spacy=False)
    assert confident.patients == ["Zed Unknown"] and applied_filter(confident, []) == ["Zed Unknown"]


def test_the_evaluation_script_finds_every_named_patient_of_the_demo_questions():
    done = subprocess.run([sys.executable, "scripts/names_eval.py"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "precision 1.000, recall 1.000" in done.stdout
    assert re.search(r"\b(\d+) of \1 hard cases", done.stdout), done.stdout
