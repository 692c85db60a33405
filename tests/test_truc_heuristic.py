"""The human-like Le Truc and Truco bots (solver.play.truc_heuristic): legal in every variant,
seeded, clearly better than random in duplicate matches and less exploitable than random, and
a few of their choices; and the duplicate matches' chance on these games (solver.play.match)."""
import collections
import math

import numpy as np
import pyspiel
import pytest

import games  # noqa: F401  (registers the games)
import solver
from solver.play import match
from solver.play.bots import HeuristicBot, make_bot
from solver.play.exploit import evaluate_bots
from solver.play.truc_heuristic import LeTrucHeuristicBot, TrucoHeuristicBot

VARIANTS = [
    "python_le_truc",
    "python_le_truc(isomorphic=true)",
    "python_le_truc(num_ranks=5,hand_size=2,max_redeals=2,isomorphic=true)",
    "python_le_truc(rest_refusal=stake,score0=9,score1=3)",
    "python_le_truc(allow_counter_raise=true,stake_ladder=doubling,score0=11,isomorphic=true)",
    "python_le_truc(allow_rest=false,allow_fold=false,hand_size=2,num_ranks=4)",
    "python_truco_paulista",
    "python_truco_paulista(isomorphic=true)",
    "python_truco_paulista(score0=11)",
    "python_truco_paulista(score0=11,score1=11,isomorphic=true)",
    ("python_truco_paulista(deck=clean,hand_size=2,covered_from_round=1,raise_cap=pagat,"
     "score1=10)"),
    "python_trucomano",
    "python_trucomano(score0=11,score1=11)",
    "python_trucomano(score0=11,score1=11,isomorphic=true)",
    "python_trucomano(score1=11,truco_in_hand_of_11=forfeit,isomorphic=true)",
]
PLAYOUTS = 30
MATCH_DEALS = 300
SMALL_LE_TRUC = "python_le_truc(num_ranks=4,hand_size=2,isomorphic=true,max_redeals=0)"
SMALL_TRUCO = "python_truco_paulista(num_ranks=4,hand_size=1,isomorphic=true)"


def _chance(state, rng) -> int:
    outcomes, probabilities = zip(*state.chance_outcomes())
    return int(rng.choice(outcomes, p=probabilities))


def _checked_action(bot, state) -> int:
    """The bot's move, after checking its policy is a distribution over legal actions."""
    probabilities = bot.action_probabilities(state)
    assert set(probabilities) <= set(state.legal_actions())
    assert sum(probabilities.values()) == pytest.approx(1.0)
    action = bot.step(state)
    assert probabilities.get(action, 0.0) > 0.0
    return action


def _playout(game, seats, rng) -> list[int]:
    """One hand, `seats[p]` a bot or None (uniform random); the actions taken."""
    state = game.new_initial_state()
    history = []
    while not state.is_terminal():
        if state.is_chance_node():
            action = _chance(state, rng)
        elif seats[state.current_player()] is None:
            action = int(rng.choice(state.legal_actions()))
        else:
            action = _checked_action(seats[state.current_player()], state)
        history.append(action)
        state.apply_action(action)
    return history


@pytest.mark.parametrize("game_string", VARIANTS)
def test_plays_only_legal_actions(game_string):
    game = pyspiel.load_game(game_string)
    rng = np.random.default_rng(7)
    bots = [make_bot("heuristic", game, seed) for seed in (1, 2)]
    for k in range(PLAYOUTS):
        seats = [bots[0], bots[1]] if k % 3 == 0 else [bots[0], None] if k % 3 == 1 else \
            [None, bots[1]]
        _playout(game, seats, rng)


@pytest.mark.parametrize("game_string", ["python_le_truc", "python_truco_paulista"])
def test_moves_depend_only_on_the_seed(game_string):
    game = pyspiel.load_game(game_string)
    histories = [_playout(game, [make_bot("heuristic", game, 3), None],
                          np.random.default_rng(11)) for _ in range(2)]
    assert histories[0] == histories[1]
    first = match.play_match(game, "heuristic", "random", deals=10, seed=5, progress=False)
    second = match.play_match(game, "heuristic", "random", deals=10, seed=5, progress=False)
    assert first == second


@pytest.mark.parametrize("game_string", ["python_le_truc", "python_truco_paulista",
                                         "python_trucomano"])
def test_beats_random_in_a_duplicate_match(game_string):
    summary = match.play_match(pyspiel.load_game(game_string), "heuristic", "random",
                               deals=MATCH_DEALS, seed=2026, progress=False)
    assert summary.ci_low > 0


@pytest.mark.parametrize("game_string", [SMALL_LE_TRUC, SMALL_TRUCO])
def test_exact_exploitability_is_below_random(game_string):
    game = pyspiel.load_game(game_string)
    tree = solver.compile_game(game, cache=False)
    heuristic, random = evaluate_bots(tree, game, ["heuristic", "random"], [0])
    assert math.isfinite(heuristic.exploitability)
    assert 0 < heuristic.exploitability < random.exploitability


