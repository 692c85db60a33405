"""A match solve on disk: one result directory per score state, the table and the summary.

    DIR/states/A-B-dD/      a state's solution, a result directory (`solver.results`):
        strategy.npz        the hand game's average policy for the match objective
        curve.csv           exploitability at each evaluation (win-probability units)
        summary.json        the hand game string, `objective: match`, exploitability and value
                            in win-probability units, and under `match` the state's figures
                            (bracket, error bound, utilities of the terminals, fixed point)
        vira_X/             for a hand solved sub-game by sub-game (Truco's vira classes):
                            no strategy.npz above, one result directory per sub-game instead
                            (its strategy, curve and summary), the summary above listing
                            them under `by_part` as `tricksolver solve` does (a sub-game
                            that is the same game as an earlier one, `same_game_as`, holds
                            no strategy: it reads its twin's); for a blind
                            iron hand (no decision matters) no strategy at all, `strategy` in
                            the summary says why
        truco_calls.json    Truco: the state's truco calls and runs (`solver.matchgrid.
                            truco_calls`), kept when first read from its strategy
    DIR/match_values.csv    score0,score1,dealer,p0_win: one row per state solved so far
    DIR/summary.json        the match: game, settings, per-state figures, totals, how each
                            figure was obtained; both rewritten after every position, with
                            `complete` false until every state is solved
    DIR/charts/, tables/    the heat map of p0_win per dealer (`solver.matchgrid.chart`) and
                            how the play changes with the score, drawn when a run ends

A state directory is written whole under a temporary name and renamed into place, so a
killed run leaves finished states complete and no partial one (`--resume` skips the finished
and removes the leftovers). `tricksolver show` reads a state directory as any hand-level
result; `tricksolver exploit` recomputes its exploitability with its terminal utilities.
"""
from __future__ import annotations

import csv
import io
import json
import os
import pathlib
import shutil

from solver import results
from solver.atomic import atomic_write_bytes
from solver.matchgrid.engine import HandSolution
from solver.matchgrid.fixed_point import StateSolution
from solver.matchgrid.hand_decisions import BY_HAND_FILE, by_hand_csv
from solver.matchgrid.states import LABEL, MatchSpec, ScoreState, parse_label
from solver.public.parts import public_parts
from solver.registry import load_game

STATES_DIR = "states"
VALUES_FILE = "match_values.csv"
VALUES_HEADER = ("score0", "score1", "dealer", "p0_win")
OBJECTIVE = "match"
UNITS = "probability that player 0 wins the match"


def state_directory(directory: pathlib.Path, state: ScoreState) -> pathlib.Path:
    """DIR/states/A-B-dD."""
    return pathlib.Path(directory) / STATES_DIR / state.label


def is_match_directory(directory: pathlib.Path) -> bool:
    """Whether `directory` holds a match solve (finished or not)."""
    return (pathlib.Path(directory) / STATES_DIR).is_dir()


def save_state(directory: pathlib.Path, solution: StateSolution, run: dict) -> None:
    """Write one state's result directory (atomically: temporary directory, then rename)."""
    final = state_directory(directory, solution.state)
    temporary = final.with_name(f".tmp-{final.name}-{os.getpid()}")
    shutil.rmtree(temporary, ignore_errors=True)
    hand = solution.hand
    curve = [(i, s, e / 2) for i, s, e in hand.curve]  # utility units -> win probability
    summary = {
        "game": solution.game_string,
        "game_short_name": results.game_short_name(solution.game_string),
        "params_hash": results.params_hash(solution.game_string),
        "objective": OBJECTIVE,
        "units": UNITS,
        **run,
        "iterations": solution.iterations,
        "exploitability": solution.exploitability,
        "game_value": solution.p0_win,
        "seconds": solution.seconds,
        "compile_seconds": solution.compile_seconds,
        "match": state_record(solution),
    }
    if solution.decisions_by_hand is not None:
        temporary.mkdir(parents=True)
        atomic_write_bytes(temporary / BY_HAND_FILE,
                           by_hand_csv(solution.decisions_by_hand).encode())
    if hand.parts is None and hand.policy is None:  # a blind hand: no decision matters
        summary["strategy"] = ("none: nobody sees a card, so every strategy is an equilibrium "
                               "and the value is exact (solver.matchgrid.blind_hand)")
        temporary.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(temporary / results.CURVE_FILE,
                           results.curve_csv(curve).encode())
        results.write_summary(temporary, summary)
    elif hand.parts is None:
        results.save_result(temporary, hand.policy, curve, summary)
    else:
        weights = {part.label: part.weight
                   for part in public_parts(load_game(solution.game_string))}
        summary["by_part"] = [_save_part(temporary, summary, label, weights[label], part)
                              for label, part in hand.parts.items()]
        atomic_write_bytes(temporary / results.CURVE_FILE,
                           results.curve_csv(curve).encode())
        results.write_summary(temporary, summary)
    if final.exists():
        shutil.rmtree(final)
    os.rename(temporary, final)


