"""Reduced Two-Ten-Jack solved exactly: tree sizes, the equilibrium, the bots' exact exploitability.

Run from the repository root, after the solve that writes the equilibrium:

    .venv/bin/tricksolver solve 'python_two_ten_jack(suits=h:s,ranks=2:T:J:A,hand_size=2)' \\
        --target 0.001 --out results/two_ten_jack/hs_h2
    .venv/bin/python results/two_ten_jack/reduced_exact.py

Writes reduced_exact.json and reduced_exact.md next to this file. Another solved variant is
given on the command line by its result directory, e.g. hand_size=3 (sizes of that variant
only, no estimates, the bots given, its own output files):

    .venv/bin/tricksolver solve 'python_two_ten_jack(suits=h:s,ranks=2:T:J:A,hand_size=3)' \\
        --target 0.001 --out results/two_ten_jack/hs_h3
    .venv/bin/python results/two_ten_jack/reduced_exact.py --solved results/two_ten_jack/hs_h3 \\
        --compile 'python_two_ten_jack(suits=h:s,ranks=2:T:J:A,hand_size=3)' --estimate \\
        --bots random heuristic ismcts:10 ismcts:30 --out results/two_ten_jack/reduced_exact_h3

Sizes: every variant in `--compile` is compiled without the tree cache (`solver.compile_game`,
seconds measured here, with the compiler it picks: the memoized one, `subtree_key`, since
Two-Ten-Jack states have `subtree_key()`; the hand_size=2 figures of reduced_exact.md were
measured before, with the traversal); the larger ones in `--estimate` only get Knuth's estimate
of their histories (`tree_sizes.knuth_walk`).

Equilibrium: the solve's strategy (`--solved`), its exploitability recomputed over a freshly
compiled tree and its value for player 0, who is the non-dealer (dealer=1) and leads trick 1.

Bots: each bot is `solver.bots.BotPolicy(game, bot)`, asked once per information state of the
compiled tree, in the tree's order, at the tree's first history of that information state; a
single legal action gets probability one without asking. `random` and `heuristic` are fixed
functions of the information state. IS-MCTS (`solver.bots.make_bot("ismcts:N", game, seed)`,
the match settings) is stochastic: one bot, seeded once, runs one search per information state
in turn, and the policy evaluated is that search's final policy (the most visited action, ties
split evenly), one sample of the bot's play; each simulation count is run with two seeds to
show the spread. For each policy pi, with v* the equilibrium value for player 0:

* exploitability = (BR_0(pi) + BR_1(pi)) / 2, BR_p the value of player p's best response to pi;
* loss to a best response, per seat, against what the equilibrium gets in that seat:
  non-dealer v* + BR_1(pi), dealer BR_0(pi) - v*; their mean is the exploitability;
* loss to the equilibrium itself, per seat: v* - u(pi, eq) as non-dealer and
  u(eq, pi) - v* as dealer, u(x, y) player 0's value with x as player 0 and y as player 1.
"""
from __future__ import annotations

import argparse
import json
import math
import pathlib
import shlex
import sys
import time

import numpy as np
import pyspiel

import games  # noqa: F401  (registers the games)
import solver
from solver.best_response import best_response_value, policy_value
from solver.bots import BotPolicy, make_bot
from solver.policy import policy_array
from solver.results import load_result
from solver.tree import _resolve_method

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE))
from tree_sizes import knuth_walk  # noqa: E402  (this folder's size script)

SOLVED = "python_two_ten_jack(suits=h:s,ranks=2:T:J:A,hand_size=2)"
COMPILE = [
    "python_two_ten_jack(suits=h:s,ranks=2:T:J:A,hand_size=1)",
    SOLVED,
]
ESTIMATE = [
    "python_two_ten_jack(suits=h:s,ranks=2:T:J:A,hand_size=3)",
    "python_two_ten_jack(suits=h:s,ranks=2:T:J:A,hand_size=4)",
    "python_two_ten_jack(suits=h:s,ranks=2:3:T:J:A,hand_size=2)",
    "python_two_ten_jack(suits=d:h:s,ranks=2:T:J:A,hand_size=2)",
]
BOTS = ["random", "heuristic", "ismcts:10", "ismcts:30"]
KNUTH_WALKS = 2000


