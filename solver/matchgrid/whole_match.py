"""The whole match as one extensive-form game: the check of the match table on tiny variants.

`WholeMatchGame` plays hands of a Truc-family game one after the other from 0–0, each hand the
game with the match's scores and dealer set, until a player reaches the target (payoff ±1 for
player 0) — solved directly by the history engine, its value must agree with the table's
V(0, 0, dealer) that `solver.matchgrid` builds state by state. Perfect recall across hands:
a player's information state is every hand he has played, as that hand's game shows it to
him (`information_state_string`), then the current one.

Void hands can repeat forever, so the game stops after `max_hands` hands; a match still
undecided then pays player 0 `cap_utility` (in [-1, 1]), or, given `cap_table` (a match table,
{state: P(player 0 wins)}), 2·V(state reached) − 1. Two checks follow. The game value is
monotone in the payoffs, so the values with cap_utility = −1 and +1 bracket the uncapped
match's value, whatever the table says. And with the exact table at the cap the game is the
uncapped match (backward induction), so its value is V(0, 0, dealer) if the table is right.
This game is not registered with OpenSpiel: build it with `WholeMatchGame(...)` and compile
it with `cache=False`.
"""
from __future__ import annotations

import numpy as np
import pyspiel

from solver.matchgrid.states import MatchSpec, ScoreState

_PARAMETERS = {"hand_game": "", "dealer": 1, "max_hands": 8, "cap": "0"}

_GAME_TYPE = pyspiel.GameType(
    short_name="python_whole_match",
    long_name="Python whole match of a Truc-family game",
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
    parameter_specification=_PARAMETERS,
)


class WholeMatchGame(pyspiel.Game):
    """Hands of `spec`'s game from 0–0 with `dealer` dealing first, to the target or to
    `max_hands` hands (then `cap_utility`, or the table's 2·V − 1, for player 0)."""

    def __init__(self, spec: MatchSpec, dealer: int, max_hands: int, cap_utility: float = 0.0,
                 cap_table: dict[ScoreState, float] | None = None):
        if max_hands < 1 or not -1.0 <= cap_utility <= 1.0 or dealer not in (0, 1):
            raise ValueError(f"bad whole match: dealer={dealer}, max_hands={max_hands}, "
                             f"cap_utility={cap_utility}")
        self.spec, self.dealer = spec, dealer
        self.max_hands, self.cap_utility, self.cap_table = max_hands, cap_utility, cap_table
        self._hand_games: dict[ScoreState, pyspiel.Game] = {}
        first = self.hand_game(ScoreState(0, 0, dealer))
        info = pyspiel.GameInfo(
            num_distinct_actions=first.num_distinct_actions(),
            max_chance_outcomes=first.max_chance_outcomes(),
            num_players=2, min_utility=-1.0, max_utility=1.0, utility_sum=0.0,
            max_game_length=max_hands * first.max_game_length())
        cap = "table" if cap_table is not None else repr(float(cap_utility))
        super().__init__(_GAME_TYPE, info, {"hand_game": spec.game, "dealer": dealer,
                                            "max_hands": max_hands, "cap": cap})

    def cap_payoff(self, state: ScoreState) -> float:
        """Player 0's payoff of a match stopped undecided in `state`."""
        if self.cap_table is None:
            return self.cap_utility
        return 2.0 * self.cap_table[state] - 1.0

    def hand_game(self, state: ScoreState) -> pyspiel.Game:
        """The hand game of a score state (loaded once)."""
        if state not in self._hand_games:
            self._hand_games[state] = self.spec.hand_game(state)
        return self._hand_games[state]

    def new_initial_state(self):
        return WholeMatchState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return WholeMatchObserver()


class WholeMatchState(pyspiel.State):
    """The match: the score state, the hand in progress and what each player saw before."""

    def __init__(self, game: WholeMatchGame):
        super().__init__(game)
        self.match = _Shared(game)
        self.score = ScoreState(0, 0, game.dealer)
        self.hands_played = 0
        self.hand = game.hand_game(self.score).new_initial_state()
        self.seen = ["", ""]  # per player: the finished hands as he saw them
        self.result: float | None = None  # player 0's payoff once the match is over

    def current_player(self):
        if self.result is not None:
            return pyspiel.PlayerId.TERMINAL
        return self.hand.current_player()

    def chance_outcomes(self):
        return self.hand.chance_outcomes()

    def _legal_actions(self, player):
        return self.hand.legal_actions(player)

    def _apply_action(self, action):
        self.hand.apply_action(action)
        if self.hand.is_terminal():
            self._next_hand()

    def _next_hand(self) -> None:
        """Score the hand just over; end the match or deal the next hand."""
        for player in (0, 1):
            self.seen[player] += (f"[{self.score.label}] "
                                  f"{self.hand.information_state_string(player)} || ")
        self.hands_played += 1
        after = self.match.game.spec.after_hand(self.score, self.hand.returns()[0])
        if isinstance(after, float):
            self.result = 2.0 * after - 1.0
        elif self.hands_played >= self.match.game.max_hands:
            self.result = self.match.game.cap_payoff(after)
        else:
            self.score = after
            self.hand = self.match.game.hand_game(after).new_initial_state()

    def _action_to_string(self, player, action):
        return self.hand.action_to_string(player, action)

    def is_terminal(self):
        return self.result is not None

    def returns(self):
        return [0.0, 0.0] if self.result is None else [self.result, -self.result]

    def information_state(self, player: int) -> str:
        """Every hand `player` played, as he saw it, then the current one."""
        current = "" if self.result is not None else \
            f"[{self.score.label}] {self.hand.information_state_string(player)}"
        return f"p{player} | {self.seen[player]}{current}"

    def __str__(self):
        return f"{self.seen[0]} / {self.seen[1]} | {self.hand}"


class _Shared:
    """The match game, shared by every copy of a state (OpenSpiel clones Python states by
    deep-copying their attributes; a game must not be copied)."""

    def __init__(self, game: WholeMatchGame):
        self.game = game

    def __deepcopy__(self, memo):
        return self


class WholeMatchObserver:
    """Information state strings only (PyObserver interface, no tensor)."""

    def __init__(self):
        self.tensor = np.zeros(0, np.float32)
        self.dict = {}

    def set_from(self, state: WholeMatchState, player: int) -> None:
        """No tensor."""

    def string_from(self, state: WholeMatchState, player: int) -> str:
        return state.information_state(player)
