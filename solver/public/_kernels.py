"""Numba passes of the public-tree engine over a `solver.public.tree.PlayTree`.

A value pass walks the public tree depth-first with two vectors, the player p's own reach over
his list and the opponent q's reach over his, and gives p's counterfactual values over his list
(Zinkevich et al. 2007 in the vector form of Johanson et al. 2011). Chance and card removal
live in one coupling matrix `coupling[p's full hand, q's full hand]`: the probability of that
deal (times whatever the branch above contributes). Payoffs depend on the public state only,
so all terminal children of a node are collected by one product with the coupling: at p's
nodes the terminals share q's reach; at q's nodes their payoffs are folded into q's reach
first (linearity). A played card never changes a player's full hand, so values computed in
the parent's lists serve its card children.

The walk is a loop, not a recursion: the tree's nodes (its decision nodes: terminals are
outcomes on the edges into them) are numbered depth-first, so 0, 1, 2, ... is the walk. A
node is *opened* when the walk reaches it (its reaches from its parent's, its policy, its
terminal children) and *closed* when its subtree is done, that is when the walk reaches a node
no deeper than it, or ends (its values, passed up into its parent's). An open node keeps everything in its depth's row of the
preallocated `Scratch`, free again once it is closed: nothing is allocated per node. The
arithmetic is the recursive form's, in the same order, so results are the same bits.

Passes: `value_pass` runs, by its mode, one CFR-family update of p's rows (UPDATE: the `Step`
scalars of `solver.schedules` in the row update of `solver._update`; both policies by regret
matching on the regrets, plus the last instantaneous regrets for predictive variants), p's
best response to q's policy (BEST_RESPONSE: subtrees q never reaches are skipped) or p's values
with both policies from one table (EXPECT, recording every row's value; EXPECT_ACTIONS, every
action's value at p's rows, as BEST_RESPONSE can, whose argmax `best_rows` makes a pure
policy); `update_iterations`
alternates updates over many iterations in one call; `open_root`, `walk_subtrees` and
`close_root` are `value_pass` with the root's subtrees in threads. `joint_pass` carries
both reaches: it accumulates player 0's payoff x both reaches into a [hand0, hand1] matrix
(game values) and records the reach of every row (strategy tables).

Compilation: the passes take the tree and the scratch as two bundles (`Walk`, `Scratch`, named
tuples of arrays), are cached on disk (`cache=True`; numba caches no recursive function), and
the steps of the walk are `inline="always"` helpers compiled into them. The passes allocate
nothing and run without numba's reference counting (`_nrt=False`, the option numba's own
string kernels use): with it, every inlined helper took and dropped a reference to every array
of the bundles it was handed, atomically, which was 60-70% of a pass.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from solver._update import regret_matching, update_row

UPDATE, BEST_RESPONSE, EXPECT, EXPECT_ACTIONS = 0, 1, 2, 3
CURRENT, AVERAGE = 0, 1


class Walk(NamedTuple):
    """A play tree as the passes read it: the arrays of `PlayTree` (see there) with the two
    players' tables joined, and the depth-first walk."""

    node_player: np.ndarray  # int8 [nodes]: the actor
    outcome_payoff: np.ndarray  # float64 [outcomes]: player 0's payoff at each terminal outcome
    child_start: np.ndarray  # int64 [nodes + 1]
    child: np.ndarray  # int32 [edges]: a node, or -1 - outcome at a terminal
    node_nbet: np.ndarray  # int8 [nodes]
    node_card_turn: np.ndarray  # int8 [nodes]: 0, 1 (face up) or 2 (and covered)
    node_list: np.ndarray  # int32 [nodes, 2]
    node_table: np.ndarray  # int64 [nodes]: the actor's first entry in his table
    edge_map: np.ndarray  # int32 [edges, 2]
    list_start: np.ndarray  # int64 [lists + 1]
    entry_hand: np.ndarray  # int32 [entries]
    entry_nd: np.ndarray  # int8 [entries]
    entry_before: np.ndarray  # int32 [entries]
    map_start: np.ndarray  # int64 [maps + 1]
    map_src: np.ndarray  # int32 [pairs]
    map_dst: np.ndarray  # int32 [pairs]
    map_slot: np.ndarray  # int8 [pairs]
    node_row: np.ndarray  # int64 [nodes]
    table_offset: np.ndarray  # int64 [2]: each player's first entry in the joined table
    #                           (player 0's table, then player 1's)
    node_terminal: np.ndarray  # int8 [nodes]: 1 where a child is a terminal
    step_depth: np.ndarray  # int64 [nodes]: the number of nodes above each node
    step_edge: np.ndarray  # int64 [nodes]: the edge into each node (-1 at the root)
    after: np.ndarray  # int64 [nodes]: the node after each node's subtree


