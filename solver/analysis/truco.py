"""Two-player Truco strategy analysis (Truco Paulista, Trucomano) of a public-tree solution.

A Truco result directory (`tricksolver solve ... --engine public --out DIR`) holds one solved
sub-game per vira class (`DIR/vira_7/`, ...: the vira is public, so each is independent,
games/RULES.md TP-4, TP-5). For each, `analyze_truco_parts` computes the decision contexts of
`solver.analysis.contexts` with the same definitions as Le Truc's public-tree analysis
(`solver.analysis.public`), read from the sub-game's play tree (`solver.public.tree`):

* per row (public node x private state), one joint pass (`solver.public.cfr.Passes.joint`)
  gives the actor's own reach and the chance x opponent weight; value passes
  (`Passes.expectation`) give the row's counterfactual value in points and in win probability
  (a hand nobody scores counts one half) (`solver.analysis.public.BranchStats`);
* frequency of an action in a context, for a hand: sum_rows reach x pi(a | row) / sum_rows reach,
  reach = own x chance-and-opponent (the probability of reaching the row given the deal);
* EV: the acting player's expected points from the context on, given the hand (counterfactual
  value over the chance-and-opponent weight, averaged with the same reach weights);
* reached: the probability of reaching the context at all given the hand was dealt (hands
  reaching it less than `MIN_HAND_REACH` of the time are not listed: what the average policy
  holds there is left over from early iterations);
* a `Raise`'s *equity against the calling range*: the raiser's probability of winning the hand
  at the node after `Accept`, play continuing under the solved strategy (TP-10). Equity >= 50%
  is a value raise, below a bluff. Facing a raise the answers are `Accept` (call), `Raise`
  (raise back) and `Run`.

Contexts (keys as Le Truc's where the question is the same, so that `solver.analysis.charts`
and `tables` draw them; the mão is the non-dealer, the pé the dealer):
`eleven` (the side at eleven: Play 11 / Run 11, TP-11), `open` (the mão's first turn: truco or
which card), `open_S` (his first card once a raise to S was accepted), `follow_S` (the pé's first
card turn after seeing the lead, stake S), `nondealer_answer_raise_V` / `dealer_answer_raise_V`
(answering a raise to V: truco 3, 6, 9, 12), `nondealer_cover_R` / `dealer_cover_R` (a card turn
of round R where the player may play face down, TP-7, before any raise at that turn) and
`..._cover_after_bet_R` (the same turn once a raise made there was accepted: every context is
then met at most once per hand, so `reached` is a probability). Card columns name the card by
its place in the player's unplayed cards (`Play high`, `Play low`, `Play` for the last card)
and the covered plays likewise (`Play high covered`, ..., `Play covered`).

Each action's EV and the "indifferent" / "rarely reached" flags are Le Truc's
(`solver.analysis.contexts`, `solver.analysis.public.action_values`); the pé's `follow_S`
contexts are also split by the lead card's class (`ContextTable.splits`).

Hands are shown as the player sees them, `vira 7 | Qc 3` (the vira's rank, then the hand
strongest first; a manilha carries its suit, TP-5) and ordered by the acting player's
equilibrium EV at the deal (the expected points of being dealt that hand with that vira).
Charts are drawn per vira class (each a small independent sub-game, looked up by the vira on
the table); `analyze_truco` also joins the classes into one table per context (every vira's
hands in one list, weighted by the vira's probability) for the tables.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from games import truco
from solver.analysis.contexts import (Analysis, ContextTable, HandRow, action_evs,
                                      attach_splits, context_order, indifferent_shares)
from solver.analysis.public import BranchStats
from solver.public.parts import part_named, public_parts
from solver.public.solve import solver_for
from solver.public.tree import COVERED_EDGE, is_terminal
from solver.registry import load_game
from solver.results import load_result, part_directory, read_summary

TRUCO_GAMES = ("python_truco_paulista", "python_trucomano")
RAISE_NAMES = {3: "truco (3)", 6: "6", 9: "9", 12: "12"}
POSITIONS = {1: ("Play",), 2: ("Play high", "Play low"),
             3: ("Play high", "Play middle", "Play low")}
CARD_COLUMNS = ("Play high", "Play middle", "Play low", "Play",
                "Play high covered", "Play middle covered", "Play low covered", "Play covered")
BETTING_COLUMNS = ("Raise", "Accept", "Run", "Play 11", "Run 11")
MIN_HAND_REACH = 1e-3  # a hand reaching a context less often than this is not listed there


def is_truco(game) -> bool:
    """Whether `game` is (a variant of) two-player Truco Paulista or Trucomano."""
    return game.get_type().short_name in TRUCO_GAMES


@dataclasses.dataclass
class PartRows:
    """One vira class's per-hand sums: rows[key][hand label] (`HandRow`), titles[key], and per
    player {hand label: (deal probability given the vira, EV at the deal)}; strength[label]: a
    sort key (strongest class first); the class's exploitability (as saved) and player 0's
    value (points per hand, given the vira)."""

    part: object
    rows: dict
    titles: dict
    deal: list
    strength: dict
    exploitability: float
    game_value: float
    split_rows: dict = dataclasses.field(default_factory=dict)  # [key][lead][hand label]
    lead_strength: dict = dataclasses.field(default_factory=dict)  # lead label: sort key


def analyze_truco(game, directory, parts: list[PartRows] | None = None) -> Analysis:
    """Every charted decision context of a solved two-player Truco game, all vira classes in
    one table per context (rows `vira 7 | Qc 3`, weighted by the vira's probability; a
    context's probability is per hand of the whole game). `directory`: the result directory
    of `tricksolver solve GAME --engine public` (one `vira_X/` per vira class); `parts`: its
    `truco_rows`, if already computed."""
    return _join(game, parts if parts is not None else truco_rows(game, directory))


def analyze_truco_parts(game, directory, parts: list[PartRows] | None = None
                        ) -> dict[str, Analysis]:
    """{vira label: the Analysis of that vira class alone} (probabilities given the vira)."""
    parts = parts if parts is not None else truco_rows(game, directory)
    return {rows.part.label: _join(game, [rows], scale=False) for rows in parts}


def truco_rows(game, directory, labels: list[str] | None = None) -> list[PartRows]:
    """Every vira class's per-hand sums (`part_rows`), in vira order; with `labels` (e.g.
    ["vira K"]) only those classes' (ValueError, in one line, for a label the game lacks)."""
    chosen = {part_named(game, label).label for label in labels} if labels else None
    return [part_rows(game, part, directory) for part in public_parts(game)
            if chosen is None or part.label in chosen]


