"""IS-MCTS's numba rollout for Two-Ten-Jack (solver.play.rollout) against the game's own rules
and OpenSpiel's `mcts.RandomRolloutEvaluator`."""
import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import mcts

import games  # noqa: F401  (registers the games)
from solver.play.bots import make_bot
from solver.play.rollout import PlayoutEvaluator, undealt_cards

FULL = "python_two_ten_jack"
SMALL = "python_two_ten_jack(suits=h:s,ranks=2:3:4:5:T:J:A,hand_size=3)"


def _random_decision_state(game, rng, plays):
    """A state after the deal and `plays` random moves (fewer if the deal ends), at a
    decision node."""
    state = game.new_initial_state()
    while True:
        while state.is_chance_node():
            state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
        if state.is_terminal() or plays == 0:
            return state
        state.apply_action(int(rng.choice(state.legal_actions())))
        plays -= 1


@pytest.mark.parametrize("spec", [FULL, SMALL])
def test_playouts_replay_legally_to_their_value(spec):
    game = pyspiel.load_game(spec)
    rng = np.random.default_rng(5)
    evaluator = PlayoutEvaluator(game, np.random.RandomState(6))
    declarations = set()
    for _ in range(60):
        state = _random_decision_state(game, rng, plays=int(rng.integers(0, 40)))
        if state.is_terminal():
            continue
        value, actions = evaluator.playout(state)
        replay = state.clone()
        for action in actions.tolist():
            replay.apply_action(action)  # raises ValueError on an illegal move or card
            if action >= game.rules.num_cards:
                declarations.add(action)
        assert replay.is_terminal()
        assert replay.returns() == [value, -value]
        assert undealt_cards(state) == _undealt_by_rules(state)
    assert declarations == {game.rules.num_cards, game.rules.num_cards + 1}


def _undealt_by_rules(state):
    """The cards the game would still deal: the outcomes of its next chance node (none left
    once the stock is empty)."""
    probe = state.clone()
    while not probe.is_terminal():
        if probe.is_chance_node():
            return sorted(a for a, _ in probe.chance_outcomes())
        probe.apply_action(probe.legal_actions()[0])
    return []


def test_first_move_is_uniform_over_the_legal_actions_the_as_counting_twice():
    game = pyspiel.load_game(FULL)
    state = game.new_initial_state()
    ace = game.rules.ace_of_spades
    order = [ace] + [c for c in range(game.rules.num_cards) if c != ace]
    while state.is_chance_node():  # the first leader gets the As
        outcomes = {a for a, _ in state.chance_outcomes()}
        state.apply_action(next(c for c in order if c in outcomes))
    legal = state.legal_actions()
    assert game.rules.num_cards + 1 in legal and len(legal) == 7  # 5 cards, the As twice
    evaluator = PlayoutEvaluator(game, np.random.RandomState(8))
    draws = 7000
    firsts = [int(evaluator.playout(state)[1][0]) for _ in range(draws)]
    counts = np.array([firsts.count(a) for a in legal])
    expected = draws / len(legal)
    chi_square = float(((counts - expected) ** 2 / expected).sum())
    assert counts.sum() == draws
    assert chi_square < 22.5  # 99.9% quantile of chi-square with 6 degrees of freedom


def test_mean_value_agrees_with_openspiels_rollout():
    game = pyspiel.load_game(SMALL)
    state = _random_decision_state(game, np.random.default_rng(3), plays=1)
    rollouts = 3000
    fast = PlayoutEvaluator(game, np.random.RandomState(1))
    slow = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(2))
    ours = np.array([fast.evaluate(state)[0] for _ in range(rollouts)])
    theirs = np.array([slow.evaluate(state)[0] for _ in range(rollouts)])
    standard_error = np.sqrt(ours.var() / rollouts + theirs.var() / rollouts)
    assert ours.std() > 0
    assert abs(ours.mean() - theirs.mean()) < 4 * standard_error
    assert fast.prior(state) == slow.prior(state)


def test_ismcts_on_two_ten_jack_rolls_out_in_numba():
    game = pyspiel.load_game(SMALL)
    bot = make_bot("ismcts:50", game, 4)
    assert isinstance(bot._evaluator, PlayoutEvaluator)
    state = _random_decision_state(game, np.random.default_rng(9), plays=0)
    assert bot.step(state) in state.legal_actions()
