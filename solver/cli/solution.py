"""The `exploit`, `show` and `chart` subcommands: what a saved solution is worth and does.

`exploit` recomputes the exploitability of a saved strategy exactly, or measures bots exactly
(`solver.play.exploit`: exploitability, losses per seat to a best response and to a saved
equilibrium); `show` prints the strategy at one decision in words; `chart` draws the
exploitability curves, strategy grids, bluffing chart and tables (`solver.analysis.charts`).
"""
from __future__ import annotations

import dataclasses
import json
import pathlib
import shlex

import numpy as np

from solver import results
from solver.atomic import atomic_write_bytes
from solver.cli.games import load_game_checked
from solver.cli.help import HelpFormatter
from solver.cli.solve import require_history_tree
from solver.history.best_response import exploitability
from solver.history.policy import AveragePolicy
from solver.public.parts import public_parts
from solver.results import is_combined, part_directory

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
        "      --against results/two_ten_jack/hs_h2 --markdown runs/bots.md   # about 20 min",
        formatter_class=HelpFormatter)
    parser.add_argument("target", metavar="RESULT|GAME",
                        help="result directory; with --bot, a game string")
    parser.add_argument("--bot", action="append", metavar="SPEC",
                        help="random, heuristic, ismcts[:SIMULATIONS], strategy:DIR; "
                        "Two-Ten-Jack: pimc[:WORLDS[:NODES]], pimc-match and pimc-infer alike; "
                        "repeat for more")
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
    directory = pathlib.Path(args.target)
    if is_combined(directory):
        return _exploit_combined(directory)
    saved = results.load_result(directory)
    if saved.summary.get("objective") == "match":  # a state of solve-match: its utilities
        return _exploit_match_state(saved)
    game = load_game_checked(results.base_game_string(saved.game_string))
    if isinstance(saved.policy, AveragePolicy):
        value = exploitability(game, saved.policy)
    else:
        value = _public_solver(game, saved.policy).exploitability()
    recorded = saved.recorded_exploitability
    compact = ", compact strategy" if saved.compact else ""
    print(f"game            {saved.game_string}")
    print(f"exploitability  {value:.9g} points per hand (recomputed{compact})")
    if recorded is not None:
        print(f"summary.json    {recorded:.9g} (difference {abs(value - recorded):.2g}{compact})")
    return 0


def _exploit_match_state(saved) -> int:
    """`exploit` of one state of a match solve, in match-win probability."""
    from solver.cli.solve_match import exploit_match_state

    value = exploit_match_state(saved)
    recorded = saved.summary["exploitability"]
    print(f"game            {saved.game_string}")
    print(f"exploitability  {value:.9g} match-win probability (recomputed with the state's "
          f"terminal utilities)")
    print(f"summary.json    {recorded:.9g} (difference {abs(value - recorded):.2g})")
    return 0


