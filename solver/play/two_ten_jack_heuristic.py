"""The rule-based Two-Ten-Jack player (`make_bot("heuristic", ...)` on python_two_ten_jack).

The heuristic plays Two-Ten-Jack as a careful human would. Second to a trick it knows the
outcome of each legal card and picks the one with the best trick value for itself (+points of
the trick if it wins, -points if the opponent does) minus a small cost for spending strength
(rank, trumps, and a larger cost for the As so that it goes only on a valuable trick): it wins
point cards cheaply and dumps clubs' point cards on tricks the opponent wins. Leading, it
spends its weakest card without points, side suits before trumps; the As (led as trump) and
the point cards come last. It does not count cards or look ahead.

`heuristic_action` is its choice from the rules, the legal actions and the open trick alone,
so that `solver.play.inference` can ask what it would have played with another hand.
"""
from __future__ import annotations

import pyspiel

_SPADE_ACE_COST = 4.0  # the As is worth spending on a trick of 5+ points
_TRUMP_COST = 1.0
_RANK_COST = 0.05  # per rank step: the weakest card that does the job


class HeuristicBot(pyspiel.Bot):
    """A deterministic rule-based Two-Ten-Jack player (see the module docstring)."""

    def __init__(self, game):
        """Checks that `game` is Two-Ten-Jack."""
        pyspiel.Bot.__init__(self)
        if game.get_type().short_name != "python_two_ten_jack":
            raise ValueError(f"the heuristic bot plays python_two_ten_jack only, not {game}")

    def action_probabilities(self, state) -> dict[int, float]:
        """Probability one on `step`'s action."""
        return {self.step(state): 1.0}

    def step(self, state) -> int:
        """The best-scoring legal action; ties go to the lowest action id."""
        return heuristic_action(state.rules, state.legal_actions(), state.open_trick())

    def restart_at(self, state):
        """Stateless: nothing to do."""


def heuristic_action(rules, legal: list[int], trick) -> int:
    """The heuristic's choice among `legal` before `trick`'s second card (None: leading): the
    best-scoring action, ties to the lowest action id. Also the opponent model of
    `solver.play.inference`."""
    score = _lead_score if trick is None else _follow_score
    return max(legal, key=lambda a: (score(rules, trick, a), -a))


def _spend_cost(rules, card: int) -> float:
    """What playing `card` gives up: its rank, more for trumps, most for the As."""
    cost = _RANK_COST * rules.rank(card)
    if card == rules.ace_of_spades:
        return cost + _SPADE_ACE_COST
    return cost + (_TRUMP_COST if rules.is_trump(card) else 0.0)


def _follow_score(rules, trick, action: int) -> float:
    """Trick points for me (negative if the opponent takes them) minus the spending cost."""
    value = rules.points(trick.lead) + rules.points(action)
    if not rules.trick_winner_is_follower(trick.lead, trick.as_spade, action):
        value = -value
    return value - _spend_cost(rules, action)


def _lead_score(rules, trick, action: int) -> float:
    """Leads avoid point cards and strength; the As goes as trump, and last."""
    if action == rules.lead_as_spade:
        return -float("inf")
    card = rules.ace_of_spades if action == rules.lead_as_trump else action
    return -2.0 * abs(rules.points(card)) - _spend_cost(rules, card)
