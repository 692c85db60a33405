"""`tricksolver bench`: speed and convergence of the solver engine, side by side with OpenSpiel.

Default run, per game (kuhn_poker, leduc_poker and a small isomorphic Le Truc): the same number
of CFR+ iterations by our engine, by OpenSpiel's C++ `pyspiel.CFRPlusSolver` and by its Python
`cfr.CFRPlusSolver` (iterations per second, exploitability reached, our speed-up), then the time
our CFR+, DCFR and PCFR+ take to reach a target exploitability. `--le-truc-full` instead
compiles and solves the full isomorphic Le Truc without redeal and reports tree size, compile
seconds, iterations, exploitability, total seconds, peak memory and the non-dealer's value.
`--ismcts` times IS-MCTS on the full Two-Ten-Jack with its rollouts in numba
(`solver.play.rollout`) against the same bot with OpenSpiel's Python `RandomRolloutEvaluator`:
seconds per move at the same simulations on the same positions, and rollouts per second.
Figures go to stdout and to `<output>/<date>[-le-truc-full|-ismcts].json` (`tricksolver bench`:
runs/bench/ by default, git-ignored; the committed figures in results/bench/ come from
`--output results/bench`).

For Le Truc the public-tree engine (`solver.public.cfr`) is timed the same way on the same game.
Iterations run one Python call each for every engine (ours: `CFREngine.iterate()`), and our and
OpenSpiel C++'s timings are the best of three runs. Our iteration timing excludes the one-off numba
compilation (kernels are warmed up on Kuhn first) and the tree compilation (reported separately);
exploitabilities are exact (numba best response, equal to OpenSpiel's to 1e-9 as the tests check).
"""
from __future__ import annotations

import platform
import resource
import time

import numba
import numpy as np
import pyspiel
from open_spiel.python.algorithms import cfr as openspiel_cfr
from open_spiel.python.algorithms import mcts

import solver
from solver.history.best_response import nash_conv_of_array
from solver.history.cfr import CFREngine
from solver.history.policy import policy_array
from solver.history.tree import cache_path
from solver.play.bots import ismcts_bot
from solver.play.rollout import PlayoutEvaluator
from solver.registry import load_game
from solver.schedules import make_schedule

LE_TRUC_SMALL = "python_le_truc(num_ranks=4,hand_size=2,isomorphic=true,max_redeals=0)"
LE_TRUC_FULL = "python_le_truc(isomorphic=true,max_redeals=0)"

# game, CFR+ iterations for the side-by-side run, target exploitability for time-to-target
CASES = (
    ("kuhn_poker", 1000, 1e-4),
    ("leduc_poker", 100, 1e-3),
    (LE_TRUC_SMALL, 10, 1e-3),
)
TIME_TO_TARGET_ALGORITHMS = ("cfr+", "dcfr", "pcfr+")
MAX_ITERATIONS_TO_TARGET = 100_000
REPEATS = 3  # timings of ours and OpenSpiel C++ are the best of this many runs (machine noise)
ISMCTS_GAME = "python_two_ten_jack"
ISMCTS_POSITIONS = 6  # decision nodes of random play, one move of each bot at each
ISMCTS_ROLLOUTS = 300  # rollouts of each evaluator from the first position


def warm_up_kernels() -> None:
    """Compile (or load from numba's cache) every kernel on Kuhn, outside the timings."""
    solver.solve("kuhn_poker", "pcfr+", iterations=2, eval_every=1, progress=False, cache=False)