class Scratch(NamedTuple):
    """Per-depth work arrays of a pass (depths: the walk's deepest decision node + 1; entries:
    the longest list; width: the most table entries of one node)."""

    node: np.ndarray  # int64 [depths]: the open node at each depth
    edge: np.ndarray  # int64 [depths]: the edge into it
    reach: np.ndarray  # float64 [depths, 2, entries]: each player's reach over his list
    values: np.ndarray  # float64 [depths, entries]: p's values over his list
    gather: np.ndarray  # float64 [depths, entries]: a weight over the other player's list
    #                     (at q's nodes, and in the joint pass, the terminal weight)
    policy: np.ndarray  # float64 [depths x width]: the actor's rows (depth d's from d x width)
    action_values: np.ndarray  # float64 [depths x width]: p's action values, then his
    #                            instantaneous regrets after an update


@njit(cache=True)
def walk_order(child_start, child, node_terminal, step_depth, step_edge, after):
    """Fill `Walk`'s node_terminal (int8 [nodes]), step_depth, step_edge and after (int64
    [nodes]) from the tree's edges (nodes numbered depth-first: the walk is 0, 1, 2, ...)."""
    nodes = child_start.shape[0] - 1
    step_depth[0] = 0
    step_edge[0] = -1
    for n in range(nodes):
        node_terminal[n] = 0
        for e in range(child_start[n], child_start[n + 1]):
            c = child[e]
            if c < 0:
                node_terminal[n] = 1
            else:
                step_depth[c] = step_depth[n] + 1
                step_edge[c] = e
    for n in range(nodes - 1, -1, -1):  # one past the last node of each subtree
        after[n] = n + 1
        for e in range(child_start[n + 1] - 1, child_start[n] - 1, -1):
            if child[e] >= 0:
                after[n] = after[child[e]]
                break


# --- shared steps of the walk ------------------------------------------------------------------
@njit(cache=True, inline="always")
def _list(walk, n, player):
    """(first entry, entries) of `player`'s list at n."""
    lst = walk.node_list[n, player]
    first = walk.list_start[lst]
    return first, walk.list_start[lst + 1] - first


@njit(cache=True, inline="always")
def _row(walk, first, x, nbet, cards):
    """(first column, width) of entry x's row in a node's table; cards: the node's card turn
    (0: no card, 1: face up, 2: face up or covered, as many card columns again)."""
    if cards == 0:
        return x * nbet, nbet
    return (x * nbet + cards * walk.entry_before[first + x],
            nbet + cards * walk.entry_nd[first + x])


