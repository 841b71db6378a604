"""How much one person may ask and read, and how much a node takes on at once: the ``[limits]`` table.

A federation spec may say::

    [limits]
    max_passages = 100                # passages one question may return (its k is lowered to this)
    max_questions_per_minute = 600    # questions one person may ask a minute, at every node
    concurrent_per_person = 8         # questions one person may have in progress at a node at once
    concurrency = 64                  # questions a node works on at once
    queue = 256                       # more wait, at most queue_wait_ms each; beyond, "overloaded"
    queue_wait_ms = 500
    rules = [{name = "nurses", require = {role = ["nurse"]}, max_passages = 20, max_questions_per_minute = 60}]

and any node may add ``limits = [...]`` rules of its own, which can only lower what the federation
allows there. The per-person caps hold for signed-in callers (an open federation has no persons): the
smallest cap of the rules whose ``require`` the caller's attributes meet applies, else the table's
own. Every node enforces them for itself — the gateway and every router and leaf the question
reaches — so a caller who goes around a gateway meets the same limits; each refusal and each lowered
``k`` is audited by the node's gate (:mod:`policies.gate`).

:class:`RateLimiter` is a token bucket per person (its capacity a tenth of a minute's questions, so a
burst is allowed and a flood is not): a question beyond it is refused with the time until a token comes
back. A long question counts as several (:data:`CHARS_PER_QUESTION`), as it costs the nodes that much more.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from bus.errors import RateLimitedError


class LimitRule(BaseModel):
    """Caps for the callers whose attributes meet ``require`` (as a gate policy's, :mod:`policies.abac`)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=100)
    require: dict[str, list[str]] = Field(min_length=1)
    max_passages: int | None = Field(None, ge=1, le=1_000)
    max_questions_per_minute: int | None = Field(None, ge=1, le=1_000_000)

    def applies(self, attributes: dict[str, list[str]]) -> bool:
        return all(set(attributes.get(name, [])) & set(values) for name, values in self.require.items())


@dataclass(frozen=True)
class Caps:
    """What one caller may do at one node, and which rules said so (for the audit)."""

    max_passages: int
    max_questions_per_minute: int
    rules: tuple[str, ...] = ()

    @property
    def source(self) -> str:
        return ", ".join(self.rules) if self.rules else "the federation's [limits]"


class Limits(BaseModel):
    """The ``[limits]`` table."""

    model_config = ConfigDict(extra="forbid")

    max_passages: int = Field(100, ge=1, le=1_000)
    max_questions_per_minute: int = Field(600, ge=1, le=1_000_000)
    concurrent_per_person: int = Field(8, ge=1, le=10_000)
    concurrency: int = Field(64, ge=1, le=100_000)
    queue: int = Field(256, ge=0, le=1_000_000)
    queue_wait_ms: int = Field(500, ge=1, le=60_000)
    rules: list[LimitRule] = Field(default_factory=list)

    def caps(self, attributes: dict[str, list[str]], node_rules: list[LimitRule] = ()) -> Caps:
        """The caps of a caller with ``attributes`` at a node with ``node_rules`` of its own."""
        passages, per_minute, names = self.max_passages, self.max_questions_per_minute, []
        mine = [rule for rule in self.rules if rule.applies(attributes)]
        if mine:  # the federation's rules replace its defaults for the callers they name
            passages = min((r.max_passages for r in mine if r.max_passages), default=passages)
            per_minute = min((r.max_questions_per_minute for r in mine if r.max_questions_per_minute), default=per_minute)
            names += [rule.name for rule in mine]
        for rule in node_rules:  # a node's own rules only ever lower them
            if rule.applies(attributes):
                passages = min(passages, rule.max_passages or passages)
                per_minute = min(per_minute, rule.max_questions_per_minute or per_minute)
                names.append(rule.name)
        return Caps(passages, per_minute, tuple(names))


#: A question counts once for every this many characters it holds (an 8,000-character question costs
#: the nodes what fourteen short ones do, so it counts as fourteen).
CHARS_PER_QUESTION = 600


def cost(question: str) -> int:
    """How many questions ``question`` counts as."""
    return max(1, -(-len(question) // CHARS_PER_QUESTION))


class RateLimiter:
    """A token bucket per caller key: ``per_minute`` questions a minute, bursts of a tenth of that.

    Args:
        size: how many callers are remembered (the least recently seen are forgotten, with a full bucket).
    """

    def __init__(self, size: int = 100_000) -> None:
        self.size = size
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, key: str, per_minute: int, n: int = 1, now: float | None = None, *, dry: bool = False) -> float | None:
        """Takes ``n`` tokens of ``key``'s bucket: ``None`` if there were, else the milliseconds until there are
        (``dry``: only says so, takes nothing)."""
        now = time.monotonic() if now is None else now
        rate = per_minute / 60.0  # tokens a second
        capacity = max(float(n), per_minute / 10.0)
        with self._lock:
            tokens, then = self._buckets.pop(key, (capacity, now))
            tokens = min(capacity, tokens + (now - then) * rate)
            if tokens >= n:
                self._buckets[key] = (tokens - (0 if dry else n), now)
                wait = None
            else:
                self._buckets[key] = (tokens, now)
                wait = (n - tokens) / rate * 1000.0
            while len(self._buckets) > self.size:
                self._buckets.popitem(last=False)
        return wait

    def check(self, key: str, caps: Caps, question: str = "", now: float | None = None, *, dry: bool = False) -> None:
        """Takes the tokens ``question`` costs (:func:`cost`) from ``key``'s bucket under ``caps`` (``dry``:
        only checks that they are there — before the work of proving the caller, who alone may spend them).

        Raises:
            RateLimitedError: too few are left; it says when there will be enough.
        """
        wait = self.take(key, caps.max_questions_per_minute, cost(question), now, dry=dry)
        if wait is not None:
            raise RateLimitedError(f"more than {caps.max_questions_per_minute} questions a minute ({caps.source})", wait)
