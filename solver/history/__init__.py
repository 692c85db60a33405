"""The history-tree engine: any two-player zero-sum OpenSpiel game, exactly.

`tree` compiles a game into a `GameTree` of flat arrays (one node per history); `sweep` orders
its nodes for the passes; `_kernels` holds the numba CFR and best-response kernels;
`best_response` measures NashConv / exploitability exactly; `policy` is the average policy on
the tree; `cfr` drives the CFR family (Zinkevich et al. 2007; CFR+, Tammelin 2014; DCFR, Brown &
Sandholm 2019; PCFR+, Farina et al. 2021) through the shared loop of `solver.cfr`. This is the
reference every faster path is checked against.
"""
