"""How many requests a node takes on: a bounded queue, and a share per person.

A node works on at most ``concurrency`` requests at once; up to ``queue`` more wait for a turn, each at
most ``queue_wait_ms`` (and never past its own deadline). A request that finds the queue full — checked
before anything about it is decoded — or that waited its longest is refused at once as ``overloaded``,
with a hint of when to try again, instead of waiting unseen; one person may have at most
``concurrent_per_person`` requests in progress or waiting at a node, so one person's burst cannot take
every turn (``rate_limited``). Callers with no identity (an open federation) share no per-person cap.

Example::

    admission = Admission(Limits())
    if admission.full:
        raise admission.overloaded()            # before decoding anything
    async with admission.turn(caller.key, budget):
        ...                                     # the work
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from contextlib import asynccontextmanager

from bus.budget import Budget
from bus.errors import OverloadedError, RateLimitedError
from policies.limits import Limits

#: The bounds of a retry hint (milliseconds).
_HINT_MS = (50.0, 10_000.0)


class Admission:
    """The turns one node gives out (see the module's docstring)."""

    def __init__(self, limits: Limits | None = None) -> None:
        limits = limits or Limits()
        self.concurrency = limits.concurrency
        self.queue = limits.queue
        self.per_person = limits.concurrent_per_person
        self.wait_ms = float(limits.queue_wait_ms)
        self.pending = 0  # requests taken on: decoding, being checked, waiting or being worked on
        self.running = 0
        self._turns = asyncio.Semaphore(self.concurrency)
        self._people: Counter[str] = Counter()
        self._mean_ms = 50.0

    @property
    def full(self) -> bool:
        """Whether a new request must be refused before anything about it is read."""
        return self.pending >= self.concurrency + self.queue

    def taken(self) -> None:
        """A request was taken on (it will leave through :meth:`left`)."""
        self.pending += 1

    def left(self) -> None:
        self.pending -= 1

    def hint_ms(self) -> float:
        """About when a refused request may find a turn: the queue ahead of it at the mean time per request."""
        ahead = max(self.pending - self.concurrency, 0) + 1
        return min(max(self._mean_ms * ahead / self.concurrency, _HINT_MS[0]), _HINT_MS[1])

    def overloaded(self, why: str = "its queue is full") -> OverloadedError:
        return OverloadedError(f"overloaded: {why} ({self.running} in progress, {self.pending} taken on)",
                               self.hint_ms())

    @asynccontextmanager
    async def turn(self, person: str, budget: Budget):
        """Holds one of the node's turns for the body's work.

        Raises:
            RateLimitedError: ``person`` already has their share in progress or waiting here.
            OverloadedError: no turn came within the queue's wait (or the budget).
        """
        if person and self._people[person] >= self.per_person:
            raise RateLimitedError(f"{self.per_person} questions of yours are already in progress here; "
                                   "ask again when one is answered", self.hint_ms())
        if person:
            self._people[person] += 1
        try:
            wait_s = max(min(self.wait_ms, budget.remaining_ms()), 0.0) / 1000.0
            try:
                async with asyncio.timeout(wait_s):
                    await self._turns.acquire()
            except TimeoutError:
                raise self.overloaded(f"no turn within {wait_s * 1000.0:.0f} ms") from None
            started = time.monotonic()
            self.running += 1
            try:
                yield
            finally:
                self.running -= 1
                self._turns.release()
                self._mean_ms += 0.05 * ((time.monotonic() - started) * 1000.0 - self._mean_ms)
        finally:
            if person:
                self._people[person] -= 1
                if not self._people[person]:
                    del self._people[person]
