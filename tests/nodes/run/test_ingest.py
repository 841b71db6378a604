"""``fedrag ingest``'s side of ingestion (:mod:`nodes.run.ingest`): records read from files with their loader,
and what was skipped listed. The leaf taking them live is tested in ``tests/nodes/data/test_ingest.py``."""

from __future__ import annotations

import json

from nodes.run.ingest import IngestSummary, read_records


def test_the_command_reads_files_with_their_loader_and_lists_what_it_skipped(tmp_path):
    data = tmp_path / "rows.csv"
    data.write_text("note_id,who,body\n1,Ana Ruiz,Chest pain.\n2,Bo Chen,\n3,Cy Diaz,Cough.\n" + f"4,X,{'y' * 500_000}\n")
    summary = IngestSummary("site.live")
    records = read_records([data], "csv", {"text": "body", "id": "note_id", "patient": "who"}, summary)
    assert [r.id for r in records] == ["1", "3"]
    text = summary.text()
    assert "skipped 2" in text and "empty text" in text and "text: String should have at most" in text, text
    assert json.loads(json.dumps([r.model_dump() for r in records]))[0]["patient"] == "Ana Ruiz"
