"""The tests mirror the source: a wrong import or a folder out of place among the tests fails here.

- No test module, ``conftest.py`` or helper imports a test module or a ``conftest.py``: what several
  modules share lives in :mod:`tests.helpers` (fixtures stay in the ``conftest.py`` files, which pytest
  finds by itself), so ``from tests.`` names nothing but ``tests.helpers``.
- Every folder under ``tests/`` is the mirror of a source folder (``tests/nodes/cli/`` of ``nodes/cli/``),
  except ``tests/`` itself, ``tests/helpers/`` and the snapshot folders; and each is a package, since test
  modules of the same name live in several of them (``tests/nodes/test_identity.py`` and
  ``tests/nodes/cli/test_identity.py``) and pytest imports them by their dotted names.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from tests.helpers.source import imported

ROOT = Path(__file__).resolve().parent.parent
#: Folders under ``tests/`` that mirror nothing (at any depth).
NOT_MIRRORED = {"helpers", "__snapshots__", "__pycache__"}


def source_packages(root: Path) -> set[str]:
    """The top-level source folders, as ``pyproject.toml`` lists them for packaging."""
    config = tomllib.loads((root / "pyproject.toml").read_text())
    return {pattern.rstrip("*") for pattern in config["tool"]["setuptools"]["packages"]["find"]["include"]}


def within(name: str, module: str) -> bool:
    return name == module or name.startswith(module + ".")


def import_violations(root: Path) -> list[str]:
    found = []
    for path in sorted((root / "tests").rglob("*.py")):
        for name in sorted(imported(root, path)):
            first = name.split(".")[0]
            if within(name, "tests") and not within(name, "tests.helpers") or first == "conftest" \
                    or first.startswith("test_"):
                found.append(f"{path.relative_to(root)} imports {name}: share it through tests/helpers instead")
    return found


def folder_violations(root: Path) -> list[str]:
    packages = source_packages(root)
    found = []
    for folder in sorted(path for path in (root / "tests").rglob("*") if path.is_dir()):
        mirror = folder.relative_to(root / "tests")
        if any(part in NOT_MIRRORED or part.startswith(".") for part in mirror.parts):
            continue
        if mirror.parts[0] not in packages or not (root / mirror).is_dir():
            found.append(f"tests/{mirror}/ mirrors no source folder {mirror}/")
        if not (folder / "__init__.py").is_file():
            found.append(f"tests/{mirror}/ has no __init__.py: its test modules would clash with others of the same name")
    return found


def test_no_test_module_imports_another_or_a_conftest():
    assert import_violations(ROOT) == []


def test_every_test_folder_mirrors_a_source_folder():
    assert folder_violations(ROOT) == []


def tiny_project(root: Path) -> None:
    """A project laid out as it should be: one source package, its tests, helpers and a snapshot folder."""
    (root / "pyproject.toml").write_text('[tool.setuptools]\npackages = { find = { include = ["bus*", "nodes*"] } }\n')
    for folder in ("bus", "nodes/cli", "tests/bus", "tests/nodes/cli", "tests/helpers", "tests/nodes/cli/__snapshots__/x"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    for package in ("tests", "tests/bus", "tests/nodes", "tests/nodes/cli", "tests/helpers"):
        (root / package / "__init__.py").write_text("")
    (root / "tests/helpers/llm.py").write_text("from tests.helpers import terminal\n")
    (root / "tests/nodes/cli/conftest.py").write_text("from tests.helpers.llm import clinic_spec\n")
    (root / "tests/nodes/cli/test_ask.py").write_text("from tests.helpers.llm import clinic_spec\nfrom nodes.cli import main\n")


@pytest.mark.parametrize("where, text, caught", [
    ("tests/bus/test_codec.py", "from tests.nodes.cli.test_ask import run\n", "imports tests.nodes.cli.test_ask.run"),
    ("tests/bus/test_codec.py", "import tests.nodes.cli.test_ask\n", "imports tests.nodes.cli.test_ask"),
    ("tests/bus/test_codec.py", "from tests.nodes.cli.conftest import served\n", "imports tests.nodes.cli.conftest.served"),
    ("tests/nodes/cli/test_serve.py", "from .conftest import served\n", "imports tests.nodes.cli.conftest.served"),
    ("tests/nodes/cli/test_serve.py", "from . import test_ask\n", "imports tests.nodes.cli.test_ask"),
    ("tests/bus/test_codec.py", "from conftest import served\n", "imports conftest.served"),
    ("tests/bus/test_codec.py", "from test_ask import run\n", "imports test_ask.run"),
    ("tests/helpers/llm.py", "from tests.bus.test_codec import make_query\n", "imports tests.bus.test_codec.make_query"),
    ("tests/chaos/__init__.py", "", "tests/chaos/ mirrors no source folder chaos/"),
    ("tests/nodes/demo/__init__.py", "", "tests/nodes/demo/ mirrors no source folder nodes/demo/"),
    ("tests/bus/widgets/test_x.py", "", "tests/bus/widgets/ has no __init__.py"),
])
def test_the_checks_catch_each_kind_of_misplaced_test(tmp_path, where, text, caught):
    tiny_project(tmp_path)
    assert import_violations(tmp_path) == [] and folder_violations(tmp_path) == [], "the tiny project is laid out well"
    (tmp_path / where).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / where).write_text(text)
    assert any(caught in line for line in import_violations(tmp_path) + folder_violations(tmp_path))
