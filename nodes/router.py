"""A router: the gate for its subtree, a concurrent fan-out to its children, a merge by score.

Routers nest to any depth: a child is any node path (a leaf or another router). The router
keeps a reserve of its budget for merging and for its reply's transit (:class:`bus.budget.Reserve`)
and gives its children the rest, so it always answers before its own deadline with whatever
arrived, and reports every child that did not.
"""

from __future__ import annotations

import time

from bus import headers as h
from bus.budget import Budget
from bus.messages import Query, SearchResult
from bus.scatter import scatter_gather
from bus.subjects import query_subject
from nodes._service import NodeService
from nodes.merge import merge
from policies.gate import Gate


class Router(NodeService):
    """Fans a query out to ``children`` (node paths) and merges their results."""

    role = "router"

    request_model = Query

    def __init__(self, path: str, children: list[str], *, gate: Gate | None = None,
                 default_budget_ms: float = 2000.0, leaves: dict[str, int] | None = None) -> None:
        super().__init__(path, query_subject(path), default_budget_ms, gate)
        self.children = list(children)
        #: How many leaves each child's subtree holds, so a child cannot claim more (see :func:`bus.scatter.check_result`).
        self.max_leaves = {query_subject(child): n for child, n in (leaves or {}).items()}

    def describe(self) -> dict[str, str]:
        return {**super().describe(), "children": ",".join(self.children)}

    async def handle(self, request, query: Query, budget: Budget, caller) -> SearchResult:
        started = time.monotonic()
        outcomes = await scatter_gather(
            self.nc, [query_subject(child) for child in self.children], request.data,
            budget_ms=budget.for_children(),
            headers={h.KIND: "query", **h.forwardable(request.headers)}, max_leaves=self.max_leaves,
        )
        result = merge(outcomes, query.k, self.subject, (time.monotonic() - started) * 1000.0, collapse=query.collapse)
        self.counters["queries"] += 1
        self.counters["partial"] += int(result.partial)
        return result
