"""Assembling a spec into nodes (:mod:`nodes.run.assemble`) over a real broker: a leaf's bad rows are skipped
and said, a leaf whose data is missing is not served while the rest are, and a process asked to run
nodes its organization does not have refuses.
"""

from __future__ import annotations

import pytest

from bus.client import ask
from bus.errors import FedragError
from bus.asking import AskRequest
from nodes.run.assemble import build_org
from nodes.run.federation import Federation
from nodes.run.spec import FederationSpec
from tests.helpers.federations import reuse_demo_stores


async def test_bad_rows_are_skipped_and_missing_data_leaves_the_rest_serving(nats_server, demo_dir, embedder, nc,
                                                                              tmp_path, capfd):
    corpus = demo_dir / "corpus"
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"id": "ok", "text": "Stroke with left-sided weakness."}\n{"id": "x", "text": \n')
    spec_path = tmp_path / "fed.toml"
    spec_path.write_text(f"""
[federation]
state_dir = "state"
[orgs.hospital_c.units.admissions]
data = "{corpus}/hospital_c/admissions.jsonl"
[orgs.hospital_c.units.neurology]
data = "{broken}"
[orgs.hospital_c.units.oncology]
data = "{tmp_path}/never-written.jsonl"
""")
    spec = FederationSpec.load(spec_path)
    reuse_demo_stores(spec, demo_dir)
    federation = Federation(spec, nats_server.url, processes=False, embedder_factory=lambda: embedder)
    await federation.start()
    try:
        err = capfd.readouterr().err
        assert "hospital_c.oncology: NOT SERVING" in err and "never-written.jsonl does not exist" in err
        assert "broken.jsonl:2: not valid JSON" in err and "skipped 1" in err
        answer = await ask(nc, AskRequest(question="stroke"))
        assert answer.nodes["fed.q.hospital_c.oncology"].status == "unavailable"
        assert answer.nodes["fed.q.hospital_c.neurology"].status == "successful"
        assert "ok" in {hit.metadata.get("record_id") for hit in answer.hits}
        assert answer.nodes["fed.q.hospital_c.admissions"].status == "successful"
    finally:
        await federation.stop()


async def test_a_process_asked_to_run_nodes_its_organization_does_not_have_refuses(open_spec):
    with pytest.raises(FedragError, match="hospital_b.cardiology: not a node of organization hospital_a"):
        await build_org(open_spec, "hospital_a", only=("hospital_b.cardiology",))
