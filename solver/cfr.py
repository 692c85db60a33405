"""What every CFR engine shares: the run's state, its result, and the stopping, evaluation and
checkpoint loop.

An engine (`solver.history.cfr.CFREngine` on the compiled history tree, `solver.public.cfr.
PublicSolver` on the public tree) exposes `iteration`, `iterate(count)` and `state(seconds)`;
`run_iterations` drives it until the iteration budget, the target exploitability (measured
exactly by the engine's `evaluate`, every `eval_every` iterations) or the time limit, whichever
comes first, and calls the checkpoint hook on the way. The algorithms themselves (CFR, Zinkevich
et al. 2007; CFR+, Tammelin 2014, arXiv:1407.5042; LCFR and DCFR, Brown & Sandholm 2019,
arXiv:1809.04040; PCFR+, Farina, Kroer & Sandholm 2021, arXiv:2007.14358) are the per-iteration
scalars of `solver.schedules`.
"""
from __future__ import annotations

import dataclasses
import logging
import time
from typing import Callable

import numpy as np
from tqdm import tqdm

logger = logging.getLogger(__name__)


@dataclasses.dataclass
class SolverState:
    """Everything needed to resume a run: the iteration count and the per-action sums.

    cumulative_regret, cumulative_policy, current_policy: float64 [num_infoset_actions],
    laid out on the compiled tree of `game_string`.
    """

    game_string: str
    algorithm: str
    iteration: int
    seconds: float
    cumulative_regret: np.ndarray
    cumulative_policy: np.ndarray
    current_policy: np.ndarray


@dataclasses.dataclass(frozen=True)
class SolveResult:
    """Outcome of `solve`.

    exploitability: NashConv / 2 of `average_policy`, points per hand, exact.
    game_value: player 0's expected points per hand under `average_policy`.
    curve: (iteration, seconds, exploitability) at each evaluation.
    seconds: solving time (iterations and evaluations), `compile_seconds` excluded.
    """

    average_policy: object  # solver.history.policy.AveragePolicy or solver.public.cfr.PublicPolicy
    exploitability: float
    game_value: float
    curve: list[tuple[int, float, float]]
    iterations: int
    seconds: float
    compile_seconds: float
    algorithm: str
    seed: int | None
    tree_sizes: dict[str, int]
    state: SolverState


def validate_stopping(iterations, target_exploitability, time_limit, eval_every, checkpoint_every):
    """Raise ValueError for missing or impossible stopping rules."""
    if iterations is None and target_exploitability is None and time_limit is None:
        raise ValueError("give at least one of iterations, target_exploitability, time_limit")
    if iterations is not None and iterations < 0:
        raise ValueError(f"iterations must be >= 0, got {iterations}")
    if target_exploitability is not None and target_exploitability <= 0:
        raise ValueError(f"target_exploitability must be > 0, got {target_exploitability}")
    if time_limit is not None and time_limit <= 0:
        raise ValueError(f"time_limit must be > 0 seconds, got {time_limit}")
    if eval_every < 1 or checkpoint_every < 1:
        raise ValueError(f"eval_every and checkpoint_every must be >= 1, got "
                         f"{eval_every} and {checkpoint_every}")


def run_iterations(engine, evaluate: Callable[[], float], *, algorithm: str,
                   iterations: int | None, target_exploitability: float | None,
                   time_limit: float | None, eval_every: int,
                   checkpoint: Callable[[SolverState], None] | None, checkpoint_every: int,
                   progress: bool, on_progress: Callable[[int, float, float], None] | None,
                   start_seconds: float,
                   on_iteration: Callable[[int, float], None] | None = None
                   ) -> tuple[list[tuple[int, float, float]], float, float]:
    """The stopping, evaluation and checkpoint loop shared by the engines.

    `engine` has `iteration`, `iterate(count)` and `state(seconds)`; `evaluate()` returns the
    exact exploitability of its average policy. `on_progress(iteration, seconds,
    exploitability)` is called at each evaluation, `on_iteration(iteration, seconds)` after
    each run of iterations (one kernel call: up to the next evaluation or checkpoint). Returns (curve, last exploitability, seconds
    of solving including `start_seconds` of earlier runs)."""
    curve: list[tuple[int, float, float]] = []
    start = time.perf_counter() - start_seconds
    exploitability = np.inf

    def record() -> float:
        value = evaluate()
        seconds = time.perf_counter() - start
        curve.append((engine.iteration, seconds, value))
        logger.info("iteration %d: exploitability %.6g after %.1f s", engine.iteration, value,
                    seconds)
        if on_progress is not None:
            on_progress(engine.iteration, seconds, value)
        return value

    bar = tqdm(total=iterations, disable=not progress, desc=f"{algorithm}", unit="it")
    while True:
        elapsed = time.perf_counter() - start
        done = ((iterations is not None and engine.iteration >= iterations)
                or (time_limit is not None and elapsed >= time_limit)
                or (target_exploitability is not None and exploitability <= target_exploitability))
        if done:
            break
        count = _iterations_until_next_stop(engine.iteration, iterations, eval_every,
                                            checkpoint_every if checkpoint else None,
                                            time_limit is not None)
        engine.iterate(count)
        bar.update(count)
        if on_iteration is not None:
            on_iteration(engine.iteration, time.perf_counter() - start)
        if engine.iteration % eval_every == 0:
            exploitability = record()
            bar.set_postfix(exploitability=f"{exploitability:.3g}")
        if checkpoint is not None and engine.iteration % checkpoint_every == 0:
            checkpoint(engine.state(time.perf_counter() - start))
    bar.close()
    if not curve or curve[-1][0] != engine.iteration:
        exploitability = record()
    return curve, exploitability, time.perf_counter() - start


def _iterations_until_next_stop(done: int, iterations: int | None, eval_every: int,
                                checkpoint_every: int | None, timed: bool) -> int:
    """How many iterations to run in one kernel call: up to the next evaluation, checkpoint or
    budget end; one at a time under a time limit."""
    if timed:
        return 1
    boundaries = [eval_every - done % eval_every]
    if checkpoint_every is not None:
        boundaries.append(checkpoint_every - done % checkpoint_every)
    if iterations is not None:
        boundaries.append(iterations - done)
    return max(1, min(boundaries))
