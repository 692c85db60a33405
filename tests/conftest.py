"""Helpers and fixtures shared by the test modules (no test module imports another).

Plain helpers are imported by name (`from conftest import apply_named, candidates`): pytest puts
this folder on `sys.path` and imports this file once, as `conftest`. Resources that need setting
up and tearing down are fixtures. Published reference values live apart, as data with their
sources, in `reference_values.py`.
"""
from __future__ import annotations

import numpy as np
import pytest
from open_spiel.python import policy as openspiel_policy

import games  # noqa: F401  (registers the games)
import solver
from games import truco
from solver.history.cfr import CFREngine
from solver.history.tree import GameTree, compile_game
from solver.schedules import make_schedule


# --- fixtures -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def tree_cache(tmp_path_factory):
    """A private compiled-tree cache (TRICKSOLVER_CACHE) for the requesting module."""
    path = tmp_path_factory.mktemp("tree_cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TRICKSOLVER_CACHE", str(path))
        yield path


# --- driving a game by action strings -------------------------------------------------------

def candidates(state):
    """Chance outcomes or legal actions of `state`."""
    if state.is_chance_node():
        return [action for action, _ in state.chance_outcomes()]
    return state.legal_actions()


def apply_named(state, *names):
    """Applies actions given by their strings (`Deal 7s`, `Raise`, `Play 7s covered`, ...)."""
    for name in names:
        by_string = {state.action_to_string(state.current_player(), a): a
                     for a in candidates(state)}
        assert name in by_string, f"{name!r} is not available here; available: {sorted(by_string)}"
        state.apply_action(by_string[name])
    return state


def deal(*hands):
    """Chance action strings dealing `hands` in seat order; a hand is a string of cards
    ("7c 8d 9h") or a list of them."""
    return [f"Deal {card}" for hand in hands
            for card in (hand.split() if isinstance(hand, str) else hand)]


def dealt(game, *hands, vira=None):
    """A state of `game` right after dealing `hands` (seat 0's first) and, in Truco, the vira."""
    vira_names = [f"Vira {vira}"] if vira is not None else []
    return apply_named(game.new_initial_state(), *deal(*hands), *vira_names)


def legal(state):
    """Legal action strings of the player to act, in action order."""
    return [state.action_to_string(state.current_player(), a) for a in state.legal_actions()]


def random_playout(state, rng):
    """Plays `state` to the end with uniform chance outcomes and uniform legal actions; `rng`
    is a `random.Random` or a numpy `Generator`."""
    while not state.is_terminal():
        state.apply_action(int(rng.choice(candidates(state))))
    return state


# --- Truco (Paulista and Trucomano) ---------------------------------------------------------

# With vira 4c (manilha 5); commons weakest first 4 6 7 Q J K A 2 3.
TRUCO_HANDS = ("3c 2h Qd", "Kd 7s 6h")


def check_swaps_invisible(game, history, state):
    """For each player, replays the history with a card he must not know swapped for an undealt
    card: none of his views (strings and tensors) may change."""
    for player in range(game.num_players()):
        for hidden in _hidden_cards(state, player):
            swapped = _replay_with_swap(game, history, state, hidden)
            if swapped is None:
                continue
            assert swapped.information_state_string(player) == \
                state.information_state_string(player)
            assert swapped.observation_string(player) == state.observation_string(player)
            assert swapped.information_state_tensor(player) == \
                state.information_state_tensor(player)
            assert swapped.observation_tensor(player) == state.observation_tensor(player)


def _hidden_cards(state, player):
    """(seat, card) pairs `player` must not know: others' unplayed and covered cards."""
    record = state.record
    hidden = []
    for seat in range(state.get_game().num_players()):
        if truco.sees_hand(state, player, seat):
            continue
        hidden += [(seat, card) for card in record.dealt[seat]
                   if card in record.hands[seat] or _covered(state, seat, card)]
    return hidden


def _covered(state, seat, card):
    """Did `seat` play `card` covered?"""
    base = truco.CARD_ACTION_BASE + state.rules.num_items
    return any(entry in state.record.history_items
               for entry in ((seat, base + card, card), (seat, truco.PLAY_LAST_COVERED, card)))


def _replay_with_swap(game, history, state, hidden):
    """The history with `hidden`'s card replaced by an undealt card (or None if none is left)."""
    _, card = hidden
    if not state.record.undealt:
        return None
    replacement = state.record.undealt[0]
    mapping = {card: replacement, replacement: card}
    base, items = truco.CARD_ACTION_BASE, state.rules.num_items
    other = game.new_initial_state()
    for action in history:
        if other.is_chance_node():
            other.apply_action(mapping.get(action, action))
        elif base <= action < base + 2 * items and (action - base) % items in mapping:
            offset = action - base
            other.apply_action(base + (offset // items) * items + mapping[offset % items])
        else:
            other.apply_action(action)
    return other


# --- solver ---------------------------------------------------------------------------------

def random_tabular_policy(game, seed):
    """A TabularPolicy with random (Dirichlet) rows over the legal actions."""
    tabular = openspiel_policy.TabularPolicy(game)
    rng = np.random.default_rng(seed)
    for row, legal_mask in enumerate(tabular.legal_actions_mask):
        probabilities = rng.dirichlet(np.ones(int(legal_mask.sum())))
        tabular.action_probability_array[row] = 0.0
        tabular.action_probability_array[row, legal_mask.astype(bool)] = probabilities
    return tabular


def assert_lock_step(game, algorithm, solver_class, iterations=10):
    """Our average policy equals OpenSpiel's Python `solver_class` at every one of the first
    `iterations` iterations (rtol 1e-8)."""
    tree = solver.compile_game(game, cache=False)
    theirs = solver_class(game)
    ours = CFREngine(tree, make_schedule(algorithm))
    for iteration in range(1, iterations + 1):
        theirs.evaluate_and_update_policy()
        ours.iterate()
        average = solver.AveragePolicy.on_tree(tree, ours.average_policy_array())
        np.testing.assert_allclose(average.to_tabular(game).action_probability_array,
                                   theirs.average_policy().action_probability_array,
                                   rtol=1e-8, atol=1e-12, err_msg=f"iteration {iteration}")


def assert_memoized_equals_traversal(game_string, workers):
    """`compile_game` by subtree key (in `workers` processes) gives the traversal's tree, array
    for array, and the same information state strings."""
    traversed = compile_game(game_string, cache=False, method="traversal")
    memoized = compile_game(game_string, cache=False, method="subtree_key", workers=workers)
    assert memoized.info_state_names is None
    for field in GameTree.__dataclass_fields__:
        if field not in ("game_string", "info_state_names"):
            np.testing.assert_array_equal(getattr(memoized, field), getattr(traversed, field),
                                          err_msg=field)
    assert memoized.info_state_strings() == traversed.info_state_names
