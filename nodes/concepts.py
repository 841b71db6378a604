"""What a question asks about, in the words the lexical index counts: its terms and its concepts.

A question's *terms* are its words as :func:`nodes.data.lexical.terms` counts them (what BM25 scores).
Its *concepts* are the things it names — a condition, a drug, a procedure, a finding: runs of words the
question does not use merely to ask ("which patients have", "what are the treatments for", "with",
"or", ...), without the patients it names (the name filter handles those) and without numbers (a dose
is not the drug; a word that starts with a letter and holds digits is a name: "DM2", "BRCA1"). "Which
patients have heavy alcohol use with liver disease or pancreatitis?" names three: *heavy alcohol use*,
*liver disease*, *pancreatitis*.

A passage *mentions* a concept if it holds every term of it — its qualifiers ("elective", "chronic",
:data:`QUALIFIERS`) aside — or of an accepted synonym (:data:`SYNONYMS`: "heart attack" and "myocardial
infarction" are one concept; :data:`ABBREVIATIONS`: so is "MI"), or of a word the stemmer keeps apart from the one
asked although it names the same thing (:data:`DERIVED`: a record of "aortic stenosis" mentions a "stenotic aortic
valve"), or of a finding it measures (:mod:`nodes.data.readings`: "heart rate 107" mentions tachycardia,
"oxygen saturation 86%" low oxygen). Leaves count the passages that mention each concept among those the caller
may search (:class:`bus.messages.CollectionStats`), so the gateway learns, without moving any text, whether what
the question is about is in the records at all (:func:`grounding`: the conditions, drugs and procedures it names,
when it names any) — a question about a condition no record mentions is answered "no record mentions it", not with
other patients' notes.
"""

from __future__ import annotations

import functools
import gzip
import importlib.resources
import json
import math
import re
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

from bus.messages import MAX_ALTERNATIVES, MAX_CONCEPTS, MAX_OPTION_TERMS, MAX_TERMS, CollectionStats
from nodes.data import lexical, readings
from nodes.names import EPONYMOUS
from summarizer.kinds import asking_sentence, asks_whether, kind_of, question_sentences
from summarizer.sentences import sentences as sentences_of

#: Words that ask for a prevention or a diet where they end the question ("What foods should a person with gout
#: *avoid*?", "What can he *eat*?"), as a word of :data:`ASKING` does anywhere; before what they act on or after "to"
#: they name it with it ("Which patients were told to avoid alcohol?", "…are unable to eat?").
ASKED_LAST = frozenset("avoid eat".split())
#: Words that ask rather than name — among them those asking for a judgement ("the *best* treatment for gout", "the
#: *recommended* dose": a record's "Recommend restarting apixaban" is not what is asked) — titles ("Mrs. Wright") and a
#: letter's greetings and headings ("Dear sir", "Thanks", "Subject:"): a concept never holds one (with the index's
#: stop words); those saying who (:data:`PEOPLE`) among them.
PEOPLE = frozenset("""
patient patients people person persons someone anyone anybody everyone somebody everybody individual individuals
""".split())
ASKING = PEOPLE | frozenset("""
anything something everything case cases record
records note notes chart charts who which what list show find tell give know known information info about
history diagnosed diagnosis treatment treatments treat treated treating therapy therapies option options
medication medications medicine medicines drug drugs prescribe prescribes prescribed prescription taking take taken takes
use using
symptom symptoms sign signs cause causes caused causing cure cures cured curable risk risks factor factors outlook
prognosis test tests testing exam exams examination diagnose complication complications prevent prevention preventing research
study studies trial trials stage stages inheritance inherited genetic change changes frequency common many much
often type types kind kinds help helps helped helping doctor doctors hospital visit admitted currently current recently
recent ever get gets got getting does doing did can may might could would should need needs needed also still any
underwent undergo undergoes undergone undergoing received receive receives receiving developed develop
presented present presenting experienced experiencing suffered suffering reported reporting complain complains
complained complaining seen see feel feels felt evaluated noted found summarize summarise summary summarizing describe
explain compare compared comparing outline overview review detail details report reports mention mentioned mentions
typical typically usual usually best recommend recommends recommended recommendation recommendations preferred optimal
ideal appropriate average main course given giving gives switched switching tried trying placed performed done
ordered referred managed ruled rule happen happens happened happening occur occurs occurred occurring went
come comes came coming brought bring brings keep keeps keeping
mr mrs ms miss mx dr prof sir madam
hello hi hey dear thanks thank regards sincerely please greetings subject message question questions
""".split())
#: Titles of clinicians, as abbreviated: a capitalized name after one is a clinician, one concept with the title ("Which
#: patients did Dr. Patel see?" is not answered by a patient named Patel, nor refused as "no record mentions Patel").
#: Not "Doctor": a title-cased question writes "Doctor Visits".
CLINICIAN_TITLES = frozenset("dr prof".split())
_POSSESSIVE = re.compile(r"['’]s$")
#: A word that says what was done ("titrated", "stopped"): after what it was done to, a concept is mentioned
#: without it. Not a word in -ing, which names a finding ("leg swelling", "nasal bleeding"), nor one in -eed ("brain
#: bleed").
_PARTICIPLE = re.compile(r"[^\W\d_]{3,}(?<!e)ed")
#: Words that say what was done, or how it goes, that :data:`_PARTICIPLE` does not see: irregular participles ("How is
#: malaria *spread*?", "Is lupus *passed* on…": spaCy chunks "malaria spread") and the verbs a question ends in ("How
#: long does mono *last*?"). After what they are said of, they likewise leave it mentioned without them.
DONE = frozenset("""
spread known shown given taken done seen caught gotten left made kept held lost told written grown born broken
chosen eaten fallen hidden bitten bled fed felt sent spent stuck thought understood last work heal
""".split())
#: Words saying what a patient cannot do, what following "to": one concept with it ("Which patients are *unable* to
#: eat?" is not answered by "unable to bear weight", nor by "eating irregularly").
UNABLE = frozenset("unable inability incapable".split())
#: Words that ask after "how" ("how long", "how often"), whatever they mean elsewhere ("long QT syndrome").
HOW = frozenset("long often soon far old big bad serious likely quickly fast early late".split())
#: Numbers written in words: like digits, they say how many, never what ("seen at more than *one* hospital").
NUMBER_WORDS = frozenset("one two three four five six seven eight nine ten twelve dozen once twice thrice".split())
#: Nouns that say only that something is hard, what is hard following in -ing: "trouble breathing", "difficulty
#: swallowing", "problems sleeping". A parser takes the -ing word for a verb and leaves it out of the noun phrase, which
#: then names nothing but the hardship (any record of "trouble speaking" would mention it); the phrase takes it.
HARDSHIPS = frozenset("trouble troubles difficulty difficulties problem problems".split())
#: Words of :data:`ASKING` that end the name of a test (:data:`TESTS`) when right after what it examines (:data:`TESTED`):
#: "Who had a hearing *test*?" asks about a hearing test, which a note of a patient hearing voices does not mention, and
#: "a skin *test*" is not a note of intact skin. What a laboratory test measures is another matter: a record of a
#: troponin of 951 tells of a troponin test, so "troponin test" asks about troponin, as before. Alone, or first ("What
#: tests diagnose lupus?"), they ask.
TESTS = frozenset("test tests testing exam exams examination examinations".split())
#: The senses, specimens and parts of the body a test or an examination is named by.
TESTED = frozenset("""
hearing vision sight eye eyes ear ears skin blood urine stool breath sweat saliva pregnancy allergy allergies memory
balance lung lungs liver kidney kidneys heart nerve nerves muscle muscles breast breasts pelvic rectal foot feet physical
neurological neurologic abdominal
""".split())
_DOING = re.compile(r"\s+[^\W\d_]{2,}ing\b")
#: Words that qualify what a concept names without naming it: a passage may mention the concept without them.
QUALIFIERS = frozenset("""
elective total partial complete acute chronic severe mild moderate recurrent recent persistent intermittent
bilateral left right primary secondary early late advanced new old simple complicated uncomplicated major minor
suspected possible probable known elevated raised increased decreased abnormal
bad worse worst really extremely extreme terrible terribly horrible horribly awful awfully slight slightly
uncontrolled refractory
""".split())
#: Of the qualifiers, those a record must write (or a synonym of) to say the qualified thing: a "history of hypertension"
#: says nothing of how severe it is, nor that pneumonia recurred, nor that diabetes is uncontrolled.
STATED = frozenset("severe mild moderate recurrent refractory uncontrolled".split())
#: What a question says of a thing — its change or its state — that a record must write beside it (:func:`_stated_beside`),
#: though alone it says nothing asked (:data:`CONTEXT`): a weight gain is no weight loss, a "Weight 80 kg" neither, nor is
#: "hearing voices" hearing loss; a breakthrough seizure is not seizure-free, stable angina not unstable angina, and a
#: history of gout no gout flare.
CHANGES = frozenset("loss gain free flare flares stable unstable".split())
#: The ways of saying a thing is not under control, one concept (:data:`SYNONYMS`) and a qualifier a record must write.
UNCONTROLLED = ["uncontrolled", "poorly controlled", "not well controlled", "suboptimally controlled",
                "inadequately controlled", "poor control"]
#: Words between concepts: a concept ends where one stands (connectives, prepositions, negations and quantifiers
#: the index does not drop as stop words: "readmitted *despite* treatment", "hypertension but *no* medication").
BETWEEN = frozenset("""
and or with without for of in on to from after before during by at due versus vs as than nor but not despite
following since via within including like unlike among amongst toward towards onto upon across along around beyond
except plus minus per regarding concerning whether whose yet although though unless till whereas besides beside
throughout underneath no none neither either every regardless irrespective notwithstanding prior thereby hence thus
therefore otherwise instead rather meanwhile even already ago likewise subsequently afterwards previously
simultaneously concurrently alongside amid amidst beneath especially particularly specifically mainly mostly
primarily respectively behalf
""".split())
#: When something happened or how long it has gone on — "last year", "the past two weeks", "3 months ago", "yesterday" —
#: which ends a concept and makes none: a parser joins "glaucoma last year" into one noun phrase, and no record holds
#: that phrase, though many hold glaucoma.
_WHEN = re.compile(r"(?:(?:last|past|next|previous|this|every|each|few|several|many|couple\s+of|\d+|"
                   + "|".join(sorted(NUMBER_WORDS)) + r")\s+)+(?:days?|nights?|weeks?|weekends?|months?|years?|hours?|"
                   r"minutes?|decades?|mornings?|evenings?)\b(?:\s+ago\b)?|\b(?:yesterday|today|tonight)\b",
                   re.IGNORECASE)
#: What joins two words into one without spaces: a hyphen or a dash ("end-stage", "Charcot-Marie-Tooth").
HYPHENS = frozenset("-\u2010\u2011\u2012\u2013")
#: A hyphen or dash (:data:`HYPHENS`).
_HYPHEN = re.compile(f"[{re.escape(''.join(sorted(HYPHENS)))}]")
#: What a yes-or-no question says of its subject: with "is" or "are" an adjective ("Is lupus *fatal*?", "Are statins
#: *hepatotoxic*?", "Is aspirin *effective* for migraine?"), with "does" or "can" what it does ("Does green tea *lower*
#: blood pressure?", "Will exercise *lower* my cholesterol?") — right after the subject's words, an adjective where the
#: sentence ends or goes on ("for", "and", "to" …). It is what the question asks of the thing, not part of its name: a
#: parser chunks "halofantrine ototoxic" or "tea lower blood pressure" as one phrase, which no text on the thing writes,
#: so it ends the concept before it and makes none (:func:`_masked`), as the parser leaves "contagious" out of "Is
#: shingles contagious?". An adjective is told by its ending or is one of :data:`PREDICATES`, nouns with such endings
#: (:data:`_NOT_PREDICATES`: "clinic", "antibiotic", "laxative", "ovary") aside; what a thing does is one of
#: :data:`EFFECTS` (the verbs :data:`ASKING` holds — "cause", "prevent", "help" — end a concept already; not those that
#: name a thing as often after a noun: "nerve block", "liver damage", "migraine trigger").
_WHETHER = re.compile(r"(?:^|(?<=[.?!;:]))\s*(?:(is|are|was|were)|do|does|did|can|could|will|would|may|might)\s+"
                      r"(?!(?:there|it|this|that|these|those|i|you|we|they|he|she)\b)([^.?!;:]*)", re.IGNORECASE)
_PREDICATE_ENDING = re.compile(r"[^\W\d_]{3,}(?:ic|ive|ous|ful|able|ible|ary|ory|ial|ior)")
PREDICATES = frozenset("""
safe unsafe worth aware able unable fatal lethal deadly benign malignant autoimmune terminal similar likely unlikely
true real relevant significant resistant pregnant dominant absent different equivalent sufficient insufficient
efficient dependent independent prevalent persistent consistent urgent permanent frequent evident good bad better
worse best worst okay ok fine possible impossible healthy unhealthy sick ill rare reliable accurate adequate
appropriate feasible necessary enough
""".split())
_NOT_PREDICATES = frozenset("""
clinic trial antibiotic diuretic narcotic anesthetic anaesthetic antiseptic mechanic arsenic epidemic pandemic
laxative sedative preservative contraceptive relative detective secretary pituitary summary memory territory
laboratory category factory capillary ovary boundary infirmary dispensary commentary directory accessory inventory
dictionary anniversary
""".split())
EFFECTS = frozenset("""
lower raise increase decrease reduce worsen improve affect relieve interact protect boost shrink ease weaken
strengthen induce inhibit suppress elevate alter predict influence impair enhance promote aggravate exacerbate
interfere kill fight dissolve correlate hurt lessen alleviate shorten lengthen
""".split())
#: A word of the predicate's: letters joined by hyphens ("cost-effective").
_PREDICATE_WORD = re.compile(rf"[^\W\d_]+(?:{_HYPHEN.pattern}[^\W\d_]+)*")


def _predicative(word: str) -> bool:
    """Whether ``word`` is shaped like an adjective a question says of its subject (:data:`_WHETHER`)."""
    last = _HYPHEN.split(word.casefold())[-1]
    return (last in PREDICATES or bool(_PREDICATE_ENDING.fullmatch(last))) and last not in _NOT_PREDICATES


def _predicates(text: str, names: list[str] = ()) -> list[tuple[int, int]]:
    """Where ``text``'s yes-or-no questions say what their subjects are or do (:data:`_WHETHER`): in each, the first
    adjective (after a copula) or verb of :data:`EFFECTS` right after a noun of the subject, an adjective where the
    sentence ends or goes on. The subject is read up to "a" or "an" (what it is said to be: "Is amoxapine an atypical
    antipsychotic?") or a word between concepts but "of", "and" and "or" ("Is adjustment for reporting heterogeneity
    necessary …" is left as the parser reads it); a word after an adjective or an adverb is a noun's or goes with it
    ("Is acute fibrinous and organizing pneumonia …", "… physically able …"). A patient's name (of ``names``) is no
    such subject: "Is Maria Gonzalez diabetic?" asks whether she has diabetes."""
    named = {word.casefold() for name in names for word in name.split()}
    found = []
    for sentence in _WHETHER.finditer(text):
        copula = sentence.group(1) is not None
        words = list(_PREDICATE_WORD.finditer(text, sentence.start(2), sentence.end(2)))
        for before, word, after in zip(words, words[1:], [*words[2:], None]):
            previous, this = before.group(0).casefold(), word.group(0).casefold()
            if this in ("a", "an") or (this in BETWEEN and this not in ("of", "and", "or")):
                break
            if not (text[before.end():word.start()].isspace() and previous not in lexical.STOP_WORDS
                    and previous not in BETWEEN and previous not in ASKING and previous not in QUALIFIERS
                    and previous not in named and not previous.endswith("ly") and not _predicative(previous)):
                continue
            if copula and _predicative(this) and (after is None or after.group(0).casefold() in BETWEEN
                                                  or after.group(0).casefold() in lexical.STOP_WORDS):
                found.append(word.span())
                break
            if not copula and this in EFFECTS:
                found.append(word.span())
                break
    return found


#: Concepts named by other words (each entry one concept): a passage using any of them mentions it.
SYNONYMS = [
    ["stroke", "cerebrovascular accident"],
    ["side effect", "adverse effect", "adverse reaction", "adverse event", "adverse drug reaction"],
    UNCONTROLLED,
    ["blood clot", "thrombosis", "embolism"],
    ["kidney", "renal"],
    ["lung", "pulmonary"],
    ["heart", "cardiac"],
    ["liver", "hepatic"],
    ["sugar", "glucose"],
    ["chronic obstructive pulmonary disease", "emphysema"],
    ["deep vein thrombosis", "deep venous thrombosis"],
    ["congestive heart failure", "heart failure"],
    ["emergency department", "emergency room"],
    ["intensive care", "critical care"],
    ["obstructive sleep apnea", "sleep apnea"],
    ["acute kidney injury", "acute renal failure"],
    ["end-stage renal disease", "end-stage kidney disease"],
    ["coronary artery disease", "coronary disease"],
    ["altered mental status", "confusion"],
    ["alcohol", "ethanol"],
    *readings.NAMES,  # findings a record's reading may write: "heart rate 107" is tachycardia
    ["smoking", "smoker", "tobacco", "cigarettes"],
    ["heart murmur", "cardiac murmur", "murmur"],  # what a record hears is a murmur: "a harsh systolic murmur"
    ["fall", "fell"],
    sorted(UNABLE),  # "an inability to swallow" is a record's "unable to swallow"
    ["obesity", "obese"],
    # tests named with a word that otherwise asks (a stress *test*, a sleep *study*): one concept each, never its first
    # word alone — "Who had a sleep study?" is not answered by a note of sleep apnea, nor "a urine drug screen" by urine
    ["stress test", "exercise stress test", "cardiac stress test", "treadmill test", "treadmill stress test",
     "exercise tolerance test"],
    ["sleep study", "polysomnography", "polysomnogram"],
    ["swallow study", "swallowing study", "modified barium swallow", "videofluoroscopic swallow study"],
    ["drug screen", "urine drug screen", "toxicology screen", "urine toxicology", "tox screen"],
    ["eye exam", "eye examination", "ophthalmologic exam", "ophthalmologic examination", "dilated eye exam"],
    ["pulmonary function tests", "pulmonary function test", "pulmonary function testing", "lung function tests",
     "spirometry"],
    ["liver function tests", "liver function test", "liver panel", "hepatic function panel"],
    ["nerve conduction study", "nerve conduction studies"],
    ["tilt table test", "tilt test"],
    ["x-ray", "xray", "radiograph", "radiography", "plain film"],
    ["chest x-ray", "chest radiograph", "chest film"],
    ["vital signs", "vitals"],
    ["blood transfusion", "transfusion", "red cell transfusion"],
    ["weight loss", "lost weight", "losing weight"],
    ["weight gain", "gained weight", "gaining weight"],
    ["hearing loss", "deafness", "hard of hearing", "hearing impairment"],
    ["vision loss", "visual loss", "loss of vision", "visual impairment", "impaired vision", "low vision"],
    ["nursing home", "skilled nursing facility", "nursing facility", "long-term care facility", "care home"],
    # one thing, not a qualifier and a word of context: "Who is Eric Harris's primary care doctor?" asked about nothing a
    # record must mention, and was answered with his "Primary diagnosis: …" lines
    ["primary care", "primary care physician", "primary care provider", "primary care doctor", "family doctor",
     "family physician", "general practitioner"],
]
#: Words that may stand between a verb and the part of the body it is said of ("broke *her* hip"): where a lay name
#: writes ``~``, a question may write one of them, or none.
WHOSE = ("a", "an", "the", "his", "her", "their", "my", "your", "our")
#: What patients call a finding or a condition (a consumer health vocabulary's, as MedlinePlus lists names "also
#: called"), each by the names records write, the first what a question in lay words is embedded and counted with
#: (:func:`spelled_out`): "Who had a heart attack?" reads "Who had a heart attack (myocardial infarction)?". Every name
#: of a row is a synonym of the others (:data:`SYNONYMS`).
LAY_NAMES = [
    (["myocardial infarction"], ["heart attack"]),
    (["hypertension"], ["high blood pressure", "high bp"]),
    (["arrhythmia", "atrial fibrillation"], ["irregular heartbeat", "irregular heart beat", "irregular heart rhythm",
                                             "irregular pulse", "abnormal heart rhythm"]),
    (["influenza"], ["flu"]),
    (["halitosis"], ["bad breath"]),
    (["gastroesophageal reflux"], ["acid reflux", "heartburn"]),
    (["shortness of breath", "short of breath", "dyspnea", "breathlessness"], ["trouble breathing",
                                                                                "difficulty breathing"]),
    (["benign prostatic hyperplasia"], ["enlarged prostate"]),
    (["hyperlipidemia", "dyslipidemia", "hypercholesterolemia"], ["high cholesterol"]),
    (["hypothyroidism"], ["underactive thyroid", "low thyroid"]),
    (["hyperthyroidism"], ["overactive thyroid"]),
    (["syncope"], ["fainting", *(f"{verb} out" for verb in ("pass", "passes", "passed", "passing", "black", "blacks",
                                                           "blacked", "blacking"))]),
    (["dysphagia"], ["difficulty swallowing", "trouble swallowing"]),
    (["insomnia"], ["trouble sleeping", "difficulty sleeping"]),
    (["hearing loss"], ["trouble hearing", "difficulty hearing"]),
    (["transient ischemic attack"], ["mini-stroke"]),
    (["nephrolithiasis", "renal calculi"], ["kidney stones"]),
    (["sepsis", "bacteremia", "septicemia"], ["blood infection"]),
    (["gastrointestinal bleeding", "gastrointestinal hemorrhage"], ["stomach bleed"]),
    (["urinary tract infection"], ["bladder infection", "water infection"]),
    (["bowel obstruction", "intestinal obstruction"], ["blocked bowel", "bowel blockage", "blocked intestine"]),
    (["inguinal hernia"], ["groin hernia"]),
    (["lung nodule", "pulmonary nodule"], ["lung spot", "spot on ~ lung"]),
    (["pyelonephritis"], ["kidney infection"]),
    (["pneumonia"], ["lung infection", "chest infection"]),
    (["cellulitis"], ["skin infection"]),
    (["osteomyelitis"], ["bone infection"]),
    (["osteoarthritis", "degenerative joint disease", "degenerative arthritis"], ["wear and tear arthritis"]),
    # a broken bone as patients say it: "a broken hip", "broke her hip", "fractured a rib"
    *((clinical, [f"{verb} ~ {part}" for verb in ("broken", "fractured", "broke")])
      for clinical, part in [(["hip fracture", "femoral neck fracture"], "hip"),
                             (["wrist fracture", "distal radius fracture"], "wrist"), (["ankle fracture"], "ankle"),
                             (["leg fracture"], "leg"), (["arm fracture"], "arm"), (["rib fracture"], "rib"),
                             (["clavicle fracture"], "collarbone"), (["pelvic fracture"], "pelvis"),
                             (["foot fracture"], "foot"), (["nasal fracture"], "nose")]),
    (["alcohol use disorder", "alcohol dependence"], ["alcoholism", "alcohol addiction", "heavy drinking",
                                                       "heavy drinker", "heavy drinkers", "drink heavily",
                                                       "drinks heavily", "drinking heavily", "drank heavily"]),
    (["opioid use disorder", "opioid dependence"], ["opioid addiction", "painkiller addiction", "addicted to painkillers",
                                                     "hooked on painkillers", "addicted to opioids", "hooked on opioids"]),
    (["substance use disorder", "drug dependence"], ["drug addiction"]),
    (["pulmonary embolism"], ["blood clot in the lung"]),
    (["pneumothorax"], ["collapsed lung"]),
    (["pulmonary edema"], ["fluid on the lungs", "water on the lungs"]),
    (["osteoporosis"], ["brittle bones"]),
    (["herniated disc", "disc herniation"], ["slipped disc"]),
    (["radiculopathy"], ["pinched nerve"]),
    (["herpes zoster"], ["shingles"]),
    (["varicella"], ["chickenpox"]),
    (["pertussis"], ["whooping cough"]),
    (["conjunctivitis"], ["pink eye"]),
    (["streptococcal pharyngitis", "streptococcal sore throat"], ["strep throat"]),
    (["urticaria"], ["hives"]),
    (["epistaxis"], ["nosebleed"]),
    (["tinnitus"], ["ringing in the ears"]),
    (["pressure ulcer", "pressure injury", "decubitus ulcer"], ["bedsore"]),
    (["atherosclerosis"], ["hardening of the arteries"]),
    (["gastroenteritis"], ["stomach flu"]),
    (["tetanus"], ["lockjaw"]),
    (["rubella"], ["german measles"]),
    (["herpes labialis"], ["cold sore"]),
    (["tinea pedis"], ["athlete's foot"]),
    (["amblyopia"], ["lazy eye"]),
    (["myopia"], ["nearsightedness"]),
    (["hyperopia"], ["farsightedness"]),
    (["lateral epicondylitis"], ["tennis elbow"]),
    (["adhesive capsulitis"], ["frozen shoulder"]),
    (["hepatic steatosis"], ["fatty liver"]),
    (["cholelithiasis"], ["gallstones"]),
    (["hematuria"], ["blood in the urine"]),
    (["hemoptysis"], ["coughing up blood"]),
    (["hematemesis"], ["vomiting blood"]),
    (["pruritus"], ["itching"]),
    (["diplopia"], ["double vision"]),
    (["blurred vision"], ["blurry vision", "blurry eyesight", "blurred eyesight"]),
    (["alopecia"], ["hair loss"]),
    (["lymphadenopathy"], ["swollen glands", "swollen lymph nodes"]),
    (["arthralgia"], ["joint pain"]),
    (["myalgia"], ["muscle pain"]),
    (["paresthesia"], ["pins and needles"]),
    (["peptic ulcer", "gastric ulcer"], ["stomach ulcer"]),
    (["cardiomegaly"], ["enlarged heart"]),
    (["intracranial hemorrhage"], ["brain bleed"]),
    (["hypoxic-ischemic brain injury", "hypoxic brain injury", "anoxic brain injury"],
     ["brain damage from lack of oxygen", "brain injury from lack of oxygen", "lack of oxygen to the brain"]),
    (["heart failure"], ["weak heart", "weakened heart"]),
    # a joint replaced, as patients say it
    *(([f"{joint} arthroplasty", f"total {joint} arthroplasty", f"{joint} hemiarthroplasty"],
       [f"{joint} replacement", f"replaced {joint}"]) for joint in ("hip", "knee", "shoulder")),
    (["kidney injury", "renal injury"], ["kidney damage", "damaged kidneys"]),
    (["aortic stenosis"], ["narrowed aortic valve", "narrowing of the aortic valve", "narrow aortic valve"]),
    # an organ's inflammation as patients say it: "an inflamed pancreas", "inflammation of the pancreas"
    *(([itis], [f"inflamed {organ}", f"{organ} inflammation", f"inflammation of the {organ}"]) for organ, itis in [
        ("appendix", "appendicitis"), ("gallbladder", "cholecystitis"), ("pancreas", "pancreatitis"),
        ("liver", "hepatitis"), ("stomach", "gastritis"), ("colon", "colitis"), ("esophagus", "esophagitis"),
        ("bladder", "cystitis"), ("joints", "arthritis"), ("sinuses", "sinusitis"), ("tonsils", "tonsillitis"),
        ("tendon", "tendinitis"), ("brain", "encephalitis"), ("heart muscle", "myocarditis"),
        ("sac around the heart", "pericarditis"), ("lining around the heart", "pericarditis"), ("prostate", "prostatitis"),
        ("gums", "gingivitis"),
        ("throat", "pharyngitis"), ("voice box", "laryngitis"), ("airways", "bronchitis"), ("skin", "dermatitis")]),
]
SYNONYMS += [[*clinical, *lay] for clinical, lay in LAY_NAMES]
#: What clinicians abbreviate, spelled out as records write it: an abbreviation is a synonym of what it stands for
#: (and of that one's synonyms), and a question writing one in capitals ("Which patients had an MI?") is embedded
#: and counted with it spelled out (:func:`spelled_out`) — the embedding model reads "MI" as two letters.
ABBREVIATIONS = {
    "mi": "myocardial infarction", "stemi": "myocardial infarction", "nstemi": "myocardial infarction",
    "htn": "hypertension", "bp": "blood pressure", "hr": "heart rate", "cva": "stroke", "tia": "transient ischemic attack",
    "afib": "atrial fibrillation", "a-fib": "atrial fibrillation", "chf": "congestive heart failure", "hf": "heart failure",
    "cad": "coronary artery disease", "cabg": "coronary artery bypass graft", "pci": "percutaneous coronary intervention",
    "pad": "peripheral arterial disease", "pvd": "peripheral vascular disease", "dvt": "deep vein thrombosis",
    "pe": "pulmonary embolism", "copd": "chronic obstructive pulmonary disease", "osa": "obstructive sleep apnea",
    "sob": "shortness of breath", "ards": "acute respiratory distress syndrome", "pna": "pneumonia", "tb": "tuberculosis",
    "uti": "urinary tract infection", "ckd": "chronic kidney disease", "aki": "acute kidney injury",
    "esrd": "end-stage renal disease", "dm": "diabetes", "t2dm": "type 2 diabetes", "t1dm": "type 1 diabetes",
    "dm2": "type 2 diabetes", "dm1": "type 1 diabetes", "t2d": "type 2 diabetes", "t1d": "type 1 diabetes",
    "dka": "diabetic ketoacidosis", "hld": "hyperlipidemia", "gerd": "gastroesophageal reflux", "gi": "gastrointestinal",
    "ibd": "inflammatory bowel disease", "ibs": "irritable bowel syndrome", "uc": "ulcerative colitis",
    "bph": "benign prostatic hyperplasia", "ra": "rheumatoid arthritis", "oa": "osteoarthritis",
    "sle": "systemic lupus erythematosus", "hiv": "human immunodeficiency virus", "hcv": "hepatitis c",
    "hbv": "hepatitis b", "aids": "acquired immunodeficiency syndrome", "ms": "multiple sclerosis",
    "als": "amyotrophic lateral sclerosis", "sah": "subarachnoid hemorrhage", "ich": "intracerebral hemorrhage",
    "tbi": "traumatic brain injury", "ams": "altered mental status", "loc": "loss of consciousness",
    "ptsd": "post-traumatic stress disorder", "adhd": "attention deficit hyperactivity disorder",
    "mdd": "major depressive disorder", "etoh": "alcohol", "icu": "intensive care", "ed": "emergency department",
    "er": "emergency room", "ekg": "electrocardiogram", "ecg": "electrocardiogram", "cxr": "chest x-ray",
    "ct": "computed tomography", "mri": "magnetic resonance imaging", "snf": "skilled nursing facility",
    "ama": "against medical advice", "psg": "polysomnography", "uds": "urine drug screen",
    "pft": "pulmonary function test", "pfts": "pulmonary function tests", "lft": "liver function test",
    "lfts": "liver function tests",
}
#: Clinicians' shorthand for words a question asks with, written out before the question is read (:func:`written_out`):
#: "any pts w/ afib on Eliquis?" asks of patients with afib, not of "pts w" that no record mentions.
SHORTHAND = {"pt": "patient", "pts": "patients", "hx": "history", "h/o": "history of", "dx": "diagnosis",
             "ddx": "differential diagnosis", "tx": "treatment", "sx": "symptoms", "rx": "prescription",
             "meds": "medications", "w/": "with", "w/o": "without", "s/p": "after", "c/o": "complaining of",
             "y/o": "year-old", "f/u": "follow-up"}
