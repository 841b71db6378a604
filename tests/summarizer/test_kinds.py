"""What kind of answer a question asks for: read from the words that ask, before the topic's own."""

from __future__ import annotations

import pytest

from summarizer.kinds import kind_of, speaks_of


@pytest.mark.parametrize("question, kind", [
    ("What is the outlook for Testicular Cancer?", "outlook"),  # not a test
    ("What are the treatments for Hereditary Spastic Paraplegia?", "treatment"),  # not inheritance
    ("What causes Foodborne Illnesses?", "causes"),  # not diet
    ("What is the outlook for Lambert-Eaton Myasthenic Syndrome?", "outlook"),  # "eat" of Lambert-Eaton
    ("How to diagnose atrial fibrillation?", "diagnosis"),
    ("What are the symptoms of Treacher Collins syndrome?", "symptoms"),
    ("How can I prevent the symptoms of gout?", "prevention"),
    ("What is gout?", None),
])
def test_a_question_asks_for_the_kind_its_first_asking_words_name(question, kind):
    assert kind_of(question) == kind


def test_a_text_gives_a_kind_by_the_words_its_answers_use():
    assert speaks_of("Treatment includes colchicine and rest.", kind_of("How is gout treated?"))
    assert not speaks_of("Gout is caused by uric acid crystals.", kind_of("How is gout treated?"))
    assert not speaks_of("Anything at all.", None)
