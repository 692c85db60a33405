"""Truco Paulista (games/RULES.md §2): each rule TP-1..TP-13, the scenarios, the 4-player
partnership rules and information leakage. The OpenSpiel contract is checked for every game
in test_game_contract.py."""
import numpy as np
import pyspiel
import pytest

import games  # noqa: F401  (registers the games)
from conftest import TRUCO_HANDS, apply_named, candidates, check_swaps_invisible, dealt, legal
from games import truco

PAULISTA = "python_truco_paulista"


def game(name=PAULISTA, **params):
    return pyspiel.load_game(name, params)


# Vira 4c (manilha 5) unless said otherwise: commons weakest first 4 6 7 Q J K A 2 3.
P0, P1 = TRUCO_HANDS


def two_player(*actions, hands=(P0, P1), vira="4c", **params):
    """A 2-player state after the deal and `actions`."""
    return apply_named(dealt(game(**params), *hands, vira=vira), *actions)


# --- TP-1 .. TP-5 ---------------------------------------------------------------------------

def test_tp1_four_players_in_two_sides_share_the_points():
    g = game(num_players=4)
    assert g.num_players() == 4
    state = apply_named(dealt(game(num_players=4, hand_size=1), "3c", "Kd", "Qd", "7s", vira="4c"),
                        "Play 3c", "Play Kd", "Play Qd", "Play 7s")
    assert state.returns() == [1, -1, 1, -1]


@pytest.mark.parametrize("deck,cards_", [("dirty", 40), ("clean", 24)])
def test_tp2_deck_sizes(deck, cards_):
    state = game(deck=deck).new_initial_state()
    names = {state.action_to_string(-1, a)[5:] for a in candidates(state)}
    assert len(names) == cards_
    assert {"6c", "7c"} & names == ({"6c", "7c"} if deck == "dirty" else set())


@pytest.mark.parametrize("low,high", [("Qd", "Jc"), ("Jc", "Kh"), ("Kh", "As"), ("As", "2d"),
                                      ("2d", "3h"), ("4d", "6c"), ("6c", "7d"), ("7d", "Qc")])
def test_tp3_common_order(low, high):
    order = "4567QJKA23"
    vira = next(rank for position, rank in enumerate(order)
                if {rank, order[(position + 1) % 10]}.isdisjoint(low[0] + high[0]))
    state = apply_named(dealt(game(hand_size=1), low, high, vira=vira + "s"),
                        f"Play {low}", f"Play {high}")
    assert state.returns() == [-1, 1]


def test_tp3_equal_ranks_tie_whatever_the_suit():
    tied = apply_named(dealt(game(hand_size=1, all_tied="nobody"), "Kd", "Ks", vira="4c"),
                       "Play Kd", "Play Ks")
    assert tied.returns() == [0, 0]


def test_tp4_deal_order_vira_and_mao():
    state = game().new_initial_state()
    state = apply_named(state, "Deal 3c", "Deal 2h", "Deal Qd", "Deal Kd", "Deal 7s", "Deal 6h")
    assert {state.action_to_string(-1, a)[:5] for a in candidates(state)} == {"Vira "}
    state = apply_named(state, "Vira 4c")
    assert state.current_player() == 0  # the mão: the seat after the dealer (1)
    assert "Play 4c" not in legal(state)
    other = dealt(game(dealer=0), P0, P1, vira="4c")
    assert other.current_player() == 1


@pytest.mark.parametrize("vira,manilha", list(zip("4567QJKA23", "567QJKA234")))
def test_tp5_manilha_is_the_next_rank_cyclically(vira, manilha):
    # the manilha's weakest suit beats the strongest common card (a 3, or a 2 when 3s are manilhas)
    common = "2h" if manilha == "3" else "3h"
    state = apply_named(dealt(game(hand_size=1), f"{manilha}d", common, vira=f"{vira}s"),
                        f"Play {manilha}d", f"Play {common}")
    assert state.returns() == [1, -1]


def test_tp5_scenario_vira_7_zap_beats_copas_beats_3():
    state = two_player("Play Qc", "Play Qh", "Play Ad", "Play 3s", hands=("Qc Ad 4d", "Qh 3s 6d"),
                       vira="7s")
    assert truco.tricks.TIE not in state.public.round_winners
    assert state.public.round_winners == (0, 1)
    state = apply_named(dealt(game(hand_size=1), "Qh", "3s", vira="7s"), "Play Qh", "Play 3s")
    assert state.returns() == [1, -1]


