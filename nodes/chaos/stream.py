"""A steady stream of questions from several clients and users, each recorded as a :class:`Query`.

Each client asks one question at a time, as the next of its users (so answers are checked against
different rights), through :func:`bus.client.events` — the same client code as ``fedrag ask`` and the
terminal client, heartbeats and asking again included.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Iterable, Sequence

from bus.client import events
from bus.connection import drain
from bus.errors import FedragError
from bus.asking import Answer, AskRequest, Restarted
from nodes.chaos.invariants import Invariants, Query
from nodes.run.assemble import sign_in
from nodes.run.spec import FederationSpec
from policies.access import Credentials, connect_as

#: How long a client waits before its next question after one got no answer.
ERROR_PAUSE_S = 0.2


class QueryStream:
    """``clients`` concurrent clients asking ``questions`` as ``users`` (ids; ``[None]`` for an open federation)
    of the federation of ``spec`` at ``url``.

    Args:
        deadline_ms: each question's deadline.
        answer_every: every so many questions asks for an answer and the routers' summaries (they cost
            the CPU ten times what retrieval does); the others ask for evidence only (0: all of them).
        pause_s: how long each client waits between questions (a person reads the answer; and the
            federation's processes, all on this host, need CPU left to restart while it is loaded).
    """

    def __init__(self, spec: FederationSpec, url: str, questions: Sequence[str], users: Sequence[str | None], *,
                 clients: int = 3,
                 deadline_ms: int = 3_000, answer_every: int = 3, pause_s: float = 0.3) -> None:
        if not questions:
            raise FedragError("a query stream needs questions")
        self.spec = spec
        self.url = url
        self.questions = list(questions)
        self.users = list(users) or [None]
        self.clients = clients
        self.deadline_ms = deadline_ms
        self.answer_every = answer_every
        self.pause_s = pause_s
        self.queries: list[Query] = []
        self.invariants = Invariants(spec)
        self._creds: dict[str | None, Credentials | None] = {}
        self._connections: list = []
        self._tasks: list[asyncio.Task] = []
        self._running = False
        self._count = itertools.count()

    async def start(self) -> None:
        for user in self.users:
            self._creds[user] = sign_in(self.spec, user) if user is not None else None
        clients = []
        for client in range(self.clients):
            connections = {}
            for user in self.users:
                nc = await connect_as(self.url, f"fedrag-client-{client}", self._creds[user], timeout=5.0)
                connections[user] = nc
                self._connections.append(nc)
            clients.append(connections)
        self._running = True  # every client connected first: they start asking together
        self._tasks = [asyncio.create_task(self._client(n, connections)) for n, connections in enumerate(clients)]

    async def stop(self) -> None:
        """Stops asking; questions in flight are finished and recorded."""
        self._running = False
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks.clear()
        for nc in self._connections:
            await drain(nc)
        self._connections.clear()

    async def until_full(self, after: float, timeout: float, nodes: Iterable[str] = ()) -> float | None:
        """When the first question asked at or after ``after`` came back with full coverage, from a user
        who may search everything under ``nodes`` (monotonic seconds), waiting at most ``timeout`` seconds;
        ``None`` if none did."""
        end = time.monotonic() + timeout
        seen = 0
        while True:
            for query in self.queries[seen:]:
                if query.start >= after and self.invariants.full(query, nodes):
                    return query.end
            seen = len(self.queries)
            if time.monotonic() >= end:
                return None
            await asyncio.sleep(0.05)

    async def _client(self, client: int, connections: dict) -> None:
        users = itertools.cycle(self.users)
        while self._running:
            number = next(self._count)
            user = next(users)
            question = self.questions[number % len(self.questions)]
            query = await self._ask(connections[user], user, question,
                                    "extractive" if self.answer_every and number % self.answer_every == 0 else "none")
            self.queries.append(query)
            await asyncio.sleep(self.pause_s if query.answer is not None else max(self.pause_s, ERROR_PAUSE_S))

    async def _ask(self, nc, user: str | None, question: str, summarize: str) -> Query:
        creds = self._creds[user]
        request = AskRequest(question=question, deadline_ms=self.deadline_ms, summarize=summarize)
        query = Query(user=user, question=question, deadline_ms=self.deadline_ms, start=time.monotonic())
        stream = events(nc, request, headers=(lambda: creds.headers(question)) if creds else None)
        try:
            async for event in stream:
                if isinstance(event, Restarted):
                    query.restarted += 1
                elif isinstance(event, Answer):
                    query.answer = event
        except FedragError as exc:
            query.error = str(exc)
        except Exception as exc:  # noqa: BLE001 - anything else is a finding, recorded with the query
            query.error = f"{type(exc).__name__}: {exc}"
        finally:
            await stream.aclose()
        query.end = time.monotonic()
        if query.answer is None and query.error is None:
            query.error = "the stream ended without an answer"
        return query
