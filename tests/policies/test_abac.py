"""Attribute-based policies: any of the values, all of the attributes, any of the policies."""

from __future__ import annotations

from policies.abac import DocumentRule, NodePolicy, Policy

PHYS_A = {"org": ["hospital_a"], "role": ["physician"], "dept": ["surgery"], "affiliations": ["C_neuro"]}
NURSE_B = {"org": ["hospital_b"], "role": ["nurse"], "dept": ["medicine"], "affiliations": []}


def test_any_value_all_attributes_any_policy():
    gate = NodePolicy(gate=[Policy(name="a-clinicians", require={"org": ["hospital_a"], "role": ["physician", "nurse"]}),
                            Policy(name="neuro", require={"affiliations": ["C_neuro", "X"]})])
    assert gate.admit(PHYS_A).allowed and gate.admit(PHYS_A).policy == "a-clinicians"
    denied = gate.admit(NURSE_B)
    assert not denied.allowed and "org=hospital_b is not one of hospital_a" in denied.reason
    assert "affiliations=(none)" in denied.reason
    assert NodePolicy(gate=[Policy(name="neuro", require={"affiliations": ["C_neuro"]})]).admit(PHYS_A).policy == "neuro"


def test_open_and_deny_by_default():
    assert NodePolicy().admit(NURSE_B).allowed
    closed = NodePolicy(default="deny").admit(PHYS_A)
    assert not closed.allowed and "denies by default" in closed.reason


def test_document_rules_hide_only_what_they_select():
    leaf = NodePolicy(documents=[DocumentRule(name="psych", passage={"note_type": ["psychiatry"]},
                                              require={"role": ["physician"]})])
    assert leaf.visible(NURSE_B, {"note_type": "discharge"}).allowed, "no rule applies"
    assert not leaf.visible(NURSE_B, {"note_type": "psychiatry"}).allowed
    assert leaf.visible(PHYS_A, {"note_type": "psychiatry"}).policy == "psych"
