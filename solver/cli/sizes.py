"""`tricksolver sizes`: game-tree sizes (`solver.sizes.measure`) as a table, optionally saved as
JSON and Markdown; with `--public`, the public tree a public-tree CFR engine would hold for
two-player Truco, per vira class (`solver.sizes.truco_public`), with its memory and an
extrapolated cost per iteration."""
from __future__ import annotations

import json
import pathlib
import shlex
import sys
import time

from solver.atomic import atomic_write_bytes
from solver.cli.games import load_game_checked
from solver.cli.help import HelpFormatter
from solver.sizes import (ALL_EXTRA_GAMES, DEFAULT_GAMES, DEFAULT_WALKS, PILOT_WALKS,
                          TRAVERSAL_LIMIT, TreeSize, check_samples, measure)
from solver.sizes import truco_public

_PUBLIC_DEFAULTS = (",\n" + " " * 23).join(truco_public.DEFAULT_GAMES)
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
                       its exact chance sequences and first-lead information states
  --public             two-player isomorphic Truco per vira class, as a public-tree engine
                       would lay it out: public nodes, private entries per node, table
                       entries, CFR table memory, coupling matrix, exact by dynamic programming
                       (about a minute for the full dirty deck); seconds per iteration
                       extrapolated from the Le Truc public engine's measured throughput
                       (--calibrate re-times it here, about 4 minutes); default games:
                       {_PUBLIC_DEFAULTS}"""


# --- command line -----------------------------------------------------------------------------
def add_parser(subparsers) -> None:
    """Registers `tricksolver sizes`."""
    parser = subparsers.add_parser(
        "sizes", help="count or estimate histories, terminals, decision and chance nodes and "
        "information states",
        description="Game-tree sizes of any game: histories (every node), terminals, decision\n"
        "and chance nodes, and each player's information states.",
        epilog=METHODS, formatter_class=HelpFormatter)
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
    parser.add_argument("--public", action="store_true",
                        help="the public tree of two-player isomorphic Truco per vira class, "
                        "as a public-tree engine would lay it out (see below)")
    parser.add_argument("--calibrate", action="store_true",
                        help="with --public: time the Le Truc public engine now and "
                        "extrapolate from that instead of the recorded cost model")
    parser.add_argument("--iterations", type=int, metavar="N",
                        help=f"with --public: iterations of the extrapolated solve (default "
                        f"{truco_public.ITERATIONS})")
    parser.add_argument("--json", metavar="PATH", help="also write the table as JSON here")
    parser.add_argument("--markdown", metavar="PATH",
                        help="also write the table as Markdown here")
    parser.set_defaults(func=run)


def run(args) -> int:
    """Measures every requested game, prints the table, optionally writes JSON and Markdown."""
    if args.public:
        return run_public(args)
    if args.calibrate or args.iterations is not None:
        raise ValueError("--calibrate and --iterations go with --public")
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
    if args.public:
        words.append("--public")
    if args.calibrate:
        words.append("--calibrate")
    if args.iterations is not None:
        words += ["--iterations", str(args.iterations)]
    for option in ("json", "markdown"):
        if getattr(args, option):
            words += [f"--{option}", getattr(args, option)]
    return shlex.join(words)


def _options(args) -> dict:
    """The command's options, as recorded next to its figures."""
    return {name: value for name, value in vars(args).items() if name not in ("func", "command")}


# --- the public tree of Truco -------------------------------------------------------------------
_PUBLIC_COLUMNS = ("vira", "weight", "hands", "deal classes", "public nodes", "decision nodes",
                   "entries/node p0 (mean, max)", "entries/node p1 (mean, max)",
                   "rows p0 = infosets", "rows p1 = infosets", "table entries",
                   "tables float32", "tables float64", "forgetful table entries",
                   "coupling products", "s/iteration (fit) [bracket]")


