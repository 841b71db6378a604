"""Running the ``fedrag`` command as a person does (a real process), and checking its errors: one clear line
on stderr naming the file and the problem, exit code 2, never a traceback."""

from __future__ import annotations

import subprocess
import sys

#: ``fedrag``, as this checkout's Python runs it.
FEDRAG = [sys.executable, "-m", "nodes.cli"]


def run(*args, timeout=300) -> subprocess.CompletedProcess:
    """``fedrag ARGS`` run to its end, with its output as text."""
    return subprocess.run([*FEDRAG, *args], capture_output=True, text=True, timeout=timeout)


def bad_spec_files(tmp_path) -> dict:
    """Spec files a command cannot use, each with the words its error must say: (path, reason) by case."""
    (tmp_path / "folder.toml").mkdir()
    (tmp_path / "broken.toml").write_text("[federation\nname = 1\n")
    (tmp_path / "latin1.toml").write_bytes("name = 'caf\xe9'\n".encode("latin-1"))
    (tmp_path / "wrong.toml").write_text('[orgs.hospital_a]\ndata = "x.jsonl"\nunits = 3\n')
    return {"missing": (tmp_path / "absent.toml", "cannot read federation spec"),
            "a folder": (tmp_path / "folder.toml", "cannot read federation spec"),
            "not TOML": (tmp_path / "broken.toml", "is not valid TOML"),
            "not UTF-8": (tmp_path / "latin1.toml", "not UTF-8"),
            "wrong shape": (tmp_path / "wrong.toml", "invalid federation spec")}


def one_clear_line(done: subprocess.CompletedProcess, path, reason: str) -> None:
    """``done`` failed with exit code 2 and one line on stderr naming ``path`` and ``reason``."""
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and reason in lines[0], done.stderr
