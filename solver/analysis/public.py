"""Strategy analysis of a public-tree result (`solver.public.cfr`): the decision contexts of
`solver.analysis`, with the same definitions, read from the public tree instead of a history
tree.

Per copy of the play tree (keep, decline, agree) one joint pass records every row's reach (the
actor's own, and chance x the opponent's: `solver.public.cfr.Passes.joint`), and value
passes record every row's counterfactual value in points and in win probability (a void hand
one half). A row's probability of being reached is own x chance-and-opponent; its EV is the
counterfactual value over the chance-and-opponent weight; a bet's equity is the bettor's win
probability at the node after the call, weighted as in `solver.analysis.contexts`. The redeal talk's
rows come from the same branch values (`PublicSolver`). Nodes are put in contexts by
replaying their public actions (`solver.analysis.contexts.classify`).

Action EVs: the points pass of each player records every action's counterfactual value at each
of his rows (the action played there, the average policy everywhere else: `Passes.expectation`
with `actions`), so a row's value is its policy times them and an action's EV is its value over
the row's chance-and-opponent weight: one pass per player gives every row's.
"""
from __future__ import annotations

import numpy as np

from games import le_truc
from solver.analysis.contexts import (
    BET_ACCEPTS,
    Analysis,
    HandRow,
    attach_splits,
    card_label,
    classify,
    context_order,
    context_table,
    has_bet_equity,
    split_tables,
)
from solver.public import _kernels as kernels
from solver.public.cfr import PublicPolicy, PublicSolver
from solver.public.solve import solver_for
from solver.public.tree import is_terminal

BET_ACTIONS = {le_truc.RAISE: "Raise", le_truc.REST: "Rest"}


def analyze_public(game, policy: PublicPolicy) -> Analysis:
    """Every charted decision context of a public-tree solution of a Le Truc game."""
    solver = solver_for(game, policy)
    contexts, titles, leads = node_contexts(game, solver.tree)
    talk = solver.talk_policy(kernels.AVERAGE)
    reaches = solver.branch_reaches(talk)
    couplings = solver.played_couplings(talk)
    rows: dict[str, dict[tuple, HandRow]] = {}
    split_rows: dict = {}
    roots = {}
    for branch in solver.branches:
        stats = BranchStats(solver, branch, reaches[branch], couplings[branch])
        roots[branch] = stats.root_values
        _add_branch_rows(solver, stats, contexts, titles, rows, leads, split_rows)
    deal = deal_values(solver, talk, roots)
    if solver.redeal:
        _add_talk_rows(solver, talk, roots, rows, titles)
    tables = [context_table(game, key, titles[key], list(by_hand.values()), deal)
              for key, by_hand in sorted(rows.items(), key=lambda item: context_order(item[0]))]
    ranks = game.rules.deck.ranks
    attach_splits(tables, split_tables(
        lambda key, lead, hand_rows: context_table(game, key, titles[key], hand_rows, deal),
        split_rows, lambda lead: -ranks.index(lead)))
    return Analysis(str(game), tables)


def node_contexts(game, tree) -> tuple[np.ndarray, dict[str, str], dict[int, str]]:
    """Per node the index of its context key (-1: none) in the returned {key: title}, by
    replaying public actions from the first card turn; and {node: lead card's rank} at the
    follower's nodes."""
    rules = game.rules
    start = le_truc.PublicState(rules)
    start._start_play()
    keys: dict[str, int] = {}
    titles: dict[str, str] = {}
    context = np.full(tree.num_nodes, -1, dtype=np.int32)
    leads: dict[int, str] = {}
    stack = [(0, start)]
    while stack:
        node, public = stack.pop()
        key, title = classify(rules, public, int(tree.node_player[node]))
        if key is not None:
            context[node] = keys.setdefault(key, len(keys))
            titles[key] = title
            if key.startswith("follow") and public.trick:
                leads[node] = rules.deck.rank_name(public.trick[0].strength)
        for edge in range(tree.child_start[node], tree.child_start[node + 1]):
            child = int(tree.child[edge])
            if is_terminal(child):
                continue
            action = int(tree.edge_action[edge])
            after = public.clone()
            if action >= le_truc.CARD_ACTION_BASE:
                after.play(action - le_truc.CARD_ACTION_BASE)
            else:
                after.apply(action)
            stack.append((child, after))
    names = {index: key for key, index in keys.items()}
    return context, {names[i]: titles[names[i]] for i in range(len(names))}, leads


