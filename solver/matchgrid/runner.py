"""Running a match solve: positions in dependency order, serially or on Ray, resumable.

A position (both dealers at one score) can be solved once every position its hands can reach
is (`MatchSpec.depends_on`: the same score0 with a higher score1, or the reverse), so the
positions form a DAG, topologically ordered by decreasing total score; positions of equal
total never depend on each other. `solve_match` walks that DAG, hands each ready position
with the values it needs to an executor (`SerialExecutor` here, in process;
`solver.matchgrid.ray_executor.RayExecutor`, one Ray task per position), and saves every
state as it comes back (`solver.matchgrid.store`). Positions are submitted in solving order
and each task's result depends only on its inputs, so every executor gives the same table,
bit for bit. At most `executor.capacity` positions are in flight: a killed run loses those
only.
"""
from __future__ import annotations

import dataclasses
import functools
import pathlib
from typing import Callable, Protocol

from solver.matchgrid import store
from solver.matchgrid.engine import HandEngine, HandSolution, HistoryEngine
from solver.matchgrid.fixed_point import Settings, StateSolution, solve_position
from solver.matchgrid.hand_decisions import PLAY
from solver.matchgrid.public_engine import PublicEngine
from solver.matchgrid.score_strategy import decisions_by_hand, first_decision
from solver.matchgrid.states import MatchSpec, ScoreState

@dataclasses.dataclass(frozen=True)
class EngineChoice:
    """Which hand engine solves the states ("public" or "history"), with which CFR variant,
    whether it uses the tree cache, and (public engine) how many sub-games it solves at a
    time."""

    name: str
    algorithm: str = "dcfr"
    cache: bool = False
    part_workers: int = 1


@functools.lru_cache(maxsize=2)
def process_engine(choice: EngineChoice) -> HandEngine:
    """This process's engine of `choice`, kept from position to position (the public engine
    builds each hand tree once; a Ray worker process keeps its engine between tasks)."""
    if choice.name == "public":
        return PublicEngine(algorithm=choice.algorithm, cache=choice.cache,
                            part_workers=choice.part_workers)
    return HistoryEngine(algorithm=choice.algorithm, cache=choice.cache)


class Executor(Protocol):
    """Runs positions: `submit` one, `next_finished` blocks until one is done."""

    capacity: int

    def submit(self, position: tuple[int, int], known: dict) -> None:
        """Start solving `position` with the values `known` of the states it reaches."""

    def next_finished(self) -> tuple[tuple[int, int], list[StateSolution]]:
        """A finished position and its two states' solutions (dealer 0 first)."""

    def close(self) -> None:
        """Release what the executor holds."""


def solve_one(spec: MatchSpec, settings: Settings, choice: EngineChoice,
              position: tuple[int, int], known: dict) -> list[StateSolution]:
    """One position with this process's engine, with each state's first decision where the
    engine is the public one (read here, where the tree is: a resumed match needs no
    strategy file for its tables); the warm-start state is dropped (it is not saved, and
    need not travel back from a Ray worker)."""
    engine = process_engine(choice)
    solutions = solve_position(spec, engine, position, known, settings)
    if isinstance(engine, PublicEngine):
        solutions = [_with_first_decision(engine, solution) for solution in solutions]
    return [_without_solver_state(solution) for solution in solutions]


def _with_first_decision(engine: PublicEngine, solution: StateSolution) -> StateSolution:
    """`solution` with its hand's first decision, over all hands and hand by hand (a hand
    without a policy, the blind iron hand, has one way to begin: a slot's card is led, no
    hand being seen)."""
    if solution.hand.policy is None and solution.hand.parts is None:
        return dataclasses.replace(solution, first_decision={PLAY: 1.0}, decisions_by_hand=[])
    rows = decisions_by_hand(engine, solution.game_string, solution.utility_of_points,
                             solution.hand)
    return dataclasses.replace(solution, first_decision=first_decision(rows),
                               decisions_by_hand=rows)


def _without_solver_state(solution: StateSolution) -> StateSolution:
    """`solution` without the regrets of its last solve (of every sub-game)."""
    return dataclasses.replace(solution, hand=_hand_without_state(solution.hand))


def _hand_without_state(hand: HandSolution) -> HandSolution:
    """`hand` without its solver state, and its sub-games' without theirs."""
    parts = None if hand.parts is None else {
        label: dataclasses.replace(part, state=None) for label, part in hand.parts.items()}
    return dataclasses.replace(hand, state=None, parts=parts)


