"""The `solve` subcommand: run a CFR engine with a progress bar, checkpoints and a result
directory.

`solve` runs `solver.solve` (history tree) or `solver.public.cfr.solve_public` (public tree) with
a progress bar, checkpoints the solver state (every N iterations or S seconds, atomically) and
writes a result directory (`solver.results`); `--resume` continues from the directory's
checkpoint.
"""
from __future__ import annotations

import dataclasses
import functools
import math
import pathlib
import sys
import time

from tqdm import tqdm

from solver import results
from solver.cli.help import HelpFormatter
from solver.cli.solve_parts import run_parts
from solver.cfr import STOPPING
from solver.cli import positive_float, positive_int
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
        epilog="examples (results go to runs/, git-ignored, unless --out says otherwise):\n"
        "  tricksolver solve python_le_truc -p num_ranks=4 -p hand_size=2 -p isomorphic=true "
        "-p max_redeals=0 --target 0.001     # seconds\n"
        "  tricksolver solve 'python_le_truc(num_ranks=6,hand_size=2,isomorphic=true)' "
        "--time-limit 600 --out runs/le_truc_6r   # 10 min, ~10 GB RAM\n"
        "  tricksolver solve kuhn_poker --algorithm cfr+ --iterations 2000\n"
        "Ctrl-C stops a solve early: it finishes the iteration, evaluates and saves what it has. "
        "Compiled trees are cached in $TRICKSOLVER_CACHE (default ~/.cache/tricksolver, capped "
        "at 8 GiB: see 'tricksolver cache').",
        formatter_class=HelpFormatter)
    parser.add_argument("game", metavar="GAME",
                        help="OpenSpiel game name or game string, e.g. python_le_truc or "
                        "'python_le_truc(hand_size=2)'")
    parser.add_argument("-p", "--param", action="append", default=[], metavar="KEY=VALUE",
                        help="game parameter (repeatable), e.g. -p num_ranks=4")
    parser.add_argument("--algorithm", choices=ALGORITHMS, default="dcfr",
                        help="CFR variant (default: dcfr)")
    parser.add_argument("--engine", choices=ENGINES, default="auto",
                        help="history: the compiled history tree, any game; public: Le Truc "
                        "and two-player Truco (isomorphic=true) on their public trees, the way "
                        "to the default rules (Truco vira class by vira class; after a Le Truc "
                        "redeal the strategy ignores the hand set aside; the exploitability is "
                        "exact regardless); auto (default): history, unless the history tree "
                        f"would exceed {HISTORY_LIMIT:.0e} histories")
    parser.add_argument("--part", action="append", default=[], metavar="LABEL",
                        help="public engine, Truco: solve only this vira class (repeatable, e.g. "
                        "--part 'vira 7'); DIR/summary.json combines every class finished in "
                        "DIR, so two processes can share the classes between them")
    parser.add_argument("--float32", action="store_true",
                        help="public engine: regret and average tables in float32, half their "
                        "memory (the full-size Truco classes need it on a 24 GB machine; the "
                        "exploitability is still measured exactly, of the policy they hold)")
    parser.add_argument("--alpha", type=float, default=1.5, help="DCFR alpha (default 1.5)")
    parser.add_argument("--beta", type=float, default=0.0, help="DCFR beta (default 0)")
    parser.add_argument("--gamma", type=float, default=2.0, help="DCFR gamma (default 2)")
    stop = parser.add_argument_group(
        "stopping rules", f"the solve stops at the first one reached (default: "
        f"--iterations {DEFAULT_ITERATIONS} when none is given)")
    stop.add_argument("--iterations", type=positive_int, metavar="N", help="total iterations")
    stop.add_argument("--target", type=positive_float, metavar="X",
                      help="target exploitability, in points per hand")
    stop.add_argument("--time-limit", type=positive_float, metavar="S",
                      help="seconds of solving")
    parser.add_argument("--eval-every", type=positive_int, default=None, metavar="N",
                        help="compute the exact exploitability every N iterations (default: "
                        "chosen by time, so that at most about 10%% of the run is spent "
                        "evaluating; the first after 10 iterations)")
    parser.add_argument("--out", type=pathlib.Path, metavar="DIR",
                        help="result directory (default runs/<game>/<params-hash>/; runs/ is "
                        "git-ignored)")
    parser.add_argument("--resume", action="store_true",
                        help="continue from DIR/checkpoint.npz (same game and algorithm)")
    parser.add_argument("--checkpoint-every", type=positive_int, default=100, metavar="N",
                        help="write a checkpoint every N iterations (default 100)")
    parser.add_argument("--checkpoint-seconds", type=positive_float, default=60.0, metavar="S",
                        help="... and at least every S seconds (default 60)")
    parser.add_argument("--seed", type=int, default=0, help="random seed, recorded (default 0)")
    parser.add_argument("--no-cache", action="store_true",
                        help="do not read or write the compiled-tree cache")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(func=run_solve)


