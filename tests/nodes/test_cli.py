"""The ``fedrag`` command as a person runs it: real processes, a real broker, one OS process per hospital."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

FEDRAG = [sys.executable, "-m", "nodes.cli"]


def run(*args, timeout=300):
    return subprocess.run([*FEDRAG, *args], capture_output=True, text=True, timeout=timeout)


def test_demo_answers_from_all_three_hospitals_reusing_saved_indexes(demo_dir):
    done = run("demo", "--state-dir", str(demo_dir))
    assert done.returncode == 0, done.stderr
    for org in ("hospital_a", "hospital_b", "hospital_c"):
        line = next(row for row in done.stdout.splitlines() if row.strip().startswith(f"· {org}"))
        assert "successful" in line and " 0 hits" not in line, line
    assert "[1]" in done.stdout and "coverage 10/10" in done.stdout
    assert done.stderr.count("reused saved index") == 10 and "(built)" not in done.stderr


@pytest.fixture
def served_demo(demo_dir):
    proc = subprocess.Popen([*FEDRAG, "demo", "--serve", "--state-dir", str(demo_dir)], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    url = None
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line and proc.poll() is not None:
            break
        if line.startswith("NATS_URL="):
            url = line.strip().split("=", 1)[1]
            break
    assert url, "fedrag demo --serve printed no NATS_URL"
    yield url
    os.killpg(proc.pid, signal.SIGINT)
    assert proc.wait(30) == 0


def test_serve_ask_status_and_compare(served_demo, demo_dir):
    asked = run("ask", "Which patients have poorly controlled diabetes with foot ulcers?", "--nats", served_demo,
                "--json", "--k", "7", "--deadline-ms", "4000")
    assert asked.returncode == 0, asked.stderr
    result = json.loads(asked.stdout)
    assert result["answer"] is None and len(result["hits"]) == 7
    assert set(result["hits"][0]) >= {"id", "org", "path", "score", "text", "metadata"}
    assert set(result) >= {"question", "took_ms", "timed_out", "partial", "coverage", "nodes"}
    assert result["coverage"]["successful"] == 10 and not result["partial"]

    status = run("status", "--nats", served_demo)
    assert status.returncode == 0
    for path in ("hospital_a [router]", "hospital_b.cardiology [leaf]", "(gateway) [gateway] fed.ask"):
        assert path in status.stdout, status.stdout

    compared = run("compare", str(demo_dir / "demo.toml"), "--nats", served_demo)
    assert compared.returncode == 0, compared.stdout + compared.stderr
    assert "mean intersection@10 over 32 questions: 1.000" in compared.stdout


def test_errors_are_one_clear_line(tmp_path):
    unreachable = run("ask", "anything", "--nats", "nats://127.0.0.1:1")
    assert unreachable.returncode == 2 and "cannot reach NATS" in unreachable.stderr
    assert "Traceback" not in unreachable.stderr
    missing = run("up", str(tmp_path / "absent.toml"))
    assert missing.returncode == 2 and "cannot read federation spec" in missing.stderr


def test_up_runs_a_spec_with_its_own_broker(demo_dir):
    proc = subprocess.Popen([*FEDRAG, "up", str(demo_dir / "demo.toml")], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    try:
        line = ""
        deadline = time.monotonic() + 240
        while not line.startswith("NATS_URL=") and time.monotonic() < deadline and proc.poll() is None:
            line = proc.stdout.readline()
        assert line.startswith("NATS_URL="), "fedrag up printed no NATS_URL"
        url = line.strip().split("=", 1)[1]
        asked = run("ask", "Which patients had an embolic stroke?", "--nats", url, "--json")
        assert asked.returncode == 0, asked.stderr
        assert json.loads(asked.stdout)["coverage"]["successful"] == 10
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        assert proc.wait(30) == 0
