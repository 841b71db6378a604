"""The local LLM server (:mod:`summarizer.local`, ``fedrag llm serve``): llama.cpp on the model a package ships.

What could go wrong and is checked here: a missing model package that is not named, ``fedrag llm serve``
that does not print its URL or does not stop, a server started without log-probabilities that is not
stopped with its block, and a server that exits early without saying why.
"""

from __future__ import annotations

import os
import select
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from bus._system import free_ports
from bus.errors import LLMError
from summarizer import local
from summarizer.llm import LLM, LLMSettings
from summarizer.local import LocalServer, model_path

ROOT = Path(__file__).resolve().parents[2]
SHORT = [{"role": "user", "content": "Name three common symptoms of pneumonia, one per line."}]


def _settings(base_url: str, **kw) -> LLMSettings:
    return LLMSettings(base_url=base_url, **kw)


def test_a_missing_model_package_names_the_extra(monkeypatch):
    monkeypatch.setattr(local, "MODEL_PACKAGE", "fedrag_no_such_model_package")
    with pytest.raises(LLMError, match=r"\.\[llm\]"):
        model_path()
    server = LocalServer()
    with pytest.raises(LLMError, match="not installed"):
        server.start()
    assert server.process is None


def test_serve_prints_its_url_and_stops_on_sigterm(llm_server):
    port = free_ports()[0]
    code = f"from summarizer.local import main; raise SystemExit(main(['--port', '{port}']))"
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 60)
        assert ready, "no LLM_URL line within 60 s"
        line = proc.stdout.readline()
        assert line.startswith(f"LLM_URL=http://127.0.0.1:{port}/v1  model="), line
        assert "federation spec" in proc.stdout.readline()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(20) == 0, proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    with pytest.raises(OSError):  # the llama.cpp server stopped with it
        socket.create_connection(("127.0.0.1", port), timeout=1).close()


async def test_an_endpoint_without_logprobs_fails_loudly_or_answers_without_confidence(llm_server):
    async with LocalServer(logprobs=False) as server:  # no --logits_all: it cannot return log-probabilities
        asking = LLM(_settings(server.base_url))  # llama.cpp fails after sending the headers: the stream just ends
        try:
            with pytest.raises(LLMError, match="before the completion finished"):
                await asking.complete(SHORT, budget_ms=20_000)
        finally:
            await asking.aclose()
        not_asking = LLM(_settings(server.base_url, logprobs=False))
        try:
            done = await not_asking.complete(SHORT, budget_ms=20_000)
        finally:
            await not_asking.aclose()
        port = server.port
    assert done.text.strip() and done.confidence is None and done.tokens > 1
    with pytest.raises(OSError):  # stopped on leaving the block
        socket.create_connection(("127.0.0.1", port), timeout=1).close()


def test_a_server_that_exits_early_is_reported_with_its_last_words(llm_server):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        server = LocalServer(port=busy.getsockname()[1])
        with pytest.raises(LLMError, match="exited with code .*address already in use"):
            server.start()
    assert server.process is None and server.log_path is None  # stopped, temporary log removed
