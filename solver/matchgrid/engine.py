"""The one thing the match layer asks of a hand engine: solve this hand game with these
terminal utilities.

A score state's hand is the hand game with score0, score1 and dealer set; its objective is
the match, so each terminal's payoff is not the points the hand scores but player 0's utility
2·V(next state) − 1 (±1 where the match ends), V being player 0's probability of winning the
match. Because that utility depends on a terminal only through the points it scores, an engine
is told a map {points: utility} (`HandEngine.solve`), and says which points a hand can score
(`HandEngine.outcomes`) and how likely a void hand (0 points) can be made at most
(`HandEngine.max_void_probability`, for the error bound of `solver.matchgrid.fixed_point`).

`HistoryEngine` does this on the compiled history tree (`solver.history`): the state's game is
compiled as usual (the tree of a hand game at any score, so rules that depend on the score play
as the game says), its terminal payoffs are re-weighted from points to utilities, and the
unchanged CFR driver (`solver.history.cfr.solve`) runs on that tree. The value reported is the
midpoint of the best-response bracket: for the average policy σ, player 0's best response to
σ1 is an upper bound of the game value and minus player 1's best response to σ0 a lower one,
so the exact value is within half their sum (the exploitability, NashConv / 2) of the midpoint.
`solver.matchgrid.public_engine.PublicEngine` does the same on the public tree.
"""
from __future__ import annotations

import dataclasses
import logging
import time
from typing import Protocol

import numpy as np
from numba import njit

from solver.cfr import SolverState
from solver.history.best_response import Workspace, best_response_value
from solver.history.cfr import solve
from solver.history.policy import AveragePolicy
from solver.history.tree import CHANCE, TERMINAL, GameTree, compile_game
from solver.registry import load_game

logger = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class HandSolution:
    """A hand game solved for given terminal utilities (player 0's, in [-1, 1]).

    value_low, value_high: the best-response bracket of the game value (utility units);
    policy: the average policy (information state strings filled in, no tree attached);
    curve: (iteration, seconds, exploitability in utility units); state: the solver state,
    to warm-start a re-solve of the same game with other utilities. A hand solved sub-game by
    sub-game (`solver.matchgrid.public_engine.combined`) has no policy or state of its own:
    `parts` holds each sub-game's solution by label, and the figures are their combination;
    a sub-game that is the same game as another under other names has `same_game_as`, that
    one's label: its twin's strategy, measured in its own tree (`PublicEngine.copy_twin`).
    """

    game_string: str
    value_low: float
    value_high: float
    iterations: int
    seconds: float
    compile_seconds: float
    curve: list[tuple[int, float, float]]
    policy: AveragePolicy | None
    state: SolverState | None
    parts: dict[str, HandSolution] | None = None
    same_game_as: str | None = None

    @property
    def value(self) -> float:
        """The bracket's midpoint: player 0's utility, within `exploitability` of the value."""
        return 0.5 * (self.value_low + self.value_high)

    @property
    def exploitability(self) -> float:
        """Half the bracket (NashConv / 2 of the average policy), utility units."""
        return 0.5 * (self.value_high - self.value_low)


class HandEngine(Protocol):
    """What `solver.matchgrid` needs from an engine (see the module docstring)."""

    name: str

    def outcomes(self, game_string: str) -> list[float]:
        """The distinct points (player 0's returns) the hand's terminals score, ascending."""

    def max_void_probability(self, game_string: str) -> float:
        """An upper bound, over every pair of strategies, of the probability of a void hand."""

    def solve(self, game_string: str, utility_of_points: dict[float, float], *,
              target_exploitability: float, iterations: int, eval_every: int = 10,
              warm_start: HandSolution | None = None,
              keep_state: bool = True) -> HandSolution:
        """Solve the hand with terminal utilities `utility_of_points` until its exploitability
        (utility units, measured every `eval_every` iterations) is at most the target or after
        `iterations` iterations in all, the same way on any machine; the solution keeps the
        solver state (to warm-start a re-solve) only with `keep_state` (a full-size Truco
        hand's regrets are gigabytes)."""