class BranchStats:
    """One copy of the play tree under the average policies, per player (dicts by player):
    per row his own reach (`own`), the chance x opponent weight (`chance`) and his win value
    (`win`: win probability - 1/2, counterfactual); per entry of his table, each action's
    counterfactual value in points (`action_value`, laid out as his table); his values at the
    root, per hand (`root_values`). `players`: whose rows (both, or one at a time where memory
    is short); `dtype`: of the per-row records (float32 halves them at full size)."""

    def __init__(self, solver: PublicSolver, branch: str, reach: tuple, coupling: np.ndarray,
                 players=(0, 1), dtype=np.float64):
        tree = solver.tree
        tables = solver.tables[branch]
        self.average = [tables.average_of(0), tables.average_of(1)]
        self.win, self.action_value, self.root_values = {}, {}, {}
        rows = {player: tree.num_rows(player) for player in players}
        # one joint pass records the players' reaches: both at once, or one player's rows alone
        own = np.zeros((len(players), max(rows.values())), dtype)
        chance = np.zeros_like(own)
        solver.passes.joint(reach[0], reach[1], tables, kernels.AVERAGE, coupling=coupling,
                            own_out=own, chance_out=chance,
                            only=players[0] if len(players) == 1 else -1)
        at = {player: (player if len(players) == 2 else 0) for player in players}
        self.own = {player: own[at[player], :rows[player]] for player in players}
        self.chance = {player: chance[at[player], :rows[player]] for player in players}
        win_payoff = 0.5 * np.sign(tree.outcome_payoff)
        for player in players:
            self.action_value[player] = np.zeros(int(tree.table_size[player]), dtype)
            self.root_values[player] = solver.passes.expectation(
                player, reach[player], reach[1 - player], coupling, tables, kernels.AVERAGE,
                self.action_value[player], actions=True)
            self.win[player] = np.zeros(rows[player], dtype)
            solver.passes.expectation(player, reach[player], reach[1 - player], coupling, tables,
                                      kernels.AVERAGE, self.win[player], win_payoff)

    def row_values(self, player: int, start: int, width: int) -> np.ndarray:
        """float64 [width]: the player's counterfactual value of each action of the row whose
        table entries start at `start`."""
        return self.action_value[player][start:start + width].astype(np.float64)


def _row_layout(tree, node: int, player: int):
    """(first entry, entries, betting columns, card columns?) of the actor's rows at node."""
    lst = int(tree.node_list[node, player])
    first = int(tree.list_start[lst])
    return first, int(tree.list_start[lst + 1]) - first, int(tree.node_nbet[node]), bool(
        tree.node_card_turn[node])


def row_block(tree, node: int, x: int) -> tuple[int, int]:
    """(first table entry, width) of the actor's row of entry x at a decision node."""
    player = int(tree.node_player[node])
    first = int(tree.list_start[int(tree.node_list[node, player])])
    nbet, cards = int(tree.node_nbet[node]), int(tree.node_card_turn[node])
    return (int(tree.node_table[node]) + x * nbet + cards * int(tree.entry_before[first + x]),
            nbet + cards * int(tree.entry_nd[first + x]))


def _add_branch_rows(solver, stats: BranchStats, contexts, titles, rows, leads=None,
                     split_rows=None) -> None:
    """Add one copy's rows of every context node to rows[key][hand] (and, at the follower's
    nodes, to split_rows[key][lead][hand])."""
    tree, rules = solver.tree, solver.rules
    keys = list(titles)
    names = [rules.deck.rank_name(r) for r in range(rules.deck.num_ranks)]
    for node in np.flatnonzero(contexts >= 0):
        key = keys[contexts[node]]
        player = int(tree.node_player[node])
        first, count, nbet, cards = _row_layout(tree, node, player)
        entries = tree.list_entries(int(tree.node_list[node, player]))
        bets = range(tree.child_start[node], tree.child_start[node] + nbet)
        bet_labels = [le_truc.BETTING_ACTION_NAMES[int(tree.edge_action[e])] for e in bets]
        base = int(tree.node_table[node])
        row0 = int(tree.node_row[node])
        average = stats.average[player]
        equity_nodes = _called_nodes(tree, node, nbet) if has_bet_equity(key) else {}
        for x in range(count):
            row = row0 + x
            own = float(stats.own[player][row])
            weight = own * float(stats.chance[player][row])
            if weight <= 0.0:
                continue
            remaining, _ = entries[x]
            width = nbet + (len(set(remaining)) if cards else 0)
            start = base + x * nbet + (int(tree.entry_before[first + x]) if cards else 0)
            block = average[start:start + width]
            total = block.sum()
            probabilities = block / total if total > 0 else np.full(width, 1.0 / width)
            shown = tuple(names[r] for r in sorted(remaining, reverse=True))
            labels = bet_labels + ([card_label(shown, names[r]) for r in sorted(set(remaining))]
                                   if cards else [])
            equity = {}
            for bet, called in equity_nodes.items():
                called_row = int(tree.node_row[called]) + x
                chance = float(stats.chance[player][called_row])
                equity[bet] = (own * (float(stats.win[player][called_row]) + 0.5 * chance),
                               own * chance)
            hand = tuple(names[r] for r in sorted(solver.deals.hands[
                int(tree.entry_hand[first + x])], reverse=True))
            values = stats.row_values(player, start, width)
            action_ev = values / float(stats.chance[player][row])
            targets = [rows.setdefault(key, {})]
            if leads is not None and int(node) in leads:
                targets.append(split_rows.setdefault(key, {}).setdefault(leads[int(node)], {}))
            for target in targets:
                target.setdefault(hand, HandRow(hand)).add(
                    player, weight, own * float(probabilities @ values), labels, probabilities,
                    equity, action_ev)


