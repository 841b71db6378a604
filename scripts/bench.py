"""Retrieval benchmark: leaf search speed and recall, federation against a centralized baseline.

Prints, in one run and on one machine:

* leaf search: p50 latency of an index query at every demo leaf (every vector scored, as a leaf of at most
  ``nodes.data.index.FLAT_BELOW`` passages does; hnswlib's graph above), and recall@10 against exact search over the
  same vectors;
* end to end: p50/p99 of a question through the demo federation (broker, gateway, three
  organizations in their own processes, ten leaves), ranked hybrid (the default) and dense only in
  turns, then with the extractive answer (and the first round's p50 apart: the gateway remembers the
  vectors of questions and sentences it has seen, so later rounds find them), and through a
  centralized baseline (the same broker path with one leaf holding every
  passage), and the ratio of the two;
* identities: the same questions through the same federation with signed identities, proofs,
  the case study's policies and a permissioned broker (asked as a user every node admits), as a
  ratio to the open federation, and what one hop's checks cost (token verification cold and
  cached, proof verification, policy evaluation);
* the demo as a clinician asks it: the same secured federation, each hospital's router summarizing
  what its units returned, with the extractive answer (and how many summaries an answer carried).

Usage::

    python scripts/bench.py [--state-dir .fedrag/demo] [--repeat 5] [--json]

The demo corpus and leaf stores are reused from ``--state-dir`` (built on first use).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bus.asking import AskRequest
from nodes.data import embedder as emb
from nodes.run.baseline import central_spec
from bus.client import ask
from policies.access import connect_as
from nodes.demo.federation import DEMO_USER, prepare
from nodes.run.assemble import build_leaves, make_access, sign_in
from nodes.run.federation import launched
from nodes.data.index import exact_search
from nodes.run.spec import FederationSpec
from nodes.data.store import LeafStore
from policies.proof import ReplayCache, verify_proof


def row(name: str, timed: dict) -> str:
    """A table row: ``name``, then p50, p99 and warm p99 in ms."""
    return f"{name:24}{timed['p50_ms']:10.1f}{timed['p99_ms']:10.1f}{timed['warm_p99_ms']:10.1f}   "


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


def leaf_search(spec: FederationSpec, vectors: np.ndarray, k: int = 10) -> dict:
    """p50 of one index query and recall@k against exact search, over every leaf and question."""
    times, found, wanted = [], 0, 0
    for path in spec.leaves():
        store = LeafStore.existing(spec.leaf_folder(path))
        labels_of_rows = np.asarray(store.labels())
        _, matrix = store.all_vectors()
        for vector in vectors:
            started = time.perf_counter()
            labels, _ = store.index.search(vector, k)
            times.append((time.perf_counter() - started) * 1000)
            exact, _ = exact_search(matrix, vector, k)
            found += len(set(labels.tolist()) & set(labels_of_rows[exact].tolist()))
            wanted += len(exact)
        store.close()
    return {"queries": len(times), "p50_ms": percentile(times, 50), "recall_at_10": found / wanted}


async def end_to_end(spec: FederationSpec, questions: list[str], repeat: int, user: str | None = None,
                     modes: tuple[str, ...] = ("hybrid",), summarize: str = "none") -> dict:
    """p50/p99 of questions asked one after another through a running federation (as ``user`` if secured), in
    each ranking mode of ``modes`` (the modes take turns question by question, each first every other question, so
    they share every condition), with the answer ``summarize`` asks for; the p50 of the first round alone (each
    question new to the gateway, which remembers the vectors of the questions and sentences it has seen) and the p50
    and p99 of the later rounds (warm)."""
    async with launched(spec, verbose=False) as running:
        creds = sign_in(spec, user) if user else None
        nc = await connect_as(running.url, "bench", creds)

        def headers(question):
            return creds.headers(question) if creds else None

        try:
            for question in WARM_UP:  # connections, models and caches, with questions not in the set
                for mode in modes:
                    await ask(nc, AskRequest(question=question, mode=mode, summarize=summarize), headers=headers(question))
            times = {mode: [] for mode in modes}
            partial = {mode: 0 for mode in modes}
            summaries = {mode: 0 for mode in modes}
            for _ in range(repeat):
                for i, question in enumerate(questions):
                    # each mode asks first every other question: the first to ask a new question pays what the
                    # gateway then remembers (its analysis, the counts of its words), whichever mode it is
                    for mode in modes if i % 2 == 0 else modes[::-1]:
                        started = time.perf_counter()
                        answer = await ask(nc, AskRequest(question=question, mode=mode, summarize=summarize),
                                           headers=headers(question))
                        times[mode].append((time.perf_counter() - started) * 1000)
                        partial[mode] += int(answer.partial)
                        summaries[mode] += len(answer.summaries)
        finally:
            await nc.drain()
    found = {mode: {"questions": len(times[mode]), "p50_ms": percentile(times[mode], 50),
                    "p99_ms": percentile(times[mode], 99), "first_p50_ms": percentile(times[mode][:len(questions)], 50),
                    "warm_p50_ms": percentile(times[mode][len(questions):] or times[mode], 50),
                    "warm_p99_ms": percentile(times[mode][len(questions):] or times[mode], 99),
                    "partial": partial[mode], "summaries": summaries[mode]} for mode in modes}
    return found if len(modes) > 1 else found[modes[0]]


#: What warms a federation up before it is timed: questions of the demo's kind that are not in its set.
WARM_UP = ["Which patients have a history of hypertension?", "What medications is Maria Lopez taking?",
           "Who was admitted with chest pain?"]


def hop_costs(spec: FederationSpec, user: str, n: int = 300) -> dict:
    """Microseconds one node spends on a question's credentials: token (cold, cached), proof, policy."""
    creds = sign_in(spec, user)
    access = make_access(spec)
    policy = spec.policies()["hospital_a.medicine"]

    async def run() -> dict:
        tokens = [sign_in(spec, user).token for _ in range(n)]
        started = time.perf_counter()
        for token in tokens:
            identity = await access.verifier.verify(token)
        cold = time.perf_counter() - started
        started = time.perf_counter()
        for token in tokens:
            await access.verifier.verify(token)
        cached = time.perf_counter() - started
        identity = await access.verifier.verify(creds.token)
        proofs = [creds.key.prove("q") for _ in range(n)]
        replay = ReplayCache()
        started = time.perf_counter()
        for one in proofs:
            verify_proof(one, identity, "q", replay)
        proved = time.perf_counter() - started
        started = time.perf_counter()
        for _ in range(n):
            policy.admit(identity.attributes())
        admitted = time.perf_counter() - started
        return {"token_cold_us": cold / n * 1e6, "token_cached_us": cached / n * 1e6,
                "proof_us": proved / n * 1e6, "policy_us": admitted / n * 1e6}

    try:
        return asyncio.run(run())
    finally:
        access.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--state-dir", default=".fedrag/demo")
    parser.add_argument("--repeat", type=int, default=5, help="rounds over the question set")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    # one person asking back to back: the demo's spec with the limits of load tests (nodes.demo.access.LOAD_LIMITS)
    secure = FederationSpec.load(prepare(Path(args.state_dir), load=True))
    spec = FederationSpec.load(prepare(Path(args.state_dir), secure=False))
    build_leaves(spec)
    questions = json.loads((Path(args.state_dir) / "corpus" / "questions.json").read_text())
    vectors = emb.shared().embed(questions)

    figures = {"leaf_search": leaf_search(spec, vectors)}
    with tempfile.TemporaryDirectory(prefix="fedrag-bench-") as tmp:
        central = central_spec(spec, Path(tmp))
        both = asyncio.run(end_to_end(spec, questions, args.repeat, modes=("hybrid", "dense")))
        figures["federated"], figures["dense"] = both["hybrid"], both["dense"]
        figures["centralized"] = asyncio.run(end_to_end(central, questions, args.repeat))
    figures["answered"] = asyncio.run(end_to_end(spec, questions, args.repeat, summarize="extractive"))
    figures["secured"] = asyncio.run(end_to_end(secure, questions, args.repeat, user=DEMO_USER))
    # the demo as a clinician asks it: identities on, each hospital's router summarizing, an extractive answer
    figures["secured_answered"] = asyncio.run(end_to_end(secure, questions, args.repeat, user=DEMO_USER,
                                                         summarize="extractive"))
    figures["hop"] = hop_costs(secure, DEMO_USER)
    fed, cen, sec = figures["federated"], figures["centralized"], figures["secured"]
    figures["ratio_p50"] = fed["p50_ms"] / cen["p50_ms"]
    figures["ratio_p99"] = fed["p99_ms"] / cen["p99_ms"]
    figures["secured_ratio_p50"] = sec["p50_ms"] / fed["p50_ms"]
    figures["secured_ratio_p99"] = sec["p99_ms"] / fed["p99_ms"]
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        ls = figures["leaf_search"]
        print(f"{'':24}{'p50 ms':>10}{'p99 ms':>10}{'warm p99':>10}")
        print(f"{'leaf search':24}{ls['p50_ms']:10.3f}{'':>20}   recall@10 vs exact: {ls['recall_at_10']:.4f}")
        print(row('federated end to end', fed) + f"({fed['questions']} questions, 3 orgs, {len(spec.leaves())} leaves, "
              f"{fed['partial']} partial)")
        den = figures["dense"]
        print(row('  dense ranking only', den) + "(the same federation and questions, "
              f"taking turns: hybrid adds {fed['p50_ms'] - den['p50_ms']:.1f} ms p50, "
              f"{fed['warm_p50_ms'] - den['warm_p50_ms']:.1f} after the first round)")
        ans = figures["answered"]
        print(row('  with extractive answer', ans) + "(first round, every question "
              f"and sentence new: p50 {ans['first_p50_ms']:.1f} ms; retrieval's first round {fed['first_p50_ms']:.1f} ms)")
        print(row('centralized end to end', cen) + "(1 leaf, same broker path)")
        print(f"{'ratio federated/central':24}{figures['ratio_p50']:10.2f}{figures['ratio_p99']:10.2f}"
              f"{fed['warm_p99_ms'] / cen['warm_p99_ms']:10.2f}")
        print(row('secured end to end', sec) + "(identities, proofs, policies, "
              f"permissioned broker; as {DEMO_USER})")
        print(f"{'ratio secured/open':24}{figures['secured_ratio_p50']:10.2f}{figures['secured_ratio_p99']:10.2f}"
              f"{sec['warm_p99_ms'] / fed['warm_p99_ms']:10.2f}")
        sa = figures["secured_answered"]
        print(row('  with answer, summaries', sa) + "(each hospital's router summarizes: "
              f"{sa['summaries'] / sa['questions']:.1f} summaries an answer; first round p50 {sa['first_p50_ms']:.1f} ms)")
        hop = figures["hop"]
        print(f"per hop: token {hop['token_cold_us']:.0f} us cold, {hop['token_cached_us']:.1f} us cached; "
              f"proof {hop['proof_us']:.0f} us; policy {hop['policy_us']:.1f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
