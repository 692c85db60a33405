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

# `make solve` writes to runs/ (git-ignored): it never changes committed files. OUT=DIR writes
# elsewhere (OUT=results/le_truc/small regenerates the committed copy).
OUT ?= runs/le_truc/small

solve: $(STAMP)
	$(BIN)/tricksolver solve python_le_truc -p num_ranks=4 -p hand_size=2 -p isomorphic=true \
	    --target 1e-5 --out $(OUT)
	$(BIN)/tricksolver chart $(OUT)

bench: $(STAMP)
	$(BIN)/tricksolver bench --output runs/bench

clean:
	rm -rf $(VENV) build *.egg-info
