"""Asking as a person: sign in as a spec's user and ask over a permissioned broker (the identity, admission
and summary tests)."""

from __future__ import annotations

from bus.client import ask
from bus.connection import connect
from bus.asking import AskRequest
from nodes.run.assemble import sign_in

QUESTION = "Which patients had a stroke or a seizure?"


async def asker(url, spec, user):
    """``user``'s credentials and a connection as their own broker user."""
    creds = sign_in(spec, user)
    return creds, await connect(url, f"test-{user}", **creds.connect_options())


async def ask_as(url, spec, user, question=QUESTION, **options):
    """The answer ``user`` gets to ``question`` (``options``: the rest of the :class:`AskRequest`)."""
    creds, nc = await asker(url, spec, user)
    try:
        return await ask(nc, AskRequest(question=question, **options), headers=creds.headers(question))
    finally:
        await nc.drain()
