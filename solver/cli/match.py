"""`tricksolver match`: duplicate-deal matches between two bots, and the table of saved runs
pooled (`solver.play.match`).

With `--json PATH` a match saves its progress in `PATH.partial` (atomically, after a deal, at
most every `SAVE_SECONDS`: a fast match is not slowed down by rewriting it) and removes it once
PATH is written; `--resume` continues from it, so a long match (IS-MCTS with a thousand
simulations a move: hours) survives a kill, losing at most a minute and the deal in play, and
adds up over several sessions.
"""
from __future__ import annotations

import dataclasses
import json
import pathlib
import shlex
import time

from solver.atomic import atomic_write_bytes
from solver.cli import positive_int
from solver.cli.games import load_game_checked
from solver.cli.help import HelpFormatter
from solver.play.match import (MatchProgress, MatchSummary, format_summary, play_match,
                                pool_matches)

DEFAULT_HANDS = 1000
DEFAULT_SEED = 0
SAVE_SECONDS = 60.0  # at most this often is a match's progress saved in PATH.partial


def add_parser(subparsers):
    """Registers `match`."""
    parser = subparsers.add_parser(
        "match", help="play two bots against each other on duplicate deals",
        description="Plays bot A against bot B; each deal twice with seats swapped. Prints bot "
        "A's mean points per deal with a 95% confidence interval. With --summarize, plays "
        "nothing: pools saved runs (--json files) of the same bots on the same game, e.g. the "
        "parts of a long match run with different seeds, and prints them as one table.",
        epilog="examples:\n  tricksolver match python_two_ten_jack --bot heuristic --bot random "
        "--hands 1000 --seed 1 --json runs/heuristic_vs_random.json\n"
        "  tricksolver match python_two_ten_jack --bot pimc --bot ismcts:1000 --json "
        "runs/long.json --resume   (continues runs/long.json.partial)\n"
        "  tricksolver match --summarize runs/*.json --markdown runs/matches.md",
        formatter_class=HelpFormatter)
    parser.add_argument("game", nargs="?", metavar="GAME",
                        help='game string, e.g. "python_two_ten_jack(hand_size=6)"')
    parser.add_argument("--bot", action="append", metavar="SPEC",
                        help="random, heuristic, ismcts[:SIMULATIONS], strategy:DIR (a "
                        "solution); Two-Ten-Jack: pimc[:WORLDS[:NODES]], pimc-match and "
                        "pimc-infer alike, cheater alike (PIMC that sees the opponent's "
                        "hand); give it twice")
    parser.add_argument("--hands", type=positive_int, help=f"duplicate deals ({DEFAULT_HANDS})")
    parser.add_argument("--seed", type=int, help=f"random seed ({DEFAULT_SEED})")
    parser.add_argument("--json", metavar="PATH",
                        help="also write the summary, per-deal points and command as JSON; "
                        f"progress is saved in PATH.partial every {SAVE_SECONDS:.0f} s")
    parser.add_argument("--resume", action="store_true",
                        help="with --json PATH: continue the match saved in PATH.partial")
    parser.add_argument("--summarize", nargs="+", metavar="JSON",
                        help="pool these saved runs into one table instead of playing")
    parser.add_argument("--markdown", metavar="PATH",
                        help="with --summarize: also write the table as Markdown")
    parser.set_defaults(func=run)


def run(args) -> int:
    """Runs the match and prints its summary line, or summarizes saved runs."""
    if args.summarize:
        return _summarize(args)
    if args.markdown:
        raise ValueError("--markdown goes with --summarize (a match prints one line)")
    if args.game is None:
        raise ValueError("give GAME and --bot twice to play, or --summarize JSON... to pool runs")
    if args.bot is None or len(args.bot) != 2:
        raise ValueError(f"--bot must be given exactly twice, got {len(args.bot or [])}")
    hands = DEFAULT_HANDS if args.hands is None else args.hands
    seed = DEFAULT_SEED if args.seed is None else args.seed
    game = load_game_checked(args.game)
    partial = _partial_path(args.json) if args.json else None
    resume = _saved_progress(partial, args.resume)
    save = None if partial is None else ProgressSaver(partial, SAVE_SECONDS)
    summary = play_match(game, args.bot[0], args.bot[1], hands, seed, resume=resume,
                         after_deal=save)
    print(format_summary(summary))
    if args.json:
        record = {**dataclasses.asdict(summary), "command": _command_line(args.game, args.bot,
                                                                          hands, seed)}
        atomic_write_bytes(pathlib.Path(args.json), json.dumps(record, indent=1).encode())
        partial.unlink(missing_ok=True)
    return 0


def _partial_path(json_path: str) -> pathlib.Path:
    """Where a match saved to `json_path` keeps its progress between deals."""
    path = pathlib.Path(json_path)
    return path.with_name(path.name + ".partial")