def _save_part(directory: pathlib.Path, state_summary: dict, label: str, weight: float,
               hand: HandSolution) -> dict:
    """Write one sub-game's result directory under a state's; its row of `by_part`. A
    sub-game that took its twin's strategy (`HandSolution.same_game_as`) is saved as
    `tricksolver solve` saves one: its summary names the twin, whose strategy file it reads
    (`results.load_result`), and its curve is the twin's."""
    figures = {"part": label, "weight": weight, "iterations": hand.iterations,
               "exploitability": hand.exploitability / 2,
               "game_value": 0.5 * (hand.value + 1.0), "seconds": hand.seconds,
               "compile_seconds": hand.compile_seconds}
    if hand.same_game_as is not None:
        figures["same_game_as"] = hand.same_game_as
    summary = {key: state_summary[key] for key in (
        "game", "game_short_name", "params_hash", "objective", "units")}
    summary.update(figures)
    summary["game"] = hand.policy.game_string  # `GAME|vira X`, as `tricksolver solve` names it
    summary["match"] = {"utility_of_points": state_summary["match"]["utility_of_points"]}
    curve = [(i, s, e / 2) for i, s, e in hand.curve]
    sub = results.part_directory_named(directory, label)
    if hand.same_game_as is None:
        results.save_result(sub, hand.policy, curve, summary)
    else:
        summary["how"] = results.twin_how(hand.same_game_as)
        sub.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(sub / results.CURVE_FILE, results.curve_csv(curve).encode())
        results.write_summary(sub, summary)
    return {**figures, "finished": True}


def save_mirror(directory: pathlib.Path, spec: MatchSpec, state: ScoreState, source: dict,
                run: dict) -> dict:
    """Write `state` as the mirror image of the solved state `source` (the record of
    `state.mirrored()`: V(a, b, d) = 1 - V(b, a, 1 - d), `MatchSpec.mirror_source`): a state
    directory with its summary.json only (the strategy is the source's, seats exchanged).
    Returns the state's record."""
    low, high = source["p0_win_bracket"]
    record = {
        **source,
        "state": state.label,
        "p0_win": 1.0 - source["p0_win"],
        "p0_win_bracket": [1.0 - high, 1.0 - low],
        "iterations": 0, "seconds": 0.0, "compile_seconds": 0.0, "position_seconds": 0.0,
        "successors": [parse_label(label).mirrored().label for label in source["successors"]],
        "utility_of_points": [[-points, -utility] for points, utility
                              in reversed(source["utility_of_points"])],
        "mirror_of": source["state"],
    }
    summary = {
        "game": spec.hand_game_string(state),
        "game_short_name": spec.short_name,
        "objective": OBJECTIVE,
        "units": UNITS,
        **run,
        "exploitability": record["exploitability"],
        "game_value": record["p0_win"],
        "mirror_of": source["state"],
        "match": record,
    }
    final = state_directory(directory, state)
    temporary = final.with_name(f".tmp-{final.name}-{os.getpid()}")
    shutil.rmtree(temporary, ignore_errors=True)
    temporary.mkdir(parents=True)
    results.write_summary(temporary, summary)
    if final.exists():
        shutil.rmtree(final)
    os.rename(temporary, final)
    return record


