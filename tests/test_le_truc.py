"""Le Truc (games/RULES.md §1): one scripted test per rule LT-1..LT-10 and per scenario,
hidden information, perfect recall, and isomorphic = concrete on small variants. The OpenSpiel
contract is checked for every game in test_game_contract.py."""
import random
import re
from collections import defaultdict

import pyspiel
import pytest

import games  # noqa: F401  (registers python_le_truc)
from conftest import apply_named, candidates, deal, legal, random_playout
from games.le_truc import isomorphic_action, isomorphic_information_state, stake_ladder

GAME = "python_le_truc"
STRENGTH_HIGH_TO_LOW = "78AKQJT9"  # LT-2: 7 > 8 > A > K > Q > J > T > 9
CARD_TOKEN = re.compile(r"(?<![A-Za-z0-9])([2-9TJQKA][cdhs])(?![A-Za-z0-9])")


# --- helpers ---------------------------------------------------------------------------------

def load(**params):
    """`python_le_truc` with the given parameters."""
    return pyspiel.load_game(GAME, params)


def play(game, actions):
    """Drives a game (object or game string) from its initial state by action strings."""
    if isinstance(game, str):
        game = pyspiel.load_game(game)
    return apply_named(game.new_initial_state(), *actions)


def start(hand0, hand1, **params):
    """A default-rule hand (max_redeals=0 unless given) right after dealing these hands."""
    params.setdefault("max_redeals", 0)
    return play(load(**params), deal(hand0, hand1))


def betting(state):
    """Legal non-card action strings of the player to act."""
    return [name for name in legal(state) if not name.startswith("Play ")]


# --- sizes ----------------------------------------------------------------------------------

def test_game_sizes():
    """Action and chance-outcome counts, utility bounds of the default game."""
    game = load()
    assert game.num_distinct_actions() == 9 + 32
    assert game.max_chance_outcomes() == 32
    assert game.max_utility() == 12 and game.min_utility() == -12
    assert load(score0=5, score1=9).max_utility() == 12  # the ladder's top
    assert load(score0=5, score1=9, stake_ladder="1:2").max_utility() == 12 - 5  # a rest
    assert load(stake_ladder="plus_two", target=16, allow_rest=False).max_utility() == 16


# --- LT-1 goal ----------------------------------------------------------------------------

@pytest.mark.parametrize("game_string", [GAME, "python_le_truc(score0=5,score1=9)",
                                         "python_le_truc(rest_refusal=stake,score0=3)"])
def test_lt1_only_one_player_scores_per_hand(game_string):
    """LT-1: returns are zero-sum, one scorer (or nobody on a void hand), within the bounds."""
    game = pyspiel.load_game(game_string)
    rng = random.Random(1)
    for _ in range(300):
        returns = random_playout(game.new_initial_state(), rng).returns()
        assert returns[0] == -returns[1]
        assert game.min_utility() <= returns[0] <= game.max_utility()


def test_lt1_rest_winner_reaches_target_exactly():
    """LT-1/LT-8: a won rest brings the winner's score to exactly the target."""
    state = start("7c 7d 9c", "8c 8d 9d", score0=2, score1=9)
    apply_named(state, "Rest", "Rest", "Play 9c", "Play 8c", "Play 9d", "Play 7c",
                "Play 7d", "Play 8d")
    # T1 P1 (8 > 9), T2 P0 (7 > 9), T3 P0 (7 > 8)
    assert state.returns() == [10.0, -10.0]  # 2 + 10 = the target 12


# --- LT-2 cards -----------------------------------------------------------------------------

def test_lt2_deck_is_32_cards_7_to_ace_in_four_suits():
    """LT-2: 32 cards, ranks 7 8 9 T J Q K A, suits c d h s, uniform deal."""
    outcomes = load().new_initial_state().chance_outcomes()
    state = load().new_initial_state()
    names = sorted(state.action_to_string(a)[len("Deal "):] for a, _ in outcomes)
    assert names == sorted(r + s for r in "789TJQKA" for s in "cdhs")
    assert all(abs(p - 1 / 32) < 1e-12 for _, p in outcomes)


@pytest.mark.parametrize("strong, weak", list(zip(STRENGTH_HIGH_TO_LOW, STRENGTH_HIGH_TO_LOW[1:])))
@pytest.mark.parametrize("strong_leads", [True, False])
def test_lt2_strength_order(strong, weak, strong_leads):
    """LT-2: 7 > 8 > A > K > Q > J > T > 9, whoever leads (one-card hands)."""
    hand0, hand1 = (strong + "h", weak + "c") if strong_leads else (weak + "h", strong + "c")
    state = start(hand0, hand1, hand_size=1)
    apply_named(state, f"Play {hand0}", f"Play {hand1}")
    assert state.returns() == ([1.0, -1.0] if strong_leads else [-1.0, 1.0])


def test_lt2_strength_is_transitive_over_all_pairs():
    """LT-2: for every pair of ranks the stronger card wins the trick."""
    for i, strong in enumerate(STRENGTH_HIGH_TO_LOW):
        for weak in STRENGTH_HIGH_TO_LOW[i + 1:]:
            state = start(weak + "s", strong + "d", hand_size=1)
            apply_named(state, f"Play {weak}s", f"Play {strong}d")
            assert state.returns() == [-1.0, 1.0], (strong, weak)


@pytest.mark.parametrize("rank", list(STRENGTH_HIGH_TO_LOW))
def test_lt2_equal_ranks_spoil_whatever_the_suits(rank):
    """LT-2/LT-5: equal ranks are equal: a one-card hand of equal ranks is void."""
    state = start(rank + "c", rank + "s", hand_size=1)
    apply_named(state, f"Play {rank}c", f"Play {rank}s")
    assert state.is_terminal() and state.returns() == [0.0, 0.0]


# --- LT-3 deal ------------------------------------------------------------------------------

def test_lt3_three_cards_each_player0_first_talon_26():
    """LT-3: first three cards to player 0, next three to player 1; 26 stay in the talon."""
    state = play(load(), deal("7c 8d 9h", "Ts Jc Qd"))
    assert state.current_player() == 0
    assert "7c" in state.information_state_string(0) and "Ts" in state.information_state_string(1)
    assert "hand: 7c 8d 9h" in state.observation_string(0)
    assert "hand: Qd Jc Ts" in state.observation_string(1)
    apply_named(state, "Ask redeal", "Agree")
    assert len(state.chance_outcomes()) == 26


def test_lt3_non_dealer_leads_first_trick():
    """LT-3: with dealer=1 player 0 leads trick 1; with dealer=0 player 1 does."""
    assert start("7c 8c 9c", "Ac Kc Qc", dealer=1).current_player() == 0
    state = start("7c 8c 9c", "Ac Kc Qc", dealer=0)
    assert state.current_player() == 1
    assert "Play Ac" in legal(state)
    apply_named(state, "Play Qc")
    assert state.current_player() == 0


def test_lt3_dealer_parameter_sets_who_is_asked_about_the_redeal():
    """LT-3/LT-4: dealer=0 -> player 1 (the non-dealer) is asked, player 0 answers."""
    state = play(load(dealer=0), deal("7c 8c 9c", "Ac Kc Qc"))
    assert state.current_player() == 1 and legal(state) == ["Keep", "Ask redeal"]
    apply_named(state, "Ask redeal")
    assert state.current_player() == 0 and legal(state) == ["Agree", "Decline"]
    apply_named(state, "Decline")
    assert state.current_player() == 1
    apply_named(state, "Play Ac", "Play 8c", "Play 7c", "Play Kc")
    assert state.returns() == [1.0, -1.0]  # player 0 (the dealer) won both tricks


