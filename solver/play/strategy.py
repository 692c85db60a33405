"""Saved solutions at the table: a result directory read at the concrete states of a game, as
a bot (`--bot strategy:DIR`) and as advice (`tricksolver play --hint`).

A solution of the isomorphic game (`isomorphic=true`: cards as classes that play alike) is the
solution of the concrete game too: a concrete state's information state in the isomorphic game
(`games.le_truc.isomorphic_information_state`, `games.truco.isomorphic_information_state`)
is looked up in the solution (history engine: by its string; public engine:
`solver.public.policy.spot_of_info_state`, one sub-game per vira class for Truco, loaded when
first needed), and each isomorphic action's probability is shared evenly among the concrete
actions that map to it (cards of one class: which of them is played changes nothing).

`Solution(DIR, game)` takes a game whose parameters equal the solution's but for `isomorphic`.
`Solution(DIR, game, other_scores=True)` (a match, `solver.play.human`) also takes the game at
other scores and dealers: the hand-level strategy is used as it is, seats swapped when the
other seat deals; a decision the solution does not have raises `OutsideSolution`.
"""
from __future__ import annotations

import functools
import pathlib
import re
import sys

import numpy as np
import pyspiel

from games import le_truc, truco
from solver import results
from solver.analysis.decision import DecisionReader
from solver.play.sampling import draw_action
from solver.public.cfr import PublicPolicy
from solver.public.parts import public_parts
from solver.public.policy import spot_of_info_state, spot_policy
from solver.public.solve import solver_for

# per game: (information state in the isomorphic game, isomorphic action of a concrete one)
ISOMORPHIC_VIEWS = {
    "python_le_truc": (le_truc.isomorphic_information_state,
                       lambda state, action: le_truc.isomorphic_action(state.rules, action)),
    "python_truco_paulista": (truco.isomorphic_information_state, truco.isomorphic_action),
    "python_trucomano": (truco.isomorphic_information_state, truco.isomorphic_action),
}
MATCH_PARAMETERS = ("score0", "score1", "dealer")  # what a match changes from hand to hand


class OutsideSolution(ValueError):
    """The decision is not one of the solution's (another score's rules)."""


class Solution:
    """A result directory (a single solve, or Truco solved vira class by vira class) read at
    the states of `game` (module docstring)."""

    def __init__(self, directory, game, other_scores: bool = False):
        self.directory = pathlib.Path(directory)
        summary = results.read_summary(self.directory)
        self.solved = pyspiel.load_game(results.base_game_string(summary["game"]))
        _check_same_rules(game, self.solved, self.directory,
                          MATCH_PARAMETERS if other_scores else ())
        self.view = ISOMORPHIC_VIEWS[game.get_type().short_name]
        self._combined = results.is_combined(self.directory)
        self._readers: dict[str, object] = {}
        self._deciders: dict[object, DecisionReader] = {}

    def describe(self) -> str:
        """One line: what the solution is, and where it is an approximation."""
        params = self.solved.get_parameters()
        return (f"Opponent: the solution in {self.directory} (solved at {params['score0']}-"
                f"{params['score1']}, seat {self.solved.rules.dealer} dealing; at other scores "
                f"it plays that strategy, seats swapped when the other seat deals)")

    def probabilities(self, state) -> dict[int, float]:
        """{legal action: probability} of the solution at `state` (its player to act)."""
        return _shared(*self._read(state))

    def advice(self, state) -> tuple[dict[int, float], dict[int, float] | None, bool]:
        """(`probabilities`, {legal action: EV} or None, off path?): the EV of each action for
        the player to act, in points per hand, and whether the solution never plays to this
        decision (`Decision.off_path`), where the solution is a public-tree one."""
        name, by_class = self._name(state), self._classes(state)
        reader, spot = self._spot(name)
        if spot is None:
            return self.probabilities(state), None, False
        if reader not in self._deciders:
            self._deciders[reader] = DecisionReader(reader)
        decision = self._deciders[reader].decision(spot)
        iso_values = dict(zip(spot.actions, decision.values))
        probabilities = _shared(dict(zip(spot.actions, decision.probabilities)), by_class)
        values = {a: float(iso_values[iso]) for iso, actions in by_class.items() for a in actions}
        return probabilities, values, decision.off_path

    def _read(self, state):
        """({isomorphic action: probability}, {isomorphic action: [legal actions]})."""
        name = self._name(state)
        reader, spot = self._spot(name)
        if spot is None:
            try:
                found = reader.policy.action_probabilities(name)
            except (KeyError, ValueError):
                raise OutsideSolution(f"no decision {name!r} in the solution") from None
        else:
            found = dict(zip(spot.actions, map(float, spot_policy(reader, spot))))
        return found, self._classes(state)

    def _name(self, state) -> str:
        """The state's information state in the solved game (seats swapped if need be)."""
        player = state.current_player()
        name = (state.information_state_string(player)
                if state.get_game().get_parameters().get("isomorphic") else
                self.view[0](state, player))
        if state.get_game().rules.dealer != self.solved.rules.dealer:
            name = swap_seats(name)
        return name

    def _classes(self, state) -> dict[int, list[int]]:
        """{isomorphic action: the legal concrete actions that are it}."""
        by_class: dict[int, list[int]] = {}
        isomorphic = state.get_game().get_parameters().get("isomorphic")
        for action in state.legal_actions():
            iso = action if isomorphic else self.view[1](state, action)
            by_class.setdefault(iso, []).append(action)
        return by_class

    def _spot(self, name: str):
        """(reader, its public decision or None for a history-engine result)."""
        label = next((piece for piece in name.split(" | ") if piece.startswith("vira ")), "")
        reader = self._reader(label if self._combined else "")
        if isinstance(reader, results.SavedResult):
            return reader, None
        try:
            return reader, spot_of_info_state(reader, name)
        except ValueError as error:
            raise OutsideSolution(str(error)) from None

    def _reader(self, label: str):
        """The loaded result (history engine) or public solver of one sub-game."""
        if label not in self._readers:
            directory = self.directory
            if label:
                part = next(p for p in public_parts(self.solved) if p.label == label)
                directory = results.part_directory(directory, part)
            saved = results.load_result(directory)
            if isinstance(saved.policy, PublicPolicy):
                print(f"loading {directory} (its public tree: built once, a few minutes at "
                      f"full size, then read from the cache)", file=sys.stderr, flush=True)
                self._readers[label] = solver_for(self.solved, saved.policy)
            else:
                self._readers[label] = saved
        return self._readers[label]