@njit(cache=True, inline="always")
def _at(scratch, d):
    """Where depth d's rows start in scratch.policy and scratch.action_values."""
    return d * (scratch.policy.shape[0] // scratch.node.shape[0])


@njit(cache=True, inline="always")
def _node_policy(walk, scratch, n, d, table, prediction):
    """The actor's rows at n into depth d's scratch.policy: regret matching of `table`
    (regrets, plus `prediction` where it is not empty; or average sums: their normalisation)."""
    first, count = _list(walk, n, walk.node_player[n])
    nbet = walk.node_nbet[n]
    cards = walk.node_card_turn[n]
    base = walk.node_table[n] + walk.table_offset[walk.node_player[n]]
    at = _at(scratch, d)
    predictive = prediction.shape[0] > 0
    for x in range(count):
        start, width = _row(walk, first, x, nbet, cards)
        regret_matching(table, prediction, predictive, base + start, width, scratch.policy,
                        at + start)


@njit(cache=True, inline="always")
def _descend(walk, scratch, n, d, actor_reach):
    """n's reaches (each player's, over his list at n) from its parent's, open at depth d - 1:
    the parent's actor's times his policy (only if `actor_reach`; card edges map it and the
    other's list)."""
    parent = scratch.node[d - 1]
    e = scratch.edge[d]
    j = walk.node_player[parent]
    o = 1 - j
    column = e - walk.child_start[parent]
    nbet = walk.node_nbet[parent]
    cards = walk.node_card_turn[parent]
    up = _at(scratch, d - 1)
    first, count = _list(walk, parent, j)
    if column < nbet:
        if actor_reach:
            for x in range(count):
                start, _ = _row(walk, first, x, nbet, cards)
                scratch.reach[d, j, x] = (scratch.reach[d - 1, j, x]
                                          * scratch.policy[up + start + column])
        _, count_o = _list(walk, parent, o)
        for y in range(count_o):
            scratch.reach[d, o, y] = scratch.reach[d - 1, o, y]
        return
    if actor_reach:
        _, size = _list(walk, n, j)
        for x in range(size):
            scratch.reach[d, j, x] = 0.0
        own = walk.edge_map[e, 0]
        for m in range(walk.map_start[own], walk.map_start[own + 1]):
            x = walk.map_src[m]
            start, _ = _row(walk, first, x, nbet, cards)
            scratch.reach[d, j, walk.map_dst[m]] = scratch.reach[d - 1, j, x] * scratch.policy[
                up + start + nbet + walk.map_slot[m]]
    _, size = _list(walk, n, o)
    for y in range(size):
        scratch.reach[d, o, y] = 0.0
    other = walk.edge_map[e, 1]
    for m in range(walk.map_start[other], walk.map_start[other + 1]):
        scratch.reach[d, o, walk.map_dst[m]] = scratch.reach[d - 1, o, walk.map_src[m]]


@njit(cache=True, inline="always")
def _couple(walk, coupling, n, p, d, weight, out, accumulate):
    """out[d, x] (+)= sum_y coupling[hand(x), hand(y)] x weight[d, y], x over p's list at n and
    y over the other's (zero weights skipped); out, weight: per-depth scratch rows."""
    first_p, count_p = _list(walk, n, p)
    first_q, count_q = _list(walk, n, 1 - p)
    for x in range(count_p):
        row = walk.entry_hand[first_p + x]
        total = out[d, x] if accumulate else 0.0
        for y in range(count_q):
            w = weight[d, y]
            if w != 0.0:
                total += coupling[row, walk.entry_hand[first_q + y]] * w
        out[d, x] = total


@njit(cache=True, inline="always")
def _copy_reach(walk, scratch, n, d, player):
    """scratch.gather[d] = the player's reach at n (open at depth d)."""
    _, count = _list(walk, n, player)
    for y in range(count):
        scratch.gather[d, y] = scratch.reach[d, player, y]


@njit(cache=True, inline="always")
def _terminal_weight(walk, scratch, n, d, sign):
    """scratch.gather[d] = sum over n's terminal children of sign x player 0's payoff x the
    actor's probability of the action reaching it, over the actor's list."""
    first, count = _list(walk, n, walk.node_player[n])
    nbet = walk.node_nbet[n]
    cards = walk.node_card_turn[n]
    at = _at(scratch, d)
    for x in range(count):
        scratch.gather[d, x] = 0.0
    for e in range(walk.child_start[n], walk.child_start[n + 1]):
        c = walk.child[e]
        if c >= 0:
            continue
        payoff = sign * walk.outcome_payoff[-1 - c]
        column = e - walk.child_start[n]
        if column < nbet:
            for x in range(count):
                start, _ = _row(walk, first, x, nbet, cards)
                scratch.gather[d, x] += payoff * scratch.policy[at + start + column]
            continue
        own = walk.edge_map[e, 0]
        for m in range(walk.map_start[own], walk.map_start[own + 1]):
            x = walk.map_src[m]
            start, _ = _row(walk, first, x, nbet, cards)
            scratch.gather[d, x] += payoff * scratch.policy[at + start + nbet + walk.map_slot[m]]


# --- value passes ---------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _open_value(walk, scratch, mode, p, n, d, coupling, table, prediction):
    """Open n at depth d: its policy (not p's in a best response) and its terminal children
    (p's nodes: their action values; q's: their weight)."""
    scratch.node[d] = n
    j = walk.node_player[n]
    if not (mode == BEST_RESPONSE and j == p):
        _node_policy(walk, scratch, n, d, table, prediction)
    sign = 1.0 if p == 0 else -1.0
    first, count = _list(walk, n, p)
    if j != p:
        for x in range(count):
            scratch.values[d, x] = 0.0
        _terminal_weight(walk, scratch, n, d, sign)
        return
    nbet = walk.node_nbet[n]
    cards = walk.node_card_turn[n]
    at = _at(scratch, d)
    if mode != UPDATE:  # children q never reaches are skipped: their action values are zero
        for x in range(count):
            start, width = _row(walk, first, x, nbet, cards)
            for a in range(at + start, at + start + width):
                scratch.action_values[a] = 0.0
    if not walk.node_terminal[n]:
        return
    _copy_reach(walk, scratch, n, d, 1 - p)
    _couple(walk, coupling, n, p, d, scratch.gather, scratch.values, False)
    for e in range(walk.child_start[n], walk.child_start[n + 1]):
        c = walk.child[e]
        if c >= 0:
            continue
        payoff = sign * walk.outcome_payoff[-1 - c]
        column = e - walk.child_start[n]
        if column < nbet:
            for x in range(count):
                start, _ = _row(walk, first, x, nbet, cards)
                scratch.action_values[at + start + column] = payoff * scratch.values[d, x]
            continue
        own = walk.edge_map[e, 0]
        for m in range(walk.map_start[own], walk.map_start[own + 1]):
            x = walk.map_src[m]
            start, _ = _row(walk, first, x, nbet, cards)
            scratch.action_values[at + start + nbet + walk.map_slot[m]] = (
                payoff * scratch.values[d, x])


@njit(cache=True, inline="always")
def _close_value(walk, scratch, mode, p, d, coupling, table, prediction, average, steps,
                 record):
    """Close the node open at depth d: p's values over his list into scratch.values[d] (at
    his nodes: expected or best, and the update of his rows; at q's: the terminal part added),
    recorded if `record` is not empty."""
    n = scratch.node[d]
    j = walk.node_player[n]
    first, count = _list(walk, n, p)
    if j != p:
        if walk.node_terminal[n]:
            _, count_q = _list(walk, n, j)
            for y in range(count_q):
                scratch.gather[d, y] *= scratch.reach[d, j, y]
            _couple(walk, coupling, n, p, d, scratch.gather, scratch.values, True)
        return
    nbet = walk.node_nbet[n]
    cards = walk.node_card_turn[n]
    base = walk.node_table[n] + walk.table_offset[walk.node_player[n]]
    at = _at(scratch, d)
    predictive = prediction.shape[0] > 0
    for x in range(count):
        start, width = _row(walk, first, x, nbet, cards)
        if mode == BEST_RESPONSE:
            best = scratch.action_values[at + start]
            for a in range(at + start + 1, at + start + width):
                best = max(best, scratch.action_values[a])
            scratch.values[d, x] = best
            continue
        total = 0.0
        for a in range(at + start, at + start + width):
            total += scratch.policy[a] * scratch.action_values[a]
        scratch.values[d, x] = total
        if mode != UPDATE:
            continue
        for a in range(start, start + width):
            scratch.action_values[at + a] -= total
            if predictive:
                prediction[base + a] = scratch.action_values[at + a]
        update_row(table, average, base + start, scratch.action_values, scratch.policy,
                   at + start, width, steps[4] * scratch.reach[d, p, x], steps[0], steps[1],
                   steps[2] != 0.0, steps[3])
    if record.shape[0] == 0:
        return
    if mode == EXPECT_ACTIONS or mode == BEST_RESPONSE:
        if count == 0:
            return
        end, width = _row(walk, first, count - 1, nbet, cards)
        for a in range(end + width):
            record[walk.node_table[n] + a] = scratch.action_values[at + a]
        return
    row = walk.node_row[n]
    for x in range(count):
        record[row + x] = scratch.values[d, x]


@njit(cache=True, inline="always")
def _ascend(walk, scratch, p, d):
    """Pass the values of the node closed at depth d into its parent's, open at depth d - 1: an
    action value at p's nodes, a sum at q's (card edges through their maps)."""
    parent = scratch.node[d - 1]
    e = scratch.edge[d]
    column = e - walk.child_start[parent]
    nbet = walk.node_nbet[parent]
    first, count = _list(walk, parent, p)
    if walk.node_player[parent] != p:
        if column < nbet:
            for x in range(count):
                scratch.values[d - 1, x] += scratch.values[d, x]
            return
        other = walk.edge_map[e, 1]
        for m in range(walk.map_start[other], walk.map_start[other + 1]):
            scratch.values[d - 1, walk.map_src[m]] += scratch.values[d, walk.map_dst[m]]
        return
    cards = walk.node_card_turn[parent]
    up = _at(scratch, d - 1)
    if column < nbet:
        for x in range(count):
            start, _ = _row(walk, first, x, nbet, cards)
            scratch.action_values[up + start + column] = scratch.values[d, x]
        return
    own = walk.edge_map[e, 0]
    for m in range(walk.map_start[own], walk.map_start[own + 1]):
        x = walk.map_src[m]
        start, _ = _row(walk, first, x, nbet, cards)
        scratch.action_values[up + start + nbet + walk.map_slot[m]] = scratch.values[
            d, walk.map_dst[m]]


@njit(cache=True, inline="always")
def _reached(walk, scratch, n, d, q):
    """Whether q's reach at n (open at depth d) is anywhere non-zero."""
    _, count = _list(walk, n, q)
    for y in range(count):
        if scratch.reach[d, q, y] != 0.0:
            return True
    return False


@njit(cache=True, inline="always")
def _walk_below(walk, scratch, mode, p, coupling, table, prediction, average, steps, record, n,
                end, base):
    """Walk nodes n .. end - 1, whole subtrees below the node open at depth `base` (-1: none,
    the walk of the whole tree): open each, close it once its subtree is done and pass its
    values up into its parent's, except at depth base + 1, whose closed node's values stay in
    scratch.values[base + 1] (a node q never reaches is skipped: scratch.node keeps the
    depth's previous node)."""
    q = 1 - p
    top = base  # the depth of the deepest open node
    while True:
        d = walk.step_depth[n] if n < end else base + 1  # the end closes every node opened
        while top >= d:
            _close_value(walk, scratch, mode, p, top, coupling, table, prediction, average,
                         steps, record)
            if top > base + 1:
                _ascend(walk, scratch, p, top)
            top -= 1
        if n >= end:
            return
        if d > 0:
            scratch.edge[d] = walk.step_edge[n]
            actor = walk.node_player[scratch.node[d - 1]]
            _descend(walk, scratch, n, d, not (mode == BEST_RESPONSE and actor == p))
        if mode != UPDATE and not _reached(walk, scratch, n, d, q):
            n = walk.after[n]  # its values are zero
            continue
        _open_value(walk, scratch, mode, p, n, d, coupling, table, prediction)
        top = d
        n += 1


@njit(cache=True, inline="always")
def _start(scratch, p, reach_p, reach_q, out):
    """Zero `out`, the root's reaches into depth 0, no node open."""
    for x in range(out.shape[0]):
        out[x] = 0.0
    for x in range(reach_p.shape[0]):
        scratch.reach[0, p, x] = reach_p[x]
    for y in range(reach_q.shape[0]):
        scratch.reach[0, 1 - p, y] = reach_q[y]
    scratch.node[0] = -1


@njit(cache=True, inline="always")
def _finish(scratch, out):
    """p's root values into `out` if the root was opened (else they are zero)."""
    if scratch.node[0] == 0:
        for x in range(out.shape[0]):
            out[x] = scratch.values[0, x]


@njit(cache=True, _nrt=False)
def value_pass(walk, scratch, mode, p, reach_p, reach_q, coupling, table, prediction, average,
               steps, record, out):
    """p's counterfactual values over his root list into `out` (float64 [hands]), p and q
    reaching the root with reach_p, reach_q (float64 [hands]) under coupling [p's hands, q's
    hands]. UPDATE: both play regret matching on `table` (the regrets, + `prediction` if not
    empty), and p's rows of `table`, `average` and `prediction` are updated with `steps`
    (float64 [6], the fields of `solver.schedules.Step`). BEST_RESPONSE: p's best action
    against q's regret matching of `table` (average sums: his average policy); with a
    non-empty `record`, every action's best-response value at p's rows (laid out as in
    EXPECT_ACTIONS; their argmax is the best response). EXPECT: both
    play regret matching of `table` (+ `prediction`); with a non-empty `record` (float64 or
    float32 [p's rows]) p's value at each of his nodes goes to record[node_row[node] + entry].
    EXPECT_ACTIONS: the same pass, every action's value recorded instead ([p's table entries]:
    record[node_table[node] + column of the entry's row] is the counterfactual value of that
    action, both playing `table` below). Empty arrays where a mode takes nothing; BEST_RESPONSE
    and the EXPECT modes skip subtrees q never reaches (their values are zero)."""
    _start(scratch, p, reach_p, reach_q, out)
    _walk_below(walk, scratch, mode, p, coupling, table, prediction, average, steps, record, 0,
                walk.node_player.shape[0], -1)
    _finish(scratch, out)


# --- the same pass, the root's subtrees in threads ----------------------------------------------
# `value_pass` in three steps: `open_root` (this thread), `walk_subtrees` (each thread its share
# of the root's decision children, on its own scratch, nogil), `close_root` (the children's
# values passed up in their order, then the root closed). Every row belongs to one subtree, and
# the root sees its children's values in the same order as the one-thread walk: the same bits.
@njit(cache=True, _nrt=False)
def open_root(walk, scratch, mode, p, reach_p, reach_q, coupling, table, prediction, out):
    """Start the pass and open the root (unless q never reaches it: then `out` is zero and
    False is returned)."""
    _start(scratch, p, reach_p, reach_q, out)
    if mode != UPDATE and not _reached(walk, scratch, 0, 0, 1 - p):
        return False
    _open_value(walk, scratch, mode, p, 0, 0, coupling, table, prediction)
    return True


@njit(cache=True, _nrt=False, nogil=True)
def walk_subtrees(walk, root_scratch, scratch, mode, p, coupling, table, prediction, average,
                  steps, record, children, mine, child_values, child_open):
    """The children children[i], i in `mine`, of the root's decision children `children`: each
    subtree walked on `scratch` from the root opened on `root_scratch` (read only), the child's
    values (p's, over his list there) into child_values[i], child_open[i] = 1 unless q never
    reaches it."""
    width = scratch.policy.shape[0] // scratch.node.shape[0]
    scratch.node[0] = root_scratch.node[0]
    for j in range(2):
        for x in range(scratch.reach.shape[2]):
            scratch.reach[0, j, x] = root_scratch.reach[0, j, x]
    for a in range(width):
        scratch.policy[a] = root_scratch.policy[a]
    for i in mine:
        c = children[i]
        scratch.node[1] = -1
        _walk_below(walk, scratch, mode, p, coupling, table, prediction, average, steps,
                    record, c, walk.after[c], 0)
        child_open[i] = 1 if scratch.node[1] == c else 0
        if child_open[i]:
            _, count = _list(walk, c, p)
            for x in range(count):
                child_values[i, x] = scratch.values[1, x]


@njit(cache=True, _nrt=False)
def close_root(walk, scratch, mode, p, coupling, table, prediction, average, steps, record,
               children, child_values, child_open, out):
    """Pass the children's values up into the root in their order, close it, p's root values
    into `out`."""
    for i in range(children.shape[0]):
        if not child_open[i]:
            continue
        c = children[i]
        scratch.node[1] = c
        scratch.edge[1] = walk.step_edge[c]
        _, count = _list(walk, c, p)
        for x in range(count):
            scratch.values[1, x] = child_values[i, x]
        _ascend(walk, scratch, p, 1)
    _close_value(walk, scratch, mode, p, 0, coupling, table, prediction, average, steps, record)
    _finish(scratch, out)


@njit(cache=True, _nrt=False)
def update_iterations(walk, scratch, reach, coupling0, coupling1, regret, prediction, average,
                      steps, out):
    """len(steps) iterations of alternating updates (player 0, then player 1) of a tree played
    on its own (no redeal talk above it): `value_pass` UPDATE with both players reaching the
    root with `reach`, couplingJ: [player J's hands, the other's]; steps float64 [iterations,
    6]; `out` gets player 1's values of the last pass."""
    for t in range(steps.shape[0]):
        value_pass(walk, scratch, UPDATE, 0, reach, reach, coupling0, regret, prediction,
                   average, steps[t], out[:0], out)
        value_pass(walk, scratch, UPDATE, 1, reach, reach, coupling1, regret, prediction,
                   average, steps[t], out[:0], out)


# --- the joint pass -------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _open_joint(walk, scratch, n, d, table, prediction, coupling0, coupling1, own_out,
                chance_out, only):
    """Open n at depth d: its policy; its actor's own reach and chance x opponent weight
    recorded if `own_out` is not empty (and `only` is the actor, or -1)."""
    scratch.node[d] = n
    _node_policy(walk, scratch, n, d, table, prediction)
    j = walk.node_player[n]
    if own_out.shape[1] == 0 or (only >= 0 and j != only):
        return
    at = j if only < 0 else 0
    _, count = _list(walk, n, j)
    row = walk.node_row[n]
    for x in range(count):
        own_out[at, row + x] = scratch.reach[d, j, x]
    _copy_reach(walk, scratch, n, d, 1 - j)
    _couple(walk, coupling0 if j == 0 else coupling1, n, j, d, scratch.gather, scratch.values,
            False)
    for x in range(count):
        chance_out[at, row + x] = scratch.values[d, x]


