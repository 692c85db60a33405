"""Strategy analysis of a history-tree result (`solver.history`): every charted decision context
of a solved Le Truc game, from the compiled tree's reach and value passes.

Frequencies, EVs, reach and bet equities are defined in `solver.analysis.contexts`; here they are
summed over the information states of the history tree: reach(I) from a forward pass of the
average policy (chance x both players), values from a backward pass, and each bet's equity from
the histories where the opponent calls it. An action's EV at an information state is the value
of the child histories it leads to, weighted by the reach of the state's histories.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pyspiel

from games import le_truc
from solver.analysis.contexts import (BET_ACCEPTS, Analysis, ContextTable, Decision, HandRow,
                                      Parser, action_label, attach_splits, context_order,
                                      context_table, has_bet_equity, is_le_truc,
                                      require_le_truc)
from solver.history import _kernels
from solver.history.policy import AveragePolicy, policy_array
from solver.history.sweep import Sweep
from solver.history.tree import CHANCE, GameTree, compile_game


NOBODY = -2  # a player id that never acts: others_reach_pass then gives the total reach


@dataclasses.dataclass
class NodeStats:
    """Per-node quantities under one policy: reach (chance x both players), player 0's EV and
    player 0's win probability (void = 1/2); float64 [num_nodes] each."""

    reach: np.ndarray
    value: np.ndarray
    win: np.ndarray


def node_stats(tree: GameTree, policy: np.ndarray) -> NodeStats:
    """Reach, value and win probability of every node when both players follow `policy`."""
    reach = np.empty(tree.num_nodes)
    _kernels.others_reach_pass(*Sweep.of(tree, policy).arrays(), NOBODY, reach)
    value = np.empty(tree.num_nodes)
    _kernels.policy_value_pass(tree.child_start, tree.node_player, tree.node_infoset,
                               tree.edge_prob, tree.utility, tree.infoset_action_start, policy,
                               value)
    win = np.empty(tree.num_nodes)
    win_utility = 0.5 * (1.0 + np.sign(tree.utility))
    _kernels.policy_value_pass(tree.child_start, tree.node_player, tree.node_infoset,
                               tree.edge_prob, win_utility, tree.infoset_action_start, policy,
                               win)
    return NodeStats(reach, value, win)


def deal_values(game: pyspiel.Game, tree: GameTree, stats: NodeStats):
    """Per player: {hand: (probability of being dealt it, EV at the deal)} (first hands)."""
    rules = game.rules
    totals = [{}, {}]
    stack = [0]
    while stack:
        node = stack.pop()
        if tree.node_player[node] == CHANCE:
            stack.extend(range(tree.child_start[node], tree.child_start[node + 1]))
            continue
        hands = _dealt_hands(rules, tree.history(node))
        for player in (0, 1):
            sign = 1.0 if player == 0 else -1.0
            prob, value = totals[player].get(hands[player], (0.0, 0.0))
            totals[player][hands[player]] = (prob + stats.reach[node],
                                             value + stats.reach[node] * sign * stats.value[node])
    return [{hand: (p, v / p if p > 0 else np.nan) for hand, (p, v) in per.items()}
            for per in totals]


