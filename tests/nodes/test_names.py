"""Patient names in a question (:mod:`nodes.names`): confident names and candidate spans, which of them a
leaf knows deciding the filter, through the federation over a real broker too — names spaCy misses still
found through the leaves, and a question naming too many people refused without echoing them."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from bus.client import ask
from bus.errors import AskError
from bus.messages import Filters
from bus.asking import AskRequest
from nodes.names import _spacy_model, applied_filter, candidate_names, detect_names, name_filters, nameless
from nodes.run.federation import Federation
from nodes.run.spec import FederationSpec
from tests.helpers.federations import everyone_still_answers, reference_texts


@pytest.mark.parametrize("question, names", [
    ("What medications is Mr. John Smith taking?", ["John Smith"]),
    ("Summarize patient Maria Lopez-Garcia's cardiology visits", ["Maria Lopez-Garcia"]),
    ("What did Donna Clark's echocardiogram show?", ["Donna Clark"]),
    ("Which patients have Heavy Alcohol Use with Liver Disease?", []),
    ("Which patients were treated for atrial fibrillation?", []),
])
def test_built_in_rule(question, names):
    assert detect_names(question, use_spacy=False) == names


@pytest.mark.skipif(_spacy_model() is None, reason="the optional 'names' extra (spaCy) is not installed")
def test_spacy_finds_uncued_names():
    assert detect_names("What medications is Donna Clark taking?") == ["Donna Clark"]
    assert detect_names("Which patients had a stroke?") == []


@pytest.mark.skipif(_spacy_model() is None, reason="the optional 'names' extra (spaCy) is not installed")
@pytest.mark.parametrize("question, names", [
    ("Is Penelope Ashworth on warfarin?", ["Penelope Ashworth"]),
    ("Are Penelope Ashworth and Orrin Blackwood on statins?", ["Penelope Ashworth", "Orrin Blackwood"]),
    ("Is Orrin Blackwood allergic to penicillin?", ["Orrin Blackwood"]),
    ("Is Kidney Stones hereditary?", []),
    ("What medications is Bartholomew Quince taking?", ["Bartholomew Quince"]),  # spaCy: "taking" a noun, the name its compound
    ("Did Bartholomew Quince undergo surgery?", ["Bartholomew Quince"]),
    ("Does Lyme Disease have long-term effects?", []),
])
def test_what_is_said_only_of_people_makes_an_unknown_name_a_person(question, names):
    assert sorted(detect_names(question)) == sorted(names)


@pytest.mark.skipif(_spacy_model() is None, reason="the optional 'names' extra (spaCy) is not installed")
def test_a_title_case_question_or_a_heading_names_nobody_by_its_grammar():
    """A paper's title capitalizes its words; what the parse calls the subject of "have" there is a measure."""
    assert detect_names("Does Mammographic Density have an Impact on the Margin Re-excision Rate After Surgery?") == []
    assert detect_names("Does Orrin Blackwood have an impact on the margin re-excision rate?") == ["Orrin Blackwood"]
    assert detect_names("Global Longitudinal Pathway: has the curriculum influenced attitudes?") == []


@pytest.mark.parametrize("question, spans", [
    ("What was in Grace Okafor's plan?", ["Grace Okafor"]),
    ("Summarize the care Maria de la Cruz received", ["Maria de la Cruz"]),
    ("Which patients have COPD and CHF?", []),
    ("What did Dr. Ana Ruiz prescribe for Bo Chen?", ["Ana Ruiz", "Bo Chen"]),
])
def test_candidate_spans(question, spans):
    assert [s for s in candidate_names(question) if len(s.split()) >= 2 and s in spans] == spans
    assert all(len(s.split()) >= 2 for s in candidate_names(question))