def run_public(args) -> int:
    """`--public`: every game's vira classes as a table, totals and the extrapolated solve."""
    if args.samples is not None or args.no_infosets or args.all:
        raise ValueError("--public takes no --samples, --no-infosets or --all (its counts "
                         "are exact, of two-player Truco only): drop them")
    iterations = truco_public.ITERATIONS if args.iterations is None else args.iterations
    if iterations < 1:
        raise ValueError(f"--iterations {iterations}: give at least 1")
    game_strings = list(args.games) or list(truco_public.DEFAULT_GAMES)
    loaded = [load_game_checked(name) for name in game_strings]
    for game in loaded:  # bad games fail before any counting
        truco_public.check_game(game)
    progress = sys.stderr.isatty()
    model = truco_public.LE_TRUC_COST_MODEL
    if args.calibrate:
        source = (f"timed by `tricksolver sizes --public --calibrate` on "
                  f"{time.strftime('%Y-%m-%d')}, fastest of 3 iterations per game")
        model = truco_public.fit_cost_model(
            truco_public.time_le_truc_engine(progress=progress), source)
    records, sections = [], []
    for name, game in zip(game_strings, loaded):
        start = time.perf_counter()
        sizes = truco_public.public_sizes(game, progress)
        seconds = time.perf_counter() - start
        rows = [_public_cells(vira, model) for vira in sizes.viras]
        total = _public_total(sizes, model)
        extrapolation = sizes.extrapolation(model, iterations)
        summary = _public_summary(extrapolation)
        print(f"{name}: exact counts in {seconds:.1f} s; seconds are extrapolations")
        print(" | ".join(_PUBLIC_COLUMNS))
        for cells in rows + [total]:
            print(" | ".join(cells))
        print(summary, flush=True)
        records.append({**sizes.as_dict(model, iterations), "seconds": round(seconds, 2)})
        sections.append((name, rows, total, summary))
    print(_model_text(model))
    command = _command(args)
    if args.json:
        payload = {"command": command, "options": _options(args),
                   "cost_model": model.as_dict(), "games": records}
        atomic_write_bytes(pathlib.Path(args.json), (json.dumps(payload, indent=2) + "\n").encode())
    if args.markdown:
        atomic_write_bytes(pathlib.Path(args.markdown),
                           _public_markdown(command, sections, model).encode())
    return 0


def _count(value: int) -> str:
    return f"{value:,}"


def _bytes(value: float) -> str:
    return f"{value / 1e9:.3g} GB" if value >= 1e8 else f"{value / 1e6:.3g} MB"


def _duration(seconds: float) -> str:
    if seconds < 100:
        return f"{seconds:.3g} s"
    if seconds < 3 * 3600:
        return f"{seconds / 60:.3g} min"
    return f"{seconds / 3600:.3g} h"


def _public_cells(vira, model) -> list[str]:
    """One vira class's row."""
    figures = vira.figures
    decision = figures["decision_nodes"]
    low, high = model.bracket(*vira.work())
    return [vira.vira_name, str(vira.weight), str(vira.hand_classes), f"{vira.deal_classes:,}",
            _count(vira.public_nodes), _count(decision),
            *(f"{figures[f'entries_p{p}'] / decision:.1f}, {figures[f'max_entries_p{p}']}"
              for p in (0, 1)),
            _count(figures["rows_p0"]), _count(figures["rows_p1"]),
            _count(vira.table_entries()), _bytes(vira.table_bytes(4)),
            _bytes(vira.table_bytes(8)), _count(vira.table_entries(forgetful=True)),
            _count(figures["coupling_products"]),
            f"{_duration(model.seconds(*vira.work()))} [{_duration(low)}, {_duration(high)}]"]


def _public_total(sizes, model) -> list[str]:
    """The totals row: sums over the vira classes (memory: the largest vira class)."""
    decision = sizes.total("decision_nodes")
    largest = max(sizes.viras, key=lambda vira: vira.table_entries())
    fitted = sum(model.seconds(*vira.work()) for vira in sizes.viras)
    low = sum(model.bracket(*vira.work())[0] for vira in sizes.viras)
    high = sum(model.bracket(*vira.work())[1] for vira in sizes.viras)
    return ["total", str(sizes.weight()), "-", f"{sum(v.deal_classes for v in sizes.viras):,}",
            _count(sizes.total("public_nodes")), _count(decision),
            *(f"{sizes.total(f'entries_p{p}') / decision:.1f}, "
              f"{max(v.figures[f'max_entries_p{p}'] for v in sizes.viras)}" for p in (0, 1)),
            _count(sizes.total("rows_p0")), _count(sizes.total("rows_p1")),
            _count(sum(v.table_entries() for v in sizes.viras)),
            f"max {_bytes(largest.table_bytes(4))}", f"max {_bytes(largest.table_bytes(8))}",
            _count(sum(v.table_entries(forgetful=True) for v in sizes.viras)),
            _count(sizes.total("coupling_products")),
            f"{_duration(fitted)} [{_duration(low)}, {_duration(high)}]"]


