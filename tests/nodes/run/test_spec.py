"""The federation spec (:mod:`nodes.run.spec`): nested units become routers and leaves, and a bad or missing
spec names the problem."""

from __future__ import annotations

import pytest

from bus.errors import SpecError
from nodes.run.spec import FederationSpec


def write(tmp_path, text):
    path = tmp_path / "fed.toml"
    path.write_text(text)
    return path


def test_nested_units_become_routers_and_leaves(tmp_path):
    spec = FederationSpec.load(write(tmp_path, """
[federation]
name = "t"
deadline_ms = 500
[orgs.a.units.b]
data = "b.jsonl"
[orgs.a.units.c.units.d]
data = "sub/d.jsonl"
[orgs.e]
data = "e.jsonl"
"""))
    assert spec.routers() == {"a": ["a.b", "a.c"], "a.c": ["a.c.d"]}
    assert {path: node.data for path, node in spec.leaves().items()} == {
        "a.b": tmp_path / "b.jsonl", "a.c.d": tmp_path / "sub/d.jsonl", "e": tmp_path / "e.jsonl"}
    assert spec.federation.state_dir == tmp_path / ".fedrag-state" / "t"
    assert spec.leaf_folder("a.c.d") == tmp_path / ".fedrag-state/t/leaves/a.c.d"


@pytest.mark.parametrize("text, message", [
    ("[orgs.a]\n", "either 'data'"),
    ('[orgs.a]\ndata = "x"\n[orgs.a.units.b]\ndata = "y"\n', "either 'data'"),
    ('[orgs.a]\ndata = "x"\nformat = "excel"\n', "unknown data format 'excel'"),
    ('[orgs.a]\ndata = "x"\nformat = "csv"\noptions = {colour = "red"}\n', "takes no option 'colour'"),
    ('[orgs.a]\ndata = "x"\nshard = [2, 2]\n', "0 <= i < N"),
    ('[orgs."Bad Name"]\ndata = "x"\n', "invalid node path"),
    ('[federation]\ndeadline_ms = -1\n[orgs.a]\ndata = "x"\n', "deadline_ms"),
    ('[orgs.a]\ndata = "x"\ntypo = 1\n', "typo"),
    ("[federation]\n", "orgs"),
    ("not = [toml", "not valid TOML"),
    ('[identity.trust]\n"https://idp.example" = "https://idp.example/certs"\n[orgs.a]\ndata = "x"\n',
     "the organizations it speaks for"),
    ('[identity.trust."https://idp.example"]\nkeys = "certs.json"\n[orgs.a]\ndata = "x"\n', "'orgs'"),
    ('[identity.trust."https://idp.example"]\nkeys = "c.json"\norgs = ["b"]\n[orgs.a]\ndata = "x"\n',
     "b is not an organization"),
    ('[identity.trust."fedrag:a"]\norgs = ["a", "b"]\n[orgs.a]\ndata = "x"\n', "give only 'vouches'"),
    ('[identity.trust."fedrag:z"]\nvouches = {role = ["x"]}\n[orgs.a]\ndata = "x"\n', "'z' is not an organization"),
    ('[identity]\n[users.U1]\norg = "a"\nrole = "physician"\naffiliations = ["C_neuro"]\n[orgs.a]\ndata = "x"\n',
     "user U1 has affiliations=C_neuro, which fedrag:a may not vouch for"),
])
def test_bad_specs_name_the_problem(tmp_path, text, message):
    with pytest.raises(SpecError, match=message):
        FederationSpec.load(write(tmp_path, text))


def test_missing_spec_file(tmp_path):
    with pytest.raises(SpecError, match="cannot read"):
        FederationSpec.load(tmp_path / "absent.toml")
