"""Hypothesis settings for the property tests, and the hits the merge and top-k properties draw: passages
over a few leaves with many equal texts, patients and scores (exact ties and a one-float-apart near-tie)."""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from bus.messages import Hit
from nodes.data.topk import digest

#: Every property runs 300 examples, with no per-example deadline (the machine is shared).
PROPERTIES = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

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
    """What identifies a selection: each hit's leaf, id and score, in order."""
    return [(hit.path, hit.id, hit.score) for hit in selected]
