"""Exact sizes of any small game by brute force: every history through the OpenSpiel API.

`count_by_traversal(game)` walks the whole tree with an explicit stack, counting histories (all
nodes), terminals, decision nodes, chance nodes, and the distinct
`information_state_string(player)` of each player at his decision nodes. It is the reference
the dynamic programs are tested against.
"""
from __future__ import annotations

import pyspiel

from solver.sizes.common import TreeSize, progress_bar

_PROGRESS_STEP = 4096  # histories between progress bar updates


def count_by_traversal(game: pyspiel.Game, progress: bool = False) -> TreeSize:
    """Every history of a (small) game, walked with an explicit stack (`progress`: a tqdm
    counter of the histories so far on stderr)."""
    histories = terminals = decisions = chance = 0
    infosets = [set() for _ in range(game.num_players())]
    stack = [game.new_initial_state()]
    bar = progress_bar(None, "histories", progress)
    while stack:
        state = stack.pop()
        histories += 1
        if histories % _PROGRESS_STEP == 0:
            bar.update(_PROGRESS_STEP)
        if state.is_terminal():
            terminals += 1
            continue
        if state.is_chance_node():
            chance += 1
            actions = [action for action, _ in state.chance_outcomes()]
        else:
            decisions += 1
            player = state.current_player()
            infosets[player].add(state.information_state_string(player))
            actions = state.legal_actions()
        stack.extend(state.child(action) for action in actions)
    bar.close()
    return TreeSize(str(game), histories, terminals, decisions, chance,
                    tuple(len(seen) for seen in infosets))