def _exploit_combined(directory: pathlib.Path) -> int:
    """`exploit` of a game solved sub-game by sub-game: each sub-game's recomputed, and their
    weighted sum (exact: the sub-games are split by public chance)."""
    summary = results.read_summary(directory)
    game = load_game_checked(summary["game"])
    for_match = summary.get("objective") == "match"  # a state of solve-match
    units = "match-win probability" if for_match else "points per hand"
    total = 0.0
    compacts = []
    for part in public_parts(game):
        saved = results.load_result(part_directory(directory, part))
        if for_match:
            from solver.cli.solve_match import exploit_match_state

            value = exploit_match_state(saved, part.label)
        else:
            value = _public_solver(game, saved.policy).exploitability()
        total += part.weight * value
        compacts.append(saved.compact)
        recorded = saved.recorded_exploitability
        print(f"{part.label:<14}  exploitability {value:.9g} (recomputed"
              f"{', compact strategy' if saved.compact else ''}; summary.json "
              f"{'none' if recorded is None else f'{recorded:.9g}'})")
    print(f"game            {summary['game']}")
    print(f"exploitability  {total:.9g} {units} (recomputed: the sub-games' weighted "
          f"by their probabilities{', compact strategies' if any(compacts) else ''})")
    # the record of the strategies loaded; none to compare with if they are of both kinds
    record = (summary.get("compact", {}) if all(compacts) else {} if any(compacts)
              else summary)
    recorded = record.get("exploitability")
    if recorded is not None:
        print(f"summary.json    {recorded:.9g} (difference {abs(total - recorded):.2g})")
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
    require_history_tree(game)
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
        atomic_write_bytes(pathlib.Path(args.json),
                           (json.dumps(record, indent=1) + "\n").encode())
    if args.markdown:
        atomic_write_bytes(pathlib.Path(args.markdown), _bots_markdown(record).encode())
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
        description="Print the saved strategy at the decisions you pick, in words, with how "
        "often the equilibrium reaches each (chance x both players' strategies) and a warning "
        "where it never does (there the mix is arbitrary). Pick decisions by --hand (the "
        "hand the player was dealt; after a redeal, the new one) and --history (the actions "
        "so far, both players', in plain words, comma-separated), or by --infostate (an "
        "information state string or, for history-engine results, a fragment of one; if a "
        f"fragment matches more than {MAX_SHOWN}, only the decisions right after it are "
        f"shown). Several matches are all shown (up to {MAX_SHOWN}); more is an error that "
        "lists some of them. Public-tree results (the default Le Truc, Truco) show one "
        "decision, with each action's EV (the player's points per hand if he plays it there "
        "and the solution everywhere else); Truco hands start with their vira class, "
        "'vira K | Ac 2 3', and the player's own covered card reads 'Play Ac covered', the "
        "opponent's 'Play covered'.",
        epilog="examples:\n  tricksolver show results/le_truc/small --hand '7 A'\n"
        "  tricksolver show results/le_truc/small --hand '7 A' --history 'Keep, Raise'\n"
        "  tricksolver show results/le_truc/r8_h2 --hand 'Q J' --player 1 --history 'Raise'\n"
        "  tricksolver show results/le_truc/small --infostate 'p1 | hand 7 A | 0:Keep, 0:Raise'\n"
        "  tricksolver show results/truco/paulista_eleven --hand 'vira K | Ac 2 3'\n"
        "  tricksolver show results/truco/paulista_small --hand 'vira K | 3 2' "
        "--history 'Raise'",
        formatter_class=HelpFormatter)
    parser.add_argument("result", metavar="RESULT", type=pathlib.Path, help="result directory")
    parser.add_argument("--infostate", metavar="TEXT",
                        help="information state string or a fragment of one")
    parser.add_argument("--hand", metavar="CARDS",
                        help="the hand dealt, any order, e.g. '7 A' (isomorphic games), "
                        "'7s Ah', or with Truco's vira 'vira K | Ac 2 3'")
    parser.add_argument("--history", metavar="ACTIONS", default=None,
                        help="with --hand: the actions so far, both players', in order, e.g. "
                        "'Raise, Accept, Play 7' (default: none, the player's first "
                        "decision); '*' for any (history-engine results)")
    parser.add_argument("--player", type=int, choices=(0, 1),
                        help="with --hand: only this player's decisions")
    parser.add_argument("--score", metavar="A-B[-dD]",
                        help="RESULT is a match solve (solve-match): the state at scores A-B "
                        "with dealer D (default 1: player 0 leads), e.g. 10-7-d0")
    parser.set_defaults(func=run_show)


def matching_info_states(names: list[str], text: str) -> list[str]:
    """`text` itself if it is an information state; else the states containing it, narrowed
    to those where at most one more action (or hand) follows `text` if there are too many."""
    if text in set(names):
        return [text]
    matches = [name for name in names if text in name]
    if len(matches) <= MAX_SHOWN:
        return matches
    narrowed = [name for name in matches
                if not _more_actions(name[name.index(text) + len(text):])]
    return narrowed or matches


def _more_actions(tail: str) -> bool:
    """Whether an information state's tail holds more than the rest of one action or hand."""
    for separator in (" | ", ", "):
        tail = tail.removeprefix(separator)
    return ", " in tail or " | " in tail


