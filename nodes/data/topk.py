"""A leaf's complete top k in the one total order, and what makes two passages the same evidence.

Every hit is ordered by :meth:`bus.messages.Hit.order_key` — score descending, then leaf path, then
passage id — at the leaf, in every router and gateway merge (:mod:`nodes.merge`) and in the centralized
baseline, so "federated top-k equals centralized top-k" holds exactly, ties included.

Clinical notes copy text forward, so one passage often exists several times for one patient.
Hits with the same :func:`digest` (normalized text + patient) are one piece of evidence: the first
in the order is kept and lists the others in ``duplicates`` (:func:`select`). Collapsing at a leaf,
then again at every merge, gives the same groups as collapsing once over everything: a group's first
member is first within its own leaf too, and a leaf's top k groups contain every group of the global
top k that it holds. A question asking which patients groups by patient instead (:func:`patient_digest`): one
hit each, by the same argument.

A leaf asks its index for candidates in growing batches (:func:`search_complete`) until no passage
it has not scored can still reach its k-th score, and returns every hit tied with that score, so a
merge above it is never short of a tied passage.
"""

from __future__ import annotations

import functools
import hashlib
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from bus.messages import Hit, PassageRef


@functools.lru_cache(maxsize=65_536)
def digest(text: str, patient: str | None) -> str | None:
    """The identity of a passage's evidence: its normalized text about its patient.

    Normalization folds Unicode compatibility forms and case and collapses whitespace. Passages
    without a patient get no digest and are never collapsed: identical text about nobody in
    particular (an empty template, a common phrase) is not the same evidence. A passage scored again is not
    hashed again (an LRU of 65,536).
    """
    if not patient:
        return None
    normal = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    person = " ".join(patient.casefold().split())
    return hashlib.sha256(f"{person}\x1f{normal}".encode()).hexdigest()[:32]


@functools.lru_cache(maxsize=4_096)
def patient_digest(patient: str | None) -> str | None:
    """The identity of the evidence about a patient, when a question asks which patients
    (:attr:`bus.messages.Query.per_patient`): every passage about them is one piece of it, their best passage first
    lists the others (none for a passage about nobody in particular). By name, as :func:`digest` is, so that which
    leaf or organization holds a passage changes nothing."""
    if not patient:
        return None
    person = " ".join(patient.casefold().split())
    return hashlib.sha256(f"patient\x1f{person}".encode()).hexdigest()[:32]


def evidence(text: str, patient: str | None, per_patient: bool) -> str | None:
    """A passage's digest as a query groups its hits: its patient's (``per_patient``) or its text's."""
    return patient_digest(patient) if per_patient else digest(text, patient)


class Candidate:
    """A passage a leaf's search has read and scored, before its top k is chosen: ordered and folded by :func:`select`
    as a hit is, but made without building and validating a :class:`~bus.messages.Hit` — a leaf reads several
    times more passages than it keeps, and only what it keeps becomes a hit (:meth:`hit`)."""

    __slots__ = ("score", "path", "id", "digest", "duplicates", "fields")

    def __init__(self, score: float, fields: dict, duplicates: list[PassageRef] | None = None) -> None:
        self.score, self.fields = score, fields  # every field of the hit but its score and copies
        self.path, self.id, self.digest = fields["path"], fields["id"], fields["digest"]
        self.duplicates = [] if duplicates is None else duplicates

    def order_key(self) -> tuple[float, str, str]:
        """As :meth:`bus.messages.Hit.order_key`."""
        return (-self.score, self.path, self.id)

    def ref(self) -> PassageRef:
        return PassageRef(path=self.path, id=self.id)

    def model_copy(self, update: dict) -> Candidate:
        """A copy with ``update``'s ``duplicates`` (what :func:`select` changes of a hit)."""
        return Candidate(self.score, self.fields, update.get("duplicates", self.duplicates))

    def hit(self) -> Hit:
        """The kept passage as a hit."""
        return Hit(score=self.score, duplicates=self.duplicates, **self.fields)


def select(hits: list[Hit], k: int, *, collapse: bool = True, ties: bool = False) -> list[Hit]:
    """The best ``k`` hits in the total order, copies collapsed into the first of each group.

    Args:
        hits: hits or :class:`Candidate` objects, in any order (they are not modified: a kept hit that gains copies is a
            copy of its own; the others are the hits given).
        k: how many to keep.
        collapse: fold hits with the same digest into the first one, listing the others.
        ties: also keep every further hit whose score equals the k-th kept hit's score.
    """
    kept: list[Hit] = []
    groups: dict[str, int] = {}  # a digest's first hit: its place in kept
    copied: set[int] = set()  # the kept hits that are copies (made when a first copy of theirs turns up)
    for hit in sorted(hits, key=_order):
        at = groups.get(hit.digest) if collapse and hit.digest else None
        if at is not None:
            if at not in copied:
                kept[at] = kept[at].model_copy(update={"duplicates": list(kept[at].duplicates)})
                copied.add(at)
            kept[at].duplicates.extend([hit.ref(), *hit.duplicates])
            continue
        if len(kept) >= k and not (ties and hit.score == kept[k - 1].score):
            if not collapse:
                break
            continue  # keep scanning: a later copy of a kept hit must still be listed
        if collapse and hit.digest:
            groups[hit.digest] = len(kept)
        kept.append(hit)
    return kept


def _order(hit: Hit | Candidate) -> tuple[float, str, str]:
    return hit.order_key()


@dataclass
class Candidates:
    """What an index gave for one batch size (see :func:`search_complete`).

    Attributes:
        hits: the candidates that passed the filters, with exact scores (hits or :class:`Candidate` objects).
        bound: no passage outside this batch can score above it (the batch's lowest approximate
            score plus the index's tolerance).
        exhausted: the batch holds every passage there is.
    """

    hits: list[Hit]
    bound: float
    exhausted: bool


def search_complete(fetch: Callable[[int], Candidates], k: int, first: int, *, limit: int,
                    collapse: bool = True, ties: bool = True) -> list[Hit]:
    """The top ``k`` of an index, asking ``fetch(n)`` for more candidates until the result is certain.

    The result is certain once the k-th kept score is above ``bound`` (nothing unseen can reach it,
    not even tie with it) or the index is exhausted. Filters and collapsing can leave fewer than k
    hits in a batch; then the batch grows too, up to ``limit`` candidates.
    """
    n = max(first, k, 1)
    while True:
        batch = fetch(n)
        kept = select(batch.hits, k, collapse=collapse, ties=ties)
        if batch.exhausted or n >= limit or (len(kept) >= k and batch.bound < kept[k - 1].score):
            return kept
        n = min(2 * n, limit)
