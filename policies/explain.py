"""Who may search what, and why: the access matrix of a federation's users over its nodes.

The matrix is computed from the same :class:`~policies.abac.NodePolicy` objects the nodes enforce. A
node is reachable only if its own gate and every gate above it allow: a router that denies is never
searched, so nothing below it is either.
"""

from __future__ import annotations

from dataclasses import dataclass

from bus.subjects import ancestors
from policies.abac import Decision, NodePolicy


@dataclass(frozen=True)
class Cell:
    """One user at one node: allowed or not, and the decision that settled it."""

    allowed: bool
    node: str
    decision: Decision


def access(attributes: dict[str, list[str]], path: str, policies: dict[str, NodePolicy]) -> Cell:
    """Whether a caller with ``attributes`` gets answers from the node at ``path``, deciding top-down."""
    decision = Decision(True, None, "open node")
    for node in ancestors(path):
        decision = policies.get(node, NodePolicy()).admit(attributes)
        if not decision.allowed:
            return Cell(False, node, decision)
    return Cell(True, path, decision)


def matrix(users: dict[str, dict[str, list[str]]], policies: dict[str, NodePolicy]) -> dict[str, dict[str, Cell]]:
    """``{user: {node path: cell}}`` for every user and every node in ``policies``."""
    return {user: {path: access(attrs, path, policies) for path in policies} for user, attrs in users.items()}


def matrix_text(users: dict[str, dict[str, list[str]]], policies: dict[str, NodePolicy],
                labels: dict[str, str] | None = None) -> str:
    """The matrix as a table: a row per user, a column per node (``✓`` allowed, ``×`` denied), grouped by organization."""
    cells = matrix(users, policies)
    orgs: dict[str, list[str]] = {}
    for path in policies:
        orgs.setdefault(path.split(".")[0], []).append(path)
    labels = labels or {}
    width = max([len(labels.get(u, u)) for u in users] + [4])

    def short(path: str) -> str:
        return path.rsplit(".", 1)[1][:3] if "." in path else "rtr"

    groups = [(org, paths, max(len(org), 4 * len(paths) - 1)) for org, paths in orgs.items()]
    lines = [" " * width + "  " + " | ".join(f"{org:<{w}}" for org, _, w in groups),
             " " * width + "  " + " | ".join(f"{' '.join(short(p) for p in paths):<{w}}" for _, paths, w in groups)]
    for user in users:
        row = [f"{' '.join(' ✓ ' if cells[user][p].allowed else ' × ' for p in paths):<{w}}" for _, paths, w in groups]
        lines.append(f"{labels.get(user, user):<{width}}  " + " | ".join(row))
    return "\n".join(line.rstrip() for line in lines)


def explain(user: str, attributes: dict[str, list[str]], path: str, policies: dict[str, NodePolicy]) -> str:
    """Which policy allowed ``user`` at ``path``, or which node denied and why."""
    cell = access(attributes, path, policies)
    if cell.allowed:
        return f"{user} may search {path}: {cell.decision.reason}"
    where = "" if cell.node == path else f" (at {cell.node}, above it)"
    return f"{user} is denied at {path}{where}: {cell.decision.reason}"
