"""Deterministic synthetic clinical corpus for the fedrag demo federation.

The federation needs data to retrieve from, but the demo must run anywhere
without real patient records or downloads.  This module writes such data
itself: from an integer seed it builds a small hospital network whose records
look like a case study.

* Three hospitals (``hospital_a``, ``hospital_b``, ``hospital_c``), each with
  an ``admissions`` unit of structured admission rows plus clinical units
  (medicine, surgery, orthopaedics, psychiatry, cardiology, neurology) that
  hold multi-section free-text notes.
* About 180 synthetic named patients.  Roughly 15% of them are seen at two
  hospitals, so some questions can only be answered by combining data from
  more than one member of the federation.
* Several *planted trends*: groups of at least eight patients, spread over at
  least two hospitals, whose notes share a clinical pattern (for example heavy
  alcohol use with alcoholic liver disease).  Each trend records the exact
  note ids and patients that carry it, so retrieval recall can be measured
  against a known ground truth.

Everything comes from ``random.Random(seed)``: the same seed always yields
byte-identical output, and nothing depends on the current date or on external
data.  Only the standard library is used.

Typical use::

    corpus = generate(seed=7)
    paths = write(corpus, pathlib.Path("data/demo"))

The generator reads top to bottom across a few modules; this one is the public
entry that other code imports, and re-exports the names below:

* :mod:`nodes.demo._layout` -- hospitals and units, record shapes, calendar.
* :mod:`nodes.demo._model` -- ``Record`` and ``DemoCorpus``.
* :mod:`nodes.demo._patients` -- the patients, their names and history.
* :mod:`nodes.demo._encounters` -- where, when and why each patient is seen.
* :mod:`nodes.demo._notes` -- the note and admission-row text of each encounter.
* :mod:`nodes.demo._trends` -- planted trends (``Trend``) and the question set.
* :mod:`nodes.demo.tables` -- the clinical sentence tables all of them draw from.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import random

from bus._system import write_atomically
from nodes.demo import _encounters, _notes, _patients, _trends
from nodes.demo._layout import ADMISSION_COLUMNS, LEAVES, MAX_NOTE_CHARS, ORG_CODES, ORG_DISPLAY, ORGS, REQUIRED_SECTIONS
from nodes.demo._model import DemoCorpus, Record
from nodes.demo._trends import TREND_MARKERS, Trend

__all__ = [
    "ADMISSION_COLUMNS",
    "DemoCorpus",
    "LEAVES",
    "MAX_NOTE_CHARS",
    "ORG_CODES",
    "ORG_DISPLAY",
    "ORGS",
    "Record",
    "REQUIRED_SECTIONS",
    "TREND_MARKERS",
    "Trend",
    "generate",
    "main",
    "write",
]

# ---------------------------------------------------------------------------
# Generation
# ---------------------------------------------------------------------------


def generate(seed: int = 7, n_patients: int = 180) -> DemoCorpus:
    """Generates the demo corpus deterministically from a seed.

    Args:
        seed: Seed for ``random.Random``; equal seeds give identical corpora.
        n_patients: Number of patients, at least 60 so every trend has
            enough patients.

    Returns:
        The corpus with all ten leaves, the planted trends and patient names.

    Raises:
        ValueError: If ``n_patients`` is below 60.
    """
    if n_patients < 60:
        raise ValueError("n_patients must be at least 60")
    rng = random.Random(seed)
    patients = _patients.make_patients(rng, n_patients)
    encounters = _encounters.plan_encounters(rng, patients)
    _encounters.assign_ids(encounters)

    leaves: dict[str, list[Record]] = {leaf: [] for leaf in LEAVES}
    last_seen: dict[str, _encounters.Encounter] = {}
    for e in encounters:  # planned per patient in chronological order
        text = _notes.render_note(rng, e, last_seen.get(e.patient.pid))
        last_seen[e.patient.pid] = e
        leaves[f"{e.org}.{e.unit}"].append(_notes.note_record(e, text))
        leaves[f"{e.org}.admissions"].append(_notes.admission_record(e))
    for leaf in leaves:
        leaves[leaf].sort(key=lambda r: r.id)

    return DemoCorpus(
        seed=seed,
        leaves=leaves,
        trends=_trends.planted(encounters),
        patients=tuple(sorted(p.name for p in patients)),
    )


# ---------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------


def _dumps(obj: object, **kwargs: object) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, **kwargs)


def write(corpus: DemoCorpus, out_dir: pathlib.Path) -> dict[str, pathlib.Path]:
    """Writes the corpus as JSONL files plus trend and question manifests.

    Layout: ``out_dir/<org>/<unit>.jsonl`` (one JSON object per line with keys
    ``id``, ``text``, ``patient``, ``metadata``), ``out_dir/trends.json``
    (``{name: {description, question, patients, record_ids}}``) and
    ``out_dir/questions.json`` (a list of strings).  Each file is written
    atomically, and the bytes are identical for the same seed.

    Args:
        corpus: Corpus returned by ``generate``.
        out_dir: Destination directory, created if missing.

    Returns:
        Mapping of leaf path to its JSONL file.
    """
    out_dir = pathlib.Path(out_dir)
    paths: dict[str, pathlib.Path] = {}
    for leaf, records in corpus.leaves.items():
        org, unit = leaf.split(".", 1)
        path = out_dir / org / f"{unit}.jsonl"
        lines = [
            _dumps({"id": r.id, "text": r.text, "patient": r.patient, "metadata": r.metadata}) + "\n"
            for r in records
        ]
        write_atomically(path, "".join(lines))
        paths[leaf] = path
    trends = {
        t.name: {
            "description": t.description,
            "question": t.question,
            "patients": list(t.patients),
            "record_ids": list(t.record_ids),
        }
        for t in corpus.trends
    }
    write_atomically(out_dir / "trends.json", _dumps(trends, indent=2) + "\n")
    write_atomically(out_dir / "questions.json", _dumps(corpus.questions(), indent=2) + "\n")
    return paths


def main(argv: list[str] | None = None) -> None:
    """Command line entry point: ``python -m nodes.demo.corpus --out DIR``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--patients", type=int, default=180)
    parser.add_argument("--out", type=pathlib.Path, required=True)
    args = parser.parse_args(argv)
    corpus = generate(args.seed, args.patients)
    for leaf, path in write(corpus, args.out).items():
        print(f"{leaf}: {len(corpus.leaves[leaf])} records -> {path}")


if __name__ == "__main__":
    main()
