"""The harness end to end on a tiny labelled set (real broker, real model), and its helpers."""

from __future__ import annotations

import json

import pytest

from bus.errors import SpecError
from bus.messages import Hit, PassageRef
from nodes.data.records import Record
from nodes.eval import harness
from nodes.eval.report import EvalResult, Outcome
from nodes.eval.sets import LabelledSet, Question
from summarizer.answer import record_of_passage

#: Short records on topics far apart, so each question's gold record is the one it is about.
TOPICS = {
    "warfarin": "Warfarin doses are adjusted every week to keep the INR between two and three.",
    "bleeding": "Patients on anticoagulants such as warfarin should report any unusual bleeding or bruising.",
    "wrist": "A plaster cast immobilizes a fractured wrist for six weeks while the bone heals.",
    "glargine": "Insulin glargine is injected once every night as the basal insulin.",
    "migraine": "Migraine headaches are throbbing, one-sided, and worse with bright light.",
    "sunscreen": "Sunscreen of SPF thirty or more protects the skin from sunburn.",
    "colonoscopy": "A colonoscopy screens the large bowel for polyps every ten years from age forty-five.",
    "inhaler": "A spacer helps an asthma inhaler deliver the medicine into the lungs.",
    "tetanus": "A tetanus booster vaccine is recommended every ten years.",
    "cataract": "Cataracts cloud the lens of the eye and blur vision.",
    "hearing": "Hearing aids amplify sound for people with hearing loss.",
    "folic": "Folic acid before pregnancy lowers the risk of neural tube defects.",
    "cavities": "Fluoride toothpaste prevents dental cavities.",
    "backpain": "Physiotherapy exercises strengthen the core muscles for low back pain.",
    "iron": "Iron tablets treat iron deficiency anemia and can darken the stool.",
    "cpap": "A CPAP machine keeps the airway open during sleep apnea.",
    "salt": "Eating less salt lowers blood pressure.",
    "eczema": "Thick moisturizers soothe the dry itchy skin of eczema.",
}
QUESTIONS = [
    ("q-warfarin", "How is the warfarin dose adjusted to the INR?", "treatment", {"warfarin": 2, "bleeding": 1}),
    ("q-wrist", "How long does a fractured wrist stay in a plaster cast?", "outlook", {"wrist": 1}),
    ("q-glargine", "When is insulin glargine injected?", "treatment", {"glargine": 1}),
    ("q-migraine", "What do migraine headaches feel like?", "symptoms", {"migraine": 1}),
    ("q-sunscreen", "Which sunscreen protects the skin from sunburn?", "prevention", {"sunscreen": 1}),
    ("q-colonoscopy", "How often does a colonoscopy screen for polyps?", "exams", {"colonoscopy": 1}),
]


def tiny_set() -> LabelledSet:
    records = [Record(rid, text) for rid, text in TOPICS.items()] + [
        Record("ana", "Ana Ruiz takes allopurinol every day for her gout.", patient="Ana Ruiz")]
    orgs = {org: records[n::3] for n, org in enumerate(("north", "south", "west"))}
    questions = [Question(qid, text, kind, relevant, TOPICS[max(relevant, key=relevant.get)])
                 for qid, text, kind, relevant in QUESTIONS]
    questions.append(Question("nobody", "What medications is Zorblat Quixote taking for his gout?", "unknown person",
                              negative=True))
    return LabelledSet("tiny", questions, orgs, leaves=2, people=("Ana Ruiz",))


