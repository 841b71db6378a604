"""What fedrag asks of the operating system, written once: owner-only files, child processes that die
with their launcher, free ports, and stopping a process politely and then not.

Used by the broker launchers (:mod:`bus.server`, :mod:`bus.sites`), the local LLM server
(:mod:`summarizer.local`), the federation's supervisor (:mod:`nodes.run.federation`) and whatever
writes keys, passwords and tokens (:mod:`policies`).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

# Resolved here, in the parent, so that a child only calls it between fork and exec.
_prctl = ctypes.CDLL(None, use_errno=True).prctl if sys.platform.startswith("linux") else None
_PR_SET_PDEATHSIG = 1


def write_atomically(path: Path, text: str, *, mode: int = 0o600, exclusive: bool = False) -> Path:
    """Writes ``text`` (UTF-8) to ``path`` with ``mode`` (by default readable by its owner only), atomically: a reader
    sees the old file or the new one, never half of one, and processes writing the same file at once each write a
    temporary file of their own (the last one in wins). With ``exclusive``, only if ``path`` does not exist yet: of
    processes creating it at once one wins, and the others get :class:`FileExistsError` (their text is dropped).
    Creates the folder if needed."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        if exclusive:
            os.link(tmp, path)  # fails if it exists: creating it is one atomic step
        else:
            os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)
    return path


def stop_with_parent() -> None:
    """A child's ``preexec_fn``: the kernel sends it SIGTERM when its launcher dies (Linux; elsewhere nothing).

    The kernel tracks the launching *thread*: a child started from a worker thread is signalled when that
    thread ends, so launch from the event loop's (or the main) thread.
    """
    if _prctl is not None:
        _prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def starting_at(nice: int = 0):
    """A ``preexec_fn`` for a child that dies with its launcher — and at once if the launcher is already
    gone by the time it asks — and starts at CPU priority ``nice``."""
    parent = os.getpid()

    def preexec() -> None:
        stop_with_parent()
        if _prctl is not None and os.getppid() != parent:  # the launcher died before the request above
            os._exit(1)
        if nice:
            os.nice(nice)
    return preexec


def free_ports(count: int = 1, host: str = "127.0.0.1") -> list[int]:
    """``count`` distinct ports that are free on ``host`` now (the kernel's choice for port 0)."""
    sockets = []
    try:
        for _ in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind((host, 0))
            sockets.append(sock)
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def terminate(process: subprocess.Popen, timeout: float = 10.0) -> None:
    """SIGTERM, then SIGKILL after ``timeout`` seconds; returns once the process is gone."""
    if process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


async def terminate_async(process: asyncio.subprocess.Process, timeout: float = 15.0) -> None:
    """:func:`terminate` for a process started with asyncio."""
    if process.returncode is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        process.send_signal(signal.SIGTERM)
    try:
        await asyncio.wait_for(process.wait(), timeout)
    except asyncio.TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await process.wait()