def _save_finished(executor: Executor, directory: pathlib.Path, run: dict
                   ) -> tuple[tuple[int, int], dict[ScoreState, dict]]:
    """Wait for the next finished position, save its states and return (position, {state:
    record}). The solutions (a full-size Truco position's strategies are gigabytes) are
    dropped on return, before the next position is solved: held in the loop, they doubled
    its peak memory."""
    position, solutions = executor.next_finished()
    for solution in solutions:
        store.save_state(directory, solution, run)
    return position, {solution.state: store.state_record(solution) for solution in solutions}


class SerialExecutor:
    """Solves each position in this process when asked for it."""

    capacity = 1

    def __init__(self, spec: MatchSpec, settings: Settings, choice: EngineChoice):
        self.task = (spec, settings, choice)
        self.queue: list[tuple[tuple[int, int], dict]] = []

    def submit(self, position: tuple[int, int], known: dict) -> None:
        """Queue `position`."""
        self.queue.append((position, known))

    def next_finished(self) -> tuple[tuple[int, int], list[StateSolution]]:
        """Solve the first queued position now."""
        position, known = self.queue.pop(0)
        return position, solve_one(*self.task, position, known)

    def close(self) -> None:
        """Stop the engine's worker processes, if it has any."""
        engine = process_engine(self.task[2])
        if isinstance(engine, PublicEngine):
            engine.close()


def run_settings(spec: MatchSpec, settings: Settings, choice: EngineChoice) -> dict:
    """What a resumed run must share with the run that saved the states."""
    return {"match_game": spec.game, "engine": choice.name, "algorithm": choice.algorithm,
            "target_exploitability": settings.target_exploitability,
            "iterations_per_state": settings.iterations, "eval_every": settings.eval_every,
            "fixed_point_tolerance": settings.fixed_point_tolerance,
            "seat_symmetry": settings.seat_symmetry}


def solve_match(spec: MatchSpec, directory: pathlib.Path, settings: Settings,
                executor: Executor, run: dict, resume: bool = False,
                on_state: Callable[[ScoreState, dict], None] | None = None,
                on_resumed: Callable[[int], None] | None = None,
                on_records: Callable[[dict[ScoreState, dict]], None] | None = None
                ) -> dict[ScoreState, dict]:
    """Solve every state of `spec` into `directory`; {state: record} of all states.

    Without `resume`, a directory that already holds solved states is refused (ValueError);
    with it, they are kept and skipped (states of a half-saved position are solved again).
    With `settings.seat_symmetry`, a position with score0 < score1 is not solved but written
    as its mirror image's (`store.save_mirror`) as soon as that is done. `on_resumed(count)`
    is told how many states were kept, `on_state(state, record)` is called with each state
    solved or mirrored in this run, `on_records(records)` with every state's record so far
    when the kept ones are read and after each position is saved. The executor is closed at
    the end, also on errors.
    """
    try:
        records = store.load_states(directory, spec, run)
        if records and not resume:
            raise ValueError(f"{directory} already holds {len(records)} solved states: add "
                             f"--resume to continue, or choose another --out")
        done = {state.position for state in records
                if ScoreState(*state.position, 1 - state.dealer) in records}
        records = {state: record for state, record in records.items()
                   if state.position in done}
        if records:
            if on_resumed is not None:
                on_resumed(len(records))
            if on_records is not None:
                on_records(records)

        def finish(position: tuple[int, int], new: dict[ScoreState, dict]) -> None:
            records.update(new)
            done.add(position)
            if on_state is not None:
                for state, record in new.items():
                    on_state(state, record)
            if on_records is not None:
                on_records(records)

        pending = [p for p in spec.positions() if p not in done]
        in_flight: set[tuple[int, int]] = set()
        while pending or in_flight:
            waiting = len(pending)
            for position in list(pending):
                source = spec.mirror_source(position) if settings.seat_symmetry else None
                if source is not None:
                    if source in done:
                        pending.remove(position)
                        finish(position, {state: store.save_mirror(
                            directory, spec, state, records[state.mirrored()], run)
                            for state in (ScoreState(*position, 0), ScoreState(*position, 1))})
                    continue
                needs = spec.depends_on(position)
                if len(in_flight) < executor.capacity and all(p in done for p in needs):
                    known = {state: (records[state]["p0_win"], records[state]["error_bound"])
                             for p in needs for state in (ScoreState(*p, 0), ScoreState(*p, 1))}
                    executor.submit(position, known)
                    pending.remove(position)
                    in_flight.add(position)
            if not in_flight:
                if len(pending) == waiting:
                    raise RuntimeError(f"no position of {pending} can be solved")
                continue  # only mirror images were ready: write the next ones
            position, saved = _save_finished(executor, directory, run)
            in_flight.discard(position)
            finish(position, saved)
    finally:
        executor.close()
    return records