def resolve_engine(engine: str, game) -> str:
    """The engine `auto` means for this game; ValueError (one line: the size, the limit and
    what to use instead) if the history tree would be too large for the engine asked for."""
    if engine == "public":
        return engine
    is_le_truc = game.get_type().short_name == "python_le_truc"
    histories, how = history_tree_size(game)
    if histories <= HISTORY_LIMIT:
        return "history"
    size = f"{game} has {how}{histories:.2g} histories, too many for the history tree " \
           f"(limit {HISTORY_LIMIT:.0e}, about 12 GB of RAM)"
    if is_le_truc and not game.rules.isomorphic:
        raise ValueError(f"{size}; add -p isomorphic=true (the same game, far smaller) and "
                         f"use --engine public (or auto)")
    if _public_engine_takes(game) and engine == "auto":
        return "public"
    if _public_engine_takes(game):
        raise ValueError(f"{size}; use --engine public (or auto), which solves it on its "
                         f"public tree")
    raise ValueError(f"{size}; no engine here takes it: solve a smaller variant (fewer ranks "
                     f"or a smaller hand_size; isomorphic=true where the game has it)")


def require_history_tree(game) -> None:
    """ValueError (one line) unless `game`'s history tree fits (`HISTORY_LIMIT`)."""
    histories, how = history_tree_size(game)
    if histories > HISTORY_LIMIT:
        raise ValueError(f"{game} has {how}{histories:.2g} histories, too many for the history "
                         f"tree (limit {HISTORY_LIMIT:.0e}, about 12 GB of RAM): measure the "
                         f"bots on a smaller variant")


def _public_engine_takes(game) -> bool:
    """Whether the public-tree engine solves `game`."""
    from solver.public.parts import public_parts

    try:
        public_parts(game)
    except ValueError:
        return False
    return True


def history_tree_size(game) -> tuple[float, str]:
    """(histories of `game`'s history tree, "" if exact or "about " if estimated), cheaply:
    Le Truc by its dynamic program (about 2 s at most); any other game by a pilot of Knuth walks
    (`solver.sizes`), and two-player Truco, unless that estimate is far beyond any history tree,
    by its dynamic program. An estimate counts as over `HISTORY_LIMIT` when the lower end of its
    95% interval is, or when it is 10 times the limit (heavy-tailed walks can make the interval
    meaningless), so that a game that fits is not refused by chance."""
    from solver import sizes

    if game.get_type().short_name == sizes.LE_TRUC:
        return sizes.le_truc_sizes(game, infosets=False).histories, ""
    estimate = sizes.knuth_estimate(game, sizes.PILOT_WALKS, 0)
    if sizes.counts_truco(game) and estimate.histories < HISTORY_LIMIT * 1e4:
        return sizes.truco_sizes(game, None, 0, False).histories, ""
    low = estimate.histories - estimate.half_widths["histories"]
    over = low > HISTORY_LIMIT or estimate.histories > 10 * HISTORY_LIMIT
    return (estimate.histories if over else min(estimate.histories, HISTORY_LIMIT)), "about "


def _run_settings(args) -> dict:
    """Settings a checkpoint must share with the run that resumes it."""
    settings = {"algorithm": args.algorithm, "engine": args.engine,
                "tables": "float32" if args.float32 else "float64"}
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
        self.now = False  # set when the solve is interrupted: write at the next call

    def __call__(self, state) -> None:
        """Write `state` if it is due (the solver calls this every iteration and at the end)."""
        due = (self.now or state.iteration % self.every == 0
               or time.monotonic() - self.last_write >= self.seconds)
        self.now = False
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
    """tqdm bar over iterations (or seconds) with the phase, the exploitability and an ETA."""

    def __init__(self, args, start_iteration: int, start_seconds: float, enabled: bool):
        """A bar in iterations, or in seconds when only a time limit is given."""
        self.target = args.target
        self.algorithm = args.algorithm
        self.by_time = args.iterations is None and args.time_limit is not None
        self.total = args.time_limit if self.by_time else args.iterations
        initial = start_seconds if self.by_time else start_iteration
        if self.total is not None:
            initial = min(initial, self.total)
        self.bar = tqdm(total=self.total, initial=initial, disable=not enabled, file=sys.stderr,
                        desc=args.algorithm, dynamic_ncols=True, bar_format=_bar_format(
                            self.total is not None, "s" if self.by_time else "it"))
        self.points: list[tuple[int, float, float]] = []

    def phase(self, name: str) -> None:
        """Show what the solver does now (building the tree, solving, evaluating...)."""
        self.bar.set_description_str(
            self.algorithm if name == "solving" else f"{self.algorithm} ({name})", refresh=True)

    def advance(self, iteration: int, seconds: float) -> None:
        """Called by the solver after each run of iterations: move the bar (never past its
        total: tqdm drops a total that `n` exceeds, which breaks the layout)."""
        if self.bar.desc != self.algorithm and "evaluating" not in self.bar.desc:
            self.phase("solving")  # the first iterations: the tree is built
        position = seconds if self.by_time else iteration
        if self.total is not None:
            position = min(position, self.total)
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
    return ("{desc}: {percentage:3.0f}%|{bar}| {n:.0f}/{total_fmt} " + unit
            + " [{elapsed}<{remaining}{postfix}]")


