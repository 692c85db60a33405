"""Policies over a compiled game: our `AveragePolicy` and the bridge to OpenSpiel policies.

An `AveragePolicy` is a flat array of action probabilities laid out like a `GameTree`'s
information states (`action_start`, `actions`), plus the information state strings, so that it
converts to an OpenSpiel `TabularPolicy`, round-trips through plain arrays (for npz files) and
maps onto any compiled tree of the same game.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pyspiel
from open_spiel.python import policy as openspiel_policy

from solver.history.tree import GameTree


@dataclasses.dataclass(frozen=True, eq=False)
class AveragePolicy:
    """Action probabilities per information state.

    infoset_player int8 [m]; action_start int64 [m + 1]; actions int32 [k] (OpenSpiel actions);
    probabilities float64 [k]. `tree` is the compiled tree the arrays are laid out on, if any;
    the information state strings come from `names` or, lazily, from `tree`.
    """

    game_string: str
    infoset_player: np.ndarray
    action_start: np.ndarray
    actions: np.ndarray
    probabilities: np.ndarray
    tree: GameTree | None = None
    names: list[str] | None = None
    _index: dict[str, int] | None = dataclasses.field(default=None, repr=False)

    @classmethod
    def on_tree(cls, tree: GameTree, probabilities: np.ndarray) -> "AveragePolicy":
        """A policy laid out on `tree`'s information states."""
        return cls(tree.game_string, tree.infoset_player, tree.infoset_action_start,
                   tree.infoset_actions, probabilities, tree=tree, names=tree.info_state_names)

    def info_state_strings(self) -> list[str]:
        """Information state strings, in this policy's order."""
        if self.names is None:
            object.__setattr__(self, "names", self.tree.info_state_strings())
        return self.names

    def to_dict(self) -> dict[str, dict[int, float]]:
        """{information state string: {action: probability}}."""
        result = {}
        for infoset, name in enumerate(self.info_state_strings()):
            start, end = self.action_start[infoset], self.action_start[infoset + 1]
            result[name] = {int(a): float(p) for a, p in
                            zip(self.actions[start:end], self.probabilities[start:end])}
        return result

    def action_probabilities(self, info_state: str) -> dict[int, float]:
        """{action: probability} at one information state string."""
        if self._index is None:
            object.__setattr__(self, "_index", {name: i for i, name in
                                                enumerate(self.info_state_strings())})
        index = self._index.get(info_state)
        if index is None:
            raise KeyError(f"no information state {info_state!r} in this policy")
        start, end = self.action_start[index], self.action_start[index + 1]
        return {int(a): float(p) for a, p in
                zip(self.actions[start:end], self.probabilities[start:end])}

    def to_tabular(self, game: pyspiel.Game | None = None) -> openspiel_policy.TabularPolicy:
        """This policy as an OpenSpiel `TabularPolicy` (every information state of the game)."""
        game = game if game is not None else pyspiel.load_game(self.game_string)
        tabular = openspiel_policy.TabularPolicy(game)
        for infoset, name in enumerate(self.info_state_strings()):
            start, end = self.action_start[infoset], self.action_start[infoset + 1]
            row = tabular.action_probability_array[tabular.state_lookup[name]]
            row[:] = 0.0
            row[self.actions[start:end]] = self.probabilities[start:end]
        return tabular

    def to_arrays(self) -> dict[str, np.ndarray]:
        """Plain arrays (for `np.savez`); `from_arrays` restores the policy."""
        return {
            "game_string": np.array(self.game_string),
            "info_states": np.array(self.info_state_strings()),
            "infoset_player": self.infoset_player,
            "action_start": self.action_start,
            "actions": self.actions,
            "probabilities": self.probabilities,
        }

    @classmethod
    def from_arrays(cls, arrays) -> "AveragePolicy":
        """Restore a policy from `to_arrays()` output (e.g. a loaded npz)."""
        return cls(str(arrays["game_string"]), np.asarray(arrays["infoset_player"]),
                   np.asarray(arrays["action_start"]), np.asarray(arrays["actions"]),
                   np.asarray(arrays["probabilities"]),
                   names=[str(name) for name in arrays["info_states"]])


