"""`tricksolver solve --resume`: an interrupted solve continues from its last checkpoint and ends
with the same strategy, bit for bit, as an uninterrupted run; SIGKILL never corrupts files."""
from __future__ import annotations

import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from solver import cli, results
from solver.registry import load_game

GAME = "python_le_truc(num_ranks=3,hand_size=2,isomorphic=true,max_redeals=0)"
TOTAL = 60
KILL_GUARD_SECONDS = 300  # only guards against a hang; never a speed assertion


def solve(out, *extra) -> None:
    """`tricksolver solve GAME ...` in-process; asserts success."""
    assert cli.main(["solve", GAME, "--quiet", "--eval-every", "10", "--out", str(out),
                     *map(str, extra)]) == 0


@pytest.fixture(scope="module")
def uninterrupted(tree_cache, tmp_path_factory):
    """A solve of TOTAL iterations in one go."""
    out = tmp_path_factory.mktemp("straight") / "result"
    solve(out, "--iterations", TOTAL)
    return results.load_result(out)


def test_resume_gives_the_same_strategy(uninterrupted, tmp_path):
    out = tmp_path / "result"
    solve(out, "--iterations", 25, "--checkpoint-every", 5)
    assert np.load(out / "checkpoint.npz")["iteration"] == 25
    solve(out, "--iterations", TOTAL, "--resume")
    resumed = results.load_result(out)
    assert resumed.summary["iterations"] == TOTAL
    assert resumed.summary["resumed_from_iteration"] == 25
    assert np.array_equal(resumed.policy.probabilities, uninterrupted.policy.probabilities)
    assert resumed.summary["exploitability"] == uninterrupted.summary["exploitability"]
    # The first run also evaluated its last iteration (25); every other point is identical.
    resumed_points = {(row[0], row[2]) for row in resumed.curve}
    assert resumed_points == {(row[0], row[2]) for row in uninterrupted.curve} | {
        (25, resumed.curve[2][2])}


def test_sigkill_loses_at_most_one_checkpoint_interval(tree_cache, tmp_path):
    out = tmp_path / "result"
    command = [sys.executable, "-m", "solver", "solve", GAME, "--quiet", "--out", str(out),
               "--iterations", "100000000", "--eval-every", "10", "--checkpoint-every", "3",
               "--checkpoint-seconds", "1000"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + KILL_GUARD_SECONDS
    try:
        while not (out / "checkpoint.npz").exists():
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        time.sleep(0.5)  # a few more checkpoints are written meanwhile
        before_kill = load_checkpoint(out).state.iteration
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    saved_at = load_checkpoint(out).state.iteration
    assert saved_at >= before_kill and saved_at % 3 == 0
    assert not (out / "summary.json").exists()
    total = saved_at + 7
    solve(out, "--iterations", total, "--resume")
    straight = tmp_path / "straight"
    solve(straight, "--iterations", total)
    assert np.array_equal(results.load_result(out).policy.probabilities,
                          results.load_result(straight).policy.probabilities)


def load_checkpoint(out):
    """The DCFR checkpoint in `out` (fails if it is missing or corrupt)."""
    return results.load_checkpoint(out, str(load_game(GAME)),
                                   {"algorithm": "dcfr", "alpha": 1.5, "beta": 0.0, "gamma": 2.0})
