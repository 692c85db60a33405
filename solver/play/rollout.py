"""IS-MCTS's leaf evaluation for Two-Ten-Jack: OpenSpiel's random rollout, played in numba.

IS-MCTS (Cowling, Powley & Whitehouse 2012, IEEE TCIAIG 4(2)) as OpenSpiel implements it
(`open_spiel.python.algorithms.ismcts`, Lanctot et al. 2019, arXiv:1908.09453) scores every new
leaf by one random rollout, `mcts.RandomRolloutEvaluator`: chance outcomes drawn with their
probabilities, every move uniform over the legal actions, the terminal returns. Over the
game's Python states that rollout took 86% of the time of IS-MCTS(1000) on the full deck
(cProfile of two moves). The evaluator
here plays the same rollout on the open-card solver's card model (`solver.play.open_card`,
kernel `random_playout`): the cards not yet dealt shuffled uniformly (the same law as drawing
them one by one, uniformly, as the game's chance nodes do), then each move uniform over the
game's legal actions (the As led as trump and as spade are two actions, as in the game). Only
the random numbers differ: they come from the bot's `numpy.random.RandomState`, one batch per
rollout. `tests/test_rollout.py` replays rollouts through the game's own rules and compares the
law of the moves with OpenSpiel's evaluator.
"""
from __future__ import annotations

import numpy as np
from open_spiel.python.algorithms import mcts

from solver.play import _open_card_kernels as kernels
from solver.play.open_card import CardTables, position_from_state


class PlayoutEvaluator(mcts.RandomRolloutEvaluator):
    """`mcts.RandomRolloutEvaluator` with one rollout per leaf, for `python_two_ten_jack`: the
    same priors (uniform) and the same rollout law, the rollout run by `random_playout`."""

    def __init__(self, game, random_state: np.random.RandomState):
        """Rollouts of `game`'s deals drawing from `random_state`."""
        super().__init__(n_rollouts=1, random_state=random_state)
        self._tables = CardTables(game.rules).kernel
        self._actions = np.zeros(2 * game.rules.num_cards, np.int64)

    def evaluate(self, state) -> np.ndarray:
        """The returns of one random rollout from `state` (a decision node)."""
        value, _ = self.playout(state)
        return np.array([value, -value])

    def playout(self, state) -> tuple[float, np.ndarray]:
        """(player 0's return at the end of one random rollout from `state`, the rollout's
        actions in the game's order, the draws included)."""
        stock = np.array(undealt_cards(state), dtype=np.int64)
        position = position_from_state(state, stock)
        hand0, hand1 = position.hands
        plies = hand0.bit_count() + hand1.bit_count() + len(stock)
        uniforms = self._random_state.random_sample(len(stock) + plies)
        future, count = kernels.random_playout(hand0, hand1, stock, position.lead,
                                               position.mover, uniforms, self._tables,
                                               self._actions)
        return position.points + future, self._actions[:count]


def undealt_cards(state) -> list[int]:
    """The cards of a `python_two_ten_jack` state neither held nor played (the stock's cards)."""
    seen = set().union(*state.hands, *state.won)
    trick = state.open_trick()
    if trick is not None:
        seen.add(trick.lead)
    return [card for card in range(state.rules.num_cards) if card not in seen]
