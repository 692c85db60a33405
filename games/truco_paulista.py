"""Truco Paulista as an OpenSpiel Python game (`python_truco_paulista`): one hand, 2 or 4 players.

The engine is `games/truco.py`; this module declares the Paulista defaults: every engine
parameter but `truco_in_hand_of_11` (a hand of eleven never offers a raise).
Rules and parameters: games/RULES.md, section 2 (ids TP-1..TP-13).
"""
import pyspiel

from games import truco

_DEFAULT_PARAMS = {name: value for name, value in truco.ENGINE_DEFAULTS.items()
                   if name != "truco_in_hand_of_11"}

_GAME_TYPE = truco.make_game_type("python_truco_paulista", "Python Truco Paulista",
                                  _DEFAULT_PARAMS, max_players=4)


class TrucoPaulistaGame(truco.TrucoGame):
    """One hand of Truco Paulista (rules: games/RULES.md, section 2)."""

    GAME_TYPE = _GAME_TYPE
    DEFAULTS = _DEFAULT_PARAMS


pyspiel.register_game(_GAME_TYPE, TrucoPaulistaGame)