def test_applied_filter_prefers_names_some_leaf_knows():
    filters = name_filters("What did Hospital North do for Grace Okafor's fever?", use_spacy=False)
    assert filters.patients == ["Grace Okafor"] and filters.candidates == [], "a hospital is no candidate"
    assert applied_filter(filters, ["Grace Okafor"]) == ["Grace Okafor"]
    wrong = Filters(patients=["Hospital North"], candidates=["Grace Okafor"])
    assert applied_filter(wrong, ["Grace Okafor"]) == ["Grace Okafor"], "a confident name no leaf knows loses to a known one"
    confident = name_filters("What medications is patient Zed Unknown taking?", use_spacy=False)
    assert confident.patients == ["Zed Unknown"] and applied_filter(confident, []) == ["Zed Unknown"]
    lowered = Filters(patients=["maria gonzalez"])  # as a question in capitals is read
    assert applied_filter(lowered, []) == ["Maria Gonzalez"], "a name nobody holds is shown as names are written"


def test_the_evaluation_script_finds_every_named_patient_of_the_demo_questions():
    done = subprocess.run([sys.executable, "scripts/names_eval.py"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "precision 1.000, recall 1.000" in done.stdout
    assert re.search(r"\b(\d+) of \1 hard cases", done.stdout), done.stdout


async def test_names_spacy_misses_are_found_through_the_leaves(nats_server, embedder, nc, tmp_path):
    notes = {
        "north.clinic": [("Grace Okafor", "MEDICATIONS: metformin 500 mg twice daily, lisinopril 10 mg daily."),
                         ("Tom Baker", "MEDICATIONS: metformin 1000 mg twice daily."),
                         ("Ana Ruiz", "PLAN: start metformin and review in two weeks.")],
        "south.clinic": [("Siobhán Ní Bhriain", "PLAN: taper prednisone over two weeks; metformin held."),
                         ("Tom Baker", "PLAN: continue metformin, recheck HbA1c in three months.")],
    }
    lines = ["[federation]", 'state_dir = "state"']
    for path, records in notes.items():
        data = tmp_path / f"{path}.jsonl"
        data.write_text("".join(json.dumps({"id": f"n{i}", "text": text, "patient": who}) + "\n"
                                for i, (who, text) in enumerate(records)))
        org, unit = path.split(".")
        lines += [f"[orgs.{org}.units.{unit}]", f'data = "{data.name}"']
    (tmp_path / "fed.toml").write_text("\n".join(lines))
    spec = FederationSpec.load(tmp_path / "fed.toml")
    federation = Federation(spec, nats_server.url, processes=False, verbose=False, embedder_factory=lambda: embedder)
    await federation.start()
    try:
        for question, name, leaf in [("What is Grace Okafor's metformin dose?", "Grace Okafor", "north.clinic"),
                                     ("What was Siobhán Ní Bhriain's plan?", "Siobhán Ní Bhriain", "south.clinic")]:
            answer = await ask(nc, AskRequest(question=question))
            assert answer.patients == [name], question
            assert answer.names == {name: [leaf]}, "the filter reports which leaf knew the name"
            assert answer.hits and {hit.patient for hit in answer.hits} == {name}
        nobody = await ask(nc, AskRequest(question="What is Hospital North's metformin policy?"))
        assert nobody.patients == [] and len({hit.patient for hit in nobody.hits}) > 1, "unknown spans are ignored"
        unheld = await ask(nc, AskRequest(question="What did the nurse recommend for Alejandro Gutierrez?"))
        assert unheld.patients == ["Alejandro Gutierrez"] and unheld.hits == [], \
            "a name no record holds a word of is someone held nowhere: no other patient's records"
    finally:
        await federation.stop()


def test_a_capitalized_name_no_record_holds_a_word_of_is_someone_held_nowhere_in_records_of_patients():
    """spaCy does not always take a name for a person ("...recommend for Alejandro Gutierrez?"): it was a candidate no
    leaf held, filtered nothing, and the answer showed other patients' records as the closest."""
    from bus.messages import CollectionStats
    from nodes.data import lexical
    from nodes.names import held_nowhere

    question = "What did the cardiologist recommend for Alejandro Gutierrez?"
    first, last = lexical.terms("Alejandro Gutierrez")
    filters = Filters(candidates=["Alejandro Gutierrez"])

    def counted(people: int, **df: int) -> CollectionStats:
        return CollectionStats(docs=10, length=100, df={first: df.get("first", 0), last: df.get("last", 0)}, people=people)

    assert held_nowhere(question, filters, counted(4, last=2)) == Filters(patients=["Alejandro Gutierrez"])
    assert held_nowhere(question, filters, counted(4, first=1, last=2)) == filters, "a leaf may hold him: it decides"
    assert held_nowhere(question, filters, counted(0)) == filters, "reference texts: nobody to pick from"
    sure = Filters(patients=["Alejandro Gutierrez"], candidates=["Cardiology North"])
    assert held_nowhere(question, sure, counted(0)) == Filters(candidates=["Cardiology North"]), \
        "reference texts: not even a name the detector is sure of filters, they hold nobody's chart"
    assert held_nowhere(question, sure, counted(4, first=1, last=1)) == sure
    assert held_nowhere(question.lower(), filters, counted(4)) == filters, "without capitals, a name cannot be told"
    assert held_nowhere(question, filters, None) == filters
    parts = Filters(candidates=["Alejandro Gutierrez Vega", "Alejandro Gutierrez", "Gutierrez Vega"])
    assert held_nowhere(question.replace("Gutierrez", "Gutierrez Vega"), parts, counted(4)) == \
        Filters(patients=["Alejandro Gutierrez Vega"]), "the longest, not each of its parts"


def test_a_name_right_before_what_eponyms_name_is_the_diseases():
    """"Does anyone have Guillain Barre Syndrome?" over the demo was refused "No records of Guillain Barre": spaCy took
    the eponym for a person, and a candidate no record holds a word of is someone held nowhere. Right before what
    eponyms name, as before its possessive, a name is the disease's; not before a test or a word of another."""
    for question in ["Does anyone have Guillain Barre Syndrome?", "What is Guillain Barre Syndrome?",
                     "Who has Raynaud Phenomenon?", "What are the treatments for Creutzfeldt Jakob Disease?",
                     "Who has Barrett Esophagus?", "Which patients have Dupuytren Contracture?"]:
        assert name_filters(question) == Filters(), question
    assert name_filters("Did Mary Jones test positive for influenza?").patients == ["Mary Jones"]
    assert name_filters("Did Jason Rossi's test come back?").patients == ["Jason Rossi"], "his test, no eponym"
    assert name_filters("How did Jennifer Johnson fracture her wrist?").patients == ["Jennifer Johnson"]
    assert name_filters("Is Mary Jones disease-free after chemotherapy?").patients == ["Mary Jones"]


def test_a_given_name_alone_is_a_candidate_where_it_names_someone():
    from nodes.names import given_names

    assert given_names("What did the cardiologist recommend for Joseph?") == ["Joseph"]
    assert given_names("Does Amanda have diabetes?") == ["Amanda"], "after a word that asks"
    assert given_names("What are Joseph's medications?") == ["Joseph"]
    assert given_names("Mark the patients with diabetes.") == [], "the first word asks, unless a possessive follows"
    assert given_names("What is Rebecca Wright taking?") == [], "part of a full name: a candidate of its own"
    assert given_names("Does Parkinson disease run in families?") == [], "not a given name"
    assert name_filters("Which patients did Dr. Grace see?").candidates == [], "a clinician's"
    assert name_filters("Thanks, Joseph").candidates == [], "the writer's own"


async def test_a_given_name_alone_finds_the_patients_of_that_first_name(demo_federation, nc):
    answer = await ask(nc, AskRequest(question="What did the cardiologist recommend for Joseph?"))
    assert answer.patients == ["Joseph Davis"] and answer.hits, "the demo holds one Joseph"
    assert {hit.patient for hit in answer.hits} == {"Joseph Davis"}
    nobody = await ask(nc, AskRequest(question="Does Bartholomew have gout?"))
    assert nobody.patients == [] and not nobody.filtered, "a given name no leaf holds filters nothing"


def test_a_surname_after_a_title_is_a_name():
    from nodes.names import titled_surnames

    assert titled_surnames("Has Mr. Okonkwo had a colonoscopy?") == ["Mr. Okonkwo"]
    assert titled_surnames("What is Mrs. O'Brien's blood pressure?") == ["Mrs. O'Brien"], "possessive dropped"
    assert titled_surnames("Are Mr Smith and Ms. Li on statins?") == ["Mr Smith", "Ms. Li"]
    assert titled_surnames("Is Mr. Jason Rossi a smoker?") == [], "a full name: found as one"
    assert titled_surnames("Which patients did Dr. Chen see?") == [], "a clinician's title"
    assert titled_surnames("Does Ms. Diabetes exist?") == [], "what looks medical is no name"
    assert titled_surnames("Which patients have gout? Thanks, Mrs. Jones") == [], "the writer's own"
    assert name_filters("Does Ms. Abernathy have a pacemaker?").patients == ["Ms. Abernathy"], "a person, surely"


async def test_a_titled_surname_finds_the_patients_of_that_surname_and_nobody_else(demo_federation, nc):
    """"Has Mr. Okonkwo had a colonoscopy?" was answered with ten other patients' closest records: a surname alone was
    no name. After a title it is one — every patient of that surname a leaf holds, or nobody's records."""
    harris = await ask(nc, AskRequest(question="Is Mr. Harris diabetic?", summarize="extractive"))
    assert len(harris.patients) > 1 and all(name.endswith(" Harris") for name in harris.patients), harris.patients
    assert harris.hits and {hit.patient for hit in harris.hits} <= set(harris.patients)
    assert harris.answer_info.status == "successful" and "diabetes" in harris.answer, harris.answer
    nobody = await ask(nc, AskRequest(question="Has Mr. Okonkwo had a colonoscopy?", summarize="extractive"))
    assert nobody.patients == ["Mr. Okonkwo"] and nobody.filtered and nobody.hits == []
    assert nobody.answer.endswith("No records of Mr. Okonkwo."), nobody.answer


def test_a_question_without_capitals_has_its_given_names_and_the_words_after_them_as_candidates():
    from nodes.names import uncapitalized_names

    assert uncapitalized_names("what allergies does samantha garcia have?") == ["Samantha Garcia"], "not 'have'"
    assert uncapitalized_names("is mary jane smith diabetic") == ["Mary Jane", "Mary Jane Smith"]
    assert uncapitalized_names("What allergies does samantha garcia have?") == ["Samantha Garcia"], "a first capital"
    assert uncapitalized_names("What allergies does Samantha garcia have?") == [], "capitals written: they tell"
    assert uncapitalized_names("may hydroxychloroquine help with lupus?") == [], "no given name"
    assert uncapitalized_names("what did the doctor tell mark") == [], "nothing after it"
    assert uncapitalized_names("is john smith's inr high") == ["John Smith"]
    filters = name_filters("has maria okafor had a colonoscopy?")
    assert filters.patients == [] and "Maria Okafor" in filters.candidates, "a candidate, never sure: no capitals to tell"


def test_a_question_without_capitals_has_every_run_of_words_that_may_be_a_name_as_candidates():
    from nodes.names import uncapitalized_spans

    assert "Shena Huel" in uncapitalized_spans("what medications is shena huel taking?"), "no common given name"
    assert uncapitalized_spans("what is chu bosco's blood pressure?") == ["Chu Bosco"], "a name ends at its possessive"
    assert uncapitalized_spans("does shena huel have HTN?") == ["Shena Huel"], "an abbreviation is no capital"
    assert uncapitalized_spans("Does Shena huel have gout?") == [], "capitals written: they tell"
    assert uncapitalized_spans("what did the doctor tell mark") == [], "words of asking are no name"
    filters = name_filters("is treva o'kon pregnant")
    assert filters.patients == [] and "Treva O'kon" in filters.candidates, "a candidate, never sure"


async def test_a_name_written_without_capitals_finds_that_patient_and_nobody_else(demo_federation, nc):
    """"what allergies does samantha garcia have?" was answered beside Margaret and Justin Garcia's records, and "is
    justin ramirez on apixaban?" led with his name: lower case hid the names."""
    garcia = await ask(nc, AskRequest(question="what allergies does samantha garcia have?", summarize="extractive"))
    assert garcia.patients == ["Samantha Garcia"] and {hit.patient for hit in garcia.hits} == {"Samantha Garcia"}
    assert garcia.answer_info.status == "successful" and "Sulfa" in garcia.answer, garcia.answer
    ramirez = await ask(nc, AskRequest(question="is justin ramirez on apixaban?", summarize="extractive"))
    assert {hit.patient for hit in ramirez.hits} == {"Justin Ramirez"}
    assert "apixaban" in ramirez.answer.split("[1]")[0].casefold(), "what is asked of him first, not his name"
    nobody = await ask(nc, AskRequest(question="does bartholomew quist have gout?", summarize="extractive"))
    assert not nobody.filtered and nobody.answer_info.status == "insufficient", "a name no leaf holds filters nothing"


async def test_a_name_no_list_of_given_names_holds_is_found_without_capitals(demo_federation, nc):
    """"what medications is shena huel taking?" (the case study) was refused — "None of the closest records mentions
    shena huel" — though every hit was hers, and "what is rajesh chen's blood pressure?" was read as asking for "chen's
    blood pressure": only a common given name began a name written without capitals."""
    powell = await ask(nc, AskRequest(question="what medications is emeka powell taking?", summarize="extractive"))
    assert powell.patients == ["Emeka Powell"] and {hit.patient for hit in powell.hits} == {"Emeka Powell"}
    assert powell.answer_info.status == "successful", powell.answer
    assert "medications" in powell.answer.split("[1]")[0].casefold(), "what is asked of him first"
    chen = await ask(nc, AskRequest(question="what is rajesh chen's blood pressure?", summarize="extractive"))
    assert chen.patients == ["Rajesh Chen"] and {hit.patient for hit in chen.hits} == {"Rajesh Chen"}
    assert "chen's" not in " ".join([*chen.absent, chen.answer_info.reason or ""]), chen.answer


def test_the_writers_signature_is_no_part_of_the_question():
    from nodes.names import unsigned

    assert unsigned("Which patients have gout? Thanks, John Smith") == "Which patients have gout?"
    assert unsigned("Which patients have gout?\n\nBest,\nJohn Smith") == "Which patients have gout?"
    assert unsigned("Which patients have gout?\nJohn Smith") == "Which patients have gout?", "alone on its last line"
    assert unsigned("Is there a cure? Regards, Amanda") == "Is there a cure?", "a given name signs too"
    assert unsigned("Are they safe? From Sarah Johnson, Texas") == "Are they safe?", "where the writer writes from"
    assert unsigned("Is it curable?\n\nBest,\nJohn Smith\nChicago, IL") == "Is it curable?", "on lines of their own"
    assert unsigned("Which patients have gout? Thanks, Ann Lee (RN)") == "Which patients have gout?", "what they are"
    assert unsigned("Which patients have gout? Thanks, John Smith, my son takes Ritalin") == \
        "Which patients have gout? Thanks, John Smith, my son takes Ritalin", "more is said after it"
    assert unsigned("Is Rebecca Wright on warfarin?") == "Is Rebecca Wright on warfarin?"
    assert unsigned("Thanks, John Smith") == "Thanks, John Smith", "nothing is asked but the signature"
    assert unsigned("Dear Dr. Smith, which patients have gout?") == "which patients have gout?", "whom it is written to"
    assert unsigned("Hello Team Blue: which patients have gout? Thanks, Bob") == "which patients have gout?"
    assert unsigned("Hello. Dear sir, what is tinnitus?") == "what is tinnitus?"
    assert unsigned("Hi doctor what is gout?") == "Hi doctor what is gout?", "no break after it: no telling where it ends"
    assert unsigned("Hi Dr Lee. My son has asthma.") == "My son has asthma.", "the full stop after the clinician it names"
    assert unsigned("Hi there I have gout. Is it curable?") == "Hi there I have gout. Is it curable?", \
        "but a full stop ends no greeting that names nobody: it may end what is asked"
    assert unsigned("HIV, what is it?") == "HIV, what is it?" and unsigned("Dear Dr. Smith,") == "Dear Dr. Smith,"
    assert name_filters("SUBJECT: Question MESSAGE: Which patients have gout?") == Filters(), "a message's headings"
    assert name_filters("My son has ADHD. Are the drugs safe? From Sarah Johnson, Texas") == Filters(), "no filter"


async def test_a_signed_question_is_answered_as_the_question_alone(demo_federation, nc):
    """"Which patients have gout? Thanks, John Smith" was refused: "No record searched mentions John Smith"."""
    plain = await ask(nc, AskRequest(question="Which patients have gout?", summarize="extractive"))
    signed = await ask(nc, AskRequest(question="Which patients have gout? Thanks, John Smith", summarize="extractive"))
    assert signed.answer_info.status == "successful" and signed.absent == [], signed.answer
    assert [hit.id for hit in signed.hits] == [hit.id for hit in plain.hits] and signed.answer == plain.answer


def test_a_question_without_its_names_is_what_it_asks_of_them():
    assert nameless("Is Mr. Jason Rossi a smoker?", ["Jason Rossi"]) == "Is a smoker?"
    assert nameless("What are Carol Dubois's allergies?", ["Carol Dubois"]) == "What are allergies?"
    assert nameless("Does patient jason rossi smoke?", ["Jason Rossi"]) == "Does smoke?"
    assert nameless("Is Justin on apixaban? Justinian?", ["Justin"]) == "Is on apixaban? Justinian?", "whole words only"


async def test_an_answer_about_a_named_patient_quotes_what_is_asked_of_them_not_their_name(demo_federation, nc):
    """The name filtered the evidence to the patient's; the answer weighs sentences by what is asked of them."""
    from summarizer.answer import _CITED

    smoker = await ask(nc, AskRequest(question="Is Jason Rossi a smoker?", summarize="extractive"))
    assert smoker.patients == ["Jason Rossi"]
    assert "smok" in _CITED.search(smoker.answer)["text"].lower(), smoker.answer  # "Smoked occasionally in college ..."
    medications = await ask(nc, AskRequest(question="What medications is Samantha Garcia taking?", summarize="extractive"))
    assert medications.answer.startswith("Samantha Garcia: MEDICATIONS:"), medications.answer
    assert "Patient: Samantha Garcia." not in medications.answer, "a name is not what was asked"
    pressure = await ask(nc, AskRequest(question="What is Rebecca Wright's blood pressure?", summarize="extractive"))
    assert pressure.answer_info.status == "insufficient" and pressure.patients == ["Rebecca Wright"]
    assert pressure.answer.endswith("None of the closest records of Rebecca Wright mentions blood pressure."), \
        "the answer says whose records did not say it"
    opioids = await ask(nc, AskRequest(question="What opioids is Rebecca Wright taking?", summarize="extractive"))
    assert opioids.answer_info.status == "insufficient" and opioids.patients == ["Rebecca Wright"]
    assert opioids.answer.endswith("None of the closest records of Rebecca Wright mentions opioids."), \
        "a kind asked by name, too (nodes.gateway._unmentioned)"
    # the kind asked of the records (a treatment) is asked of what they say: of a patient without cellulitis, her other
    # treatments are no answer
    treated = await ask(nc, AskRequest(question="How was Rebecca Wright's cellulitis treated?", summarize="extractive"))
    assert treated.answer_info.status == "insufficient", treated.answer
    assert treated.answer.endswith("None of the closest records of Rebecca Wright mentions cellulitis."), treated.answer


async def test_a_named_patients_passages_are_ranked_by_what_is_asked_of_them(demo_federation, nc):
    """"Is Justin on apixaban?" ranked every Justin's passages by a question mostly about Justin: his social history
    came first and the answer quoted "Justin is a retired postal worker"; they are ranked by "Is on apixaban?"."""
    answer = await ask(nc, AskRequest(question="Is Justin on apixaban?", summarize="extractive", include_embedding=True))
    assert answer.focused and answer.focused != answer.embedding
    assert "apixaban" in " ".join(hit.text for hit in answer.hits[:2]).lower()
    assert answer.answer.startswith("Justin Ramirez: ") and "apixaban" in answer.answer.split(". [")[0], answer.answer
    whom = await ask(nc, AskRequest(question="Tell me about Jason Rossi", include_embedding=True))
    assert whom.focused is None, "a question asking only whom is scored as asked"


async def test_a_question_naming_too_many_people_is_a_validation_error(demo_federation, nc):
    firsts = ["James", "Mary", "John", "Linda", "Robert", "Susan", "Michael", "Karen", "David", "Nancy", "Paul"]
    lasts = ["Smith", "Jones", "Brown"]
    people = [f"Mr. {first} {last}" if i % 2 else f"Mrs. {first} {last}"
              for i, (first, last) in enumerate((f, la) for la in lasts for f in firsts)]
    question = "Compare the medications of " + ", ".join(people) + "."
    with pytest.raises(AskError) as caught:
        await ask(nc, AskRequest(question=question))
    assert caught.value.error.type == "validation" and "at most 32" in caught.value.error.reason
    assert "Smith" not in caught.value.error.reason, "the names are not echoed"
    await everyone_still_answers(nc)


@pytest.mark.skipif(_spacy_model() is None, reason="the optional 'names' extra (spaCy) is not installed")
def test_a_question_asked_again_is_not_parsed_again_and_each_caller_owns_its_lists(monkeypatch):
    from nodes import names

    question = "What medications is Rebecca Wright taking for her gout, asked once more?"
    first = names.parse(question)
    calls = []
    monkeypatch.setattr(names, "_spacy_parse", lambda *args: calls.append(args) or ([], [], []))
    again = names.parse(question)
    assert calls == [] and again[0] == first[0] and again[1] == first[1]
    again[0].patients.append("Somebody Else")
    if again[1] is not None:
        again[1].append("a phrase of mine")
    assert names.parse(question) == first, "what one caller does with its lists is not the next caller's answer"


@pytest.mark.skipif(_spacy_model() is None, reason="the optional 'names' extra (spaCy) is not installed")
def test_the_auxiliary_a_question_opens_with_is_no_word_of_a_name():
    """"Was Zorblat Quixote sent home with antibiotics?" was answered "No records of Was Zorblat Quixote.": the
    capitalized run that opens a question asking yes or no held its auxiliary."""
    from nodes import names

    assert names.parse("Was Zorblat Quixote sent home with antibiotics?").filters.candidates == ["Zorblat Quixote"]
    assert names.parse("Were Ana Ruiz and Bo Li seen?").filters.candidates == ["Ana Ruiz"]
    assert "Can Zorblat" not in names.candidate_names("Can Zorblat Quixote take ibuprofen?")
    assert names.candidate_names("I read the note. Should Zorblat Quixote stop warfarin?") == ["Zorblat Quixote"]
    assert names.candidate_names("Has Will Turner had surgery?") == ["Will Turner"], "a given name inside a question"


def test_a_noun_the_parse_leaves_out_of_every_phrase_is_still_part_of_what_is_asked():
    from nodes import names
    from nodes.concepts import analyse

    def asked(question: str) -> list[str]:
        filters, phrases, verbs = names.parse(question)
        return [concept.text for concept in analyse(question, filters.patients, phrases, verbs).concepts]

    # spaCy's small model attaches "omalizumab" as a preposition and chunks only "injections"
    assert asked("Which patients with asthma receive omalizumab injections?") == ["asthma", "omalizumab injections"]
    assert asked("Which patients with COPD take roflumilast?") == ["COPD", "roflumilast"]
    assert asked("Who stopped warfarin?") == ["warfarin"], "a verb before a phrase stays out of it"
    # the small model chunks "hemoglobin" and "A1c", "a mini" and "stroke" apart: nothing between them, one phrase
    assert asked("What is Donna Perez's hemoglobin A1c?") == ["hemoglobin A1c"]
    assert asked("Which patients had a mini-stroke?") == ["mini-stroke"]
    # it tags "murmur" and "thinner" as adjectives in a noun's place, after a chunk of "a heart", "a blood": the question
    # named only the heart (and was answered with heart rates) and blood
    assert asked("Who has a heart murmur?") == ["heart murmur"]
    assert asked("Who has a history of falls and takes a blood thinner?") == ["falls", "blood thinner"]
    assert asked("Who is on a blood thinner?") == ["blood thinner"], "no chunk holds the blood"
    assert asked("Which patients have been treated for opioid overdose?") == ["opioid overdose"], \
        "an adjective after a preposition starts no phrase of its own"
    # it tags "gout" of "have gout flares" as a verb after "have", as a perfect: the question named only the flares
    assert asked("Which patients have gout flares?") == ["gout flares"]
    assert asked("Who has gout flares?") == ["gout flares"]
    assert asked("Which patients have stopped warfarin?") == ["warfarin"], "a verb after 'have' is still no noun"
    # "sickle" of "has sickle cell anemia" as an adjective in a perfect's place, "green" of "Does green tea …" as a verb
    # with no subject: the questions named "cell anemia" (no record mentioning it, none was answered) and tea
    assert asked("Who has sickle cell anemia?") == ["sickle cell anemia"]
    assert asked("Does green tea lower blood pressure?") == ["green tea", "blood pressure"]
    assert asked("Does hippocampal atrophy on MRI predict cognitive decline?") == ["hippocampal atrophy", "MRI",
                                                                                  "cognitive decline"]
    assert asked("Does aspirin prevent heart attacks?") == ["aspirin", "heart attacks"]


async def test_reference_texts_answer_a_question_naming_someone_they_cannot_be_about(nats_server, embedder, nc, tmp_path):
    """A consumer writes about a relative by name ("My husband, Mr. Zed Unknown, has kidney stones"): texts about no
    patient hold nobody's chart to mistake for his, so the name filters nothing and the question is answered."""
    texts = ["Kidney stones often pass on their own; the outlook is good, though stones recur in half of people.",
             "Shock wave lithotripsy breaks kidney stones into pieces small enough to pass.",
             "Gout is treated with colchicine and, to lower uric acid, allopurinol."]
    question = "My husband, Mr. Zed Unknown, has kidney stones. What is the outlook?"
    assert name_filters(question, use_spacy=False).patients == ["Zed Unknown"], "a name the detector is sure of"
    async with reference_texts(texts, tmp_path, nats_server.url, embedder):
        answer = await ask(nc, AskRequest(question=question))
        assert answer.patients == [] and not answer.filtered and not answer.closest
        assert answer.hits and answer.hits[0].id == "t0"
        assert "no records of" not in (answer.answer or "").casefold()
