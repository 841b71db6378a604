"""A router's summary written by an LLM (:class:`summarizer.summaries.Summarizer`) through the whole
federation: a real broker, real leaves, the real llama.cpp server on SmolLM2-135M, and a router set by
its spec to summarize with the model (``summarize = "llm"``).

Whatever the tiny model writes, every sentence of a summary is supported by the passages it cites, and
a summary the model could not write is the extractive one, with the reason, by the deadline.
"""

from __future__ import annotations

import pytest

from summarizer.generate import supported
from tests.helpers.llm import assert_checked, closed_port_url, stream
from tests.helpers.timing import LLM_SLACK_MS


async def test_a_router_summarizes_with_the_model_or_says_why_the_extractive_summary_stands_in(llm_server, clinic, nc):
    federation = await clinic(llm_server.base_url, summarize="llm")
    try:
        _, answer, _ = await stream(nc, "Which patients have atrial fibrillation?")
        [summary] = answer.summaries
        texts = {hit.id: f"{hit.patient} {hit.text}" for hit in answer.hits}
        assert summary.path == "clinic" and summary.relevant >= 2
        assert summary.status in ("successful", "failed"), summary
        for sentence in summary.sentences:
            evidence = " ".join(texts[ref.id] for ref in sentence.sources)
            assert sentence.sources and supported(sentence.text, evidence), sentence
        if summary.status == "failed":
            assert summary.method == "extractive" and summary.error.type == "llm" and summary.error.reason
        else:
            assert summary.method == "llm" and summary.confidence is not None
        assert_checked(answer)
    finally:
        await federation.stop()


@pytest.mark.timing
async def test_a_router_whose_model_is_down_still_summarizes_and_says_so(clinic, nc):
    federation = await clinic(closed_port_url(), summarize="llm", reserve_ms=3_000)
    deadline_ms = 10_000
    try:
        _, answer, took = await stream(nc, "Which patients have atrial fibrillation?", deadline_ms=deadline_ms)
        [summary] = answer.summaries
        assert summary.status == "failed" and summary.method == "extractive" and summary.sentences
        assert "extractive summary stands in" in summary.error.reason
        assert answer.answer_info.status == "fallback", "the gateway's model is down too"
        assert took * 1000 <= deadline_ms + LLM_SLACK_MS
    finally:
        await federation.stop()
