"""Exact game-tree sizes of Le Truc (`python_le_truc`) by dynamic programming.

`le_truc_sizes(game)` counts histories, terminals, decision and chance nodes and each player's
information states without materialising the tree, by dynamic programming over the game's
public-state machine (`games.le_truc.PublicState`). It equals the brute-force
`solver.sizes.traversal.count_by_traversal` on every small variant in `tests/test_sizes.py`.

* Histories. The subtree below a node depends only on the machine key, each player's remaining
  hand as rank counts and, while deals remain, the undealt rank counts. Concrete mode has the
  same shape with multiplicities: a player holding c cards of rank r has c card actions for r,
  each with a subtree of the same size. A whole-hand deal from undealt counts u (T cards) is, in
  isomorphic mode, one chance node with one child per hand class h with `multiset_weight(h, u)`
  > 0; in concrete mode it is the sum over k < hand_size of T(T-1)...(T-k+1) internal chance
  nodes, and hand_size! * prod_r C(u_r, h_r) ordered ways to reach the child of class h. The
  undealt counts leave the memo key once no deal can follow. The last deal of a hand (player 0's
  then player 1's hand, nothing dealt after) is aggregated over the combined class c = h0 + h1:
  the pair weight factorises as prod_r C(u_r, c_r) * [prod_r C(c_r, h0_r) * (hand_size!)^2],
  so the subtree of a deal from u is one product of a weight vector over c with a table over c
  (numpy, exact Python integers).
* Information states of player p (perfect recall: own hands as sets or classes, every public
  action). They are the p-nodes of p's *view tree*: p's own deals branch over his possible hands
  (concrete: card sets, prod_r C(unseen_r, h_r) per class; isomorphic: classes); the opponent's
  deals are invisible; the opponent's card plays branch over every rank still unseen by p
  (concrete: one branch per unseen card); betting branches as in the machine. Every view node
  is reachable, since a redeal is only possible while the talon holds two hands. Memo key:
  (machine key, p's remaining hand, counts unseen by p); in isomorphic mode only whether a rank
  is still unseen matters, so the unseen counts are capped at the opponent's cards left.
  In concrete mode the counts matter, and with a redeal they also depend on p's set-aside hand
  (~14,000 (old hand, new hand) classes in the default game). There the view count below a
  play-phase node is computed once per (machine key, p's remaining hand) as a polynomial in the
  unseen counts u: each opponent play of rank r multiplies by u_r at that moment, so
  V(u) = sum_k c_k prod_r u_r (u_r - 1) ... (u_r - k_r + 1) over the rank counts k the opponent
  plays below, with coefficients c_k independent of u; each root evaluates it at its own u.
"""
from __future__ import annotations

import math

import numpy as np
import pyspiel

from games import cards
from games.le_truc import AGREE, LeTrucGame, Phase, PublicState, SUITS_PER_RANK
from solver.sizes.common import TreeSize, add_shifted, progress_bar

LE_TRUC = "python_le_truc"


# --- shared pieces --------------------------------------------------------------------------------
_DIGIT = SUITS_PER_RANK + 1  # a rank count 0..4 is one base-5 digit of a hand code


def _encode(counts: tuple) -> int:
    """A rank-count vector as one integer (base 5, rank 0 the lowest digit)."""
    return sum(count * _DIGIT ** rank for rank, count in enumerate(counts))


def _subtract(a: tuple, b: tuple) -> tuple:
    """a - b, rank by rank."""
    return tuple(x - y for x, y in zip(a, b))


def _fits(hand: tuple, available: tuple) -> bool:
    """Whether `hand` can be drawn from `available` cards per rank."""
    return all(h <= a for h, a in zip(hand, available))


def _set_count(hand: tuple, available: tuple) -> int:
    """Card sets of this rank-count class drawn from `available` cards per rank."""
    return math.prod(math.comb(a, h) for h, a in zip(hand, available) if h)


def _after_deal(public: PublicState) -> PublicState:
    """The machine once both hands are dealt."""
    after = public.clone()
    after.hands_dealt()
    return after