def part_rows(game, part, directory) -> PartRows:
    """The per-hand sums of every context of one vira class, from its saved solution."""
    if not is_truco(game):
        raise ValueError(f"the Truco analysis reads python_truco_paulista or python_trucomano "
                         f"results; this one is for {game}")
    saved = load_result(part_directory(directory, part))
    solver = solver_for(game, saved.policy)
    exploitability = saved.recorded_exploitability  # the compact strategy's, if it was read
    return rows_of_solver(solver, np.nan if exploitability is None else exploitability)


def rows_of_solver(solver, exploitability: float = np.nan) -> PartRows:
    """`PartRows` of a `PublicSolver` of one vira class holding its average policy."""
    part, tree = solver.part, solver.tree
    contexts, titles, leads = node_contexts(part, tree)
    ones = np.ones(len(solver.deals.hands))
    coupling = solver.deals.first_hands()
    stats = BranchStats(solver, "play", (ones, ones), coupling, np.flatnonzero(contexts >= 0))
    labels = [hand_label(part, hand) for hand in solver.deals.hands]
    strength = {label: tuple(-c for c in sorted(hand, reverse=True))
                for label, hand in zip(labels, solver.deals.hands)}
    deal = []
    for player in (0, 1):
        probability = coupling.sum(axis=1 - player)
        values = stats.root_values[player]
        deal.append({label: (float(p), float(v / p) if p > 0 else np.nan)
                     for label, p, v in zip(labels, probability, values)})
    rows: dict[str, dict[str, HandRow]] = {}
    split_rows: dict = {}
    _add_rows(solver, stats, contexts, list(titles), labels, rows, leads, split_rows)
    lead_strength = {part.rules.class_name(c, part.vira): -c for c in set(leads.values())}
    return PartRows(part, rows, titles, deal, strength, float(exploitability),
                    float(stats.root_values[0].sum()),
                    {key: {part.rules.class_name(c, part.vira): by_hand
                           for c, by_hand in by_lead.items()}
                     for key, by_lead in split_rows.items()}, lead_strength)


