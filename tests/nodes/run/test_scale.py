"""The scale benchmark (``scripts/scale_bench.py``), at a size CI can run: the same passages dealt over more
organizations answer exactly as one index does, and the run prints its figures and draws its plot."""

from __future__ import annotations

import json

import pytest

from nodes.data.store import LeafStore
from nodes.run.baseline import resplit
from nodes.run.spec import FederationSpec
from scripts import scale_bench


def test_the_same_passages_dealt_over_organizations_are_all_there_once(demo_dir, tmp_path):
    demo = FederationSpec.load(demo_dir / "open.toml")
    spec = resplit(demo, tmp_path / "three", "three", {"a": 2, "b": 2, "c": 0}, 5000)
    assert sorted(spec.leaves()) == ["a.u0", "a.u1", "b.u0", "b.u1", "c"]

    def texts(of: FederationSpec) -> list[str]:
        found = []
        for path in of.leaves():
            store = LeafStore.existing(of.leaf_folder(path))
            found += [passage.text for passage in store.all_vectors()[0]]
            store.close()
        return sorted(found)

    assert texts(spec) == texts(demo), "every passage of the demo, once, with nothing embedded again"


def test_the_scale_benchmark_runs_small_and_matches_the_centralized_index(demo_dir, tmp_path, capsys):
    out = tmp_path / "scale.png"
    code = scale_bench.main(["--state-dir", str(demo_dir), "--orgs", "1,3", "--leaves", "2", "--questions", "4",
                             "--repeat", "1", "--clients", "2", "--seconds", "1", "--out", str(out), "--json"])
    figures = json.loads(capsys.readouterr().out)
    assert code == 0
    assert [(row["orgs"], row["leaves"]) for row in figures["federated"]] == [(1, 2), (3, 6)]
    assert all(row["differ_from_central"] == 0 and row["partial"] == 0 == row["lost"] for row in figures["federated"])
    assert all(row["per_s"] > 0 and 0 < row["p50_ms"] <= row["p99_ms"] for row in figures["federated"])
    assert figures["centralized"]["leaves"] == 1 and 0 < figures["bare"]["p50_ms"] <= figures["bare"]["p99_ms"]
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and figures["plot"] == f"plot: {out}"


@pytest.mark.parametrize("args", [["--orgs", "0,4"], ["--orgs", "four"], ["--leaves", "0"]])
def test_bad_sizes_are_a_clear_error(args, capsys):
    with pytest.raises(SystemExit) as stopped:
        scale_bench.main(args)
    assert stopped.value.code == 2 and "--orgs takes positive counts" in capsys.readouterr().err