# --- LT-4 redeal ---------------------------------------------------------------------------

def test_lt4_keep_starts_play_with_the_same_hands():
    """LT-4: Keep ends the redeal phase; the non-dealer leads with his hand."""
    state = play(load(), deal("7c 8c 9c", "Ac Kc Qc") + ["Keep"])
    assert state.current_player() == 0
    assert sorted(legal(state)) == sorted(["Raise", "Rest", "Fold", "Play 7c", "Play 8c",
                                           "Play 9c"])


def test_lt4_ask_then_decline_keeps_hands():
    """LT-4: Ask redeal -> the dealer answers Agree/Decline; Decline starts play, same hands."""
    state = play(load(), deal("7c 8c 9c", "Ac Kc Qc") + ["Ask redeal"])
    assert state.current_player() == 1 and legal(state) == ["Agree", "Decline"]
    apply_named(state, "Decline")
    assert state.current_player() == 0
    assert "Play 7c" in legal(state)
    apply_named(state, "Play 7c", "Play Qc", "Play 8c", "Play Kc")
    assert state.returns() == [1.0, -1.0]


def test_lt4_agree_deals_new_hands_from_the_talon():
    """LT-4: Agree sets both hands aside and deals new ones from the 26-card talon."""
    old = "7c 8c 9c Ac Kc Qc".split()
    state = play(load(), deal("7c 8c 9c", "Ac Kc Qc") + ["Ask redeal", "Agree"])
    assert state.is_chance_node()
    talon = [state.action_to_string(a)[5:] for a, _ in state.chance_outcomes()]
    assert len(talon) == 26 and not set(talon) & set(old)
    apply_named(state, *deal("7d 8d 9d", "Ad Kd Qd"))
    # max_redeals=1: no second question, play starts with the new hands
    assert state.current_player() == 0
    assert sorted(n for n in legal(state) if n.startswith("Play")) == [
        "Play 7d", "Play 8d", "Play 9d"]
    apply_named(state, "Play 9d", "Play Ad")
    assert state.current_player() == 1
    assert sorted(n for n in legal(state) if n.startswith("Play")) == ["Play Kd", "Play Qd"]


def test_lt4_asked_again_with_max_redeals_2():
    """LT-4: after an agreed redeal the non-dealer is asked again while redeals remain."""
    state = play(load(max_redeals=2), deal("7c 8c 9c", "Ac Kc Qc") + ["Ask redeal", "Agree"]
                 + deal("7d 8d 9d", "Ad Kd Qd"))
    assert state.current_player() == 0 and legal(state) == ["Keep", "Ask redeal"]
    apply_named(state, "Ask redeal", "Agree")
    assert len(state.chance_outcomes()) == 20
    apply_named(state, *deal("7h 8h 9h", "Ah Kh Qh"))
    assert state.current_player() == 0
    assert "Keep" not in legal(state) and "Play 7h" in legal(state)


def test_lt4_decline_after_a_redeal_ends_the_phase():
    """LT-4: Decline on the second question starts play with the current hands."""
    state = play(load(max_redeals=2), deal("7c 8c 9c", "Ac Kc Qc") + ["Ask redeal", "Agree"]
                 + deal("7d 8d 9d", "Ad Kd Qd") + ["Ask redeal", "Decline"])
    assert state.current_player() == 0 and "Play 7d" in legal(state)


def test_lt4_no_redeal_question_when_the_talon_cannot_hold_two_hands():
    """LT-4: 8 cards, hands of 2: one redeal leaves an empty talon, so no second question."""
    game = load(num_ranks=2, hand_size=2, max_redeals=2)  # cards 7 and 8
    state = play(game, deal("7c 7d", "8c 8d"))
    assert legal(state) == ["Keep", "Ask redeal"]
    apply_named(state, "Ask redeal", "Agree", *deal("7h 7s", "8h 8s"))
    assert state.current_player() == 0
    assert "Keep" not in legal(state) and "Ask redeal" not in legal(state)
    assert "Play 7h" in legal(state)


def test_lt4_no_keep_node_without_possible_redeal():
    """LT-4: max_redeals=0 (or a deck too small for a second deal) starts play at once."""
    state = play(load(max_redeals=0), deal("7c 8c 9c", "Ac Kc Qc"))
    assert "Keep" not in legal(state) and "Play 7c" in legal(state)
    tiny = play(load(num_ranks=1, hand_size=2), deal("7c 7d", "7h 7s"))  # 4 cards: no talon
    assert tiny.current_player() == 0
    assert "Keep" not in legal(tiny) and "Play 7c" in legal(tiny)


def test_lt4_set_aside_hand_stays_private_to_its_owner():
    """LT-4/LT-10: each player remembers his own set-aside hand; the opponent never sees it."""
    state = play(load(), deal("7c 8c 9c", "Ac Kc Qc") + ["Ask redeal", "Agree"]
                 + deal("7d 8d 9d", "Ad Kd Qd"))
    mine = set(CARD_TOKEN.findall(state.information_state_string(0)))
    theirs = set(CARD_TOKEN.findall(state.information_state_string(1)))
    assert mine == {"7c", "8c", "9c", "7d", "8d", "9d"}
    assert theirs == {"Ac", "Kc", "Qc", "Ad", "Kd", "Qd"}
    apply_named(state, "Play 7d", "Play Qd", "Play 8d", "Play Kd")
    assert state.is_terminal()
    for player, hidden in ((0, {"Ac", "Kc", "Qc", "Ad"}), (1, {"7c", "8c", "9c", "9d"})):
        seen = set(CARD_TOKEN.findall(state.information_state_string(player)))
        seen |= set(CARD_TOKEN.findall(state.observation_string(player)))
        assert not seen & hidden
    # the old hand is in its owner's information state, which differs from a kept-hand history
    kept = play(load(), deal("7d 8d 9d", "Ad Kd Qd") + ["Keep"])
    fresh = play(load(), deal("7c 8c 9c", "Ac Kc Qc") + ["Ask redeal", "Agree"]
                 + deal("7d 8d 9d", "Ad Kd Qd"))
    assert "7c" in fresh.information_state_string(0)
    assert fresh.information_state_string(0) != kept.information_state_string(0)
    assert fresh.information_state_tensor(0) != kept.information_state_tensor(0)
    # ... while player 1 cannot tell which cards player 0 set aside
    other = play(load(), deal("Tc Jc Qh", "Ac Kc Qc") + ["Ask redeal", "Agree"]
                 + deal("7d 8d 9d", "Ad Kd Qd"))
    assert other.information_state_string(1) == fresh.information_state_string(1)
    assert other.information_state_tensor(1) == fresh.information_state_tensor(1)
    assert other.information_state_tensor(0) != fresh.information_state_tensor(0)


def test_lt4_redeal_talk_is_public():
    """LT-4/LT-10: both players see the redeal request and its answer."""
    state = play(load(), deal("7c 8c 9c", "Ac Kc Qc") + ["Ask redeal", "Decline"])
    for player in (0, 1):
        assert "Ask redeal" in state.information_state_string(player)
        assert "Decline" in state.information_state_string(player)


def test_lt4_no_fold_or_bet_in_the_redeal_phase():
    """LT-4/LT-9: the redeal phase offers only Keep/Ask redeal, then Agree/Decline."""
    state = play(load(), deal("7c 8c 9c", "Ac Kc Qc"))
    assert legal(state) == ["Keep", "Ask redeal"]
    apply_named(state, "Ask redeal")
    assert legal(state) == ["Agree", "Decline"]


# --- LT-5 tricks --------------------------------------------------------------------------

