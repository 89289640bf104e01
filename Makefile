# Two commands on a fresh machine: `make run` and `make test`. Both install what they need.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
DATA ?= aclog-data

.PHONY: install run test lint unit bench bench-quick clean

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[spark,dev]'
	touch $(STAMP)

run: install
	$(BIN)/aclog quickstart --data-dir $(DATA)

lint: install
	$(BIN)/ruff check aclog tests benchmarks
	$(BIN)/ruff format --check aclog tests benchmarks
	$(BIN)/mypy
	$(BIN)/lint-imports

unit: install
	$(BIN)/pytest -q

test: lint unit

bench: install
	$(BIN)/python -m benchmarks --out benchmarks/results

bench-quick: install
	$(BIN)/python -m benchmarks --quick

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis $(DATA)
