"""Solver engine on small Le Truc variants: memoized compile, exploitability, lock-step, values."""
from __future__ import annotations

import pyspiel
import pytest
from open_spiel.python import policy as openspiel_policy
from open_spiel.python.algorithms import cfr as openspiel_cfr
from open_spiel.python.algorithms import exploitability as openspiel_exploitability

import games  # noqa: F401  (registers python_le_truc)
import solver
from conftest import assert_lock_step, assert_memoized_equals_traversal, random_tabular_policy
from solver.history.tree import NotMemoizable, _outcome_tokens

# Reduced variants (short ladder, no rest) that OpenSpiel's Python algorithms finish quickly.
BETTING = "max_redeals=0,allow_rest=false,stake_ladder=1:3"
ISOMORPHIC = f"python_le_truc(num_ranks=3,hand_size=2,isomorphic=true,{BETTING})"
CONCRETE = f"python_le_truc(num_ranks=2,hand_size=1,{BETTING})"
ISOMORPHIC_SMALL = f"python_le_truc(num_ranks=2,hand_size=1,isomorphic=true,{BETTING})"
WITH_REDEALS = "python_le_truc(num_ranks=3,hand_size=1,isomorphic=true,max_redeals=2)"
CONCRETE_WITH_REDEAL = "python_le_truc(num_ranks=2,hand_size=1,max_redeals=1)"


def load(game_string):
    """A registered game by its string."""
    return pyspiel.load_game(game_string)


@pytest.mark.parametrize("game_string,workers", [
    (ISOMORPHIC, 1), (ISOMORPHIC, 3), (CONCRETE, 2), (WITH_REDEALS, 1), (WITH_REDEALS, 2),
    (CONCRETE_WITH_REDEAL, 2)])
def test_memoized_compile_equals_the_traversal(game_string, workers):
    assert_memoized_equals_traversal(game_string, workers)


class _Seen:
    """A stand-in state whose information state string is fixed per player."""

    def __init__(self, *names):
        self.names = names

    def information_state_string(self, player):
        return self.names[player]


def test_memoized_compile_tokens_what_each_player_sees_of_a_redeal():
    chance = _Seen("p0 | hand K", "p1 | hand A")
    children = [_Seen("p0 | hand K | hand A", "p1 | hand A"),
                _Seen("p0 | hand K | hand K", "p1 | hand A"),
                _Seen("p0 | hand K | hand A", "p1 | hand A")]
    suffixes = {}
    assert _outcome_tokens("g", chance, children, 0, suffixes) == (0, 1, 0)
    assert _outcome_tokens("g", chance, children, 1, suffixes) == (-1, -1, -1)
    assert suffixes == {" | hand A": 0, " | hand K": 1}
    rewritten = [_Seen("p0 | hand A K", "")]
    with pytest.raises(NotMemoizable, match="rewrites player 0's information state"):
        _outcome_tokens("g", chance, rewritten, 0, suffixes)


@pytest.mark.parametrize("game_string", [ISOMORPHIC, CONCRETE])
def test_exploitability_equals_openspiel(game_string):
    game = load(game_string)
    solved = solver.solve(game, "pcfr+", iterations=30, progress=False, cache=False)
    for tabular in (openspiel_policy.TabularPolicy(game), random_tabular_policy(game, 11),
                    solved.average_policy.to_tabular()):
        expected = openspiel_exploitability.exploitability(game, tabular)
        assert solver.exploitability(game, tabular, cache=False) == pytest.approx(
            expected, abs=1e-9)


@pytest.mark.parametrize("algorithm,solver_class", [
    ("cfr", openspiel_cfr.CFRSolver), ("cfr+", openspiel_cfr.CFRPlusSolver)])
def test_lock_step_with_openspiel_python_cfr(algorithm, solver_class):
    assert_lock_step(load(ISOMORPHIC_SMALL), algorithm, solver_class)


def test_isomorphic_and_concrete_reach_the_same_game_value():
    target = 1e-4
    values = []
    for game_string in (CONCRETE, ISOMORPHIC_SMALL):
        result = solver.solve(game_string, "dcfr", target_exploitability=target, iterations=20_000,
                              eval_every=20, progress=False, cache=False)
        assert result.exploitability <= target
        values.append(result.game_value)
    # each value is within 2 x exploitability of the common game value
    assert abs(values[0] - values[1]) <= 4 * target


def test_one_rank_deck_is_worth_nothing():
    # Every trick is spoiled: whoever never folds or refuses cannot lose, so the value is 0.
    target = 1e-6
    result = solver.solve("python_le_truc(num_ranks=1,hand_size=1,max_redeals=0)", "pcfr+",
                          target_exploitability=target, iterations=10_000, eval_every=10,
                          progress=False, cache=False)
    assert result.exploitability <= target
    assert abs(result.game_value) <= 2 * target
