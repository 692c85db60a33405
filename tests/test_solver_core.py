"""Solver engine on OpenSpiel games: references, exploitability, lock-step, convergence, errors."""
from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as openspiel_policy
from open_spiel.python.algorithms import cfr as openspiel_cfr
from open_spiel.python.algorithms import exploitability as openspiel_exploitability

import reference_values as ref
import solver
from conftest import assert_lock_step, random_tabular_policy
from solver.schedules import ALGORITHMS

KUHN = pyspiel.load_game("kuhn_poker")
LEDUC = pyspiel.load_game("leduc_poker")


def test_reference_nash_conv_of_uniform_and_first_action():
    assert solver.nash_conv(KUHN, openspiel_policy.TabularPolicy(KUHN)) == pytest.approx(
        ref.KUHN_UNIFORM_NASH_CONV, abs=1e-12)
    assert solver.nash_conv(LEDUC, openspiel_policy.TabularPolicy(LEDUC)) == pytest.approx(
        ref.LEDUC_UNIFORM_NASH_CONV, abs=1e-12)
    assert solver.nash_conv(KUHN, openspiel_policy.FirstActionPolicy(KUHN)) == pytest.approx(
        ref.KUHN_FIRST_ACTION_NASH_CONV, abs=1e-12)


def test_kuhn_game_value_within_twice_the_target():
    target = 1e-4
    result = solver.solve(KUHN, "cfr+", target_exploitability=target, iterations=5000,
                          progress=False, cache=False)
    assert result.exploitability <= target
    assert abs(result.game_value - ref.KUHN_GAME_VALUE) <= 2 * target


@pytest.mark.parametrize("game", [KUHN, LEDUC], ids=str)
def test_exploitability_equals_openspiel(game):
    solved = solver.solve(game, "dcfr", iterations=50, progress=False, cache=False)
    policies = [openspiel_policy.TabularPolicy(game), random_tabular_policy(game, 7),
                solved.average_policy.to_tabular()]
    for tabular in policies:
        expected = openspiel_exploitability.exploitability(game, tabular)
        assert solver.exploitability(game, tabular, cache=False) == pytest.approx(
            expected, abs=1e-9)
    assert solver.exploitability(game, solved.average_policy) == pytest.approx(
        solved.exploitability, abs=1e-12)


@pytest.mark.parametrize("algorithm,solver_class", [
    ("cfr", openspiel_cfr.CFRSolver), ("cfr+", openspiel_cfr.CFRPlusSolver)])
def test_lock_step_with_openspiel_python_cfr_on_kuhn(algorithm, solver_class):
    assert_lock_step(KUHN, algorithm, solver_class)


# Iteration budgets measured once with margin; targets in points per hand (Leduc's unit).
CONVERGENCE = {"cfr": (0.02, 1500), "cfr+": (1e-3, 1000), "lcfr": (0.01, 1000),
               "dcfr": (1e-3, 1000), "pcfr+": (1e-3, 1000)}


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_every_algorithm_reaches_its_target_on_leduc(algorithm):
    target, budget = CONVERGENCE[algorithm]
    result = solver.solve(LEDUC, algorithm, iterations=budget, target_exploitability=target,
                          eval_every=25, progress=False, cache=False)
    assert result.exploitability <= target
    assert result.exploitability == pytest.approx(
        openspiel_exploitability.exploitability(LEDUC, result.average_policy.to_tabular()),
        abs=1e-9)


def test_same_inputs_same_bits():
    first = solver.solve(LEDUC, "dcfr", iterations=30, seed=3, progress=False, cache=False)
    second = solver.solve(LEDUC, "dcfr", iterations=30, seed=3, progress=False, cache=False)
    assert np.array_equal(first.average_policy.probabilities, second.average_policy.probabilities)
    assert first.exploitability == second.exploitability


def test_checkpoint_and_resume_continue_the_same_run():
    states = []
    straight = solver.solve(LEDUC, "pcfr+", iterations=40, progress=False, cache=False)
    solver.solve(LEDUC, "pcfr+", iterations=20, checkpoint=states.append, checkpoint_every=10,
                 progress=False, cache=False)
    assert [state.iteration for state in states] == [10, 20, 20]
    resumed = solver.solve(LEDUC, "pcfr+", iterations=40, resume=states[-1], progress=False,
                           cache=False)
    assert resumed.iterations == 40
    np.testing.assert_array_equal(resumed.average_policy.probabilities,
                                  straight.average_policy.probabilities)


# Without checkpoints: one iteration first (to time it), then up to each evaluation.
@pytest.mark.parametrize("checkpoint_every, expected", [(1, [1, 2, 3, 4, 5, 6]),
                                                        (None, [1, 3, 6])])
