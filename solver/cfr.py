"""What every CFR engine shares: the run's state, its result, and the stopping, evaluation and
checkpoint loop.

An engine (`solver.history.cfr.CFREngine` on the compiled history tree, `solver.public.cfr.
PublicSolver` on the public tree) exposes `iteration`, `iterate(count)` and `state(seconds)`;
`run_iterations` drives it until the iteration budget, the target exploitability (measured
exactly by the engine's `evaluate`, every `eval_every` iterations, or on a time-based schedule
that spends at most about 10% of the run evaluating), the time limit or Ctrl-C, whichever comes
first, and calls the checkpoint and progress hooks on the way. The algorithms themselves (CFR, Zinkevich
et al. 2007; CFR+, Tammelin 2014, arXiv:1407.5042; LCFR and DCFR, Brown & Sandholm 2019,
arXiv:1809.04040; PCFR+, Farina, Kroer & Sandholm 2021, arXiv:2007.14358) are the per-iteration
scalars of `solver.schedules`.
"""
from __future__ import annotations

import dataclasses
import logging
import math
import signal
import threading
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
    """Raise ValueError for missing or impossible stopping rules (`eval_every` None: chosen by
    time, see `run_iterations`)."""
    if iterations is None and target_exploitability is None and time_limit is None:
        raise ValueError("give at least one of iterations, target_exploitability, time_limit")
    if iterations is not None and iterations < 0:
        raise ValueError(f"iterations must be >= 0, got {iterations}")
    if target_exploitability is not None and not target_exploitability > 0:
        raise ValueError(f"target_exploitability must be > 0, got {target_exploitability}")
    if time_limit is not None and not time_limit > 0:
        raise ValueError(f"time_limit must be > 0 seconds, got {time_limit}")
    if (eval_every is not None and eval_every < 1) or checkpoint_every < 1:
        raise ValueError(f"eval_every and checkpoint_every must be >= 1, got "
                         f"{eval_every} and {checkpoint_every}")


# Phases reported to `on_phase` (the engines report BUILDING before their tree is ready).
BUILDING = "building the tree"
SOLVING = "solving"
EVALUATING = "evaluating exploitability"
STOPPING = "interrupted: finishing the iteration, then saving"

EVAL_SHARE = 0.1  # with eval_every=None: at most about this share of the run is spent evaluating
FIRST_EVALUATION = 10  # ... and the first evaluation comes after this many iterations
TICK_SECONDS = 0.25  # a kernel call runs at most about this long when nothing else stops it


class EvaluationSchedule:
    """When to evaluate: every `eval_every` iterations, or (eval_every None) by time, so that
    evaluations take at most about `EVAL_SHARE` of the run. The first comes after
    `FIRST_EVALUATION` iterations; after each, the next waits until the iterations' time is
    (1 - share) / share times the evaluations' time so far plus one more evaluation."""

    def __init__(self, eval_every: int | None, first_iteration: int):
        """`first_iteration`: the engine's iteration when this run starts."""
        self.eval_every = eval_every
        self.next_iteration = first_iteration + FIRST_EVALUATION
        self.iterating_seconds = 0.0
        self.iterations = 0
        self.evaluating_seconds = 0.0
        self.last_evaluation_seconds = 0.0

    def iterated(self, count: int, seconds: float) -> None:
        """Record `count` iterations that took `seconds`."""
        self.iterations += count
        self.iterating_seconds += seconds

    def seconds_per_iteration(self) -> float | None:
        """The mean iteration time of this run so far (None before the first)."""
        return self.iterating_seconds / self.iterations if self.iterations else None

    def due(self, iteration: int) -> bool:
        """Whether to evaluate after `iteration`."""
        if self.eval_every is not None:
            return iteration % self.eval_every == 0
        return iteration >= self.next_iteration

    def evaluated(self, iteration: int, seconds: float) -> None:
        """Record an evaluation after `iteration` that took `seconds`; plan the next."""
        self.evaluating_seconds += seconds
        self.last_evaluation_seconds = seconds
        per_iteration = self.seconds_per_iteration() or 0.0
        needed = ((1.0 - EVAL_SHARE) / EVAL_SHARE
                  * (self.evaluating_seconds + self.last_evaluation_seconds)
                  - self.iterating_seconds)
        wait = 1 if per_iteration <= 0.0 else math.ceil(max(needed, 0.0) / per_iteration)
        self.next_iteration = iteration + max(1, wait)

    def iterations_to_next(self, iteration: int) -> int:
        """Iterations from `iteration` to the next evaluation (at least 1)."""
        if self.eval_every is not None:
            return self.eval_every - iteration % self.eval_every
        return max(1, self.next_iteration - iteration)


