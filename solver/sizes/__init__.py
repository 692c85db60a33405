"""Game-tree sizes of every game: exact where a count finishes, else an estimate with its 95%
half-width, as one `TreeSize` whose `method` and `half_widths` say which figure is which.

`measure(game, samples, seed)` picks the method (the automatic rule):

* `python_le_truc`: exact dynamic programming over the public-state machine
  (`solver.sizes.le_truc`); `samples` does not apply.
* `python_truco_paulista` and `python_trucomano` with two players and seen cards: exact dynamic
  programming (`solver.sizes.truco`; under a minute even for the full concrete game); with
  `samples` N, a sampled estimate from N deal classes and N roots per player instead.
* any other game (Two-Ten-Jack, four-player or blind Truco, OpenSpiel's games): a pilot of
  `PILOT_WALKS` Knuth walks (D. E. Knuth, "Estimating the efficiency of backtrack programs",
  1975; `solver.sizes.knuth`); if the upper end of its 95% interval is at
  most `TRAVERSAL_LIMIT` histories, brute-force traversal (`solver.sizes.traversal`: exact,
  information states included); otherwise, or whenever `samples` is given, Knuth's estimate
  over `samples` (default `DEFAULT_WALKS`) walks, without information states. Two-Ten-Jack
  results also carry their exact chance sequences and first-lead information states
  (`solver.sizes.two_ten_jack`).

`public_sizes(game)` (`solver.sizes.truco_public`) measures something else: the public tree a
public-tree CFR engine would hold for two-player isomorphic Truco, per vira class.
"""
from __future__ import annotations

import dataclasses

import pyspiel

from solver.sizes.common import TreeSize, check_samples
from solver.sizes.knuth import knuth_estimate, knuth_walk
from solver.sizes.le_truc import LE_TRUC, le_truc_sizes
from solver.sizes.traversal import count_by_traversal
from solver.sizes.truco import counts_truco, truco_sizes
from solver.sizes.truco_public import PublicSizes, ViraSizes, public_sizes
from solver.sizes.two_ten_jack import TWO_TEN_JACK, two_ten_jack_extras

__all__ = ["ALL_EXTRA_GAMES", "DEFAULT_GAMES", "DEFAULT_WALKS", "LE_TRUC", "PILOT_WALKS",
           "PublicSizes", "TRAVERSAL_LIMIT", "TreeSize", "ViraSizes", "check_samples",
           "count_by_traversal", "knuth_estimate", "knuth_walk", "le_truc_sizes", "measure",
           "public_sizes", "truco_sizes"]

DEFAULT_GAMES = (
    "python_le_truc(num_ranks=4,hand_size=2)",
    "python_le_truc(num_ranks=4,hand_size=2,isomorphic=true)",
    "python_le_truc(isomorphic=true,max_redeals=0)",
)
ALL_EXTRA_GAMES = (
    "python_le_truc",
    "python_le_truc(isomorphic=true)",
)
PILOT_WALKS = 200
TRAVERSAL_LIMIT = 1_000_000  # histories: about a minute of brute force
DEFAULT_WALKS = 10_000


def measure(game: pyspiel.Game, samples: int | None = None, seed: int = 0,
            infosets: bool = True, progress: bool = False) -> TreeSize:
    """Sizes of `game` by the automatic rule (module docstring); `samples` asks for an
    estimate, `seed` seeds its random choices, `infosets=False` skips the information states
    of the dynamic programs, `progress` shows tqdm bars on stderr."""
    check_samples(samples)
    name = game.get_type().short_name
    if name == LE_TRUC:
        return le_truc_sizes(game, infosets, progress)
    if counts_truco(game):
        return truco_sizes(game, samples, seed, infosets, progress)
    size = _traversal_or_knuth(game, samples, seed, progress)
    if name == TWO_TEN_JACK:
        size = dataclasses.replace(size, extras=two_ten_jack_extras(game))
    return size


def _traversal_or_knuth(game: pyspiel.Game, samples: int | None, seed: int,
                        progress: bool) -> TreeSize:
    """Brute force if a Knuth pilot finds the game small, else (or when asked) Knuth walks."""
    if samples is None:
        pilot = knuth_estimate(game, PILOT_WALKS, seed)
        if pilot.histories + pilot.half_widths["histories"] <= TRAVERSAL_LIMIT:
            return count_by_traversal(game, progress)
    return knuth_estimate(game, samples or DEFAULT_WALKS, seed, progress)
