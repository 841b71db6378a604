"""A misspelled word of a question read as the records spell it (nodes.spelling), and only then."""

from __future__ import annotations

from bus.asking import AskRequest
from bus.client import ask
from bus.messages import CollectionStats
from nodes.concepts import analyse, grounding
from nodes.run.render import answer_text
from nodes.spelling import guessed_words, guesses, rewritten, settled
from tui.widgets.answer import answer_markdown


def test_a_word_no_dictionary_holds_is_guessed_at_by_the_words_one_edit_away():
    assert guessed_words("pnemonia") == ["pneumonia"], "a letter dropped"
    assert guessed_words("psoriasus") == ["psoriasis"], "a letter changed"
    assert guessed_words("shingels") == ["shingles"], "two letters swapped"
    assert guessed_words("asthama") == ["asthma"], "a letter added"
    assert guessed_words("migrane")[0] == "migraine" and len(guessed_words("migrane")) > 1, "the most written first"
    assert guessed_words("pneumonia") == [], "a word the dictionary holds"
    assert guessed_words("statins") == [], "a form of a word the dictionary holds ('statin'): the same term"
    assert guessed_words("levetiracetam") == [], "a drug of the concept tables"
    assert guessed_words("goutt")[0] == "gout" and guessed_words("gotu") == [], "four letters or fewer: never"
    assert guessed_words("okonkwo") == [], "nothing one edit away"
    assert guessed_words("hnemonia") == [], "the first letter is kept"


def test_a_disease_named_for_someone_is_guessed_at_as_people_write_it_without_the_apostrophe():
    """The dictionary holds "alzheimer's", people write "alzheimers": "alzhiemers" was two edits from every word."""
    assert guessed_words("alzhiemers") == ["alzheimers"]
    assert guessed_words("parkinsns") == ["parkinsons"]
    assert guessed_words("alzheimers") == [], "as written without the apostrophe, it is no misspelling"


def _counted(analysis, guessed, own: list[int], spelled: list[int], df: dict[str, int]) -> CollectionStats:
    terms = analysis.terms + guessed.terms
    return CollectionStats(docs=50, length=900, df={term: df.get(term, 0) for term in terms}, concepts=own + spelled)


def test_a_concept_is_read_as_guessed_only_when_the_records_hold_it_so_and_not_as_written():
    analysis = analyse("Which patients have migrane headaches or gout?")
    guessed = guesses(analysis)
    assert [concept.text for concept in guessed.concepts] == ["migrane headaches"] and guessed.of == [0]
    assert {"migrain", "migrant"} <= set(guessed.terms), "every guess is counted"

    stats = _counted(analysis, guessed, [0, 4], [3], {"migrant": 1, "migrain": 3, "headach": 5, "gout": 4})
    read, counted, meant = settled(analysis, stats, guessed)
    assert meant == {"migrane": "migraine"}, "the guess the most records hold"
    assert read.concepts[0].alternatives == (("migrain", "headach"),) and "migrain" in read.terms
    assert counted.concepts == [3, 4], "the question's own concepts, counted as read"
    assert grounding(read, counted)[0] == []

    unread = settled(analysis, _counted(analysis, guessed, [0, 4], [0], {"gout": 4}), guessed)
    assert unread[2] == {} and grounding(unread[0], unread[1])[0] == ["migrane headaches"], "no record holds a guess"
    held = settled(analysis, _counted(analysis, guessed, [2, 4], [3], {"migrain": 3}), guessed)
    assert held[2] == {} and held[0].concepts == analysis.concepts, "the records hold the word as written: it is meant"


def test_a_name_is_never_guessed_at_and_a_rewritten_question_keeps_its_case():
    analysis = analyse("Has Grace Okonkwa had pnemonia?", ["Grace Okonkwa"])
    assert [word for words in guesses(analysis, ["Grace Okonkwa"]).words.values() for _, word in words] == ["pneumonia"]
    assert rewritten("Pnemonia: what is PNEMONIA or pnemonia?", {"pnemonia": "pneumonia"}) == \
        "Pneumonia: what is Pneumonia or pneumonia?"


async def test_a_misspelling_the_embedding_misses_is_answered_as_the_records_spell_it(demo_federation, nc):
    answer = await ask(nc, AskRequest(question="Which patients have pnuemonia?", summarize="extractive"))
    assert answer.answer_info.status == "successful" and not answer.closest and answer.absent == [], answer.answer
    assert "pneumonia" in answer.answer.lower()
    assert "pneumonia" in answer.hits[0].text.lower(), "embedded and ranked as the records spell it"
    assert answer.read_as == {"pnuemonia": "pneumonia"}, "the asker is told how the question was read"
    assert "read as the records spell it: pnuemonia → pneumonia" in answer_text(answer)
    assert "pnuemonia → pneumonia" in answer_markdown(answer)
    absent = await ask(nc, AskRequest(question="Which patients have sarcoidossis?", summarize="extractive"))
    assert absent.closest and absent.absent == ["sarcoidossis"], "no record holds it in any spelling near"
    assert absent.read_as == {} and "read as" not in answer_text(absent)
