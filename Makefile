# The two commands a newcomer needs: `make demo` and `make test`.
# Both create .venv if missing and install the project into it (torch's CPU build first).

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PIP_QUIET := --quiet --disable-pip-version-check
PYTEST_ARGS ?=

.PHONY: demo test bench install clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install $(PIP_QUIET) --upgrade pip 2>&1 | grep -v '^WARNING: Location' || true
	$(PY) -m pip install $(PIP_QUIET) torch==2.13.0 2>&1 | grep -v '^WARNING: Location' || true
	$(PY) -m pip install $(PIP_QUIET) -e '.[dev,names,llm]' 2>&1 | grep -v '^WARNING: Location' || true
	$(PY) -c "import torch, hnswlib, nats, nodes.cli" # fails loudly if the install above did not work
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/fedrag demo

test: $(STAMP)
	$(PY) -m ruff check --quiet .
	$(PY) -m pytest $(PYTEST_ARGS)

bench: $(STAMP)
	$(PY) scripts/bench.py

clean:
	rm -rf .fedrag .pytest_cache
