"""Two-Ten-Jack, a two-player Japanese trick-taking game, as an OpenSpiel Python game
(`python_two_ten_jack`): one deal.

Rules and parameters: games/RULES.md, section 4 (ids TTJ-1..TTJ-9). Parameters: `target`,
`score0`, `score1`, `dealer`; size parameters `ranks`, `hand_size` and `suits` (kept suits: beyond
the rules, only to make variants small enough for the exact solver). `returns()` are the deal's
points, own minus the opponent's; `match_result(state)` applies TTJ-1 to a finished deal.

Information state strings show the dealt hand sorted (the order inside the deal is not
strategic), then every trick and the player's own draw after it (`history_string`): a trick and
an own draw append to the string, an opponent's draw leaves it alone.

Exact solver: states have `subtree_key()` (see `Deal.subtree_key`: who is due a card, who
plays, the open trick, the tricks done, the point difference, both hands and the undealt
cards), so `solver.compile_game` uses its memoized compiler: play after the deal is public and
every draw extends the drawer's information state string. `compile_walk_state()` hands it the
state's `Deal` (the rules' logic and the changing record, which the OpenSpiel state wraps)
without OpenSpiel's deep-copy clone. `suits=h:s,ranks=2:T:J:A,hand_size=2` compiles in 3 s
instead of 379 s by traversal.
"""
from __future__ import annotations

import dataclasses
import enum
import operator
from functools import cached_property

import pyspiel

from games.cards import RANK_CHARS, SUIT_CHARS, Deck
from games.observer import Observer, allocate_tensor

_NUM_PLAYERS = 2
_FULL_RANKS = ":".join(RANK_CHARS)
_REQUIRED_RANKS = "2TJA"
_FULL_SUITS = ":".join(SUIT_CHARS)
_REQUIRED_SUITS = "hs"
_DEFAULT_PARAMS = {
    "target": 31,
    "score0": 0,
    "score1": 0,
    "dealer": 1,
    "ranks": _FULL_RANKS,
    "hand_size": 6,
    "suits": _FULL_SUITS,
}
_CARD_POINTS = {"2h": 5, "Th": 5, "Jh": 5, "2c": -5, "Tc": -5, "Jc": -5,
                "2s": 1, "Ts": 1, "Js": 1, "As": 1, "Jd": 1}
_POSITIVE_POINTS = sum(p for p in _CARD_POINTS.values() if p > 0)
_NEGATIVE_POINTS = -sum(p for p in _CARD_POINTS.values() if p < 0)
_FULL_DECK_SIZE = len(RANK_CHARS) * len(SUIT_CHARS)
_HEARTS = SUIT_CHARS.index("h")
_SPADES = SUIT_CHARS.index("s")


class Lead(enum.IntEnum):
    """The two declarations of a led As, as offsets past the card actions (`Play <card>`)."""
    AS_TRUMP = 0
    AS_SPADE = 1


_GAME_TYPE = pyspiel.GameType(
    short_name="python_two_ten_jack",
    long_name="Python Two-Ten-Jack",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=_NUM_PLAYERS,
    min_num_players=_NUM_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULT_PARAMS)
_GAME_INFO = pyspiel.GameInfo(
    # Full deck: 52 `Play <card>` actions, then `Lead As trump`, `Lead As spade`.
    num_distinct_actions=_FULL_DECK_SIZE + len(Lead),
    max_chance_outcomes=_FULL_DECK_SIZE,  # one undealt card
    num_players=_NUM_PLAYERS,
    # Own points minus the opponent's: at best every positive card (+20) against every club (-15).
    min_utility=-float(_POSITIVE_POINTS + _NEGATIVE_POINTS),
    max_utility=float(_POSITIVE_POINTS + _NEGATIVE_POINTS),
    utility_sum=0.0,
    max_game_length=2 * _FULL_DECK_SIZE)  # every card dealt or drawn, then played


def parse_ranks(text: str) -> str:
    """Validated `ranks` parameter → rank characters weakest first, e.g. '2:T:J:A' → '2TJA'."""
    return _parse_kept("ranks", text, RANK_CHARS, _REQUIRED_RANKS,
                       "2, T, J and A (every scoring card and the As)", "2:T:J:A")


