"""Strategy analysis: what a solved Truc game does, per decision context and per hand.

`contexts` defines the decision contexts, the per-hand rows and what a bluff is (shared);
`history` and `public` compute them from a history-tree and a public-tree solution; `tables`
and `charts` turn an `Analysis` into CSV / Markdown tables and PNG / SVG charts. `analyze`
picks the side that fits the solution; `truco` does the same for two-player Truco (Truco
Paulista, Trucomano) from a result directory of the public-tree engine, one solved sub-game
per vira class. Import order: contexts <- history, public <- truco <- this package <- tables,
charts (no cycle).
"""
from __future__ import annotations

import os

import pyspiel

from solver.analysis.contexts import Analysis
from solver.analysis.history import analyze_history
from solver.analysis.public import analyze_public
from solver.analysis.truco import analyze_truco, is_truco
from solver.history.policy import AveragePolicy


def analyze(game: pyspiel.Game, policy, tree=None) -> Analysis:
    """Every charted decision context of a solved Le Truc game: `policy` is an `AveragePolicy`
    (history tree, compiled again unless `tree` is given) or a public-tree `PublicPolicy`; of
    a two-player Truco game: `policy` is its result directory (`analyze_truco`)."""
    if is_truco(game) and isinstance(policy, (str, os.PathLike)):
        return analyze_truco(game, policy)
    if isinstance(policy, AveragePolicy):
        return analyze_history(game, policy, tree)
    return analyze_public(game, policy)
