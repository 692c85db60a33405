"""Numba kernels of the public-tree engine: one recursive pass over a `solver.public.tree.PlayTree`.

`visit` walks the public tree depth-first with two vectors, the updating player p's own reach
over his list and the opponent q's reach over his, and returns p's counterfactual values over
his list (Zinkevich et al. 2007 in the vector form of Johanson et al. 2011). Chance and card
removal live in one coupling matrix `coupling[p's full hand, q's full hand]`: the probability
of that deal (times whatever the branch above contributes). Payoffs depend on the public state
only, so all terminal children of a node are collected by one product with the coupling:
at p's nodes the terminals share q's reach; at q's nodes their payoffs are folded into q's
reach first (linearity). A played card never changes a player's full hand, so values computed
in the parent's lists serve its card children.

Modes: UPDATE runs one CFR-family update of p's rows (the scalars of `solver.schedules.Step`,
policies by regret matching on the stored regrets, as `solver.history._kernels.update_player`),
BEST_RESPONSE takes p's best action against q's average policy, EXPECT evaluates p's values
with both policies from `source` (CURRENT: regret matching; AVERAGE: normalised sums).
`joint_pass` carries both reaches: it accumulates player 0's payoff x both reaches into a
[hand0, hand1] matrix (game values) and records the reach of every row (strategy tables).
"""
from __future__ import annotations

import numpy as np
from numba import njit

UPDATE, BEST_RESPONSE, EXPECT = 0, 1, 2
CURRENT, AVERAGE = 0, 1


@njit(cache=True)
def _node_rows(n, j, node_nbet, node_card_turn, node_list, list_start, entry_nd, entry_before):
    """(first entry, entries, betting columns, card columns?, table size) of j's rows at n."""
    lst = node_list[n, j]
    first = list_start[lst]
    count = list_start[lst + 1] - first
    nbet = node_nbet[n]
    cards = node_card_turn[n]
    size = count * nbet
    if cards and count > 0:
        size += entry_before[first + count - 1] + entry_nd[first + count - 1]
    return first, count, nbet, cards, size


@njit(cache=True)
def _policy(table, base, first, count, nbet, cards, size, entry_nd, entry_before, source):
    """The node's rows as probabilities: regret matching (CURRENT) or normalised sums."""
    pol = np.empty(size)
    for x in range(count):
        start = x * nbet + (entry_before[first + x] if cards else 0)
        width = nbet + (entry_nd[first + x] if cards else 0)
        total = 0.0
        for a in range(start, start + width):
            v = table[base + a]
            if source == CURRENT and v < 0.0:
                v = 0.0
            pol[a] = v
            total += v
        for a in range(start, start + width):
            pol[a] = pol[a] / total if total > 0.0 else 1.0 / width
    return pol


@njit(cache=True)
def _couple(coupling, hands_p, first_p, count_p, hands_q, first_q, count_q, reach_q, out, scale):
    """out[x] += scale * sum_y coupling[hand(x), hand(y)] * reach_q[y]."""
    for y in range(count_q):
        weight = reach_q[y]
        if weight == 0.0:
            continue
        weight *= scale
        column = hands_q[first_q + y]
        for x in range(count_p):
            out[x] += coupling[hands_p[first_p + x], column] * weight