def compiled_size(game_string: str) -> tuple[dict, solver.GameTree]:
    """Sizes and compile seconds of one variant, compiled without the cache; and its tree."""
    started = time.perf_counter()
    tree = solver.compile_game(game_string, cache=False)
    seconds = time.perf_counter() - started
    compiler = _resolve_method(pyspiel.load_game(game_string), "auto")
    return {"game": game_string, "method": "compiled", "compiler": compiler,
            "compile_seconds": round(seconds, 1), **tree.sizes(),
            "infosets": tree.num_infosets}, tree


def solve_command(summary: dict, solved: pathlib.Path) -> str:
    """The `tricksolver solve` command that wrote the result directory `solved`."""
    game = summary["game"]
    target = summary["stopping"]["target"]
    try:
        out = pathlib.Path(solved).resolve().relative_to(pathlib.Path.cwd())
    except ValueError:
        out = pathlib.Path(solved)
    return f".venv/bin/tricksolver solve {shlex.quote(game)} --target {target} --out {out}"


def estimated_size(game_string: str, rng) -> dict:
    """Knuth's estimate of the histories of a variant too large to compile here."""
    game = pyspiel.load_game(game_string)
    walks = np.array([knuth_walk(game, rng)[0] for _ in range(KNUTH_WALKS)])
    return {"game": game_string, "method": f"Knuth estimate, {KNUTH_WALKS} walks",
            "histories": float(walks.mean()),
            "histories_sem": float(walks.std(ddof=1) / math.sqrt(KNUTH_WALKS))}


def seat_mix(tree: solver.GameTree, player0: np.ndarray, player1: np.ndarray) -> np.ndarray:
    """A policy array playing `player0` at player 0's information states, else `player1`."""
    owner = np.repeat(tree.infoset_player, np.diff(tree.infoset_action_start))
    return np.where(owner == 0, player0, player1)


def evaluate(tree: solver.GameTree, policy: np.ndarray, equilibrium: np.ndarray,
             value: float) -> dict:
    """Exact exploitability of `policy`, its losses per seat to a best response and to the
    equilibrium (see the module docstring)."""
    br0 = best_response_value(tree, policy, 0)
    br1 = best_response_value(tree, policy, 1)
    as_player0 = policy_value(tree, seat_mix(tree, policy, equilibrium))
    as_player1 = policy_value(tree, seat_mix(tree, equilibrium, policy))
    return {
        "exploitability": (br0 + br1) / 2, "best_response_0": br0, "best_response_1": br1,
        "loss_to_best_response_nondealer": value + br1,
        "loss_to_best_response_dealer": br0 - value,
        "loss_to_equilibrium_nondealer": value - as_player0,
        "loss_to_equilibrium_dealer": as_player1 - value,
        "loss_to_equilibrium_mean": (as_player1 - as_player0) / 2,
    }


def bot_rows(game, tree, equilibrium, value, specs, seeds) -> list[dict]:
    """One row per bot (per seed for IS-MCTS)."""
    rows = []
    for spec in specs:
        for seed in (seeds if spec.startswith("ismcts") else seeds[:1]):
            started = time.perf_counter()
            policy = policy_array(tree, BotPolicy(game, make_bot(spec, game, seed)), game)
            seconds = time.perf_counter() - started
            row = {"bot": spec, "seed": seed if spec.startswith("ismcts") else None,
                   "policy_seconds": round(seconds, 1),
                   **evaluate(tree, policy, equilibrium, value)}
            print(json.dumps(row), flush=True)
            rows.append(row)
    return rows


