"""Asking across sites: a subscription made at one site reaches the others' servers a moment after its own server has
it (over a leaf link or a gateway), so a first request from elsewhere may find no responder yet."""

from __future__ import annotations

import asyncio

import nats.errors


async def served(nc, subject: str, payload: bytes = b"?", within_s: float = 10.0):
    """The reply to a request on ``subject`` once a responder's interest has crossed to ``nc``'s server, asking again
    while it has not, for at most ``within_s`` seconds (then the last "no responders" is raised)."""
    deadline = asyncio.get_running_loop().time() + within_s
    while True:
        try:
            return await nc.request(subject, payload, timeout=5)
        except nats.errors.NoRespondersError:
            if asyncio.get_running_loop().time() > deadline:
                raise
            await asyncio.sleep(0.05)