def parse_suits(text: str) -> str:
    """Validated `suits` parameter → suit characters in c d h s order, e.g. 's:h' → 'hs'."""
    return _parse_kept("suits", text, SUIT_CHARS, _REQUIRED_SUITS,
                       "h and s (the trumps and the As)", "h:s")


def _parse_kept(name: str, text: str, alphabet: str, required: str, why: str,
                example: str) -> str:
    """A colon-separated list of distinct characters of `alphabet` that keeps every one of
    `required` (`why` says why), returned in `alphabet` order; else a one-line ValueError."""
    parts = text.split(":")
    if any(p not in alphabet or len(p) != 1 for p in parts) or len(set(parts)) != len(parts):
        raise ValueError(f"{name}={text!r} is not allowed: give distinct {name} from "
                         f"{' '.join(alphabet)} separated by ':', e.g. {example!r}")
    missing = [c for c in required if c not in parts]
    if missing:
        raise ValueError(f"{name}={text!r} must keep {why}; missing {', '.join(missing)}")
    return "".join(sorted(parts, key=alphabet.index))


@dataclasses.dataclass(frozen=True)
class Rules:
    """The immutable card model of one parameterised game, shared by all its states."""

    deck: Deck
    hand_size: int
    dealer: int
    target: int
    scores: tuple[int, int]

    def __deepcopy__(self, memo):
        """Shared, never copied: states clone fast."""
        return self

    @cached_property
    def num_cards(self) -> int:
        """Cards in the deck."""
        return self.deck.num_cards

    @cached_property
    def num_tricks(self) -> int:
        """Tricks in a deal: every card is played."""
        return self.num_cards // 2

    @property
    def stock_size(self) -> int:
        """Cards left after the deal."""
        return self.num_cards - 2 * self.hand_size

    @cached_property
    def ace_of_spades(self) -> int:
        """Card number of the As."""
        return self.deck.index("As")

    @cached_property
    def lead_as_trump(self) -> int:
        """Action id of `Lead As trump`."""
        return self.num_cards + Lead.AS_TRUMP

    @cached_property
    def lead_as_spade(self) -> int:
        """Action id of `Lead As spade`."""
        return self.num_cards + Lead.AS_SPADE

    @property
    def first_leader(self) -> int:
        """The non-dealer, who leads the first trick."""
        return 1 - self.dealer

    @cached_property
    def _suits(self) -> tuple[int, ...]:
        """Suit index per card, in c d h s (the same index whichever suits the deck keeps)."""
        return tuple(SUIT_CHARS.index(self.deck.suits[self.deck.suit_index(c)])
                     for c in range(self.num_cards))

    @cached_property
    def _ranks(self) -> tuple[int, ...]:
        """Rank index per card (0 = weakest kept rank)."""
        return tuple(self.deck.rank_index(c) for c in range(self.num_cards))

    @cached_property
    def _points(self) -> tuple[int, ...]:
        """TTJ-8 points per card."""
        return tuple(_CARD_POINTS.get(name, 0) for name in self.deck.names)

    def suit(self, card: int) -> int:
        """Suit index of `card` (c d h s)."""
        return self._suits[card]

    def rank(self, card: int) -> int:
        """Strength of `card` within its suit."""
        return self._ranks[card]

    def name(self, card: int) -> str:
        """`7s` notation of `card`."""
        return self.deck.names[card]

    def points(self, card: int) -> int:
        """TTJ-8 points of `card`."""
        return self._points[card]

    @cached_property
    def trumps(self) -> frozenset[int]:
        """Hearts and the As."""
        return frozenset(c for c in range(self.num_cards) if self.is_trump(c))

    def is_trump(self, card: int) -> bool:
        """Hearts and the As."""
        return self._suits[card] == _HEARTS or card == self.ace_of_spades

    def follow_group(self, lead_card: int, as_spade: bool) -> frozenset[int]:
        """Cards that follow suit to this lead: trump set, spade set, or the led suit."""
        if lead_card == self.ace_of_spades:
            return self._suit_groups[_SPADES if as_spade else _HEARTS]
        return self._suit_groups[self._suits[lead_card]]

    @cached_property
    def _suit_groups(self) -> tuple[frozenset[int], ...]:
        """Per suit c d h s, the cards that follow it (hearts and spades include the As)."""
        groups = []
        for suit in range(len(SUIT_CHARS)):
            cards = {c for c in range(self.num_cards) if self._suits[c] == suit}
            if suit in (_HEARTS, _SPADES):
                cards.add(self.ace_of_spades)
            groups.append(frozenset(cards))
        return tuple(groups)

    def trick_winner_is_follower(self, lead_card: int, as_spade: bool, follow_card: int) -> bool:
        """TTJ-6: As wins; else highest heart; else highest card of the led suit."""
        if lead_card == self.ace_of_spades:
            return False
        if follow_card == self.ace_of_spades:
            return True
        lead_suit, follow_suit = self._suits[lead_card], self._suits[follow_card]
        if follow_suit == _HEARTS and lead_suit != _HEARTS:
            return True
        return follow_suit == lead_suit and self._ranks[follow_card] > self._ranks[lead_card]

    def legal_actions(self, hand: set[int], trick: "Trick | None") -> list[int]:
        """The actions of a player holding `hand` before `trick`'s second card (None: he leads),
        ascending: leading, any card, the As only through its two declarations; following,
        the led group, else a trump, else any card."""
        if trick is None:
            actions = sorted(c for c in hand if c != self.ace_of_spades)
            if self.ace_of_spades in hand:
                actions += [self.lead_as_trump, self.lead_as_spade]
            return actions
        group = hand & self.follow_group(trick.lead, trick.as_spade)
        if not group:
            group = {c for c in hand if self.is_trump(c)} or hand
        return sorted(group)

    def lead_action(self, trick: "Trick") -> int:
        """The action that led `trick`'s first card (the As: the declaration it was led with)."""
        if trick.lead != self.ace_of_spades:
            return trick.lead
        return self.lead_as_spade if trick.as_spade else self.lead_as_trump

    def action_name(self, action: int) -> str:
        """`Play 7s`, `Lead As trump` or `Lead As spade`."""
        if action == self.lead_as_trump:
            return "Lead As trump"
        if action == self.lead_as_spade:
            return "Lead As spade"
        return f"Play {self.name(action)}"


