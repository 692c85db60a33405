"""`HandEngine` on the public tree (`solver.public`), each hand tree built once for the match.

A score state's hand is the hand game at its scores. On the public tree of a Truc-family hand
the scores change only what the terminals marked `whole_match` score (a rest in Le Truc, a
forfeited match in Truco's hand of eleven: what the winner needed to win the match), except
where the rules change the play itself (Truco's hand of eleven and iron hand, a `raise_cap`
that reads the scores): the game's `Rules.tree_scores()` names the scores of a hand with the
same tree. So the engine builds (or reads from the tree cache) one public tree per (tree
scores, dealer) — two for a whole Le Truc match — and per state only re-scores the whole-match
terminals (+(target - score0) or -(target - score1), by the winner) and maps every terminal's
points to the state's utility 2·V(next) - 1 (`solver.matchgrid.engine`). States that share a
tree share the solver's table layout, so a state can be warm-started from any other's regrets.

The value bracket is the public solver's pair of exact best responses (in the real game:
Le Truc's redeal included): player 0's best response to σ1 bounds the value from above, minus
player 1's to σ0 from below.

The void bound (`max_void_probability`): with both players seeing everything, a deal reaches a
void terminal (scoring nothing) iff some void terminal is consistent with both full hands — a
terminal's private-state lists, read at its parent and through the edge's maps, hold exactly
the hands consistent with its public play — so the exact maximum over strategy pairs is the
deal probability of those pairs. With Le Truc's redeal a hand sees a second deal, whose pair
of hands has the first deal's distribution (exchangeability), so the union bound doubles it.
The history engine computes the same maximum on the history tree (equal on the small
variants, `tests/test_solve_match.py`).

Trucomano's blind iron hand, where nobody sees a card, is no game of information at all:
`solver.matchgrid.blind_hand` gives its exact value as a chance expectation (any strategy is
an equilibrium there).

A hand the engine splits into sub-games (two-player Truco: one per vira class, the vira being
public) is solved sub-game by sub-game with the same terminal utilities, each to the target,
and combined with the sub-games' probabilities: a best response decomposes over a public
chance outcome, so the combined bracket, exploitability and void bound (the weighted sums) are
exact. The sub-games' trees are read from the tree cache in turn (as many held in memory as
`memory_bytes` allows); with `part_workers` > 1 the sub-games are solved that many at a time
in worker processes (`map_parts`: each worker keeps its own engine and trees; every sub-game's
solve is the same wherever it runs, so the table is too), which puts both cores to work on a
chain of states that depend on each other (Truco's row of eleven). A sub-game that is the same
game as an earlier one under other names (`PublicGame.identity`: Truco's vira 2 and vira 3,
whose trees are equal array for array) is not solved again: it takes its twin's strategy, and
its bracket is measured exactly in its own tree (`copy_twin`), as `tricksolver solve` does.
"""
from __future__ import annotations

import concurrent.futures
import dataclasses
import functools
import logging
import multiprocessing
import os
import time

import numpy as np

from solver.cfr import run_iterations
from solver.matchgrid import blind_hand
from solver.matchgrid.engine import HandSolution
from solver.matchgrid.states import ScoreState, load_game_with
from solver.cores import THREADS_VARIABLE
from solver.public.cfr import PublicPolicy, PublicSolver
from solver.public.parts import first_twin, part_named, public_parts
from solver.public.solve import make_solver
from solver.public.tree import (PlayTree, is_terminal, load_play_tree, outcome_of,
                                play_tree_cache_path, tree_name)
from solver.registry import load_game
from solver.schedules import make_schedule

logger = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class PartFacts:
    """What the match layer needs of one sub-game's tree at a state's scores: its
    probability, its void bound (module docstring) and the points its terminals score."""

    weight: float
    void_bound: float
    outcomes: tuple[float, ...]


@dataclasses.dataclass(frozen=True)
class SharedTree:
    """One public hand tree for every state whose `Rules.tree_scores()` are these: the game
    it was built for, its sub-game, the tree, the seconds it took."""

    game: object
    part: object
    tree: PlayTree
    seconds: float


