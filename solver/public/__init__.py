"""The public-tree engine for the Truc family: one walk over the public states, a vector over
private hands at each, the two players' hands coupled by their deal probabilities (the layout of
poker solvers; Johanson et al. 2011, "Accelerating best response calculation in large extensive
games"; Brown & Sandholm 2019 for the DCFR it runs).

`tree` builds the public play tree of a hand; `_kernels` holds its numba passes; `cfr` runs the
CFR family on it (through the shared loop of `solver.cfr`) and measures exploitability exactly
in the real game, with perfect recall.
"""
