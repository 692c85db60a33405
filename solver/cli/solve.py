"""The `solve` subcommand: run a CFR engine with a progress bar, checkpoints and a result
directory.

`solve` runs `solver.solve` (history tree) or `solver.public.cfr.solve_public` (public tree) with
a progress bar, checkpoints the solver state (every N iterations or S seconds, atomically) and
writes a result directory (`solver.results`); `--resume` continues from the directory's
checkpoint.
"""
from __future__ import annotations

import argparse
import dataclasses
import math
import pathlib
import sys
import time

from tqdm import tqdm

from solver import results
from solver.cli.games import game_string_from, load_game_checked
from solver.history.cfr import solve
from solver.history.policy import AveragePolicy
from solver.schedules import ALGORITHMS

DEFAULT_ITERATIONS = 1000
ENGINES = ("auto", "history", "public")
HISTORY_LIMIT = 100_000_000  # histories the history engine holds in RAM here (~12 GB)


def add_parser(subparsers) -> None:
    """The `solve` subcommand's parser."""
    parser = subparsers.add_parser(
        "solve", help="compute a near-equilibrium strategy and save it",
        description="Solve a two-player zero-sum game with a CFR variant. Writes "
        "DIR/strategy.npz (average policy), DIR/curve.csv (iteration, seconds, exploitability), "
        "DIR/summary.json and DIR/checkpoint.npz (for --resume).",
        epilog="examples:\n"
        "  tricksolver solve python_le_truc -p num_ranks=4 -p hand_size=2 -p isomorphic=true "
        "-p max_redeals=0 --target 0.001\n"
        "  tricksolver solve 'python_le_truc(num_ranks=6,hand_size=2,isomorphic=true)' "
        "--time-limit 600 --out results/le_truc_6r\n"
        "  tricksolver solve kuhn_poker --algorithm cfr+ --iterations 2000",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", metavar="GAME",
                        help="OpenSpiel game name or game string, e.g. python_le_truc or "
                        "'python_le_truc(hand_size=2)'")
    parser.add_argument("-p", "--param", action="append", default=[], metavar="KEY=VALUE",
                        help="game parameter (repeatable), e.g. -p num_ranks=4")
    parser.add_argument("--algorithm", choices=ALGORITHMS, default="dcfr",
                        help="CFR variant (default: dcfr)")
    parser.add_argument("--engine", choices=ENGINES, default="auto",
                        help="history: the compiled history tree, any game; public: Le Truc "
                        "(isomorphic=true) on its public tree, the way to the default rules with "
                        "the redeal (after a redeal its strategy ignores the hand set aside; the "
                        "exploitability is exact regardless); auto (default): history, unless a "
                        f"Le Truc history tree would exceed {HISTORY_LIMIT:.0e} histories")
    parser.add_argument("--alpha", type=float, default=1.5, help="DCFR alpha (default 1.5)")
    parser.add_argument("--beta", type=float, default=0.0, help="DCFR beta (default 0)")
    parser.add_argument("--gamma", type=float, default=2.0, help="DCFR gamma (default 2)")
    stop = parser.add_argument_group(
        "stopping rules", f"the solve stops at the first one reached (default: "
        f"--iterations {DEFAULT_ITERATIONS} when none is given)")
    stop.add_argument("--iterations", type=int, metavar="N", help="total iterations")
    stop.add_argument("--target", type=float, metavar="X",
                      help="target exploitability, in points per hand")
    stop.add_argument("--time-limit", type=float, metavar="S", help="seconds of solving")
    parser.add_argument("--eval-every", type=int, default=10, metavar="N",
                        help="compute the exact exploitability every N iterations (default 10)")
    parser.add_argument("--out", type=pathlib.Path, metavar="DIR",
                        help="result directory (default results/<game>/<params-hash>/)")
    parser.add_argument("--resume", action="store_true",
                        help="continue from DIR/checkpoint.npz (same game and algorithm)")
    parser.add_argument("--checkpoint-every", type=int, default=100, metavar="N",
                        help="write a checkpoint every N iterations (default 100)")
    parser.add_argument("--checkpoint-seconds", type=float, default=60.0, metavar="S",
                        help="... and at least every S seconds (default 60)")
    parser.add_argument("--seed", type=int, default=0, help="random seed, recorded (default 0)")
    parser.add_argument("--no-cache", action="store_true",
                        help="do not read or write the compiled-tree cache")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(func=run_solve)


