"""Fixtures for the LLM tests: a client of the session's real llama.cpp server (``llm_server``, in
``tests/conftest.py``), and a proxy that drops connections (to see retries against the real server)."""

from __future__ import annotations

import asyncio
import pytest

from summarizer.llm import LLM, LLMSettings


@pytest.fixture
async def llm(llm_server):
    """A client of the session's server, with the default settings."""
    client = LLM(LLMSettings(base_url=llm_server.base_url, model=llm_server.model))
    yield client
    await client.aclose()


class DroppingProxy:
    """A TCP proxy on a free loopback port to ``target_port`` that closes the first ``drop``
    connections as soon as they arrive, and relays the others both ways."""

    def __init__(self, target_port: int, drop: int) -> None:
        self.target_port = target_port
        self.drop = drop
        self.connections = 0
        self.port = 0
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> DroppingProxy:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc) -> None:
        self._server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        if self.connections <= self.drop:
            writer.transport.abort()  # reset, before any byte of an answer
            return
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        writer.close()

