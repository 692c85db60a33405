"""The `solve-match` subcommand: every score state of a match solved for the match-win
probability (`solver.matchgrid`), serially or on Ray, resumable, with a progress bar over the
states that also shows, run in this process, what the engine is doing (its `logging` messages:
the tree it reads or builds, each sub-game's latest exploitability); and the helpers
`show --score`, `exploit` and `chart` use on its directories."""
from __future__ import annotations

import logging
import pathlib
import sys
import time

from tqdm import tqdm

from solver import results
from solver.cli import non_negative_int, positive_float, positive_int
from solver.cli.games import game_string_from, load_game_checked
from solver.cli.help import HelpFormatter
from solver.cli.solve import HISTORY_LIMIT, history_tree_size
from solver.schedules import ALGORITHMS

MATCH_ENGINES = ("auto", "public", "history")

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
        "Ray cluster. Each hand is solved on the public tree where that engine takes the "
        "game (Le Truc with isomorphic=true: its two hand trees, one per dealer, are built "
        "once and re-scored for every state; two-player Truco with isomorphic=true: one "
        "tree per vira class, each solved to the target and combined with its probability), "
        "else on the history tree.",
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
    parser.add_argument("--engine", choices=MATCH_ENGINES, default="auto",
                        help="hand engine: public (Le Truc, isomorphic=true, at most one "
                        "redeal; two-player Truco, isomorphic=true, sighted), history (any hand "
                        "whose tree fits in memory), or auto (public where it takes the game; "
                        "default)")
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
                        help="history engine: read and write the compiled-tree cache (worth it "
                        "for hands that take long to compile; small hands compile faster than "
                        "it is looked up); the public engine always uses its tree cache")
    parser.add_argument("--no-symmetry", action="store_true",
                        help="solve every position; by default a position with score0 < "
                        "score1 is the mirror image of (score1, score0) with the seats "
                        "exchanged, V(a, b, d) = 1 - V(b, a, 1 - d), and is not solved again")
    parser.add_argument("--from-score", type=non_negative_int, default=0, metavar="S",
                        help="solve only the states where a player has at least S points "
                        "(their hands never reach the others), e.g. S = target - 1: Truco's "
                        "hands of eleven and the iron hand (default 0: every state)")
    parser.add_argument("--part-workers", type=positive_int, default=1, metavar="N",
                        help="solve N vira classes of a hand at a time in worker processes "
                        "(two-player Truco on the public tree): both cores on states that "
                        "depend on each other, such as --from-score 11's chain; the same "
                        "table (default 1)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(func=run_solve_match)


def run_solve_match(args) -> int:
    """`tricksolver solve-match`."""
    from solver.matchgrid import MatchSpec, Settings, solve_match, store
    from solver.matchgrid.runner import EngineChoice, run_settings
    from solver.matchgrid.summary import match_summary

    game = load_game_checked(game_string_from(args.game, args.param))
    spec = MatchSpec.of_game(game, args.from_score)
    engine = match_engine(args.engine, spec)
    if args.part_workers > 1 and engine != "public":
        raise ValueError(f"--part-workers: the public-tree engine's vira classes; this match "
                         f"is solved on the {engine} engine")
    choice = EngineChoice(engine, args.algorithm, args.cache or engine == "public",
                          args.part_workers)
    if engine == "public":
        _check_largest_hand_fits(spec)
    directory = args.out if args.out is not None else (
        results.default_result_dir(spec.game).with_name(
            f"match-{results.params_hash(spec.game)}"))
    if (pathlib.Path(directory) / results.SUMMARY_FILE).exists() and \
            results.read_summary(directory).get("objective") != "match":
        raise ValueError(f"{directory} holds another kind of result, not a match solve: "
                         f"choose another --out")
    settings = Settings(target_exploitability=args.target_exploitability,
                        iterations=args.iterations, eval_every=args.eval_every,
                        tolerance=args.tolerance, seat_symmetry=not args.no_symmetry)
    run = run_settings(spec, settings, choice)
    commit = results.git_commit()
    executor, execution = _executor(args, spec, settings, choice)
    total = len(spec.states())
    bar = tqdm(total=total, disable=args.quiet, file=sys.stderr, unit="state",
               desc="states", dynamic_ncols=True)
    status = BarStatus(bar)
    engine_log = logging.getLogger(ENGINE_LOGGER)
    started = time.perf_counter()

    def on_state(state, record) -> None:
        """Move the bar; show the state just solved."""
        bar.update(1)
        status.last, status.now = f"last={state.label}, p0_win={record['p0_win']:.4f}", ""
        status.show()

    def on_resumed(count: int) -> None:
        """Count the states a resumed run found already solved, and show them at once (as
        the bar's start: they do not count towards its rate and time left)."""
        bar.n = bar.initial = count
        bar.refresh()

    def on_records(records: dict) -> None:
        """Keep the table and summary true while the run goes on (`complete`: false)."""
        store.write_match(directory, spec, records, match_summary(
            spec, records, run, time.perf_counter() - started, execution, commit))

    level = engine_log.level
    if not args.quiet:
        engine_log.addHandler(status)
        engine_log.setLevel(logging.INFO)
    try:
        records = solve_match(spec, directory, settings, executor, run, resume=args.resume,
                              on_state=on_state, on_resumed=on_resumed,
                              on_records=on_records)
    finally:
        engine_log.removeHandler(status)
        engine_log.setLevel(level)
        bar.close()
    return _finish(spec, directory, records, run, time.perf_counter() - started, execution,
                   commit)


ENGINE_LOGGER = "solver.matchgrid"  # the engines' progress messages


class BarStatus(logging.Handler):
    """The text after the progress bar: the last state solved and the engine's latest
    message (what it is doing now, until the state is saved)."""

    def __init__(self, bar: tqdm):
        super().__init__(logging.INFO)
        self.bar = bar
        self.last = ""
        self.now = ""

    def emit(self, record: logging.LogRecord) -> None:
        """Show the engine's message as what it is doing now."""
        self.now = record.getMessage()
        self.show()

    def show(self) -> None:
        """Redraw the bar with the last state and the current work."""
        self.bar.set_postfix_str("; ".join(filter(None, [self.last, self.now])), refresh=True)


def _check_largest_hand_fits(spec) -> None:
    """ValueError (one line) before any state is solved if the public trees of the hand at the
    lowest scores (every raise allowed: the largest) surely do not fit in memory."""
    from solver.matchgrid.states import ScoreState
    from solver.public.parts import public_parts
    from solver.sizes.truco_public import check_parts_fit

    hand = spec.hand_game(ScoreState(*min(spec.positions(), key=sum), 1))
    check_parts_fit(hand, public_parts(hand), float32_option=False)  # it has no --float32


def match_engine(engine: str, spec) -> str:
    """The hand engine `--engine` means for the match `spec` (public if that engine takes the
    hand at every score); ValueError (one line) if the engine asked for cannot take it."""
    from solver.matchgrid.blind_hand import is_blind_hand
    from solver.matchgrid.states import ScoreState
    from solver.public.parts import public_parts

    hand = spec.hand_game(ScoreState(0, 0, 1))
    takes, why = True, ""
    for position in spec.positions():
        try:
            game = spec.hand_game(ScoreState(*position, 1))
            if not is_blind_hand(game):  # the engine solves a blind hand as the chance game
                public_parts(game)
        except ValueError as error:
            takes, why = False, f"at {position[0]}-{position[1]}, {error}"
            break
    if engine != "history" and takes:
        return "public"
    if engine == "public":
        raise ValueError(f"--engine public: {why}; use --engine history on a variant whose "
                         f"history tree fits")
    histories, how = history_tree_size(hand)
    if histories > HISTORY_LIMIT:
        raise ValueError(f"{hand}: a hand has {how}{histories:.2g} histories, too many for the "
                         f"history tree (limit {HISTORY_LIMIT:.0e})"
                         + (f", and the public-tree engine does not take it ({why})"
                            if why else "") + ": solve a smaller variant")
    return "history"


def _executor(args, spec, settings, choice):
    """(executor, description) from --workers / --address."""
    from solver.matchgrid import SerialExecutor

    if args.workers is None and args.address is None:
        return SerialExecutor(spec, settings, choice), "serial, 1 process"
    try:
        from solver.matchgrid.ray_executor import RayExecutor
    except ImportError as error:
        raise ValueError(f"--workers/--address need Ray ({error}): pip install "
                         f"'tricksolver[test]' or pip install ray") from error
    executor = RayExecutor(spec, settings, choice, args.workers, args.address)
    where = f"Ray cluster {args.address}" if args.address else "local Ray"
    return executor, f"{where}, {executor.capacity} worker(s)"


def _finish(spec, directory, records, run, seconds, execution, commit) -> int:
    """Write the table, summary and charts; print the summary."""
    from solver.matchgrid import store
    from solver.matchgrid.summary import format_summary, match_summary

    summary = match_summary(spec, records, run, seconds, execution, commit)
    store.write_match(directory, spec, records, summary)
    _draw(directory, summary)
    print(format_summary(summary, directory))
    return 0


def _draw(directory: pathlib.Path, summary: dict,
          out: pathlib.Path | None = None) -> list[pathlib.Path]:
    """The heat map of the match values and, for public-tree solves, the table and chart of
    the non-dealer's first decision per score (`solver.matchgrid.score_strategy`) and, for
    Truco, of the truco calls and runs (`solver.matchgrid.truco_calls`)."""
    from solver.analysis.truco import is_truco
    from solver.matchgrid import score_strategy, store, truco_calls
    from solver.matchgrid.chart import plot_match_values

    directory = pathlib.Path(directory)
    charts = out if out is not None else directory / "charts"
    game, target = summary["game"], int(summary["target"])
    paths = plot_match_values(store.read_values(directory), game, target, charts)
    if summary.get("engine") == "public":
        frequencies = score_strategy.state_frequencies(directory)
        paths += score_strategy.write_tables(
            frequencies, directory / "tables", f"The hand's first decision per score state "
            f"of `{game}` (match to {target}; the non-dealer's, in a Truco hand of eleven the "
            f"side at eleven's): P(action) over his hands, from each state's equilibrium; "
            f"`tricksolver chart {directory}` redraws it.")
        paths += score_strategy.plot_first_decision(frequencies, game, target, charts)
        paths += score_strategy.write_by_hand_table(directory, directory / "tables")
        if is_truco(load_game_checked(game)):
            paths += truco_calls.write_calls(directory, game, target, charts)
    return paths


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
    mirror_of = results.read_summary(path).get("mirror_of")
    if mirror_of is not None:
        raise ValueError(f"{state.label} is the mirror image of {mirror_of} (the seats "
                         f"exchanged: player 0 here is player 1 there); show it with "
                         f"--score {mirror_of}")
    return path


def exploit_match_state(saved, label: str | None = None) -> float:
    """A match state's exploitability (of its sub-game `label`, given it; None: the only
    one) recomputed in win-probability units, with the terminal utilities it was solved with:
    on the public tree for a public-engine state, else on its hand game's compiled history
    tree."""
    from solver.public.cfr import PublicPolicy

    utility = {float(p): float(u) for p, u in saved.summary["match"]["utility_of_points"]}
    if isinstance(saved.policy, PublicPolicy):
        from solver.matchgrid.public_engine import PublicEngine

        low, high = PublicEngine().bracket(results.base_game_string(saved.game_string),
                                           utility, saved.policy, label)
        return (high - low) / 4
    from solver.history.best_response import nash_conv_of_array
    from solver.history.policy import policy_array
    from solver.history.tree import compile_game
    from solver.matchgrid.engine import reweighted

    game = load_game_checked(saved.game_string)
    tree = reweighted(compile_game(game), utility)
    return nash_conv_of_array(tree, policy_array(tree, saved.policy, game)) / 4


def chart_match(directory: pathlib.Path, out: pathlib.Path | None) -> list[pathlib.Path]:
    """`chart DIR` of a match solve: the heat map from match_values.csv, and the first
    decision per score of a public-tree solve."""
    return _draw(directory, results.read_summary(directory), out)
