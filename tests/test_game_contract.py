"""The OpenSpiel contract every game keeps, checked on each game's presets:
`pyspiel.random_sim_test`, game string and pickle round trips, state round trips (clone,
serialization, pickle) at every point of play, independent clones, illegal actions raising a
clear error and leaving the state unchanged, zero-sum returns within the bounds, and bad
parameter values named in one-line errors. Each game's rules are tested in its own module.
"""
import pickle
import random
import re

import pyspiel
import pytest

import games  # noqa: F401  (registers the games)
from conftest import candidates, random_playout

PRESETS = {
    "python_le_truc": [
        "python_le_truc",
        "python_le_truc(stake_ladder=plus_two)",
        "python_le_truc(stake_ladder=doubling,target=16)",
        "python_le_truc(stake_ladder=1:3:5:12,allow_counter_raise=true)",
        "python_le_truc(allow_counter_raise=true,alternate_raises=false)",
        "python_le_truc(rest_refusal=stake,score0=5,score1=9)",
        "python_le_truc(allow_fold=false,allow_rest=false)",
        "python_le_truc(max_redeals=0,dealer=0)",
        "python_le_truc(num_ranks=3,hand_size=2,max_redeals=2)",
        "python_le_truc(num_ranks=1,hand_size=1,target=5)",
        "python_le_truc(isomorphic=true)",
        "python_le_truc(isomorphic=true,num_ranks=4,hand_size=2,max_redeals=2,"
        "allow_counter_raise=true)",
    ],
    "python_truco_paulista": [
        "python_truco_paulista",
        "python_truco_paulista(deck=clean)",
        "python_truco_paulista(num_players=4)",
        "python_truco_paulista(num_players=4,score0=11,score1=3)",
        "python_truco_paulista(score0=11,score1=7)",
        "python_truco_paulista(score0=11,score1=11)",
        "python_truco_paulista(score0=11,score1=11,iron_hand_blind=true)",
        "python_truco_paulista(all_tied=nobody,hand_size=2)",
        "python_truco_paulista(all_tied=mao,deck=clean,hand_size=1)",
        "python_truco_paulista(raise_cap=pagat,score0=9,score1=4)",
        "python_truco_paulista(raise_cap=needed,score0=9,score1=4)",
        "python_truco_paulista(alternate_raises=false,allow_reraise=false,covered_from_round=1)",
        "python_truco_paulista(isomorphic=true)",
        "python_truco_paulista(isomorphic=true,deck=clean)",
        "python_truco_paulista(isomorphic=true,num_players=4,score1=11)",
    ],
    "python_trucomano": [
        "python_trucomano",
        "python_trucomano(score0=11,score1=11)",
        "python_trucomano(score0=11,score1=7,truco_in_hand_of_11=forfeit)",
        "python_trucomano(score0=4,score1=11,hand_of_11_decision=false)",
        "python_trucomano(all_tied=dealer,raise_cap=needed,score0=7,score1=2)",
        "python_trucomano(score0=11,score1=11,isomorphic=true)",
        "python_trucomano(isomorphic=true,hand_size=2)",
    ],
    "python_two_ten_jack": [
        "python_two_ten_jack",
        "python_two_ten_jack(dealer=0,score0=-12,score1=40)",
        "python_two_ten_jack(ranks=2:T:J:A,hand_size=2)",
        "python_two_ten_jack(ranks=2:3:T:J:Q:A,hand_size=12)",
        "python_two_ten_jack(ranks=2:T:J:A,hand_size=1)",
        "python_two_ten_jack(suits=h:s,ranks=2:T:J:A,hand_size=2)",
        "python_two_ten_jack(suits=c:h:s,ranks=2:T:J:A,hand_size=3)",
    ],
}
ALL_PRESETS = [preset for presets in PRESETS.values() for preset in presets]

# What each game's error says for an illegal action: an unavailable action at a player's turn,
# an action id outside the game's actions there, an impossible chance outcome, any action once
# the hand is over.
TRUCO_ERRORS = ("is not legal", "is out of range", "is not possible", "the hand is over")
ILLEGAL_ACTION_ERRORS = {
    "python_le_truc": ("is not legal", "is not legal", "is not possible", "the hand is over"),
    "python_truco_paulista": TRUCO_ERRORS,
    "python_trucomano": TRUCO_ERRORS,
    "python_two_ten_jack": ("illegal action", "illegal action", "illegal chance outcome",
                            "illegal action"),
}


def short_name(game_string):
    """`python_le_truc(num_ranks=3)` -> `python_le_truc`."""
    return game_string.split("(")[0]


def views(state):
    """Everything a state shows: its string, history, player, returns, actions or outcomes,
    and every player's information state and observation (strings and tensors)."""
    game_type = state.get_game().get_type()
    shown = [str(state), state.history(), state.current_player(), state.is_terminal(),
             state.returns()]
    if not state.is_terminal():
        shown.append(state.chance_outcomes() if state.is_chance_node() else
                     state.legal_actions())
    for player in range(state.get_game().num_players()):
        shown += [state.information_state_string(player), state.observation_string(player)]
        if game_type.provides_information_state_tensor:
            shown.append(state.information_state_tensor(player))
        if game_type.provides_observation_tensor:
            shown.append(state.observation_tensor(player))
    return shown


