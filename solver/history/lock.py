"""Node-locking on the history tree: fix some or all of one player's decisions, solve the rest.

A *lock* fixes player p's action probabilities at a set of his information states (the locked
rows) to a given strategy (a bot's, a saved solution's, the uniform random policy), as
PioSOLVER's node-locking does in poker solves. What remains is the *restricted game* of the
restricted Nash response (Johanson, Zinkevich & Bowling 2008, "Computing Robust
Counter-Strategies", NIPS 20; Johanson & Bowling 2009, "Data Biased Robust Counter
Strategies", AISTATS): p chooses only at his unlocked information states, the other player q
everywhere, and its equilibrium is the best answer to p's locked style when p plays the rest
of the game as well as he can.

* Full lock (every information state of p): the restricted game is q's alone; its solution is
  q's exact best response to the locked strategy (`_kernels.best_response_value`, the kernel
  that measures exploitability): a pure strategy worth exactly q's best-response value.
* Partial lock: the restricted game is solved by the CFR family (`solver.history.cfr.solve`,
  unchanged) on the *restricted tree* (`restricted_tree`): the same tree, in which every
  history of a locked information state is a chance node whose edge probabilities are the
  locked ones. The mask of locked rows thus reaches every kernel without a line of them
  changed: a locked decision's probabilities enter the reach and value passes as a chance
  outcome's; the locked information states belong to no player (`NOBODY`), so the row update
  (`solver._update.update_row`) never touches their regrets or average sums, and their current
  and average policy stay the locked probabilities the run starts from (`start_state`). An
  unlocked information state's own reach then leaves out the locked probabilities above it: a
  factor constant over the iterations (perfect recall), which the normalised average policy
  does not see; where that factor is zero (p never gets there under the lock) the average is
  the restricted game's CFR average rather than uniform.

Exactness: best response on the restricted tree is the restricted game's best response (the
locked decisions are chance to both players), so `nash_conv_of_array` there is the restricted
game's NashConv, exactly. Any profile brackets a zero-sum game's value: player 0's value lies
in [-BR_1, BR_0], an interval of width NashConv (`value_bracket`), so its midpoint is within
the exploitability (NashConv / 2) of the exact value. The solution returned is the whole
profile on the original tree: the locked rows exactly the locked probabilities, the rest the
best response or the CFR average.
"""
from __future__ import annotations

import dataclasses
import time

import numpy as np
import pyspiel

from solver.cfr import SolveResult, SolverState
from solver.history.best_response import (
    Workspace,
    best_response_value,
    nash_conv_of_array,
    policy_value,
)
from solver.history.cfr import solve
from solver.history.policy import AveragePolicy, uniform_policy_array
from solver.history.tree import CHANCE, GameTree

NOBODY = -2  # owner of a locked information state in the restricted tree: no player decides
FULL_LOCK = "best response"  # the `algorithm` of a full lock's result: nothing is iterated
ROW_SUM_TOLERANCE = 1e-9


@dataclasses.dataclass(frozen=True)
class Lock:
    """Player `player`'s locked rows on a tree: `rows` bool [num_infosets] (his information
    states whose probabilities are fixed), `probabilities` float64 [num_infoset_actions] (the
    fixed probabilities, read on the locked rows only)."""

    player: int
    rows: np.ndarray
    probabilities: np.ndarray

    def is_full(self, tree: GameTree) -> bool:
        """Whether every information state of the player is locked."""
        return bool(np.all(self.rows[tree.infoset_player == self.player]))

    def action_mask(self, tree: GameTree) -> np.ndarray:
        """bool [num_infoset_actions]: the actions of the locked rows."""
        return np.repeat(self.rows, np.diff(tree.infoset_action_start))


@dataclasses.dataclass(frozen=True)
class LockedSolve:
    """A solved lock.

    result: the whole profile (`average_policy`, on the original tree), its exploitability in
    the whole game, player 0's value under it, and the restricted game's curve (a full lock:
    one point, iteration 0). restricted_exploitability: NashConv / 2 of the profile in the
    restricted game (0 up to rounding for a full lock). responder_value: the other player's
    value of the restricted game, points per hand: exact for a full lock, else the midpoint of
    the bracket, within `restricted_exploitability`.
    """

    lock: Lock
    result: SolveResult
    restricted_exploitability: float
    responder_value: float

    @property
    def responder(self) -> int:
        """The player who answers the lock."""
        return 1 - self.lock.player


