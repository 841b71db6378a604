"""Throws bad input at every node of a running federation, then checks that every node still serves.

Each message is one of: random bytes, truncated or corrupted msgpack, valid msgpack of the wrong
shape (a list, a number, a map with wrong or ill-typed fields, deep nesting), strings that are not
valid UTF-8, bodies up to just under the broker's maximum payload, and bogus headers (oversized or
many values, a budget that is not a number, a trace that is not a token) — sent with and without a
reply subject, to the gateway (``fed.ask``) and to every node's subject found by discovery. The
fuzzer's own connection is the only one the broker may close (a message over its maximum payload
is never sent). Afterwards every node must answer discovery and a normal question must come back
with full coverage.

Usage::

    python scripts/fuzz.py [--messages 100000] [--seed 1]      # on the demo federation, in this process
    python scripts/fuzz.py --nats URL [--messages N]           # on a running (open) federation
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import msgpack

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bus import headers as h  # noqa: E402
from bus.client import ask, discover, wait_until_serving  # noqa: E402
from bus.connection import connect  # noqa: E402
from bus.asking import AskRequest  # noqa: E402
from bus.subjects import ASK  # noqa: E402

#: Stays under nats-server's default maximum payload (1 MiB) with room for the headers.
MAX_FUZZ_BODY = (1 << 20) - 64 * 1024
FIELDS = ["question", "vector", "embedding", "k", "fetch_k", "model", "filters", "deadline_ms", "summarize", "hits",
          "nodes", "coverage", "collapse", "vectors", "names", "score", "text", "path"]


def _junk(rng: random.Random, depth: int = 0):
    """A random msgpack-able value, sometimes deeply nested."""
    kind = rng.randrange(9 if depth < 30 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False, 0, -1, 2**63 - 1, -(2**63), 2**64 - 1, float("nan"), float("inf"), 1e308])
    if kind == 2:
        return rng.random() * 10 ** rng.randrange(-5, 40)
    if kind == 3:
        return "".join(chr(c) for c in (rng.randrange(1, 0x2FFFF) for _ in range(rng.randrange(0, 40)))
                       if not 0xD800 <= c <= 0xDFFF)  # surrogates cannot be encoded at all
    if kind == 4:
        return rng.randbytes(rng.randrange(0, 64))
    if kind == 5:
        return rng.choice(FIELDS)
    if kind == 6:
        return [_junk(rng, depth + 1) for _ in range(rng.randrange(0, 4))]
    if kind == 7:
        return {rng.choice(FIELDS): _junk(rng, depth + 1) for _ in range(rng.randrange(0, 5))}
    return _junk(rng, depth + 10)  # a deep chain


def _bad_utf8_map(rng: random.Random) -> bytes:
    """A map whose keys and values are msgpack strings holding bytes that are not UTF-8."""
    pairs = rng.randrange(1, 4)
    out = bytearray([0x80 | pairs])
    for _ in range(pairs):
        for raw in (rng.choice(FIELDS).encode(), bytes([0xFF, 0xFE, rng.randrange(0x80, 0xC0)])):
            raw = raw if rng.random() < 0.5 else raw + b"\xc3\x28"
            out += bytes([0xA0 | len(raw)]) + raw
    return bytes(out)


def body(rng: random.Random) -> tuple[str, bytes]:
    """One bad body and what kind it is."""
    kind = rng.choice(["bytes", "truncated", "corrupted", "wrong_shape", "wrong_fields", "bad_utf8", "large", "empty"])
    if kind == "bytes":
        return kind, rng.randbytes(rng.randrange(1, 512))
    if kind == "truncated":
        packed = msgpack.packb({f: _junk(rng) for f in rng.sample(FIELDS, 4)}, use_bin_type=True)
        return kind, packed[:rng.randrange(0, max(len(packed), 1))]
    if kind == "corrupted":
        packed = bytearray(msgpack.packb({"question": "What medications?", "k": 10}, use_bin_type=True))
        for _ in range(rng.randrange(1, 4)):
            packed[rng.randrange(len(packed))] = rng.randrange(256)
        return kind, bytes(packed)
    if kind == "wrong_shape":
        return kind, msgpack.packb(_junk(rng), use_bin_type=True)
    if kind == "wrong_fields":
        return kind, msgpack.packb({rng.choice(FIELDS): _junk(rng) for _ in range(rng.randrange(1, 8))}, use_bin_type=True)
    if kind == "bad_utf8":
        return kind, _bad_utf8_map(rng)
    if kind == "large":
        size = rng.choice([64 * 1024, 512 * 1024, MAX_FUZZ_BODY])
        return kind, msgpack.packb({"question": "x" * (size - 32)}, use_bin_type=True)[:MAX_FUZZ_BODY]
    return kind, b""


def headers(rng: random.Random) -> dict[str, str]:
    """Headers: usually plausible, often bogus."""
    choice = rng.randrange(6)
    if choice == 0:
        return {}
    if choice == 1:
        return {h.BUDGET: rng.choice(["abc", "nan", "-1", "1e308", "", "9" * 400, "0"])}
    if choice == 2:
        return {h.TRACE: rng.choice(["x" * 9000, "not a token!", "\u00e9t\u00e9", ""])}
    if choice == 3:
        return {f"X-Junk-{n}": "v" * rng.randrange(1, 200) for n in range(rng.randrange(1, 60))}
    if choice == 4:
        return {h.AUTHORIZATION: "Bearer " + rng.choice(["a.b.c", "x" * 5000, "eyJhbGciOiJub25lIn0.e30."]),
                h.KIND: rng.choice(["ask", "query", "final", "\x00"])}
    return {h.KIND: h.Kind.QUERY, h.BUDGET: str(rng.randrange(0, 5000))}


async def fuzz(url: str, count: int, seed: int = 1, progress: bool = False) -> Counter:
    """Sends ``count`` bad messages spread over every subject of the federation at ``url``; returns what was sent."""
    rng = random.Random(seed)
    probe = await connect(url, "fuzz-probe")
    try:
        subjects = sorted({node.subject for node in await discover(probe, timeout=1.0)} | {ASK})
    finally:
        await probe.drain()
    sent: Counter = Counter()
    nc = None
    started = time.monotonic()
    for n in range(count):
        if nc is None or nc.is_closed:
            nc = await connect(url, "fuzzer")
        kind, data = body(rng)
        subject = rng.choice(subjects)
        reply = nc.new_inbox() if rng.random() < 0.5 else ""
        try:
            await nc.publish(subject, data, reply=reply, headers=headers(rng) or None)
        except Exception as exc:  # the fuzzer's own connection may be refused or closed: count it and go on
            sent[f"not sent: {type(exc).__name__}"] += 1
            nc = None
            continue
        sent[kind] += 1
        if n % 500 == 499:
            await nc.flush()  # let the broker and the nodes keep up instead of buffering everything here
            if progress:
                rate = (n + 1) / (time.monotonic() - started)
                print(f"\r  {n + 1:,} of {count:,} messages, {rate:,.0f}/s", end="", file=sys.stderr, flush=True)
    if nc is not None and not nc.is_closed:
        await nc.flush()
        await nc.drain()
    if progress:
        print(file=sys.stderr)
    return sent


async def still_serving(url: str, subjects: list[str]) -> tuple[int, int]:
    """Every subject still served, and a normal question's (successful, total) leaves."""
    nc = await connect(url, "fuzz-check")
    try:
        await wait_until_serving(nc, subjects, timeout=30)
        answer = await ask(nc, AskRequest(question="Which patients have atrial fibrillation?", deadline_ms=10_000))
        return answer.coverage.successful, answer.coverage.total
    finally:
        await nc.drain()


