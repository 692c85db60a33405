"""Issue 15, item 4: node-locking (`solver.history.lock`, `tricksolver solve --lock`).

A full lock against the uniform random player is OpenSpiel's best response to
`UniformRandomPolicy`; a partial lock keeps the locked rows exactly and solves the restricted
game (its exploitability there is small, and OpenSpiel's best response to the saved profile
agrees with the value found); the CLI saves a result the other commands read."""
from __future__ import annotations

import json

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as openspiel_policy
from open_spiel.python.algorithms import best_response as openspiel_best_response

import games  # noqa: F401  (registers the games)
from solver import cli, results
from solver.cli.solve_lock import context_rows
from solver.history.cfr import solve
from solver.history.lock import locked_policy, make_lock, restricted_tree, solve_locked
from solver.history.policy import uniform_policy_array
from solver.history.tree import compile_game

TINY = "python_le_truc(num_ranks=3,hand_size=1,isomorphic=true,max_redeals=0)"
SMALL = "python_le_truc(num_ranks=3,hand_size=2,isomorphic=true,max_redeals=0)"
TARGET = 1e-5  # restricted-game exploitability the partial locks are solved to


def openspiel_best_response_value(game, policy, player: int) -> float:
    """`player`'s best-response value against `policy`, by OpenSpiel's Python machinery."""
    response = openspiel_best_response.BestResponsePolicy(game, player, policy)
    return response.value(game.new_initial_state())


@pytest.mark.parametrize("game_string", ["kuhn_poker", TINY])
@pytest.mark.parametrize("locked", [0, 1])
def test_full_lock_against_random_is_openspiel_best_response(game_string, locked, tree_cache):
    game = pyspiel.load_game(game_string)
    tree = compile_game(game)
    solved = solve_locked(game, make_lock(tree, locked, uniform_policy_array(tree)), tree)
    expected = openspiel_best_response_value(game, openspiel_policy.UniformRandomPolicy(game),
                                             1 - locked)
    assert solved.responder_value == pytest.approx(expected, abs=1e-9)
    # the saved profile: the random player's rows as given, the other's a best response
    profile = solved.result.average_policy.to_tabular(game)
    value = solved.result.game_value if locked == 1 else -solved.result.game_value
    assert value == pytest.approx(expected, abs=1e-9)
    assert openspiel_best_response_value(game, profile, 1 - locked) == pytest.approx(
        expected, abs=1e-9)
    assert solved.restricted_exploitability == pytest.approx(0.0, abs=1e-9)


@pytest.fixture(scope="module")
def small_partial(tree_cache):
    """SMALL with the dealer (player 1) random when he follows the lead card at stake 1 and
    when he answers a raise to 2; the rest solved to TARGET."""
    game = pyspiel.load_game(SMALL)
    tree = compile_game(game)
    rows = context_rows(game, tree, 1, ["follow_1", "dealer_answer_raise_2"])
    lock = make_lock(tree, 1, uniform_policy_array(tree), rows)
    solved = solve_locked(game, lock, tree, algorithm="dcfr", target_exploitability=TARGET,
                          iterations=20_000, progress=False)
    return game, tree, lock, solved


def test_partial_lock_keeps_the_locked_rows_exactly(small_partial):
    _, tree, lock, solved = small_partial
    assert 0 < np.count_nonzero(lock.rows) < np.count_nonzero(tree.infoset_player == 1)
    mask = lock.action_mask(tree)
    probabilities = solved.result.average_policy.probabilities
    assert np.array_equal(probabilities[mask], uniform_policy_array(tree)[mask])
    assert not np.array_equal(probabilities[~mask], uniform_policy_array(tree)[~mask])
    # the CFR run itself never moved them: current policy and average sums as they started
    restricted = restricted_tree(tree, lock)
    assert np.array_equal(solved.result.state.current_policy[mask],
                          uniform_policy_array(tree)[mask])
    assert not np.any(solved.result.state.cumulative_regret[mask])
    assert np.all(restricted.infoset_player[lock.rows] < 0)


def test_partial_lock_solves_the_restricted_game(small_partial):
    game, tree, _, solved = small_partial
    assert solved.restricted_exploitability <= TARGET
    # the answering player's best response in the whole game (the locked player's profile is
    # fixed, so it is the restricted game's) is within the bracket around the value found
    profile = solved.result.average_policy.to_tabular(game)
    response = openspiel_best_response_value(game, profile, solved.responder)
    assert abs(response - solved.responder_value) <= solved.restricted_exploitability + 1e-9
    # and the lock costs the dealer: his random rows are worth more to player 0 than the
    # equilibrium (+2.9697 here), by far more than the error
    equilibrium = solve(game, tree=tree, target_exploitability=TARGET, progress=False)
    assert solved.responder_value - equilibrium.game_value > 100 * TARGET