def _dealt_hands(rules, deal: list[int]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Both players' hands (ranks strongest first) from the opening chance actions."""
    if rules.isomorphic:
        ranks = [rules.hand_classes[deal[0]], rules.hand_classes[deal[1]]]
    else:
        size = rules.hand_size
        ranks = [[rules.rank_of(c) for c in deal[:size]], [rules.rank_of(c) for c in deal[size:]]]
    return tuple(tuple(rules.deck.rank_name(r) for r in sorted(h, reverse=True)) for h in ranks)


def analyze_history(game: pyspiel.Game, policy: AveragePolicy,
                    tree: GameTree | None = None) -> Analysis:
    """Every charted decision context of a Le Truc game solved on the history tree."""
    require_le_truc(game)
    tree = tree if tree is not None else compile_game(game)
    probabilities = policy_array(tree, policy, game)
    stats = node_stats(tree, probabilities)
    decision_nodes = np.flatnonzero(tree.node_player >= 0)
    infoset_of = tree.node_infoset[decision_nodes]
    infoset_reach = np.bincount(infoset_of, stats.reach[decision_nodes], tree.num_infosets)
    infoset_value = np.bincount(infoset_of, stats.reach[decision_nodes]
                                * stats.value[decision_nodes], tree.num_infosets)
    parser, names = Parser(game), _info_state_names(tree, policy, game)
    groups: dict[str, dict[tuple, list[int]]] = {}
    decisions: dict[int, Decision] = {}
    for infoset in np.flatnonzero(infoset_reach > 0):
        decision = parser.parse(names[infoset])
        if decision.context is not None:
            decisions[int(infoset)] = decision
            groups.setdefault(decision.context, {}).setdefault(decision.hand, []).append(
                int(infoset))
    equity = _bet_equities(game, tree, stats, probabilities, decisions)
    action_value = _action_values(tree, stats, decisions)
    deal = deal_values(game, tree, stats)
    tables = {"infoset_reach": infoset_reach, "infoset_value": infoset_value, "equity": equity,
              "action_value": action_value, "deal": deal}
    contexts = [
        _context_table(game, tree, probabilities, decisions, hands, **tables)
        for _, hands in sorted(groups.items(), key=lambda item: context_order(item[0]))]
    leads: dict[str, dict[str, dict[tuple, list[int]]]] = {}
    for infoset, decision in decisions.items():
        if decision.lead is not None:
            leads.setdefault(decision.context, {}).setdefault(decision.lead, {}).setdefault(
                decision.hand, []).append(infoset)
    ranks = game.rules.deck.ranks
    attach_splits(contexts, {
        key: {lead: _context_table(game, tree, probabilities, decisions, by_lead[lead], **tables)
              for lead in sorted(by_lead, key=ranks.index, reverse=True)}
        for key, by_lead in leads.items()})
    return Analysis(str(game), contexts)


def _action_values(tree, stats, decisions) -> np.ndarray:
    """float64 [infoset actions]: at each charted information state, the acting player's EV of
    each action (reach-weighted value of the children; NaN where never reached)."""
    infosets = np.fromiter(decisions, dtype=np.int64, count=len(decisions))
    charted = np.zeros(tree.num_infosets, dtype=bool)
    charted[infosets] = True
    decision = tree.node_player >= 0
    nodes = np.flatnonzero(decision)
    nodes = nodes[charted[tree.node_infoset[nodes]]]
    counts = tree.child_start[nodes + 1] - tree.child_start[nodes]
    parent = np.repeat(nodes, counts)
    position = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    child = tree.child_start[parent] + position
    slot = tree.infoset_action_start[tree.node_infoset[parent]] + position
    sign = np.where(tree.node_player[parent] == 0, 1.0, -1.0)
    size = int(tree.infoset_action_start[-1])
    numerator = np.bincount(slot, stats.reach[parent] * sign * stats.value[child], size)
    denominator = np.bincount(slot, stats.reach[parent], size)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, numerator / denominator, np.nan)


def _info_state_names(tree: GameTree, policy: AveragePolicy, game: pyspiel.Game) -> list[str]:
    """The tree's information state strings, taken from the policy when laid out alike."""
    same_layout = (policy.names is not None and len(policy.names) == tree.num_infosets
                   and np.array_equal(policy.action_start, tree.infoset_action_start)
                   and np.array_equal(policy.actions, tree.infoset_actions))
    return policy.names if same_layout else tree.info_state_strings(game)


def _context_table(game, tree, probabilities, decisions, hands, infoset_reach, infoset_value,
                   equity, action_value, deal) -> ContextTable:
    """Aggregate one context's information states per hand."""
    first = decisions[next(iter(hands.values()))[0]]
    rows = []
    for hand, infosets in hands.items():
        row = HandRow(hand)
        for infoset in infosets:
            start, end = tree.infoset_action_start[infoset], tree.infoset_action_start[infoset + 1]
            player = decisions[infoset].player
            labels = [action_label(game, decisions[infoset], int(a))
                      for a in tree.infoset_actions[start:end]]
            row.add(player, infoset_reach[infoset],
                    (1.0 if player == 0 else -1.0) * infoset_value[infoset], labels,
                    probabilities[start:end], equity.get(infoset, {}),
                    action_value[start:end])
        rows.append(row)
    return context_table(game, first.context, first.title, rows, deal)


def _bet_equities(game, tree, stats, probabilities, decisions) -> dict[int, dict[str, tuple]]:
    """{infoset: {bet: (sum of weight x win, sum of weight)}} over the infoset's nodes.

    weight = reach of the node x the opponent's probability of calling the bet there.
    """
    result: dict[int, dict[str, tuple]] = {}
    bet_actions = {le_truc.RAISE: "Raise", le_truc.REST: "Rest"}
    nodes_by_infoset = np.argsort(tree.node_infoset, kind="stable")
    bounds = np.searchsorted(tree.node_infoset[nodes_by_infoset],
                             np.arange(tree.num_infosets + 1))
    for infoset, decision in decisions.items():
        start, end = tree.infoset_action_start[infoset], tree.infoset_action_start[infoset + 1]
        actions = list(tree.infoset_actions[start:end])
        if not has_bet_equity(decision.context):
            continue
        for action, bet in bet_actions.items():
            if action in actions:
                nodes = nodes_by_infoset[bounds[infoset]:bounds[infoset + 1]]
                result.setdefault(infoset, {})[bet] = _bet_equity(
                    tree, stats, probabilities, nodes, actions.index(action),
                    BET_ACCEPTS[bet], decision.player)
    return result