_SHORTHAND = re.compile(r"(?<![\w/])(?:" + "|".join(re.escape(short) + ("" if short.endswith("/") else r"(?![\w/])")
                                                   for short in sorted(SHORTHAND, key=len, reverse=True)) + ")",
                        re.IGNORECASE)


#: Contractions, in words: "n't" is "not" ("Who isn't on aspirin?" asks who is not), "I've" and "what's" are the words
#: a concept ends at, never one ("don't smoke" is no thing a record mentions). Written without their apostrophe as
#: people type them ("dont", "whats", "im"), but those that are words too ("ill", "wed", "well", "its", "shell").
CONTRACTED = {"can't": "can not", "won't": "will not", "shan't": "shall not", "ain't": "is not"}
_NOT = re.compile(r"\b([^\W\d_]+)n['’]t\b", re.IGNORECASE)
_PRONOUN = re.compile(r"\b(i|you|we|they|he|she|it|who|what|where|when|why|how|that|there)['’](m|re|ve|ll|d|s)\b",
                      re.IGNORECASE)
_PRONOUN_ENDING = {"m": "am", "re": "are", "ve": "have", "ll": "will", "d": "would", "s": "is"}
UNAPOSTROPHED = {
    **{word: f"{word[:-2]} not" for word in "dont doesnt didnt isnt arent wasnt werent havent hasnt hadnt couldnt "
                                            "shouldnt wouldnt mustnt neednt".split()},
    "cant": "can not", "wont": "will not", "aint": "is not", "im": "I am", "ive": "I have", "youre": "you are",
    "youve": "you have", "theyre": "they are", "theyve": "they have", "weve": "we have", "whats": "what is",
    "hows": "how is", "whos": "who is", "wheres": "where is", "whens": "when is", "whys": "why is", "thats": "that is",
    "theres": "there is"}
_UNAPOSTROPHED = re.compile(r"\b(?:" + "|".join(sorted(UNAPOSTROPHED)) + r")\b", re.IGNORECASE)


def written_out(question: str) -> str:
    """``question`` with clinicians' shorthand (:data:`SHORTHAND`) and contractions (:data:`CONTRACTED`) in words, where
    written in lower case or with a capital first ("Pts w/ HTN" reads "Patients with HTN", "Whats" "What is"; "PT" in
    capitals is prothrombin time, and "IM" intramuscular: they stay). A question all in capitals is read in lower case
    before (:func:`unshouted`)."""
    def cased(short: str, long: str) -> str:
        return long[:1].upper() + long[1:] if short[:1].isupper() else long

    def word(match: re.Match) -> str:
        short = match.group(0)
        if short not in (short.lower(), short.capitalize()):
            return short
        long = SHORTHAND[short.lower()]
        joined = short.endswith("/") and match.string[match.end():match.end() + 1].isalnum()  # "w/afib"
        return cased(short, long) + (" " if joined else "")

    def negated(match: re.Match) -> str:
        said = match.group(0)
        whole = CONTRACTED.get(said.lower().replace("’", "'"))
        return cased(said, whole) if whole else f"{match.group(1)} not"

    def pronoun(match: re.Match) -> str:
        return f"{match.group(1)} {_PRONOUN_ENDING[match.group(2).lower()]}"

    def unapostrophed(match: re.Match) -> str:
        said = match.group(0)
        return cased(said, UNAPOSTROPHED[said.lower()]) if said in (said.lower(), said.capitalize()) else said

    spelled = _NOT.sub(negated, _PRONOUN.sub(pronoun, question))
    return _SHORTHAND.sub(word, _UNAPOSTROPHED.sub(unapostrophed, spelled))


def unshouted(question: str) -> str:
    """``question`` as written without its capitals if it is all in capitals (three words or more): capitals there tell
    no name and no abbreviation — "WHICH PATIENTS UNDERWENT A LAPAROSCOPIC CHOLECYSTECTOMY?" was read as names and
    abbreviations no record writes — but the abbreviations a question may ask with (:data:`ABBREVIATIONS`: "HTN") and
    "I"; its first letter stays a capital."""
    words = _WORD.findall(question)
    if any(c.islower() for c in question) or len(words) < 3:
        return question
    lowered = _WORD.sub(lambda word: word.group(0) if word.group(0).casefold() in ABBREVIATIONS or word.group(0) == "I"
                        else word.group(0).casefold(), question)
    first = next((i for i, c in enumerate(lowered) if c.isalpha()), None)
    return lowered if first is None else lowered[:first] + lowered[first].upper() + lowered[first + 1:]


#: Brand names of common drugs, by the generic name records write: a brand is a synonym of its drug (and of nothing
#: else: "Eliquis" is not every anticoagulant), and a question naming one, in any case, is embedded and counted with the
#: drug's name beside it (:func:`spelled_out`) — "Is Justin Ramirez on Eliquis?" is answered by his apixaban.
BRANDS = {
    "lipitor": "atorvastatin", "crestor": "rosuvastatin", "zocor": "simvastatin", "pravachol": "pravastatin",
    "coumadin": "warfarin", "jantoven": "warfarin", "eliquis": "apixaban", "xarelto": "rivaroxaban",
    "pradaxa": "dabigatran", "lovenox": "enoxaparin", "plavix": "clopidogrel", "brilinta": "ticagrelor",
    "norvasc": "amlodipine", "zestril": "lisinopril", "prinivil": "lisinopril", "vasotec": "enalapril",
    "cozaar": "losartan", "diovan": "valsartan", "entresto": "sacubitril-valsartan", "lasix": "furosemide",
    "aldactone": "spironolactone", "toprol": "metoprolol", "lopressor": "metoprolol", "coreg": "carvedilol",
    "tenormin": "atenolol", "lanoxin": "digoxin", "synthroid": "levothyroxine", "levoxyl": "levothyroxine",
    "glucophage": "metformin", "januvia": "sitagliptin", "jardiance": "empagliflozin", "farxiga": "dapagliflozin",
    "ozempic": "semaglutide", "wegovy": "semaglutide", "trulicity": "dulaglutide", "victoza": "liraglutide",
    "lantus": "insulin glargine", "basaglar": "insulin glargine", "humalog": "insulin lispro",
    "novolog": "insulin aspart", "prilosec": "omeprazole", "nexium": "esomeprazole", "protonix": "pantoprazole",
    "pepcid": "famotidine", "tylenol": "acetaminophen", "advil": "ibuprofen", "motrin": "ibuprofen",
    "aleve": "naproxen", "zoloft": "sertraline", "prozac": "fluoxetine", "lexapro": "escitalopram",
    "celexa": "citalopram", "paxil": "paroxetine", "wellbutrin": "bupropion", "effexor": "venlafaxine",
    "cymbalta": "duloxetine", "remeron": "mirtazapine", "seroquel": "quetiapine", "zyprexa": "olanzapine",
    "risperdal": "risperidone", "abilify": "aripiprazole", "haldol": "haloperidol", "xanax": "alprazolam",
    "ativan": "lorazepam", "klonopin": "clonazepam", "valium": "diazepam", "ambien": "zolpidem",
    "neurontin": "gabapentin", "lyrica": "pregabalin", "keppra": "levetiracetam", "lamictal": "lamotrigine",
    "depakote": "valproate", "dilantin": "phenytoin", "tegretol": "carbamazepine", "topamax": "topiramate",
    "aricept": "donepezil", "namenda": "memantine", "sinemet": "carbidopa-levodopa", "lithobid": "lithium",
    "oxycontin": "oxycodone", "dilaudid": "hydromorphone", "ultram": "tramadol", "narcan": "naloxone",
    "suboxone": "buprenorphine-naloxone", "ventolin": "albuterol", "proair": "albuterol", "singulair": "montelukast",
    "spiriva": "tiotropium", "advair": "fluticasone-salmeterol", "symbicort": "budesonide-formoterol",
    "xolair": "omalizumab", "flomax": "tamsulosin", "proscar": "finasteride", "zyloprim": "allopurinol",
    "uloric": "febuxostat", "colcrys": "colchicine", "keflex": "cephalexin", "augmentin": "amoxicillin-clavulanate",
    "zithromax": "azithromycin", "cipro": "ciprofloxacin", "levaquin": "levofloxacin",
    "bactrim": "sulfamethoxazole-trimethoprim", "macrobid": "nitrofurantoin", "flagyl": "metronidazole",
    "rocephin": "ceftriaxone", "humira": "adalimumab", "enbrel": "etanercept", "remicade": "infliximab",
    "plaquenil": "hydroxychloroquine", "medrol": "methylprednisolone", "fosamax": "alendronate",
}


_ANY_WHOSE = r"(?:\s+(?:" + "|".join(WHOSE) + "))?"


def _written(names) -> re.Pattern:
    """Any of ``names`` (in this order) as a question writes it: whole words, in any case, any spaces between its
    words, either apostrophe, a word of :data:`WHOSE` or none where it writes ``~``."""
    def one(name: str) -> str:
        return "".join(_ANY_WHOSE if word == "~" else ("" if n == 0 else r"\s+") + re.escape(word).replace("'", "['’]")
                       for n, word in enumerate(name.split()))

    return re.compile(r"\b(?:" + "|".join(map(one, names)) + r")\b", re.IGNORECASE)


def _bare(name: str) -> str:
    """A name as the tables below know it, however a question writes it: folded, one space between words, without a word
    of :data:`WHOSE` ("Broke  her hip" and "broke ~ hip" are "broke hip")."""
    return " ".join(word for word in name.casefold().replace("’", "'").split() if word != "~" and word not in WHOSE)


#: Each lay name (:data:`LAY_NAMES`, :func:`_bare`) by the name records write, and a lay name as a question writes one.
_CLINICAL = {_bare(lay): clinical[0] for clinical, names in LAY_NAMES for lay in names}
_LAY_NAME = _written(sorted((lay for _, names in LAY_NAMES for lay in names), key=len, reverse=True))
#: A brand as a question writes one, in any case.
_BRAND = re.compile(r"\b(?:" + "|".join(sorted(BRANDS, key=len, reverse=True)) + r")\b", re.IGNORECASE)
#: An abbreviation as a question writes one: two to six capitals, digits among them ("MI", "T2DM", "NSTEMI").
_ABBREVIATION = re.compile(r"\b[A-Z][A-Z0-9]{1,5}\b")


def spelled_out(question: str) -> str:
    """``question`` with what each abbreviation it writes in capitals stands for (:data:`ABBREVIATIONS`) in brackets
    after it: "Which patients had an MI?" reads "Which patients had an MI (myocardial infarction)?" — but for one the
    question defines itself, in brackets after what it stands for ("computer-aided diagnosis (CAD)", "Marburg hemorrhagic
    fever (Marburg HF)") — and likewise each drug's brand name with the drug's (:data:`BRANDS`) and each lay name with
    the name records write (:data:`LAY_NAMES`), unless the question names that too: "Is he on Eliquis?" reads "Is he on
    Eliquis (apixaban)?", "Who had a heart attack?" "Who had a heart attack (myocardial infarction)?"."""
    def spell(match: re.Match) -> str:
        long = ABBREVIATIONS.get(match.group(0).casefold())
        before = question[:match.start()]
        defined = before.rfind("(") > before.rfind(")")  # in brackets: "Marburg hemorrhagic fever (Marburg HF)"
        return f"{match.group(0)} ({long})" if long and not defined else match.group(0)

    def generic(match: re.Match) -> str:
        drug = BRANDS[match.group(0).casefold()]
        return match.group(0) if drug in question.casefold() else f"{match.group(0)} ({drug})"

    def clinical(match: re.Match) -> str:
        name = _CLINICAL[_bare(match.group(0))]
        return match.group(0) if name in question.casefold() else f"{match.group(0)} ({name})"

    return _LAY_NAME.sub(clinical, _BRAND.sub(generic, _ABBREVIATION.sub(spell, question)))


#: Kinds of drug, imaging, laboratory test and surgery a question may ask about by kind, and common members of each (words): a
#: passage naming a member mentions the kind ("Which patients missed antiepileptic doses?" is answered by a note of
#: missed levetiracetam, "What imaging was done for headache?" by one of a head CT), but not the other way round (a
#: question about warfarin is not answered by apixaban).
KINDS = [
    (["antiepileptic", "anticonvulsant", "antiseizure", "seizure medication"],
     "levetiracetam lamotrigine valproate phenytoin carbamazepine oxcarbazepine lacosamide topiramate"),
    (["anticoagulant", "blood thinner"], "warfarin apixaban rivaroxaban dabigatran edoxaban heparin enoxaparin"),
    (["antiplatelet"], "aspirin clopidogrel ticagrelor prasugrel"),
    (["antibiotic", "abx"], "amoxicillin ceftriaxone azithromycin doxycycline vancomycin cephalexin ciprofloxacin "
                     "levofloxacin piperacillin metronidazole nitrofurantoin ertapenem meropenem cefazolin cefepime "
                     "clindamycin linezolid ampicillin gentamicin"),  # not penicillin: named most as an allergy
    (["statin"], "atorvastatin rosuvastatin simvastatin pravastatin lovastatin"),
    (["beta blocker"], "metoprolol carvedilol atenolol propranolol bisoprolol labetalol"),
    (["proton pump inhibitor", "ppi", "ppis"], "omeprazole pantoprazole esomeprazole lansoprazole rabeprazole"),
    (["ace inhibitor"], "lisinopril enalapril ramipril benazepril captopril quinapril"),
    (["angiotensin receptor blocker", "arb", "arbs"], "losartan valsartan irbesartan olmesartan telmisartan candesartan"),
    (["calcium channel blocker"], "amlodipine diltiazem verapamil nifedipine felodipine"),
    (["direct oral anticoagulant", "doac", "doacs", "noac"], "apixaban rivaroxaban dabigatran edoxaban"),
    (["antidepressant", "ssri", "ssris"], "sertraline escitalopram citalopram fluoxetine paroxetine bupropion "
                                          "venlafaxine duloxetine mirtazapine"),
    (["antipsychotic"], "quetiapine olanzapine risperidone aripiprazole haloperidol clozapine"),
    (["opioid", "narcotic"], "oxycodone hydrocodone morphine fentanyl hydromorphone tramadol methadone buprenorphine"),
    (["nsaid", "anti-inflammatory"], "ibuprofen naproxen celecoxib meloxicam diclofenac ketorolac indomethacin"),
    (["diuretic", "water pill"], "furosemide hydrochlorothiazide spironolactone bumetanide torsemide chlorthalidone"),
    (["inhaler", "bronchodilator"], "albuterol tiotropium salmeterol formoterol ipratropium budesonide fluticasone"),
    (["steroid", "corticosteroid"], "prednisone methylprednisolone dexamethasone hydrocortisone prednisolone"),
    (["antihypertensive", "blood pressure medication"], "lisinopril amlodipine losartan hydrochlorothiazide "
                                                        "metoprolol valsartan"),
    (["insulin"], "glargine lispro aspart detemir degludec"),
    (["nicotine replacement"], ["nicotine patch", "nicotine gum", "nicotine lozenge", "nicotine inhaler",
                                "nicotine nasal spray"]),
    (["hormone replacement"], ["conjugated estrogens", "premarin", "estrogen replacement"]),  # not estradiol: also of
    # a contraceptive patch ("Ethinyl Estradiol … norelgestromin")
    (["analgesic", "painkiller", "pain reliever", "pain medication"], "acetaminophen paracetamol ibuprofen naproxen "
                                                                      "oxycodone hydrocodone morphine tramadol"),
    (["hypnotic", "sleeping pill", "sleep aid", "sedative"], "zolpidem eszopiclone temazepam trazodone lorazepam "
                                                             "melatonin diphenhydramine"),
    (["imaging", "scan", "radiology"], "ct mri mra cta ultrasound sonogram echocardiogram radiograph angiogram "
                                       "angiography tomography fluoroscopy mammogram"),
    (["lab", "labs", "laboratory"], "creatinine potassium sodium hemoglobin troponin glucose lactate a1c inr "
                                    "platelets bilirubin albumin"),
    (["surgery", "operation", "surgical procedure"],  # "surgery on her knee" of a total knee arthroplasty
     "arthroplasty hemiarthroplasty amputation appendectomy cholecystectomy colectomy laparotomy mastectomy lumpectomy "
     "lobectomy craniotomy thyroidectomy hysterectomy nephrectomy prostatectomy herniorrhaphy fasciotomy"),
    # what a social history says of work: "What is Nicole Wright's occupation?" of "Nicole is a self-employed carpenter"
    # (not "employment", which would make "Which patients are employed?" ask the kind; nor "works as": "work" only says
    # where, :data:`CONTEXT`)
    (["occupation", "job", "profession", "line of work"],
     ["employed", "self-employed", "unemployed", "retired", "disability benefits"]),
]
#: Heart disease as a kind, its names and its members: what "heart problems" are too (:data:`TROUBLES`).
_HEART_DISEASE = (["heart disease", "cardiac disease"],
                  ["coronary artery disease", "heart failure", "myocardial infarction", "atrial fibrillation",
                   "cardiomyopathy", "aortic stenosis", "pericarditis", "angina", "arrhythmia"])
#: Kinds of condition a question may ask about by kind, and common members of each as records name them (a member may
#: be several words): a passage naming a member mentions the kind ("Which patients have heart disease?" is answered by
#: a note of coronary artery disease), not the other way round (a question about heart failure is not answered by
#: atrial fibrillation).
KINDS += [
    _HEART_DISEASE,
    (["lung disease", "respiratory disease"],
     ["chronic obstructive pulmonary disease", "asthma", "emphysema", "pulmonary fibrosis", "interstitial lung disease",
      "bronchiectasis"]),
    (["kidney failure", "renal failure"],
     ["acute kidney injury", "acute renal failure", "end-stage renal disease", "end-stage kidney disease"]),
    (["mental illness", "mental disorder", "psychiatric disorder", "psychiatric illness"],
     ["depression", "major depressive disorder", "schizophrenia", "schizoaffective disorder", "bipolar disorder",
      "anxiety disorder", "post-traumatic stress disorder"]),
    (["cancer"],
     ["carcinoma", "adenocarcinoma", "lymphoma", "leukemia", "melanoma", "sarcoma", "myeloma", "glioblastoma"]),
    (["arthritis"], ["osteoarthritis", "rheumatoid arthritis", "psoriatic arthritis", "gout"]),
    # what patients call a family of findings, by its members as records name them
    (["hallucinations", "hallucination"], ["auditory hallucinations", "visual hallucinations", "hearing voices",
                                           "hears voices", "heard voices"]),
    (["dizziness", "dizzy"], ["vertigo", "lightheadedness", "lightheaded", "presyncope",
                              "disequilibrium"]),
    (["substance use disorder", "drug dependence", "drug addiction"],
     ["opioid use disorder", "alcohol use disorder", "stimulant use disorder", "cocaine use disorder",
      "methamphetamine use disorder", "cannabis use disorder", "opioid dependence", "alcohol dependence"]),
]

