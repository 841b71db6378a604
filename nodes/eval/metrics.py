"""Relevance and answer metrics: nDCG, MRR, recall and success at k over records, and ROUGE-L.

Retrieval is judged over *records*, not passages: a federation returns passages, and a record cut
into several passages is found once, at the rank of its first passage. :func:`records_ranked` makes
that ranking (later passages of a record already seen are skipped and take no rank), and every
metric at ``k`` reads its first ``k`` records. ``relevant`` maps record ids to grades; a grade of 0 or
less is not relevant. Gains are the grades themselves (binary sets grade every relevant record 1),
discounted by ``log2(rank + 1)``, as trec_eval's ``ndcg_cut``.

ROUGE-L (Lin, 2004) is the F-measure (β = 1) of the longest common subsequence of the lower-cased
word tokens of an answer and of the reference answer. Everything here is pure Python.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence

_WORD = re.compile(r"\w+")


def records_ranked(records: Iterable[str]) -> list[str]:
    """The records in the order their first passage ranks; later passages of a record are skipped."""
    return list(dict.fromkeys(records))


def _top(ranked: Sequence[str], k: int) -> list[str]:
    return records_ranked(ranked)[:k]


def dcg(gains: Sequence[float]) -> float:
    """Discounted cumulative gain of gains in rank order (rank 1 undiscounted)."""
    return sum(gain / math.log2(rank + 1) for rank, gain in enumerate(gains, 1))


def ndcg_at(ranked: Sequence[str], relevant: Mapping[str, float], k: int = 10) -> float:
    """nDCG@k: the ranking's DCG over the best possible DCG with these grades (0.0 with nothing relevant)."""
    grades = sorted((g for g in relevant.values() if g > 0), reverse=True)[:k]
    ideal = dcg(grades)
    if ideal == 0:
        return 0.0
    return dcg([max(relevant.get(record, 0), 0) for record in _top(ranked, k)]) / ideal


def mrr_at(ranked: Sequence[str], relevant: Mapping[str, float], k: int = 10) -> float:
    """Reciprocal rank of the first relevant record within the first ``k`` (0.0 if none is there)."""
    for rank, record in enumerate(_top(ranked, k), 1):
        if relevant.get(record, 0) > 0:
            return 1.0 / rank
    return 0.0


def recall_at(ranked: Sequence[str], relevant: Mapping[str, float], k: int = 10) -> float:
    """The share of the relevant records found within the first ``k`` (0.0 with nothing relevant)."""
    wanted = {record for record, grade in relevant.items() if grade > 0}
    return len(wanted.intersection(_top(ranked, k))) / len(wanted) if wanted else 0.0


def success_at(ranked: Sequence[str], relevant: Mapping[str, float], k: int = 10) -> float:
    """1.0 if some relevant record is within the first ``k``, else 0.0."""
    return 1.0 if mrr_at(ranked, relevant, k) > 0 else 0.0


#: The retrieval metrics, by the names reports and JSON use.
RETRIEVAL = {"ndcg": ndcg_at, "mrr": mrr_at, "recall": recall_at, "success": success_at}


def retrieval(ranked: Sequence[str], relevant: Mapping[str, float], k: int = 10) -> dict[str, float]:
    """Every metric of :data:`RETRIEVAL` at ``k``."""
    return {name: metric(ranked, relevant, k) for name, metric in RETRIEVAL.items()}


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens (runs of letters, digits and underscores)."""
    return _WORD.findall(text.lower())


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence of two token sequences (one row of the table at a time)."""
    if len(a) < len(b):
        a, b = b, a
    shared = set(b)
    previous = [0] * (len(b) + 1)
    for token in a:
        if token not in shared:  # a row of a token absent from b equals the row before it
            continue
        current = [0] * (len(b) + 1)
        for j, other in enumerate(b, 1):
            current[j] = previous[j - 1] + 1 if token == other else max(previous[j], current[j - 1])
        previous = current
    return previous[-1]


def rouge_l(candidate: str, reference: str) -> float:
    """ROUGE-L F-measure (β = 1) of ``candidate`` against ``reference`` over lower-cased word tokens."""
    made, wanted = tokens(candidate), tokens(reference)
    if not made or not wanted:
        return 0.0
    common = lcs_length(made, wanted)
    if common == 0:
        return 0.0
    precision, recall = common / len(made), common / len(wanted)
    return 2 * precision * recall / (precision + recall)


def mean(values: Iterable[float]) -> float | None:
    """The arithmetic mean, or ``None`` for no values."""
    values = list(values)
    return sum(values) / len(values) if values else None