def parse_info_state(name: str) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """(player prefix `p0`, the hand held now as sorted cards, the actions so far without
    their `N:` player prefixes) of an information state string such as
    `p1 | hand A A | 0:Ask redeal, 1:Agree | hand 8 K | 0:Raise`."""
    parts = name.split(" | ")
    hand: tuple[str, ...] = ()
    actions: list[str] = []
    for part in parts[1:]:
        if part.startswith("hand "):
            hand = tuple(sorted(part.removeprefix("hand ").split()))
        elif ":" in part:
            actions += [action.split(":", 1)[1].strip() for action in part.split(", ")
                        if ":" in action]
    return parts[0], hand, tuple(actions)


def select_by_hand(names: list[str], hand: str, history: str | None,
                   player: int | None) -> list[str]:
    """The information states where the player holds `hand` (any order) after `history`
    (comma-separated plain action names; None or '' = no action yet; '*' = any)."""
    wanted_hand = tuple(sorted(hand.split()))
    wanted_history = (None if history is not None and history.strip() == "*" else
                      tuple(a.strip() for a in (history or "").split(",") if a.strip()))
    found = []
    for name in names:
        prefix, held, actions = parse_info_state(name)
        if held != wanted_hand or (player is not None and prefix != f"p{player}"):
            continue
        if wanted_history is None or actions == wanted_history:
            found.append(name)
    return found


def _examples(names: list[str], count: int = 5) -> str:
    """Up to `count` names, shortest first, quoted and joined on one line."""
    return "; ".join(repr(name) for name in sorted(names, key=lambda n: (len(n), n))[:count])


def _pick(names: list[str], args) -> list[str]:
    """The information states the options select (ValueError: none, or too many)."""
    if args.infostate is not None:
        if args.hand is not None or args.history is not None or args.player is not None:
            raise ValueError("give either --infostate or --hand (with --history, --player)")
        matches = matching_info_states(names, args.infostate)
        what = f"contain {args.infostate!r}"
        if not matches:
            raise ValueError(f"no information state contains {args.infostate!r} "
                             f"(example of one: {names[0]!r})")
    elif args.hand is not None:
        matches = select_by_hand(names, args.hand, args.history, args.player)
        after = f" after {args.history!r}" if args.history else " and no action yet"
        what = f"have hand {args.hand!r}{after}"
        if not matches:
            with_hand = select_by_hand(names, args.hand, "*", args.player)
            if not with_hand:
                raise ValueError(f"no decision with hand {args.hand!r} in this game (example "
                                 f"of a decision: {names[0]!r})")
            raise ValueError(f"no decision with hand {args.hand!r}{after}; decisions with "
                             f"that hand: "
                             f"{_examples(with_hand)} (give --history)")
    else:
        raise ValueError("say which decision: --hand CARDS [--history ACTIONS] or "
                         "--infostate TEXT")
    if len(matches) > MAX_SHOWN:
        raise ValueError(f"{len(matches)} information states {what}: be more specific "
                         f"(--hand/--history/--player or a longer --infostate); e.g. "
                         f"{_examples(matches)}")
    return matches


def run_show(args) -> int:
    """`tricksolver show`."""
    from solver.analysis.contexts import describe_decision
    from solver.analysis.history import info_state_reach

    if args.score is not None:
        from solver.cli.solve_match import state_directory_for

        args.result = state_directory_for(args.result, args.score)
    if is_combined(args.result):
        solver, hand, for_match = _part_solver(args)
        return _show_public(solver, hand, args, for_match=for_match)
    saved = results.load_result(args.result)
    if not isinstance(saved.policy, AveragePolicy):
        hand = None if args.hand is None else args.hand.split("|")[-1]
        if saved.summary.get("objective") == "match":
            return _show_public(_match_state_solver(saved), hand, args, for_match=True)
        game = load_game_checked(results.base_game_string(saved.game_string))
        return _show_public(_public_solver(game, saved.policy), hand, args)
    names = saved.policy.info_state_strings()
    matches = _pick(names, args)
    game = load_game_checked(saved.game_string)
    reach = info_state_reach(game, saved.policy)
    for name in matches:
        print(describe_decision(game, name, saved.policy.action_probabilities(name)))
        print(_reach_line(reach.get(name, 0.0)))
    return 0


