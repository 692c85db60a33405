# Two commands set everything up from a fresh clone: `make solve` and `make test`.
# Both create .venv with the project and its test extra installed, then run.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test solve bench clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11+ is required, found " + sys.version.split()[0])'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest -q

solve: $(STAMP)
	$(BIN)/tricksolver sizes

bench: $(STAMP)
	$(BIN)/tricksolver bench

clean:
	rm -rf $(VENV) build *.egg-info
