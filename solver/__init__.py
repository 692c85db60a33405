"""tricksolver's solver side: everything that computes on the games (never imported by games/).

Public API: `compile_game` (game -> `GameTree` of flat arrays), `solve` (CFR family ->
`SolveResult`), `exploitability` / `nash_conv` (exact, by best response) and `AveragePolicy`.
"""
from solver.best_response import exploitability, nash_conv
from solver.cfr import SolveResult, SolverState, solve
from solver.policy import AveragePolicy
from solver.tree import GameTree, compile_game

__all__ = ["AveragePolicy", "GameTree", "SolveResult", "SolverState", "compile_game",
           "exploitability", "nash_conv", "solve"]
