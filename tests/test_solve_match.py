"""Match-level solving (issue 13, phase 1: the history engine): the match table against the
whole match solved as one extensive-form game, its fixed point, the players' symmetry, Ray
against the serial path, resuming after SIGKILL, and the command's files."""
from __future__ import annotations

import json
import os
import pathlib
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from solver import cli
from solver.history.best_response import Workspace, best_response_value
from solver.history.cfr import solve
from solver.history.tree import TERMINAL, compile_game
from solver.matchgrid import HistoryEngine, MatchSpec, ScoreState, SerialExecutor, Settings
from solver.matchgrid import solve_match, store
from solver.matchgrid.engine import reweighted
from solver.matchgrid.runner import run_settings
from solver.matchgrid.whole_match import WholeMatchGame

# the tiny variant: one card from 3 ranks, match to 3 (every rule on: rest, fold)
TINY = "python_le_truc(num_ranks=3,hand_size=1,isomorphic=true,max_redeals=0,target=3)"
# for the whole match, whose tree multiplies the hands: 2 ranks, match to 2, every rule on ...
TWO = "python_le_truc(num_ranks=2,hand_size=1,isomorphic=true,max_redeals=0,target=2)"
# ... and without rest and fold (a smaller hand: three hands fit)
TWO_PLAIN = ("python_le_truc(num_ranks=2,hand_size=1,isomorphic=true,max_redeals=0,target=2,"
             "allow_rest=false,allow_fold=false)")
TARGET = 1e-4  # per state, match-win probability
TINY_ARGS = ["python_le_truc", "-p", "num_ranks=3", "-p", "hand_size=1", "-p", "isomorphic=true",
             "-p", "max_redeals=0", "-p", "target=3"]


def solve_table(game: str, directory: pathlib.Path, executor=None) -> dict[ScoreState, dict]:
    """The match table of `game` solved into `directory` (serially unless told)."""
    spec = MatchSpec.of_game(game)
    settings = Settings(target_exploitability=TARGET)
    executor = executor or SerialExecutor(spec, settings, "dcfr", True)
    return solve_match(spec, directory, settings, executor,
                       run_settings(spec, settings, "dcfr", "history"))


@pytest.fixture(scope="module")
def tiny(tmp_path_factory, tree_cache):
    """(directory, records) of TINY solved serially."""
    directory = tmp_path_factory.mktemp("tiny")
    return directory, solve_table(TINY, directory)


def bracket(tree, policy) -> tuple[float, float]:
    """(lower, upper) bounds of the value of the game on `tree`, player 0's utility."""
    workspace = Workspace(tree)
    return (-best_response_value(tree, policy, 1, workspace),
            best_response_value(tree, policy, 0, workspace))


def solved_bracket(game, tree) -> tuple[float, float]:
    """The value bracket of `game` (on its compiled `tree`) solved to 1e-5."""
    result = solve(game, tree=tree, target_exploitability=1e-5, progress=False)
    return bracket(tree, result.average_policy.probabilities)


def win(utility: float) -> float:
    """Utility 2V - 1 -> V."""
    return 0.5 * (utility + 1.0)


# --- the moves between states ------------------------------------------------------------------

def test_a_hand_moves_the_scores_the_dealer_and_ends_the_match():
    spec = MatchSpec.of_game(TINY)
    state = ScoreState(1, 2, 1)
    assert spec.after_hand(state, 1) == ScoreState(2, 2, 0)
    assert spec.after_hand(state, -1) == 0.0  # player 1 reaches 3
    assert spec.after_hand(state, 2) == 1.0
    assert spec.after_hand(state, 0) == ScoreState(1, 2, 0)  # void: scores stay, dealer swaps
    order = spec.positions()
    assert len(spec.states()) == 18 and order[0] == (2, 2) and order[-1] == (0, 0)
    for index, position in enumerate(order):
        assert all(order.index(needed) < index for needed in spec.depends_on(position))