def _called_nodes(tree, node: int, nbet: int) -> dict[str, int]:
    """{"Raise"/"Rest": the bettor's node after the bet is called} for the bets at a node."""
    found = {}
    for edge in range(tree.child_start[node], tree.child_start[node] + nbet):
        bet = BET_ACTIONS.get(int(tree.edge_action[edge]))
        if bet is None:
            continue
        answer = int(tree.child[edge])
        for reply in range(tree.child_start[answer], tree.child_start[answer + 1]):
            if int(tree.edge_action[reply]) == BET_ACCEPTS[bet]:
                found[bet] = int(tree.child[reply])
    return found


def deal_values(solver: PublicSolver, talk: np.ndarray, roots: dict) -> list[dict]:
    """Per player {first hand (ranks strongest first): (probability, EV at the deal)}."""
    names = [solver.rules.deck.rank_name(r) for r in range(solver.rules.deck.num_ranks)]
    pair = solver.deals.first_hands()
    result = []
    for player in (0, 1):
        probability = pair.sum(axis=1 - player)
        counterfactual = _deal_counterfactual(solver, talk, roots, player)
        result.append({
            tuple(names[r] for r in sorted(hand, reverse=True)): (
                float(p), float(v / p) if p > 0 else np.nan)
            for hand, p, v in zip(solver.deals.hands, probability, counterfactual)})
    return result


def _deal_counterfactual(solver, talk, roots, player: int) -> np.ndarray:
    """The player's counterfactual value of being dealt each first hand."""
    if not solver.redeal:
        return roots[solver.branches[0]][player]
    agree = solver.talk_value_of_agree(player, talk, kernels.AVERAGE)
    if player == solver.non_dealer:
        return talk[0, :, 0] * roots["keep"][player] + talk[0, :, 1] * (
            roots["decline"][player] + agree)
    return roots["keep"][player] + talk[1, :, 0] * agree + talk[1, :, 1] * roots[
        "decline"][player]


def talk_values(solver, talk, roots) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per row of the redeal talk (0: the non-dealer's ask, 1: the dealer's answer), per first
    hand of its player: the probability of the decision (chance, and the non-dealer's asking
    for the dealer's answer), the player's counterfactual value there, and each action's
    (float64 [hands, 2])."""
    pair = solver.deals.first_hands()
    nd, d = solver.non_dealer, solver.dealer
    agree_value = solver.talk_value_of_agree(d, talk, kernels.AVERAGE)
    ask_agree = solver.talk_value_of_agree(nd, talk, kernels.AVERAGE)
    asked = (pair.T if d == 1 else pair) @ talk[0, :, 1]  # chance x non-dealer asking, per hand of d
    ask = np.stack([roots["keep"][nd], roots["decline"][nd] + ask_agree], axis=1)
    answer = np.stack([agree_value, roots["decline"][d]], axis=1)
    return [(pair.sum(axis=1 - nd), np.sum(talk[0] * ask, axis=1), ask),
            (asked, np.sum(talk[1] * answer, axis=1), answer)]


def _add_talk_rows(solver, talk, roots, rows, titles) -> None:
    """The redeal talk's two contexts: the non-dealer's ask, the dealer's answer."""
    rules = solver.rules
    public = le_truc.PublicState(rules)
    public.hands_dealt()
    names = [rules.deck.rank_name(r) for r in range(rules.deck.num_ranks)]
    labels = (["Keep", "Ask redeal"], ["Agree", "Decline"])
    for row, (weights, values, actions) in enumerate(talk_values(solver, talk, roots)):
        player = solver.talk_seat(row)
        key, title = classify(rules, public, player)
        titles[key] = title
        for i, hand_ranks in enumerate(solver.deals.hands):
            hand = tuple(names[r] for r in sorted(hand_ranks, reverse=True))
            if weights[i] <= 0.0:
                continue
            rows.setdefault(key, {}).setdefault(hand, HandRow(hand)).add(
                player, weights[i], values[i], labels[row], talk[row, i], {},
                actions[i] / weights[i])
        public.apply(le_truc.ASK_REDEAL)
