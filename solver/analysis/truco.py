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
(`solver.analysis.contexts`, `solver.analysis.public.BranchStats`); the pé's `follow_S`
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
import pathlib

import numpy as np
from numba import njit

from games import truco
from solver.analysis.contexts import (INDIFFERENCE_TOLERANCE, Analysis, ContextTable, HandRow,
                                      action_evs, attach_splits, context_order,
                                      indifferent_shares)
from solver.analysis.public import BranchStats
from solver.atomic import atomic_write_npz
from solver.public.parts import part_named, public_parts
from solver.public.solve import solver_for
from solver.public.tree import COVERED_EDGE, is_terminal
from solver.registry import load_game
from solver.results import load_result, part_directory, read_summary
from solver.sizes.truco_public import check_analysis_fits

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


LABELS = BETTING_COLUMNS + CARD_COLUMNS  # a column label's id is its place here
COVERED = len(CARD_COLUMNS) // 2  # a covered card's label id: its face-up label's + this


ANALYSIS_FILE = "analysis.npz"  # a vira class's `ClassSums`, beside its strategy
ANALYSIS_FORMAT = 1  # raised whenever what the sums mean changes: older files are recomputed


@dataclasses.dataclass
class ClassSums:
    """One vira class's analysis as arrays: what `PartRows` is made of, small enough to keep
    with the result (`ANALYSIS_FILE`, a few MB where the strategy is a GB) so that the
    whole game's tables can be joined from classes solved in different sessions.

    Per slot (a context, `keys[k]`, or one of the pé's follow contexts given the lead's class:
    `split_slot`) and hand (`hands`, the play tree's order): the `HandRow` sums weight (reach),
    player_weight [.., 2], value, flat (`HandRow.flat_weight`), per column label (`LABELS`)
    mass, action_value, action_weight and whether the hand has that column (present), and
    the raise's equity (numerator, denominator) where it has one (has_equity). Per seat and
    hand: deal (the probability of being dealt it) and root_values (its counterfactual value
    at the deal). `game`, `iterations` and `exploitability`: of the solution it was read from
(a class re-solved since is analysed again)."""

    keys: np.ndarray  # str [contexts]
    titles: np.ndarray  # str [contexts]
    hands: np.ndarray  # int [hands, hand size]
    classes: int
    deal: np.ndarray
    root_values: np.ndarray
    weight: np.ndarray
    player_weight: np.ndarray
    value: np.ndarray
    flat: np.ndarray
    mass: np.ndarray
    action_value: np.ndarray
    action_weight: np.ndarray
    present: np.ndarray
    equity: np.ndarray
    has_equity: np.ndarray
    game: str = ""
    iterations: int = 0
    exploitability: float = np.nan

    @classmethod
    def zeros(cls, titles: dict[str, str], hands, classes: int) -> ClassSums:
        slots, count, labels = len(titles) * (1 + classes), len(hands), len(LABELS)
        return cls(np.array(list(titles), dtype=str), np.array(list(titles.values()), dtype=str),
                   np.array(hands, dtype=np.int64).reshape(count, -1), classes,
                   np.zeros((2, count)), np.zeros((2, count)), np.zeros((slots, count)),
                   np.zeros((slots, count, 2)), np.zeros((slots, count)),
                   np.zeros((slots, count)), np.zeros((slots, count, labels)),
                   np.zeros((slots, count, labels)), np.zeros((slots, count, labels)),
                   np.zeros((slots, count, labels), dtype=np.bool_),
                   np.zeros((slots, count, 2)), np.zeros((slots, count), dtype=np.bool_))

    def split_slot(self, key: int, lead: int) -> int:
        """The slot of context `key` given a lead of class `lead`."""
        return len(self.keys) + key * self.classes + lead

    def hand_rows(self, slot: int, labels: list[str]) -> dict[str, HandRow]:
        """{hand label: HandRow} of the hands that reach this slot."""
        rows = {}
        for h in np.flatnonzero(self.weight[slot] > 0.0):
            columns = np.flatnonzero(self.present[slot, h])
            names = [LABELS[c] for c in columns]
            rows[labels[h]] = HandRow(
                labels[h], float(self.weight[slot, h]), float(self.value[slot, h]),
                {n: float(self.mass[slot, h, c]) for n, c in zip(names, columns)},
                ({"Raise": [float(x) for x in self.equity[slot, h]]}
                 if self.has_equity[slot, h] else {}),
                [float(x) for x in self.player_weight[slot, h]],
                {n: float(self.action_value[slot, h, c]) for n, c in zip(names, columns)},
                {n: float(self.action_weight[slot, h, c]) for n, c in zip(names, columns)},
                float(self.flat[slot, h]))
        return rows

    def part_rows(self, part) -> PartRows:
        """The `PartRows` of vira class `part` (hands labelled as its players see them)."""
        hands = [tuple(int(c) for c in hand) for hand in self.hands]
        labels = [hand_label(part, hand) for hand in hands]
        strength = {label: tuple(-c for c in sorted(hand, reverse=True))
                    for label, hand in zip(labels, hands)}
        deal = [{label: (float(p), float(v / p) if p > 0 else np.nan)
                 for label, p, v in zip(labels, self.deal[player], self.root_values[player])}
                for player in (0, 1)]
        keys = [str(key) for key in self.keys]
        rows = {key: by_hand for k, key in enumerate(keys)
                if (by_hand := self.hand_rows(k, labels))}
        split_rows, lead_strength = {}, {}
        for k, key in enumerate(keys):
            for lead in range(self.classes):
                by_hand = self.hand_rows(self.split_slot(k, lead), labels)
                if by_hand:
                    name = part.rules.class_name(lead, part.vira)
                    split_rows.setdefault(key, {})[name] = by_hand
                    lead_strength[name] = -lead
        return PartRows(part, rows, dict(zip(keys, (str(t) for t in self.titles))), deal,
                        strength, float(self.exploitability), float(self.root_values[0].sum()),
                        split_rows, lead_strength)

    def save(self, path: pathlib.Path) -> None:
        """Write the sums to `path` (npz, atomically)."""
        arrays = {field.name: np.asarray(getattr(self, field.name))
                  for field in dataclasses.fields(self)}
        atomic_write_npz(path, {**arrays, "format": np.asarray(ANALYSIS_FORMAT)},
                         compressed=True)

    @classmethod
    def load(cls, path: pathlib.Path) -> ClassSums | None:
        """The sums saved at `path`, or None if there are none of this format."""
        if not path.exists():
            return None
        with np.load(path, allow_pickle=False) as arrays:
            if int(arrays["format"]) != ANALYSIS_FORMAT:
                return None
            values = {field.name: arrays[field.name] for field in dataclasses.fields(cls)}
        return cls(**{**values, "classes": int(values["classes"]), "game": str(values["game"]),
                      "iterations": int(values["iterations"]),
                      "exploitability": float(values["exploitability"])})


