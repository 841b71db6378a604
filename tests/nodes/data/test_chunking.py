"""Cutting a record into passages (:mod:`nodes.data.chunking`): whole sentences packed up to the size,
headings kept with their text, de-identified header lines dropped, and nothing from debris."""

from __future__ import annotations

from nodes.data.chunking import chunk, sections
from summarizer.sentences import sentences
from nodes.data.records import Record


def test_short_sections_share_a_passage_that_carries_name_and_date_once():
    record = Record("n1", "CHIEF COMPLAINT: cough.\n\nPLAN: antibiotics.", "Ana Ruiz", "2023-04-02")
    [passage] = chunk(record)
    assert passage.id == "n1" and passage.record_id == "n1" and passage.section == "CHIEF COMPLAINT"
    assert passage.text == "Ana Ruiz, 2023-04-02. CHIEF COMPLAINT: cough. PLAN: antibiotics."


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
