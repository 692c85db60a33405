"""Match-level solving (issue 13): the match table against the whole match solved as one
extensive-form game, its fixed point, the players' symmetry, the public-tree engine pinned to
the history engine, Ray against the serial path, resuming after SIGKILL, and the command's
files."""
from __future__ import annotations

import gc
import json
import logging
import os
import pathlib
import re
import signal
import subprocess
import sys
import weakref

import numpy as np
import pyspiel
import pytest

from solver import cli
from solver.history.best_response import Workspace, best_response_value
from solver.history.cfr import solve
from solver.history.tree import TERMINAL, compile_game
from solver.matchgrid import HistoryEngine, MatchSpec, ScoreState, SerialExecutor, Settings
from solver.matchgrid import solve_match, store
from solver.matchgrid.engine import reweighted
from solver.matchgrid.public_engine import PublicEngine
from solver.public.cfr import PublicPolicy
from solver.matchgrid.runner import EngineChoice, run_settings
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


PUBLIC = EngineChoice("public", cache=True)  # what solve-match uses for Le Truc
HISTORY = EngineChoice("history", cache=True)


def solve_table(game: str, directory: pathlib.Path, executor=None,
                choice: EngineChoice = PUBLIC, seat_symmetry: bool = True
                ) -> dict[ScoreState, dict]:
    """The match table of `game` solved into `directory` (serially unless told)."""
    spec = MatchSpec.of_game(game)
    settings = Settings(target_exploitability=TARGET, seat_symmetry=seat_symmetry)
    executor = executor or SerialExecutor(spec, settings, choice)
    return solve_match(spec, directory, settings, executor, run_settings(spec, settings, choice))


@pytest.fixture(scope="module")
def tiny(tmp_path_factory, tree_cache):
    """(directory, records) of TINY solved serially (public engine, the command's default)."""
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
    """Re-solving each state's hand from scratch on the history tree with the table's own
    utilities gives back its value, within the two exploitabilities (and the fixed point's
    residual)."""
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


def test_symmetry_of_the_seats_solved_both_ways_and_the_halved_table(tiny, tmp_path,
                                                                       tree_cache):
    """Every position solved (no symmetry assumed): V(a, b, d) = 1 - V(b, a, 1 - d) within
    the error bounds, and the default table, which solves only score0 >= score1 and mirrors
    the rest, equals it within the bounds."""
    directory, halved = tiny
    full = solve_table(TINY, tmp_path, seat_symmetry=False)
    assert not any("mirror_of" in record for record in full.values())
    for state, record in full.items():
        mirror = full[state.mirrored()]
        assert abs(record["p0_win"] - (1 - mirror["p0_win"])) <= (
            record["error_bound"] + mirror["error_bound"])
        assert abs(record["p0_win"] - halved[state]["p0_win"]) <= (
            record["error_bound"] + halved[state]["error_bound"])
        if state.score0 < state.score1:
            assert halved[state]["mirror_of"] == state.mirrored().label
            assert halved[state]["iterations"] == 0
            assert halved[state]["p0_win"] == 1 - halved[state.mirrored()]["p0_win"]
        else:
            assert "mirror_of" not in halved[state] and halved[state]["iterations"] > 0


def test_a_state_is_within_its_bracket_and_its_error_bound_is_finite(tiny):
    _, records = tiny
    for record in records.values():
        low, high = record["p0_win_bracket"]
        assert low - 1e-12 <= record["p0_win"] <= high + 1e-12
        assert record["exploitability"] <= TARGET
        assert record["exploitability"] <= record["error_bound"] < 0.01


# --- the public-tree engine, pinned to the history engine ------------------------------------

SMALL = "python_le_truc(num_ranks=4,hand_size=2,isomorphic=true,max_redeals=0)"
SMALL_REDEAL = "python_le_truc(num_ranks=3,hand_size=2,isomorphic=true,max_redeals=1)"
STATES = (ScoreState(0, 0, 1), ScoreState(10, 7, 0), ScoreState(3, 9, 1), ScoreState(11, 4, 0))


