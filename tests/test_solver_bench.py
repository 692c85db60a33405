"""`tricksolver bench` pieces on Kuhn: the three CFR+ implementations agree, the table renders."""
from __future__ import annotations

import pytest

from solver import bench


def test_our_cfr_plus_reaches_what_openspiel_cpp_and_python_reach():
    entry = bench.bench_game("kuhn_poker", 20, 1e-2)
    ours = entry["ours_cfr_plus"]["exploitability"]
    assert entry["openspiel_cpp_cfr_plus"]["exploitability"] == pytest.approx(ours, abs=1e-9)
    assert entry["openspiel_python_cfr_plus"]["exploitability"] == pytest.approx(ours, abs=1e-9)
    assert all(run["reached"] for run in entry["time_to_target"])
    table = bench.format_table([entry])
    assert table.splitlines()[1].startswith("kuhn_poker")
    assert "pcfr+" in table
