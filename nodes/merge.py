"""Merging children's results: one node's evidence, reports, names and summaries from its children's.

Hits keep the one total order and copies collapse as at a leaf (:func:`nodes.data.topk.select`), so a
merge of merges gives what one merge over every leaf would: federated top-k equals centralized top-k,
ties and copies included.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Sequence

from bus.messages import MAX_K, CollectionStats, Coverage, Hit, NodeReport, PassageRef, SearchResult
from bus.scatter import ChildOutcome
from nodes.concepts import named_share
from nodes.data.chunking import opening
from nodes.data.topk import select
from summarizer import kinds


def pooled(outcomes: list[ChildOutcome], lexical: bool = False) -> list[Hit]:
    """Every hit the children returned (in their lexical lists, with ``lexical``), except that children
    which restricted their search to named patients win over children that could not (see
    :class:`bus.messages.Filters`)."""
    results = [o.result for o in outcomes if o.result is not None]
    filtered = any(r.filtered for r in results)
    return [hit for r in results if r.filtered or not filtered for hit in (r.lexical if lexical else r.hits)]


def summed(outcomes: list[ChildOutcome]) -> CollectionStats | None:
    """The children's collection statistics added up (``None`` if none sent any). A child that did not count them
    all may hold records of patients: the sum then says one passage at least is about a patient, so that a name
    the question is sure of still filters (:func:`nodes.names.held_nowhere`)."""
    found = [o.result.stats for o in outcomes if o.result is not None and o.result.stats is not None]
    if not found:
        return None
    total = CollectionStats()
    for stats in found:
        total.add(stats)
    if not complete(outcomes):
        total.people = max(total.people, 1)
    return total


def complete(outcomes: Sequence[ChildOutcome]) -> bool:
    """Whether every child counted all it holds: it answered whole, or the caller may search none of it (``denied``),
    or it is ``partial`` only by such units below it (its coverage: a router whose leaves denied the caller some) —
    what :func:`summed` then says lasts as long as the children's processes, and what a claim that the records hold
    nothing needs (a unit that timed out, failed, or refused the caller for now may hold it)."""
    return all(_counted_whole(outcome) for outcome in outcomes)


def _counted_whole(outcome: ChildOutcome) -> bool:
    if outcome.result is not None and outcome.result.timed_out:
        return False
    if outcome.status in ("successful", "denied"):
        return True
    covered = outcome.coverage
    return outcome.status == "partial" and covered.total > 0 and covered.successful + covered.denied == covered.total


def distinct(hits: list[Hit], lexical: list[Hit]) -> int:
    """How many passages the two lists hold together (a passage in both counts once)."""
    return len({(hit.path, hit.id) for hit in hits} | {(hit.path, hit.id) for hit in lexical})


def capped(hits: list[Hit], lexical: list[Hit], cap: int | None) -> tuple[list[Hit], list[Hit]]:
    """The two lists holding at most ``cap`` passages together (the caller's ``max_passages``): the dense list
    first, then the lexical list as far as it adds passages within the cap — a passage already sent in the
    dense list costs nothing. A question asking for more than half its cap may so lose lexical candidates."""
    if cap is None or distinct(hits, lexical) <= cap:
        return hits, lexical
    hits = hits[:cap]
    seen = {(hit.path, hit.id) for hit in hits}
    kept = []
    for hit in lexical:
        key = (hit.path, hit.id)
        if key not in seen:
            if len(seen) >= cap:
                break
            seen.add(key)
        kept.append(hit)
    return hits, kept


def merge(outcomes: list[ChildOutcome], k: int, subject: str, took_ms: float, *, collapse: bool = True,
          cap: int | None = None, lexical_k: int | None = None) -> SearchResult:
    """Combines the children's outcomes into this node's result: the top ``k`` of :func:`pooled` (of each
    list, dense and lexical, together at most ``cap`` passages: :func:`capped`), every report, name and
    summary, and the statistics :func:`summed`.

    Args:
        outcomes: one per child, as returned by :func:`bus.scatter.scatter_gather`.
        k: how many hits to keep (of the lexical list, ``lexical_k`` if given).
        subject: this node's subject, under which its own report is filed.
        took_ms: how long this node took.
        collapse: fold copies of the same evidence (see :func:`select`).
    """
    coverage = Coverage()
    nodes: dict[str, NodeReport] = {}
    names: dict[str, list[str]] = {}
    summaries = []
    for outcome in outcomes:
        coverage.add(outcome.coverage)
        if outcome.result is not None:
            nodes.update(outcome.result.nodes)
            summaries.extend(outcome.result.summaries)
            for name, where in outcome.result.names.items():
                names.setdefault(name, []).extend(where)
        nodes[outcome.subject] = outcome.report  # the parent's view: status, time including transit
    partial = any(o.status != "successful" for o in outcomes)
    timed_out = any(o.status == "timed_out" or (o.result is not None and o.result.timed_out) for o in outcomes)
    kept, lexical = capped(select(pooled(outcomes), k, collapse=collapse),
                           select(pooled(outcomes, lexical=True), k if lexical_k is None else lexical_k,
                                  collapse=collapse), cap)
    filtered = any(o.result is not None and o.result.filtered for o in outcomes)
    nodes[subject] = NodeReport(status="partial" if partial else "successful", took_ms=round(took_ms, 2),
                                hits=distinct(kept, lexical))
    return SearchResult(hits=kept, lexical=lexical, took_ms=round(took_ms, 2), timed_out=timed_out, partial=partial,
                        coverage=coverage, nodes=nodes, filtered=filtered, stats=summed(outcomes),
                        names={name: sorted(set(where)) for name, where in sorted(names.items())}, summaries=summaries)


#: How much the embedding's similarity weighs in a hybrid score; BM25 (as a share of the best BM25 among the
#: candidates) weighs the rest. Chosen on one half of a MedQuAD sample and checked on the other
#: (``fedrag eval medquad``), where BM25 alone ranks well below the embedding.
DENSE_WEIGHT = 0.9
#: How much of that similarity is the passage's best sentence's (:attr:`bus.messages.Hit.sentence`), the rest the
#: whole passage's: an answer that says in one sentence what the question asks beats one that is only about the
#: same topic. Chosen and checked as :data:`DENSE_WEIGHT`.
SENTENCE_WEIGHT = 0.5
#: How much a passage gains in a hybrid score when it mentions every thing the question asks about (a share of it for
#: each it mentions, :func:`nodes.concepts.mentions`: the term lists of the thing or an accepted synonym, written as
#: one): a record that does not name the gout asked about cannot say how gout was treated, however near its medication
#: list is to "treatment", nor does a text on hereditary neuropathies say whether Parkinson's disease is hereditary,
#: however many times it writes "hereditary". On the scale of a cosine similarity, as
#: :data:`summarizer.kinds.PASSAGE_BONUS`. Reference texts, headed by their record's title (the topic), gain it too
#: since they are: MedQuAD's nDCG@10 0.817 → 0.820 and 0.800 → 0.801 held out, PubMedQA's 0.982 → 0.986 (before titles
#: it cost MedQuAD 0.007 to 0.010).
MENTION_BONUS = 0.15


def depth(k: int) -> int:
    """How many passages of the dense list a hybrid question asks for, to fuse into its top ``k``: half as many again
    (what ranks 11th by the passage's similarity may rank in the top 10 on its best sentence and its words)."""
    return min(k + k // 2, MAX_K)


def lexical_depth(k: int) -> int:
    """How many of the lexical list it asks for: as many as it returns. At :data:`DENSE_WEIGHT` the lexical list gives
    the fusion its best BM25 (what every candidate's is a share of) and, with :data:`MENTION_BONUS`, the patients'
    records that name what is asked where the embedding ranks others nearer: "Which patients have hypertension and
    diabetes?" finds the notes naming both, "…left the hospital against medical advice?" five patients' headers of
    fields instead of one. On MedQuAD (``fedrag eval medquad``) depths 1, 3, 5, 10 and 15 rank 400 questions within
    0.002 nDCG@10, and depths 1, 5, 10 and 15 the next 400. What it costs is the passages a leaf reads, scores and
    weighs (README, Answering only what the records answer)."""
    return k


def fuse(dense: list[Hit], lexical: list[Hit], k: int, kind: str | None = None,
         about: Sequence[Sequence[Sequence[str]]] = (), *, collapse: bool = True) -> list[Hit]:
    """The top ``k`` of the two ranked lists' passages by a weighted sum of their scores, once, at the gateway
    (and the same way in the centralized baseline).

    Every candidate — a passage in either list — carries its cosine similarity, its best sentence's and its BM25
    (a leaf scores each of its hits every way), so each is scored on all, not only on the list it made:
    :data:`DENSE_WEIGHT` × similarity + (1 − :data:`DENSE_WEIGHT`) × BM25 / the best candidate's BM25, where the
    similarity is the passage's and its best sentence's (:data:`SENTENCE_WEIGHT`), plus
    :data:`summarizer.kinds.PASSAGE_BONUS` for a passage whose opening (after its record's title:
    :func:`nodes.data.chunking.opening`) gives the kind of answer the question asks for (:mod:`summarizer.kinds`; not
    a kind a field of every record's header gives, :data:`summarizer.kinds.GIVEN_BY_FIELDS`),
    plus :data:`MENTION_BONUS` times the share of the things the question asks about (``about``: each its term lists,
    :attr:`bus.asking.Answer.about`) that a passage mentions.
    Each hit's score becomes that, in the one total order. Copies of one piece of evidence (``collapse``,
    :func:`nodes.data.topk.select`) fold into the first of them once fused, as in each list: the lists' own firsts of
    a group may be different copies (a patient's visit repeated on other days, each list ordering them its way).

    Both lists are already exact (merged up the tree in their own orders), so the candidates, their scores
    and the best BM25 are what one index over every passage gives, and so is the fused list. A candidate's text is
    read for its bonuses best first by the rest of its score, and no longer once no bonus could lift the rest into
    the top ``k`` (what reading a passage's words costs is most of the fusion's time, the more so for a passage the
    gateway reads for the first time).
    """
    candidates: dict[tuple[str, str], Hit] = {}
    for hit in [*dense, *lexical]:
        candidates.setdefault((hit.path, hit.id), hit)
    if kind in kinds.GIVEN_BY_FIELDS:  # every admission's header ends "Disposition: …": its opening tells no topic
        kind = None
    best = max((hit.bm25 or 0.0 for hit in candidates.values()), default=0.0)
    based = []
    for hit in candidates.values():
        similarity = hit.relevance if hit.sentence is None else (
            (1.0 - SENTENCE_WEIGHT) * hit.relevance + SENTENCE_WEIGHT * hit.sentence)
        based.append((DENSE_WEIGHT * similarity + ((1.0 - DENSE_WEIGHT) * (hit.bm25 or 0.0) / best if best > 0 else 0.0),
                      hit))
    based.sort(key=lambda entry: entry[1].order_key(entry[0]))
    # the most the bonuses add, a little over (1e-9: the float sums of a score and its bonuses round either way)
    most = (kinds.PASSAGE_BONUS if kind is not None else 0.0) + (MENTION_BONUS if about else 0.0) + 1e-9
    named = named_share(list(about))
    fused: list[tuple[tuple[float, str, str], float, Hit]] = []
    digests = [hit.digest for hit in candidates.values() if hit.digest] if collapse else []
    copies = len(set(digests)) < len(digests)  # copies of one evidence among them: the k-th counts each group once
    for base, hit in based:
        if base + most < _kth(fused, k, copies):
            break  # neither this candidate nor any after it (none scores more before its bonuses) reaches the top k
        score = base
        if kinds.speaks_of(opening(hit.text, hit.metadata)[:kinds.OPENING_CHARS], kind):
            score += kinds.PASSAGE_BONUS
        if about and hit.text:
            score += MENTION_BONUS * named(hit.text)
        insort(fused, (hit.order_key(score), score, hit), key=lambda entry: entry[0])
    if not copies:
        return [hit.model_copy(update={"score": score}) for _, score, hit in fused[:k]]
    scored = [hit.model_copy(update={"score": score}) for _, score, hit in fused]
    return [_listed_once(hit) for hit in select(scored, k)]


def _kth(fused: list[tuple[tuple[float, str, str], float, Hit]], k: int, copies: bool) -> float:
    """The score of the ``k``-th piece of evidence fused so far (``copies``: some are copies of one, which count
    once), or minus infinity."""
    if not copies:
        return fused[k - 1][1] if len(fused) >= k else float("-inf")
    seen: set[str] = set()
    count = 0
    for _, score, hit in fused:
        if hit.digest:
            if hit.digest in seen:
                continue
            seen.add(hit.digest)
        count += 1
        if count == k:
            return score
    return float("-inf")


def _listed_once(hit: Hit) -> Hit:
    """``hit`` with each of its copies listed once and itself not among them (a group's two firsts list each other)."""
    refs = list(dict.fromkeys((ref.path, ref.id) for ref in hit.duplicates if (ref.path, ref.id) != (hit.path, hit.id)))
    if len(refs) == len(hit.duplicates):
        return hit
    return hit.model_copy(update={"duplicates": [PassageRef(path=path, id=id) for path, id in refs]})
