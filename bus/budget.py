"""Deadline budgets: one value object for every timeout decision.

A request carries its *remaining* budget in the ``Fed-Budget-Ms`` header, relative rather than an
absolute deadline, so clock skew between sites does not matter (gRPC's ``grpc-timeout`` does the
same). Each hop starts a :class:`Budget` when the request arrives, spends some of it, keeps a
*reserve* for its own merge and for the reply's transit, and gives each child the rest. It then
answers at its own deadline with whatever arrived.

Example::

    budget = Budget.from_headers(msg.headers, default_ms=2000)
    if budget.expired:
        ...  # answer "expired" at once
    child_ms = budget.for_children()
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from bus import headers as h
from bus.errors import ValidationError

#: Longest budget a request may ask for (10 minutes).
MAX_BUDGET_MS = 600_000.0
#: At most this share of a hop's budget (after its plain reserve) is kept for its own extra work.
MAX_EXTRA_SHARE = 0.5


@dataclass(frozen=True)
class Reserve:
    """What a hop keeps for itself before handing the rest of its budget to its children.

    Attributes:
        fixed_ms: a floor covering the reply's transit and the merge.
        fraction: a share of the remaining budget, so deep trees still leave each level room.
        extra_ms: more kept for work the hop does after its children answer (a summary, an answer);
            never more than :data:`MAX_EXTRA_SHARE` of what the rest of the reserve leaves, so the
            evidence is always looked for, and the extra work gets what is left when time is short.
    """

    fixed_ms: float = 15.0
    fraction: float = 0.1
    extra_ms: float = 0.0

    def of(self, remaining_ms: float) -> float:
        """The reserve for a hop that has ``remaining_ms`` left."""
        remaining_ms = max(remaining_ms, 0.0)
        base = self.fixed_ms + self.fraction * remaining_ms
        return base + min(self.extra_ms, MAX_EXTRA_SHARE * max(remaining_ms - base, 0.0))

    def plus(self, extra_ms: float) -> "Reserve":
        """This reserve keeping ``extra_ms`` more for the hop's own work."""
        return Reserve(self.fixed_ms, self.fraction, self.extra_ms + extra_ms)


@dataclass(frozen=True)
class Budget:
    """A time budget that started at ``started`` (``time.monotonic()``) with ``total_ms``."""

    total_ms: float
    started: float = field(default_factory=time.monotonic)
    reserve: Reserve = Reserve()

    @classmethod
    def start(cls, total_ms: float, reserve: Reserve = Reserve()) -> "Budget":
        """A budget of ``total_ms`` starting now."""
        return cls(total_ms=float(total_ms), reserve=reserve)

    @classmethod
    def from_headers(
        cls, headers: dict[str, str] | None, default_ms: float, reserve: Reserve = Reserve()
    ) -> "Budget":
        """The budget a request carries, or ``default_ms`` if it carries none.

        Raises:
            ValidationError: the header is not a finite number or exceeds :data:`MAX_BUDGET_MS`.
        """
        raw = (headers or {}).get(h.BUDGET)
        if raw is None:
            return cls.start(default_ms, reserve)
        try:
            value = float(raw)
        except ValueError:
            raise ValidationError(f"{h.BUDGET} header {raw!r} is not a number of milliseconds") from None
        if not math.isfinite(value) or value > MAX_BUDGET_MS:
            raise ValidationError(f"{h.BUDGET} header {raw!r} must be finite and at most {MAX_BUDGET_MS:.0f}")
        return cls.start(value, reserve)

    def with_reserve(self, reserve: Reserve) -> "Budget":
        """The same budget, keeping ``reserve`` for this hop instead (e.g. a router that summarizes)."""
        return Budget(total_ms=self.total_ms, started=self.started, reserve=reserve)

    def elapsed_ms(self) -> float:
        """Milliseconds spent since the budget started."""
        return (time.monotonic() - self.started) * 1000.0

    def remaining_ms(self) -> float:
        """Milliseconds left (negative once the deadline has passed)."""
        return self.total_ms - self.elapsed_ms()

    @property
    def expired(self) -> bool:
        """Whether nothing is left."""
        return self.remaining_ms() <= 0.0

    def for_own_work(self) -> float:
        """What this hop may spend on its own work after its children answered (a summary, an answer):
        the remainder less the plain reserve for the reply's transit (never negative)."""
        remaining = self.remaining_ms()
        return max(remaining - Reserve().of(remaining), 0.0)

    def for_children(self) -> float:
        """What each child may spend: the remainder less this hop's reserve (never negative)."""
        remaining = self.remaining_ms()
        return max(remaining - self.reserve.of(remaining), 0.0)

    @staticmethod
    def header(ms: float) -> dict[str, str]:
        """The header that hands ``ms`` milliseconds to the next hop."""
        return {h.BUDGET: f"{max(ms, 0.0):.1f}"}
