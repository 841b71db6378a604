"""Summaries and answers: extractive and LLM summarization, cited answers with abstention.

Not built yet: the gateway's ``answer`` field stays ``null`` until this package provides it.
"""