def test_tp5_scenario_vira_3_four_of_diamonds_beats_3():
    state = apply_named(dealt(game(hand_size=1), "3c", "4d", vira="3s"), "Play 3c", "Play 4d")
    assert state.returns() == [-1, 1]


def test_tp5_clean_deck_vira_3_makes_queens_manilhas():
    state = apply_named(dealt(game(hand_size=1, deck="clean"), "2c", "Qd", vira="3s"),
                        "Play 2c", "Play Qd")
    assert state.returns() == [-1, 1]


@pytest.mark.parametrize("first,second", [("Qd", "Qs"), ("Qs", "Qh"), ("Qh", "Qc")])
def test_tp5_manilha_suit_order(first, second):
    state = apply_named(dealt(game(hand_size=1), first, second, vira="7d"),
                        f"Play {first}", f"Play {second}")
    assert state.returns() == [-1, 1]


# --- TP-6 .. TP-9 ---------------------------------------------------------------------------

def test_tp6_round_winner_leads_next():
    state = two_player("Play Qd", "Play Kd")  # P1 wins round 1
    assert state.current_player() == 1


def test_tp6_after_a_tie_the_tied_rounds_leader_leads():
    state = two_player("Play Kc", "Play Kd", hands=("Kc 2h Qd", "Kd 7s 6h"))
    assert state.public.round_winners == (truco.tricks.TIE,)
    assert state.current_player() == 0
    state = two_player("Play Kd", "Play Kc", hands=("Kc 2h Qd", "Kd 7s 6h"), dealer=0)
    assert state.current_player() == 1  # P1, the mão, led the tied round


def test_tp7_covered_only_from_round_two():
    state = two_player()
    assert not [a for a in legal(state) if a.endswith("covered")]
    state = apply_named(state, "Play Qd", "Play Kd")
    assert "Play 7s covered" in legal(state)


def test_tp7_covered_loses_to_any_face_up_card_and_two_covered_tie():
    state = two_player("Play Qd", "Play Kd", "Play 6h covered", "Play 3c")
    assert state.public.round_winners == (1, 0)
    tie = two_player("Play 3c", "Play 6h", "Play 2h covered", "Play Kd covered")
    assert tie.public.round_winners == (0, truco.tricks.TIE)
    assert tie.returns() == [1, -1]  # won then tied: the round-1 winner


def test_tp7_covered_card_is_weaker_than_the_weakest_card():
    state = two_player("Play 3c", "Play 6h", "Play Qd covered", "Play 4d",
                       hands=("3c 2h Qd", "4d 7s 6h"))
    assert state.public.round_winners == (0, 1)


def test_tp7_last_card_is_covered_by_one_action_that_reveals_nothing():
    state = two_player("Play Qd", "Play Kd", "Play 7s", "Play 3c", "Play 2h")
    assert sorted(legal(state)) == ["Play 6h", "Play covered", "Raise"]
    state = apply_named(state, "Play covered")
    assert state.returns() == [1, -1]
    assert state.information_state_string(0).endswith("0:Play 2h, 1:Play covered")
    assert "6h" not in state.information_state_string(0)
    assert "R3: P0 2h, P1 covered: P0 wins" in state.observation_string(0)


def test_tp7_parameters_switch_covered_cards():
    assert not [a for a in legal(two_player("Play Qd", "Play Kd", allow_covered=False))
                if a.endswith("covered")]
    assert "Play Qd covered" in legal(two_player(covered_from_round=1))


@pytest.mark.parametrize("hands,plays,winners,result", [
    (("3c 2h Qd", "Kd 7s 6h"), ["Play 3c", "Play Kd", "Play 2h", "Play 7s"], (0, 0), [1, -1]),
    (("3c 2h Qd", "3d 7s 6h"), ["Play 3c", "Play 3d", "Play 2h", "Play 7s"], (-1, 0), [1, -1]),
    (("3c 2h Qd", "Kd 2c 6h"), ["Play 3c", "Play Kd", "Play 2h", "Play 2c"], (0, -1), [1, -1]),
    (("3c 6d Qd", "Kd 7s 2h"), ["Play 3c", "Play Kd", "Play 6d", "Play 7s", "Play 2h", "Play Qd"],
     (0, 1, 1), [-1, 1]),
    (("3c 6d 2h", "Kd 7s Qd"), ["Play 3c", "Play Kd", "Play 6d", "Play 7s", "Play Qd", "Play 2h"],
     (0, 1, 0), [1, -1]),
    (("3c 6d Kh", "Kd 7s Qd"), ["Play 3c", "Play Kd", "Play 6d", "Play 7s", "Play Qd", "Play Kh"],
     (0, 1, 0), [1, -1]),
    (("3c 6d 6s", "Kd 7s 6c"), ["Play 3c", "Play Kd", "Play 6d", "Play 7s", "Play 6c", "Play 6s"],
     (0, 1, -1), [1, -1]),
    (("3c 6d Kh", "3d 6s 7s"), ["Play 3c", "Play 3d", "Play 6d", "Play 6s", "Play Kh", "Play 7s"],
     (-1, -1, 0), [1, -1]),
])
def test_tp9_hand_result_table(hands, plays, winners, result):
    state = two_player(*plays, hands=hands)
    assert state.public.round_winners == winners
    assert state.returns() == result


