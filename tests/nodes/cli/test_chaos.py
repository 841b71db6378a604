"""Faults, load and floods from the command line (:mod:`nodes.cli.chaos`): ``fedrag chaos`` and ``fedrag load``
name what is wrong with their arguments before starting anything."""

from __future__ import annotations

import pytest

from nodes.cli import main


@pytest.mark.parametrize("argv, reason", [
    (["load", "--clients", "4,x"], "--clients '4,x': expected positive numbers separated by commas"),
    (["load", "--clients", "0"], "--clients '0': expected positive numbers"),
    (["chaos", "leaf-killed", "--nats", "nats://127.0.0.1:1"], "--nats URL needs the running federation's spec"),
    (["chaos", "impostor", "--nats", "nats://127.0.0.1:1", "--spec", "{spec}"],
     "impostor needs a federation this command starts"),
    (["load", "--nats", "nats://127.0.0.1:1", "--spec", "{spec}", "--questions", "{spec}.absent"], "no such question file"),
])
def test_chaos_and_load_name_what_is_wrong_before_starting_anything(argv, reason, demo_dir, capsys):
    assert main([arg.format(spec=demo_dir / "demo.toml") for arg in argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and reason in err[0], err
