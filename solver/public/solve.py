"""Solving a game on the public tree: the right solver for each sub-game (`make_solver`:
Le Truc's with its redeal talk, `solver.public.redeal`; the plain one of `solver.public.cfr`
otherwise), a solver holding a saved policy, and `solve_public`, the shared CFR loop of
`solver.cfr` around one sub-game."""
from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from games.tricks import PublicGame
from solver.cfr import BUILDING, SolveResult, SolverState, run_iterations, validate_stopping
from solver.public.cfr import ENGINE, PublicPolicy, PublicSolver
from solver.public.parts import part_named
from solver.public.redeal import LeTrucSolver
from solver.public.tree import PlayTree, load_play_tree
from solver.schedules import Schedule, make_schedule


def make_solver(game, schedule: Schedule, part: PublicGame | None = None,
                tree: PlayTree | None = None, state: SolverState | None = None,
                table_dtype=np.float64) -> PublicSolver:
    """The public solver of one sub-game of `game` (Le Truc's with its redeal talk), its
    tables of `table_dtype` (float64 or float32)."""
    kind = LeTrucSolver if game.get_type().short_name == "python_le_truc" else PublicSolver
    return kind(game, schedule, part, tree, state, table_dtype)


def solver_for(game, policy: PublicPolicy, cache: bool = True) -> PublicSolver:
    """A solver holding `policy` as its average policy (to measure or read it)."""
    part = part_named(game, _label_of(policy.game_string, game))
    solver = make_solver(game, make_schedule("dcfr"), part, load_play_tree(game, part, cache),
                         table_dtype=policy.sums.dtype)
    solver.load_policy(policy)
    return solver


def _label_of(name: str, game) -> str | None:
    """The sub-game label of a tree name (`game|label`), None for a game of one part."""
    prefix = f"{game}|"
    return name[len(prefix):] if name.startswith(prefix) else None


def solve_public(game, algorithm: str = "dcfr", iterations: int | None = None,
                 target_exploitability: float | None = None, time_limit: float | None = None,
                 eval_every: int = 10, checkpoint: Callable[[SolverState], None] | None = None,
                 checkpoint_every: int = 100, progress: bool = True,
                 on_progress: Callable[[int, float, float], None] | None = None,
                 on_iteration: Callable[[int, float], None] | None = None,
                 on_phase: Callable[[str], None] | None = None,
                 seed: int | None = None, resume: SolverState | None = None, cache: bool = True,
                 alpha: float = 1.5, beta: float = 0.0, gamma: float = 2.0,
                 part: PublicGame | None = None, float32: bool = False) -> SolveResult:
    """`solver.cfr.solve` for one sub-game on the public tree (the only one if `part` is None;
    same stopping rules, checkpoints and result; exploitability and value are the sub-game's,
    exact: measured in float64 on the policy the tables hold). `float32`: regret and average
    tables in float32, half the memory."""
    validate_stopping(iterations, target_exploitability, time_limit, eval_every, checkpoint_every)
    schedule = make_schedule(algorithm, alpha, beta, gamma)
    part = part if part is not None else part_named(game, None)
    build_start = time.perf_counter()
    if on_phase is not None:
        on_phase(BUILDING)
    tree = load_play_tree(game, part, cache)
    build_seconds = time.perf_counter() - build_start
    engine = make_solver(game, schedule, part, tree, resume,
                         np.float32 if float32 else np.float64)
    curve, exploitability, seconds = run_iterations(
        engine, engine.exploitability, algorithm=algorithm, iterations=iterations,
        target_exploitability=target_exploitability, time_limit=time_limit,
        eval_every=eval_every, checkpoint=checkpoint, checkpoint_every=checkpoint_every,
        progress=progress, on_progress=on_progress, on_iteration=on_iteration,
        on_phase=on_phase, start_seconds=resume.seconds if resume is not None else 0.0,
        screen=engine.exploitability_lower_bound)
    state = engine.state(seconds)
    if checkpoint is not None:
        checkpoint(state)
    return SolveResult(
        average_policy=engine.average_policy(), exploitability=exploitability,
        game_value=engine.game_value(), curve=curve, iterations=engine.iteration,
        seconds=seconds, compile_seconds=build_seconds, algorithm=algorithm, seed=seed,
        tree_sizes={"engine": ENGINE, "part": part.label, "branches": len(engine.branches),
                    "tables": engine.table_dtype.name, **tree.sizes()},
        state=state)
