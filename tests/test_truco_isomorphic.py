"""Isomorphic Truco (strength classes given the vira) is the concrete game: same chance
weights, same trees, same value and outcome distribution of any class-uniform policy."""
import collections
import itertools
import math

import numpy as np
import pyspiel
import pytest

import games  # noqa: F401  (registers the games)
from conftest import candidates
from games import truco

SMALL = {"deck": "clean", "num_ranks": 3}  # A 2 3: 12 cards


def _games(name="python_truco_paulista", **params):
    """The concrete and the isomorphic game with these parameters."""
    return (pyspiel.load_game(name, {**params, "isomorphic": False}),
            pyspiel.load_game(name, {**params, "isomorphic": True}))


def _concrete_deals(rules):
    """Every concrete deal as (hands per seat, vira card) with its probability."""
    size, seats, cards_ = rules.hand_size, rules.num_players, range(rules.deck.num_cards)
    remaining = rules.deck.num_cards
    denominator = 1
    for _ in range(seats):
        denominator *= math.comb(remaining, size)
        remaining -= size
    denominator *= remaining

    def deal(seat, left):
        if seat == seats:
            for vira in left:
                yield (), vira
            return
        for hand in itertools.combinations(left, size):
            for rest, vira in deal(seat + 1, [c for c in left if c not in hand]):
                yield (hand,) + rest, vira

    for hands, vira in deal(0, list(cards_)):
        yield hands, vira, 1 / denominator


def _iso_key(rules, hands, vira):
    """(vira rank, sorted class tuple per seat) of a concrete deal."""
    vira_rank = rules.deck.rank_index(vira)
    return (vira_rank,) + tuple(tuple(sorted(rules.class_of(c, vira_rank) for c in hand))
                                for hand in hands)


def _iso_deals(game):
    """Every isomorphic deal key with its probability and the state after it."""
    deals = {}

    def walk(state, key, probability):
        if not state.is_chance_node():
            deals[key] = (probability, state)
            return
        for outcome, p in state.chance_outcomes():
            record = state.record
            part = outcome if record.vira < 0 else state.get_game().rules.hand_classes[outcome]
            walk(state.child(outcome), key + (part,), probability * p)

    walk(game.new_initial_state(), (), 1.0)
    return deals


@pytest.mark.parametrize("params", [
    dict(SMALL, hand_size=2), dict(deck="clean", hand_size=1),
    dict(num_ranks=2, deck="clean", hand_size=1, num_players=4),
])
def test_isomorphic_deal_weights_are_exact(params):
    concrete, isomorphic = _games(**params)
    rules = concrete.rules
    expected = collections.defaultdict(float)
    for hands, vira, probability in _concrete_deals(rules):
        expected[_iso_key(rules, hands, vira)] += probability
    got = {key: p for key, (p, _) in _iso_deals(isomorphic).items()}
    assert got.keys() == expected.keys()
    for key, probability in expected.items():
        assert got[key] == pytest.approx(probability, rel=1e-12, abs=0)


def _lockstep(concrete, iso):
    """Walks both trees together (one concrete card per class): same players, information
    states, legal actions and returns."""
    assert concrete.current_player() == iso.current_player()
    if concrete.is_terminal():
        assert concrete.returns() == iso.returns()
        return 1
    players = concrete.get_game().num_players()
    for player in range(players):
        assert truco.isomorphic_information_state(concrete, player) == \
            iso.information_state_string(player)
    by_class = {}
    for action in concrete.legal_actions():
        by_class.setdefault(truco.isomorphic_action(concrete, action), action)
    assert sorted(by_class) == iso.legal_actions()
    return 1 + sum(_lockstep(concrete.child(action), iso.child(iso_action))
                   for iso_action, action in by_class.items())


def _concrete_state(game, hands, vira):
    state = game.new_initial_state()
    for card in [c for hand in hands for c in hand] + [vira]:
        state.apply_action(card)
    return state