class HistoryEngine:
    """`HandEngine` on the compiled history tree (any game that fits in memory)."""

    name = "history"

    def __init__(self, algorithm: str = "dcfr", cache: bool = False, keep: int = 2):
        """`cache`: use the compiled-tree cache (`solver.history.tree`; small hands compile
        faster than the cache key is computed); `keep`: compiled trees held in memory (the
        two dealers of one position)."""
        self.algorithm = algorithm
        self.cache = cache
        self.keep = keep
        self._trees: dict[str, tuple[GameTree, float]] = {}
        self._names: dict[str, list[str]] = {}

    def tree(self, game_string: str) -> tuple[GameTree, float]:
        """(the compiled tree of `game_string`, seconds it took), held for re-solves."""
        if game_string not in self._trees:
            began = time.perf_counter()
            tree = compile_game(game_string, cache=self.cache, workers=1)
            while len(self._trees) >= self.keep:
                self._trees.pop(next(iter(self._trees)))
            self._trees[game_string] = (tree, time.perf_counter() - began)
        return self._trees[game_string]

    def outcomes(self, game_string: str) -> list[float]:
        """See `HandEngine.outcomes`."""
        tree, _ = self.tree(game_string)
        return sorted(np.unique(tree.utility[tree.node_player == TERMINAL]).tolist())

    def max_void_probability(self, game_string: str) -> float:
        """See `HandEngine.max_void_probability`: a pass in which both players choose the
        action most likely to end in a void hand at every node, seeing everything (so it
        bounds every pair of strategies)."""
        tree, _ = self.tree(game_string)
        return _max_reach_of_void(tree.child_start, tree.node_player, tree.edge_prob,
                                  tree.utility)

    def solve(self, game_string: str, utility_of_points: dict[float, float], *,
              target_exploitability: float, iterations: int, eval_every: int = 10,
              warm_start: HandSolution | None = None,
              keep_state: bool = True) -> HandSolution:
        """See `HandEngine.solve`."""
        tree, compile_seconds = self.tree(game_string)
        weighted = reweighted(tree, utility_of_points)
        game = load_game(game_string)
        result = solve(game, algorithm=self.algorithm, iterations=iterations,
                       target_exploitability=target_exploitability, eval_every=eval_every,
                       progress=False,
                       resume=None if warm_start is None else warm_start.state,
                       tree=weighted)
        if result.exploitability > target_exploitability and result.iterations < iterations:
            raise KeyboardInterrupt  # the solve was stopped by Ctrl-C: nothing to save
        policy = result.average_policy.probabilities
        workspace = Workspace(weighted)
        high = best_response_value(weighted, policy, 0, workspace)
        low = -best_response_value(weighted, policy, 1, workspace)
        return HandSolution(
            game_string=game_string, value_low=low, value_high=high,
            iterations=result.iterations, seconds=result.seconds,
            compile_seconds=warm_start.compile_seconds if warm_start else compile_seconds,
            curve=result.curve, policy=self._named(game, tree, policy),
            state=result.state if keep_state else None)

    def _named(self, game, tree: GameTree, probabilities: np.ndarray) -> AveragePolicy:
        """The average policy with its information state strings (read once per game),
        detached from the tree."""
        from solver.analysis.history import fast_info_state_names

        if tree.game_string not in self._names:
            names = tree.info_state_names or fast_info_state_names(game, tree)
            self._names[tree.game_string] = list(
                names if names is not None else tree.info_state_strings(game))
        return AveragePolicy(tree.game_string, tree.infoset_player, tree.infoset_action_start,
                             tree.infoset_actions, probabilities,
                             names=self._names[tree.game_string])


def reweighted(tree: GameTree, utility_of_points: dict[float, float]) -> GameTree:
    """`tree` with each terminal's payoff (points) replaced by `utility_of_points[points]`
    (the same arrays otherwise: shared, not copied). KeyError names a points value not
    mapped."""
    terminals = np.flatnonzero(tree.node_player == TERMINAL)
    points, inverse = np.unique(tree.utility[terminals], return_inverse=True)
    missing = [p for p in points.tolist() if p not in utility_of_points]
    if missing:
        raise KeyError(f"no utility for a hand scoring {missing}")
    utility = np.zeros_like(tree.utility)
    utility[terminals] = np.array([utility_of_points[p] for p in points.tolist()])[inverse]
    return dataclasses.replace(tree, utility=utility)


@njit(cache=True)
def _max_reach_of_void(child_start, node_player, edge_prob, utility):
    """The largest probability of ending at a terminal scoring 0, every decision taken to
    maximise it with full information (one backward pass; children follow their parent)."""
    num_nodes = node_player.shape[0]
    value = np.zeros(num_nodes)
    for node in range(num_nodes - 1, -1, -1):
        player = node_player[node]
        if player == TERMINAL:
            value[node] = 1.0 if utility[node] == 0.0 else 0.0
        elif player == CHANCE:
            total = 0.0
            for child in range(child_start[node], child_start[node + 1]):
                total += edge_prob[child] * value[child]
            value[node] = total
        else:
            best = 0.0
            for child in range(child_start[node], child_start[node + 1]):
                best = max(best, value[child])
            value[node] = best
    return value[0]