@njit(cache=False)  # numba cannot reload recursive functions from its cache
def visit(n, p, reach_p, reach_q, node_player, node_payoff, child_start, child, node_nbet,
          node_card_turn, node_list, node_table, edge_map, list_start, entry_hand, entry_nd,
          entry_before, map_start, map_src, map_dst, map_slot, node_row, regret0, regret1, avg0,
          avg1, coupling, mode, source, steps, record):
    """p's counterfactual values over his list at decision node n (see the module docstring).

    steps float64 [6]: positive and negative regret discounts, floor (0/1), policy discount,
    policy weight, unused (the fields of `solver.schedules.Step`). With a non-empty `record`,
    p's values at each of his nodes are also written to record[node_row[node] + entry]."""
    q = 1 - p
    j = node_player[n]
    first_p, count_p, _, _, _ = _node_rows(n, p, node_nbet, node_card_turn, node_list,
                                           list_start, entry_nd, entry_before)
    first_q, count_q, _, _, _ = _node_rows(n, q, node_nbet, node_card_turn, node_list,
                                           list_start, entry_nd, entry_before)
    values = np.zeros(count_p)
    if mode != UPDATE:
        live = False
        for y in range(count_q):
            if reach_q[y] != 0.0:
                live = True
                break
        if not live:
            return values
    first, count, nbet, cards, size = _node_rows(n, j, node_nbet, node_card_turn, node_list,
                                                 list_start, entry_nd, entry_before)
    base = node_table[n]
    table = (regret0 if j == 0 else regret1)
    sums = (avg0 if j == 0 else avg1)
    policy_source = source
    if mode == UPDATE or (mode == BEST_RESPONSE and j == p):
        policy_source = CURRENT
    if mode == BEST_RESPONSE and j == q:
        policy_source = AVERAGE
    pol = _policy(sums if policy_source == AVERAGE else table, base, first, count, nbet, cards,
                  size, entry_nd, entry_before, policy_source)
    sign = 1.0 if p == 0 else -1.0
    if j == p:
        action_values = np.zeros(size)
        shared = np.zeros(0)
        for e in range(child_start[n], child_start[n + 1]):
            if node_player[child[e]] < 0:
                shared = np.zeros(count_p)
                _couple(coupling, entry_hand, first_p, count_p, entry_hand, first_q, count_q,
                        reach_q, shared, 1.0)
                break
        for e in range(child_start[n], child_start[n + 1]):
            c = child[e]
            column = e - child_start[n]
            terminal = node_player[c] < 0
            payoff = sign * node_payoff[c]
            if column < nbet:
                if terminal:
                    for x in range(count):
                        action_values[_row(x, nbet, cards, first, entry_before) + column] = \
                            payoff * shared[x]
                    continue
                child_reach = _bet_reach(reach_p, pol, column, count, nbet, cards, first,
                                         entry_before)
                child_values = visit(c, p, child_reach, reach_q, node_player, node_payoff,
                                     child_start, child, node_nbet, node_card_turn, node_list,
                                     node_table, edge_map, list_start, entry_hand, entry_nd,
                                     entry_before, map_start, map_src, map_dst, map_slot,
                                     node_row, regret0, regret1, avg0, avg1, coupling, mode,
                                     source, steps, record)
                for x in range(count):
                    action_values[_row(x, nbet, cards, first, entry_before) + column] = \
                        child_values[x]
                continue
            own_map = edge_map[e, 0]
            if terminal:
                for m in range(map_start[own_map], map_start[own_map + 1]):
                    x = map_src[m]
                    action_values[_row(x, nbet, cards, first, entry_before) + nbet
                                  + map_slot[m]] = payoff * shared[x]
                continue
            child_reach, child_reach_q = _card_reaches(
                c, p, own_map, edge_map[e, 1], reach_p, reach_q, pol, nbet, cards, first,
                entry_before, node_list, list_start, map_start, map_src, map_dst, map_slot)
            child_values = visit(c, p, child_reach, child_reach_q, node_player, node_payoff,
                                 child_start, child, node_nbet, node_card_turn, node_list,
                                 node_table, edge_map, list_start, entry_hand, entry_nd,
                                 entry_before, map_start, map_src, map_dst, map_slot, node_row,
                                 regret0, regret1, avg0, avg1, coupling, mode, source, steps,
                                 record)
            for m in range(map_start[own_map], map_start[own_map + 1]):
                x = map_src[m]
                action_values[_row(x, nbet, cards, first, entry_before) + nbet + map_slot[m]] = \
                    child_values[map_dst[m]]
        _combine(values, action_values, pol, reach_p, count, nbet, cards, first, entry_nd,
                 entry_before, mode, table, sums, base, steps)
        if record.shape[0] > 0:
            record[node_row[n]:node_row[n] + count] = values
        return values
    terminal_weight = np.zeros(count_q)
    any_terminal = False
    for e in range(child_start[n], child_start[n + 1]):
        c = child[e]
        column = e - child_start[n]
        if node_player[c] < 0:
            any_terminal = True
            _add_terminal_weight(terminal_weight, sign * node_payoff[c], pol, column,
                                 edge_map[e, 0], count, nbet, cards, first, entry_before,
                                 map_start, map_src, map_slot)
            continue
        if column < nbet:
            child_reach = _bet_reach(reach_q, pol, column, count, nbet, cards, first,
                                     entry_before)
            child_values = visit(c, p, reach_p, child_reach, node_player, node_payoff,
                                 child_start, child, node_nbet, node_card_turn, node_list,
                                 node_table, edge_map, list_start, entry_hand, entry_nd,
                                 entry_before, map_start, map_src, map_dst, map_slot, node_row,
                                 regret0, regret1, avg0, avg1, coupling, mode, source, steps,
                                 record)
            values += child_values
            continue
        other_map = edge_map[e, 1]
        child_reach, child_reach_p = _card_reaches(
            c, q, edge_map[e, 0], other_map, reach_q, reach_p, pol, nbet, cards, first,
            entry_before, node_list, list_start, map_start, map_src, map_dst, map_slot)
        child_values = visit(c, p, child_reach_p, child_reach, node_player, node_payoff,
                             child_start, child, node_nbet, node_card_turn, node_list,
                             node_table, edge_map, list_start, entry_hand, entry_nd,
                             entry_before, map_start, map_src, map_dst, map_slot, node_row,
                             regret0, regret1, avg0, avg1, coupling, mode, source, steps, record)
        for m in range(map_start[other_map], map_start[other_map + 1]):
            values[map_src[m]] += child_values[map_dst[m]]
    if any_terminal:
        for y in range(count_q):
            terminal_weight[y] *= reach_q[y]
        _couple(coupling, entry_hand, first_p, count_p, entry_hand, first_q, count_q,
                terminal_weight, values, 1.0)
    return values