@pytest.mark.parametrize("all_tied,result", [("dealer", [-1, 1]), ("nobody", [0, 0]),
                                             ("mao", [1, -1])])
def test_tp9_all_tied_rules(all_tied, result):
    state = two_player("Play 3c", "Play 3d", "Play 6d", "Play 6s", "Play Kh", "Play Ks",
                       hands=("3c 6d Kh", "3d 6s Ks"), all_tied=all_tied)
    assert state.public.round_winners == (-1, -1, -1)
    assert state.returns() == result


# --- TP-10 raising --------------------------------------------------------------------------

def test_tp10_truco_accepted_is_worth_3_and_the_raiser_plays():
    state = two_player("Raise", "Accept")
    assert state.public.stake == 3 and state.current_player() == 0
    assert "Raise" not in legal(state)  # his side made the last raise
    state = apply_named(state, "Play 3c", "Play Kd", "Play 2h", "Play 7s")
    assert state.returns() == [3, -3]


def test_tp10_run_scores_the_value_before_the_proposal():
    assert two_player("Raise", "Run").returns() == [1, -1]
    assert two_player("Raise", "Raise", "Raise", "Run").returns() == [6, -6]


def test_tp10_scenario_truco_six_run():
    state = two_player("Raise", "Raise", "Run")  # A truco, B raises to 6, A runs
    assert state.returns() == [-3, 3]


def test_tp10_scenario_after_accepted_truco_only_the_other_side_may_raise():
    state = two_player("Raise", "Accept", "Play 3c")
    assert "Raise" in legal(state)  # B
    state = apply_named(state, "Play Kd")
    assert state.current_player() == 0 and "Raise" not in legal(state)  # A at his next turn


def test_tp10_ladder_ends_at_12_with_accept_or_run():
    state = two_player("Raise", "Raise", "Raise", "Raise")
    assert state.public.proposal() == 12
    assert sorted(legal(state)) == ["Accept", "Run"]
    state = apply_named(state, "Accept")
    assert state.public.stake == 12 and "Raise" not in legal(apply_named(state, "Play 3c"))


def test_tp10_without_reraise_answers_are_accept_or_run():
    assert sorted(legal(two_player("Raise", allow_reraise=False))) == ["Accept", "Run"]


def test_tp10_one_raise_per_card_turn_without_alternation():
    state = two_player("Raise", "Accept", alternate_raises=False)
    assert "Raise" not in legal(state)  # the card player now plays
    state = apply_named(state, "Play 3c", "Play Kd")
    assert "Raise" in legal(state)  # his next card turn: alternation is off


def test_tp10_no_fold_in_truco():
    assert sorted(legal(two_player())) == ["Play 2h", "Play 3c", "Play Qd", "Raise"]


def test_tp10_raise_cap_pagat():
    # side 0 at 9: holding 3 (truco accepted) 9 + 3 = 12 -> it may not propose 6
    state = two_player("Raise", "Accept", "Play 3c", score0=9, raise_cap="pagat")
    state = apply_named(state, "Raise")  # side 1 raises to 6
    assert sorted(legal(state)) == ["Accept", "Run"]  # accepting already gives side 0 its 12
    free = two_player("Raise", "Accept", "Play 3c", "Raise", score0=9)
    assert "Raise" in legal(free)


def test_tp10_raise_cap_needed():
    # scores 10-4: the trailing side needs 8 -> cap 9, no proposal of 12
    state = two_player("Raise", "Raise", "Raise", score0=10, score1=4, raise_cap="needed")
    assert state.public.proposal() == 9
    assert sorted(legal(state)) == ["Accept", "Run"]


# --- TP-11 .. TP-13 -------------------------------------------------------------------------

def test_tp11_scenario_hand_of_eleven():
    state = two_player(score0=11, score1=7)
    assert sorted(legal(state)) == ["Play 11", "Run 11"] and state.current_player() == 0
    assert apply_named(state.clone(), "Run 11").returns() == [-1, 1]
    state = apply_named(state, "Play 11")
    assert state.public.stake == 3
    for action in ("Play Qd", "Play Kd", "Play 7s", "Play 3c", "Play 2h", "Play 6h"):
        assert "Raise" not in legal(state)
        state = apply_named(state, action)
    assert state.returns() == [3, -3]


