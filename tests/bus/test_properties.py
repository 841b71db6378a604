"""Properties that must hold for every input, checked with hypothesis: the codec, the merge, budgets.

- Any bytes, and any msgpack value, given to :func:`bus.codec.decode` end in a model or in one of our
  two errors (never another exception), and what :func:`bus.codec.encode` packs decodes back equal.
- Merging what children return equals selecting over everything they hold (the top k, copies
  collapsed or not, ties complete), however the hits are split among children: the property behind
  "federated equals centralized".
- A budget never gives children a negative or a larger share than what is left, and a hop's extra
  reserve never takes more than its share.
"""

from __future__ import annotations

import msgpack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bus import codec
from bus.budget import MAX_EXTRA_SHARE, Reserve
from bus.errors import DecodeError, ValidationError
from bus.messages import Answer, AskRequest, Hit, Query, SearchResult
from bus.scatter import ChildOutcome
from nodes.data.topk import digest, select
from nodes.merge import merge

PROPERTIES = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

msgpack_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats(allow_nan=True) | st.text(max_size=20)
    | st.binary(max_size=20),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=20,
)


@PROPERTIES
@given(st.binary(max_size=300), st.sampled_from([Query, AskRequest, SearchResult, Answer]))
def test_any_bytes_decode_to_a_model_or_to_our_error(data, model):
    try:
        codec.decode(data, model)
    except (DecodeError, ValidationError):
        pass


@PROPERTIES
@given(msgpack_values, st.sampled_from([Query, AskRequest, SearchResult, Answer]))
def test_any_msgpack_value_decodes_to_a_model_or_to_our_error(value, model):
    try:
        codec.decode(msgpack.packb(value, use_bin_type=True), model)
    except (DecodeError, ValidationError):
        pass


TEXTS = ["Started apixaban.", "started  APIXABAN.", "Knee pain.", "No known allergies.", "Warfarin stopped."]
PATIENTS = [None, "Ana Ruiz", "Bo Chen"]
SCORES = [0.9, 0.75, 0.75, 0.5, 0.5000001, 0.3]  # exact ties and a one-float-apart near-tie


@st.composite
def hits(draw) -> list[Hit]:
    """Up to 30 distinct passages over 4 leaves, many with the same text, patient or score."""
    count = draw(st.integers(0, 30))
    made = []
    for n in range(count):
        text, patient = draw(st.sampled_from(TEXTS)), draw(st.sampled_from(PATIENTS))
        made.append(Hit(id=f"p{n}", org="org", path=f"org.leaf{draw(st.integers(0, 3))}", score=draw(st.sampled_from(SCORES)),
                        text=text, patient=patient, digest=digest(text, patient)))
    return made


def keys(selected: list[Hit]) -> list[tuple[str, str, float]]:
    return [(hit.path, hit.id, hit.score) for hit in selected]


@PROPERTIES
@given(hits(), st.integers(1, 12), st.booleans())
def test_merging_what_leaves_return_equals_selecting_over_everything(all_hits, k, collapse):
    by_leaf: dict[str, list[Hit]] = {}
    for hit in all_hits:
        by_leaf.setdefault(hit.path, []).append(hit)
    # each leaf returns its top k with every hit tied with its k-th, as a leaf's search does
    outcomes = [ChildOutcome(subject=f"fed.q.{path}", status="successful", took_ms=1.0,
                             result=SearchResult(hits=select(found, k, collapse=collapse, ties=True)))
                for path, found in sorted(by_leaf.items())]
    merged = merge(outcomes, k, "fed.q.org", 2.0, collapse=collapse)
    assert keys(merged.hits) == keys(select(all_hits, k, collapse=collapse))


@PROPERTIES
@given(hits(), st.integers(1, 12))
def test_collapsed_hits_are_distinct_evidence_and_hide_nothing_they_list(all_hits, k):
    kept = select(all_hits, k, collapse=True)
    digests = [hit.digest for hit in kept if hit.digest]
    assert len(digests) == len(set(digests)), "no evidence twice"
    listed = {(ref.path, ref.id) for hit in kept for ref in hit.duplicates}
    shown = {(hit.path, hit.id) for hit in kept}
    assert not listed & shown
    for hit in kept:
        for ref in hit.duplicates:
            copy = next(h for h in all_hits if (h.path, h.id) == (ref.path, ref.id))
            assert copy.digest == hit.digest and copy.order_key() > hit.order_key(), "a copy is listed under its first"


@PROPERTIES
@given(st.floats(0, 600_000), st.floats(0, 1000), st.floats(0, 0.9), st.floats(0, 100_000))
def test_a_reserve_leaves_children_their_share(remaining, fixed, fraction, extra):
    reserve = Reserve(fixed_ms=fixed, fraction=fraction).plus(extra)
    kept = reserve.of(remaining)
    base = Reserve(fixed_ms=fixed, fraction=fraction).of(remaining)
    assert base <= kept <= base + extra + 1e-6
    if remaining > base:
        children = remaining - kept
        assert children >= (1 - MAX_EXTRA_SHARE) * (remaining - base) - 1e-6, "the extra work never starves the search"
