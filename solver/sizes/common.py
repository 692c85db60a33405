"""Shared pieces of the size counters: the result type, the 95% half-width of a sampled mean,
polynomials over class counts (the view counters' memo values) and progress bars.

A `TreeSize` holds exact Python integers for counted figures and floats for estimated ones;
`half_widths` names the estimated figures and gives each its 95% confidence half-width (normal
approximation: 1.96 standard errors of the sample mean, scaled like the estimate).
"""
from __future__ import annotations

import dataclasses
import math
import sys

import numpy as np
from tqdm import tqdm

Z_95 = 1.959963984540054  # two-sided 95% quantile of the standard normal
FIGURES = ("histories", "terminals", "decision_nodes", "chance_nodes")


@dataclasses.dataclass(frozen=True)
class TreeSize:
    """Sizes of one game's history tree.

    `infosets` holds the information-state counts of players 0 and 1 (None: not counted).
    `method` says how they were obtained: "exact", "sampled N" (N deals or roots counted
    exactly) or "Knuth N walks". `half_widths` maps each estimated figure ("histories", ...,
    "infosets") to its 95% half-width (a pair for "infosets"); figures not in it are exact.
    `extras` holds other exact figures of the game family (deal classes, chance sequences).
    """

    game: str
    histories: int | float
    terminals: int | float
    decision_nodes: int | float
    chance_nodes: int | float
    infosets: tuple | None
    method: str = "exact"
    half_widths: dict = dataclasses.field(default_factory=dict)
    extras: dict = dataclasses.field(default_factory=dict)

    def as_dict(self) -> dict:
        """The fields as a JSON-ready dict."""
        return dataclasses.asdict(self)


def check_samples(samples: int | None) -> None:
    """ValueError unless `samples` is None (exact) or a sample size of at least 2."""
    if samples is not None and samples < 2:
        raise ValueError(f"samples={samples}: an estimate needs at least 2 samples (its "
                         f"half-width needs a standard deviation)")


def mean_and_half_width(values, scale: int = 1) -> tuple[float, float]:
    """(scale * mean, scale * 95% half-width of the mean) of at least 2 independent samples."""
    values = np.asarray(values, dtype=float)
    scale = float(scale)
    return (scale * float(values.mean()),
            scale * Z_95 * float(values.std(ddof=1)) / math.sqrt(values.size))


def add_shifted(target: dict, source: dict, weight: int, shift: int) -> None:
    """target += weight * source for polynomials {encoded power: coefficient}, every power of
    `source` shifted by `shift` (the encoding of one more factor)."""
    for power, coefficient in source.items():
        target[power + shift] = target.get(power + shift, 0) + weight * coefficient


def progress_bar(items, description: str, enabled: bool):
    """`items` wrapped in a tqdm bar on stderr (shown after two seconds) when `enabled`; with
    `items` None, a bare counter to `update`."""
    return tqdm(items, desc=description, file=sys.stderr, leave=False, disable=not enabled,
                delay=2)
