# Cairn: `make demo` runs a research task offline; `make test` runs the whole test suite (what CI
# runs); `make test-fast` the unit and contract tests only (under two minutes, for everyday work).
# Each creates .venv and installs everything it needs on a fresh machine.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
export LITELLM_LOCAL_MODEL_COST_MAP := True
export PREFECT_SERVER_ANALYTICS_ENABLED := false
export GX_ANALYTICS_ENABLED := false

.PHONY: install demo test test-fast lint bench clean

$(BIN)/cairn: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(BIN)/cairn

install: $(BIN)/cairn

demo: install
	$(BIN)/cairn run "$$(cat examples/QUESTION)" --source examples/corpus --workspace demo-workspace

test: install
	$(BIN)/pytest

test-fast: install
	$(BIN)/pytest tests/unit tests/contract

lint: install
	$(BIN)/ruff check . && $(BIN)/ruff format --check . && $(BIN)/mypy

bench: install
	$(BIN)/python bench/store.py --sizes 10000 && $(BIN)/python bench/orchestration.py

clean:
	rm -rf $(VENV) demo-workspace dist build .pytest_cache .mypy_cache .ruff_cache