#: Words that, after an organ, ask about whatever is wrong with it: "kidney problems", "heart trouble", "a thyroid
#: condition" — answered by the disorders records name (:data:`KINDS`), not by any mention of the organ ("Thyroid
#: function was normal").
TROUBLES = ("problem", "problems", "issue", "issues", "trouble", "condition")
KINDS += [  # an organ's "problems", as patients say it, by what records name them
    *(([f"{organ} {trouble}" for organ in organs for trouble in TROUBLES], disorders) for organs, disorders in [
        (["kidney", "renal"], ["kidney disease", "renal disease", "kidney failure", "renal failure", "kidney injury",
                               "renal injury", "renal insufficiency", "nephropathy", "nephrotic syndrome",
                               "glomerulonephritis", "nephrolithiasis", "kidney stones", "pyelonephritis"]),
        (["liver", "hepatic"], ["liver disease", "hepatic disease", "cirrhosis", "hepatitis", "hepatic steatosis",
                                "fatty liver", "liver failure", "hepatic failure", "hepatic encephalopathy",
                                "hepatocellular carcinoma"]),
        (["thyroid"], ["thyroid disease", "thyroid disorder", "hypothyroidism", "hyperthyroidism", "thyroiditis",
                       "goiter", "thyroid nodule", "thyroid cancer"]),
        (["heart", "cardiac"], [*_HEART_DISEASE[0], *_HEART_DISEASE[1]]),
        (["lung", "pulmonary"], ["lung disease", "pulmonary disease", "chronic obstructive pulmonary disease", "asthma",
                                 "emphysema", "pulmonary fibrosis", "interstitial lung disease", "bronchiectasis",
                                 "pneumonia", "pulmonary embolism"]),
    ]),
]


def members(kind: str | list[str]) -> list[str]:
    """The members of a kind (:data:`KINDS`) as they are written: words, or names."""
    return kind.split() if isinstance(kind, str) else list(kind)


#: Endings that make one clinical word of another (the condition and what has it, the act and the event), which
#: the index's stemmer keeps apart: "stenosis" and "stenotic", "anemia" and "anemic", "neuropathy" and
#: "neuropathic", "readmission" and "readmitted", "calcification" and "calcified", "surgery" and "surgical", "asthma"
#: and "asthmatic". A word with one ending is mentioned by the word with the other (both ways).
DERIVED = [("sis", "tic"), ("ia", "ic"), ("pathy", "pathic"), ("trophy", "trophic"), ("ergy", "ergic"),
           ("mission", "mitted"), ("ification", "ified"), ("ant", "ancy"), ("gery", "gical"), ("ma", "matic")]
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")


def _derived(word: str) -> list[str]:
    """The words :data:`DERIVED` makes of ``word`` (at least three letters kept before the ending)."""
    folded = word.casefold()
    return [folded[:-len(one)] + other for a, b in DERIVED for one, other in ((a, b), (b, a))
            if folded.endswith(one) and len(folded) - len(one) >= 3]


@dataclass(frozen=True)
class Concept:
    """One thing a question names: how it was written, the term lists any of which mention it, and whether
    the question offers it as an alternative to the concept before it ("lupus *or* psoriasis")."""

    text: str
    alternatives: tuple[tuple[str, ...], ...]
    either: bool = False


@dataclass(frozen=True)
class Comparison:
    """A value the question holds a concept to: "an oxygen saturation *below 88%*" (``<``, 88.0)."""

    concept: int  # its place in the question's concepts
    op: str  # one of :data:`_OPS`
    value: float
    text: str  # as the question words it

    def holds(self, value: float) -> bool:
        return _OPS[self.op](value, self.value)


@dataclass(frozen=True)
class Analysis:
    """A question's terms and concepts, which concept (its place) the question asks for by name, if one — "What
    *imaging* was done for headache?" is answered by imaging; headache says whose; "What was Carol Dubois's *glucose*
    on admission for the foot wound?" by her glucose — which it asks about as
    absent, denied or stopped ("Which patients do *not* have diabetes?", "Who *stopped* warfarin?"), and the values
    it holds concepts to ("…potassium *above 5.5*?")."""

    terms: list[str] = field(default_factory=list)
    concepts: list[Concept] = field(default_factory=list)
    wanted: int | None = None
    negated: frozenset[int] = frozenset()
    compared: tuple[Comparison, ...] = ()
    kin: frozenset[int] = frozenset()  # the concepts it asks of relatives ("…a family history of diabetes?"): only a
    # relative's mention tells one of them, and only the patient's own tells the others
    kindred: frozenset[str] = frozenset()  # the words for the relatives it names ("Whose *mother* had breast cancer?":
    # mother, mom …, :data:`KINDRED`): of the kin asked, only a mention whose nearest relative is one of them tells
    whether: bool = False  # it asks whether a named patient has it ("Is Justin Ramirez on warfarin?"): either way tells it
    never: frozenset[int] = frozenset()  # of the negated, those asked as never so ("Who has never smoked?") …
    ended: frozenset[int] = frozenset()  # … and as so no longer ("Which patients are former smokers?", "Who stopped …")
    declared: frozenset[int] = frozenset()  # the concepts the writer says they have, take or ask about ("I was told I
    # have a hiatal hernia", "Question about Cephalexin"): what the question is about, whatever else it asks of it
    aside: frozenset[int] = frozenset()  # the concepts of sentences around the one that asks, which names things of its
    # own, but those declared: "I'm covering for a colleague today. Which patients have gout?" asks nothing of colleagues
    together: bool = False  # it asks for its things of one patient together ("Any patients on *both* warfarin and
    # aspirin?"): a patient whose records say one of them is no answer
    had: frozenset[int] = frozenset()  # of the declared, those the writer says they or theirs have or take ("I have
    # gout", "My mother was diagnosed with …"): a reference text answers about them, or not at all
    averted: frozenset[int] = frozenset()  # the concepts it asks about as what a vaccine or a screening is for ("Who
    # was vaccinated against influenza?"): only a mention of them so tells one
    done: frozenset[int] = frozenset()  # the concepts that say what was done or how, in everyday words the parser took
    # for verbs or adverbs ("were *taught* to use an inhaler", "was *sent home*", "Who has never *smoked*?"): where no
    # record writes one so, what is asked is not unknown to them (:func:`grounding`)
    where: frozenset[int] = frozenset()  # the concepts it asks about as where the patient was cared for, after "in",
    # "to", "by", "on" or "under" ("…admitted *to* surgery?", "…seen *by* cardiology?"): a department's heading tells them
    often: frozenset[int] = frozenset()  # the concepts it asks about as often or much (:data:`OFTEN`: "Which patients
    # drink alcohol *daily*?", "…are *heavy* drinkers?"): a record saying it seldom or little (:data:`SELDOM`) tells none
    past: frozenset[int] = frozenset()  # the concepts it asks about as so at some time, not as so now ("Which patients
    # *were treated with* warfarin?", "Who *has ever taken* it?", "Which patients *were* smokers?"): a record saying it
    # was and ended ("Stopped warfarin after a nosebleed", "Former smoker") tells it too
    of_one: tuple[tuple[int, int], ...] = ()  # the concepts it asks of one another, as one event of one visit, each the
    # thing asked and what it is asked of ("Who had an X-ray *of the* knee?", "…surgery *on her* hip?", "…a fracture
    # *after a* fall?": :data:`_OF_ONE`): a patient whose records say each at another visit (an X-ray of the wrist, knee
    # pain a year later) is no answer, nor one whose records say only what it is asked of (knee pain)
    allergic: frozenset[int] = frozenset()  # the concepts it asks an allergy to, as a record would say one (:data:`ALLERGIC`:
    # "Which patients are *allergic to* amoxicillin?", "…have a codeine *intolerance*?"): only a mention of an allergy to
    # one tells it, as such a mention tells no question asking who takes it; the allergy's own word is no thing of its
    # own (:func:`asked`), or "allergic rhinitis" elsewhere in a note would stand for it
    begun: frozenset[int] = frozenset()  # the concepts it asks about as started ("Who was *started on* apixaban?",
    # "…*initiated on* insulin?"): only a record writing a start beside it tells one ("Start basal insulin glargine",
    # "restart apixaban on day 6"), not "Continue apixaban" nor a list of current medications


#: A value a question holds what it names to, right after it: "potassium above 5.5", "an ejection fraction of less
#: than 40%", "hemoglobin < 7".
_COMPARISON = re.compile(r"(?:\b(?:of\s+)?(above|over|greater\s+than|more\s+than|higher\s+than|at\s+least|below|under|"
                         r"less\s+than|lower\s+than|at\s+most)|(>=|<=|>|<))\s*(\d+(?:\.\d+)?)"
                         r"(?:\s*(?:%|percent\b|[a-z]+/[a-z]+\b|(?:mmhg|bpm|mg|mcg|g|kg|mmol|meq|iu|u|ng|pg)\b))?",
                         re.IGNORECASE)
_OPS = {">": lambda a, b: a > b, ">=": lambda a, b: a >= b, "<": lambda a, b: a < b, "<=": lambda a, b: a <= b}
_OP_WORDS = {"above": ">", "over": ">", "greater than": ">", "more than": ">", "higher than": ">", "at least": ">=",
             "below": "<", "under": "<", "less than": "<", "lower than": "<", "at most": "<="}
#: A value a record gives what it names: right after it, or after a few words ("Hemoglobin was 6.8", "a heart rate
#: of 161", "oxygen saturation 84% on room air") — up to six between spaces alone, none joining another thing ("Ejection
#: fraction on the last echocardiogram was 35%", not "Potassium was normal and sodium 130").
_VALUE = re.compile(r"^(?:(?:\W+[^\W\d]+){0,3}?|(?: +(?!(?:and|with|but|or|while|whereas|then)\b)[^\W\d]+){4,6}?)"
                    r"\W+(\d+(?:\.\d+)?)")


def _comparisons(question: str, concepts: list[Concept]) -> tuple[Comparison, ...]:
    """The values ``question`` holds its concepts to, each right after the concept it is about."""
    found = []
    placed = [_place(question, concept) for concept in concepts]
    for match in _COMPARISON.finditer(question):
        before = _beside(question, placed, match.start(), match.end())[0]
        if before:
            op = _OP_WORDS[" ".join(match.group(1).casefold().split())] if match.group(1) else match.group(2)
            found.append(Comparison(before[-1], op, float(match.group(3)), match.group(0).strip()))
    return tuple(found)


def _values(text: str, concept: Concept) -> list[float]:
    """The values ``text`` gives ``concept``, written as the question writes it (each word or its stem's beginning)."""
    words = [re.escape(word[:max(4, len(word) - 2)]) + r"\w*" for word in concept.text.split()]
    if not words:
        return []
    found = []
    for mention in re.finditer(r"\b" + r"\W+".join(words), text, re.IGNORECASE):
        after = text[mention.end():mention.end() + 60]
        value = _VALUE.match(after)
        if (value and not _DOSE.match(after, value.end()) and not _GOAL.search(value.group(0))
                and not _BOUND.search(value.group(0))
                and not _GOAL_BEFORE.search(text[max(0, mention.start() - 40):mention.start()])):
            found.append(float(value.group(1)))
    return found


#: Words that make a value one aimed at, not one measured: "*Target* oxygen saturation of 88 to 92 percent", "blood
#: pressure *goal* below 130/80", "*titrate to* a heart rate under 110", "transfusion strategy *targeting* hemoglobin of 7
#: to 8" — before the mention in its clause, or between it and the value; and, between them, a bound: a threshold, not
#: a reading ("Transfuse one unit of packed red cells for hemoglobin *below* 7 g/dL" gives no hemoglobin of 7).
_GOAL = re.compile(r"\b(?:target(?:ed|s|ing)?|goals?|aim(?:ing)?|keep|maintain|titrated?\s+to)\b", re.IGNORECASE)
_GOAL_BEFORE = re.compile(_GOAL.pattern + r"[^.;:]*$", re.IGNORECASE)
_BOUND = re.compile(r"\b(?:below|under|above|over|exceed(?:s|ing)?|(?:less|greater|more|lower|higher)\s+than)\b|[<>≤≥]",
                    re.IGNORECASE)


#: A value that is a dose, not a reading: a unit of an amount given, not of a concentration in a body's fluid ("Potassium
#: chloride *20 mEq* IV" gives no potassium of 20, nor a bag of "Potassium Chl *20 mEq / 1000 mL*"; "potassium 5.8 mEq/L"
#: is one, and "glucose 250 mg/dL").
_DOSE = re.compile(r"\s*(?:mg|mcg|µg|g|meq|mmol|units?|iu|ml|tablets?|capsules?|puffs?)\b(?!\s*/\s*[dm]?l\b)",
                   re.IGNORECASE)


#: How a question that asks for a thing by name begins: "what", "which", "what kind of" ...
_WANTED = re.compile(r"\W*(?:what|which)\s+(?:(?:kinds?|types?|sorts?)\s+of\s+)?", re.IGNORECASE)
#: … or asks what a patient's thing was: "What was Carol Dubois's *glucose* on admission for the foot wound?", "What is
#: his *creatinine*?" (the patient's name, when the question names one, is read by :func:`_wanted_after`).
_WANTED_OF = re.compile(r"\W*(?:what|which)(?:\s+(?:is|was|are|were)|['\u2019]s)\s+(?:the\s+)?", re.IGNORECASE)
_WHOSE = re.compile(r"(?:his|her|their)\s+", re.IGNORECASE)


def _wanted_after(text: str, names: list[str]) -> str:
    """What follows a patient's possessive ("Carol Dubois's", "his") opening ``text`` (folded), or ``""`` when it opens
    with none: only a thing of the patient asked is what the question asks for by name."""
    folded = text.casefold()
    whose = _WHOSE.match(folded)
    if whose:
        return folded[whose.end():]
    for name in names:
        for ending in ("'s ", "\u2019s ", "' "):
            if folded.startswith(name.casefold() + ending):
                return folded[len(name) + len(ending):]
    return ""


#: Somebody who has the thing named right after (:data:`_DECLARING`, :data:`_HAD`): "What foods should a person with gout
#: avoid?" asks about gout as "I have gout. What foods should I avoid?" does. Not "patients with", "people with" or
#: "children with": a study's question names its population so ("… quality of life outcomes for patients with chronic
#: disease?"); with them, six PubMedQA answers changed, all for the worse, three withdrawn over their own abstracts.
_WITH = r"(?:person|someone|somebody|anyone|anybody|individual)\s+with"
#: What a writer says just before the thing they have, take or ask about (:attr:`Analysis.declared`): "I have a …",
#: "diagnosed with …", "suffering from …", "taking …", "information on …", "Question about …", "What is …",
#: "treatment for …", "symptoms of …", "a person with …".
_DECLARING = re.compile(r"\b(?:ha(?:ve|s|d|ving)|diagnosed\s+with|suffer(?:s|ed|ing)?\s+(?:from|with)|" + _WITH + "|"
                        r"(?:tak(?:e|es|ing)|took|prescribed|started\s+on)|"
                        r"(?:information|info|questions?|know|learn)\s+(?:on|about|regarding)|about|regarding|"
                        r"(?:what|how)\s+(?:is|are)|(?:treat(?:s|ed|ing|ments?)?|cures?|remed(?:y|ies))\s+(?:of|for)|"
                        r"(?:symptoms|signs|causes?)\s+of)\s+(?:(?:a|an|the|my|his|her|their|your|our|this|some)\s+)?$",
                        re.IGNORECASE)


def _analysis(question: str, terms: list[str], concepts: list[Concept], names: list[str] = (),
              verbs: list[str] = ()) -> Analysis:
    """The analysis of ``question`` from its terms and concepts: which concept it asks for by name, if one; with
    ``names`` (the patients it names), whether it asks yes or no of them; with ``verbs`` (the words the parser took for
    verbs or adverbs), what it says was done."""
    named = bool(names)
    said = frozenset(verbs)
    text = unicodedata.normalize("NFKC", question)
    opening = _WANTED.match(text)
    rest = text[opening.end():].casefold() if opening else ""
    if not any(rest.startswith(concept.text.casefold()) for concept in concepts):
        opening = _WANTED_OF.match(text)
        rest = _wanted_after(text[opening.end():], names) if opening else ""
    wanted = next((i for i, concept in enumerate(concepts) if rest.startswith(concept.text.casefold())), None)
    places = [_place(text, concept) for concept in concepts]
    reaches = [_reach(text, places, i) for i in range(len(concepts))]
    how = [_polarities(text[start:], [concept], kin=True)[1] for concept, (start, _) in zip(concepts, reaches)]
    negated = frozenset(i for i, said in enumerate(how) if said and said <= {False, ENDED, NEVER})
    kin = frozenset(i for i, (concept, (_, relative)) in enumerate(zip(concepts, reaches))
                    if {None, KIN_DENIED} & _polarities(text[relative:], [concept])[1])
    done = frozenset(i for i, concept in enumerate(concepts)
                     if {word.casefold() for word in concept.text.split()} <= said and everyday(concept))
    where = frozenset(i for i, place in enumerate(places) if place is not None and _CARED_IN.search(text[:place[0]]))
    words = re.findall(r"[a-z]+", text.casefold())
    return Analysis(terms, concepts, wanted if opening else None, negated, _comparisons(text, concepts), kin,
                    kindred=frozenset().union(*(KINDRED.get(word, ()) for word in words)),
                    whether=named and asks_whether(text), never=frozenset(i for i in negated if how[i] == {NEVER}),
                    ended=frozenset(i for i in negated if how[i] == {ENDED}),
                    declared=(declared := frozenset(i for i, place in enumerate(places)
                                                    if place is not None and _DECLARING.search(text[:place[0]]))),
                    aside=_aside(text, concepts, places, declared, names),
                    together=bool(_BOTH.search(text) or _EFFECTS_OF.search(text)),
                    had=frozenset(i for i in declared if _HAD.search(text[:places[i][0]])),
                    averted=frozenset(i for i, (concept, (_, relative)) in enumerate(zip(concepts, reaches))
                                      if AVERTED in _polarities(text[relative:], [concept], kin=True)[1]),
                    done=done, where=where,
                    often=frozenset(i for i, place in enumerate(places) if place is not None and _asked_often(text, places, i)),
                    past=frozenset(i for i, (concept, place) in enumerate(zip(concepts, places))
                                   if i not in negated and place is not None
                                   and _asked_past(text[:place[0]] + _verb_itself(concept, said), said)),
                    begun=frozenset(i for i, place in enumerate(places)
                                    if place is not None and _BEGUN_ASKED.search(text, 0, place[0])),
                    of_one=_of_one(text, concepts, places, done | where),
                    allergic=frozenset(i for i, concept in enumerate(concepts) if not _ALLERGY.isdisjoint(words)
                                       and ALLERGIC in _polarities(text, [concept], kin=True)[1]))  # an allergy's word


#: What joins a thing a question asks about to the next as one event, between them: a test or a procedure of a part of
#: the body, a thing on or in one, a thing after or from another ("an X-ray *of the* knee", "surgery *on her* hip", "a
#: fracture *after a* fall").
_OF_ONE = re.compile(rf"\s+(?:of|on|in|after|from)\s+(?:(?:{'|'.join((*WHOSE, 'both'))})\s+)?", re.IGNORECASE)


def _of_one(text: str, concepts: list[Concept], places: list[tuple[int, int] | None],
            apart: frozenset[int]) -> tuple[tuple[int, int], ...]:
    """The concepts ``text`` joins to the next by :data:`_OF_ONE`, each with it — neither of them context ("a history *of*
    hypertension" asks for hypertension) nor ``apart``: what is done, in words the parser took for verbs, and where
    patients are cared for or live (:attr:`Analysis.done`, :attr:`Analysis.where`: "Which patients *live in* a nursing
    home?" asks for a nursing home)."""
    return tuple((i, i + 1) for i, (before, after) in enumerate(zip(places, places[1:]))
                 if before is not None and after is not None and before[1] <= after[0] and not {i, i + 1} & apart
                 and not is_context(concepts[i]) and not is_context(concepts[i + 1])
                 and _OF_ONE.fullmatch(text, before[1], after[0]))


def of_one_said(question: str, analysis: Analysis) -> str:
    """The words of ``question`` that ask its things of one another (:attr:`Analysis.of_one`): "X-ray of the knee"."""
    places = [place for pair in analysis.of_one for i in pair
              if (place := _place(question, analysis.concepts[i])) is not None]
    return question[min(start for start, _ in places):max(end for _, end in places)] if places else ""


#: How a question asks a thing as started, right before it: "started on", "initiated on", "begun on", "put on",
#: "started taking".
_BEGUN_ASKED = re.compile(r"\b(?:start(?:ed|ing)?|initiated|begun|began|restarted|put)\s+(?:(?:on|taking|with)\s+)?"
                          r"(?:(?:a|an|the|some|any)\s+)?$", re.IGNORECASE)
#: How far from a thing, in words of one clause, a start said of it may stand: before it ("Start basal insulin
#: glargine") or after it ("apixaban 5 mg twice daily started on admission").
BEGUN_REACH = 6


def _begun_beside(text: str, concept: Concept) -> bool:
    """Whether ``text`` writes a start (:data:`_BEGINNING`) within :data:`BEGUN_REACH` words of where it names
    ``concept``, in one clause."""
    named = frozenset().union(*(need for need, _ in _needs(concept)))
    return any(near & _BEGINNING for near in _around(text, named, BEGUN_REACH))


def _asked_often(question: str, places: list[tuple[int, int] | None], i: int) -> bool:
    """Whether ``question`` asks its thing written at ``places[i]`` as often or much: a word of :data:`OFTEN` (or
    "every day") in it or within :data:`AMOUNT_REACH` words of it, in its sentence and not past another thing ("Which
    patients with *daily* headaches drink alcohol?" asks alcohol as neither)."""
    start, end = places[i]
    others = [place for j, place in enumerate(places) if place is not None and j != i]
    previous = max([e for _, e in others if e <= start], default=0)
    following = min([s for s, _ in others if s >= end], default=len(question))
    before = re.split(r"[.?!;]", question[previous:start])[-1].split()[-AMOUNT_REACH:]
    after = re.split(r"[.?!;]", question[end:following])[0].split()[:AMOUNT_REACH]
    near = " ".join([*before, question[start:end], *after]).casefold()
    return not OFTEN.isdisjoint(re.findall(r"[a-z]+", near)) or bool(_EVERY_DAY.search(near))


def _verb_itself(concept: Concept, verbs: frozenset[str]) -> str:
    """A concept's own word where the parse took it for a verb ("Who *smoked*?"): it says when too."""
    return concept.text if " " not in concept.text and concept.text.casefold() in verbs else ""


#: The words that say when a question asks its thing to be so, the last before it in its sentence deciding: at some
#: time (group 1: "were treated with", "had", "took", "has ever taken", "was on") or now ("are on", "is taking", "has",
#: "does … take", "currently").
_TENSE = re.compile(r"\b(?:(was|were|had|did|took|taken|received|got|used|ever|been|once|previously|underwent|drank|"
                    r"fell|broke)|"
                    r"(is|are|am|has|have|do|does|take|takes|taking|currently|now|still)|(\w+[a-df-z]ed))\b",
                    re.IGNORECASE)
#: The words before a word ending in "-ed" that leave it saying nothing of when: a passive now ("Which patients *are
#: prescribed* warfarin?") or a participle the parse may take for one ("Which patients *have elevated* blood pressure?").
_BEFORE_PARTICIPLE = frozenset("is are am be being has have".split())


def _asked_past(before: str, verbs: frozenset[str] = frozenset()) -> bool:
    """Whether a question asks what follows ``before`` (its text up to a concept) as so at some time: the last word of
    its sentence saying when (:data:`_TENSE`) says it was — of the words ending in "-ed", a verb of the parse's
    (``verbs``: "Who *smoked*?", "Which patients *smoked* cigarettes?", not "uncontrolled") not after a word that
    leaves it saying nothing of when (:data:`_BEFORE_PARTICIPLE`)."""
    sentence = re.split(r"[.?!;]", before)[-1]
    past = False
    for match in _TENSE.finditer(sentence):
        if match.group(3):
            previous = sentence[:match.start()].split()[-1:]
            if match.group(3).casefold() not in verbs or (previous and previous[0].casefold() in _BEFORE_PARTICIPLE):
                continue
        past = not match.group(2)
    return past


