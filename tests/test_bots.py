"""Baseline bots and duplicate matches (solver.bots, solver.match)."""
import json

import numpy as np
import pyspiel
import pytest

import games  # noqa: F401  (registers the games)
from open_spiel.python.algorithms import exploitability as openspiel_exploitability

import solver
from solver import match
from solver.bots import BotPolicy, HeuristicBot, bot_policy, make_bot
from solver.cli import main

FULL = "python_two_ten_jack"
SMALL = "python_two_ten_jack(ranks=2:T:J:A,hand_size=3)"


def _dealt(hand0, hand1):
    """A full-deck state with hands of equal size just dealt."""
    game = pyspiel.load_game(FULL, {"hand_size": len(hand0)})
    state = game.new_initial_state()
    for name in hand0 + hand1:
        state.apply_action(state.rules.deck.index(name))
    return state


def _play(state, *names):
    """Applies player actions given by their strings."""
    for name in names:
        by_string = {state.action_to_string(a): a for a in state.legal_actions()}
        state.apply_action(by_string[name])
    return state


@pytest.mark.parametrize("game_string, spec_a, spec_b", [
    (FULL, "random", "heuristic"),
    (SMALL, "ismcts:5", "heuristic"),
    (SMALL, "random", "ismcts:3"),
])
def test_bots_only_play_legal_actions(game_string, spec_a, spec_b):
    game = pyspiel.load_game(game_string)
    summary = match.play_match(game, spec_a, spec_b, deals=3, seed=4)
    assert len(summary.deal_points) == 3


def test_match_is_reproducible_and_has_a_confidence_interval():
    game = pyspiel.load_game(FULL)
    first = match.play_match(game, "heuristic", "random", deals=20, seed=9)
    second = match.play_match(game, "heuristic", "random", deals=20, seed=9)
    assert first == second
    assert first.ci_low < first.mean < first.ci_high


def test_duplicate_deals_cancel_between_identical_deterministic_bots():
    game = pyspiel.load_game(FULL)
    summary = match.play_match(game, "heuristic", "heuristic", deals=5, seed=1)
    assert summary.deal_points == (0.0,) * 5


@pytest.mark.parametrize("hand0, hand1, moves, expected", [
    (["Kd", "4d"], ["Tc", "3c"], ["Play Kd"], "Play Tc"),  # dump -5 on the opponent's trick
    (["Th", "4d", "5d"], ["Jh", "Ah", "3d"], ["Play Th"], "Play Jh"),  # win points cheaply
    (["4s", "4d"], ["As", "3s"], ["Play 4s"], "Play 3s"),  # keep the As for a better trick
    (["Th", "4d"], ["As", "3h"], ["Play Th"], "Play As"),  # spend it on five points
    (["9c", "4d", "2h"], ["5c", "Tc", "7d"], ["Play 9c"], "Play 5c"),  # do not take own -5
])
def test_heuristic_choices(hand0, hand1, moves, expected):
    state = _play(_dealt(hand0, hand1), *moves)
    bot = HeuristicBot(state.get_game())
    assert state.action_to_string(bot.step(state)) == expected


def test_heuristic_leads_a_plain_low_card_and_keeps_the_as():
    state = _dealt(["As", "Jh", "4d", "Kc"], ["5c", "Tc", "7d", "8d"])
    bot = HeuristicBot(state.get_game())
    assert state.action_to_string(bot.step(state)) == "Play 4d"


@pytest.mark.parametrize("spec", ["minimax", "ismcts:0", "ismcts:x", "random:3"])
def test_bad_bot_specs_raise(spec):
    with pytest.raises(ValueError, match="bot"):
        make_bot(spec, pyspiel.load_game(FULL), 0)


def test_heuristic_refuses_other_games():
    with pytest.raises(ValueError, match="python_two_ten_jack"):
        HeuristicBot(pyspiel.load_game("kuhn_poker"))


def test_match_command_prints_summary_and_writes_json(tmp_path, capsys):
    path = tmp_path / "match.json"
    code = main(["match", SMALL, "--bot", "heuristic", "--bot", "random", "--hands", "10",
                     "--seed", "2", "--json", str(path)])
    line = capsys.readouterr().out.strip()
    assert code == 0
    assert line.startswith("heuristic vs random") and "95% CI" in line
    record = json.loads(path.read_text())
    assert record["deals"] == 10 and len(record["deal_points"]) == 10
    assert record["command"].startswith("tricksolver match")


@pytest.mark.parametrize("argv, message", [
    (["--bot", "heuristic"], "twice"),
    (["--bot", "heuristic", "--bot", "minimax"], "unknown bot"),
    (["--bot", "heuristic", "--bot", "random", "--hands", "1"], "at least 2"),
])
def test_match_command_rejects_bad_input_in_one_line(argv, message, capsys):
    assert main(["match", SMALL, *argv]) == 2
    error = capsys.readouterr().err
    assert message in error and len(error.strip().splitlines()) == 1


def test_bot_policy_of_random_bot_has_kuhn_uniform_exploitability():
    game = pyspiel.load_game("kuhn_poker")
    table = bot_policy(game, make_bot("random", game, 0))
    assert solver.exploitability(game, table) == pytest.approx(11 / 24, abs=1e-12)


def test_bot_policy_of_ismcts_is_a_measurable_policy():
    game = pyspiel.load_game("kuhn_poker")
    table = bot_policy(game, make_bot("ismcts:20", game, 3))
    assert table.action_probability_array.sum(axis=1) == pytest.approx(1.0)
    assert solver.exploitability(game, table) == pytest.approx(
        openspiel_exploitability.exploitability(game, table), abs=1e-9)


def test_bot_policy_asked_lazily_matches_the_tabular_policy():
    game = pyspiel.load_game("leduc_poker")
    bot = make_bot("random", game, 0)
    lazy = solver.exploitability(game, BotPolicy(game, bot), cache=False)
    assert lazy == pytest.approx(
        openspiel_exploitability.exploitability(game, bot_policy(game, bot)), abs=1e-9)
    assert lazy > 1.0  # uniform play in Leduc is far from equilibrium


def test_heuristic_policy_is_over_legal_actions_in_the_two_suit_variant():
    game = pyspiel.load_game("python_two_ten_jack(suits=h:s,ranks=2:T:J:A,hand_size=2)")
    policy = BotPolicy(game, HeuristicBot(game))
    rng = np.random.default_rng(5)
    asked = 0
    for _ in range(40):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
                continue
            probabilities = policy.action_probabilities(state)
            assert set(probabilities) <= set(state.legal_actions())
            assert sum(probabilities.values()) == pytest.approx(1.0)
            asked += len(state.legal_actions()) > 1
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert asked > 40
