"""Numba kernels of the CFR family and of exact best response, over a
`solver.history.tree.GameTree`.

Counterfactual regret minimization (Zinkevich, Johanson, Bowling & Piccione 2007) with alternating
updates: one iteration updates player 0, then player 1 against player 0's new policy, exactly as
OpenSpiel's `_CFRSolverBase(alternating_updates=True)`. Each player update is a forward reach pass
(over the internal nodes of a `solver.history.sweep.Sweep`, in increasing order: parents before
children) of the others' reach, the player's own reach per information state along his previous
information states, a backward value pass (children before parents; player 0's values, the zero-sum
sign applied to regrets) that accumulates the instantaneous counterfactual regrets, and one update
kernel over the player's information states that every variant shares (the row update and regret
matching of `solver._update`, the public engine's too), fed per-iteration scalars by
`solver.schedules`:

    R <- R * (positive_discount if R > 0 else negative_discount) + r ;  R <- max(R, 0) if floor
    S <- S * policy_discount + policy_weight * own_reach * current_policy
    current_policy <- regret matching on R (predictive: on max(R, 0) + r, the last regret as
                      prediction of the next; Farina, Kroer & Sandholm 2021, arXiv:2007.14358)

Regrets are floored at zero after the update for CFR+ (Tammelin 2014, arXiv:1407.5042) and
PCFR+ only. Deviation from OpenSpiel: the average-policy sum is accumulated once per information
state with the player's own reach (equal on all its histories by perfect recall) instead of once
per history; normalised averages are identical.

Best response (exact, for player p against the fixed policy of the other): nodes are banded by the
number of p's own decisions above them. Under perfect recall every history of an information
state lies in one band, and everything below a p-node lies in a deeper band, so the bands are
solved deepest first: sum the counterfactual action values of p's information states of the band,
take the argmax, then evaluate the band's nodes bottom-up. The bands depend on the tree only:
`solver.history.best_response.Workspace` sorts the nodes by band once per player.

All kernels mutate preallocated arrays and return nothing; shapes follow `GameTree`'s and
`Sweep`'s docstrings, `policy` is float64 [num_infoset_actions].
"""
from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.typed import Dict

from solver._update import update_row

CHANCE = -1
TERMINAL = -4


@njit(cache=True)
def others_reach_pass(internal, child_start, actor, prob_base, prob, ones_base, player,
                      reach_others):
    """Forward pass: the others' (opponent x chance) reach of every node, for `player`.

    Takes a `solver.history.sweep.Sweep`'s arrays; `player`'s own edges count as probability one.
    With a `player` who never acts (e.g. -2) it is the total reach (chance x both players).
    """
    reach_others[0] = 1.0
    for i in range(internal.shape[0]):
        start = child_start[i]
        base = ones_base - start if actor[i] == player else prob_base[i]
        reach = reach_others[internal[i]]
        for child in range(start, child_start[i + 1]):
            reach_others[child] = reach * prob[base + child]


@njit(cache=True)
def own_reach_pass(player_infosets, infoset_parent, infoset_parent_action, policy,
                   infoset_own_reach):
    """Each of a player's information states' own reach (his action probabilities above it).

    infoset_parent int32 [m]: his previous information state (-1 at his first decision);
    infoset_parent_action int64 [m]: the action taken there (offset into `policy`). Parents have
    smaller ids (ids follow breadth-first first appearance), so one ascending loop suffices;
    the product is taken root-first, as a per-history reach pass would.
    """
    for infoset in player_infosets:
        parent = infoset_parent[infoset]
        if parent < 0:
            infoset_own_reach[infoset] = 1.0
        else:
            infoset_own_reach[infoset] = (infoset_own_reach[parent]
                                          * policy[infoset_parent_action[infoset]])


@njit(cache=True)
def infoset_parents(child_start, node_player, node_infoset, node_parent, infoset_player,
                    infoset_action_start, infoset_node, infoset_parent, infoset_parent_action):
    """Fill each information state's previous own information state and action (see
    `own_reach_pass`); -1 where the player has not acted before."""
    for infoset in range(infoset_player.shape[0]):
        player = infoset_player[infoset]
        infoset_parent[infoset] = -1
        infoset_parent_action[infoset] = -1
        child = infoset_node[infoset]
        node = node_parent[child]
        while node >= 0:
            if node_player[node] == player:
                above = node_infoset[node]
                infoset_parent[infoset] = above
                infoset_parent_action[infoset] = (infoset_action_start[above] + child
                                                  - child_start[node])
                break
            child = node
            node = node_parent[node]