def test_lt5_follower_may_play_any_card():
    """LT-5: no duty to follow suit: every card of the follower is legal."""
    state = start("7c 8c 9c", "Ad Kh Qs")
    apply_named(state, "Play 9c")
    assert sorted(n for n in legal(state) if n.startswith("Play")) == [
        "Play Ad", "Play Kh", "Play Qs"]
    state = start("7c 8c 9c", "Ad Kh Qs")
    assert sorted(n for n in legal(state) if n.startswith("Play")) == [
        "Play 7c", "Play 8c", "Play 9c"]


def test_lt5_trick_winner_leads_next():
    """LT-5: the winner of a trick leads the next one."""
    state = start("9c 8c 7c", "Ad Kh Qs")
    apply_named(state, "Play 9c", "Play Qs")  # P1 wins
    assert state.current_player() == 1
    apply_named(state, "Play Kh", "Play 7c")  # P0 wins
    assert state.current_player() == 0


def test_lt5_after_a_spoiled_trick_its_leader_leads_again():
    """LT-5: equal ranks spoil; the spoiled trick's leader leads the next one."""
    state = start("Ad Kh Qs", "Ac 8c 7c", dealer=0)  # player 1 leads
    apply_named(state, "Play Ac", "Play Ad")
    assert state.current_player() == 1
    assert "T1: Ac=Ad" in state.observation_string(0)


# --- LT-6 hand result -----------------------------------------------------------------------

# Scripts of the LT-6 table (player 0 leads trick 1); "A" is player 0 or player 1 as noted.
LT6_ROWS = {
    "A_A_p0": ("7c 8c 9c", "Ac Kc Qc", "7c Qc 8c Kc", 0),
    "A_A_p1": ("9c Tc Jc", "7c 8c Qc", "9c 7c 8c Tc", 1),
    "A_spoiled_p0": ("7c 8c 9c", "Qc 8d Kc", "7c Qc 8c 8d", 0),
    "spoiled_A_p1": ("7c 9c Qc", "7d 8d Kc", "7c 7d 9c 8d", 1),
    "spoiled_A_p0": ("7c 8c Qc", "7d 9d Kc", "7c 7d 8c 9d", 0),
    "A_B_A_p0": ("7c 9c 8d", "Ac Kc Qc", "7c Qc 9c Kc Ac 8d", 0),
    "A_B_B_p1": ("7c 9c Tc", "8c Ac Qc", "7c Qc 9c Ac 8c Tc", 1),
    "A_B_spoiled_p0": ("7c 9c Kc", "Qc Ac Kd", "7c Qc 9c Ac Kd Kc", 0),
    "A_B_spoiled_p1": ("Qc Ac Kd", "7c 9c Kc", "Qc 7c 9c Ac Kd Kc", 1),
    "spoiled_spoiled_A_p0": ("7c 8c Kc", "7d 8d Qc", "7c 7d 8c 8d Kc Qc", 0),
    "spoiled_spoiled_A_p1": ("7c 8c Qc", "7d 8d Kc", "7c 7d 8c 8d Qc Kc", 1),
    "all_spoiled_void": ("7c 8c Kc", "7d 8d Kd", "7c 7d 8c 8d Kc Kd", None),
}


@pytest.mark.parametrize("row", sorted(LT6_ROWS))
def test_lt6_hand_result_table(row):
    """LT-6: every line of the hand-result table; the hand ends as soon as it is decided."""
    hand0, hand1, plays, winner = LT6_ROWS[row]
    state = start(hand0, hand1)
    cards = plays.split()
    apply_named(state, *[f"Play {card}" for card in cards[:-1]])
    assert not state.is_terminal()
    apply_named(state, f"Play {cards[-1]}")
    assert state.is_terminal()
    expected = [0.0, 0.0] if winner is None else ([1.0, -1.0] if winner == 0 else [-1.0, 1.0])
    assert state.returns() == expected


def test_lt6_spoiled_then_won_second_trick_wins():
    """LT-6 rule 2: T1 spoiled, T2 won -> T2's winner wins without a third trick."""
    state = start("7c 9c Qc", "7d 8d Kc")
    apply_named(state, "Play 7c", "Play 7d", "Play 9c", "Play 8d")
    assert state.is_terminal() and state.returns() == [-1.0, 1.0]


@pytest.mark.parametrize("hand0, hand1, plays, expected", [
    ("8c", "9c", "8c 9c", [1.0, -1.0]),
    ("9c", "8c", "9c 8c", [-1.0, 1.0]),
    ("8c", "8d", "8c 8d", [0.0, 0.0]),
])
def test_lt6_hand_size_1_results(hand0, hand1, plays, expected):
    """LT-6 rule 3 with hand_size=1: the single trick decides; spoiled -> void."""
    state = start(hand0, hand1, hand_size=1)
    apply_named(state, *[f"Play {card}" for card in plays.split()])
    assert state.is_terminal() and state.returns() == expected


@pytest.mark.parametrize("hand0, hand1, plays, expected", [
    ("7c 9c", "8c Kc", "7c 8c 9c Kc", [1.0, -1.0]),  # A then B -> earliest winner A
    ("9c 7c", "8c Kc", "9c 8c Kc 7c", [-1.0, 1.0]),  # B then A -> B
    ("7c 8c", "7d Kc", "7c 7d 8c Kc", [1.0, -1.0]),  # spoiled then A -> A
    ("7c Qc", "7d Kc", "7c 7d Qc Kc", [-1.0, 1.0]),  # spoiled then B -> B
    ("7c Kc", "7d Kd", "7c 7d Kc Kd", [0.0, 0.0]),  # both spoiled -> void
])
def test_lt6_hand_size_2_results(hand0, hand1, plays, expected):
    """LT-6 rule 3 with hand_size=2: earliest won trick wins after two tricks; all spoiled void."""
    state = start(hand0, hand1, hand_size=2)
    cards = plays.split()
    apply_named(state, *[f"Play {card}" for card in cards])
    assert state.is_terminal() and state.returns() == expected


def test_lt6_void_hand_scores_nothing_even_after_raises():
    """LT-6: an all-spoiled hand is void whatever the stake."""
    state = start("7c 8c Kc", "7d 8d Kd")
    apply_named(state, "Raise", "Accept", "Play 7c", "Raise", "Accept", "Play 7d",
                "Play 8c", "Play 8d", "Play Kc", "Play Kd")
    assert state.is_terminal() and state.returns() == [0.0, 0.0]


# --- LT-7 stake and raising -------------------------------------------------------------------

@pytest.mark.parametrize("name, target, values", [
    ("seed", 12, (1, 2, 6, 8, 10, 12)),
    ("seed", 16, (1, 2, 6, 8, 10, 12, 14, 16)),
    ("seed", 5, (1, 2, 5)),
    ("seed", 7, (1, 2, 6, 7)),
    ("plus_two", 12, (1, 2, 4, 6, 8, 10, 12)),
    ("plus_two", 11, (1, 2, 4, 6, 8, 10, 11)),
    ("doubling", 12, (1, 2, 4, 8, 12)),
    ("doubling", 16, (1, 2, 4, 8, 16)),
    ("1:3:5:12", 12, (1, 3, 5, 12)),
    ("1:3:5", 12, (1, 3, 5)),
])
def test_lt7_ladder_values(name, target, values):
    """LT-7: named ladders continue their pattern up to the target; custom lists as given."""
    assert stake_ladder(name, target).values == values


def climb(game):
    """Counter-raises from stake 1 to the top; returns the state and the proposed values."""
    state = play(game, deal("7c 8c 9c", "Ac Kc Qc"))
    apply_named(state, "Raise")
    proposals = []
    while True:
        proposals.append(int(re.search(r"raises to (\d+)", state.observation_string(0))[1]))
        if "Raise" not in legal(state):
            return state, proposals
        apply_named(state, "Raise")