@dataclasses.dataclass(frozen=True)
class Trick:
    """One trick: who led, the two cards, the As declaration, and the winner (None while open)."""

    leader: int
    lead: int
    as_spade: bool = False
    follow: int | None = None
    winner: int | None = None


@dataclasses.dataclass(frozen=True)
class MatchResult:
    """Match scores after a deal; `winner` is None while the match goes on."""

    score0: int
    score1: int
    winner: int | None
    next_dealer: int


def match_winner(score0: int, score1: int, target: int) -> int | None:
    """TTJ-1: who has won the match at these scores (None: play another deal)."""
    over0, over1 = score0 >= target, score1 >= target
    if over0 and over1:
        return None if score0 == score1 else int(score1 > score0)
    if over0 or over1:
        return 0 if over0 else 1
    return None


def match_result(state: "TwoTenJackState") -> MatchResult:
    """Match scores, winner and next dealer after the finished deal `state`."""
    if not state.is_terminal():
        raise ValueError("match_result needs a finished deal: the state is not terminal")
    rules = state.rules
    score0 = rules.scores[0] + state.points[0]
    score1 = rules.scores[1] + state.points[1]
    return MatchResult(score0, score1, match_winner(score0, score1, rules.target), 1 - rules.dealer)


class TwoTenJackGame(pyspiel.Game):
    """Two-Ten-Jack: one deal, with match scores and size parameters."""

    def __init__(self, params=None):
        """Validates the parameters; the action and chance sizes follow the deck."""
        params = {**_DEFAULT_PARAMS, **(params or {})}
        rules = _rules_from_params(params)
        num_cards = rules.num_cards
        game_info = pyspiel.GameInfo(
            num_distinct_actions=num_cards + len(Lead),
            max_chance_outcomes=num_cards,
            num_players=_NUM_PLAYERS,
            min_utility=_GAME_INFO.min_utility,
            max_utility=_GAME_INFO.max_utility,
            utility_sum=0.0,
            max_game_length=2 * num_cards)
        super().__init__(_GAME_TYPE, game_info, params)
        self.rules = rules

    def new_initial_state(self):
        """The deal before any card is dealt."""
        return TwoTenJackState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        """Observer for information states (perfect recall) or observations."""
        return TwoTenJackObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), self.rules, params)