@njit(cache=True)
def regret_value_pass(internal, child_start, actor, prob_base, prob, player, reach_others,
                      value, instant_regret):
    """Backward pass: player 0's expected value per node; adds `player`'s counterfactual regrets.

    Takes a `solver.history.sweep.Sweep`'s arrays. `value` must hold player 0's utility at terminal
    nodes (written once, never overwritten). instant_regret[a] += reach_others(h) *
    (value_p(h.a) - value_p(h)) over `player`'s histories h, with value_p = +/- value (zero-sum).
    Nodes the others reach with probability zero are pruned (value 0): their value only enters
    sums with a zero factor, so regrets equal those of the full pass.
    """
    sign = 1.0 if player == 0 else -1.0
    for i in range(internal.shape[0] - 1, -1, -1):
        node = internal[i]
        weight = reach_others[node]
        if weight == 0.0:
            value[node] = 0.0
            continue
        start = child_start[i]
        end = child_start[i + 1]
        base = prob_base[i]
        total = 0.0
        for child in range(start, end):
            total += prob[base + child] * value[child]
        value[node] = total
        if actor[i] == player:
            weight *= sign
            for child in range(start, end):
                instant_regret[base + child] += weight * (value[child] - total)


@njit(cache=True, _nrt=False)
def update_player(player_infosets, infoset_action_start, instant_regret, cumulative_regret,
                  cumulative_policy, current_policy, infoset_own_reach, positive_discount,
                  negative_discount, floor_regret, policy_discount, policy_weight, predictive):
    """The one update of every variant over one player's information states
    (`player_infosets` int64, ascending): `solver._update.update_row`, ending with regret
    matching for the new current policy.

    Consumes `instant_regret` (reset to zero); with `predictive` it is also the prediction of
    the next iteration's regret: the new current policy is regret matching on
    max(R + prediction, 0), uniform where no action is positive. (No reference counting: it
    allocates nothing, and the inlined row update would otherwise count a reference to each
    of its arrays per information state.)
    """
    for infoset in player_infosets:
        start = infoset_action_start[infoset]
        update_row(cumulative_regret, cumulative_policy, start, instant_regret, current_policy,
                   start, infoset_action_start[infoset + 1] - start,
                   policy_weight * infoset_own_reach[infoset], positive_discount,
                   negative_discount, floor_regret, policy_discount, True, predictive)
    for a in range(instant_regret.shape[0]):  # only the player's regrets were not zero
        instant_regret[a] = 0.0


@njit(cache=True)
def policy_value_pass(child_start, node_player, node_infoset, edge_prob, utility,
                      infoset_action_start, policy, value):
    """Backward pass: player 0's expected value of every node when both play `policy`."""
    for node in range(node_player.shape[0] - 1, -1, -1):
        actor = node_player[node]
        if actor == TERMINAL:
            value[node] = utility[node]
            continue
        start = child_start[node]
        end = child_start[node + 1]
        total = 0.0
        if actor == CHANCE:
            for child in range(start, end):
                total += edge_prob[child] * value[child]
        else:
            base = infoset_action_start[node_infoset[node]] - start
            for child in range(start, end):
                total += policy[base + child] * value[child]
        value[node] = total


@njit(cache=True)
def player_bands(child_start, node_player, node_infoset, player, band, infoset_band):
    """Each node's band: the number of `player`'s decisions above it (a property of the tree,
    computed once per player). `infoset_band` gets the band of each of his information states.
    """
    band[0] = 0
    for node in range(node_player.shape[0]):
        actor = node_player[node]
        if actor == TERMINAL:
            continue
        child_band = band[node]
        if actor == player:
            infoset_band[node_infoset[node]] = child_band
            child_band += 1
        for child in range(child_start[node], child_start[node + 1]):
            band[child] = child_band