#: What a writer says just before a thing they or theirs have or take (:attr:`Analysis.had`): "I have …", "my son
#: has …", "My mother was just diagnosed with …", "I've been taking …", and of anyone: "a person with …".
_HAD = re.compile(r"(?:\b(?:i|i['’]ve|i['’]m|my\s+\w+|he|she|we)\b[^.?!]*?\b(?:ha(?:ve|s|d)|diagnosed\s+with|"
                  r"suffer(?:s|ed|ing)?\s+(?:from|with)|tak(?:e|es|ing)|took)|\b" + _WITH + r")\s+(?:(?:a|an|the|some)\s+)?$",
                  re.IGNORECASE)
#: A question asking for two things of one patient together ("both warfarin and aspirin").
_BOTH = re.compile(r"\bboth\b", re.IGNORECASE)
#: Effects asked of a thing ("the side effects of lisinopril", "adverse reactions to contrast"): a record saying the one
#: of another thing, or the thing without them, is no answer (:attr:`Analysis.together`).
_EFFECTS_OF = re.compile(r"\b(?:side|adverse)\s+(?:effects?|reactions?|events?)\s+(?:of|from|to|with|on|caused\s+by)\b",
                         re.IGNORECASE)
#: Words of a sentence that point to what was said before it.
_POINTING = re.compile(r"\b(?:it|its|this)\b", re.IGNORECASE)
#: Words of a sentence in which the writer speaks of themselves ("I'm covering for a colleague today").
_WRITER = re.compile(r"(?<![\w/-])[Ii](?![\w/.-])|\b(?i:me|my|we|our)\b")
def _aside(text: str, concepts: list[Concept], places: list[tuple[int, int] | None], declared: frozenset[int],
           names: list[str] = ()) -> frozenset[int]:
    """The concepts of ``text`` the writer says of themselves around the sentence that asks (the last holding a question
    mark, else the last), in a sentence that asks nothing — when the asking sentence names a thing (no context,
    :func:`is_context`) or a patient (``names``) of its own and points to nothing said before it ("Shingles. Is *it*
    contagious?") — but those the writer declares (:attr:`Analysis.declared`): "I'm covering for a colleague today."
    before a question says whose question it is, not what it asks; a title's "Metered-dose inhalers." before "Do health
    care providers know what to teach?" says what it asks of."""
    sentences = question_sentences(text)
    asking = asking_sentence(text, sentences)
    said = text[asking[0]:asking[1]]
    inside = [place is not None and asking[0] <= place[0] < asking[1] for place in places]
    own = any(within and not is_context(concept) for within, concept in zip(inside, concepts)) or any(
        name.casefold() in said.casefold() for name in names)
    if not own or _POINTING.search(said):
        return frozenset()
    personal = [(start, end) for start, end in sentences
                if (start, end) != asking and "?" not in text[start:end] and _WRITER.search(text[start:end])]
    return frozenset(i for i, place in enumerate(places) if place is not None and i not in declared
                     and any(start <= place[0] < end for start, end in personal))


#: What may stand between the concepts of one list, over which a question's negation reaches ("no diabetes or
#: hypertension").
_LISTED = re.compile(r"[\s,;/]*(?:(?:and|or|nor)\b[\s,;/]*)?", re.IGNORECASE)


def _reach(text: str, places: list[tuple[int, int] | None], i: int) -> tuple[int, int]:
    """Where the words that may negate the ``i``-th concept of a question begin: after the concept named before it,
    unless the two stand in one list — a negation reaches the thing it is said of, not the next thing asked ("Which
    patients without diabetes have hypertension?" asks for hypertension, present); and where those that may put it on
    a relative begin: at that concept, which may be the relative ("…a *family* history of heart disease?"). ``places``:
    where each concept is written (:func:`_place`)."""
    if places[i] is None:
        return 0, 0
    start, relative, before = 0, 0, None
    for place in [*sorted(p for p in places if p is not None and p[1] <= places[i][0]), places[i]]:
        if before is not None and not _LISTED.fullmatch(text[before[1]:place[0]]):  # a list's next item keeps its reach
            start, relative = before[1], before[0]
        before = place
    return start, relative


def _stems(phrase: str) -> tuple[str, ...]:
    return tuple(lexical.terms(phrase))


_KIND_NAMES = frozenset(_stems(name) for names, _ in KINDS for name in names)
#: Lay names of which all but one word are small ("passed out", "blacked out"), each by the name records write: such a
#: name is read as that one (:func:`_spanned`), never as a synonym of its one word (a record that "passed" a test
#: mentions no fainting).
_READ_AS = {lay: clinical for lay, clinical in _CLINICAL.items() if len(_stems(lay)) < 2 and len(lay.split()) > 1}
_GROUPS = [[name for name in group if name not in _READ_AS] for group in SYNONYMS]
#: Each synonym's and kind's terms: a name whole, its words never context ("low potassium" is hypokalemia, not every
#: potassium; "thyroid problems" are not every mention of the thyroid).
_NAMES = frozenset(_stems(phrase) for group in _GROUPS for phrase in group) | _KIND_NAMES
_NAMING: dict[tuple[str, ...], list[list[str]]] = {}  # each phrase (its stems): the groups naming it
for _group in _GROUPS:
    for _phrase in _group:
        _NAMING.setdefault(_stems(_phrase), []).append(_group)
for _short, _long in [*ABBREVIATIONS.items(), *BRANDS.items()]:  # it joins each group naming what it stands for, or its own
    if _stems(_long) not in _NAMING:
        _GROUPS.append([_long])
        _NAMING[_stems(_long)] = [_GROUPS[-1]]
    for _group in _NAMING[_stems(_long)]:
        _group.append(_short)
_SYNONYMS: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
for _names, _members in [(group, "") for group in _GROUPS] + KINDS:  # each name: the others, then the members
    _stemmed = [_stems(phrase) for phrase in _names]
    for _one in _stemmed:
        _SYNONYMS.setdefault(_one, []).extend([other for other in _stemmed if other != _one]
                                              + [_stems(member) for member in members(_members)])


_QUALIFIERS = frozenset(_stems(" ".join(QUALIFIERS)))
_STATED = frozenset(_stems(" ".join(STATED)))
_CHANGES = frozenset(_stems(" ".join(CHANGES)))
#: Where or when a thing is: a context word alone ("Which patients live at home?", "…take it at night?"; "night" is
#: "nightly"'s stem) but said of a thing it comes right before in the question: "home oxygen", "home dialysis", "home
#: health aide", "night sweats", "night shifts" (:func:`_placed_beside`: "sweats at night" says it too).
PLACES = frozenset("home night".split())
_PLACES = frozenset(_stems(" ".join(PLACES)))
#: What a refusal leaves out of a concept to say what the records mention of it instead (:func:`unstated`).
_UNSTATED = _STATED | frozenset(_stems(" ".join(UNCONTROLLED)))
#: The terms of the words a record writes a start with ("Start basal insulin", "apixaban was initiated", "restart
#: apixaban", "new prescription for metformin").
_BEGINNING = frozenset(_stems("start started starting restart restarted initiate initiated initiating began begun begin "
                              "new newly"))
#: Of the qualifiers, those that say a thing is otherwise than another does (each with its others): a record of "acute
#: lymphocytic leukemia" does not write the "chronic lymphocytic leukemia" a question asks about, nor one of a "right
#: total knee arthroplasty" its "left knee replacement", nor "mild intermittent asthma" "severe asthma", though each
#: holds what is left of the question's concept without its qualifiers (:func:`_otherwise`).
OPPOSITES = {"acute": "chronic", "chronic": "acute", "mild": "moderate severe", "moderate": "mild severe",
             "severe": "mild moderate", "partial": "complete total", "complete": "partial", "total": "partial",
             "left": "right", "right": "left", "primary": "secondary tertiary",
             "secondary": "primary essential tertiary", "early": "late advanced",
             "late": "early", "advanced": "early", "simple": "complicated", "complicated": "simple uncomplicated",
             "uncomplicated": "complicated", "intermittent": "persistent", "persistent": "intermittent",
             "major": "minor", "minor": "major"}
_OPPOSITES = {_stems(word)[0]: frozenset(_stems(others)) for word, others in OPPOSITES.items()}
#: What may qualify a thing right before it: the qualifiers and their opposites ("essential hypertension" is primary).
_QUALIFYING = _QUALIFIERS | frozenset().union(*_OPPOSITES.values())
#: Words that may stand between a thing's qualifiers ("acute on chronic", "mild to moderate", "acute and chronic").
_BETWEEN_QUALIFIERS = frozenset("and or on to".split())
#: A word that describes what follows it, by its ending, between a qualifier and the thing it qualifies ("acute alcoholic
#: pancreatitis", "acute viral hepatitis", "acute necrotizing pancreatitis"), as a word of a hyphenated compound does
#: ("acute alcohol-related pancreatitis"); at most :data:`_DESCRIBING_MOST` of them, so that a noun ("acute kidney
#: injury and pancreatitis") still ends what qualifies the thing.
_DESCRIBING = re.compile(r"[a-z]{3,}(?:ic|al|ous|ive|ing|ed|ary)")
_DESCRIBING_MOST = 2


def _alternatives(terms: tuple[str, ...], plain: tuple[str, ...] = (),
                  derived: list[tuple[str, ...]] = ()) -> tuple[tuple[str, ...], ...]:
    """``terms``, ``terms`` with any run of them that has synonyms (or is a kind of drug, :data:`KINDS`) replaced
    by each synonym (member), and each of those
    without its qualifiers (:data:`QUALIFIERS`: a record of a "total knee arthroplasty" answers a question
    about an "elective total knee arthroplasty"), ``plain`` (the terms without the words after them that say
    what was done: "levetiracetam" of "levetiracetam titrated") if given, the ``derived`` ones (a word
    replaced by one :data:`DERIVED` makes of it), and each without the words that say what kind of thing it names
    (:data:`GENERIC`) where two that say which remain: a record of "Aicardi-Goutieres syndrome" answers a question
    about "Aicardi-Goutieres Syndrome Disorder", one of a kidney stone no question about "kidney disease". A synonym
    that makes an option longer than a query carries (:data:`~bus.messages.MAX_OPTION_TERMS`) is not one of them: "open
    abdominal aortic aneurysm surgery influence distal embolisation" is not asked again with "blood clot" for its last
    word."""
    found = [terms]
    for size in range(len(terms), 0, -1):
        for start in range(len(terms) - size + 1):
            for other in _SYNONYMS.get(terms[start:start + size], []):
                found.append(terms[:start] + other + terms[start + size:])
    found += [plain] if plain else []
    found += [option for option in derived if option != terms]
    found += [tuple(term for term in option if term not in _QUALIFIERS - _STATED) for option in list(found)
              if option not in _NAMES]
    found += [kept for option in list(found) if len(kept := tuple(term for term in option if term not in _GENERIC)) < len(option)
              and len(set(kept) - _QUALIFIERS) > 1]
    return tuple(dict.fromkeys(option for option in found if option and len(option) <= MAX_OPTION_TERMS))[:MAX_ALTERNATIVES]


#: A type, stage, grade or class named by its number ("type 1 diabetes", "CKD stage 4", "NYHA class III"): it belongs
#: to the concept it stands next to, which a record mentions only with the same number written next to the same word
#: (in digits or Roman numerals: :func:`nodes.data.lexical.written_together`).
_SPECIFIER = re.compile(r"\b(type|stage|grade|class)\s+(\d|iv|v|i{1,3})([a-c]?)\b", re.IGNORECASE)
_ARABIC = {roman: digits for digits, roman in lexical.ROMAN.items()}


def _masked(text: str, names: list[str] = ()) -> str:
    """``text`` with its specifiers (:data:`_SPECIFIER`) and comparisons (:data:`_COMPARISON`) out of the way, each
    written over by a comma and spaces (the same length: a phrase of the text is at the same place): they join a
    concept once it is found. Its times (:data:`_WHEN`) and what its yes-or-no questions say their subjects are or do
    (:data:`_WHETHER`, of a subject not among the patients in ``names``) are written over likewise, and join none."""
    def blank(match: re.Match) -> str:
        return "," + " " * (len(match.group(0)) - 1)

    masked = _WHEN.sub(blank, _COMPARISON.sub(blank, _SPECIFIER.sub(blank, text)))
    for start, end in _predicates(masked, names):
        masked = masked[:start] + "," + " " * (end - start - 1) + masked[end:]
    return masked


#: A way of saying a thing is not under control that qualifies a word after it (:data:`UNCONTROLLED`: "uncontrolled",
#: "poorly controlled" …), and the space after it.
_CONTROL = "(?:" + "|".join(r"\s+".join(map(re.escape, way.split())) for way in UNCONTROLLED
                            if way.endswith("controlled")) + r")\s+"
#: … written right before a phrase: the parser takes "uncontrolled" and "poorly controlled" for verbs, and the phrase it
#: chunks ("diabetes") for the whole thing asked about.
_CONTROL_BEFORE = re.compile(r"\b" + _CONTROL + "$", re.IGNORECASE)


def _phrase_masked(question: str, masked: str, phrase: str) -> str:
    """``phrase`` as it reads in ``masked`` (``question``, :func:`_masked`): the parser may chunk "IV cancer" of
    "stage IV cancer". A phrase ending in a word of :data:`HARDSHIPS` takes the word in -ing right after it, one
    ending in an eponym what it names ("Graves" of "Graves disease", :data:`_EPONYM_OF`), one opening with what eponyms
    name the eponym's possessive before it (:data:`_EPONYM_BEFORE`), any phrase "free" right after it
    (:data:`_FREE_AFTER`)."""
    at = question.find(phrase)
    if at < 0:
        return _masked(phrase)
    end = at + len(phrase)
    if controlled := _CONTROL_BEFORE.search(question, 0, at):
        at = controlled.start()
    if unable := _UNABLE_BEFORE.search(question, 0, at):  # "unable to bear" | "weight"
        at = unable.start()
    words = phrase.split()
    if words and words[-1].casefold() in HARDSHIPS and (doing := _DOING.match(question, end)):
        end = doing.end()
    if words and words[-1].casefold() in UNABLE and (done := _TO_DO.match(question, end)):  # "an inability" | "to swallow"
        end = done.end()
    if words and _EPONYM.fullmatch(words[-1]) and (named := _EPONYM_OF.match(question, end)):  # "Graves" | "disease"
        end = named.end()
    if words and words[0].casefold() in EPONYMOUS and (named := _EPONYM_BEFORE.search(question, 0, at)):
        at = named.start()  # "Still's" | "Disease": the parser may take the name for an adverb
    if freed := _FREE_AFTER.match(question, end):  # "pain" | "free": the parser's predicate
        end = freed.end()
    return masked[at:end]


#: What a patient cannot do (:data:`UNABLE`), written before a phrase ("unable to bear | weight") or after it ("an
#: inability | to swallow"): the parser leaves it out of the phrase, which then names only what it is done to, or
#: only the inability.
_UNABLE_BEFORE = re.compile(r"\b(?:" + "|".join(sorted(UNABLE)) + r")\s+to\s+(?:[^\W\d_]+\s+){1,2}$", re.IGNORECASE)
_TO_DO = re.compile(r"\s+to\s+[^\W\d_]+\b")
#: An eponym's possessive right before a phrase ("Still's | Disease").
_EPONYM_BEFORE = re.compile(r"(?<![\w'’-])[A-Z][a-z]+['’]s\s+$")
#: "Free" right after a thing, which a parser leaves out of its phrase ("Which patients are pain free?").
_FREE_AFTER = re.compile(rf"(?:\s+|{_HYPHEN.pattern})free\b", re.IGNORECASE)


def _opens(question: str, phrase: str) -> bool:
    """Whether ``phrase`` opens a sentence of ``question`` (its first word's capital says nothing of an eponym)."""
    at = question.find(phrase)
    return at <= 0 or question[:at].rstrip()[-1:] in ("", ".", "?", "!", ":", ";")


def _beside(question: str, placed: list[tuple[int, int] | None], start: int, end: int) -> tuple[list[int], list[int]]:
    """The concepts (their places in ``placed``, where each is written) right before ``question[start:end]`` and
    right after it, only spaces between."""
    before = [n for n, at in enumerate(placed) if at and at[1] <= start and not question[at[1]:start].strip()]
    after = [n for n, at in enumerate(placed) if at and at[0] >= end and not question[end:at[0]].strip()]
    return before, after


def _specified(question: str, concepts: list[Concept]) -> list[Concept]:
    """``concepts``, each standing right before or after a specifier in ``question`` ("chronic kidney disease stage
    4", "type 1 diabetes") written with it, and each of its alternatives ending in the specifier's word and number
    (in digits: :func:`nodes.data.lexical.specifier`). A specifier joined by "and" or "or" to another of the same word
    before a concept ("type 1 or type 2 diabetes") specifies the concept too, as one more concept written before it:
    "Which patients have type 1 or type 2 diabetes?" asks for either, not for type 2 alone."""
    placed = [_place(question, concept) for concept in concepts]
    specifiers = list(_SPECIFIER.finditer(question))
    # (where the concept both specify stands, the specifier it is not beside, whether that one is written after it,
    # "or" joined them)
    shared = []
    for first, second in zip(specifiers, specifiers[1:]):
        between = question[first.end():second.start()].split()
        if len(between) != 1 or between[0].casefold() not in ("and", "or", "&") \
                or first.group(1).casefold() != second.group(1).casefold():
            continue
        either = between[0].casefold() == "or"
        if not any(_beside(question, placed, first.start(), first.end())) \
                and (after := _beside(question, placed, second.start(), second.end())[1]):
            shared.append((after[0], first, False, either))  # "type 1 or type 2 diabetes"
        elif not any(_beside(question, placed, second.start(), second.end())) \
                and (before := _beside(question, placed, first.start(), first.end())[0]):
            shared.append((before[0], second, True, either))  # "CKD stage 3 or stage 4"
    originals = list(concepts)
    for specifier in specifiers:
        before, after = _beside(question, placed, specifier.start(), specifier.end())
        for n in (before or after)[:1]:
            concepts[n] = _with_specifier(concepts[n], specifier, before=bool(before))
    for n, specifier, later, either in sorted(shared, key=lambda entry: entry[0], reverse=True):
        also = _with_specifier(originals[n], specifier, before=later)
        if later:  # written after the concept, so after it, offered as the question offers it
            concepts.insert(n + 1, replace(also, either=either))
        else:  # written before it: the concept is offered as the question offers it after this one
            concepts[n] = replace(concepts[n], either=either)
            concepts.insert(n, also)
    return concepts


def _with_specifier(concept: Concept, specifier: re.Match, before: bool = False) -> Concept:
    """``concept`` written with ``specifier`` (after it, ``before``: "CKD stage 4"; else before it: "type 1 diabetes"),
    each of its alternatives ending in the specifier's word and number in digits."""
    number = specifier.group(2).casefold()
    written = (specifier.group(1).casefold(), _ARABIC.get(number, number) + specifier.group(3).casefold())
    said = specifier.group(0)
    return replace(concept, text=f"{concept.text} {said}" if before else f"{said} {concept.text}",
                   alternatives=tuple(dict.fromkeys(option[:MAX_OPTION_TERMS - 2] + written
                                                    for option in concept.alternatives)))


#: The names of :data:`SYNONYMS` written with a word that otherwise ends a concept ("shortness *of* breath") or asks
#: rather than names (:data:`ASKING`: "alcohol *use* disorder", "*drug* addiction" — else "Which patients have opioid use
#: disorder?" asks about *opioid*, which a record of oxycodone for pain mentions, and *disorder*).
#: So are names of several words one of which a parser may take for a verb ("hearing loss", "lost weight": -ing, -ed, lost).
_SPANNING = [name for group in SYNONYMS for name in group
             if any(word == "~" or word in BETWEEN or word in lexical.STOP_WORDS or word in ASKING for word in name.split())
             or (" " in name and any(word.endswith(("ing", "ed")) or word == "lost" for word in name.split()))]
_SPANNING_NAME = _written(_SPANNING)


def _spanned(question: str, concepts: list[Concept]) -> list[Concept]:
    """``concepts`` with those inside a name of :data:`_SPANNING` that ``question`` writes made one concept of that name,
    where the first of them stood: "Which patients had shortness of breath?" names shortness of breath — which a record
    of dyspnea mentions — not *shortness* and *breath*."""
    for match in _SPANNING_NAME.finditer(question):
        inside = [n for n, concept in enumerate(concepts)
                  if (at := _place(question, concept)) and match.start() <= at[0] and at[1] <= match.end()]
        if inside:
            name = " ".join(match.group(0).split())
            whole = Concept(name, _alternatives(_stems(_READ_AS.get(_bare(name), name))))
            concepts = [whole if n == inside[0] else concept for n, concept in enumerate(concepts)
                        if n == inside[0] or n not in inside]
    return concepts


def _place(question: str, concept: Concept) -> tuple[int, int] | None:
    """Where ``concept`` is written in ``question``, if it is as found."""
    words = [re.escape(word) for word in concept.text.split()]
    found = re.search(r"(?:['’]s)?\W+".join(words), question, re.IGNORECASE) if words else None
    return (found.start(), found.end()) if found else None


def analyse(question: str, names: list[str] = (), phrases: list[str] | None = None, verbs: list[str] = ()) -> Analysis:
    """The terms and concepts of ``question``, leaving out the patients in ``names`` (its terms with its abbreviations
    spelled out: :func:`spelled_out`). With ``phrases`` (the question's noun phrases, when a parser found them)
    concepts are sought in those first, so a verb never joins one ("What do migraine headaches feel like?" names
    *headaches*, not *headaches feel like*), then in the words no phrase holds; of those, what the parser took for
    ``verbs`` or adverbs (:func:`nodes.names._verbs`) in everyday words is :attr:`Analysis.done`."""
    masked = _masked(question, names)
    if phrases is None:
        concepts = _scanned(masked, names)
    else:
        found = [concept for phrase in phrases
                 for concept in _scanned(_phrase_masked(question, masked, phrase), names, _opens(question, phrase))]
        held = {term for concept in found for term in concept.alternatives[0]}
        # what the parser's phrases missed ("had a breakthrough seizure" is no noun phrase to it)
        found += [concept for concept in _scanned(masked, names) if not held & set(concept.alternatives[0])]
        concepts = _joined(question, found[:MAX_CONCEPTS])
    normal = unicodedata.normalize("NFKC", question)
    concepts = _once(_specified(normal, _spanned(normal, concepts)))
    terms = list(dict.fromkeys(lexical.terms(spelled_out(question))))[:MAX_TERMS]
    concepts, terms = _where_gone(question, concepts, terms, names)
    return _analysis(question, _grouped(terms, concepts), concepts, list(names), verbs)


#: The words by which a question asks where a patient went on leaving ("Where did Carol Dubois *go* after her
#: admission?"); "went" asks anywhere (:data:`ASKING`), "sent" says what was done (:data:`DONE`).
GONE = frozenset("go goes going gone".split())
_GONE_TERMS = frozenset(lexical.terms(" ".join(GONE)))


def _where_gone(question: str, concepts: list[Concept], terms: list[str],
                names: list[str]) -> tuple[list[Concept], list[str]]:
    """``concepts`` and ``terms`` without the word asking where someone went, in a question asking where a patient went
    on leaving (:func:`summarizer.kinds.kind_of`: a disposition, which a record's "Disposition: home." gives without
    it) that says of whom or what else it asks (``names``, another concept): "Where did Carol Dubois go after her
    admission?" asks her admissions' dispositions, not a record mentioning "go". Asked of nobody ("Where did she go?"),
    the word stays what the records must mention: no other patient's disposition answers it."""
    gone = [concept for concept in concepts if concept.text.casefold() in GONE]
    if not gone or kind_of(question) != "disposition" or not (names or len(gone) < len(concepts)):
        return concepts, terms
    return [concept for concept in concepts if concept not in gone], [term for term in terms if term not in _GONE_TERMS]


def _grouped(terms: list[str], concepts: list[Concept]) -> list[str]:
    """``terms`` with a concept asked in one word scored as one term with its other one-word ways of saying it (a
    group, :func:`nodes.data.lexical.group`): "EKG" finds the records that write "ECG", "HTN" those of hypertension. The
    group stands where the first of its members stood; the others the question holds (an abbreviation's spelled-out
    word) go. A concept asked in several words keeps its terms: which of a phrase's words a synonym stands for is
    not a term's to say. A kind asked in several words (:func:`names_kind`: "beta blocker") gains its one-word names
    and members as one more term, after the question's own: records name a patient's metoprolol, not the kind."""
    groups: dict[str, str] = {}
    kinds: list[str] = []
    for concept in concepts:
        asked = lexical.folded(concept.alternatives[0])  # an abbreviation in capitals as its term ("MI": "mi")
        members = [lexical.folded(option)[0] for option in concept.alternatives if len(option) == 1]
        if len(asked) > 1 and names_kind(concept) and members:
            kinds.append(lexical.group(members))
        if len(asked) != 1 or asked[0] not in terms or asked[0] in groups:
            continue
        if len(members) > 1:
            for member in members:
                groups.setdefault(member, lexical.group(members))
    return list(dict.fromkeys([groups.get(term, term) for term in terms] + kinds))[:MAX_TERMS]