def _reach_line(reach: float, hands: str = "hands", off_path: bool | None = None) -> str:
    """How often the equilibrium gets to a decision, and a warning where it never does
    (`off_path`; if not given: a reach below `OFF_PATH_REACH`)."""
    from solver.analysis.decision import OFF_PATH_REACH

    if off_path if off_path is not None else reach < OFF_PATH_REACH:
        return (f"  Reached in {100 * reach:.2g}% of {hands}: off the equilibrium path, this mix "
                f"is arbitrary (the equilibrium never plays to here).")
    return f"  Reached in {100 * reach:.3g}% of {hands} (chance and both players' strategies)."


def _public_solver(game, policy):
    """A public-tree solver holding a saved public policy."""
    from solver.public.solve import solver_for

    return solver_for(game, policy)


def _match_state_solver(saved, label: str | None = None):
    """A public-tree solver of a match state's hand (its sub-game `label`, None: the only
    one) with the terminal utilities it was solved with, holding its saved policy (its values
    are then the match utility 2·P(win) − 1)."""
    from solver.matchgrid.public_engine import PublicEngine
    from solver.public.cfr import PublicPolicy

    utility = {float(p): float(u) for p, u in saved.summary["match"]["utility_of_points"]}
    solver = PublicEngine().solver(results.base_game_string(saved.game_string), utility,
                                   label=label)
    solver.load_policy(PublicPolicy(solver.name, saved.policy.talk, saved.policy.sums))
    return solver


def _part_solver(args):
    """(solver of the sub-game the decision is in, the hand without its `vira X | `, whether
    it is a match state's) for a game solved sub-game by sub-game: the vira class comes from
    --hand or --infostate."""
    game = load_game_checked(results.read_summary(args.result)["game"])
    text = args.hand if args.hand is not None else args.infostate or ""
    label = next((piece.strip() for piece in text.split("|")
                  if piece.strip().startswith("vira ")), None)
    if label is None:
        raise ValueError(f"{args.result} is solved vira class by vira class: name the vira, e.g. "
                         f"--hand 'vira K | Ac 2 3' or --infostate 'p0 | vira K | hand Ac 2 3'")
    part = next((part for part in public_parts(game) if part.label == label), None)
    if part is None:
        raise ValueError(f"no {label!r} in this game; the vira classes: "
                         f"{', '.join(part.label for part in public_parts(game))}")
    saved = results.load_result(part_directory(args.result, part))
    hand = None if args.hand is None else args.hand.split("|")[-1]
    if saved.summary.get("objective") == "match":
        return _match_state_solver(saved, part.label), hand, True
    return _public_solver(game, saved.policy), hand, False


def _show_public(solver, hand: str | None, args, for_match: bool = False) -> int:
    """`show` for a public-tree result: one decision, by --hand and --history (or a whole
    --infostate), with each action's EV (`for_match`: the acting player's probability of
    winning the match) and the decision's reach."""
    from solver.analysis.decision import decision_at
    from solver.public.policy import find_spot, parse_hand, spot_of_info_state

    if args.infostate is not None:
        if args.hand is not None or args.history is not None or args.player is not None:
            raise ValueError("give either --infostate or --hand (with --history, --player)")
        spot = spot_of_info_state(solver, args.infostate)
    elif hand is not None:
        if args.history is not None and args.history.strip() == "*":
            raise ValueError("a public-tree result shows one decision at a time: give "
                             "--history with the actions so far (none: the first decision)")
        names = [name.strip() for name in (args.history or "").split(",") if name.strip()]
        spot = find_spot(solver, parse_hand(solver, hand), names, args.player)
    else:
        raise ValueError("say which decision: --hand CARDS [--history ACTIONS] or "
                         "--infostate TEXT")
    print(_describe_spot(solver, decision_at(solver, spot), for_match))
    return 0


