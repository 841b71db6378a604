"""Do the embedder's backends rank alike? The same labelled questions through each one's federation.

The ``onnx`` backend is the default only while, on the labelled sets, every question's top-10 is the
one ``torch`` gives and nDCG@10 is within 0.5 % of it. For each set and backend this builds the set's
federation with that backend's vectors (``torch`` in the set's usual folder under ``--state-dir``,
``onnx`` beside it in ``SET-onnx``), asks the first ``--limit`` questions in each mode, and prints, per
set and mode, each backend's nDCG@10 and their ratio, how many questions got the same ten passages, how
many in the same order, and the widest span of scores over which two lists disagree: two vectors of one
text differ by about 2e-7, so passages scored closer than that (copies of a text in other records,
above all) may swap places or trade the tenth place. Exits 1 if the lists disagree over a span wider
than :data:`NEAR_TIE`, or nDCG moves more than 0.5 %.

Usage::

    python scripts/embedder_check.py [--sets medquad,pubmedqa] [--limit 200] [--modes hybrid,dense]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

from nodes.data import embedder as emb
from nodes.eval import harness, sets
from nodes.eval.metrics import mean, ndcg_at
from nodes.eval.report import K

TOLERANCE = 0.005
#: Scores closer than this are ties within the backends' arithmetic (their vectors of one text differ by ~2e-7).
NEAR_TIE = 1e-5


def ranked(labelled: sets.LabelledSet, backend: str, folder: Path, limit: int, modes: tuple[str, ...]) -> dict:
    """``{(question id, mode): (hits' passages and scores, nDCG@10 or None)}`` through ``backend``'s federation."""
    os.environ["FEDRAG_EMBEDDER"] = backend  # the stores' fingerprint follows it (nodes.run.assemble.build_leaves)
    model = emb.Embedder(backend_name=backend)
    started = time.monotonic()
    result = asyncio.run(harness.run(labelled, folder, modes=modes, limit=limit, embedder_factory=lambda: model,
                                     verbose=False))
    print(f"  {labelled.name} with {backend}: built in {result.build_s:.0f} s, asked in "
          f"{time.monotonic() - started - result.build_s:.0f} s", file=sys.stderr)
    return {(o.question.id, o.mode): (o.scored, ndcg_at(o.records, o.question.relevant, K) if o.question.relevant else None)
            for o in result.outcomes}


def disagreement(ours: list[tuple[str, float]], theirs: list[tuple[str, float]]) -> float:
    """The span of scores, in either list, over the ranks where the two lists name other passages."""
    differ = [n for n, (a, b) in enumerate(zip(ours, theirs)) if a[0] != b[0]]
    if len(ours) != len(theirs):
        differ += [min(len(ours), len(theirs)) - 1]
    if not differ:
        return 0.0
    first, last = min(differ), max(differ)
    return max(ours[first][1], theirs[first][1]) - min(ours[last][1], theirs[last][1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default="medquad,pubmedqa")
    parser.add_argument("--data", default=sets.DATA_DIR)
    parser.add_argument("--state-dir", default=sets.STATE_DIR)
    parser.add_argument("--limit", type=int, default=200)
    parser.add_argument("--modes", default="hybrid,dense")
    args = parser.parse_args()
    modes = harness.parse_modes(args.modes)
    failed = False
    print(f"{'set':10}{'mode':8}{'nDCG torch':>12}{'nDCG onnx':>11}{'ratio':>8}{'same 10':>10}{'same order':>12}"
          f"{'disagree over':>15}")
    for name in args.sets.split(","):
        labelled = sets.load(name, Path(args.data))
        base = Path(args.state_dir) / name
        got = {backend: ranked(labelled, backend, base if backend == "torch" else base.with_name(f"{name}-{backend}"),
                               args.limit, modes) for backend in ("torch", "onnx")}
        for mode in modes:
            keys = sorted(key for key in got["torch"] if key[1] == mode)
            hits = {key: (got["torch"][key][0], got["onnx"][key][0]) for key in keys}
            same = [key for key in keys if {p for p, _ in hits[key][0]} == {p for p, _ in hits[key][1]}]
            ordered = [key for key in same if [p for p, _ in hits[key][0]] == [p for p, _ in hits[key][1]]]
            widest = max((disagreement(*hits[key]) for key in keys), default=0.0)
            scores = {b: mean(got[b][key][1] for key in keys if got[b][key][1] is not None) for b in got}
            ratio = scores["onnx"] / scores["torch"] if scores["torch"] else 1.0
            print(f"{name:10}{mode:8}{scores['torch']:12.4f}{scores['onnx']:11.4f}{ratio:8.4f}{len(same):>6}/{len(keys)}"
                  f"{len(ordered):>8}/{len(keys)}{widest:15.1e}")
            for key in keys:
                if key not in same:
                    print(f"    other passages for question {key[0]}: {hits[key][0]} / {hits[key][1]}")
            failed |= widest > NEAR_TIE or abs(ratio - 1) > TOLERANCE
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
