"""Inference over the opponent's hand for PIMC: worlds weighted by how likely his plays were.

Plain PIMC samples the opponent's hidden cards uniformly among the deals that fit every card
seen and every void he showed (`solver.play.pimc.sample_world`). A player reads more than that
into the opponent's plays: a card he chose says something about the cards he kept. The
strongest Skat programs weight each sampled world by the probability of the opponent's past
moves in it under a model of how people play (Buro, Long, Furtak & Sturtevant 2009, IJCAI,
"Improving state evaluation, inference, and search in trick-based card games"; Solinas,
Rebstock & Buro 2019, AAAI, arXiv:1903.09604, with a learned model). Here the model is the
Two-Ten-Jack heuristic (`solver.play.two_ten_jack_heuristic.heuristic_action`), a careful
player's rules, trusted with probability 1 - `error` at each of the opponent's decisions
(else he is taken to have played any other legal action, uniformly).

A world is the opponent's receipts (his dealt cards and his draws, each with the trick it
arrived at) drawn as the game's own `resample_from_infostate` draws them
(`games.two_ten_jack.ReceiptConstraints`): from them his hand at each of his past decisions is
known, hence what the model would have played there. `candidates` receipts are drawn, weighted
by the likelihood of his actual plays, and `worlds` of them are drawn again in proportion to
their weights (sampling importance resampling, Rubin 1988), each becoming the world PIMC
solves: his hand now, and the other unseen cards shuffled into the stock.
"""
from __future__ import annotations

import numpy as np

from games.two_ten_jack import ReceiptConstraints, Rules
from solver.play.open_card import cards_of, mask_of
from solver.play.two_ten_jack_heuristic import heuristic_action


def opponent_receipts(view, rng: np.random.Generator) -> list[int]:
    """The card of each of the opponent's receipts (`view.slots` order), consistent with his
    plays and voids, drawn as the game's `resample_from_infostate` draws them."""
    constraints = ReceiptConstraints(
        slots=list(view.slots), plays=list(view.plays),
        voids=[(trick, frozenset(cards_of(mask))) for trick, mask in view.voids],
        unseen=cards_of(view.unseen))
    return constraints.sample(rng.random)


def play_likelihood(view, rules: Rules, receipts: list[int], error: float) -> float:
    """The probability of the opponent's plays so far if he held `receipts` and played the
    heuristic's choice with probability 1 - `error`, any other legal action otherwise."""
    opponent = 1 - view.player
    arrival = dict(zip(receipts, view.slots))
    played_at = {card: trick for trick, card in view.plays}
    likelihood = 1.0
    for index, card in view.plays:
        hand = {c for c in receipts if arrival[c] <= index and played_at.get(c, index) >= index}
        trick = view.tricks[index]
        before = None if trick.leader == opponent else trick
        legal = rules.legal_actions(hand, before)
        if len(legal) == 1:
            continue
        action = rules.lead_action(trick) if before is None else card
        if heuristic_action(rules, legal, before) == action:
            likelihood *= 1.0 - error
        else:
            likelihood *= error / (len(legal) - 1)
    return likelihood


def inferred_worlds(view, rules: Rules, worlds: int, candidates: int, error: float,
                    rng: np.random.Generator) -> list[tuple[int, np.ndarray]]:
    """`worlds` deals of the unseen cards (the opponent's hand as a bit mask, the stock as
    int64 top first), resampled from `candidates` receipts in proportion to the likelihood
    of the opponent's plays (see the module docstring)."""
    drawn = [opponent_receipts(view, rng) for _ in range(candidates)]
    weights = np.array([play_likelihood(view, rules, receipts, error) for receipts in drawn])
    picks = rng.choice(candidates, size=worlds, p=weights / weights.sum())
    played = mask_of(card for _, card in view.plays)
    result = []
    for pick in picks:
        hand = mask_of(drawn[pick]) & ~played
        rest = np.array(cards_of(view.unseen & ~hand), dtype=np.int64)
        result.append((hand, rest[rng.permutation(len(rest))]))
    return result
