"""Whom a question asks about, and the patients whose records say otherwise (the demo, real broker)."""

from __future__ import annotations

import pytest

from bus.asking import AskRequest
from bus.client import ask
from bus.messages import Hit
from nodes.demographics import Whom, asks_which, facts, kept, states, whom


@pytest.mark.parametrize("question, expected", [
    ("Which women have diabetes?", Whom(sex="female")),
    ("Which male patients take apixaban?", Whom(sex="male")),
    ("Which patients over 80 have heart failure?", Whom(low=81)),
    ("Which patients are older than 70 with pneumonia?", Whom(low=71)),  # named 25- and 57-year-olds before
    ("Who is under 40 and had a stroke?", Whom(high=39)),
    ("Which men under 40 had a stroke?", Whom(sex="male", high=39)),
    ("Which patients aged 65 or older take warfarin?", Whom(low=65)),
    ("Which patients 80 and over had a fall?", Whom(low=80)),
    ("Which patients aged 65+ have COPD?", Whom(low=65)),
    ("Which patients over the age of 75 have atrial fibrillation?", Whom(low=76)),
    ("Who over 75 years old has atrial fibrillation?", Whom(low=76)),
    ("Which patients 65 years or older take warfarin?", Whom(low=65)),
    ("Which women in their 70s have COPD?", Whom(sex="female", low=70, high=79)),
    ("Which children have asthma?", Whom(high=17)),
    ("What are the treatments for Irritable Bowel Syndrome in Children ?", Whom(high=17)),
    ("How is asthma treated in young children?", Whom(high=17)),
    ("Diagnosis and follow-up in constipated children: should we use ultrasound?", Whom(high=17)),
    ("Children with asthma: which use inhalers?", Whom(high=17)),
    ("What causes acne in teenagers?", Whom(high=19)),
    ("What are the symptoms of Lyme disease in adults?", Whom(low=18)),
    ("Which adult patients have asthma?", Whom(low=18)),
])
def test_whom_a_question_asks_about_is_read_from_its_words(question, expected):
    assert whom(question) == expected


@pytest.mark.parametrize("question", [
    "Which patients have a heart rate over 100?",  # a value, not an age
    "Which patients weigh over 100 kg?",
    "Do women and men get gout at the same age?",  # both
    "Which patients have a family history of breast cancer in a female relative?",  # someone else's
    "Which patients have children?",
    "Which patients have children with autism?",  # the children are someone else
    "Which patients have diabetes in their children?",
    "Which patients take children's Tylenol for fever?",
    "Which patients have adult-onset diabetes?",
    "Which patients have had diabetes for over 10 years?",  # how long, not how old
    "Which patients had symptoms for 5 years or less?",
    "Which elderly patients had a fall?",  # where elderly begins is the asker's
    "Which patients have gout?",
])
def test_a_question_that_says_no_sex_or_age_of_its_patients_asks_about_everyone(question):
    assert not whom(question)


@pytest.mark.parametrize("question", [
    "Which patients have chronic kidney disease?", "Who is on insulin?", "Who had a colonoscopy?",
    "How many patients are current smokers?", "Which of our diabetic patients take metformin?",
    "List all patients with a penicillin allergy", "Which women over 80 have heart failure?", "Whose MRI showed a tear?",
    "Dr. Lee here. Who was admitted for pneumonia?", "Any children with asthma?", "What patients were given apixaban?",
    "Who's had a knee replacement?", "Does anyone have a shellfish allergy?", "Patients with CKD stage 4 on dialysis?",
    "Who smokes?",
])
def test_a_question_asking_which_patients_is_told_by_its_words(question):
    assert asks_which(question)


@pytest.mark.parametrize("question", [
    "What medications is Donna Clark taking?", "Who is at risk for Parasites - Scabies?", "Who should get a flu shot?",
    "What are the symptoms of gout?", "Is Justin on apixaban?", "Which medications treat gout?",
    "How many people get migraines each year?", "What is the outlook for patients with heart failure?",
    "Who's at risk for shingles?", "Who is likely to get gout?", "Can patients with gout eat shellfish?",
])
def test_a_question_about_one_patient_or_a_topic_does_not_ask_which_patients(question):
    assert not asks_which(question)


