"""Score states of a match and the moves between them.

A match is a sequence of hands played to `target` points. Before each hand the match is in a
score state (score0, score1, dealer) with both scores below the target; a hand's outcome, the
points it scores (the hand game's `returns()`: +p for player 0 scoring p, -p for player 1,
0 for a void hand), moves it to the next state: the scorer's score grows by p, the dealer
changes seat, and a score reaching the target ends the match. This is the state space of a
stochastic game (Shapley 1953) whose stage games are the hands; its values are found by
backward induction from the highest scores (the order of `MatchSpec.positions`), as in
backgammon's match-equity tables and in baixada-cards/truco-solver's match table for
two-player Truco Paulista. A void hand keeps the scores, so the two dealers at one score
(a *position*) are solved together (`solver.matchgrid.fixed_point`).
"""
from __future__ import annotations

import dataclasses
import re

import pyspiel

from solver.registry import load_game

# Games whose hand scores points for one side only (Truc family); Two-Ten-Jack scores both.
MATCH_GAMES = ("python_le_truc", "python_truco_paulista", "python_trucomano")
SCORE_PARAMETERS = ("score0", "score1", "dealer")
LABEL = re.compile(r"^(\d+)-(\d+)(?:-d([01]))?$")


@dataclasses.dataclass(frozen=True, order=True)
class ScoreState:
    """The match before a hand: both scores (below the target) and the dealer's seat."""

    score0: int
    score1: int
    dealer: int

    @property
    def label(self) -> str:
        """`10-7-d1`: the directory name of the state's solution."""
        return f"{self.score0}-{self.score1}-d{self.dealer}"

    @property
    def position(self) -> tuple[int, int]:
        """The scores (both dealers at one position are solved together)."""
        return self.score0, self.score1

    @classmethod
    def of_hand_game(cls, game: pyspiel.Game) -> "ScoreState":
        """The state a hand game is played at: its score0, score1 and dealer."""
        parameters = game.get_parameters()
        return cls(*(int(parameters[name]) for name in SCORE_PARAMETERS))

    def mirrored(self) -> "ScoreState":
        """The same state with the players' seats exchanged."""
        return ScoreState(self.score1, self.score0, 1 - self.dealer)


def parse_label(text: str, default_dealer: int = 1) -> ScoreState:
    """`A-B` or `A-B-dD` -> ScoreState (ValueError naming the form otherwise)."""
    found = LABEL.match(text.strip())
    if found is None:
        raise ValueError(f"score {text!r} is not of the form A-B or A-B-dD, e.g. 10-7 or 10-7-d0")
    dealer = default_dealer if found.group(3) is None else int(found.group(3))
    return ScoreState(int(found.group(1)), int(found.group(2)), dealer)


@dataclasses.dataclass(frozen=True)
class MatchSpec:
    """A match of a Truc-family game: its hand game's parameters (score and dealer aside)
    and the target. `game` is the canonical game string with the score parameters at their
    defaults (what a match solve is recorded under). `from_score`: only the positions where a
    player has at least that many points are solved (0: all); scores only grow, so their
    hands reach no other position (`from_score = target - 1`: Truco's hands of eleven and
    the iron hand)."""

    short_name: str
    parameters: tuple[tuple[str, object], ...]
    target: int
    game: str
    from_score: int = 0

    @classmethod
    def of_game(cls, game: pyspiel.Game | str, from_score: int = 0) -> "MatchSpec":
        """The match of `game` (the positions from `from_score` on); ValueError (one line) for
        games this match model does not fit, a game string that sets the score parameters
        itself, or a `from_score` outside 0 .. target - 1."""
        game = load_game(game)
        short_name = game.get_type().short_name
        if short_name not in MATCH_GAMES:
            raise ValueError(f"{short_name}: match solving takes a Truc-family game whose hand "
                             f"scores points for one side ({', '.join(MATCH_GAMES)})")
        parameters = dict(game.get_parameters())
        if parameters.get("num_players", 2) != 2:
            raise ValueError(f"{short_name}: match solving takes the two-player game, "
                             f"not num_players={parameters['num_players']}")
        defaults = game.get_type().parameter_specification
        fixed = [name for name in SCORE_PARAMETERS if parameters[name] != defaults[name]]
        if fixed:
            raise ValueError(f"{', '.join(fixed)}: solve-match sets the score and the dealer of "
                             f"every state itself; drop these parameters")
        for name in SCORE_PARAMETERS:
            parameters.pop(name)
        target = int(parameters["target"])
        if not 0 <= from_score < target:
            raise ValueError(f"from score {from_score}: a score the match can be at, 0 to "
                             f"{target - 1} (target {target})")
        return cls(short_name, tuple(sorted(parameters.items())), target, str(game),
                   from_score)

    def hand_game(self, state: ScoreState) -> pyspiel.Game:
        """The hand played in `state`: the game with score0, score1 and dealer set."""
        return load_game_with(self.short_name, {**dict(self.parameters),
                                                **dataclasses.asdict(state)})

    def hand_game_string(self, state: ScoreState) -> str:
        """`str(self.hand_game(state))`."""
        return str(self.hand_game(state))

    def positions(self) -> list[tuple[int, int]]:
        """Every (score0, score1) below the target (a player at `from_score` or more), in
        solving order: decreasing total, then decreasing score0 (every position comes after
        all the positions its hand can reach)."""
        scores = range(self.target)
        return sorted(((a, b) for a in scores for b in scores
                       if max(a, b) >= self.from_score), key=lambda p: (-sum(p), -p[0]))

    def states(self) -> list[ScoreState]:
        """Every score state, in solving order (dealer 0 before dealer 1 at each position)."""
        return [ScoreState(a, b, d) for a, b in self.positions() for d in (0, 1)]

    def mirror_source(self, position: tuple[int, int]) -> tuple[int, int] | None:
        """The position whose states give `position`'s by the seats' symmetry (None if it is
        solved itself): (b, a) for a < b. The two seats of a Truc-family hand play by the
        same rules, so V(a, b, d) = 1 - V(b, a, 1 - d): only positions with a >= b are
        solved."""
        a, b = position
        return (b, a) if a < b else None

    def depends_on(self, position: tuple[int, int]) -> list[tuple[int, int]]:
        """The positions a hand at `position` can lead to (points go to one side)."""
        a, b = position
        return ([(higher, b) for higher in range(a + 1, self.target)]
                + [(a, higher) for higher in range(b + 1, self.target)])

    def after_hand(self, state: ScoreState, points: float) -> ScoreState | float:
        """Where a hand scoring `points` (player 0's return) leads: the next state, or, if the
        match is over, player 0's match result (1.0 won, 0.0 lost). The dealer changes seat."""
        if points != int(points):
            raise ValueError(f"a hand of {self.short_name} returned {points} points: match "
                             f"solving needs whole points")
        points = int(points)
        score0 = state.score0 + max(points, 0)
        score1 = state.score1 + max(-points, 0)
        if score0 >= self.target:
            return 1.0
        if score1 >= self.target:
            return 0.0
        return ScoreState(score0, score1, 1 - state.dealer)


def load_game_with(short_name: str, parameters: dict) -> pyspiel.Game:
    """`short_name` loaded with `parameters` (our games registered first)."""
    import games  # noqa: F401  (registers the python_* games)

    return pyspiel.load_game(short_name, parameters)
