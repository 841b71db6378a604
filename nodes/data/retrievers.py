"""What a leaf searches: a retriever over its records, of the kind its spec names.

A leaf calls one interface, :class:`Retriever`: :meth:`Retriever.search` returns the leaf's complete top
k for a query — by the question's embedding, by BM25 with the federation's statistics, or both lists, as
the query's ``mode`` asks; exact scores in the one total order (:mod:`nodes.data.topk`), only what the
caller may see, the question's patient names resolved against the patients it holds — and what it knows
of those names; :meth:`Retriever.stats` counts what the caller may see of the question's words.
:data:`RETRIEVERS` is the table of kinds, chosen by ``retriever = "..."`` on a leaf of the spec as loaders
are by ``format`` (:mod:`nodes.data.loaders`); :func:`check` names the valid ones. A new kind (read-only
SQL over a table, say) is a class with the same methods and a line in the table.

Example::

    retriever = make("passages", store, "hospital_a.medicine")
    found = retriever.search(query, visible=lambda metadata: True)
    found.hits, found.lexical, found.known, found.filtered
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import islice
from typing import NamedTuple, Protocol

import numpy as np

from bus.errors import SpecError
from bus.messages import MAX_CARRIED_SENTENCES, MAX_FETCH_K, CollectionStats, Hit, Query
from bus.subjects import org_of
from nodes.data import _sentences, lexical
from nodes.data.index import TOLERANCE, best_scores
from nodes.data.store import LeafStore
from nodes.data.topk import Candidate, Candidates, evidence, search_complete

#: Whether a caller may see a passage with these metadata — its record's, and its ``record_id`` — (the leaf's
#: per-document policy).
Visible = Callable[[dict], bool]


class Retrieved(NamedTuple):
    """What a retriever found for one query.

    Attributes:
        hits: the top k by the question's embedding (and every hit tied with the k-th), in the total order.
        known: the question's names (:class:`bus.messages.Filters`) this leaf holds patients of.
        filtered: the search was restricted to named patients.
        lexical: the top ``lexical_k`` (or k) by BM25 (a ``lexical`` or ``hybrid`` query), likewise.
    """

    hits: list[Hit]
    known: list[str]
    filtered: bool
    lexical: list[Hit] = []


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

    def stats(self, query: Query, visible: Visible | None) -> CollectionStats:
        """What the passages the caller may see (all, with ``visible`` ``None``) hold of the query's words."""

    def stats_at_hand(self, query: Query) -> CollectionStats | None:
        """What every passage holds of the query's words, if that is at hand — no waiting and no reading, so the
        leaf's event loop may ask — or ``None``: :meth:`stats` then, off the event loop."""

    def sentence_rows(self, hits: list[Hit]) -> list[np.ndarray | None]:
        """For each of this retriever's ``hits``, the vectors of its passage's sentences an answer may quote, one row
        each (``None``: it has none), to be weighed by :func:`weigh`."""

    def sentence_rows_at_hand(self, hits: list[Hit]) -> list[np.ndarray | None] | None:
        """:meth:`sentence_rows` if they are at hand — no waiting and no reading, so an event loop may ask — or
        ``None``."""


