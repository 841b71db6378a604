"""What the records hold of a question's words, remembered, so that the gateway's first pass can be skipped.

Every question is counted before it is searched (:meth:`nodes.gateway.Gateway._count`, the first of its two
passes): how many passages the caller may search and their total length, how many hold each of its terms, how many
mention each of its concepts — what BM25 scores with and what grounding and names are judged by. What the records
hold of one word does not depend on the question it is in, so the gateway remembers the sums word by word (each
term, each concept), per caller: what one may search is not what another may. A question whose words are all
remembered skips the first pass and is searched with the remembered sums.

Such a search counts its words at each leaf instead (``Query.recount``, from the leaf's own memory of the words it
read), summed up the tree beside the hits, so the gateway learns what the records held when they were searched
(:func:`agrees`): each leaf counts a question's words once, as in the first pass. The counts are forgotten:

* all of them, when an organization says its records may have changed (a leaf applied a write or started, with
  the policies it started with: ``fed.changed.<org>``), and when the gateway's connection to the broker was
  lost (it may have missed such a notice);
* a caller's, when a search counted otherwise than what it was searched with, every organization answering (a
  notice lost, or a change that raced the question): what was counted then is used for the rest of the answer.

Only counts every organization gave (:func:`nodes.merge.complete`: it answered whole, or its policies refused the
caller; both last as long as its process) are remembered, so a question searched with remembered counts is scored
as one searched after its own first pass: federated still equals centralized, as the tests check.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Sequence

from bus.messages import CollectionStats
from bus.scatter import ChildOutcome
from nodes.merge import complete

#: How many words' counts are remembered, over all callers (a term or a concept each; an entry is a few dozen bytes).
REMEMBERED_WORDS = 50_000
#: How many callers' counts are remembered (past it, everyone's are forgotten: tokens come and go).
REMEMBERED_CALLERS = 4_096

#: A concept: its alternatives, each a sequence of terms (tuples or the lists of a decoded query: the same word).
Concept = Sequence[Sequence[str]]


class Counts:
    """The sums of the first pass, per caller (``scope``: anything hashable that tells callers apart)."""

    def __init__(self, size: int = REMEMBERED_WORDS) -> None:
        self.size = size
        self._totals: dict[Hashable, tuple[int, int, int]] = {}  # docs, length, people
        self._words: OrderedDict[tuple[Hashable, str, Hashable], int] = OrderedDict()

    def __len__(self) -> int:
        return len(self._words)

    def recall(self, scope: Hashable, terms: Sequence[str], concepts: Sequence[Concept]) -> CollectionStats | None:
        """The counts of ``terms`` and ``concepts`` for ``scope``, if every one of them is remembered, else ``None``."""
        totals = self._totals.get(scope)
        if totals is None:
            return None
        keys = [(scope, "term", term) for term in dict.fromkeys(terms)] + [(scope, "concept", _key(c)) for c in concepts]
        if not all(key in self._words for key in keys):
            return None
        for key in keys:
            self._words.move_to_end(key)
        docs, length, people = totals
        return CollectionStats(docs=docs, length=length, people=people,
                               df={key[2]: self._words[key] for key in keys if key[1] == "term"},
                               concepts=[self._words[key] for key in keys if key[1] == "concept"])

    def remember(self, scope: Hashable, terms: Sequence[str], concepts: Sequence[Concept], stats: CollectionStats,
                 outcomes: Sequence[ChildOutcome]) -> None:
        """Remembers what ``stats`` (counted by ``outcomes``) says of ``terms`` and ``concepts`` (in the order of its
        own), if every organization gave a lasting answer."""
        if not complete(outcomes) or len(stats.concepts) < len(concepts):
            return
        if self._totals.get(scope, (stats.docs, stats.length, stats.people)) != (stats.docs, stats.length, stats.people):
            self.forget(scope)  # the collection is not what the words were counted in
        if scope not in self._totals and len(self._totals) >= REMEMBERED_CALLERS:
            self.forget()
        self._totals[scope] = (stats.docs, stats.length, stats.people)
        for term in terms:
            self._words[(scope, "term", term)] = stats.df.get(term, 0)
            self._words.move_to_end((scope, "term", term))
        for concept, n in zip(concepts, stats.concepts):
            key = (scope, "concept", _key(concept))
            self._words[key] = n
            self._words.move_to_end(key)
        while len(self._words) > self.size:
            self._words.popitem(last=False)

    def forget(self, scope: Hashable | None = None) -> None:
        """Forgets ``scope``'s counts, or everyone's."""
        if scope is None:
            self._totals.clear()
            self._words.clear()
            return
        self._totals.pop(scope, None)
        for key in [key for key in self._words if key[0] == scope]:
            del self._words[key]


def _key(concept: Concept) -> tuple[tuple[str, ...], ...]:
    """``concept`` as the memory keys it, however it was written."""
    return tuple(map(tuple, concept))


def agrees(used: CollectionStats, counted: CollectionStats | None, terms: Sequence[str], concepts: int) -> bool:
    """Whether a search's own count (``counted``) is what it was searched with (``used``) for its ``terms`` and
    its first ``concepts`` concepts."""
    if counted is None:
        return False
    if (used.docs, used.length, used.people) != (counted.docs, counted.length, counted.people):
        return False
    if any(used.df.get(term, 0) != counted.df.get(term, 0) for term in terms):
        return False
    return used.concepts[:concepts] == counted.concepts[:concepts]
