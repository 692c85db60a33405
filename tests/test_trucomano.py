"""Trucomano (games/RULES.md §3): the Paulista engine with section 3's defaults, TM-1..TM-5,
the blind iron hand and its information. The OpenSpiel contract is checked for every game in
test_game_contract.py."""
import numpy as np
import pyspiel
import pytest

import games  # noqa: F401  (registers the games)
from conftest import TRUCO_HANDS, apply_named, candidates, check_swaps_invisible, dealt, legal

TRUCOMANO = "python_trucomano"
P0, P1 = TRUCO_HANDS  # with vira 4c


def trucomano(*actions, hands=TRUCO_HANDS, vira="4c", **params):
    """A Trucomano state after the deal and `actions`."""
    return apply_named(dealt(pyspiel.load_game(TRUCOMANO, params), *hands, vira=vira), *actions)


def test_no_num_players_or_deck_parameter():
    with pytest.raises(pyspiel.SpielError):
        pyspiel.load_game("python_trucomano(num_players=4)")
    assert pyspiel.load_game(TRUCOMANO).num_players() == 2


def test_tm1_all_rounds_tied_nobody_scores():
    state = trucomano("Play 3c", "Play 3d", "Play 6d", "Play 6s", "Play Kh", "Play Ks",
                      hands=("3c 6d Kh", "3d 6s Ks"))
    assert state.is_terminal() and state.returns() == [0, 0]


def test_tm2_no_player_raises_twice_in_a_row():
    state = trucomano("Raise", "Accept", "Play 3c")
    assert "Raise" in legal(state)
    state = apply_named(state, "Raise", "Accept")
    assert "Raise" not in legal(state)  # P1 just raised
    state = apply_named(state, "Play Kd")  # P0 wins round 1 and leads
    assert "Raise" in legal(state)
    state = apply_named(state, "Play 2h")
    assert "Raise" not in legal(state)  # P1 made the last raise


def test_tm3_blind_iron_hand_plays_slots_worth_1():
    state = trucomano(score0=11, score1=11)
    assert sorted(legal(state)) == ["Play slot 1", "Play slot 2", "Play slot 3"]
    state = apply_named(state, "Play slot 2")  # P0 was dealt 3c 2h Qd in that order
    assert "0:Play slot 2 (2h)" in state.information_state_string(1)
    assert "R1: P0 2h" in state.observation_string(1)
    state = apply_named(state, "Play slot 1")  # P1's Kd: P0 wins round 1 and leads round 2
    assert sorted(legal(state)) == ["Play slot 1", "Play slot 3"]  # no covered cards when blind
    state = apply_named(state, "Play slot 3", "Play slot 2")  # Qd beats 7s
    assert state.returns() == [1, -1]


def test_tm3_blind_hand_hides_even_your_own_cards():
    state = trucomano(score0=11, score1=11)
    assert state.information_state_string(0) == "p0 | vira 4c | blind hand"
    for card in P0.split() + P1.split():
        for player in (0, 1):
            assert card not in state.information_state_string(player)
            assert card not in state.observation_string(player)


def test_tm3_blind_hand_cards_never_leak():
    """Swapping any unplayed card (own ones included) for an undealt card changes no view."""
    g = pyspiel.load_game(TRUCOMANO, {"score0": 11, "score1": 11})
    rng = np.random.default_rng(2)
    for _ in range(10):
        state, history = g.new_initial_state(), []
        while not state.is_terminal():
            history.append(int(rng.choice(candidates(state))))
            state.apply_action(history[-1])
            if not state.is_chance_node() and not state.is_terminal():
                check_swaps_invisible(g, history, state)


def test_tm3_sighted_iron_hand_is_a_parameter():
    state = trucomano(score0=11, score1=11, iron_hand_blind=False)
    assert sorted(legal(state)) == ["Play 2h", "Play 3c", "Play Qd"]


def test_tm4_hand_of_eleven_worth_3_without_raising():
    state = trucomano(score0=11, score1=7)
    assert sorted(legal(state)) == ["Play 11", "Run 11"]
    assert apply_named(state.clone(), "Run 11").returns() == [-1, 1]
    state = apply_named(state, "Play 11")
    assert state.public.stake == 3 and "Raise" not in legal(state)


@pytest.mark.parametrize("raiser_actions,result", [
    (["Raise"], [-5, 5]),  # P0 (at 11) asks truco: P1 scores 12 - 7
    (["Play 3c", "Raise"], [1, -1]),  # P1 asks truco: P0 scores 12 - 11
])
def test_tm4_truco_in_hand_of_eleven_forfeits_the_match(raiser_actions, result):
    state = trucomano("Play 11", score0=11, score1=7, truco_in_hand_of_11="forfeit")
    state = apply_named(state, *raiser_actions)
    assert state.is_terminal() and state.returns() == result


def test_tm5_covered_card_from_round_two_worth_nothing():
    state = trucomano()
    assert not [a for a in legal(state) if "covered" in a]
    state = apply_named(state, "Play Qd", "Play Kd", "Play 6h covered", "Play 3c")
    assert state.public.round_winners == (1, 0)