@njit(cache=True)
def _row(x, nbet, cards, first, entry_before):
    return x * nbet + (entry_before[first + x] if cards else 0)


@njit(cache=True)
def _list_size(n, player, node_list, list_start):
    if node_list[n, 0] < 0:  # a terminal: its lists are the parent's (unused)
        return 0
    lst = node_list[n, player]
    return list_start[lst + 1] - list_start[lst]


@njit(cache=True)
def _bet_reach(reach, pol, column, count, nbet, cards, first, entry_before):
    """The actor's reach after the betting action in `column`."""
    out = np.empty(count)
    for x in range(count):
        out[x] = reach[x] * pol[_row(x, nbet, cards, first, entry_before) + column]
    return out


@njit(cache=True)
def _card_reaches(c, actor, own_map, other_map, reach_actor, reach_other, pol, nbet, cards,
                  first, entry_before, node_list, list_start, map_start, map_src, map_dst,
                  map_slot):
    """Both reaches in child c's lists after the actor plays a card: his entries holding it,
    times its probability; the other's entries still possible."""
    actor_reach = np.zeros(_list_size(c, actor, node_list, list_start))
    for m in range(map_start[own_map], map_start[own_map + 1]):
        x = map_src[m]
        actor_reach[map_dst[m]] = reach_actor[x] * pol[
            _row(x, nbet, cards, first, entry_before) + nbet + map_slot[m]]
    other_reach = np.zeros(_list_size(c, 1 - actor, node_list, list_start))
    for m in range(map_start[other_map], map_start[other_map + 1]):
        other_reach[map_dst[m]] = reach_other[map_src[m]]
    return actor_reach, other_reach


@njit(cache=True)
def _add_terminal_weight(weight, payoff, pol, column, own_map, count, nbet, cards, first,
                         entry_before, map_start, map_src, map_slot):
    """weight[x] += payoff x the actor's probability of the action ending the hand (a betting
    column, or a card through its map)."""
    if column < nbet:
        for x in range(count):
            weight[x] += payoff * pol[_row(x, nbet, cards, first, entry_before) + column]
        return
    for m in range(map_start[own_map], map_start[own_map + 1]):
        x = map_src[m]
        weight[x] += payoff * pol[_row(x, nbet, cards, first, entry_before) + nbet + map_slot[m]]


@njit(cache=True)
def _combine(values, action_values, pol, reach_p, count, nbet, cards, first, entry_nd,
             entry_before, mode, table, sums, base, steps):
    """p's value per row (expected, or the best action's) and, in UPDATE mode, the update."""
    positive_discount, negative_discount = steps[0], steps[1]
    floor_regret = steps[2] != 0.0
    policy_discount, policy_weight = steps[3], steps[4]
    for x in range(count):
        start = x * nbet + (entry_before[first + x] if cards else 0)
        width = nbet + (entry_nd[first + x] if cards else 0)
        if mode == BEST_RESPONSE:
            best = action_values[start]
            for a in range(start + 1, start + width):
                best = max(best, action_values[a])
            values[x] = best
            continue
        total = 0.0
        for a in range(start, start + width):
            total += pol[a] * action_values[a]
        values[x] = total
        if mode != UPDATE:
            continue
        weight = policy_weight * reach_p[x]
        for a in range(start, start + width):
            regret = table[base + a]
            regret *= positive_discount if regret > 0.0 else negative_discount
            regret += action_values[a] - total
            if floor_regret and regret < 0.0:
                regret = 0.0
            table[base + a] = regret
            sums[base + a] = sums[base + a] * policy_discount + weight * pol[a]


