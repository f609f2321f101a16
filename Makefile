# Two entry points for a fresh machine: `make demo` and `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   ?= .venv
PY     := $(VENV)/bin/python

.PHONY: venv demo test clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[dev,aligners,dask]"
	touch $@

venv: $(VENV)/.installed

demo: venv
	$(VENV)/bin/structpred align compare

test: venv
	$(PY) -m pytest -q tests

clean:
	rm -rf $(VENV) runs .cache