def test_on_iteration_reports_every_run_of_iterations(checkpoint_every, expected):
    calls, evaluations = [], []
    checkpoint = (lambda state: None) if checkpoint_every else None
    solver.solve(KUHN, iterations=6, eval_every=3, checkpoint=checkpoint,
                 checkpoint_every=checkpoint_every or 100, progress=False,
                 on_iteration=lambda iteration, seconds: calls.append((iteration, seconds)),
                 on_progress=lambda iteration, seconds, value: evaluations.append(iteration))
    assert [iteration for iteration, _ in calls] == expected
    assert all(later >= earlier for (_, earlier), (_, later) in zip(calls, calls[1:]))
    assert evaluations == [3, 6]


def test_average_policy_round_trips_through_arrays():
    result = solver.solve(KUHN, "cfr+", iterations=20, progress=False, cache=False)
    restored = solver.AveragePolicy.from_arrays(result.average_policy.to_arrays())
    assert restored.to_dict() == result.average_policy.to_dict()
    name = restored.info_state_strings()[-1]
    assert restored.action_probabilities(name) == result.average_policy.to_dict()[name]
    with pytest.raises(KeyError, match="no information state"):
        restored.action_probabilities("not an information state")
    assert solver.exploitability(KUHN, restored) == pytest.approx(result.exploitability,
                                                                  abs=1e-12)


def test_compiled_tree_is_cached_on_disk(tmp_path, monkeypatch):
    monkeypatch.setenv("TRICKSOLVER_CACHE", str(tmp_path))
    compiled = solver.compile_game(LEDUC)
    assert list(tmp_path.glob("trees/*/meta.json"))
    loaded = solver.compile_game(LEDUC)
    assert loaded is not compiled
    for field in ("child_start", "node_infoset", "utility", "edge_prob", "infoset_actions"):
        np.testing.assert_array_equal(getattr(loaded, field), getattr(compiled, field))
    assert loaded.info_state_names == compiled.info_state_names


def test_unknown_algorithm_and_missing_stop_rule_are_rejected():
    with pytest.raises(ValueError, match="unknown algorithm 'cfr-'"):
        solver.solve(KUHN, "cfr-", iterations=1, progress=False)
    with pytest.raises(ValueError, match="at least one of"):
        solver.solve(KUHN, "cfr")


@pytest.mark.parametrize("game_string,message", [
    ("tiny_hanabi", "zero-sum"),
    ("matrix_rps", "sequential"),
    ("kuhn_poker(players=3)", "two-player"),
])
def test_unsupported_games_are_rejected(game_string, message):
    with pytest.raises(ValueError, match=message):
        solver.compile_game(game_string, cache=False)


def test_policy_for_another_game_is_rejected():
    with pytest.raises(ValueError, match="is for game 'kuhn_poker"):
        solver.exploitability(LEDUC, openspiel_policy.TabularPolicy(KUHN), cache=False)
    kuhn_result = solver.solve(KUHN, "cfr", iterations=2, progress=False, cache=False)
    with pytest.raises(ValueError, match="is for game 'kuhn_poker"):
        solver.exploitability(LEDUC, kuhn_result.average_policy, cache=False)


def test_the_shared_row_update_and_regret_matching():
    """`solver._update`, the one row update and regret matching of both engines, on one row
    by hand: discounts by sign, instantaneous regret, floor, average sums; regret matching on
    the positive part (plus the prediction), uniform where nothing is positive."""
    from solver._update import regret_matching, update_row

    regret, average = np.array([0.0, 2.0, -4.0, 1.0]), np.array([0.0, 1.0, 1.0, 1.0])
    instant, policy = np.array([9.0, 1.0, 1.0, -2.0]), np.array([9.0, 0.5, 0.25, 0.25])
    update_row(regret, average, 1, instant, policy, 1, 3, 2.0, 0.5, 0.25, False, 0.5)
    np.testing.assert_array_equal(regret, [0.0, 2.0, 0.0, -1.5])
    np.testing.assert_array_equal(average, [0.0, 1.5, 1.0, 1.0])
    update_row(regret, average, 1, instant, policy, 1, 3, 0.0, 1.0, 1.0, True, 1.0)
    np.testing.assert_array_equal(regret, [0.0, 3.0, 1.0, 0.0])
    out = np.full(5, -1.0)
    regret_matching(regret, instant, False, 1, 3, out, 2)
    np.testing.assert_array_equal(out, [-1.0, -1.0, 0.75, 0.25, 0.0])
    regret_matching(regret, -instant, True, 1, 3, out, 0)
    np.testing.assert_array_equal(out[:3], [0.5, 0.0, 0.5])
    regret_matching(np.array([-1.0, 0.0, -3.0]), instant, False, 0, 3, out, 0)
    np.testing.assert_array_equal(out[:3], [1 / 3, 1 / 3, 1 / 3])
