"""Match odds in Two-Ten-Jack (games/RULES.md, TTJ-1): the probability of winning the match
from given scores, and what a deal's outcome is worth for the match, so that a player can play
for the match near its end rather than for the deal's points.

Model: deals are independent; the non-dealer's points in a deal are a discretised normal
variable (`NON_DEALER_MEAN`, `NON_DEALER_SD`: 2.4 and 6.0, the mean and standard deviation of
the non-dealer's points over 2,000 deals of the heuristic bot against itself on the full deck,
whose pack is worth +5), bounded by the pack's most and least a player can win; the dealer wins
the rest of the pack (`pack` points in all), and the deal alternates. With W(s0, s1, d) player 0's
probability of winning the match from scores (s0, s1) before a deal dealt by d,

    W(s0, s1, d) = sum over p of q(p) * V(s0 + p0, s1 + p1, 1 - d),

(p0, p1) the non-dealer's p and the dealer's pack - p placed by seat, V = 1 or 0 once a player
has won (`games.two_ten_jack.match_winner`), else W. Solved by value iteration on the scores
`lowest`..target - 1 (a lower score counts as `lowest`); a tie at or above the target, which
plays another deal, counts 1/2. This is the standard backward induction over match scores
(as for doubling-cube and match-equity tables in backgammon), with a cruder deal model.

`MatchOdds.deal_value(points0, points1)` is then player 0's match-winning probability after a
deal ending with these points, for fractional points too (linear interpolation): a
monotone function of the deal's point difference (the pack's worth is fixed), so it may
replace that difference in a search's evaluation of a deal's end.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from games.two_ten_jack import match_winner

NON_DEALER_MEAN = 2.4
NON_DEALER_SD = 6.0
DEFAULT_LOWEST = -60
_TOLERANCE = 1e-10
_MAX_SWEEPS = 10_000


class MatchOdds:
    """Match-winning probabilities of a match to `target` whose deals are worth `pack` points,
    from every score in `lowest`..target - 1 (see the module docstring)."""

    def __init__(self, target: int, pack: int, min_points: int, max_points: int,
                 mean: float = NON_DEALER_MEAN, sd: float = NON_DEALER_SD,
                 lowest: int = DEFAULT_LOWEST):
        """`min_points`..`max_points`: the least and most a player can win in a deal."""
        if target < 1 or lowest >= target or sd <= 0 or min_points > max_points:
            raise ValueError(f"bad match model: target={target}, lowest={lowest}, sd={sd}, "
                             f"points {min_points}..{max_points}")
        self.target, self.pack, self.lowest = target, pack, lowest
        self.min_points, self.max_points = min_points, max_points
        points = np.arange(min_points, max_points + 1, dtype=np.int64)
        density = np.exp(-0.5 * ((points - mean) / sd) ** 2)
        self.outcomes = points
        self.probabilities = density / density.sum()
        self.table = self._solve()

    @staticmethod
    def parameters_of(game) -> tuple[int, int, int, int]:
        """(target, pack, min_points, max_points) of a `python_two_ten_jack` game: the match's
        target, the pack's worth, and the least and most a player can win in a deal."""
        rules = game.rules
        values = [rules.points(card) for card in range(rules.num_cards)]
        return (rules.target, sum(values), sum(v for v in values if v < 0),
                sum(v for v in values if v > 0))

    @classmethod
    def for_game(cls, game, **model) -> MatchOdds:
        """The odds of the match that a `python_two_ten_jack` game's parameters set."""
        return cls(*cls.parameters_of(game), **model)

    def _index(self, score: int) -> int:
        """Grid index of a score below the target."""
        return max(score, self.lowest) - self.lowest

    def _solve(self) -> np.ndarray:
        """float64 [size, size, 2]: W(s0, s1, dealer), by value iteration."""
        size = self.target - self.lowest
        table = np.full((size, size, 2), 0.5)
        sweeps = _value_iteration(table, self.lowest, self.target, self.pack, self.outcomes,
                                  self.probabilities, _TOLERANCE, _MAX_SWEEPS)
        if sweeps < 0:
            raise RuntimeError("match odds did not converge")
        return table

    def _after(self, score0: int, score1: int, dealer: int, table) -> float:
        """Player 0's match odds at scores reached after a deal, the next one dealt by
        `dealer`."""
        winner = match_winner(score0, score1, self.target)
        if winner is not None:
            return 1.0 - winner
        if score0 >= self.target or score1 >= self.target:
            return 0.5  # a tie above the target: another deal, about even
        return table[self._index(score0), self._index(score1), dealer]

    def win_probability(self, score0: int, score1: int, dealer: int) -> float:
        """Player 0's probability of winning the match before a deal dealt by `dealer`."""
        return self._after(score0, score1, dealer, self.table)

    def deal_value(self, score0: int, score1: int, dealer: int, points0: float) -> float:
        """Player 0's match odds after the deal dealt by `dealer` from scores (score0, score1)
        in which he wins `points0` points (the opponent the rest of the pack), interpolated
        linearly between whole points."""
        low = math.floor(points0)
        fraction = points0 - low
        value = self._after(score0 + low, score1 + self.pack - low, 1 - dealer, self.table)
        if fraction == 0.0:
            return value
        high = self._after(score0 + low + 1, score1 + self.pack - low - 1, 1 - dealer,
                           self.table)
        return (1.0 - fraction) * value + fraction * high


@njit(cache=True)
def _value_iteration(table, lowest, target, pack, outcomes, probabilities, tolerance,
                     max_sweeps):
    """Gauss-Seidel sweeps of W = E[V after the deal] over `table` float64 [size, size, 2]
    (scores lowest..target - 1, the dealer) until the largest change is below `tolerance`;
    returns the number of sweeps, -1 without convergence. `outcomes` int64 [k]: the
    non-dealer's points, `probabilities` float64 [k]."""
    size = table.shape[0]
    for sweep in range(max_sweeps):
        change = 0.0
        for dealer in range(2):
            for i in range(size):
                for j in range(size):
                    total = 0.0
                    for k in range(outcomes.shape[0]):
                        non_dealer = outcomes[k]
                        if dealer == 0:
                            score0 = lowest + i + pack - non_dealer
                            score1 = lowest + j + non_dealer
                        else:
                            score0 = lowest + i + non_dealer
                            score1 = lowest + j + pack - non_dealer
                        over0 = score0 >= target
                        over1 = score1 >= target
                        if over0 or over1:
                            if over0 and over1:
                                value = 0.5 if score0 == score1 else (
                                    1.0 if score0 > score1 else 0.0)
                            else:
                                value = 1.0 if over0 else 0.0
                        else:
                            value = table[max(score0, lowest) - lowest,
                                          max(score1, lowest) - lowest, 1 - dealer]
                        total += probabilities[k] * value
                    change = max(change, abs(total - table[i, j, dealer]))
                    table[i, j, dealer] = total
        if change < tolerance:
            return sweep + 1
    return -1
