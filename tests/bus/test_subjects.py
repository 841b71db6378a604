"""Subjects from node paths (:mod:`bus.subjects`): the hierarchy as subjects, paths that cannot carry
wildcards or empty tokens, subtrees of whole tokens and the ancestors of a path."""

from __future__ import annotations

import pytest

from bus.errors import SpecError
from bus.subjects import ancestors, ingest_subject, org_of, path_of, query_subject, within


def test_subjects_follow_the_hierarchy():
    assert query_subject("hospital_a.medicine") == "fed.q.hospital_a.medicine"
    assert ingest_subject("hospital_a.medicine") == "fed.ingest.hospital_a.medicine"
    assert path_of("fed.q.hospital_a.medicine") == "hospital_a.medicine"
    assert org_of("hospital_a.medicine.icu") == "hospital_a"


@pytest.mark.parametrize("bad", ["", "a..b", "a.*", "a.>", "Upper", "a b", "x" * 65])
def test_paths_cannot_carry_wildcards_or_empty_tokens(bad):
    with pytest.raises(SpecError):
        query_subject(bad)


def test_path_of_rejects_other_subjects():
    with pytest.raises(SpecError):
        path_of("fed.ask")


def test_a_subtree_is_whole_tokens_and_ancestors_run_from_the_organization_down():
    assert within("hospital_a.medicine", "hospital_a") and within("hospital_a", "hospital_a")
    assert not within("hospital_ab.medicine", "hospital_a"), "a prefix that is not a whole token is another node"
    assert not within("hospital_a", "hospital_a.medicine")
    assert ancestors("a.b.c") == ["a", "a.b", "a.b.c"] and ancestors("a") == ["a"]
