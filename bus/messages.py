"""The message models every hop exchanges, validated by pydantic on both ends.

Bodies travel as msgpack (see :mod:`bus.codec`); what every hop needs without decoding the body
travels in NATS headers (:mod:`bus.headers`). The shapes follow ``DESIGN.md``:

* :class:`Query` goes down the tree, from the gateway to routers and leaves.
* :class:`SearchResult` comes back up: scored :class:`Hit` objects plus the per-node report
  (:class:`Coverage` and one :class:`NodeReport` per node, modelled on Elasticsearch
  cross-cluster search and Vespa coverage).
* :class:`ErrorInfo` is the body of every error reply.
* :class:`Summary` is a router's condensed view of every passage its subtree returned; it travels
  up beside the hits, in :attr:`SearchResult.summaries`.
* What a client and a gateway say to each other on ``fed.ask`` is :mod:`bus.asking`.
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

import numpy as np
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

#: Every status a node can have in a report.
Status = Literal["successful", "partial", "timed_out", "unavailable", "denied", "failed", "expired"]
#: The statuses counted in :class:`Coverage` (``partial`` is not: a partial subtree adds its parts).
COUNTED_STATUSES = ("successful", "timed_out", "unavailable", "denied", "failed", "expired")

MAX_QUESTION_CHARS = 8_000
MAX_DIM = 4_096
MAX_K = 1_000
MAX_FETCH_K = 10_000
#: How many candidates a leaf takes from its index at first, before filters and collapsing; it takes more, in
#: growing batches, until its top k is certain (:func:`nodes.data.topk.search_complete`), so this trades a
#: second batch now and then against scoring candidates it does not need (at 20, a demo leaf's dense search
#: takes two thirds of the CPU it took at 50).
FETCH_K = 20

Scalar = Union[str, int, float, bool, None]


def not_unit(vectors: np.ndarray) -> str | None:
    """Why ``vectors`` (one, or one per row) are not finite unit vectors, as embeddings are, or ``None``: zero,
    denormal or unnormalized vectors give meaningless scores."""
    rows = np.atleast_2d(np.asarray(vectors, dtype=np.float64))
    if not np.isfinite(rows).all():
        return "holds NaN or infinite values"
    norms = np.linalg.norm(rows, axis=1)
    off = np.abs(norms - 1.0) > 1e-3
    return f"must be a unit vector (its norm is {float(norms[off][0]):.3g})" if off.any() else None


class _Model(BaseModel):
    # Unknown fields are ignored so that a newer node can add fields without breaking older ones;
    # missing or ill-typed required fields are still rejected.
    model_config = ConfigDict(extra="ignore", frozen=False)


class ErrorInfo(_Model):
    """Why something failed: ``type`` is machine-readable, ``reason`` is for people; a refusal for now
    (``overloaded``, ``rate_limited``) says in ``retry_after_ms`` when to try again."""

    type: str = Field(max_length=64)
    reason: str = Field(max_length=4_000)
    retry_after_ms: float | None = Field(None, ge=0.0, le=3_600_000.0)


MAX_NAMES = 32
_Name = Annotated[str, Field(min_length=1, max_length=100)]


class Filters(_Model):
    """The patient names a question mentions, which leaves turn into a filter.

    Names are compared case- and space-insensitively. Each leaf checks both lists against the
    patients it holds, locally: the gateway learns which names some leaf knows, never a patient list.

    * If any name of either list is known somewhere in the federation, the search is restricted to
      the known ones (a leaf that knows none of them contributes nothing).
    * Otherwise, if ``patients`` is not empty, the search is restricted to them (and finds nothing:
      a question about a patient who is not there gets no other patient's records).
    * Otherwise the search is not restricted.

    Attributes:
        patients: names a name detector is confident about (spaCy's PERSON entities, or the
            built-in rule's cued names).
        candidates: capitalized spans that may be names (possessives stripped); they count only
            where a leaf knows them.
    """

    patients: list[_Name] = Field(default_factory=list, max_length=MAX_NAMES)
    candidates: list[_Name] = Field(default_factory=list, max_length=MAX_NAMES)


#: How passages are ranked: by the question's embedding (``dense``), by BM25 over the question's words
#: with the federation's collection statistics (``lexical``), or both lists fused once, at the gateway
#: (``hybrid``).
Mode = Literal["dense", "lexical", "hybrid"]

MAX_TERMS = 64
MAX_CONCEPTS = 16
#: At most this many ways to mention one concept (its words, synonyms, the drugs of a kind).
MAX_ALTERNATIVES = 24
#: At most this many records in one ``want = "record"`` query.
MAX_RECORDS = 8
#: At most this many passages in one ``want = "sentences"`` query.
MAX_PASSAGES_NAMED = 16
#: A hit carries its sentences' vectors (``want = "sentences"``) only if the passage has at most this many
#: quotable sentences, so that a reply of :data:`MAX_PASSAGES_NAMED` hits fits in a message at the model's size.
MAX_CARRIED_SENTENCES = 32
#: The longest term.
MAX_TERM_CHARS = 64
_Term = Annotated[str, Field(min_length=1, max_length=MAX_TERM_CHARS)]
#: Joins the members of a group of terms (:func:`nodes.data.lexical.group`); no term holds it.
TERM_GROUP = "|"


def _term_or_group(value: str) -> str:
    members = value.split(TERM_GROUP)
    if len(members) > MAX_ALTERNATIVES or not all(0 < len(member) <= MAX_TERM_CHARS for member in members):
        raise ValueError(f"a group of terms holds 1 to {MAX_ALTERNATIVES} terms of 1 to {MAX_TERM_CHARS} characters, "
                         f"joined by {TERM_GROUP!r}")
    return value


#: A term of a question as BM25 scores it: a term, or a group of a concept's one-word synonyms joined by
#: :data:`TERM_GROUP` (:func:`nodes.data.lexical.group`), scored as one term.
_QueryTerm = Annotated[str, Field(min_length=1, max_length=MAX_ALTERNATIVES * (MAX_TERM_CHARS + 1)),
                       AfterValidator(_term_or_group)]
#: At most this many terms in one alternative of a concept.
MAX_OPTION_TERMS = 8
#: A concept of the question: its alternatives (the words it was asked in, and accepted synonyms), each
#: the terms a passage must all hold to mention it (and a type's or stage's number written next to its word:
#: :func:`nodes.data.lexical.written_together`).
_Concept = Annotated[list[Annotated[list[_Term], Field(min_length=1, max_length=MAX_OPTION_TERMS)]],
                     Field(min_length=1, max_length=MAX_ALTERNATIVES)]


class CollectionStats(_Model):
    """What the passages a caller may search hold of a question's words, counted where they are and summed up
    the tree: what BM25 needs to score as one index would, and whether the question's concepts are mentioned
    at all (:mod:`nodes.data.lexical`).

    Attributes:
        docs: how many passages.
        length: their total length in terms.
        df: for each term of the question, how many passages hold it.
        concepts: for each concept of the query, how many passages mention it.
        people: how many passages are about a patient (records of patients, which a name may pick from).
    """

    docs: int = Field(0, ge=0)
    length: int = Field(0, ge=0)
    df: dict[_QueryTerm, Annotated[int, Field(ge=0)]] = Field(default_factory=dict, max_length=MAX_TERMS)
    concepts: list[Annotated[int, Field(ge=0)]] = Field(default_factory=list, max_length=MAX_CONCEPTS)
    people: int = Field(0, ge=0)

    def add(self, other: "CollectionStats") -> None:
        """Adds another subtree's counts to these (the same question's, so the same terms and concepts)."""
        self.docs += other.docs
        self.length += other.length
        self.people += other.people
        for term, n in other.df.items():
            self.df[term] = self.df.get(term, 0) + n
        if len(other.concepts) > len(self.concepts):
            self.concepts += [0] * (len(other.concepts) - len(self.concepts))
        for i, n in enumerate(other.concepts):
            self.concepts[i] += n


#: What a caller wants besides the evidence: nothing, or an answer (extractive, or written by an LLM).
#: Anything but ``none`` also lets routers configured to summarize do so.
Summarize = Literal["none", "extractive", "llm"]


#: The longest record id a leaf takes (from a file or over the ingestion subject).
MAX_RECORD_ID = 512
#: The longest passage id: a record's id, then "#" and the number of its piece when it is cut in several
#: (:func:`nodes.data.chunking.chunk`; a 400,000-character record has far fewer than a million pieces).
MAX_PASSAGE_ID = MAX_RECORD_ID + 8


class PassageRef(_Model):
    """Where a passage lives: its leaf's path and its id there."""

    path: str = Field(min_length=1, max_length=512)
    id: str = Field(min_length=1, max_length=MAX_PASSAGE_ID)


class RecordRef(_Model):
    """A record at a leaf: the leaf's path and the record's id there."""

    path: str = Field(min_length=1, max_length=512)
    id: str = Field(min_length=1, max_length=MAX_RECORD_ID)


class Query(_Model):
    """A retrieval request travelling down the tree.

    The question is embedded once, at the gateway; ``embedding`` holds the float32 vector as
    little-endian bytes and ``model`` the fingerprint of the model that made it, so a leaf whose
    index was built with another model can refuse instead of returning incomparable scores.
    ``vectors`` asks leaves to return each hit's stored vector (a summarizing router clusters them).

    Lexical ranking takes two passes, as Elasticsearch's ``dfs_query_then_fetch`` does: a query with
    ``want = "stats"`` asks each leaf for its :class:`CollectionStats` of the question's ``terms`` and
    ``concepts`` (summed up the tree); the query proper then carries the sums in ``stats``, and every leaf
    scores its passages with them. A gateway that remembers the sums from earlier questions skips the first pass
    (:mod:`nodes.counts`) and asks the query proper to ``recount``: each leaf counts the ``terms`` and ``concepts``
    beside its hits, summed up the tree, so that the gateway knows whether what it remembered still held.
    ``mode`` says which lists a leaf returns (:data:`Mode`), the lexical one ``lexical_k`` deep (``k`` without it: a
    hybrid question fuses a shallower one). In a hybrid query a leaf gives each hit its best sentence's similarity
    (:attr:`Hit.sentence`) unless ``weigh`` is false: a router asks the leaves of its own process so, and weighs only
    what survives its merge (:func:`nodes.leaf.weigh_here`). ``focused`` is the question without the patients' names
    it filters by, embedded alike (empty: none): a leaf holding a named patient scores those patients' passages, and
    weighs their sentences, by it — by what is asked of them, not by whom ("Is Justin on apixaban?" is nearer his
    social history than his apixaban; "Is on apixaban?" is not). ``per_patient`` (a question asking which patients,
    :func:`nodes.demographics.asks_which`) makes every passage about one patient one piece of evidence, as copies are
    (``collapse``): each patient's best hit stands for them, listing the others — except at a leaf that restricts the
    search to patients the question names.

    A query with ``want = "record"`` asks for every passage of the ``records`` named (what the caller may see of
    them), scored like any hit: the gateway's follow-up for the rest of the record an answer quotes. One with
    ``want = "sentences"`` asks for the ``passages`` named, each with the vectors of its quotable sentences
    (:attr:`Hit.sentences`, stored at ingestion): the follow-up of an answer that weighs sentences instead. A
    question has at most one of the two follow-ups, and both take the caller's ``record`` proof (:attr:`use`).
    Like the other passes a follow-up goes to every organization, so that each one's gate sees (and spends) the
    caller's proof for it — none can use it elsewhere — but only the routers above a named leaf pass it on.
    """

    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS)
    embedding: bytes = Field(b"", max_length=MAX_DIM * 4)
    model: str = Field(min_length=1, max_length=200)
    k: int = Field(10, ge=1, le=MAX_K)
    fetch_k: int = Field(FETCH_K, ge=1, le=MAX_FETCH_K)
    filters: Filters = Field(default_factory=Filters)
    collapse: bool = True
    per_patient: bool = False
    summarize: Summarize = "none"
    vectors: bool = False
    mode: Mode = "dense"
    want: Literal["hits", "stats", "record", "sentences"] = "hits"
    records: list[RecordRef] = Field(default_factory=list, max_length=MAX_RECORDS)
    passages: list[PassageRef] = Field(default_factory=list, max_length=MAX_PASSAGES_NAMED)
    terms: list[_QueryTerm] = Field(default_factory=list, max_length=MAX_TERMS)
    concepts: list[_Concept] = Field(default_factory=list, max_length=MAX_CONCEPTS)
    stats: CollectionStats | None = None
    recount: bool = False
    lexical_k: int | None = Field(None, ge=1, le=MAX_K)
    weigh: bool = True
    focused: bytes = Field(b"", max_length=MAX_DIM * 4)

    @model_validator(mode="after")
    def _records_only_when_wanted(self) -> "Query":
        if (self.want == "record") != bool(self.records):
            raise ValueError("records are named by, and only by, a query that wants them (want = 'record')")
        if (self.want == "sentences") != bool(self.passages):
            raise ValueError("passages are named by, and only by, a query that wants their sentences "
                             "(want = 'sentences')")
        return self

    @model_validator(mode="after")
    def _a_unit_vector(self) -> "Query":
        if self.want == "stats" and not self.embedding:
            return self  # counting words needs no vector
        value = self.embedding
        if len(value) == 0 or len(value) % 4:
            raise ValueError("embedding must be a non-empty run of float32 values (length % 4 == 0)")
        why = not_unit(np.frombuffer(value, dtype="<f4"))
        if why:
            raise ValueError(f"embedding {why}")
        if self.focused and (len(self.focused) != len(value) or not_unit(np.frombuffer(self.focused, dtype="<f4"))):
            raise ValueError("focused must be a unit vector of the embedding's dimensions")
        return self

    @classmethod
    def with_vector(cls, vector: np.ndarray, **fields) -> "Query":
        """Builds a query from a numpy vector (stored as little-endian float32 bytes)."""
        return cls(embedding=np.asarray(vector, dtype="<f4").tobytes(), **fields)

    def vector(self, named: bool = False) -> np.ndarray:
        """The embedding as a float32 numpy vector — with ``named`` (the passages scored are the named patients'),
        the ``focused`` one if the query has it."""
        return np.frombuffer(self.focused if named and self.focused else self.embedding, dtype="<f4")

    @property
    def use(self) -> str:
        """What the caller's proof for this query must be good for (:data:`bus.headers.PROOFS`)."""
        return {"hits": "search", "stats": "stats", "record": "record", "sentences": "record"}[self.want]

    def lexical_depth(self, k: int | None = None) -> int:
        """How deep the lexical list goes for a top ``k`` (the query's own without it): ``k``, or ``lexical_k`` if
        shallower."""
        k = self.k if k is None else k
        return k if self.lexical_k is None else min(k, self.lexical_k)

    def named(self) -> list[str]:
        """The leaf paths a follow-up names (a record's or a passage's); none for the other passes."""
        return [ref.path for ref in (*self.records, *self.passages)]