def test_terminal_points_are_reweighted_to_utilities(tree_cache):
    tree = compile_game(MatchSpec.of_game(TINY).hand_game_string(ScoreState(0, 0, 1)))
    terminal = tree.node_player == TERMINAL
    utility = {p: p / 10 for p in np.unique(tree.utility[terminal]).tolist()}
    weighted = reweighted(tree, utility)
    assert np.array_equal(weighted.utility[terminal], tree.utility[terminal] / 10)
    assert weighted.child_start is tree.child_start  # the structure is shared, not copied
    with pytest.raises(KeyError, match="no utility"):
        reweighted(tree, {1.0: 0.5})


def test_games_the_match_model_does_not_fit_are_refused():
    with pytest.raises(ValueError, match="Truc-family"):
        MatchSpec.of_game("python_two_ten_jack")
    with pytest.raises(ValueError, match="sets the score"):
        MatchSpec.of_game(TINY.replace("target=3", "target=3,score0=1"))


# --- the table is right ------------------------------------------------------------------------

@pytest.mark.parametrize("dealer", [0, 1])
def test_the_whole_match_with_the_table_at_the_cap_has_the_table_value(dealer, tmp_path,
                                                                        tree_cache):
    """Two hands of the whole match (rest and fold allowed), the table's values where it is
    cut: equal to the uncapped match if the table is right, so its value is V(0, 0, d)."""
    records = solve_table(TWO, tmp_path)
    table = {state: record["p0_win"] for state, record in records.items()}
    game = WholeMatchGame(MatchSpec.of_game(TWO), dealer, max_hands=2, cap_table=table)
    tree = compile_game(game, cache=False)
    low, high = solved_bracket(game, tree)
    worst = max(record["error_bound"] for record in records.values())
    start = ScoreState(0, 0, dealer)
    # the table's error at the start and at the cap, and the whole game's own bracket
    tolerance = (high - low) / 2 / 2 + 2 * worst + 1e-9
    assert abs(win((low + high) / 2) - table[start]) <= tolerance
    assert abs(table[start] - 0.5) > 0.02  # not the trivial value of a symmetric coin flip


def test_the_whole_match_brackets_the_table_whatever_the_cap(tmp_path, tree_cache):
    """Three hands of the whole match (no rest, no fold), a lost and a won match where it is
    cut: the two values bracket the uncapped match's value, which the table must be in; with
    the table at the cap, the table's value again."""
    records = solve_table(TWO_PLAIN, tmp_path)
    table = {state: record["p0_win"] for state, record in records.items()}
    assert all(0.0 < value < 1.0 for value in table.values())
    game = WholeMatchGame(MatchSpec.of_game(TWO_PLAIN), 1, max_hands=3, cap_table=table)
    tree = compile_game(game, cache=False)
    capped = (tree.node_player == TERMINAL) & (np.abs(tree.utility) < 1.0)  # the cut matches
    assert capped.any()
    values = {}
    for name, cap in (("table", None), ("lost", -1.0), ("won", 1.0)):
        weighted = tree if cap is None else _with_utility(tree, capped, cap)
        low, high = solved_bracket(game, weighted)
        values[name] = (win(low), win(high))
    start = table[ScoreState(0, 0, 1)]
    error = records[ScoreState(0, 0, 1)]["error_bound"]
    worst = max(record["error_bound"] for record in records.values())
    assert values["lost"][0] - error <= start <= values["won"][1] + error
    assert values["won"][1] - values["lost"][0] < 0.5  # the bracket says something
    assert values["table"][0] - error - worst <= start <= values["table"][1] + error + worst


def _with_utility(tree, mask, utility):
    """`tree` with the terminals in `mask` paying `utility`."""
    import dataclasses

    values = tree.utility.copy()
    values[mask] = utility
    return dataclasses.replace(tree, utility=values)


