"""The two points where a node asks a policy: the gate and the per-passage check.

Every router and leaf calls :meth:`Gate.check` before searching (may this caller search this
subtree?) and every leaf calls :meth:`Gate.visible` for each candidate passage (may this caller see
it?). Nodes get the caller's request headers, never attributes decided by another node: each node
verifies the caller itself.
"""

from __future__ import annotations

from typing import Any, Protocol


class Gate(Protocol):
    """What nodes require of a policy."""

    def check(self, headers: dict[str, str], path: str) -> Any:
        """Returns the caller's verified context, or raises :class:`bus.errors.DeniedError`."""

    def visible(self, context: Any, passage: Any) -> bool:
        """Whether the caller (as returned by :meth:`check`) may see ``passage``."""


class AllowAll:
    """Every caller may search everything and see every passage (no identities configured)."""

    def check(self, headers: dict[str, str], path: str) -> None:
        return None

    def visible(self, context: Any, passage: Any) -> bool:
        return True
