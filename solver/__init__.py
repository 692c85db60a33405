"""tricksolver's solver side: everything that computes on the games (never imported by games/).

Packages, one concern each:
  history/   the compiled history tree of any two-player zero-sum game, its numba CFR and
             best-response kernels, the average policy (the exact reference path)
  public/    the public-tree engine for the Truc family (vectors over private hands)
  analysis/  decision contexts, strategy tables, bluffing and strategy charts
  play/      bots, duplicate matches, a person's match against a solution
  matchgrid/ whole-match equilibrium: every score state's hand for the match-win
             probability, by backward induction (serial or on Ray)
  cli/       the `tricksolver` commands
and, shared by the engines: `cfr` (the iteration / evaluation / checkpoint loop), `schedules`
(the CFR variants as per-iteration scalars), `results` (result directories), `compact`
(strategies in steps of 1/255, the form that is committed), `sizes` (game-tree sizes), `bench`
(benchmarks), `cache` (the compiled-tree cache), `registry` (games by name).

Public API: `compile_game` (game -> `GameTree` of flat arrays), `solve` (CFR family ->
`SolveResult`), `exploitability` / `nash_conv` (exact, by best response), `load_result` (a saved
result directory), `load_game` and `AveragePolicy`.
"""
from solver.cfr import SolveResult, SolverState
from solver.history.best_response import exploitability, nash_conv
from solver.history.cfr import solve
from solver.history.policy import AveragePolicy
from solver.history.tree import GameTree, compile_game
from solver.registry import load_game
from solver.results import load_result

__all__ = ["AveragePolicy", "GameTree", "SolveResult", "SolverState", "compile_game",
           "exploitability", "load_game", "load_result", "nash_conv", "solve"]
