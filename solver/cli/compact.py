"""`tricksolver compact`: a result's strategy in the compact form that is committed.

A full-size game's strategy.npz is too big to commit (git-ignored); its compact file
(`solver.compact`: every row in steps of 1/255, xz-compressed) is a few MB at most, and
`load_result` reads it when strategy.npz is absent. Quantising moves the exploitability, by
far less than the a priori bound of `solver.compact`, so the command measures the strategy read
back from the very bytes it writes, exactly (the engine's own best response), and records it in
summary.json beside the original's: `"compact": {file, bytes, step, exploitability,
game_value}`. A game solved vira class by vira class is compacted part by part (a class that
holds only its compact file, already measured, is kept as it is; a class recorded as the same
game as another, `same_game_as`, has no file of its own: the other's is measured in its tree),
and its DIR/summary.json gets the weighted sums (`solve_parts.write_combined`).
"""
from __future__ import annotations

import pathlib

from solver import results
from solver.atomic import atomic_write_bytes
from solver.cli.games import load_game_checked
from solver.cli.help import HelpFormatter
from solver.cli.solve_parts import write_combined
from solver.compact import COMPACT_FILE, STEP_TEXT, compact_bytes, policy_from_compact
from solver.history.best_response import nash_conv_of_array, policy_value
from solver.history.policy import AveragePolicy, policy_array
from solver.history.tree import compile_game
from solver.public.parts import public_parts
from solver.public.solve import solver_for


def add_parser(subparsers) -> None:
    """Register `compact`."""
    parser = subparsers.add_parser(
        "compact", help="write a result's strategy in compact form (to commit) and measure it",
        description=f"Write RESULT/{COMPACT_FILE}: RESULT/strategy.npz with every "
        f"information state's probabilities rounded to steps of {STEP_TEXT} (summing to one) "
        "and xz-compressed; compute the exploitability and value of the strategy read back "
        "from it, exactly, and record them in RESULT/summary.json under \"compact\", beside "
        "the original's. Results load the compact file when strategy.npz is absent. A game "
        "solved vira class by vira class: every vira_X, and the weighted sums in "
        "RESULT/summary.json.",
        epilog="examples:\n  tricksolver compact results/le_truc/small\n"
        "  tricksolver compact results/truco/paulista_eleven   # every vira class",
        formatter_class=HelpFormatter)
    parser.add_argument("results", metavar="RESULT", type=pathlib.Path, nargs="+",
                        help="result directories holding a strategy.npz")
    parser.set_defaults(func=run)


def run(args) -> int:
    """`tricksolver compact`: check every RESULT first, then compact them in turn."""
    for directory in args.results:
        _check_compactable(directory)
    for directory in args.results:
        if results.is_combined(directory):
            _compact_combined(directory)
        else:
            _compact_or_keep(pathlib.Path(directory))
    return 0


def _check_compactable(directory: pathlib.Path) -> None:
    """ValueError (one line) unless `directory` (or each of its sub-games) has a strategy.npz."""
    summary = results.read_summary(directory)
    if results.is_combined(directory):
        parts = public_parts(load_game_checked(summary["game"]))
        directories = [results.part_directory(directory, part) for part in parts]
    else:
        directories = [pathlib.Path(directory)]
    for each in directories:
        source = results.strategy_directory(each)
        measurable = (source / results.STRATEGY_FILE).exists() or (
            _is_twin(each) and (source / COMPACT_FILE).exists())
        if not measurable and not _already_compact(each):
            raise ValueError(f"{each}: no {results.STRATEGY_FILE} to compact (the compact file "
                             f"is made from it; solve the game first)")


def _already_compact(directory: pathlib.Path) -> bool:
    """Whether a result holds only its compact file, already measured (its strategy.npz gone,
    as on a fresh clone): compacting keeps it as it is."""
    return ((results.strategy_directory(directory) / COMPACT_FILE).exists()
            and "compact" in results.read_summary(directory))