class _ContextLayout:
    """The context nodes of one class's play tree as `_accumulate_rows` reads them: per node
    its context (an index into `keys`), the lead's class at the pé's follow nodes (-1
    elsewhere), the raiser's node after an accepted raise where the raise gets an equity (-1
    elsewhere) and its betting columns' label ids; per list entry met at a card turn its
    face-up card columns' label ids."""

    def __init__(self, tree, contexts: np.ndarray, leads: dict[int, int], keys: list[str]):
        self.tree = tree
        self.nodes = np.flatnonzero(contexts >= 0).astype(np.int32)
        self.keys = contexts[self.nodes].astype(np.int32)
        self.leads = np.full(len(self.nodes), -1, dtype=np.int32)
        if leads:
            follow = np.fromiter(leads, dtype=np.int64)
            self.leads[np.searchsorted(self.nodes, follow)] = np.fromiter(leads.values(),
                                                                          dtype=np.int32)
        label_of_action = np.array([LABELS.index(name) if name in LABELS else -1
                                    for name in truco.BETTING_ACTION_NAMES], dtype=np.int8)
        self.bet_labels, self.called = _bet_columns(
            self.nodes, tree.child_start, tree.child, tree.edge_action, tree.node_nbet,
            label_of_action, truco.RAISE, truco.ACCEPT)
        with_equity = np.array([has_raise_equity(key) for key in keys], dtype=bool)
        self.called[~with_equity[self.keys]] = -1
        self.entry_labels = np.full((int(tree.list_start[-1]), 3), -1, dtype=np.int8)
        by_unplayed: dict[tuple, list[int]] = {}
        card_turns = self.nodes[tree.node_card_turn[self.nodes] > 0]
        for lst in np.unique(tree.node_list[card_turns, tree.node_player[card_turns]]):
            first = int(tree.list_start[lst])
            for x, (unplayed, _) in enumerate(tree.list_entries(int(lst))):
                ids = by_unplayed.get(unplayed)
                if ids is None:
                    ids = by_unplayed[unplayed] = [LABELS.index(label)
                                                   for label in card_labels(unplayed, 1)]
                self.entry_labels[first + x, :len(ids)] = ids

    def accumulate(self, player: int, stats, sums: ClassSums) -> None:
        """Add the player's rows at every context node to `sums`."""
        tree = self.tree
        mine = tree.node_player[self.nodes] == player
        _accumulate_rows(
            self.nodes[mine], self.keys[mine], self.leads[mine], self.called[mine],
            self.bet_labels[mine], tree.node_list, tree.list_start, tree.node_nbet,
            tree.node_card_turn, tree.node_table, tree.node_row, tree.entry_hand,
            tree.entry_nd, tree.entry_before, self.entry_labels, player, stats.average[player],
            stats.own[player], stats.chance[player], stats.win[player],
            stats.action_value[player], INDIFFERENCE_TOLERANCE, COVERED, len(sums.keys),
            sums.classes, sums.weight, sums.player_weight, sums.value, sums.flat, sums.mass,
            sums.action_value, sums.action_weight, sums.present, sums.equity, sums.has_equity)


