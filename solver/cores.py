"""How many cores a process of tricksolver may use: `$TRICKSOLVER_THREADS` (processes that
share the cores with others, like `solve-match`'s workers, set it to 1), else the cores the
operating system lets it run on. The public engine's value passes run in that many threads
(`solver.public.cfr.RootSplit`) and its big trees are built in that many processes
(`solver.public.tree.build_play_tree`)."""
from __future__ import annotations

import os

THREADS_VARIABLE = "TRICKSOLVER_THREADS"


def default_threads() -> int:
    """$TRICKSOLVER_THREADS, else the cores this process may use (ValueError, in one line, for
    a value that is not a whole number of 1 or more)."""
    value = os.environ.get(THREADS_VARIABLE)
    if value is None:
        if hasattr(os, "sched_getaffinity"):  # Linux: the cores this process may run on
            return len(os.sched_getaffinity(0))
        return os.cpu_count() or 1
    if not value.isdigit() or int(value) < 1:
        raise ValueError(f"{THREADS_VARIABLE}={value!r}: give a whole number of threads, 1 or more")
    return int(value)
