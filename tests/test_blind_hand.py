"""Trucomano's blind iron hand as a chance game (solver.matchgrid.blind_hand): its outcome
distribution and value against the history tree of reduced variants, and a match through it
solved by the public engine against the history engine."""
from __future__ import annotations

import json

import numpy as np
import pytest

from solver import cli
from solver.matchgrid import HistoryEngine, MatchSpec, blind_hand, store
from solver.matchgrid.public_engine import PublicEngine

BLIND = ("python_trucomano(num_ranks=3,hand_size=2,isomorphic=true,score0=11,score1=11)",
         "python_trucomano(num_ranks=2,hand_size=3,isomorphic=true,score0=11,score1=11,"
         "dealer=0)",
         "python_trucomano(num_ranks=3,hand_size=1,isomorphic=true,score0=11,score1=11)")


@pytest.mark.parametrize("game_string", BLIND)
def test_the_blind_hand_is_the_history_trees_chance_game(game_string):
    """The same outcomes, the same void probability, and for random utilities the value the
    history engine brackets (with a width of zero: no decision matters) equals the chance
    expectation."""
    history = HistoryEngine()
    assert blind_hand.outcomes(game_string) == history.outcomes(game_string)
    assert blind_hand.void_probability(game_string) == pytest.approx(
        history.max_void_probability(game_string), abs=1e-12)
    probabilities = blind_hand.outcome_probabilities(game_string)
    assert sum(probabilities.values()) == pytest.approx(1.0, abs=1e-12)
    rng = np.random.default_rng(7)
    for _ in range(2):
        utility = {points: float(rng.uniform(-1, 1)) for points in probabilities}
        exact = blind_hand.solve(game_string, utility)
        solved = history.solve(game_string, utility, target_exploitability=1e-12,
                               iterations=2, eval_every=1)
        assert solved.value_high - solved.value_low == pytest.approx(0.0, abs=1e-12)
        assert exact.value == pytest.approx(solved.value, abs=1e-12)
        assert exact.exploitability == 0.0 and exact.policy is None


def test_the_public_engine_takes_the_blind_hand():
    game_string = BLIND[0]
    engine = PublicEngine()
    utility = {-1.0: -1.0, 0.0: 0.25, 1.0: 1.0}
    assert engine.outcomes(game_string) == [-1.0, 0.0, 1.0]
    assert engine.max_void_probability(game_string) == blind_hand.void_probability(game_string)
    assert engine.solve(game_string, utility, target_exploitability=1e-3,
                        iterations=10).value == blind_hand.solve(game_string, utility).value


def test_a_match_through_the_blind_iron_hand(tmp_path, tree_cache):
    """Trucomano's default blind iron hand: solve-match takes the match on the public engine
    (the iron hand as the chance game, void hands linking its dealers), its table agrees with
    the history engine's within the error bounds, and the iron hand keeps no strategy."""
    game = ("python_trucomano(num_ranks=3,hand_size=1,isomorphic=true,target=3)")
    common = ["--target-exploitability", "0.001", "--quiet"]
    public, history = tmp_path / "public", tmp_path / "history"
    assert cli.main(["solve-match", game, *common, "--out", str(public)]) == 0
    assert cli.main(["solve-match", game, *common, "--engine", "history",
                     "--out", str(history)]) == 0
    spec = MatchSpec.of_game(game)
    on_public = store.load_states(public, spec, {})
    on_history = store.load_states(history, spec, {})
    assert json.loads((public / "summary.json").read_text())["engine"] == "public"
    assert set(on_public) == set(on_history) and len(on_public) == 18
    for state, record in on_public.items():
        other = on_history[state]
        assert abs(record["p0_win"] - other["p0_win"]) <= (
            record["error_bound"] + other["error_bound"] + 1e-9), state
    iron = public / "states" / "2-2-d0"
    assert not (iron / "strategy.npz").exists()
    summary = json.loads((iron / "summary.json").read_text())
    assert summary["iterations"] == 0 and "every strategy is an equilibrium" in summary["strategy"]
    # all-tied hands (nobody scores) link the dealers; blind, the seats are exchangeable
    assert summary["match"]["void_probability_bound"] > 0
    assert summary["match"]["p0_win"] == pytest.approx(0.5, abs=1e-12)
