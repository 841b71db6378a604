"""Identities and access from the command line (:mod:`nodes.cli.identity`): ``fedrag explain`` prints the
demo's access matrix, and why one user may not search one node."""

from __future__ import annotations

from tests.helpers.cli import run


def test_fedrag_explain_prints_the_matrix_and_a_reason(demo_dir):
    matrix = run("explain", str(demo_dir / "demo.toml"))
    assert matrix.returncode == 0, matrix.stderr
    rows = {line.split()[0]: line for line in matrix.stdout.splitlines()[2:]}
    assert rows["C.research"].count("✓") == 3 and rows["A.phys.neur"].count("×") == 0
    why = run("explain", str(demo_dir / "demo.toml"), "--user", "A.tech.rad", "--node", "hospital_a.medicine")
    assert "U4 (A.tech.rad) is denied at hospital_a.medicine" in why.stdout
    assert "role=technician is not one of physician,nurse" in why.stdout
    assert "U4 may read 20 passages a question and ask 600 questions a minute (staff-reads-less)" in why.stdout