def _rules_from_params(params: dict) -> Rules:
    """Validated parameters → Rules."""
    deck = Deck(parse_ranks(params["ranks"]), parse_suits(params["suits"]))
    hand_size, dealer = params["hand_size"], params["dealer"]
    if not 1 <= hand_size <= deck.num_cards // 2:
        raise ValueError(f"hand_size={hand_size} is not allowed with {deck.num_cards} cards: "
                         f"use 1..{deck.num_cards // 2}")
    if dealer not in (0, 1):
        raise ValueError(f"dealer={dealer} is not allowed: use 0 or 1")
    if params["target"] < 1:
        raise ValueError(f"target={params['target']} is not allowed: use a positive number")
    return Rules(deck, hand_size, dealer, params["target"], (params["score0"], params["score1"]))


class Deal:
    """One deal outside OpenSpiel: the rules, the changing record and the rules' logic.

    `TwoTenJackState` wraps one (and checks the actions applied); the memoized tree compiler
    (`solver.tree`) walks Deals directly (`TwoTenJackState.compile_walk_state`), cloning them
    without OpenSpiel's deep copy. OpenSpiel clones a Python state by deep-copying each of its
    attributes; the generic deep copy of these sets, lists and frozen tricks took most of the time
    of a walk over the game tree, hence `clone`.
    """

    __slots__ = ("rules", "hands", "received", "tricks", "points", "won", "used", "to_receive")

    def __init__(self, rules: Rules):
        """Empty hands; `hand_size` cards due to player 0, then to player 1."""
        self.rules = rules
        self.hands = [set(), set()]
        self.received = [[], []]  # per player: (tricks completed when received, card)
        self.tricks: list[Trick] = []
        self.points = [0, 0]
        self.won = [[], []]
        self.used = set()  # dealt or drawn cards
        self.to_receive = [0] * rules.hand_size + [1] * rules.hand_size

    def clone(self) -> "Deal":
        """New containers; their items (card numbers, tuples, frozen tricks) and the rules are
        shared."""
        other = Deal.__new__(Deal)
        other.rules = self.rules
        other.hands = [set(hand) for hand in self.hands]
        other.received = [list(received) for received in self.received]
        other.tricks = list(self.tricks)
        other.points = list(self.points)
        other.won = [list(won) for won in self.won]
        other.used = set(self.used)
        other.to_receive = list(self.to_receive)
        return other

    def __deepcopy__(self, memo):
        """OpenSpiel clones Python states by deep-copying their attributes."""
        return self.clone()

    # --- chance ------------------------------------------------------------------------------
    def is_chance_node(self) -> bool:
        """Cards are due (the deal, or the draws after a trick)."""
        return bool(self.to_receive)

    def chance_outcomes(self):
        """Uniform over the cards not dealt or drawn yet."""
        outcomes = [c for c in range(self.rules.num_cards) if c not in self.used]
        p = 1.0 / len(outcomes)
        return [(c, p) for c in outcomes]

    def receive(self, card: int):
        """Gives `card` to the next player due a card."""
        player = self.to_receive.pop(0)
        self.used.add(card)
        self.hands[player].add(card)
        self.received[player].append((self.completed_tricks(), card))

    def completed_tricks(self) -> int:
        """Tricks with both cards played."""
        return len(self.tricks) - (self.open_trick() is not None)

    def stock_left(self) -> int:
        """Cards not dealt or drawn yet."""
        return self.rules.num_cards - len(self.used)

    # --- play --------------------------------------------------------------------------------
    def current_player(self) -> int:
        """Chance while cards are due, the trick's next player, or TERMINAL."""
        if self.to_receive:
            return pyspiel.PlayerId.CHANCE
        if len(self.tricks) == self.rules.num_tricks and self.tricks[-1].winner is not None:
            return pyspiel.PlayerId.TERMINAL
        return self.next_to_play()

    def next_to_play(self) -> int:
        """The leader of a new trick, or the follower of the open one."""
        if not self.tricks:
            return self.rules.first_leader
        last = self.tricks[-1]
        return last.winner if last.winner is not None else 1 - last.leader

    def open_trick(self) -> Trick | None:
        """The trick waiting for its second card, if any."""
        if self.tricks and self.tricks[-1].winner is None:
            return self.tricks[-1]
        return None

    def legal_actions_of(self, player: int) -> list[int]:
        """Card actions (and the As declarations when leading), ascending."""
        return self.rules.legal_actions(self.hands[player], self.open_trick())

    def legal_actions(self) -> list[int]:
        """The legal actions of the player to act (chance: the possible outcomes)."""
        if self.to_receive:
            return [card for card, _ in self.chance_outcomes()]
        return self.legal_actions_of(self.next_to_play())

    def apply_action(self, action: int):
        """Deals or draws a card, or plays one (unchecked: see `TwoTenJackState`)."""
        if self.to_receive:
            self.receive(action)
        else:
            self.play(self.next_to_play(), action)

    def child(self, action: int) -> "Deal":
        """A copy with `action` applied."""
        other = self.clone()
        other.apply_action(action)
        return other

    def play(self, player: int, action: int):
        """Leads or follows; a completed trick is scored and starts the draws."""
        rules = self.rules
        card = rules.ace_of_spades if action >= rules.num_cards else action
        self.hands[player].discard(card)
        trick = self.open_trick()
        if trick is None:
            self.tricks.append(Trick(player, card, action == rules.lead_as_spade))
            return
        winner = player if rules.trick_winner_is_follower(trick.lead, trick.as_spade, card) \
            else trick.leader
        self.tricks[-1] = dataclasses.replace(trick, follow=card, winner=winner)
        self.won[winner] += [trick.lead, card]
        self.points[winner] += rules.points(trick.lead) + rules.points(card)
        if len(self.used) < rules.num_cards:
            self.to_receive = [winner, 1 - winner]

    def is_terminal(self) -> bool:
        """True once every card has been played."""
        return self.current_player() == pyspiel.PlayerId.TERMINAL

    def returns(self) -> list[float]:
        """Own deal points minus the opponent's, at the end of the deal (0 before)."""
        if not self.is_terminal():
            return [0.0, 0.0]
        diff = float(self.points[0] - self.points[1])
        return [diff, -diff]

    def subtree_key(self):
        """Hashable key: deals with equal keys have identical subtrees (players, legal actions,
        chance outcomes and probabilities, returns).

        The future depends on the players due a card, the player to lead or follow, the open
        trick (its leader, card and As declaration), the tricks completed, the point difference
        (returns are the final difference), both hands and the cards not dealt or drawn yet (the
        stock is drawn uniformly card by card from them: only the set matters). Hands and the
        undealt cards are bit masks. Left out as irrelevant to the future: the order and
        content of past tricks, the cards each player won, when each card was received.
        """
        trick = self.open_trick()
        return (tuple(self.to_receive), self.next_to_play(),
                None if trick is None else (trick.lead, trick.as_spade), len(self.tricks),
                self.points[0] - self.points[1], _mask(self.hands[0]), _mask(self.hands[1]),
                _mask(self.used))

    def information_state_string(self, player: int) -> str:
        """`player`'s information state string (the same as `TwoTenJackState`'s)."""
        return history_string(self, player)

    def __str__(self):
        """Both hands and the tricks, for debugging."""
        hands = " | ".join(f"p{p}: {_cards(self.rules, hand)}" for p, hand in enumerate(self.hands))
        tricks = "".join(" " + _trick_string(self.rules, i, t) for i, t in enumerate(self.tricks))
        return f"{hands} | points {self.points[0]} {self.points[1]} |{tricks}"