@njit(cache=False)  # recursive, as `visit`
def joint_pass(n, reach0, reach1, node_player, node_payoff, child_start, child, node_nbet,
               node_card_turn, node_list, node_table, edge_map, list_start, entry_hand, entry_nd,
               entry_before, map_start, map_src, map_dst, map_slot, node_row, table0, table1,
               source, out, coupling0, coupling1, own_out, chance_out):
    """Both players' reaches down n's subtree, both playing `source` policies from
    `table0`/`table1` (regrets for CURRENT, sums for AVERAGE). Accumulates out[hand0, hand1]
    += player 0's payoff x both reaches (if `out` is not empty) and, if `own_out` [2, rows] is
    not empty, records at each decision node, per entry of the actor J, own_out[J, row] = his
    own reach and chance_out[J, row] = the chance x opponent weight of reaching it
    (couplingJ: player J's hands by the other's)."""
    j = node_player[n]
    first, count, nbet, cards, size = _node_rows(n, j, node_nbet, node_card_turn, node_list,
                                                 list_start, entry_nd, entry_before)
    first0, count0, _, _, _ = _node_rows(n, 0, node_nbet, node_card_turn, node_list,
                                         list_start, entry_nd, entry_before)
    first1, count1, _, _, _ = _node_rows(n, 1, node_nbet, node_card_turn, node_list,
                                         list_start, entry_nd, entry_before)
    pol = _policy(table0 if j == 0 else table1, node_table[n], first, count, nbet, cards, size,
                  entry_nd, entry_before, source)
    reach_j = reach0 if j == 0 else reach1
    reach_o = reach1 if j == 0 else reach0
    if own_out.shape[1] > 0:
        row = node_row[n]
        own_out[j, row:row + count] = reach_j
        weight = np.zeros(count)
        if j == 0:
            _couple(coupling0, entry_hand, first0, count0, entry_hand, first1, count1, reach1,
                    weight, 1.0)
        else:
            _couple(coupling1, entry_hand, first1, count1, entry_hand, first0, count0, reach0,
                    weight, 1.0)
        chance_out[j, row:row + count] = weight
    terminal_weight = np.zeros(count)
    any_terminal = False
    for e in range(child_start[n], child_start[n + 1]):
        c = child[e]
        column = e - child_start[n]
        if node_player[c] < 0:
            any_terminal = True
            _add_terminal_weight(terminal_weight, node_payoff[c], pol, column, edge_map[e, 0],
                                 count, nbet, cards, first, entry_before, map_start, map_src,
                                 map_slot)
            continue
        if column < nbet:
            child_reach = _bet_reach(reach_j, pol, column, count, nbet, cards, first,
                                     entry_before)
            joint_pass(c, child_reach if j == 0 else reach_o, reach_o if j == 0 else child_reach,
                       node_player, node_payoff, child_start, child, node_nbet, node_card_turn,
                       node_list, node_table, edge_map, list_start, entry_hand, entry_nd,
                       entry_before, map_start, map_src, map_dst, map_slot, node_row, table0,
                       table1, source, out, coupling0, coupling1, own_out, chance_out)
            continue
        child_reach, child_other = _card_reaches(
            c, j, edge_map[e, 0], edge_map[e, 1], reach_j, reach_o, pol, nbet, cards, first,
            entry_before, node_list, list_start, map_start, map_src, map_dst, map_slot)
        joint_pass(c, child_reach if j == 0 else child_other,
                   child_other if j == 0 else child_reach, node_player, node_payoff,
                   child_start, child, node_nbet, node_card_turn, node_list, node_table,
                   edge_map, list_start, entry_hand, entry_nd, entry_before, map_start, map_src,
                   map_dst, map_slot, node_row, table0, table1, source, out, coupling0,
                   coupling1, own_out, chance_out)
    if any_terminal and out.shape[0] > 0:
        weighted = np.empty(count)
        for x in range(count):
            weighted[x] = reach_j[x] * terminal_weight[x]
        w0 = weighted if j == 0 else reach0
        w1 = reach1 if j == 0 else weighted
        for x in range(count0):
            if w0[x] == 0.0:
                continue
            row = entry_hand[first0 + x]
            for y in range(count1):
                out[row, entry_hand[first1 + y]] += w0[x] * w1[y]