def _utility(points: float) -> float:
    """A utility that is not proportional to the points (as a match's is not)."""
    return (points / 12.0) ** 3 + 0.05 * (points > 0)


@pytest.mark.parametrize("game", [SMALL, SMALL_REDEAL])
def test_the_public_engine_solves_each_state_as_the_history_engine_does(game, tree_cache):
    """Same outcomes (the rest re-scored on the shared tree); without a redeal the same
    iterations (equal value brackets after 30 DCFR iterations) and the same void bound; with
    one, brackets of the same value (they overlap: after a redeal the public engine's strategy
    forgets the hand set aside, `solver.public.redeal`) and the union bound of the void
    probability (at least the exact one, at most twice it)."""
    spec = MatchSpec.of_game(game)
    history, public = HistoryEngine(), PublicEngine()
    for state in STATES:
        hand = spec.hand_game_string(state)
        outcomes = history.outcomes(hand)
        assert public.outcomes(hand) == outcomes
        utility = {points: _utility(points) for points in outcomes}
        a = history.solve(hand, utility, target_exploitability=1e-12, iterations=30)
        b = public.solve(hand, utility, target_exploitability=1e-12, iterations=30)
        assert b.iterations == a.iterations == 30
        exact, bound = history.max_void_probability(hand), public.max_void_probability(hand)
        if "max_redeals=0" in game:
            assert b.value_low == pytest.approx(a.value_low, abs=1e-6)
            assert b.value_high == pytest.approx(a.value_high, abs=1e-6)
            assert bound == pytest.approx(exact, abs=1e-12)
        else:
            assert max(a.value_low, b.value_low) <= min(a.value_high, b.value_high) + 1e-12
            assert exact - 1e-12 <= bound <= 2 * exact + 1e-12
    dealers = {public.shared(spec.hand_game_string(s)).tree for s in STATES}
    assert len(dealers) == 2  # one tree per dealer, whatever the scores


# Trucomano's hand split by vira class (one card from 4 ranks, match to 4: hands of eleven at
# 3, the iron hand sighted at 3-3, all-tied hands void)
TRUCO = ("python_trucomano(num_ranks=4,hand_size=1,isomorphic=true,target=4,"
         "iron_hand_blind=false)")
TRUCO_STATES = (ScoreState(1, 1, 0), ScoreState(0, 2, 1), ScoreState(3, 1, 1),
                ScoreState(3, 3, 0))


def test_a_truco_hand_is_solved_vira_by_vira_as_the_history_engine_solves_it(tree_cache):
    """Every vira class solved with the same iterations as the history tree (which deals
    the vira) gives the same value bracket, weighted by the classes' probabilities; the same
    outcomes and the same (exact) void bound."""
    spec = MatchSpec.of_game(TRUCO)
    history, public = HistoryEngine(), PublicEngine()
    for state in TRUCO_STATES:
        hand = spec.hand_game_string(state)
        outcomes = history.outcomes(hand)
        assert public.outcomes(hand) == outcomes
        utility = {points: _utility(points) for points in outcomes}
        a = history.solve(hand, utility, target_exploitability=1e-12, iterations=30)
        b = public.solve(hand, utility, target_exploitability=1e-12, iterations=30)
        assert list(b.parts) == ["vira K", "vira A", "vira 2", "vira 3"]
        assert b.iterations == sum(part.iterations for part in b.parts.values()
                                   if part.same_game_as is None)  # vira 3 is vira 2's
        assert {part.iterations for part in b.parts.values()} == {a.iterations}
        assert b.value_low == pytest.approx(a.value_low, abs=1e-9)
        assert b.value_high == pytest.approx(a.value_high, abs=1e-9)
        assert public.max_void_probability(hand) == pytest.approx(
            history.max_void_probability(hand), abs=1e-12)
        assert public.max_void_probability(hand) > 0  # Trucomano: all-tied hands score 0


