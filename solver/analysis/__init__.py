"""Strategy analysis: what a solved Truc game does, per decision context and per hand.

`contexts` defines the decision contexts, the per-hand rows and what a bluff is (shared);
`history` and `public` compute them from a history-tree and a public-tree solution; `tables`
and `charts` turn an `Analysis` into CSV / Markdown tables and PNG / SVG charts. `analyze`
picks the side that fits the solution. Import order: contexts <- history, public <- this
package <- tables, charts (no cycle).
"""
from __future__ import annotations

import pyspiel

from solver.analysis.contexts import Analysis
from solver.analysis.history import analyze_history
from solver.analysis.public import analyze_public
from solver.history.policy import AveragePolicy


def analyze(game: pyspiel.Game, policy, tree=None) -> Analysis:
    """Every charted decision context of a solved Le Truc game: `policy` is an `AveragePolicy`
    (history tree, compiled again unless `tree` is given) or a public-tree `PublicPolicy`."""
    if isinstance(policy, AveragePolicy):
        return analyze_history(game, policy, tree)
    return analyze_public(game, policy)
