"""The `solve`, `exploit`, `show` and `chart` subcommands of `tricksolver`.

`solve` runs `solver.solve` with a progress bar, checkpoints the solver state (every N
iterations or S seconds, atomically) and writes a result directory (`solver.results`);
`--resume` continues from the directory's checkpoint. `exploit` recomputes the exploitability
of a saved strategy exactly; `show` prints the strategy at one decision in words; `chart` draws
the exploitability curves, strategy grids, bluffing chart and tables (`solver.charts`).
"""
from __future__ import annotations

import argparse
import dataclasses
import difflib
import math
import pathlib
import sys
import time

import pyspiel
from tqdm import tqdm

from solver import results
from solver.cfr import solve
from solver.policy import AveragePolicy
from solver.schedules import ALGORITHMS
from solver.tree import load_game

DEFAULT_ITERATIONS = 1000
ENGINES = ("auto", "history", "public")
HISTORY_LIMIT = 100_000_000  # histories the history engine holds in RAM here (~12 GB)
MAX_SHOWN = 12


def add_parser(subparsers) -> None:
    """Register solve, chart, show and exploit."""
    _add_solve(subparsers)
    _add_chart(subparsers)
    _add_show(subparsers)
    _add_exploit(subparsers)


# --- solve -----------------------------------------------------------------------------------
def _add_solve(subparsers) -> None:
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


def game_string_from(name: str, params: list[str]) -> str:
    """`name(k=v,...)` from a game name or string plus `key=value` overrides."""
    base, _, inner = name.partition("(")
    pairs = [p for p in inner.rstrip(")").split(",") if p] if inner else []
    merged = dict(_split_param(p) for p in pairs)
    merged.update(_split_param(p) for p in params)
    if not merged:
        return base
    return base + "(" + ",".join(f"{k}={v}" for k, v in merged.items()) + ")"


def load_game_checked(game_string: str) -> pyspiel.Game:
    """`load_game`, after checking the name and parameters here: OpenSpiel's C++ side prints
    its own multi-line message to stderr before raising, which a one-line error must avoid."""
    import games  # noqa: F401  (registers the python_* games)

    name, _, inner = game_string.partition("(")
    game_type = {t.short_name: t for t in pyspiel.registered_games()}.get(name)
    if game_type is None:
        close = difflib.get_close_matches(name, pyspiel.registered_names(), n=3)
        hint = f"did you mean {' or '.join(close)}?" if close else "Le Truc is python_le_truc"
        raise ValueError(f"unknown game {name!r}; {hint}")
    if inner and "(" not in inner:
        spec = game_type.parameter_specification
        for key, value in (_split_param(p) for p in inner.rstrip(")").split(",") if p):
            _check_param(name, spec, key, value)
    return load_game(game_string)


def _check_param(game: str, spec: dict, key: str, value: str) -> None:
    """ValueError unless `key` is a parameter of `game` and `value` parses as its type."""
    if key not in spec:
        raise ValueError(f"{game} has no parameter {key!r}; its parameters: {', '.join(spec)}")
    default = spec[key]
    if isinstance(default, bool):
        ok, kind = value in ("true", "false", "True", "False"), "true or false"
    elif isinstance(default, int):
        ok, kind = value.lstrip("-").isdigit(), "a whole number"
    elif isinstance(default, float):
        ok, kind = _is_float(value), "a number"
    else:
        ok, kind = True, "text"
    if not ok:
        raise ValueError(f"{key}={value!r} is not allowed: {kind} (default {default!r})")


def _is_float(text: str) -> bool:
    """Whether `text` parses as a float."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def _split_param(text: str) -> tuple[str, str]:
    """`key=value` -> (key, value); ValueError otherwise."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip() or not value.strip():
        raise ValueError(f"bad game parameter {text!r}: write key=value, e.g. num_ranks=4")
    return key.strip(), value.strip()


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

    def update(self, iteration: int, seconds: float, exploitability: float) -> None:
        """Called by the solver at each evaluation."""
        self.points.append((iteration, seconds, exploitability))
        position = seconds if self.by_time else iteration
        self.bar.update(max(0.0, position - self.bar.n))
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
                       progress=False, on_progress=on_progress, seed=args.seed,
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
    """`solver.public_cfr.solve_public` (imported on use)."""
    from solver.public_cfr import solve_public

    return solve_public(game, **settings)


def _named_policy(game, policy):
    """`policy` with its information state strings filled in the fast way where one exists."""
    from solver import analysis

    if not isinstance(policy, AveragePolicy) or policy.names is not None or policy.tree is None:
        return policy
    names = analysis.fast_info_state_names(game, policy.tree)
    return policy if names is None else dataclasses.replace(policy, names=names)


def format_solve_summary(summary: dict, directory: pathlib.Path) -> str:
    """What `solve` prints when it is done."""
    return (f"game            {summary['game']}\n"
            f"algorithm       {summary['algorithm']}, {summary['iterations']} iterations, "
            f"{summary['seconds']:.1f} s (+{summary['compile_seconds']:.1f} s compile)\n"
            f"exploitability  {summary['exploitability']:.6g} points per hand\n"
            f"game value      {summary['game_value']:+.6f} points per hand for player 0\n"
            f"saved           {directory}/  (strategy.npz, curve.csv, summary.json)")


