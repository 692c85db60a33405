"""Inference over the opponent's hand (solver.play.inference): the likelihood of his plays,
checked against the game's own states, and worlds that lean to his true hand."""
import numpy as np
import pyspiel
import pytest

import games  # noqa: F401  (registers the games)
from solver.play.bots import make_bot, policy_depends_on_seed
from solver.play.inference import inferred_worlds, opponent_receipts, play_likelihood
from solver.play.open_card import mask_of
from solver.play.pimc import PIMCBot, information_view, sample_world
from solver.play.two_ten_jack_heuristic import HeuristicBot

FULL = "python_two_ten_jack"
ERROR = 0.1


def _deal_against(opponent_spec, seed, tricks):
    """A full-deck deal, player 1 played by `opponent_spec`, player 0 uniformly at random,
    stopped at player 0's first decision after `tricks` tricks; also the product, over player
    1's decisions with a choice, of the heuristic model's probability of his action (1 - ERROR
    if the heuristic plays it there, ERROR shared by the other legal actions otherwise),
    computed on the game's own states, and the number of those decisions."""
    game = pyspiel.load_game(FULL)
    rng = np.random.default_rng(seed)
    opponent = make_bot(opponent_spec, game, seed)
    model = HeuristicBot(game)
    state = game.new_initial_state()
    likelihood, choices = 1.0, 0
    while True:
        if state.is_chance_node():
            state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
        elif state.current_player() == 0:
            if len(state.tricks) >= tricks:
                return state, likelihood, choices
            state.apply_action(int(rng.choice(state.legal_actions())))
        else:
            action = opponent.step(state)
            legal = state.legal_actions()
            if len(legal) > 1:
                choices += 1
                likelihood *= (1 - ERROR if model.step(state) == action
                               else ERROR / (len(legal) - 1))
            state.apply_action(action)


@pytest.mark.parametrize("opponent_spec, seed, tricks", [
    ("heuristic", 1, 6), ("heuristic", 2, 11), ("random", 3, 5), ("random", 4, 12),
])
def test_the_likelihood_of_the_true_receipts_is_the_models_along_the_deal(opponent_spec, seed,
                                                                         tricks):
    """His true receipts (cards and arrival tricks) rebuild his hand at each of his decisions:
    their likelihood equals the model's probabilities taken on the real states (all 1 - ERROR
    against the heuristic itself; a random opponent also makes plays the model would not)."""
    state, expected, choices = _deal_against(opponent_spec, seed, tricks)
    view = information_view(state)
    receipts = [card for _, card in state.received[1]]
    assert play_likelihood(view, state.rules, receipts, ERROR) == pytest.approx(expected,
                                                                                rel=1e-12)
    assert choices >= 3
    if opponent_spec == "heuristic":
        assert expected == pytest.approx((1 - ERROR) ** choices, rel=1e-12)
    else:
        assert expected < (1 - ERROR) ** choices


def test_drawn_receipts_fit_what_was_seen():
    """Every drawn world gives the opponent a hand of the right size from the unseen cards and
    keeps his played cards among his receipts."""
    state, _, _ = _deal_against("heuristic", 5, 7)
    view = information_view(state)
    rng = np.random.default_rng(0)
    played = mask_of(card for _, card in view.plays)
    for _ in range(50):
        receipts = opponent_receipts(view, rng)
        assert mask_of(receipts) & played == played
        assert (mask_of(receipts) & ~played) & ~view.unseen == 0
        assert (mask_of(receipts) & ~played).bit_count() == view.opponent_hand_size
    for hand, stock in inferred_worlds(view, state.rules, 20, 80, ERROR, rng):
        assert hand.bit_count() == view.opponent_hand_size
        assert hand | mask_of(stock) == view.unseen and not hand & mask_of(stock)


def test_inferred_worlds_lean_to_the_heuristics_true_hand():
    """Against the heuristic, worlds weighted by its plays share more cards with its true hand
    than the plain worlds do (`sample_world`; summed over several positions, 40 worlds each)."""
    inferred = plain = 0
    for seed in range(6):
        state, _, _ = _deal_against("heuristic", 10 + seed, 8)
        view = information_view(state)
        truth = mask_of(state.hands[1])
        rng = np.random.default_rng(seed)
        worlds = inferred_worlds(view, state.rules, 40, 400, ERROR, rng)
        inferred += sum((hand & truth).bit_count() for hand, _ in worlds)
        plain += sum((sample_world(view, rng)[0] & truth).bit_count() for _ in range(40))
    assert inferred > 1.2 * plain


def test_pimc_infer_spec():
    game = pyspiel.load_game(FULL)
    bot = make_bot("pimc-infer:4:500", game, 0)
    assert (bot.worlds, bot.node_budget, bot.inference_error) == (4, 500, ERROR)
    assert make_bot("pimc", game, 0).inference_error is None
    assert policy_depends_on_seed("pimc-infer")
    with pytest.raises(ValueError, match="bad bot"):
        make_bot("pimc-infer:0", game, 0)
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        PIMCBot(game, 0, inference_error=1.0)