def hand_label(part, hand) -> str:
    """`vira 7 | Qc 3`: the vira's rank and the hand's classes, strongest first."""
    names = [part.rules.class_name(c, part.vira) for c in sorted(hand, reverse=True)]
    return f"{part.label} | {' '.join(names)}"


# --- contexts -----------------------------------------------------------------------------------

def classify(rules: truco.Rules, public: truco.PublicState, base_stake: int, player: int
             ) -> tuple[str | None, str | None]:
    """Context key and title of the decision in `public` (player to act: `player`), or
    (None, None) outside the charted contexts (module docstring)."""
    if public.phase == truco.Phase.ELEVEN:
        return "eleven", "Hand of eleven: play it (worth 3) or run"
    seat, who = ("dealer", "Pé (dealer)") if player == rules.dealer else ("nondealer", "Mão")
    if public.pending:
        value = public.proposal()
        return (f"{seat}_answer_raise_{value}",
                f"{who} answering a raise to {RAISE_NAMES.get(value, value)}")
    if not public.is_card_turn():
        return None, None
    plays = len(public.round_plays)
    if public.round_number() == 1:
        if plays == 0 and player == rules.mao:
            if public.stake == base_stake and not public.bet_this_turn:
                return "open", "Mão's first turn: raise or which card"
            return f"open_{public.stake}", f"Mão's first card (stake {public.stake})"
        if plays == 1 and player == rules.dealer:
            return (f"follow_{public.stake}",
                    f"Pé's first card turn, after the lead (stake {public.stake})")
        return None, None
    if public.may_cover():
        number = public.round_number()
        if public.bet_this_turn:
            return (f"{seat}_cover_after_bet_{number}",
                    f"{who}'s card in round {number}, after a raise this turn (may cover)")
        return f"{seat}_cover_{number}", f"{who}'s card turn in round {number} (may cover)"
    return None, None


def node_contexts(part, tree) -> tuple[np.ndarray, dict[str, str], dict[int, int]]:
    """Per node the index of its context key (-1: none) in the returned {key: title}, by
    replaying the public actions from the sub-game's root; and {node: the lead card's class}
    at the pé's `follow_S` nodes (a lead played face up)."""
    rules = part.rules
    root = part.root()
    keys: dict[str, int] = {}
    titles: dict[str, str] = {}
    leads: dict[int, int] = {}
    context = np.full(tree.num_nodes, -1, dtype=np.int32)
    stack = [(0, root, None)]
    while stack:
        node, public, card = stack.pop()
        key, title = classify(rules, public, root.stake, int(tree.node_player[node]))
        if key is not None:
            context[node] = keys.setdefault(key, len(keys))
            titles[key] = title
            if key.startswith("follow") and card is not None:
                leads[node] = card
        for edge in range(tree.child_start[node], tree.child_start[node + 1]):
            child = int(tree.child[edge])
            if is_terminal(child):
                continue
            action = int(tree.edge_action[edge])
            after = public.clone()
            played = card
            if action == COVERED_EDGE:
                part.play_card(after, 0, True)
                played = None
            elif action >= truco.CARD_ACTION_BASE:
                part.play_card(after, action - truco.CARD_ACTION_BASE, False)
                played = action - truco.CARD_ACTION_BASE
            else:
                after.apply(action)
            stack.append((child, after, played))
    names = {index: key for key, index in keys.items()}
    return context, {names[i]: titles[names[i]] for i in range(len(names))}, leads


def card_labels(unplayed: tuple[int, ...], card_turn: int) -> list[str]:
    """Labels of a row's card columns: each distinct unplayed class ascending (face up, then,
    if card_turn is 2, covered), named by its place among the unplayed cards."""
    places = POSITIONS[len(unplayed)]
    strongest_first = sorted(unplayed, reverse=True)
    face_up = [places[strongest_first.index(c)] for c in sorted(set(unplayed))]
    return face_up + [f"{label} covered" for label in face_up][:len(face_up) * (card_turn - 1)]


