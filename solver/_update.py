"""The CFR update of one information state, shared by both engines (`solver.history._kernels`,
`solver.public._kernels` and the public engine's redeal talk in `solver.public.cfr`).

Counterfactual regret minimization (Zinkevich, Johanson, Bowling & Piccione 2007) keeps, per
information state action, a cumulative regret R and an average-policy sum S. Every variant of
`solver.schedules` updates them with the same row update, fed one iteration's `Step` scalars:

    R <- R * (positive_discount if R > 0 else negative_discount) + r ;  R <- max(R, 0) if floor
    S <- S * policy_discount + policy_weight * own_reach * current_policy

(r: the instantaneous counterfactual regrets; discounting by sign is DCFR's, Brown & Sandholm
2019, arXiv:1809.04040; the floor is CFR+'s, Tammelin 2014, arXiv:1407.5042), and the next
current policy is regret matching (Hart & Mas-Colell 2000) on R, or on R + r with r as the
prediction of the next instantaneous regrets (predictive CFR+, Farina, Kroer & Sandholm 2021,
arXiv:2007.14358). Regret matching of average-policy sums (never negative) is their
normalisation: the engines read average policies with the same function.

The engines lay rows out differently (the history engine per information state in flat arrays,
the public engine per public node in a per-depth scratch), so both functions take a row as
(array, first index, width). The history engine, which keeps the current policy, has the row
update end with regret matching in the same sweep (`rematch`: one loop instead of three over
rows of two or three actions, ~10% of its iteration); the public engine computes policies where
it needs them. Both functions are inlined into their callers (`inline="always"`), mutate their
arguments and return nothing.
"""
from __future__ import annotations

from numba import njit


@njit(cache=True, inline="always")
def _normalize(policy, start, width, total):
    """policy[start + i] /= total (i < width), or uniform where total is not positive."""
    if total > 0.0:
        for i in range(width):
            policy[start + i] /= total
    else:
        for i in range(width):
            policy[start + i] = 1.0 / width


@njit(cache=True, inline="always")
def regret_matching(regret, prediction, predictive, start, width, policy, policy_start):
    """policy[policy_start + i] (i < width) = the positive part of regret[start + i] (plus
    prediction[start + i] if `predictive`) over the row's total; uniform where no action is
    positive (as OpenSpiel's `_regret_matching`). regret, prediction, policy: float64 [*]."""
    total = 0.0
    for i in range(width):
        value = regret[start + i]
        if predictive:
            value += prediction[start + i]
        value = max(value, 0.0)
        policy[policy_start + i] = value
        total += value
    _normalize(policy, policy_start, width, total)


@njit(cache=True, inline="always")
def update_row(regret, average, start, instant, policy, local_start, width, weight,
               positive_discount, negative_discount, floor_regret, policy_discount,
               rematch=False, predictive=False):
    """One information state's update (module docstring): regret[start + i] and
    average[start + i] from instant[local_start + i] (the instantaneous regrets) and
    policy[local_start + i] (the current policy), i < width; `weight` = policy_weight x the
    player's own reach. With `rematch`, the policy is then replaced by the next one:
    `regret_matching` of the new regrets (plus the instantaneous ones if `predictive`).
    float64 arrays; floor_regret, rematch, predictive: bool."""
    total = 0.0
    for i in range(width):
        value = regret[start + i]
        value *= positive_discount if value > 0.0 else negative_discount
        value += instant[local_start + i]
        if floor_regret and value < 0.0:
            value = 0.0
        regret[start + i] = value
        average[start + i] = average[start + i] * policy_discount + weight * policy[
            local_start + i]
        if rematch:  # regret_matching's first loop, in this sweep
            if predictive:
                value += instant[local_start + i]
            value = max(value, 0.0)
            policy[local_start + i] = value
            total += value
    if rematch:
        _normalize(policy, local_start, width, total)
