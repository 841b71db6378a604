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


async def test_unreachable_broker_is_a_clear_error():
    with pytest.raises(BrokerError, match="cannot reach NATS"):
        await connect("nats://127.0.0.1:1", "t", timeout=1.0)