def test_make_bot_dispatches_heuristic_by_game():
    assert isinstance(make_bot("heuristic", pyspiel.load_game("python_two_ten_jack"), 0),
                      HeuristicBot)
    assert isinstance(make_bot("heuristic", pyspiel.load_game("python_le_truc"), 0),
                      LeTrucHeuristicBot)
    assert isinstance(make_bot("heuristic", pyspiel.load_game("python_trucomano"), 0),
                      TrucoHeuristicBot)
    with pytest.raises(ValueError, match="heuristic bot plays"):
        make_bot("heuristic", pyspiel.load_game("kuhn_poker"), 0)
    with pytest.raises(ValueError, match="two-player"):
        make_bot("heuristic", pyspiel.load_game("python_truco_paulista(num_players=4)"), 0)


def _after(game_string: str, *names: str):
    """The state after the actions named (chance deals and player actions alike)."""
    state = pyspiel.load_game(game_string).new_initial_state()
    for name in names:
        by_name = {state.action_to_string(state.current_player(), a): a
                   for a in state.legal_actions()}
        state.apply_action(by_name[name])
    return state


def _deals(cards: str) -> list[str]:
    return ["Deal " + card for card in cards.split()]


def _choice(state) -> dict[str, float]:
    """The heuristic's policy at `state`, by action name."""
    bot = make_bot("heuristic", state.get_game(), 0)
    return {state.action_to_string(state.current_player(), action): probability
            for action, probability in bot.action_probabilities(state).items()}


LE_TRUC = "python_le_truc(max_redeals=0)"


@pytest.mark.parametrize("actions, expected", [
    (_deals("7s 7h 8s Ad Kd Qd"), {"Rest": 1.0}),  # a sure winner rests
    (_deals("Ks Qh Js 9d Td 9c"), {"Play Ks": 1.0}),  # leads its strongest card
    (_deals("9s 9h Ts Ad Kd Qd"), {"Raise": 0.1, "Fold": 0.9}),  # hopeless: fold, or bluff
    (_deals("Ks Qh Js 7d Ad 9d") + ["Play Ks"], {"Rest": 1.0}),  # two sure tricks
    (_deals("7s Qh Js 8d Ad 9d") + ["Play 7s"], {"Play 9d": 1.0}),  # trick lost: weakest
    (_deals("Ks Qh Js 7d Ad 9d") + ["Play Ks", "Rest"], {"Rest": 1.0}),  # refusing costs more
    (_deals("7s Qh Js 8d Ad 9d") + ["Play 7s", "Raise", "Accept", "Play 9d", "Play Js"],
     {"Play Ad": 1.0}),  # may not raise again: wins with its cheapest card
])
def test_le_truc_choices(actions, expected):
    assert _choice(_after(LE_TRUC, *actions)) == pytest.approx(expected)


def test_le_truc_refuses_a_raise_it_cannot_win_and_accepts_a_fair_one():
    weak = _after(LE_TRUC, *_deals("7s 7h 8s 9d Td 9c"), "Raise")
    assert _choice(weak) == {"Refuse": 1.0}
    fair = _after(LE_TRUC, *_deals("Ks Qh 9s 8d Ad Kd"), "Raise")
    assert _choice(fair) == {"Accept": 1.0}


TRUCO = "python_truco_paulista"  # vira 6: the 7s are manilhas


@pytest.mark.parametrize("game_string, actions, expected", [
    (TRUCO, _deals("7c 7h 3s 4d 5d Kc") + ["Vira 6s"], {"Raise": 1.0}),
    (TRUCO, _deals("7c 3h 3s 4d 5d Kc") + ["Vira 6s", "Play 3s"],
     {"Play 4d": 0.9, "Raise": 0.1}),  # a lost round: the weakest card (or a bluff)
    (TRUCO, _deals("7c 3h 3s 4d 5d Kc") + ["Vira 6s", "Play 3s", "Raise", "Accept",
                                           "Play 4d", "Play 3h"],
     {"Play 5d covered": 1.0}),  # may not raise, cannot win the round: covers its weakest
    (TRUCO, _deals("7c 3h 3s 4d 5d Kc") + ["Vira 6s", "Raise"], {"Run": 1.0}),
    (TRUCO + "(score0=11)", _deals("7c 7h 3s 4d 5d Kc") + ["Vira 6s"], {"Play 11": 1.0}),
    (TRUCO + "(score0=11)", _deals("4c 4h 5s 7d 5d Kc") + ["Vira 6s"], {"Run 11": 1.0}),
])
def test_truco_choices(game_string, actions, expected):
    assert _choice(_after(game_string, *actions)) == pytest.approx(expected)


def test_duplicate_matches_deal_isomorphic_hands_by_their_probabilities():
    game = pyspiel.load_game("python_le_truc(num_ranks=2,hand_size=2,isomorphic=true)")
    expected = dict(game.new_initial_state().chance_outcomes())
    counts = collections.Counter()
    for seed in range(3000):
        sequence = np.random.SeedSequence(seed)
        order = np.random.default_rng(sequence).permutation(game.max_chance_outcomes())
        counts[match.chance_action(game.new_initial_state(), order,
                                   np.random.default_rng(sequence.spawn(1)[0]))] += 1
    assert {k: v / 3000 for k, v in counts.items()} == pytest.approx(expected, abs=0.03)


def test_a_match_is_between_two_players():
    with pytest.raises(ValueError, match="between two"):
        match.play_match(pyspiel.load_game("python_truco_paulista(num_players=4)"), "random",
                         "random", deals=2, seed=0, progress=False)