def test_every_game_has_presets():
    """Every game the `games` package registers is checked here, under its own name."""
    registered = {name for name in pyspiel.registered_names() if name.startswith("python_")
                  and type(pyspiel.load_game(name)).__module__.startswith("games.")}
    assert registered == set(PRESETS)
    assert all(short_name(preset) == name for name, presets in PRESETS.items()
               for preset in presets)


@pytest.mark.parametrize("game_string", ALL_PRESETS)
def test_random_sim_test(game_string):
    # Le Truc's hands are short: more simulations in the same time
    num_sims = 20 if short_name(game_string) == "python_le_truc" else 3
    pyspiel.random_sim_test(pyspiel.load_game(game_string), num_sims=num_sims, serialize=True,
                            verbose=False)


@pytest.mark.parametrize("game_string", ALL_PRESETS)
def test_game_string_and_pickle_round_trips(game_string):
    """Every game survives load_game(str(game)) (colon-separated lists included) and pickle."""
    game = pyspiel.load_game(game_string)
    for copy in (pyspiel.load_game(str(game)), pickle.loads(pickle.dumps(game))):
        assert str(copy) == str(game)
        assert copy.get_parameters() == game.get_parameters()


@pytest.mark.parametrize("game_string", ALL_PRESETS)
def test_state_round_trips_at_every_point_of_play(game_string):
    """Clone, serialize_game_and_state and pickle reproduce every view of the state at every
    point of random hands (whole hands, at least 60 points of play); at every point of the
    first hand a clone played to the end leaves the state alone, and the next action on the
    state leaves a clone alone."""
    game = pyspiel.load_game(game_string)
    rng, clone_rng = random.Random(7), random.Random(8)
    points = hands = 0
    while points < 60:
        state = game.new_initial_state()
        hands += 1
        while True:
            points += 1
            shown = views(state)
            restored_game, restored = pyspiel.deserialize_game_and_state(
                pyspiel.serialize_game_and_state(game, state))
            assert str(restored_game) == str(game)
            for copy in (state.clone(), restored, pickle.loads(pickle.dumps(state))):
                assert views(copy) == shown
            if hands == 1:
                random_playout(state.clone(), clone_rng)
                assert views(state) == shown
            if state.is_terminal():
                break
            kept = state.clone()
            state.apply_action(int(rng.choice(candidates(state))))
            if hands == 1:
                assert views(kept) == shown


@pytest.mark.parametrize("game_string", ALL_PRESETS)
def test_illegal_actions_raise_and_leave_the_state_unchanged(game_string):
    """At every point of a random hand, unavailable action ids (every one at a player's turn,
    some at chance nodes, ids out of range everywhere; -1 is OpenSpiel's own `kInvalidAction`)
    raise a one-line ValueError naming the action, and the state shows exactly what it showed
    before."""
    game = pyspiel.load_game(game_string)
    unavailable, out_of_range, impossible, over = ILLEGAL_ACTION_ERRORS[short_name(game_string)]
    num_actions, num_outcomes = game.num_distinct_actions(), game.max_chance_outcomes()
    state = game.new_initial_state()
    rng = random.Random(3)
    while True:
        before = views(state)
        if state.is_terminal():
            tried = [(action, over) for action in (-3, 0, 1, num_actions - 1, 200, 999)]
        elif state.is_chance_node():
            unseen = sorted(set(range(num_outcomes)) - set(candidates(state)))
            tried = [(action, impossible) for action in rng.sample(unseen, min(8, len(unseen)))
                     + [-3, num_outcomes, num_outcomes + 200]]
        else:
            tried = [(action, unavailable if 0 <= action < num_actions else out_of_range)
                     for action in (-3, *range(num_actions + 1), num_actions + 200)
                     if action not in state.legal_actions()]
        for action, expected in tried:
            with pytest.raises(ValueError, match=expected) as error:
                state.apply_action(action)
            message = str(error.value)
            assert re.search(rf"(?<![\d-]){action}(?!\d)", message) and "\n" not in message
            if state.is_terminal():
                assert "Deal" not in message and "chance" not in message
            assert [str(state), state.history()] == before[:2]
        assert views(state) == before
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(candidates(state))))


@pytest.mark.parametrize("game_string", ALL_PRESETS)
def test_returns_are_zero_sum_within_the_bounds(game_string):
    """Returns have one entry per player from 0, sum to zero, stay within the utility bounds,
    and player 0 does score in some hands."""
    game = pyspiel.load_game(game_string)
    rng = random.Random(5)
    scored = False
    for _ in range(20):
        returns = random_playout(game.new_initial_state(), rng).returns()
        assert len(returns) == game.num_players()
        assert sum(returns) == 0
        assert all(game.min_utility() <= value <= game.max_utility() for value in returns)
        scored |= returns[0] != 0
    assert scored