def _compact_or_keep(directory: pathlib.Path) -> None:
    """Compact one result directory, or say that it already is."""
    if (results.strategy_directory(directory) / results.STRATEGY_FILE).exists() or (
            _is_twin(directory) and not _already_compact(directory)):
        _compact_result(directory)
    else:
        print(f"{directory}: already compact ({COMPACT_FILE}, no {results.STRATEGY_FILE})",
              flush=True)


def _is_twin(directory: pathlib.Path) -> bool:
    """Whether a result is a sub-game recorded as the same game as another (`same_game_as`)."""
    return results.strategy_directory(directory) != pathlib.Path(directory)


def _compact_result(directory: pathlib.Path) -> dict:
    """Write the compact file of one result directory, record its measures in summary.json
    and print them; the record. A sub-game recorded as the same game as another gets no file
    of its own: the other's compact strategy (the same bytes) is measured in its tree."""
    saved = results.load_result(directory)
    game = load_game_checked(results.base_game_string(saved.game_string))
    if saved.compact:  # a twin whose twin holds only its compact file: that is the strategy
        data, (exploitability, value) = b"", _measure(game, saved.policy)
    else:
        data, exploitability, value = _compact_and_measure(game, saved.policy)
    record = {"file": COMPACT_FILE, "bytes": len(data), "step": STEP_TEXT,
              "exploitability": exploitability, "game_value": value}
    source = results.strategy_directory(directory)
    if _is_twin(directory):
        record.update(file=f"../{source.name}/{COMPACT_FILE}", bytes=0)
    else:
        atomic_write_bytes(saved.path / COMPACT_FILE, data)
    results.write_summary(saved.path, _with_record(saved.summary, record))
    print(f"{saved.path}: {record['file']} {record['bytes']:,} bytes; exploitability "
          f"{exploitability:.6g} (original {saved.summary['exploitability']:.6g}), value "
          f"{value:+.6f}", flush=True)
    return record


def _compact_and_measure(game, policy) -> tuple[bytes, float, float]:
    """The compact file of `policy`, and the exploitability and value of the policy read back
    from it (exact, on the engine the policy was solved with)."""
    if isinstance(policy, AveragePolicy):
        data = compact_bytes(policy)
        tree = compile_game(game)
        probabilities = policy_array(tree, policy_from_compact(data), game)
        return data, nash_conv_of_array(tree, probabilities) / 2.0, policy_value(tree,
                                                                               probabilities)
    solver = solver_for(game, policy)
    data = compact_bytes(policy, solver.tree)
    solver.load_policy(policy_from_compact(data))
    return data, solver.exploitability(), solver.game_value()


def _measure(game, policy) -> tuple[float, float]:
    """The exploitability and value of a public-tree policy, exact."""
    solver = solver_for(game, policy)
    return solver.exploitability(), solver.game_value()


def _with_record(summary: dict, record: dict) -> dict:
    """`summary` with its "compact" record replaced by `record`, placed after the original's
    game value."""
    items = [(key, value) for key, value in summary.items() if key != "compact"]
    at = next((i + 1 for i, (key, _) in enumerate(items) if key == "game_value"), len(items))
    return dict(items[:at] + [("compact", record)] + items[at:])


def _compact_combined(directory: pathlib.Path) -> None:
    """Compact every sub-game of a game solved vira class by vira class, then rewrite its
    combined summary (with the weighted compact record)."""
    game = load_game_checked(results.read_summary(directory)["game"])
    parts = public_parts(game)
    for part in parts:
        _compact_or_keep(results.part_directory(directory, part))
    combined = write_combined(game, directory, parts)["compact"]
    print(f"{directory}: {combined['bytes']:,} bytes in all; exploitability "
          f"{combined['exploitability']:.6g} (weighted sum), value "
          f"{combined['game_value']:+.6f}", flush=True)
