"""Cutting a record into passages (:mod:`nodes.data.chunking`): whole sentences packed up to the size,
headings kept with their text, de-identified header lines dropped, and nothing from debris."""

from __future__ import annotations

from nodes.data.chunking import chunk, opening, sections
from summarizer.sentences import sentences
from nodes.data.records import Record


def test_short_sections_share_a_passage_that_carries_name_and_date_once():
    record = Record("n1", "CHIEF COMPLAINT: cough.\n\nPLAN: antibiotics.", "Ana Ruiz", "2023-04-02")
    [passage] = chunk(record)
    assert passage.id == "n1" and passage.record_id == "n1" and passage.section == "CHIEF COMPLAINT"
    assert passage.text == "Ana Ruiz, 2023-04-02. CHIEF COMPLAINT: cough. PLAN: antibiotics."


def test_a_records_title_heads_every_passage_of_it_and_copies_are_told_by_their_body():
    """A reference text's answer says "PD" where its topic says Parkinson's disease: each passage carries the title,
    so a question naming the topic reaches every passage of it, not only the first."""
    text = " ".join(f"PD is treated in step {i} of the course." for i in range(40))
    passages = chunk(Record("ninds/223-3", text, metadata={"title": "Parkinson's  Disease"}), max_chars=300)
    assert len(passages) > 1 and all(p.text.startswith("Parkinson's Disease: PD is treated") for p in passages)
    assert " ".join(p.body for p in passages) == text, "what copies of the evidence share is the text, not its title"
    [noted] = chunk(Record("n1", "PLAN: rest.", "Ana Ruiz", "2023-04-02", metadata={"title": "Follow-up visit"}))
    assert noted.text == "Ana Ruiz, 2023-04-02. Follow-up visit: PLAN: rest." and noted.body == "PLAN: rest."
    [untitled] = chunk(Record("t", "PD is chronic.", metadata={"title": "", "focus": "Parkinson's Disease"}))
    assert untitled.text == "PD is chronic.", "only a title heads a passage"
    assert [opening(p.text, p.metadata) for p in (passages[0], noted, untitled)] == \
        [passages[0].body, "PLAN: rest.", "PD is chronic."], "what a passage says first, after its title"


def test_sentences_are_packed_up_to_the_size_and_never_cut():
    text = " ".join(f"Sentence number {i} is here." for i in range(200))
    passages = chunk(Record("x", text), max_chars=300)
    assert len(passages) > 1 and [p.id for p in passages][:2] == ["x#0", "x#1"]
    assert all(len(p.text) <= 300 and p.text.endswith(".") for p in passages)
    assert " ".join(p.text for p in passages) == text


def test_a_heading_travels_with_its_text_and_names_the_section():
    body = " ".join(f"Line {i} of the history." for i in range(30))
    text = f"HISTORY OF PRESENT ILLNESS: {body}\nMEDICATIONS: Lisinopril 10 mg daily. Metformin 500 mg b.i.d. with meals."
    passages = chunk(Record("r", text, "Bo Chen"), max_chars=400)
    medications = [p for p in passages if "Lisinopril" in p.text]
    assert len(medications) == 1 and "MEDICATIONS: Lisinopril" in medications[0].text
    assert not passages[-1].text.rstrip().endswith("MEDICATIONS:"), "a heading is never left alone at a passage's end"
    assert all(p.text.startswith("Bo Chen. ") for p in passages)


def test_deidentified_header_lines_are_dropped():
    text = "Name:  ___                     Unit No:   ___\nAdmission Date:  ___   Discharge Date:   ___\n" \
           "Service: MEDICINE\nChief Complaint: dyspnea"
    kept = sections(text)
    assert kept == [("Service", "MEDICINE"), ("Chief Complaint", "dyspnea")]


def test_abbreviations_and_initials_do_not_end_a_sentence():
    said = sentences("Seen by Dr. Patel at 9 a.m. today. Takes metformin b.i.d. for diabetes. J. Smith agreed.")
    assert said == ["Seen by Dr. Patel at 9 a.m. today.", "Takes metformin b.i.d. for diabetes.", "J. Smith agreed."]


def test_a_sentence_longer_than_the_size_is_split_at_words():
    passages = chunk(Record("w", " ".join(["word"] * 400) + "."), max_chars=200)
    assert all(len(p.text) <= 200 for p in passages) and sum(p.text.count("word") for p in passages) == 400


def test_empty_or_debris_only_text_gives_no_passage():
    assert chunk(Record("e", "Name: ___ Unit No: ___\n\n   ")) == []
