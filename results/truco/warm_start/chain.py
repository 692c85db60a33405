"""Does a score state's solve start faster from the regrets of the state solved before it?

An experiment for issue 13 ("warm-start a state from a neighbour's strategy where that saves
iterations"), after regret transfer (Brown & Sandholm, "Regret Transfer and Parameter
Optimization", AAAI 2014): the states of a match whose hands share a public tree differ only
in their terminal utilities, so the regrets of one may start the next. The clean deck's hand
of two cards (`hand_size=2`, small enough to solve a state in seconds) is solved with the
utilities of eleven states of `results/truco/match_clean` (dealer 0) in the grid's order, each
vira class to exploitability 0.002 in utility units (0.001 in match-win probability, the
grid's target), and the DCFR iterations each class needed are printed, with:

    cold      every state from zero regrets (as the grid solves them);
    chained   from the previous state's regrets, its average policy reset to zero, the
              iteration count carried on;
    scaled    the same, the regrets scaled to 30 iterations' worth (regrets x 30 / their
              iteration count) and the count set to 30.

Run from the repository's root: `.venv/bin/python results/truco/warm_start/chain.py MODE`.
"""
import dataclasses
import json
import sys
import time

import numpy as np

import games  # noqa: F401  (registers the python_* games)
from solver.matchgrid.public_engine import PublicEngine

GAME = ("python_truco_paulista(deck=clean,hand_size=2,isomorphic=true,dealer=0,"
        "score0=%d,score1=%d)")
ORDER = ["10-9", "10-8", "9-9", "10-7", "9-8", "10-6", "9-7", "8-8", "10-5", "9-6", "8-7"]
SCALED_ITERATIONS = 30


def utility(state: str) -> dict[float, float]:
    """The grid's terminal utilities of `state` (dealer 0)."""
    with open(f"results/truco/match_clean/states/{state}-d0/summary.json") as file:
        summary = json.load(file)
    return {float(p): float(u) for p, u in summary["match"]["utility_of_points"]}


def regrets_only(hand, mode: str):
    """`hand`'s solution as a warm start: its regrets (scaled in mode "scaled"), no average."""
    def start(state):
        if mode == "scaled":
            return dataclasses.replace(
                state, cumulative_policy=np.zeros_like(state.cumulative_policy),
                cumulative_regret=state.cumulative_regret * (SCALED_ITERATIONS / state.iteration),
                iteration=SCALED_ITERATIONS)
        return dataclasses.replace(state, cumulative_policy=np.zeros_like(state.cumulative_policy))
    parts = {label: dataclasses.replace(part, state=start(part.state))
             for label, part in hand.parts.items() if part.state is not None}
    return dataclasses.replace(hand, parts={**hand.parts, **parts})


def main(mode: str) -> None:
    engine, previous = PublicEngine(), None
    for state in ORDER:
        a, b = (int(score) for score in state.split("-"))
        began = time.perf_counter()
        warm = None if previous is None or mode == "cold" else regrets_only(previous, mode)
        before = {label: part.state.iteration for label, part in
                  (warm.parts.items() if warm else []) if part.state is not None}
        hand = engine.solve(GAME % (a, b), utility(state), target_exploitability=0.002,
                            iterations=100000, keep_state=True, warm_start=warm)
        ran = [part.iterations - before.get(label, 0) for label, part in hand.parts.items()
               if part.same_game_as is None]
        print(state, ran, f"V {hand.value:.5f} {time.perf_counter() - began:.0f} s", flush=True)
        previous = hand


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in ("cold", "chained", "scaled"):
        sys.exit("usage: chain.py cold|chained|scaled")
    main(sys.argv[1])
