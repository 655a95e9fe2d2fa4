# Cairn: `make demo` runs a research task offline; `make test` runs the whole test suite (what CI
# runs), the store contract suite against a real Weaviate included (built with Go on first use,
# about 8 minutes, then cached: deployments/weaviate/); `make test-fast` the unit and contract
# tests on the embedded store and the Weaviate double only (under two minutes, for everyday work).
# Each creates .venv and installs everything it needs on a fresh machine.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
LOCK := requirements.lock
UV := uv==0.13.9
export LITELLM_LOCAL_MODEL_COST_MAP := True
export PREFECT_SERVER_ANALYTICS_ENABLED := false
export GX_ANALYTICS_ENABLED := false

.PHONY: install lock demo test test-fast lint bench clean weaviate

# Every dependency comes from the lock, each file checked against its hash, exactly as listed (the
# lock is a whole resolution; pip's own resolver trips on its extras); then Cairn itself, editable
# (which cannot be hashed), with nothing downloaded; `pip check`: the lock fits pyproject.toml.
$(BIN)/cairn: pyproject.toml $(LOCK)
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --require-hashes --no-deps -r $(LOCK)
	$(BIN)/pip install --quiet --no-deps --no-build-isolation -e .
	$(BIN)/pip check
	touch $(BIN)/cairn

install: $(BIN)/cairn

demo: install
	$(BIN)/cairn run "$$(cat examples/QUESTION)" --source examples/corpus --workspace demo-workspace

test: install
	$(BIN)/pytest

test-fast: install
	$(BIN)/pytest tests/unit tests/contract -m 'not weaviate_live'

# The pinned Weaviate server, built from the Go module proxy and cached by version (make test
# builds it on its own when needed); `deployments/weaviate/start.sh` runs it.
weaviate:
	deployments/weaviate/build.sh

lint: install
	$(BIN)/ruff check . && $(BIN)/ruff format --check . && $(BIN)/mypy

bench: install
	$(BIN)/python bench/store.py --sizes 10000 && $(BIN)/python bench/orchestration.py

# Refresh requirements.lock from pyproject.toml's ranges and its build requirement (setuptools):
# versions for Python 3.11+ on every platform, with the hashes of their files. Pins that still fit
# are kept; `make lock LOCK_ARGS=--upgrade` takes the newest allowed. tests/unit/project/test_lock.py
# fails while the lock and pyproject.toml disagree.
lock:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet '$(UV)'
	$(PY) -c 'import tomllib; print(*tomllib.load(open("pyproject.toml", "rb"))["build-system"]["requires"], sep="\n")' \
		| $(BIN)/uv pip compile pyproject.toml - --extra test --universal --python-version 3.11 \
		--generate-hashes --no-strip-extras --custom-compile-command 'make lock' --quiet $(LOCK_ARGS) -o $(LOCK)

clean:
	rm -rf $(VENV) demo-workspace dist build .pytest_cache .mypy_cache .ruff_cache
