"""The organization-local audit log: one JSON line per access decision, appended, never rewritten.

Each line holds the time, the question's trace id, the caller (``sub`` and ``iss``), the node, the
decision (``allow`` or ``deny``), the policy that decided or the reason none did, and — per query at a
leaf — how many passages per-document rules hid. The question's text is never written unless the
organization turns ``include_question`` on. Lines are written with a single ``write`` on a file
opened for appending, so lines from several nodes and threads never interleave.
"""

from __future__ import annotations

import json
import os
import threading
from datetime import datetime, timezone
from pathlib import Path


class AuditLog:
    """Appends decisions to ``path`` (created with its folder, mode 0600)."""

    def __init__(self, path: Path, *, include_question: bool = False) -> None:
        self.path = Path(path)
        self.include_question = include_question
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        self._lock = threading.Lock()

    def record(self, *, trace: str, sub: str, iss: str, node: str, decision: str, policy: str | None,
               reason: str, question: str | None = None, **extra) -> None:
        """Appends one decision."""
        line = {"time": datetime.now(timezone.utc).isoformat(timespec="milliseconds"), "trace": trace, "sub": sub,
                "iss": iss, "node": node, "decision": decision, "policy": policy, "reason": reason, **extra}
        if self.include_question and question is not None:
            line["question"] = question
        data = (json.dumps(line, ensure_ascii=False) + "\n").encode()
        with self._lock:
            os.write(self._fd, data)

    def close(self) -> None:
        with self._lock:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1
