"""`solve`: the CFR family on a compiled history tree, with exact exploitability checks.

The driver compiles the game (`solver.history.tree`), then runs iterations of the numba kernels
(`solver.history._kernels`) with the per-iteration scalars of the chosen variant
(`solver.schedules`): CFR (Zinkevich et al. 2007), CFR+ (Tammelin 2014, arXiv:1407.5042), linear
and discounted CFR (Brown & Sandholm 2019, arXiv:1809.04040) and predictive CFR+ (Farina, Kroer &
Sandholm 2021, arXiv:2007.14358). Updates alternate between the players (player 0, then player
1), as in OpenSpiel's Python `CFRSolver`/`CFRPlusSolver`, which the tests follow in lock-step.
Every `eval_every` iterations (default: on a schedule that spends at most about 10% of the run
evaluating) the average policy's exploitability is computed exactly by best response
(`solver.history.best_response`); the stopping and checkpoint loop is `solver.cfr`'s.

All variants here traverse the full tree and are deterministic: `seed` is recorded in the
result (and fixes every bit of it together with the other inputs) but draws no numbers.
"""
from __future__ import annotations

import time
from typing import Callable

import numpy as np
import pyspiel

from solver.cfr import (BUILDING, SolveResult, SolverState, run_iterations,
                        validate_stopping)
from solver.history import _kernels
from solver.history.best_response import Workspace, nash_conv_of_array, policy_value
from solver.history.policy import AveragePolicy, uniform_policy_array
from solver.history.sweep import Sweep
from solver.history.tree import TERMINAL, GameTree, compile_game
from solver.registry import load_game
from solver.schedules import Schedule, make_schedule


class CFREngine:
    """The CFR iteration over one compiled tree with one schedule (arrays preallocated)."""

    def __init__(self, tree: GameTree, schedule: Schedule, state: SolverState | None = None):
        """Start from the uniform policy, or from `state` (a checkpoint of the same game)."""
        self.tree = tree
        self.schedule = schedule
        size = tree.num_infoset_actions
        self.reach_others = np.empty(tree.num_nodes)
        self.value = np.where(tree.node_player == TERMINAL, tree.utility, 0.0)
        self.infoset_own_reach = np.zeros(tree.num_infosets)
        self.player_infosets = [np.flatnonzero(tree.infoset_player == p) for p in (0, 1)]
        self.infoset_parent = np.empty(tree.num_infosets, dtype=np.int32)
        self.infoset_parent_action = np.empty(tree.num_infosets, dtype=np.int64)
        _kernels.infoset_parents(tree.child_start, tree.node_player, tree.node_infoset,
                                 tree.node_parent, tree.infoset_player, tree.infoset_action_start,
                                 tree.infoset_node, self.infoset_parent,
                                 self.infoset_parent_action)
        self.instant_regret = np.zeros(size)
        if state is None:
            self.iteration = 0
            self.cumulative_regret = np.zeros(size)
            self.cumulative_policy = np.zeros(size)
            self.sweep = Sweep.of(tree, uniform_policy_array(tree))
        else:
            _check_resume(tree, schedule, state)
            self.iteration = state.iteration
            self.cumulative_regret = state.cumulative_regret.copy()
            self.cumulative_policy = state.cumulative_policy.copy()
            self.sweep = Sweep.of(tree, state.current_policy)
        self._kernel_arrays = (*self.sweep.arrays(), *self.player_infosets, self.infoset_parent,
                               self.infoset_parent_action, tree.infoset_action_start,
                               self.cumulative_regret, self.cumulative_policy,
                               self.instant_regret, self.reach_others, self.value,
                               self.infoset_own_reach)

    @property
    def current_policy(self) -> np.ndarray:
        """The policy of the last iteration (a view into the sweep), float64 [num_infoset_actions]."""
        return self.sweep.policy

    def iterate(self, count: int = 1) -> None:
        """Run `count` iterations, each updating player 0, then player 1 (alternating updates)."""
        first = self.iteration + 1
        _kernels.cfr_iterations(*self._kernel_arrays, self.schedule.steps(first, count))
        self.iteration += count

    def average_policy_array(self) -> np.ndarray:
        """The normalised average policy, float64 [num_infoset_actions] (uniform if unreached)."""
        return normalize_per_infoset(self.cumulative_policy, self.tree.infoset_action_start)

    def state(self, seconds: float) -> SolverState:
        """A copy of the run's state, for checkpoints and resuming."""
        return SolverState(self.tree.game_string, self.schedule.algorithm, self.iteration, seconds,
                           self.cumulative_regret.copy(), self.cumulative_policy.copy(),
                           self.current_policy.copy())