@njit(cache=True)
def _bet_columns(nodes, child_start, child, edge_action, node_nbet, label_of_action, raise_action,
                 accept_action):
    """Per node its betting columns' label ids (int8 [nodes, 3], -1 past its bets) and the
    raiser's node once his raise there is accepted (int32 [nodes], -1 if he cannot raise)."""
    labels = np.full((nodes.shape[0], 3), -1, dtype=np.int8)
    called = np.full(nodes.shape[0], -1, dtype=np.int32)
    for i in range(nodes.shape[0]):
        first = child_start[nodes[i]]
        for b in range(node_nbet[nodes[i]]):
            action = edge_action[first + b]
            labels[i, b] = label_of_action[action]
            if action != raise_action:
                continue
            answer = child[first + b]
            for reply in range(child_start[answer], child_start[answer + 1]):
                if edge_action[reply] == accept_action:
                    called[i] = child[reply]
    return labels, called


@njit(cache=True, inline="always")
def _probability(average, entry, total, width):
    """An action's probability in its row's average policy (uniform where the row's sums,
    `total`, are zero)."""
    return np.float64(average[entry]) / total if total > 0.0 else 1.0 / width


@njit(cache=True)
def _accumulate_rows(nodes, node_key, node_lead, node_called, bet_labels, node_list, list_start,
                     node_nbet, node_card_turn, node_table, node_row, entry_hand, entry_nd,
                     entry_before, entry_labels, player, average, own, chance, win,
                     action_value, tolerance, covered, keys, classes, weight, player_weight, value,
                     flat, mass, action_sum, action_weight, present, equity, has_equity):
    """`HandRow.add` of every row (reached: own x chance > 0) of the player's context nodes,
    into its context's slot and, at a follow node, its lead's split slot: the row's policy
    (its average sums normalised; uniform where they are zero), its value (policy x action
    values), each action's EV (its value over the row's chance weight), whether at least two
    EVs are within `tolerance` of the best (flat), the raise's equity at the called node."""
    for i in range(nodes.shape[0]):
        n = nodes[i]
        lst = node_list[n, player]
        first = list_start[lst]
        count = list_start[lst + 1] - first
        nbet = node_nbet[n]
        cards = node_card_turn[n]
        slot = np.int64(node_key[i])
        split = np.int64(keys + slot * classes + node_lead[i] if node_lead[i] >= 0 else -1)
        for x in range(count):
            row = node_row[n] + x
            o = np.float64(own[row])
            c = np.float64(chance[row])
            reach = o * c
            if reach <= 0.0:
                continue
            e = first + x
            nd = entry_nd[e] if cards else 0
            start = node_table[n] + x * nbet + cards * entry_before[e]
            width = nbet + cards * nd
            total = 0.0
            best = -np.inf
            for a in range(width):
                total += np.float64(average[start + a])
                best = max(best, np.float64(action_value[start + a]) / c)
            near = 0
            row_value = 0.0
            for a in range(width):
                if np.float64(action_value[start + a]) / c >= best - tolerance:
                    near += 1
                row_value += _probability(average, start + a, total, width) * np.float64(
                    action_value[start + a])
            h = entry_hand[e]
            for s in (slot, split):
                if s < 0:
                    continue
                weight[s, h] += reach
                player_weight[s, h, player] += reach
                value[s, h] += o * row_value
                if width >= 2 and near >= 2:
                    flat[s, h] += reach
                for a in range(width):
                    if a < nbet:
                        label = bet_labels[i, a]
                    elif a < nbet + nd:
                        label = entry_labels[e, a - nbet]
                    else:
                        label = entry_labels[e, a - nbet - nd] + covered
                    mass[s, h, label] += reach * _probability(average, start + a, total, width)
                    action_sum[s, h, label] += reach * (np.float64(action_value[start + a]) / c)
                    action_weight[s, h, label] += reach
                    present[s, h, label] = True
                if node_called[i] >= 0:
                    called_row = node_row[node_called[i]] + x
                    called_chance = np.float64(chance[called_row])
                    equity[s, h, 0] += o * (np.float64(win[called_row]) + 0.5 * called_chance)
                    equity[s, h, 1] += o * called_chance
                    has_equity[s, h] = True


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
    """The per-hand sums of every context of one vira class: its saved `ClassSums`
    (`ANALYSIS_FILE`) if they were read from the solution saved there now (same game and
    iterations), else computed from its strategy (`class_sums`) and saved."""
    if not is_truco(game):
        raise ValueError(f"the Truco analysis reads python_truco_paulista or python_trucomano "
                         f"results; this one is for {game}")
    sub = part_directory(directory, part)
    summary = read_summary(sub)
    path = sub / ANALYSIS_FILE
    sums = ClassSums.load(path)
    if sums is None or (sums.game, sums.iterations) != (summary["game"], summary["iterations"]):
        check_analysis_fits(summary.get("tree_sizes", {}), summary["game"])
        saved = load_result(sub)
        exploitability = saved.recorded_exploitability  # the compact strategy's, if it was read
        sums = class_sums(solver_for(game, saved.policy),
                          np.nan if exploitability is None else exploitability)
        sums.game, sums.iterations = summary["game"], summary["iterations"]
        sums.save(path)
    return sums.part_rows(part)