def test_a_solve_without_its_state_is_the_same_solve(tree_cache):
    """`keep_state=False` (a position no void hand links: nothing re-solves it) gives the same
    bracket, iterations and policy on either engine, vira by vira, without the regrets."""
    spec = MatchSpec.of_game(TRUCO)
    hand = spec.hand_game_string(ScoreState(1, 1, 0))
    for engine in (HistoryEngine(), PublicEngine()):
        utility = {points: _utility(points) for points in engine.outcomes(hand)}
        kept, dropped = (engine.solve(hand, utility, target_exploitability=1e-12, iterations=20,
                                      keep_state=keep) for keep in (True, False))
        assert (dropped.value_low, dropped.value_high, dropped.iterations) == (
            kept.value_low, kept.value_high, kept.iterations)
        pairs = ([(kept, dropped)] if kept.parts is None
                 else list(zip(kept.parts.values(), dropped.parts.values())))
        for with_state, without in pairs:
            copied = with_state.same_game_as is not None  # a twin's strategy: no state
            assert (with_state.state is not None) != copied and without.state is None
            assert np.array_equal(_policy_array(with_state.policy), _policy_array(without.policy))


def test_a_vira_class_that_is_another_under_other_names_takes_its_strategy(tree_cache):
    """Vira 3 is vira 2 under other names (`PublicGame.identity`): the match engine solves
    vira 2 only, and vira 3's copy of its strategy, measured in vira 3's own tree, is what
    solving vira 3 itself gives, to the bit; the hand counts the iterations it ran."""
    spec = MatchSpec.of_game(TRUCO)
    engine = PublicEngine()
    for state in (ScoreState(1, 1, 0), ScoreState(3, 1, 1)):
        hand = spec.hand_game_string(state)
        assert engine.twins(hand) == {"vira K": "vira K", "vira A": "vira A",
                                      "vira 2": "vira 2", "vira 3": "vira 2"}
        utility = {points: _utility(points) for points in engine.outcomes(hand)}
        solved = engine.solve(hand, utility, target_exploitability=1e-12, iterations=30)
        copy = solved.parts["vira 3"]
        assert copy.same_game_as == "vira 2" and copy.state is None
        assert solved.iterations == 3 * 30 and copy.iterations == 30
        direct = engine.solve_part(hand, "vira 3", utility, target_exploitability=1e-12,
                                   iterations=30, eval_every=10, warm_start=None)
        assert (copy.value_low, copy.value_high) == (direct.value_low, direct.value_high)
        assert copy.policy.game_string == direct.policy.game_string != (
            solved.parts["vira 2"].policy.game_string)
        assert np.array_equal(copy.policy.sums, direct.policy.sums)


def _policy_array(policy) -> np.ndarray:
    """The probabilities of a history policy, the sums of a public one."""
    return policy.sums if isinstance(policy, PublicPolicy) else policy.probabilities


