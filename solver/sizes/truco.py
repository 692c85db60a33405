"""Tree sizes of two-player Truco (`python_truco_paulista`, `python_trucomano`), exact or
sampled, by dynamic programming over the public-state machine `games.truco.PublicState`.

Covers one two-player hand whose cards are seen (not the blind iron hand), in both modes:

* Chance. Isomorphic: the vira's rank, then player 0's hand class, then player 1's, so
  1 + R + sum over vira ranks v of the hand classes of player 0 given v. Concrete: one card per
  node, both hands then the vira, so sum over k <= 2 hand_size of N!/(N-k)! (N cards).
* Deal classes (v, h0, h1): the vira's rank and both hands as counts per strength class given v
  (`Rules.class_counts`). One class stands for one isomorphic deal, or for
  4 (hand_size!)^2 prod_c C(a_c, h0_c) C(a_c - h0_c, h1_c) ordered concrete card sequences
  (a = the class counts left by a vira of rank v, 4 = the vira's suits).
* Histories below a deal: dynamic programming over the machine with both hands as class counts,
  memo on (machine key, hands); in concrete mode a card of a class held c times stands for c
  actions with equal subtrees (face up or covered). Strengths are only ever compared, so the
  subtree of a deal depends on its classes only through their order: hands are first restricted
  to the classes either player holds (canonical form), and deals with equal canonical hands
  share one count.
* Information states of player p: the p-nodes of his *view tree* from each root (v, own hand):
  his own plays branch as above; the opponent's face-up plays branch over every class still
  unseen by p (concrete: one branch per unseen card of the class), his covered card is one
  branch; betting branches as in the machine. Every view node is reachable: the opponent's
  cards can be any unseen ones. As in `solver.sizes.le_truc`'s concrete mode, the count below a
  node is memoised per (machine key, own hand) as a polynomial in the unseen counts u:
  V(u) = sum_k c_k prod_c f(u_c, k_c) over the class counts k the opponent plays face up below,
  f(u, k) = u (u - 1) ... (u - k + 1) (concrete) or [k <= u] (isomorphic), with coefficients
  c_k independent of u, so roots with the same own hand share every node. Roots are restricted
  like deals (classes own or unseen; isomorphic unseen counts capped at hand_size, as no more
  can come) and stand for one isomorphic root or 4 prod_c C(a_c, h_c) concrete ones (vira
  card, own card set).
* Sampled estimate (`samples`=N): N deal classes drawn with replacement, with probability
  proportional to what they stand for (uniform in isomorphic mode), each counted exactly; the
  total is (deals stood for) x (sample mean), with a 95% half-width of 1.96 standard errors.
  Likewise N roots per player for the information states. Chance nodes stay exact.
"""
from __future__ import annotations

import collections
import math

import numpy as np
import pyspiel

from games import cards
from games.truco import PublicState, Rules, SUITS_PER_RANK, TrucoGame
from solver.sizes.common import (FIGURES, TreeSize, add_shifted, check_samples,
                                 mean_and_half_width, progress_bar)

TRUCO_GAMES = ("python_truco_paulista", "python_trucomano")
_BASE = SUITS_PER_RANK + 1  # a class count 0..4 is one base-5 digit of an encoded power


def counts_truco(game: pyspiel.Game) -> bool:
    """Whether `truco_sizes` takes this game: a two-player Truco hand with seen cards."""
    return (isinstance(game, TrucoGame) and game.rules.num_players == 2
            and not game.rules.blind)


# --- deals and roots --------------------------------------------------------------------------
def _set_count(hand: tuple, available: tuple) -> int:
    """Card sets with these class counts drawn from `available` cards per class."""
    return math.prod(math.comb(a, h) for h, a in zip(hand, available) if h)


def _minus(a: tuple, b: tuple) -> tuple:
    """a - b, class by class."""
    return tuple(x - y for x, y in zip(a, b))


def _restricted(*vectors: tuple) -> tuple:
    """The vectors restricted to the classes where any of them is nonzero, order kept."""
    present = [c for c in range(len(vectors[0])) if any(vector[c] for vector in vectors)]
    return tuple(tuple(vector[c] for c in present) for vector in vectors)


