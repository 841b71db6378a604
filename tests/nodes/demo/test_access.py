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


def test_fedrag_explain_prints_the_matrix_and_a_reason(demo_dir):
    from tests.nodes.run.test_cli import run

    matrix = run("explain", str(demo_dir / "demo.toml"))
    assert matrix.returncode == 0, matrix.stderr
    rows = {line.split()[0]: line for line in matrix.stdout.splitlines()[2:]}
    assert rows["C.research"].count("✓") == 3 and rows["A.phys.neur"].count("×") == 0
    why = run("explain", str(demo_dir / "demo.toml"), "--user", "A.tech.rad", "--node", "hospital_a.medicine")
    assert "U4 (A.tech.rad) is denied at hospital_a.medicine" in why.stdout
    assert "role=technician is not one of physician,nurse" in why.stdout
    assert "U4 may read 20 passages a question and ask 600 questions a minute (staff-reads-less)" in why.stdout
