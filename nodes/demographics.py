"""Whom a question asks about — women or men, an age — and the patients whose records say otherwise.

"Which women have diabetes?" named men, and "Which patients over 80 have heart failure?" patients of every age: the
words that say whom are context (:data:`nodes.concepts.CONTEXT`), which no record need mention, so nothing held the
answer to them. A question's :class:`Whom` is read from its words (:func:`whom`): a sex (women, female, girls …; men,
male, boys …; both or neither: none) and an age ("over 80", "older than 65", "under 40", "aged 65 or older", "80 and
over", "in their 70s", "which children", "pediatric patients", "in children", "in adults"). Words without an age
("elderly", "older adults") are no bound: where they begin is the asker's. The gateway drops the hits of every patient
whose records say otherwise before it fuses its lists (:func:`kept`), having asked the leaves for :data:`DEEPER` times
as many (:func:`widened`), so that its top k are of those asked about; the centralized baseline ranks the same way
(:meth:`nodes.run.baseline.CentralIndex.ranked`). A patient's sex and ages are what the hits about them say
(:func:`facts`): their metadata (``sex`` or ``gender``; ``age``, a number or a string of one) or, failing that, their
text ("This 92-year-old woman", "Ms. Foster", "Patient: male, age 60"). A patient whose hits say nothing of it is kept
— nothing says otherwise — and so is a hit about no patient (a reference text): this judges patients, not what is
written about people — and only in records of patients (:attr:`bus.messages.CollectionStats.people`), so a question
of reference texts is ranked as always.

Example::

    asked = whom("Which women over 80 have heart failure?")  # Whom(sex='female', low=81, high=None)
    dense, lexical = kept(asked, dense_list_of_widened_k, lexical_list_of_widened_k)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bus.messages import MAX_K, Hit

#: How many times as many hits the gateway asks for when a question says whom (what its top k are drawn from).
DEEPER = 3

_FEMALE = frozenset("woman women female females girl girls lady ladies".split())
_MALE = frozenset("man men male males boy boys gentleman gentlemen".split())
_WORD = re.compile(r"[^\W\d_]+")
#: Words after a sex's that make it someone else's: "a female relative", "her male partner".
_SOMEONE_ELSE = frozenset("""
relative relatives partner partners sibling siblings cousin cousins family member members friend friends spouse doctor
doctors nurse nurses physician physicians provider providers caregiver caregivers
""".split())
#: Who a question may hold to an age right after naming them ("patients over 80", "women under 40").
_PEOPLE = r"(?:patients?|people|persons?|individuals?|adults?|women|men|males?|females?|anyone|those|ones|who(?:\s+are)?)"
_ABOVE = r"over|above|older\s+than|more\s+than"
_BELOW = r"under|below|younger\s+than|less\s+than"
_YEARS = r"(?:\s*(?:years?|yrs?)(?:\s+of\s+age|\s+old)?|\s*y/?o\b)"
#: Years that are an age, not a time ("over 5 years" may be how long).
_YEARS_OLD = r"(?:\s*(?:years?|yrs?)[\s-]+(?:of\s+age|old)|\s*y/?o\b)"
_UNITS = r"(?!\s*(?:%|percent|kg|lbs?|pounds|mg|mcg|g\b|ml|mmhg|bpm|days?|weeks?|months?|hours?|minutes?|times))"
#: A bound beyond a number ("patients over 80": 81 and up) …
_BEYOND = [
    # patients over 80, women under 40, anyone older than 65, patients who are older than 70
    re.compile(rf"\b{_PEOPLE}(?:\s+(?:are|is|were|was))?\s+(?:aged?\s+)?(?P<op>{_ABOVE}|{_BELOW})\s+(?:the\s+age\s+of\s+)?(?P<n>\d{{1,3}})\b{_UNITS}",
               re.IGNORECASE),
    # over 80 years old, over the age of 80, aged over 80
    re.compile(rf"\b(?P<op>{_ABOVE}|{_BELOW})\s+(?:the\s+age\s+of\s+(?P<m>\d{{1,3}})|(?P<n>\d{{1,3}}){_YEARS_OLD})",
               re.IGNORECASE),
]
#: … and one that holds it ("aged 65 or older", "80 and over", "65+").
_FROM = re.compile(rf"\b(?:aged?\s+(?P<n>\d{{1,3}})(?:{_YEARS})?|(?P<m>\d{{1,3}}){_YEARS}|{_PEOPLE}\s+(?P<p>\d{{1,3}}))\s*"
                   rf"(?:(?:or|and)\s+(?P<op>older|over|above|up|younger|under|below)\b|(?P<plus>\+))", re.IGNORECASE)
_DECADE = re.compile(r"\bin\s+(?:their|his|her)\s+(\d)0s\b", re.IGNORECASE)
_YOUNG = r"(?:children|kids|minors|infants|babies|newborns|toddlers)"
_TEENS = r"(?:adolescents|teenagers|teens)"
#: A group of the young a question asks about: "which children", "pediatric patients", and a thing "in children",
#: "among infants", "in constipated children", "for kids", "Children with … " ("What are the treatments for irritable
#: bowel syndrome in children?" quoted a 32-year-old's notes) — minors; adolescents and teenagers up to 19.
_CHILDREN = re.compile(rf"\b(?:which|what|any|the)\s+(?P<which>{_YOUNG}|{_TEENS})\b|\b(?:pediatric|paediatric)\s+patients?\b"
                       rf"|\b(?:in|among|for)\s+(?:(?!(?:their|his|her|our|my|your|these|those|whose)\b)[^\W\d_][\w-]*\s+)?"
                       rf"(?P<among>{_YOUNG}|{_TEENS})\b(?!['’])"
                       rf"|^\W*(?P<with>{_YOUNG}|{_TEENS})\s+(?:with|who)\b", re.IGNORECASE)
#: … and of adults ("in adults", "adult patients"), from 18.
_ADULTS = re.compile(r"\b(?:which|what|any|the|in|among|for)\s+adults\b|\badults?\s+(?:patients?\b|with\b|who\b)",
                     re.IGNORECASE)
#: How a record gives a patient's age and sex: "This 92-year-old woman", "a 54 year old male".
_AGE_SEX = re.compile(r"\b(?P<age>\d{1,3})[-\s](?:year|yr)s?[-\s]old"
                      r"(?:\s+(?P<sex>woman|man|female|male|girl|boy|lady|gentleman))?\b", re.IGNORECASE)
#: … or as fields: "Patient: male, age 60." (MIMIC's admissions), "Sex: F. Age: 54" — an age after a comma, colon or
#: full stop, not "died at age 60" or "gestational age 38 weeks".
_FIELDS = re.compile(r"\b(?:patient|sex|gender)\s*:\s*(?P<sex>female|male|f|m)\b"
                     r"|(?:(?<=[,.;:])|^)\s*age\s*:?\s*(?P<age>\d{1,3})\b(?!\s*(?:weeks?|months?|days?|wks?|mos?)\b)",
                     re.IGNORECASE | re.MULTILINE)
_TITLE = re.compile(r"\b(Mr|Ms|Mrs|Miss)\b\.?\s+(?:[A-Z][\w'’-]*\s+)?([A-Z][\w'’-]*)")


#: The words a question asking for nothing but whom may hold besides its sex, its ages and its numbers ("Which
#: patients are over 80?", "List all women aged 65 or older", "Who is younger than 30?").
_ONLY_WHOM = frozenset("""
which what who whom whose how many list show find name give tell me all our my the of any anyone anybody patients
patient people persons individuals ones those are is were was be being there do does have has in among or and a an
than old older oldest young younger youngest aged age ages year years yrs over above under below more less up
children child kids minors infants babies newborns toddlers adolescents teenagers teens adult adults pediatric
paediatric
""".split()) | _FEMALE | _MALE


@dataclass(frozen=True)
class Whom:
    """Whom a question asks about: a sex (``"female"``, ``"male"``) and an age range (inclusive), each or both; ``only``
    when the question asks for nothing else ("Which patients are over 80?"): then its answer is the patients whose
    records say they are (:func:`kept`), not every patient none of whose records says otherwise."""

    sex: str | None = None
    low: int | None = None
    high: int | None = None
    only: bool = False

    def __bool__(self) -> bool:
        return self.sex is not None or self.low is not None or self.high is not None

    def ages(self, age: float) -> bool:
        return (self.low is None or age >= self.low) and (self.high is None or age <= self.high)


def whom(question: str) -> Whom:
    """Whom ``question`` asks about (empty when it says nothing of sex or age, or both sexes)."""
    words = [word.casefold() for word in _WORD.findall(question)]
    said = {word for word, after in zip(words, [*words[1:], ""]) if after not in _SOMEONE_ELSE}
    female, male = bool(said & _FEMALE), bool(said & _MALE)
    sex = "female" if female and not male else "male" if male and not female else None
    low = high = None
    beyond = next((found for pattern in _BEYOND if (found := pattern.search(question))), None)
    if beyond:
        n = int(beyond.group("n") or beyond.group("m"))
        if re.fullmatch(_ABOVE, " ".join(beyond.group("op").casefold().split())):
            low = n + 1
        else:
            high = n - 1
    elif held := _FROM.search(question):
        n = int(held.group("n") or held.group("m") or held.group("p"))
        if held.group("plus") or held.group("op").casefold() in ("older", "over", "above", "up"):
            low = n
        else:
            high = n
    decade = _DECADE.search(question)
    if low is None and high is None and decade:
        low, high = int(decade.group(1)) * 10, int(decade.group(1)) * 10 + 9
    young = _CHILDREN.search(question)
    if low is None and high is None and young:
        teens = young.lastgroup is not None and re.fullmatch(_TEENS, young.group(young.lastgroup), re.IGNORECASE)
        high = 19 if teens else 17
    elif low is None and high is None and _ADULTS.search(question):
        low = 18
    only = (sex is not None or low is not None or high is not None) and _ONLY_WHOM.issuperset(words)
    return Whom(sex, low, high, only)


#: Whom a question asks for when its answer is patients: "Which patients have gout?", "Which of our women …", "How many
#: patients …" (not "How many people get …": a frequency), "List all patients with …", "Any children with …".
_WHICH_OF = re.compile(r"\b(?:(?:which|what|any|list(?:\s+all)?(?:\s+(?:the|of\s+the))?|name|find(?:\s+all)?|show"
                       r"(?:\s+me)?(?:\s+all)?(?:\s+the)?)\s+(?:of\s+(?:the|our|my|these)\s+)?(?:\w+\s+)?"
                       r"(?:patients|people|persons|individuals|adults|women|men|males|females|children|kids|girls|boys"
                       r"|residents|veterans|smokers|diabetics|members)|how\s+many\s+(?:of\s+(?:the|our|my|these)\s+)?"
                       r"(?:\w+\s+)?patients)\b", re.IGNORECASE)
#: … or "Who is on insulin?", "Who's had a colonoscopy?", "Whose MRI showed …", "Does anyone have …", "Patients with
#: …" — not "Who is at risk …", "Who should …", "Who gets …" (reference texts' questions of susceptibility).
_WHO = re.compile(r"(?:^|[.?!,:;]\s*)(?:who(?:\s+(?:is|are)|['’]s|['’]re)\s+(?!at\s+risk|(?:more\s+)?likely|affected|eligible)\w"
                  r"|who\s+(?!is\b|are\b|should\b|gets?\b|can\b|may\b|might\b|would\b|could\b)\w|whose\s+\w"
                  r"|(?:does|do|is|are|has|have|did|was|were)\s+(?:any(?:one|body)|some(?:one|body))\b"
                  r"|(?:all\s+)?patients\s+(?:with|who|on|taking|having|that)\b)", re.IGNORECASE)


def asks_which(question: str) -> bool:
    """Whether ``question`` asks which patients: its answer is patients, each of whose passages stand for them once
    (:attr:`bus.messages.Query.per_patient`), so that one patient's many visits do not fill the top k ("Who is on
    insulin?" gave ten of one patient's encounters, each listing a slightly different set of drugs)."""
    return bool(_WHICH_OF.search(question) or _WHO.search(question))


