"""Drawing an action from a bot's {action: probability} policy at a state."""
from __future__ import annotations

import numpy as np


def draw_action(probabilities: dict[int, float], rng: np.random.Generator) -> int:
    """One action of `probabilities` (weights normalised to sum 1), drawn with `rng`; it
    always consumes one draw, so a seeded bot's later choices do not depend on whether this
    one was forced."""
    actions = list(probabilities)
    weights = np.array([probabilities[a] for a in actions], dtype=float)
    return int(actions[rng.choice(len(actions), p=weights / weights.sum())])