@pytest.mark.parametrize("name, target, values", [
    ("seed", 12, (1, 2, 6, 8, 10, 12)),
    ("seed", 16, (1, 2, 6, 8, 10, 12, 14, 16)),
    ("seed", 5, (1, 2, 5)),
    ("plus_two", 12, (1, 2, 4, 6, 8, 10, 12)),
    ("doubling", 12, (1, 2, 4, 8, 12)),
    ("1:3:5:12", 12, (1, 3, 5, 12)),
])
def test_lt7_counter_raise_chain_climbs_the_ladder(name, target, values):
    """LT-7: counter-raises alternate between the players up the whole ladder; at the top only
    Accept/Refuse remain; the refuser's opponent scores the value before the last proposal."""
    game = load(stake_ladder=name, target=target, allow_counter_raise=True, max_redeals=0)
    state, proposals = climb(game)
    assert tuple([1] + proposals) == values
    assert legal(state) == ["Accept", "Refuse"]
    last_proposer = 1 - state.current_player()
    assert last_proposer == (len(proposals) - 1) % 2  # player 0 raised first, then alternating
    refused = state.clone()
    apply_named(refused, "Refuse")
    expected = [float(values[-2]), -float(values[-2])]
    assert refused.returns() == (expected if last_proposer == 0 else expected[::-1])
    apply_named(state, "Accept")
    assert state.current_player() == 0  # the card player plays
    assert betting(state) == ["Fold"]
    apply_named(state, "Play 7c", "Play Qc", "Play 8c", "Play Kc")
    assert state.returns() == [float(values[-1]), -float(values[-1])]


@pytest.mark.parametrize("answers, scorer, points", [
    (["Refuse"], 0, 1),  # P0 proposed 2, refused: 1
    (["Raise", "Refuse"], 1, 2),  # P1 proposed 6, refused: 2
    (["Raise", "Raise", "Refuse"], 0, 6),  # P0 proposed 8, refused: 6
    (["Raise", "Raise", "Raise", "Refuse"], 1, 8),
])
def test_lt7_counter_raise_refusal_scores_the_value_before_the_last_proposal(
        answers, scorer, points):
    """LT-7: refusing a counter-raise: the refuser's opponent scores the value before the
    last proposal (seed ladder 1 2 6 8 10 12)."""
    state = start("7c 8c 9c", "Ac Kc Qc", allow_counter_raise=True)
    apply_named(state, "Raise", *answers)
    expected = [float(points), -float(points)]
    assert state.returns() == (expected if scorer == 0 else expected[::-1])


def test_lt7_counter_raise_off_by_default():
    """LT-7: with allow_counter_raise=false a raise is answered only by Accept or Refuse."""
    state = start("7c 8c 9c", "Ac Kc Qc")
    apply_named(state, "Raise")
    assert state.current_player() == 1 and legal(state) == ["Accept", "Refuse"]


def test_lt7_accepted_counter_raise_returns_the_turn_to_the_card_player():
    """LT-7: after P0 Raise, P1 Raise, P0 Accept the stake is 6 and P0 plays; P1 (last accepted
    raiser) may not raise at his turn, P0 may in the next trick."""
    state = start("7c 8c 9c", "Ac Kc Qc", allow_counter_raise=True)
    apply_named(state, "Raise", "Raise", "Accept")
    assert state.current_player() == 0 and betting(state) == ["Fold"]
    assert "stake 6" in state.observation_string(1)
    apply_named(state, "Play 7c")
    assert betting(state) == ["Fold"]
    apply_named(state, "Play Qc")
    assert "Raise" in betting(state)
    apply_named(state, "Play 8c", "Play Kc")
    assert state.returns() == [6.0, -6.0]


def test_lt7_stake_1_raise_refused_scores_1():
    """LT-7 scenario: stake 1, P0 Raise, P1 Refuse -> P0 +1."""
    state = start("9c Tc Jc", "7c 8c Ac")
    apply_named(state, "Raise", "Refuse")
    assert state.is_terminal() and state.returns() == [1.0, -1.0]


def test_lt7_accepted_raise_sets_the_stake():
    """LT-7: Accept moves the stake to the next ladder value, which the hand's winner scores."""
    state = start("9c Tc Jc", "7c 8c Ac")
    apply_named(state, "Raise", "Accept")
    assert "stake 2" in state.observation_string(0)
    apply_named(state, "Play 9c", "Play Ac", "Play 8c", "Play Tc")
    assert state.returns() == [-2.0, 2.0]


def test_lt7_raiser_must_play_or_fold_after_acceptance():
    """LT-7: after his accepted raise the raiser may only play a card or fold."""
    state = start("7c 8c 9c", "Ac Kc Qc")
    apply_named(state, "Raise", "Accept")
    assert state.current_player() == 0
    assert sorted(legal(state)) == sorted(["Fold", "Play 7c", "Play 8c", "Play 9c"])


def test_lt7_one_betting_action_per_card_turn_without_alternation():
    """LT-7: even with alternate_raises=false a player bets at most once per card turn,
    and may bet again at his next card turn."""
    state = start("7c 8c 9c", "Ac Kc Qc", alternate_raises=False)
    apply_named(state, "Raise", "Accept")
    assert betting(state) == ["Fold"]
    apply_named(state, "Play 7c", "Play Qc")
    assert betting(state) == ["Raise", "Rest", "Fold"]
    apply_named(state, "Raise", "Accept")
    assert "stake 6" in state.observation_string(0)


def test_lt7_alternation_forbids_raising_twice_in_a_row():
    """LT-7: the maker of the most recent accepted raise may not raise (or rest) again."""
    state = start("7c 8c 9c", "Ac Kc Qc")
    apply_named(state, "Raise", "Accept", "Play 7c", "Play Qc")  # P0 wins T1, leads T2
    assert state.current_player() == 0 and betting(state) == ["Fold"]


def test_lt7_follower_who_accepted_may_raise_at_his_own_turn():
    """LT-7: answering is not a betting action of the follower's card turn."""
    state = start("7c 8c 9c", "Ac Kc Qc")
    apply_named(state, "Raise", "Accept", "Play 9c")
    assert state.current_player() == 1
    assert betting(state) == ["Raise", "Rest", "Fold"]
    apply_named(state, "Raise")
    assert state.current_player() == 0 and legal(state) == ["Accept", "Refuse"]


def test_lt7_refused_raise_of_the_follower_scores_the_current_stake():
    """LT-7: the follower's raise from 2 to 6 refused -> the follower scores 2."""
    state = start("7c 8c 9c", "Ac Kc Qc")
    apply_named(state, "Raise", "Accept", "Play 9c", "Raise", "Refuse")
    assert state.returns() == [-2.0, 2.0]


def test_lt7_no_raise_at_the_top_of_the_ladder():
    """LT-7: once the stake is the ladder's top nobody may raise."""
    state = start("7c 8c 9c", "Ac Kc Qc", stake_ladder="1:2", allow_rest=False)
    apply_named(state, "Raise", "Accept", "Play 9c")
    assert betting(state) == ["Fold"]


def test_lt7_no_raise_before_play_in_redeal_phase():
    """LT-7: raising only happens at card turns (not while the redeal is discussed)."""
    state = play(load(), deal("7c 8c 9c", "Ac Kc Qc"))
    assert "Raise" not in legal(state) and "Rest" not in legal(state)


# --- LT-8 my rest -------------------------------------------------------------------------

