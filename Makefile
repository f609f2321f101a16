# Two entry points for a fresh machine: `make demo` and `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   ?= .venv
PY     := $(VENV)/bin/python

.PHONY: venv demo test test-slow test-all clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[dev,aligners,dask,crf]"
	$(PY) scripts/compile_kernels.py -q
	touch $@

venv: $(VENV)/.installed

demo: venv
	$(VENV)/bin/structpred align compare

# Installing compiles the numba kernels into their on-disk cache (scripts/compile_kernels.py,
# a few minutes once), as a package with C extensions compiles them at install time.
# The fast tier (at most 5 minutes on 2 cores): everything but the tests that
# tests/conftest.py marks slow or cluster.  `make test-slow` runs exactly those,
# `make test-all` both; CI runs the fast tier, then the slow one.
# two test processes, one per core; a test file stays in one process (its module fixtures
# are built once)
PYTEST := $(PY) -m pytest -q --durations=15 -n 2 --dist loadfile

test: venv
	$(PYTEST) -m "not slow and not cluster" tests

test-slow: venv
	$(PYTEST) -m "slow or cluster" tests

test-all: venv
	$(PYTEST) tests

clean:
	rm -rf $(VENV) runs .cache
