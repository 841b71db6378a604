"""Name detection on the demo question set: precision and recall of the patient filter.

For every demo question that names a patient (a patient of the corpus appears in its text), the
filter the federation would apply is computed as the gateway and leaves compute it: confident names
(spaCy, or the built-in rule without it) and candidate spans, each checked against the patients the
leaves hold (:func:`nodes.names.applied_filter`). Questions naming nobody count too: a name found in
them is a false positive.

:data:`HARD_CASES` adds questions nobody here wrote the demo for: disease, drug and test phrases, eponyms
and signatures that must filter nothing, and people spaCy does not label who must still be a filter.

Usage::

    python scripts/names_eval.py [--seed 7] [--no-spacy]
"""

from __future__ import annotations

import argparse
import sys

from nodes.demo import corpus as demo_corpus
from nodes.names import applied_filter, name_filters
from nodes.data.records import answers_to, patient_key


def evaluate(questions: list[str], patients: list[str], use_spacy: bool = True) -> dict:
    """Precision and recall of the applied filter against the patients each question names."""
    true_positive = predicted = gold_total = 0
    misses = []
    for question in questions:
        gold = {patient_key(name) for name in patients if name in question}
        filters = name_filters(question, use_spacy)
        known = held_by_leaves(filters.patients + filters.candidates, patients)
        found = {patient_key(name) for name in applied_filter(filters, known)}
        true_positive += len(found & gold)
        predicted += len(found)
        gold_total += len(gold)
        if found != gold:
            misses.append((question, sorted(gold), sorted(found)))
    return {"questions": len(questions), "named": sum(any(n in q for n in patients) for q in questions),
            "precision": true_positive / predicted if predicted else 1.0,
            "recall": true_positive / gold_total if gold_total else 1.0, "misses": misses}


#: Questions whose capitalized words are not patients, or whose patient spaCy does not call a PERSON, and the
#: filter each must get when no leaf holds anyone they name: a disease, drug or test phrase filters nothing
#: (so it never empties an answer), nor does an eponym or the writer's own signature; a person acting in the
#: question is a confident name even unknown (so nobody else's records answer for them).
HARD_CASES = [
    ("What are the symptoms of Giant Cell Vasculitis?", []),
    ("What causes Osteogenesis Imperfecta ?", []),
    ("How do I treat Plantar Fasciitis at home?", []),
    ("Is Cephalexin 500mg safe with alcohol?", []),
    ("What are the treatments for Adult Acute Lymphoblastic Leukemia ?", []),
    ("What is the outlook for Guillain-Barre Syndrome?", []),
    ("Does anyone have Guillain Barre Syndrome?", []),
    ("Who has Raynaud Phenomenon?", []),
    ("Who has Barrett Esophagus?", []),
    ("Did Mary Jones's test come back?", ["Mary Jones"]),
    ("Did Mary Jones test positive for influenza?", ["Mary Jones"]),
    ("Is Mary Jones disease-free after chemotherapy?", ["Mary Jones"]),
    ("Which patients have Parkinson's disease?", []),
    ("Who has Crohn's disease?", []),
    ("My mother has Parkinson's Disease. What can we do? Thanks, John Smith", []),
    ("My son was diagnosed with ADHD. Are the medications safe? From Sarah Johnson, Texas", []),
    ("Is it curable?\n\nBest,\nJohn Smith\nChicago, IL", []),
    ("Is a Bone Marrow Biopsy painful?", []),
    ("What are the symptoms of Foot Drop?", []),
    ("How to diagnose Atrial Fibrillation ?", []),
    ("Tell me about John Smith", ["John Smith"]),
    ("What medications is Zorblat Quixote taking for his gout?", ["Zorblat Quixote"]),
    ("Does Mr. Pemberton Fizzlewick have diabetes?", ["Pemberton Fizzlewick"]),
    ("Summarize Quillon Marwood's chart", ["Quillon Marwood"]),
    ("What did Dr. Alan Moore prescribe for Mary Jones?", ["Mary Jones"]),
    ("Is Penelope Ashworth on warfarin?", ["Penelope Ashworth"]),
    ("What medications is Bruce Ward taking?", ["Bruce Ward"]),
    ("Which patients are on the Surgical Ward?", []),
    ("Is Penelope Ashworth allergic to penicillin?", ["Penelope Ashworth"]),
    ("Is Orrin Blackwood a smoker?", ["Orrin Blackwood"]),
    ("Has Mr. Okonkwo had a colonoscopy?", ["Mr. Okonkwo"]),
    ("Does Ms. Abernathy have a pacemaker?", ["Ms. Abernathy"]),
    ("Are Penelope Ashworth and Orrin Blackwood on statins?", ["Penelope Ashworth", "Orrin Blackwood"]),
    ("Is Kidney Stones hereditary?", []),
    ("What medications is Bartholomew Quince taking?", ["Bartholomew Quince"]),
    ("Does Lyme Disease have long-term effects?", []),
    ("Is Foot Drop serious?", []),
    ("Is Lyme Disease contagious?", []),
    ("Does Mammographic Density have an Impact on the Margin Re-excision Rate After Breast-Conserving Surgery?", []),
    ("Target Serum Urate: Do Gout Patients Know Their Goal?", []),
    ("Global Longitudinal Pathway: has medical education curriculum influenced students' attitudes?", []),
]


