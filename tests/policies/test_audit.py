"""The audit log: whole JSON lines, appended, without the question unless the organization wants it."""

from __future__ import annotations

import json
import threading

from policies.audit import AuditLog


def test_lines_are_whole_json_and_never_interleave(tmp_path):
    log = AuditLog(tmp_path / "a.jsonl")

    def write(n):
        for i in range(200):
            log.record(trace=f"t{n}-{i}", sub="U1", iss="fedrag:a", node="a.med", decision="allow", policy="p",
                       reason="x" * 500, question="secret question")

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    log.close()
    lines = (tmp_path / "a.jsonl").read_text().splitlines()
    assert len(lines) == 800 and all(json.loads(line)["sub"] == "U1" for line in lines)
    assert "secret question" not in (tmp_path / "a.jsonl").read_text()
    assert oct((tmp_path / "a.jsonl").stat().st_mode & 0o777) == "0o600"


def test_the_question_is_kept_only_when_asked(tmp_path):
    log = AuditLog(tmp_path / "b.jsonl", include_question=True)
    log.record(trace="t", sub="U1", iss="i", node="n", decision="deny", policy=None, reason="r", question="why?")
    log.close()
    assert json.loads((tmp_path / "b.jsonl").read_text())["question"] == "why?"
