"""One decision of a public-tree solution in full: the average policy there, what each action
is worth to the player, and how often the equilibrium gets there.

The decision is a `solver.public.policy.Spot` (found by the player's hand and the actions so
far). Its numbers are the charts' (`solver.analysis.public`): the reach is the actor's own
probability of his actions times chance and the opponent's (one joint pass of the copy of the
play tree), an action's EV is its counterfactual value (the action played purely there, the
average policy everywhere else: `action_values`) over the chance-and-opponent weight, in the
actor's points per hand. In Le Truc's redeal talk the same figures come from the copies' root
values (`talk_values`).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from solver.analysis.public import BranchStats, talk_values
from solver.public import _kernels as kernels
from solver.public.cfr import PublicSolver
from solver.public.policy import Spot, spot_policy
from solver.public.redeal import TALK


@dataclasses.dataclass(frozen=True)
class Decision:
    """A decision's policy and action EVs (column by column, `Spot.columns`; EV NaN where the
    decision is never reached) and its probability of being reached."""

    spot: Spot
    probabilities: np.ndarray
    values: np.ndarray
    reach: float


def decision_at(solver: PublicSolver, spot: Spot) -> Decision:
    """The average policy, action EVs and reach at `spot`."""
    talk = solver.talk_policy(kernels.AVERAGE)
    reaches = solver.branch_reaches(talk)
    couplings = solver.played_couplings(talk)
    probabilities = spot_policy(solver, spot)
    if spot.branch == TALK:
        roots = {branch: BranchStats(solver, branch, reaches[branch],
                                     couplings[branch]).root_values
                 for branch in solver.branches}
        weights, _, actions = talk_values(solver, talk, roots)[spot.node]
        hand = solver.tree.hands.index(spot.entry[0])
        return Decision(spot, probabilities, _per_weight(actions[hand], weights[hand]),
                        float(weights[hand]))
    tree, player, node = solver.tree, spot.player, spot.node
    stats = BranchStats(solver, spot.branch, reaches[spot.branch], couplings[spot.branch],
                        [node])
    x = tree.entry_index(int(tree.node_list[node, player]), spot.entry)
    row = int(tree.node_row[node]) + x
    chance = float(stats.chance[player, row])
    values = stats.action_value[node][x, :len(spot.columns)]
    return Decision(spot, probabilities, _per_weight(values, chance),
                    float(stats.own[player, row]) * chance)


def _per_weight(values: np.ndarray, weight: float) -> np.ndarray:
    """Counterfactual values over the decision's weight (NaN where it is never reached)."""
    if weight <= 0.0:
        return np.full(len(values), np.nan)
    return np.asarray(values, dtype=float) / weight
