"""One decision of a public-tree solution in full: the average policy there, what each action
is worth to the player, and how often the equilibrium gets there.

The decision is a `solver.public.policy.Spot` (found by the player's hand and the actions so
far). Its numbers are the charts' (`solver.analysis.public`): the reach is the actor's own
probability of his actions times chance and the opponent's (one joint pass of the copy of the
play tree), an action's EV is its counterfactual value (the action played purely there, the
average policy everywhere else: `BranchStats.action_value`) over the chance-and-opponent
weight, in the actor's points per hand. In Le Truc's redeal talk the same figures come from the
copies' root values (`talk_values`). A `DecisionReader` keeps each copy's passes, which do not
depend on the decision, so that reading many decisions of one solution (`tricksolver play
--hint`) costs no further pass.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from solver.analysis.public import BranchStats, row_block, talk_values
from solver.public import _kernels as kernels
from solver.public.cfr import PublicSolver
from solver.public.policy import Spot, spot_policy
from solver.public.redeal import TALK


OFF_PATH_REACH = 1e-6  # decisions reached less often than this are off the equilibrium path


@dataclasses.dataclass(frozen=True)
class Decision:
    """A decision's policy and action EVs (column by column, `Spot.columns`; EV NaN where the
    decision is never reached), its probability of being reached with this hand (`reach`:
    the deal, chance and both players' play) and the actor's own part of it (`own_reach`: the
    product of his own action probabilities on the way)."""

    spot: Spot
    probabilities: np.ndarray
    values: np.ndarray
    reach: float
    own_reach: float

    @property
    def off_path(self) -> bool:
        """Whether the solution never plays to here: the actor's own play (almost) never does,
        or the opponent's or chance never do. Its mix here is then arbitrary (the EVs still
        hold against the opponent's strategy)."""
        return self.own_reach < OFF_PATH_REACH or self.reach <= 0.0


class DecisionReader:
    """Decisions of one public solver (it must keep its average policy while in use)."""

    def __init__(self, solver: PublicSolver):
        self.solver = solver
        self.talk = solver.talk_policy(kernels.AVERAGE)
        self.reaches = solver.branch_reaches(self.talk)
        self.couplings = solver.played_couplings(self.talk)
        self._stats: dict[str, BranchStats] = {}

    def stats(self, branch: str) -> BranchStats:
        """Reaches and values of every row of one copy of the play tree (computed once)."""
        if branch not in self._stats:
            self._stats[branch] = BranchStats(self.solver, branch, self.reaches[branch],
                                              self.couplings[branch])
        return self._stats[branch]

    def decision(self, spot: Spot) -> Decision:
        """The average policy, action EVs and reach at `spot`."""
        solver = self.solver
        probabilities = spot_policy(solver, spot)
        if spot.branch == TALK:
            roots = {branch: self.stats(branch).root_values for branch in solver.branches}
            weights, _, actions = talk_values(solver, self.talk, roots)[spot.node]
            hand = solver.tree.hands.index(spot.entry[0])
            return Decision(spot, probabilities, _per_weight(actions[hand], weights[hand]),
                            float(weights[hand]), 1.0)
        tree, player, node, branch = solver.tree, spot.player, spot.node, spot.branch
        stats = self.stats(branch)
        x = tree.entry_index(int(tree.node_list[node, player]), spot.entry)
        row = int(tree.node_row[node]) + x
        chance = float(stats.chance[player][row])
        values = stats.row_values(player, *row_block(tree, node, x))[:len(spot.columns)]
        own = float(stats.own[player][row])
        return Decision(spot, probabilities, _per_weight(values, chance), own * chance, own)


def decision_at(solver: PublicSolver, spot: Spot) -> Decision:
    """The average policy, action EVs and reach at `spot` (one decision: `DecisionReader`
    for many)."""
    return DecisionReader(solver).decision(spot)


def _per_weight(values: np.ndarray, weight: float) -> np.ndarray:
    """Counterfactual values over the decision's weight (NaN where it is never reached)."""
    if weight <= 0.0:
        return np.full(len(values), np.nan)
    return np.asarray(values, dtype=float) / weight