def normalize_per_infoset(sums: np.ndarray, action_start: np.ndarray) -> np.ndarray:
    """Divide each information state's slice of `sums` by its total (uniform where zero)."""
    counts = np.diff(action_start)
    totals = np.add.reduceat(sums, action_start[:-1]) if sums.size else sums
    totals_per_action = np.repeat(totals, counts)
    uniform = np.repeat(1.0 / counts, counts)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(totals_per_action > 0.0, sums / totals_per_action, uniform)


def _check_resume(tree: GameTree, schedule: Schedule, state: SolverState) -> None:
    """Raise ValueError unless `state` continues a run of this game and algorithm."""
    if state.game_string != tree.game_string:
        raise ValueError(f"checkpoint is for game {state.game_string!r}, not {tree.game_string!r}")
    if state.algorithm != schedule.algorithm:
        raise ValueError(f"checkpoint was made by {state.algorithm!r}, not {schedule.algorithm!r}")
    if state.cumulative_regret.shape != (tree.num_infoset_actions,):
        raise ValueError("checkpoint arrays do not match the compiled tree; recompile the game")


def solve(game: pyspiel.Game | str, algorithm: str = "dcfr", iterations: int | None = None,
          target_exploitability: float | None = None, time_limit: float | None = None,
          eval_every: int | None = None,
          checkpoint: Callable[[SolverState], None] | None = None,
          checkpoint_every: int = 100, progress: bool = True,
          on_progress: Callable[[int, float, float], None] | None = None,
          on_iteration: Callable[[int, float], None] | None = None,
          on_phase: Callable[[str], None] | None = None,
          seed: int | None = None, resume: SolverState | None = None, cache: bool = True,
          alpha: float = 1.5, beta: float = 0.0, gamma: float = 2.0,
          tree: GameTree | None = None) -> SolveResult:
    """Solve a two-player zero-sum game with a CFR variant; see the module docstring.

    algorithm: "cfr", "cfr+", "lcfr", "dcfr" (alpha, beta, gamma) or "pcfr+".
    Stops after `iterations`, when the exploitability (checked every `eval_every` iterations,
    or if None on a schedule that spends at most about 10% of the run evaluating, see
    `solver.cfr.run_iterations`) is <= `target_exploitability`, after `time_limit` seconds, or
    at Ctrl-C (the result so far is returned). `checkpoint(state)` is called
    every `checkpoint_every` iterations and at the end; `resume=state` continues from one.
    `on_progress(iteration, seconds, exploitability)` is called at each evaluation,
    `on_iteration(iteration, seconds)` after each run of iterations between stops,
    `on_phase(name)` at each phase: `BUILDING` the tree, then `solver.cfr`'s `SOLVING`,
    `EVALUATING` and `STOPPING`. `tree` skips
    compilation (it must be the compiled tree of `game`).
    """
    validate_stopping(iterations, target_exploitability, time_limit, eval_every, checkpoint_every)
    schedule = make_schedule(algorithm, alpha, beta, gamma)
    game = load_game(game)
    compile_start = time.perf_counter()
    if on_phase is not None and tree is None:
        on_phase(BUILDING)
    tree = tree if tree is not None else compile_game(game, cache=cache)
    compile_seconds = time.perf_counter() - compile_start
    engine = CFREngine(tree, schedule, resume)
    workspace = Workspace(tree, engine.reach_others, sweep=engine.sweep)

    def evaluate() -> float:
        return nash_conv_of_array(tree, engine.average_policy_array(), workspace) / 2

    curve, exploitability, seconds = run_iterations(
        engine, evaluate, algorithm=algorithm, iterations=iterations,
        target_exploitability=target_exploitability, time_limit=time_limit,
        eval_every=eval_every, checkpoint=checkpoint, checkpoint_every=checkpoint_every,
        progress=progress, on_progress=on_progress, on_iteration=on_iteration,
        on_phase=on_phase, start_seconds=resume.seconds if resume is not None else 0.0)
    average = engine.average_policy_array()
    state = engine.state(seconds)
    if checkpoint is not None:
        checkpoint(state)
    return SolveResult(
        average_policy=AveragePolicy.on_tree(tree, average),
        exploitability=exploitability,
        game_value=policy_value(tree, average, workspace),
        curve=curve,
        iterations=engine.iteration,
        seconds=seconds,
        compile_seconds=compile_seconds,
        algorithm=algorithm,
        seed=seed,
        tree_sizes=tree.sizes(),
        state=state,
    )


