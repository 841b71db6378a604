"""The LLM client (:mod:`summarizer.llm`), against a real llama.cpp server (no mock of the endpoint).

What could go wrong and is checked here: settings out of range, streaming that arrives in one piece or
loses text, a missing or out-of-range confidence, a dead endpoint that eats the whole budget, a budget
that is not kept, a dropped connection that is not retried (or retried when it must not be), and an
endpoint's error that is not reported as one. The local server itself is in ``test_local.py``.
"""

from __future__ import annotations

import time

import pydantic
import pytest

from bus._system import free_ports
from bus.errors import LLMError, LLMTimeoutError
from summarizer.llm import LLM, NO_KEY, LLMSettings
from tests.helpers.llm import DroppingProxy
from tests.helpers.timing import AT_ONCE, SLACK_MS

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


@pytest.mark.timing
async def test_stream_yields_deltas_that_join_to_the_completion(llm):
    budget_ms = 30_000
    deltas = []
    async with llm.stream(SHORT, budget_ms=budget_ms) as stream:
        assert stream.completion is None
        async for delta in stream:
            deltas.append(delta)
    done = stream.completion
    assert len(deltas) > 1, "the text arrived in one piece: not streamed"
    assert "".join(deltas) == done.text and done.text.strip()
    assert isinstance(done.confidence, float) and 0.0 < done.confidence <= 1.0
    assert done.tokens >= len(deltas)
    assert 0 < done.first_token_ms <= done.took_ms <= budget_ms
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


@pytest.mark.timing
async def test_a_down_endpoint_fails_fast_with_its_url():
    url = f"http://127.0.0.1:{free_ports()[0]}/v1"  # nobody listens there
    client = LLM(_settings(url, retries=1))
    budget_ms = 5_000
    started = time.monotonic()
    try:
        with pytest.raises(LLMError) as caught:
            await client.complete(SHORT, budget_ms=budget_ms)
    finally:
        await client.aclose()
    assert (time.monotonic() - started) * 1000 < AT_ONCE * budget_ms, "a refused connection does not wait out the budget"
    assert not isinstance(caught.value, LLMTimeoutError)
    assert url in str(caught.value) and "could not be reached" in str(caught.value)


@pytest.mark.timing
async def test_a_too_small_budget_times_out_by_the_budget_and_the_server_recovers(llm):
    client = LLM(_settings(llm.endpoint, max_tokens=200))
    budget_ms = 50
    started = time.monotonic()
    try:
        with pytest.raises(LLMTimeoutError, match="50 ms"):
            await client.complete(LONG, budget_ms=budget_ms)
    finally:
        await client.aclose()
    assert (time.monotonic() - started) * 1000 <= budget_ms + SLACK_MS
    # the abandoned generation does not wedge the server: a short call right after succeeds in time
    assert (await llm.complete(SHORT, budget_ms=20_000)).text


@pytest.mark.timing
async def test_a_budget_running_out_mid_stream_stops_it_and_the_generation(llm):
    client = LLM(_settings(llm.endpoint, max_tokens=2000))
    budget_ms = 3_000
    deltas = []
    started = time.monotonic()
    try:
        with pytest.raises(LLMTimeoutError):
            async for delta in client.stream(LONG, budget_ms=budget_ms):
                deltas.append(delta)
    finally:
        await client.aclose()
    assert deltas, "no text within 3 s"
    assert (time.monotonic() - started) * 1000 <= budget_ms + SLACK_MS
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


@pytest.mark.timing
async def test_a_prompt_over_the_context_window_fails_quickly(llm):
    too_long = [{"role": "user", "content": "pneumonia " * 6000}]  # more tokens than the 4096 context
    budget_ms = 20_000
    started = time.monotonic()
    with pytest.raises(LLMError) as caught:  # llama.cpp refuses it after sending the headers
        await llm.complete(too_long, budget_ms=budget_ms)
    assert not isinstance(caught.value, LLMTimeoutError)
    assert (time.monotonic() - started) * 1000 < AT_ONCE * budget_ms, "refused, not worked on until the budget ran out"