def test_a_truco_match_on_the_public_tree(tmp_path, capfd, tree_cache):
    """`solve-match` picks the public engine for two-player Truco, saves each state's vira
    classes as `tricksolver solve` does, its bar shows what the engine is doing (the trees it
    reads or builds, each vira class's exploitability), its table agrees with the history
    engine's within the error bounds, and `exploit` and `show` read a state."""
    args = ["python_trucomano", "-p", "num_ranks=4", "-p", "hand_size=1", "-p",
            "isomorphic=true", "-p", "target=4", "-p", "iron_hand_blind=false",
            "--target-exploitability", "0.001"]
    out = tmp_path / "public"
    capfd.readouterr()
    assert cli.main(["solve-match", *args, "--out", str(out)]) == 0
    shown = capfd.readouterr().err
    assert re.search(r"(reading|building) the public tree of vira [2-9TJQKA]", shown)
    assert re.search(r"\d-\d-d[01] vira [2-9TJQKA]: iteration \d+, exploitability [\d.e-]+",
                     shown)
    assert re.search(r"last=\d-\d-d[01], p0_win=[01]\.\d{4}", shown)
    assert not logging.getLogger("solver.matchgrid").handlers  # the bar's handler is gone
    summary = json.loads((out / "summary.json").read_text())
    assert summary["engine"] == "public" and summary["states"] == 32
    on_history = solve_table(TRUCO, tmp_path / "history", choice=HISTORY)
    records = store.load_states(out, MatchSpec.of_game(TRUCO), {})
    for state, record in records.items():
        other = on_history[state]
        assert abs(record["p0_win"] - other["p0_win"]) <= (
            record["error_bound"] + other["error_bound"] + 1e-9)
    state = out / "states" / "2-1-d0"
    assert sorted(p.name for p in state.glob("vira_*")) == [
        "vira_2", "vira_3", "vira_A", "vira_K"]
    twin = json.loads((state / "vira_3" / "summary.json").read_text())
    assert twin["same_game_as"] == "vira 2" and not (state / "vira_3" / "strategy.npz").exists()
    assert twin["game"].endswith("|vira 3")
    capfd.readouterr()
    assert cli.main(["exploit", str(state)]) == 0
    printed = capfd.readouterr().out
    assert "match-win probability" in printed and "difference" in printed
    recomputed = next(float(line.split()[1]) for line in printed.splitlines()
                      if line.startswith("exploitability"))
    assert recomputed == pytest.approx(records[ScoreState(2, 1, 0)]["exploitability"],
                                       abs=1e-12)
    assert cli.main(["show", str(out), "--score", "2-1-d0", "--hand", "vira K | 2"]) == 0
    assert "P(win)" in capfd.readouterr().out
    assert cli.main(["show", str(out), "--score", "2-1-d0", "--hand", "2"]) == 2
    assert "name the vira" in capfd.readouterr().err
    assert cli.main(["chart", str(state)]) == 2  # hand-level charts would value it in points
    assert "plays for the match" in capfd.readouterr().err
    frequencies = json.loads((state / "summary.json").read_text())["match"]["first_decision"]
    assert sum(frequencies.values()) == pytest.approx(1.0, abs=1e-9)
    _check_by_hand_table(out / "tables" / "first_decision_by_hand.csv", records)
    # the states where a player has 3 (the hands of eleven and the iron hand) alone, the
    # vira classes solved two at a time in worker processes: the same rows, to the bit
    rows = tmp_path / "eleven"
    assert cli.main(["solve-match", *args, "--from-score", "3", "--part-workers", "2",
                     "--quiet", "--out", str(rows)]) == 0
    full = (out / store.VALUES_FILE).read_text().splitlines()
    assert (rows / store.VALUES_FILE).read_text().splitlines() == [
        line for line in full if line.startswith("score0") or "3" in line.split(",")[:2]]
    assert json.loads((rows / "summary.json").read_text())["from_score"] == 3


def _calls_by_walking(directory: pathlib.Path) -> dict[str, float | None]:
    """A state's truco figures the slow way: every history of its hand game walked with the
    saved strategy (`Solution`, read at each OpenSpiel state), the first raise of a hand being
    the truco call and the next decision its answer."""
    from solver.play.strategy import Solution

    game = pyspiel.load_game(json.loads((directory / "summary.json").read_text())["game"])
    solution, dealer = Solution(directory, game), game.rules.dealer
    called, ran = {"mão": 0.0, "pé": 0.0}, {"mão": 0.0, "pé": 0.0}

    def walk(state, reach: float, answering: str | None, raised: bool) -> None:
        if state.is_terminal():
            return
        if state.is_chance_node():
            for action, probability in state.chance_outcomes():
                walk(state.child(action), reach * probability, None, raised)
            return
        player = state.current_player()
        for action, probability in solution.probabilities(state).items():
            name = state.action_to_string(player, action)
            if answering is not None and name == "Run":
                ran[answering] += reach * probability
            caller = None
            if not raised and name == "Raise":
                caller = "pé" if player == dealer else "mão"
                called[caller] += reach * probability
            walk(state.child(action), reach * probability, caller, raised or name == "Raise")

    walk(game.new_initial_state(), 1.0, None, False)
    return {"Mão calls truco": called["mão"],
            "Pé runs from it": ran["mão"] / called["mão"] if called["mão"] else None,
            "Pé calls truco": called["pé"],
            "Mão runs from it": ran["pé"] / called["pé"] if called["pé"] else None}


