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

# Modules that provide subcommands, in the order `--help` lists them.
COMMAND_MODULES = (
    "solver.cli.solve",
    "solver.cli.solution",
    "solver.cli.match",
    "solver.cli.bench",
    "solver.cli.sizes",
)

EXIT_BAD_INPUT = 2

QUICK_START = """\
a first session (a small Le Truc: 4 ranks, 2-card hands, no redeal):
  tricksolver solve python_le_truc -p num_ranks=4 -p hand_size=2 -p isomorphic=true \\
      -p max_redeals=0 --target 1e-4 --out results/le_truc/first
  tricksolver chart results/le_truc/first            # charts and tables in .../first/charts
  tricksolver show results/le_truc/first --infostate 'p0 | hand 7 A'
  tricksolver exploit results/le_truc/first
'tricksolver COMMAND --help' explains each command."""


class CliError(Exception):
    """A user error: printed as one line, exit code 2."""


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="tricksolver",
        description="Game-theory solver for bluffing trick-taking card games "
        "(Le Truc, Truco Paulista, Trucomano, Two-Ten-Jack).",
        epilog=QUICK_START, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).add_parser(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `tricksolver` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
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
