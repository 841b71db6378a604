"""Ingestion and leaf-storage benchmark: embedding, JetStream throughput, start-to-serving, memory.

Prints, in one run and on one machine:

* embedding: passages per second of :class:`nodes.data.embedder.Embedder` and of
  sentence-transformers' ``encode`` on the same model and the same passages (the demo corpus cut by
  the chunker), their ratio, and the largest difference between the two sets of vectors;
* ingestion: records per second from ``fedrag ingest``'s publisher through JetStream into a
  searchable leaf (one organization process, real broker), stored-by-the-stream and applied;
* start to serving: seconds from opening a built leaf of 10k and of 100k passages (synthetic unit
  vectors, nothing embedded) to its first answered query — from the saved index, and rebuilt
  from SQLite when the index file is lost;
* memory: the resident size of this process with the embedding model loaded and after
  :func:`nodes.data.embedder.release`, and of each organization process of the demo federation
  once it serves (they release the model after their build).

Usage::

    python scripts/ingest_bench.py [--sizes 10000 100000] [--records 2000] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bus.client import ask
from bus.connection import connect
from bus.ingest import IngestRecord
from bus.asking import AskRequest
from nodes.data import embedder as emb
from nodes.data.chunking import chunk
from nodes.data.loaders import load
from nodes.data.records import Record
from nodes.data.store import LeafStore
from nodes.demo.federation import prepare
from nodes.run.federation import launched
from nodes.run.ingest import IngestSummary, ingest
from nodes.run.spec import FederationSpec


def rss_mb(pid: int | str = "self") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def demo_records(state: Path) -> list[Record]:
    spec = FederationSpec.load(prepare(state, secure=False))
    out = []
    for path, node in spec.leaves().items():
        records, _ = load(node.data)
        out += [Record(f"{path}/{r.id}", r.text, r.patient, r.date, r.metadata) for r in records]
    return out


def embedding(texts: list[str]) -> dict:
    """Our embedder against sentence-transformers' encode, same model, same texts, best of two runs each."""
    from sentence_transformers import SentenceTransformer

    ours = emb.shared()
    theirs = SentenceTransformer(str(emb.model_path()), device="cpu")
    theirs.max_seq_length = emb.MAX_TOKENS
    ours.embed(texts[:64]), theirs.encode(texts[:64])  # warm up
    timings: dict[str, list[float]] = {"ours": [], "sentence_transformers": []}
    for _ in range(2):
        started = time.perf_counter()
        mine = ours.embed(texts)
        timings["ours"].append(time.perf_counter() - started)
        started = time.perf_counter()
        reference = theirs.encode(texts, batch_size=32, normalize_embeddings=True, convert_to_numpy=True)
        timings["sentence_transformers"].append(time.perf_counter() - started)
    best = {name: min(values) for name, values in timings.items()}
    return {"passages": len(texts), "ours_per_s": len(texts) / best["ours"],
            "sentence_transformers_per_s": len(texts) / best["sentence_transformers"],
            "ratio": best["sentence_transformers"] / best["ours"],
            "max_abs_difference": float(np.abs(mine - reference).max())}


async def jetstream(records: list[Record], tmp: Path) -> dict:
    """Records per second through JetStream into a leaf of an organization process."""
    (tmp / "live.toml").write_text('[federation]\nstate_dir = "state"\n[orgs.site.units.live]\ningest = true\n')
    spec = FederationSpec.load(tmp / "live.toml")
    async with launched(spec, store_dir=tmp / "js", verbose=False) as running:
        nc = await connect(running.url, "bench")
        try:
            messages = [IngestRecord(id=r.id, text=r.text, patient=r.patient, date=r.date, metadata=r.metadata)
                        for r in records]
            summary = await ingest(nc, "site.live", messages, [], IngestSummary("site.live"), wait_s=1800,
                                   verbose=False)
            answer = await ask(nc, AskRequest(question=records[0].text[:200], k=1))
            searchable = bool(answer.hits)
        finally:
            await nc.drain()
    return {"records": len(records), "applied_per_s": len(records) / summary.seconds, "seconds": summary.seconds,
            "complete": summary.complete, "searchable": searchable, "added": summary.applied.added}