def policy_array(tree: GameTree, policy, game: pyspiel.Game) -> np.ndarray:
    """`policy` as float64 [tree.num_infoset_actions] laid out on `tree`.

    Accepts an `AveragePolicy`, an OpenSpiel `TabularPolicy` or any OpenSpiel `Policy`
    (asked at one representative state per information state). Raises ValueError when the
    policy belongs to another game or misses an information state.
    """
    if isinstance(policy, AveragePolicy):
        return _average_policy_array(tree, policy)
    if isinstance(policy, openspiel_policy.TabularPolicy):
        return _tabular_policy_array(tree, policy)
    if isinstance(policy, openspiel_policy.Policy):
        _check_same_game(tree, str(policy.game), "policy")
        return _generic_policy_array(tree, policy, game)
    raise ValueError(f"unsupported policy type {type(policy).__name__}: pass a solver "
                     "AveragePolicy or an OpenSpiel TabularPolicy/Policy")


def _check_same_game(tree: GameTree, game_string: str, what: str) -> None:
    """Raise ValueError if `game_string` is not the tree's game."""
    if game_string != tree.game_string:
        raise ValueError(f"the {what} is for game {game_string!r}, not {tree.game_string!r}")


def _average_policy_array(tree: GameTree, policy: AveragePolicy) -> np.ndarray:
    """An AveragePolicy's probabilities on `tree` (directly when laid out alike)."""
    _check_same_game(tree, policy.game_string, "policy")
    same_layout = (policy.tree is tree or (
        policy.action_start.shape == tree.infoset_action_start.shape
        and np.array_equal(policy.action_start, tree.infoset_action_start)
        and np.array_equal(policy.actions, tree.infoset_actions)
        and (policy.names is None or tree.info_state_names is None
             or policy.names == tree.info_state_names)))
    if same_layout:
        return np.ascontiguousarray(policy.probabilities, dtype=np.float64)
    return _lookup_by_name(tree, policy.to_dict(), "policy")


def _tabular_policy_array(tree: GameTree, policy) -> np.ndarray:
    """A TabularPolicy's rows gathered onto `tree`."""
    _check_same_game(tree, str(policy.game), "TabularPolicy")
    array = np.empty(tree.num_infoset_actions)
    for infoset, name in enumerate(tree.info_state_strings()):
        row = policy.state_lookup.get(name)
        if row is None:
            raise ValueError(f"the TabularPolicy has no information state {name!r}; "
                             "was it made for another game?")
        start, end = tree.infoset_action_start[infoset], tree.infoset_action_start[infoset + 1]
        array[start:end] = policy.action_probability_array[row, tree.infoset_actions[start:end]]
    return array


def _lookup_by_name(tree: GameTree, table: dict[str, dict[int, float]], what: str) -> np.ndarray:
    """Gather {info_state: {action: prob}} onto `tree`."""
    array = np.empty(tree.num_infoset_actions)
    for infoset, name in enumerate(tree.info_state_strings()):
        probs = table.get(name)
        if probs is None:
            raise ValueError(f"the {what} has no information state {name!r}; "
                             "was it made for another game?")
        start, end = tree.infoset_action_start[infoset], tree.infoset_action_start[infoset + 1]
        array[start:end] = [probs.get(int(a), 0.0) for a in tree.infoset_actions[start:end]]
    return array


def _generic_policy_array(tree: GameTree, policy, game: pyspiel.Game) -> np.ndarray:
    """Ask an OpenSpiel Policy at one replayed history per information state."""
    array = np.empty(tree.num_infoset_actions)
    for infoset in range(tree.num_infosets):
        state = game.new_initial_state()
        for action in tree.history(int(tree.infoset_node[infoset])):
            state.apply_action(action)
        probs = policy.action_probabilities(state)
        start, end = tree.infoset_action_start[infoset], tree.infoset_action_start[infoset + 1]
        array[start:end] = [probs.get(int(a), 0.0) for a in tree.infoset_actions[start:end]]
    return array


def uniform_policy_array(tree: GameTree) -> np.ndarray:
    """The uniform random policy on `tree`, float64 [num_infoset_actions]."""
    counts = np.diff(tree.infoset_action_start)
    return np.repeat(1.0 / counts, counts)
