"""One position of the match (both dealers at one score), solved for the match.

Each state's hand is solved with terminal utility 2·V(next) − 1 for player 0 (±1 where the
match ends), V(next) taken from the states already solved (backward induction: the
positions a hand can reach come earlier in `MatchSpec.positions`). A void hand (0 points)
keeps the scores and swaps the dealer, so V(s, 0) and V(s, 1) depend on each other: they are
a fixed point, V(s, d) = val_d(V(s, 1 − d)), found by Gauss-Seidel iteration (solve dealer
f with the partner's last value, then the partner with f's new value, until neither moves by
more than `tolerance`), each re-solve warm-started from the last one's regrets. Where only one
of the two hands can be void, the other is solved first and one round is exact; where neither
can, there is nothing to iterate.

Error bound (win-probability units). The value of a zero-sum game moves by at most
max over strategies of sum_t P(t)·|change of payoff at t|. With ε a state's bracket half-width,
E the largest error bound of the states its hand reaches (other than its partner), q the
largest probability of a void hand (`HandEngine.max_void_probability`) and r the residual
(the partner's last move), the state solved last in the final round, s, and the other, f:
a non-void terminal's utility is off by at most E, a void one's by the partner's error (plus r
for f, solved with the partner's value of the round before), and the terminals' probabilities
sum to one, so with P(void) ≤ q
    e_f ≤ ε_f + E_f + q_f·max(0, r + e_s − E_f),   e_s ≤ ε_s + E_s + q_s·max(0, e_f − E_s).
The right-hand sides form a monotone map F of (e_f, e_s) with slope q_f·q_s < 1, so the true
errors lie below its fixed point; `pair_error_bounds` reaches it from above (from the fixed
point of the looser e_f ≤ ε_f + E_f + q_f·(r + e_s), e_s ≤ ε_s + E_s + q_s·e_f, which F maps
below itself), every step still a bound. Each state's `error_bound` is that bound on
|V(table) − V(exact)|; it does not grow along a chain of void-linked positions (with equal E
and no ε it is E). Infinite where every hand of both dealers can be void.
"""
from __future__ import annotations

import dataclasses
import math
import time

from solver.matchgrid.engine import HandEngine, HandSolution
from solver.matchgrid.states import MatchSpec, ScoreState

DEFAULT_MAX_ROUNDS = 50
NEUTRAL = 0.5  # the partner's value before it is known


@dataclasses.dataclass(frozen=True)
class StateSolution:
    """One score state solved for the match (figures in win-probability units).

    p0_win: the midpoint of the bracket [p0_win_low, p0_win_high] of player 0's probability of
    winning the match (the value of the state's hand with the utilities used); exploitability:
    half that bracket; error_bound: see the module docstring; utility_of_points: the terminal
    utilities of the last solve; rounds, residual: the fixed point's iteration (1 and 0 where
    no void hand links the two dealers); iterations, seconds: summed over the rounds;
    position_seconds: wall time of the whole position (both dealers, compiling, every round,
    brackets and bounds).
    """

    state: ScoreState
    game_string: str
    p0_win: float
    p0_win_low: float
    p0_win_high: float
    exploitability: float
    error_bound: float
    void_probability_bound: float
    utility_of_points: dict[float, float]
    successors: list[str]
    rounds: int
    residual: float
    iterations: int
    seconds: float
    compile_seconds: float
    hand: HandSolution
    position_seconds: float = 0.0
    first_decision: dict[str, float] | None = None  # `solver.matchgrid.score_strategy`
    decisions_by_hand: list | None = None  # its `HandDecision`s, hand by hand


@dataclasses.dataclass(frozen=True)
class Settings:
    """How each state is solved: exploitability target (win-probability units), iteration cap
    per state, evaluation interval (fixed, so that a state's result does not depend on the
    machine's speed: every executor gives the same table), fixed-point tolerance and round
    cap; whether the seats' symmetry halves the positions (`MatchSpec.mirror_source`)."""

    target_exploitability: float = 1e-3
    iterations: int = 100_000
    eval_every: int = 10
    tolerance: float | None = None  # None: target_exploitability / 10
    max_rounds: int = DEFAULT_MAX_ROUNDS
    seat_symmetry: bool = True  # positions with score0 < score1 from their mirror images

    @property
    def fixed_point_tolerance(self) -> float:
        """The fixed point stops when no value moves by more than this."""
        return self.tolerance if self.tolerance is not None else self.target_exploitability / 10


