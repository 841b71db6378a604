# The two commands a newcomer needs: `make demo` and `make test`.
# Both create .venv if missing and install the project into it (torch's CPU build first).

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP_QUIET := --quiet --disable-pip-version-check
PYTEST_ARGS ?=
# What each command installs: the demo only what it uses (its answers are extractive, so not the `llm`
# extra, whose llama-cpp-python compiles for minutes on a fresh machine); the tests everything.
DEMO_STAMP := $(VENV)/.installed-demo
STAMP := $(VENV)/.installed
ALL_EXTRAS := dev,names,llm

.PHONY: demo test bench install clean

# $(call setup,extras): the virtualenv, pip, torch's CPU build first, then the project with those extras.
define setup
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install $(PIP_QUIET) --upgrade pip 2>&1 | grep -v '^WARNING: Location' || true
	$(PY) -m pip install $(PIP_QUIET) torch==2.13.0 2>&1 | grep -v '^WARNING: Location' || true
	$(PY) -m pip install $(PIP_QUIET) -e '.[$(1)]' 2>&1 | grep -v '^WARNING: Location' || true
	$(PY) -c "import torch, hnswlib, nats, nodes.cli" # fails loudly if the install above did not work
endef

$(DEMO_STAMP): pyproject.toml
	$(call setup,names)
	touch $(DEMO_STAMP)

$(STAMP): pyproject.toml
	$(call setup,$(ALL_EXTRAS))
	touch $(STAMP) $(DEMO_STAMP)

install: $(STAMP)

demo: $(DEMO_STAMP)
	$(VENV)/bin/fedrag demo

test: $(STAMP)
	$(PY) -m ruff check --quiet .
	$(PY) -m pytest $(PYTEST_ARGS)
	$(PY) -m pytest --slow-only $(PYTEST_ARGS)

bench: $(STAMP)
	$(PY) scripts/bench.py

clean:
	rm -rf .fedrag .pytest_cache
