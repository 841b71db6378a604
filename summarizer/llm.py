"""Completions from any OpenAI-compatible chat endpoint, streamed and bounded by a budget.

A router that summarizes its evidence, and a gateway that answers, reach an LLM through this module
only: a hosted API, vLLM, Ollama or the local llama.cpp server of :mod:`summarizer.local`, all
through the ``openai`` package's :class:`~openai.AsyncOpenAI` client pointed at
:attr:`LLMSettings.base_url` (the ``[llm]`` table of a federation spec).

- **Streaming.** :meth:`LLM.stream` returns an :class:`LLMStream`: iterate it for the text as the
  model writes it; once it is exhausted, its :attr:`~LLMStream.completion` holds the whole text, its
  confidence, the token count and the timings. :meth:`LLM.complete` reads a stream to its end.
- **Budget.** A call ends by its ``budget_ms``, counted from the call: connecting, waiting for the
  first token and reading the rest all count. The client's own timeout is set to what remains of it
  and an asyncio deadline wraps every wait, so a stalled endpoint cannot hold a router past its
  deadline; running out raises :class:`~bus.errors.LLMTimeoutError`.
- **Retries.** The client's own retries are off. A connection failure or a 5xx answer to the request
  is retried at most :attr:`LLMSettings.retries` times, and only while more than
  :data:`RETRY_SHARE` of the budget remains. Once the endpoint has started answering, never: the
  caller may already have shown the text.
- **Confidence.** The exponential of the mean log-probability of the generated tokens (their
  geometric-mean probability), when the endpoint returns log-probabilities (OpenAI, vLLM and
  llama.cpp do when asked); ``None`` when it does not. Callers compare it with
  :attr:`LLMSettings.min_confidence` and fall back to the extractive answer below it.
- **Failures** are :class:`~bus.errors.LLMError` (or its subclass
  :class:`~bus.errors.LLMTimeoutError`), with a message that names the endpoint and never the key.

Example::

    llm = LLM(LLMSettings(base_url="http://127.0.0.1:8080/v1"))
    async with llm.stream([{"role": "user", "content": "Hello"}], budget_ms=5000) as stream:
        async for delta in stream:
            print(delta, end="", flush=True)
    print(stream.completion.confidence)
    await llm.aclose()
"""

from __future__ import annotations

import asyncio
import math
import os
import time
from dataclasses import dataclass
from statistics import fmean

import openai
from openai import AsyncOpenAI
from pydantic import BaseModel, ConfigDict, Field, field_validator

from bus.errors import LLMError, LLMTimeoutError

#: The API key sent when the configured environment variable is unset: local servers ignore it.
NO_KEY = "not-needed"
#: A failed request is retried only while more than this share of the call's budget remains.
RETRY_SHARE = 0.25
#: The longest an endpoint's error message is quoted in ours.
MAX_QUOTE = 300


class LLMSettings(BaseModel):
    """The ``[llm]`` table of a federation spec: which endpoint, which model, and how to call it.

    Attributes:
        base_url: the endpoint's OpenAI-compatible root, e.g. ``http://127.0.0.1:8080/v1``.
        model: the model name sent with each request (a local llama.cpp server serves its one model
            whatever the name).
        api_key_env: the NAME of the environment variable that holds the API key; when it is unset,
            :data:`NO_KEY` is sent.
        max_tokens: the most tokens one completion may generate.
        temperature: sampling temperature; 0 is greedy and repeatable.
        min_confidence: below this confidence callers use the extractive answer instead (0..1).
        logprobs: ask for token log-probabilities (the confidence); turn off for an endpoint that
            rejects them (a llama.cpp server started without ``--logits_all`` ends the stream at once).
        passages: how many passages (the best first) a prompt gives the model at most.
        passage_chars: how much of each passage it gives (the local server reads 4,096 tokens in all;
            a hosted one can take more of both).
        retries: how many times a connection failure or 5xx answer is retried within the budget.
        reserve_ms: how much of its budget a router running an LLM summary keeps for it.
    """

    model_config = ConfigDict(extra="forbid")

    base_url: str = Field(min_length=1)
    model: str = Field("default", min_length=1)
    api_key_env: str = Field("OPENAI_API_KEY", min_length=1)
    max_tokens: int = Field(256, ge=1, le=32768)
    temperature: float = Field(0.0, ge=0.0, le=2.0)
    min_confidence: float = Field(0.0, ge=0.0, le=1.0)
    logprobs: bool = True
    passages: int = Field(6, ge=1, le=50)
    passage_chars: int = Field(700, ge=100, le=20000)
    retries: int = Field(1, ge=0, le=5)
    reserve_ms: float = Field(1500.0, ge=0.0)

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        value = value.strip().rstrip("/")
        if not value.startswith(("http://", "https://")):
            raise ValueError("must be an http:// or https:// URL, e.g. http://127.0.0.1:8080/v1")
        return value

    def api_key(self) -> str:
        """The key from the environment variable named by :attr:`api_key_env`, else :data:`NO_KEY`."""
        return os.environ.get(self.api_key_env) or NO_KEY


