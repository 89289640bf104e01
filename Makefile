# Two commands on a fresh machine: `make run` and `make test`. Both install what they need.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
DATA ?= aclog-data

# The UI's browser tests need Debian's chromium and chromedriver: install them where possible.
.PHONY: install java browser run test lint unit bench bench-quick bench-pipeline clean

# The Spark pipeline needs Java 17+, and the comparisons with Kafka's own classes (the java bench
# suite, the StandardAuthorizer tests) need javac: install a JDK when missing and possible, else say why not.
java:
	@if command -v javac >/dev/null 2>&1 || { [ -n "$$JAVA_HOME" ] && [ -x "$$JAVA_HOME/bin/javac" ]; }; then \
	  echo "java: $$($${JAVA_HOME:+$$JAVA_HOME/bin/}java -version 2>&1 | head -n 1)"; \
	elif command -v apt-get >/dev/null 2>&1 && { [ "$$(id -u)" = 0 ] || sudo -n true 2>/dev/null; }; then \
	  echo "java: no javac; installing openjdk-17-jdk-headless (Spark pipeline, comparisons with Kafka's classes)"; \
	  SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo -n); \
	  $$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openjdk-17-jdk-headless; \
	elif command -v java >/dev/null 2>&1; then \
	  echo "java: $$(java -version 2>&1 | head -n 1), but no javac and apt-get cannot run here: the comparisons with Kafka's classes are skipped."; \
	else \
	  echo "java: not found, and apt-get cannot run here (not root, no passwordless sudo, or not Debian/Ubuntu)."; \
	  echo "java: the Spark pipeline needs Java 17+: install openjdk-17-jdk-headless or set JAVA_HOME."; \
	fi

browser:
	@if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then \
	  echo "browser: $$(chromium --version 2>/dev/null | head -n 1)"; \
	elif command -v apt-get >/dev/null 2>&1 && { [ "$$(id -u)" = 0 ] || sudo -n true 2>/dev/null; }; then \
	  echo "browser: chromium or chromedriver not found; installing them for the UI's browser tests"; \
	  SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo -n); \
	  $$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium chromium-driver; \
	else \
	  echo "browser: chromium/chromedriver not found and apt-get cannot run here; the UI's browser tests will be skipped"; \
	fi

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[spark,dev,jks]'
	touch $(STAMP)

run: install
	$(BIN)/aclog quickstart --data-dir $(DATA)

lint: install
	$(BIN)/ruff check aclog tests benchmarks
	$(BIN)/ruff format --check aclog tests benchmarks
	$(BIN)/mypy
	$(BIN)/lint-imports

unit: install java browser
	$(BIN)/pytest -q

test: lint unit

# The README's figures tables are rendered from the run just saved (benchmarks/readme_figures.py).
bench: install java
	$(BIN)/python -m benchmarks --out benchmarks/results
	$(BIN)/python -m benchmarks.readme_figures

bench-quick: install java
	$(BIN)/python -m benchmarks --quick

bench-pipeline: install java
	$(BIN)/python -m benchmarks --only pipeline --out benchmarks/results/pipeline

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis $(DATA)
