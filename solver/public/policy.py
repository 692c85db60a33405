"""A public-tree solution of Truco as an OpenSpiel policy: concrete states of the isomorphic
game located in the sub-games' play trees.

`SolutionPolicy` answers `action_probabilities(state)` for a `games.truco` state (isomorphic,
two players): the vira picks the sub-game (`games.truco.ViraGame`), the actions so far are the
path from the play tree's root (bets as themselves, face-up cards as their class's action,
every covered play as the one covered edge), and the player's entry is his unplayed classes
and the classes he covered, in order (`solver.public.tree`). It lets every OpenSpiel tool (and
the history engine's exact best response, `solver.history.best_response.exploitability`) read
a public-tree solution, which is how the two engines are pinned to each other in the tests.
"""
from __future__ import annotations

from open_spiel.python import policy as openspiel_policy

from games import truco
from solver.public.cfr import PublicSolver
from solver.public.tree import COVERED_EDGE


def locate(state, player: int) -> tuple[int, list[int], tuple]:
    """(vira rank, the play tree's edge actions so far, the player's entry) of a Truco state."""
    rules, record = state.rules, state.record
    edges, covered = [], []
    for seat, action, item in record.history_items:
        if action < truco.CARD_ACTION_BASE and action != truco.PLAY_LAST_COVERED:
            edges.append(action)
            continue
        face_down = (action == truco.PLAY_LAST_COVERED
                     or action >= truco.CARD_ACTION_BASE + rules.num_items)
        edges.append(COVERED_EDGE if face_down else truco.CARD_ACTION_BASE + item)
        if face_down and seat == player:
            covered.append(item)
    return record.vira, edges, (tuple(sorted(record.hands[player])), tuple(covered))


class SolutionPolicy(openspiel_policy.Policy):
    """The average policy of one `PublicSolver` per vira class, as an OpenSpiel policy."""

    def __init__(self, game, solvers: list[PublicSolver]):
        super().__init__(game, [0, 1])
        self.solvers = {solver.part.vira: solver for solver in solvers}

    def action_probabilities(self, state, player_id=None):
        player = state.current_player() if player_id is None else player_id
        vira, edges, entry = locate(state, player)
        return self.solvers[vira].row_probabilities("play", edges, player, entry)