@njit(cache=True, inline="always")
def _close_joint(walk, scratch, d, out):
    """Close the node open at depth d: out[hand0, hand1] += player 0's payoff at its terminal
    children x both reaches."""
    n = scratch.node[d]
    if out.shape[0] == 0 or not walk.node_terminal[n]:
        return
    j = walk.node_player[n]
    _terminal_weight(walk, scratch, n, d, 1.0)
    first0, count0 = _list(walk, n, 0)
    first1, count1 = _list(walk, n, 1)
    for x in range(count0):
        w0 = scratch.reach[d, 0, x] * scratch.gather[d, x] if j == 0 else scratch.reach[d, 0, x]
        if w0 == 0.0:
            continue
        row = walk.entry_hand[first0 + x]
        for y in range(count1):
            w1 = scratch.reach[d, 1, y] if j == 0 else scratch.reach[d, 1, y] * scratch.gather[d, y]
            out[row, walk.entry_hand[first1 + y]] += w0 * w1


@njit(cache=True, _nrt=False)
def joint_pass(walk, scratch, reach0, reach1, table, prediction, out, coupling0, coupling1,
               own_out, chance_out, only):
    """Both players' reaches (reach0, reach1: float64 [hands] at the root) down the tree, both
    playing regret matching on `table` (regrets, + `prediction` if not empty; or average sums).
    Accumulates out[hand0, hand1] += player 0's payoff x both reaches (if `out` is not
    empty) and, if `own_out` float64 or float32 [2, rows] is not empty, records at each
    decision node, per entry of the actor J, own_out[J, row] = his own reach and
    chance_out[J, row] = the chance x opponent weight of reaching it (couplingJ: player J's
    hands by the other's); with `only` >= 0, that player's rows alone, into [1, his rows]."""
    for x in range(reach0.shape[0]):
        scratch.reach[0, 0, x] = reach0[x]
    for y in range(reach1.shape[0]):
        scratch.reach[0, 1, y] = reach1[y]
    nodes = walk.node_player.shape[0]
    top = -1  # the depth of the deepest open node
    for n in range(nodes + 1):
        d = walk.step_depth[n] if n < nodes else 0  # the end closes every open node
        while top >= d:
            _close_joint(walk, scratch, top, out)
            top -= 1
        if n == nodes:
            return
        if d > 0:
            scratch.edge[d] = walk.step_edge[n]
            _descend(walk, scratch, n, d, True)
        _open_joint(walk, scratch, n, d, table, prediction, coupling0, coupling1, own_out,
                    chance_out, only)
        top = d