def make_lock(tree: GameTree, player: int, probabilities: np.ndarray,
              rows: np.ndarray | None = None) -> Lock:
    """A validated `Lock`: `rows` (default: all of `player`'s information states) must be his
    and hold a probability distribution over their legal actions each (ValueError else)."""
    if player not in (0, 1):
        raise ValueError(f"the locked player is 0 or 1, not {player}")
    own = tree.infoset_player == player
    rows = own.copy() if rows is None else np.asarray(rows, dtype=bool)
    probabilities = np.ascontiguousarray(probabilities, dtype=np.float64)
    if rows.shape != own.shape or probabilities.shape != (tree.num_infoset_actions,):
        raise ValueError("the lock's rows and probabilities are not laid out on this tree")
    if not np.any(rows) or np.any(rows & ~own):
        raise ValueError(f"locked rows must be information states of player {player}, and "
                         f"at least one")
    lock = Lock(player, rows, probabilities)
    _check_distributions(tree, lock)
    return lock


def _check_distributions(tree: GameTree, lock: Lock) -> None:
    """ValueError naming the first locked row whose probabilities are not a distribution
    (negative, not finite, or not summing to one within `ROW_SUM_TOLERANCE`)."""
    values = np.where(lock.action_mask(tree), lock.probabilities, 0.0)
    bad_action = ~np.isfinite(values) | (values < 0.0)
    bad = np.add.reduceat(bad_action, tree.infoset_action_start[:-1]) > 0
    sums = np.add.reduceat(values, tree.infoset_action_start[:-1])
    bad |= lock.rows & ~(np.abs(sums - 1.0) <= ROW_SUM_TOLERANCE)
    if np.any(bad):
        infoset = int(np.flatnonzero(bad)[0])
        start, end = tree.infoset_action_start[infoset], tree.infoset_action_start[infoset + 1]
        raise ValueError(f"the locked probabilities {lock.probabilities[start:end].tolist()} at "
                         f"{tree.info_state_string(infoset)!r} are not a distribution")


def locked_policy(tree: GameTree, lock: Lock, policy: np.ndarray) -> np.ndarray:
    """A copy of `policy` (float64 [num_infoset_actions]) with the locked rows set, exactly,
    to the locked probabilities."""
    return np.where(lock.action_mask(tree), lock.probabilities, policy)


def restricted_tree(tree: GameTree, lock: Lock) -> GameTree:
    """The tree of the restricted game: every history of a locked information state becomes
    a chance node with the locked probabilities on its edges; the locked information states
    belong to `NOBODY` (module docstring). Shares every array it does not change."""
    decision = np.flatnonzero(tree.node_player >= 0)
    nodes = decision[lock.rows[tree.node_infoset[decision]]]
    first_child = tree.child_start[nodes]
    fan_out = tree.child_start[nodes + 1] - first_child
    offset = np.arange(fan_out.sum()) - np.repeat(np.cumsum(fan_out) - fan_out, fan_out)
    children = np.repeat(first_child, fan_out) + offset
    actions = np.repeat(tree.infoset_action_start[tree.node_infoset[nodes]], fan_out) + offset
    node_player, edge_prob = tree.node_player.copy(), tree.edge_prob.copy()
    node_player[nodes] = CHANCE
    edge_prob[children] = lock.probabilities[actions]
    infoset_player = np.where(lock.rows, NOBODY, tree.infoset_player).astype(
        tree.infoset_player.dtype)
    return dataclasses.replace(tree, node_player=node_player, edge_prob=edge_prob,
                               infoset_player=infoset_player)


