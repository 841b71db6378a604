"""A router: the gate for its subtree, a concurrent fan-out to its children, a merge by score, and
optionally a summary of everything its subtree returned.

Routers nest to any depth: a child is any node path (a leaf or another router). The router
keeps a reserve of its budget for merging and for its reply's transit (:class:`bus.budget.Reserve`)
and gives its children the rest, so it always answers before its own deadline with whatever
arrived, and reports every child that did not.

A router configured to summarize (``summarize = "extractive"`` or ``"llm"`` in the spec) does so
when the question asks for an answer: it asks its children for the passages' vectors, keeps a
larger reserve for the summarizer, and summarizes every passage its children returned — not only
the top k it passes up (:mod:`summarizer.summaries`). The summary travels up beside the hits; one
that cannot finish in time is reported ``timed_out`` and the passages still go up.

A router whose policy releases only summaries to the caller (``summaries_only``) always summarizes
and passes up its hits without their text or metadata: the caller learns which passages there are
and what the summary says of them, never the passages themselves.
"""

from __future__ import annotations

import asyncio
import time

from bus import codec
from bus import headers as h
from bus.budget import Budget
from bus.messages import Hit, Query, SearchResult
from bus.scatter import scatter_gather
from bus.subjects import query_subject
from nodes._admission import Admission
from nodes._service import NodeService
from nodes.leaf import weigh_here
from nodes.merge import merge, pooled
from policies.gate import Gate
from summarizer import extractive
from summarizer.summaries import Summarizer


class Router(NodeService):
    """Fans a query out to ``children`` (node paths), merges their results and may summarize them.

    Args:
        summarizer: how this router summarizes (``None``: it does not, unless it releases only
            summaries to the caller; then it summarizes extractively).
    """

    role = "router"

    request_model = Query

    def __init__(self, path: str, children: list[str], *, gate: Gate | None = None,
                 default_budget_ms: float = 2000.0, leaves: dict[str, int] | None = None,
                 summarizer: Summarizer | None = None, admission: Admission | None = None) -> None:
        super().__init__(path, query_subject(path), default_budget_ms, gate, admission)
        self.children = list(children)
        #: How many leaves each child's subtree holds, so a child cannot claim more (see :func:`bus.scatter.check_result`).
        self.max_leaves = {query_subject(child): n for child, n in (leaves or {}).items()}
        self.summarizer = summarizer

    async def start(self, nc, *, here: bool = True) -> None:
        """Serves — a router that summarizes while what a summary needs loads in the background
        (:func:`summarizer.extractive.load`), so that the first question it summarizes need not wait a second or more
        for it."""
        if self.summarizer is not None:
            asyncio.get_running_loop().run_in_executor(None, extractive.load)
        await super().start(nc, here=here)

    def describe(self) -> dict[str, str]:
        return {**super().describe(), "children": ",".join(self.children),
                "summarize": self.summarizer.method if self.summarizer else "none"}

    def _asked(self, query: Query) -> list[str]:
        """The children a query goes to: all of them, or for a follow-up (a record's passages, or passages'
        sentences) those above a leaf it names (none, here, if none is in this subtree: the request was still
        checked, and its proof spent, at this router)."""
        if query.want not in ("record", "sentences"):
            return self.children
        return [child for child in self.children if any(_above(child, path) for path in query.named())]

    async def handle(self, request, query: Query, budget: Budget, caller) -> SearchResult:
        started = time.monotonic()
        trace = (request.headers or {}).get(h.TRACE, "")
        passages = query.want != "stats"  # hits or a record's passages: what the caller may read of them
        k = self.gate.limit_k(caller, query.k, self.path, trace) if passages else query.k
        withhold = self.gate.only_summaries(caller, self.path, trace) if passages else False
        summarizer = self.summarizer or (Summarizer.default() if withhold else None)
        summarizing = summarizer is not None and (query.summarize != "none" or withhold) and query.want == "hits"
        payload, asked = request.data, query
        if summarizing:
            budget = budget.with_reserve(budget.reserve.plus(summarizer.reserve_ms))
            if not query.vectors:
                asked = query.model_copy(update={"vectors": True})
                payload = codec.encode(asked)
        # the leaves of this process leave their hits' best sentences to this router's merge (or its parent's, in
        # this process too); children elsewhere get the payload and weigh their own
        weighing = query.mode == "hybrid" and query.want == "hits" and (query.weigh or withhold)
        outcomes = await scatter_gather(
            self.nc, [query_subject(child) for child in self._asked(query)], payload,
            budget_ms=budget.for_children(),
            headers={h.KIND: h.Kind.QUERY, **h.forwardable(request.headers, query.use)}, max_leaves=self.max_leaves,
            here=True, message=asked.model_copy(update={"weigh": False}) if weighing else asked,
        )
        result = merge(outcomes, k, self.subject, (time.monotonic() - started) * 1000.0, collapse=query.collapse,
                       cap=self.gate.max_passages(caller) if passages else None, lexical_k=query.lexical_depth(k))
        if weighing:  # on the event loop when its leaves hold the sentences in memory, else off it
            kept, vector = [*result.hits, *result.lexical], query.vector(named=result.filtered)
            at_once = weigh_here(kept, vector, at_once=True)
            self.counters["weighed.at_once"] += at_once
            if not at_once:
                await asyncio.get_running_loop().run_in_executor(None, weigh_here, kept, vector)
        if summarizing:
            summary = await summarizer.summarize(self.path, query, pooled(outcomes, lexical=query.mode == "lexical"),
                                                 budget.for_own_work(), named=result.of_named)
            result.summaries.append(summary)
            self.counters[f"summaries.{summary.status}"] += 1
        if withhold:
            result.hits = [_withheld(hit) for hit in result.hits]
            result.lexical = [_withheld(hit) for hit in result.lexical]
            self.counters["withheld"] += 1
        elif not query.vectors:
            result.hits = [hit.model_copy(update={"vector": None}) if hit.vector else hit for hit in result.hits]
            result.lexical = [hit.model_copy(update={"vector": None}) if hit.vector else hit for hit in result.lexical]
        result.took_ms = round((time.monotonic() - started) * 1000.0, 2)
        self.counters["queries"] += 1
        self.counters["partial"] += int(result.partial)
        return result


def _above(child: str, path: str) -> bool:
    """Whether ``path`` is ``child`` or in its subtree."""
    return path == child or path.startswith(child + ".")


def _withheld(hit: Hit) -> Hit:
    """``hit`` as a caller who gets only summaries sees it: where it is, its score and patient, no text."""
    return hit.model_copy(update={"text": "", "metadata": {}, "vector": None, "withheld": True})
