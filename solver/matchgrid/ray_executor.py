"""Positions of a match solved as Ray tasks (Moritz et al. 2018, arXiv:1712.05889).

`RayExecutor` starts a local Ray runtime with `workers` CPUs (no set-up), or joins an existing
cluster at `address` (`ray start --head` on one machine, `ray start --address HOST:PORT` on
the others, each with this project installed: `pip install -e .`). Each position is one task
(`solver.matchgrid.runner.solve_one`, one CPU); the driver keeps at most `capacity` of them in
flight, and writes every result itself, so the workers need no shared file system.
"""
from __future__ import annotations

import logging
import os

from solver.matchgrid.fixed_point import Settings, StateSolution
from solver.matchgrid.runner import EngineChoice, solve_one
from solver.matchgrid.states import MatchSpec
from solver.cores import THREADS_VARIABLE

logger = logging.getLogger(__name__)

OBJECT_STORE_BYTES = 128 * 1024 * 1024  # results are small: a local runtime keeps little


def _solve_task(spec, settings, choice, position, known):
    """The Ray task: one position (imports the games in the worker first), in one thread (the
    task holds one CPU)."""
    import games  # noqa: F401  (registers the python_* games in the worker)

    os.environ[THREADS_VARIABLE] = "1"
    return solve_one(spec, settings, choice, position, known)


class RayExecutor:
    """`solver.matchgrid.runner.Executor` on Ray."""

    def __init__(self, spec: MatchSpec, settings: Settings, choice: EngineChoice,
                 workers: int | None = None, address: str | None = None):
        """Local Ray with `workers` CPUs (default 1), or the cluster at `address` with
        `workers` tasks in flight (default: the cluster's CPUs)."""
        import ray

        self.ray = ray
        os.environ.setdefault("RAY_DEDUP_LOGS", "0")
        if address is not None:
            ray.init(address=address, log_to_driver=False, logging_level=logging.WARNING)
            cluster_cpus = int(ray.cluster_resources().get("CPU", 1))
            self.capacity = workers if workers is not None else max(1, cluster_cpus)
        else:
            self.capacity = workers if workers is not None else 1
            ray.init(num_cpus=self.capacity, include_dashboard=False, log_to_driver=False,
                     object_store_memory=OBJECT_STORE_BYTES, logging_level=logging.WARNING,
                     configure_logging=False)
        self.task = ray.remote(num_cpus=1, max_retries=0)(_solve_task)
        self.arguments = (spec, settings, choice)
        self.running: dict = {}

    def submit(self, position: tuple[int, int], known: dict) -> None:
        """Start a task for `position`."""
        reference = self.task.remote(*self.arguments, position, known)
        self.running[reference] = position

    def next_finished(self) -> tuple[tuple[int, int], list[StateSolution]]:
        """Wait for any task to finish; its position and solutions."""
        ready, _ = self.ray.wait(list(self.running), num_returns=1)
        position = self.running.pop(ready[0])
        return position, self.ray.get(ready[0])

    def close(self) -> None:
        """Cancel what is still running and leave the Ray runtime."""
        for reference in self.running:
            self.ray.cancel(reference, force=True)
        self.running.clear()
        self.ray.shutdown()