class _Deals:
    """Deal classes and view roots of one game, grouped by canonical form."""

    def __init__(self, rules: Rules, progress: bool):
        self.rules = rules
        self.concrete = not rules.isomorphic
        self.progress = progress
        self.hands = [cards.rank_counts(hand, rules.num_classes) for hand in
                      cards.rank_multisets(rules.num_classes, rules.hand_size, SUITS_PER_RANK)]

    def dealable(self, available: tuple) -> list[tuple[tuple, int]]:
        """(hand, card sets it stands for) of every hand that can be dealt from `available`."""
        return [(hand, count) for hand in self.hands if (count := _set_count(hand, available))]

    def stood_for(self, choices: int) -> int:
        """What one class with `choices` concrete card choices stands for: itself
        (isomorphic), or the vira's suits times the choices (concrete)."""
        return SUITS_PER_RANK * choices if self.concrete else 1

    def deal_classes(self) -> tuple[collections.Counter, int]:
        """({canonical hands (h0, h1): concrete card sequences or deal classes}, deal classes)."""
        order = math.factorial(self.rules.hand_size) ** 2
        groups, classes = collections.Counter(), 0
        for vira in progress_bar(range(self.rules.num_ranks), "deal classes", self.progress):
            available = self.rules.class_counts(vira)
            for first, first_sets in self.dealable(available):
                for second, second_sets in self.dealable(_minus(available, first)):
                    classes += 1
                    groups[_restricted(first, second)] += self.stood_for(
                        order * first_sets * second_sets)
        return groups, classes

    def roots(self) -> collections.Counter:
        """{canonical (own hand, unseen counts): concrete or isomorphic roots} of either player."""
        groups = collections.Counter()
        for vira in range(self.rules.num_ranks):
            available = self.rules.class_counts(vira)
            for hand, sets in self.dealable(available):
                unseen = _minus(available, hand)
                if not self.concrete:
                    unseen = tuple(min(u, self.rules.hand_size) for u in unseen)
                groups[_restricted(hand, unseen)] += self.stood_for(sets)
        return groups

    def chance_nodes(self) -> int:
        """Chance nodes of the deal (module docstring)."""
        rules = self.rules
        if self.concrete:
            return sum(math.perm(rules.deck.num_cards, k) for k in range(2 * rules.hand_size + 1))
        return 1 + rules.num_ranks + sum(len(self.dealable(rules.class_counts(vira)))
                                         for vira in range(rules.num_ranks))


# --- the machine ------------------------------------------------------------------------------
def _start(rules: Rules) -> PublicState:
    """The machine right after the deal."""
    public = PublicState(rules)
    public.hands_dealt()
    return public


def _bets(public: PublicState):
    """The machine after each non-card action (card plays are expanded by the counters)."""
    for action in public.legal_actions():
        child = public.clone()
        child.apply(action)
        yield child


def _played(public: PublicState, item: int, covered: bool) -> PublicState:
    """The machine after the card player plays a card of class `item` (face down if covered)."""
    child = public.clone()
    child.play(0 if covered else item + 1, covered)
    return child


def _cover_options(public: PublicState) -> tuple[bool, ...]:
    """Face up only, or face up and covered."""
    return (False, True) if public.may_cover() else (False,)


def _removed(counts: tuple, item: int) -> tuple:
    """The class counts with one card of class `item` fewer."""
    return counts[:item] + (counts[item] - 1,) + counts[item + 1:]


class _HistoryCounter:
    """(histories, terminals, decision nodes) below a dealt hand pair, memoised."""

    def __init__(self, rules: Rules):
        self.start = _start(rules)
        self.concrete = not rules.isomorphic
        self.memo = {}

    def figures(self, hands: tuple) -> tuple[int, int, int]:
        """Counts below the deal of these hands (class counts of players 0 and 1)."""
        return self.count(self.start, hands)

    def count(self, public: PublicState, hands: tuple) -> tuple[int, int, int]:
        """Counts below a node; `hands` are both players' unplayed class counts."""
        key = (public.key(), hands)
        found = self.memo.get(key)
        if found is not None:
            return found
        if public.is_over():
            self.memo[key] = (1, 1, 0)
            return 1, 1, 0
        histories, terminals, decisions = 1, 0, 1
        for child in _bets(public):
            h, t, d = self.count(child, hands)
            histories, terminals, decisions = histories + h, terminals + t, decisions + d
        if public.is_card_turn():
            seat = public.card_player
            for item, held in enumerate(hands[seat]):
                if not held:
                    continue
                after = (_removed(hands[0], item), hands[1]) if seat == 0 else (
                    hands[0], _removed(hands[1], item))
                weight = held if self.concrete else 1
                for covered in _cover_options(public):
                    h, t, d = self.count(_played(public, item, covered), after)
                    histories += weight * h
                    terminals += weight * t
                    decisions += weight * d
        self.memo[key] = (histories, terminals, decisions)
        return histories, terminals, decisions