def _add_rows(solver, stats: BranchStats, contexts, keys, labels, rows, leads=None,
              split_rows=None) -> None:
    """Add every context node's rows to rows[key][hand label] (at the pé's follow nodes also
    to split_rows[key][lead class][hand label])."""
    tree = solver.tree
    for node in np.flatnonzero(contexts >= 0):
        key = keys[contexts[node]]
        player = int(tree.node_player[node])
        lst = int(tree.node_list[node, player])
        first = int(tree.list_start[lst])
        count = int(tree.list_start[lst + 1]) - first
        nbet, card_turn = int(tree.node_nbet[node]), int(tree.node_card_turn[node])
        entries = tree.list_entries(lst)
        bets = range(tree.child_start[node], tree.child_start[node] + nbet)
        bet_labels = [truco.BETTING_ACTION_NAMES[int(tree.edge_action[e])] for e in bets]
        base, row0 = int(tree.node_table[node]), int(tree.node_row[node])
        average = stats.average[player]
        called = _called_node(tree, node, nbet) if has_raise_equity(key) else -1
        for x in range(count):
            row = row0 + x
            own = stats.own[player, row]
            weight = own * stats.chance[player, row]
            if weight <= 0.0:
                continue
            unplayed, _ = entries[x]
            columns = bet_labels + (card_labels(unplayed, card_turn) if card_turn else [])
            start = base + x * nbet + card_turn * int(tree.entry_before[first + x])
            block = average[start:start + len(columns)]
            total = block.sum()
            probabilities = (block / total if total > 0
                             else np.full(len(columns), 1.0 / len(columns)))
            equity = {}
            if called >= 0:
                called_row = int(tree.node_row[called]) + x
                chance = stats.chance[player, called_row]
                equity["Raise"] = (own * (stats.win[player][called_row] + 0.5 * chance),
                                   own * chance)
            hand = labels[int(tree.entry_hand[first + x])]
            values = stats.action_value.get(int(node))
            action_ev = (values[x, :len(columns)] / stats.chance[player, row]
                         if values is not None else None)
            targets = [rows.setdefault(key, {})]
            if leads is not None and int(node) in leads:
                targets.append(split_rows.setdefault(key, {}).setdefault(leads[int(node)], {}))
            for target in targets:
                target.setdefault(hand, HandRow(hand)).add(
                    player, weight, own * stats.value[player][row], columns, probabilities,
                    equity, action_ev)


def has_raise_equity(key: str) -> bool:
    """Whether raises in a context get an equity (raises at a card turn, not answers)."""
    return key == "open" or key.startswith(("follow", "nondealer_cover", "dealer_cover"))


def _called_node(tree, node: int, nbet: int) -> int:
    """The raiser's node after his raise at `node` is accepted (-1 if he cannot raise)."""
    for edge in range(tree.child_start[node], tree.child_start[node] + nbet):
        if int(tree.edge_action[edge]) != truco.RAISE:
            continue
        answer = int(tree.child[edge])
        for reply in range(tree.child_start[answer], tree.child_start[answer + 1]):
            if int(tree.edge_action[reply]) == truco.ACCEPT:
                return int(tree.child[reply])
    return -1


# --- tables -------------------------------------------------------------------------------------

def _join(game, parts: list[PartRows], scale: bool = True) -> Analysis:
    """One Analysis over the given vira classes' rows (each weighted by its vira's probability
    when `scale`)."""
    keys: dict[str, str] = {}
    for rows in parts:
        keys.update(rows.titles)
    tables = []
    for key in sorted((k for k in keys if any(k in p.rows for p in parts)), key=context_order):
        hand_rows, deal, strength = [], [{}, {}], {}
        for rows in parts:
            weight = rows.part.weight if scale else 1.0
            hand_rows += [_scaled(row, weight) for row in rows.rows.get(key, {}).values()]
            for player in (0, 1):
                deal[player].update({h: (weight * p, ev) for h, (p, ev)
                                     in rows.deal[player].items()})
            strength.update(rows.strength)
        table = context_table(key, keys[key], hand_rows, deal, strength)
        splits = {}
        leads = {lead for rows in parts for lead in rows.split_rows.get(key, {})}
        lead_strength = {}
        for rows in parts:
            lead_strength.update(rows.lead_strength)
        for lead in sorted(leads, key=lambda label: lead_strength.get(label, 0)):
            lead_rows = [_scaled(row, rows.part.weight if scale else 1.0) for rows in parts
                         for row in rows.split_rows.get(key, {}).get(lead, {}).values()]
            splits[lead] = context_table(key, keys[key], lead_rows, deal, strength)
        attach_splits([table], {key: splits} if splits else {})
        tables.append(table)
    return Analysis(str(game) if scale else f"{game}|{parts[0].part.label}", tables)


