"""Solves small isomorphic 2-player Truco Paulista variants with `solver.solve` and records them.

Usage: `.venv/bin/python results/truco/solve_small.py [--target 0.001] GAME_STRING...`
For each game writes `results/truco/<name>.curve.csv` (iteration, seconds, exploitability) and
`results/truco/<name>.json` (game, algorithm, iterations, seconds, exploitability in points per
hand, exact by best response over the compiled tree; player 0's game value; tree size).
"""
from __future__ import annotations

import argparse
import csv
import json
import pathlib
import re
import sys
import time

import games  # noqa: F401  (registers the games)
import solver

HERE = pathlib.Path(__file__).parent


def _file_name(game_string: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", game_string).strip("_")


def solve_and_record(game_string: str, target: float, algorithm: str) -> dict:
    started = time.time()
    tree = solver.compile_game(game_string)
    compile_seconds = time.time() - started
    result = solver.solve(game_string, algorithm=algorithm, target_exploitability=target,
                          progress=False, tree=tree)
    record = {
        "game": game_string, "algorithm": algorithm, "target_exploitability": target,
        "iterations": result.iterations, "solve_seconds": round(result.seconds, 2),
        "compile_seconds": round(compile_seconds, 2),
        "exploitability": result.exploitability,
        "game_value_player0": result.game_value,
        "histories": int(tree.node_player.shape[0]),
        "infosets": int(tree.infoset_player.shape[0]),
    }
    name = _file_name(game_string)
    with open(HERE / f"{name}.curve.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["iteration", "seconds", "exploitability"])
        writer.writerows(result.curve)
    (HERE / f"{name}.json").write_text(json.dumps(record, indent=2) + "\n")
    return record


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="+")
    parser.add_argument("--target", type=float, default=0.001)
    parser.add_argument("--algorithm", default="dcfr")
    args = parser.parse_args(argv)
    for game_string in args.games:
        print(json.dumps(solve_and_record(game_string, args.target, args.algorithm)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