class PublicEngine:
    """`HandEngine` on the public tree (module docstring): Le Truc's hand is one sub-game,
    two-player Truco's one per vira class."""

    name = "public"

    def __init__(self, algorithm: str = "dcfr", cache: bool = True,
                 memory_bytes: float = 6e9, part_workers: int = 1):
        """`cache`: read and write the public tree cache (`solver.public.tree`);
        `memory_bytes`: the trees held in memory at most (the oldest are dropped beyond it,
        the last one always kept; a dropped tree is read from the cache when needed again);
        `part_workers`: sub-games solved at a time, in worker processes if more than one."""
        self.schedule = make_schedule(algorithm)
        self.algorithm = algorithm
        self.cache = cache
        self.memory_bytes = memory_bytes
        self.part_workers = part_workers
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self._shared: dict[str, SharedTree] = {}
        self._void_bounds: dict[str, float] = {}  # per tree, kept when the tree is dropped
        self._facts: dict[str, list[PartFacts]] = {}
        self._charged: set[str] = set()  # trees whose building seconds a solve reported

    def labels(self, game_string: str) -> list[str | None]:
        """The sub-games of `game_string`'s hand, by label ([None]: one sub-game)."""
        parts = public_parts(load_game(game_string))
        return [None] if len(parts) == 1 else [part.label for part in parts]

    def shared(self, game_string: str, label: str | None = None) -> SharedTree:
        """The tree of sub-game `label` (None: the only one) that `game_string`'s hand is
        played on, built or read once."""
        reference, key = _tree_key(game_string, label)
        if key not in self._shared:
            began = time.perf_counter()
            part = part_named(reference, label)
            cached = self.cache and play_tree_cache_path(reference, part).exists()
            logger.info("%s the public tree of %s", "reading" if cached else "building",
                        label or "the hand")
            tree = load_play_tree(reference, part, self.cache)
            if key not in self._void_bounds:
                solver = make_solver(reference, self.schedule, part, tree)
                void = solver.deals_per_hand * float(np.sum(solver.deals.first_hands()
                                                            * void_pairs(tree)))
                self._void_bounds[key] = min(void, 1.0)
            self._shared[key] = SharedTree(reference, part, tree, time.perf_counter() - began)
            self._drop_beyond_budget()
        return self._shared[key]

    def _drop_beyond_budget(self) -> None:
        """Drop the oldest trees while those held exceed `memory_bytes` (keeping the last)."""
        while len(self._shared) > 1 and sum(
                _tree_bytes(shared.tree) for shared in self._shared.values()) > self.memory_bytes:
            self._shared.pop(next(iter(self._shared)))

    def points(self, game_string: str, label: str | None = None) -> np.ndarray:
        """Player 0's points at each terminal outcome of sub-game `label`'s shared tree for
        `game_string`'s scores (`PlayTree.outcome_payoff`)."""
        shared, rules = self.shared(game_string, label), load_game(game_string).rules
        tree = shared.tree
        points = tree.outcome_payoff.copy()
        match = tree.outcome_whole_match == 1
        player0_wins = points[match] > 0
        points[match] = np.where(player0_wins, rules.target - rules.scores[0],
                                 -(rules.target - rules.scores[1]))
        return points

    def map_parts(self, task, game_string: str, arguments: list[tuple] | None = None,
                  labels: list[str | None] | None = None) -> list:
        """[task(engine, game_string, label, *arguments[i]) for the i-th label of `labels`
        (default: every sub-game's)], in order: here, or `part_workers` at a time in worker
        processes (`task` a module-level function; each worker has its own engine, with this
        one's settings)."""
        labels = self.labels(game_string) if labels is None else labels
        arguments = arguments if arguments is not None else [()] * len(labels)
        if self.part_workers <= 1 or len(labels) == 1:
            return [task(self, game_string, label, *more)
                    for label, more in zip(labels, arguments)]
        if self._pool is None:
            self._pool = concurrent.futures.ProcessPoolExecutor(
                max_workers=self.part_workers, mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_part_worker,
                initargs=(self.algorithm, self.cache, self.memory_bytes))
        return list(self._pool.map(_run_part_task, [task] * len(labels),
                                   [game_string] * len(labels), labels, arguments))

    def close(self) -> None:
        """Stop the worker processes, if any."""
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None

    def facts(self, game_string: str) -> list[PartFacts]:
        """Each sub-game's `PartFacts` at `game_string`'s scores (its tree built or read)."""
        if game_string not in self._facts:
            self._facts[game_string] = self.map_parts(_part_facts, game_string)
        return self._facts[game_string]

    def outcomes(self, game_string: str) -> list[float]:
        """See `HandEngine.outcomes` (over every sub-game)."""
        if blind_hand.is_blind_hand(load_game(game_string)):
            return blind_hand.outcomes(game_string)
        return sorted({points for facts in self.facts(game_string) for points in facts.outcomes})

    def max_void_probability(self, game_string: str) -> float:
        """See `HandEngine.max_void_probability` (module docstring)."""
        if blind_hand.is_blind_hand(load_game(game_string)):
            return blind_hand.void_probability(game_string)
        return min(1.0, sum(f.weight * f.void_bound for f in self.facts(game_string)))

    def void_bound(self, game_string: str, label: str | None = None) -> float:
        """The void bound of sub-game `label` of `game_string`'s hand, given the sub-game."""
        _, key = _tree_key(game_string, label)
        if key not in self._void_bounds:
            self.shared(game_string, label)
        return self._void_bounds[key]

    def solver(self, game_string: str, utility_of_points: dict[float, float],
               state=None, label: str | None = None) -> PublicSolver:
        """A public solver of sub-game `label` of `game_string`'s hand with these terminal
        utilities (from `state`'s tables if given)."""
        shared = self.shared(game_string, label)
        tree = shared.tree
        points = self.points(game_string, label).tolist()
        missing = sorted({p for p in points if p not in utility_of_points})
        if missing:
            raise KeyError(f"no utility for a hand scoring {missing}")
        utility = np.array([utility_of_points[p] for p in points], dtype=np.float64)
        weighted = dataclasses.replace(tree, outcome_payoff=utility)
        return make_solver(shared.game, self.schedule, shared.part, weighted, state)

    def solve(self, game_string: str, utility_of_points: dict[float, float], *,
              target_exploitability: float, iterations: int, eval_every: int = 10,
              warm_start: HandSolution | None = None,
              keep_state: bool = True) -> HandSolution:
        """See `HandEngine.solve`; a hand split into sub-games is solved sub-game by sub-game,
        each to the target, and combined (module docstring); a blind hand, which has no
        private information, exactly as the chance game it is (`blind_hand`)."""
        if blind_hand.is_blind_hand(load_game(game_string)):
            return blind_hand.solve(game_string, utility_of_points)
        stopping = (target_exploitability, iterations, eval_every)
        if self.labels(game_string) == [None]:
            return self.map_parts(_solve_part, game_string,
                                  [(utility_of_points, stopping, warm_start, keep_state)])[0]
        twin_of = self.twins(game_string)
        originals = [label for label, twin in twin_of.items() if twin == label]
        solved = dict(zip(originals, self.map_parts(
            _solve_part, game_string,
            [(utility_of_points, stopping, None if warm_start is None else
              warm_start.parts[label], keep_state) for label in originals], originals)))
        copies = [label for label, twin in twin_of.items() if twin != label]
        solved.update(zip(copies, self.map_parts(
            _copy_twin, game_string,
            [(utility_of_points, twin_of[label], dataclasses.replace(
                solved[twin_of[label]], state=None)) for label in copies], copies)))
        weights = [facts.weight for facts in self.facts(game_string)]
        return combined(game_string, weights, {label: solved[label] for label in twin_of})

    def twins(self, game_string: str) -> dict[str, str]:
        """Each sub-game's label (in order) -> the label of the first sub-game that is the same
        game (`first_twin`: itself unless an earlier one is it under other names)."""
        parts = public_parts(load_game(game_string))
        return {part.label: first_twin(parts, part).label for part in parts}

    def copy_twin(self, game_string: str, label: str, utility_of_points: dict[float, float],
                  twin_label: str, twin: HandSolution) -> HandSolution:
        """Sub-game `label`, the same game as the solved sub-game `twin_label` (module
        docstring): the twin's strategy under this sub-game's name, its bracket measured
        exactly in this sub-game's own tree with these utilities; the twin's iterations and
        curve, the seconds the measurement took."""
        began = time.perf_counter()
        shared = self.shared(game_string, label)
        policy = PublicPolicy(tree_name(load_game(game_string), shared.part),
                              twin.policy.talk, twin.policy.sums)
        low, high = self.bracket(game_string, utility_of_points, policy, label)
        return HandSolution(
            game_string=game_string, value_low=low, value_high=high,
            iterations=twin.iterations, seconds=time.perf_counter() - began,
            compile_seconds=self._charge(shared), curve=twin.curve, policy=policy, state=None,
            same_game_as=twin_label)

    def solve_part(self, game_string: str, label: str | None,
                   utility_of_points: dict[float, float], *, target_exploitability: float,
                   iterations: int, eval_every: int,
                   warm_start: HandSolution | None, keep_state: bool = True) -> HandSolution:
        """One sub-game of the hand solved to the target, in this process (its solver state
        kept with `keep_state`)."""
        shared = self.shared(game_string, label)
        solver = self.solver(game_string, utility_of_points,
                             None if warm_start is None else warm_start.state, label)
        measured = {}  # the last evaluation's best-response values: the result's bracket
        where = " ".join(filter(None, [ScoreState.of_hand_game(load_game(game_string)).label,
                                       label]))

        def evaluate() -> float:
            measured["values"] = solver.best_response_values()
            return sum(measured["values"]) / 2.0

        curve, exploitability, seconds = run_iterations(
            solver, evaluate, algorithm=self.algorithm, iterations=iterations,
            target_exploitability=target_exploitability, time_limit=None,
            eval_every=eval_every, checkpoint=None, checkpoint_every=iterations, progress=False,
            on_progress=functools.partial(_log_progress, where),
            start_seconds=warm_start.seconds if warm_start else 0.0,
            screen=solver.exploitability_lower_bound)
        if exploitability > target_exploitability and solver.iteration < iterations:
            raise KeyboardInterrupt  # the solve was stopped by Ctrl-C: nothing to save
        high, best1 = measured["values"]  # run_iterations evaluates the last iteration
        policy = solver.average_policy()
        named = PublicPolicy(tree_name(load_game(game_string), shared.part), policy.talk,
                             policy.sums)
        compile_seconds = warm_start.compile_seconds if warm_start else self._charge(shared)
        return HandSolution(
            game_string=game_string, value_low=-best1, value_high=high,
            iterations=solver.iteration, seconds=seconds, compile_seconds=compile_seconds,
            curve=curve, policy=named, state=solver.state(seconds) if keep_state else None)

    def _charge(self, shared: SharedTree) -> float:
        """The seconds building `shared` took for the first state solved on it, 0 after (a
        match's total then counts every tree once)."""
        key = f"{shared.game}|{shared.part.label}"
        if key in self._charged:
            return 0.0
        self._charged.add(key)
        return shared.seconds

    def bracket(self, game_string: str, utility_of_points: dict[float, float],
                policy: PublicPolicy, label: str | None = None) -> tuple[float, float]:
        """(low, high): the value bracket of sub-game `label`'s saved average policy with
        these utilities (given the sub-game: not weighted by its probability)."""
        solver = self.solver(game_string, utility_of_points, label=label)
        solver.load_policy(PublicPolicy(solver.name, policy.talk, policy.sums))
        high, best1 = solver.best_response_values()
        return -best1, high


