"""Asking a running federation from the command line (:mod:`nodes.cli.ask`: ``fedrag ask``, ``status`` and
``compare``) as a person does: real processes and a real broker — a cited answer as JSON, the live tree
and what is missing from it, federated against centralized top-k, output to a closed pipe, and each
command's errors as one clear line.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import time

import pytest

from bus.messages import Hit
from summarizer.answer import check
from tests.helpers.cli import FEDRAG, bad_spec_files, one_clear_line, run


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


async def test_status_names_what_is_missing(demo_federation, nats_server, demo_spec):
    await demo_federation.stop_org("hospital_b")
    done = await asyncio.to_thread(run, "status", "--nats", nats_server.url)
    assert done.returncode == 1
    assert "MISSING fed.q.hospital_b (expected by fed.ask)" in done.stdout
    with_spec = await asyncio.to_thread(run, "status", "--nats", nats_server.url, "--spec", str(demo_spec.source), "--json")
    assert with_spec.returncode == 1
    assert set(json.loads(with_spec.stdout)["missing"]) == {"fed.q.hospital_b", "fed.q.hospital_b.admissions",
                                                            "fed.q.hospital_b.medicine", "fed.q.hospital_b.cardiology"}


async def test_output_to_a_closed_pipe_ends_quietly(demo_federation, nats_server):
    def ask_into_closed_pipe():
        proc = subprocess.Popen([*FEDRAG, "ask", "Which patients had a stroke?", "--nats", nats_server.url, "--k", "50"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        proc.stdout.readline()
        proc.stdout.close()  # like `| head -1`
        return proc.wait(120), proc.stderr.read().decode()

    code, err = await asyncio.to_thread(ask_into_closed_pipe)
    assert err.strip() == "", err
    assert code == 141


def test_ask_names_an_unreachable_broker_in_one_clear_line():
    unreachable = run("ask", "anything", "--nats", "nats://127.0.0.1:1")
    assert unreachable.returncode == 2 and "cannot reach NATS" in unreachable.stderr
    assert "Traceback" not in unreachable.stderr


@pytest.mark.parametrize("command", ["compare"])
def test_every_command_reading_a_spec_names_the_file_and_the_problem(command, tmp_path):
    extra = {"compare": ["--nats", "nats://127.0.0.1:1"]}[command]
    for case, (path, reason) in bad_spec_files(tmp_path).items():
        one_clear_line(run(command, str(path), *extra, timeout=60), path, reason)


def test_compare_names_a_bad_question_file(tmp_path, demo_dir):
    spec = demo_dir / "demo.toml"
    (tmp_path / "q.json").write_text('["a question", 3]')
    (tmp_path / "bad.json").write_text("[not json")
    (tmp_path / "empty.txt").write_text("# nothing here\n\n")
    for path, reason in [(tmp_path / "absent.txt", "no such question file"),
                         (tmp_path / "q.json", "expected a JSON list of non-empty question strings"),
                         (tmp_path / "bad.json", "not valid JSON"), (tmp_path / "empty.txt", "holds no questions"),
                         (tmp_path, "cannot read questions")]:
        one_clear_line(run("compare", str(spec), "--questions", str(path), "--nats", "nats://127.0.0.1:1", timeout=60),
                        path, reason)