def _mask(cards) -> int:
    """Bit mask of a set of card numbers."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def _deal_field(name: str, doc: str) -> property:
    """A read-only state attribute that lives in the state's `Deal`."""
    return property(operator.attrgetter(f"_deal.{name}"), doc=doc)


class TwoTenJackState(pyspiel.State):
    """A deal in progress as an OpenSpiel state: a `Deal`, and checks on the actions applied."""

    rules = _deal_field("rules", "The game's `Rules`.")
    hands = _deal_field("hands", "Per player, the set of cards in hand.")
    received = _deal_field("received", "Per player, (tricks completed when received, card).")
    tricks = _deal_field("tricks", "The tricks so far, the open one last.")
    points = _deal_field("points", "Per player, the points of the cards won so far.")
    won = _deal_field("won", "Per player, the cards won in tricks.")
    _used = _deal_field("used", "Cards dealt or drawn.")
    _to_receive = _deal_field("to_receive", "Players due a card, in order.")

    def __init__(self, game):
        """The state before the deal; only `TwoTenJackGame.new_initial_state` calls this."""
        super().__init__(game)
        self._deal = Deal(game.rules)

    def compile_walk_state(self) -> Deal:
        """A copy of the deal for `solver.tree`'s memoized walk (same walk methods, no
        OpenSpiel)."""
        return self._deal.clone()

    def current_player(self):
        """Chance while cards are due, the trick's next player, or TERMINAL."""
        return self._deal.current_player()

    def open_trick(self) -> Trick | None:
        """The trick waiting for its second card, if any."""
        return self._deal.open_trick()

    def _legal_actions(self, player):
        """Card actions (and the As declarations when leading), ascending."""
        return self._deal.legal_actions_of(player)

    def chance_outcomes(self):
        """Uniform over the cards not dealt or drawn yet."""
        return self._deal.chance_outcomes()

    def _apply_action(self, action):
        """Deals/draws a card or plays one; raises ValueError (state unchanged) if illegal."""
        if self.is_chance_node():
            if not 0 <= action < self.rules.num_cards or action in self._used:
                raise ValueError(f"illegal chance outcome {action}: card unknown or dealt already")
            self._deal.receive(action)
            return
        player = self.current_player()
        if player < 0 or action not in self._legal_actions(player):
            legal = [self.rules.action_name(a) for a in self.legal_actions()]
            raise ValueError(f"illegal action {action} for player {player}: legal are {legal}")
        self._deal.play(player, action)

    def stock_left(self) -> int:
        """Cards not dealt or drawn yet."""
        return self._deal.stock_left()

    def _action_to_string(self, player, action):
        """`Deal 7s`, `Draw 7s`, `Play 7s`, `Lead As trump`, `Lead As spade`."""
        if player == pyspiel.PlayerId.CHANCE:
            verb = "Deal" if len(self._used) < 2 * self.rules.hand_size else "Draw"
            return f"{verb} {self.rules.name(action)}"
        return self.rules.action_name(action)

    def is_terminal(self):
        """True once every card has been played."""
        return self._deal.is_terminal()

    def returns(self):
        """Own deal points minus the opponent's, at the end of the deal (0 before)."""
        return self._deal.returns()

    def subtree_key(self):
        """See `Deal.subtree_key`."""
        return self._deal.subtree_key()

    def resample_from_infostate(self, player_id, probability_sampler):
        """A full state with `player_id`'s information state, the hidden cards drawn by chance.

        The opponent's receipts are redealt: each card he has played goes to a receipt made before
        he played it, the other receipts get cards `player_id` has not seen, and every hand he held
        must agree with his plays (a trick he did not follow shows he lacked those cards then).
        Cards are drawn uniformly, one receipt at a time, most constrained first, restarting on a
        dead end: a consistent deal, close to but not exactly the uniform posterior over them.
        `probability_sampler()` returns uniform numbers in [0, 1).
        """
        opponent = 1 - player_id
        constraints = ReceiptConstraints(
            slots=[tricks_done for tricks_done, _ in self.received[opponent]],
            plays=self._plays_of(opponent), voids=self._voids_of(opponent),
            unseen=self._unseen_cards(player_id))
        return self._replay_with(opponent, constraints.sample(probability_sampler))

    def _plays_of(self, player: int) -> list[tuple[int, int]]:
        """(trick index, card) of every card `player` has played."""
        plays = []
        for index, trick in enumerate(self.tricks):
            if trick.leader == player:
                plays.append((index, trick.lead))
            elif trick.follow is not None:
                plays.append((index, trick.follow))
        return plays

    def _voids_of(self, player: int) -> list[tuple[int, frozenset[int]]]:
        """(trick index, cards `player` cannot have held then) from tricks he did not follow."""
        voids = []
        for index, trick in enumerate(self.tricks):
            if trick.leader == player or trick.follow is None:
                continue
            group = self.rules.follow_group(trick.lead, trick.as_spade)
            if trick.follow not in group:
                if not self.rules.is_trump(trick.follow):
                    group = group | self.rules.trumps
                voids.append((index, group))
        return voids

    def _unseen_cards(self, player: int) -> list[int]:
        """Cards `player` has neither received nor seen played."""
        seen = {c for _, c in self.received[player]}
        for trick in self.tricks:
            seen.add(trick.lead)
            if trick.follow is not None:
                seen.add(trick.follow)
        return [c for c in range(self.rules.num_cards) if c not in seen]

    def _replay_with(self, player: int, cards: list[int]) -> "TwoTenJackState":
        """This deal replayed from the start with `player`'s receipts replaced by `cards`."""
        state = self.get_game().new_initial_state()
        replacement = iter(cards)
        for step in self.full_history():
            action = step.action
            if step.player == pyspiel.PlayerId.CHANCE and state._to_receive[0] == player:
                action = next(replacement)
            state.apply_action(action)
        return state

    def __str__(self):
        """Both hands and the tricks, for debugging."""
        return str(self._deal)


