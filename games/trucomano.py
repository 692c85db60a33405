"""Trucomano as an OpenSpiel Python game (`python_trucomano`): one-against-one Truco.

The engine is `games/truco.py`, fixed at 2 players and the dirty deck; this module declares
Trucomano's defaults (`all_tied`="nobody", `iron_hand_blind`=true, `truco_in_hand_of_11`).
Rules and parameters: games/RULES.md, section 3 (ids TM-1..TM-5, on top of section 2).
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
    """One hand of Trucomano (rules: games/RULES.md, section 3)."""

    GAME_TYPE = _GAME_TYPE
    DEFAULTS = _DEFAULT_PARAMS


pyspiel.register_game(_GAME_TYPE, TrucomanoGame)
