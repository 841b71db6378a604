"""The ``fedrag`` command as a person runs it: real processes, a real broker, one OS process per hospital."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from bus.messages import Hit
from summarizer.answer import check

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
                "--json", "--k", "7", "--deadline-ms", "4000", "--as", "A.phys.neur", "--spec", str(demo_dir / "demo.toml"))
    assert asked.returncode == 0, asked.stderr
    result = json.loads(asked.stdout)
    assert len(result["hits"]) == 7 and "foot ulcer" in result["answer"], "a cited extractive answer by default"
    assert check(result["answer"], [Hit(**hit) for hit in result["hits"]]) == []
    assert result["answer_info"]["method"] == "extractive" and result["answer_info"]["status"] == "successful"
    assert {s["path"] for s in result["summaries"]} == {"hospital_a", "hospital_b", "hospital_c"}, "the demo's routers summarize"
    assert all(hit["vector"] is None for hit in result["hits"]), "vectors stop at the routers that asked for them"
    assert set(result["hits"][0]) >= {"id", "org", "path", "score", "text", "metadata"}
    assert set(result) >= {"question", "took_ms", "timed_out", "partial", "coverage", "nodes"}
    assert result["coverage"]["successful"] == 10 and not result["partial"]

    status = run("status", "--nats", served_demo)
    assert status.returncode == 0
    for path in ("hospital_a [router]", "hospital_b.cardiology [leaf]", "(gateway) [gateway] fed.ask"):
        assert path in status.stdout, status.stdout

    compared = run("compare", str(demo_dir / "demo.toml"), "--nats", served_demo)
    assert compared.returncode == 0, compared.stdout + compared.stderr
    assert "mean intersection@10 over 32 questions: 1.000; identical order and scores: 32/32" in compared.stdout

    questions = demo_dir / "mine.txt"
    questions.write_text("# one question a line\nWhich patients had a stroke?\nWhat medications is Donna Clark taking?\n")
    compared = run("compare", str(demo_dir / "demo.toml"), "--nats", served_demo, "--questions", str(questions))
    assert compared.returncode == 0 and "over 2 questions: 1.000" in compared.stdout, compared.stdout + compared.stderr


def test_errors_are_one_clear_line(tmp_path):
    unreachable = run("ask", "anything", "--nats", "nats://127.0.0.1:1")
    assert unreachable.returncode == 2 and "cannot reach NATS" in unreachable.stderr
    assert "Traceback" not in unreachable.stderr
    missing = run("up", str(tmp_path / "absent.toml"))
    assert missing.returncode == 2 and "cannot read federation spec" in missing.stderr


def descendants(pid: int) -> dict[int, str]:
    """Every live process below ``pid``, with its command line."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = open(f"/proc/{entry}/stat").read()
            except OSError:
                continue
            children.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(entry))
    found, todo = {}, [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            try:
                found[child] = open(f"/proc/{child}/cmdline").read().replace("\0", " ")
            except OSError:
                continue
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_up_restarts_a_dead_organization_and_leaves_nothing_behind(demo_dir):
    proc = subprocess.Popen([*FEDRAG, "up", str(demo_dir / "demo.toml")], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        line = ""
        deadline = time.monotonic() + 240
        while not line.startswith("NATS_URL=") and time.monotonic() < deadline and proc.poll() is None:
            line = proc.stdout.readline()
        assert line.startswith("NATS_URL="), "fedrag up printed no NATS_URL"
        url = line.strip().split("=", 1)[1]
        as_user = ["--as", "U1", "--spec", str(demo_dir / "demo.toml")]
        asked = run("ask", "Which patients had an embolic stroke?", "--nats", url, "--json", *as_user)
        assert asked.returncode == 0, asked.stderr
        assert json.loads(asked.stdout)["coverage"]["successful"] == 10

        family = descendants(proc.pid)
        victim = next(pid for pid, cmd in family.items() if "--org hospital_c" in cmd)
        assert any("nats-server" in cmd for cmd in family.values()) and len(family) >= 4
        os.kill(victim, signal.SIGKILL)
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            status = run("status", "--nats", url, "--spec", str(demo_dir / "demo.toml"))
            if status.returncode == 0:
                break
            assert "MISSING fed.q.hospital_c" in status.stdout
            time.sleep(1)
        assert status.returncode == 0, "hospital_c was restarted and serves again"
        asked = run("ask", "Which patients had an embolic stroke?", "--nats", url, "--json", *as_user)
        assert json.loads(asked.stdout)["coverage"]["successful"] == 10
        family = descendants(proc.pid)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        code = proc.wait(60)
    err = proc.stderr.read()
    assert code == 0, err
    assert "organization hospital_c exited with code -9; restarting it" in err
    assert "organization hospital_c restarted and serving" in err and "Traceback" not in err
    assert not [pid for pid in family if alive(pid)], "no process of the federation is left"


async def test_status_names_what_is_missing(demo_federation, nats_server, demo_spec):
    import asyncio

    await demo_federation.stop_org("hospital_b")
    done = await asyncio.to_thread(run, "status", "--nats", nats_server.url)
    assert done.returncode == 1
    assert "MISSING fed.q.hospital_b (expected by fed.ask)" in done.stdout
    with_spec = await asyncio.to_thread(run, "status", "--nats", nats_server.url, "--spec", str(demo_spec.source), "--json")
    assert with_spec.returncode == 1
    assert set(json.loads(with_spec.stdout)["missing"]) == {"fed.q.hospital_b", "fed.q.hospital_b.admissions",
                                                            "fed.q.hospital_b.medicine", "fed.q.hospital_b.cardiology"}


async def test_output_to_a_closed_pipe_ends_quietly(demo_federation, nats_server):
    import asyncio

    def ask_into_closed_pipe():
        proc = subprocess.Popen([*FEDRAG, "ask", "Which patients had a stroke?", "--nats", nats_server.url, "--k", "50"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        proc.stdout.readline()
        proc.stdout.close()  # like `| head -1`
        return proc.wait(120), proc.stderr.read().decode()

    code, err = await asyncio.to_thread(ask_into_closed_pipe)
    assert err.strip() == "", err
    assert code == 141


def _bad_files(tmp_path):
    (tmp_path / "folder.toml").mkdir()
    (tmp_path / "broken.toml").write_text("[federation\nname = 1\n")
    (tmp_path / "latin1.toml").write_bytes("name = 'caf\xe9'\n".encode("latin-1"))
    (tmp_path / "wrong.toml").write_text('[orgs.hospital_a]\ndata = "x.jsonl"\nunits = 3\n')
    return {"missing": (tmp_path / "absent.toml", "cannot read federation spec"),
            "a folder": (tmp_path / "folder.toml", "cannot read federation spec"),
            "not TOML": (tmp_path / "broken.toml", "is not valid TOML"),
            "not UTF-8": (tmp_path / "latin1.toml", "not UTF-8"),
            "wrong shape": (tmp_path / "wrong.toml", "invalid federation spec")}


def _one_clear_line(done, path, reason):
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and reason in lines[0], done.stderr


@pytest.mark.parametrize("command", ["up", "org", "gateway", "compare"])
def test_every_command_reading_a_spec_names_the_file_and_the_problem(command, tmp_path):
    extra = {"org": ["--org", "hospital_a", "--nats", "nats://127.0.0.1:1"], "gateway": ["--nats", "nats://127.0.0.1:1"],
             "compare": ["--nats", "nats://127.0.0.1:1"], "up": []}[command]
    for case, (path, reason) in _bad_files(tmp_path).items():
        _one_clear_line(run(command, str(path), *extra, timeout=60), path, reason)


def test_compare_names_a_bad_question_file(tmp_path, demo_dir):
    spec = demo_dir / "demo.toml"
    (tmp_path / "q.json").write_text('["a question", 3]')
    (tmp_path / "bad.json").write_text("[not json")
    (tmp_path / "empty.txt").write_text("# nothing here\n\n")
    for path, reason in [(tmp_path / "absent.txt", "no such question file"),
                         (tmp_path / "q.json", "expected a JSON list of non-empty question strings"),
                         (tmp_path / "bad.json", "not valid JSON"), (tmp_path / "empty.txt", "holds no questions"),
                         (tmp_path, "cannot read questions")]:
        _one_clear_line(run("compare", str(spec), "--questions", str(path), "--nats", "nats://127.0.0.1:1", timeout=60),
                        path, reason)


def test_demo_names_an_unusable_state_folder(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    done = run("demo", "--state-dir", str(blocker / "demo"), timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and str(blocker) in done.stderr, done.stderr
