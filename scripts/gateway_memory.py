"""Gateway memory under questions full of new words: resident memory after 200 and after 2,000.

Starts a broker and a real ``fedrag gateway`` process (over a one-organization spec whose
organization is not running, so every question is embedded and name-checked, then answered with
that organization ``unavailable``), asks it questions made of words it has never seen, and prints the
gateway's resident memory (VmRSS) after 200 and after 2,000 questions, and their ratio. Before
spaCy's memory zones were used, every unseen word stayed in spaCy's vocabulary for good.

Usage::

    python scripts/gateway_memory.py [--questions 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import string
import subprocess
import sys
import tempfile
from pathlib import Path

from bus.subjects import ASK
from bus.client import ask, wait_until_serving
from bus.connection import connect
from bus.asking import AskRequest
from bus.server import NatsServer


def rss_mb(pid: int) -> float:
    """Resident memory of process ``pid`` in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def unique_question(rng: random.Random) -> str:
    words = ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(6, 11))) for _ in range(14)]
    name = f"{rng.choice(string.ascii_uppercase)}{''.join(rng.choices(string.ascii_lowercase, k=6))}"
    return f"Does {name} {words[0].capitalize()} have " + " ".join(words[1:]) + "?"


async def measure(url: str, pid: int, total: int) -> dict[int, float]:
    rng = random.Random(7)
    nc = await connect(url, "memory")
    figures = {}
    try:
        await wait_until_serving(nc, [ASK], timeout=120)
        for n in range(1, total + 1):
            await ask(nc, AskRequest(question=unique_question(rng), deadline_ms=5000))
            if n in (200, total):
                figures[n] = rss_mb(pid)
    finally:
        await nc.drain()
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fedrag-memory-") as tmp, NatsServer() as server:
        spec = Path(tmp) / "one.toml"
        spec.write_text('[orgs.absent]\ndata = "absent.jsonl"\n')
        gateway = subprocess.Popen([sys.executable, "-m", "nodes.cli", "gateway", str(spec), "--nats", server.url],
                                   stdout=subprocess.DEVNULL)
        try:
            figures = asyncio.run(measure(server.url, gateway.pid, args.questions))
        finally:
            gateway.terminate()
            gateway.wait(30)
    first, last = figures[200], figures[args.questions]
    print(f"gateway resident memory: {first:.0f} MB after 200 questions, {last:.0f} MB after {args.questions} "
          f"(ratio {last / first:.3f})")
    return 0 if last <= first * 1.10 else 1


if __name__ == "__main__":
    sys.exit(main())
