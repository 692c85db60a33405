"""The CFR variants as per-iteration scalars for the one row update of both engines
(`solver._update`, used by `solver.history._kernels` and `solver.public._kernels`).

At iteration t (from 1) the update computes, per information state action,
    R_t = R_{t-1} * (positive_discount if R_{t-1} > 0 else negative_discount) + r_t,
    R_t = max(R_t, 0) if floor_regret,
    S_t = S_{t-1} * policy_discount + policy_weight * own_reach * policy_t,
and the next policy by regret matching (on max(R_t, 0) + r_t when predictive).

* "cfr": vanilla CFR (Zinkevich et al. 2007); uniform averaging.
* "cfr+": CFR+ (Tammelin 2014, arXiv:1407.5042): regret matching+ (floor at zero) and linear
  averaging with weight t, without the averaging delay, as OpenSpiel's `CFRPlusSolver`.
* "lcfr": linear CFR (Brown & Sandholm 2019, arXiv:1809.04040) = DCFR with alpha=beta=gamma=1.
* "dcfr": discounted CFR (Brown & Sandholm 2019): positive regrets discounted by
  t^alpha/(t^alpha+1), negative ones by t^beta/(t^beta+1), the average by (t/(t+1))^gamma;
  defaults alpha=1.5, beta=0, gamma=2, the paper's recommendation. The paper discounts at the
  end of iteration t; discounting the stored sums at the start of iteration t+1 (as here) gives
  the same policies.
* "pcfr+": predictive CFR+ (Farina, Kroer & Sandholm 2021, arXiv:2007.14358): regret matching+
  on the floored regrets plus the last instantaneous regret as prediction; quadratic averaging
  (weight t^2), the paper's best-performing choice.
"""
from __future__ import annotations

import dataclasses
import functools

import numpy as np

ALGORITHMS = ("cfr", "cfr+", "lcfr", "dcfr", "pcfr+")


@dataclasses.dataclass(frozen=True)
class Step:
    """The update kernel's scalars for one iteration."""

    positive_discount: float
    negative_discount: float
    floor_regret: bool
    policy_discount: float
    policy_weight: float
    predictive: bool


@dataclasses.dataclass(frozen=True)
class Schedule:
    """A CFR variant: `step(t)` gives the kernel scalars of iteration t >= 1."""

    algorithm: str
    alpha: float = 1.5
    beta: float = 0.0
    gamma: float = 2.0

    def step(self, t: int) -> Step:
        """Kernel scalars of iteration t (1-based)."""
        if self.algorithm == "cfr":
            return Step(1.0, 1.0, False, 1.0, 1.0, False)
        if self.algorithm == "cfr+":
            return Step(1.0, 1.0, True, 1.0, float(t), False)
        if self.algorithm == "pcfr+":
            return Step(1.0, 1.0, True, 1.0, float(t) ** 2, True)
        previous = float(t - 1)
        alpha, beta, gamma = (1.0, 1.0, 1.0) if self.algorithm == "lcfr" else (
            self.alpha, self.beta, self.gamma)
        return Step(
            positive_discount=previous**alpha / (previous**alpha + 1.0),
            negative_discount=previous**beta / (previous**beta + 1.0),
            floor_regret=False,
            policy_discount=(previous / t) ** gamma,
            policy_weight=1.0,
            predictive=False,
        )

    def steps(self, first: int, count: int) -> np.ndarray:
        """The scalars of iterations first .. first + count - 1 as the kernel takes them:
        float64 [count, 6], `Step`'s fields in order (booleans as 0/1)."""
        last = first + count - 1
        table = _step_table(self, max(_STEP_TABLE_BLOCK, 1 << (last - 1).bit_length()))
        return table[first - 1:last]


_STEP_TABLE_BLOCK = 1024


@functools.lru_cache(maxsize=16)
def _step_table(schedule: Schedule, size: int) -> np.ndarray:
    """`schedule.steps` of iterations 1 .. size, computed once per (schedule, size)."""
    return np.array([dataclasses.astuple(schedule.step(t)) for t in range(1, size + 1)],
                    dtype=np.float64)


def make_schedule(algorithm: str, alpha: float = 1.5, beta: float = 0.0,
                  gamma: float = 2.0) -> Schedule:
    """The schedule of `algorithm` (one of ALGORITHMS)."""
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; choose one of {', '.join(ALGORITHMS)}")
    return Schedule(algorithm, alpha, beta, gamma)
