"""Does the passage a person would pick rank first? Today's chunker against the previous one, on demo questions.

For questions that name a patient and ask for one part of their record ("What medications is X
taking?" — the MEDICATIONS section), the named patient's passages are embedded with the real model
and ranked exactly against the question, as a leaf with a patient filter does. A question counts as
a hit when the first passage holds the section a person would pick. Printed for the chunker in
``nodes.data.chunking`` and, as the baseline measured in the same run, for the previous one (one
passage per blank-line-separated section, long ones cut at sentences, prefixed ``Patient: X.``),
with passages per record and their mean length for both; ``--mtsamples FILE`` adds those two
figures on MTSamples notes.

Usage::

    python scripts/chunking_eval.py [--patients 10] [--mtsamples ../shared/data/mtsamples/mtsamples.jsonl]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

import numpy as np

from nodes.data import embedder as emb
from nodes.data.chunking import chunk
from nodes.data.index import exact_scores
from nodes.data.records import Record
from nodes.demo import corpus as demo_corpus

TEMPLATES = {
    "What medications is {name} taking?": ("MEDICATIONS",),
    "What is the past medical history of {name}?": ("PAST MEDICAL HISTORY",),
    "What is the social history of {name}?": ("SOCIAL HISTORY",),
    "What was the assessment and plan for {name}'s visit?": ("ASSESSMENT AND PLAN",),
    "Why was {name} admitted?": ("CHIEF COMPLAINT", "HISTORY OF PRESENT ILLNESS"),
}


def previous_chunks(record: Record, size: int = 1000) -> list[str]:
    """The previous chunker: a passage per blank-line-separated section, each prefixed ``Patient: X.``."""
    prefix = f"Patient: {record.patient}. " if record.patient else ""
    out = []
    for section in (s.strip() for s in re.split(r"\n\s*\n", record.text) if s.strip()):
        current = ""
        for sentence in re.split(r"(?<=[.!?])\s+(?=[A-Z0-9])", section):
            if current and len(current) + 1 + len(sentence) > size:
                out.append(prefix + current)
                current = sentence
            else:
                current = f"{current} {sentence}".strip()
        out.append(prefix + current)
    return out


def current_chunks(record: Record) -> list[str]:
    return [p.text for p in chunk(record)]


def first_is_gold(question: str, texts: list[str], headings: tuple[str, ...], embedder) -> bool:
    vectors = embedder.embed(texts + [question])
    scores = exact_scores(vectors[:-1], vectors[-1])
    best = texts[int(np.argmax(scores))]
    return any(f"{heading}:" in best for heading in headings)


def evaluate(patients: int, seed: int = 7) -> dict:
    corpus = demo_corpus.generate(seed=seed)
    notes: dict[str, list[Record]] = {}
    for leaf, records in corpus.leaves.items():
        if leaf.endswith(".admissions"):
            continue
        for r in records:
            notes.setdefault(r.patient, []).append(Record(r.id, r.text, r.patient, r.metadata.get("date"), {}))
    names = random.Random(seed).sample(sorted(notes), k=min(patients, len(notes)))
    embedder = emb.shared()
    figures = {"questions": 0}
    for label, cut in (("previous", previous_chunks), ("current", current_chunks)):
        hits = 0
        lengths, counts = [], []
        for name in names:
            texts = [text for record in notes[name] for text in cut(record)]
            counts += [len(cut(record)) for record in notes[name]]
            lengths += [len(t) for t in texts]
            for template, headings in TEMPLATES.items():
                hits += first_is_gold(template.format(name=name), texts, headings, embedder)
        figures["questions"] = len(names) * len(TEMPLATES)
        figures[label] = {"first_is_gold": hits, "passages_per_record": float(np.mean(counts)),
                          "mean_chars": float(np.mean(lengths))}
    return figures


def mtsamples_shape(path: Path, limit: int = 500) -> dict:
    records = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            if row.get("transcription"):
                records.append(Record(str(row["id"]), row["transcription"]))
            if len(records) >= limit:
                break
    out = {}
    for label, cut in (("previous", previous_chunks), ("current", current_chunks)):
        pieces = [cut(r) for r in records]
        out[label] = {"passages_per_record": float(np.mean([len(p) for p in pieces])),
                      "mean_chars": float(np.mean([len(t) for p in pieces for t in p]))}
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--patients", type=int, default=10)
    parser.add_argument("--mtsamples", type=Path)
    args = parser.parse_args()
    figures = evaluate(args.patients)
    n = figures["questions"]
    print(f"{n} demo questions naming a patient and asking for one part of their notes:")
    for label in ("previous", "current"):
        f = figures[label]
        print(f"  {label:9} chunker: right passage first {f['first_is_gold']}/{n} ({f['first_is_gold'] / n:.0%}); "
              f"{f['passages_per_record']:.1f} passages per note, {f['mean_chars']:.0f} characters on average")
    if args.mtsamples:
        shape = mtsamples_shape(args.mtsamples)
        for label in ("previous", "current"):
            f = shape[label]
            print(f"  MTSamples, {label:9}: {f['passages_per_record']:.1f} passages per note, "
                  f"{f['mean_chars']:.0f} characters on average")
    return 0


if __name__ == "__main__":
    sys.exit(main())
