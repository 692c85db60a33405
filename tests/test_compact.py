"""Issue 15, item 1: strategies in compact form (`solver.compact`, `tricksolver compact`).

Every row of a compact strategy sums to one in steps of 1/255, each probability within a step
of the original's, rows left at zero stay zero (uniform); the exploitability recorded for it is
the exact one of the strategy read back, checked by another implementation (OpenSpiel's best
response for the history engine; the history engine's, through `SolutionPolicy`, for the
public one) and within the a priori bound of `solver.compact`; `load_result` prefers
strategy.npz, loads a directory holding only the compact file, and reports a damaged one in
one line."""
from __future__ import annotations

import dataclasses
import json
import shutil

import numpy as np
import pytest
from open_spiel.python.algorithms import exploitability as openspiel_exploitability

import solver
from solver import cli, compact, results
from solver.public.parts import public_parts
from solver.public.policy import SolutionPolicy
from solver.public.solve import solver_for
from solver.registry import load_game

TINY = "python_le_truc(num_ranks=3,hand_size=1,isomorphic=true,max_redeals=0)"
TRUCO = "python_truco_paulista(num_ranks=2,hand_size=2,isomorphic=true)"  # covered plays
LE_TRUC_PUBLIC = "python_le_truc(num_ranks=3,hand_size=2,isomorphic=true)"  # redeal talk


