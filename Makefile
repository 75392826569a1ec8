# Two entry points: `make demo` and `make test`. Both build .venv from scratch when needed.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test fuzz bench java clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,spark,dbt,fast,lsp]'
	touch $(STAMP)

# PySpark needs a JVM; install one from Debian's packages when the machine has none.
java:
	@command -v java >/dev/null 2>&1 || { \
	  echo "java not found: installing openjdk-17-jre-headless"; \
	  apt-get update -qq && apt-get install -y -qq openjdk-17-jre-headless >/dev/null; }

demo: $(STAMP)
	cd examples && ../$(BIN)/sortlint check . ; test $$? -le 1

test: $(STAMP) java
	$(BIN)/mypy
	HYPOTHESIS_PROFILE=ci $(BIN)/python -m pytest

# Long runs: the engine fuzzers (tests/fuzz/run.py: FUZZ_COUNT queries per engine from
# FUZZ_SEED; FUZZ_ENGINES is spark, datafusion, spark-multifile (FUZZ_COUNT pairs of an upstream
# CTAS and its reader), spark-airflow (DAGs building their SQL at run time), spark-pyspark-modules
# (DataFrames through functions of another module) or all; reproducers go to fuzz-failures/), then
# the property tests of any input with new examples each time (no crash, whatever the input).
FUZZ_SEED ?= 1
FUZZ_COUNT ?= 500
FUZZ_ENGINES ?= all
fuzz: $(STAMP) java
	cd tests && FUZZ_SEED=$(FUZZ_SEED) FUZZ_COUNT=$(FUZZ_COUNT) FUZZ_OUT=$(CURDIR)/fuzz-failures \
	  PYTHONPATH=$(CURDIR):$(CURDIR)/tests $(CURDIR)/$(BIN)/python -m fuzz.run $(FUZZ_ENGINES)
	HYPOTHESIS_PROFILE=fuzz $(BIN)/python -m pytest -q tests/reliability/test_any_input.py

bench: $(STAMP)
	$(BIN)/python benchmarks/ordering_scaling.py
	$(BIN)/python benchmarks/check_speed.py
	$(BIN)/python benchmarks/contracts_scale.py --quick
	$(BIN)/python benchmarks/scaling.py
	$(BIN)/python benchmarks/big_statements.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .mypy_cache fuzz-failures
