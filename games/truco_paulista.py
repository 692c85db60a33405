"""Truco Paulista as an OpenSpiel Python game (`python_truco_paulista`): one hand, 2 or 4 players.

The rules, the strength scale, chance and information live in `games/truco.py` (its docstring
states them all); this module declares the Paulista defaults (RULES.md section 2):

`num_players`=2 (4: two partnerships), `deck`="dirty" (40 cards; "clean": 24), `target`=12,
`score0`=0, `score1`=0, `dealer`=-1 (the last seat: 1 with 2 players, 3 with 4, so seat 0 is
the mão), `all_tied`="dealer" (every round tied: the dealer's side scores; "nobody", "mao"),
`allow_covered`=true, `covered_from_round`=2, `allow_reraise`=true, `alternate_raises`=true,
`raise_cap`="none" ("pagat", "needed"), `hand_of_11_decision`=true, `iron_hand_blind`=false.
Raising in a hand of eleven is never offered. Size parameters: `hand_size`=3, `num_ranks`=0
(the whole deck), `isomorphic`=false.
"""
import pyspiel

from games import truco

_DEFAULT_PARAMS = {name: value for name, value in truco.ENGINE_DEFAULTS.items()
                   if name != "truco_in_hand_of_11"}

_GAME_TYPE = truco.make_game_type("python_truco_paulista", "Python Truco Paulista",
                                  _DEFAULT_PARAMS, max_players=4)


class TrucoPaulistaGame(truco.TrucoGame):
    """One hand of Truco Paulista (rules in `games/truco.py`)."""

    GAME_TYPE = _GAME_TYPE
    DEFAULTS = _DEFAULT_PARAMS


pyspiel.register_game(_GAME_TYPE, TrucoPaulistaGame)
