"""What kind of answer a question asks for, and whether a text gives that kind.

"How to diagnose atrial fibrillation?" asks for tests, "What is the outlook for X?" for a prognosis,
"What medications is Donna Clark taking?" for drugs. A passage or sentence about the same topic but of
another kind (the causes, when the treatment was asked) is a near miss that embeddings rank almost as
high. :func:`kind_of` reads a question's kind from the words that ask it; :func:`speaks_of` says whether
a text gives that kind, by the word beginnings that answers of the kind use. The gateway's fusion weighs
passages that lead with the asked kind (:func:`nodes.merge.fuse`), and the extractive answer sentences
that give it (:mod:`summarizer.answer`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

#: The kind asked by "What is X?" (below): what X is, the overview of a topic.
DEFINITION = "definition"
#: "What is X?" whole: "What is", "What's", "What is (are)" (MedQuAD's) or "Define", then X, whose first word is no
#: determiner or pronoun, which holds no possessive and whose last word is no verb in -ing or -ed nor a preposition.
_WHAT_IS = (r"^\s*(?:what(?:'s|\u2019s| is| are)(?: \(are\))?|define)\s+"
            r"(?!(?:the|a patient|his|her|their|my|your|our|its|this|that|these|those|which|it|he|she|they|you|i|we"
            r"|there|going|wrong|new|happening)\b)"
            r"(?![^?]*\w['\u2019]s?\b)[^?]*?(?<!ing)(?<!ed)(?<!\bto)(?<!\bon)(?<!\bfor)(?<!\bof)(?<!\bwith)(?<!\bat)"
            r"(?<!\bin)(?<!\babout)(?<!\bfrom)(?<!\bby)\s*(?:\?|$)")
#: What else asks what X is, anywhere in the sentence: "information about X", "tell me about X", "learn more about
#: X", "What does X mean?".
_ABOUT = (r"\b(?:information|info|facts) (?:on|about|regarding)\b|\btell (?:me|us) about\b"
          r"|\b(?:know|learn|read) (?:more )?about\b|\bwhat does [^?]+ mean\b")
#: Each kind: the words that ask for it (a regular expression over the folded question; a consumer's too: "What can I
#: take for …", "How do I get rid of …", "Will it go away?", "How do you get …"), and the word
#: beginnings of texts that give it. The kind whose words come first in the question is its kind (a question asks
#: before it names its topic: "What is the outlook for Testicular Cancer?" asks for an outlook, not a test).
KINDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "prevention": (r"\b(prevent|avoid|reduce the risk|protect)", (
        "prevent", "avoid", "reduc", "vaccin", "protect", "lower", "quit", "healthy")),
    "research": (r"\b(research|clinical trials?|being (done|studied))", (
        "clinical trial", "studied", "research", "study", "studies", "trial")),
    "susceptibility": (r"\b(at risk|risk factor|susceptib|who (gets|is likely))", (
        "risk", "more likely", "increase")),
    "diet": (r"\b(what to do for|eat|diet|nutrition|food)", (
        "eat", "diet", "nutrition", "food", "drink", "meal")),
    "diagnosis": (r"\b(diagnos|test|exam|detect|screen|find out)", (
        "test", "diagnos", "exam", "scan", "imaging", "biopsy", "blood", "mri", "x-ray", "ultrasound",
        "screen", "detect", "measure")),
    "outlook": (r"\b(outlook|prognos|surviv|recover|life expectancy|go away|how long (?:does|will|do|can|did) [a-z]+ last)", (
        "prognos", "outlook", "chance of recovery", "surviv", "recover", "depend")),
    "stages": (r"\b(stages?|phases?|grades?)\b", ("stage", "phase", "grade")),
    "complications": (r"\bcomplication", ("complication",)),
    "inheritance": (r"\b(inherit|genetic|hereditary)", ("inherit", "gene", "mutation", "hereditar")),
    "frequency": (r"\b(how (many|common)|frequen|prevalen|incidence)", (
        "percent", "%", "people", "affect", "common", "rare", "each year", "estimat")),
    "causes": (r"\b(cause|why|result from|lead to|due to|contagious|how (?:do|does|did|can) (?:you|i|one|people|someone|a "
               r"person) (?:get|catch)\b(?! rid))", (
        "cause", "due to", "result", "lead to", "infect", "exposure")),
    "symptoms": (r"\b(symptom|signs?\b|feel|complain)", (
        "symptom", "sign", "pain", "fever", "fatigue", "swell", "rash", "nausea", "cough", "weak", "numb",
        "bleed", "short of breath", "dizz", "headache")),
    "treatment": (r"\b(treat|therap|manag|cure|medication|drug|surgery|prescri|get rid of|remed(?:y|ies)|what (?:can|should|do) "
                  r"(?:i|we|he|she|you|they) take|what (?:helps|can help|will help|works))", (
        "treat", "therap", "medic", "drug", "surg", "dose", "mg ", "mg,", "mg;", "mg.", "prescri", "manag", "operation",
        "transplant", "radiation", "chemo", "antibiot", "insulin", "inject", "rehabilit")),
    # Where a patient went when they left the hospital: "Where was Eric Harris discharged to?" asks for a place, not
    # the date of a record's "Discharged:" field; notes say it as "DISPOSITION: The patient was discharged home",
    # "discharged to a rehabilitation center", "transferred to skilled nursing".
    "disposition": (r"\b(dispositions?\b|discharged? (?:to|home|back)\b|sent home|where (?:was|were|did|is|are|will) "
                    r"[^?]*\b(?:go|going|went|discharged?|sent|transferred)\b)", (
        "disposition", "discharged to", "discharged home", "discharged back", "sent home", "went home", "transferred to",
        "home with", "skilled nursing", "nursing facility", "nursing home", "rehabilitation center",
        "rehabilitation facility", "hospice")),
    # "What is X?", "What are X?", "What's X?", "Define X" asks what X is, where it asks for no other kind: not of a
    # patient ("What is Carol Dubois's glucose?"), of "the" or a pronoun's thing ("What is the difference …", "What is
    # her weight?"), nor what somebody is doing, on or allergic to ("What is Rebecca Wright taking?", "… allergic to?");
    # so do "What does X mean?" and a consumer's "information about X", "Please tell me about X", "learn more about X".
    # Its answers say what X is ("X is a disease in which", "X refers to"): of MedQuAD's 3,838 answers, 69 % of the
    # overviews' openings (:func:`nodes.data.chunking.opening`) say one of these, 10 % of the other kinds'. Not "also
    # called": "This procedure is also called computed tomography" is a test's.
    DEFINITION: (_WHAT_IS + "|" + _ABOUT, ("is a ", "is an ", "are a ", "are an ", "refers to", "is one of")),
}
#: How much more a sentence of the asked kind weighs in an extractive answer than its similarity says.
SENTENCE_BONUS = 0.1
#: The kinds a patient's records give of them, sentence by sentence: a treatment ("MEDICATIONS: cefazolin 2 g IV every 8
#: hours"), the symptoms ("Fever and productive cough"), a test ("CT of the head was unremarkable"). Asked of the
#: patients whose records say what else is asked ("What treatment did patients with cellulitis receive?"), a sentence
#: of the kind is the answer and one that only names the thing ("Primary diagnosis: cellulitis.") is not
#: (:func:`summarizer.answer.select`). Not what a thing is, how common it is nor how to prevent it, and not its
#: causes, complications or outlook: a patient's notes say those of the patient seldom, and the words saying them
#: mostly of something else ("The bulge now causes aching discomfort" in a note whose history names vertigo). Where
#: a patient went on leaving ("Disposition: rehabilitation.") is said of the patient alone.
RECORD_KINDS = frozenset({"treatment", "symptoms", "diagnosis", "disposition"})
#: How a patient's record gives a kind where a reference text would say it otherwise: a note writes "shortness of breath"
#: and "febrile", not "short of breath" or "fever" (:func:`in_record`, beside the kind's own words).
RECORD_CUES: dict[str, tuple[str, ...]] = {
    "symptoms": ("shortness of breath", "breathless", "dyspnea", "febrile", "chills", "vomit", "diarrh", "itch", "ache",
                 "cramp", "palpitation", "wheez", "tingl", "letharg", "malaise"),
}
#: What a record's passages that mention what is asked lack, when none of them gives the kind asked (:func:`unsaid`).
_UNSAID = {"treatment": "gives a treatment", "symptoms": "gives a symptom", "diagnosis": "gives a test or examination",
           "disposition": "says where the patient went"}
#: The kinds a field of a record's header gives ("Disposition: home." says where the patient went), where the others'
#: fields only name what they are of ("Primary diagnosis: cellulitis." is no test, nor a treatment).
GIVEN_BY_FIELDS = frozenset({"disposition"})
#: A department or service a record names ("admitted to the medicine service", "Department: surgery."): no treatment,
#: whatever its name (:func:`in_record`).
_UNIT = re.compile(r"\b\w+ (?:service|department|unit|team|ward)s?\b|\bdepartment: \w+", re.IGNORECASE)
#: What a record says a patient is treated for: the condition, not how ("Mr. Kwame Sanchez is being treated for acute
#: decompensated heart failure", the opening of each of the demo's assessments): no treatment (:func:`in_record`).
_TREATED_FOR = re.compile(r"\b(?:treated|treating|managed|managing) for\b", re.IGNORECASE)
#: What names drugs the patient is not given: an allergy or an intolerance ("ALLERGIES: No known drug allergies").
_NOT_GIVEN = re.compile(r"\b(?:allerg|intoleran)", re.IGNORECASE)
#: A patient's use of drugs that no one gave them ("Denies illicit drug use.", "No recreational drug use."): no treatment,
#: whatever its words (:func:`in_record`).
_DRUG_USE = re.compile(r"\b(?:(?:illicit|recreational|street|intravenous|injection) drugs?|drugs? (?:use|abuse|misuse))\b",
                       re.IGNORECASE)
#: Words that begin as a kind's cue does and mean something else in a record: "Significant for COPD" is a history, no
#: sign of it; "signed by" a note's author; "PAST HISTORY Medical …", "medical problems" no medication (:func:`in_record`).
_FALSE_CUES = re.compile(r"\b(?:significant(?:ly)?|signed|signature|medical(?:ly)?)\b", re.IGNORECASE)
#: What gives no kind in a record, whatever its words, left out in turn before its cues are read (:func:`in_record`).
_NO_KIND = (_UNIT, _TREATED_FOR, _DRUG_USE, _FALSE_CUES)
#: A sentence that says what the patient denies or tested negative for ("Denies chest pain.", "ROS: Negative for fever."),
#: after a field's name if any: it gives none of what they had or received (:func:`in_record`).
_DENIED = re.compile(r"^\W*(?:[^:.]{1,40}:\s*)?(?:denie[sd]|negative for)\b", re.IGNORECASE)
#: … and one that begins by saying there was none ("No fever or chills.", "Without chest pain."): no symptom they had.
_NONE = re.compile(r"^\W*(?:[^:.]{1,40}:\s*)?(?:no|without)\b", re.IGNORECASE)
#: What a record says of the patient's past, not of what brought them: a history's field ("PAST MEDICAL HISTORY: …",
#: "FAMILY HISTORY …", with or without its colon) whole, and "a history of …" after a word, up to where the clause
#: turns to now ("… with a history of osteoporosis and gout who was admitted with left leg redness"); not the history
#: of the present illness, nor a problem a plan heads so ("3. History of gout. - Medical Treatment: He will continue his
#: allopurinol.").
_PAST = re.compile(r"^\W*(?:(?:past|prior) (?:medical |surgical )?|family |social |medical )history\b(?! of).*"
                   r"|(?<=[^\W\d_] )(?:medical )?history of\b(?! (?:the )?present illness)[^.:]*?"
                   r"(?=\b(?:who|which|presents?|presented|presenting|admitted|was|is|now|with an?)\b|[.:]|$)",
                   re.IGNORECASE | re.DOTALL)
#: A record's list of the patient's medications ("MEDICATIONS: Current medications: allopurinol 100 mg daily; …"): what
#: they take for all they have, their history's conditions too (:func:`summarizer.answer.of_the_present`).
_MEDICATION_LIST = re.compile(r"^\W*(?:(?:current|home|discharge|admission|outpatient|inpatient|active|daily|regular) )?"
                              r"medications?\b[^.:]{0,40}(?::|\binclude)", re.IGNORECASE)
#: How much a passage whose opening gives the asked kind gains in the gateway's fusion (on the scale of a
#: cosine similarity: more than the spread between the passages of one topic, so among the answers about
#: the question's topic the one of the asked kind leads).
PASSAGE_BONUS = 0.12
#: How much of a passage's opening counts: answers lead with what they answer.
OPENING_CHARS = 300


#: How a question asking yes or no begins ("Is …", "Does …", "Has …").
_YES_NO = re.compile(r"\s*(?:is|are|was|were|does|do|did|has|have|had|can|could|should|will)\b", re.IGNORECASE)


def asks_whether(question: str) -> bool:
    """Whether ``question`` asks yes or no ("Does aspirin prevent stroke?"): what answers it is what decides it, not an
    overview of its topic."""
    return _YES_NO.match(question) is not None


@functools.lru_cache(maxsize=4_096)
def kind_of(question: str) -> str | None:
    """The kind of answer ``question`` asks for (a key of :data:`KINDS`), if its words say: the kind whose words
    come first in the last sentence that asks and names one (of two at the same place, the first in :data:`KINDS`) —
    a sentence holding a question mark, or one after the last that does ("… come back after you pass them? how to
    prevent"); every sentence, where none holds one. What the writer says before asking is not asked: "My daughter
    has been diagnosed with celiac disease. What foods does she need to avoid?" asks for a diet, not for a diagnosis;
    "I was tested for HIV last week. How long does the window period last?" for no kind of the list. A question asked
    again, or by the gateway's fusion and then its answer, is not read again."""
    sentences = [question[start:end] for start, end in question_sentences(question)]
    last = max((i for i, sentence in enumerate(sentences) if "?" in sentence), default=-1)
    asking = [sentence for i, sentence in enumerate(sentences) if "?" in sentence or i > last]
    return next((kind for sentence in reversed(asking) if (kind := _first_kind(sentence)) is not None), None)


def _first_kind(text: str) -> str | None:
    folded = text.casefold()
    found = [(match.start(), order, kind) for order, (kind, (asks, _)) in enumerate(KINDS.items())
             if (match := re.search(asks, folded))]
    other = [entry for entry in found if entry[2] != DEFINITION]  # what X is is asked only where nothing else is
    return min(other or found)[2] if found else None


#: Where a sentence ends: the mark and the space after it — not a title's, an initial's or an abbreviation's period
#: ("Dr. Patel", "y. enterocolitica", "vs. LEEP"), nor a colon (a title's "Serovar specific immunity to Neisseria
#: gonorrhoeae: does it exist?" asks of its topic).
_SENTENCE_END = re.compile(r"(?<!\bDr)(?<!\bMr)(?<!\bMs)(?<!\bMrs)(?<!\bProf)(?<!\bSt)(?<!\bvs)(?<!\be\.g)(?<!\bi\.e)"
                           r"(?<!\b\w)[.!?]+\s+", re.IGNORECASE)


def question_sentences(text: str) -> list[tuple[int, int]]:
    """Where each sentence of a question's ``text`` begins and ends."""
    starts = [0] + [end.end() for end in _SENTENCE_END.finditer(text) if end.end() < len(text)]
    return list(zip(starts, starts[1:] + [len(text)]))


def asking_sentence(text: str, sentences: list[tuple[int, int]] | None = None) -> tuple[int, int]:
    """Where the sentence of ``text`` that asks begins and ends: the last holding a question mark, else the last (of
    its ``sentences``, when they are cut already)."""
    sentences = sentences or question_sentences(text)
    return next((span for span in reversed(sentences) if "?" in text[span[0]:span[1]]), sentences[-1])


def speaks_of(text: str, kind: str | None) -> bool:
    """Whether ``text`` gives what a question of ``kind`` asks for."""
    return kind is not None and _cued(text, KINDS[kind][1])


def _cued(text: str, cues: Sequence[str]) -> bool:
    """Whether ``text`` holds one of ``cues``: a word's beginning (a cue starting with a letter) or as it is ("mg.")."""
    folded = " " + text.casefold()
    return any((f" {cue}" if cue[0].isalpha() else cue) in folded for cue in cues)


def asked_of_records(question: str, things: Sequence[str]) -> str | None:
    """The kind ``question`` asks of the patients' records (:data:`RECORD_KINDS`), asked of ``things`` (what the question
    asks about, :mod:`nodes.concepts`): none where one of them names the kind itself — "Which patients take *pain
    medication*?", "…had *surgery* on their hip?", whose members the records name — nor where the question asks about an
    allergy ("Does she have any *drug* allergies?" asks no treatment) or asks another kind too ("What *medication*
    *caused* her tremor?" asks for a cause, which a drug is), nor where it asks a treatment only by what patients are
    treated for ("Which patients were *treated for* heart failure?" asks who has it, as their records say)."""
    kind = kind_of(question)
    if kind not in RECORD_KINDS or _NOT_GIVEN.search(question) or any(speaks_of(thing, kind) for thing in things):
        return None
    folded = question.casefold()
    if kind == "treatment" and not re.search(KINDS[kind][0], _TREATED_FOR.sub(" ", folded)):
        return None
    if any(other not in (kind, DEFINITION) and re.search(asks, folded) for other, (asks, _) in KINDS.items()):
        return None
    return kind


def in_record(sentence: str, kind: str | None) -> bool:
    """Whether a sentence of a patient's record gives what a question of ``kind`` asks of them (one of
    :data:`RECORD_KINDS`): as :func:`speaks_of`, but not by the name of a department or service, nor a treatment by
    an allergy, by what the patient is treated for or by their use of drugs, nor by "significant" or "medical"
    (:data:`_FALSE_CUES`), nor anything by what they deny ("Denies illicit drug use."), nor a symptom by what they had
    none of ("No fever.")."""
    if kind not in RECORD_KINDS or (kind == "treatment" and _NOT_GIVEN.search(sentence)) or _DENIED.match(sentence) or (
            kind == "symptoms" and _NONE.match(sentence)):
        return False
    said = sentence
    for words in _NO_KIND:
        said = words.sub(" ", said)
    return _cued(said, KINDS[kind][1] + RECORD_CUES.get(kind, ()))


def lists_medications(sentence: str) -> bool:
    """Whether ``sentence`` of a record lists the patient's medications (:data:`_MEDICATION_LIST`)."""
    return _MEDICATION_LIST.match(sentence) is not None


def of_now(sentence: str) -> str:
    """``sentence`` of a patient's record without what it says of their past (:data:`_PAST`): a note that names the gout
    asked about only in a history ("PAST MEDICAL HISTORY: osteoporosis; gout.") treats something else."""
    return _PAST.sub(" ", sentence)


def unsaid(kind: str, things: Sequence[str]) -> str:
    """Why a question asking ``kind`` of the patients' records (:func:`asked_of_records`) about ``things`` has no answer
    when none of the passages that mention them gives it: "none of the passages that mention pneumonia gives a
    symptom" (their "Primary diagnosis: community-acquired pneumonia." is not one)."""
    return f"none of the passages that mention {' and '.join(things) or 'what is asked'} {_UNSAID[kind]}"