def test_lt8_rest_legal_at_top_of_ladder_where_raise_is_not():
    """LT-8: at the top of the ladder Rest is legal although Raise is not."""
    state = start("7c 8c 9c", "Ac Kc Qc", stake_ladder="1:2")
    apply_named(state, "Raise", "Accept", "Play 9c")
    assert state.current_player() == 1 and betting(state) == ["Rest", "Fold"]


def test_lt8_rest_is_never_an_answer_to_a_raise():
    """LT-8: answers to Raise are Accept/Refuse (and a counter-raise), never Rest."""
    for counter in (False, True):
        state = start("7c 8c 9c", "Ac Kc Qc", allow_counter_raise=counter)
        apply_named(state, "Raise")
        assert "Rest" not in legal(state)


def test_lt8_rest_follows_the_betting_turn_rules():
    """LT-8: no Rest after one's own betting action this turn or against alternation."""
    state = start("7c 8c 9c", "Ac Kc Qc")
    assert "Rest" in legal(state)
    apply_named(state, "Raise", "Accept")
    assert "Rest" not in legal(state)  # one betting action per card turn
    apply_named(state, "Play 7c", "Play Qc")
    assert "Rest" not in legal(state)  # alternation: P0 made the last accepted raise
    no_alternation = start("7c 8c 9c", "Ac Kc Qc", alternate_raises=False)
    apply_named(no_alternation, "Raise", "Accept", "Play 7c", "Play Qc")
    assert "Rest" in legal(no_alternation)


@pytest.mark.parametrize("extra", ["", ",alternate_raises=false", ",allow_counter_raise=true"])
def test_lt8_rest_legal_exactly_where_raise_would_be_with_one_more_ladder_value(extra):
    """LT-8: over random playouts with ladder 1:2:6, Rest is legal exactly where Raise is legal
    in the same history with ladder 1:2:6:8, and never while answering a Raise."""
    short = pyspiel.load_game(f"python_le_truc(stake_ladder=1:2:6,max_redeals=0{extra})")
    longer = pyspiel.load_game(f"python_le_truc(stake_ladder=1:2:6:8,max_redeals=0{extra})")
    rng = random.Random(23)
    compared = 0
    for _ in range(300):
        state, twin = short.new_initial_state(), longer.new_initial_state()
        while not state.is_terminal():
            if not state.is_chance_node():
                names = legal(state)
                answering = "Accept" in names or "Refuse" in names
                if answering:
                    assert "Rest" not in names or names == ["Rest", "Refuse"]
                else:
                    assert ("Rest" in names) == ("Raise" in legal(twin)), state
                    compared += 1
            action = rng.choice(candidates(state))
            state.apply_action(action)
            twin.apply_action(action)
    assert compared > 500


def test_lt8_rest_is_answered_without_counter_raise():
    """LT-8: even with allow_counter_raise a rest is answered only by Rest or Refuse."""
    state = start("7c 8c 9c", "Ac Kc Qc", allow_counter_raise=True)
    apply_named(state, "Rest")
    assert legal(state) == ["Rest", "Refuse"]


def test_lt8_rest_answers_and_play_after_agreement():
    """LT-8: Rest is answered by Rest or Refuse; once agreed no more bets and the caller plays."""
    state = start("7c 8c 9c", "Ac Kc Qc")
    apply_named(state, "Rest")
    assert state.current_player() == 1 and legal(state) == ["Rest", "Refuse"]
    apply_named(state, "Rest")
    assert state.current_player() == 0
    assert sorted(legal(state)) == sorted(["Fold", "Play 7c", "Play 8c", "Play 9c"])
    apply_named(state, "Play 9c")
    assert betting(state) == ["Fold"]
    apply_named(state, "Play Qc")
    assert betting(state) == ["Fold"]


def test_lt8_rest_matched_scores_target_minus_own_score():
    """LT-8: the winner of a rest hand scores target minus his own score."""
    state = start("9c Tc Jc", "7c 8c Ac", score0=4, score1=9)
    apply_named(state, "Rest", "Rest", "Play 9c", "Play Ac", "Play 8c", "Play Tc")
    assert state.returns() == [-3.0, 3.0]


def test_lt8_rest_called_by_follower_after_accepting():
    """LT-8: the follower who accepted a raise may call rest at his own card turn."""
    state = start("7c 8c 9c", "Ac Kc Qc", score0=2, score1=1)
    apply_named(state, "Raise", "Accept", "Play 9c", "Rest", "Rest")
    assert state.current_player() == 1 and betting(state) == ["Fold"]
    apply_named(state, "Play Qc", "Play Kc", "Play 8c", "Play 7c", "Play Ac")  # T1 P1; T2, T3 P0
    assert state.returns() == [10.0, -10.0]


@pytest.mark.parametrize("rest_refusal, points", [("match", 12 - 5), ("stake", 1)])
def test_lt8_rest_refusal_both_readings_at_stake_1(rest_refusal, points):
    """LT-8: a refused rest scores the caller target minus his score, or the stake."""
    state = start("7c 8c 9c", "Ac Kc Qc", rest_refusal=rest_refusal, score0=5)
    apply_named(state, "Rest", "Refuse")
    assert state.returns() == [float(points), -float(points)]


def test_lt8_void_rest_hand_scores_nothing():
    """LT-8: an agreed rest with all tricks spoiled scores nothing."""
    state = start("7c 8c Kc", "7d 8d Kd")
    apply_named(state, "Rest", "Rest", "Play 7c", "Play 7d", "Play 8c", "Play 8d", "Play Kc",
                "Play Kd")
    assert state.returns() == [0.0, 0.0]


def test_lt8_no_rest_when_disabled():
    """LT-8: allow_rest=false removes Rest everywhere."""
    state = start("7c 8c 9c", "Ac Kc Qc", allow_rest=False, stake_ladder="1:2")
    assert betting(state) == ["Raise", "Fold"]
    apply_named(state, "Raise", "Accept", "Play 9c")
    assert betting(state) == ["Fold"]


# --- LT-9 fold ----------------------------------------------------------------------------

def test_lt9_fold_before_betting_scores_the_stake():
    """LT-9: folding at one's card turn gives the opponent the current stake."""
    state = start("7c 8c 9c", "Ac Kc Qc")
    apply_named(state, "Fold")
    assert state.returns() == [-1.0, 1.0]
    follower = start("7c 8c 9c", "Ac Kc Qc")
    apply_named(follower, "Play 9c", "Fold")
    assert follower.returns() == [1.0, -1.0]


def test_lt9_fold_after_own_accepted_raise():
    """LT-9: a player may fold after his betting action; the opponent scores the raised stake."""
    state = start("7c 8c 9c", "Ac Kc Qc")
    apply_named(state, "Raise", "Accept", "Fold")
    assert state.returns() == [-2.0, 2.0]


def test_lt9_fold_after_agreed_rest_concedes_the_match():
    """LT-9: once a rest is agreed, folding gives the opponent target minus his score."""
    state = start("7c 8c 9c", "Ac Kc Qc", score0=3, score1=4)
    apply_named(state, "Rest", "Rest", "Fold")
    assert state.returns() == [-8.0, 8.0]
    other = start("7c 8c 9c", "Ac Kc Qc", score0=3, score1=4)
    apply_named(other, "Rest", "Rest", "Play 9c", "Fold")
    assert other.returns() == [9.0, -9.0]


def test_lt9_no_fold_while_answering():
    """LT-9: Refuse is the fold when answering a raise or a rest; there is no Fold there."""
    for call in ("Raise", "Rest"):
        state = start("7c 8c 9c", "Ac Kc Qc")
        apply_named(state, call)
        assert "Fold" not in legal(state) and "Refuse" in legal(state)


