"""The one total order and complete top-k (:mod:`nodes.data.topk`): a property (hypothesis) that copies
collapsed under their first are distinct evidence and hide nothing they list, whatever the hits."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from nodes.data.topk import select
from tests.helpers.properties import PROPERTIES, hits


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
