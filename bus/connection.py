"""Connecting to the broker with one set of options for every fedrag process."""

from __future__ import annotations

import asyncio

import nats
from nats.aio.client import Client

from bus.errors import BrokerError


async def connect(url: str, name: str, *, timeout: float = 10.0, **options) -> Client:
    """Connects to ``url`` as client ``name``; once connected, reconnects forever after a loss.

    Args:
        url: the broker, e.g. ``nats://127.0.0.1:4222``.
        name: the client name shown in the broker's monitoring.
        timeout: how long to keep trying before the first connection.
        options: passed on to :func:`nats.connect`.

    Raises:
        BrokerError: the broker could not be reached within ``timeout``.
    """
    async def quiet(_exc):  # connection errors surface as BrokerError or as unavailable children
        return None

    try:
        return await asyncio.wait_for(nats.connect(
            url, name=name, connect_timeout=min(timeout, 3.0), max_reconnect_attempts=-1,
            reconnect_time_wait=0.5, error_cb=quiet, **options), timeout)
    except Exception as exc:
        reason = "no answer" if isinstance(exc, asyncio.TimeoutError) else f"{type(exc).__name__}: {exc}"
        raise BrokerError(f"cannot reach NATS at {url} within {timeout:.0f} s ({reason})") from None
