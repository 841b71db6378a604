"""Router summaries and extractive answers on the demo: do they keep the planted facts, and do they only quote what they cite?

The demo federation runs in this process over an embedded broker, every hospital's router set to
summarize extractively. For each of the demo corpus's planted trends (a condition planted in the
notes of eight or more patients), the trend's question is asked and the script prints how many of
the trend's patients have a planted note among

* the top k hits (what a clinician reads first),
* the passages the routers' summaries cite (the routers read every passage their units returned,
  not only the top k), and
* the passages the extractive answer cites.

Then, for every demo question, it checks every answer and summary: each extractive sentence must be
found word for word in every passage it cites (:func:`summarizer.answer.check` for answers), and each
``[n]`` must point at a passage that was given. It exits 1 if any check fails.

Usage::

    python scripts/answer_eval.py [--state-dir .fedrag/demo] [--k 10]

The demo's leaf stores are built on first use.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bus.client import ask  # noqa: E402
from bus.connection import connect  # noqa: E402
from bus.asking import Answer, AskRequest  # noqa: E402
from nodes.data.chunking import Passage  # noqa: E402
from nodes.demo.federation import prepare  # noqa: E402
from nodes.leaf import Leaf  # noqa: E402
from nodes.run.federation import Federation, launched  # noqa: E402
from nodes.run.spec import FederationSpec  # noqa: E402
from summarizer.answer import check  # noqa: E402

_CITE = re.compile(r"\[(\d+)\]")


def stored(federation: Federation) -> dict[tuple[str, str], Passage]:
    """Every passage of every leaf, by (leaf path, passage id)."""
    return {(leaf.path, passage.id): passage for org in federation.spec.orgs for leaf in federation.nodes(org)
            if isinstance(leaf, Leaf) for passage in leaf.retriever.store.all_vectors()[0]}


def planted(hit_keys, passages: dict[tuple[str, str], Passage], trend: dict) -> set[str]:
    """The trend's patients with a planted note among ``hit_keys`` ((path, id) pairs)."""
    records = set(trend["record_ids"])
    found = set()
    for key in hit_keys:
        passage = passages.get(key)
        if passage is not None and passage.patient in trend["patients"] and passage.record_id in records:
            found.add(passage.patient)
    return found


def summary_problems(answer: Answer, passages: dict[tuple[str, str], Passage]) -> list[str]:
    """Summary sentences not found word for word in a passage they cite."""
    problems = []
    for summary in answer.summaries:
        if summary.method != "extractive":
            continue
        for sentence in summary.sentences:
            for ref in sentence.sources:
                text = " ".join(passages[(ref.path, ref.id)].text.split()) if (ref.path, ref.id) in passages else ""
                if " ".join(sentence.text.removesuffix(" …").split()) not in text:
                    problems.append(f"{summary.path}: {ref.path} {ref.id} does not contain {sentence.text[:60]!r}")
    return problems


async def evaluate(spec: FederationSpec, state: Path, k: int) -> int:
    for node in spec.orgs.values():
        node.summarize = "extractive"
    async with launched(spec, store_dir=Path(tempfile.mkdtemp(prefix="fedrag-eval-")), processes=False,
                        verbose=False) as running:
        federation = running.federation
        nc = await connect(running.url, "answer-eval")
        try:
            passages = stored(federation)
            trends = json.loads((state / "corpus" / "trends.json").read_text())
            totals = [0, 0, 0, 0]
            print(f"planted trends (patients with a planted note among what each part cites; top {k} hits):")
            print(f"  {'trend':16} {'planted':>7} {'top k':>6} {'summaries':>9} {'answer':>6}")
            for name, trend in trends.items():
                answer = await ask(nc, AskRequest(question=trend["question"], k=k, summarize="extractive"))
                in_hits = planted([(h.path, h.id) for h in answer.hits], passages, trend)
                in_summaries = planted([(r.path, r.id) for s in answer.summaries for sentence in s.sentences
                                        for r in sentence.sources], passages, trend)
                cited = {int(n) for n in _CITE.findall(answer.answer or "")}
                in_answer = planted([(answer.hits[n - 1].path, answer.hits[n - 1].id) for n in cited
                                     if 1 <= n <= len(answer.hits)], passages, trend)
                row = [len(trend["patients"]), len(in_hits), len(in_summaries), len(in_answer)]
                totals = [a + b for a, b in zip(totals, row)]
                print(f"  {name:16} {row[0]:7d} {row[1]:6d} {row[2]:9d} {row[3]:6d}")
            print(f"  {'all':16} {totals[0]:7d} {totals[1]:6d} {totals[2]:9d} {totals[3]:6d}   recall: top k "
                  f"{totals[1] / totals[0]:.2f}, summaries {totals[2] / totals[0]:.2f}, answers {totals[3] / totals[0]:.2f}")

            questions = json.loads((state / "corpus" / "questions.json").read_text())
            problems, timings, insufficient, sentences, relevant, read = [], [], 0, 0, 0, 0
            for question in questions:
                answer = await ask(nc, AskRequest(question=question, k=k, summarize="extractive"))
                timings.append(answer.answer_info.took_ms)
                insufficient += answer.answer_info.status == "insufficient"
                sentences += sum(len(s.sentences) for s in answer.summaries)
                relevant += sum(s.relevant for s in answer.summaries)
                read += sum(s.passages for s in answer.summaries)
                problems += [f"{question}: answer: {p}" for p in check(answer.answer, answer.cited(), answer.summaries)]
                problems += [f"{question}: summary: {p}" for p in summary_problems(answer, passages)]
            print(f"routers read {read} passages and judged {relevant} relevant "
                  f"(score at least {spec.federation.summary_min_score})")
            print(f"{len(questions)} demo questions: {sentences} summary sentences and every answer checked; "
                  f"{len(problems)} problems (a sentence not in a passage it cites, or a citation of nothing); "
                  f"{insufficient} 'not enough evidence'; an answer took {statistics.median(timings):.0f} ms (median)")
            for problem in problems[:10]:
                print("  " + problem)
            return 1 if problems else 0
        finally:
            await nc.drain()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--state-dir", default=".fedrag/demo")
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--summary-min-score", type=float, help="the routers' relevance floor (default: the spec's)")
    args = parser.parse_args()
    state = Path(args.state_dir)
    spec = FederationSpec.load(prepare(state, secure=False))
    if args.summary_min_score is not None:
        spec.federation.summary_min_score = args.summary_min_score
    return asyncio.run(evaluate(spec, state, args.k))


if __name__ == "__main__":
    sys.exit(main())
