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


def test_bench_times_the_public_engine_on_le_truc():
    entry = bench.bench_game(
        "python_le_truc(num_ranks=3,hand_size=1,isomorphic=true,max_redeals=0)", 5, 1e-1)
    public = entry["ours_public_cfr_plus"]
    assert public["iterations_per_second"] > 0
    # the same CFR+ run as the history engine's (compared at every iteration in
    # test_public_engine.py::test_lock_step_with_the_history_engine_without_redeal)
    assert public["exploitability"] == pytest.approx(entry["ours_cfr_plus"]["exploitability"],
                                                     abs=1e-9)
    assert "public-tree engine" in bench.format_table([entry])


def test_ismcts_bench_times_both_rollouts_on_the_same_positions():
    entry = bench.ismcts_rollouts(5)
    assert entry["positions"] == bench.ISMCTS_POSITIONS
    for name in ("numba", "openspiel"):
        assert len(entry[f"{name}_seconds_per_move"]) == bench.ISMCTS_POSITIONS
        assert min(entry[f"{name}_seconds_per_move"]) > 0
        assert entry[f"{name}_rollouts_per_second"] > 0
    assert "OpenSpiel Python" in bench.format_ismcts(entry)