class PassageRetriever:
    """Passages and their vectors in a :class:`~nodes.data.store.LeafStore`, ranked by cosine similarity.

    A question that names patients this leaf holds is scored against those patients' passages directly
    (a name narrows the set so much that the index's nearest neighbours could all be other patients'), as is a
    query for named records (``want = "record"``) or passages (``want = "sentences"``: each hit then carries its
    sentences' vectors, stored at ingestion); otherwise candidates come from the hnswlib index in growing
    batches until the top k is certain, and are scored exactly from the stored vectors. Lexically, every passage
    holding a question term is scored by BM25 with the statistics the query carries, restricted likewise.
    """

    def __init__(self, store: LeafStore, path: str) -> None:
        self.store = store
        self.path = path
        self.fingerprint = store.fingerprint
        self.dim = store.index.dim

    def __len__(self) -> int:
        return len(self.store)

    def search(self, query: Query, visible: Visible) -> Retrieved:
        names = list(dict.fromkeys(query.filters.patients + query.filters.candidates))
        known = self.store.known_patients(names)
        vector = query.vector(named=bool(known))  # the named patients' passages by what is asked of them
        filtered = bool(known or query.filters.patients)
        within = set(self.store.labels_of_patients(known)) if filtered else None  # none when no name is known here
        if query.records or query.passages:
            named = set(self.store.labels_of_records([ref.id for ref in query.records if ref.path == self.path])
                        + self.store.labels_of_passages([ref.id for ref in query.passages if ref.path == self.path]))
            within = named if within is None else within & named
        bm25 = self._bm25(query, within) if query.mode != "dense" else None
        read = _Read(query, vector, visible, bm25, per_patient=query.per_patient and not filtered)
        first = _with_ties(bm25, query.lexical_depth()) if bm25 else 0  # the lexical list's first batch
        if query.mode == "hybrid":  # its likely passages are read with the dense list's first
            read.ahead = list(islice(bm25, first))
        dense = self._dense(query, read, within) if query.mode != "lexical" else []
        lexical = self._lexical(query, read, first) if bm25 else []
        if query.mode == "hybrid" and query.weigh:
            weighed = [*dense, *lexical]
            weigh(weighed, self.sentence_rows(weighed), vector)
        return Retrieved(dense, known, filtered, lexical)

    def sentence_rows(self, hits: list[Hit]) -> list[np.ndarray | None]:
        return self.store.sentence_rows([(hit.text, hit.patient) for hit in hits])

    def sentence_rows_at_hand(self, hits: list[Hit]) -> list[np.ndarray | None] | None:
        return self.store.sentence_rows_at_hand([(hit.text, hit.patient) for hit in hits])

    def stats(self, query: Query, visible: Visible | None) -> CollectionStats:
        return _collection(self.store.term_stats(query.terms, query.concepts, visible))

    def stats_at_hand(self, query: Query) -> CollectionStats | None:
        found = self.store.term_stats_at_hand(query.terms, query.concepts)
        return None if found is None else _collection(found)

    def _dense(self, query: Query, read: _Read, within: set[int] | None) -> list[Hit]:
        if within is not None:
            def fetch(n: int) -> Candidates:
                return Candidates(self._hits(sorted(within), read), bound=float("-inf"), exhausted=True)
        else:
            def fetch(n: int) -> Candidates:
                labels, approx = self.store.index.search(read.vector, n)
                bound = float(approx.min()) + TOLERANCE if len(approx) else float("-inf")
                return Candidates(self._hits(labels, read), bound=bound, exhausted=len(labels) >= len(self.store))

        return [kept.hit() for kept in search_complete(fetch, query.k, query.fetch_k, limit=MAX_FETCH_K,
                                                       collapse=query.collapse)]

    def _bm25(self, query: Query, within: set[int] | None) -> dict[int, float]:
        """BM25 with the federation's statistics of every passage holding one of the question's terms (``within``
        the named patients' or records' passages, if any), by label, best first (then by label); empty without
        terms or statistics."""
        stats = query.stats
        if not query.terms or stats is None or not stats.docs:
            return {}
        df = {term: stats.df.get(term, 0) for term in dict.fromkeys(query.terms)}
        labels, scores = lexical.scores(df, stats.docs, stats.length, self.store.term_columns(query.terms))
        if within is not None:
            held = np.isin(labels, np.fromiter(within, dtype=np.int64, count=len(within)))
            labels, scores = labels[held], scores[held]
        order = np.lexsort((labels, -scores))
        return dict(zip(labels[order].tolist(), scores[order].tolist()))

    def _lexical(self, query: Query, read: _Read, first: int) -> list[Hit]:
        """The top ``lexical_k`` (or k) by BM25: every passage holding a term is scored (:meth:`_bm25`), then passages
        are read in growing batches of the best until collapsing and visibility leave that many certain."""
        scored = [(score, label) for label, score in read.bm25.items()]  # best first

        def fetch(n: int) -> Candidates:
            hits = self._hits([label for _, label in scored[:n]], read, ranked_by_bm25=True)
            bound = scored[n][0] if n < len(scored) else float("-inf")
            return Candidates(hits, bound=bound, exhausted=n >= len(scored))

        # every passage holding a term is scored exactly, so the first k in the total order are the leaf's
        # share of the federation's top k; BM25 ties are common (short templated notes) and are not all sent
        k = query.lexical_depth()
        return [kept.hit() for kept in search_complete(fetch, k, first, limit=len(scored), collapse=query.collapse,
                                                       ties=False)]

    def _hits(self, labels, read: _Read, ranked_by_bm25: bool = False) -> list[Candidate]:
        """The visible passages under ``labels`` as candidate hits: scored by BM25 (``ranked_by_bm25``) or by cosine
        similarity, with both (BM25 when the search has it: 0 for a passage without the question's words) and, if
        the query asks, their vectors. Each passage is read, scored and judged once per search (``read``), however
        many batches and lists hold it."""
        labels = [int(label) for label in labels]
        new = list(dict.fromkeys(label for label in (*labels, *read.ahead) if label not in read.found))
        read.ahead = []
        if new:
            org = org_of(self.path)
            read.found.update(dict.fromkeys(new))  # what the store no longer holds stays None
            for label, passage, similarity, stored in self.store.scored(new, read.vector):
                metadata = {**passage.metadata, "record_id": passage.record_id}
                if read.visible(metadata):
                    read.found[label] = dict(
                        id=passage.id, org=org, path=self.path, text=passage.text, patient=passage.patient,
                        metadata=metadata, digest=evidence(passage.body, passage.patient, read.per_patient),
                        similarity=similarity,
                        bm25=None if read.bm25 is None else read.bm25.get(label, 0.0),
                        vector=np.asarray(stored, dtype="<f4").tobytes() if read.query.vectors else None,
                        sentences=self._carried_sentences(passage) if read.query.want == "sentences" else None)
        made = read.by_bm25 if ranked_by_bm25 else read.by_similarity
        for label in labels:
            if label not in made and read.found[label] is not None:
                fields = read.found[label]
                made[label] = Candidate(fields["bm25"] if ranked_by_bm25 else fields["similarity"], fields)
        return [made[label] for label in labels if label in made]

    def _carried_sentences(self, passage) -> bytes | None:
        """The stored vectors of the sentences an answer may weigh of ``passage``, as a hit carries them (none if
        it has more than :data:`~bus.messages.MAX_CARRIED_SENTENCES`, or some was not stored)."""
        said = _sentences.weighed(passage.text, passage.patient)
        if not said or len(said) > MAX_CARRIED_SENTENCES:
            return None
        vectors = self.store.sentence_vectors(said)
        return None if vectors is None else np.asarray(vectors, dtype="<f4").tobytes()


