"""What several test modules share, one module per concern; fixtures stay in the ``conftest.py`` files.

- :mod:`tests.helpers.asking` — signing in as a spec's user and asking over a permissioned broker.
- :mod:`tests.helpers.federations` — the demo federation answering in full, and stores reused from it.
- :mod:`tests.helpers.cli` — running the ``fedrag`` command and checking its one-line errors.
- :mod:`tests.helpers.llm` — the clinic federation with an LLM, its checks, and a proxy that drops connections.
- :mod:`tests.helpers.properties` — hypothesis settings and the hits the merge and top-k properties draw.
- :mod:`tests.helpers.terminal` — a fixed answer and a bare app for the terminal client's tests.
- :mod:`tests.helpers.timing` — the slack every bound on wall-clock time adds to the budget it tests.
- :mod:`tests.helpers.tokens` — a signed token for the identity unit tests.

No test module imports another test module or a ``conftest.py`` (``tests/test_layout.py`` checks).
"""
