"""Shared rules of the Truc family: tricks, the hand result, and the raise ladder.

Rules: games/RULES.md, LT-5..LT-7 (section 1) and TP-8..TP-10 (section 2).

These pieces know nothing of private hands or chance. A game's *public-state machine* (betting,
played cards, trick results, turn) is built from them, and the private hands only decide which
card actions are legal; the OpenSpiel game wraps the machine with chance and players, and a
solver can walk the same public states with vectors of hands (the public-tree engine,
`solver/public/`).

Sides, not seats, win tricks: in a 2-player game side = seat; with partnerships (Truco, 4
players) a side is a team. Cards are compared by an integer *strength* chosen by the game (Le
Truc: the rank class; Truco: the vira-dependent scale with covered cards at 0).

* `settle_trick`: LT-5 and TP-8 (highest strength wins; equal tops of different
  sides tie, "spoil"; the winning card's player leads next, after a tie the player of the first
  top card, i.e. in 2-player play the leader of the tied trick).
* `hand_result`: LT-6 = TP-9, checked after every trick.
* `Ladder`: the strictly increasing stake values (LT-7, TP-10).
* `PublicMachine`: the base of each game's public-state machine (cheap clones, a memo key).
"""
from __future__ import annotations

import abc
import operator
from dataclasses import dataclass
from typing import Sequence

TIE = -1  # a spoiled (Le Truc) or tied (Truco) trick
UNDECIDED = -2  # hand_result: play the next trick
ALL_TIED = -3  # hand_result: every trick tied; the game applies its own rule (void, dealer, mão)


@dataclass(frozen=True)
class Play:
    """One card on the table: who played it, for which side, and how strong it is."""

    seat: int
    side: int
    strength: int


class PublicMachine:
    """Base of a game's public-state machine: slotted fields, cheap clones, a key of the future.

    Subclasses list their fields in `__slots__`, the immutable rules object first, then at least
    two fields.
    """

    __slots__ = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._future_fields = operator.attrgetter(*cls.__slots__[1:])  # a tuple, in one C call
        cls.clone = _field_copier(cls)  # a copy sharing every (immutable) field

    def __deepcopy__(self, memo):
        """OpenSpiel clones Python states by deep-copying them: copy the fields, share the rules."""
        return self.clone()

    def key(self) -> tuple:
        """Everything that decides the future of the hand (every field but the rules)."""
        return self._future_fields(self)


def _field_copier(cls):
    """`clone` for a slotted class, written out field by field (`other.x = self.x`) and
    compiled once, as `dataclasses` writes its methods: a tree build clones once per public
    node, and a loop of getattr / setattr over the slots was a sixth of its time."""
    lines = ["def clone(self):", "    other = new(cls)"]
    lines += [f"    other.{name} = self.{name}" for name in cls.__slots__]
    lines.append("    return other")
    namespace = {"new": object.__new__, "cls": cls}
    exec("\n".join(lines), namespace)
    return namespace["clone"]


def settle_trick(plays: Sequence[Play]) -> tuple[int, int]:
    """A complete trick's (winner, next leader): the side holding the top strength alone, or
    TIE when two sides hold it; the seat of the first top card leads next (the winner, or after
    a tie the first of the tied top cards, in 2-player play the tied trick's leader)."""
    top = max(play.strength for play in plays)
    tops = [play for play in plays if play.strength == top]
    winner = tops[0].side if all(play.side == tops[0].side for play in tops) else TIE
    return winner, tops[0].seat


def hand_result(trick_winners: Sequence[int], hand_size: int) -> int:
    """LT-6 / TP-9: the winning side, ALL_TIED, or UNDECIDED (play on).

    1. a side with 2 won tricks wins;
    2. else, if a trick was won and one tied, the winner of the earliest won trick wins;
    3. else, after the last trick: all tied -> ALL_TIED, otherwise the earliest winner wins;
    4. else the next trick is played.
    """
    won = [winner for winner in trick_winners if winner != TIE]
    for side in set(won):
        if won.count(side) >= 2:
            return side
    if won and len(won) < len(trick_winners):
        return won[0]
    if len(trick_winners) >= hand_size:
        return won[0] if won else ALL_TIED
    return UNDECIDED