def state_record(solution: StateSolution) -> dict:
    """The figures of one state, as summary.json keeps them."""
    return {
        "state": solution.state.label,
        "p0_win": solution.p0_win,
        "p0_win_bracket": [solution.p0_win_low, solution.p0_win_high],
        "exploitability": solution.exploitability,
        "error_bound": solution.error_bound,
        "iterations": solution.iterations,
        "seconds": solution.seconds,
        "compile_seconds": solution.compile_seconds,
        "position_seconds": solution.position_seconds,
        "fixed_point_rounds": solution.rounds,
        "fixed_point_residual": solution.residual,
        "void_probability_bound": solution.void_probability_bound,
        "successors": solution.successors,
        "utility_of_points": [[points, utility] for points, utility
                              in sorted(solution.utility_of_points.items())],
        **({} if solution.first_decision is None else
           {"first_decision": solution.first_decision}),
    }


def load_states(directory: pathlib.Path, spec: MatchSpec, run: dict) -> dict[ScoreState, dict]:
    """{state: its `match` record} of every finished state in DIR/states (leftovers of a
    killed run removed); ResultError if one was solved for another game or with other
    settings."""
    root = pathlib.Path(directory) / STATES_DIR
    found = {}
    if not root.is_dir():
        return found
    for path in sorted(root.iterdir()):
        if path.name.startswith(".tmp-"):
            shutil.rmtree(path, ignore_errors=True)
            continue
        if not LABEL.match(path.name) or not (path / results.SUMMARY_FILE).exists():
            continue
        summary = results.read_summary(path)
        state = parse_label(path.name)
        if summary.get("game") != spec.hand_game_string(state):
            raise results.ResultError(f"{path}: solved for {summary.get('game')!r}, not for "
                                      f"this match's hand at {state.label}; use another --out")
        for key, value in run.items():
            if summary.get(key) != value:
                raise results.ResultError(
                    f"{path}: solved with {key}={summary.get(key)!r}, not {value!r}; use the "
                    f"same settings to resume, or another --out")
        found[state] = summary["match"]
    return found


def solved_directories(directory: pathlib.Path
                       ) -> list[tuple[ScoreState, pathlib.Path, pathlib.Path]]:
    """(state, its directory, the directory its strategy and figures are read from) of every
    finished state in DIR/states, in label order: a mirror image's source is the state it
    mirrors (`mirror_of`: the same seat of the same hand), any other state's its own."""
    root = pathlib.Path(directory) / STATES_DIR
    found = []
    for path in sorted(root.iterdir()):
        if path.name.startswith(".") or not (path / results.SUMMARY_FILE).exists():
            continue
        source = results.read_summary(path).get("mirror_of") or path.name
        found.append((parse_label(path.name), path, root / source))
    return found


def values_csv(records: dict[ScoreState, dict]) -> str:
    """match_values.csv: one row per state, by score0, score1, dealer."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(VALUES_HEADER)
    for state in sorted(records):
        writer.writerow((state.score0, state.score1, state.dealer,
                         f"{records[state]['p0_win']:.9f}"))
    return buffer.getvalue()


def read_values(directory: pathlib.Path) -> dict[ScoreState, float]:
    """{state: p0_win} of DIR/match_values.csv (ResultError if missing or malformed)."""
    path = pathlib.Path(directory) / VALUES_FILE
    if not path.exists():
        raise results.ResultError(f"{path}: no such file (is {directory} a finished match "
                                  f"solve? run solve-match --resume)")
    try:
        rows = list(csv.reader(path.read_text().splitlines()))
        if tuple(rows[0]) != VALUES_HEADER:
            raise ValueError(f"header {rows[0]} is not {list(VALUES_HEADER)}")
        return {ScoreState(int(a), int(b), int(d)): float(v) for a, b, d, v in rows[1:]}
    except (ValueError, IndexError) as error:
        raise results.ResultError(f"{path}: not a match table ({error})") from error


def write_match(directory: pathlib.Path, spec: MatchSpec, records: dict[ScoreState, dict],
                summary: dict) -> None:
    """Write match_values.csv, then summary.json (atomically each)."""
    directory = pathlib.Path(directory)
    atomic_write_bytes(directory / VALUES_FILE, values_csv(records).encode())
    text = json.dumps(summary, indent=1) + "\n"
    atomic_write_bytes(directory / results.SUMMARY_FILE, text.encode())
