"""Bad input at every entry point (``scripts/fuzz.py``): thousands of malformed messages to the gateway
and every node of the demo federation over a real broker, then every node still serves and a normal
question gets full coverage. CI runs 3,000 messages; ``python scripts/fuzz.py`` runs 100,000.
"""

from __future__ import annotations

import pytest

from scripts.fuzz import fuzz, still_serving


@pytest.mark.slow
async def test_every_node_survives_a_fuzzer_and_serves_after(demo_federation, nats_server, nc):
    before = await nc.request("$SRV.PING", b"", timeout=2)
    assert before.data
    subjects = sorted(subject for subjects in demo_federation.serving.values() for subject in subjects)
    sent = await fuzz(nats_server.url, 3_000, seed=7)
    assert sum(sent.values()) == 3_000 and len([k for k in sent if not k.startswith("not sent")]) >= 7, sent
    successful, total = await still_serving(nats_server.url, subjects)
    assert successful == total == 10
