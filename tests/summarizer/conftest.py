"""Fixtures for the LLM tests: a client of the session's real llama.cpp server (``llm_server``, in
``tests/conftest.py``), and the clinic federation (:func:`tests.helpers.llm.clinic_spec`) started with its
LLM at a given URL."""

from __future__ import annotations

import shutil

import pytest

from nodes.run.federation import Federation
from summarizer.llm import LLM, LLMSettings
from tests.helpers.llm import clinic_spec


@pytest.fixture
async def llm(llm_server):
    """A client of the session's server, with the default settings."""
    client = LLM(LLMSettings(base_url=llm_server.base_url, model=llm_server.model))
    yield client
    await client.aclose()


@pytest.fixture
def clinic(tmp_path, nats_server, embedder):
    """Starts the clinic over this test's broker with the LLM at a given URL; stops it after the test."""
    started: list[Federation] = []

    async def start(base_url: str, **options) -> Federation:
        folder = tmp_path / f"clinic{len(started)}"
        folder.mkdir()
        federation = Federation(clinic_spec(folder, base_url, **options), nats_server.url, processes=False,
                                verbose=False, embedder_factory=lambda: embedder)
        started.append(federation)
        await federation.start()
        return federation

    yield start
    for federation in started:
        shutil.rmtree(federation.spec.federation.state_dir, ignore_errors=True)