def test_truco_calls_and_runs_per_score_are_the_strategy_walked(tmp_path, tree_cache):
    """The truco-call and run figures of a Truco match (`truco_calls`) are what walking every
    history of the state's hand with its saved strategy gives; a mirror image has its
    source's, the hand of eleven has no call; `chart` writes them as a table and a chart and
    reads them back without the strategies."""
    from solver.matchgrid import truco_calls

    assert cli.main(["solve-match", "python_trucomano", "-p", "num_ranks=4", "-p",
                     "hand_size=1", "-p", "isomorphic=true", "-p", "target=4", "-p",
                     "iron_hand_blind=false", "--quiet", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "tables" / "truco_calls.csv").exists()
    calls, missing = truco_calls.record_calls(tmp_path)  # as the command saved them
    assert set(calls) == set(MatchSpec.of_game(TRUCO).states()) and missing == []
    states = tmp_path / store.STATES_DIR
    for state in (ScoreState(1, 1, 0), ScoreState(2, 0, 1), ScoreState(2, 1, 0)):
        walked = _calls_by_walking(states / state.label)
        assert calls[state].keys() == walked.keys()
        for name, figure in calls[state].items():
            assert figure == pytest.approx(walked[name], abs=1e-9), (state, name)
    assert calls[ScoreState(1, 1, 0)]["Mão calls truco"] > 0.01  # the walk sees calls
    assert calls[ScoreState(0, 2, 0)] == calls[ScoreState(2, 0, 1)]
    assert calls[ScoreState(3, 1, 1)] == {"Mão calls truco": 0.0, "Pé runs from it": None,
                                          "Pé calls truco": 0.0, "Mão runs from it": None}
    for strategy in states.glob("*/vira_*/strategy.npz"):
        strategy.unlink()
    (states / "1-1-d0" / truco_calls.CALLS_FILE).unlink()  # as if solved elsewhere
    assert cli.main(["chart", str(tmp_path)]) == 0
    table = (tmp_path / "tables" / "truco_calls.csv").read_text().splitlines()
    assert table[0] == "score0,score1,dealer," + ",".join(truco_calls.FIGURES)
    assert len(table) == len(calls)  # the header, every state but 1-1-d0
    assert "1,1,0," not in "\n".join(table)
    assert "Left out (1: their strategies were not on the machine that drew this): 1-1-d0." in (
        tmp_path / "tables" / "truco_calls.md").read_text()
    assert (tmp_path / "charts" / "truco_calls.png").exists()


def test_a_finished_position_is_dropped_before_the_next_is_solved(tmp_path, tree_cache):
    """Once a position's states are saved, its solutions (a full-size Truco position's
    strategies: gigabytes) are no longer held while the next position is solved."""
    spec = MatchSpec.of_game(TINY)
    settings = Settings(target_exploitability=TARGET)
    serial = SerialExecutor(spec, settings, PUBLIC)

    class Watching:
        """The serial executor, noting at each wait whether the last position's hands live."""
        capacity = 1

        def __init__(self):
            self.last, self.alive = [], []

        def submit(self, position, known):
            serial.submit(position, known)

        def next_finished(self):
            gc.collect()
            self.alive.append(any(hand() is not None for hand in self.last))
            position, solutions = serial.next_finished()
            self.last = [weakref.ref(solution.hand) for solution in solutions]
            return position, solutions

        def close(self):
            serial.close()

    watching = Watching()
    solve_match(spec, tmp_path, settings, watching, run_settings(spec, settings, PUBLIC))
    assert len(watching.alive) > 2 and not any(watching.alive)


def test_the_public_and_history_tables_agree(tiny, tmp_path, tree_cache):
    _, records = tiny
    on_history = solve_table(TINY, tmp_path, choice=HISTORY)
    for state, record in records.items():
        other = on_history[state]
        assert abs(record["p0_win"] - other["p0_win"]) <= (
            record["exploitability"] + other["exploitability"] + 1e-9)


# --- execution ---------------------------------------------------------------------------------

def test_ray_and_the_serial_path_give_the_same_table(tiny, tmp_path, tree_cache):
    pytest.importorskip("ray")
    from solver.matchgrid.ray_executor import RayExecutor

    directory, records = tiny
    spec = MatchSpec.of_game(TINY)
    settings = Settings(target_exploitability=TARGET)
    on_ray = solve_table(TINY, tmp_path, RayExecutor(spec, settings, PUBLIC, workers=2))
    assert {s: r["p0_win"] for s, r in on_ray.items()} == {
        s: r["p0_win"] for s, r in records.items()}
    assert store.values_csv(on_ray) == store.values_csv(records)


# `python -m solver`, except that the process stops itself (SIGSTOP) once it has saved
# `stop_after` states: the test then kills it mid-run at a known point, however fast it solves
STOPPING_CLI = """
import os, signal, sys
from solver import cli
from solver.matchgrid import store

stop_after, saved, save_state = int(sys.argv[1]), [], store.save_state

def save_then_stop(*args, **kwargs):
    save_state(*args, **kwargs)
    saved.append(1)
    if len(saved) == stop_after:
        os.kill(os.getpid(), signal.SIGSTOP)

store.save_state = save_then_stop
raise SystemExit(cli.main(sys.argv[2:]))
"""


def test_the_command_resumes_after_sigkill_with_the_same_table(tiny, tmp_path, capfd,
                                                               tree_cache):
    """`solve-match` killed (SIGKILL) after a few states, then `--resume`: every file there,
    and the table of an uninterrupted run."""
    out = tmp_path / "match"
    argv = [sys.executable, "-c", STOPPING_CLI, "3", "solve-match", *TINY_ARGS,
            "--target-exploitability", str(TARGET), "--quiet", "--out", str(out)]
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env={**os.environ})
    _, status = os.waitpid(process.pid, os.WUNTRACED)
    assert os.WIFSTOPPED(status), "the run ended before its third state was saved"
    process.send_signal(signal.SIGKILL)
    process.wait()
    saved = len(list((out / "states").glob("*-d*")))
    assert 3 <= saved < 18  # three solved states, and the mirror images saved with them
    # the table and summary hold the positions finished before the kill (a half-saved
    # position's states are solved again on resume)
    partial = json.loads((out / "summary.json").read_text())
    assert (partial["complete"], partial["states_of_match"]) == (False, 18)
    assert 2 <= partial["states"] < saved
    assert (out / store.VALUES_FILE).read_text() == store.values_csv(
        {state: record for state, record in tiny[1].items()
         if state.label in partial["per_state"]})
    assert cli.main(["solve-match", *TINY_ARGS, "--target-exploitability", str(TARGET),
                     "--quiet", "--out", str(out)]) == 2  # refused without --resume
    assert "--resume" in capfd.readouterr().err
    assert cli.main(["solve-match", *TINY_ARGS, "--target-exploitability", str(TARGET),
                     "--quiet", "--out", str(out), "--resume"]) == 0
    assert (out / store.VALUES_FILE).read_text() == store.values_csv(tiny[1])
    assert (out / store.VALUES_FILE).read_text().startswith("score0,score1,dealer,p0_win\n")
    summary = json.loads((out / "summary.json").read_text())
    assert summary["states"] == 18 and len(summary["per_state"]) == 18 and summary["complete"]
    assert summary["totals"]["max_exploitability"] <= TARGET
    assert {"p0_win", "exploitability", "error_bound", "fixed_point_residual"} <= set(
        summary["how"])
    assert (out / "charts" / "match_values.png").exists()
    capfd.readouterr()
    assert cli.main(["show", str(out), "--score", "2-1-d1", "--hand", "7"]) == 0
    assert "Strategy:" in capfd.readouterr().out
    assert cli.main(["show", str(out), "--score", "1-2-d0"]) == 2  # a mirror image
    assert "--score 2-1-d1" in capfd.readouterr().err
    assert cli.main(["exploit", str(out / "states" / "2-1-d1")]) == 0
    assert "match-win probability" in capfd.readouterr().out
    assert cli.main(["chart", str(out)]) == 0
    assert (out / "charts" / "first_decision.png").exists()
    _check_first_decision_table(out / "tables" / "first_decision.csv")
    _check_by_hand_table(out / "tables" / "first_decision_by_hand.csv", tiny[1])