def _once(concepts: list[Concept]) -> list[Concept]:
    """``concepts`` with each named once: the first of those with the same alternatives ("Lice - Head Lice")."""
    firsts: dict[tuple[tuple[str, ...], ...], Concept] = {}
    for concept in concepts:
        firsts.setdefault(concept.alternatives, concept)
    return list(firsts.values())


#: A word that holds digits and still names a thing asked about: it starts with a letter — an identifier a record
#: carries ("P0072", "MRN10442"), an abbreviation, gene, vitamin or strain ("DM2", "T2DM", "BRCA1", "B12", "H1N1") —
#: but is not how often a dose is given ("q6h", "x2"). A word starting with a digit is a dose or a count ("500mg",
#: "3rd"), not the drug or the thing counted.
_NAMING_DIGITS = re.compile(r"(?![qx]\d)[^\W\d_][^\W_]*\d[^\W_]*", re.IGNORECASE)


def _lettered(run: list[str], n: int) -> bool:
    """Whether the word at ``n`` of ``run`` is the letter that says which of the word before it is meant ("hepatitis B",
    "vitamin D", "protein C"): a specifier (:func:`nodes.data.lexical.specifier`) — hepatitis C is no hepatitis B, nor
    vitamin B12 deficiency a vitamin D deficiency. Any other single letter is left out."""
    return n > 0 and lexical.letters_which(run[n - 1], run[n])


def _letter_last(words: list[str]) -> list[str]:
    """``words`` with a word and its letter (:func:`_lettered`) moved to the end, where a specifier stands, as a stage
    or a type is: "vitamin D deficiency" is read as "deficiency vitamin D"."""
    at = next((n for n, word in enumerate(words) if n and len(word) == 1), None)
    return words if at is None or at == len(words) - 1 else [*words[:at - 1], *words[at + 1:], *words[at - 1:at + 1]]


def _concept_terms(words: list[str], eponyms: set[str] = frozenset()) -> tuple[str, ...]:
    """The terms of a concept's ``words``, its letter last (:func:`_letter_last`) kept when it is "A": a stop word
    elsewhere, "influenza A" and "hepatitis A" say which one with it as "hepatitis B" does with its letter. One of its
    ``eponyms`` that is a stop word ("Down" of "Down syndrome") is kept as written: its capital says which."""
    kept = {word: (_POSSESSIVE.sub("", word),) for word in eponyms}
    stems = tuple(t for word in words for t in (_stems(word) or kept.get(word, ())) if t)
    return (*stems, "a") if len(words) > 1 and words[-1] == "A" and stems else stems


def _capitalized(alternatives: tuple[tuple[str, ...], ...], words: list[str],
                 eponyms: set[str] = frozenset()) -> tuple[tuple[str, ...], ...]:
    """``alternatives`` with the term of each abbreviation among a concept's ``words`` (:data:`_CAPITALS`: "AIDS",
    "ALS", "PEs" as "PE") and of each of its ``eponyms`` ("Graves" of "Graves disease") as written: a text mentions it
    only where it writes it with those capitals too (:func:`nodes.data.lexical.capitals`) — a question about AIDS is
    none about "hearing aids" or a "Band-Aid", one about Graves disease none about a "grave disability"."""
    marked = {}
    for word in words:
        if (_CAPITALS.fullmatch(word) or word in eponyms) and (term := tuple(_stems(word))) and term[0] not in _CONTEXT:
            marked[term[0]] = _POSSESSIVE.sub("", word) if word in eponyms else word[:-1] if word.endswith("s") else word
    if not marked:
        return alternatives
    return tuple(tuple(marked.get(term, term) for term in option) for option in alternatives)


#: An abbreviation as a question writes it: two to five letters, a capital after the first (a plural's "s" besides).
_CAPITALS = re.compile(r"(?=[A-Za-z]{2,5}s?$)[A-Z][a-z]?[A-Z][A-Za-z]*")
#: An eponym as a question writes it — a capitalized word, not opening a sentence, before the small-lettered word of what
#: it names ("Graves disease", "Bell's palsy", "Down syndrome"): the person's name, which records capitalize; a word
#: of the same letters in small ones ("grave disability", "down") is another.
_EPONYM = re.compile(r"[A-Z][a-z]+(?:['’]s)?")
_EPONYM_OF = re.compile(r"(?:['’]s)?\s+(?:" + "|".join(sorted(EPONYMOUS)) + r")\b")
#: What eponyms name, capitalized as a title writes it ("Down Syndrome", "Still's Disease"): capitals then tell an eponym
#: from a word of the thing ("Heart Disease") no more, but a word the question would otherwise drop there — a stop word
#: ("Down"), or an asking word's possessive ("Still's") — is a name (:func:`_titled_eponym`).
_EPONYM_OF_TITLED = re.compile(r"\s+(?:" + "|".join(sorted(word.capitalize() for word in EPONYMOUS)) + r")\b")


def _titled_eponym(word: str, base: str, text: str, end: int) -> bool:
    """Whether ``word`` (folded to ``base``, its possessive off), capitalized and ending at ``end`` of ``text``, is an
    eponym before what it names capitalized too (:data:`_EPONYM_OF_TITLED`): "Still's Disease" and "Down Syndrome" were
    read as "Disease" and "Syndrome", any record's — not a connective's ("With Disease") nor a patient's."""
    dropped = base in lexical.STOP_WORDS or (word[-2:] in ("'s", "’s") and base in ASKING)
    return dropped and base not in BETWEEN and base not in PEOPLE and bool(_EPONYM_OF_TITLED.match(text, end))


#: What follows the last word of a question: its mark, or nothing.
_LAST = re.compile(r"\s*(?:[?.!]|$)")


def _ends_name(run: list[str], word: str) -> bool:
    """Whether ``word`` ends a name records write (a synonym's or a kind's, :data:`_NAMES`) that the words of ``run``
    before it begin: "pain" and "medications" are "pain medication", an analgesic."""
    return any(_stems(" ".join([*run[-n:], word])) in _NAMES for n in range(1, min(len(run), 3) + 1))


def _scanned(question: str, names: list[str] = (), opens: bool = True) -> list[Concept]:
    """The concepts of ``question`` (or of one of its phrases, which ``opens`` a sentence or not), word by word, without
    the patients in ``names``."""
    text = unicodedata.normalize("NFKC", question)
    for name in sorted(names, key=len, reverse=True):
        text = re.sub(re.escape(name) + r"(?:['’]s)?", " , ", text, flags=re.IGNORECASE)
    for surname in {name.split()[-1] for name in names if len(name.split()) > 1}:  # a phrase the parser cut from its
        text = re.sub(rf"\b{re.escape(surname)}['’]s\b", " , ", text, flags=re.IGNORECASE)  # given name: "chen's BP"
    concepts: list[Concept] = []
    run: list[str] = []
    eponyms: set[str] = set()  # the words of the run that are eponyms (_EPONYM)

    def close() -> None:
        kin = len(run) > 1 and run[0].casefold() in KIN and all(word[:1].isupper() for word in run[1:])
        if kin:
            del run[1:]  # "son Jake", "mother Linda": a relative by name is who, not what
        titled = bool(run) and run[0].casefold() in CLINICIAN_TITLES
        words = _letter_last([w for n, w in enumerate(run) if (not any(c.isdigit() for c in w) or _NAMING_DIGITS.fullmatch(w))
                              and (len(w) > 1 or _lettered(run, n)) and w.casefold() not in NUMBER_WORDS])
        terms = _concept_terms(words, eponyms)
        # "levetiracetam titrated": a record of levetiracetam mentions it, however it puts the titration (a word
        # that says what was done follows what it was done to; before it, it qualifies: a "boiling point")
        acted = list(words)
        while len(acted) > 1 and (_PARTICIPLE.fullmatch(acted[-1].casefold()) or acted[-1].casefold() in DONE):
            acted.pop()
        plain = _concept_terms(acted, eponyms) if len(acted) < len(words) else ()
        derived = [_concept_terms([*words[:n], other, *words[n + 1:]], eponyms)[:8]
                   for n, word in enumerate(words) for other in _derived(word)]
        if terms and len(concepts) < MAX_CONCEPTS:
            # as written, spaces made one: its words are joined by spaces or hyphens only; a clinician by name
            written = run[0] if kin else " ".join(text[first:end].split())
            written = _POSSESSIVE.sub("", written) if titled else written
            concepts.append(Concept(written, _capitalized(_alternatives(terms[:8], plain[:8], derived),
                                                          [] if shouting else words, eponyms)))
        run.clear()
        eponyms.clear()

    end = first = 0
    before, previous = "", None
    # a question all in capitals writes no abbreviation apart (a phrase of it in one or two words may be one)
    shouting = not any(c.islower() for c in text) and len(_WORD.findall(text)) > 2
    for match in _WORD.finditer(text):
        word = match.group(0)
        folded = word.casefold().replace("’", "'")
        base = folded[:-2] if folded.endswith("'s") else folded
        gap = text[end:match.start()]
        # "end-stage", "beta-blocker": one word, whatever its parts say elsewhere ("stage"), but for a connective
        # ("flu-like" names flu)
        hyphen = bool(run) and gap in HYPHENS and base not in BETWEEN and base not in lexical.STOP_WORDS
        if not gap.isspace() and end and not hyphen:  # punctuation between words ends a concept
            close()
        if before in CLINICIAN_TITLES and word[:1].isupper() and not run:  # "Dr. Watson": named with the title
            run.append(previous.group(0))
            first = previous.start()
        capital_a = word == "A" and bool(run) and gap == " " and lexical.letters_which(run[-1], "a")  # "influenza A"
        asking = (base in ASKING or (base in ASKED_LAST and before != "to" and _LAST.match(text, match.end()))) and (
            shouting or not _CAPITALS.fullmatch(word))  # "MS" is no "Ms", "MR" no "Mr"
        opening = (end == 0 and opens) or any(mark in gap for mark in ".?!:;")  # a capital that says nothing
        eponym = not shouting and not opening and bool(_EPONYM.fullmatch(word)) and (
            bool(_EPONYM_OF.match(text, match.end())) or _titled_eponym(word, base, text, match.end()))
        if eponym:
            eponyms.add(word)
        # a word that asks may end a name ("pain *medications*": analgesics, not pain)
        naming = bool(run) and gap.isspace() and asking and _ends_name(run, word)
        unable = base == "to" and bool(run) and run[-1].casefold() in UNABLE and gap.isspace()  # "unable | to eat"
        if not hyphen and not capital_a and not eponym and not naming and not unable and (
                base in BETWEEN or asking or base in lexical.STOP_WORDS or base in NEGATIONS
                or (before == "how" and base in HOW)):
            if run and base in TESTS and run[-1].casefold() in TESTED and gap.isspace():  # a hearing test
                run.append(word)
                end = match.end()
            close()
        elif hyphen and len(run[-1]) == 1 and run[-1].isalpha():  # "x-ray", "T-cell": a letter hyphened to a word is of it
            run[-1] += "-" + word
        else:
            first = first if run else match.start()
            run.append(word)
        end = match.end()
        before, previous = base, match
    close()
    return _joined(question, concepts)


_OR = re.compile(r"\b(?:or|nor)\b", re.IGNORECASE)


def _joined(question: str, concepts: list[Concept]) -> list[Concept]:
    """``concepts`` in the order the question names them, each marked :attr:`Concept.either` when the words
    between it and the one before say "or" — or a comma, in a list that ends in "or" ("gout, lupus or
    psoriasis"). A concept not found as written is joined to nothing."""
    placed = []
    for concept in concepts:
        start, end = _place(question, concept) or (len(question), len(question))
        placed.append((start, end, concept))
    placed.sort(key=lambda item: item[0])
    gaps = [""] + [question[end:start] for (_, end, _), (start, _, _) in zip(placed, placed[1:])]
    joined = [bool(_OR.search(gap)) for gap in gaps]
    for n in range(len(gaps) - 1, 0, -1):  # a list's commas take the word that ends it
        if joined[n] is False and gaps[n].strip() == "," and n + 1 < len(gaps) and joined[n + 1]:
            joined[n] = True
    return [replace(concept, either=either) for (_, _, concept), either in zip(placed, joined)]


#: Words that say who, when, how much or what kind of care, never what a question is about: a concept made of
#: these only ("older adults", "weekly doses") is context. A replacement is none of them: it says what is done to the
#: thing before it — "hormone replacement" is not every mention of hormones, nor "aortic valve replacement" an aortic
#: stenosis.
#: The people a writer asks for by how they are related: "my son Jake" is who is asked about, never what.
KIN = frozenset("""
mother mothers father fathers husband husbands wife wives spouse spouses partner son sons daughter daughters friend
friends mom moms mum mums dad dads parent parents brother brothers sister sisters sibling siblings grandmother
grandmothers grandfather grandfathers grandma grandpa grandparent grandparents grandson grandsons granddaughter
granddaughters grandchild grandchildren aunt aunts uncle uncles cousin cousins niece nieces nephew nephews
""".split())
CONTEXT = KIN | frozenset("""
elderly older old young younger adult adults child children kid kids infant infants baby babies newborn newborns
teen teens teenager teenagers adolescent adolescents man men woman women male males female females boy boys girl
girls family families nonsmoker nonsmokers veteran veterans toddler toddlers
daily weekly monthly yearly nightly week weeks day days month months year years hour hours time times episode
episodes started starting stopped stopping quit quitting missed missing since last first second third prior previous past
admission admissions arrival
newly recently currently presently
active severe mild moderate heavy light high low flare flares worsening improving controlled uncontrolled poorly
well better worse stable unstable
management care follow followup up dose doses dosing dosage regimen schedule plan plans level
levels count counts result results reading readings value values amount amounts change changes problem problems
issue issues condition conditions complaint complaints finding findings loss gain control effect effects
free home work school
""".split())
_CONTEXT = frozenset(_stems(" ".join(CONTEXT))) | _QUALIFIERS


def is_context(concept: Concept) -> bool:
    """Whether ``concept`` only says who, when, how much or what kind of care (:data:`CONTEXT`)."""
    return all(term in _CONTEXT for term in concept.alternatives[0])


def names_kind(concept: Concept) -> bool:
    """Whether ``concept`` is a kind the records name by its members (:data:`KINDS`: "antibiotics", "imaging")."""
    return concept.alternatives[0] in _KIND_NAMES


def focal(analysis: Analysis) -> list[Concept]:
    """What a question is about: its concepts but its context (:func:`is_context`) and what is said aside
    (:attr:`Analysis.aside`)."""
    return [concept for i, concept in enumerate(analysis.concepts) if not is_context(concept) and i not in analysis.aside]


def mentions(text: str, concepts: list[Concept]) -> bool:
    """Whether ``text`` mentions one of ``concepts``: holds the terms of one of its alternatives that say what, not
    who, when or how much (:data:`CONTEXT`: a note of "alcohol use" speaks of "heavy alcohol use")."""
    held = _held(text)
    return any(_says(text, held, concept) for concept in concepts)


def otherwise(text: str, concepts: list[Concept]) -> bool:
    """Whether ``text`` writes what one of ``concepts`` names only qualified otherwise (:func:`_otherwise`), mentioning
    none of them: "3. Acute pancreatitis." of chronic pancreatitis — a sentence to leave out of an answer about it."""
    held = _held(text)  # what qualifies otherwise is read first: most texts hold no opposite, and it ends there
    return any(need <= held and lexical.written_together(text, option) and _otherwise(text, held, need, option, concept)
               for concept in concepts for need, option in _needs(concept)) and not any(
        _says(text, held, concept) for concept in concepts)


@functools.lru_cache(maxsize=32_768)
def _says(text: str, held: frozenset[str], concept: Concept) -> bool:
    """Whether ``text`` (its terms ``held``) mentions ``concept``: in words, or by a reading that writes it. Remembered
    (an LRU of 32,768): the passages a gateway fuses and quotes come back question after question, and so do the
    things asked about."""
    read = _reading(text, concept)
    return read is True or _holds(text, held, _ways(concept, read), concept)


@functools.lru_cache(maxsize=1_024)
def _finding(concept: Concept) -> readings.Finding | None:
    """The finding ``concept`` names that a reading may write (:mod:`nodes.data.readings`), if one."""
    return readings.finding(concept.alternatives)


def _reading(text: str, concept: Concept) -> bool | None:
    """What the readings of ``text`` say of the finding ``concept`` names (:func:`nodes.data.readings.said`: ``True``
    "heart rate 107" of a fast heart rate, ``False`` "heart rate 88"); ``None`` for no reading, or no finding."""
    found = _finding(concept)
    return None if found is None else readings.said(text, found)


def _ways(concept: Concept, read: bool | None) -> tuple[tuple[frozenset[str], tuple[str, ...]], ...]:
    """The ways of saying ``concept`` (:func:`_needs`) that count in a text whose readings say ``read`` of it
    (:func:`_reading`): every one, unless the text measures the finding it names and no reading holds it — then only
    those that keep every word of theirs: "She was febrile to 38.3 C" says fever, and no high fever, though "high
    febrile" without its qualifier is "febrile"."""
    needs = _needs(concept)
    if read is not False:
        return needs
    return tuple((need, option) for need, option in needs if need == frozenset(lexical.held_terms(option)))


def _holds(text: str, held: frozenset[str], needs: tuple[tuple[frozenset[str], tuple[str, ...]], ...],
           concept: Concept) -> bool:
    """Whether ``text`` (its terms ``held``) holds one of ``concept``'s ``needs`` (:func:`_needs`)."""
    return any(_writes(text, held, need, option, concept) for need, option in needs)


def _writes(text: str, held: frozenset[str], need: frozenset[str], option: tuple[str, ...], concept: Concept) -> bool:
    """Whether ``text`` (its terms ``held``) writes ``option`` of a concept, which it must hold (``need``): its specifier
    as one (:func:`nodes.data.lexical.written_together`), and each word that qualifies the next of it somewhere not
    hyphened to a word the option lacks (:func:`_compounds`): "High-intensity statin and blood pressure control" does
    not write "high blood pressure", nor "low-dose aspirin" low blood pressure or "calcium-channel blocker" calcium
    supplements. The option's last word may be hyphened to anything ("HIV-positive", "COVID-19 pneumonia"), and any
    word to what comes before it ("drug-induced liver injury" writes induced liver injury) — but a word of who, when or
    how much (:data:`CONTEXT`) opening a compound of the option's words that qualifies the next word says what that
    is: a "low-sodium diet" is no low sodium, a "high-protein diet" no high protein. An option that leaves out a
    qualifier of ``concept``'s is not written where every place of it is qualified otherwise (:func:`_otherwise`). The
    gateway quotes by this rule; the leaves' counts, which read no text for it, may count more."""
    if not (need <= held and lexical.written_together(text, option)):
        return False
    if _otherwise(text, held, need, option, concept) or not _stated_beside(text, need, option) \
            or not _placed_beside(text, need, option):
        return False
    if len(need) > 1 and _SPREADS.search(text) and not need <= _held(_SPREADS.sub(" ", text)):
        return False  # where a pain spreads is not where it is
    kept = lexical.held_terms(option)
    qualifying = [term for term in kept[:-1] if term in need]
    if not qualifying:
        return True
    alone, compounds = _compounds(text)
    allowed = set(kept)

    def attributive(parts: tuple[str | None, ...], follower: str | None) -> bool:
        return parts[0] in _CONTEXT and follower is not None and follower not in allowed | _CONTEXT \
            and set(parts) <= allowed
    return all(term in alone or any(part == term and (after is None or after in allowed)
                                    and not (term == parts[0] and attributive(parts, follower))
                                    for parts, follower in compounds for part, after in zip(parts, (*parts[1:], None)))
               for term in qualifying)


def _otherwise(text: str, held: frozenset[str], need: frozenset[str], option: tuple[str, ...], concept: Concept) -> bool:
    """Whether ``text`` qualifies ``option`` of ``concept``, wherever it writes its first word, otherwise than the
    concept's own qualifiers that a text need not hold (``need``, :func:`_needs`; :data:`OPPOSITES`): the qualifiers
    right before it (through "and", "or", "on", "to") hold an opposite of one and none of them. "Acute lymphocytic
    leukemia in remission" writes no chronic lymphocytic leukemia; "acute on chronic" and "acute and chronic"
    pancreatitis write either."""
    left_out, against = _opposed(concept, need)
    first = next((term for term in lexical.held_terms(option) if term in need), None)
    if not against & held or first is None:
        return False
    placed = False
    joined = {part.casefold() for compound in _COMPOUND.findall(text) for part in _HYPHEN.split(compound)}
    for words, stems, _, _, _ in _clauses(text):
        for i, terms in enumerate(stems):
            if first not in terms:
                continue
            placed, qualified, described = True, set(), 0
            for j in range(i - 1, -1, -1):
                if stems[j] & _QUALIFYING:
                    qualified |= stems[j]
                elif words[j] in _BETWEEN_QUALIFIERS or words[j] in joined:
                    continue
                elif described < _DESCRIBING_MOST and stems[j] and _DESCRIBING.fullmatch(words[j]):
                    described += 1
                else:
                    break
            if not qualified & against or qualified & left_out:
                return False
    return placed


#: How far from what it qualifies, in words of one clause, a qualifier a record must write (:data:`STATED`) says it.
STATED_REACH = 4


def _stated_beside(text: str, need: frozenset[str], option: tuple[str, ...]) -> bool:
    """Whether ``text`` writes the qualifiers of ``option`` it must hold (:data:`STATED`, or a way of saying how well a
    thing is controlled) beside the thing they qualify: within :data:`STATED_REACH` words before or after it in its
    comma-separated item of a clause, or opening the item after it — "poorly controlled type 2 diabetes",
    "hypertension, poorly controlled", "syncope due to severe aortic stenosis"; not "poorly controlled type 2 diabetes
    with retinopathy; hypertension", nor "hypertension, admitted with a severe headache"."""
    said = {term for term in lexical.held_terms(option) if term in need and term in _CONTEXT}
    things = need - said
    return not said or not things or any(said <= near for near in _around(text, things, STATED_REACH, items=True))


#: The words that may stand between a place and the thing a record says of it ("home supplemental oxygen", "2 L home
#: oxygen"), and between the thing and "at" or "in" the place after it ("oxygen therapy at home").
PLACE_REACH = 2
#: What says a place is where a thing is, after it: "at home", "in the home".
_AT = frozenset("at in the their his her own".split())
#: Words that, between a place and a thing, say the thing is not of the place: "found at home with oxygen saturation
#: of 87%", "home and oxygen".
_APART = frozenset("with without of on for and or to from by after before while when but".split())


def _placed_beside(text: str, need: frozenset[str], option: tuple[str, ...]) -> bool:
    """Whether ``text`` writes the place of ``option`` it must hold (:func:`_placing`) as the place of the thing, in the
    question's order: a place asked before a thing right before it (at most :data:`PLACE_REACH` words between, none of
    them :data:`_APART`) — "2 L home oxygen" — or after it as where it is ("uses oxygen at home"), not "found drowsy at
    home with oxygen saturation of 87%"; a place asked after a thing ("nursing home") right after it, not "a retired nurse
    … home"; one asked between two things after the one or before the other ("a nursing home resident")."""
    if need.isdisjoint(_PLACES):  # most options name no place: nothing to read
        return True
    placed = _placing(option) & need
    things = need - placed
    if not placed or not things:
        return True
    terms = lexical.held_terms(option)
    first = min(i for i, term in enumerate(terms) if term in placed)
    before = any(term in things for term in terms[first + 1:])  # "home oxygen"
    after = first > 0 and terms[first - 1] in things  # "nursing home"

    def reached(stems: tuple[frozenset[str], ...], words: tuple[str, ...], at: range) -> bool:
        for j in at:
            if stems[j] & things:
                return True
            if words[j] in _APART:
                return False
        return False

    for words, stems, _, _, _ in _clauses(text):
        for i, terms_at in enumerate(stems):
            if not terms_at & placed:
                continue
            if before and reached(stems, words, range(i + 1, min(i + 2 + PLACE_REACH, len(words)))):
                return True
            if before and i > 1 and words[i - 1] in _AT and any(stems[j] & things
                                                                for j in range(i - 2, max(i - 2 - PLACE_REACH, -1), -1)):
                return True
            if after and reached(stems, words, range(i - 1, max(i - 2 - PLACE_REACH, -1), -1)):
                return True
    return False


