"""The demo's policies give exactly the FEDRAG thesis's access matrix."""

from __future__ import annotations

from nodes.demo.access import MATRIX, USERS
from policies.explain import access


def test_policies_give_the_thesis_matrix(demo_spec):
    policies = demo_spec.policies()
    assert set(policies) == set(next(iter(MATRIX.values())))
    for uid, name, org, role, dept, affiliations in USERS:
        attributes = {"sub": [uid], "org": [org], "role": [role], "dept": [dept], "affiliations": affiliations}
        got = {path: access(attributes, path, policies).allowed for path in policies}
        assert got == MATRIX[name], name