def run_iterations(engine, evaluate: Callable[[], float], *, algorithm: str,
                   iterations: int | None, target_exploitability: float | None,
                   time_limit: float | None, eval_every: int | None,
                   checkpoint: Callable[[SolverState], None] | None, checkpoint_every: int,
                   progress: bool, on_progress: Callable[[int, float, float], None] | None,
                   start_seconds: float,
                   on_iteration: Callable[[int, float], None] | None = None,
                   on_phase: Callable[[str], None] | None = None,
                   screen: Callable[[], float | None] | None = None
                   ) -> tuple[list[tuple[int, float, float]], float, float]:
    """The stopping, evaluation and checkpoint loop shared by the engines.

    `engine` has `iteration`, `iterate(count)` and `state(seconds)`; `evaluate()` returns the
    exact exploitability of its average policy, every `eval_every` iterations, or when
    `eval_every` is None on the time-based `EvaluationSchedule` (at most about 10% of the run
    spent evaluating). `on_progress(iteration, seconds, exploitability)` is called at each
    evaluation, `on_iteration(iteration, seconds)` after each kernel call (up to the next
    evaluation or checkpoint, and at most about `TICK_SECONDS` long: every iteration of a big
    game), `on_phase(name)` when the loop starts iterating (`SOLVING`), evaluating
    (`EVALUATING`) or, after Ctrl-C (SIGINT, main thread only), stops early (`STOPPING`): the
    interrupt ends the loop cleanly after the current kernel call, the checkpoint hook gets
    the state at once, the final evaluation runs, and the result is returned as if a stopping
    rule had been met (a second Ctrl-C raises KeyboardInterrupt). The last iteration is always
    evaluated. `screen()` (used with a target) returns a lower bound of the exploitability much
    cheaper than `evaluate`, or None where the engine has none: a due evaluation asks it first
    and, while it is above the target, goes on iterating without the exact figure (and no
    curve point: the curve holds exact figures only), so the run stops where it would have.
    Returns (curve, last exploitability, seconds of solving including `start_seconds` of
    earlier runs)."""
    curve: list[tuple[int, float, float]] = []
    start = time.perf_counter() - start_seconds
    exploitability = np.inf
    schedule = EvaluationSchedule(eval_every, engine.iteration)

    def phase(name: str) -> None:
        if on_phase is not None:
            on_phase(name)

    def record() -> float:
        phase(EVALUATING)
        began = time.perf_counter()
        value = evaluate()
        schedule.evaluated(engine.iteration, time.perf_counter() - began)
        seconds = time.perf_counter() - start
        curve.append((engine.iteration, seconds, value))
        logger.info("iteration %d: exploitability %.6g after %.1f s", engine.iteration, value,
                    seconds)
        if on_progress is not None:
            on_progress(engine.iteration, seconds, value)
        phase(SOLVING)
        return value

    def screened() -> float | None:
        """The screen's bound if it is above the target (no exact evaluation needed), else
        None."""
        if screen is None or target_exploitability is None:
            return None
        phase(EVALUATING)
        began = time.perf_counter()
        low = screen()
        schedule.evaluated(engine.iteration, time.perf_counter() - began)
        phase(SOLVING)
        if low is None or low <= target_exploitability:
            return None
        logger.info("iteration %d: exploitability above %.6g (lower bound)", engine.iteration,
                    low)
        return low

    bar = tqdm(total=iterations, disable=not progress, desc=f"{algorithm}", unit="it")
    phase(SOLVING)
    with _StopOnInterrupt() as interrupt:
        while True:
            elapsed = time.perf_counter() - start
            done = (interrupt.requested
                    or (iterations is not None and engine.iteration >= iterations)
                    or (time_limit is not None and elapsed >= time_limit)
                    or (target_exploitability is not None
                        and exploitability <= target_exploitability))
            if done:
                break
            count = _iterations_until_next_stop(
                engine.iteration, iterations, schedule.iterations_to_next(engine.iteration),
                checkpoint_every if checkpoint else None, schedule.seconds_per_iteration(),
                None if time_limit is None else time_limit - elapsed)
            began = time.perf_counter()
            engine.iterate(count)
            schedule.iterated(count, time.perf_counter() - began)
            bar.update(count)
            if on_iteration is not None:
                on_iteration(engine.iteration, time.perf_counter() - start)
            if interrupt.requested:
                phase(STOPPING)
            elif schedule.due(engine.iteration):
                low = screened()
                if low is None:
                    exploitability = record()
                    bar.set_postfix(exploitability=f"{exploitability:.3g}")
                else:
                    bar.set_postfix(exploitability=f">{low:.3g}")
            if checkpoint is not None and (engine.iteration % checkpoint_every == 0
                                           or interrupt.requested):
                checkpoint(engine.state(time.perf_counter() - start))
        bar.close()
        if not curve or curve[-1][0] != engine.iteration:
            exploitability = record()
    return curve, exploitability, time.perf_counter() - start


class _StopOnInterrupt:
    """Context manager: the first SIGINT sets `requested` instead of raising (in the main
    thread; elsewhere signals cannot be caught and this does nothing); the second raises
    KeyboardInterrupt as usual. The previous handler is restored on exit."""

    def __init__(self):
        self.requested = False
        self.previous = None

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.getsignal(signal.SIGINT)
            signal.signal(signal.SIGINT, self._handle)
        return self

    def _handle(self, signum, frame) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        logger.warning("interrupted: stopping after this iteration (Ctrl-C again to abort)")

    def __exit__(self, *exc_info) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)


def _iterations_until_next_stop(done: int, iterations: int | None, to_evaluation: int,
                                checkpoint_every: int | None,
                                seconds_per_iteration: float | None,
                                seconds_left: float | None) -> int:
    """How many iterations to run in one kernel call: up to the next evaluation, checkpoint or
    budget end, and no longer than about `TICK_SECONDS` (nor than the time left under a time
    limit), so progress shows every iteration of a big game; one iteration while the
    iteration time is not known yet."""
    boundaries = [to_evaluation]
    if checkpoint_every is not None:
        boundaries.append(checkpoint_every - done % checkpoint_every)
    if iterations is not None:
        boundaries.append(iterations - done)
    if seconds_per_iteration is None:
        boundaries.append(1)
    elif seconds_per_iteration > 0.0:
        seconds = TICK_SECONDS if seconds_left is None else min(TICK_SECONDS, seconds_left)
        boundaries.append(int(seconds / seconds_per_iteration))
    return max(1, min(boundaries))
