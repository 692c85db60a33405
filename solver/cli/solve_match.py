"""The `solve-match` subcommand: every score state of a match solved for the match-win
probability (`solver.matchgrid`), serially or on Ray, resumable, with a progress bar over the
states; and the helpers `show --score`, `exploit` and `chart` use on its directories."""
from __future__ import annotations

import pathlib
import sys
import time

from tqdm import tqdm

from solver import results
from solver.cli import positive_float, positive_int
from solver.cli.games import game_string_from, load_game_checked
from solver.cli.help import HelpFormatter
from solver.cli.solve import HISTORY_LIMIT, history_tree_size
from solver.schedules import ALGORITHMS

DEFAULT_TARGET = 1e-3
DEFAULT_ITERATIONS = 100_000


def add_parser(subparsers) -> None:
    """The `solve-match` subcommand's parser."""
    parser = subparsers.add_parser(
        "solve-match", help="solve every score state of a match for the match-win probability",
        description="Solve a Truc-family match state by state: for every score state "
        "(score0, score1, dealer) below the target, the hand game with those scores, its "
        "terminal payoff for player 0 being 2*V(next state) - 1, V the probability that "
        "player 0 wins the match (+1/-1 where the match ends). States are solved by backward "
        "induction from the highest scores; the two dealers at one score, linked by void "
        "hands, as a fixed point. Writes DIR/match_values.csv (score0,score1,dealer,p0_win), "
        "DIR/summary.json (per-state exploitability, error bound, iterations, seconds, "
        "fixed-point residual, totals), DIR/states/A-B-dD/ (each state's strategy, a result "
        "directory: 'tricksolver show DIR --score A-B-dD', 'tricksolver exploit "
        "DIR/states/A-B-dD') and DIR/charts/match_values.png (the heat map; 'tricksolver "
        "chart DIR' redraws it). Every state is saved as it finishes: --resume continues a "
        "killed run. Without --workers the states are solved one after the other in this "
        "process; --workers N runs N at a time on a local Ray runtime, --address joins a "
        "Ray cluster. This version solves each hand on the history tree (the public-tree "
        "engine will follow for the full-size games).",
        epilog="examples:\n"
        "  tricksolver solve-match python_le_truc -p num_ranks=3 -p hand_size=1 "
        "-p isomorphic=true -p max_redeals=0 -p target=3 --out runs/match_tiny   # seconds\n"
        "  tricksolver solve-match python_le_truc -p num_ranks=4 -p hand_size=2 "
        "-p isomorphic=true -p max_redeals=0 --workers 2 --out runs/match_small\n"
        "  tricksolver show runs/match_small --score 10-7-d1 --hand '7 A'\n"
        "on a cluster (every machine with this project installed): 'ray start --head' on "
        "one, 'ray start --address HEAD:6379' on the others, then\n"
        "  tricksolver solve-match GAME --address HEAD:6379 --out DIR",
        formatter_class=HelpFormatter)
    parser.add_argument("game", metavar="GAME",
                        help="python_le_truc, python_truco_paulista or python_trucomano, or a "
                        "game string; its score0, score1 and dealer are set per state")
    parser.add_argument("-p", "--param", action="append", default=[], metavar="KEY=VALUE",
                        help="game parameter (repeatable), e.g. -p target=6")
    parser.add_argument("--target-exploitability", type=positive_float, default=DEFAULT_TARGET,
                        metavar="X", help="each state's exploitability target, in match-win "
                        f"probability (default {DEFAULT_TARGET:g})")
    parser.add_argument("--iterations", type=positive_int, default=DEFAULT_ITERATIONS,
                        metavar="N", help="at most N CFR iterations per state (default "
                        f"{DEFAULT_ITERATIONS})")
    parser.add_argument("--eval-every", type=positive_int, default=10, metavar="N",
                        help="measure a state's exploitability every N iterations (default 10; "
                        "fixed, not by time, so that any machine gives the same table)")
    parser.add_argument("--tolerance", type=positive_float, metavar="T",
                        help="void-hand fixed point: stop when no value moves by more than T "
                        "(default: the target exploitability / 10)")
    parser.add_argument("--algorithm", choices=ALGORITHMS, default="dcfr",
                        help="CFR variant (default: dcfr)")
    parser.add_argument("--workers", type=positive_int, metavar="N",
                        help="solve N positions at a time on Ray (local unless --address)")
    parser.add_argument("--address", metavar="HOST:PORT",
                        help="an existing Ray cluster's address (ray start --head prints it)")
    parser.add_argument("--out", type=pathlib.Path, metavar="DIR",
                        help="result directory (default runs/<game>/match-<params-hash>/)")
    parser.add_argument("--resume", action="store_true",
                        help="keep the states DIR already holds and solve the rest")
    parser.add_argument("--cache", action="store_true",
                        help="read and write the compiled-tree cache (worth it for hands that "
                        "take long to compile; small hands compile faster than it is looked "
                        "up)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(func=run_solve_match)


def run_solve_match(args) -> int:
    """`tricksolver solve-match`."""
    from solver.matchgrid import MatchSpec, Settings, solve_match
    from solver.matchgrid.runner import run_settings
    from solver.matchgrid.states import ScoreState

    game = load_game_checked(game_string_from(args.game, args.param))
    spec = MatchSpec.of_game(game)
    histories, how = history_tree_size(spec.hand_game(ScoreState(0, 0, 1)))
    if histories > HISTORY_LIMIT:
        raise ValueError(f"{spec.game}: a hand has {how}{histories:.2g} histories, too many for "
                         f"the history tree (limit {HISTORY_LIMIT:.0e}); match solving on the "
                         f"public tree is not there yet (issue 13): solve a smaller variant")
    directory = args.out if args.out is not None else (
        results.default_result_dir(spec.game).with_name(
            f"match-{results.params_hash(spec.game)}"))
    if (pathlib.Path(directory) / results.SUMMARY_FILE).exists() and \
            results.read_summary(directory).get("objective") != "match":
        raise ValueError(f"{directory} holds another kind of result, not a match solve: "
                         f"choose another --out")
    settings = Settings(target_exploitability=args.target_exploitability,
                        iterations=args.iterations, eval_every=args.eval_every,
                        tolerance=args.tolerance)
    run = run_settings(spec, settings, args.algorithm, "history")
    commit = results.git_commit()
    executor, execution = _executor(args, spec, settings)
    total = len(spec.states())
    bar = tqdm(total=total, disable=args.quiet, file=sys.stderr, unit="state",
               desc="states", dynamic_ncols=True)
    started = time.perf_counter()

    def on_state(solution) -> None:
        """Move the bar; show the state just solved."""
        bar.update(1)
        bar.set_postfix({"last": solution.state.label, "p0_win": f"{solution.p0_win:.4f}"},
                        refresh=True)

    try:
        records = solve_match(spec, directory, settings, executor, run, resume=args.resume,
                              on_state=on_state, on_resumed=lambda n: bar.update(n))
    finally:
        bar.close()
    return _finish(spec, directory, records, run, time.perf_counter() - started, execution,
                   commit)


def _executor(args, spec, settings):
    """(executor, description) from --workers / --address."""
    from solver.matchgrid import SerialExecutor

    cache = args.cache
    if args.workers is None and args.address is None:
        return SerialExecutor(spec, settings, args.algorithm, cache), "serial, 1 process"
    try:
        from solver.matchgrid.ray_executor import RayExecutor
    except ImportError as error:
        raise ValueError(f"--workers/--address need Ray ({error}): pip install "
                         f"'tricksolver[test]' or pip install ray") from error
    executor = RayExecutor(spec, settings, args.algorithm, cache, args.workers, args.address)
    where = f"Ray cluster {args.address}" if args.address else "local Ray"
    return executor, f"{where}, {executor.capacity} worker(s)"


def _finish(spec, directory, records, run, seconds, execution, commit) -> int:
    """Write the table, summary and chart; print the summary."""
    from solver.matchgrid import store
    from solver.matchgrid.chart import plot_match_values
    from solver.matchgrid.summary import format_summary, match_summary

    summary = match_summary(spec, records, run, seconds, execution, commit)
    store.write_match(directory, spec, records, summary)
    values = {state: record["p0_win"] for state, record in records.items()}
    plot_match_values(values, spec.game, spec.target, pathlib.Path(directory) / "charts")
    print(format_summary(summary, directory))
    return 0


def state_directory_for(directory: pathlib.Path, score: str) -> pathlib.Path:
    """`show DIR --score A-B[-dD]`: the state's result directory (dealer 1 if not given: the
    hand-level games' default, player 0 leads)."""
    from solver.matchgrid import store
    from solver.matchgrid.states import parse_label

    if not store.is_match_directory(directory):
        raise ValueError(f"--score needs a match solve's directory (solve-match --out); "
                         f"{directory} is not one")
    state = parse_label(score)
    path = store.state_directory(directory, state)
    if not path.is_dir():
        raise ValueError(f"{directory} has no solved state {state.label} "
                         f"(states are A-B-dD with both scores below the target)")
    return path


def exploit_match_state(saved) -> float:
    """A match state's exploitability recomputed in win-probability units: its hand game
    compiled, the terminals re-weighted with the utilities it was solved with."""
    from solver.history.best_response import nash_conv_of_array
    from solver.history.policy import policy_array
    from solver.history.tree import compile_game
    from solver.matchgrid.engine import reweighted

    game = load_game_checked(saved.game_string)
    utility = {float(p): float(u) for p, u in saved.summary["match"]["utility_of_points"]}
    tree = reweighted(compile_game(game), utility)
    return nash_conv_of_array(tree, policy_array(tree, saved.policy, game)) / 4


def chart_match(directory: pathlib.Path, out: pathlib.Path | None) -> list[pathlib.Path]:
    """`chart DIR` of a match solve: the heat map from match_values.csv."""
    from solver.matchgrid import store
    from solver.matchgrid.chart import plot_match_values

    summary = results.read_summary(directory)
    values = store.read_values(directory)
    return plot_match_values(values, summary["game"], int(summary["target"]),
                             out if out is not None else pathlib.Path(directory) / "charts")
