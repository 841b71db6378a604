"""An insider's flood: one signed-in user throwing malformed and oversized asks at ``fed.ask`` while
another user asks normal questions, and what each of them gets.

The flood is what a user with legitimate credentials can send (:func:`messages`): random bytes,
truncated msgpack, bodies and headers of about a megabyte, 100,000-deep nesting, the wrong schema,
8,000-character questions and bulk asks (``k`` at its maximum) with valid proofs. It runs in a process
of its own (``python -m nodes.chaos.flood``), so the honest user's timings are not the flooder's
event loop; :func:`run` asks the honest questions meanwhile and returns a :class:`FloodReport`: how
the honest answers fared (by their deadline, with full coverage, p50/p99) and the replies the flood
got, by kind.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import msgpack
import numpy as np

from bus import codec
from bus import headers as h
from bus.client import ask
from bus.subjects import ASK
from bus.messages import MAX_K, MAX_QUESTION_CHARS, ErrorInfo
from bus.asking import AskRequest
from nodes.chaos.table import text_table
from policies.access import Credentials, connect_as

#: The kinds of message the flood sends, in turn.
KINDS = ("random_bytes", "bad_msgpack", "huge_body", "huge_header", "deep_nesting", "wrong_schema",
         "long_question", "bulk_ask")
#: Of every 20 messages, how many are of each kind (a megabyte message is rarer: the broker carries it).
MIX = {"random_bytes": 4, "bad_msgpack": 4, "huge_body": 1, "huge_header": 1, "deep_nesting": 3, "wrong_schema": 3,
       "long_question": 2, "bulk_ask": 2}
_MEGABYTE = 1 << 20


def messages(creds: Credentials, count: int, seed: int = 0) -> Iterator[tuple[str, bytes, dict[str, str]]]:
    """``count`` flood messages as ``(kind, body, headers)``: the user's credentials on each, a fresh
    proof where the ask is well-formed (so it gets past the gate and costs what a real ask does)."""
    rng = random.Random(seed)
    order = [kind for kind, n in MIX.items() for _ in range(n)]
    base = creds.headers("x")
    # the same bytes each time: making a megabyte anew would measure the flooder, not the federation
    huge_body = msgpack.packb({"question": "y" * (_MEGABYTE - 4096)})
    short_ask = codec.encode(AskRequest(question="What medications?"))
    huge_header = {**base, "X-Filler": "z" * (_MEGABYTE - 8192)}
    deep = b"\x81\xa8question" + b"\x91" * 100_000 + b"\xc0"
    wrong = msgpack.packb({"question": ["not", "text"], "k": "many", "deadline_ms": -5})
    for i in range(count):
        kind = order[i % len(order)]
        headers = base
        if kind == "random_bytes":
            body = rng.randbytes(rng.randint(1, 4096))
        elif kind == "bad_msgpack":
            body = msgpack.packb({"question": "x" * rng.randint(1, 500), "k": 5})[:-3]
        elif kind == "huge_body":
            body = huge_body
        elif kind == "huge_header":
            body, headers = short_ask, huge_header
        elif kind == "deep_nesting":
            body = deep
        elif kind == "wrong_schema":
            body = wrong
        elif kind == "long_question":
            question = " ".join(rng.choice(("pain", "fever", "cough", "Xq", "renal")) for _ in range(2_000))
            question = question[:MAX_QUESTION_CHARS]
            body, headers = codec.encode(AskRequest(question=question)), creds.headers(question)
        else:  # bulk_ask: everything the user may read in one ask
            question = f"Which patients have any condition at all ({i})?"
            body, headers = codec.encode(AskRequest(question=question, k=MAX_K)), creds.headers(question)
        yield kind, body, {h.KIND: h.Kind.ASK, **headers}


@dataclass
class FloodSent:
    """What the flooder sent and what came back to it, by kind."""

    sent: Counter = field(default_factory=Counter)
    replies: Counter = field(default_factory=Counter)
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return {"sent": dict(self.sent), "replies": dict(self.replies), "seconds": self.seconds}


async def send(url: str, creds: Credentials, count: int, subject: str = ASK, linger_s: float = 5.0,
               rate: float = 0.0) -> FloodSent:
    """Sends the flood — as fast as the connection takes it, or ``rate`` messages a second — then listens
    ``linger_s`` more for replies."""
    result = FloodSent()
    nc = await connect_as(url, "fedrag-flood", creds)
    inbox = nc.new_inbox()

    async def count_reply(msg) -> None:
        kind = (msg.headers or {}).get(h.KIND, "?")
        if kind == h.Kind.ERROR:
            try:
                kind = "error." + codec.decode(msg.data, ErrorInfo).type
            except Exception:  # noqa: BLE001 (counted as what it is: unreadable)
                kind = "error.unreadable"
        result.replies[kind] += 1

    await nc.subscribe(f"{inbox}.>", cb=count_reply)
    started = time.monotonic()
    try:
        for i, (kind, body, headers) in enumerate(messages(creds, count)):
            await nc.publish(subject, body, reply=f"{inbox}.{i}", headers=headers)
            result.sent[kind] += 1
            if i % 64 == 0:
                await nc.flush()
                if rate:
                    await asyncio.sleep(max(started + i / rate - time.monotonic(), 0.0))
        await nc.flush()
        result.seconds = round(time.monotonic() - started, 2)
        await asyncio.sleep(linger_s)
    finally:
        await nc.drain()
    return result


@dataclass
class FloodReport:
    """The honest user's answers during the flood, and the flood's replies."""

    deadline_ms: int
    took_ms: list[float] = field(default_factory=list)
    full: int = 0
    failed: list[str] = field(default_factory=list)
    flood: FloodSent = field(default_factory=FloodSent)

    @property
    def asked(self) -> int:
        return len(self.took_ms) + len(self.failed)

    @property
    def by_deadline(self) -> int:
        return sum(1 for ms in self.took_ms if ms <= self.deadline_ms)

    def text(self) -> str:
        sent = sum(self.flood.sent.values())
        p50, p99 = (np.percentile(self.took_ms, [50, 99]) if self.took_ms else (0.0, 0.0))
        lines = [f"flood: {sent} messages in {self.flood.seconds:.1f} s ({sent / max(self.flood.seconds, 1e-9):.0f}/s) "
                 "from one signed-in user",
                 *text_table([["sent", "messages"], *([kind, str(n)] for kind, n in sorted(self.flood.sent.items()))],
                             first_left=True),
                 *text_table([["replies to the flood", "messages"],
                              *([kind, str(n)] for kind, n in sorted(self.flood.replies.items()))], first_left=True),
                 f"another user, every 200 ms: {self.asked} asked, {self.by_deadline} answered by the "
                 f"{self.deadline_ms} ms deadline, {self.full} with full coverage, p50 {p50:.0f} ms, p99 {p99:.0f} ms"]
        lines += [f"  failed: {reason}" for reason in self.failed[:10]]
        return "\n".join(lines)


async def run(url: str, flooder: Credentials, honest: Credentials, count: int, *, interval_s: float = 0.2,
              deadline_ms: int = 3000, question: str = "Which patients had a stroke or a seizure?",
              rate: float = 0.0) -> FloodReport:
    """Floods with ``count`` messages (``rate`` a second, or as fast as it can) from a process of its own as
    ``flooder``, while ``honest`` asks ``question`` every ``interval_s`` until the flood has been sent."""
    report = FloodReport(deadline_ms=deadline_ms)
    with tempfile.TemporaryDirectory() as folder:
        token = flooder.save(Path(folder) / "flooder.token")
        # The flooder would be on a machine of its own; sharing this one, it runs at the lowest priority so
        # that what is measured is what its messages cost the federation, not the CPU it burns making them.
        proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "nodes.chaos.flood", url, str(token), str(count),
                                                    "--rate", str(rate),
                                                    stdout=asyncio.subprocess.PIPE, env={**os.environ},
                                                    preexec_fn=lambda: os.nice(19))
        nc = await connect_as(url, "fedrag-honest", honest)
        try:
            done = asyncio.create_task(proc.stdout.read())
            while not done.done():
                tick = time.monotonic()
                try:
                    answer = await ask(nc, AskRequest(question=question, deadline_ms=deadline_ms),
                                       headers=lambda: honest.headers(question))
                    report.took_ms.append((time.monotonic() - tick) * 1000.0)
                    report.full += int(answer.error is None and not answer.partial)
                except Exception as exc:  # noqa: BLE001 (a failure is what this measures)
                    report.failed.append(f"{type(exc).__name__}: {exc}"[:200])
                await asyncio.sleep(max(interval_s - (time.monotonic() - tick), 0.0))
            out = await done
            await proc.wait()
        finally:
            if proc.returncode is None:
                proc.kill()
            await nc.drain()
    data = json.loads(out.decode().strip().splitlines()[-1])
    report.flood = FloodSent(Counter(data["sent"]), Counter(data["replies"]), data["seconds"])
    return report


def main(argv: list[str] | None = None) -> None:
    """The flooder process: ``python -m nodes.chaos.flood URL TOKEN_FILE COUNT``; prints what it sent and got as JSON."""
    parser = argparse.ArgumentParser(prog="python -m nodes.chaos.flood")
    parser.add_argument("url")
    parser.add_argument("token")
    parser.add_argument("count", type=int)
    parser.add_argument("--rate", type=float, default=0.0)
    args = parser.parse_args(argv)
    result = asyncio.run(send(args.url, Credentials.load(Path(args.token)), args.count, rate=args.rate))
    print(json.dumps(result.to_dict()), flush=True)


if __name__ == "__main__":
    main()