async def run_on_demo(count: int, seed: int) -> int:
    from nodes.demo.federation import prepare
    from nodes.run.federation import launched
    from nodes.run.spec import FederationSpec

    spec = FederationSpec.load(prepare(Path(".fedrag/demo").resolve(), secure=False))
    async with launched(spec, store_dir=Path(tempfile.mkdtemp(prefix="fedrag-fuzz-")), processes=False,
                        verbose=False) as running:
        return await report(running.url, count, seed)


async def report(url: str, count: int, seed: int) -> int:
    probe = await connect(url, "fuzz-probe")
    subjects = sorted(node.subject for node in await discover(probe, timeout=1.0))
    await probe.drain()
    started = time.monotonic()
    sent = await fuzz(url, count, seed, progress=True)
    took = time.monotonic() - started
    successful, total = await still_serving(url, subjects)
    print(f"sent {sum(v for k, v in sent.items() if not k.startswith('not sent')):,} bad messages to "
          f"{len(subjects) + 1} subjects in {took:.1f} s: " + ", ".join(f"{k} {v:,}" for k, v in sorted(sent.items())))
    print(f"afterwards: all {len(subjects)} nodes serving; a normal question: {successful}/{total} leaves answered")
    return 0 if successful == total else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nats", help="a running open federation's broker (default: start the demo in this process)")
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.nats:
        return asyncio.run(report(args.nats, args.messages, args.seed))
    return asyncio.run(run_on_demo(args.messages, args.seed))


if __name__ == "__main__":
    sys.exit(main())