def test_locking_an_equilibrium_changes_no_value(tree_cache):
    # Kuhn: player 0's first decisions locked to an equilibrium's; the restricted game's value
    # is then the game's, -1/18 for player 0 (within the errors of both solves)
    game = pyspiel.load_game("kuhn_poker")
    tree = compile_game(game)
    equilibrium = solve(game, tree=tree, target_exploitability=TARGET, progress=False)
    first = np.array([tree.infoset_player[i] == 0 and len(tree.history(int(node))) == 2
                      for i, node in enumerate(tree.infoset_node)])
    lock = make_lock(tree, 0, equilibrium.average_policy.probabilities, first)
    solved = solve_locked(game, lock, tree, target_exploitability=TARGET, iterations=20_000,
                          progress=False)
    assert 0 < np.count_nonzero(first) < np.count_nonzero(tree.infoset_player == 0)
    tolerance = 2 * equilibrium.exploitability + solved.restricted_exploitability
    assert solved.responder_value == pytest.approx(1 / 18, abs=tolerance)


def test_bad_locks_are_refused(tree_cache):
    tree = compile_game(pyspiel.load_game("kuhn_poker"))
    uniform = uniform_policy_array(tree)
    with pytest.raises(ValueError, match="0 or 1"):
        make_lock(tree, 2, uniform)
    with pytest.raises(ValueError, match="information states of player 0"):
        make_lock(tree, 0, uniform, tree.infoset_player == 1)
    with pytest.raises(ValueError, match="distribution"):
        make_lock(tree, 0, 2 * uniform)
    lock = make_lock(tree, 0, uniform)
    assert np.array_equal(locked_policy(tree, lock, np.zeros_like(uniform)),
                          np.where(tree.infoset_player.repeat(2) == 0, 0.5, 0.0))


def test_cli_lock_end_to_end(tmp_path, capfd, tree_cache):
    out = tmp_path / "lock"
    argv = ["solve", TINY, "--lock", "1=random", "--lock-contexts", "follow_1",
            "--target", str(TARGET), "--quiet", "--out", str(out)]
    assert cli.main(argv) == 0
    printed = capfd.readouterr().out
    assert "value gained" in printed and "follow_1" in printed
    summary = json.loads((out / results.SUMMARY_FILE).read_text())
    lock = summary["lock"]
    assert (lock["player"], lock["spec"], lock["contexts"]) == (1, "random", ["follow_1"])
    assert lock["value_gained"] == pytest.approx(
        lock["responder_value"] - lock["equilibrium_value"], abs=1e-12)
    assert lock["restricted_exploitability"] <= TARGET
    # the saved strategy: the locked rows exactly uniform, read back by the other commands
    saved = results.load_result(out)
    game = pyspiel.load_game(TINY)
    tree = compile_game(game)
    mask = np.repeat(context_rows(game, tree, 1, ["follow_1"]), np.diff(tree.infoset_action_start))
    assert np.array_equal(saved.policy.probabilities[mask], uniform_policy_array(tree)[mask])
    assert cli.main(["exploit", str(out)]) == 0
    assert "difference 0" in capfd.readouterr().out
    assert cli.main(["show", str(out), "--hand", "A"]) == 0
    capfd.readouterr()


def test_cli_full_lock_to_a_saved_equilibrium_gains_nothing(tmp_path, capfd, tree_cache):
    equilibrium = tmp_path / "equilibrium"
    assert cli.main(["solve", TINY, "--target", str(TARGET), "--quiet", "--out",
                     str(equilibrium)]) == 0
    out = tmp_path / "lock"
    assert cli.main(["solve", TINY, "--lock", f"0={equilibrium}", "--target", str(TARGET),
                     "--quiet", "--out", str(out)]) == 0
    capfd.readouterr()
    lock = json.loads((out / results.SUMMARY_FILE).read_text())["lock"]
    assert lock["locked_information_states"] == lock["player_information_states"]
    assert lock["responder_value_error"] == 0.0
    # a best response to an equilibrium within TARGET gains at most 2 TARGET over its value
    assert -lock["value_gained_error"] <= lock["value_gained"] <= 2 * TARGET + lock[
        "value_gained_error"]


def test_cli_lock_to_another_games_solution_is_one_line(tmp_path, capfd, tree_cache):
    kuhn = tmp_path / "kuhn"
    assert cli.main(["solve", "kuhn_poker", "--iterations", "10", "--quiet", "--out",
                     str(kuhn)]) == 0
    capfd.readouterr()
    assert cli.main(["solve", TINY, "--lock", f"0={kuhn}", "--quiet"]) == 2
    err = capfd.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "a solution of kuhn_poker" in err, err