@dataclasses.dataclass(frozen=True)
class ReceiptConstraints:
    """What one player's receipts must satisfy, seen from his opponent.

    slots: per receipt, the number of tricks completed when it arrived.
    plays: (trick index, card) of his played cards.
    voids: (trick index, cards he did not hold at that trick).
    unseen: cards the opponent has not seen, to fill the receipts of cards still held.
    """

    slots: list[int]
    plays: list[tuple[int, int]]
    voids: list[tuple[int, frozenset[int]]]
    unseen: list[int]

    _MAX_ATTEMPTS = 10_000

    def fits(self, card: int, slot: int, played_at: int | None) -> bool:
        """Whether `card` can arrive in `slot` and stay until played at `played_at` (None: held)."""
        arrival = self.slots[slot]
        if played_at is not None and arrival > played_at:
            return False
        return not any(arrival <= k and (played_at is None or k < played_at) and card in void
                       for k, void in self.voids)

    def sample(self, sampler) -> list[int]:
        """The card of every slot, in slot order; restarts when a partial deal is a dead end."""
        for _ in range(self._MAX_ATTEMPTS):
            cards = self._attempt(sampler)
            if cards is not None:
                return cards
        raise RuntimeError("no consistent deal found for the opponent's receipts")

    def _attempt(self, sampler) -> list[int] | None:
        """One sequential draw: played cards into slots, then unseen cards into the free slots."""
        assigned: list[int | None] = [None] * len(self.slots)
        options = {card: [s for s in range(len(self.slots)) if self.fits(card, s, trick)]
                   for trick, card in self.plays}
        for trick, card in sorted(self.plays, key=lambda play: len(options[play[1]])):
            free = [s for s in options[card] if assigned[s] is None]
            if not free:
                return None
            assigned[free[int(sampler() * len(free))]] = card
        pool = list(self.unseen)
        for slot in sorted(range(len(self.slots)), key=self.slots.__getitem__):
            if assigned[slot] is None:
                fitting = [c for c in pool if self.fits(c, slot, None)]
                if not fitting:
                    return None
                assigned[slot] = fitting[int(sampler() * len(fitting))]
                pool.remove(assigned[slot])
        return assigned