class RandomVectors:
    """Unit vectors drawn at random: stores of any size without embedding."""

    def __init__(self, fingerprint: str, seed: int = 0) -> None:
        self.fingerprint = fingerprint
        self.rng = np.random.default_rng(seed)

    def embed(self, texts: list[str]) -> np.ndarray:
        vectors = self.rng.normal(size=(len(texts), emb.DIM)).astype(np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def start_to_serving(size: int, tmp: Path) -> dict:
    """Seconds from opening a built leaf of ``size`` passages to its first answer, saved index vs rebuilt."""
    folder = tmp / f"leaf-{size}"
    fake = RandomVectors(emb.fingerprint())
    store = LeafStore.open(folder, fake.fingerprint, emb.DIM)
    started = time.perf_counter()
    for start in range(0, size, 2048):
        batch = [Record(f"r{i}", f"Record {i}: synthetic passage number {i}.", f"Patient {i % 5000}")
                 for i in range(start, min(start + 2048, size))]
        store.apply(batch, [], lambda: fake, origin="bench")
    build = time.perf_counter() - started
    store.save_index()
    store.close()
    query = fake.embed(["q"])[0]

    def first_answer() -> float:
        started = time.perf_counter()
        opened = LeafStore.existing(folder)
        labels, _ = opened.index.search(query, 10)
        opened.scored(labels, query)
        took = time.perf_counter() - started
        assert len(opened) == size
        opened.close()
        return took

    saved = min(first_answer() for _ in range(2))
    (folder / "index.hnsw").unlink()
    rebuilt = first_answer()
    return {"passages": size, "build_s": build, "open_saved_index_s": saved, "open_rebuilt_from_sqlite_s": rebuilt}


async def org_memory(tmp: Path) -> dict:
    """Resident size of each demo organization process once it serves."""
    spec = FederationSpec.load(prepare(tmp / "demo", secure=False))
    async with launched(spec, store_dir=tmp / "js-demo", verbose=False) as running:
        await asyncio.sleep(1.0)
        return {org: rss_mb(running.federation.pid(org)) for org in spec.orgs}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--records", type=int, default=2000, help="records sent through JetStream")
    parser.add_argument("--state-dir", default=".fedrag/demo")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    figures: dict = {}
    records = demo_records(Path(args.state_dir))
    texts = [p.text for r in records for p in chunk(r)][:2000]
    before = rss_mb()
    figures["embedding"] = embedding(texts)
    loaded = rss_mb()
    emb.release()
    figures["memory"] = {"process_before_model_mb": before, "model_loaded_mb": loaded, "after_release_mb": rss_mb()}
    with tempfile.TemporaryDirectory(prefix="fedrag-ingest-bench-") as tmp:
        tmp = Path(tmp)
        figures["jetstream"] = asyncio.run(jetstream(records[:args.records], tmp))
        figures["start_to_serving"] = [start_to_serving(size, tmp) for size in args.sizes]
        figures["memory"]["org_processes_serving_mb"] = asyncio.run(org_memory(tmp))

    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    e, j, m = figures["embedding"], figures["jetstream"], figures["memory"]
    print(f"embedding ({e['passages']} demo passages, {os.cpu_count()} cores): {e['ours_per_s']:.0f}/s ours vs "
          f"{e['sentence_transformers_per_s']:.0f}/s sentence-transformers encode: ratio {e['ratio']:.2f} "
          f"(max |difference| {e['max_abs_difference']:.1e})")
    print(f"jetstream: {j['records']} records published, stored and applied in {j['seconds']:.1f} s: "
          f"{j['applied_per_s']:.0f} records/s into a searchable leaf (complete={j['complete']}, "
          f"searchable={j['searchable']})")
    for s in figures["start_to_serving"]:
        print(f"start to serving, {s['passages']} passages: {s['open_saved_index_s']:.2f} s from the saved index, "
              f"{s['open_rebuilt_from_sqlite_s']:.2f} s rebuilt from SQLite (built in {s['build_s']:.0f} s, "
              "nothing embedded)")
    print(f"memory: this process {m['process_before_model_mb']:.0f} MB, {m['model_loaded_mb']:.0f} MB with the model "
          f"loaded and used, {m['after_release_mb']:.0f} MB after release; demo organization processes serving: "
          + ", ".join(f"{org} {mb:.0f} MB" for org, mb in m["org_processes_serving_mb"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