def peak_memory_mb() -> float:
    """Peak resident memory of this process so far, in MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def machine_info() -> dict:
    """What the figures were measured on."""
    import os
    return {"platform": platform.platform(), "cpus": os.cpu_count(),
            "python": platform.python_version(), "numba": numba.__version__,
            "numpy": np.__version__, "open_spiel": _openspiel_version()}


def _openspiel_version() -> str:
    """Installed open_spiel version."""
    from importlib import metadata
    return metadata.version("open_spiel")


def bench_game(game_string: str, iterations: int, target: float) -> dict:
    """Side-by-side CFR+ run and our time-to-target on one game."""
    game = load_game(game_string)
    start = time.perf_counter()
    tree = solver.compile_game(game, cache=False)
    compile_seconds = time.perf_counter() - start
    ours = time_our_cfr_plus(tree, iterations)
    cpp, cpp_solver = time_openspiel(lambda: pyspiel.CFRPlusSolver(game), iterations, REPEATS)
    # the C++ average policy points into its solver: keep `cpp_solver` alive while it is used
    cpp["exploitability"] = float(pyspiel.exploitability(game, cpp_solver.average_policy()))
    python, python_solver = time_openspiel(lambda: openspiel_cfr.CFRPlusSolver(game), iterations, 1)
    python["exploitability"] = nash_conv_of_array(tree, policy_array(
        tree, python_solver.average_policy(), game)) / 2
    entry = {
        "game": game_string,
        "tree": tree.sizes(),
        "compile_seconds": compile_seconds,
        "iterations": iterations,
        "ours_cfr_plus": ours,
        "openspiel_cpp_cfr_plus": cpp,
        "openspiel_python_cfr_plus": python,
        "speedup_vs_cpp": ours["iterations_per_second"] / cpp["iterations_per_second"],
        "speedup_vs_python": ours["iterations_per_second"] / python["iterations_per_second"],
        "time_to_target": [time_to_target(tree, algorithm, target)
                           for algorithm in TIME_TO_TARGET_ALGORITHMS],
    }
    if game.get_type().short_name == "python_le_truc":
        entry["ours_public_cfr_plus"] = time_public_cfr_plus(game, iterations)
        entry["public_speedup_vs_cpp"] = (entry["ours_public_cfr_plus"]["iterations_per_second"]
                                          / cpp["iterations_per_second"])
    entry["peak_memory_mb"] = peak_memory_mb()
    return entry


def time_public_cfr_plus(game, iterations: int) -> dict:
    """CFR+ iterations per second of the public-tree engine (`solver.public.cfr`, best of
    REPEATS, after one warm-up iteration that loads its kernels from numba's cache, or
    compiles them) and the exploitability reached."""
    from solver.public.solve import make_solver
    from solver.public.tree import build_play_tree

    tree = build_play_tree(game)
    make_solver(game, make_schedule("cfr+"), tree=tree).iterate(1)
    best = np.inf
    for _ in range(REPEATS):
        engine = make_solver(game, make_schedule("cfr+"), tree=tree)
        start = time.perf_counter()
        for _ in range(iterations):
            engine.iterate()
        best = min(best, time.perf_counter() - start)
    return {"seconds": best, "iterations_per_second": iterations / best,
            "exploitability": engine.exploitability()}


def time_our_cfr_plus(tree, iterations: int) -> dict:
    """Our CFR+ iterations per second on a compiled tree (best of REPEATS), and the
    exploitability reached."""
    best = np.inf
    for _ in range(REPEATS):
        engine = CFREngine(tree, make_schedule("cfr+"))
        start = time.perf_counter()
        for _ in range(iterations):
            engine.iterate()
        best = min(best, time.perf_counter() - start)
    exploitability = nash_conv_of_array(tree, engine.average_policy_array()) / 2
    return {"seconds": best, "iterations_per_second": iterations / best,
            "exploitability": exploitability}


def time_openspiel(make_solver, iterations: int, repeats: int) -> tuple[dict, object]:
    """Iterations per second of an OpenSpiel CFR solver (best of `repeats`; last solver too)."""
    best = np.inf
    for _ in range(repeats):
        cfr_solver = make_solver()
        start = time.perf_counter()
        for _ in range(iterations):
            cfr_solver.evaluate_and_update_policy()
        best = min(best, time.perf_counter() - start)
    return {"seconds": best, "iterations_per_second": iterations / best}, cfr_solver


def time_to_target(tree, algorithm: str, target: float) -> dict:
    """Seconds and iterations our `algorithm` needs to reach `target` (evaluated every 10)."""
    result = solver.solve(load_game(tree.game_string), algorithm, target_exploitability=target,
                          iterations=MAX_ITERATIONS_TO_TARGET, eval_every=10, progress=False,
                          tree=tree)
    return {"algorithm": algorithm, "target": target, "reached": result.exploitability <= target,
            "iterations": result.iterations, "seconds": result.seconds,
            "exploitability": result.exploitability}


def full_le_truc_solve(algorithm: str, target: float, eval_every: int, time_limit: float | None,
                       cache: bool) -> dict:
    """Compile and solve the full isomorphic Le Truc without redeal; measured figures."""
    game = load_game(LE_TRUC_FULL)
    from_cache = cache and (cache_path(game) / "meta.json").exists()
    start = time.perf_counter()
    tree = solver.compile_game(game, cache=cache)
    compile_seconds = time.perf_counter() - start
    compile_peak = peak_memory_mb()
    result = solver.solve(game, algorithm, target_exploitability=target, time_limit=time_limit,
                          eval_every=eval_every, progress=True, tree=tree)
    return {
        "game": LE_TRUC_FULL,
        "tree": tree.sizes(),
        "compile_seconds": compile_seconds,
        "compiled_from_cache": from_cache,
        "compile_peak_memory_mb": compile_peak,
        "algorithm": algorithm,
        "target": target,
        "iterations": result.iterations,
        "solve_seconds": result.seconds,
        "exploitability": result.exploitability,
        "total_seconds": time.perf_counter() - start,
        "game_value_non_dealer": result.game_value,
        "curve": result.curve,
        "peak_memory_mb": peak_memory_mb(),
    }


def format_table(games: list[dict]) -> str:
    """The side-by-side table and the time-to-target table, as text."""
    lines = [f"{'game':<72} {'iters':>6} {'ours it/s':>11} {'C++ it/s':>10} {'Py it/s':>9} "
             f"{'x C++':>8} {'x Py':>9} {'expl ours':>10} {'expl C++':>10} {'expl Py':>10}"]
    for entry in games:
        ours, cpp, python = (entry["ours_cfr_plus"], entry["openspiel_cpp_cfr_plus"],
                             entry["openspiel_python_cfr_plus"])
        lines.append(
            f"{entry['game']:<72} {entry['iterations']:>6} {ours['iterations_per_second']:>11.1f} "
            f"{cpp['iterations_per_second']:>10.2f} {python['iterations_per_second']:>9.3f} "
            f"{entry['speedup_vs_cpp']:>8.0f} {entry['speedup_vs_python']:>9.0f} "
            f"{ours['exploitability']:>10.3g} {cpp['exploitability']:>10.3g} "
            f"{python['exploitability']:>10.3g}")
        public = entry.get("ours_public_cfr_plus")
        if public is not None:
            lines.append(
                f"{'  the same, public-tree engine':<72} {entry['iterations']:>6} "
                f"{public['iterations_per_second']:>11.1f} {'':>10} {'':>9} "
                f"{entry['public_speedup_vs_cpp']:>8.0f} {'':>9} {public['exploitability']:>10.3g}")
    lines.append("")
    lines.append(f"{'game':<72} {'algorithm':>9} {'target':>8} {'iters':>7} {'seconds':>9} "
                 f"{'reached':>8}")
    for entry in games:
        for run in entry["time_to_target"]:
            lines.append(f"{entry['game']:<72} {run['algorithm']:>9} {run['target']:>8.0e} "
                         f"{run['iterations']:>7} {run['seconds']:>9.3f} {str(run['reached']):>8}")
    return "\n".join(lines)


def format_full_solve(entry: dict) -> str:
    """The full Le Truc solve's figures, as text."""
    sizes = entry["tree"]
    return "\n".join([
        f"game {entry['game']}",
        f"tree: {sizes['histories']:,} histories ({sizes['decision_nodes']:,} decision, "
        f"{sizes['terminals']:,} terminal), information states {sizes['infosets_player0']:,} + "
        f"{sizes['infosets_player1']:,}",
        f"compile {entry['compile_seconds']:.1f} s (peak {entry['compile_peak_memory_mb']:.0f} MB)",
        f"{entry['algorithm']}: {entry['iterations']} iterations in {entry['solve_seconds']:.1f} s, "
        f"exploitability {entry['exploitability']:.6f} points/hand (target {entry['target']})",
        f"total {entry['total_seconds']:.1f} s; game value for the non-dealer "
        f"{entry['game_value_non_dealer']:+.6f} points/hand",
    ])