@njit(cache=True)
def best_response_value(child_start, node_player, node_infoset, edge_prob, utility,
                        infoset_action_start, policy, player, band_nodes, band_node_start,
                        band_infosets, band_infoset_start, reach_others, value, action_value,
                        best_action):
    """`player`'s best-response value against `policy` of the other player, at the root.

    `reach_others` float64 [n] must hold the others' reach of every node for `player` under
    `policy` (`others_reach_pass`). Bands (see the module docstring) come sorted: band b's
    nodes are band_nodes[band_node_start[b]:band_node_start[b + 1]] (ascending), its
    information states band_infosets[band_infoset_start[b]:...], both int32. Work arrays: value
    float64 [n]; action_value float64 [num_infoset_actions]; best_action int64 [m] (offset into
    actions).
    """
    sign = 1.0 if player == 0 else -1.0
    action_value[:] = 0.0
    for level in range(band_node_start.shape[0] - 2, -1, -1):
        first, last = band_node_start[level], band_node_start[level + 1]
        for k in range(first, last):
            node = band_nodes[k]
            if node_player[node] != player:
                continue
            start = child_start[node]
            base = infoset_action_start[node_infoset[node]] - start
            weight = reach_others[node]
            for child in range(start, child_start[node + 1]):
                action_value[base + child] += weight * value[child]
        for k in range(band_infoset_start[level], band_infoset_start[level + 1]):
            infoset = band_infosets[k]
            best = infoset_action_start[infoset]
            for a in range(best + 1, infoset_action_start[infoset + 1]):
                if action_value[a] > action_value[best]:
                    best = a
            best_action[infoset] = best
        for k in range(last - 1, first - 1, -1):
            node = band_nodes[k]
            actor = node_player[node]
            if actor == TERMINAL:
                value[node] = sign * utility[node]
                continue
            start = child_start[node]
            end = child_start[node + 1]
            infoset = node_infoset[node]
            if actor == player:
                value[node] = value[start + best_action[infoset] - infoset_action_start[infoset]]
                continue
            total = 0.0
            if actor == CHANCE:
                for child in range(start, end):
                    total += edge_prob[child] * value[child]
            else:
                base = infoset_action_start[infoset] - start
                for child in range(start, end):
                    total += policy[base + child] * value[child]
            value[node] = total
    return value[0]


@njit(cache=True)
def dag_subtree_sizes(dag_child_start, dag_child, size):
    """Number of histories below (and including) each node of a DAG of distinct subtrees.

    size int64 [num_dag_nodes] is filled in place (iterative post-order with an explicit stack).
    """
    size[:] = -1
    stack = np.empty(dag_child_start.shape[0], dtype=np.int64)
    for top in range(size.shape[0]):
        if size[top] >= 0:
            continue
        depth = 0
        stack[0] = top
        while depth >= 0:
            dag = stack[depth]
            pending = False
            total = 1
            for j in range(dag_child_start[dag], dag_child_start[dag + 1]):
                child = dag_child[j]
                if size[child] < 0:
                    depth += 1
                    stack[depth] = child
                    pending = True
                    break
                total += size[child]
            if not pending:
                size[dag] = total
                depth -= 1


