"""Fitting the open-card solver's static evaluation (`solver.play.open_card`) to exact values.

The evaluation scores a position at a trick boundary, where a depth-limited search stops, as
a weight per card held (added for player 0, subtracted for player 1) plus a bonus for the
player to lead. The weights are fitted by least squares with a small ridge penalty to exact
open-card values: deals played by the heuristic bot
(`solver.play.two_ten_jack_heuristic.HeuristicBot`) from both seats, stopped at trick
boundaries while cards remain in the stock (`stock_sizes`), each such position solved exactly;
the target is the value of the rest of the deal (player 0's future points minus player 1's).
This is the least-squares fit of an evaluation function to search results, as in Buro's GLEM
(Buro 1999, "From simple features to sophisticated evaluation functions", CG) with exact values
in place of deep searches; the stock sizes are those where the exact search is cheap (up to 12
cards), not the deeper ones where the evaluation is used, and the stock order of each position
is the one dealt.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from solver.play.two_ten_jack_heuristic import HeuristicBot
from solver.play.open_card import OpenCardSolver, Position, mask_of

DEFAULT_STOCK_SIZES = (4, 6, 8, 10, 12)


@dataclasses.dataclass(frozen=True)
class EvalFit:
    """A fitted evaluation: {card name: weight}, the leader's bonus, and the fit's quality on
    the positions (root mean square error of the fit and of the zero evaluation, points)."""

    weights: dict[str, float]
    leader_bonus: float
    positions: int
    rmse: float
    rmse_zero: float


def sample_positions(game, deals: int, seed: int, stock_sizes=DEFAULT_STOCK_SIZES):
    """Positions at trick boundaries with `stock_sizes` cards in the stock, from `deals` deals
    of heuristic play (uniformly shuffled decks): a list of `Position` (points 0)."""
    rng = np.random.default_rng(seed)
    bot = HeuristicBot(game)
    wanted = set(stock_sizes)
    positions = []
    for _ in range(deals):
        order = rng.permutation(game.max_chance_outcomes())
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = {a for a, _ in state.chance_outcomes()}
                state.apply_action(next(int(c) for c in order if c in outcomes))
                continue
            if state.open_trick() is None and state.stock_left() in wanted:
                used = set().union(*state.hands, *state.won)
                stock = np.array([c for c in order if c not in used], dtype=np.int64)
                positions.append(Position((mask_of(state.hands[0]), mask_of(state.hands[1])),
                                          stock, -1, state.current_player()))
            state.apply_action(bot.step(state))
    return positions


def features(game, positions) -> np.ndarray:
    """float64 [len(positions), num_cards + 1]: +1 per card player 0 holds, -1 per card player
    1 holds, and +1 / -1 as player 0 / player 1 leads."""
    n = game.rules.num_cards
    rows = np.zeros((len(positions), n + 1))
    for i, position in enumerate(positions):
        for player, sign in ((0, 1.0), (1, -1.0)):
            mask = position.hands[player]
            for card in range(n):
                if mask >> card & 1:
                    rows[i, card] = sign
        rows[i, n] = 1.0 if position.mover == 0 else -1.0
    return rows


def exact_values(game, positions) -> np.ndarray:
    """float64 [len(positions)]: each position's exact value of the rest of the deal."""
    solver = OpenCardSolver(game)
    values = np.zeros(len(positions))
    for i, position in enumerate(positions):
        solver.new_stock()
        values[i] = solver.value(position)
    return values


def fit_eval_weights(game, deals: int = 400, seed: int = 0, ridge: float = 1.0,
                     stock_sizes=DEFAULT_STOCK_SIZES) -> EvalFit:
    """Least-squares weights of the static evaluation (see the module docstring)."""
    positions = sample_positions(game, deals, seed, stock_sizes)
    x = features(game, positions)
    y = exact_values(game, positions)
    solution = np.linalg.solve(x.T @ x + ridge * np.eye(x.shape[1]), x.T @ y)
    names = game.rules.deck.names
    weights = {names[c]: round(float(w), 3) for c, w in enumerate(solution[:-1])}
    rmse = float(np.sqrt(np.mean((x @ solution - y) ** 2)))
    return EvalFit(weights, round(float(solution[-1]), 3), len(positions), rmse,
                   float(np.sqrt(np.mean(y ** 2))))
