"""`tricksolver sizes`: game-tree sizes (`solver.sizes.measure`) as a table, optionally saved as
JSON and Markdown."""
from __future__ import annotations

import argparse
import json
import pathlib
import shlex
import sys
import time

from solver.cli.games import load_game_checked
from solver.results import atomic_write_bytes
from solver.sizes import (ALL_EXTRA_GAMES, DEFAULT_GAMES, DEFAULT_WALKS, PILOT_WALKS,
                          TRAVERSAL_LIMIT, TreeSize, check_samples, measure)

METHODS = f"""\
how each game is measured (exact where a count finishes, else an estimate ± its 95% half-width):
  python_le_truc       exact, by dynamic programming over the public-state machine
                       (--samples does not apply)
  python_truco_paulista, python_trucomano (two players, cards seen)
                       exact, by dynamic programming (under a minute even for the full
                       concrete game); with --samples N, a sampled estimate from N deal classes
                       and N (vira, hand) roots per player, each counted exactly
  any other game       {PILOT_WALKS} Knuth walks first; if the upper end of their 95% interval is at
                       most {TRAVERSAL_LIMIT:,} histories, exact by brute-force traversal;
                       otherwise, or with --samples N, Knuth's estimate over N walks (default
                       {DEFAULT_WALKS:,}), without information states; Two-Ten-Jack also gets
                       its exact chance sequences and first-lead information states"""


# --- command line -----------------------------------------------------------------------------
def add_parser(subparsers) -> None:
    """Registers `tricksolver sizes`."""
    parser = subparsers.add_parser(
        "sizes", help="count or estimate histories, terminals, decision and chance nodes and "
        "information states",
        description="Game-tree sizes of any game: histories (every node), terminals, decision\n"
        "and chance nodes, and each player's information states.",
        epilog=METHODS, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("games", nargs="*", metavar="GAME",
                        help="OpenSpiel game strings (default: " + ", ".join(DEFAULT_GAMES) + ")")
    parser.add_argument("--all", action="store_true",
                        help="also the default-size Le Truc games with the redeal: "
                        + ", ".join(ALL_EXTRA_GAMES))
    parser.add_argument("--samples", type=int, metavar="N",
                        help="estimate from N samples instead of counting (see below)")
    parser.add_argument("--seed", type=int, default=0, metavar="S",
                        help="seed of the samples and walks (default 0)")
    parser.add_argument("--no-infosets", action="store_true",
                        help="skip the information states (dynamic programs only)")
    parser.add_argument("--json", metavar="PATH", help="also write the table as JSON here")
    parser.add_argument("--markdown", metavar="PATH",
                        help="also write the table as Markdown here")
    parser.set_defaults(func=run)


def run(args) -> int:
    """Measures every requested game, prints the table, optionally writes JSON and Markdown."""
    check_samples(args.samples)
    game_strings = list(args.games) or list(DEFAULT_GAMES)
    if args.all:
        game_strings += [name for name in ALL_EXTRA_GAMES if name not in game_strings]
    loaded = [load_game_checked(name) for name in game_strings]  # bad strings fail first
    print(" | ".join(_COLUMNS), flush=True)
    records, rows = [], []
    for name, game in zip(game_strings, loaded):
        start = time.perf_counter()
        size = measure(game, args.samples, args.seed, not args.no_infosets,
                       progress=sys.stderr.isatty())
        seconds = time.perf_counter() - start
        records.append({"game_string": name, **size.as_dict(), "seconds": round(seconds, 2)})
        rows.append(_cells(name, size, seconds))
        print(" | ".join(rows[-1]), flush=True)
    _save(args, records, rows)
    return 0


def _save(args, records: list[dict], rows: list[list[str]]) -> None:
    """Writes the JSON and Markdown files asked for, each with the command."""
    command = _command(args)
    if args.json:
        payload = {"command": command, "options": _options(args), "sizes": records}
        atomic_write_bytes(pathlib.Path(args.json), (json.dumps(payload, indent=2) + "\n").encode())
    if args.markdown:
        atomic_write_bytes(pathlib.Path(args.markdown), _markdown(command, rows).encode())


# --- table ------------------------------------------------------------------------------------
_COLUMNS = ("game", "histories", "terminals", "decision nodes", "chance nodes",
            "infosets p0", "infosets p1", "method", "seconds", "other exact figures")


def _figure(value, half_width) -> str:
    """`1,234` when exact, `1.23e+09 ± 4.5e+07` when estimated."""
    if half_width is None:
        return f"{value:,}"
    return f"{value:.3g} ± {half_width:.2g}"


def _cells(name: str, size: TreeSize, seconds: float) -> list[str]:
    """One table row."""
    widths = size.half_widths
    cells = [name] + [_figure(getattr(size, field), widths.get(field)) for field in (
        "histories", "terminals", "decision_nodes", "chance_nodes")]
    infoset_widths = widths.get("infosets", (None, None))
    cells += (["-", "-"] if size.infosets is None else
              [_figure(count, width) for count, width in zip(size.infosets, infoset_widths)])
    extras = "; ".join(f"{label} {value:,}" for label, value in size.extras.items())
    return cells + [size.method, f"{seconds:.1f}", extras or "-"]


def _markdown(command: str, rows: list[list[str]]) -> str:
    """The table as a Markdown document with the command that produced it."""
    lines = ["# Tree sizes", "", f"Command: `{command}`", "",
             "Histories count every node (chance, decision, terminal); information states are "
             "the distinct information state strings at each player's decision nodes. "
             "Figures with ± are estimates with their 95% half-width (method column), the "
             "others exact; - is not counted (Knuth walks do not estimate information "
             "states).", "",
             "| " + " | ".join(_COLUMNS) + " |",
             "|---|" + "---:|" * 6 + "---|---:|---|"]
    for cells in rows:
        lines.append("| " + " | ".join([f"`{cells[0]}`"] + cells[1:]) + " |")
    return "\n".join(lines) + "\n"


def _command(args) -> str:
    """The command line that reproduces this run."""
    words = ["tricksolver", "sizes", *args.games]
    if args.all:
        words.append("--all")
    if args.samples is not None:
        words += ["--samples", str(args.samples)]
    if args.seed:
        words += ["--seed", str(args.seed)]
    if args.no_infosets:
        words.append("--no-infosets")
    for option in ("json", "markdown"):
        if getattr(args, option):
            words += [f"--{option}", getattr(args, option)]
    return shlex.join(words)


def _options(args) -> dict:
    """The command's options, as recorded next to its figures."""
    return {name: value for name, value in vars(args).items() if name not in ("func", "command")}