def class_sums(solver, exploitability: float = np.nan) -> ClassSums:
    """`ClassSums` of a `PublicSolver` of one vira class holding its average policy: one
    player at a time (his rows' records, `BranchStats`, in the table's dtype: float32 halves
    them at full size; then dropped), summed by `_accumulate_rows`."""
    part, tree = solver.part, solver.tree
    contexts, titles, leads = node_contexts(part, tree)
    ones = np.ones(len(solver.deals.hands))
    coupling = solver.deals.first_hands()
    sums = ClassSums.zeros(titles, solver.deals.hands, len(part.class_counts))
    layout = _ContextLayout(tree, contexts, leads, list(titles))
    for player in (0, 1):
        stats = BranchStats(solver, "play", (ones, ones), coupling, (player,),
                            solver.table_dtype)
        sums.root_values[player] = stats.root_values[player]
        layout.accumulate(player, stats, sums)
        del stats
    sums.deal[:] = np.stack([coupling.sum(axis=1), coupling.sum(axis=0)])
    sums.exploitability = float(exploitability)
    return sums


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


def has_raise_equity(key: str) -> bool:
    """Whether raises in a context get an equity (raises at a card turn, not answers)."""
    return key == "open" or key.startswith(("follow", "nondealer_cover", "dealer_cover"))


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