class _ViewCounter:
    """Decision points of one player in his view tree (= his information states).

    Memoised per (machine key, own hand) as a polynomial {k: c_k} in the unseen counts u: the
    count below a node is sum_k c_k prod_c f(u_c, k_c), k the class counts the opponent plays
    face up below, f(u, k) = u (u - 1) ... (u - k + 1) (concrete: one branch per unseen card)
    or [k <= u] (isomorphic: one branch per class still unseen). The coefficients do not depend
    on u, so roots with the same own hand share every node.
    """

    def __init__(self, rules: Rules, player: int):
        self.start = _start(rules)
        self.player = player
        self.concrete = not rules.isomorphic
        self.memo = {}
        self.factors = {}

    def figures(self, root: tuple) -> tuple[int]:
        """(information states,) from a root (own class counts, class counts unseen by him)."""
        own, unseen = root
        return (sum(coefficient * self._factor(power, unseen)
                    for power, coefficient in self.polynomial(self.start, own).items()),)

    def _factor(self, power: int, unseen: tuple) -> int:
        """prod_c f(u_c, k_c) for the encoded opponent class counts k (class docstring)."""
        digits = self.factors.get(power)
        if digits is None:
            digits = self.factors[power] = [
                (item, power // _BASE ** item % _BASE) for item in range(len(unseen))
                if power // _BASE ** item % _BASE]
        if self.concrete:
            return math.prod(math.perm(unseen[item], k) for item, k in digits)
        return int(all(k <= unseen[item] for item, k in digits))

    def polynomial(self, public: PublicState, own: tuple) -> dict:
        """The view count below a node as {encoded k: c_k} (class docstring)."""
        key = (public.key(), own)
        found = self.memo.get(key)
        if found is not None:
            return found
        found = {}
        if not public.is_over():
            if public.to_act == self.player:
                found[0] = 1
            for child in _bets(public):
                add_shifted(found, self.polynomial(child, own), 1, 0)
            if public.is_card_turn() and public.card_player == self.player:
                self._own_plays(found, public, own)
            elif public.is_card_turn():
                self._opponent_plays(found, public, own)
        self.memo[key] = found
        return found

    def _own_plays(self, found: dict, public: PublicState, own: tuple) -> None:
        """found += the player's card plays (face up or covered) at his card turn."""
        for item, held in enumerate(own):
            if held:
                for covered in _cover_options(public):
                    add_shifted(found, self.polynomial(_played(public, item, covered),
                                                       _removed(own, item)),
                                held if self.concrete else 1, 0)

    def _opponent_plays(self, found: dict, public: PublicState, own: tuple) -> None:
        """found += the opponent's plays: a face-up card of any class, or a covered one."""
        for item in range(len(own)):
            add_shifted(found, self.polynomial(_played(public, item, False), own), 1,
                        _BASE ** item)
        if public.may_cover():
            add_shifted(found, self.polynomial(_played(public, 0, True), own), 1, 0)


# --- totals -----------------------------------------------------------------------------------
def _sum(groups: collections.Counter, figures, samples: int | None, rng: np.random.Generator,
         description: str, progress: bool) -> tuple[list, list | None]:
    """(totals, 95% half-widths or None) of `figures(group)` (a tuple) over the groups, each
    weighted by what it stands for: exactly, or from `samples` groups drawn in proportion."""
    keys = list(groups)
    weights = [groups[key] for key in keys]
    if samples is None:
        totals = None
        for key, weight in zip(progress_bar(keys, description, progress), weights):
            scaled = [weight * value for value in figures(key)]
            totals = scaled if totals is None else [a + b for a, b in zip(totals, scaled)]
        return totals, None
    stood_for = sum(weights)
    chosen = rng.choice(len(keys), size=samples, p=np.array(weights, float) / float(stood_for))
    values = [figures(keys[index]) for index in progress_bar(chosen, description, progress)]
    estimates = [mean_and_half_width(column, stood_for) for column in zip(*values)]
    return [total for total, _ in estimates], [width for _, width in estimates]


def truco_sizes(game: pyspiel.Game, samples: int | None = None, seed: int = 0,
                infosets: bool = True, progress: bool = False) -> TreeSize:
    """Sizes of a two-player Truco hand with seen cards (module docstring): exact, or with
    `samples` a sampled estimate (random choices seeded by `seed`). `infosets=False` skips the
    information states; `progress` shows tqdm bars on stderr."""
    if not counts_truco(game):
        raise ValueError(f"truco_sizes needs a two-player {' or '.join(TRUCO_GAMES)} game "
                         f"without the blind iron hand, got {game}")
    check_samples(samples)
    rules = game.rules
    deals = _Deals(rules, progress)
    rng = np.random.default_rng(seed)
    groups, classes = deals.deal_classes()
    (histories, terminals, decisions), widths = _sum(
        groups, _HistoryCounter(rules).figures, samples, rng, "histories", progress)
    half_widths = {} if widths is None else dict(zip(FIGURES[:3], widths))
    views = None
    if infosets:
        roots = deals.roots()
        sums = [_sum(roots, _ViewCounter(rules, player).figures, samples, rng,
                     f"infosets p{player}", progress) for player in range(2)]
        views = tuple(totals[0] for totals, _ in sums)
        if samples is not None:
            half_widths["infosets"] = tuple(widths[0] for _, widths in sums)
    chance = deals.chance_nodes()
    return TreeSize(
        str(game), histories + chance, terminals, decisions, chance, views,
        method="exact" if samples is None else f"sampled {samples}", half_widths=half_widths,
        extras={"deal classes": classes,
                "concrete deals": math.perm(rules.deck.num_cards, 2 * rules.hand_size + 1)})