def _around(text: str, things: frozenset[str], reach: int, *, items: bool = False) -> Iterator[set[str]]:
    """For each clause of ``text`` holding one of ``things`` (terms), the terms written within ``reach`` words of them
    (from ``reach`` before the first to ``reach`` after the last) — with ``items``, only in their comma-separated item
    of the clause, or opening the item after it (three words: "hypertension, poorly controlled")."""
    for _, stems, _, item, _ in _clauses(text):
        at = [i for i, terms in enumerate(stems) if terms & things]
        if not at:
            continue
        first, last = at[0], min(at[-1] + reach, len(stems) - 1)
        beside = [j for j in range(max(first - reach, 0), last + 1)
                  if not items or item[j] in (item[first], item[at[-1]])]
        if items:
            beside += [j for j in range(at[-1] + 1, len(stems)) if item[j] == item[at[-1]] + 1][:3]
        yield set().union(*(stems[j] for j in beside))


def unstated(concept: Concept) -> tuple[Concept, str] | None:
    """``concept`` without the qualifiers a record must write (:data:`STATED`, or how well it is controlled), and those
    qualifiers as the question writes them — "hypertension" and "severe" of "severe hypertension" — or ``None`` if it
    has none: what a refusal says the records mention of it instead."""
    control = re.match(_CONTROL, concept.text, re.IGNORECASE)
    words = (concept.text[control.end():] if control else concept.text).split()
    said = [word for word in words if set(_stems(word)) & _STATED]
    if control is None and not said:
        return None
    rest = " ".join(word for word in words if word not in said)
    options = tuple(dict.fromkeys(kept for option in concept.alternatives
                                  if (kept := tuple(term for term in option if term not in _UNSTATED))))
    if not rest or not options:
        return None
    return Concept(rest, options), " ".join([*([control.group(0).strip()] if control else []), *said])


@functools.lru_cache(maxsize=1_024)
def _opposed(concept: Concept, need: frozenset[str]) -> tuple[frozenset[str], frozenset[str]]:
    """The qualifiers of ``concept`` a text holding ``need`` may leave out, and their opposites (:data:`OPPOSITES`)."""
    left_out = frozenset(concept.alternatives[0]) & _QUALIFIERS - need
    return left_out, frozenset().union(*(_OPPOSITES.get(term, frozenset()) for term in left_out))


#: Where a pain or a rash spreads to ("epigastric pain radiating to the back", "chest pain radiating down the left arm",
#: "spreading to the jaw"): a text that holds a concept's words only thanks to it does not write it — pain radiating to
#: the back is no back pain (:func:`_writes`).
_SPREADS = re.compile(r"\b(?:radiat|spread|extend)\w*\s+(?:(?:in|out|up|down|through)\s+)?"
                      r"(?:to|into|through|toward|towards|down|up|across)\s+(?:(?:the|his|her|their|both)\s+)?"
                      r"(?:(?:left|right|lower|upper|mid)\s+)?[^\W\d_]+", re.IGNORECASE)
#: Words joined by hyphens or dashes into one ("high-intensity", "non-small-cell", "COVID-19").
_COMPOUND = re.compile(rf"[^\W_]+(?:{_HYPHEN.pattern}[^\W_]+)+")
_FOLLOWER = re.compile(r"[ \t]+([^\W_]+)")


@functools.lru_cache(maxsize=4_096)
def _compounds(text: str) -> tuple[frozenset[str], tuple[tuple[tuple[str | None, ...], str | None], ...]]:
    """The terms ``text`` holds outside hyphenated compounds but a letter alone (a concept's letter, "x" of "x-ray", is
    written only hyphened to the word after it: "oriented x 3" writes none), and each compound's parts' terms, in order
    (``None`` for a part that names nothing: a stop word, a letter but one opening it — "x" of "X-ray" — or one holding
    digits — "19" of "COVID-19" says which), with the term of the word right after it, spaces between (``None``: none, or
    it names nothing)."""
    def term(part: str, opening: bool = False) -> str | None:
        found = lexical.terms(part)
        return found[0] if len(found) == 1 and (len(found[0]) > 1 or opening) and not any(c.isdigit() for c in part) \
            else None

    compounds = tuple((tuple(term(part, n == 0) for n, part in enumerate(_HYPHEN.split(match.group(0)))),
                       term(after.group(1)) if (after := _FOLLOWER.match(text, match.end())) else None)
                      for match in _COMPOUND.finditer(text))
    alone = frozenset(term for term in lexical.terms(_COMPOUND.sub(" ", text)) if len(term) > 1 or not term.isalpha())
    return alone, compounds


#: Words that name what kind of thing a concept is, not which: "chronic kidney disease" does not touch COPD.
GENERIC = frozenset("disease diseases disorder disorders syndrome syndromes condition conditions problem problems".split())
_GENERIC = frozenset(_stems(" ".join(GENERIC)))
_PLAIN = _GENERIC | _QUALIFIERS


def touches(text: str, concepts: list[Concept]) -> bool:
    """Whether ``text`` holds a word of one of ``concepts`` — some of what an alternative of it says, not who, when
    or how much (:data:`CONTEXT`), nor of what kind (:data:`QUALIFIERS`, :data:`GENERIC`): "Drinks socially" touches
    "drink alcohol"; "Shortness of breath" and "chronic kidney disease" do not touch COPD. A word holding digits says
    which thing it is, and must be held: "Hemoglobin was 6.1 g/dL" does not touch "hemoglobin A1c"."""
    held = _held(text)
    return any((need - _PLAIN) & held and {term for term in need if any(c.isdigit() for c in term)} <= held
               for concept in concepts for need, _ in _needs(concept))


#: Words after which, in the same clause, what is mentioned is absent, denied or stopped (the common triggers of
#: NegEx, Chapman et al. 2001, abridged): "denies chest pain", "no history of diabetes", "off anticoagulation",
#: "stopped warfarin", "migraine without aura", "former smoker"; and pairs of them ("negative for", "ruled out",
#: "hydroxyzine rather than benzodiazepines", "instead of").
NEGATIONS = frozenset("""no not neither nor denies denied deny without never off stopped discontinued declined former
quit ceased""".split())
NEGATION_PAIRS = frozenset({("negative", "for"), ("free", "of"), ("absence", "of"), ("ruled", "out"),
                            ("rules", "out"), ("rule", "out"), ("rather", "than"), ("instead", "of")})
#: Words and pairs after a mention that undo it ("warfarin was stopped", "a smoker who quit", "warfarin held for
#: surgery"), and pairs after it that deny it ("diabetes was ruled out").
UNDOING = frozenset("stopped discontinued quit ceased held".split())
DENYING_PAIRS = frozenset({("ruled", "out")})
#: Words right before a mention (within three) that say it is held now, to be taken again: "Recommend *restarting*
#: apixaban for atrial fibrillation" (as "apixaban 5 mg twice daily (*to restart*)" after it) — ended, not present.
RESTARTING = frozenset("restart restarting resume resuming".split())
#: Words right before a mention (within three), or opening its clause, that say it is held now: "*Hold* nephrotoxic
#: agents including NSAIDs and the ACE inhibitor", "*holding* metformin" — ended, unless only if or below a value
#: ("Hold metoprolol for heart rate below 60": taken).
HOLDING = frozenset("hold holding held".split())
#: Of the negations, those saying it was so and ended ("former smoker", "stopped warfarin", "off warfarin", "warfarin
#: held for surgery", "Recommend restarting apixaban"), and the one saying it never was ("never smoked"). A question
#: asking who never had a thing is not told by a record saying it ended, nor one asking who stopped it by a record
#: saying it never was; one asking who does not have it ("not on warfarin") is told by either. A mention's polarity
#: (:func:`_polarities`) is ``True`` where said, ``False`` where absent or denied, :data:`ENDED` or :data:`NEVER` where so
#: negated, ``None`` where of a relative.
ENDING = frozenset("stopped discontinued quit ceased former off".split())
ENDED, NEVER = "ended", "never"
#: Words shortly before an ending ("quit", "stopped") that say it has not come: "has not quit smoking", "had still not
#: stopped smoking", "was advised to quit smoking", "should stop drinking", "unable to quit" (:func:`_goes_on`).
_NOT_YET = frozenset("not never should must advised encouraged counseled counselled urged recommended wants trying try "
                     "plans planning unable failed".split())
#: The polarity of a mention that is only a possibility: a risk ("at risk of falls"; "the risks of the procedure,
#: including bleeding, infection and DVT, were discussed"), possible complications, a suspicion or what is to be ruled
#: out ("Reason: Suspected COVID-19", "rule out MI"; ConText's hypothetical and uncertain, abridged): it tells no
#: question. A risk factor is no possibility ("cardiac risk factors: hypertension").
HYPOTHETICAL = "a possibility"
_RISK = frozenset("risk risks".split())
_POSSIBLE_PAIRS = frozenset({("complications", "including"), ("complications", "include"), ("complications", "such"),
                             ("possible", "complications"), ("potential", "complications")})
#: Words right before a mention (within :data:`SUSPICION_REACH`) that make it a suspicion, and pairs that make it what
#: is to be ruled out ("MRI to exclude osteomyelitis", "Ultrasound to assess for DVT").
SUSPECTED = frozenset("suspected suspect suspicion".split())  # not "suspicious": a suspicious nodule is there
_RULING_OUT = frozenset({("rule", "out"), ("r", "o"), ("evaluate", "for"), ("concern", "for"), ("concerning", "for"),
                         ("to", "exclude"), ("assess", "for")})
SUSPICION_REACH = 3
#: The polarity of a mention as what a vaccine, a screening or a prophylaxis is for ("Encourage *influenza* and
#: pneumococcal vaccination", "found on a lung *cancer* screening CT", "vaccinated against *shingles*"): none of it is
#: said to be there, and only a question asking so (:attr:`Analysis.averted`) is told by it.
AVERTED = "vaccinated or screened against"
_AVERTING = frozenset("""
vaccine vaccines vaccination vaccinations vaccinated immunization immunizations immunized shot shots booster boosters
screening screenings prophylaxis
""".split())
_AVERTING_PAIRS = frozenset({("vaccinated", "against"), ("vaccination", "against"), ("vaccine", "against"),
                             ("vaccines", "against"), ("immunized", "against"), ("immunization", "against"),
                             ("screened", "for"), ("screening", "for"), ("prophylaxis", "against"),
                             ("prophylaxis", "for")})


def _averted(before: tuple[str, ...], after: tuple[str, ...]) -> bool:
    """Whether a mention is what a vaccine, a screening or a prophylaxis is for (:data:`AVERTED`): one of them right
    after it, or after one more thing it is said with ("influenza and pneumococcal vaccination"), or just before it
    with what it is against ("screened for colon cancer")."""
    near = before[-4:]
    return bool(after and (after[0] in _AVERTING or after[0] in ("and", "or") and after[2:3] and after[2] in _AVERTING)
                or not _AVERTING_PAIRS.isdisjoint(zip(near, near[1:])))
#: Words of what a thing brings that a negation before them denies instead of the thing ("no side effects from
#: lisinopril", "no complications of diabetes"): the thing is said.
BROUGHT = frozenset("effect effects complication complications".split())
_OF = frozenset("of from with to".split())


#: Words that give a reason or a time, beyond which a negation before them does not reach (NegEx's and ConText's
#: terminations, abridged): "stopped lithium *because of* tremor", "metformin discontinued *due to* diarrhea",
#: "stopped warfarin *after* a nosebleed", "no seizures *since* starting levetiracetam" — the tremor, the diarrhea, the
#: nosebleed and the levetiracetam were there. Not where negated itself ("not due to infection").
_REASON_WORDS = frozenset("because after since".split())
_REASON_PAIRS = frozenset({("due", "to"), ("secondary", "to"), ("owing", "to"), ("caused", "by"), ("prompted", "by")})


def _gives_reason(words: tuple[str, ...], i: int) -> bool:
    """Whether ``words[i]`` opens a reason or a time a negation before it does not reach (:data:`_REASON_WORDS`)."""
    return ((words[i] in _REASON_WORDS or tuple(words[i:i + 2]) in _REASON_PAIRS)
            and not (i and words[i - 1] in NEGATIONS))


def _brought(words: tuple[str, ...], i: int) -> bool:
    """Whether ``words[i]`` says what a thing after it brought: a word of :data:`BROUGHT` before "of", "from" …
    ("Denies complications, diabetes or hypertension" denies all three)."""
    return words[i] in BROUGHT and i + 1 < len(words) and words[i + 1] in _OF


def _goes_on(words: tuple[str, ...], i: int) -> bool:
    """Whether ``words[i]``, an ending, is one that has not come (:data:`_NOT_YET` within the three words before it):
    what it would end goes on."""
    return words[i] in ENDING and not _NOT_YET.isdisjoint(words[max(0, i - 3):i])


def _joins_affirming(words: tuple[str, ...], i: int) -> bool:
    """Whether ``words[i]`` opens, after "and", what the writer affirms of the patient: a verb of :data:`_AFFIRMING`
    ("She denies fever and has a cough": no negation before it reaches the cough)."""
    return i > 0 and words[i - 1] == "and" and words[i] in _AFFIRMING and words[i] not in _NOT_A_VERB


def _to_restart(words: tuple[str, ...], items: tuple[int, ...], at: int) -> bool:
    """Whether the item of a list the mention ending at ``at`` is in goes on to say it is held, to be taken again:
    "apixaban 5 mg twice daily (to restart)" (:data:`RESTARTING`)."""
    rest = [word for word, item in zip(words[at + 1:], items[at + 1:]) if item == items[at]][:LIST_ITEM + 3]
    return any(word == "to" and then in RESTARTING for word, then in zip(rest, rest[1:]))


def _held_now(words: tuple[str, ...], before: tuple[str, ...], after: tuple[str, ...]) -> bool:
    """Whether a clause (``words``) holds what it mentions now: a word of :data:`HOLDING` opens it or is among the
    three ``before`` the mention, and the words ``after`` it give no condition (:func:`_conditional`)."""
    return (words[0] in HOLDING or not HOLDING.isdisjoint(before[-3:])) and not _conditional(after)


def _a_period_ago(before: tuple[str, ...]) -> bool:
    """Whether the words ``before`` a mention say it was so for a while that has ended: "after a period of
    homelessness", "following a long period of abstinence"."""
    return before[-2:] == ("period", "of") and not {"after", "following"}.isdisjoint(before[-5:-2])


def _opens_clause(words: tuple[str, ...], i: int) -> bool:
    """Whether ``words[i]`` is an "and" between two clauses, each with its verb (:data:`_FINITE`), the second's after
    its own subject: "There is no prior history of epilepsy and CT of the head was unremarkable" — no negation of the
    first reaches the second. Not "No fever and chills were reported" (the first has no verb: the second's is
    both's), nor "denies fever and has a cough" (no subject: :func:`_joins_affirming`)."""
    return (words[i] == "and" and not _FINITE.isdisjoint(words[:i])
            and not _FINITE.isdisjoint(words[i + 2:]) and words[i + 1] not in _FINITE)


def _hypothetical(preceding: tuple[str, ...], suspected: bool = False) -> bool:
    """Whether the words of a clause ``preceding`` a mention make it a possibility (:data:`HYPOTHETICAL`) — a suspicion
    not when the question asks for one (``suspected``: "Which patients had suspected COVID?")."""
    near = () if suspected else preceding[-SUSPICION_REACH:]
    return (any(word in _RISK and preceding[i + 1:i + 2] not in (("factor",), ("factors",))
                for i, word in enumerate(preceding))
            or not _POSSIBLE_PAIRS.isdisjoint(zip(preceding, preceding[1:]))
            or not SUSPECTED.isdisjoint(near) or not _RULING_OUT.isdisjoint(zip(near, near[1:])))


#: The polarity of a mention of what is only planned ("Outpatient colonoscopy and upper endoscopy to evaluate …",
#: "Colonoscopy in six to eight weeks", "scheduled for a knee replacement"): a question asking what was so ("Which
#: patients had a colonoscopy?", :attr:`Analysis.past`) is not told by it; one asking what is so ("…are on insulin?"
#: of "will start insulin") is, as by what is said present, and one asking whether a named patient had it, as by "no".
#: Planned by a word before it within :data:`PLAN_REACH` (:data:`_PLANNING`; not "pending", which is of results: "Treat
#: urosepsis with IV ceftriaxone pending urine culture sensitivities"), or after it "in" and a time to come ("in two
#: weeks", "in the next month"). Not by "planned" after it: "Laparoscopic cholecystectomy planned within 72 hours of
#: presentation" in a discharge summary was done by the time it was written. An order a clause opens with, given only
#: if or below or above a value, is planned too: "Transfuse one unit of packed red cells for hemoglobin below 7 g/dL",
#: "Insulin sliding scale for glucose above 200" (not "Started on insulin for glucose above 400", "Transfused two units
#: for hemoglobin below 7": done, for a reason), and one given only with what it is for: "Renal ultrasound to exclude
#: obstruction" (not "CT to exclude pulmonary embolism was negative"); so is what a plan's noun right after it says a
#: plan is of: "Restrictive transfusion strategy targeting hemoglobin of 7 to 8 g/dL".
PLANNED = "planned"
_PLANNING = frozenset("""will plan plans planned planning scheduled schedule upcoming arrange arranged arranging outpatient
recommend recommended consider considering""".split())
_LATER = frozenset("day days week weeks month months year years".split())
_EARLIER = frozenset("past last prior previous preceding".split())
PLAN_REACH = 6


#: The bounds that, within three words after "for", make an order conditional (:func:`_conditional`).
_BOUNDS = frozenset("below under above over less greater exceeds exceeding".split())
#: Words after a mention that make it what a plan is of: "transfusion *strategy*", "insulin *protocol*".
_PLAN_NOUNS = frozenset("strategy strategies protocol protocols plan plans threshold thresholds goal goals".split())
#: … unless the clause says it was done: "Insulin drip was given for glucose above 400".
_DONE = frozenset("was were had been given".split())
#: Words that, right after "to", give what an order a clause opens with is for: "Renal ultrasound *to exclude*
#: obstruction", "Foot radiographs and MRI *to rule out* osteomyelitis", "Echocardiogram *to assess* …" (:func:`_for`).
_PURPOSES = frozenset("exclude rule evaluate assess check screen look confirm investigate".split())
#: … unless the clause says it was done, or what it found: "CT to exclude pulmonary embolism *was negative*".
_FOUND = _DONE | frozenset("showed shows revealed reveals demonstrated demonstrates performed obtained done negative "
                           "positive unremarkable normal".split())


def _conditional(after: tuple[str, ...]) -> bool:
    """Whether the words ``after`` an order's mention give it only if or below or above a value: "if", or "for" and,
    within three words, a bound ("Transfuse … for hemoglobin below 7", "Hold metoprolol for heart rate below 60")."""
    return "if" in after or any(word == "for" and not _BOUNDS.isdisjoint(after[i + 1:i + 4])
                                for i, word in enumerate(after))


def _for(after: tuple[str, ...]) -> bool:
    """Whether the words ``after`` an order's mention give only what it is for (:data:`_PURPOSES`), within the first
    words, and nothing of it done or found (:data:`_FOUND`): "Renal ultrasound to exclude obstruction." is ordered,
    "CT to exclude pulmonary embolism was negative." done."""
    return _FOUND.isdisjoint(after) and any(word == "to" and then in _PURPOSES for word, then in zip(after[:4], after[1:5]))


#: How many words that only say which may stand before a thing its clause still opens with: "*Renal* ultrasound to
#: exclude obstruction", "*Repeat* CT if worse", "*Left knee* x-ray if pain persists".
OPENING_REACH = 2
#: Words that say which order, before it: "*Repeat* CT", "*urgent* MRI", "*bedside* ultrasound".
ORDER_WORDS = frozenset("repeat urgent stat outpatient inpatient bedside formal baseline follow up".split())


def _opens_with(words: tuple[str, ...], stems: tuple[frozenset[str], ...], at: int) -> bool:
    """Whether a clause (its ``words`` and their terms) opens with the thing mentioned at ``at``: nothing before it but
    up to :data:`OPENING_REACH` words that say which — a part of the body or its side (:data:`SITES`), an adjective
    ("renal", "transthoracic") or :data:`ORDER_WORDS`; not a verb ("Underwent", "Ordered") or a time ("Prior CT …")."""
    if at == 0:
        return not words[0].endswith("ed")
    return at <= OPENING_REACH and all(
        words[i] in ORDER_WORDS or (stems[i] and stems[i] <= _SITE_WORDS)
        or (_DESCRIBING.fullmatch(words[i]) and not words[i].endswith("ed")) for i in range(at))


def _planned(before: tuple[str, ...], after: tuple[str, ...], opens: bool = False) -> bool:
    """Whether the words ``before`` and ``after`` a mention say it is only planned (:data:`PLANNED`); ``opens``: the
    mention opens its clause."""
    if not _PLANNING.isdisjoint(before[-PLAN_REACH:]):
        return True
    if after[:1] and after[0] in _PLAN_NOUNS:  # "Restrictive transfusion strategy targeting hemoglobin of 7 to 8"
        return True
    if opens and _DONE.isdisjoint(after) and _conditional(after):
        return True
    if opens and _for(after):
        return True
    after = after[:PLAN_REACH]
    for i, word in enumerate(after):
        then = set(after[i + 1:i + 5])  # "in two weeks", "in the next month"; not "in the past 3 weeks"
        if word == "in" and then & _LATER and not then & _EARLIER:
            return True
    return False


#: The polarity of a mention that says the thing seldom or little ("Rarely drinks alcohol", "Drinks alcohol socially",
#: "occasional alcohol use", "a light smoker", "Alcohol: occasional."): it is so, but tells no question asking it as
#: often or much (:attr:`Analysis.often`: "Which patients drink alcohol daily?", "…are heavy drinkers?").
SELDOM = "seldom or little"
SELDOM_WORDS = frozenset("""rare rarely occasional occasionally socially seldom infrequent infrequently light lightly
minimal minimally sporadic sporadically""".split())
#: "social" says seldom only of what it qualifies ("social drinker", "social alcohol use"; not "social history").
_SOCIALLY = frozenset("drinker drinkers drinking drinks drink alcohol etoh smoker smoking".split())
#: The words of a question that ask its thing as often or much, within :data:`AMOUNT_REACH` words of it.
OFTEN = frozenset("""daily heavy heavily excessive excessively regular regularly frequent frequently binge everyday
nightly chronically""".split())
AMOUNT_REACH = 4
_EVERY_DAY = re.compile(r"\b(?:every|each)\s+(?:day|night)\b")


def _seldom(words: tuple[str, ...], first: int, last: int) -> bool:
    """Whether the words of a clause within :data:`AMOUNT_REACH` of a mention (from ``first`` to ``last``) say it seldom
    or little (:data:`SELDOM`)."""
    near = words[max(0, first - AMOUNT_REACH):last + 1 + AMOUNT_REACH]
    return not SELDOM_WORDS.isdisjoint(near) or any(
        word == "social" and following in _SOCIALLY for word, following in zip(near, near[1:]))


#: The polarity of a mention in what a department's or a service's heading heads ("Department: surgery.", "Service:
#: Cardiology.", "Specialty: Orthopedic Surgery."), or right before such a word (:data:`_UNITS`: "the surgery service"):
#: where the patient was cared for, not what was done or found — it tells no question ("Which patients had surgery?")
#: but one asking where ("…admitted to surgery?").
UNIT = "the name of a department or service"
_UNIT_HEADINGS = frozenset("department dept service specialty speciality unit ward".split())
#: The words that, right after a thing, make it a department's or a service's name: "referred to the *surgery service*
#: for abdominal pain", "seen in the emergency department" — not what was done ("Which patients had surgery?").
_UNITS = frozenset("department departments dept service services".split())
#: The words right before a thing a question asks as where the patient was cared for (:attr:`Analysis.where`).
_CARED_IN = re.compile(r"\b(?:in|to|by|on|under|from)\s+(?:(?:the|a|an)\s+)?$", re.IGNORECASE)


#: The polarity of a mention that says the patient is allergic to it, not that they take it: under an "Allergies:"
#: heading ("ALLERGIES: Penicillin (rash)."), after "allergic to", "allergy to" or "intolerant of", or before "allergy"
#: or "intolerance" ("amoxicillin allergy"). It tells only a question asking about an allergy ("Which patients are
#: allergic to amoxicillin?"), not "Which patients are on amoxicillin?".
ALLERGIC = "an allergy"
_ALLERGY = frozenset("allergy allergies allergic intolerance intolerances intolerant".split())
_ALLERGY_TERMS = frozenset(_stems(" ".join(_ALLERGY)))
_ALLERGIC_TO = frozenset({("allergic", "to"), ("allergy", "to"), ("allergies", "to"), ("intolerant", "of"),
                          ("intolerant", "to"), ("intolerance", "to")})


#: What joins the things of a list an allergy is to ("allergic to amoxicillin *or* cephalexin"), and what may open it
#: ("allergic to *both* penicillin and sulfa").
_LISTING = frozenset({"and", "or", "nor"})
_LIST_OPENING = frozenset({"both", "either"})
#: How many words back from a later thing of such a list its opening "allergic to" may be: the things before it and
#: their joining words.
LIST_REACH = 6


