"""The embedded broker (:mod:`bus.server`): a real ``nats-server`` with JetStream on a free port, stopped with
its process, and a missing binary named in a clear error."""

from __future__ import annotations

import pytest

from bus.connection import connect
from bus.errors import BrokerError
from bus.server import NatsServer


async def test_embedded_server_has_jetstream(nats_server):
    nc = await connect(nats_server.url, "t")
    info = await nc.jetstream().account_info()
    assert info.limits is not None
    await nc.close()


def test_two_servers_get_distinct_ports(tmp_path):
    with NatsServer(store_dir=tmp_path / "a") as a, NatsServer(store_dir=tmp_path / "b") as b:
        assert a.port != b.port and a.port > 0


def test_stop_releases_the_process(tmp_path):
    server = NatsServer(store_dir=tmp_path / "js").start()
    process = server.process
    server.stop()
    assert process.poll() is not None


def test_a_missing_binary_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("FEDRAG_NATS_SERVER", "/nonexistent/nats-server")
    with pytest.raises(BrokerError, match="FEDRAG_NATS_SERVER"):
        NatsServer().start()