#: A given name standing alone, a surname after a title, or a name in a question without capitals, and the filter it
#: must get where the leaves hold these patients (:data:`GIVEN_HELD`): every patient of that first name or surname (or
#: that full name), none for a name nobody has, never a clinician's, a signature's or a question's first word that asks.
GIVEN_HELD = ["Joseph Davis", "Amanda Chen", "Justin Ramirez", "Justin Clark", "Mark Cohen", "Shena Huel", "Emeka Powell"]
GIVEN_CASES = [
    ("What did the cardiologist recommend for Joseph?", ["Joseph Davis"]),
    ("Does Amanda have diabetes?", ["Amanda Chen"]),
    ("Is Justin on apixaban?", ["Justin Clark", "Justin Ramirez"]),
    ("Does Bartholomew have gout?", []),
    ("Mark the patients with diabetes.", []),
    ("Which patients did Dr. Justin see?", []),
    ("Which patients have gout? Thanks, Amanda", []),
    ("What is Mrs. Chen's blood pressure?", ["Amanda Chen"]),
    ("Is Mr. Ramirez on apixaban?", ["Justin Ramirez"]),
    ("Which patients did Dr. Chen see?", []),
    ("what is amanda chen's blood pressure?", ["Amanda Chen"]),
    ("is justin ramirez on apixaban?", ["Justin Ramirez"]),
    ("does mark have a grace period for refills?", []),
    ("what medications is shena huel taking?", ["Shena Huel"]),
    ("what is emeka powell's blood pressure?", ["Emeka Powell"]),
    ("does shena huel have HTN?", ["Shena Huel"]),
    ("does shena have gout?", []),
]


def held_by_leaves(names: list[str], held: list[str]) -> list[str]:
    """What leaves holding ``held`` report knowing of ``names`` (:meth:`nodes.data.store.LeafStore.known_patients`):
    a full name they hold, for a given name alone every patient of that first name, for a titled surname every
    patient of that surname."""
    return [patient for patient in held if any(answers_to(patient, name) for name in names)]


def hard_cases(use_spacy: bool = True) -> list[tuple[str, list[str], list[str]]]:
    """Each of :data:`HARD_CASES` (with no patient held) and :data:`GIVEN_CASES` (with :data:`GIVEN_HELD`) the filter
    gets wrong: (question, wanted, applied)."""
    wrong = []
    for question, wanted, held in [*((q, w, []) for q, w in HARD_CASES), *((q, w, GIVEN_HELD) for q, w in GIVEN_CASES)]:
        filters = name_filters(question, use_spacy)
        applied = applied_filter(filters, held_by_leaves(filters.patients + filters.candidates, held))
        if sorted(applied) != sorted(wanted):
            wrong.append((question, wanted, applied))
    return wrong


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--no-spacy", action="store_true", help="use only the built-in rule and candidates")
    args = parser.parse_args()
    corpus = demo_corpus.generate(seed=args.seed)
    figures = evaluate(corpus.questions(), list(corpus.patients), use_spacy=not args.no_spacy)
    print(f"{figures['named']} of {figures['questions']} demo questions name a patient; "
          f"precision {figures['precision']:.3f}, recall {figures['recall']:.3f}")
    for question, gold, found in figures["misses"]:
        print(f"  MISS {question!r}: named {gold}, filtered {found}")
    wrong = hard_cases(use_spacy=not args.no_spacy) if not args.no_spacy else []
    if not args.no_spacy:
        cases = len(HARD_CASES) + len(GIVEN_CASES)
        print(f"{cases - len(wrong)} of {cases} hard cases (diseases, drugs, eponyms, signatures, people spaCy does not "
              "call persons, given names and titled surnames alone, names without capitals) get the right filter")
    for question, wanted, applied in wrong:
        print(f"  WRONG {question!r}: wanted {wanted}, filtered {applied}")
    return 0 if not figures["misses"] and not wrong else 1


if __name__ == "__main__":
    sys.exit(main())