def _saved_progress(partial: pathlib.Path | None, resume: bool) -> MatchProgress | None:
    """The progress to continue (`--resume`), None for a fresh match; ValueError if --resume
    has nothing to continue, or if a fresh match would overwrite saved progress."""
    if partial is None:
        if resume:
            raise ValueError("--resume needs --json PATH (the match saved in PATH.partial)")
        return None
    if not resume:
        if partial.exists():
            raise ValueError(f"{partial} holds a match in progress: add --resume to continue "
                             "it, or delete it to start over")
        return None
    if not partial.exists():
        raise ValueError(f"--resume: no match in progress at {partial}")
    try:
        return MatchProgress.from_record(json.loads(partial.read_text()))
    except ValueError as error:
        raise ValueError(f"{partial}: {str(error).splitlines()[0]}") from error


class ProgressSaver:
    """The `after_deal` callback of a match saved to `partial`: writes the progress atomically
    once `seconds` have passed since the last write (or the start)."""

    def __init__(self, partial: pathlib.Path, seconds: float):
        self.partial, self.seconds = partial, seconds
        self.last_write = time.monotonic()

    def __call__(self, progress: MatchProgress) -> None:
        """Save `progress` if it is due."""
        if time.monotonic() - self.last_write >= self.seconds:
            atomic_write_bytes(self.partial, json.dumps(dataclasses.asdict(progress)).encode())
            self.last_write = time.monotonic()


def _command_line(game: str, bots: list[str], hands: int, seed: int) -> str:
    """The command that reproduces this match."""
    bot_options = " ".join(f"--bot {shlex.quote(spec)}" for spec in bots)
    return f"tricksolver match {shlex.quote(game)} {bot_options} --hands {hands} --seed {seed}"


def _summarize(args) -> int:
    """`match --summarize`: prints the pooled table, and writes it as Markdown if asked."""
    given = [option for option, value in (("GAME", args.game), ("--bot", args.bot),
                                          ("--hands", args.hands), ("--seed", args.seed),
                                          ("--json", args.json)) if value is not None]
    if args.resume:
        given.append("--resume")
    if given:
        raise ValueError(f"--summarize pools saved runs: drop {', '.join(given)}")
    records = [_read_record(pathlib.Path(path)) for path in args.summarize]
    summaries = [summary for summary, _ in records]
    games = sorted({summary.game for summary in summaries})
    if len(games) > 1:
        raise ValueError(f"the runs are of {len(games)} games ({', '.join(games)}): "
                         "summarize one game at a time")
    table = _table_lines(summaries, [command for _, command in records])
    print("\n".join(table))
    if args.markdown:
        command = shlex.join(["tricksolver", "match", "--summarize", *args.summarize,
                              "--markdown", args.markdown])
        atomic_write_bytes(pathlib.Path(args.markdown), _markdown(table, command).encode())
    return 0


def _read_record(path: pathlib.Path) -> tuple[MatchSummary, str]:
    """One saved run (`match --json`) and the command that played it."""
    try:
        record = json.loads(path.read_text())
        return MatchSummary.from_record(record), str(record.get("command", "(not recorded)"))
    except ValueError as error:
        raise ValueError(f"{path}: {str(error).splitlines()[0]}") from error


def _table_lines(summaries: list[MatchSummary], commands: list[str]) -> list[str]:
    """The game and one table row per pooled pairing, with the commands of its runs."""
    lines = [f"Game: `{summaries[0].game}`.", "",
             "| bot A | bot B | deals | mean points per deal for A | 95% CI "
             "| ms per move, A; B (median, p95) | command(s) |",
             "|---|---|---|---|---|---|---|"]
    for pooled in pool_matches(summaries):
        runs = "<br>".join(f"`{commands[i]}`" for i in pooled.runs)
        timings = "<br>".join(_move_ms_cell(summaries[i]) for i in pooled.runs)
        lines.append(f"| {pooled.bot_a} | {pooled.bot_b} | {pooled.deals} | {pooled.mean:+.3f} "
                     f"| [{pooled.ci_low:+.3f}, {pooled.ci_high:+.3f}] | {timings} | {runs} |")
    return lines


def _move_ms_cell(summary: MatchSummary) -> str:
    """`19.2, 34.7; 0.02, 0.03` (one run's move times), or — where the run was not timed."""
    timed = summary.move_ms or {}
    if not all(timed.get(seat, {}).get("moves") for seat in "ab"):
        return "—"
    return "; ".join(f"{timed[seat]['median']:.2f}, {timed[seat]['p95']:.2f}" for seat in "ab")


def _markdown(table: list[str], command: str) -> str:
    """The Markdown page: what the figures are, the table, the command that wrote it."""
    lines = ["# Duplicate matches", "",
             ("Each deal is played twice with the seats swapped; the figure is bot A's points per "
              "deal (mean over both seats), 95% confidence interval = mean ± 1.96 s.e. Runs of "
              "the same bots (e.g. parts with different seeds) are pooled over all their deals."),
             "",
             *table, "", f"Summarised by `{command}`."]
    return "\n".join(lines) + "\n"
