"""Exact figures of Two-Ten-Jack (`python_two_ten_jack`) that need no walk of the tree.

Chance deals and draws every card one at a time, uniformly from the cards not dealt yet, and a
deal ends only once every card is played, so its chance sequences are the num_cards! orders of
the deck. The first leader's information states at his first decision are his possible hands,
C(num_cards, hand_size). The tree itself is traversed if small, else estimated by Knuth walks
(Knuth 1975, `solver.sizes.knuth`), as `solver.sizes.measure` decides.
"""
from __future__ import annotations

import math

import pyspiel

TWO_TEN_JACK = "python_two_ten_jack"


def two_ten_jack_extras(game: pyspiel.Game) -> dict[str, int]:
    """{"chance sequences": num_cards!, "infosets at the first lead": C(num_cards, hand_size)}."""
    rules = game.rules
    return {"chance sequences": math.factorial(rules.num_cards),
            "infosets at the first lead": math.comb(rules.num_cards, rules.hand_size)}