@njit(cache=True)
def expand_public_tree(dag_player, dag_utility, dag_child_start, dag_child, dag_action, dag_prob,
                       dag_token, num_tokens, root_start, root_dag, root_knowledge,
                       num_knowledge, node_player, node_infoset, node_parent, node_action,
                       child_start, edge_prob, utility, node_dag, node_view, node_root,
                       infoset_player, infoset_dag, infoset_node):
    """Unroll a DAG of distinct post-deal subtrees into the breadth-first history tree.

    The roots (tree nodes root_start.., one per distinct deal, DAG node `root_dag`) are followed
    level by level. A player's view of the play since the deal is the sequence of his tokens of
    its edges, `dag_token` int32 [edges, 2] (the action of a public player action, an id of
    what a later chance outcome shows him, -1 where it shows him nothing: skipped), all below
    `num_tokens`. His information state is (his information state at the root,
    `root_knowledge` int32 [roots, 2], his view), interned in order of first appearance as in
    the plain traversal; node_view int64 [n, 2] holds the view ids. Chance edges take their
    probability from `dag_prob` (1 on player edges).
    Returns the number of information states, or -(node + 1) where one information state is
    reached with different legal actions (imperfect recall).
    """
    view_ids = Dict.empty(key_type=types.int64, value_type=types.int64)
    infoset_ids = Dict.empty(key_type=types.int64, value_type=types.int64)
    num_views = 1
    num_infosets = 0
    total = node_player.shape[0]
    next_free = root_start + root_dag.shape[0]
    for root in range(root_dag.shape[0]):
        node_dag[root_start + root] = root_dag[root]
        node_view[root_start + root, 0] = 0
        node_view[root_start + root, 1] = 0
        node_root[root_start + root] = root
    for node in range(root_start, total):
        dag = node_dag[node]
        actor = dag_player[dag]
        node_player[node] = actor
        child_start[node] = next_free
        if actor == TERMINAL:
            utility[node] = dag_utility[dag]
            node_infoset[node] = -1
            continue
        if actor == CHANCE:
            node_infoset[node] = -1
        else:
            knowledge = root_knowledge[node_root[node], actor]
            key = (node_view[node, actor] * num_knowledge + knowledge) * 2 + actor
            if key in infoset_ids:
                infoset = infoset_ids[key]
                if not _same_actions(dag_child_start, dag_action, dag, infoset_dag[infoset]):
                    return -(node + 1)
            else:
                infoset = num_infosets
                infoset_ids[key] = infoset
                infoset_player[infoset] = actor
                infoset_dag[infoset] = dag
                infoset_node[infoset] = node
                num_infosets += 1
            node_infoset[node] = infoset
        for j in range(dag_child_start[dag], dag_child_start[dag + 1]):
            child = next_free
            next_free += 1
            action = dag_action[j]
            node_dag[child] = dag_child[j]
            node_parent[child] = node
            node_action[child] = action
            edge_prob[child] = dag_prob[j]
            node_root[child] = node_root[node]
            for player in range(2):
                if player == 1 and actor != CHANCE and node_view[node, 1] == node_view[node, 0]:
                    node_view[child, 1] = node_view[child, 0]  # a public action, same view
                    continue
                token = dag_token[j, player]
                if token < 0:
                    node_view[child, player] = node_view[node, player]
                    continue
                view_key = node_view[node, player] * num_tokens + token
                if view_key in view_ids:
                    view = view_ids[view_key]
                else:
                    view = num_views
                    view_ids[view_key] = view
                    num_views += 1
                node_view[child, player] = view
    child_start[total] = total
    return num_infosets


@njit(cache=True)
def _same_actions(dag_child_start, dag_action, first, second):
    """Whether two DAG nodes have the same legal actions."""
    length = dag_child_start[first + 1] - dag_child_start[first]
    if dag_child_start[second + 1] - dag_child_start[second] != length:
        return False
    for k in range(length):
        if dag_action[dag_child_start[first] + k] != dag_action[dag_child_start[second] + k]:
            return False
    return True


@njit(cache=True)
def cfr_iterations(internal, child_start, actor, prob_base, prob, ones_base, player0_infosets,
                   player1_infosets, infoset_parent, infoset_parent_action, infoset_action_start,
                   cumulative_regret, cumulative_policy, instant_regret, reach_others, value,
                   infoset_own_reach, steps):
    """Run len(steps) alternating-update iterations over a `solver.history.sweep.Sweep`'s arrays.

    steps float64 [iterations, 6]: the fields of `solver.schedules.Step` in order (booleans as
    0/1). The current policy is prob[:num_infoset_actions]; `value` holds player 0's utility at
    terminals (see `regret_value_pass`).
    """
    current_policy = prob[:cumulative_regret.shape[0]]
    for t in range(steps.shape[0]):
        for player in range(2):
            infosets = player0_infosets if player == 0 else player1_infosets
            others_reach_pass(internal, child_start, actor, prob_base, prob, ones_base, player,
                              reach_others)
            own_reach_pass(infosets, infoset_parent, infoset_parent_action, current_policy,
                           infoset_own_reach)
            regret_value_pass(internal, child_start, actor, prob_base, prob, player,
                              reach_others, value, instant_regret)
            update_player(infosets, infoset_action_start, instant_regret, cumulative_regret,
                          cumulative_policy, current_policy, infoset_own_reach, steps[t, 0],
                          steps[t, 1], steps[t, 2] != 0.0, steps[t, 3], steps[t, 4],
                          steps[t, 5] != 0.0)
