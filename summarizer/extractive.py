"""The extractive summary a router writes over every passage its subtree returned.

A router sees more passages than it passes up (every child's hits, not only the merged top k). It
condenses them into a few real sentences, each with the passages it comes from, so the caller learns
what the whole subtree said without reading it all. The method is RVS-style *representative vectors*,
and it decides relevance before it summarizes:

1. **Decide.** Only passages scoring at least ``min_score`` (cosine with the question) are summarized.
   With none, the summary is ``insufficient`` and says nothing: a summary of irrelevant evidence
   would read like an answer. (A router asks for no floor when its hits are the passages of patients
   the question names: :meth:`summarizer.summaries.Summarizer.floor`.)
2. **Cluster.** The relevant passages' embeddings (the vectors leaves return when a query asks for
   them) are grouped by k-means. The number of groups comes from the token budget: about one
   sentence of :data:`TOKENS_PER_SENTENCE` tokens per group, and never more groups than passages.
3. **Represent.** Each group is represented by its passage nearest the centroid — its
   *representative vector* — and groups are ordered by their representative's score, best first.
4. **Quote.** The representative's sentences (the name-and-date prefix the chunker puts first left
   out) are scored by TF-IDF cosine with the group's passages (what the group is about) and with the
   question's words (what was asked). The best sentence of every group is said first, then each
   group's second best (if it shares a word with the question) while the budget lasts
   (:data:`PER_CLUSTER`). Each cluster is also described by its keywords: the TF-IDF terms that
   weigh more in its passages than in all of them (no stop words, no patient names).

Every sentence is a sentence of its sources, word for word up to runs of whitespace (the sentence
splitter joins lines), except that a sentence longer than :data:`summarizer.sentences.MAX_SENTENCE_CHARS`
is cut and ends with :data:`summarizer.sentences.ELLIPSIS`, as in extractive answers. A sentence's
sources are every passage of its group that contains it, the representative first.

The result does not depend on the order hits arrived in: they are sorted by :meth:`Hit.order_key`
before clustering, and k-means runs with a fixed seed. A relevant hit that carries no vector (or a
vector of another size than the question's) cannot be placed in a group: it counts as relevant but is
in no cluster and no sentence; if no relevant hit has a vector, the summary ``failed`` (see its error).
Copies already collapsed into a hit (``duplicates``) are represented by that hit, as everywhere.
"""

from __future__ import annotations

import math
import re
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from threadpoolctl import ThreadpoolController

from bus.messages import Cluster, ErrorInfo, Hit, PassageRef, Summary, SummarySentence
from summarizer.sentences import ELLIPSIS, quotable

#: Default floor on a passage's score (cosine with the question) for it to be summarized.
MIN_SCORE = 0.4  # on the demo, planted facts in summaries: 0.63 at 0.3, 0.73 at 0.4 (scripts/answer_eval.py)
#: Default length of a summary, in tokens (estimated as :data:`TOKENS_PER_WORD` per word).
BUDGET_TOKENS = 200
#: The length of a typical sentence: a budget of ``n`` such sentences makes ``n`` clusters.
TOKENS_PER_SENTENCE = 35
TOKENS_PER_WORD = 1.3
#: At most this many sentences from one cluster (its best first, then its second best).
PER_CLUSTER = 2
#: The keywords listed for each cluster.
KEYWORDS = 5
#: How much a sentence's likeness to the question's words counts against its likeness to its cluster.
QUESTION_WEIGHT = 0.5
#: What a summary of a hundred passages takes on a busy 2-core machine, with room to spare: the
#: reserve a router keeps for it.
RESERVE_MS = 150.0
#: Weights equal to this many decimals are ties (broken alphabetically, or by place): the same sums of logarithms
#: added in another order differ in their last bits.
TIE_DECIMALS = 12
#: k-means is seeded so that the same hits always give the same summary.
RANDOM_STATE = 0
N_INIT = 1  # k-means++ seeding makes one run enough here (scikit-learn's own default)

# k-means runs on one OpenMP thread: for a few hundred passages threads cost more than they save (their
# synchronization made 100 passages take 16 ms instead of 2 on a busy 2-core machine), and a router shares
# its cores with others. The controller is made once: inspecting the loaded libraries is the slow part.
_THREADS = ThreadpoolController()

# words of two characters or more with at least one letter: no dates, doses or record numbers as keywords
_WORD = re.compile(r"\b(?=\w*[^\W\d_])\w\w+\b")
_NAME_WORD = re.compile(r"[^\W\d_]+")
# English stop words, and titles and dose units (in every note, about nothing)
_MORE_STOP_WORDS = {"mr", "mrs", "ms", "dr", "mg", "mcg", "ml", "kg", "meq", "mmol"}