def test_tp11_the_side_at_eleven_decides_even_when_not_mao():
    state = two_player(score0=3, score1=11)
    assert state.current_player() == 1 and sorted(legal(state)) == ["Play 11", "Run 11"]
    state = apply_named(state, "Run 11")
    assert state.returns() == [1, -1]


def test_tp11_without_decision_the_hand_is_played_at_3():
    state = two_player(score0=11, score1=7, hand_of_11_decision=False)
    assert "Play 11" not in legal(state) and "Raise" not in legal(state)
    assert state.public.stake == 3


def test_tp12_iron_hand_worth_1_no_raising():
    state = two_player("Play 3c", "Play Kd", "Play 2h", "Play 7s", score0=11, score1=11)
    assert state.returns() == [1, -1]
    state = two_player(score0=11, score1=11)
    assert "Raise" not in legal(state) and "Play 11" not in legal(state)


def test_tp12_iron_hand_no_score_result():
    state = two_player("Play 3c", "Play 3d", "Play 6d", "Play 6s", "Play Kh", "Play Ks",
                       hands=("3c 6d Kh", "3d 6s Ks"), score0=11, score1=11, all_tied="nobody")
    assert state.returns() == [0, 0]


def test_tp13_public_information_in_information_state():
    state = two_player("Raise", "Accept", "Play 3c", "Play Kd", "Play 2h covered")
    assert state.information_state_string(0) == (
        "p0 | vira 4c | hand 3c 2h Qd | 0:Raise, 1:Accept, 0:Play 3c, 1:Play Kd, "
        "0:Play 2h covered")
    assert state.information_state_string(1) == (
        "p1 | vira 4c | hand Kd 7s 6h | 0:Raise, 1:Accept, 0:Play 3c, 1:Play Kd, "
        "0:Play covered")


# --- information leakage --------------------------------------------------------------------

@pytest.mark.parametrize("game_string,hands", [
    (PAULISTA, 20), ("python_truco_paulista(covered_from_round=1,hand_size=2)", 20),
    ("python_truco_paulista(num_players=4,hand_size=2)", 3),
    ("python_truco_paulista(num_players=4,hand_size=2,score1=11)", 3)])
def test_unplayed_and_covered_cards_of_others_never_leak(game_string, hands):
    """Swapping a card a player must not know for an undealt one changes nothing he sees."""
    g = pyspiel.load_game(game_string)
    rng = np.random.default_rng(11)
    for _ in range(hands):
        state = g.new_initial_state()
        history = []
        while not state.is_terminal():
            action = int(rng.choice(candidates(state)))
            history.append(action)
            state.apply_action(action)
            if not state.is_chance_node() and not state.is_terminal():
                check_swaps_invisible(g, history, state)


# --- 4-player partnerships ------------------------------------------------------------------

HANDS4 = ("3c Qd", "Kd 6h", "2h 7c", "Jd 6s")  # vira 4c: seats 0 and 2 against 1 and 3


def four_player(*actions, hands=HANDS4, **params):
    """A 4-player state (2 cards each unless `hand_size` says otherwise) after `actions`."""
    params = {"num_players": 4, "hand_size": 2, **params}
    return apply_named(dealt(game(**params), *hands, vira="4c"), *actions)


def test_4p_seating_mao_and_turn_order():
    state = four_player()
    assert state.current_player() == 0  # dealer 3 by default: seat 0 is the mão
    for seat, card in zip(range(4), ("Qd", "Kd", "7c", "Jd")):
        assert state.current_player() == seat
        state = apply_named(state, f"Play {card}")
    assert four_player(dealer=1).current_player() == 2


def test_4p_round_won_by_strictly_highest_card_whose_player_leads():
    state = four_player("Play Qd", "Play Kd", "Play 7c", "Play Jd")
    assert state.public.round_winners == (1,) and state.current_player() == 1


def test_4p_partners_equal_tops_win_for_their_side():
    state = four_player("Play Ks", "Play Qd", "Play Kh", "Play 7c",
                        hands=("Ks 3c", "Qd 6h", "Kh 2h", "7c 6s"))
    assert state.public.round_winners == (0,) and state.current_player() == 0


def test_4p_opposing_equal_tops_tie_and_the_first_top_card_leads():
    state = four_player("Play 6c", "Play Kd", "Play Kc", "Play 7c",
                        hands=("6c 3c", "Kd 6h", "Kc 2h", "7c 6s"))
    assert state.public.round_winners == (truco.tricks.TIE,)
    assert state.current_player() == 1