def _bet_equity(tree, stats, probabilities, nodes, position, accept, player):
    """(sum of weight x bettor's win probability after the call, sum of weight) over `nodes`."""
    numerator = denominator = 0.0
    for node in nodes:
        answer = tree.child_start[node] + position
        answer_infoset = tree.node_infoset[answer]
        a_start = tree.infoset_action_start[answer_infoset]
        a_actions = list(tree.infoset_actions[a_start:tree.infoset_action_start[answer_infoset + 1]])
        call = a_actions.index(accept)
        weight = stats.reach[node] * probabilities[a_start + call]
        called = tree.child_start[answer] + call
        win = stats.win[called] if player == 0 else 1.0 - stats.win[called]
        numerator += weight * win
        denominator += weight
    return numerator, denominator


def fast_info_state_names(game: pyspiel.Game, tree: GameTree) -> list[str] | None:
    """Information state strings of Le Truc without redeal, composed from the tree's arrays
    (deal, then public actions) instead of replaying one history per state; None for other
    games. Same strings as `LeTrucState.information_state_string` (tests check it)."""
    if not is_le_truc(game) or game.rules.max_redeals > 0:
        return None
    rules = game.rules
    card_name = rules.deck.rank_name if rules.isomorphic else rules.deck.name
    actions, actors, depths = _paths_to(tree, tree.infoset_node.astype(np.int64))
    deal_length = 2 if rules.isomorphic else 2 * rules.hand_size
    player_action = {}
    names = []
    for player, path, path_actors, depth in zip(tree.infoset_player.tolist(), actions.tolist(),
                                                actors.tolist(), depths.tolist()):
        start = len(path) - depth
        deal = path[start:start + deal_length]
        hand = _dealt_hands_items(rules, deal)[player]
        parts = [f"p{player}", "hand " + " ".join(card_name(i) for i in sorted(hand, reverse=True))]
        public = []
        for actor, action in zip(path_actors[start + deal_length:], path[start + deal_length:]):
            if action not in player_action:
                player_action[action] = le_truc.action_name(rules, 0, action, card_name)
            public.append(f"{actor}:{player_action[action]}")
        if public:
            parts.append(", ".join(public))
        names.append(" | ".join(parts))
    return names


def _dealt_hands_items(rules, deal: list[int]) -> list[tuple[int, ...]]:
    """Both players' dealt items (rank classes or card numbers) from the deal's chance actions."""
    if rules.isomorphic:
        return [rules.hand_classes[deal[0]], rules.hand_classes[deal[1]]]
    return [tuple(deal[:rules.hand_size]), tuple(deal[rules.hand_size:])]


def _paths_to(tree: GameTree, nodes: np.ndarray):
    """Actions and actors from the root to each node, int64 [len(nodes), max depth], left-padded
    (root-most action first), and each node's depth, int64 [len(nodes)]."""
    actions, actors = [], []
    current = nodes.copy()
    depths = np.zeros(len(nodes), dtype=np.int64)
    while np.any(current > 0):
        depths += current > 0
        inside = current > 0
        parent = np.where(inside, tree.node_parent[current], 0)
        actions.append(np.where(inside, tree.node_action[current], -1))
        actors.append(np.where(inside, tree.node_player[parent], -1))
        current = parent
    if not actions:
        empty = np.empty((len(nodes), 0), dtype=np.int64)
        return empty, empty, depths
    return np.stack(actions[::-1], axis=1), np.stack(actors[::-1], axis=1), depths


def info_state_reach(game: pyspiel.Game, policy: AveragePolicy,
                     tree: GameTree | None = None) -> dict[str, float]:
    """{information state string: probability that play under `policy` (chance x both
    players) reaches it}, over the compiled history tree of `game`."""
    tree = tree if tree is not None else compile_game(game)
    probabilities = policy_array(tree, policy, game)
    reach = np.empty(tree.num_nodes)
    _kernels.others_reach_pass(*Sweep.of(tree, probabilities).arrays(), NOBODY, reach)
    decision_nodes = np.flatnonzero(tree.node_player >= 0)
    infoset_reach = np.bincount(tree.node_infoset[decision_nodes], reach[decision_nodes],
                                tree.num_infosets)
    names = _info_state_names(tree, policy, game)
    return dict(zip(names, infoset_reach.tolist()))