class Hit(_Model):
    """One scored passage.

    ``score`` ranks the hit in its list: the cosine similarity with the question in a dense list,
    computed exactly from the stored float32 vectors (:func:`nodes.data.index.exact_scores`); BM25 with
    the federation's statistics in a lexical list; the fused score in a hybrid answer — the same on
    every path, so hits are totally ordered by :meth:`order_key`. ``similarity`` is always the cosine
    similarity (what the evidence floor reads), whatever the list; ``bm25`` the passage's BM25 with the
    federation's statistics (0 without any of the question's words) in every list of a lexical or hybrid
    question, so the gateway can fuse both on scores (:func:`nodes.merge.fuse`); ``sentence``, in a hybrid
    question, the cosine similarity of the passage's quotable sentence most similar to the question (vectors
    stored at ingestion; ``None`` if it has none). ``digest`` identifies the
    passage's normalized text and patient (in answer to a query ``per_patient``, its patient's name alone): hits
    with the same digest are copies of one piece of evidence, and the first in the order lists the others in
    ``duplicates``. ``sentences`` (only in answer to
    ``want = "sentences"``) holds the float32 vectors of the passage's quotable sentences
    (:func:`summarizer.sentences.quotable` of its text and patient), in order, as they were embedded at ingestion.
    """

    id: str = Field(max_length=MAX_PASSAGE_ID)
    org: str
    path: str
    score: float
    text: str
    patient: str | None = None
    metadata: dict[str, Scalar] = Field(default_factory=dict)
    digest: str | None = Field(None, max_length=64)
    duplicates: list[PassageRef] = Field(default_factory=list)
    vector: bytes | None = Field(None, max_length=MAX_DIM * 4)
    withheld: bool = False
    similarity: float | None = None
    bm25: float | None = None
    sentence: float | None = None
    sentences: bytes | None = Field(None, max_length=MAX_CARRIED_SENTENCES * MAX_DIM * 4)

    @property
    def relevance(self) -> float:
        """How similar the passage is to the question (cosine), whatever list it ranks in."""
        return self.similarity if self.similarity is not None else self.score

    def order_key(self, score: float | None = None) -> tuple[float, str, str]:
        """The total order of hits everywhere: score descending, then leaf path, then passage id (ranked by ``score``
        instead of its own, when given: a fused score not yet copied into a hit)."""
        return (-(self.score if score is None else score), self.path, self.id)

    def ref(self) -> PassageRef:
        """This hit's location."""
        return PassageRef(path=self.path, id=self.id)

    def vector_array(self) -> np.ndarray | None:
        """The passage's vector as float32, if it travelled with the hit."""
        return None if self.vector is None else np.frombuffer(self.vector, dtype="<f4")

    def sentence_vectors(self, dim: int) -> np.ndarray | None:
        """The vectors of the passage's quotable sentences, one row each of ``dim`` float32 values, if they
        travelled with the hit (``want = "sentences"``), are that size and are unit vectors (:func:`not_unit`)."""
        if not self.sentences or len(self.sentences) % (4 * dim):
            return None
        rows = np.frombuffer(self.sentences, dtype="<f4").reshape(-1, dim)
        return None if not_unit(rows) else rows