def _check_by_hand_table(path: pathlib.Path, records: dict[ScoreState, dict]) -> None:
    """Every state's hands, their shares summing to one, each row's frequencies to one, and
    the state's first decision their share-weighted mean (its mirror image's for a mirror)."""
    import csv

    rows = list(csv.DictReader(path.read_text().splitlines()))
    actions = [key for key in rows[0] if key not in ("score0", "score1", "dealer", "part",
                                                     "hand", "share")]
    for state, record in records.items():
        mine = [r for r in rows if (int(r["score0"]), int(r["score1"]), int(r["dealer"]))
                == (state.score0, state.score1, state.dealer)]
        assert sum(float(r["share"]) for r in mine) == pytest.approx(1.0, abs=1e-6)
        for row in mine:
            assert sum(float(row[a]) for a in actions) == pytest.approx(1.0, abs=1e-5)
        for action, frequency in record["first_decision"].items():
            assert sum(float(r["share"]) * float(r[action]) for r in mine) == pytest.approx(
                frequency, abs=1e-5)


def _check_first_decision_table(path: pathlib.Path) -> None:
    """One row per state, frequencies summing to one, a mirror image equal to its source,
    and the score changing what the non-dealer does."""
    import csv

    rows = list(csv.DictReader(path.read_text().splitlines()))
    assert len(rows) == 18 and {"Raise", "Rest", "Fold", "Lead a card"} <= set(rows[0])
    table = {ScoreState(int(r["score0"]), int(r["score1"]), int(r["dealer"])):
             {k: float(v) for k, v in r.items() if k not in ("score0", "score1", "dealer")}
             for r in rows}
    for state, frequencies in table.items():
        assert sum(frequencies.values()) == pytest.approx(1.0, abs=1e-3)
        if state.score0 != state.score1:  # a mirror image: the same seat of the same hand
            assert frequencies == table[state.mirrored()]
    rests = [frequencies["Rest"] for frequencies in table.values()]
    assert max(rests) - min(rests) > 0.3