_PLAY_KEY_FIELDS = tuple(name for name in PublicState.__slots__ if name not in ("rules", "redeals"))


def _play_key(public: PublicState) -> tuple:
    """Machine key of a play-phase state; the redeal count no longer matters there."""
    return tuple(getattr(public, name) for name in _PLAY_KEY_FIELDS)


class _HandCodes:
    """Moves and caps of encoded rank-count vectors, cached."""

    def __init__(self, num_ranks: int):
        self.num_ranks = num_ranks
        self._moves = {}
        self._caps = {}
        self._digits = {}

    def moves(self, code: int) -> tuple:
        """(rank, count, code with one card of that rank removed) for every rank present."""
        found = self._moves.get(code)
        if found is None:
            found = self._moves[code] = tuple(
                (rank, code // _DIGIT ** rank % _DIGIT, code - _DIGIT ** rank)
                for rank in range(self.num_ranks) if code // _DIGIT ** rank % _DIGIT)
        return found

    def digits(self, code: int) -> tuple:
        """The rank counts of a code."""
        found = self._digits.get(code)
        if found is None:
            found = self._digits[code] = tuple(
                code // _DIGIT ** rank % _DIGIT for rank in range(self.num_ranks))
        return found

    def capped(self, code: int, limit: int) -> int:
        """Every count limited to `limit`."""
        found = self._caps.get((code, limit))
        if found is None:
            found = self._caps[(code, limit)] = sum(
                min(code // _DIGIT ** rank % _DIGIT, limit) * _DIGIT ** rank
                for rank in range(self.num_ranks))
        return found


class _PlayGraph:
    """Play-phase machine states numbered once, with their transitions cached by number."""

    def __init__(self, hand_size: int):
        self.hand_size = hand_size
        self.ids = {}
        self.states = []
        self.over = []
        self.to_act = []
        self.card_player = []  # the player at a card turn, else -1
        self.cards_left = []  # (player 0, player 1) cards not yet played in this hand
        self._bets = []
        self._cards = []

    def id_of(self, public: PublicState) -> int:
        """The number of a play-phase state, numbering it on first sight."""
        key = _play_key(public)
        found = self.ids.get(key)
        if found is None:
            found = self.ids[key] = len(self.states)
            self.states.append(public)
            self.over.append(public.is_over())
            self.to_act.append(public.to_act)
            self.card_player.append(public.card_player if public.is_card_turn() else -1)
            played = [len(public.trick_winners)] * 2
            for play in public.trick:
                played[play.seat] += 1
            self.cards_left.append(tuple(self.hand_size - n for n in played))
            self._bets.append(None)
            self._cards.append({})
        return found

    def bets(self, node: int) -> tuple:
        """Children after each non-card action."""
        found = self._bets[node]
        if found is None:
            children = []
            for action in self.states[node].legal_actions():
                child = self.states[node].clone()
                child.apply(action)
                children.append(self.id_of(child))
            found = self._bets[node] = tuple(children)
        return found

    def card(self, node: int, rank: int) -> int:
        """Child after the card player plays a card of this rank."""
        found = self._cards[node].get(rank)
        if found is None:
            child = self.states[node].clone()
            child.play(rank)
            found = self._cards[node][rank] = self.id_of(child)
        return found


class _LeTrucCounter:
    """State shared by the history and view counters of one game."""

    def __init__(self, rules, progress: bool):
        self.rules = rules
        self.isomorphic = rules.isomorphic
        self.hand_size = rules.hand_size
        self.full_deck = (SUITS_PER_RANK,) * rules.deck.num_ranks
        self.classes = [cards.rank_counts(h, rules.deck.num_ranks) for h in rules.hand_classes]
        self.codes = _HandCodes(rules.deck.num_ranks)
        self.graph = _PlayGraph(rules.hand_size)
        self.progress = progress
        self.memo = {}

    def class_weight(self, hand: tuple, available: tuple) -> int:
        """Branches of one hand class in a deal: card sets (concrete) or 1 (isomorphic)."""
        return 1 if self.isomorphic else _set_count(hand, available)


# --- histories ------------------------------------------------------------------------------------
class _HistoryCounter(_LeTrucCounter):
    """(histories, terminals, decision nodes, chance nodes) of Le Truc subtrees, memoised."""

    def __init__(self, rules, progress: bool):
        super().__init__(rules, progress)
        self.play_memo = {}
        self.last_deal_tables = {}

    def node(self, public: PublicState, hands: tuple | None, undealt: tuple) -> tuple:
        """Counts below a node; hands are encoded rank counts per player (None before a deal)."""
        if public.phase == Phase.DEAL:
            return self.deal(public, undealt)
        if public.phase >= Phase.PLAY:
            return self.play(self.graph.id_of(public), *hands) + (0,)
        key = (public.key(), hands, undealt)
        found = self.memo.get(key)
        if found is None:
            acc = [1, 0, 1, 0]
            for action in public.legal_actions():
                child = public.clone()
                child.apply(action)
                counts = self.node(child, None if action == AGREE else hands, undealt)
                acc = [a + b for a, b in zip(acc, counts)]
            found = self.memo[key] = tuple(acc)
        return found

    def play(self, node: int, hand0: int, hand1: int) -> tuple:
        """(histories, terminals, decision nodes) below a play-phase node."""
        key = (node, hand0, hand1)
        found = self.play_memo.get(key)
        if found is not None:
            return found
        graph = self.graph
        if graph.over[node]:
            found = self.play_memo[key] = (1, 1, 0)
            return found
        histories, terminals, decisions = 1, 0, 1
        for child in graph.bets(node):
            h, t, d = self.play(child, hand0, hand1)
            histories, terminals, decisions = histories + h, terminals + t, decisions + d
        player = graph.card_player[node]
        if player >= 0:
            for rank, count, rest in self.codes.moves(hand1 if player else hand0):
                child = graph.card(node, rank)
                h, t, d = self.play(child, hand0, rest) if player else self.play(child, rest, hand1)
                weight = 1 if self.isomorphic else count
                histories += weight * h
                terminals += weight * t
                decisions += weight * d
        found = self.play_memo[key] = (histories, terminals, decisions)
        return found

    def deal_chance_nodes(self, undealt: tuple) -> int:
        """Chance nodes of dealing player 0's then player 1's hand from `undealt`."""
        if self.isomorphic:
            return 1 + sum(_fits(hand, undealt) for hand in self.classes)
        talon, size = sum(undealt), self.hand_size

        def inner(cards_left: int) -> int:
            return sum(math.perm(cards_left, k) for k in range(size))

        return inner(talon) + math.perm(talon, size) * inner(talon - size)

    def pair_weight(self, first: tuple, second: tuple, undealt: tuple) -> int:
        """Ordered deals reaching hands (first, second) from `undealt` (isomorphic: 1)."""
        if self.isomorphic:
            return 1
        order = math.factorial(self.hand_size) ** 2
        return order * _set_count(first, undealt) * _set_count(second, _subtract(undealt, first))

    def deal(self, public: PublicState, undealt: tuple) -> tuple:
        """Counts below a deal of both hands from `undealt`."""
        key = (public.key(), undealt)
        found = self.memo.get(key)
        if found is None:
            after = _after_deal(public)
            if after.phase == Phase.PLAY:
                below = self._last_deal(after, undealt)
            else:
                below = self._deal_pairs(after, undealt)
            chance = self.deal_chance_nodes(undealt)
            found = self.memo[key] = (below[0] + chance, below[1], below[2], below[3] + chance)
        return found

    def _deal_pairs(self, after: PublicState, undealt: tuple) -> tuple:
        """A deal followed by further deals: every (hand 0, hand 1) pair, one by one."""
        acc = [0, 0, 0, 0]
        firsts = [hand for hand in self.classes if _fits(hand, undealt)]
        for first in progress_bar(firsts, "deal", self.progress):
            left = _subtract(undealt, first)
            for second in self.classes:
                if _fits(second, left):
                    weight = self.pair_weight(first, second, undealt)
                    counts = self.node(after, (_encode(first), _encode(second)),
                                       _subtract(left, second))
                    acc = [a + weight * b for a, b in zip(acc, counts)]
        return tuple(acc)

    def _last_deal(self, after: PublicState, undealt: tuple) -> tuple:
        """The last deal: weights over combined classes c times the per-c subtree table."""
        combined, table = self._last_deal_table(after)
        if self.isomorphic:
            weights = np.all(combined <= np.array(undealt), axis=1).astype(np.int64)
        else:
            binomials = _binomial_table(SUITS_PER_RANK)
            weights = np.prod(binomials[np.array(undealt)[None, :], combined], axis=1)
        return tuple(int(value) for value in weights.astype(object) @ table)

    def _last_deal_table(self, after: PublicState) -> tuple:
        """(combined classes c [n, ranks] int64, summed subtree counts per c [n, 4] object).

        Row c sums, over the hand pairs h0 + h1 = c, the subtree counts weighted by
        (hand_size!)^2 prod_r C(c_r, h0_r) (concrete) or 1 (isomorphic).
        """
        key = after.key()
        if key not in self.last_deal_tables:
            totals = {}
            pairs = [(a, b) for a in self.classes for b in self.classes
                     if _fits(a, _subtract(self.full_deck, b))]
            for first, second in progress_bar(pairs, "hand pairs", self.progress):
                combined = tuple(x + y for x, y in zip(first, second))
                weight = 1 if self.isomorphic else (
                    math.factorial(self.hand_size) ** 2 * _set_count(first, combined))
                counts = self.node(after, (_encode(first), _encode(second)), None)
                row = totals.setdefault(combined, [0, 0, 0, 0])
                row[:] = [a + weight * b for a, b in zip(row, counts)]
            combined = np.array(list(totals), dtype=np.int64)
            table = np.array(list(totals.values()), dtype=object)
            self.last_deal_tables[key] = (combined, table)
        return self.last_deal_tables[key]


def _binomial_table(n: int) -> np.ndarray:
    """C(a, b) for 0 <= a, b <= n as int64 [n + 1, n + 1]."""
    return np.array([[math.comb(a, b) for b in range(n + 1)] for a in range(n + 1)], np.int64)


# --- information states ---------------------------------------------------------------------------
class _ViewCounter(_LeTrucCounter):
    """Decision points of one player in his view tree (= his information states), memoised."""

    def __init__(self, rules, player: int, progress: bool):
        super().__init__(rules, progress)
        self.player = player
        self.play_memo = {}
        self.polynomials = {}

    def node(self, public: PublicState, hand: int | None, unseen: tuple) -> int:
        """View count below a node; `unseen`: rank counts p has not seen (deck minus his hands
        and the opponent's played cards)."""
        if public.phase == Phase.DEAL:
            return self.deal(public, unseen)
        if public.phase >= Phase.PLAY:
            return self.play(self.graph.id_of(public), hand, _encode(unseen))
        key = (public.key(), hand, unseen)
        found = self.memo.get(key)
        if found is None:
            found = int(public.to_act == self.player)
            for action in public.legal_actions():
                child = public.clone()
                child.apply(action)
                found += self.node(child, None if action == AGREE else hand, unseen)
            self.memo[key] = found
        return found

    def deal(self, public: PublicState, unseen: tuple) -> int:
        """Both hands dealt: p's hand branches (sets or classes), the opponent's is invisible."""
        key = (public.key(), unseen)
        found = self.memo.get(key)
        if found is None:
            after = _after_deal(public)
            found = 0
            hands = [hand for hand in self.classes if _fits(hand, unseen)]
            for hand in progress_bar(hands, f"views p{self.player}", self.progress):
                found += self.class_weight(hand, unseen) * self.node(
                    after, _encode(hand), _subtract(unseen, hand))
            self.memo[key] = found
        return found

    def play(self, node: int, hand: int, unseen: int) -> int:
        """View count below a play-phase node (hand and unseen encoded)."""
        if self.isomorphic:  # only whether a rank is unseen matters: cap at the cards to come
            limit = self.graph.cards_left[node][1 - self.player]
            return self._capped_play(node, hand, self.codes.capped(unseen, limit))
        key = (node, hand, unseen)
        found = self.play_memo.get(key)
        if found is None:
            found = self.play_memo[key] = self._evaluate(self._polynomial(node, hand), unseen)
        return found

    def _capped_play(self, node: int, hand: int, unseen: int) -> int:
        """Isomorphic view count: opponent plays branch once per rank still unseen."""
        key = (node, hand, unseen)
        found = self.play_memo.get(key)
        if found is not None:
            return found
        graph, player = self.graph, self.player
        found = 0 if graph.over[node] else int(graph.to_act[node] == player)
        for child in () if graph.over[node] else graph.bets(node):
            found += self.play(child, hand, unseen)
        card_player = graph.card_player[node]
        if card_player == player:
            for rank, _, rest in self.codes.moves(hand):
                found += self.play(graph.card(node, rank), rest, unseen)
        elif card_player >= 0:
            for rank, _, rest in self.codes.moves(unseen):
                found += self.play(graph.card(node, rank), hand, rest)
        self.play_memo[key] = found
        return found

    def _polynomial(self, node: int, hand: int) -> dict:
        """Concrete view count below a play-phase node as a polynomial in the unseen counts u.

        {k: c_k} with V(u) = sum_k c_k prod_r u_r (u_r - 1) ... (u_r - k_r + 1), k the encoded
        rank counts the opponent plays below: each opponent play of rank r multiplies by the
        unseen count of r at that moment, so the tree shape does not depend on u.
        """
        key = (node, hand)
        found = self.polynomials.get(key)
        if found is not None:
            return found
        graph, player = self.graph, self.player
        found = {}
        if not graph.over[node]:
            if graph.to_act[node] == player:
                found[0] = 1
            for child in graph.bets(node):
                add_shifted(found, self._polynomial(child, hand), 1, 0)
            card_player = graph.card_player[node]
            if card_player == player:
                for rank, count, rest in self.codes.moves(hand):
                    add_shifted(found, self._polynomial(graph.card(node, rank), rest), count, 0)
            elif card_player >= 0:
                for rank in range(self.rules.deck.num_ranks):
                    add_shifted(found, self._polynomial(graph.card(node, rank), hand), 1,
                                _DIGIT ** rank)
        self.polynomials[key] = found
        return found

    def _evaluate(self, polynomial: dict, unseen: int) -> int:
        """The polynomial (`_polynomial`) at the encoded unseen counts."""
        counts = self.codes.digits(unseen)
        return sum(coefficient * math.prod(math.perm(u, k) for u, k in
                                           zip(counts, self.codes.digits(power)) if k)
                   for power, coefficient in polynomial.items())


# --- entry point ----------------------------------------------------------------------------------
def le_truc_sizes(game: pyspiel.Game, infosets: bool = True, progress: bool = False) -> TreeSize:
    """Exact tree sizes of a `python_le_truc` game by dynamic programming (module docstring).

    `infosets=False` skips the information states; `progress` shows tqdm bars on stderr for
    steps longer than two seconds.
    """
    if not isinstance(game, LeTrucGame):
        raise ValueError(f"le_truc_sizes needs a {LE_TRUC} game, got {game}")
    rules = game.rules
    counter = _HistoryCounter(rules, progress)
    histories, terminals, decisions, chance = counter.node(
        PublicState(rules), None, counter.full_deck)
    counts = None
    if infosets:
        counts = tuple(_ViewCounter(rules, player, progress).node(
            PublicState(rules), None, counter.full_deck) for player in range(2))
    return TreeSize(str(game), histories, terminals, decisions, chance, counts)


