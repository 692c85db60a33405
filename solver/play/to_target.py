"""Whole Two-Ten-Jack matches (games/RULES.md TTJ-1): deals in sequence from given scores until
a player reaches the target, to measure play for the match rather than for a deal.

`match_duel(game_string, spec_a, spec_b, starts, seed)` plays, from each start (scores and
dealer), the match to its end twice with the seats swapped, the deals of both runs from the same
shuffles (one per deal, as `solver.play.match` does for single deals). A start's figure is bot
A's mean number of matches won over its two runs (1, 1/2 or 0); the summary is their mean with
a 95% confidence interval, `share_interval`: the Agresti-Coull interval (A. Agresti and B. A.
Coull, "Approximate is better than 'exact' for interval estimation of binomial proportions",
The American Statistician 52(2), 1998) with the sample variance of the shares in place of the
binomial one, so that a sample in which every start scores the same still gets an interval.
Each deal is a game of `game_string` with the match's scores and dealer as its parameters, and
its bots are made afresh (seeded by the start's seed sequence), as in a single-deal match.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pyspiel

from games.two_ten_jack import match_result
from solver.play.bots import make_bot
from solver.play.match import Z_95, play_game

MAX_DEALS = 50  # a match this long is stopped and scored as a draw (1/2 each)


@dataclasses.dataclass(frozen=True)
class MatchStart:
    """Scores before a deal and its dealer."""

    score0: int
    score1: int
    dealer: int


@dataclasses.dataclass(frozen=True)
class DuelSummary:
    """Bot A's share of the matches won against bot B from `starts` starts."""

    game: str
    bot_a: str
    bot_b: str
    starts: int
    seed: int
    mean: float
    ci_low: float
    ci_high: float
    start_wins: tuple[float, ...]


def near_end_starts(count: int, seed: int, low: int = 15, high: int = 30) -> list[MatchStart]:
    """`count` starts with both scores uniform in low..high and a uniform dealer."""
    rng = np.random.default_rng(seed)
    return [MatchStart(int(rng.integers(low, high + 1)), int(rng.integers(low, high + 1)),
                       int(rng.integers(2))) for _ in range(count)]


def share_interval(shares) -> tuple[float, float, float]:
    """Mean of per-start shares in [0, 1] and a 95% confidence interval for it.

    Agresti-Coull: z²/2 pseudo-starts scoring 1 and z²/2 scoring 0 join the sample, and the
    interval is the joined sample's mean ± z times its standard error (its variance taken
    about that mean, divided by the joined count), clipped to [0, 1]. For shares of 0 and 1
    only this is Agresti and Coull's interval for a binomial proportion.
    """
    shares = np.asarray(shares, dtype=float)
    pseudo = Z_95 ** 2 / 2.0
    count = len(shares) + 2.0 * pseudo
    centre = (float(shares.sum()) + pseudo) / count
    squares = float(((shares - centre) ** 2).sum()) + pseudo * ((1.0 - centre) ** 2 + centre ** 2)
    half_width = Z_95 * math.sqrt(squares / count / count)
    return float(shares.mean()), max(0.0, centre - half_width), min(1.0, centre + half_width)


def play_to_target(game_string: str, start: MatchStart, specs, seeds,
                   shuffles) -> int | None:
    """The winner (seat) of the match from `start`, `specs[p]` in seat p, deal k's bots seeded
    `seeds[k][p]` and its cards from `shuffles[k]`; None after MAX_DEALS deals."""
    score0, score1, dealer = start.score0, start.score1, start.dealer
    for k in range(MAX_DEALS):
        game = pyspiel.load_game(game_string, {"score0": score0, "score1": score1,
                                               "dealer": dealer})
        bots = [make_bot(spec, game, seed) for spec, seed in zip(specs, seeds[k])]
        state = play_game(game, bots, shuffles[k])
        result = match_result(state)
        if result.winner is not None:
            return result.winner
        score0, score1, dealer = result.score0, result.score1, result.next_dealer
    return None


def match_duel(game_string: str, spec_a: str, spec_b: str, starts: list[MatchStart],
               seed: int) -> DuelSummary:
    """Bot A against bot B from every start, both seatings (see the module docstring)."""
    if not starts:
        raise ValueError("no starts: a duel needs at least one")
    num_cards = pyspiel.load_game(game_string).max_chance_outcomes()
    wins = []
    for start, start_seed in zip(starts, np.random.SeedSequence(seed).spawn(len(starts))):
        deal_seeds = start_seed.spawn(MAX_DEALS)
        shuffles = [np.random.default_rng(s.spawn(1)[0]).permutation(num_cards)
                    for s in deal_seeds]
        seeds = [[int(x) for x in s.generate_state(2)] for s in deal_seeds]
        a_first = play_to_target(game_string, start, [spec_a, spec_b], seeds, shuffles)
        a_second = play_to_target(game_string, start, [spec_b, spec_a],
                                  [pair[::-1] for pair in seeds], shuffles)
        score = sum(0.5 if w is None else float(w == seat)
                    for w, seat in ((a_first, 0), (a_second, 1)))
        wins.append(score / 2.0)
    return DuelSummary(game_string, spec_a, spec_b, len(starts), seed,
                       *share_interval(wins), tuple(wins))