def stop_reason(args, result) -> str:
    """Which stopping rule ended the solve: iterations, target, time limit, or interrupted."""
    if args.iterations is not None and result.iterations >= args.iterations:
        return "iterations"
    if args.target is not None and result.exploitability <= args.target:
        return "target"
    if args.time_limit is not None and result.seconds >= args.time_limit:
        return "time limit"
    return "interrupted"


def run_solve(args) -> int:
    """`tricksolver solve`."""
    game = load_game_checked(game_string_from(args.game, args.param))
    game_string = str(game)
    if args.iterations is None and args.target is None and args.time_limit is None:
        args.iterations = DEFAULT_ITERATIONS
    directory = args.out if args.out is not None else results.default_result_dir(game_string)
    args.engine = resolve_engine(args.engine, game)
    if args.engine == "public":
        parts = _public_parts_of(game, args.part)
        if args.part or len(parts[0]) > 1:
            from solver.sizes.truco_public import check_parts_fit

            check_parts_fit(game, parts[1], args.float32)  # before anything is built
            return run_parts(args, game, directory, *parts, _solve_into)
    elif args.part:
        raise ValueError("--part names a vira class of the public-tree engine (Truco)")
    elif args.float32:
        raise ValueError("--float32 is an option of the public-tree engine (--engine public)")
    _solve_into(args, game, directory)
    return 0


def _public_parts_of(game, labels: list[str]) -> tuple[list, list]:
    """(every sub-game of `game`, those named by --part: all if none)."""
    from solver.public.parts import part_named, public_parts

    parts = public_parts(game)
    return parts, [part_named(game, label) for label in labels] if labels else parts


def _solve_into(args, game, directory: pathlib.Path, part=None) -> dict:
    """Solve `game` (one sub-game of it if `part` is given) into `directory`; its summary."""
    from solver.public.tree import tree_name

    game_string = str(game) if part is None else tree_name(game, part)
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

    engine = solve if args.engine == "history" else functools.partial(
        _public_solve, part=part, float32=args.float32)
    hooks = {"on_progress": on_progress, "on_iteration": bar.advance,
             "on_phase": lambda name: _on_phase(name, bar, checkpointer)}
    bar.phase("building the tree")
    try:
        result = engine(game, algorithm=args.algorithm, iterations=args.iterations,
                       target_exploitability=args.target, time_limit=args.time_limit,
                       eval_every=args.eval_every, checkpoint=checkpointer, checkpoint_every=1,
                       progress=False, seed=args.seed,
                       resume=checkpoint.state if checkpoint else None,
                       cache=not args.no_cache, alpha=args.alpha, beta=args.beta,
                       gamma=args.gamma, **hooks)
    finally:
        bar.close()
    checkpointer.write(result.state)
    stopped_by = stop_reason(args, result)
    run = {**settings, "stopping": {"iterations": args.iterations, "target": args.target,
                                    "time_limit": args.time_limit},
           "stopped_by": stopped_by,
           "eval_every": args.eval_every if args.eval_every is not None else "by time",
           "seed": args.seed,
           "resumed_from_iteration": start_iteration if checkpoint else None}
    summary = results.build_summary(result, game_string, run, commit)
    results.save_result(directory, _named_policy(game, result.average_policy), curve, summary)
    print(format_solve_summary(summary, directory))
    if stopped_by == "interrupted":
        print(f"stopped early (Ctrl-C); continue with --resume --out {directory}")
    return summary




def _on_phase(name: str, bar: ProgressBar, checkpointer: Checkpointer) -> None:
    """Show the phase; after Ctrl-C, checkpoint at once (a second Ctrl-C during the final
    evaluation then loses nothing)."""
    if name == STOPPING:
        checkpointer.now = True
    bar.phase(name)


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

