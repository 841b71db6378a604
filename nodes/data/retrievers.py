"""What a leaf searches: a retriever over its records, of the kind its spec names.

A leaf calls one interface, :class:`Retriever`: :meth:`Retriever.search` returns the leaf's complete top
k for a query — exact scores in the one total order (:mod:`nodes.data.topk`), only what the caller may
see, the question's patient names resolved against the patients it holds — and what it knows of those
names. :data:`RETRIEVERS` is the table of kinds, chosen by ``retriever = "..."`` on a leaf of the spec as
loaders are by ``format`` (:mod:`nodes.data.loaders`); :func:`check` names the valid ones. A new kind (a
lexical index, read-only SQL over a table) is a class with the same two methods and a line in the table.

Example::

    retriever = make("passages", store, "hospital_a.medicine")
    found = retriever.search(query, visible=lambda metadata: True)
    found.hits, found.known, found.filtered
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple, Protocol

import numpy as np

from bus.errors import SpecError
from bus.messages import MAX_FETCH_K, Hit, Query
from bus.subjects import org_of
from nodes.data.chunking import Passage
from nodes.data.index import TOLERANCE
from nodes.data.store import LeafStore
from nodes.data.topk import Candidates, digest, search_complete

#: Whether a caller may see a passage with these metadata — its record's, and its ``record_id`` — (the leaf's
#: per-document policy).
Visible = Callable[[dict], bool]


class Retrieved(NamedTuple):
    """What a retriever found for one query.

    Attributes:
        hits: the top k (and every hit tied with the k-th), in the total order.
        known: the question's names (:class:`bus.messages.Filters`) this leaf holds patients of.
        filtered: the search was restricted to named patients.
    """

    hits: list[Hit]
    known: list[str]
    filtered: bool


class Retriever(Protocol):
    """What a leaf asks of its records."""

    #: The fingerprint of the embedding model its vectors come from (queries by another are refused).
    fingerprint: str
    #: The dimension of those vectors.
    dim: int

    def __len__(self) -> int:
        """How many passages it holds."""

    def search(self, query: Query, visible: Visible) -> Retrieved:
        """The complete top ``query.k`` of what the caller may see."""


class PassageRetriever:
    """Passages and their vectors in a :class:`~nodes.data.store.LeafStore`, ranked by cosine similarity.

    A question that names patients this leaf holds is scored against those patients' passages directly
    (a name narrows the set so much that the index's nearest neighbours could all be other patients');
    otherwise candidates come from the hnswlib index in growing batches until the top k is certain,
    and are scored exactly from the stored vectors.
    """

    def __init__(self, store: LeafStore, path: str) -> None:
        self.store = store
        self.path = path
        self.fingerprint = store.fingerprint
        self.dim = store.index.dim

    def __len__(self) -> int:
        return len(self.store)

    def search(self, query: Query, visible: Visible) -> Retrieved:
        vector = query.vector()
        names = list(dict.fromkeys(query.filters.patients + query.filters.candidates))
        known = self.store.known_patients(names)

        def hits_of(labels) -> list[Hit]:
            hits = []
            for passage, score, stored in self.store.scored(labels, vector):
                metadata = {**passage.metadata, "record_id": passage.record_id}
                if visible(metadata):
                    hits.append(self._hit(passage, metadata, score, stored if query.vectors else None))
            return hits

        if known or query.filters.patients:
            labels = self.store.labels_of_patients(known)  # none when no name is known here

            def fetch(n: int) -> Candidates:
                return Candidates(hits_of(labels), bound=float("-inf"), exhausted=True)
        else:
            def fetch(n: int) -> Candidates:
                labels, approx = self.store.index.search(vector, n)
                bound = float(approx.min()) + TOLERANCE if len(approx) else float("-inf")
                return Candidates(hits_of(labels), bound=bound, exhausted=len(labels) >= len(self.store))

        hits = search_complete(fetch, query.k, query.fetch_k, limit=MAX_FETCH_K, collapse=query.collapse)
        return Retrieved(hits, known, bool(known or query.filters.patients))

    def _hit(self, passage: Passage, metadata: dict, score: float, vector=None) -> Hit:
        return Hit(id=passage.id, org=org_of(self.path), path=self.path, score=score, text=passage.text,
                   patient=passage.patient, metadata=metadata,
                   digest=digest(passage.body, passage.patient),
                   vector=None if vector is None else np.asarray(vector, dtype="<f4").tobytes())


#: Every kind of retriever a leaf may be, by the name its spec gives (``retriever = "passages"``).
RETRIEVERS: dict[str, Callable[[LeafStore, str], Retriever]] = {
    "passages": PassageRetriever,
}
DEFAULT = "passages"


def check(kind: str) -> None:
    """Raises:
        SpecError: ``kind`` is not a retriever; the message names those there are.
    """
    if kind not in RETRIEVERS:
        raise SpecError(f"unknown retriever {kind!r} (there are: {', '.join(sorted(RETRIEVERS))})")


def make(kind: str, store: LeafStore, path: str) -> Retriever:
    """A retriever of ``kind`` over ``store`` for the leaf at ``path``."""
    check(kind)
    return RETRIEVERS[kind](store, path)