def _log_progress(where: str, iteration: int, seconds: float, exploitability: float) -> None:
    """Log a sub-game's evaluation (the command shows it beside its bar): the exploitability
    in win-probability units, half the utility's (utilities are 2·V − 1)."""
    logger.info("%s: iteration %d, exploitability %.2g", where, iteration, exploitability / 2)


_WORKER_ENGINE: PublicEngine | None = None  # a part worker's own engine


def _start_part_worker(algorithm: str, cache: bool, memory_bytes: float) -> None:
    """Initialise a part worker process: register the games, make its engine, one thread per
    pass (the workers share the cores)."""
    import games  # noqa: F401  (registers the python_* games in the worker)

    os.environ[THREADS_VARIABLE] = "1"
    global _WORKER_ENGINE
    _WORKER_ENGINE = PublicEngine(algorithm, cache, memory_bytes)


def _run_part_task(task, game_string: str, label: str | None, arguments: tuple):
    """`task` on one sub-game with the worker's engine."""
    return task(_WORKER_ENGINE, game_string, label, *arguments)


def _part_facts(engine: PublicEngine, game_string: str, label: str | None) -> PartFacts:
    """`PartFacts` of one sub-game (a `map_parts` task)."""
    shared = engine.shared(game_string, label)
    return PartFacts(shared.part.weight, engine.void_bound(game_string, label), tuple(
        float(points) for points in np.unique(engine.points(game_string, label))))


