"""The demo federation in the tests: its ten units all answering, and its leaf stores reused by other specs; and
a federation of a few reference texts.

The demo federation itself is a fixture (``demo_federation``, ``secure_federation`` and ``secure`` in
``tests/conftest.py``); these are what tests do with it the same way.
"""

from __future__ import annotations

import contextlib
import json

from bus.client import ask
from bus.asking import AskRequest
from nodes.run.federation import Federation
from nodes.run.spec import FederationSpec

#: The demo federation's units (leaves).
ALL_UNITS = 10


async def everyone_still_answers(nc):
    """A normal question gets an answer from all ten units of the demo federation (after a test's abuse)."""
    answer = await ask(nc, AskRequest(question="Which patients had a stroke?", deadline_ms=5000))
    assert answer.coverage.successful == ALL_UNITS and not answer.partial, answer.nodes
    return answer


def reuse_demo_stores(spec: FederationSpec, demo_dir) -> None:
    """Points each leaf of ``spec`` at the session's store for the same data file (no re-embedding).

    A leaf ``org.x.y.unit`` whose data is the demo's ``<org>/<unit>.jsonl`` gets the demo's
    ``org.unit`` store; leaves with other data are left to build their own.
    """
    corpus = demo_dir / "corpus"
    for path, node in spec.leaves().items():
        data = node.data
        if data is not None and data.parent.parent == corpus:
            target = spec.leaf_folder(path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(demo_dir / "state" / "leaves" / f"{data.parent.name}.{data.stem}")


@contextlib.asynccontextmanager
async def reference_texts(texts: list[str], folder, url: str, embedder):
    """A running federation of one organization whose one leaf holds ``texts`` (ids ``t0``, ``t1`` …), about no
    patient, as a publisher's answers are; stopped on leaving."""
    (folder / "ref.jsonl").write_text("".join(json.dumps({"id": f"t{i}", "text": text}) + "\n"
                                              for i, text in enumerate(texts)))
    (folder / "fed.toml").write_text('[federation]\nstate_dir = "state"\n[orgs.nih.units.texts]\ndata = "ref.jsonl"\n')
    federation = Federation(FederationSpec.load(folder / "fed.toml"), url, processes=False, verbose=False,
                            embedder_factory=lambda: embedder)
    await federation.start()
    try:
        yield federation
    finally:
        await federation.stop()
