"""A broker of several sites from the command line (:mod:`nodes.cli.broker`): ``fedrag broker`` refuses sites
that do not fit the spec, and renders each site's configuration with only its own organizations' users."""

from __future__ import annotations

import pytest

from nodes.cli import main


@pytest.mark.parametrize("sites, message", [
    (["east=hospital_a,hospital_x", "west=hospital_b,hospital_c"], "hospital_x is not an organization"),
    (["east=", "west=hospital_a,hospital_b,hospital_c"], "site east has no organizations"),
    (["east=hospital_a", "west=hospital_b"], "hospital_c is on no site"),
    (["east=hospital_a", "west=hospital_b,hospital_c,hospital_a"], "hospital_a is already on another site"),
])
def test_fedrag_broker_refuses_sites_that_do_not_fit_the_spec(tmp_path, demo_spec, capsys, sites, message):
    args = ["broker", str(demo_spec.source), "--out", str(tmp_path), "--render-only"]
    assert main([*args, *(arg for site in sites for arg in ("--site", site))]) == 2
    assert message in capsys.readouterr().err


def test_fedrag_broker_renders_each_site_with_its_own_users(tmp_path, demo_spec, capsys):
    assert main(["broker", str(demo_spec.source), "--site", "east=hospital_a", "--site", "west=hospital_b,hospital_c",
                 "--servers", "3,1", "--topology", "leaf", "--out", str(tmp_path), "--render-only"]) == 0
    out = capsys.readouterr().out
    assert out.count("nats-server -c ") == 4 and "SITE_east=nats://127.0.0.1:" in out and out.count(",nats://") == 2
    east, west = (tmp_path / "east-1.conf").read_text(), (tmp_path / "west-1.conf").read_text()
    assert '"org_hospital_a"' in east and '"org_hospital_b"' not in east and '"leafnode"' in east
    assert '"org_hospital_b"' in west and '"org_hospital_c"' in west and '"org_hospital_a"' not in west
    assert '"leafnode"' not in west.split("authorization")[-1]  # only the hub knows the leaf links' user