def _solve_part(engine: PublicEngine, game_string: str, label: str | None,
                utility_of_points: dict[float, float], stopping: tuple[float, int, int],
                warm_start: HandSolution | None, keep_state: bool) -> HandSolution:
    """`PublicEngine.solve_part` (a `map_parts` task); `stopping`: (target exploitability,
    iterations, evaluation interval)."""
    target, iterations, eval_every = stopping
    return engine.solve_part(game_string, label, utility_of_points,
                             target_exploitability=target, iterations=iterations,
                             eval_every=eval_every, warm_start=warm_start,
                             keep_state=keep_state)


def _copy_twin(engine: PublicEngine, game_string: str, label: str,
               utility_of_points: dict[float, float], twin_label: str,
               twin: HandSolution) -> HandSolution:
    """`PublicEngine.copy_twin` (a `map_parts` task)."""
    return engine.copy_twin(game_string, label, utility_of_points, twin_label, twin)


def combined(game_string: str, weights: list[float],
             solutions: dict[str, HandSolution]) -> HandSolution:
    """The hand whose sub-games (public chance outcomes of probabilities `weights`) are
    `solutions`: bracket weighted, iterations and seconds summed, the curve at the iterations
    every sub-game evaluated (seconds summed, exploitability weighted); each sub-game's own
    solution (policy, solver state) kept under `parts`. A sub-game that took its twin's
    strategy (`same_game_as`) adds the seconds of its measurement, not its twin's iterations
    and curve seconds again: the figures count the work done."""
    parts = list(solutions.values())
    curves = [{i: (s, e) for i, s, e in part.curve} for part in parts]
    common = sorted(set.intersection(*(set(curve) for curve in curves)))
    solved = [part.same_game_as is None for part in parts]
    return HandSolution(
        game_string=game_string,
        value_low=sum(w * part.value_low for w, part in zip(weights, parts)),
        value_high=sum(w * part.value_high for w, part in zip(weights, parts)),
        iterations=sum(part.iterations for part, own in zip(parts, solved) if own),
        seconds=sum(part.seconds for part in parts),
        compile_seconds=sum(part.compile_seconds for part in parts),
        curve=[(i, sum(curve[i][0] for curve, own in zip(curves, solved) if own),
                sum(w * curve[i][1] for w, curve in zip(weights, curves))) for i in common],
        policy=None, state=None, parts=solutions)