def resolve_engine(engine: str, game) -> str:
    """The engine `auto` means for this game (ValueError if no engine can take it)."""
    if engine != "auto" or game.get_type().short_name != "python_le_truc":
        return "history" if engine == "auto" else engine
    from solver.sizes import le_truc_sizes

    histories = le_truc_sizes(game, infosets=False).histories
    if histories <= HISTORY_LIMIT:
        return "history"
    if not game.rules.isomorphic:
        raise ValueError(f"this Le Truc has {histories:.2e} histories, too many for the history "
                         f"tree (limit {HISTORY_LIMIT:.0e}); add -p isomorphic=true for the "
                         f"public-tree engine")
    return "public"


def _run_settings(args) -> dict:
    """Settings a checkpoint must share with the run that resumes it."""
    settings = {"algorithm": args.algorithm, "engine": args.engine}
    if args.algorithm == "dcfr":
        settings.update(alpha=args.alpha, beta=args.beta, gamma=args.gamma)
    return settings


class Checkpointer:
    """The `checkpoint` callback: writes every N iterations or after S seconds."""

    def __init__(self, directory: pathlib.Path, curve: list, settings: dict, every: int,
                 seconds: float):
        """Write into `directory`; `curve` is the run's (growing) list of evaluations."""
        self.directory, self.curve, self.settings = directory, curve, settings
        self.every, self.seconds = every, seconds
        self.last_write = time.monotonic()

    def __call__(self, state) -> None:
        """Write `state` if it is due (the solver calls this every iteration and at the end)."""
        due = (state.iteration % self.every == 0
               or time.monotonic() - self.last_write >= self.seconds)
        if due:
            self.write(state)

    def write(self, state) -> None:
        """Write `state` and the curve so far now; the directory's old summary goes (the
        directory holds an unfinished run until the new summary is written)."""
        curve = [row for row in self.curve if row[0] <= state.iteration]
        results.save_checkpoint(self.directory, state, curve, self.settings)
        results.mark_unfinished(self.directory)
        self.last_write = time.monotonic()


class ProgressBar:
    """tqdm bar over iterations (or seconds) with the exploitability and an ETA."""

    def __init__(self, args, start_iteration: int, start_seconds: float, enabled: bool):
        """A bar in iterations, or in seconds when only a time limit is given."""
        self.target = args.target
        self.by_time = args.iterations is None and args.time_limit is not None
        total = args.time_limit if self.by_time else args.iterations
        initial = start_seconds if self.by_time else start_iteration
        self.bar = tqdm(total=total, initial=initial, disable=not enabled, file=sys.stderr,
                        desc=args.algorithm, dynamic_ncols=True, bar_format=_bar_format(
                            total is not None, "s" if self.by_time else "it"))
        self.points: list[tuple[int, float, float]] = []

    def advance(self, iteration: int, seconds: float) -> None:
        """Called by the solver after each run of iterations: move the bar."""
        position = seconds if self.by_time else iteration
        self.bar.update(max(0.0, position - self.bar.n))

    def update(self, iteration: int, seconds: float, exploitability: float) -> None:
        """Called by the solver at each evaluation."""
        self.points.append((iteration, seconds, exploitability))
        self.advance(iteration, seconds)
        postfix = {"exploitability": f"{exploitability:.3g}"}
        eta = self._target_eta()
        if eta is not None:
            postfix["target ETA"] = f"{eta:.0f}s"
        self.bar.set_postfix(postfix, refresh=True)

    def _target_eta(self) -> float | None:
        """Seconds to the target, extrapolating the last two evaluations on a log-log line."""
        if self.target is None or len(self.points) < 2:
            return None
        (i0, s0, e0), (i1, s1, e1) = self.points[-2], self.points[-1]
        if not (e1 < e0 and e1 > self.target and i1 > i0 > 0 and e1 > 0):
            return None
        slope = math.log(e1 / e0) / math.log(i1 / i0)
        needed = i1 * (self.target / e1) ** (1.0 / slope)
        return (needed - i1) * (s1 - s0) / (i1 - i0)

    def close(self) -> None:
        """Close the bar."""
        self.bar.close()