@dataclass
class Facts:
    """What a patient's hits say of them: their sexes and ages (usually one of each; none when nothing says)."""

    sexes: set[str]
    ages: set[float]


def facts(hits: list[Hit]) -> dict[str, Facts]:
    """What the hits about each patient say of their sex and age: metadata first, their text failing that."""
    found: dict[str, Facts] = {}
    for hit in hits:
        if hit.patient is None:
            continue
        said = found.setdefault(hit.patient, Facts(set(), set()))
        sex = _sex(str(hit.metadata.get("sex") or hit.metadata.get("gender") or ""))
        if sex:
            said.sexes.add(sex)
        age = _age(hit.metadata.get("age"))
        if age is not None:
            said.ages.add(age)
        if sex and age is not None:
            continue
        written = _written(hit.text, hit.patient)
        if age is None:
            said.ages |= written.ages
        if not sex:
            said.sexes |= written.sexes
    return found


def _written(text: str, patient: str | None) -> Facts:
    """What ``text`` says of the sex and age of ``patient`` (whom it is about)."""
    said = Facts(set(), set())
    for match in (*_AGE_SEX.finditer(text), *_FIELDS.finditer(text)):
        age = _age(match.group("age"))
        if age is not None:
            said.ages.add(age)
        if match.group("sex"):
            said.sexes.add(_sex(match.group("sex")))
    if names := (patient or "").split():
        said.sexes |= {_sex(title) for title, name in _TITLE.findall(text) if name == names[-1]}
    return said