# (game, parameters, what the error must say): it names the parameter and what is allowed.
BAD_PARAMETERS = [
    ("python_le_truc", {"stake_ladder": "fancy"}, "stake_ladder.*seed, plus_two, doubling"),
    ("python_le_truc", {"stake_ladder": "1:3:3:12"}, "stake_ladder.*increase strictly"),
    ("python_le_truc", {"stake_ladder": "1:5:3:12"}, "stake_ladder.*increase strictly"),
    ("python_le_truc", {"stake_ladder": "1:3:5:14"}, "stake_ladder.*target=12"),
    ("python_le_truc", {"stake_ladder": "2:3:12"}, "stake_ladder.*start at 1"),
    ("python_le_truc", {"stake_ladder": "1:x:12"}, "stake_ladder.*colon-separated"),
    ("python_le_truc", {"stake_ladder": "1:2:13"}, "stake_ladder"),
    ("python_le_truc", {"hand_size": 0}, r"hand_size.*1\.\.3"),
    ("python_le_truc", {"hand_size": 4}, r"hand_size.*1\.\.3"),
    ("python_le_truc", {"num_ranks": 0}, r"num_ranks.*1\.\.8"),
    ("python_le_truc", {"num_ranks": 9}, r"num_ranks.*1\.\.8"),
    ("python_le_truc", {"score0": 12}, "score0.*target"),
    ("python_le_truc", {"score1": 15, "target": 15}, "score1.*target"),
    ("python_le_truc", {"score0": -1}, "score0.*0 <="),
    ("python_le_truc", {"rest_refusal": "maybe"}, "rest_refusal.*match or stake"),
    ("python_le_truc", {"dealer": 2}, "dealer.*0 or 1"),
    ("python_le_truc", {"max_redeals": -1}, "max_redeals.*>= 0"),
    ("python_le_truc", {"num_ranks": 1, "hand_size": 3}, "hand_size.*num_ranks=1"),
    *[("python_truco_paulista", {name: value}, f"{name}=.*not allowed: ")
      for name, value in [("num_players", 3), ("deck", "short"), ("all_tied", "both"),
                          ("raise_cap", "twelve"), ("hand_size", 4), ("dealer", 2),
                          ("score0", 12), ("num_ranks", 1), ("covered_from_round", 0)]],
    ("python_trucomano", {"truco_in_hand_of_11": "never"},
     "truco_in_hand_of_11='never' is not allowed: illegal"),
    ("python_two_ten_jack", {"ranks": "2:T:J"}, "A"),
    ("python_two_ten_jack", {"ranks": "3:T:J:A"}, "2"),
    ("python_two_ten_jack", {"ranks": "2:T:J:A:Z"}, "ranks"),
    ("python_two_ten_jack", {"ranks": "2:T:T:J:A"}, "ranks"),
    ("python_two_ten_jack", {"hand_size": 0}, "hand_size"),
    ("python_two_ten_jack", {"hand_size": 27}, "hand_size"),
    ("python_two_ten_jack", {"ranks": "2:T:J:A", "hand_size": 9}, "hand_size"),
    ("python_two_ten_jack", {"dealer": 2}, "dealer"),
    ("python_two_ten_jack", {"target": 0}, "target"),
    ("python_two_ten_jack", {"suits": "c:d:h"}, "suits='c:d:h' must keep h and s .*missing s"),
    ("python_two_ten_jack", {"suits": "d:s"}, "suits='d:s' must keep h and s .*missing h"),
    ("python_two_ten_jack", {"suits": "h:s:x"},
     "suits='h:s:x' is not allowed: give distinct suits from c d h s"),
    ("python_two_ten_jack", {"suits": "h:s:h"},
     "suits='h:s:h' is not allowed: give distinct suits from c d h s"),
    ("python_two_ten_jack", {"suits": "hs"}, "suits='hs' is not allowed"),
]


@pytest.mark.parametrize("name,params,message", BAD_PARAMETERS)
def test_bad_parameter_values_raise_one_line_value_errors(name, params, message):
    """A bad value raises ValueError naming the parameter and the allowed values, whether the
    parameters are given as a dict or in the game string."""
    game_string = f"{name}({','.join(f'{key}={value}' for key, value in params.items())})"
    for load in (lambda: pyspiel.load_game(name, params), lambda: pyspiel.load_game(game_string)):
        with pytest.raises(ValueError, match=message) as error:
            load()
        assert "\n" not in str(error.value)


@pytest.mark.parametrize("name", PRESETS)
def test_unknown_parameter_names_are_openspiel_errors(name):
    with pytest.raises(pyspiel.SpielError, match="no_such_parameter"):
        pyspiel.load_game(name, {"no_such_parameter": 1})
