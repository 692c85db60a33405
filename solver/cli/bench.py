"""`tricksolver bench`: the engine benchmarks of `solver.bench`, printed side by side and saved
as JSON under runs/bench/ (git-ignored), or under --output (results/bench/ for the committed
figures)."""
from __future__ import annotations

import argparse
import datetime
import json
import logging
import pathlib

from solver import bench
from solver.atomic import atomic_write_bytes
from solver.cli import positive_float, positive_int
from solver.bench import (CASES, LE_TRUC_FULL, bench_game, format_full_solve, format_ismcts,
                          format_table, full_le_truc_solve, ismcts_rollouts, machine_info,
                          peak_memory_mb, warm_up_kernels)


def add_parser(subparsers) -> None:
    """Register `tricksolver bench`."""
    parser = subparsers.add_parser(
        "bench", help="benchmark our CFR engine against OpenSpiel's CFR+ (C++ and Python)",
        description=bench.__doc__.split("\n\n")[1])
    parser.add_argument("--output", "--out", default="runs/bench", metavar="DIR",
                        help="directory for the JSON (default runs/bench, git-ignored; the "
                        "committed figures were written with --output results/bench)")
    parser.add_argument("--le-truc-full", action="store_true",
                        help=f"solve {LE_TRUC_FULL} instead of the side-by-side run")
    parser.add_argument("--ismcts", type=positive_int, metavar="SIMULATIONS", default=None,
                        help="instead: IS-MCTS with SIMULATIONS per move on the full "
                        "Two-Ten-Jack, numba rollouts against OpenSpiel's Python ones")
    parser.add_argument("--algorithm", default="dcfr",
                        help="algorithm of the --le-truc-full solve (default dcfr)")
    parser.add_argument("--time-limit", type=positive_float, default=None,
                        help="seconds the --le-truc-full solve may take (default: none)")
    parser.add_argument("--target", type=positive_float, default=1e-3,
                        help="target exploitability of the --le-truc-full solve (points/hand)")
    parser.add_argument("--eval-every", type=positive_int, default=10,
                        help="iterations between exact evaluations of the --le-truc-full solve")
    parser.add_argument("--no-cache", action="store_true",
                        help="compile the game even if a cached tree exists")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the benchmark chosen by `args`, print the table and write the JSON."""
    output = pathlib.Path(args.output)
    output.mkdir(parents=True, exist_ok=True)
    warm_up_kernels()
    stamp = datetime.datetime.now(datetime.timezone.utc)
    if args.ismcts is not None:
        report = {"ismcts": ismcts_rollouts(args.ismcts)}
        path = output / f"{stamp:%Y-%m-%d}-ismcts.json"
        print(format_ismcts(report["ismcts"]))
    elif args.le_truc_full:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
        report = {"full_solve": full_le_truc_solve(args.algorithm, args.target, args.eval_every,
                                                   args.time_limit, cache=not args.no_cache)}
        path = output / f"{stamp:%Y-%m-%d}-le-truc-full.json"
        print(format_full_solve(report["full_solve"]))
    else:
        report = {"games": [bench_game(*case) for case in CASES]}
        path = output / f"{stamp:%Y-%m-%d}.json"
        print(format_table(report["games"]))
    report["machine"] = machine_info()
    report["utc"] = stamp.isoformat(timespec="seconds")
    report["peak_memory_mb"] = peak_memory_mb()
    atomic_write_bytes(path, (json.dumps(report, indent=2) + "\n").encode())
    print(f"peak memory {report['peak_memory_mb']:.0f} MB; written {path}")
    return 0
