"""What ``fedrag ask`` prints (:func:`nodes.run.render.answer_text`): each thing said once, and the passages an
answer cites after its hits listed under them with the numbers it cites them by."""

from __future__ import annotations

from bus.asking import Answer, AnswerInfo
from bus.messages import Coverage, ErrorInfo, Hit, PassageRef, Summary
from nodes.run.render import answer_text
from summarizer.answer import insufficient

WHY = "no record searched mentions Crohn's disease"


def hit(n: int, record: str = "note-1", patient: str | None = "Ana Ruiz") -> Hit:
    return Hit(id=f"{record}#{n}", org="hospital_a", path="hospital_a.medicine", score=0.5 - n / 100,
               text=f"Passage {n} of {record}.", patient=patient, metadata={"record_id": record})


def test_a_refusal_says_its_reason_once_and_summaries_of_nothing_are_left_out():
    answer = Answer(question="Which patients have Crohn's disease?", hits=[hit(0)], closest=True, absent=["Crohn's disease"],
                    answer=insufficient(WHY), answer_info=AnswerInfo(method="extractive", status="insufficient", reason=WHY),
                    summaries=[Summary(path="hospital_a", method="extractive", status="insufficient", passages=12,
                                       error=ErrorInfo(type="ungrounded", reason=WHY)),
                               Summary(path="hospital_b", method="extractive", status="insufficient", passages=0),
                               Summary(path="hospital_c", method="extractive", status="insufficient", passages=9,
                                       relevant=0)])
    text = answer_text(answer)
    assert " ".join(text.split()).casefold().count(WHY.casefold()) == 1, text
    assert "Closest records — they do not mention Crohn's disease:" in text
    assert "Summary of hospital_a" not in text and "Summary of hospital_b" not in text, "nothing they say is new"
    assert "Summary of hospital_c (extractive, insufficient; 0 of 9 passages relevant)" in text, \
        "a summary that read passages and found none relevant still says so"


def test_the_rest_of_a_quoted_record_is_listed_under_the_hits_by_the_numbers_the_answer_cites():
    hits = [hit(1, "handout", None), hit(3, "other", None)]
    rest = [hit(0, "handout", None), hit(2, "handout", None)]
    answer = Answer(question="How is gout treated?", hits=hits, context=rest,
                    answer="Passage 0 of handout. [3] Passage 1 of handout. [1] Passage 2 of handout. [4]",
                    answer_info=AnswerInfo(method="extractive", status="successful"))
    lines = answer_text(answer).splitlines()
    header = lines.index("The rest of the record the answer quotes (handout):")
    numbered = [line.split()[0] for line in lines if line.startswith("[")]
    assert numbered == ["[1]", "[2]", "[3]", "[4]"]
    last_hit, first_rest = "[2] 0.470  hospital_a.medicine  other#3", "[3] 0.500  hospital_a.medicine  handout#0"
    assert lines.index(last_hit) < header < lines.index(first_rest)


def test_what_no_record_mentions_is_said_right_under_an_answer_to_the_rest():
    # an answer from reference texts (about no patient) answers the rest of a question; one naming patients would not
    answer = Answer(question="Is gout treated with allopurinol or methotrexate?", hits=[hit(0, "handout", None)],
                    absent=["methotrexate"], answer="Passage 0 of handout. [1]",
                    answer_info=AnswerInfo(method="extractive", status="successful"),
                    summaries=[Summary(path="hospital_a", method="extractive", status="insufficient", passages=9)])
    lines = answer_text(answer).splitlines()
    said = lines.index("   (no record mentions methotrexate)")
    assert lines[said - 2].startswith("A: Passage 0") and said < lines.index("[1] 0.500  hospital_a.medicine  handout#0")
    assert sum("methotrexate" in line for line in lines) == 2, "the question, and that line once"


def test_hits_an_answer_found_not_enough_are_titled_the_closest_records_and_evidence_is_not():
    said = "Not enough evidence in the records searched to answer this question. None of the closest records of Ana Ruiz " \
           "mentions blood pressure."
    short = Answer(question="What is Ana Ruiz's blood pressure?", hits=[hit(0), hit(1)], patients=["Ana Ruiz"], answer=said,
                   answer_info=AnswerInfo(method="extractive", status="insufficient", reason="nothing mentions it"))
    lines = answer_text(short).splitlines()
    title = lines.index("Closest records — not enough to answer the question:")
    assert lines[title + 1].startswith("[1] 0.500"), "the title stands over the first hit"
    answered = short.model_copy(update={"answer": "Passage 0 of note-1. [1]",
                                        "answer_info": AnswerInfo(method="extractive", status="successful")})
    assert "Closest records" not in answer_text(answered) and answered.falls_short() is None
    assert short.model_copy(update={"hits": []}).falls_short() is None, "no hits, nothing to title"


def test_the_closest_records_of_a_patient_held_nowhere_are_titled_as_the_answer_says_it():
    unknown = Answer(question="What is Zorblat Quixote taking for gout?", hits=[hit(0)], patients=["Zorblat Quixote"],
                     filtered=True, closest=True, answer="No records of Zorblat Quixote.",
                     answer_info=AnswerInfo(method="extractive", status="insufficient"))
    assert unknown.falls_short() == "no records of Zorblat Quixote"
    assert "Closest records — no records of Zorblat Quixote:" in answer_text(unknown).splitlines()
    held = unknown.model_copy(update={"names": {"Zorblat Quixote": ["hospital_a.medicine"]}, "absent": ["gout"]})
    assert held.falls_short() == "they do not mention gout", "a patient held somewhere: what their records lack"
    assert unknown.model_copy(update={"hits": []}).falls_short() is None


def test_the_last_line_names_whose_passages_are_listed_and_no_one_when_none_are():
    """A refusal with no passages from ten units that all answered once ended "coverage 10/10 units · orgs answering:
    -", which reads as if no organization had answered."""
    everyone = Coverage(total=10, successful=10)
    last = answer_text(Answer(question="Who has Crohn's disease?", coverage=everyone)).splitlines()[-1]
    assert last.endswith("coverage 10/10 units"), last
    other = hit(1).model_copy(update={"org": "hospital_b", "path": "hospital_b.cardiology"})
    last = answer_text(Answer(question="Who has gout?", hits=[hit(0), other], coverage=everyone)).splitlines()[-1]
    assert last.endswith("coverage 10/10 units · passages from: hospital_a, hospital_b"), last
    closest = Answer(question="Who has Crohn's disease?", hits=[hit(0)], closest=True, absent=["Crohn's disease"],
                     coverage=everyone, answer=insufficient(WHY),
                     answer_info=AnswerInfo(method="extractive", status="insufficient", reason=WHY))
    assert answer_text(closest).splitlines()[-1].endswith("· closest records from: hospital_a")


def test_a_hit_lists_its_copies_or_asked_which_patients_the_patients_other_passages():
    first = hit(0).model_copy(update={"duplicates": [PassageRef(path="hospital_a.medicine", id="note-2#0")]})
    copies = answer_text(Answer(question="gout", hits=[first]))
    assert "same text also in: hospital_a.medicine note-2#0" in copies
    each = answer_text(Answer(question="Which patients have gout?", hits=[first], per_patient=True))
    assert "more of this patient's passages: hospital_a.medicine note-2#0" in each and "same text" not in each
