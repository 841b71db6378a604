"""Imports point one way (``../shared/DESIGN.md``, "Layout"): a new import against the direction fails here.

Between the top-level folders: ``bus`` imports none of the others; ``policies`` and ``summarizer`` do not
import ``nodes`` or ``tui``, and ``policies`` starts no processes (not ``bus.server`` nor ``bus.sites``);
``tui`` does not import ``nodes`` (the command line alone imports ``tui``, to run it). Inside ``nodes``,
from the top down: the command line (``nodes/cli``, which nothing else imports), what it runs beside the
federation (``chaos``, ``demo``, ``eval``), ``run``, the node kinds, and ``data``, which imports no other part of
``nodes``; a module imports only its own layer and those below it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.helpers.source import imported, module_name

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("bus", "nodes", "policies", "summarizer", "tui")
#: Which top-level folders each may import.
MAY_IMPORT = {
    "bus": {"bus"},
    "policies": {"bus", "policies"},
    "summarizer": {"bus", "policies", "summarizer"},
    "tui": {"bus", "policies", "summarizer", "tui"},
    "nodes": {"bus", "policies", "summarizer", "nodes"},
}
#: Modules a folder may not import although it may import their folder.
FORBIDDEN = {"policies": ("bus.server", "bus.sites")}
#: The layers inside ``nodes``, top first.
NODE_LAYERS = (("nodes.cli",), ("nodes.chaos", "nodes.demo", "nodes.eval"), ("nodes.run",), ("nodes",), ("nodes.data",))


def imports(path: Path) -> set[str]:
    """Every module of the project ``path`` imports (and every name it imports from one, as ``module.name``)."""
    return {name for name in imported(ROOT, path) if name.split(".")[0] in PACKAGES}


def node_layer(module: str) -> int:
    """The layer of a module of ``nodes`` (0 is the top)."""
    for depth, prefixes in enumerate(NODE_LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes) and prefixes != ("nodes",):
            return depth
    return NODE_LAYERS.index(("nodes",))


def violations() -> list[str]:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            source = module_name(ROOT, path)
            for target in sorted(imports(path)):
                top = target.split(".")[0]
                if top not in MAY_IMPORT[package] and not (top == "tui" and source.startswith("nodes.cli")):
                    found.append(f"{source} imports {target}: {package}/ may not import {top}/")
                elif any(target == f or target.startswith(f + ".") for f in FORBIDDEN.get(package, ())):
                    found.append(f"{source} imports {target}: {package}/ holds rules, never processes")
                elif package == "nodes" and top == "nodes":
                    if node_layer(target) < node_layer(source):
                        found.append(f"{source} imports {target}: against the layers of nodes/ (top down: "
                                     "cli; chaos, demo, eval; run; the node kinds; data)")
    return found


def test_no_import_points_against_the_direction():
    assert violations() == []


@pytest.mark.parametrize("source, target, rule", [
    ("nodes/data/store.py", "nodes.run.spec", "against the layers"),
    ("bus/client.py", "policies.access", "bus/ may not import policies/"),
    ("policies/broker.py", "bus.sites", "never processes"),
    ("nodes/run/federation.py", "nodes.cli", "against the layers"),
])
def test_the_check_catches_each_kind_of_wrong_import(tmp_path, monkeypatch, source, target, rule):
    original = imports

    def with_one_more(path: Path) -> set[str]:
        found = original(path)
        return found | {target} if path == ROOT / source else found

    monkeypatch.setattr(sys.modules[__name__], "imports", with_one_more)
    assert any(rule in line and target in line for line in violations())