def run(capsys, *argv) -> tuple[int, str, str]:
    """`tricksolver argv` in-process; (exit code, stdout, stderr)."""
    code = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def solved(tmp_path_factory, name: str, *argv) -> object:
    """A result directory of `tricksolver solve argv`."""
    out = tmp_path_factory.mktemp(name) / "result"
    assert cli.main(["solve", *argv, "--quiet", "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def tiny(tmp_path_factory, tree_cache):
    """A history-engine result of the tiny Le Truc, a few iterations in (mixed rows)."""
    return solved(tmp_path_factory, "tiny", TINY, "--iterations", "30")


@pytest.fixture(scope="module")
def truco(tmp_path_factory, tree_cache):
    """A public-engine Truco result, solved vira class by vira class."""
    return solved(tmp_path_factory, "truco", TRUCO, "--engine", "public", "--iterations", "15")


@pytest.fixture(scope="module")
def le_truc_public(tmp_path_factory, tree_cache):
    """A public-engine Le Truc result with the redeal talk (three copies of the play tree)."""
    return solved(tmp_path_factory, "le_truc_public", LE_TRUC_PUBLIC, "--engine", "public",
                  "--iterations", "10")


def copy_of(result, tmp_path):
    """A copy of a result directory to change."""
    target = tmp_path / "copy"
    shutil.copytree(result, target)
    return target


def rows_normalised(values: np.ndarray, starts: np.ndarray, widths: np.ndarray):
    """(totals, probabilities) of rows that tile `values` (asserted)."""
    order = np.argsort(starts)
    starts, widths = starts[order], widths[order]
    assert starts[0] == 0 and starts[-1] + widths[-1] == values.size
    assert np.array_equal(starts[1:], starts[:-1] + widths[:-1])  # the rows tile the table
    totals = np.add.reduceat(values, starts)
    return totals, values / np.repeat(np.where(totals > 0, totals, 1.0), widths)


def assert_quantised(original: np.ndarray, restored: np.ndarray, starts, widths) -> None:
    """Rows of `restored` sum to one (zero where `original`'s do), in whole steps, each
    probability within one step of `original`'s normalised."""
    totals, probabilities = rows_normalised(original, starts, widths)
    restored_totals, restored_probabilities = rows_normalised(restored, starts, widths)
    np.testing.assert_allclose(restored_totals, np.where(totals > 0, 1.0, 0.0), atol=1e-12)
    steps = restored * compact.STEPS
    np.testing.assert_allclose(steps, np.round(steps), atol=1e-9)
    assert np.max(np.abs(restored_probabilities - probabilities)) < 1 / compact.STEPS


def row_entries(starts: np.ndarray, widths: np.ndarray) -> np.ndarray:
    """Every entry of the given rows."""
    return (np.repeat(starts, widths) + np.arange(widths.sum())
            - np.repeat(np.cumsum(widths) - widths, widths))


def test_quantise_rows_is_largest_remainder_rounding():
    rng = np.random.default_rng(0)
    widths = rng.integers(1, 7, size=2000)
    starts = np.concatenate([[0], np.cumsum(widths)[:-1]])
    values = rng.random(widths.sum()) ** 4 * (rng.random(widths.sum()) < 0.9)
    values[row_entries(starts[:100], widths[:100])] = 0.0
    q = compact.quantise_rows(values, starts, widths)
    assert q.dtype == np.uint8
    assert_quantised(values, q / compact.STEPS, starts, widths)
    assert not q[row_entries(starts[:100], widths[:100])].any()
    assert list(compact.quantise_rows(np.array([1.0, 1, 1, 2, 1, 0.5]), np.array([0, 3]),
                                      np.array([3, 3]))) == [85, 85, 85, 146, 73, 36]


def test_history_strategy_round_trip(tiny):
    saved = results.load_result(tiny)
    restored = compact.policy_from_compact(compact.compact_bytes(saved.policy))
    assert restored.info_state_strings() == saved.policy.info_state_strings()
    for field in ("infoset_player", "action_start", "actions"):
        np.testing.assert_array_equal(getattr(restored, field), getattr(saved.policy, field))
    start = saved.policy.action_start
    assert_quantised(saved.policy.probabilities, restored.probabilities, start[:-1],
                     np.diff(start))


def test_recorded_exploitability_is_exact_and_within_the_bound(tiny, tmp_path, capsys):
    result = copy_of(tiny, tmp_path)
    before = results.read_summary(result)
    code, out, err = run(capsys, "compact", result)
    assert code == 0, err
    summary = results.read_summary(result)
    record = summary.pop("compact")
    assert summary == before  # every other field unchanged
    path = result / compact.COMPACT_FILE
    assert record["file"] == path.name and record["bytes"] == path.stat().st_size
    assert record["step"] == "1/255"
    game = load_game(TINY)
    policy = results.load_compact(path)
    theirs = openspiel_exploitability.exploitability(game, policy.to_tabular(game))
    assert record["exploitability"] == pytest.approx(theirs, abs=1e-12)
    widest = int(np.max(np.diff(policy.action_start)))
    bound = ((game.max_utility() - game.min_utility()) * game.max_game_length()
             * (widest // 2) / compact.STEPS)
    assert abs(record["exploitability"] - before["exploitability"]) <= bound
    assert f"{record['exploitability']:.6g}" in out


def test_load_result_prefers_strategy_npz_and_reads_the_compact_file_alone(tiny, tmp_path,
                                                                            capsys):
    result = copy_of(tiny, tmp_path)
    assert run(capsys, "compact", result)[0] == 0
    saved = results.load_result(result)
    assert not saved.compact
    assert saved.recorded_exploitability == saved.summary["exploitability"]
    np.testing.assert_array_equal(saved.policy.probabilities,
                                  results.load_result(tiny).policy.probabilities)
    (result / results.STRATEGY_FILE).unlink()
    saved = results.load_result(result)
    assert saved.compact and isinstance(saved.policy, solver.AveragePolicy)
    assert saved.recorded_exploitability == saved.summary["compact"]["exploitability"]
    code, out, _ = run(capsys, "exploit", result)
    assert code == 0
    assert "(recomputed, compact strategy)" in out and "(difference 0, compact strategy)" in out
    code, out, _ = run(capsys, "show", result, "--infostate", "p0 | hand 7")
    assert code == 0 and "Strategy:" in out
    code, out, _ = run(capsys, "chart", result, "--kind", "tables", "--out", tmp_path / "c")
    assert code == 0 and out.strip()


def test_a_new_solve_removes_the_stale_compact_file(tiny, tmp_path, capsys):
    result = copy_of(tiny, tmp_path)
    assert run(capsys, "compact", result)[0] == 0
    saved = results.load_result(result)
    results.save_result(result, saved.policy, saved.curve, saved.summary)
    assert not (result / compact.COMPACT_FILE).exists()


def test_public_truco_round_trip_and_measure(truco, tmp_path, capsys):
    result = copy_of(truco, tmp_path)
    code, out, err = run(capsys, "compact", result)
    assert code == 0, err
    game = load_game(TRUCO)
    parts = public_parts(game)
    assert len(out.strip().splitlines()) == len(parts) + 1  # a line per vira class, the total
    sources = {results.strategy_directory(results.part_directory(result, p)) for p in parts}
    assert len(sources) == 1  # vira 3 is the same game as vira 2: one file serves both
    for sub in sources:
        original = results.load_result(sub).policy
        restored = results.load_compact(sub / compact.COMPACT_FILE)
        tree = solver_for(game, original).tree
        assert_quantised(original.sums, restored.sums, *compact.public_rows(tree))
        (sub / results.STRATEGY_FILE).unlink()
    summary = results.read_summary(result)
    code, out, _ = run(capsys, "exploit", result)
    assert code == 0 and "compact strategies" in out and "(difference 0)" in out
    solvers = [solver_for(game, results.load_result(results.part_directory(result, p)).policy)
               for p in parts]
    history_engine = solver.exploitability(game, SolutionPolicy(game, solvers))
    assert summary["compact"]["exploitability"] == pytest.approx(history_engine, abs=1e-9)
    assert summary["compact"]["bytes"] == sum(
        (sub / compact.COMPACT_FILE).stat().st_size for sub in sources)
    assert run(capsys, "chart", result, "--kind", "tables", "--out", tmp_path / "c")[0] == 0
    part = parts[0]
    drawn = results.read_summary(results.part_directory(result, part))["compact"]
    table = results.part_directory(tmp_path / "c", part) / "tables" / "bluffing.md"
    assert f"exploitability {drawn['exploitability']:.2g} points" in table.read_text()


def test_a_game_partly_compacted_is_completed(truco, tmp_path, capsys):
    """Classes already compact (strategy.npz gone) are kept, the others compacted, and the
    whole game's record equals that of compacting all at once."""
    whole = copy_of(truco, tmp_path / "whole")
    assert run(capsys, "compact", whole)[0] == 0
    partly = copy_of(truco, tmp_path / "partly")
    first = results.part_directory(partly, public_parts(load_game(TRUCO))[0])
    assert run(capsys, "compact", first)[0] == 0
    (first / results.STRATEGY_FILE).unlink()
    code, out, _ = run(capsys, "compact", partly)
    assert code == 0 and out.count("already compact") == 1
    assert (results.read_summary(partly)["compact"]
            == results.read_summary(whole)["compact"])


def test_public_rows_left_at_zero_stay_zero_and_read_as_uniform(truco):
    game = load_game(TRUCO)
    original = results.load_result(results.part_directory(truco, public_parts(game)[0])).policy
    tree = solver_for(game, original).tree
    starts, widths = compact.public_rows(tree)
    zeroed = np.random.default_rng(2).random(starts.size) < 0.3
    entries = row_entries(starts[zeroed], widths[zeroed])
    sums = original.sums.copy()
    sums[entries] = 0.0
    restored = compact.policy_from_compact(
        compact.compact_bytes(dataclasses.replace(original, sums=sums), tree))
    assert_quantised(sums, restored.sums, starts, widths)
    uniform = restored.sums.copy()
    uniform[entries] = 1.0 / np.repeat(widths[zeroed], widths[zeroed])
    assert solver_for(game, restored).exploitability() == pytest.approx(
        solver_for(game, dataclasses.replace(restored, sums=uniform)).exploitability(),
        abs=1e-12)


def test_le_truc_redeal_talk_is_quantised_too(le_truc_public, tmp_path, capsys):
    result = copy_of(le_truc_public, tmp_path)
    assert run(capsys, "compact", result)[0] == 0
    original = results.load_result(result).policy
    (result / results.STRATEGY_FILE).unlink()
    saved = results.load_result(result)
    assert saved.compact and saved.policy.talk.shape == original.talk.shape
    width = original.talk.shape[-1]
    talk_starts = np.arange(0, original.talk.size, width)
    assert_quantised(original.talk.ravel(), saved.policy.talk.ravel(), talk_starts,
                     np.full(talk_starts.size, width))
    game = load_game(LE_TRUC_PUBLIC)
    tree = solver_for(game, original).tree
    starts, widths = compact.public_rows(tree)
    size = int(tree.table_size.sum())
    assert original.sums.size == 3 * size  # keep, decline, agree
    for at in range(0, original.sums.size, size):
        assert_quantised(original.sums[at:at + size], saved.policy.sums[at:at + size], starts,
                         widths)
    code, out, _ = run(capsys, "exploit", result)
    assert code == 0 and "(difference 0, compact strategy)" in out


@pytest.mark.parametrize("content", [b"garbage", compact.lzma.compress(b"not an npz")])
def test_a_damaged_compact_file_is_one_line(tiny, tmp_path, capsys, content):
    result = copy_of(tiny, tmp_path)
    (result / results.STRATEGY_FILE).unlink()
    (result / compact.COMPACT_FILE).write_bytes(content)
    with pytest.raises(results.ResultError, match="not a compact strategy file"):
        results.load_result(result)
    code, _, err = run(capsys, "exploit", result)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "not a compact strategy file" in err and "Traceback" not in err


def test_an_already_compact_result_is_kept(tiny, tmp_path, capsys):
    """A result holding only its measured compact file (a fresh clone's) is left as it is."""
    result = copy_of(tiny, tmp_path)
    assert run(capsys, "compact", result)[0] == 0
    (result / results.STRATEGY_FILE).unlink()
    before = {f.name: f.read_bytes() for f in result.iterdir()}
    code, out, _ = run(capsys, "compact", result)
    assert code == 0 and "already compact" in out
    assert {f.name: f.read_bytes() for f in result.iterdir()} == before


def test_compact_needs_the_strategy(tiny, tmp_path, capsys):
    result = copy_of(tiny, tmp_path)
    (result / results.STRATEGY_FILE).unlink()
    code, _, err = run(capsys, "compact", result)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "no strategy.npz to compact" in err
    assert json.loads((result / results.SUMMARY_FILE).read_text()) == results.read_summary(tiny)