@dataclass(frozen=True)
class Completion:
    """One finished completion.

    Attributes:
        text: everything the model generated.
        confidence: the geometric-mean probability of the generated tokens, in (0, 1]; ``None`` when
            the endpoint returned no log-probabilities.
        tokens: generated tokens (counted from the log-probabilities, else from the streamed deltas).
        took_ms: from the call to the end of the stream.
        first_token_ms: from the call to the first text, ``None`` if there was none.
        finish_reason: why generation stopped, as the endpoint said (``"stop"``, ``"length"``, …).
    """

    text: str
    confidence: float | None
    tokens: int
    took_ms: float
    first_token_ms: float | None = None
    finish_reason: str | None = None


class LLM:
    """A client of one OpenAI-compatible endpoint.

    Args:
        settings: the endpoint, model and call settings.
    """

    def __init__(self, settings: LLMSettings) -> None:
        self.settings = settings
        self._key = settings.api_key()
        # per call, the timeout becomes what remains of the budget; retries are ours (see stream)
        self._client = AsyncOpenAI(base_url=settings.base_url, api_key=self._key, max_retries=0, timeout=60.0)

    @property
    def endpoint(self) -> str:
        """The endpoint's URL, as errors name it."""
        return self.settings.base_url

    def stream(self, messages: list[dict], *, budget_ms: float) -> LLMStream:
        """Starts a chat completion whose text arrives as it is generated.

        Nothing is sent until the stream is iterated, but the budget counts from this call.

        Args:
            messages: OpenAI chat messages (``{"role": ..., "content": ...}``).
            budget_ms: the whole call (connect, first token, all tokens) ends within this.

        Returns:
            An async iterator of text deltas, also an async context manager that closes it; its
            :attr:`LLMStream.completion` is set once it has been read to its end.
        """
        return LLMStream(self, messages, budget_ms)

    async def complete(self, messages: list[dict], *, budget_ms: float) -> Completion:
        """A whole chat completion within ``budget_ms``.

        Raises:
            LLMTimeoutError: the budget ran out first.
            LLMError: the endpoint could not be reached or answered with an error.
        """
        async with self.stream(messages, budget_ms=budget_ms) as stream:
            async for _ in stream:
                pass
        assert stream.completion is not None
        return stream.completion

    async def aclose(self) -> None:
        """Closes the client's connections."""
        await self._client.close()

    def _failure(self, exc: BaseException, budget_ms: float) -> LLMError:
        """The fedrag error for a failed call to the endpoint."""
        where = f"LLM endpoint {self.endpoint}"
        if isinstance(exc, (TimeoutError, openai.APITimeoutError)):
            return LLMTimeoutError(f"{where} did not finish within the budget of {budget_ms:.0f} ms")
        if isinstance(exc, openai.APIStatusError):
            return LLMError(f"{where} answered HTTP {exc.status_code}: {self._quote(exc.message)}")
        if isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__
            reason = f"{type(cause).__name__}: {cause}" if cause is not None else exc.message
            return LLMError(f"{where} could not be reached ({self._quote(reason)})")
        if isinstance(exc, openai.OpenAIError):
            return LLMError(f"{where} failed: {self._quote(str(exc))}")
        return LLMError(f"{where} failed: {type(exc).__name__}: {self._quote(str(exc))}")

    def _quote(self, text: str) -> str:
        """An endpoint's message made safe to repeat: shortened, and without the key if it echoes it."""
        if self._key != NO_KEY:
            text = text.replace(self._key, "***")
        text = " ".join(text.split())
        return text if len(text) <= MAX_QUOTE else text[:MAX_QUOTE] + " …"


