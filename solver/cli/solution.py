"""The `exploit`, `show` and `chart` subcommands: what a saved solution is worth and does.

`exploit` recomputes the exploitability of a saved strategy exactly, or measures bots exactly
(`solver.play.exploit`: exploitability, losses per seat to a best response and to a saved
equilibrium); `show` prints the strategy at one decision in words; `chart` draws the
exploitability curves, strategy grids, bluffing chart and tables (`solver.analysis.charts`).
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import pathlib
import shlex

from solver import results
from solver.cli.games import load_game_checked
from solver.history.best_response import exploitability
from solver.history.policy import AveragePolicy

MAX_SHOWN = 12
CHART_KINDS = ("curve", "strategy", "bluff", "tables", "all")


def add_parser(subparsers) -> None:
    """Register chart, show and exploit."""
    _add_chart(subparsers)
    _add_show(subparsers)
    _add_exploit(subparsers)


def _add_exploit(subparsers) -> None:
    """The `exploit` subcommand's parser."""
    parser = subparsers.add_parser(
        "exploit", help="recompute a saved strategy's exploitability, or measure bots exactly",
        description="With RESULT: load RESULT/strategy.npz and compute its exploitability "
        "(NashConv / 2, points per hand) by exact best response; compare with "
        "RESULT/summary.json. With GAME --bot SPEC: turn each bot into a policy on GAME's "
        "compiled tree (asked once per information state) and give its exact exploitability; "
        "with --against RESULT (an equilibrium of GAME), also what it loses in each seat to a "
        "best response and to the equilibrium, against what the equilibrium gets there "
        "(method: solver/play/exploit.py).",
        epilog="examples:\n  tricksolver exploit results/le_truc/small\n"
        "  tricksolver exploit 'python_two_ten_jack(suits=h:s,ranks=2:T:J:A,hand_size=2)' "
        "--bot heuristic --bot ismcts:10 --seed 1 --seed 2 \\\n"
        "      --against results/two_ten_jack/hs_h2 --markdown bots.md",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("target", metavar="RESULT|GAME",
                        help="result directory; with --bot, a game string")
    parser.add_argument("--bot", action="append", metavar="SPEC",
                        help="random, heuristic, ismcts or ismcts:SIMULATIONS; repeat for more")
    parser.add_argument("--against", metavar="RESULT",
                        help="with --bot: an equilibrium of GAME, for the losses per seat")
    parser.add_argument("--seed", type=int, action="append", metavar="S",
                        help="with --bot: seed of a stochastic bot (IS-MCTS), one row per seed; "
                        "repeat for more (default 0)")
    parser.add_argument("--json", metavar="PATH", help="with --bot: also write the rows as JSON")
    parser.add_argument("--markdown", metavar="PATH",
                        help="with --bot: also write the table as Markdown")
    parser.set_defaults(func=run_exploit)


def run_exploit(args) -> int:
    """`tricksolver exploit`."""
    if args.bot:
        return _exploit_bots(args)
    given = [option for option, value in (("--against", args.against), ("--seed", args.seed),
                                          ("--json", args.json), ("--markdown", args.markdown))
             if value is not None]
    if given:
        raise ValueError(f"{', '.join(given)}: only with --bot (GAME --bot SPEC)")
    saved = results.load_result(pathlib.Path(args.target))
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


def _exploit_bots(args) -> int:
    """`tricksolver exploit GAME --bot SPEC...`: prints the table row by row as bots are
    measured, then writes the JSON and Markdown files asked for."""
    from solver.history.tree import compile_game
    from solver.play.exploit import check_bots, equilibrium_on, evaluate_bots

    if (pathlib.Path(args.target) / results.SUMMARY_FILE).exists():
        raise ValueError(f"{args.target} is a result directory: with --bot give the game "
                         f"string, and the equilibrium as --against {args.target}")
    game = load_game_checked(args.target)
    saved = results.load_result(pathlib.Path(args.against)) if args.against else None
    if saved is not None and saved.game_string != str(game):
        raise ValueError(f"{args.against} is an equilibrium of {saved.game_string}, "
                         f"not of {game}")
    seeds = args.seed or [0]
    check_bots(game, args.bot, seeds)
    tree = compile_game(game)
    equilibrium = equilibrium_on(tree, game, saved.policy) if saved is not None else None
    rows = evaluate_bots(tree, game, args.bot, seeds, equilibrium)
    record = {"command": _exploit_command(args), "game": str(game),
              "equilibrium": _equilibrium_record(args.against, saved, equilibrium), "bots": []}
    head = _bots_head_lines(record)
    print("\n".join(head), flush=True)
    for row in rows:
        record["bots"].append({**dataclasses.asdict(row),
                               "loss_to_equilibrium_mean": row.loss_to_equilibrium_mean})
        print(_bot_row_line(record["bots"][-1]), flush=True)
    if args.json:
        results.atomic_write_bytes(pathlib.Path(args.json),
                                   (json.dumps(record, indent=1) + "\n").encode())
    if args.markdown:
        results.atomic_write_bytes(pathlib.Path(args.markdown), _bots_markdown(record).encode())
    return 0


def _exploit_command(args) -> str:
    """The `tricksolver exploit` command line that reproduces this run."""
    parts = ["tricksolver", "exploit", args.target]
    parts += [word for spec in args.bot for word in ("--bot", spec)]
    parts += ["--against", args.against] if args.against else []
    parts += [word for seed in args.seed or [] for word in ("--seed", str(seed))]
    parts += ["--json", args.json] if args.json else []
    parts += ["--markdown", args.markdown] if args.markdown else []
    return shlex.join(parts)


def _equilibrium_record(directory, saved, equilibrium) -> dict | None:
    """The equilibrium's solve (from its summary.json) and its figures recomputed here."""
    if saved is None:
        return None
    summary = saved.summary
    return {"directory": directory, "algorithm": summary.get("algorithm"),
            "iterations": summary.get("iterations"), "solve_seconds": summary.get("seconds"),
            "compile_seconds": summary.get("compile_seconds"),
            "exploitability": summary.get("exploitability"),
            "exploitability_recomputed": equilibrium.exploitability, "value": equilibrium.value}


def _bots_head_lines(record: dict) -> list[str]:
    """The game, the equilibrium, what the columns mean and the table header."""
    eq = record["equilibrium"]
    lines = [f"Game `{record['game']}`.", ""]
    if eq is None:
        return lines + [
            ("Exploitability = NashConv / 2; best response as P0 (P1) = what a best response "
             "in seat 0 (1) wins per hand against the bot in the other seat. An IS-MCTS row is "
             "one sample of its play (one seeded bot, one search per information state). "
             "Method: `solver/play/exploit.py`."), "",
            "| bot | seed | exploitability | best response as P0 | best response as P1 | policy s |",
            "|---|---:|---:|---:|---:|---:|"]
    return lines + [
        (f"Equilibrium `{eq['directory']}`: {eq['algorithm']}, {eq['iterations']} iterations, "
         f"{eq['solve_seconds']:.1f} s solving (+{eq['compile_seconds']:.1f} s compile), "
         f"exploitability {eq['exploitability']:.3g} points per hand (recomputed here: "
         f"{eq['exploitability_recomputed']:.3g}); value for player 0 {eq['value']:+.4f} "
         "points per hand."), "",
        ("Loss = what the bot gets less than the equilibrium gets in the same seat, against a "
         "best response or against the equilibrium itself, points per hand; P0 (P1) = the bot "
         "in seat 0 (1). An IS-MCTS row is one sample of its play (one seeded bot, one search "
         "per information state). Method and definitions: `solver/play/exploit.py`."), "",
        ("| bot | seed | exploitability | loss to BR as P0 | loss to BR as P1 | loss to eq. as P0 "
         "| loss to eq. as P1 | loss to eq., mean | policy s |"),
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]


def _bot_row_line(row: dict) -> str:
    """One bot's table row."""
    seed = "-" if row["seed"] is None else row["seed"]
    columns = ([*row["loss_to_best_response"], *row["loss_to_equilibrium"],
              row["loss_to_equilibrium_mean"]] if row["loss_to_equilibrium"] is not None
             else row["best_response"])
    figures = " | ".join(f"{value:.4f}" for value in (row["exploitability"], *columns))
    return f"| {row['bot']} | {seed} | {figures} | {row['policy_seconds']:.1f} |"


def _bots_markdown(record: dict) -> str:
    """The Markdown page of a bot measurement."""
    lines = ["# Bots' exact exploitability", "", f"Command: `{record['command']}`.", "",
             *_bots_head_lines(record), *map(_bot_row_line, record["bots"])]
    return "\n".join(lines) + "\n"


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
    from solver.analysis.contexts import describe_decision

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
        print(describe_decision(game, name, saved.policy.action_probabilities(name)))
    return 0


def _public_solver(game, policy):
    """A public-tree solver holding a saved public policy."""
    from solver.public.solve import solver_for

    return solver_for(game, policy)


def _show_public(saved, text: str) -> int:
    """`show` for a public-tree result: its information states are too many to list, so
    `--infostate` must be one whole string."""
    from solver.analysis.contexts import describe_decision

    game = load_game_checked(saved.game_string)
    try:
        probabilities = _public_solver(game, saved.policy).action_probabilities(text)
    except (ValueError, StopIteration, KeyError, IndexError):
        raise ValueError(f"{text!r} is not an information state of this game; a public-tree "
                         f"result needs a whole one, e.g. 'p1 | hand 7 A 9 | 0:Keep, 0:Raise'"
                         ) from None
    print(describe_decision(game, text, probabilities))
    return 0


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
    from solver.analysis import charts

    saved = [results.load_result(path) for path in args.results]
    for result in saved:
        load_game_checked(result.game_string)
    out = args.out if args.out is not None else saved[0].path / "charts"
    written = charts.write_charts(saved, out, args.kind)
    for path in written:
        print(path)
    return 0