def test_the_table_is_a_fixed_point(tiny, tree_cache):
    """Re-solving each state's hand from scratch with the table's own utilities gives back
    its value, within the two exploitabilities (and the fixed point's residual)."""
    _, records = tiny
    spec = MatchSpec.of_game(TINY)
    engine = HistoryEngine()
    for state, record in records.items():
        game = spec.hand_game_string(state)
        utility = {}
        for points in engine.outcomes(game):
            after = spec.after_hand(state, points)
            value = after if isinstance(after, float) else records[after]["p0_win"]
            utility[points] = 2 * value - 1
        again = engine.solve(game, utility, target_exploitability=2 * TARGET, iterations=10_000)
        slack = record["exploitability"] + record["fixed_point_residual"] + 1e-9
        assert win(again.value_low) - slack <= record["p0_win"] <= win(again.value_high) + slack


def test_symmetry_of_the_seats(tiny):
    _, records = tiny
    for state, record in records.items():
        mirror = records[state.mirrored()]
        assert abs(record["p0_win"] - (1 - mirror["p0_win"])) <= (
            record["error_bound"] + mirror["error_bound"])


def test_a_state_is_within_its_bracket_and_its_error_bound_is_finite(tiny):
    _, records = tiny
    for record in records.values():
        low, high = record["p0_win_bracket"]
        assert low - 1e-12 <= record["p0_win"] <= high + 1e-12
        assert record["exploitability"] <= TARGET
        assert record["exploitability"] <= record["error_bound"] < 0.01


# --- execution ---------------------------------------------------------------------------------

def test_ray_and_the_serial_path_give_the_same_table(tiny, tmp_path, tree_cache):
    pytest.importorskip("ray")
    from solver.matchgrid.ray_executor import RayExecutor

    directory, records = tiny
    spec = MatchSpec.of_game(TINY)
    settings = Settings(target_exploitability=TARGET)
    on_ray = solve_table(TINY, tmp_path, RayExecutor(spec, settings, "dcfr", True, workers=2))
    assert {s: r["p0_win"] for s, r in on_ray.items()} == {
        s: r["p0_win"] for s, r in records.items()}
    assert store.values_csv(on_ray) == store.values_csv(records)


def test_the_command_resumes_after_sigkill_with_the_same_table(tiny, tmp_path, capfd,
                                                               tree_cache):
    """`solve-match` killed (SIGKILL) after a few states, then `--resume`: every file there,
    and the table of an uninterrupted run."""
    out = tmp_path / "match"
    argv = [sys.executable, "-m", "solver", "solve-match", *TINY_ARGS, "--target-exploitability",
            str(TARGET), "--quiet", "--out", str(out)]
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env={**os.environ})
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if len(list((out / "states").glob("*-d*"))) >= 4:
            break
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    saved = len(list((out / "states").glob("*-d*")))
    assert 4 <= saved < 18, "the run finished before it could be killed"
    assert not (out / store.VALUES_FILE).exists()
    assert cli.main(["solve-match", *TINY_ARGS, "--target-exploitability", str(TARGET),
                     "--quiet", "--out", str(out)]) == 2  # refused without --resume
    assert "--resume" in capfd.readouterr().err
    assert cli.main(["solve-match", *TINY_ARGS, "--target-exploitability", str(TARGET),
                     "--quiet", "--out", str(out), "--resume"]) == 0
    assert (out / store.VALUES_FILE).read_text() == store.values_csv(tiny[1])
    assert (out / store.VALUES_FILE).read_text().startswith("score0,score1,dealer,p0_win\n")
    summary = json.loads((out / "summary.json").read_text())
    assert summary["states"] == 18 and len(summary["per_state"]) == 18
    assert summary["totals"]["max_exploitability"] <= TARGET
    assert {"p0_win", "exploitability", "error_bound", "fixed_point_residual"} <= set(
        summary["how"])
    assert (out / "charts" / "match_values.png").exists()
    capfd.readouterr()
    assert cli.main(["show", str(out), "--score", "2-1-d1", "--hand", "7"]) == 0
    assert "Strategy:" in capfd.readouterr().out
    assert cli.main(["exploit", str(out / "states" / "2-1-d1")]) == 0
    assert "match-win probability" in capfd.readouterr().out
    assert cli.main(["chart", str(out)]) == 0
