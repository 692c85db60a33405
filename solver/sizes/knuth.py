"""Size estimates of any game by Knuth's random walks (D. E. Knuth, "Estimating the efficiency
of backtrack programs", Mathematics of Computation 29, 1975).

A walk goes from the root to a leaf, choosing each child uniformly (chance outcomes too, whatever
their probabilities); a node reached after branching factors b_1, ..., b_d stands for
b_1 * ... * b_d nodes. That weight summed over the walk's nodes is an unbiased estimate of the
number of histories; summed over its decision (chance) nodes, of the decision (chance) nodes;
at its leaf, of the terminals. The estimate over N walks is the mean, with a 95% half-width of
1.96 standard errors. Information states are not estimated. The estimator is unbiased but
heavy-tailed on unbalanced trees, so a small N tends to underestimate.
"""
from __future__ import annotations

import numpy as np
import pyspiel

from solver.sizes.common import (FIGURES, TreeSize, check_samples, mean_and_half_width,
                                 progress_bar)


def knuth_walk(game: pyspiel.Game, rng: np.random.Generator) -> tuple[float, ...]:
    """One random walk: estimates of (histories, terminals, decision nodes, chance nodes)."""
    state = game.new_initial_state()
    weight, histories, decisions, chance = 1.0, 0.0, 0.0, 0.0
    while not state.is_terminal():
        histories += weight
        if state.is_chance_node():
            chance += weight
            actions = [action for action, _ in state.chance_outcomes()]
        else:
            decisions += weight
            actions = state.legal_actions()
        weight *= len(actions)
        state.apply_action(actions[rng.integers(len(actions))])
    return histories + weight, weight, decisions, chance


def knuth_estimate(game: pyspiel.Game, walks: int, seed: int = 0,
                   progress: bool = False) -> TreeSize:
    """Knuth's estimates of histories, terminals, decision and chance nodes over `walks` walks."""
    check_samples(walks)
    rng = np.random.default_rng(seed)
    samples = np.array([knuth_walk(game, rng) for _ in progress_bar(
        range(walks), "Knuth walks", progress)])
    estimates = dict(zip(FIGURES, (mean_and_half_width(column) for column in samples.T)))
    return TreeSize(str(game), *(estimate for estimate, _ in estimates.values()), infosets=None,
                    method=f"Knuth {walks} walks",
                    half_widths={name: width for name, (_, width) in estimates.items()})