@pytest.mark.parametrize("params,deal_classes", [
    (dict(SMALL, hand_size=2), 12),
    (dict(SMALL, hand_size=2, score0=11, score1=4), 40),
    (dict(SMALL, hand_size=2, raise_cap="pagat", score1=9, all_tied="mao"), 12),
    (dict(num_ranks=2, deck="clean", hand_size=1, num_players=4), 6),
])
def test_isomorphic_tree_matches_deal_classes(params, deal_classes):
    """Whole play trees for deal classes spread over the sorted list of them."""
    concrete, isomorphic = _games(**params)
    rules = concrete.rules
    iso_deals = _iso_deals(isomorphic)
    keys = sorted(iso_deals)
    chosen = set(keys[::len(keys) // deal_classes])
    for hands, vira, _ in _concrete_deals(rules):
        key = _iso_key(rules, hands, vira)
        if key in chosen:
            chosen.discard(key)
            _lockstep(_concrete_state(concrete, hands, vira), iso_deals[key][1])
    assert not chosen


def _class_uniform(state, iso_action_of):
    """Uniform over the isomorphic actions, split evenly over the cards of a class."""
    groups = collections.defaultdict(list)
    for action in state.legal_actions():
        groups[iso_action_of(state, action)].append(action)
    return [(action, 1 / len(groups) / len(group))
            for group in groups.values() for action in group]


def _outcomes(game, iso_action_of):
    """{(isomorphic information states of every seat at the end, returns): probability}."""
    result = collections.defaultdict(float)
    players = game.num_players()

    def walk(state, probability):
        if state.is_terminal():
            key = (tuple(truco.isomorphic_information_state(state, p) for p in range(players)),
                   tuple(state.returns()))
            result[key] += probability
            return
        moves = state.chance_outcomes() if state.is_chance_node() else \
            _class_uniform(state, iso_action_of)
        for action, p in moves:
            walk(state.child(action), probability * p)

    walk(game.new_initial_state(), 1.0)
    return result


@pytest.mark.parametrize("name,params", [
    ("python_truco_paulista", dict(num_ranks=2, deck="clean", hand_size=1)),
    ("python_trucomano", dict(num_ranks=2, hand_size=2, score0=11, score1=11)),
    ("python_trucomano", dict(num_ranks=2, hand_size=1, score0=11, score1=7,
                              truco_in_hand_of_11="forfeit", covered_from_round=1)),
])
def test_class_uniform_policy_same_outcomes_and_value(name, params):
    concrete, isomorphic = _games(name, **params)
    got = _outcomes(isomorphic, lambda state, action: action)
    expected = _outcomes(concrete, truco.isomorphic_action)
    assert got.keys() == expected.keys()
    for key, probability in expected.items():
        assert got[key] == pytest.approx(probability, rel=1e-9, abs=0)
    value = [sum(p * key[1][0] for key, p in table.items()) for table in (got, expected)]
    assert value[0] == pytest.approx(value[1], abs=1e-12)


@pytest.mark.parametrize("name,params", [
    ("python_truco_paulista", dict(num_players=4)),
    ("python_truco_paulista", dict(num_players=4, score0=11)),
    ("python_truco_paulista", {}),
    ("python_trucomano", dict(score0=11, score1=11)),
])
def test_random_concrete_play_maps_to_the_isomorphic_game(name, params):
    """Concrete hands of full-size games, mapped action by action into the isomorphic game
    (a blind slot's card becomes the isomorphic game's reveal)."""
    concrete, isomorphic = _games(name, **params)
    rules = concrete.rules
    rng = np.random.default_rng(7)
    for _ in range(15):
        state = concrete.new_initial_state()
        while state.is_chance_node():
            state.apply_action(int(rng.choice(candidates(state))))
        key = _iso_key(rules, state.record.dealt, state.record.vira)
        iso = isomorphic.new_initial_state()
        iso.apply_action(key[0])
        for hand in key[1:]:
            iso.apply_action(isomorphic.rules.hand_classes.index(hand))
        while not state.is_terminal():
            for player in range(rules.num_players):
                assert truco.isomorphic_information_state(state, player) == \
                    iso.information_state_string(player)
            action = int(rng.choice(state.legal_actions()))
            iso.apply_action(truco.isomorphic_action(state, action))
            state.apply_action(action)
            if iso.is_chance_node():
                iso.apply_action(state.class_of(state.record.history_items[-1][2]))
        assert state.returns() == iso.returns()


def _shape(state):
    """Players, legal actions and returns of a whole subtree, as nested tuples."""
    if state.is_terminal():
        return tuple(state.returns())
    return (state.current_player(),
            tuple((a, _shape(state.child(a))) for a in state.legal_actions()))


def test_subtree_key_only_where_play_is_public():
    assert not hasattr(pyspiel.load_game("python_truco_paulista").new_initial_state(),
                       "subtree_key")
    assert not hasattr(pyspiel.load_game("python_trucomano(score0=11,score1=11,"
                                         "covered_from_round=3,hand_size=2)").new_initial_state(),
                       "subtree_key")
    assert hasattr(pyspiel.load_game("python_truco_paulista(deck=clean,hand_size=2)")
                   .new_initial_state(), "subtree_key")  # only last cards can be covered


def test_equal_subtree_keys_mean_equal_subtrees():
    """Every deal of a small isomorphic game: deals with equal keys (the same hands under
    different viras) have identical subtrees."""
    g = pyspiel.load_game("python_truco_paulista", dict(SMALL, hand_size=1, isomorphic=True))
    shapes = collections.defaultdict(set)
    for _, state in _iso_deals(g).values():
        shapes[state.subtree_key()].add(_shape(state))
    assert len(shapes) < len(_iso_deals(g))  # keys are shared
    assert all(len(found) == 1 for found in shapes.values())