def _shared(iso_probabilities: dict[int, float], by_class: dict[int, list[int]]
            ) -> dict[int, float]:
    """{legal action: probability}: each isomorphic action's probability shared evenly among
    the concrete actions that are it."""
    return {action: iso_probabilities.get(iso, 0.0) / len(actions)
            for iso, actions in by_class.items() for action in actions}


def swap_seats(name: str) -> str:
    """An information state string as the other seat would have it (`p0` <-> `p1`, `0:Raise`
    <-> `1:Raise`): the same decision in the game where the other seat deals."""
    swap = str.maketrans("01", "10")
    parts = name.split(" | ")
    parts[0] = parts[0].translate(swap)
    for k, part in enumerate(parts[1:], 1):
        if re.match(r"\d:", part):
            parts[k] = ", ".join(item[0].translate(swap) + item[1:] for item in part.split(", "))
    return " | ".join(parts)


def _check_same_rules(game, solved, directory, free: tuple[str, ...]) -> None:
    """ValueError unless `game` is the solved game, up to `isomorphic` and `free` parameters."""
    name = game.get_type().short_name
    if name not in ISOMORPHIC_VIEWS or solved.get_type().short_name != name:
        raise ValueError(f"{directory} solves {solved.get_type().short_name}; a strategy plays "
                         f"the game it solves ({', '.join(ISOMORPHIC_VIEWS)}), not {name}")
    ignored = ("isomorphic", *free)
    mine = {k: v for k, v in game.get_parameters().items() if k not in ignored}
    theirs = {k: v for k, v in solved.get_parameters().items() if k not in ignored}
    differ = sorted(k for k in mine.keys() | theirs.keys() if mine.get(k) != theirs.get(k))
    if differ:
        raise ValueError(f"{directory} solves {solved}, not {game}: they differ in "
                         f"{', '.join(differ)}")


@functools.lru_cache(maxsize=4)
def load_solution(directory: str, game_string: str) -> Solution:
    """A `Solution`, loaded once per process (matches make a bot per deal)."""
    return Solution(directory, pyspiel.load_game(game_string))


class StrategyBot(pyspiel.Bot):
    """Plays a saved solution: samples its average policy at each decision."""

    def __init__(self, game, directory, seed: int):
        pyspiel.Bot.__init__(self)
        self.solution = load_solution(str(pathlib.Path(directory).resolve()), str(game))
        self._rng = np.random.default_rng(seed)

    def action_probabilities(self, state) -> dict[int, float]:
        """The solution's probabilities at `state`."""
        return self.solution.probabilities(state)

    def step(self, state) -> int:
        """An action drawn from the solution's probabilities."""
        return draw_action(self.action_probabilities(state), self._rng)

    def restart_at(self, state):
        """Stateless: nothing to do."""
