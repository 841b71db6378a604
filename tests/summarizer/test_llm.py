"""The LLM client and the local server, against a real llama.cpp server (no mock of the endpoint).

What could go wrong and is checked here: streaming that arrives in one piece or loses text, a missing
or out-of-range confidence, a dead endpoint that eats the whole budget, a budget that is not kept, a
dropped connection that is not retried (or retried when it must not be), an endpoint's error that
is not reported as one, and ``fedrag llm serve`` that does not print its URL or does not stop.
"""

from __future__ import annotations

import os
import select
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pydantic
import pytest

from bus.errors import LLMError, LLMTimeoutError
from summarizer import local
from summarizer.llm import LLM, NO_KEY, LLMSettings
from bus._system import free_ports
from summarizer.local import LocalServer, model_path
from tests.summarizer.conftest import DroppingProxy

ROOT = Path(__file__).resolve().parents[2]

SHORT = [{"role": "user", "content": "Name three common symptoms of pneumonia, one per line."}]
LONG = [{"role": "user", "content": "Write a detailed, 200-word case report about a patient admitted with pneumonia."}]


def _settings(base_url: str, **kw) -> LLMSettings:
    return LLMSettings(base_url=base_url, **kw)


# -- settings ------------------------------------------------------------------------------------


def test_settings_validate_ranges_and_unknown_keys():
    assert _settings("http://127.0.0.1:8080/v1/").base_url == "http://127.0.0.1:8080/v1"
    for bad in ({"min_confidence": 1.5}, {"retries": -1}, {"max_tokens": 0}, {"temperature": -0.1},
                {"reserve_ms": -1}, {"api_key": "sk-inline"}):
        with pytest.raises(pydantic.ValidationError):
            _settings("http://127.0.0.1:8080/v1", **bad)
    with pytest.raises(pydantic.ValidationError, match="http"):
        _settings("127.0.0.1:8080/v1")


def test_api_key_comes_from_the_named_variable(monkeypatch):
    monkeypatch.setenv("FEDRAG_TEST_LLM_KEY", "sk-test-123")
    assert _settings("http://h/v1", api_key_env="FEDRAG_TEST_LLM_KEY").api_key() == "sk-test-123"
    monkeypatch.delenv("FEDRAG_TEST_LLM_KEY")
    assert _settings("http://h/v1", api_key_env="FEDRAG_TEST_LLM_KEY").api_key() == NO_KEY


# -- against the real server ---------------------------------------------------------------------


async def test_stream_yields_deltas_that_join_to_the_completion(llm):
    deltas = []
    async with llm.stream(SHORT, budget_ms=30_000) as stream:
        assert stream.completion is None
        async for delta in stream:
            deltas.append(delta)
    done = stream.completion
    assert len(deltas) > 1, "the text arrived in one piece: not streamed"
    assert "".join(deltas) == done.text and done.text.strip()
    assert isinstance(done.confidence, float) and 0.0 < done.confidence <= 1.0
    assert done.tokens >= len(deltas)
    assert 0 < done.first_token_ms <= done.took_ms < 30_000
    assert done.finish_reason in ("stop", "length")


async def test_complete_returns_text_and_confidence(llm):
    done = await llm.complete(SHORT, budget_ms=30_000)
    assert done.text.strip() and 0.0 < done.confidence <= 1.0 and done.tokens > 0


async def test_max_tokens_bounds_the_completion(llm_server):
    client = LLM(_settings(llm_server.base_url, max_tokens=5))
    try:
        done = await client.complete(LONG, budget_ms=30_000)
    finally:
        await client.aclose()
    assert done.tokens <= 5 and done.finish_reason == "length"


async def test_a_down_endpoint_fails_fast_with_its_url():
    url = f"http://127.0.0.1:{free_ports()[0]}/v1"  # nobody listens there
    client = LLM(_settings(url, retries=1))
    started = time.monotonic()
    try:
        with pytest.raises(LLMError) as caught:
            await client.complete(SHORT, budget_ms=5_000)
    finally:
        await client.aclose()
    assert time.monotonic() - started < 1.0
    assert not isinstance(caught.value, LLMTimeoutError)
    assert url in str(caught.value) and "could not be reached" in str(caught.value)


async def test_a_too_small_budget_times_out_by_the_budget_and_the_server_recovers(llm):
    client = LLM(_settings(llm.endpoint, max_tokens=200))
    started = time.monotonic()
    try:
        with pytest.raises(LLMTimeoutError, match="50 ms"):
            await client.complete(LONG, budget_ms=50)
    finally:
        await client.aclose()
    assert time.monotonic() - started < 0.05 + 1.5
    # the abandoned generation does not wedge the server: a short call right after succeeds in time
    assert (await llm.complete(SHORT, budget_ms=20_000)).text


async def test_a_budget_running_out_mid_stream_stops_it_and_the_generation(llm):
    client = LLM(_settings(llm.endpoint, max_tokens=2000))
    deltas = []
    started = time.monotonic()
    try:
        with pytest.raises(LLMTimeoutError):
            async for delta in client.stream(LONG, budget_ms=3_000):
                deltas.append(delta)
    finally:
        await client.aclose()
    assert deltas, "no text within 3 s"
    assert time.monotonic() - started < 3 + 1.5
    # had the server gone on with the 2,000 tokens (over 50 s), this would time out
    assert (await llm.complete(SHORT, budget_ms=20_000)).text


async def test_a_dropped_connection_is_retried_within_the_budget(llm_server):
    async with DroppingProxy(llm_server.port, drop=1) as proxy:
        client = LLM(_settings(f"http://127.0.0.1:{proxy.port}/v1", retries=1))
        try:
            done = await client.complete(SHORT, budget_ms=30_000)
        finally:
            await client.aclose()
    assert done.text and proxy.connections == 2


async def test_no_retry_when_retries_is_zero(llm_server):
    async with DroppingProxy(llm_server.port, drop=1) as proxy:
        url = f"http://127.0.0.1:{proxy.port}/v1"
        client = LLM(_settings(url, retries=0))
        try:
            with pytest.raises(LLMError, match="could not be reached"):
                await client.complete(SHORT, budget_ms=30_000)
        finally:
            await client.aclose()
    assert proxy.connections == 1


async def test_an_endpoint_error_is_reported_with_its_status(llm_server):
    url = llm_server.base_url.removesuffix("/v1")  # a base URL without /v1: the server answers 404
    client = LLM(_settings(url))
    try:
        with pytest.raises(LLMError, match=r"answered HTTP 404") as caught:
            await client.complete(SHORT, budget_ms=20_000)
    finally:
        await client.aclose()
    assert url in str(caught.value) and not isinstance(caught.value, LLMTimeoutError)


async def test_a_prompt_over_the_context_window_fails_quickly(llm):
    too_long = [{"role": "user", "content": "pneumonia " * 6000}]  # more tokens than the 4096 context
    started = time.monotonic()
    with pytest.raises(LLMError) as caught:  # llama.cpp refuses it after sending the headers
        await llm.complete(too_long, budget_ms=20_000)
    assert not isinstance(caught.value, LLMTimeoutError) and time.monotonic() - started < 5


# -- the local server ----------------------------------------------------------------------------


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
