"""The public-tree engine for the Truc family: one walk over the public states, a vector over
private hands at each, the two players' hands coupled by their deal probabilities (the layout of
poker solvers; Johanson et al. 2011, "Accelerating best response calculation in large extensive
games"; Brown & Sandholm 2019 for the DCFR it runs).

`parts` says which games it takes and splits them into sub-games (`games.tricks.PublicGame`:
Le Truc's card play, one per vira class of two-player Truco); `tree` builds a sub-game's public
play tree; `_kernels` holds its numba passes; `cfr` runs the CFR family on one sub-game and
measures its exploitability exactly, with perfect recall; `redeal` composes Le Truc's redeal
talk around it; `solve` picks the solver and runs the shared loop of `solver.cfr`; `policy`
reads a Truco solution as an OpenSpiel policy.
"""
