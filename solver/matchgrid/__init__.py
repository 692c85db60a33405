"""Match-level solving: the probability of winning the match from every score state.

A Truc-family match is a stochastic game (Shapley 1953) whose states are the scores and the
dealer before a hand and whose stage games are the hands; solved by backward induction from
the highest scores, as backgammon's match-equity tables and baixada-cards/truco-solver's match
table for Truco Paulista are. Each state's hand game is the game with `score0`, `score1` and
`dealer` set, its terminal payoff for player 0 re-weighted from the points it scores to
2·V(next state) − 1 (±1 where the match ends); void hands link the two dealers at one score
into a fixed point.

Modules, one concern each:
  states        score states, their order and the moves between them (`MatchSpec`)
  engine        "solve this hand with these terminal utilities" (`HandEngine`;
                `HistoryEngine` on the compiled history tree)
  public_engine `PublicEngine`: the same on the public tree, one tree per dealer re-scored
                for every state
  blind_hand    Trucomano's blind iron hand, a chance game: its exact value
  fixed_point   one position (both dealers at one score): the void-hand fixed point and
                each state's error bound
  runner        the DAG of positions, serial execution, resuming (`solve_match`)
  ray_executor  the positions as Ray tasks, local or on a cluster
  store         the result directory: states/, match_values.csv, summary.json
  summary       the match's summary.json (per-state figures, totals, how they were obtained)
  chart         the heat map of the match-win probability per dealer
  whole_match   the whole match as one extensive-form game: the check on tiny variants
"""
from solver.matchgrid.engine import HandEngine, HandSolution, HistoryEngine
from solver.matchgrid.fixed_point import Settings, StateSolution, solve_position
from solver.matchgrid.runner import SerialExecutor, solve_match
from solver.matchgrid.states import MatchSpec, ScoreState, parse_label

__all__ = ["HandEngine", "HandSolution", "HistoryEngine", "MatchSpec", "ScoreState",
           "SerialExecutor", "Settings", "StateSolution", "parse_label", "solve_match",
           "solve_position"]