@dataclass(frozen=True)
class Ladder:
    """Strictly increasing stake values starting at 1; `values[-1]` is the top."""

    values: tuple[int, ...]

    def __post_init__(self):
        values = self.values
        if not values or values[0] != 1 or any(b <= a for a, b in zip(values, values[1:])):
            raise ValueError(f"stake ladder {list(values)} must start at 1 and increase strictly")

    @property
    def top(self) -> int:
        return self.values[-1]

    def next_value(self, stake: int) -> int | None:
        """The value a raise from `stake` proposes, or None at the top."""
        position = self.values.index(stake)
        return self.values[position + 1] if position + 1 < len(self.values) else None

    def __str__(self) -> str:
        return ":".join(map(str, self.values))


def parse_ladder_list(text: str, parameter: str = "stake_ladder") -> tuple[int, ...]:
    """Parses a colon-separated list of stake values such as `1:3:5:12`."""
    try:
        return tuple(int(part) for part in text.split(":"))
    except ValueError:
        raise ValueError(
            f"{parameter}={text!r} is not a colon-separated list of whole numbers "
            f"(e.g. 1:3:5:12)") from None


class PublicGame(abc.ABC):
    """What the public-tree engine (`solver/public/`) needs of a Truc-family hand: the contract
    between a game and that engine.

    A hand is played on a public-state machine (`PublicMachine`: `to_act`, `is_over`,
    `returns`, `is_card_turn`, `legal_actions` and `apply` for the non-card actions) from
    `root()`, the first decision after the deal. Private hands are multisets of card *classes*
    0..len(class_counts) - 1 (cards that play alike: Le Truc's ranks, Truco's strength classes),
    dealt without replacement from `class_counts[c]` cards of each class, `hand_size` to each
    player; the engine derives every deal's exact weight from these counts (a multinomial), so
    a game whose deal is not that (a public card turned first, like Truco's vira) is split into
    one `PublicGame` per public outcome, each with its `weight` (`label` names it).

    At a card turn the player to act may play any class he holds face up (`card_action(c,
    False, ...)`; `play_card(public, c, False)`) and, where `may_cover(public)` says so, face
    down (`card_action(c, True, ...)`, `play_card(public, c, True)`): which class he covered
    then stays his private knowledge, and the payoff of every terminal depends on public
    information only.

    For match solving (`solver.matchgrid.public_engine`) a terminal machine says whether its
    points are what the winner needed to win the match (`whole_match`: a rest, a forfeited
    match) rather than a stake, and the game's rules name the scores at which the hand is
    played on the same tree (`Rules.tree_scores()`): states that share a tree differ only in
    what the `whole_match` terminals score.
    """

    label: str = ""
    weight: float = 1.0
    hand_size: int
    class_counts: tuple[int, ...]

    def identity(self) -> tuple:
        """What makes the sub-game what it is: two sub-games of one game with equal identities
        are the same game under other names (the same tree, deals and payoffs), so one solve
        serves both. Each is itself unless the game says otherwise."""
        return (self.label,)

    @abc.abstractmethod
    def root(self) -> PublicMachine:
        """A fresh machine at the first decision after the deal."""

    def may_cover(self, public: PublicMachine) -> bool:
        """Whether the card player may now play face down."""
        return False

    @abc.abstractmethod
    def play_card(self, public: PublicMachine, item: int, covered: bool) -> None:
        """The card player plays a card of class `item` (face down if `covered`)."""

    @abc.abstractmethod
    def card_action(self, item: int, covered: bool, last_card: bool) -> int:
        """The OpenSpiel action (isomorphic game) playing class `item`; `last_card`: it is the
        player's last card."""

    @abc.abstractmethod
    def class_name(self, item: int) -> str:
        """Class `item` as the isomorphic game's hands and actions name it (`7`, `Qc`)."""

    @abc.abstractmethod
    def bet_name(self, action: int) -> str:
        """The isomorphic game's string of a non-card action (`Raise`, `Accept`, ...)."""