class LLMStream:
    """The text of one chat completion as it arrives; made by :meth:`LLM.stream`.

    Attributes:
        budget_ms: the call's budget, counted from its creation.
        completion: the finished :class:`Completion`, ``None`` until the stream has been read to its end.
    """

    def __init__(self, llm: LLM, messages: list[dict], budget_ms: float) -> None:
        self._llm = llm
        self._messages = list(messages)
        self.budget_ms = budget_ms
        self._started = time.monotonic()
        self._deadline = self._started + budget_ms / 1000
        self._response: openai.AsyncStream | None = None
        self._closed = False
        self._parts: list[str] = []
        self._logprobs: list[float] = []
        self._first_token_ms: float | None = None
        self._finish_reason: str | None = None
        self.completion: Completion | None = None

    # -- iteration -------------------------------------------------------------------------------

    def __aiter__(self) -> LLMStream:
        return self

    async def __anext__(self) -> str:
        """The next piece of text.

        Raises:
            StopAsyncIteration: at the end; :attr:`completion` is then set.
            LLMTimeoutError: the budget ran out first.
            LLMError: the endpoint could not be reached, failed, or ended the stream unfinished.
        """
        if self._closed:
            raise StopAsyncIteration
        try:
            if self._response is None:
                self._response = await self._open()
            while True:
                try:
                    chunk = await self._within(self._response.__anext__)
                except StopAsyncIteration:
                    await self.aclose()
                    if self._finish_reason is None:  # e.g. llama.cpp failing after it sent the headers
                        raise LLMError(f"LLM endpoint {self._llm.endpoint} ended the stream before the completion "
                                       f"finished (no finish_reason; {len(self._parts)} pieces of text received)") from None
                    self.completion = self._finished()
                    raise
                text = self._take(chunk)
                if text:
                    return text
        except StopAsyncIteration:
            raise
        except LLMError:
            await self.aclose()
            raise
        except Exception as exc:
            await self.aclose()
            raise self._llm._failure(exc, self.budget_ms) from exc
        except BaseException:  # cancelled: release the connection, let the cancellation go on
            await self.aclose()
            raise

    async def aclose(self) -> None:
        """Stops reading and releases the connection (the endpoint then stops generating)."""
        self._closed = True
        response, self._response = self._response, None
        if response is not None:
            try:
                await response.close()
            except Exception:  # closing a broken connection: nothing more to release
                pass

    async def __aenter__(self) -> LLMStream:
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()

    # -- the request -----------------------------------------------------------------------------

    def _remaining(self) -> float:
        """Seconds left of the budget; raises :class:`LLMTimeoutError` when none are."""
        remaining = self._deadline - time.monotonic()
        if remaining <= 0:
            raise self._llm._failure(TimeoutError(), self.budget_ms)
        return remaining

    async def _within(self, step):
        """Awaits ``step()`` within what remains of the budget (converted to LLMTimeoutError)."""
        remaining = self._remaining()
        try:
            async with asyncio.timeout(remaining):
                return await step()
        except TimeoutError as exc:
            raise self._llm._failure(exc, self.budget_ms) from None

    async def _open(self) -> openai.AsyncStream:
        """Sends the request and returns the response stream once its headers arrived, retrying a
        connection failure or 5xx answer while the settings and the budget allow."""
        settings = self._llm.settings
        # llama.cpp returns log-probabilities only when top_logprobs is set too
        extra = {"logprobs": True, "top_logprobs": 1} if settings.logprobs else {}
        attempt = 0
        while True:
            try:
                return await self._within(lambda: self._llm._client.chat.completions.create(
                    model=settings.model, messages=self._messages, max_tokens=settings.max_tokens,
                    temperature=settings.temperature, stream=True, timeout=self._remaining(), **extra))
            except (openai.APIConnectionError, openai.APIStatusError) as exc:
                retriable = (isinstance(exc, openai.APIConnectionError) and not isinstance(exc, openai.APITimeoutError)) \
                    or (isinstance(exc, openai.APIStatusError) and exc.status_code >= 500)
                left = self._deadline - time.monotonic()
                if not retriable or attempt >= settings.retries or left <= RETRY_SHARE * self.budget_ms / 1000:
                    raise
                attempt += 1
                await asyncio.sleep(min(0.05 * attempt, left / 10))

    # -- what arrives ----------------------------------------------------------------------------

    def _take(self, chunk) -> str:
        """Records one streamed chunk and returns its text ('' for a chunk without any)."""
        if not chunk.choices:  # e.g. a final usage-only chunk
            return ""
        choice = chunk.choices[0]
        if choice.finish_reason:
            self._finish_reason = choice.finish_reason
        self._logprobs.extend(_token_logprobs(choice.logprobs))
        text = (choice.delta.content if choice.delta is not None else None) or ""
        if text:
            if self._first_token_ms is None:
                self._first_token_ms = (time.monotonic() - self._started) * 1000
            self._parts.append(text)
        return text

    def _finished(self) -> Completion:
        confidence = min(1.0, math.exp(fmean(self._logprobs))) if self._logprobs else None
        return Completion(text="".join(self._parts), confidence=confidence,
                          tokens=len(self._logprobs) or len(self._parts),
                          took_ms=(time.monotonic() - self._started) * 1000,
                          first_token_ms=self._first_token_ms, finish_reason=self._finish_reason)


def _token_logprobs(logprobs) -> list[float]:
    """The log-probabilities of the tokens a chunk carries, in either shape endpoints send: the chat
    shape (``content: [{token, logprob}, …]``) or the completions shape (``token_logprobs: […]``)."""
    if logprobs is None:
        return []
    content = getattr(logprobs, "content", None)
    if content:
        return [float(t.logprob) for t in content if t.logprob is not None]
    extra = getattr(logprobs, "model_extra", None) or {}
    return [float(v) for v in extra.get("token_logprobs") or [] if v is not None]