def _cards(rules: Rules, cards) -> str:
    """Space-separated card names, strongest first within suits c d h s."""
    ordered = sorted(cards, key=lambda c: (rules.suit(c), -rules.rank(c)))
    return " ".join(rules.name(c) for c in ordered)


def _lead_string(rules: Rules, trick: Trick) -> str:
    """The led card, with the declaration if it is the As: `7s`, `As(spade)`."""
    if trick.lead != rules.ace_of_spades:
        return rules.name(trick.lead)
    return "As(spade)" if trick.as_spade else "As(trump)"


def _trick_string(rules: Rules, index: int, trick: Trick) -> str:
    """`T3: p1 As(spade) 4s >p1` — the lead, the follow and the winner."""
    text = f"T{index + 1}: p{trick.leader} {_lead_string(rules, trick)}"
    if trick.follow is not None:
        text += f" {rules.name(trick.follow)} >p{trick.winner}"
    return text


def history_string(deal: Deal | TwoTenJackState, player: int, private: bool = True,
                   public: bool = True) -> str:
    """`p0 | dealt: ... | T1: p0 7s 9s >p1 | drew Kd | T2: p1 Ah`: `player`'s information state
    string (perfect recall), his dealt hand sorted, then every trick and his draw after it; a
    draw appends ` | drew Kd` to the string, an opponent's draw leaves it alone."""
    rules = deal.rules
    pieces = [f"p{player}"]
    draws = {}
    if private:
        received = deal.received[player]
        pieces.append("dealt: " + _cards(rules, [c for t, c in received if t == 0]))
        draws = {t: c for t, c in received if t > 0}
    if public:
        for index, trick in enumerate(deal.tricks):
            pieces.append(_trick_string(rules, index, trick))
            if index + 1 in draws:
                pieces.append(f"drew {rules.name(draws[index + 1])}")
    return " | ".join(pieces)