def test_lt9_no_fold_when_disabled():
    """LT-9: allow_fold=false removes Fold."""
    state = start("7c 8c 9c", "Ac Kc Qc", allow_fold=False)
    assert betting(state) == ["Raise", "Rest"]


# --- LT-10 information ---------------------------------------------------------------------

def test_lt10_public_actions_are_seen_by_both_players():
    """LT-10: bets, answers and played cards appear in both players' information states."""
    state = start("7c 8c 9c", "Ac Kc Qc")
    apply_named(state, "Raise", "Accept", "Play 9c", "Play Qc")
    for player in (0, 1):
        info = state.information_state_string(player)
        for word in ("Raise", "Accept", "9c", "Qc"):
            assert word in info
        obs = state.observation_string(player)
        assert "stake 2" in obs and "T1: 9c<Qc" in obs
    assert not {"Ac", "Kc"} & set(CARD_TOKEN.findall(state.information_state_string(0)))
    assert not {"7c", "8c"} & set(CARD_TOKEN.findall(state.information_state_string(1)))


def concrete_playout(game, rng, on_decision):
    """Random playout that tracks every dealt hand; calls on_decision(state, dealt, played)."""
    hand_size = game.get_parameters()["hand_size"]
    state = game.new_initial_state()
    dealt, played, run = [set(), set()], set(), []
    while not state.is_terminal():
        if state.is_chance_node():
            action = rng.choice(candidates(state))
            card = state.action_to_string(action).split()[1]
            dealt[0 if len(run) < hand_size else 1].add(card)
            run.append(card)
            if len(run) == 2 * hand_size:
                run = []
        else:
            on_decision(state, dealt, played)
            action = rng.choice(state.legal_actions())
            name = state.action_to_string(action)
            if name.startswith("Play "):
                played.add(name.split()[1])
        state.apply_action(action)
    on_decision(state, dealt, played)
    return state


INFO_VARIANTS = [GAME, "python_le_truc(max_redeals=2)",
                 "python_le_truc(num_ranks=2,hand_size=2,max_redeals=2)",
                 "python_le_truc(allow_counter_raise=true,hand_size=2)"]


@pytest.mark.parametrize("game_string", INFO_VARIANTS)
def test_lt10_opponent_hidden_cards_never_in_strings(game_string):
    """LT-10: no unplayed or set-aside card of the opponent in information state or observation."""
    game = pyspiel.load_game(game_string)
    rng = random.Random(5)
    checked = [0]

    def check(state, dealt, played):
        for player in (0, 1):
            hidden = dealt[1 - player] - played
            own = dealt[player]
            for text in (state.information_state_string(player),
                         state.observation_string(player)):
                seen = set(CARD_TOKEN.findall(text))
                assert not seen & hidden, (text, hidden)
                assert seen <= own | played
            checked[0] += 1

    for _ in range(150):
        concrete_playout(game, rng, check)
    assert checked[0] > 1000


def replay_with_swapped_hidden_cards(game, history, player, rng):
    """The same history, but the opponent's never-played cards replaced by other cards that
    `player` never sees; returns None if no such replacement exists."""
    hand_size = game.get_parameters()["hand_size"]
    state = game.new_initial_state()
    names, chance = [], []
    for action in history:
        chance.append(state.is_chance_node())
        names.append(state.action_to_string(action))
        state.apply_action(action)
    owner, run = [], 0
    for is_chance in chance:
        if is_chance:
            owner.append(0 if run < hand_size else 1)
            run = (run + 1) % (2 * hand_size)
        else:
            owner.append(None)
    played = {n.split()[1] for n, c in zip(names, chance) if not c and n.startswith("Play ")}
    opponent_hidden = [i for i, (n, c, o) in enumerate(zip(names, chance, owner))
                       if c and o == 1 - player and n.split()[1] not in played]
    initial = game.new_initial_state()
    deck = [initial.action_to_string(a).split()[1] for a, _ in initial.chance_outcomes()]
    dealt_now = {n.split()[1] for n, c in zip(names, chance) if c}
    pool = [card for card in deck if card not in dealt_now]
    if not opponent_hidden or not pool:
        return None
    new_names = list(names)
    rng.shuffle(pool)
    # replace one or more of the opponent's hidden cards with undealt cards
    for index, card in zip(opponent_hidden, pool):
        new_names[index] = f"Deal {card}"
    return play(game, new_names)


@pytest.mark.parametrize("game_string", INFO_VARIANTS)
def test_lt10_tensors_ignore_opponent_hidden_cards(game_string):
    """LT-10: two states differing only in the opponent's hidden cards have identical
    information state/observation tensors and strings for the player (and differ for the
    opponent, whose own cards changed)."""
    game = pyspiel.load_game(game_string)
    rng = random.Random(11)
    compared = 0
    for _ in range(60):
        state = random_playout(game.new_initial_state(), rng)
        history = state.history()
        cut = rng.randrange(len(history) + 1)
        prefix_state = game.new_initial_state()
        for action in history[:cut]:
            prefix_state.apply_action(action)
        for player in (0, 1):
            other = replay_with_swapped_hidden_cards(game, history[:cut], player, rng)
            if other is None:
                continue
            compared += 1
            assert (other.information_state_tensor(player)
                    == prefix_state.information_state_tensor(player))
            assert other.observation_tensor(player) == prefix_state.observation_tensor(player)
            assert (other.information_state_string(player)
                    == prefix_state.information_state_string(player))
            assert other.observation_string(player) == prefix_state.observation_string(player)
            if prefix_state.current_player() == player:
                assert other.legal_actions() == prefix_state.legal_actions()
            if not prefix_state.is_chance_node():  # the opponent's own view did change
                assert (other.information_state_tensor(1 - player)
                        != prefix_state.information_state_tensor(1 - player))
    assert compared > 50


def walk(state, visit):
    """Calls visit(state) on every node of the subtree (depth first)."""
    visit(state)
    if state.is_terminal():
        return
    for action in candidates(state):
        walk(state.child(action), visit)


@pytest.mark.parametrize("game_string", [
    "python_le_truc(num_ranks=1,hand_size=1,max_redeals=1)",
    "python_le_truc(num_ranks=2,hand_size=1,max_redeals=0,allow_counter_raise=true,"
    "stake_ladder=1:2:3,target=3)",
    "python_le_truc(num_ranks=1,hand_size=2,max_redeals=0,target=2)",
    "python_le_truc(num_ranks=2,hand_size=2,max_redeals=1,isomorphic=true)",
])
def test_lt10_perfect_recall_over_the_whole_tree(game_string):
    """LT-10: the information state string determines the player's own past information states
    and actions, and the information state tensor partitions states exactly as the string."""
    game = pyspiel.load_game(game_string)
    memory = {}
    string_of_tensor = {}

    def visit_with_path(state, paths):
        if not state.is_terminal() and not state.is_chance_node():
            player = state.current_player()
            info = state.information_state_string(player)
            assert memory.setdefault(info, paths[player]) == paths[player], info
            tensor = tuple(state.information_state_tensor(player))
            assert string_of_tensor.setdefault(tensor, info) == info
            assert len(set(state.legal_actions())) == len(state.legal_actions())
        if state.is_terminal():
            return
        for action in candidates(state):
            new_paths = paths
            if not state.is_chance_node():
                player = state.current_player()
                new_paths = list(paths)
                new_paths[player] = paths[player] + (
                    (state.information_state_string(player), action),)
            visit_with_path(state.child(action), new_paths)

    visit_with_path(game.new_initial_state(), [(), ()])
    assert len(memory) == len(string_of_tensor) > 10