def _tree_key(game_string: str, label: str | None) -> tuple[object, str]:
    """(the game whose tree `game_string`'s hand is played on, the key of sub-game `label`'s
    tree)."""
    game = load_game(game_string)
    reference = _with_scores(game, game.rules.tree_scores())
    return reference, f"{reference}|{label}"


def _with_scores(game, scores: tuple[int, int]):
    """`game` with score0, score1 set to `scores`."""
    parameters = dict(game.get_parameters())
    parameters["score0"], parameters["score1"] = (int(s) for s in scores)
    return load_game_with(game.get_type().short_name, parameters)


def void_pairs(tree: PlayTree) -> np.ndarray:
    """bool [hands, hands]: the pairs of full hands (player 0's, player 1's) consistent with
    some terminal that scores nothing (module docstring)."""
    hands = len(tree.hands)
    found = np.zeros((hands, hands), dtype=bool)
    void = np.flatnonzero((tree.outcome_payoff == 0.0) & (tree.outcome_whole_match == 0))
    edges = np.flatnonzero(is_terminal(tree.child) & np.isin(outcome_of(tree.child), void))
    for node, edge in zip(tree.parents_of(edges), edges):
        found[np.ix_(*_hands_at(tree, int(node), int(edge)))] = True
    return found


def _tree_bytes(tree: PlayTree) -> int:
    """The bytes of a tree's arrays."""
    return sum(value.nbytes for value in vars(tree).values() if isinstance(value, np.ndarray))


def _hands_at(tree: PlayTree, node: int, edge: int) -> tuple[np.ndarray, np.ndarray]:
    """Each player's full hands consistent with the play that takes `edge` from `node`."""
    result = []
    for player in (0, 1):
        lst = int(tree.node_list[node, player])
        first = int(tree.list_start[lst])
        entries = np.arange(int(tree.list_start[lst + 1]) - first)
        actor = int(tree.node_player[node])
        which = tree.edge_map[edge, 0 if player == actor else 1]
        if which >= 0:  # a card edge: the entries its map takes along
            entries = np.unique(tree.map_src[tree.map_start[which]:tree.map_start[which + 1]])
        result.append(np.unique(tree.entry_hand[first + entries]))
    return result[0], result[1]
