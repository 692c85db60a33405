"""Games by name: `load_game` turns a game string into a `pyspiel.Game`, with tricksolver's
Python games (`games/`) registered first."""
from __future__ import annotations

import pyspiel


def load_game(game: pyspiel.Game | str) -> pyspiel.Game:
    """`game` itself, or the game its string names (our Python games are registered first)."""
    if not isinstance(game, str):
        return game
    import games  # noqa: F401  (registers the python_* games)
    return pyspiel.load_game(game)
