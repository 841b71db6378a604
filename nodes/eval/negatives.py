"""Questions the demo federation cannot answer, and the check that it really cannot.

Three kinds, asked beside the demo's own answerable questions (:func:`nodes.eval.sets.demo_negatives`):

* :data:`ABSENT`: conditions, drugs and procedures no demo record mentions. Each question lists the
  terms that make it unanswerable; :func:`present` finds any of them in a text (a word starting with
  the term, case ignored), and :func:`check_absent` fails when the generated corpus, or the
  generator's vocabulary (:mod:`nodes.demo.tables`), holds one — a change to the demo that makes a
  question answerable is caught before its figures mislead anyone.
* :data:`PARTLY_ABSENT`: patients with a condition the demo holds, and a drug or procedure no record
  mentions ("Which patients with gout were treated with methotrexate?"), or a severity, recurrence or control no
  record writes of it ("Which patients have severe hypertension?"): the patients with that condition are not the
  answer, and neither are those on another drug.
* :data:`UNKNOWN_PEOPLE`: patients nobody holds, by invented names in the subject, object or
  possessive role or by a surname after a title ("Mrs. Vandersloot"), asking about things the demo does
  hold (gout, pneumonia, a discharge), so only the name can tell that there is nothing to say.

A negative is rejected when the answer says the evidence is not enough and names nobody — and, asked about someone
held nowhere, shows no other patient's records.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

#: Question types of the negatives.
ABSENT_TYPE = "absent condition"
PERSON_TYPE = "unknown person"
PARTLY_TYPE = "partly absent"


@dataclass(frozen=True)
class Negative:
    """A question nothing in the demo answers, and what must stay absent for that to hold.

    Attributes:
        text: the question.
        absent: terms (lower case) no demo record or table may mention; for a person, the name.
    """

    text: str
    absent: tuple[str, ...]


def _q(text: str, *absent: str) -> Negative:
    return Negative(text, tuple(absent))


ABSENT: tuple[Negative, ...] = (
    # conditions
    _q("Which patients have Crohn's disease?", "crohn"),
    _q("Which patients were admitted with a flare of ulcerative colitis?", "ulcerative colitis"),
    _q("Which patients have celiac disease on a gluten-free diet?", "celiac", "gluten"),
    _q("Which patients with systemic lupus erythematosus have lupus nephritis?", "lupus"),
    _q("Which patients with rheumatoid arthritis are on biologic therapy?", "rheumatoid", "biologic"),
    _q("Which patients have plaque psoriasis?", "psoria"),
    _q("Which patients were diagnosed with pulmonary sarcoidosis?", "sarcoid"),
    _q("Which patients were treated for active tuberculosis?", "tubercul"),
    _q("Which patients have Lyme disease after a tick bite?", "lyme", "tick bite"),
    _q("Which patients were admitted with a sickle cell pain crisis?", "sickle"),
    _q("Which patients with hemophilia needed factor replacement?", "hemophilia", "factor viii"),
    _q("Which patients have myasthenia gravis?", "myasthenia"),
    _q("Which patients were diagnosed with amyotrophic lateral sclerosis?", "amyotrophic"),
    _q("Which patients developed Guillain-Barre syndrome?", "guillain"),
    _q("Which patients have glaucoma treated with eye drops?", "glaucoma"),
    _q("Which patients had preeclampsia during pregnancy?", "preeclampsia", "eclampsia"),
    _q("Which patients were diagnosed with melanoma?", "melanoma"),
    _q("Which patients are being treated for leukemia or lymphoma?", "leukemia", "lymphoma"),
    _q("Which patients have multiple myeloma?", "myeloma"),
    _q("Which patients were admitted for anorexia nervosa?", "anorexia nervosa"),
    _q("Which patients had an episode of shingles?", "shingles", "zoster"),
    _q("Which patients have infective endocarditis?", "endocarditis"),
    _q("Which patients were diagnosed with a pulmonary embolism?", "pulmonary embol"),
    _q("Which patients tested positive for hepatitis B?", "hepatitis b", "hbv"),  # the demo holds hepatitis C
    _q("Which patients have hearing loss?", "hearing loss", "deaf"),  # the demo's patients hear voices
    _q("Which patients have memory loss?", "memory loss", "amnesia"),
    # drugs
    _q("Which patients are taking adalimumab or infliximab?", "adalimumab", "infliximab"),
    _q("Which patients are on weekly methotrexate?", "methotrexate"),
    _q("Which patients take hydroxychloroquine?", "hydroxychloroquine"),
    _q("Which patients were started on semaglutide for weight loss?", "semaglutide"),
    _q("Which patients are on clozapine for treatment-resistant schizophrenia?", "clozapine"),
    _q("Which patients take tamoxifen?", "tamoxifen"),
    _q("Which patients received pembrolizumab immunotherapy?", "pembrolizumab", "immunotherapy"),
    # procedures
    _q("Which patients are on hemodialysis three times a week?", "dialysis"),
    _q("Which patients had a kidney stone treated with lithotripsy?", "kidney stone", "lithotripsy", "nephrolith"),
    _q("Which patients underwent cataract surgery?", "cataract"),
    _q("Which patients had a tonsillectomy?", "tonsillectomy"),
    _q("Which patients underwent a hysterectomy?", "hysterectomy"),
    _q("Which patients had a cesarean section?", "cesarean", "caesarean"),
    _q("Which patients had gastric bypass surgery?", "gastric bypass", "bariatric"),
    _q("Which patients had a pacemaker implanted?", "pacemaker"),
    _q("Which patients needed a tracheostomy?", "tracheostomy"),
    _q("Which patients received electroconvulsive therapy?", "electroconvulsive"),
)

PARTLY_ABSENT: tuple[Negative, ...] = (
    _q("Which patients with gout were treated with methotrexate?", "methotrexate"),
    _q("Which patients with gout were switched to febuxostat?", "febuxostat"),
    _q("Which patients with type 2 diabetes were started on semaglutide?", "semaglutide"),
    _q("Which patients with atrial fibrillation take amiodarone?", "amiodarone"),
    _q("Which patients with heart failure are on digoxin?", "digoxin"),
    _q("Which patients with COPD take roflumilast?", "roflumilast"),
    _q("Which patients with asthma receive omalizumab injections?", "omalizumab"),
    _q("Which patients with a urinary tract infection were given nitrofurantoin?", "nitrofurantoin"),
    _q("Which patients with hepatitis C were treated with sofosbuvir?", "sofosbuvir"),
    _q("Which patients with seizures take valproate?", "valpro"),
    _q("Which patients with migraine get botulinum toxin injections?", "botulinum"),
    _q("Which patients with vertigo were treated with an Epley maneuver?", "epley"),
    _q("Which patients with depression received ketamine?", "ketamine"),
    _q("Which patients with heart failure had a pacemaker implanted?", "pacemaker"),
    _q("Which patients with knee osteoarthritis were treated with acupuncture?", "acupuncture"),
    _q("Which patients with kidney disease are on dialysis?", "dialysis"),
    # a condition the demo holds, at a severity, a recurrence or a control no record writes of it
    _q("Which patients have severe hypertension?", "severe hypertension", "hypertension, severe"),
    _q("Which patients have poorly controlled hypertension?", "poorly controlled hypertension",
       "uncontrolled hypertension", "hypertension, poorly", "hypertension poorly"),
    _q("Which patients have recurrent pneumonia?", "recurrent pneumonia", "recurrent aspiration"),
)

UNKNOWN_PEOPLE: tuple[Negative, ...] = (
    # subject
    _q("What medications is Zorblat Quixote taking for his gout?", "zorblat quixote"),
    _q("Was Bartholomew Quince admitted for community-acquired pneumonia?", "bartholomew quince"),
    _q("Did Isolde Kravitz have a seizure after missing her antiepileptic doses?", "isolde kravitz"),
    _q("Has Evander Holloway been seen at more than one hospital?", "evander holloway"),
    _q("Why was Perpetua Nakagawa admitted to Hospital A?", "perpetua nakagawa"),
    # object
    _q("Which unit discharged Temperance Adeyemi to a skilled nursing facility?", "temperance adeyemi"),
    _q("Summarize the care given to Ignatius Lindqvist at Hospital B.", "ignatius lindqvist"),
    _q("Who started Marisol Okonkwo-Hale on apixaban?", "marisol okonkwo"),
    _q("What did the cardiology team find when they examined Dagfinn Ostrowski?", "dagfinn ostrowski"),
    _q("Which antibiotics were given to Caspian Mbeki for urosepsis?", "caspian mbeki"),
    _q("What did the nephrologist recommend for Anselmo Quiroga?", "anselmo quiroga"),
    _q("List the home medications of Zhou Yiming.", "zhou yiming"),
    # possessive
    _q("What was Rosalind Achterberg's discharge disposition?", "rosalind achterberg"),
    _q("What is Cornelius Vantongeren's social history?", "cornelius vantongeren"),
    _q("List Wilhelmina Szabo's allergies and home medications.", "wilhelmina szabo"),
    _q("What was the assessment and plan for Lucan Abernethy's chest pain?", "lucan abernethy"),
    _q("Describe Ottoline Ferreira's past medical history.", "ottoline ferreira"),
    # a surname alone, after a title
    _q("Does Mrs. Vandersloot have gout?", "vandersloot"),
    _q("Was Mr. Ekwueme discharged to a skilled nursing facility?", "ekwueme"),
    # a familiar given name alone
    _q("Is Becky on warfarin?", "becky"),
)


def present(terms: Iterable[str], texts: Iterable[str]) -> set[str]:
    """The terms that occur in some text as the start of a word (``transplant`` finds ``transplanted``)."""
    terms = list(terms)
    found: set[str] = set()
    patterns = {term: re.compile(r"\b" + re.escape(term), re.IGNORECASE) for term in terms}
    for text in texts:
        found.update(term for term, pattern in patterns.items() if term not in found and pattern.search(text))
        if len(found) == len(terms):
            break
    return found


def _strings(value) -> Iterator[str]:
    """Every string inside a table value: tuples, lists, dicts and dataclasses, recursively."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(key)
            yield from _strings(item)
    elif isinstance(value, (tuple, list, set, frozenset)):
        for item in value:
            yield from _strings(item)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for item in dataclasses.fields(value):
            yield from _strings(getattr(value, item.name))


def vocabulary() -> list[str]:
    """Every string of the demo generator's tables (:mod:`nodes.demo.tables`), whatever the seed draws."""
    from nodes.demo import tables

    return [text for name, value in vars(tables).items() if name.isupper() for text in _strings(value)]


def check_absent(texts: Iterable[str], negatives: Iterable[Negative] = ABSENT + PARTLY_ABSENT + UNKNOWN_PEOPLE) -> list[str]:
    """What makes a negative answerable: one line per term of :attr:`Negative.absent` found in ``texts``."""
    negatives = list(negatives)
    texts = list(texts)
    found = present({term for negative in negatives for term in negative.absent}, texts)
    return [f"{negative.text!r}: {term!r} is in the demo" for negative in negatives for term in negative.absent
            if term in found]
