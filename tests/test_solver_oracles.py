"""Degenerate oracle games whose solution follows from their rules, and the solver on them.

`python_oracle_matrix(payoffs=...)`: a chance node picks one of the colon-separated 2x2 payoff
tables ("a b c d" for rows r0 r1 and columns c0 c1, player 0's payoff) with the given weights;
player 0, seeing the table, picks a row; player 1, seeing the table but not the row, picks a
column. The value is the probability-weighted value of the matrix games.
"""
from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import solver

_DEFAULT = "1 1 1 1@1"
_GAME_TYPE = pyspiel.GameType(
    short_name="python_oracle_matrix",
    long_name="Oracle matrix game (solver tests)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=False,
    provides_observation_tensor=False,
    parameter_specification={"tables": _DEFAULT},
)


def parse_tables(text: str) -> list[tuple[np.ndarray, float]]:
    """'a b c d@w:...' -> [(2x2 payoff matrix, weight)], weights normalised."""
    tables = []
    for item in text.split(":"):
        payoffs, weight = item.split("@")
        tables.append((np.array([float(x) for x in payoffs.split()]).reshape(2, 2), float(weight)))
    total = sum(weight for _, weight in tables)
    return [(matrix, weight / total) for matrix, weight in tables]


class OracleMatrixGame(pyspiel.Game):
    """Chance picks a 2x2 zero-sum matrix game; player 0 then player 1 play it blind."""

    def __init__(self, params=None):
        params = params or {}
        self.tables = parse_tables(params.get("tables", _DEFAULT))
        bound = max(float(np.abs(matrix).max()) for matrix, _ in self.tables)
        game_info = pyspiel.GameInfo(num_distinct_actions=max(2, len(self.tables)),
                                     max_chance_outcomes=len(self.tables), num_players=2,
                                     min_utility=-bound, max_utility=bound, utility_sum=0.0,
                                     max_game_length=3)
        super().__init__(_GAME_TYPE, game_info, params)

    def new_initial_state(self):
        """A state before the chance draw."""
        return OracleMatrixState(self)


class OracleMatrixState(pyspiel.State):
    """History: [table, row, column]."""

    def __init__(self, game):
        super().__init__(game)
        self.tables = game.tables
        self.history_ = []

    def current_player(self):
        """Chance, player 0, player 1, then terminal."""
        if len(self.history_) == 3:
            return pyspiel.PlayerId.TERMINAL
        return pyspiel.PlayerId.CHANCE if not self.history_ else len(self.history_) - 1

    def _legal_actions(self, player):
        """Two rows or two columns."""
        return [0, 1]

    def chance_outcomes(self):
        """(table index, weight)."""
        return [(i, weight) for i, (_, weight) in enumerate(self.tables)]

    def _apply_action(self, action):
        """Append to the history."""
        self.history_.append(action)

    def _action_to_string(self, player, action):
        """Table, row or column."""
        return f"{'table row column'.split()[len(self.history_)]} {action}"

    def is_terminal(self):
        """After the column."""
        return len(self.history_) == 3

    def returns(self):
        """Player 0's payoff from the chosen table."""
        table, row, column = self.history_
        value = float(self.tables[table][0][row, column])
        return [value, -value]

    def information_state_string(self, player):
        """The table, plus the row for player 0."""
        seen = self.history_[:1] + (self.history_[1:2] if player == 0 else [])
        return f"p{player} " + " ".join(map(str, seen))

    def __str__(self):
        """The history."""
        return " ".join(map(str, self.history_))


pyspiel.register_game(_GAME_TYPE, OracleMatrixGame)


@pytest.mark.parametrize("tables,value", [
    ("1 1 1 1@1", 1.0),                      # always win
    ("0 0 0 0@1", 0.0),                      # always tie
    ("-2 -2 -2 -2@1", -2.0),                 # always lose
    ("1 -1 -1 1@1", 0.0),                    # matching pennies
    ("3 0 0 1@1", 0.75),                     # mixed equilibrium p = 1/4, value 3/4
    ("1 -1 -1 1@1:3 0 0 1@3", 0.5625),       # chance over both: 1/4 * 0 + 3/4 * 3/4
])
def test_oracle_games_reach_their_value(tables, value):
    game = pyspiel.load_game(f"python_oracle_matrix(tables={tables})")
    target = 1e-6
    result = solver.solve(game, "pcfr+", target_exploitability=target, iterations=10_000,
                          eval_every=5, progress=False, cache=False)
    assert result.exploitability <= target
    assert abs(result.game_value - value) <= 2 * target
