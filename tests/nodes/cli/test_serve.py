"""Running a federation from the command line (:mod:`nodes.cli.serve`: ``fedrag demo``, ``up``, ``org`` and
``gateway``) as a person does: real processes, a real broker, one OS process per hospital — the demo
reusing its saved indexes, ``up`` restarting an organization that died and leaving nothing behind, and
each command's errors as one clear line.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import pytest

from tests.helpers.cli import FEDRAG, bad_spec_files, one_clear_line, run


def test_demo_answers_from_all_three_hospitals_reusing_saved_indexes(demo_dir):
    done = run("demo", "--state-dir", str(demo_dir))
    assert done.returncode == 0, done.stderr
    for org in ("hospital_a", "hospital_b", "hospital_c"):
        line = next(row for row in done.stdout.splitlines() if row.strip().startswith(f"· {org}"))
        assert "successful" in line and " 0 hits" not in line, line
    assert "[1]" in done.stdout and "coverage 10/10" in done.stdout
    assert done.stderr.count("reused saved index") == 10 and "(built)" not in done.stderr


def test_demo_with_two_gateway_processes_answers_through_them(demo_dir):
    done = run("demo", "--state-dir", str(demo_dir), "--gateways", "2")
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("gateway serving fed.ask") == 2, "two gateway processes share fed.ask"
    assert "[1]" in done.stdout and "coverage 10/10" in done.stdout


@pytest.mark.parametrize("options, reason", [(["--gateways", "0"], "needs at least one gateway"),
                                             (["--in-process", "--gateways", "2"], "cannot go with --in-process")])
def test_demo_refuses_gateways_it_cannot_run_in_one_clear_line(demo_dir, options, reason):
    done = run("demo", "--state-dir", str(demo_dir), *options, timeout=60)
    assert done.returncode == 2 and reason in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_demo_names_an_unusable_state_folder(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    done = run("demo", "--state-dir", str(blocker / "demo"), timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and str(blocker) in done.stderr, done.stderr


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


def test_up_names_a_missing_spec_in_one_clear_line(tmp_path):
    missing = run("up", str(tmp_path / "absent.toml"))
    assert missing.returncode == 2 and "cannot read federation spec" in missing.stderr


@pytest.mark.parametrize("command", ["up", "org", "gateway"])
def test_every_command_reading_a_spec_names_the_file_and_the_problem(command, tmp_path):
    extra = {"org": ["--org", "hospital_a", "--nats", "nats://127.0.0.1:1"], "gateway": ["--nats", "nats://127.0.0.1:1"],
             "up": []}[command]
    for case, (path, reason) in bad_spec_files(tmp_path).items():
        one_clear_line(run(command, str(path), *extra, timeout=60), path, reason)