def _collection(counted: tuple[int, int, dict[str, int], list[int], int]) -> CollectionStats:
    """A store's counts (:meth:`~nodes.data.store.LeafStore.term_stats`) as a leaf sends them."""
    docs, length, df, mentions, people = counted
    return CollectionStats(docs=docs, length=length, df=df, concepts=mentions, people=people)


def weigh(hits: list[Hit], rows: list[np.ndarray | None], vector: np.ndarray) -> None:
    """Gives each of ``hits`` of a hybrid question the similarity to ``vector`` of its passage's best sentence
    (:attr:`Hit.sentence`) from its ``rows`` (:meth:`Retriever.sentence_rows`), all in one go
    (:func:`nodes.data.index.best_scores`, exact and the same whatever is weighed with it): by a leaf once its lists
    are chosen (only the passages sent are weighed) or, for the leaves of its own process (``weigh`` false), by a
    router once its merge has chosen (:func:`nodes.leaf.weigh_here`)."""
    for hit, best in zip(hits, best_scores(rows, vector)):
        hit.sentence = best


def _with_ties(bm25: dict[int, float], k: int) -> int:
    """How many of the passages ranked by BM25 (best first) a search reads first for a top ``k``: the ``k`` best and
    every one tied with the k-th, since which of those is first in the total order is by passage id (ties are common
    in short templated notes); then one batch is enough unless visibility or copies leave fewer than ``k``."""
    n, last = 0, None
    for score in bm25.values():
        if n >= k and score != last:
            break
        n, last = n + 1, score
    return n


class _Read:
    """What one search has read: each passage's fields (``None``: hidden from the caller, or gone) and its hits
    ranked by similarity and by BM25, so growing batches and the second list read, score, judge and make
    nothing twice."""

    def __init__(self, query: Query, vector: np.ndarray, visible: Visible, bm25: dict[int, float] | None, *,
                 per_patient: bool = False) -> None:
        self.query, self.vector, self.visible, self.bm25 = query, vector, visible, bm25
        #: Each patient's passages are one piece of evidence (a question asking which patients, not restricted to some).
        self.per_patient = per_patient
        self.found: dict[int, dict | None] = {}
        #: Passages to read with the next batch, whichever list asks for it.
        self.ahead: list[int] = []
        self.by_similarity: dict[int, Candidate] = {}
        self.by_bm25: dict[int, Candidate] = {}


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
