"""The `tricksolver` command line.

Each subcommand lives in its own module, which exposes `add_parser(subparsers)`; the parser it
adds sets `func(args) -> int`. Bad input of any kind (unknown game, bad parameter, missing or
corrupt file) is reported as one line on stderr with exit code 2, never a traceback.
"""
from __future__ import annotations

import argparse
import importlib
import sys

import pyspiel

from solver.cli.help import HelpFormatter

# Modules that provide subcommands, in the order `--help` lists them.
COMMAND_MODULES = (
    "solver.cli.solve",
    "solver.cli.solve_lock",  # adds --lock to solve (no command of its own): after solve
    "solver.cli.solve_match",
    "solver.cli.solution",
    "solver.cli.compact",
    "solver.cli.match",
    "solver.cli.play",
    "solver.cli.bench",
    "solver.cli.sizes",
    "solver.cli.cache",
)

EXIT_BAD_INPUT = 2

QUICK_START = """\
a first session (a small Le Truc: 4 ranks, 2-card hands, no redeal; seconds):
  tricksolver solve python_le_truc -p num_ranks=4 -p hand_size=2 -p isomorphic=true \\
      -p max_redeals=0 --target 1e-4 --out runs/le_truc/first
  tricksolver chart runs/le_truc/first               # charts and tables in .../first/charts
  tricksolver show runs/le_truc/first --hand '7 A'
  tricksolver exploit runs/le_truc/first
Results go to runs/ (git-ignored) unless --out says otherwise. Compiled trees are cached in
$TRICKSOLVER_CACHE (default ~/.cache/tricksolver), capped at 8 GiB ($TRICKSOLVER_CACHE_MAX);
'tricksolver cache' shows its size, 'tricksolver cache --clear' empties it.
'tricksolver COMMAND --help' explains each command."""


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line on stderr (exit code 2), naming the
    command and pointing at its --help, instead of the usage block."""

    def error(self, message: str):
        """Print `PROG: error: MESSAGE (see PROG --help)` and exit with code 2."""
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def positive_int(text: str) -> int:
    """argparse type: a whole number >= 1."""
    return _whole_number_from(text, 1)


def non_negative_int(text: str) -> int:
    """argparse type: a whole number >= 0."""
    return _whole_number_from(text, 0)


def _whole_number_from(text: str, least: int) -> int:
    """`text` as a whole number >= `least` (ArgumentTypeError otherwise)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"{text} must be at least {least}")
    return value


def positive_float(text: str) -> float:
    """argparse type: a finite number > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text} must be a positive number")
    return value


class CliError(Exception):
    """A user error: printed as one line, exit code 2."""


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every subcommand registered."""
    parser = OneLineParser(
        prog="tricksolver",
        description="Game-theory solver for bluffing trick-taking card games "
        "(Le Truc, Truco Paulista, Trucomano, Two-Ten-Jack).",
        epilog=QUICK_START, formatter_class=HelpFormatter,
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).add_parser(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `tricksolver` console script."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # --help (0) or a usage error, already printed on one line
        return exit_.code if isinstance(exit_.code, int) else EXIT_BAD_INPUT
    try:
        return int(args.func(args) or 0)
    except (CliError, ValueError, pyspiel.SpielError, OSError) as error:
        message = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        print(f"tricksolver {args.command}: error: {message}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print(f"tricksolver {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