def markdown(record: dict) -> str:
    """reduced_exact.md."""
    eq = record["equilibrium"]
    lines = ["# Two-Ten-Jack reduced variant solved exactly", "",
             f"Command: `{record['command']}` (after the solve: "
             f"`{record['solve_command']}`).", "", "## Tree sizes", "",
             "| game | histories | decision nodes | chance nodes | terminals | infosets | "
             "compile s (no cache, compiler) |", "|---|---:|---:|---:|---:|---:|---:|"]
    for r in record["sizes"]:
        if r["method"] == "compiled":
            lines.append(f"| `{r['game']}` | {r['histories']:,} | {r['decision_nodes']:,} | "
                         f"{r['chance_nodes']:,} | {r['terminals']:,} | {r['infosets']:,} | "
                         f"{r['compile_seconds']} ({r.get('compiler', 'traversal')}) |")
        else:
            lines.append(f"| `{r['game']}` | ≈ {r['histories']:.3g} ± {r['histories_sem']:.1g} "
                         f"({r['method']}) | | | | | not compiled |")
    lines += ["", "## Equilibrium", "",
              f"Game `{eq['game']}`: {eq['algorithm']}, {eq['iterations']} iterations, "
              f"{eq['solve_seconds']:.1f} s solving (+{eq['compile_seconds']:.1f} s compile), "
              f"exploitability {eq['exploitability']:.3g} points per deal (recomputed here: "
              f"{eq['exploitability_recomputed']:.3g}); value for the non-dealer (player 0) "
              f"{eq['value']:+.4f} points per deal.", "",
              "## Bots (exact, points per deal)", "",
              "Loss = what the bot gets less than the equilibrium gets in the same seat, "
              "against a best response or against the equilibrium itself; ND = non-dealer "
              "(player 0), D = dealer. Each bot is asked once per information state "
              "(`solver.bots.BotPolicy`); an IS-MCTS row is one sample of its play: one bot "
              "seeded once, one search per information state, its most visited action (ties "
              "split). Definitions: the docstring of `reduced_exact.py`.", "",
              "| bot | seed | exploitability | loss to BR as ND | loss to BR as D "
              "| loss to eq. as ND | loss to eq. as D | loss to eq., mean | policy s |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in record["bots"]:
        lines.append(
            f"| {r['bot']} | {r['seed'] if r['seed'] is not None else '-'} "
            f"| {r['exploitability']:.4f} | {r['loss_to_best_response_nondealer']:.4f} "
            f"| {r['loss_to_best_response_dealer']:.4f} "
            f"| {r['loss_to_equilibrium_nondealer']:.4f} | {r['loss_to_equilibrium_dealer']:.4f} "
            f"| {r['loss_to_equilibrium_mean']:.4f} | {r['policy_seconds']} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--solved", default=str(HERE / "hs_h2"),
                        help="result directory of the solve (default: hs_h2 here)")
    parser.add_argument("--compile", nargs="*", default=COMPILE, metavar="GAME",
                        help="variants to compile for the size table (the solved one included)")
    parser.add_argument("--estimate", nargs="*", default=ESTIMATE, metavar="GAME",
                        help="variants too large to compile: Knuth estimate only")
    parser.add_argument("--bots", nargs="*", default=BOTS, metavar="SPEC")
    parser.add_argument("--seeds", nargs=2, type=int, default=[1, 2],
                        help="IS-MCTS seeds (the first one for random)")
    parser.add_argument("--knuth-seed", type=int, default=2026)
    parser.add_argument("--out", default=str(HERE / "reduced_exact"),
                        help="output path without extension (.json and .md are written)")
    args = parser.parse_args(argv)
    saved = load_result(pathlib.Path(args.solved))
    game_string = saved.summary["game"]
    game = pyspiel.load_game(game_string)
    sizes, tree = [], None
    for variant in args.compile:
        row, compiled = compiled_size(variant)
        print(json.dumps(row), flush=True)
        sizes.append(row)
        if str(pyspiel.load_game(variant)) == game_string:
            tree = compiled
    if tree is None:
        tree = solver.compile_game(game, cache=False)
    rng = np.random.default_rng(args.knuth_seed)
    for variant in args.estimate:
        sizes.append(estimated_size(variant, rng))
        print(json.dumps(sizes[-1]), flush=True)
    equilibrium = policy_array(tree, saved.policy, game)
    value = policy_value(tree, equilibrium)
    summary = saved.summary
    record = {
        "command": shlex.join([".venv/bin/python", "results/two_ten_jack/reduced_exact.py", *argv]),
        "solve_command": solve_command(summary, pathlib.Path(args.solved)),
        "sizes": sizes,
        "equilibrium": {
            "game": game_string, "directory": str(pathlib.Path(args.solved)),
            "algorithm": summary["algorithm"], "iterations": summary["iterations"],
            "solve_seconds": summary["seconds"], "compile_seconds": summary["compile_seconds"],
            "exploitability": summary["exploitability"],
            "exploitability_recomputed": (best_response_value(tree, equilibrium, 0)
                                          + best_response_value(tree, equilibrium, 1)) / 2,
            "value": value,
        },
        "bots": bot_rows(game, tree, equilibrium, value, args.bots, args.seeds),
    }
    out = pathlib.Path(args.out)
    out.with_suffix(".json").write_text(json.dumps(record, indent=1) + "\n")
    out.with_suffix(".md").write_text(markdown(record))


if __name__ == "__main__":
    main(sys.argv[1:])