@pytest.mark.parametrize("game_string", [GAME, "python_le_truc(max_redeals=2,hand_size=2)"])
def test_lt10_perfect_recall_over_random_playouts(game_string):
    """LT-10: over random playouts of the full deck, equal information state strings always
    carry the same own past information states and actions; tensors partition like strings."""
    game = pyspiel.load_game(game_string)
    rng = random.Random(17)
    memory, string_of_tensor = {}, {}
    for _ in range(300):
        state, paths = game.new_initial_state(), [(), ()]
        while not state.is_terminal():
            action = rng.choice(candidates(state))
            if not state.is_chance_node():
                player = state.current_player()
                info = state.information_state_string(player)
                assert memory.setdefault(info, paths[player]) == paths[player], info
                tensor = tuple(state.information_state_tensor(player))
                assert string_of_tensor.setdefault(tensor, info) == info
                paths[player] = paths[player] + ((info, action),)
            state.apply_action(action)
    assert len(memory) == len(string_of_tensor) > 1000


# --- scenarios of games/RULES.md §1 ---------------------------------------------------------

def test_scenario_spoiled_then_p1_wins_second_trick_p0_led_it():
    """Scenario: T1 spoiled then P1 wins T2 -> P1 wins after two tricks, and P0 led T2."""
    state = play(load(), deal("7c 9c Qc", "7d 8d Kc") + ["Keep", "Play 7c", "Play 7d"])
    assert state.current_player() == 0  # P0 leads T2
    apply_named(state, "Play 9c", "Play 8d")
    assert state.is_terminal() and state.returns() == [-1.0, 1.0]
    assert "T1: 7c=7d | T2: 9c<8d" in state.observation_string(0)


def test_scenario_p0_p1_spoiled_p0_scores():
    """Scenario: T1 P0, T2 P1, T3 spoiled -> P0 scores."""
    state = play(load(), deal("7c 9c Kc", "Qc Ac Kd") + ["Keep"])
    apply_named(state, "Play 7c", "Play Qc", "Play 9c", "Play Ac", "Play Kd", "Play Kc")
    assert state.is_terminal() and state.returns() == [1.0, -1.0]


def test_scenario_all_three_spoiled_no_score():
    """Scenario: all three tricks spoiled -> no score."""
    state = play(load(), deal("7c 8c Kc", "7d 8d Kd") + ["Keep"])
    apply_named(state, "Play 7c", "Play 7d", "Play 8c", "Play 8d", "Play Kc", "Play Kd")
    assert state.is_terminal() and state.returns() == [0.0, 0.0]
    assert "void" in state.observation_string(0)


def test_scenario_stake_1_raise_refused_p0_plus_1():
    """Scenario: stake 1: P0 Raise, P1 Refuse -> P0 +1."""
    state = play(load(), deal("9c Tc Jc", "7c 8c Ac") + ["Keep", "Raise", "Refuse"])
    assert state.is_terminal() and state.returns() == [1.0, -1.0]


def test_scenario_two_accepted_raises_stake_6_then_only_p0_may_raise():
    """Scenario: P0 raises in T1 (accepted), P1 raises before following (accepted) -> stake 6
    with the seed ladder; in T2 P0 may raise, P1 may not."""
    state = play(load(), deal("7c 8c 9c", "Ac Kc Qc") + ["Keep", "Raise", "Accept", "Play 7c"])
    assert "Raise" in legal(state)
    apply_named(state, "Raise", "Accept")
    assert "stake 6" in state.observation_string(0)
    apply_named(state, "Play Qc")  # P0 wins T1 and leads T2
    assert state.current_player() == 0 and "Raise" in legal(state)
    apply_named(state, "Play 9c")
    assert state.current_player() == 1 and "Raise" not in legal(state)
    apply_named(state, "Play Ac")  # P1 wins T2 and leads T3
    assert state.current_player() == 1 and "Raise" not in legal(state)
    apply_named(state, "Play Kc")
    assert "Raise" in legal(state)
    apply_named(state, "Play 8c")
    assert state.returns() == [6.0, -6.0]


@pytest.mark.parametrize("rest_refusal, points", [("match", 7), ("stake", 6)])
def test_scenario_rest_refused_scores_match_or_stake(rest_refusal, points):
    """Scenario: stake 6, P1 Rest, P0 Refuse, scores 3-5 -> P1 scores 7 (match) or 6 (stake)."""
    game = load(score0=3, score1=5, rest_refusal=rest_refusal)
    state = play(game, deal("7c 8c 9c", "Ac Kc Qc") + [
        "Keep", "Play 7c", "Raise", "Accept", "Play Qc",  # stake 2 (P1's raise); P0 wins T1
        "Raise", "Accept", "Play 9c"])  # stake 6 (P0's raise); P1 to follow in T2
    assert "stake 6" in state.observation_string(1)
    assert state.current_player() == 1 and "Rest" in legal(state)
    apply_named(state, "Rest", "Refuse")
    assert state.is_terminal() and state.returns() == [-float(points), float(points)]


def test_scenario_rest_matched_p0_wins_with_scores_5_9():
    """Scenario: scores 5-9, rest matched, P0 wins -> P0 scores 7."""
    state = play(load(score0=5, score1=9), deal("7c 8c 9c", "Ac Kc Qc") + [
        "Keep", "Rest", "Rest", "Play 7c", "Play Qc", "Play 8c", "Play Kc"])
    assert state.is_terminal() and state.returns() == [7.0, -7.0]


# --- size parameters ---------------------------------------------------------------------

@pytest.mark.parametrize("num_ranks", range(1, 9))
def test_num_ranks_keeps_the_strongest_ranks(num_ranks):
    """num_ranks keeps the strongest N ranks (7 8 A K Q J T 9 order), four suits each."""
    state = load(num_ranks=num_ranks, hand_size=1).new_initial_state()
    ranks = {state.action_to_string(a)[5] for a, _ in state.chance_outcomes()}
    assert ranks == set(STRENGTH_HIGH_TO_LOW[:num_ranks])
    assert len(state.chance_outcomes()) == 4 * num_ranks


def test_num_ranks_3_hand_plays_out():
    """num_ranks=3 (7 8 A): a 3-card hand plays by LT-5/LT-6 with those ranks."""
    state = start("7c Ac Ad", "8c 8d Ah", num_ranks=3)
    apply_named(state, "Play Ac", "Play Ah", "Play Ad", "Play 8c")  # spoiled, P1
    assert state.returns() == [-1.0, 1.0]


# --- isomorphic mode ----------------------------------------------------------------------

def strip_suit(name):
    """`Play 7s` -> `Play 7`; other strings unchanged."""
    return re.sub(r"\b([2-9TJQKA])[cdhs]\b", r"\1", name)


def ranks_strongest_first(cards):
    return " ".join(sorted((c[0] for c in cards), key=STRENGTH_HIGH_TO_LOW.index))


