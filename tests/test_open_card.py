"""The open-card Two-Ten-Jack solver (solver.play.open_card) against a brute-force minimax over
the real game (games.two_ten_jack through the OpenSpiel API, every card known)."""
import numpy as np
import pyspiel
import pytest

import games  # noqa: F401  (registers the games)
from solver.play.open_card import (
    MoveValues,
    OpenCardSolver,
    Position,
    cards_of,
    mask_of,
    position_from_state,
)
from solver.play.open_card_eval import fit_eval_weights, sample_positions

TINY = "python_two_ten_jack(suits=h:s,ranks=2:T:J:A,hand_size=2)"
SMALL = "python_two_ten_jack(suits=h:s,ranks=2:3:4:5:T:J:A,hand_size=3)"
FOUR_SUITS = "python_two_ten_jack(ranks=2:T:J:A,hand_size=3)"
THREE_SUITS = "python_two_ten_jack(suits=c:h:s,ranks=2:3:5:T:J:A,hand_size=4)"
FULL = "python_two_ten_jack"


def _advance(state, order):
    """Applies the due chance outcomes: each takes the first undealt card of `order`."""
    while state.is_chance_node():
        outcomes = {a for a, _ in state.chance_outcomes()}
        state.apply_action(next(int(c) for c in order if c in outcomes))
    return state


def _stock(state, order):
    """The cards still to draw, top first: those of `order` neither held nor played."""
    seen = set().union(*state.hands, *state.won)
    trick = state.open_trick()
    if trick is not None:
        seen.add(trick.lead)
    return [int(c) for c in order if c not in seen]


def brute_force(state, order, memo):
    """Player 0's return under optimal play by both, every card and the stock order known:
    plain minimax over the game's own states (`apply_action` on clones), memoized on
    `subtree_key` (with the stock order fixed, the undealt set fixes the rest of the stock)."""
    if state.is_terminal():
        return state.returns()[0]
    if state.is_chance_node():
        return brute_force(_advance(state.clone(), order), order, memo)
    key = state.subtree_key()
    if key in memo:
        return memo[key]
    values = []
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        values.append(brute_force(child, order, memo))
    value = max(values) if state.current_player() == 0 else min(values)
    memo[key] = value
    return value


def brute_force_moves(state, order):
    """{action: player 0's return after it} by brute force."""
    memo = {}
    result = {}
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        result[action] = brute_force(child, order, memo)
    return result


def random_positions(game_string, count, seed, plies=None, min_stock=0, max_stock=None):
    """`count` (state, order) pairs: a shuffled deck dealt, then random legal play for a random
    number of plies (or `plies`), kept where the stock holds min_stock..max_stock cards."""
    game = pyspiel.load_game(game_string)
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        order = rng.permutation(game.max_chance_outcomes())
        state = _advance(game.new_initial_state(), order)
        target = plies if plies is not None else int(rng.integers(0, game.rules.num_cards))
        for _ in range(target):
            if state.is_terminal():
                break
            state.apply_action(int(rng.choice(state.legal_actions())))
            _advance(state, order)
        if state.is_terminal():
            continue
        if state.stock_left() < min_stock or (max_stock is not None
                                               and state.stock_left() > max_stock):
            continue
        found.append((state, order))
    return found


def _position(state, order):
    return position_from_state(state, _stock(state, order))


# --- exactness against brute force ----------------------------------------------------------

@pytest.mark.parametrize("game_string, count, seed", [
    (TINY, 40, 1),
    (SMALL, 25, 2),
    (FOUR_SUITS, 15, 3),
    (THREE_SUITS, 6, 4),
])
def test_value_and_move_values_equal_brute_force(game_string, count, seed):
    game = pyspiel.load_game(game_string)
    solver = OpenCardSolver(game, table_bits=14)
    for state, order in random_positions(game_string, count, seed):
        solver.new_stock()
        position = _position(state, order)
        expected = brute_force_moves(state, order)
        best = max(expected.values()) if state.current_player() == 0 else min(expected.values())
        assert solver.value(position) == best, str(state)
        moves = solver.move_values(position)
        assert moves.exact
        assert dict(zip(moves.actions.tolist(), moves.values.tolist())) == expected, str(state)


