import pytest

from nodes.names import _spacy_model, detect_names


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
