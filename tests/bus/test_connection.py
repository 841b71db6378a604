"""Connections to the broker (:mod:`bus.connection`): a URL list with one login for every server, a broker
nobody can reach named in one clear error, and a :class:`~bus.connection.Link` whose connection the broker
closes opening a new one and serving again (a node of the demo federation, over a real broker).
"""

from __future__ import annotations

import asyncio

import pytest

from bus.client import wait_until_serving
from bus.connection import connect, servers
from bus.errors import BrokerError
from bus.subjects import query_subject
from tests.helpers.federations import everyone_still_answers


def test_a_url_list_carries_one_login_for_every_server():
    assert servers("nats://u:p@127.0.0.1:1, 127.0.0.1:2") == (["nats://127.0.0.1:1", "nats://127.0.0.1:2"],
                                                               {"user": "u", "password": "p"})
    assert servers("nats://tok@h:1") == (["nats://h:1"], {"token": "tok"})
    with pytest.raises(BrokerError, match="different credentials"):
        servers("nats://a:1@h:1,nats://b:2@h:2")
    with pytest.raises(BrokerError, match="no NATS server"):
        servers(" , ")


async def test_unreachable_broker_is_a_clear_error():
    with pytest.raises(BrokerError, match="cannot reach NATS"):
        await connect("nats://127.0.0.1:1", "t", timeout=1.0)


async def test_an_unreachable_list_names_every_server():
    with pytest.raises(BrokerError, match=r"cannot reach NATS at any of nats://127.0.0.1:1, nats://127.0.0.1:2"):
        await connect("nats://127.0.0.1:1,nats://127.0.0.1:2", "t", timeout=1.0)


async def test_a_node_whose_connection_the_broker_closes_comes_back(demo_federation, nc):
    link = demo_federation.link("hospital_b")
    closed = link.nc
    closed._transport.write(b"THIS IS NOT NATS\r\n")  # a protocol error: the broker closes the connection
    await closed._transport.drain()
    for _ in range(100):
        if link.reopened:
            break
        await asyncio.sleep(0.05)
    assert closed.is_closed and link.reopened == 1 and link.nc is not closed
    await wait_until_serving(nc, [query_subject(p) for p in ("hospital_b", "hospital_b.cardiology")], timeout=30)
    await everyone_still_answers(nc)