@njit(cache=True)
def best_rows(walk, p, action_values, policy):
    """p's pure policy of argmax rows (the first best column on ties) into `policy` ([p's table
    entries], float64 or float32), from `action_values` laid out likewise (a BEST_RESPONSE
    record)."""
    for n in range(walk.node_player.shape[0]):
        if walk.node_player[n] != p:
            continue
        first, count = _list(walk, n, p)
        nbet = walk.node_nbet[n]
        cards = walk.node_card_turn[n]
        base = walk.node_table[n]
        for x in range(count):
            start, width = _row(walk, first, x, nbet, cards)
            best = base + start
            for a in range(base + start, base + start + width):
                policy[a] = 0.0
                if action_values[a] > action_values[best]:
                    best = a
            policy[best] = 1.0


# --- the redeal talk --------------------------------------------------------------------------
@njit(cache=True)
def row_policies(table, prediction, predictive, width, policy):
    """Regret matching of every row of `table` (plus `prediction` if `predictive`): float64
    [rows x width], flat, into `policy` (same shape); average sums give the average policy."""
    for start in range(0, table.shape[0], width):
        regret_matching(table, prediction, predictive, start, width, policy, start)


@njit(cache=True)
def update_rows(regret, average, prediction, predictive, policy, action_values, width, steps):
    """One update of rows played with `policy` (own reach one) whose actions have
    `action_values` (float64 [rows x width], flat; overwritten by the instantaneous regrets,
    which also become the prediction if `predictive`); steps float64 [6] as in `value_pass`."""
    for start in range(0, regret.shape[0], width):
        total = 0.0
        for a in range(start, start + width):
            total += policy[a] * action_values[a]
        for a in range(start, start + width):
            action_values[a] -= total
            if predictive:
                prediction[a] = action_values[a]
        update_row(regret, average, start, action_values, policy, start, width, steps[4],
                   steps[0], steps[1], steps[2] != 0.0, steps[3])