def _bar_format(bounded: bool, unit: str) -> str:
    """tqdm layout: whole numbers of iterations or seconds, elapsed time and ETA."""
    if not bounded:
        return "{desc}: {n:.0f} it [{elapsed}{postfix}]"
    return ("{desc}: {percentage:3.0f}%|{bar}| {n:.0f}/{total:.0f} " + unit
            + " [{elapsed}<{remaining}{postfix}]")


def run_solve(args) -> int:
    """`tricksolver solve`."""
    game = load_game_checked(game_string_from(args.game, args.param))
    game_string = str(game)
    if args.iterations is None and args.target is None and args.time_limit is None:
        args.iterations = DEFAULT_ITERATIONS
    directory = args.out if args.out is not None else results.default_result_dir(game_string)
    args.engine = resolve_engine(args.engine, game)
    commit = results.git_commit()  # the code that runs, even if the tree changes meanwhile
    settings = _run_settings(args)
    checkpoint = (results.load_checkpoint(directory, game_string, settings)
                  if args.resume else None)
    curve = list(checkpoint.curve) if checkpoint else []
    start_iteration = checkpoint.state.iteration if checkpoint else 0
    if checkpoint:
        print(f"resuming {directory} at iteration {start_iteration}", file=sys.stderr)
    checkpointer = Checkpointer(directory, curve, settings, args.checkpoint_every,
                                args.checkpoint_seconds)
    bar = ProgressBar(args, start_iteration, checkpoint.state.seconds if checkpoint else 0.0,
                      not args.quiet)

    def on_progress(iteration: int, seconds: float, exploitability: float) -> None:
        """Record the evaluation and move the bar."""
        curve.append((iteration, seconds, exploitability))
        bar.update(iteration, seconds, exploitability)

    engine = solve if args.engine == "history" else _public_solve
    try:
        result = engine(game, algorithm=args.algorithm, iterations=args.iterations,
                       target_exploitability=args.target, time_limit=args.time_limit,
                       eval_every=args.eval_every, checkpoint=checkpointer, checkpoint_every=1,
                       progress=False, on_progress=on_progress, on_iteration=bar.advance,
                       seed=args.seed,
                       resume=checkpoint.state if checkpoint else None,
                       cache=not args.no_cache, alpha=args.alpha, beta=args.beta,
                       gamma=args.gamma)
    finally:
        bar.close()
    checkpointer.write(result.state)
    run = {**settings, "stopping": {"iterations": args.iterations, "target": args.target,
                                    "time_limit": args.time_limit},
           "eval_every": args.eval_every, "seed": args.seed,
           "resumed_from_iteration": start_iteration if checkpoint else None}
    summary = results.build_summary(result, game_string, run, commit)
    results.save_result(directory, _named_policy(game, result.average_policy), curve, summary)
    print(format_solve_summary(summary, directory))
    return 0


def _public_solve(game, **settings):
    """`solver.public.cfr.solve_public` (imported on use)."""
    from solver.public.solve import solve_public

    return solve_public(game, **settings)


def _named_policy(game, policy):
    """`policy` with its information state strings filled in the fast way where one exists."""
    from solver.analysis.history import fast_info_state_names

    if not isinstance(policy, AveragePolicy) or policy.names is not None or policy.tree is None:
        return policy
    names = fast_info_state_names(game, policy.tree)
    return policy if names is None else dataclasses.replace(policy, names=names)


def format_solve_summary(summary: dict, directory: pathlib.Path) -> str:
    """What `solve` prints when it is done."""
    return (f"game            {summary['game']}\n"
            f"algorithm       {summary['algorithm']}, {summary['iterations']} iterations, "
            f"{summary['seconds']:.1f} s (+{summary['compile_seconds']:.1f} s compile)\n"
            f"exploitability  {summary['exploitability']:.6g} points per hand\n"
            f"game value      {summary['game_value']:+.6f} points per hand for player 0\n"
            f"saved           {directory}/  (strategy.npz, curve.csv, summary.json)")

