"""Shared card model: ranks, suits, `7s` notation, strength scales and suit-free hand classes.

Notation (games/RULES.md, Conventions): rank `2 3 4 5 6 7 8 9 T J Q K A` followed by suit
`c d h s`, e.g. `7s`, `Th`, `Ac`.

A `Deck` orders its cards by a *strength scale* (weakest rank first) and numbers them
`card = rank_index * num_suits + suit_index`, so `card // num_suits` is the card's strength class.
Games whose strength depends on the deal (Truco's manilhas) keep this order for identity and
compute strength separately.

Isomorphic (suit-free) modes deal whole hands as rank *multisets*; `rank_multisets` enumerates
them and `multiset_weight` counts the concrete deals behind one (a product of binomials).
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import cached_property

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"


def card_string(rank: str, suit: str) -> str:
    """`card_string('7', 's') == '7s'`."""
    return rank + suit


def parse_card(text: str) -> tuple[str, str]:
    """`parse_card('7s') == ('7', 's')`; raises ValueError on anything else."""
    if len(text) != 2 or text[0] not in RANK_CHARS or text[1] not in SUIT_CHARS:
        raise ValueError(
            f"bad card {text!r}: expected a rank from {RANK_CHARS!r} followed by a suit from "
            f"{SUIT_CHARS!r}, e.g. '7s'")
    return text[0], text[1]


@dataclass(frozen=True)
class Deck:
    """Ranks listed weakest first (a strength scale) times suits.

    Attributes:
      ranks: rank characters, weakest first, e.g. "9TJQKA87" for Le Truc.
      suits: suit characters, in the order used for card numbering.
    """

    ranks: str
    suits: str = SUIT_CHARS

    def __post_init__(self):
        if len(set(self.ranks)) != len(self.ranks) or any(r not in RANK_CHARS for r in self.ranks):
            raise ValueError(f"bad rank list {self.ranks!r}: distinct ranks from {RANK_CHARS!r}")

    @property
    def num_ranks(self) -> int:
        return len(self.ranks)

    @property
    def num_suits(self) -> int:
        return len(self.suits)

    @property
    def num_cards(self) -> int:
        return self.num_ranks * self.num_suits

    def rank_index(self, card: int) -> int:
        """Strength class of `card` (0 = weakest rank)."""
        return card // self.num_suits

    def suit_index(self, card: int) -> int:
        return card % self.num_suits

    def card(self, rank_index: int, suit_index: int) -> int:
        return rank_index * self.num_suits + suit_index

    @cached_property
    def names(self) -> tuple[str, ...]:
        """Card strings indexed by card number."""
        return tuple(card_string(r, s) for r in self.ranks for s in self.suits)

    def name(self, card: int) -> str:
        return self.names[card]

    def index(self, text: str) -> int:
        """Card number of a card string; ValueError if the card is not in this deck."""
        rank, suit = parse_card(text)
        if rank not in self.ranks or suit not in self.suits:
            raise ValueError(
                f"card {text!r} is not in this deck (ranks {self.ranks!r}, suits {self.suits!r})")
        return self.card(self.ranks.index(rank), self.suits.index(suit))

    def rank_name(self, rank_index: int) -> str:
        return self.ranks[rank_index]


def strongest_ranks(scale_weakest_first: str, num_ranks: int) -> str:
    """The `num_ranks` strongest ranks of a scale, still weakest first."""
    if not 1 <= num_ranks <= len(scale_weakest_first):
        raise ValueError(
            f"num_ranks={num_ranks} is out of range: allowed 1..{len(scale_weakest_first)}")
    return scale_weakest_first[len(scale_weakest_first) - num_ranks:]


def rank_multisets(num_ranks: int, hand_size: int, copies: int) -> tuple[tuple[int, ...], ...]:
    """Every hand of `hand_size` rank classes (sorted, weakest first) with at most `copies` of a rank.

    Returned in lexicographic order; the position in this tuple is the chance outcome of a
    whole-hand deal in isomorphic mode.
    """
    return tuple(
        hand for hand in itertools.combinations_with_replacement(range(num_ranks), hand_size)
        if all(hand.count(r) <= copies for r in set(hand)))


def rank_counts(hand: tuple[int, ...], num_ranks: int) -> tuple[int, ...]:
    """Counts per rank class of a multiset hand."""
    counts = [0] * num_ranks
    for rank in hand:
        counts[rank] += 1
    return tuple(counts)


def multiset_weight(hand: tuple[int, ...], available: tuple[int, ...]) -> int:
    """Number of concrete card sets with these rank classes, drawn from `available` cards per rank."""
    counts = rank_counts(hand, len(available))
    return math.prod(math.comb(available[r], k) for r, k in enumerate(counts) if k)
