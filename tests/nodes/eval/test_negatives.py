"""The demo's negatives: nothing in the generated corpus or its tables answers them, and the check would say so."""

from __future__ import annotations

import json

import pytest

from nodes.demo import corpus as demo_corpus
from nodes.demo import tables
from nodes.eval import negatives as neg
from nodes.eval import sets


@pytest.fixture(scope="module")
def corpus():
    return demo_corpus.generate()


def corpus_texts(corpus) -> list[str]:
    return [r.text + " " + json.dumps(r.metadata) for records in corpus.leaves.values() for r in records]


def test_no_negative_is_answered_by_the_demo_corpus_or_its_vocabulary(corpus):
    assert neg.check_absent(corpus_texts(corpus)) == []
    assert neg.check_absent(neg.vocabulary()) == []
    assert len(neg.vocabulary()) > 1000  # the tables were read, not an empty list


def test_the_check_fails_when_a_chosen_condition_appears(corpus):
    planted = corpus_texts(corpus) + ["PAST MEDICAL HISTORY: Crohn's disease; remote tonsillectomy."]
    assert neg.check_absent(planted) == ['"Which patients have Crohn\'s disease?": \'crohn\' is in the demo',
                                         "'Which patients had a tonsillectomy?': 'tonsillectomy' is in the demo"]
    # a term matches at the start of a word only: "transplant" is in "transplanted", "stent" not in "persistent"
    assert neg.present(["transplant", "stent"], ["kidney transplanted; persistent cough"]) == {"transplant"}
    # and one it would have caught: the demo does plan transplant evaluations
    assert neg.present(["transplant"], corpus_texts(corpus)) == {"transplant"}


def test_a_partly_absent_question_asks_about_a_condition_the_demo_holds(corpus):
    from nodes.concepts import analyse, unstated
    from nodes.data import lexical

    records = [set(lexical.terms(text)) for text in corpus_texts(corpus)]
    for negative in neg.PARTLY_ABSENT:
        # what it asks about, the thing a severity or a control qualifies without them ("hypertension" of "severe …")
        things = [(unstated(concept) or (concept,))[0] for concept in analyse(negative.text).concepts]
        held = [concept.text for concept in things
                if any(set(option) <= terms for option in concept.alternatives for terms in records)]
        assert held and not any(term in " ".join(held).lower() for term in negative.absent), (negative.text, held)


def test_the_invented_people_are_nobody_the_demo_holds(corpus):
    names = set(tables.MALE_FIRST) | set(tables.FEMALE_FIRST) | set(tables.LAST)
    for negative in neg.UNKNOWN_PEOPLE:
        (person,) = negative.absent
        assert person in negative.text.lower()
        assert not {word.capitalize() for word in person.replace("-", " ").split()} & names, person
    patients = {name.lower() for name in corpus.patients}
    assert not patients & {negative.absent[0] for negative in neg.UNKNOWN_PEOPLE}


def test_the_demo_set_asks_its_own_questions_and_the_negatives(corpus):
    labelled = sets.load("demo-negatives")
    kinds = {}
    for question in labelled.questions:
        kinds[question.type] = kinds.get(question.type, 0) + 1
    assert kinds == {"trend": 5, "answerable": 27, neg.ABSENT_TYPE: 43, neg.PARTLY_TYPE: 19, neg.PERSON_TYPE: 20}
    assert [q.text for q in labelled.questions if not q.negative] == corpus.questions()
    trend = next(q for q in labelled.questions if q.type == "trend")
    planted = next(t for t in corpus.trends if t.question == trend.text)
    assert set(trend.relevant) == set(planted.record_ids) and trend.patients == planted.patients
    assert labelled.user == "A.phys.neur" and labelled.people == corpus.patients
    assert len({q.id for q in labelled.questions}) == len(labelled.questions)
