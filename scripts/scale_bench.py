"""Scale benchmark: the same passages over 1, 4, 16 and 64 organizations, one machine, one run.

The demo's records (built once, in ``--state-dir``) are dealt over ``orgs`` organizations of ``--leaves``
leaves each (64 x 4 = 256 leaves), every store built from the vectors the demo's leaves already computed
(nothing is embedded again: :func:`nodes.run.baseline.resplit`). Each federation is served in this one
process (broker apart) — 64 organization processes would each load the embedding model — and asked the
demo's questions one after another (p50/p99, hybrid ranking, retrieval only; a first, untimed round warms every
federation alike: the embedder remembers the questions' vectors), then by ``--clients`` closed-loop
clients for ``--seconds`` (answers per second). Beside them, in the same run: the centralized baseline (the
same passages in one leaf, same broker path) and a bare NATS request/reply (an echo on a broker of its own, no
work at all). Every
federated top 10 is checked against an exact centralized index over the same passages.

Prints a table (``--json``: the figures as JSON) and writes a PNG of latency against organizations next to
``--out`` (matplotlib, from the ``dev`` extra).

Usage::

    python scripts/scale_bench.py [--state-dir .fedrag/demo] [--orgs 1,4,16,64] [--leaves 4] [--repeat 2]
                                  [--clients 8] [--seconds 10] [--out .fedrag/scale/scale.png] [--json]
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
from bus.client import ask
from bus.connection import connect
from bus.errors import FedragError
from bus.server import NatsServer
from nodes.data import embedder as emb
from nodes.demo.federation import prepare
from nodes.run.assemble import build_leaves
from nodes.run.baseline import CentralIndex, central_spec, resplit
from nodes.run.federation import launched
from nodes.run.spec import FederationSpec

def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


async def measure(spec: FederationSpec, questions: list[str], repeat: int, clients: int, seconds: float) -> dict:
    """p50/p99 of the questions asked one after another, answers per second with ``clients`` closed-loop clients,
    and how many top 10s differ from the exact centralized index over the same passages."""
    central = CentralIndex.from_spec(spec)
    async with launched(spec, processes=False, verbose=False, embedder_factory=emb.shared) as running:
        nc = await connect(running.url, "scale-bench")
        try:
            differ = 0
            for question in questions:  # untimed: every federation is measured warm, each question seen once
                answer = await ask(nc, AskRequest(question=question, include_embedding=True))
                expected = central.as_answered(answer, "hybrid", 10)
                differ += [(h.id, h.score) for h in answer.hits] != [(h.id, h.score) for h in expected]
            times, partial = [], 0
            for _ in range(repeat):
                for question in questions:
                    started = time.perf_counter()
                    answer = await ask(nc, AskRequest(question=question))
                    times.append((time.perf_counter() - started) * 1000)
                    partial += int(answer.partial)
            answered, lost = await closed_loop(nc, questions, clients, seconds)
        finally:
            await nc.drain()
    return {"leaves": len(spec.leaves()), "p50_ms": percentile(times, 50), "p99_ms": percentile(times, 99),
            "per_s": answered / seconds, "lost": lost, "partial": partial, "differ_from_central": differ, "questions": len(times)}


async def closed_loop(nc, questions: list[str], clients: int, seconds: float) -> tuple[int, int]:
    """How many answers ``clients`` clients get in ``seconds``, each asking again as soon as it is answered, and how many
    questions got none (the gateway fell silent: every node in one process, its event loop can lag past
    :data:`bus.client.SILENCE_MS` under many questions at once)."""
    deadline = time.monotonic() + seconds
    done = lost = 0

    async def client(n: int) -> None:
        nonlocal done, lost
        i = n
        while time.monotonic() < deadline:
            try:
                await ask(nc, AskRequest(question=questions[i % len(questions)]))
                done += 1
            except FedragError:
                lost += 1
            i += clients

    await asyncio.gather(*(client(n) for n in range(clients)))
    return done, lost


async def bare_request_reply(url: str, n: int = 500) -> dict:
    """p50/p99 of a NATS request to an echo responder on the same broker: what one round trip costs."""
    nc = await connect(url, "scale-bench-echo")
    try:
        async def echo(msg):
            await msg.respond(msg.data)

        await nc.subscribe("scale.echo", cb=echo)
        times = []
        for _ in range(n):
            started = time.perf_counter()
            await nc.request("scale.echo", b"x" * 64, timeout=5)
            times.append((time.perf_counter() - started) * 1000)
    finally:
        await nc.drain()
    return {"p50_ms": percentile(times, 50), "p99_ms": percentile(times, 99)}


def plot(figures: dict, out: Path) -> str:
    """Writes latency against organizations as a PNG at ``out``; says where, or why not."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "no plot: matplotlib is not installed (pip install -e '.[dev]')"
    orgs = [row["orgs"] for row in figures["federated"]]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(orgs, [row["p50_ms"] for row in figures["federated"]], "o-", label="federated p50")
    ax.plot(orgs, [row["p99_ms"] for row in figures["federated"]], "o--", label="federated p99")
    ax.axhline(figures["centralized"]["p50_ms"], color="grey", label="centralized p50 (1 leaf)")
    ax.axhline(figures["bare"]["p50_ms"], color="grey", linestyle=":", label="bare NATS request/reply p50")
    ax.set_xscale("log", base=2)
    ax.set_xticks(orgs, [f"{n}\n({row['leaves']} leaves)" for n, row in zip(orgs, figures["federated"])])
    ax.set_xlabel("organizations")
    ax.set_ylabel("ms per question (retrieval, hybrid)")
    ax.set_title("fedrag: latency against organizations (same passages, one machine)")
    ax.legend()
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return f"plot: {out}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--state-dir", default=".fedrag/demo", help="the demo (built on first use)")
    parser.add_argument("--orgs", default="1,4,16,64", help="organization counts, comma-separated")
    parser.add_argument("--leaves", type=int, default=4, help="leaves per organization")
    parser.add_argument("--repeat", type=int, default=2, help="rounds over the question set, one at a time")
    parser.add_argument("--questions", type=int, default=0, help="ask only the first N of the demo's questions")
    parser.add_argument("--clients", type=int, default=8, help="closed-loop clients for the throughput figure")
    parser.add_argument("--seconds", type=float, default=10.0, help="how long the clients ask")
    parser.add_argument("--out", default=".fedrag/scale/scale.png", help="where the plot goes")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    try:
        counts = [int(n) for n in args.orgs.split(",") if n.strip()]
        if not counts or min(counts) < 1 or args.leaves < 1:
            raise ValueError
    except ValueError:
        parser.error(f"--orgs takes positive counts like 1,4,16,64 and --leaves a positive count, not "
                     f"{args.orgs!r} and {args.leaves}")

    demo = FederationSpec.load(prepare(Path(args.state_dir), secure=False))
    build_leaves(demo, verbose=False)
    questions = json.loads((Path(args.state_dir) / "corpus" / "questions.json").read_text())
    questions = questions[:args.questions] if args.questions else questions

    figures: dict = {"federated": []}
    with tempfile.TemporaryDirectory(prefix="fedrag-scale-") as tmp:
        for n in counts:
            spec = resplit(demo, Path(tmp) / f"orgs{n}", f"scale{n}",
                           {f"org{i:02d}": args.leaves for i in range(n)}, demo.federation.deadline_ms)
            row = asyncio.run(measure(spec, questions, args.repeat, args.clients, args.seconds))
            figures["federated"].append({"orgs": n, **row})
            print(f"  {n} organizations, {row['leaves']} leaves: p50 {row['p50_ms']:.1f} ms", file=sys.stderr)
        central = central_spec(demo, Path(tmp) / "central")
        figures["centralized"] = asyncio.run(measure(central, questions, args.repeat, args.clients, args.seconds))
        with NatsServer(jetstream=False) as broker:
            figures["bare"] = asyncio.run(bare_request_reply(broker.url))
    said = plot(figures, Path(args.out))
    if args.json:
        print(json.dumps({**figures, "plot": said}, indent=2))
        return 0
    print(f"{'':28}{'leaves':>7}{'p50 ms':>9}{'p99 ms':>9}{'answers/s':>11}{'lost':>6}{'vs central p50':>16}"
          "  top 10 = central")
    cen = figures["centralized"]
    for row in figures["federated"]:
        print(f"{str(row['orgs']) + ' organizations':28}{row['leaves']:7d}{row['p50_ms']:9.1f}{row['p99_ms']:9.1f}"
              f"{row['per_s']:11.1f}{row['lost']:6d}{row['p50_ms'] / cen['p50_ms']:15.2f}x  "
              f"{len(questions) - row['differ_from_central']}/{len(questions)}")
    print(f"{'centralized (1 leaf)':28}{1:7d}{cen['p50_ms']:9.1f}{cen['p99_ms']:9.1f}{cen['per_s']:11.1f}{cen['lost']:6d}")
    print(f"{'bare NATS request/reply':28}{'':7}{figures['bare']['p50_ms']:9.2f}{figures['bare']['p99_ms']:9.2f}")
    print(f"(served in one process, {args.clients} clients for {args.seconds:.0f} s; hybrid ranking, retrieval only)")
    print(said)
    return 0 if all(row["differ_from_central"] == 0 for row in figures["federated"]) else 1


if __name__ == "__main__":
    sys.exit(main())
