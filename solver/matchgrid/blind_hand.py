"""Truco's blind iron hand (Trucomano, games/RULES.md TM-3), solved exactly as a chance game.

In a blind iron hand nobody sees a card, nobody may raise and nobody may cover: every action is
the choice of a slot whose card no one knows. Whatever the strategies, each player's cards
therefore come out in a uniformly random order, so no strategy profile changes the
distribution of the outcome: every pair of strategies is an equilibrium, and the hand's value
for any terminal utilities is their expectation over the deal. (The public-tree engine has no
private information to work with here, and the history tree of the full hand holds about 4.8e9
histories: `tricksolver sizes 'python_trucomano(isomorphic=true,score0=11,score1=11)'`.)

Round k is decided by the two players' k-th cards alone (the higher strength wins, equal
strengths tie: TP-5, TP-8), so the outcome is a function of the `hand_size` comparisons; it is
read off the game's own public-state machine (`games.truco.PublicState`: who leads, the tie
rules, `all_tied`), one run per comparison pattern. The patterns' probabilities, per vira class
(weight 1/num_ranks), come from drawing player 0's ordered hand and then player 1's without
replacement from the strength classes' card counts (`Rules.class_counts(vira)`), summed exactly
in one pass over the class sequences. Tests pin the outcome distribution to the history tree's
on reduced variants (`tests/test_blind_hand.py`).
"""
from __future__ import annotations

import functools
import itertools
import time

import numpy as np
from numba import njit

from solver.matchgrid.engine import HandSolution
from solver.registry import load_game

PLAYER0_HIGHER, TIED, PLAYER1_HIGHER = 0, 1, 2  # a round's comparison


def is_blind_hand(game) -> bool:
    """Whether `game` is a Truco hand played blind (Trucomano's iron hand)."""
    return bool(getattr(getattr(game, "rules", None), "blind", False))


@functools.lru_cache(maxsize=16)
def outcome_probabilities(game_string: str) -> dict[float, float]:
    """{player 0's points: probability} of the blind hand `game_string` (the same under every
    strategy pair: module docstring)."""
    game = load_game(game_string)
    rules = game.rules
    rounds = rules.hand_size
    patterns = sum(pattern_probabilities(np.array(rules.class_counts(vira), dtype=np.int64),
                                         rounds) for vira in range(rules.num_ranks))
    result: dict[float, float] = {}
    # product's order is the patterns' base-3 index, round 1 the most significant digit
    for pattern, probability in zip(itertools.product(range(3), repeat=rounds), patterns):
        if probability > 0.0:
            points = _points_of(rules, pattern)
            result[points] = result.get(points, 0.0) + float(probability) / rules.num_ranks
    return dict(sorted(result.items()))


def _points_of(rules, pattern: tuple[int, ...]) -> float:
    """Player 0's points when round k compares as `pattern[k]`: the game's public-state
    machine played with representative strengths (1 and 2; equal when tied)."""
    from games.truco import PublicState

    strengths = {PLAYER0_HIGHER: (2, 1), TIED: (1, 1), PLAYER1_HIGHER: (1, 2)}
    public = PublicState(rules)
    public.hands_dealt()
    while not public.is_over():
        if not public.is_card_turn():
            raise ValueError("a blind hand has no decision but the cards: it is not one")
        pair = strengths[pattern[public.round_number() - 1]]
        public.play(pair[public.card_player])
    return public.returns()[0]


@njit(cache=True)
def pattern_probabilities(counts: np.ndarray, rounds: int) -> np.ndarray:
    """float64 [3 ** rounds]: the probability of each comparison pattern when player 0's
    `rounds` cards, in their order, then player 1's are drawn without replacement from a
    pack holding counts[c] cards of strength class c (higher class, higher strength)."""
    classes = counts.shape[0]
    total = counts.sum()
    out = np.zeros(3 ** rounds)
    left = counts.copy()
    mine = np.zeros(rounds, dtype=np.int64)
    theirs = np.zeros(rounds, dtype=np.int64)
    sequences = classes ** (2 * rounds)
    for code in range(sequences):
        rest = code
        for k in range(rounds):
            mine[k] = rest % classes
            rest //= classes
        for k in range(rounds):
            theirs[k] = rest % classes
            rest //= classes
        probability = 1.0
        remaining = total
        for k in range(rounds):
            probability *= left[mine[k]] / remaining
            left[mine[k]] -= 1
            remaining -= 1
        for k in range(rounds):
            probability *= left[theirs[k]] / remaining
            left[theirs[k]] -= 1
            remaining -= 1
        for k in range(rounds):
            left[mine[k]] += 1
            left[theirs[k]] += 1
        if probability <= 0.0:
            continue
        index = 0
        for k in range(rounds):
            if mine[k] > theirs[k]:
                comparison = 0
            elif mine[k] == theirs[k]:
                comparison = 1
            else:
                comparison = 2
            index = 3 * index + comparison
        out[index] += probability
    return out


def outcomes(game_string: str) -> list[float]:
    """The points the blind hand can score, ascending (`HandEngine.outcomes`)."""
    return list(outcome_probabilities(game_string))


def void_probability(game_string: str) -> float:
    """The probability that nobody scores: exact, and the same for every strategy pair
    (`HandEngine.max_void_probability`)."""
    return outcome_probabilities(game_string).get(0.0, 0.0)


def solve(game_string: str, utility_of_points: dict[float, float]) -> HandSolution:
    """The blind hand's exact value with these terminal utilities: no iterations, a bracket of
    width zero, no policy to keep (every strategy is an equilibrium)."""
    began = time.perf_counter()
    probabilities = outcome_probabilities(game_string)
    missing = [points for points in probabilities if points not in utility_of_points]
    if missing:
        raise KeyError(f"no utility for a hand scoring {missing}")
    value = sum(p * utility_of_points[points] for points, p in probabilities.items())
    seconds = time.perf_counter() - began
    return HandSolution(game_string=game_string, value_low=value, value_high=value,
                        iterations=0, seconds=seconds, compile_seconds=0.0,
                        curve=[(0, seconds, 0.0)], policy=None, state=None)