def ismcts_rollouts(simulations: int, seed: int = 9) -> dict:
    """IS-MCTS(`simulations`) on the full Two-Ten-Jack, numba rollouts against OpenSpiel's:
    seconds per move at `ISMCTS_POSITIONS` positions of random play (both bots seeded alike,
    one move each, after a warm-up move) and rollouts per second from the first position."""
    game = load_game(ISMCTS_GAME)
    positions = _random_play_positions(game, ISMCTS_POSITIONS, seed)
    entry = {"game": str(game), "simulations": simulations, "positions": len(positions)}
    for name, python_rollouts in (("numba", False), ("openspiel", True)):
        bot = ismcts_bot(game, seed, simulations, python_rollouts=python_rollouts)
        bot.step(positions[0])  # compiles the kernels (numba) or warms the caches alike
        seconds = []
        for state in positions:
            start = time.perf_counter()
            bot.step(state)
            seconds.append(time.perf_counter() - start)
        entry[f"{name}_seconds_per_move"] = seconds
    evaluators = {"numba": PlayoutEvaluator(game, np.random.RandomState(seed)),
                  "openspiel": mcts.RandomRolloutEvaluator(
                      n_rollouts=1, random_state=np.random.RandomState(seed))}
    for name, evaluator in evaluators.items():
        start = time.perf_counter()
        for _ in range(ISMCTS_ROLLOUTS):
            evaluator.evaluate(positions[0])
        entry[f"{name}_rollouts_per_second"] = ISMCTS_ROLLOUTS / (time.perf_counter() - start)
    return entry