@dataclass(frozen=True)
class _Ranked:
    """A sentence, its score, and whether it shares a word with the question (or no question was given)."""

    text: str
    score: float
    asked: bool


@dataclass
class _Group:
    """One cluster while it is built: its members (indices into the sorted hits), representative first."""

    members: list[int]
    sentences: list[str] = field(default_factory=list)  # the representative's, in the passage's order
    ranked: list[_Ranked] = field(default_factory=list)  # the same, best first
    said: int = 0  # how many of ``ranked`` were considered


def summarize(question_vector: np.ndarray, hits: Sequence[Hit], *, path: str, question: str = "",
              budget_tokens: int = BUDGET_TOKENS, min_score: float = MIN_SCORE) -> Summary:
    """Summarizes ``hits`` in real sentences of their passages, one cluster of similar passages at a time.

    Args:
        question_vector: the question's embedding (its size is the size every hit's vector must have).
        hits: every passage the subtree returned, with their vectors (``Query.vectors``), in any order.
        path: the summarizing router's path (``Summary.path``).
        question: the question's text; its words help choose sentences (optional).
        budget_tokens: about how long the summary may be, in tokens; it makes the number of clusters.
        min_score: the score a hit needs to be summarized at all.

    Returns:
        A ``successful`` extractive summary; ``insufficient`` (no sentence) when no hit scores
        ``min_score``; ``failed`` when no relevant hit carries a usable vector.
    """
    start = time.perf_counter()
    relevant = sorted((hit for hit in hits if hit.relevance >= min_score), key=lambda hit: (hit.order_key(), hit.text))
    summary = Summary(path=path, method="extractive", status="insufficient", passages=len(hits), relevant=len(relevant))
    dim = int(np.asarray(question_vector).reshape(-1).shape[0])
    placed, vectors = _clusterable(relevant, dim)
    if relevant and not placed:
        summary.status = "failed"
        summary.error = ErrorInfo(type="no_vectors", reason=f"none of the {len(relevant)} relevant passages carried "
                                                            f"a {dim}-dimensional vector")
    elif placed:
        _write(summary, placed, vectors, question, budget_tokens)
    summary.took_ms = (time.perf_counter() - start) * 1000
    return summary


def _write(summary: Summary, hits: list[Hit], vectors: np.ndarray, question: str, budget_tokens: int) -> None:
    """Fills ``summary`` with the clusters of ``hits`` (sorted, all with vectors) and their sentences."""
    groups = [_represent(members, hits) for members in _clusters(vectors, cluster_count(budget_tokens, len(hits)))]
    groups.sort(key=lambda group: group.members[0])  # hits are sorted: the best representative first
    words = _Words(hits)
    _rank_sentences(groups, words, question)
    summary.clusters = [Cluster(keywords=_keywords(group, words), sources=[hits[i].ref() for i in group.members])
                        for group in groups]
    texts = [_normal(hit.text, fold=False) for hit in hits]
    patient = {(hit.path, hit.id): hit.patient for hit in hits}
    summary.sentences = []
    for n, text in _choose(groups, budget_tokens):
        sources = _sources(text, hits, texts, groups[n].members)
        about = list(dict.fromkeys(patient[(r.path, r.id)] for r in sources if patient[(r.path, r.id)]))
        summary.sentences.append(SummarySentence(text=text, sources=sources, patients=about, cluster=n))
    summary.status = "successful"