class TwoTenJackObserver(Observer):
    """Information state (perfect recall) or observation of a player, as string and tensor."""

    def __init__(self, iig_obs_type, rules: Rules, params):
        """Allocates the tensor pieces that this observation type shows."""
        super().__init__(iig_obs_type, params)
        self.rules = rules
        n, tricks = rules.num_cards, rules.num_tricks
        pieces = [("player", _NUM_PLAYERS, (_NUM_PLAYERS,))]
        if self.perfect_recall:
            if self.private:
                pieces += [("dealt", n, (n,)), ("drawn", tricks * n, (tricks, n))]
            if self.public:
                pieces += [("lead", tricks * n, (tricks, n)), ("lead_as_spade", tricks, (tricks,)),
                           ("follow", tricks * n, (tricks, n))]
        else:
            if self.private:
                pieces.append(("hand", n, (n,)))
            if self.public:
                pieces += [("won", _NUM_PLAYERS * n, (_NUM_PLAYERS, n)), ("trick_lead", n, (n,)),
                           ("lead_as_spade", 1, (1,)), ("leader", _NUM_PLAYERS, (_NUM_PLAYERS,))]
        self.tensor, self.dict = allocate_tensor(pieces)

    def set_from(self, state: TwoTenJackState, player: int):
        """Fills `tensor` for `player`'s view of `state`."""
        self.tensor.fill(0)
        self.dict["player"][player] = 1
        if self.perfect_recall:
            self._set_history(state, player)
        else:
            self._set_table(state, player)

    def _set_history(self, state: TwoTenJackState, player: int):
        """Perfect recall: dealt hand, draw after each trick, every lead and follow."""
        if self.private:
            for tricks_done, card in state.received[player]:
                if tricks_done == 0:
                    self.dict["dealt"][card] = 1
                else:
                    self.dict["drawn"][tricks_done - 1, card] = 1
        if self.public:
            for index, trick in enumerate(state.tricks):
                self.dict["lead"][index, trick.lead] = 1
                self.dict["lead_as_spade"][index] = trick.as_spade
                if trick.follow is not None:
                    self.dict["follow"][index, trick.follow] = 1

    def _set_table(self, state: TwoTenJackState, player: int):
        """Observation: current hand, cards won by each player, the open trick."""
        if self.private:
            for card in state.hands[player]:
                self.dict["hand"][card] = 1
        if self.public:
            for winner in range(_NUM_PLAYERS):
                for card in state.won[winner]:
                    self.dict["won"][winner, card] = 1
            trick = state.open_trick()
            if trick is not None:
                self.dict["trick_lead"][trick.lead] = 1
                self.dict["lead_as_spade"][0] = trick.as_spade
                self.dict["leader"][trick.leader] = 1

    def string_from(self, state: TwoTenJackState, player: int) -> str:
        """`player`'s view of `state` as one readable line."""
        if self.perfect_recall:
            return self._history_string(state, player)
        return self._table_string(state, player)

    def _history_string(self, state: TwoTenJackState, player: int) -> str:
        """See `history_string`."""
        return history_string(state, player, self.private, self.public)

    def _table_string(self, state: TwoTenJackState, player: int) -> str:
        """`p0 | hand: ... | trick: p1 7s | won p0: ... (6) | won p1: ... (0) | stock 28`."""
        rules = self.rules
        pieces = [f"p{player}"]
        if self.private:
            pieces.append("hand: " + _cards(rules, state.hands[player]))
        if self.public:
            trick = state.open_trick()
            if trick is not None:
                pieces.append(f"trick: p{trick.leader} {_lead_string(rules, trick)}")
            for p in range(_NUM_PLAYERS):
                pieces.append(f"won p{p}: {_cards(rules, state.won[p]) or '-'} ({state.points[p]})")
            pieces.append(f"stock {state.stock_left()}")
        return " | ".join(pieces)


pyspiel.register_game(_GAME_TYPE, TwoTenJackGame)