class SummarySentence(_Model):
    """One sentence of a summary, the passages it comes from (or, written by an LLM, cites), and the
    patients those passages are about."""

    text: str = Field(max_length=4_000)
    sources: list[PassageRef] = Field(min_length=1)
    patients: list[str] = Field(default_factory=list)
    cluster: int | None = None


class Cluster(_Model):
    """A group of similar passages a summary represents: what they are about, and which they are."""

    keywords: list[str] = Field(default_factory=list)
    sources: list[PassageRef] = Field(default_factory=list)


#: What became of a summary or an answer: written; nothing relevant to summarize (nothing is said);
#: the deadline came first; the LLM failed (an extractive one stands in, see ``error``).
SummaryStatus = Literal["successful", "insufficient", "timed_out", "failed"]


class Summary(_Model):
    """A router's summary of the passages its subtree returned (all of them, not only the top k).

    Attributes:
        path: the router that wrote it.
        method: ``extractive`` (every sentence a real sentence of a source) or ``llm``.
        status: see :data:`SummaryStatus`.
        sentences: the summary, each sentence with its sources.
        clusters: the groups of passages it represents (extractive summaries).
        passages: how many passages it read, and ``relevant`` how many of them bore on the question.
        confidence: the LLM's mean token probability, when the endpoint reports it.
    """

    path: str
    method: Literal["extractive", "llm"]
    status: SummaryStatus
    sentences: list[SummarySentence] = Field(default_factory=list)
    clusters: list[Cluster] = Field(default_factory=list)
    passages: int = 0
    relevant: int = 0
    took_ms: float = 0.0
    confidence: float | None = None
    error: ErrorInfo | None = None