def states(asked: Whom, text: str, patient: str | None) -> bool:
    """Whether ``text``, about ``patient``, says they are whom the question ``asked`` about ("Age: 84." of "Which
    patients are over 80?", "This 92-year-old woman" of "Which women are over 80?"): what an answer to a question asking
    for nothing else quotes of them."""
    return bool(asked) and not otherwise(Whom(asked.sex, asked.low, asked.high, only=True), _written(text, patient))


def _age(value) -> float | None:
    """An age as a record gives it: a number, or a string of one ("32", as ACI-BENCH's metadata and every note's text
    give it); ``None`` for anything else (``None`` too), or past 130."""
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 130:
        return float(value)
    return None


def _sex(word: str) -> str:
    word = word.strip().casefold()
    if word in ("f", "mrs", "ms", "miss") or word in _FEMALE:
        return "female"
    if word in ("m", "mr") or word in _MALE:
        return "male"
    return ""


def otherwise(asked: Whom, said: Facts) -> bool:
    """Whether a patient's records (``said``) say they are not whom the question asks about — or, asking for nothing
    else (``asked.only``), do not say they are."""
    aged = asked.low is not None or asked.high is not None
    said_sex, said_age = bool(said.sexes) or asked.only, bool(said.ages) or asked.only  # asking nothing else: unsaid is otherwise
    return (bool(asked.sex) and said_sex and asked.sex not in said.sexes) or (
        aged and said_age and not any(map(asked.ages, said.ages)))


def widened(asked: Whom, k: int) -> int:
    """How many hits a search for the top ``k`` of whom it ``asked`` about draws from (:data:`DEEPER` times ``k``)."""
    return min(MAX_K, k * DEEPER) if asked else k


def kept(asked: Whom, *lists: list[Hit]) -> tuple[list[Hit], ...]:
    """Each of ``lists`` without the hits about patients whose records — what all the lists' hits about them say —
    say they are not whom the question asks about (asking for nothing else, do not say they are: "Which patients are
    over 80?" is not answered by the medications of a patient no hit gives an age); every list as it was when it asks
    about nobody in particular."""
    if not asked:
        return lists
    said = facts([hit for hits in lists for hit in hits])
    other = {patient for patient, known in said.items() if otherwise(asked, known)}
    return tuple([hit for hit in hits if hit.patient not in other] for hits in lists)