def rank_uniform_tree(game):
    """Exact expectation of player 0's return and the distribution of suit-free outcomes
    (returns, dealt hands as ranks, public actions without suits) when both players choose
    uniformly among ranks (equal-rank cards share one choice, split evenly) and the other
    actions. Concrete states are memoised on (hands dealt as card sets, player actions)."""
    params = game.get_parameters()
    hand_size, isomorphic = params["hand_size"], params["isomorphic"]
    memo = {}

    def child_result(state, action, key, run):
        """Result of the child reached by `action`, keyed by (key, the open deal as sets)."""
        memo_key = (key, frozenset(run[:hand_size]), frozenset(run[hand_size:]))
        if memo_key not in memo:
            memo[memo_key] = rec(state.child(action), key, run)
        return memo[memo_key]

    def rec(state, key, run):
        if state.is_terminal():
            return state.returns()[0], {(tuple(state.returns()), ()): 1.0}
        value, dist = 0.0, defaultdict(float)
        if state.is_chance_node():
            for action, p in state.chance_outcomes():
                name = state.action_to_string(action)
                if isomorphic:
                    events = (("hand", name[len("Deal "):]),)
                    child = child_result(state, action, key + events, ())
                else:
                    new_run = run + (name.split()[1],)
                    events = ()
                    if len(new_run) in (hand_size, 2 * hand_size):
                        events = (("hand", ranks_strongest_first(new_run[-hand_size:])),)
                    if len(new_run) == 2 * hand_size:
                        child_key = key + (("hands", frozenset(new_run[:hand_size]),
                                            frozenset(new_run[hand_size:])),)
                        child = child_result(state, action, child_key, ())
                    else:
                        child = child_result(state, action, key, new_run)
                value += p * child[0]
                for (returns, suffix), q in child[1].items():
                    dist[(returns, events + suffix)] += p * q
            return value, dict(dist)
        player = state.current_player()
        groups = defaultdict(list)
        for action in state.legal_actions():
            groups[strip_suit(state.action_to_string(action))].append(action)
        for name, actions in groups.items():
            for action in actions:
                p = 1.0 / (len(groups) * len(actions))
                child = child_result(state, action, key + ((player, action),), ())
                value += p * child[0]
                for (returns, suffix), q in child[1].items():
                    dist[(returns, ((player, name),) + suffix)] += p * q
        return value, dict(dist)

    return rec(game.new_initial_state(), (), ())


ISO_VARIANTS = [  # small enough for an exact walk of the concrete tree
    "num_ranks=3,hand_size=1,max_redeals=0",  # all betting rules
    "num_ranks=3,hand_size=1,max_redeals=0,allow_counter_raise=true,alternate_raises=false,"
    "rest_refusal=stake,score0=3",
    "num_ranks=3,hand_size=2,max_redeals=0,target=1,allow_rest=false,allow_fold=false",
    "num_ranks=2,hand_size=1,max_redeals=1,target=2,allow_rest=false",  # with the redeal
]


@pytest.mark.parametrize("params", ISO_VARIANTS)
def test_isomorphic_equals_concrete_under_rank_uniform_policy(params):
    """Isomorphic and concrete modes give the same value and the same suit-free outcome
    distribution under the rank-uniform policy (exact tree expectation)."""
    concrete_value, concrete_dist = rank_uniform_tree(
        pyspiel.load_game(f"python_le_truc({params},isomorphic=false)"))
    iso_value, iso_dist = rank_uniform_tree(
        pyspiel.load_game(f"python_le_truc({params},isomorphic=true)"))
    assert abs(concrete_value - iso_value) < 1e-9
    assert set(concrete_dist) == set(iso_dist)
    for outcome, mass in concrete_dist.items():
        assert abs(mass - iso_dist[outcome]) < 1e-9, outcome
    assert abs(sum(iso_dist.values()) - 1) < 1e-9
    assert len(iso_dist) > 20


def test_isomorphic_chance_outcomes_weighted_by_concrete_deals():
    """Isomorphic deal: whole hands `Deal 7 7 A` (strongest first), exact weights."""
    state = load(isomorphic=True).new_initial_state()
    outcomes = {state.action_to_string(a): p for a, p in state.chance_outcomes()}
    assert len(outcomes) == 120  # multisets of 3 among 8 ranks
    assert abs(sum(outcomes.values()) - 1) < 1e-12
    assert abs(outcomes["Deal 7 7 A"] - 6 * 4 / 4960) < 1e-12
    assert abs(outcomes["Deal 7 8 A"] - 64 / 4960) < 1e-12
    assert abs(outcomes["Deal 9 9 9"] - 4 / 4960) < 1e-12
    apply_named(state, "Deal 7 7 7")
    outcomes = {state.action_to_string(a): p for a, p in state.chance_outcomes()}
    assert abs(outcomes["Deal 7 8 A"] - 1 * 4 * 4 / 3654) < 1e-12  # C(29, 3) = 3654
    assert "Deal 7 7 A" not in outcomes and "Deal 7 7 7" not in outcomes
    assert abs(sum(outcomes.values()) - 1) < 1e-12


def test_isomorphic_card_actions_are_ranks():
    """Isomorphic mode: equal-rank cards are one action `Play 7`."""
    state = play(load(isomorphic=True, max_redeals=0), ["Deal 7 7 A", "Deal 8 K 9"])
    assert sorted(legal(state)) == sorted(["Raise", "Rest", "Fold", "Play 7", "Play A"])
    apply_named(state, "Play 7", "Play 8")
    assert state.returns() == [0.0, 0.0] and not state.is_terminal()
    assert "hand: 7 A" in state.observation_string(0)
    apply_named(state, "Play 7", "Play 9")
    assert state.is_terminal() and state.returns() == [1.0, -1.0]


def iso_counterpart(concrete_game, iso_game, concrete_state, hand_size):
    """The isomorphic state reached by the concrete state's history (hands mapped to ranks,
    card actions mapped by isomorphic_action)."""
    rules = concrete_game.rules
    iso_state = iso_game.new_initial_state()
    probe = concrete_game.new_initial_state()
    run = []
    for action in concrete_state.history():
        if probe.is_chance_node():
            run.append(probe.action_to_string(action).split()[1])
            if len(run) == hand_size:
                apply_named(iso_state, "Deal " + ranks_strongest_first(run))
                run = []
        else:
            mapped = isomorphic_action(rules, action)
            assert iso_state.action_to_string(mapped) == strip_suit(
                probe.action_to_string(action))
            iso_state.apply_action(mapped)
        probe.apply_action(action)
    return iso_state, run


@pytest.mark.parametrize("params", ["", "max_redeals=2,allow_counter_raise=true",
                                    "num_ranks=3,hand_size=2,max_redeals=2"])
def test_isomorphic_information_state_and_action_mapping(params):
    """isomorphic_information_state of a concrete state equals the information state of the
    corresponding isomorphic state; isomorphic_action maps legal actions onto legal actions."""
    sep = "," if params else ""
    concrete_game = pyspiel.load_game(f"python_le_truc({params}{sep}isomorphic=false)")
    iso_game = pyspiel.load_game(f"python_le_truc({params}{sep}isomorphic=true)")
    hand_size = concrete_game.get_parameters()["hand_size"]
    rng = random.Random(3)
    checked = 0
    for _ in range(40):
        state = concrete_game.new_initial_state()
        while True:
            iso_state, run = iso_counterpart(concrete_game, iso_game, state, hand_size)
            if not run:
                for player in (0, 1):
                    assert (isomorphic_information_state(state, player)
                            == iso_state.information_state_string(player))
                    checked += 1
                assert iso_state.current_player() == state.current_player()
                if state.is_terminal():
                    assert iso_state.returns() == state.returns()
                elif not state.is_chance_node():
                    mapped = {isomorphic_action(concrete_game.rules, a)
                              for a in state.legal_actions()}
                    assert mapped == set(iso_state.legal_actions())
            if state.is_terminal():
                break
            state.apply_action(rng.choice(candidates(state)))
    assert checked > 200


def test_isomorphic_action_keeps_betting_actions():
    """isomorphic_action: betting actions unchanged, `Play 7s` -> `Play 7`."""
    concrete, iso = load(), load(isomorphic=True)
    state = play(concrete, deal("7s 8c 9c", "Ac Kc Qc") + ["Keep"])
    iso_state = play(iso, ["Deal 7 8 9", "Deal A K Q", "Keep"])
    for action in state.legal_actions():
        mapped = isomorphic_action(concrete.rules, action)
        assert iso_state.action_to_string(mapped) == strip_suit(state.action_to_string(action))
