"""One state's first decision hand by hand (`solver.matchgrid.score_strategy` reads it from
the state's policy; `solver.matchgrid.store` writes it beside the state's summary as
`first_decision_by_hand.csv`: part, hand, share, one column per action)."""
from __future__ import annotations

import csv
import dataclasses
import io

BY_HAND_FILE = "first_decision_by_hand.csv"
PLAY = "Lead a card"  # every face-up card of the first turn, summed


@dataclasses.dataclass(frozen=True)
class HandDecision:
    """The first decision of one hand: its sub-game (`vira K`; "" for a hand of one), the
    hand as the player sees it (strongest class first), its share of the first decisions
    taken (summing to 1 over the whole game's hands; after Le Truc's redeal a hand may take
    it twice) and {action: probability}."""

    part: str
    hand: str
    probability: float
    frequencies: dict[str, float]



def by_hand_csv(rows: list[HandDecision]) -> str:
    """A state's `first_decision_by_hand.csv`: part, hand, share, one column per action."""
    actions = action_order({name for row in rows for name in row.frequencies})
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["part", "hand", "share", *actions])
    for row in rows:
        writer.writerow([row.part, row.hand, f"{row.probability:.9f}",
                         *(f"{row.frequencies.get(a, 0.0):.6f}" for a in actions)])
    return buffer.getvalue()


def action_order(actions) -> list[str]:
    """Betting actions alphabetically, then the card play."""
    return sorted(actions, key=lambda name: (name == PLAY, name))