def cluster_count(budget_tokens: int, passages: int) -> int:
    """How many clusters a budget pays for: one per sentence of :data:`TOKENS_PER_SENTENCE` tokens, 1 to ``passages``."""
    return max(1, min(budget_tokens // TOKENS_PER_SENTENCE, passages))


def estimate_tokens(text: str) -> int:
    """A rough token count: :data:`TOKENS_PER_WORD` per word (no tokenizer needed)."""
    return math.ceil(len(text.split()) * TOKENS_PER_WORD)


# -- clustering ---------------------------------------------------------------------------------------------


def _clusterable(hits: list[Hit], dim: int) -> tuple[list[Hit], np.ndarray]:
    """The hits whose vector can be clustered (present, of size ``dim``, finite), and their vectors as rows."""
    kept, rows = [], []
    for hit in hits:
        vector = hit.vector_array()
        if vector is not None and vector.shape == (dim,) and np.isfinite(vector).all():
            kept.append(hit)
            rows.append(vector)
    return kept, (np.vstack(rows).astype(np.float64) if rows else np.zeros((0, dim)))


def _clusters(vectors: np.ndarray, wanted: int) -> list[list[int]]:
    """The clusters of ``vectors`` (row indices), each nearest its centroid first (ties: the earlier row)."""
    labels, centroids = _kmeans(vectors, wanted)
    clusters = []
    for label in sorted(set(labels.tolist())):
        members = np.flatnonzero(labels == label)
        distances = ((vectors[members] - centroids[label]) ** 2).sum(axis=1)
        clusters.append([int(members[i]) for i in np.lexsort((members, distances))])
    return clusters


def _represent(members: list[int], hits: list[Hit]) -> _Group:
    """The cluster's representative: its passage nearest the centroid that has a sentence to quote.

    Args:
        members: the cluster's hits (indices into ``hits``), nearest the centroid first.
        hits: the relevant hits, sorted.

    Returns:
        The group, its representative first and its other members in the order of hits.
    """
    for i in members:
        said = quotable(hits[i].text, hits[i].patient)
        if said:
            return _Group(members=[i] + sorted(set(members) - {i}), sentences=said)
    return _Group(members=[members[0]] + sorted(members[1:]))  # nothing to quote: the cluster says nothing


_LOADING = threading.Lock()


def load() -> None:
    """Imports the parts of scikit-learn a summary uses — when first needed, not at import (it takes a second or more
    to load, and every command would wait), and under a lock: two threads importing it for the first time at once fail
    ("cannot import name 'clone' from partially initialized module"), as two routers of one process summarizing their
    first question did. A router starts it in the background (:meth:`nodes.router.Router.start`). SciPy, under it, reads
    torch if another thread has begun importing it, and fails on it half-made ("partially initialized module 'torch' has
    no attribute 'Tensor'", once, beside a gateway loading its embedder): then it waits for torch and imports again."""
    def imported() -> None:
        import sklearn.cluster  # noqa: F401
        import sklearn.feature_extraction.text  # noqa: F401

    with _LOADING:
        try:
            imported()
        except (AttributeError, ImportError):
            if "torch" not in sys.modules:
                raise
            import torch  # noqa: F401 -- returns once the other thread's import is done
            imported()


def _kmeans(vectors: np.ndarray, wanted: int) -> tuple[np.ndarray, np.ndarray]:
    """k-means labels and centroids for at most ``wanted`` clusters (fewer if there are fewer distinct vectors)."""
    k = min(wanted, len({row.tobytes() for row in vectors + 0.0}))  # distinct rows (+ 0.0: -0.0 is 0.0)
    if k == 1:
        return np.zeros(len(vectors), dtype=int), vectors.mean(axis=0, keepdims=True)
    if k == len(vectors):  # one passage per cluster: nothing to search for
        return np.arange(len(vectors)), vectors
    load()
    from sklearn.cluster import KMeans

    with _THREADS.limit(limits=1, user_api="openmp"):
        model = KMeans(n_clusters=k, n_init=N_INIT, random_state=RANDOM_STATE).fit(vectors)
    return model.labels_, model.cluster_centers_


# -- words --------------------------------------------------------------------------------------------------


class _Words:
    """A TF-IDF model of the summarized passages' words (no stop words, no patient names), weighed as scikit-learn's
    ``TfidfVectorizer(sublinear_tf=True)`` weighs them — 1 + log of a word's count, times its smoothed inverse document
    frequency, each row of unit length — in plain arrays: a summary weighs a few dozen passages, and the library's
    checks and sparse matrices took longer than the arithmetic (45 % of a summary's time, profiled on the demo's
    questions; a summary's p50 went from 5.4 to 1.8 ms without them).

    Attributes:
        terms: the vocabulary, in column order (alphabetical; empty when the passages have not one word to weigh).
        passages: one row per passage, unit length.
    """

    def __init__(self, hits: list[Hit]) -> None:
        load()
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

        self._left_out = ENGLISH_STOP_WORDS | _MORE_STOP_WORDS | {
            word.lower() for hit in hits if hit.patient for word in _NAME_WORD.findall(hit.patient)}
        words = [self._words(hit.text) for hit in hits]
        self.terms = np.array(sorted({word for text in words for word in text}), dtype=str)
        self._column = {term: n for n, term in enumerate(self.terms.tolist())}
        counts = self._counts(words)
        held = np.count_nonzero(counts, axis=0)
        self._idf = np.log((1.0 + len(hits)) / (1.0 + held)) + 1.0
        self.passages = self._weighed(counts)

    def _words(self, text: str) -> list[str]:
        return [word for word in _WORD.findall(text.lower()) if word not in self._left_out]

    def _counts(self, words: list[list[str]]) -> np.ndarray:
        """How often each term of the vocabulary is among each text's ``words`` (a row per text)."""
        counts = np.zeros((len(words), len(self.terms)))
        for row, text in enumerate(words):
            for word in text:
                column = self._column.get(word)
                if column is not None:
                    counts[row, column] += 1.0
        return counts

    def _weighed(self, counts: np.ndarray) -> np.ndarray:
        """TF-IDF rows of unit length (zero where a text holds no term)."""
        weights = np.zeros_like(counts)
        present = counts > 0
        weights[present] = 1.0 + np.log(counts[present])
        weights *= self._idf
        norms = np.sqrt((weights * weights).sum(axis=1, keepdims=True))
        return np.divide(weights, norms, out=weights, where=norms > 0)

    def rows(self, texts: list[str]) -> np.ndarray:
        """The TF-IDF rows of ``texts`` (unit length, or zero when they share no word with the passages)."""
        return self._weighed(self._counts([self._words(text) for text in texts]))

    def profile(self, members: list[int]) -> np.ndarray:
        """What some passages are about: the mean of their rows."""
        return self.passages[members].mean(axis=0)


def _keywords(group: _Group, words: _Words) -> list[str]:
    """The :data:`KEYWORDS` terms that set the cluster apart: heavier in its passages than in all (ties alphabetically).

    With a single cluster (or where nothing stands out) they are simply its heaviest terms.
    """
    profile = words.profile(group.members)
    lift = profile - words.passages.mean(axis=0)
    weight = lift if (lift > 0).any() else profile
    order = np.lexsort((words.terms, -np.round(weight, TIE_DECIMALS)))
    return [str(words.terms[i]) for i in order[:KEYWORDS] if weight[i] > 0]


# -- sentences ----------------------------------------------------------------------------------------------


def _rank_sentences(groups: list[_Group], words: _Words, question: str) -> None:
    """Ranks each representative's sentences by TF-IDF cosine with its cluster and with the question's words."""
    said = [sentence for group in groups for sentence in group.sentences]
    rows = words.rows([question, *said])  # one call for all
    asked, rows = rows[0], rows[1:]
    asking = bool(asked.any())  # the question shares a word with the passages
    start = 0
    for group in groups:
        mine = rows[start:start + len(group.sentences)]
        start += len(group.sentences)
        profile = words.profile(group.members)
        norm = float(np.linalg.norm(profile))
        scores = mine @ (profile / norm if norm else profile)
        overlap = mine @ asked if asking else np.ones(len(group.sentences))
        if asking:
            scores = (1 - QUESTION_WEIGHT) * scores + QUESTION_WEIGHT * overlap
        tied = np.round(scores, TIE_DECIMALS)
        order = sorted(range(len(group.sentences)), key=lambda i: (-float(tied[i]), i))  # ties: the earlier
        group.ranked = [_Ranked(group.sentences[i], float(scores[i]), bool(overlap[i] > 0)) for i in order]


def _choose(groups: list[_Group], budget_tokens: int) -> list[tuple[int, str]]:
    """``(cluster, sentence)`` pairs: each cluster's best, then its next best, while the budget lasts.

    A sentence that would overrun the budget is skipped (a shorter one of a later cluster may still fit),
    except the very first: a summary always says something. The same sentence is said once.
    """
    chosen: list[tuple[int, int, str]] = []  # (cluster, round, text)
    seen: set[str] = set()
    used = 0
    for round_ in range(PER_CLUSTER):
        for n, group in enumerate(groups):
            text = _next_sentence(group, seen, first=round_ == 0)
            if text is None:
                continue
            cost = estimate_tokens(text)
            if chosen and used + cost > budget_tokens:
                continue
            chosen.append((n, round_, text))
            seen.add(_normal(text))
            used += cost
    return [(n, text) for n, _, text in sorted(chosen, key=lambda c: (c[0], c[1]))]


def _next_sentence(group: _Group, seen: set[str], *, first: bool) -> str | None:
    """The group's best sentence not said yet; after its first, only one that shares a word with the question."""
    while group.said < len(group.ranked):
        sentence = group.ranked[group.said]
        group.said += 1
        if _normal(sentence.text) not in seen and (first or (sentence.asked and sentence.score > 0)):
            return sentence.text
    return None


def _sources(text: str, hits: list[Hit], texts: list[str], members: list[int]) -> list[PassageRef]:
    """The members whose text (``texts``, whitespace made single spaces) holds ``text`` word for word.

    In the order of ``members``: the representative, which the sentence was taken from, first.
    """
    quoted = _normal(text.removesuffix(ELLIPSIS), fold=False)
    return [hits[i].ref() for i in members if quoted in texts[i]]


def _normal(text: str, *, fold: bool = True) -> str:
    """``text`` with runs of whitespace made one space (and lower-cased, if ``fold``)."""
    text = " ".join(text.split())
    return text.lower() if fold else text
