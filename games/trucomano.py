"""Trucomano as an OpenSpiel Python game (`python_trucomano`): one-against-one Truco.

The Truco Paulista engine (`games/truco.py`, whose docstring states the rules) with 2 players,
the dirty deck and RULES.md section 3's differences as defaults: every round tied -> nobody
scores (`all_tied`="nobody"); the iron hand is played blind (`iron_hand_blind`=true: nobody sees
the cards, `Play slot 1/2/3` chooses a card by position, no covered cards); raising in a hand of
eleven is not offered (`truco_in_hand_of_11`="illegal"; "forfeit" offers it and taking it loses
the match). The hand of eleven is worth 3 and the side at eleven may still `Run 11`.

Parameters: `target`=12, `score0`=0, `score1`=0, `dealer`=-1 (the last seat, 1), `all_tied`,
`allow_covered`=true, `covered_from_round`=2, `allow_reraise`=true, `alternate_raises`=true,
`raise_cap`="none", `hand_of_11_decision`=true, `iron_hand_blind`, `truco_in_hand_of_11`; size
parameters `hand_size`=3, `num_ranks`=0 (the whole deck), `isomorphic`=false.
"""
import pyspiel

from games import truco

_FIXED = ("num_players", "deck")  # always 2 players, dirty deck
_DEFAULT_PARAMS = {
    **{name: value for name, value in truco.ENGINE_DEFAULTS.items() if name not in _FIXED},
    "all_tied": "nobody",
    "iron_hand_blind": True,
    "truco_in_hand_of_11": "illegal",
}

_GAME_TYPE = truco.make_game_type("python_trucomano", "Python Trucomano", _DEFAULT_PARAMS,
                                  max_players=2)


class TrucomanoGame(truco.TrucoGame):
    """One hand of Trucomano (rules in `games/truco.py`)."""

    GAME_TYPE = _GAME_TYPE
    DEFAULTS = _DEFAULT_PARAMS


pyspiel.register_game(_GAME_TYPE, TrucomanoGame)