def _random_play_positions(game, count: int, seed: int) -> list:
    """`count` decision nodes, each after a random deal and 0-39 random moves."""
    rng = np.random.default_rng(seed)
    positions = []
    while len(positions) < count:
        state = game.new_initial_state()
        moves = int(rng.integers(0, 40))
        while state.is_chance_node() or (moves and not state.is_terminal()):
            if not state.is_chance_node():
                moves -= 1
            choices = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() \
                else state.legal_actions()
            state.apply_action(int(rng.choice(choices)))
        if not state.is_terminal():
            positions.append(state)
    return positions


def format_ismcts(entry: dict) -> str:
    """The IS-MCTS rollout benchmark, as text."""
    numba_moves, python_moves = (np.median(entry["numba_seconds_per_move"]),
                                 np.median(entry["openspiel_seconds_per_move"]))
    numba_rollouts, python_rollouts = (entry["numba_rollouts_per_second"],
                                       entry["openspiel_rollouts_per_second"])
    return "\n".join([
        f"game {entry['game']}, IS-MCTS with {entry['simulations']} simulations, "
        f"{entry['positions']} positions",
        f"{'rollout':<28} {'s per move (median)':>20} {'rollouts/s':>12}",
        f"{'numba (solver.play.rollout)':<28} {numba_moves:>20.3f} {numba_rollouts:>12.0f}",
        f"{'OpenSpiel Python':<28} {python_moves:>20.3f} {python_rollouts:>12.0f}",
        f"{'speed-up':<28} {python_moves / numba_moves:>20.1f} "
        f"{numba_rollouts / python_rollouts:>12.0f}",
    ])
