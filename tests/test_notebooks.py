"""The notebooks run headless, end to end, in their fast mode (TRICKSOLVER_FAST=1)."""
from __future__ import annotations

import pathlib

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = pathlib.Path(__file__).resolve().parent.parent / "notebooks"


@pytest.mark.parametrize("name", ["getting_started.ipynb", "le_truc_equilibrium.ipynb",
                                  "truco_equilibrium.ipynb"])
def test_notebook_executes(name, tree_cache, monkeypatch):
    monkeypatch.setenv("TRICKSOLVER_FAST", "1")
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    NotebookClient(notebook, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert any("image/png" in o.get("data", {}) for o in outputs)
    assert any("text/markdown" in o.get("data", {}) for o in outputs)