async def test_a_tiny_set_end_to_end(tmp_path, nats_server, embedder):
    said = []
    result = await harness.run(tiny_set(), tmp_path / "tiny", url=nats_server.url, embedder_factory=lambda: embedder,
                               verbose=False, say=said.append)
    assert len(result.outcomes) == 7 * 3 and result.passages == 19 and (result.orgs, result.leaves) == (3, 6)
    assert "  hybrid: 7/7 questions asked" in said

    dense = result.summary("dense")
    # far-apart topics: dense ranking puts every question's best record first
    assert dense["retrieval"] == {"questions": 6, "ndcg": pytest.approx(1.0), "mrr": 1.0, "recall": 1.0, "success": 1.0}
    # the federation's hits are the centralized index's, passage for passage
    assert dense["central"] == dense["retrieval"] and dense["identical"] == 7
    for outcome in result.of("dense"):
        if not outcome.question.negative:
            assert outcome.records[0] == max(outcome.question.relevant, key=outcome.question.relevant.get)
            assert outcome.rouge_top == 1.0  # the top passage is the gold record, word for word
            assert 0.0 < outcome.rouge_answer <= 1.0 and outcome.status == "successful"
    assert dense["answers"]["rouge_l_top_passage"] == 1.0
    negatives = dense["negatives"]
    assert (negatives["questions"], negatives["positives"]) == (1, 6)
    assert negatives["rejection"] == negatives["rejected"] == negatives["types"]["unknown person"]["rejected"]
    assert set(dense["types"]) == {"treatment", "outlook", "symptoms", "prevention", "exams", "unknown person"}
    assert dense["types"]["treatment"]["retrieval"]["questions"] == 2

    for mode in harness.MODES:  # until lexical and hybrid land every mode is asked, and measured, on its own
        assert result.summary(mode)["questions"] == 7
    text = result.text()
    table = text.split("per ranking mode\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert [line.split()[0] for line in table[2:]] == ["dense", "lexical", "hybrid"]
    assert "identical top-10 (passages, order, scores): 7/7 questions" in text
    assert "negative rejection" in text and "per question type" in text
    as_json = json.loads(json.dumps(result.to_dict()))
    assert as_json["modes"]["dense"]["identical"] == 7 and len(as_json["outcomes"]) == 21
    assert {o["rank"] for o in as_json["outcomes"] if o["mode"] == "dense"} == {1, None}  # None: the negative


def test_questions_asking_which_patients_are_graded_by_the_patients_their_hits_are_about():
    asked = Question("t", "Which patients have gout?", "trend", patients=("Ana Ruiz", "Bo Chen", "Cy Park"))
    other = Question("u", "What is gout?", "answerable")
    result = EvalResult("x", 2, ("hybrid",), outcomes=[
        Outcome(asked, "hybrid", [], patients=["Ana Ruiz", "Di Moss", "Bo Chen", "Ed Lowe"]),
        Outcome(other, "hybrid", [], patients=["Ana Ruiz"])])
    assert result.summary("hybrid")["patients"] == {"questions": 1, "found": 2, "answer": 3, "named": 4,
                                                    "recall": pytest.approx(2 / 3), "precision": 0.5}
    assert "questions asking which patients" in result.text()
    assert EvalResult("x", 1, ("hybrid",), outcomes=[Outcome(other, "hybrid", [])]).summary("hybrid")["patients"] is None


def test_ranked_records_skip_nothing_and_list_collapsed_copies_after_their_hit():
    def hit(pid, record, copies=()):
        return Hit(id=pid, org="o", path="o.l", score=0.5, text="t", metadata={"record_id": record},
                   duplicates=[PassageRef(path="o.m", id=c) for c in copies])

    hits = [hit("a#0", "a"), hit("b", "b", ["c#2", "d"]), hit("a#1", "a")]
    assert harness.ranked_records(hits) == ["a", "b", "c", "d", "a"]
    assert harness.ranked_records(hits, copies=False) == ["a", "b", "a"], "a patient's other passages say other things"
    assert record_of_passage("x/rec-1#12") == "x/rec-1" and record_of_passage("rec#a") == "rec#a"


def test_answers_lose_their_citations_and_people_are_found_by_name():
    assert harness.strip_citations("Take it daily. [1] Check the INR. [2] [3]") == "Take it daily. Check the INR."
    assert harness.names_somebody("ana ruiz: takes allopurinol [1]", ["Ana Ruiz"])
    assert not harness.names_somebody("Not enough evidence.", ["Ana Ruiz"])


def test_modes_are_checked():
    assert harness.parse_modes("hybrid, dense,dense") == ("hybrid", "dense")
    with pytest.raises(SpecError, match="unknown ranking mode 'bm25' \\(known: dense, lexical, hybrid\\)"):
        harness.parse_modes("dense,bm25")
    with pytest.raises(SpecError, match="none given"):
        harness.parse_modes(" , ")