def _allergic(words: tuple[str, ...], first: int, last: int) -> bool:
    """Whether the words of a clause around a mention (from ``first`` to ``last``) say an allergy to it
    (:data:`ALLERGIC`): right after "allergic to" (or "both", "either" after it), as a later thing of a list it opens
    ("allergic to amoxicillin or cephalexin": the cephalexin too), or right before "allergy"."""
    if _after_allergy(words, first) or (last + 1 < len(words) and words[last + 1] in _ALLERGY):
        return True
    return first > 0 and words[first - 1] in _LISTING and any(
        _after_allergy(words, start) for start in range(first - 2, max(first - 2 - LIST_REACH, 1), -1))


def _after_allergy(words: tuple[str, ...], first: int) -> bool:
    """Whether the words right before ``first`` say an allergy to what it begins ("allergic to", "intolerant of both")."""
    if first > 0 and words[first - 1] in _LIST_OPENING:
        first -= 1
    return tuple(words[max(0, first - 2):first]) in _ALLERGIC_TO


#: The polarity of a mention a relative's word reaches and a negation denies ("No family history of breast cancer",
#: "Her mother did not have diabetes"): neither the patient's nor a relative's, it tells no question.
KIN_DENIED = "denied of relatives"
#: Words that put a mention on someone other than the patient, as ConText's experiencer does ("FAMILY HISTORY: Mother
#: with type 2 diabetes"): it tells nothing of the patient, unless the question asks about relatives.
RELATIVES = frozenset("""
family mother mothers father fathers parent parents sister sisters brother brothers sibling siblings aunt aunts uncle
uncles grandmother grandmothers grandfather grandfathers grandparent grandparents cousin cousins mom moms dad dads
grandma grandmas grandpa grandpas stepmother stepfather
""".split())  # not son or daughter: "lives with her son" is a social history, and it is the patient's (CHILDREN)
#: The words for each relative a question may name ("Whose *mother* had breast cancer?" is not told by "Sister with breast
#: cancer", nor by "Maternal grandmother: breast cancer"; "…a *parent* with …" by a mother's or a father's).
_KIN_WORDS = ["mother mothers mom moms mum mums stepmother", "father fathers dad dads stepfather", "sister sisters",
              "brother brothers", "aunt aunts", "uncle uncles", "grandmother grandmothers grandma grandmas",
              "grandfather grandfathers grandpa grandpas", "cousin cousins", "son sons", "daughter daughters"]
KINDRED = {word: frozenset(words.split()) for words in _KIN_WORDS for word in words.split()}
KINDRED |= {name: frozenset(names.split()).union(*(KINDRED[one] for one in members.split()))
            for names, members in {"parent parents": "mother father", "sibling siblings": "sister brother",
                                   "grandparent grandparents": "grandmother grandfather",
                                   "child children": "son daughter"}.items() for name in names.split()}
#: A son or a daughter is a relative only as what a clause opens with, after words that count or point at them at most
#: (:func:`_opened_by_kin`): "Her daughter has depression", "One son has ADHD", not "She lives with her son and has asthma".
CHILDREN = frozenset("son sons daughter daughters".split())
_BEFORE_CHILDREN = frozenset("her his their one a an the older younger oldest youngest elder eldest two three both "
                             "adult".split())
#: Every word for a relative: :data:`RELATIVES` and the sons and daughters a clause may be about.
_ANY_RELATIVE = RELATIVES | CHILDREN
#: What a relative who only tells the patient's history does (after the relative's word: "Mom *states* …", "Mother
#: *reports* …"; before it: "*per* mother", "history obtained *from* father"), and the words for the patient they tell
#: it of ("Mother states that the *patient* has asthma"): the mention is then the patient's — but not after a pronoun,
#: which may be the relative's own ("Mom stated *she* had a uterine infection during *her* pregnancy").
REPORTING = frozenset("states stated reports reported says said notes noted relates related describes described".split())
REPORTED_BY = frozenset("per from by".split())
PATIENT_WORDS = frozenset("patient patients pt child infant baby toddler".split())
PRONOUNS = frozenset("she he her his hers him they their them herself himself".split())
#: The relatives who are women and men, and the pronouns that cannot be theirs: "Per mother, *he* has had asthma".
WOMEN_KIN = frozenset("mother mothers mom moms sister sisters aunt aunts grandmother grandmothers grandma grandmas "
                      "stepmother daughter daughters".split())
MEN_KIN = frozenset("father fathers dad dads brother brothers uncle uncles grandfather grandfathers grandpa grandpas "
                    "stepfather son sons".split())
NOT_HERS = frozenset("he his him himself".split())
NOT_HIS = frozenset("she her hers herself".split())


def _kin_said(before: tuple[str, ...] | list[str], relatives: frozenset[str] = RELATIVES) -> bool:
    """Whether a relative's word among the words ``before`` a mention makes it the relative's: unless the patient is
    named after it (:data:`PATIENT_WORDS`), or it only tells the patient's history (:data:`REPORTING`,
    :data:`REPORTED_BY`) and no pronoun that may be its own stands between (:data:`PRONOUNS`; not "he" of a mother)."""
    for i, word in enumerate(before):
        if word not in relatives or not PATIENT_WORDS.isdisjoint(before[i + 1:]):
            continue
        telling = before[i + 1:i + 2] and before[i + 1] in REPORTING or (i and before[i - 1] in REPORTED_BY)
        theirs = PRONOUNS - (NOT_HERS if word in WOMEN_KIN else NOT_HIS if word in MEN_KIN else frozenset())
        if not telling or not theirs.isdisjoint(before[i + 1:]):
            return True
    return False


#: What a relative who opens a clause does that makes what the whole clause says theirs, however far from them it is
#: (:func:`_opened_by_kin`): "His aunt *has* a history of type II diabetes", "Mother *was* diagnosed at 45 with
#: breast cancer", "Family history *is* positive for …" — not "Mother brought him in for …", where it is the patient's.
OWNING = frozenset("has had have with was is were are died suffers suffered developed positive significant".split())
#: Words between a relative who opens a clause and what they do ("Father *also* had …", "Family *medical history* is …").
_OWNER_WORDS = frozenset("also history medical members".split())
#: Words before the relative a clause opens with: that count or point at them, or say which side of the family.
_BEFORE_KIN = _BEFORE_CHILDREN | frozenset("maternal paternal".split())


def _opened_by_kin(words: tuple[str, ...], at: int) -> bool:
    """Whether the clause of ``words`` opens with a relative (:data:`_ANY_RELATIVE`: a son or a daughter too)
    whom the mention at ``at`` belongs to, as any relative's word before it makes it (:func:`_kin_said`): within
    :data:`NEGATION_REACH` words of it (not "family" alone), or anywhere in the clause when the relative is its subject
    (:data:`OWNING`) and no pronoun that cannot be theirs stands between ("His mother has breast cancer and he has
    asthma": his asthma)."""
    first = next((i for i, word in enumerate(words[:at]) if word not in _BEFORE_KIN and not word.isdigit()), at)
    relative = words[first] if first < at else ""
    if relative not in _ANY_RELATIVE:
        return False
    verb = next((i for i in range(first + 1, at) if words[i] not in _OWNER_WORDS), at)
    if relative == "family" or at - first > NEGATION_REACH:
        not_theirs = NOT_HERS if relative in WOMEN_KIN else NOT_HIS if relative in MEN_KIN else PRONOUNS
        if verb >= at or words[verb] not in OWNING or not not_theirs.isdisjoint(words[verb:at]):
            return False
    return _kin_said(words[first:at], _ANY_RELATIVE)


#: Words that may stand between a mention and the relatives it is said of after it ("diabetes *in the* father", "cancer
#: *on the maternal side of the* family", "asthma in *both* parents").
_TO_KIN = frozenset("the her his their my both maternal paternal side sides of".split())


def _kin_after(words: tuple[str, ...], end: int) -> bool:
    """Whether the mention ending before ``end`` is said of relatives after it: "in" or "on" within two words of it
    (a list's next item: "cancer and asthma on the paternal side of the family") and, past :data:`_TO_KIN`, a relative
    ("Heart disease in the father", "cancer on the father's side"; not "pneumonia in the past")."""
    for at in range(end, min(len(words), end + 3)):
        if words[at] in ("in", "on"):
            after = at + 1
            while after < len(words) and words[after] in _TO_KIN:
                after += 1
            return after < len(words) and words[after].removesuffix("'s") in _ANY_RELATIVE
    return False


#: Words of a question's concept that ask for a finding off the normal ("an *elevated* troponin", "*abnormal* liver
#: enzymes"), and words that, next to a mention, say it is normal: "troponin is normal" is no elevated troponin.
OFF_NORMAL = frozenset("elevated raised increased high abnormal decreased low positive".split())
NORMAL = frozenset("normal unremarkable negative undetectable".split())
#: What may stand between a mention and the word saying it is normal ("troponin *was* normal", "*within* normal limits").
_TO_NORMAL = frozenset("is was were are remains remained within".split())
#: How many words before a mention a trigger reaches, and how many after it an undoing word.
NEGATION_REACH, UNDOING_REACH = 6, 3
#: How many words an item of a list a negation opens may have (:func:`_denied_further`).
LIST_ITEM = 5
#: Words that affirm what follows them in a list, ending a negation's reach through it ("denies fever, reports cough").
_AFFIRMING = frozenset("""reports reported endorses endorsed has had have admits admitted complains complained notes
noted positive with presents presented history is was are were on takes taking shows showed showing reveals
revealed""".split())
#: Words that begin what the patient presents with, which no negation before them reaches (ConText's terminations,
#: abridged): "a married woman with no children now presenting with recurrent depressive symptoms".
_PRESENTING = frozenset("presents presenting complains complaining states stating".split())
#: The verbs that make a clause of the words around them (:func:`_opens_clause`): being, having, and what a test or
#: the patient says.
_FINITE = frozenset("""is are was were has have had shows showed reveals revealed demonstrates demonstrated denies denied
reports reported""".split())
#: Words of :data:`_AFFIRMING` that after "and" may go on with what is denied ("denies smoking and history of drug use").
_NOT_A_VERB = frozenset("with history".split())
#: Where a trigger's reach ends: a clause's end, or a word that turns it ("but", "however"); kept when split at.
_CLAUSE = re.compile(r"([.;:!?]+(?:\s|$)|\b(?:but|however|although|except)\b)", re.IGNORECASE)
#: A clause after "but" or "however" that undoes what the clause before it ended with, without naming anything else:
#: "prescribed warfarin but stopped it", "...but it was discontinued", "...however, she quit", "...but this is no longer
#: present" ("but stopped aspirin" undoes aspirin, not warfarin; nor does "but no longer takes lisinopril" undo hypertension).
_NO_LONGER = (r"no\s+longer(?:\s+(?:present|active|applicable|relevant|needed|required|the\s+case"
              r"|an?\s+(?:issue|problem|concern)|(?:has|takes|uses|needs)\s+(?:it|them)))?")
_UNDONE_AFTER = re.compile(r"(?:(?:he|she|they|it|this|is|are|was|were|has|had|have|been|since|later|then|subsequently|"
                           r"eventually|recently)\s+)*(?:(?:" + "|".join(sorted(UNDOING)) + r")"
                           r"(?:\s+(?:it|them|taking|using|because|due|after|when|on|in)\b.*)?|" + _NO_LONGER + ")")
_TURNS = frozenset({"but", "however"})
#: How many words a clause ending in a colon may have to be a heading, which says what it names as its section does
#: (:func:`_as_headed`).
HEADING_WORDS = 4
#: What a section holding nothing begins with ("ALLERGIES: NKDA.", "Past surgical history: Noncontributory."), beside
#: the negations; and the words before the one that says how ("Tobacco: Patient denies.", "Smoking: He quit in 2005.").
_EMPTY_SECTION = frozenset("none nkda nka nkma nil negative unremarkable noncontributory non-contributory n/a".split())
_HEADED_SUBJECTS = frozenset("patient pt he she they the does did do has is was".split())
#: A relative's word labelling what follows it ("Maternal grandfather: pancreatic cancer", "Mother: breast cancer"):
#: its colon ends no clause, so the relative reaches what it labels.
_KIN_LABEL = re.compile(r"\b((?:(?:maternal|paternal|great|older|younger|twin)[\s-]+)*(?:"
                        + "|".join(sorted(RELATIVES, key=len, reverse=True)) + r"))\s*:", re.IGNORECASE)
#: How a clause that tells what runs in the family ends ("She describes cancer, hypertension … in her family"): all it
#: mentions is the relatives'.
_IN_FAMILY = frozenset({("in", "her", "family"), ("in", "his", "family"), ("in", "the", "family"),
                        ("in", "their", "family"), ("in", "my", "family")})


@functools.lru_cache(maxsize=65_536)
def _word_terms(word: str) -> frozenset[str]:
    return frozenset(lexical.terms(word))


@functools.lru_cache(maxsize=8_192)
def _sentences(text: str) -> tuple[str, ...]:
    """The sentences of ``text`` (a passage the fusion reads for what it names, question after question)."""
    return tuple(sentences_of(text))


@functools.lru_cache(maxsize=8_192)
def _held(text: str) -> frozenset[str]:
    """The terms of ``text`` (the passages and sentences an answer weighs are asked of each concept)."""
    return frozenset(lexical.terms(text))


@functools.lru_cache(maxsize=2_048)
def _clauses(text: str) -> tuple[tuple[tuple[str, ...], tuple[frozenset[str], ...], bool, tuple[int, ...],
                                       tuple[str, ...] | None], ...]:
    """The clauses of ``text``: each one's words, each word's terms, whether the clause after it, turned to by
    "but" or "however", undoes what it ends with (:data:`_UNDONE_AFTER`), which of the clause's comma-separated
    items each word is in, and, for a heading (at most :data:`HEADING_WORDS` words and a colon: "ALLERGIES:",
    "Tobacco use:"), the words of the clause it heads (``None`` for a clause that is no heading)."""
    parts = _CLAUSE.split(_KIN_LABEL.sub(r"\1 ", text))  # clause, what ends it, clause, ...
    found = [_itemized(part) for part in parts[::2]]
    said = [tuple(word for word, _ in clause) for clause in found]
    ends = [end.strip().casefold() for end in parts[1::2]]
    turns = [end in _TURNS for end in ends]
    headings = [end == ":" for end in ends]
    return tuple((words, tuple(_word_terms(word) for word in words),
                  turned and bool(_UNDONE_AFTER.fullmatch(" ".join(then))), tuple(item for _, item in clause),
                  then if heads and len(words) <= HEADING_WORDS else None)
                 for words, turned, heads, then, clause in zip(said, [*turns, False], [*headings, False],
                                                               [*said[1:], ()], found) if words)


def _as_headed(need: frozenset[str], filled: tuple[str, ...]) -> bool | str | None:
    """How a heading naming a concept (``need``, its terms) says it, from the clause it heads (``filled``): as that
    clause begins — "ALLERGIES: None." (or "NKDA", "Denies", "Does not smoke") absent, "Tobacco: Never." never,
    "Smoking: Quit in 2005." ended, "ALLERGIES: Penicillin (rash)." present — or, where that clause names the
    concept again ("ALLERGIES: No known drug allergies."), not at all (``None``): that clause says how."""
    if need <= set().union(*map(_word_terms, filled)):
        return None
    first = next((word for word in filled if word not in _HEADED_SUBJECTS), "")
    if first == "never":
        return NEVER
    if first in ENDING:
        return ENDED
    if first in SELDOM_WORDS:
        return SELDOM
    return False if first in NEGATIONS or first in _EMPTY_SECTION else True


def _itemized(clause: str) -> list[tuple[str, int]]:
    """Each word of ``clause``, folded, with how many commas come before it."""
    found, commas, end = [], 0, 0
    for match in _WORD.finditer(clause):
        commas += clause.count(",", end, match.start())
        end = match.end()
        found.append((match.group(0).casefold().replace("’", "'"), commas))
    return found


def _denied_further(words: tuple[str, ...], items: tuple[int, ...], at: int) -> bool:
    """Whether a negation trigger further back than :data:`NEGATION_REACH` words reaches the mention at ``at`` of a
    clause whose words are in comma-separated ``items``: within the mention's item counting only the words that say
    something, not stop words ("The patient denies the use of any type of cigarette" denies cigarettes), or, however
    far back, through the list the trigger opens, every item of at most :data:`LIST_ITEM` words before the mention
    ("Denies obstructive sleep apnea, kidney stones, bloody bowel movements, ulcerative colitis, Crohn's disease": a
    review of systems lists what is denied). A word that affirms (:data:`_AFFIRMING`, unless a trigger stands just
    before it in its item, "no history of", "denies a history of", or "or" joins it to what is denied, "denies recent colds or
    history of multiple sclerosis") ends both reaches: "denies chest pain, reports a cough,
    pneumonia", "not have diabetes and is on metformin for prediabetes"."""
    said = length = 0  # the words that say something in the mention's item; the words of the item walked through
    in_item = listed = True  # whether a trigger would still reach it within its item, or through a list
    for i in range(at - 1, -1, -1):
        word = words[i]
        if _brought(words, i) or _opens_clause(words, i) or _gives_reason(words, i):  # "denies any side effects of
            return False  # the metformin": what it brought is denied; "…no prior history of epilepsy and CT of the head
            # was unremarkable"; "stopped lithium because of tremor": a reason
        if word in NEGATIONS or (i > 0 and (words[i - 1], word) in NEGATION_PAIRS):
            return in_item if items[i] == items[at] else listed
        if (word in _AFFIRMING and not (i and _OR.fullmatch(words[i - 1]))  # no trigger just before it, in its item
                and NEGATIONS.isdisjoint(words[j] for j in range(max(0, i - 2), i) if items[j] == items[i])):
            return False  # … but for what "or" joins to what is denied: "denies fever or history of stroke"
        said += word not in lexical.STOP_WORDS
        in_item = in_item and items[i] == items[at] and said < NEGATION_REACH
        length = length + 1 if items[i] == items[i + 1] else 1
        listed = listed and length <= LIST_ITEM
        if not (in_item or listed):
            return False
    return False


@functools.lru_cache(maxsize=1_024)
def _needs(concept: Concept) -> tuple[tuple[frozenset[str], tuple[str, ...]], ...]:
    """What a text must hold to mention ``concept``: one of these, each an alternative's terms but its context (all
    of a synonym's, written alone or within the alternative: :data:`_NAMES` — "really high blood pressure" is high
    blood pressure, not any blood pressure), with the alternative, whose specifier the text must also write as one
    (:func:`nodes.data.lexical.written_together`)."""
    return tuple((need, option) for option in concept.alternatives
                 if (need := frozenset(lexical.held_terms(option))
                     - (_CONTEXT - _named(option) - _STATED - _CHANGES - _placing(option))))


@functools.lru_cache(maxsize=1_024)
def _placing(option: tuple[str, ...]) -> frozenset[str]:
    """The place words of ``option`` (:data:`PLACES`) said of a thing: before a word that says what ("home" of "home
    oxygen", not of "discharged home"), or ending a name (:data:`SYNONYMS`: "nursing home", "care home")."""
    terms = lexical.held_terms(option)
    named = _named(option)
    return frozenset(term for i, term in enumerate(terms) if term in _PLACES and (
        (i + 1 < len(terms) and terms[i + 1] not in _CONTEXT) or (i > 0 and term in named)))


def _named(option: tuple[str, ...]) -> frozenset[str]:
    """The terms of ``option`` that a run of it naming a synonym (:data:`_NAMES`) holds."""
    return frozenset(term for size in range(len(option), 0, -1) for start in range(len(option) - size + 1)
                     if option[start:start + size] in _NAMES for term in option[start:start + size])


#: The words of a test and its result, which may stand between a mention and "negative" saying the test found none of
#: it ("Pregnancy test negative", "urine pregnancy test was negative", "COVID-19 PCR: negative"): :func:`_negative_result`.
RESULT_WORDS = TESTS | frozenset("""
screen screening panel pcr culture cultures swab antigen assay titer titre serology hcg result results study was were is
are came back returned
""".split())
#: Of those, the words that name the test, not its result.
_TEST_NAMES = RESULT_WORDS - frozenset("was were is are came back returned result results".split())


def _asks_a_result(concept: Concept) -> bool:
    """Whether ``concept`` names a test ("a pregnancy test", "COVID PCR"): its result says nothing of its absence."""
    return not _TEST_NAMES.isdisjoint(lexical.words(concept.text))


def _asks_a_suspicion(concept: Concept) -> bool:
    """Whether ``concept`` is asked as a suspicion ("suspected COVID": :data:`SUSPECTED`): one then tells it."""
    return not SUSPECTED.isdisjoint(lexical.words(concept.text))


def _negative_result(words: tuple[str, ...], items: tuple[int, ...], at: int) -> bool:
    """Whether the words after the mention ending at ``at`` say a test found none of it: past a test's words
    (:data:`RESULT_WORDS` and numbers, at most :data:`UNDOING_REACH`), "negative" in the same comma-separated item —
    not "negative for", which denies what follows it ("Depression, negative for suicidal ideation")."""
    i = at + 1
    while i < len(words) and i - at <= UNDOING_REACH and (words[i] in RESULT_WORDS or words[i].isdigit()):
        i += 1
    return (i < len(words) and words[i] == "negative" and items[i] == items[at]
            and words[i + 1:i + 2] != ("for",))


def _said_normal(before: tuple[str, ...], after: tuple[str, ...]) -> bool:
    """Whether the words right ``before`` and ``after`` a mention say it is normal: "normal troponin", "troponin normal",
    "troponin is normal", "enzymes were within normal limits" — not a list's next item ("low back pain, normal
    neurological exam": the words carry no commas, so a word of :data:`NORMAL` right after counts only at a clause's
    end or after :data:`_TO_NORMAL`)."""
    if before[-1:] and before[-1] in NORMAL:  # "normal troponin"
        return True
    rest = after
    while rest and rest[0] in _TO_NORMAL:
        rest = rest[1:]
    linked = len(rest) < len(after)  # "is normal", "within normal limits"
    return bool(rest) and rest[0] in NORMAL and (linked or len(after) == 1)


@functools.lru_cache(maxsize=1_024)
def _off_normal(concept: Concept) -> bool:
    """Whether ``concept`` is asked off the normal (a word of :data:`OFF_NORMAL`: "an elevated troponin")."""
    return not OFF_NORMAL.isdisjoint(_WORD.findall(concept.text.casefold()))


#: The heading of a note's family history ("FAMILY HISTORY:", "Family psychiatric history:"): what its section mentions
#: is a relative's, however far from the relative's word ("The patient's father has suffered from PTSD, as well as
#: alcoholism").
_FAMILY_HEADING = re.compile(r"\bfamily(?:[ \t]+[a-z]+){0,2}[ \t]+(?:history|hx)[ \t]*:", re.IGNORECASE)
#: A heading that begins the next section: a few words, the first capitalized, and a colon ("SOCIAL HISTORY:",
#: "Medications:"); not a relative's ("Mother: diabetes" is within the family history).
_HEADING = re.compile(r"(?<![\w,])[A-Z][A-Za-z]*(?:[ /&-]+[A-Za-z]+){0,3}[ \t]*:(?=\s|$)")


def _family_sections(text: str) -> list[tuple[str, bool]]:
    """``text`` cut at each family history's heading (:data:`_FAMILY_HEADING`) and at the heading after it: each piece,
    and whether it is a family history."""
    pieces, at = [], 0
    for match in _FAMILY_HEADING.finditer(text):
        if match.start() < at:
            continue
        end = next((heading.start() for heading in _HEADING.finditer(text, match.end())
                    if RELATIVES.isdisjoint(re.findall(r"[a-z]+", heading.group(0).casefold()))), len(text))
        pieces += [(text[at:match.start()], False), (text[match.start():end], True)]
        at = end
    return [(piece, theirs) for piece, theirs in [*pieces, (text[at:], False)] if piece.strip()]


def _placed(need: frozenset[str], stems: tuple[frozenset[str], ...]) -> list[int]:
    """Where a clause (its words' terms, ``stems``) holds ``need``'s terms, if it holds them all; else none."""
    places = [i for i, stem in enumerate(stems) if need & stem]
    return places if places and need <= set().union(*(stems[i] for i in places)) else []