def test_pair_error_bounds_do_not_compound_along_void_linked_rows():
    """The bound of a void-linked pair (fixed_point module docstring): the looser one's when
    no successor can err (E = 0), never above it, equal to E without exploitability or
    residual (the terminals' probabilities sum to one), and along a row of such positions it
    grows by the exploitabilities only where the looser one grew about 1.9 times per row."""
    from solver.matchgrid.fixed_point import pair_error_bounds

    def looser(first, last, residual):
        (eps_f, reach_f, q_f), (eps_s, reach_s, q_s) = first, last
        bound_f = (eps_f + reach_f + q_f * residual + q_f * (eps_s + reach_s)) / (1 - q_f * q_s)
        return bound_f, eps_s + reach_s + q_s * bound_f

    for pair in [((1e-4, 0.0, 0.48), (2e-4, 0.0, 0.3), 1e-5),
                 ((1e-4, 0.02, 0.48), (2e-4, 0.03, 0.3), 1e-5),
                 ((0.0, 0.01, 0.0), (1e-4, 0.02, 0.9), 0.0)]:
        tight, loose = pair_error_bounds(*pair), looser(*pair)
        assert tight[0] <= loose[0] + 1e-15 and tight[1] <= loose[1] + 1e-15
        if pair[0][1] == pair[1][1] == 0.0:
            assert tight == pytest.approx(loose, rel=1e-12)
    assert pair_error_bounds((0.0, 0.05, 0.48), (0.0, 0.05, 0.48), 0.0) == pytest.approx(
        (0.05, 0.05), abs=1e-15)
    assert pair_error_bounds((0.0, 0.05, 1.0), (0.0, 0.05, 1.0), 0.0) == (np.inf, np.inf)
    tight = loose = 0.0
    for _ in range(11):  # Trucomano's row of eleven: q = 0.483, each state's exploitability 1e-4
        tight = max(pair_error_bounds((1e-4, tight, 0.483), (1e-4, tight, 0.483), 1e-4))
        loose = max(looser((1e-4, loose, 0.483), (1e-4, loose, 0.483), 1e-4))
    assert tight < 0.005 < 0.1 < loose