def test_4p_either_opponent_accepts_a_raise():
    state = four_player("Raise")
    assert state.current_player() == 1
    assert apply_named(state.clone(), "Accept").public.stake == 3
    state = apply_named(state, "Run")
    assert state.current_player() == 3 and sorted(legal(state)) == ["Accept", "Raise", "Run"]
    state = apply_named(state, "Accept")
    assert state.public.stake == 3 and state.current_player() == 0


def test_4p_running_needs_both_opponents():
    state = four_player("Raise", "Run", "Run")
    assert state.returns() == [1, -1, 1, -1]


def test_4p_counter_raise_is_answered_by_the_raising_side():
    state = four_player("Raise", "Run", "Raise")  # seat 3 accepts 3 and proposes 6
    assert state.public.stake == 3 and state.current_player() == 0
    state = apply_named(state, "Run", "Run")
    assert state.returns() == [-3, 3, -3, 3]


def test_4p_one_covered_card_per_side_per_round():
    state = four_player("Play Qd", "Play Kd", "Play 7c", "Play Jd", "Play covered")
    assert "Play covered" in legal(state)  # seat 2 (other side) may cover
    state = apply_named(state, "Play 2h")
    assert sorted(legal(state)) == ["Play 6s", "Raise"]  # seat 3's partner already covered


def test_4p_hand_of_eleven_partners_see_each_other():
    state = four_player(score0=11)
    assert state.current_player() == 0 and sorted(legal(state)) == ["Play 11", "Run 11"]
    assert "partner 2h 7c" in state.information_state_string(0)
    assert "partner 3c Qd" in state.information_state_string(2)
    assert "partner" not in state.information_state_string(1)
    assert "Qd" not in state.information_state_string(1)
    state = four_player(score1=11)
    assert state.current_player() == 1  # the side at eleven's first player decides
    assert apply_named(state, "Run 11").returns() == [1, -1, 1, -1]


def test_4p_next_leader_after_won_and_tied_rounds_in_a_full_hand():
    state = four_player("Play Qd", "Play Kd", "Play 7c", "Play Jd",  # seat 1 wins round 1
                        "Play 6h", "Play 2h", "Play 6s", "Play 3c",  # seat 0 wins round 2
                        hands=("3c Qd Ks", "Kd 6h Kh", "2h 7c Kc", "Jd 6s 7d"), hand_size=3)
    assert state.public.round_winners == (1, 0) and state.current_player() == 0
    state = apply_named(state, "Play Ks", "Play Kh", "Play Kc", "Play 7d")
    assert state.public.round_winners == (1, 0, truco.tricks.TIE)
    assert state.returns() == [-1, 1, -1, 1]


# --- readable play --------------------------------------------------------------------------

def test_observation_shows_vira_manilha_sorted_hand_table_results_stake_and_raisers():
    state = apply_named(dealt(game(), "5d Qc 3h", "Qs Ad 4s", vira="7s"), "Play 5d")
    assert state.observation_string(1) == (
        "P1 | vira 7s, manilha Q | hand: Qs Ad 4s | stake 1, P0 or P1 may raise to 3 | "
        "R1: P0 5d | P1 to play")
    state = apply_named(state, "Raise")
    assert state.observation_string(0) == (
        "P0 | vira 7s, manilha Q | hand: Qc 3h | stake 1 | R1: P0 5d | "
        "P1 raises to 3, P0 to answer")
    state = apply_named(state, "Accept", "Play Ad", "Play Qs", "Raise", "Raise", "Accept",
                        "Play Qc", "Play 3h", "Play 4s")
    assert state.observation_string(0) == (
        "P0 | vira 7s, manilha Q | hand: - | stake 9 | R1: P0 5d, P1 Ad: P1 wins | "
        "R2: P1 Qs, P0 Qc: P0 wins | R3: P0 3h, P1 4s: P0 wins | P0 scores 9")
    assert state.returns() == [9, -9]


def test_observation_hides_covered_cards_and_names_the_hand_kind():
    state = two_player("Play 11", "Play Qd", "Play Kd", "Play 6h covered", score0=9, score1=11)
    assert "R2: P1 covered" in state.observation_string(0)
    assert "6h" not in state.observation_string(0)
    assert "stake 3 (hand of eleven)" in state.observation_string(0)
    state = four_player(score0=11)
    assert "partner P2: 2h 7c" in state.observation_string(0)
    assert "partner" not in state.observation_string(3)
