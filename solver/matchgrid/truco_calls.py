"""Truco calls and runs per score state: how often each seat calls truco in the hand and how
often the seat facing the call runs, over the score grid of a two-player Truco match solved on
the public tree (issue 13's "truco-call and run frequencies per score").

A state's figures are read from its saved strategy (every vira class) with the Truco
analysis's per-context sums (`solver.analysis.truco.class_sums`: per hand, the reach of every
row of a decision context and reach x policy per action), on the public engine's tree with
the state's terminal utilities. The first raise of a hand is the truco call (to 3), and its
answer is met at most once per hand, so the probability of reaching `dealer_answer_raise_3`
(the pé answers) is P(the mão calls truco), and the `Run` mass there over that probability is
P(the pé runs | the mão called); `nondealer_answer_raise_3` gives the same for the pé's call.
Vira classes are weighted by their probability (the vira is public). A hand that allows no
raise (the hand of eleven where truco is illegal, the iron hand: its public root says so)
needs no strategy: nobody calls, and nobody runs from a call (no figure).

The figures are kept beside each state's summary (`CALLS_FILE`), so the table is drawn again
without the strategies (which are not committed); a mirrored state (seat symmetry) takes its
image's: the same person deals and leads in both. A state whose strategy is not on this
machine and whose figures were never kept is left out (blank), and the table's caption names
it. Written as DIR/tables/truco_calls.{csv,md} and drawn as one heat map per figure
(DIR/charts/truco_calls.{png,svg}).
"""
from __future__ import annotations

import json
import pathlib

from solver import results
from solver.analysis.charts import game_title
from solver.analysis.truco import class_sums
from solver.atomic import atomic_write_bytes
from solver.matchgrid import blind_hand, store
from solver.matchgrid.public_engine import PublicEngine
from solver.matchgrid.score_strategy import plot_score_frequencies, write_tables
from solver.matchgrid.states import ScoreState
from solver.public.cfr import PublicPolicy
from solver.public.parts import public_parts
from solver.registry import load_game

CALLS_FILE = "truco_calls.json"
STEM = "truco_calls"
# the answer context that a seat's truco call leads to: (call figure, run figure)
ANSWERS = {"dealer_answer_raise_3": ("Mão calls truco", "Pé runs from it"),
           "nondealer_answer_raise_3": ("Pé calls truco", "Mão runs from it")}
FIGURES = tuple(name for pair in ANSWERS.values() for name in pair)


def state_calls(engine: PublicEngine, directory: pathlib.Path) -> dict[str, float | None]:
    """{figure: probability} of one solved state (`directory`: its `states/A-B-dD/`, holding
    each vira class's strategy where the class has a raise); a run figure is None where
    nobody calls. ResultError where a strategy it needs is missing."""
    summary = results.read_summary(directory)
    game_string = results.base_game_string(summary["game"])
    game = load_game(game_string)
    sums = {key: [0.0, 0.0] for key in ANSWERS}  # reach, Run mass
    if not blind_hand.is_blind_hand(game):  # a blind iron hand: cards only, no raise
        utility = {float(p): float(u) for p, u in summary["match"]["utility_of_points"]}
        parts = public_parts(game)
        for part in parts:
            label = part.label if len(parts) > 1 else None
            if not has_raise(part):
                continue
            saved = results.load_result(results.part_directory(directory, part))
            solver = engine.solver(game_string, utility, label=label)
            solver.load_policy(PublicPolicy(solver.name, saved.policy.talk, saved.policy.sums))
            rows = class_sums(solver).part_rows(part).rows
            for key, total in sums.items():
                for row in rows.get(key, {}).values():
                    total[0] += part.weight * row.weight
                    total[1] += part.weight * row.action_mass.get("Run", 0.0)
    figures: dict[str, float | None] = {}
    for key, (call, run) in ANSWERS.items():
        reach, ran = sums[key]
        figures[call] = reach
        figures[run] = ran / reach if reach > 0.0 else None
    return figures


def has_raise(part) -> bool:
    """Whether a sub-game's hand allows a raise at all (not the hand of eleven, where truco is
    illegal, nor the iron hand: games/RULES.md TP-11, TP-12): some side may raise at a card
    turn, as its public root says."""
    return bool(part.root().may_raise_sides())


def record_calls(directory: pathlib.Path, engine: PublicEngine | None = None
                 ) -> tuple[dict[ScoreState, dict[str, float | None]], list[str]]:
    """({state: figures}, [the states left out]) of a Truco match directory: each solved
    state's figures read from its `CALLS_FILE`, else computed (`state_calls`) and kept there
    (a mirrored state takes its image's); a state whose strategy is missing is left out."""
    engine = engine or PublicEngine(memory_bytes=0)  # one tree at a time: read from the cache
    found, missing = {}, []
    for state, _, source in store.solved_directories(directory):
        saved = source / CALLS_FILE
        if not saved.exists():
            try:
                figures = state_calls(engine, source)
            except results.ResultError:
                missing.append(state.label)
                continue
            atomic_write_bytes(saved, (json.dumps(figures, indent=1) + "\n").encode())
        found[state] = json.loads(saved.read_text())
    return found, missing


def write_calls(directory: pathlib.Path, game_string: str, target: int,
                charts: pathlib.Path) -> list[pathlib.Path]:
    """DIR/tables/truco_calls.{csv,md} and `charts`/truco_calls.{png,svg} of a Truco match
    directory (`record_calls`: the figures computed where a state has none kept yet)."""
    calls, missing = record_calls(directory)
    caption = (f"Truco calls and runs per score state of `{game_string}` (match to {target}), "
               f"from each state's equilibrium: how often the mão (the non-dealer) and the pé "
               f"call truco in the hand, and how often the other side runs from the call "
               f"(\"-\": nobody calls there); `tricksolver chart {directory}` redraws it.")
    if missing:
        caption += (f" Left out ({len(missing)}: their strategies were not on the machine "
                    f"that drew this): {', '.join(missing)}.")
    paths = write_tables(calls, pathlib.Path(directory) / "tables", caption, STEM,
                         list(FIGURES))
    return paths + plot_score_frequencies(
        calls, f"{game_title(load_game(game_string))}: truco calls and runs per score (match "
        f"to {target}), %", target, charts, STEM, list(FIGURES),
        "%: of hands (calls), of calls (runs)")