def test_whole_deals_equal_brute_force():
    """From the deal: 16 cards, the stock of 10 drawn after the first five tricks."""
    game = pyspiel.load_game(FOUR_SUITS)
    solver = OpenCardSolver(game, table_bits=14)
    for state, order in random_positions(FOUR_SUITS, 3, 13, plies=0):
        solver.new_stock()
        expected = brute_force_moves(state, order)
        moves = solver.move_values(_position(state, order))
        assert dict(zip(moves.actions.tolist(), moves.values.tolist())) == expected, str(state)


def test_full_game_endgames_equal_brute_force():
    """The last tricks of the full 52-card game, stock empty or nearly (some mid-trick)."""
    solver = OpenCardSolver(pyspiel.load_game(FULL), table_bits=16)
    positions = random_positions(FULL, 12, 5, plies=None, max_stock=2)
    positions = [(s, o) for s, o in positions if len(s.hands[0]) + len(s.hands[1]) <= 9][:6]
    positions += random_positions(FULL, 4, 6, plies=43)  # 4 or 5 tricks left
    assert len(positions) >= 6
    for state, order in positions:
        solver.new_stock()
        expected = brute_force_moves(state, order)
        moves = solver.move_values(_position(state, order))
        assert dict(zip(moves.actions.tolist(), moves.values.tolist())) == expected, str(state)


def test_as_declarations_and_a_follow_position():
    """Hand-built: leading the As as trump or spade, and the follower's forced choice."""
    game = pyspiel.load_game(TINY)
    rules = game.rules
    deck = rules.deck
    names = " ".join(deck.names)
    assert names == "2h 2s Th Ts Jh Js Ah As"
    hands = (mask_of([deck.index("As"), deck.index("Jh")]),
             mask_of([deck.index("2s"), deck.index("Th")]))
    position = Position(hands, np.array([], dtype=np.int64), -1, 0)
    moves = OpenCardSolver(game, table_bits=10).move_values(position)
    values = dict(zip(moves.actions.tolist(), moves.values.tolist()))
    # As as spade: 2s must follow (+2 to player 0), then Jh beats Th (+10). As as trump: Th
    # must follow (+6), then 2s cannot follow Jh (+6). Jh first: Th follows (+10), then the As
    # takes 2s (+2). Every line gives player 0 all 12 points.
    assert values == {deck.index("Jh"): 12.0, rules.lead_as_trump: 12.0,
                      rules.lead_as_spade: 12.0}
    follow = Position((mask_of([deck.index("Jh")]), mask_of([deck.index("2s"), deck.index("Th")])),
                      np.array([], dtype=np.int64), rules.lead_as_spade, 1, points=0)
    # Player 0 has led the As as spade and holds Jh: player 1 must follow with 2s.
    moves = OpenCardSolver(game, table_bits=10).move_values(follow)
    assert moves.actions.tolist() == [deck.index("2s")]


# --- the speed-ups change no value ----------------------------------------------------------

@pytest.mark.parametrize("game_string, seed, max_stock", [
    (THREE_SUITS, 7, None),
    (FULL, 8, 4),
])
def test_table_pruning_and_ordering_change_no_value(game_string, seed, max_stock):
    game = pyspiel.load_game(game_string)
    plain = OpenCardSolver(game, table_bits=4, use_table=False, use_equivalence=False,
                           use_ordering=False)
    variants = [OpenCardSolver(game, table_bits=14, use_table=t, use_equivalence=e)
                for t in (False, True) for e in (False, True)]
    for state, order in random_positions(game_string, 8, seed, max_stock=max_stock):
        if len(state.hands[0]) + len(state.hands[1]) + state.stock_left() > 16:
            continue
        position = _position(state, order)
        expected = plain.move_values(position)
        for solver in variants:
            solver.new_stock()
            moves = solver.move_values(position)
            assert moves.actions.tolist() == expected.actions.tolist()
            assert moves.values.tolist() == expected.values.tolist()
            assert solver.value(position) == plain.value(position)