def hit(n: int, patient: str | None, text: str = "Note.", **metadata) -> Hit:
    return Hit(id=f"p{n}", org="a", path="a.notes", score=1.0 - n / 100, text=text, patient=patient, metadata=metadata)


def test_a_patient_is_dropped_only_where_their_records_say_they_are_not_whom_was_asked():
    hits = [hit(1, "Ana Ruiz", "This 82-year-old woman, Ms. Ruiz, fell."), hit(2, "Ana Ruiz", "Gout."),
            hit(3, "Bo Chen", "Gout.", sex="male", age=54), hit(4, "Cy Park", "Gout flare."),
            hit(5, None, "Gout is a form of arthritis in men and women."),
            hit(6, "Di Moss", "Ms. Moss was seen for gout."), hit(7, "Ed Lowe", "A 67 year old man with gout.")]
    said = facts(hits)
    assert (said["Ana Ruiz"].sexes, said["Ana Ruiz"].ages) == ({"female"}, {82.0})
    assert (said["Bo Chen"].sexes, said["Bo Chen"].ages) == ({"male"}, {54.0}), "metadata first"
    assert said["Di Moss"].sexes == {"female"} and said["Ed Lowe"].ages == {67.0}
    ids = lambda found: [h.id for h in found]  # noqa: E731
    assert ids(kept(whom("Which women have gout?"), hits)[0]) == ["p1", "p2", "p4", "p5", "p6"], \
        "men dropped; a patient nothing says the sex of, and a reference text, kept"
    assert ids(kept(whom("Which patients over 60 have gout?"), hits)[0]) == ["p1", "p2", "p4", "p5", "p6", "p7"]
    dense, lexical = kept(whom("Which men have gout?"), hits[:3], hits[3:])
    assert ids(dense) == ["p3"] and ids(lexical) == ["p4", "p5", "p7"], "what one list says holds for the other"
    assert kept(Whom(), hits) == (hits,)


@pytest.mark.parametrize("question, expected", [
    ("Which patients are over 80?", Whom(low=81, only=True)),
    ("Which patients are older than 80?", Whom(low=81, only=True)),
    ("Which women are over 80?", Whom(sex="female", low=81, only=True)),
    ("List patients aged 65 or older", Whom(low=65, only=True)),
    ("How many patients are younger than 30?", Whom(high=29, only=True)),
    ("List all male patients", Whom(sex="male", only=True)),
    ("Which patients are women?", Whom(sex="female", only=True)),
    ("Which women have diabetes?", Whom(sex="female")),
    ("Who is over 80 with diabetes?", Whom(low=81)),
])
def test_a_question_asking_for_nothing_but_whom_says_so(question, expected):
    assert whom(question) == expected


def test_asking_for_nothing_but_whom_keeps_only_the_patients_whose_records_say_they_are():
    """"Which patients are over 80?" of the demo quoted the medication lists of patients no hit gave an age ("atorvastatin
    80 mg nightly"): a patient nothing says otherwise of is kept beside a question's thing, not as its whole answer."""
    hits = [hit(1, "Ana Ruiz", "This 82-year-old woman, Ms. Ruiz, fell."), hit(2, "Bo Chen", "Atorvastatin 80 mg."),
            hit(3, "Cy Park", "Gout.", age=91), hit(4, "Di Moss", "Age: 45. Sex: female."),
            hit(5, None, "Most people over 80 take five drugs or more.")]
    ids = lambda found: [h.id for h in found]  # noqa: E731
    assert ids(kept(whom("Which patients are over 80?"), hits)[0]) == ["p1", "p3", "p5"]
    assert ids(kept(whom("Which women are over 80?"), hits)[0]) == ["p1", "p5"], "Cy Park's sex is not said"
    assert ids(kept(whom("Which patients over 80 have gout?"), hits)[0]) == ["p1", "p2", "p3", "p5"]
    over_80 = whom("Which patients are over 80?")
    assert states(over_80, "ASSESSMENT AND PLAN: 85-year-old man with a stroke.", "Paul Barnes")
    assert states(over_80, "Age: 82. Sex: female.", "Barbara Mitchell")
    assert not states(over_80, "Atorvastatin 80 mg nightly.", "Paul Barnes")
    assert not states(over_80, "Age: 45. Sex: female.", "Di Moss")
    assert states(whom("Which patients are women?"), "Ms. Moss was seen for gout.", "Di Moss")
    assert not states(whom("Which patients are women?"), "Ms. Moss was seen for gout.", "Ed Moss-Lowe")