def solve_position(spec: MatchSpec, engine: HandEngine, position: tuple[int, int],
                   known: dict[ScoreState, tuple[float, float]],
                   settings: Settings) -> list[StateSolution]:
    """Both dealers of `position`; `known` maps every state the hands can reach to its
    (p0_win, error_bound). Returns the two solutions, dealer 0 first."""
    began = time.perf_counter()
    states = [ScoreState(*position, dealer) for dealer in (0, 1)]
    games = [spec.hand_game_string(state) for state in states]
    outcomes = [engine.outcomes(game) for game in games]
    void = [0.0 in points for points in outcomes]
    if void[0] and not void[1]:
        order = [1, 0]  # the hand that cannot be void first: then one round is exact
    else:
        order = [0, 1]
    first, last = order
    linked = void[0] and void[1]
    values = [NEUTRAL, NEUTRAL]  # V(s, d) so far; the guess before a dealer is solved
    hands: list[HandSolution | None] = [None, None]
    utilities: list[dict | None] = [None, None]
    rounds, residual = 0, 0.0
    while True:
        rounds += 1
        last_before = values[last]  # what `first` is solved with in this round
        for d in order:
            utilities[d] = _utilities(spec, states[d], outcomes[d], known, values[1 - d])
            hands[d] = engine.solve(
                games[d], utilities[d], target_exploitability=2 * settings.target_exploitability,
                iterations=settings.iterations, eval_every=settings.eval_every,
                warm_start=hands[d], keep_state=linked)
            values[d] = _win_probability(hands[d].value)
        if not linked:
            break
        residual = abs(values[last] - last_before)
        if residual <= settings.fixed_point_tolerance or rounds >= settings.max_rounds:
            break
    solutions = _solutions(spec, states, games, outcomes, hands, utilities, order, known, engine,
                           rounds, residual)
    wall = time.perf_counter() - began
    return [dataclasses.replace(solution, position_seconds=wall) for solution in solutions]


def _utilities(spec: MatchSpec, state: ScoreState, outcomes: list[float],
               known: dict[ScoreState, tuple[float, float]], partner: float) -> dict:
    """{points: player 0's utility 2·V(after the hand) − 1} for every outcome of the hand."""
    utility = {}
    for points in outcomes:
        after = spec.after_hand(state, points)
        if isinstance(after, float):
            value = after
        elif after.position == state.position:
            value = partner
        else:
            value = known[after][0]
        utility[points] = 2.0 * value - 1.0
    return utility


def _win_probability(utility: float) -> float:
    """Player 0's match-win probability of a utility 2·V − 1."""
    return 0.5 * (utility + 1.0)


def pair_error_bounds(first: tuple[float, float, float], last: tuple[float, float, float],
                      residual: float, steps: int = 200) -> tuple[float, float]:
    """(e_f, e_s), the error bounds of the state solved first and last in a position's final
    round, from each one's (ε, E, q) and the residual (module docstring): `steps` steps of the
    map F from the looser bound's fixed point, each one a bound."""
    (eps_f, reach_f, q_f), (eps_s, reach_s, q_s) = first, last
    denominator = 1.0 - q_f * q_s
    if denominator <= 0.0:
        return math.inf, math.inf
    bound_f = (eps_f + reach_f + q_f * residual + q_f * (eps_s + reach_s)) / denominator
    bound_s = eps_s + reach_s + q_s * bound_f
    for _ in range(steps):
        bound_f = eps_f + reach_f + q_f * max(0.0, residual + bound_s - reach_f)
        bound_s = eps_s + reach_s + q_s * max(0.0, bound_f - reach_s)
    return bound_f, bound_s


def _solutions(spec, states, games, outcomes, hands, utilities, order, known, engine, rounds,
               residual) -> list[StateSolution]:
    """The two StateSolutions with their error bounds (module docstring)."""
    eps, reach, successors, q = [], [], [], []
    for d in (0, 1):
        after = [spec.after_hand(states[d], p) for p in outcomes[d]]
        others = sorted({a for a in after if isinstance(a, ScoreState)
                         and a.position != states[d].position})
        successors.append(others)
        reach.append(max((known[a][1] for a in others), default=0.0))
        eps.append(hands[d].exploitability / 2)
        q.append(engine.max_void_probability(games[d]) if 0.0 in outcomes[d] else 0.0)
    first, last = order
    bound_first, bound_last = pair_error_bounds(
        (eps[first], reach[first], q[first]), (eps[last], reach[last], q[last]), residual)
    bounds = {first: bound_first, last: bound_last}
    return [StateSolution(
        state=states[d], game_string=games[d], p0_win=_win_probability(hands[d].value),
        p0_win_low=_win_probability(hands[d].value_low),
        p0_win_high=_win_probability(hands[d].value_high), exploitability=eps[d],
        error_bound=bounds[d], void_probability_bound=q[d], utility_of_points=utilities[d],
        successors=[s.label for s in successors[d]], rounds=rounds, residual=residual,
        iterations=hands[d].iterations, seconds=hands[d].seconds,
        compile_seconds=hands[d].compile_seconds, hand=hands[d]) for d in (0, 1)]