def _scaled(row: HandRow, weight: float) -> HandRow:
    """A copy of `row` with every sum multiplied by `weight`."""
    return HandRow(row.hand, weight * row.weight, weight * row.value,
                   {k: weight * v for k, v in row.action_mass.items()},
                   {k: [weight * v[0], weight * v[1]] for k, v in row.equity.items()},
                   [weight * w for w in row.player_weight],
                   {k: weight * v for k, v in row.action_value.items()},
                   {k: weight * v for k, v in row.action_weight.items()},
                   weight * row.flat_weight)


def column_order(label: str) -> int:
    """Betting actions in the game's order, then face-up cards strongest first, then covered."""
    if label in BETTING_COLUMNS:
        return BETTING_COLUMNS.index(label)
    return len(BETTING_COLUMNS) + CARD_COLUMNS.index(label)


def context_table(key: str, title: str, rows: list[HandRow], deal, strength) -> ContextTable:
    """The ContextTable of one context (as `solver.analysis.contexts.context_table`, with
    Truco's hand labels and columns); hands that reach it with probability below
    MIN_HAND_REACH given the deal are left out (their rows hold what the average policy
    kept from early iterations, not a strategy anyone plays; all are kept when none reaches it
    that often: an off-path context). Its probability counts them all."""
    seat_weight = np.sum([row.player_weight for row in rows], axis=0)
    player = int(np.argmax(seat_weight))
    players = tuple(int(p) for p in np.flatnonzero(seat_weight > 0))
    probability = float(sum(row.weight for row in rows))
    kept = [row for row in rows if row.weight >= MIN_HAND_REACH * deal[player][row.hand][0]]
    rows = sorted(kept or rows, key=lambda r: (-deal[player][r.hand][1], strength[r.hand]))
    columns = sorted({label for row in rows for label in row.action_mass}, key=column_order)
    frequency = np.array([[row.action_mass.get(c, np.nan) / row.weight for c in columns]
                          for row in rows])
    equity = {}
    if "Raise" in columns and has_raise_equity(key):
        equity["Raise"] = np.array([row.equity["Raise"][0] / row.equity["Raise"][1]
                                    if "Raise" in row.equity and row.equity["Raise"][1] > 0
                                    else np.nan for row in rows])
    return ContextTable(
        key=key, title=title, player=player, players=players, actions=columns,
        hands=[row.hand for row in rows], frequency=frequency,
        ev=np.array([row.value / row.weight for row in rows]),
        reached=np.array([row.weight / deal[player][row.hand][0] for row in rows]),
        deal_ev=np.array([deal[player][row.hand][1] for row in rows]),
        equity=equity, probability=probability, action_ev=action_evs(rows, columns),
        indifferent_share=indifferent_shares(rows))


def deal_table(game, parts: list[PartRows]) -> tuple[list[str], list[list[str]]]:
    """Every (vira, hand) of the game with its probability of being dealt and each seat's
    equilibrium EV at the deal, strongest (for the mão) first: header and formatted rows."""
    rules = game.rules
    header = ["hand", "probability %", f"EV as mão (player {rules.mao})",
              f"EV as pé (player {rules.dealer})"]
    entries = []
    for rows in parts:
        part = rows.part
        for label, (probability, _) in rows.deal[0].items():
            entries.append((rows.deal[rules.mao][label][1], rows.deal[rules.dealer][label][1],
                            part.weight * probability, label))
    entries.sort(key=lambda e: -np.nan_to_num(e[0], nan=-np.inf))
    return header, [[label, f"{100 * p:.3f}", f"{mao:+.3f}", f"{pe:+.3f}"]
                    for mao, pe, p, label in entries]


def truco_game(directory):
    """The game a Truco result directory was solved for."""
    return load_game(read_summary(directory)["game"])