def _public_summary(extrapolation: dict) -> str:
    """The extrapolated solve in one line."""
    e = extrapolation
    low, high = e["seconds_on_cores_bracket"]
    return (f"extrapolated solve, {e['iterations']} iterations: "
            f"{_duration(e['seconds_one_core'])} on one core, "
            f"{_duration(e['seconds_on_cores'])} on {e['cores']} cores "
            f"(one vira class per process; bracket {_duration(low)} to {_duration(high)}); "
            f"tables held at once on {e['cores']} cores: "
            f"{_bytes(e['table_bytes_float32_on_cores'])} float32, "
            f"{_bytes(e['table_bytes_float64_on_cores'])} float64 "
            f"({_bytes(e['forgetful_table_bytes_float32_on_cores'])} float32 if the strategy "
            f"forgets covered cards), plus at least {_bytes(e['tree_bytes_on_cores'])} "
            f"of tree arrays")


def _model_text(model) -> str:
    """The cost model and its timed runs, one line each."""
    lines = [f"cost model (one core): {model.per_table_entry:.3g} s per table entry + "
             f"{model.per_coupling_product:.3g} s per coupling product + "
             f"{model.per_node:.3g} s per public node; {model.source}"]
    for sample in model.samples:
        lines.append(f"  {sample['game']}: {sample['seconds']:.3f} s per iteration, "
                     f"{sample['nodes']:,} nodes, {sample['table_entries']:,} table entries, "
                     f"{sample['coupling_products']:,} coupling products")
    return "\n".join(lines)


def _public_markdown(command: str, sections, model) -> str:
    """The tables as a Markdown document with the command and the cost model."""
    lines = [
        "# Public trees of two-player Truco, per vira class", "",
        f"Command: `{command}`", "",
        "What a public-tree CFR engine (the layout of `solver/public/tree.py`) would hold for "
        "each vira class, counted exactly by `solver/sizes/truco_public.py` (module docstring: "
        "method, covered cards). The vira is public: each vira class is an independent "
        "sub-game, dealt with the probability in the weight column. *hands*: dealable hand "
        "classes (each player's list at the root; the coupling matrix is hands x hands "
        "float64, nonzero on the *deal classes*). *entries/node*: each player's private "
        "states per public decision node, mean and maximum. *rows*: one per (decision node, "
        "acting player's entry) = the player's information states (perfect recall: a private "
        "state is the unplayed classes plus the classes he covered). *table entries*: rows x "
        "legal actions, both players; *tables*: regret + average sum per entry. *forgetful*: "
        "the same with a strategy that forgets which card it covered (rows per unplayed "
        "classes only). *coupling products*: E0 x E1 summed over the decision nodes with a "
        "terminal child, the coupling work of one pass.", "",
        "*tree arrays*: what the solve holds for the tree and its walk besides the tables "
        "(`ViraSizes.tree_bytes`: 60 bytes per decision node, 14 per edge, a lower bound).", "",
        "**Seconds are extrapolations**, not measurements (what the Truco classes measured is "
        "in `results/truco/README.md`). "
        "The Le Truc public engine's iterations were timed (below) and modelled as a x table "
        "entries + b x coupling products + c x public nodes (nonnegative least squares, scaled "
        "to reproduce the largest run); the bracket scales the largest timed Le Truc run by the smallest and the largest of the "
        "three work ratios, which bounds any cost linear in them.", ""]
    header = "| " + " | ".join(_PUBLIC_COLUMNS) + " |"
    rule = "|---|---|" + "---:|" * (len(_PUBLIC_COLUMNS) - 2)
    for name, rows, total, summary in sections:
        lines += [f"## `{name}`", "", header, rule]
        lines += ["| " + " | ".join(cells) + " |" for cells in rows]
        lines += ["| " + " | ".join(f"**{cell}**" for cell in total) + " |", "",
                  summary[0].upper() + summary[1:] + ".", ""]
    lines += ["## Cost model", "", "```", _model_text(model), "```", ""]
    return "\n".join(lines)