def _describe_spot(solver, decision, for_match: bool = False) -> str:
    """A public-tree decision in words: who holds what after which actions, the strategy with
    each action's EV (`for_match`: values are match utilities, shown as win probabilities),
    and the reach."""
    spot, part = decision.spot, solver.part
    held = " ".join(part.class_name(c) for c in sorted(spot.hand, reverse=True))
    where = f" ({part.label})" if part.label else ""
    after = f"after {', '.join(spot.history)}" if spot.history else "first decision"
    order = np.argsort(-decision.probabilities, kind="stable")

    def worth(value: float) -> str:
        return f"P(win) {50 * (value + 1):.1f}%" if for_match else f"EV {value:+.3f}"

    strategy = ", ".join(
        f"{spot.columns[k]} {100 * decision.probabilities[k]:.1f}% ({worth(decision.values[k])})"
        for k in order)
    hands = f"hands with {part.label}" if part.label else "hands"
    meaning = ("  (P(win): the player's probability of winning the match if he plays that "
               "action, the solution elsewhere)" if for_match else
               "  (EV: the player's points per hand from here if he plays that action, "
               "the solution elsewhere)")
    return "\n".join([f"  Player {spot.player} holding {held}{where}, {after}.",
                      f"  Strategy: {strategy}", meaning,
                      _reach_line(decision.reach, hands, decision.off_path)])


def _add_chart(subparsers) -> None:
    """The `chart` subcommand's parser."""
    parser = subparsers.add_parser(
        "chart", help="draw exploitability curves, strategy grids, the bluffing chart, tables",
        description="Charts (PNG and SVG) and tables (CSV and Markdown) from saved results. "
        "curve: exploitability vs iterations and vs seconds, log-log, one line per RESULT "
        "(e.g. one per algorithm). strategy: for Le Truc, and for two-player Truco solved "
        "vira class by vira class (one folder per vira class), a grid of hands x actions per "
        "decision context with each hand's EV. bluff: raise/rest frequencies split into value "
        "bets and bluffs, and call/fold frequencies facing a raise. tables: the same numbers "
        "as CSV and Markdown.")
    parser.add_argument("results", metavar="RESULT", type=pathlib.Path, nargs="+",
                        help="result directories (strategy charts use the first)")
    parser.add_argument("--kind", choices=CHART_KINDS, default="all",
                        help="what to draw (default: all)")
    parser.add_argument("--out", type=pathlib.Path, metavar="DIR",
                        help="output directory (default: RESULT/charts)")
    parser.add_argument("--part", action="append", default=[], metavar="LABEL",
                        help="Truco solved vira class by vira class: draw only this class "
                        "(repeatable, e.g. --part 'vira K'); a class is analysed once from its "
                        "strategy (its tree rebuilt) and kept as vira_X/analysis.npz, which later "
                        "charts read; the whole-game tables need every class")
    parser.set_defaults(func=run_chart)


def _refuse_match_state(path: pathlib.Path) -> None:
    """ValueError (one line) for one state of a match solve: the hand-level charts value
    hands in points, its strategy plays for the match."""
    try:
        summary = results.read_summary(path)
    except results.ResultError:
        return  # not a result: the chart itself says what is wrong
    if summary.get("objective") == "match" and "match_game" in summary:
        match = pathlib.Path(path).parent.parent
        raise ValueError(f"{path} is one state of a match solve, whose strategy plays for the "
                         f"match while the charts value hands in points: chart {match}, or "
                         f"read the state with 'tricksolver show {match} --score "
                         f"{pathlib.Path(path).name} --hand ...' (P(win) per action)")


def run_chart(args) -> int:
    """`tricksolver chart`."""
    from solver.analysis import charts

    first = args.results[0]
    for path in args.results:
        _refuse_match_state(path)
    if args.part and not is_combined(first):
        raise ValueError(f"--part names a vira class of a Truco result solved vira class by vira "
                         f"class; {first} is not one")
    if (first / "match_values.csv").exists():  # a match solve: its heat map
        from solver.cli.solve_match import chart_match

        if len(args.results) > 1:
            raise ValueError(f"{first} is a match solve: chart it on its own")
        written = chart_match(first, args.out)
    elif is_combined(first):  # Truco solved vira class by vira class
        if len(args.results) > 1:
            raise ValueError(f"{first} holds a game solved vira class by vira class: chart it "
                             f"on its own")
        load_game_checked(results.read_summary(first)["game"])
        written = charts.write_truco_charts(first, args.out or first / "charts", args.kind,
                                            labels=args.part)
    else:
        saved = [results.load_result(path) for path in args.results]
        for result in saved:
            load_game_checked(results.base_game_string(result.game_string))
        out = args.out if args.out is not None else saved[0].path / "charts"
        written = charts.write_charts(saved, out, args.kind)
    for path in written:
        print(path)
    return 0