def test_pruning_and_the_table_save_nodes():
    game = pyspiel.load_game(FULL)
    (state, order), = random_positions(FULL, 1, 9, plies=40)
    position = _position(state, order)
    plain = OpenCardSolver(game, table_bits=4, use_table=False, use_equivalence=False)
    fast = OpenCardSolver(game, table_bits=16)
    assert fast.value(position) == plain.value(position)
    assert fast.nodes * 3 < plain.nodes


def test_stale_stock_entries_are_not_reused():
    """The same hands with another stock order: a new generation gives the new value."""
    game = pyspiel.load_game(SMALL)
    solver = OpenCardSolver(game, table_bits=12)
    for state, order in random_positions(SMALL, 10, 10, min_stock=4):
        position = _position(state, order)
        reversed_stock = Position(position.hands, position.stock[::-1].copy(), position.lead,
                                  position.mover, position.points)
        solver.new_stock()
        first = solver.value(position)
        solver.new_stock()
        second = solver.value(reversed_stock)
        assert first == OpenCardSolver(game, table_bits=12).value(position)
        assert second == OpenCardSolver(game, table_bits=12).value(reversed_stock)


# --- depth limits, budgets ------------------------------------------------------------------

def test_depth_limit_and_budget():
    game = pyspiel.load_game(FULL)
    solver = OpenCardSolver(game, table_bits=16)
    (state, order), = random_positions(FULL, 1, 11, plies=30)
    position = _position(state, order)
    plies = len(state.hands[0]) + len(state.hands[1]) + state.stock_left()
    shallow = solver.move_values(position, depth=4)
    assert not shallow.exact and shallow.depth == 4
    # With a budget: at least the first iteration, deeper ones within the budget.
    budgeted = solver.move_values(position, node_budget=2000)
    assert budgeted.depth >= 3 and not budgeted.exact
    assert budgeted.actions.tolist() == shallow.actions.tolist()
    # The full depth is exact, and a depth beyond the end changes nothing.
    (end_state, end_order), = random_positions(FULL, 1, 12, plies=42)
    end = _position(end_state, end_order)
    exact = solver.move_values(end, node_budget=10**7)
    assert exact.exact
    assert exact.values.tolist() == solver.move_values(end).values.tolist()
    assert solver.value(end, depth=60) == solver.value(end)
    assert plies > 4


def test_bad_positions_are_refused():
    game = pyspiel.load_game(TINY)
    solver = OpenCardSolver(game, table_bits=4)
    empty = np.array([], dtype=np.int64)
    with pytest.raises(ValueError, match="overlap"):
        solver.value(Position((3, 1), empty, -1, 0))
    with pytest.raises(ValueError, match="no card"):
        solver.value(Position((0, 1), empty, -1, 0))
    with pytest.raises(ValueError, match="even"):
        solver.value(Position((1, 2), np.array([3], dtype=np.int64), -1, 0))
    state = game.new_initial_state()
    with pytest.raises(ValueError, match="decision node"):
        position_from_state(state, [])


def test_masks_round_trip():
    assert cards_of(mask_of([0, 5, 51])) == [0, 5, 51]
    assert isinstance(MoveValues(np.zeros(0), np.zeros(0), 0, True, 0), MoveValues)


def test_evaluation_fit_on_exact_values():
    game = pyspiel.load_game(FULL)
    positions = sample_positions(game, 3, seed=0, stock_sizes=(2, 4))
    assert {len(p.stock) for p in positions} == {2, 4} and len(positions) == 6
    assert all(p.hands[0].bit_count() == p.hands[1].bit_count() == 6 for p in positions)
    fit = fit_eval_weights(game, deals=3, seed=0, stock_sizes=(2, 4))
    assert fit.positions == 6 and set(fit.weights) == set(game.rules.deck.names)
    assert fit.rmse <= fit.rmse_zero
    # The fitted evaluation is what a depth-limited search scores its frontier with.
    solver = OpenCardSolver(game, table_bits=10, eval_weights=fit.weights,
                            leader_bonus=fit.leader_bonus)
    position = positions[0]
    # Depth 2 ends at the first trick boundary: the trick's points plus the evaluation there.
    assert isinstance(solver.value(position, depth=2), float)