class NodeReport(_Model):
    """What one node did for one query."""

    status: Status
    took_ms: float = 0.0
    hits: int = 0
    error: ErrorInfo | None = None


class Coverage(_Model):
    """How many leaves answered, and how the others failed.

    A child that failed as a whole counts once, in its status, whatever its subtree's size: the
    caller cannot know how many leaves sit behind a router that never answered.
    """

    total: int = Field(0, ge=0)
    successful: int = Field(0, ge=0)
    timed_out: int = Field(0, ge=0)
    unavailable: int = Field(0, ge=0)
    denied: int = Field(0, ge=0)
    failed: int = Field(0, ge=0)
    expired: int = Field(0, ge=0)

    def add(self, other: "Coverage") -> None:
        """Adds another subtree's counts to these."""
        for name in ("total", *COUNTED_STATUSES):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def count(self, status: str) -> None:
        """Counts one unit with ``status`` (a ``partial`` child is counted by its own coverage)."""
        self.total += 1
        setattr(self, status, getattr(self, status) + 1)

    @property
    def fraction(self) -> float:
        """The share of units that answered successfully (1.0 for an empty federation)."""
        return self.successful / self.total if self.total else 1.0


class SearchResult(_Model):
    """A node's answer: its best hits and the report of every node below it.

    Attributes:
        filtered: the hits are restricted to named patients (see :class:`Filters`); a merge that has
            filtered and unfiltered children keeps only the filtered children's hits.
        names: each question name some leaf of this subtree knows, with the leaves that know it.
        lexical: the best hits by BM25 (a ``lexical`` or ``hybrid`` query), in the same total order.
        stats: the subtree's :class:`CollectionStats` (a ``want = "stats"`` query, or one that asks to ``recount``).
    """

    hits: list[Hit] = Field(default_factory=list)
    took_ms: float = 0.0
    timed_out: bool = False
    partial: bool = False
    coverage: Coverage = Field(default_factory=Coverage)
    nodes: dict[str, NodeReport] = Field(default_factory=dict)
    filtered: bool = False
    names: dict[str, list[str]] = Field(default_factory=dict)
    summaries: list[Summary] = Field(default_factory=list)
    lexical: list[Hit] = Field(default_factory=list)
    stats: CollectionStats | None = None

    @property
    def of_named(self) -> bool:
        """Whether the hits are the passages of patients the question names, searched only there (:attr:`filtered`) by
        leaves that hold them (:attr:`names`): scored by what is asked of them, every one about whom was asked."""
        return self.filtered and bool(self.names)