def start_state(tree: GameTree, lock: Lock, algorithm: str) -> SolverState:
    """The state a restricted solve starts from (iteration 0): no regret, the uniform policy,
    and the locked rows' current policy and average sums equal to the locked probabilities."""
    policy = locked_policy(tree, lock, uniform_policy_array(tree))
    average = np.where(lock.action_mask(tree), lock.probabilities, 0.0)
    return SolverState(tree.game_string, algorithm, 0, 0.0, np.zeros(tree.num_infoset_actions),
                       average, policy)


def best_response_policy(tree: GameTree, policy: np.ndarray, player: int,
                         workspace: Workspace | None = None) -> tuple[float, np.ndarray]:
    """(`player`'s best-response value against `policy`, `policy` with his rows replaced by
    that pure best response: probability one on the best action, the first of equals)."""
    work = workspace if workspace is not None else Workspace(tree)
    value = best_response_value(tree, policy, player, work)
    own = np.flatnonzero(tree.infoset_player == player)
    response = np.where(np.repeat(tree.infoset_player == player,
                                  np.diff(tree.infoset_action_start)), 0.0, policy)
    response[work.best_action[own]] = 1.0
    return value, response


def value_bracket(tree: GameTree, policy: np.ndarray,
                  workspace: Workspace | None = None) -> tuple[float, float]:
    """(-BR_1, BR_0): bounds on player 0's game value from any profile `policy` (module
    docstring); their distance is its NashConv."""
    work = workspace if workspace is not None else Workspace(tree)
    return (-best_response_value(tree, policy, 1, work),
            best_response_value(tree, policy, 0, work))


def seat_value(bracket: tuple[float, float], player: int) -> float:
    """`player`'s value at the midpoint of player 0's bracket."""
    middle = (bracket[0] + bracket[1]) / 2
    return middle if player == 0 else -middle


def solve_locked(game: pyspiel.Game, lock: Lock, tree: GameTree,
                 seed: int | None = None, **settings) -> LockedSolve:
    """Solve the restricted game of `lock` on `tree` (the compiled tree of `game`): a full lock
    by exact best response, a partial one by `solver.history.cfr.solve` on the restricted tree
    with `settings` (algorithm, stopping rules, hooks; see there)."""
    if lock.is_full(tree):
        return _best_response(tree, lock, seed)
    restricted = restricted_tree(tree, lock)
    start = start_state(restricted, lock, settings.get("algorithm", "dcfr"))
    solved = solve(game, tree=restricted, resume=start, seed=seed, **settings)
    profile = locked_policy(tree, lock, solved.average_policy.probabilities)
    return _locked_solve(tree, restricted, lock, profile, solved)


def _best_response(tree: GameTree, lock: Lock, seed: int | None) -> LockedSolve:
    """A full lock: the other player's exact best response to the locked strategy."""
    started = time.perf_counter()
    locked = locked_policy(tree, lock, uniform_policy_array(tree))
    value, profile = best_response_policy(tree, locked, 1 - lock.player)
    seconds = time.perf_counter() - started
    solved = SolveResult(average_policy=None, exploitability=np.nan, game_value=np.nan,
                         curve=[], iterations=0, seconds=seconds, compile_seconds=0.0,
                         algorithm=FULL_LOCK, seed=seed, tree_sizes=tree.sizes(), state=None)
    return dataclasses.replace(_locked_solve(tree, restricted_tree(tree, lock), lock, profile,
                                             solved), responder_value=value)


def _locked_solve(tree: GameTree, restricted: GameTree, lock: Lock, profile: np.ndarray,
                  solved: SolveResult) -> LockedSolve:
    """The `LockedSolve` of `profile` (whole-game layout), measured on both trees."""
    bracket = value_bracket(restricted, profile)
    restricted_exploitability = (bracket[1] - bracket[0]) / 2
    work = Workspace(tree)
    curve = solved.curve or [(0, solved.seconds, restricted_exploitability)]
    result = dataclasses.replace(
        solved, average_policy=AveragePolicy.on_tree(tree, profile),
        exploitability=nash_conv_of_array(tree, profile, work) / 2,
        game_value=policy_value(tree, profile, work), curve=curve, tree_sizes=tree.sizes())
    return LockedSolve(lock, result, restricted_exploitability,
                       seat_value(bracket, 1 - lock.player))

