"""Name detection on the demo question set: precision and recall of the patient filter.

For every demo question that names a patient (a patient of the corpus appears in its text), the
filter the federation would apply is computed as the gateway and leaves compute it: confident names
(spaCy, or the built-in rule without it) and candidate spans, each checked against the patients the
leaves hold (:func:`nodes.names.applied_filter`). Questions naming nobody count too: a name found in
them is a false positive.

Usage::

    python scripts/names_eval.py [--seed 7] [--no-spacy]
"""

from __future__ import annotations

import argparse
import sys

from nodes.demo import corpus as demo_corpus
from nodes.names import applied_filter, name_filters
from nodes.data.records import patient_key


def evaluate(questions: list[str], patients: list[str], use_spacy: bool = True) -> dict:
    """Precision and recall of the applied filter against the patients each question names."""
    held = {patient_key(name) for name in patients}
    true_positive = predicted = gold_total = 0
    misses = []
    for question in questions:
        gold = {patient_key(name) for name in patients if name in question}
        filters = name_filters(question, use_spacy)
        known = [n for n in filters.patients + filters.candidates if patient_key(n) in held]
        found = {patient_key(name) for name in applied_filter(filters, known)}
        true_positive += len(found & gold)
        predicted += len(found)
        gold_total += len(gold)
        if found != gold:
            misses.append((question, sorted(gold), sorted(found)))
    return {"questions": len(questions), "named": sum(any(n in q for n in patients) for q in questions),
            "precision": true_positive / predicted if predicted else 1.0,
            "recall": true_positive / gold_total if gold_total else 1.0, "misses": misses}


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
    return 0 if not figures["misses"] else 1


if __name__ == "__main__":
    sys.exit(main())
