"""Exact best response, NashConv and exploitability over a compiled `GameTree`.

For each player p, the others' reach under the fixed policy comes from the CFR passes' own
`others_reach_pass` (over a `solver.history.sweep.Sweep` holding that policy), then the numba kernel
`solver.history._kernels.best_response_value` solves p's bands bottom-up (see there). NashConv =
sum_p (BR_p - u_p) = BR_0 + BR_1 in a zero-sum game; exploitability is NashConv / 2, as
`open_spiel.python.algorithms.exploitability.exploitability`.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pyspiel

from solver.history import _kernels
from solver.history.policy import policy_array
from solver.history.sweep import Sweep
from solver.history.tree import GameTree, compile_game
from solver.registry import load_game


class Workspace:
    """Preallocated work arrays for best response and value passes on one tree, and each
    player's bands (sorted once, on first use)."""

    def __init__(self, tree: GameTree, reach_others: np.ndarray | None = None,
                 value: np.ndarray | None = None, sweep: Sweep | None = None):
        """Allocate, reusing the given float64 [num_nodes] arrays when passed, and the layout of
        `sweep` (a CFR engine's: its arrays are shared, its policy is not touched)."""
        self.tree = tree
        self.reach_others = reach_others if reach_others is not None else np.empty(tree.num_nodes)
        self.value = value if value is not None else np.empty(tree.num_nodes)
        self.action_value = np.empty(tree.num_infoset_actions)
        self.best_action = np.zeros(tree.num_infosets, dtype=np.int64)
        self._bands: dict[int, tuple] = {}
        self._sweep = None if sweep is None else dataclasses.replace(sweep, prob=sweep.prob.copy())

    def fill_others_reach(self, policy: np.ndarray, player: int) -> None:
        """`reach_others` <- the others' reach of every node for `player` under `policy`."""
        if self._sweep is None:
            self._sweep = Sweep.of(self.tree, policy)
        else:
            self._sweep.policy[:] = policy
        _kernels.others_reach_pass(*self._sweep.arrays(), player, self.reach_others)

    def bands(self, player: int) -> tuple[np.ndarray, ...]:
        """`player`'s bands for `_kernels.best_response_value`: nodes sorted by band and the
        band starts, his information states sorted by band and the band starts."""
        if player not in self._bands:
            tree = self.tree
            band = np.empty(tree.num_nodes, dtype=np.int32)
            infoset_band = np.full(tree.num_infosets, -1, dtype=np.int32)
            _kernels.player_bands(tree.child_start, tree.node_player, tree.node_infoset, player,
                                  band, infoset_band)
            levels = np.arange(int(band.max()) + 2)
            nodes = np.argsort(band, kind="stable").astype(np.int32)
            infosets = np.flatnonzero(tree.infoset_player == player)
            infosets = infosets[np.argsort(infoset_band[infosets], kind="stable")].astype(np.int32)
            self._bands[player] = (
                nodes, np.searchsorted(band[nodes], levels),
                infosets, np.searchsorted(infoset_band[infosets], levels))
        return self._bands[player]


def best_response_value(tree: GameTree, policy: np.ndarray, player: int,
                        workspace: Workspace | None = None) -> float:
    """`player`'s best-response value (points per hand) against `policy` (flat array)."""
    work = workspace if workspace is not None else Workspace(tree)
    work.fill_others_reach(policy, player)
    return float(_kernels.best_response_value(
        tree.child_start, tree.node_player, tree.node_infoset, tree.edge_prob, tree.utility,
        tree.infoset_action_start, policy, player, *work.bands(player), work.reach_others,
        work.value, work.action_value, work.best_action))


def nash_conv_of_array(tree: GameTree, policy: np.ndarray,
                       workspace: Workspace | None = None) -> float:
    """NashConv of the flat policy array `policy` on `tree`."""
    work = workspace if workspace is not None else Workspace(tree)
    return best_response_value(tree, policy, 0, work) + best_response_value(tree, policy, 1, work)


def policy_value(tree: GameTree, policy: np.ndarray, workspace: Workspace | None = None) -> float:
    """Player 0's expected points per hand when both players follow `policy`."""
    work = workspace if workspace is not None else Workspace(tree)
    _kernels.policy_value_pass(tree.child_start, tree.node_player, tree.node_infoset,
                               tree.edge_prob, tree.utility, tree.infoset_action_start, policy,
                               work.value)
    return float(work.value[0])


def nash_conv(game: pyspiel.Game | str, policy, cache: bool = True) -> float:
    """NashConv of `policy` in `game` (sum of both players' best-response gains)."""
    game = load_game(game)
    tree = compile_game(game, cache=cache)
    return nash_conv_of_array(tree, policy_array(tree, policy, game))


def exploitability(game: pyspiel.Game | str, policy, cache: bool = True) -> float:
    """Exploitability (NashConv / 2, points per hand) of `policy` in `game`, computed exactly.

    `policy`: a `solver.AveragePolicy`, an OpenSpiel `TabularPolicy` or any OpenSpiel `Policy`.
    Raises ValueError for a policy of another game or an unsupported game.
    """
    return nash_conv(game, policy, cache=cache) / 2.0