def _polarities(text: str, concepts: list[Concept], kin: bool = False) -> tuple[bool, set[bool | str | None]]:
    """Whether ``text`` mentions one of ``concepts`` (:func:`mentions`), and how, clause by clause: ``True`` where a
    clause affirms it, ``False`` (or :data:`ENDED`, :data:`NEVER`) where a negation reaches it (:data:`NEGATIONS`,
    :data:`UNDOING`) or, for a concept asked off the normal, where the word before it or one just after says normal
    (:data:`OFF_NORMAL`, :data:`NORMAL`), ``None`` where a relative does (:data:`RELATIVES`: someone else's, unless
    ``kin``; :data:`KIN_DENIED` where a negation denies it of them), :data:`HYPOTHETICAL` where it is only a
    possibility, :data:`AVERTED` where a vaccine or a screening is for it, :data:`PLANNED` where it is only planned,
    :data:`SELDOM` where said seldom or little, :data:`UNIT` where a department's heading heads it or it names one,
    :data:`ALLERGIC` where an allergy to it is said;
    none when no clause holds all its words. A reading that writes it (:func:`_reading`: "heart rate 107" of a fast
    heart rate) affirms it; what a family history's section mentions is a relative's (:func:`_family_sections`)."""
    if not kin and _FAMILY_HEADING.search(text):
        mentioned, found = False, set()
        for piece, theirs in _family_sections(text):
            said, how = _polarities(piece, concepts, kin=theirs)
            if said:  # a family history affirming it affirms it of a relative; denying it, denies it of them
                mentioned = True
                found |= {None if one in (True, PLANNED, SELDOM) else KIN_DENIED for one in how} if theirs else how
        return mentioned, found
    held = _held(text)
    read = [_reading(text, concept) for concept in concepts]
    asked_as = [(_off_normal(concept), _asks_a_result(concept), _asks_a_suspicion(concept)) for concept in concepts]
    options = [(need, *how) for concept, said, how in zip(concepts, read, asked_as)
               for need, option in _ways(concept, said) if _writes(text, held, need, option, concept)]
    found: set[bool | str | None] = {True} if True in read else set()
    if not options:
        return bool(found), found
    unit = allergies = False
    for words, stems, undone, items, filled in _clauses(text):
        said: set[bool | str | None] = set()
        in_unit, unit = unit, filled is not None and words[-1] in _UNIT_HEADINGS
        in_allergies, allergies = allergies, filled is not None and not _ALLERGY.isdisjoint(words)
        for need, off_normal, result, suspected in options:
            places = _placed(need, stems)
            if not places:
                continue
            if in_unit or (places[-1] + 1 < len(words) and words[places[-1] + 1] in _UNITS):
                said.add(UNIT)
                continue
            if not need & _ALLERGY_TERMS and (in_allergies or _allergic(words, places[0], places[-1])):
                said.add(ALLERGIC)
                continue
            before = words[max(0, places[0] - NEGATION_REACH):places[0]]
            after = words[places[-1] + 1:places[-1] + 1 + UNDOING_REACH]
            if not kin and (_kin_said(before) or _opened_by_kin(words, places[0]) or _kin_after(words, places[-1] + 1)
                            or words[-3:] in _IN_FAMILY):
                # a relative's, or denied of them
                denied = (not NEGATIONS.isdisjoint(before) or not NEGATION_PAIRS.isdisjoint(zip(before, before[1:]))
                          or not DENYING_PAIRS.isdisjoint(zip(after, after[1:])))
                said.add(KIN_DENIED if denied else None)
                continue
            if filled:  # a heading: as its section says it
                headed = _as_headed(need, filled)
                if headed is not None:
                    said.add(headed)
                continue
            if _hypothetical(words[:places[0]], suspected):
                said.add(HYPOTHETICAL)
                continue
            if _averted(before, after):
                said.add(AVERTED)
                continue
            # a negation of what it brought ("denies any side effects of the metformin") is none of it, nor of what
            # "and" with a verb that affirms goes on to ("denies fever and has a cough") or the patient presents with
            start = max(0, places[0] - NEGATION_REACH)
            # (nor what a reason or a time after the negation brings, "stopped lithium because of tremor": from it on)
            cut = max((i + 1 for i in range(len(before)) if _brought(before, i) or _joins_affirming(before, i)
                       or before[i] in _PRESENTING or _opens_clause(words, start + i)), default=0)
            reason = max((i for i in range(len(before)) if _gives_reason(before, i)), default=0)
            before = before[max(cut, reason):]
            triggers = [i for i, word in enumerate(before) if word in NEGATIONS]
            if triggers and _goes_on(before, triggers[-1]):  # "has not quit smoking", "was advised to quit smoking"
                said.add(True)
            elif triggers:  # the trigger nearest the mention says how
                last = before[triggers[-1]]
                said.add(NEVER if last == "never" else ENDED if last in ENDING else False)
            elif (_denied_further(words, items, places[0]) or not NEGATION_PAIRS.isdisjoint(zip(before, before[1:]))
                  or not DENYING_PAIRS.isdisjoint(zip(after, after[1:])) or (off_normal and _said_normal(before, after))
                  or (not result and _negative_result(words, items, places[-1]))):
                said.add(False)
            elif (any(word in UNDOING for word in after) or (undone and len(words) - places[-1] <= UNDOING_REACH)
                  or not RESTARTING.isdisjoint(before[-3:]) or _held_now(words, before, words[places[-1] + 1:])
                  or _to_restart(words, items, places[-1]) or _a_period_ago(before)):
                said.add(ENDED)
            else:
                said.add(PLANNED if _planned(before, words[places[-1] + 1:], opens=_opens_with(words, stems, places[0]))
                         else SELDOM if _seldom(words, places[0], places[-1]) else True)
        # a clause negating one way of saying it negates it, whatever another way's words scattered over the clause
        # read as: "Venous duplex ultrasound was negative for deep vein thrombosis" holds "deep venous thrombosis" too
        negations = said & {False, ENDED, NEVER}
        found |= negations or said
    return True, found


def tells(text: str, analysis: Analysis, indices: list[int]) -> bool:
    """Whether ``text`` says one of the question's concepts at ``indices`` the way the question asks about it:
    present ("Which patients are on warfarin?" is not told by "Stopped warfarin after a nosebleed."), or absent,
    denied or stopped when the question asks so (:attr:`Analysis.negated`: "Who stopped warfarin?" is), either way
    when it asks whether a named patient has it (:attr:`Analysis.whether`: "Is Justin Ramirez on warfarin?" is told
    "no" by "Stopped warfarin"), at a value that holds when the question asks for one (:attr:`Analysis.compared`:
    "…oxygen saturation below 88%?" is told by "oxygen saturation 84% on room air", not by 92%), as often or much
    as asked (:attr:`Analysis.often`), and as where the patient was cared for only when asked so (:attr:`Analysis.where`).
    A relative's mention tells nothing of the patient, and what the question asks of a relative (:attr:`Analysis.kin`:
    "…a family history of heart disease?") only a relative's mention tells — of the relative it names, if it names one
    (:attr:`Analysis.kindred`). A text holding a concept's words only across clauses
    tells it as present."""
    for i in indices:
        held_to = [comparison for comparison in analysis.compared if comparison.concept == i]
        if held_to:  # a value asked for: told by a value that holds, whatever else the text says
            if any(comparison.holds(value) for comparison in held_to for value in _values(text, analysis.concepts[i])):
                return True
            continue
        if i in analysis.begun and not analysis.whether and not _begun_beside(text, analysis.concepts[i]):
            continue  # asked as started, and not written so
        if any(_sited_otherwise(text, analysis.concepts[i], analysis.concepts[part])
               for head, part in analysis.of_one if head == i):
            continue  # asked of one part of the body, and written of another
        mentioned, polarities = _polarities(text, [analysis.concepts[i]])
        if i in analysis.kin:  # asked of a relative: told by a relative's mention only, of the relative named if one is
            if None in polarities and (not analysis.kindred or _of_kindred(text, analysis.concepts[i], analysis.kindred)):
                return True
            continue
        if polarities & _telling(analysis, i):
            return True
        if mentioned and not polarities and i not in analysis.negated:
            return True
    return False


#: Parts of the body, as the words a record puts right before a test or a procedure ("a *wrist* X-ray", "*bone* biopsy")
#: or after it and "of", "on" or "in" ("an X-ray *of the left knee*"): where it was done (:func:`_sited_otherwise`).
SITES = frozenset("""
    head brain skull face facial eye eyes orbit ear ears nose nasal sinus sinuses mouth jaw neck throat thyroid chest
    breast breasts lung lungs pulmonary heart cardiac abdomen abdominal pelvis pelvic back spine spinal lumbar cervical
    thoracic sacral shoulder shoulders arm arms elbow elbows forearm wrist wrists hand hands finger fingers thumb hip hips
    thigh femur femoral knee knees leg legs shin tibia ankle ankles foot feet heel toe toes skin bone bones marrow liver
    hepatic kidney kidneys renal bladder prostate uterus uterine ovary ovaries ovarian colon rectum rectal stomach gastric
    esophagus esophageal pancreas pancreatic gallbladder spleen lymph node nodes muscle carotid aorta aortic appendix
""".split())
_SITES = frozenset(_stems(" ".join(SITES)))
#: Procedures whose names say where they are done ("remote appendectomy" is no surgery on the knee).
SITED_BY_NAME = {"appendectomy": "appendix", "cholecystectomy": "gallbladder", "colectomy": "colon", "mastectomy": "breast",
                 "lumpectomy": "breast", "lobectomy": "lung", "thyroidectomy": "thyroid", "hysterectomy": "uterus",
                 "nephrectomy": "kidney", "prostatectomy": "prostate", "craniotomy": "head brain skull",
                 "laparotomy": "abdomen abdominal", "mammogram": "breast", "echocardiogram": "heart cardiac"}
_SITED_BY_NAME = {_stems(name)[0]: frozenset(_stems(sites)) for name, sites in SITED_BY_NAME.items()}
#: Words that may stand between a test or procedure and the part of the body it is of: "of the left knee", "on her
#: right hip", "great toe" apart.
_SIDES = frozenset(_stems("left right bilateral lower upper both great"))
_SITE_WORDS = _SITES | _SIDES
_SITED_BY = frozenset("of on in".split())
_AND = frozenset("and or".split())


def _all_terms(concept: Concept) -> frozenset[str]:
    """Every term of every way of saying ``concept``."""
    return frozenset(term for option in concept.alternatives for term in option)


def is_site(concept: Concept) -> bool:
    """Whether ``concept`` is a part of the body (:data:`SITES`): every word of every way of saying it."""
    own = _all_terms(concept)
    return bool(own) and own <= _SITES


def _sited_otherwise(text: str, thing: Concept, part: Concept) -> bool:
    """Whether ``text`` writes ``thing`` (a test or a procedure a question asks of a part of the body, ``part``: "a
    biopsy *of the skin*") only of other parts: every place it is written names a part of the body right before it or
    after "of", "on" or "in" (:data:`SITES`), or none but its own name's (:data:`SITED_BY_NAME`), none of them ``part`` —
    "Left great toe amputation with bone biopsy" is no biopsy of the skin, a "Chest radiograph" no X-ray of the knee,
    a "remote appendectomy" no surgery on the knee. A place naming no part says nothing either
    way, and a ``part`` that is no part of the body (a fracture "after a fall") none at all."""
    if not is_site(part):
        return False
    own = _all_terms(part)
    ways = [terms for need, option in _needs(thing) if (terms := [term for term in lexical.held_terms(option) if term in need])]
    placed = False
    for words, stems, *_ in _clauses(text):
        for terms in ways:
            for at in _placed(frozenset(terms[:1]), stems):
                end = at + 1
                while end < len(stems) and len(terms) > end - at and terms[end - at] in stems[end]:
                    end += 1
                sites: set[str] = set()
                before = at - 1
                while before >= 0 and (words[before] in _AND or stems[before] and stems[before] <= _SITE_WORDS):
                    sites |= stems[before] & _SITES
                    before -= 1
                if end < len(words) and words[end] in _SITED_BY:
                    after = end + 1
                    while after < len(words) and (words[after] in WHOSE or words[after] in _AND
                                                  or stems[after] and stems[after] <= _SITE_WORDS):
                        sites |= stems[after] & _SITES
                        after += 1
                if not sites:  # "remote appendectomy": of the appendix
                    sites = set().union(*(_SITED_BY_NAME.get(term, frozenset()) for term in stems[at]))
                if not sites or sites & own:
                    return False
                placed = True
    return placed


def sited_elsewhere(texts: list[str], analysis: Analysis, indices: list[int]) -> bool:
    """Whether one of ``texts`` writes one of the question's concepts at ``indices`` only of other parts of the body
    than it is asked of (:func:`_sited_otherwise`): what a refusal says of records with a wrist X-ray, asked of a knee."""
    return any(_sited_otherwise(text, analysis.concepts[head], analysis.concepts[part])
               for text in texts for head, part in analysis.of_one if head in indices)


def _of_kindred(text: str, concept: Concept, kindred: frozenset[str]) -> bool:
    """Whether a clause of ``text`` mentions ``concept`` with one of ``kindred`` its nearest relative: the last before
    it ("Mother with diabetes, sister with breast cancer": the sister's), else the first after ("breast cancer in her
    mother"); "family" names none."""
    named = _ANY_RELATIVE - {"family"}
    for words, stems, *_ in _clauses(text):
        for need, _ in _needs(concept):
            places = _placed(need, stems)
            if not places:
                continue
            before = [word for word in words[:places[0]] if word in named]
            after = [word for word in words[places[-1] + 1:] if word in named]
            if (before[-1] if before else after[0] if after else None) in kindred:
                return True
    return False


def affirms(text: str, analysis: Analysis, indices: list[int]) -> bool:
    """Whether ``text`` says one of the question's concepts at ``indices`` present, of the patient (a question asking it
    absent is not answered by whom it is said of so)."""
    return any({True, SELDOM} & _polarities(text, [analysis.concepts[i]])[1] for i in indices)


#: How a refusal names each way the records say a thing otherwise than asked (:func:`ways_said`), in this order.
OF_A_RELATIVE = "of a relative"
_OTHERWISE = {False: "absent or denied", ENDED: "stopped or ended", NEVER: "never so", PLANNED: "planned",
              HYPOTHETICAL: "a possibility or a risk", AVERTED: "what a vaccine or a screening is for",
              SELDOM: "seldom or little", UNIT: "the name of a department", ALLERGIC: ALLERGIC, None: OF_A_RELATIVE,
              KIN_DENIED: "denied of a relative"}


def ways_said(texts: list[str], analysis: Analysis, indices: list[int]) -> list[str]:
    """The ways ``texts`` say the question's concepts at ``indices`` otherwise than present (:func:`_polarities`), in
    words ("planned", "stopped or ended"): what a refusal says of the records that mention them but not as asked."""
    concepts = [analysis.concepts[i] for i in indices]
    found = {how for text in texts for how in _polarities(text, concepts)[1]}
    return [way for how, way in _OTHERWISE.items() if how in found]


def _telling(analysis: Analysis, i: int) -> set[bool | str]:
    """The polarities of a mention (:func:`_polarities`) that tell the question's concept at ``i`` as it is asked."""
    if i in analysis.averted:
        return {AVERTED}
    if i in analysis.allergic:
        return {ALLERGIC}
    besides = {UNIT} if i in analysis.where else set()
    if analysis.whether:  # yes, no, or not yet: "Did Luis Davis have a colonoscopy?" of "Outpatient colonoscopy …"
        return {True, False, ENDED, NEVER, PLANNED, SELDOM} | besides
    if i not in analysis.negated:
        told = {True, ENDED} if i in analysis.past else {True, PLANNED}
        return (told if i in analysis.often else told | {SELDOM}) | besides
    return {False, NEVER} if i in analysis.never else {ENDED} if i in analysis.ended else {False, ENDED, NEVER}


def asked(analysis: Analysis) -> list[list[int]]:
    """The things a question asks about, each the concepts (their places in ``analysis.concepts``) one of which is
    enough — "lupus or psoriasis" is one thing — without its context (:func:`is_context`; every concept, when it
    names nothing else) and what is said aside (:attr:`Analysis.aside`)."""
    groups: list[list[int]] = []
    for i, concept in enumerate(analysis.concepts):
        if analysis.aside and i in analysis.aside:
            continue
        if concept.either and groups:
            groups[-1].append(i)
        else:
            groups.append([i])
    focal = [[i for i in group if not is_context(analysis.concepts[i])
              and not (analysis.allergic and not analysis.whether and _only_allergy(analysis.concepts[i]))]
             for group in groups]
    return [group for group in focal if group] or groups


def _only_allergy(concept: Concept) -> bool:
    """Whether ``concept`` is an allergy and nothing else ("allergic", "intolerance"): in a question asking an allergy to
    a thing, what the thing's mention says (:attr:`Analysis.allergic`), not a thing asked of its own — unless it asks
    whether, which a record saying none answers ("Is she allergic to penicillin?": "No known drug allergies.")."""
    return set(_stems(concept.text)) <= _ALLERGY_TERMS


def things_asked(analysis: Analysis) -> list[list[list[str]]]:
    """What a question asks about (:func:`asked`) as a fusion weighs it (:data:`nodes.merge.MENTION_BONUS`): each
    thing the term lists that mention it — its concepts' alternatives together, at most :data:`MAX_ALTERNATIVES`, in
    the form a query carries concepts — and nothing when the question names only context (:func:`focal`)."""
    if not focal(analysis):
        return []
    return [[list(option) for i in group for option in analysis.concepts[i].alternatives][:MAX_ALTERNATIVES]
            for group in asked(analysis)]


def named_share(things: list[list[list[str]]]) -> Callable[[str], float]:
    """How much of ``things`` (:func:`things_asked`, as an answer carries them) a text names: the share of them one
    of its sentences :func:`mentions` — as an answer quotes another patient's passage, sentence by sentence (a header
    of fields "Type: emergency. Department: medicine." names no emergency department) — each thing's alternatives read
    once for every text asked of."""
    concepts = [Concept(text="", alternatives=tuple(tuple(option) for option in thing)) for thing in things]

    def share(text: str) -> float:
        held = _held(text)
        return sum(_says(text, held, concept) and any(_says(sentence, _held(sentence), concept)
                                                      for sentence in _sentences(text))
                   for concept in concepts) / len(concepts) if concepts else 0.0
    return share


def weighing(analysis: Analysis, stats: CollectionStats | None) -> dict[tuple[int, ...], float] | None:
    """How much each thing a question asks about (:func:`asked`) weighs in its answer's sentences: the thing it asks for by
    name (:attr:`Analysis.wanted`: "What *imaging* was done for headache?", "What was his *glucose* …?") one more than
    all the others together — or else, of things asked of one another, the thing asked (:attr:`Analysis.of_one`: the
    X-ray of "an X-ray of the knee", not the knee) — and each a share of one by its rarity among the passages the caller
    may search (inverse document frequency) — what a sentence saying it tells of the question that one saying another
    does not ("Which patients with heart failure were started on sacubitril?": a note on sacubitril, of which there are
    few, tells more than one more on heart failure). One thing asked about weighs one: a sentence saying it leads its
    patient's sentences ("Is Justin Ramirez anticoagulated?" is answered by his "Apixaban 5 mg twice daily (to
    restart)", not by the sentence most similar to the question of the note that says it, "Occasional cannabis use").
    ``None`` when there is nothing asked about, or the records' counts of several things are not known."""
    groups = asked(analysis)
    heads = {analysis.wanted} if analysis.wanted is not None else \
        {head for head, _ in analysis.of_one} - {part for _, part in analysis.of_one}
    wanted = [bool(heads & set(group)) for group in groups]
    if len(groups) == 1:
        return {tuple(groups[0]): 1.0 + float(wanted[0])}
    counted = mention_counts(analysis, stats)
    if not groups or counted is None or stats.docs <= 0:
        return None
    rarity = [math.log(1.0 + stats.docs / max(1, sum(counted[i] for i in group))) for group in groups]
    return {tuple(group): r / sum(rarity) + float(named) for group, r, named in zip(groups, rarity, wanted)}


def weighed(text: str, analysis: Analysis, weights: dict[tuple[int, ...], float]) -> dict[tuple[int, ...], float]:
    """What of the things the question asks ``text`` says as it asks them (:func:`tells`), each with its weight
    (:func:`weighing`): how much it tells is their sum."""
    return {group: weight for group, weight in weights.items() if tells(text, analysis, list(group))}


@functools.cache
def written() -> dict[str, int]:
    """English as people write it: pyspellchecker's 160,000 words (folded) and how often each is written. Shared:
    not to be changed."""
    packed = importlib.resources.files("spellchecker").joinpath("resources", "en.json.gz").read_bytes()
    return json.loads(gzip.decompress(packed))


#: How many of English's most written words (:func:`written`) are everyday words: "send", "told", "morning", "pain",
#: "surgery" and "cancer" are among them; "heel", "asthma", "hernia", "insulin" and "plantar" are not.
EVERYDAY = 5000


@functools.cache
def _everyday_count() -> int:
    """How often the least written of the :data:`EVERYDAY` words is written."""
    return sorted(written().values(), reverse=True)[EVERYDAY - 1]


def everyday(concept: Concept) -> bool:
    """Whether ``concept`` is said in everyday words only (:data:`EVERYDAY`): "slow", "surgery", "foods" — what a
    question asks of the thing it is about, not a thing of its own. A plural is as everyday as its singular."""
    return all(_everyday_word(word) or _everyday_word(word.removesuffix("s")) for word in lexical.words(concept.text))


def _everyday_word(word: str) -> bool:
    """Whether ``word`` is among English's :data:`EVERYDAY` most written words."""
    return written().get(word, 0) >= _everyday_count()


def unheard(concept: Concept, stats: CollectionStats) -> list[str]:
    """The words of ``concept`` that are not everyday words (:data:`EVERYDAY`) and that no record holds at all (their
    term's document frequency is 0 in ``stats``): "hiatal" of "hiatal hernia" where records tell only of other hernias,
    "Cephalexin" — the thing asked about is unknown to the records, not only put otherwise. A number ("type 2") and a
    word whose term was not counted tell nothing."""
    counted = {part for term in stats.df for part in lexical.parts(term)}
    held = {part for term, n in stats.df.items() if n for part in lexical.parts(term)}
    return [word for word in lexical.words(concept.text) if word.isalpha() and not _everyday_word(word)
            and (terms := lexical.terms(word)) and set(terms) <= counted and not set(terms) & held]


def mention_counts(analysis: Analysis, stats: CollectionStats | None) -> list[int] | None:
    """How many passages mention each of ``analysis``'s concepts, if ``stats`` counted them: ``None`` when nothing was
    counted, or what was counted is another reading's (its number of concepts differs)."""
    return stats.concepts if stats is not None and len(stats.concepts) == len(analysis.concepts) else None


def grounding(analysis: Analysis, stats: CollectionStats | None, unknown_patient: bool = False,
              naming: bool = False) -> tuple[list[str], bool]:
    """What of the question no record the caller may search mentions, and whether the answer's hits are then
    only the closest records: when nothing the question is about is mentioned — no concept of it but its
    context (:func:`is_context`; every concept, when it names nothing else) — or the patient it is about is
    held by no leaf (``unknown_patient``, known once the leaves have answered).

    An answer that names patients (``naming``: its hits are patients' records) must hold for all of what the
    question is about: one thing it asks about that no record mentions — but for the alternatives it offers
    ("lupus or psoriasis": one of them is enough) — and the patients such an answer would name are not the
    ones asked about ("Which patients with gout took methotrexate?" when no record mentions methotrexate).
    An answer from reference texts names nobody: it answers the rest, saying what no record mentions — as the question
    wrote it, with the name records write for it when the question wrote it otherwise (:func:`spelled_out`: "shingles
    (herpes zoster)", "MI (myocardial infarction)"), so the reader knows that name was searched for too — unless the
    writer says they have, take or ask about it (:attr:`Analysis.declared`) and either a word of it is one no record
    holds at all (:func:`unheard`) or the rest the records mention is said in everyday words (:func:`everyday`): "I was
    told I have a hiatal hernia. What foods should I avoid?" is about the hiatal hernia, and texts on foods to avoid
    with an inguinal hernia do not answer it; "My mother has macular degeneration. Can anything slow it down?" is
    about macular degeneration, and texts on what slows diabetic retinopathy do not answer it. A title's other words
    ("Serovar specific immunity to Neisseria gonorrhoeae", of an abstract that writes "gonorrhoea") and a letter's
    everyday words ("every morning") no record holds are only not found; what the question says was done or how
    (:attr:`Analysis.done`: "Which patients with asthma were *taught* to use an inhaler?") is neither what is missing
    nor what is found."""
    groups = [kept for group in asked(analysis) if (kept := [i for i in group if i not in analysis.done])]
    unheld = {i for i, n in enumerate(mention_counts(analysis, stats) or []) if n == 0}
    absent = list(dict.fromkeys(analysis.concepts[i].text for group in groups for i in group if i in unheld))
    missing = [all(i in unheld for i in group) for group in groups]
    plain = all(everyday(analysis.concepts[i]) for gone, group in zip(missing, groups) if not gone for i in group)
    unanswerable = naming or stats is not None and any(
        gone and any(i in analysis.declared and (plain or unheard(analysis.concepts[i], stats)) for i in group)
        for gone, group in zip(missing, groups))
    return [spelled_out(text) for text in absent], unknown_patient or (bool(missing) and all(missing)) or (
        unanswerable and any(missing))
