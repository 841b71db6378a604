"""What kind of answer a question asks for: read from the words that ask, before the topic's own, in the sentence
that asks."""

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
    # what a thing is, where nothing else is asked; not what a patient's or a pronoun's thing is, nor what one takes
    ("What is gout?", "definition"),
    ("What is (are) Tropical Spastic Paraparesis ?", "definition"),
    ("what's an aneurysm?", "definition"),
    ("What is hearing loss?", "definition"),
    ("What is the outlook for gout?", "outlook"),
    ("What is the difference between type 1 and type 2 diabetes?", None),
    ("What is Carol Dubois's glucose?", None),
    ("What is her weight?", None),
    ("What is Rebecca Wright taking?", None),
    ("What is Brian Ali allergic to?", None),
    ("Do you have any information about Noonan syndrome?", "definition"),
    ("Please tell me about Charcot-Marie-Tooth disease", "definition"),
    ("What does hypertension mean?", "definition"),
    ("I would like information on Graves disease treatment.", "treatment"),
    ("I was told I have a thyroid nodule, does that mean I have cancer?", None),
    # as people ask it
    ("What can I take for migraines?", "treatment"),
    ("How do I get rid of warts?", "treatment"),
    ("What helps with restless legs?", "treatment"),
    ("Will it ever go away?", "outlook"),
    ("How long does shingles last?", "outlook"),
    ("How do you get tuberculosis?", "causes"),
    ("Is hepatitis C contagious?", "causes"),
    ("What is (are) Financial Help for Diabetes Care ?", "definition"),
    # the sentence that asks, not what the writer says before it ("diagnosed", "tested") …
    ("Hello, my 6 year old daughter has been diagnosed with celiac disease. What foods does she need to avoid?", "diet"),
    ("My father was diagnosed with Parkinson's last year. His hands shake. What medications are available?", "treatment"),
    ("I was tested for HIV last week. How long does the window period last?", None),
    ("I was diagnosed with lupus last year. Looking for treatment options.", "treatment"),
    ("Can kidney stones come back after you pass them? how to prevent", "prevention"),
    # … the one before, where the last naming a kind asks too (a title's own question mark)
    ("What are the symptoms of Am I at Risk for Type 2 Diabetes? Taking Steps to Lower Your Risk of Getting Diabetes ?",
     "symptoms"),
])
def test_a_question_asks_for_the_kind_its_first_asking_words_name(question, kind):
    assert kind_of(question) == kind


def test_a_text_gives_a_kind_by_the_words_its_answers_use():
    assert speaks_of("Treatment includes colchicine and rest.", kind_of("How is gout treated?"))
    assert not speaks_of("Gout is caused by uric acid crystals.", kind_of("How is gout treated?"))
    assert not speaks_of("Anything at all.", None)
    assert speaks_of("Gout is a form of arthritis in which uric acid crystals form in a joint.", kind_of("What is gout?"))
    assert not speaks_of("Gout is treated with colchicine.", kind_of("What is gout?"))