def test_an_age_given_as_a_string_or_a_field_is_the_patients():
    """ACI-BENCH gives a note's age as a string ("32"), MIMIC's admissions write "Patient: male, age 60.": "What are
    the treatments for irritable bowel syndrome in children?" quoted a 32-year-old's notes."""
    hits = [hit(1, "Bri Eds", "Follow up irritable bowel syndrome.", age="32", gender="female "),
            hit(2, "Jo Moore", "Jo Moore, 2146-11-09. Patient: male, age 60. Services: MED."),
            hit(3, "Al Kim", "Father died at age 60 of a stroke. Gestational age: 38 weeks."),
            hit(4, "Cy Park", "IBS.", age="unknown")]
    said = facts(hits)
    assert (said["Bri Eds"].sexes, said["Bri Eds"].ages) == ({"female"}, {32.0})
    assert (said["Jo Moore"].sexes, said["Jo Moore"].ages) == ({"male"}, {60.0})
    assert not said["Al Kim"].ages and not said["Cy Park"].ages, "an age at an event, a gestational age, no number"
    assert [h.id for h in kept(whom("What are the treatments for irritable bowel syndrome in children?"), hits)[0]] \
        == ["p3", "p4"]


async def test_an_answer_names_only_the_patients_whom_the_question_asks_about(demo_federation, nc):
    """"Which women have diabetes?" named two men: the words that say whom are no concept any record need mention."""
    women = await ask(nc, AskRequest(question="Which women have diabetes?", summarize="extractive"))
    assert women.answer_info.status == "successful", women.answer
    assert "women" not in women.absent, "whom it asks about is judged by the patients' sex, not a word any record says"
    said = facts(women.hits)
    assert women.hits and all("male" not in said[h.patient].sexes for h in women.hits if h.patient), \
        [(h.patient, said[h.patient].sexes) for h in women.hits]
    older = await ask(nc, AskRequest(question="Which patients over 70 have heart failure?", summarize="extractive"))
    ages = facts(older.hits)
    assert older.answer_info.status == "successful" and "heart failure" in older.answer, older.answer
    named = {h.patient for h in older.hits if h.patient and f"{h.patient}:" in older.answer}
    assert len(named) >= 2 and all(max(ages[name].ages) > 70 for name in named), {n: ages[n].ages for n in named}


async def test_a_question_asking_for_nothing_but_whom_is_answered_by_what_says_whom(demo_federation, nc):
    """"Which patients are older than 80?" was refused ("No record searched mentions older"), "Which women are over
    80?" said "No record searched mentions ." and "Which patients are over 80?" quoted medication lists: each now
    names the patients whose records say so, quoting where they say it."""
    from nodes.demographics import _written

    for question in ("Which patients are older than 80?", "Which women are over 80?", "Which patients are over 80?"):
        answer = await ask(nc, AskRequest(question=question, summarize="extractive"))
        assert answer.answer_info.status == "successful" and not answer.absent, (question, answer.answer)
        asked = whom(question)
        lines = [line for line in answer.answer.splitlines() if ": " in line and line.split(": ")[0] in
                 {h.patient for h in answer.hits}]
        assert len(lines) >= 3, answer.answer
        for line in lines:  # each patient's first sentence says whom: "Age: 82. Sex: female.", "85-year-old man"
            patient, said = line.split(": ", 1)
            assert states(asked, said, patient), (question, line)
            assert all(asked.ages(age) for age in _written(said, patient).ages), line


@pytest.mark.parametrize("mode", ["dense", "lexical", "hybrid"])
async def test_an_answer_about_whom_is_the_centralized_one(demo_federation, nc, demo_spec, mode):
    """The gateway asks deeper lists and drops others' hits; the centralized index ranks the same way."""
    from nodes.run.baseline import CentralIndex

    central = CentralIndex.from_spec(demo_spec)
    for question in ("Which women have diabetes?", "Which patients over 70 have heart failure?",
                     "Which patients are over 80?"):
        answer = await ask(nc, AskRequest(question=question, mode=mode, include_embedding=True))
        expected = central.as_answered(answer, mode, 10)
        assert [(h.path, h.id, h.score) for h in answer.hits] == [(h.path, h.id, h.score) for h in expected], question