# --- exploit ---------------------------------------------------------------------------------
def _add_exploit(subparsers) -> None:
    """The `exploit` subcommand's parser."""
    parser = subparsers.add_parser(
        "exploit", help="recompute a saved strategy's exploitability exactly",
        description="Load RESULT/strategy.npz and compute its exploitability (NashConv / 2, "
        "points per hand) by exact best response; compare with RESULT/summary.json.")
    parser.add_argument("result", metavar="RESULT", type=pathlib.Path, help="result directory")
    parser.set_defaults(func=run_exploit)


def run_exploit(args) -> int:
    """`tricksolver exploit`."""
    from solver.best_response import exploitability

    saved = results.load_result(args.result)
    game = load_game_checked(saved.game_string)
    if isinstance(saved.policy, AveragePolicy):
        value = exploitability(game, saved.policy)
    else:
        value = _public_solver(game, saved.policy).exploitability()
    recorded = saved.summary.get("exploitability")
    print(f"game            {saved.game_string}")
    print(f"exploitability  {value:.9g} points per hand (recomputed)")
    if recorded is not None:
        print(f"summary.json    {recorded:.9g} (difference {abs(value - recorded):.2g})")
    return 0


# --- show ------------------------------------------------------------------------------------
def _add_show(subparsers) -> None:
    """The `show` subcommand's parser."""
    parser = subparsers.add_parser(
        "show", help="print the strategy at one decision in words",
        description="Print the saved strategy at the information states matching --infostate: "
        "an exact information state string, or a fragment (if it matches more than "
        f"{MAX_SHOWN}, only the decisions right after the fragment are shown).",
        epilog="example:\n  tricksolver show results/le_truc/small "
        "--infostate 'p1 | hand 7 A | 0:Raise'",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("result", metavar="RESULT", type=pathlib.Path, help="result directory")
    parser.add_argument("--infostate", required=True, metavar="TEXT",
                        help="information state string or a fragment of one")
    parser.set_defaults(func=run_show)


def matching_info_states(names: list[str], text: str) -> list[str]:
    """`text` itself if it is an information state; else the states containing it, narrowed
    to those where nothing but the rest of one action follows `text` if there are too many."""
    if text in set(names):
        return [text]
    matches = [name for name in names if text in name]
    if len(matches) <= MAX_SHOWN:
        return matches
    return [name for name in matches if not _more_actions(name[name.index(text) + len(text):])]


def _more_actions(tail: str) -> bool:
    """Whether an information state's tail holds another action or hand."""
    return ", " in tail or " | " in tail


def run_show(args) -> int:
    """`tricksolver show`."""
    from solver import analysis

    saved = results.load_result(args.result)
    if not isinstance(saved.policy, AveragePolicy):
        return _show_public(saved, args.infostate)
    names = saved.policy.info_state_strings()
    matches = matching_info_states(names, args.infostate)
    if not matches:
        raise ValueError(f"no information state contains {args.infostate!r} "
                         f"(example of one: {names[0]!r})")
    if len(matches) > MAX_SHOWN:
        raise ValueError(f"{len(matches)} information states contain {args.infostate!r}; be more "
                         f"specific, e.g. {matches[0]!r}")
    game = load_game_checked(saved.game_string)
    for name in matches:
        print(analysis.describe_decision(game, name, saved.policy.action_probabilities(name)))
    return 0


def _public_solver(game, policy):
    """A public-tree solver holding a saved public policy."""
    from solver.public_cfr import solver_for

    return solver_for(game, policy)


def _show_public(saved, text: str) -> int:
    """`show` for a public-tree result: its information states are too many to list, so
    `--infostate` must be one whole string."""
    from solver import analysis

    game = load_game_checked(saved.game_string)
    try:
        probabilities = _public_solver(game, saved.policy).action_probabilities(text)
    except (ValueError, StopIteration, KeyError, IndexError):
        raise ValueError(f"{text!r} is not an information state of this game; a public-tree "
                         f"result needs a whole one, e.g. 'p1 | hand 7 A 9 | 0:Keep, 0:Raise'"
                         ) from None
    print(analysis.describe_decision(game, text, probabilities))
    return 0


# --- chart -----------------------------------------------------------------------------------
CHART_KINDS = ("curve", "strategy", "bluff", "tables", "all")


def _add_chart(subparsers) -> None:
    """The `chart` subcommand's parser."""
    parser = subparsers.add_parser(
        "chart", help="draw exploitability curves, strategy grids, the bluffing chart, tables",
        description="Charts (PNG and SVG) and tables (CSV and Markdown) from saved results. "
        "curve: exploitability vs iterations and vs seconds, log-log, one line per RESULT "
        "(e.g. one per algorithm). strategy: for Le Truc, a grid of hands x actions per "
        "decision context with each hand's EV. bluff: raise/rest frequencies split into value "
        "bets and bluffs, and call/fold frequencies facing a raise. tables: the same numbers "
        "as CSV and Markdown.")
    parser.add_argument("results", metavar="RESULT", type=pathlib.Path, nargs="+",
                        help="result directories (strategy charts use the first)")
    parser.add_argument("--kind", choices=CHART_KINDS, default="all",
                        help="what to draw (default: all)")
    parser.add_argument("--out", type=pathlib.Path, metavar="DIR",
                        help="output directory (default: RESULT/charts)")
    parser.set_defaults(func=run_chart)


def run_chart(args) -> int:
    """`tricksolver chart`."""
    from solver import charts

    saved = [results.load_result(path) for path in args.results]
    for result in saved:
        load_game_checked(result.game_string)
    out = args.out if args.out is not None else saved[0].path / "charts"
    written = charts.write_charts(saved, out, args.kind)
    for path in written:
        print(path)
    return 0
