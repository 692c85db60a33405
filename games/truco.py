"""The Truco engine shared by Truco Paulista (`games/truco_paulista.py`) and Trucomano
(`games/trucomano.py`): the vira-dependent strength scale, the public-state machine and the
OpenSpiel state and observer. Each game module only declares its defaults.

Rules and parameters: games/RULES.md, sections 2 and 3 (ids TP-1..TP-13, TM-1..TM-5). The
engine's parameters are section 2's plus `truco_in_hand_of_11` (TM-4).

The rules live once, in `PublicState`: a machine over public information only (betting, played
strengths, round results, turn). The OpenSpiel state adds chance and the private hands, which
only decide which card actions are legal. States offer `subtree_key` only where every action
after the deal is public (no covered card chosen among two or more, not blind), since memoized
tree compilers name information states by the deal plus the public action sequence.
"""
from __future__ import annotations

import enum
import math

import pyspiel

from games import cards, tricks
from games.observer import Observer, allocate_tensor

# Player actions; card actions follow at CARD_ACTION_BASE (face up, then covered, then slots).
# PLAY_LAST_COVERED covers a player's last card: one action, since the card is forced.
RAISE, ACCEPT, RUN, PLAY_11, RUN_11, PLAY_LAST_COVERED = range(6)
CARD_ACTION_BASE = 6
BETTING_ACTION_NAMES = ("Raise", "Accept", "Run", "Play 11", "Run 11", "Play covered")

DECKS = {"dirty": "4567QJKA23", "clean": "QJKA23"}  # common order, weakest first
MANILHA_SUITS = "dshc"  # weakest first: diamonds < spades < hearts < clubs (zap)
SUITS_PER_RANK = len(MANILHA_SUITS)
LADDER = tricks.Ladder((1, 3, 6, 9, 12))
ELEVEN_VALUE = 3
ALL_TIED_RULES = ("dealer", "nobody", "mao")
RAISE_CAPS = ("none", "pagat", "needed")
TRUCO_IN_ELEVEN_RULES = ("illegal", "forfeit")

ENGINE_DEFAULTS = {
    "num_players": 2,
    "deck": "dirty",
    "target": 12,
    "score0": 0,
    "score1": 0,
    "dealer": -1,
    "all_tied": "dealer",
    "allow_covered": True,
    "covered_from_round": 2,
    "allow_reraise": True,
    "alternate_raises": True,
    "raise_cap": "none",
    "hand_of_11_decision": True,
    "iron_hand_blind": False,
    "truco_in_hand_of_11": "illegal",
    "hand_size": 3,
    "num_ranks": 0,
    "isomorphic": False,
}


class Kind(enum.IntEnum):
    NORMAL = 0
    ELEVEN = 1  # hand of eleven: one side at target - 1
    IRON = 2  # iron hand: both sides at target - 1


def make_game_type(short_name: str, long_name: str, defaults: dict,
                   max_players: int) -> pyspiel.GameType:
    """The GameType of a Truco variant declaring `defaults` as its parameters."""
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max_players,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=defaults)


def _require(ok: bool, name: str, value, allowed: str) -> None:
    if not ok:
        raise ValueError(f"{name}={value!r} is not allowed: {allowed}")


class Rules:
    """Validated parameters of one Truco game and what follows from them."""

    def __init__(self, params: dict):
        p = {**ENGINE_DEFAULTS, **params}
        self._validate(p)
        self.num_players = p["num_players"]
        self.target = p["target"]
        self.scores = (p["score0"], p["score1"])
        self.dealer = p["dealer"] % self.num_players
        self.mao = (self.dealer + 1) % self.num_players
        self.all_tied = p["all_tied"]
        self.allow_covered = p["allow_covered"]
        self.covered_from_round = p["covered_from_round"]
        self.allow_reraise = p["allow_reraise"]
        self.alternate_raises = p["alternate_raises"]
        self.raise_cap = p["raise_cap"]
        self.hand_of_11_decision = p["hand_of_11_decision"]
        self.truco_in_hand_of_11 = p["truco_in_hand_of_11"]
        self.hand_size = p["hand_size"]
        self.isomorphic = p["isomorphic"]
        self.deck = cards.Deck(_kept_ranks(p), MANILHA_SUITS)
        self.num_ranks = self.deck.num_ranks
        self.num_classes = self.num_ranks + SUITS_PER_RANK  # common ranks, then manilhas
        self.kind, self.eleven_side = self._kind()
        self.blind = self.kind == Kind.IRON and p["iron_hand_blind"]
        self.hand_classes = (cards.rank_multisets(self.num_classes, self.hand_size,
                                                  SUITS_PER_RANK) if self.isomorphic else ())

    @staticmethod
    def _validate(p: dict) -> None:
        _require(p["num_players"] in (2, 4), "num_players", p["num_players"], "2 or 4")
        _require(p["deck"] in DECKS, "deck", p["deck"], " or ".join(DECKS))
        _require(p["target"] >= 2, "target", p["target"], "a whole number >= 2")
        for name in ("score0", "score1"):
            _require(0 <= p[name] < p["target"], name, p[name],
                     f"0 <= {name} < target={p['target']}")
        _require(-1 <= p["dealer"] < p["num_players"], "dealer", p["dealer"],
                 f"-1 (the last seat) or a seat 0..{p['num_players'] - 1}")
        _require(p["all_tied"] in ALL_TIED_RULES, "all_tied", p["all_tied"],
                 " or ".join(ALL_TIED_RULES))
        _require(p["raise_cap"] in RAISE_CAPS, "raise_cap", p["raise_cap"], " or ".join(RAISE_CAPS))
        _require(p["truco_in_hand_of_11"] in TRUCO_IN_ELEVEN_RULES, "truco_in_hand_of_11",
                 p["truco_in_hand_of_11"], " or ".join(TRUCO_IN_ELEVEN_RULES))
        _require(1 <= p["hand_size"] <= 3, "hand_size", p["hand_size"], "1..3")
        _require(1 <= p["covered_from_round"] <= 3, "covered_from_round",
                 p["covered_from_round"], "1..3")
        size = len(DECKS[p["deck"]])
        _require(p["num_ranks"] == 0 or 2 <= p["num_ranks"] <= size, "num_ranks",
                 p["num_ranks"], f"0 (whole deck) or 2..{size} for deck={p['deck']}")
        ranks = p["num_ranks"] or size
        _require(p["num_players"] * p["hand_size"] + 1 <= SUITS_PER_RANK * ranks, "hand_size",
                 p["hand_size"], f"the hands and the vira must fit in {SUITS_PER_RANK * ranks} "
                 f"cards")

    def __deepcopy__(self, memo):
        """Rules are immutable: clones of a state share them (OpenSpiel deep-copies states)."""
        return self

    def _kind(self) -> tuple[Kind, int]:
        """The hand's kind from the scores, and the side at eleven (-1 if none or both)."""
        at_eleven = [side for side in range(2) if self.scores[side] == self.target - 1]
        if len(at_eleven) == 2:
            return Kind.IRON, -1
        if at_eleven:
            return Kind.ELEVEN, at_eleven[0]
        return Kind.NORMAL, -1

    def side(self, seat: int) -> int:
        return seat % 2

    def opponents(self, seat: int) -> tuple[int, ...]:
        """Seats of the other side in answering order (the next seat first)."""
        return tuple((seat + k) % self.num_players for k in range(1, self.num_players, 2))

    def eleven_decider(self) -> int:
        """The eleven side's seat that plays first in round 1."""
        return self.mao if self.side(self.mao) == self.eleven_side else (self.mao + 1) % \
            self.num_players

    def manilha_rank(self, vira_rank: int) -> int:
        return (vira_rank + 1) % self.num_ranks

    def class_of(self, card: int, vira_rank: int) -> int:
        """Strength class of a concrete card given the vira (commons by rank, manilhas by suit)."""
        rank = self.deck.rank_index(card)
        if rank == self.manilha_rank(vira_rank):
            return self.num_ranks + self.deck.suit_index(card)
        return rank

    def class_name(self, item: int, vira_rank: int) -> str:
        """`7` for a common class, `Qc` for a manilha."""
        if item < self.num_ranks:
            return self.deck.rank_name(item)
        manilha = self.deck.rank_name(self.manilha_rank(vira_rank))
        return manilha + MANILHA_SUITS[item - self.num_ranks]

    def class_counts(self, vira_rank: int) -> tuple[int, ...]:
        """Cards per strength class left for the hands once the vira is turned."""
        counts = [SUITS_PER_RANK] * self.num_ranks + [1] * SUITS_PER_RANK
        counts[vira_rank] -= 1
        counts[self.manilha_rank(vira_rank)] = 0
        return tuple(counts)

    @property
    def private_play(self) -> bool:
        """Can an action after the deal hide something (a covered card chosen among two or
        more, a blind slot's card)?"""
        return self.blind or (self.allow_covered and self.covered_from_round < self.hand_size)

    @property
    def num_items(self) -> int:
        """Distinct cards to play: one per card, or one per strength class in isomorphic mode."""
        return self.num_classes if self.isomorphic else self.deck.num_cards

    def num_distinct_actions(self) -> int:
        return CARD_ACTION_BASE + 2 * self.num_items + self.hand_size

    def max_utility(self) -> int:
        forfeit = self.target - min(self.scores) if self.kind == Kind.ELEVEN else 0
        return max(LADDER.top, forfeit)

    def tree_scores(self) -> tuple[int, int]:
        """Scores at which the hand's play is the same as at these (the scores change only
        what a terminal marked `whole_match` scores): a side's score matters only at eleven
        (the hand of eleven, the iron hand), unless `raise_cap` reads the scores."""
        if self.raise_cap != "none":
            return self.scores
        return tuple(score if score == self.target - 1 else 0 for score in self.scores)

    def max_game_length(self) -> int:
        """Eleven decision, every card, and at most three answers per ladder step."""
        return 1 + self.num_players * self.hand_size + 3 * (len(LADDER.values) - 1)


def _kept_ranks(p: dict) -> str:
    ranks = DECKS[p["deck"]]
    return cards.strongest_ranks(ranks, p["num_ranks"] or len(ranks))


class Phase(enum.IntEnum):
    DEAL = 0  # chance deals the hands and the vira
    ELEVEN = 1  # the side at eleven: Play 11 or Run 11
    PLAY = 2  # card turns, raises and answers
    OVER = 3


class PublicState(tricks.PublicMachine):
    """TP-6..TP-12 over public information only.

    Card plays arrive as strengths (`play`; 0 = covered); which cards a seat can play is for the
    caller to decide from the private hand. `legal_actions` lists the non-card actions; at a
    card turn (`is_card_turn`) the player may also play a card, face down if `may_cover`.
    """

    __slots__ = ("rules", "phase", "round_plays", "round_winners", "leader", "card_player",
                 "to_act", "stake", "pending", "proposer", "answer_index", "last_raising_side",
                 "bet_this_turn", "covered_sides", "winner", "points", "whole_match")

    def __init__(self, rules: Rules):
        self.rules = rules
        self.phase = Phase.DEAL
        self.round_plays: tuple[tricks.Play, ...] = ()
        self.round_winners: tuple[int, ...] = ()
        self.leader = self.card_player = self.to_act = rules.mao
        self.stake = ELEVEN_VALUE if rules.kind == Kind.ELEVEN else 1
        self.pending = False  # a proposal (the next ladder value) awaits its answer
        self.proposer = -1
        self.answer_index = 0  # which of the answering side's seats answers (4 players)
        self.last_raising_side = -1  # side of the most recent accepted raise
        self.bet_this_turn = False
        self.covered_sides = ()  # sides that covered a card this round
        self.winner = -1  # scoring side, or tricks.ALL_TIED when nobody scores
        self.points = 0
        self.whole_match = False  # the points are what the winner needed to win the match

    # --- queries -----------------------------------------------------------------------------
    def is_over(self) -> bool:
        return self.phase == Phase.OVER

    def is_card_turn(self) -> bool:
        return self.phase == Phase.PLAY and not self.pending

    def round_number(self) -> int:
        """1-based number of the round being played."""
        return len(self.round_winners) + 1

    def may_cover(self) -> bool:
        """TP-7: the card player may play face down now."""
        rules = self.rules
        return (rules.allow_covered and not rules.blind
                and self.round_number() >= rules.covered_from_round
                and rules.side(self.card_player) not in self.covered_sides)

    def proposal(self) -> int:
        """The value a raise proposes now (the pending one while answering)."""
        return LADDER.next_value(self.stake)

    def may_raise(self) -> bool:
        """TP-10 at a card turn (TP-11, TP-12, TM-4 included)."""
        rules = self.rules
        if self.bet_this_turn or rules.kind == Kind.IRON:
            return False
        if rules.kind == Kind.ELEVEN and rules.truco_in_hand_of_11 == "illegal":
            return False
        side = rules.side(self.card_player)
        return (LADDER.next_value(self.stake) is not None
                and not (rules.alternate_raises and self.last_raising_side == side)
                and self._cap_allows(side, self.stake, LADDER.next_value(self.stake)))

    def _may_reraise(self) -> bool:
        proposed = self.proposal()
        counter = LADDER.next_value(proposed)
        return (self.rules.allow_reraise and counter is not None
                and self._cap_allows(self.rules.side(self.to_act), proposed, counter))

    def _cap_allows(self, side: int, held: int, proposed: int) -> bool:
        """`raise_cap`: may `side`, holding value `held`, propose `proposed`?"""
        rules = self.rules
        if rules.raise_cap == "pagat":
            return rules.scores[side] + held < rules.target
        if rules.raise_cap == "needed":
            needed = rules.target - min(rules.scores)
            return proposed <= 3 * math.ceil(needed / 3)
        return True

    def legal_actions(self) -> list[int]:
        """Non-card actions of the player to act, ascending."""
        if self.phase == Phase.ELEVEN:
            return [PLAY_11, RUN_11]
        if self.phase != Phase.PLAY:
            return []
        if self.pending:
            return [RAISE, ACCEPT, RUN] if self._may_reraise() else [ACCEPT, RUN]
        return [RAISE] if self.may_raise() else []

    def may_raise_sides(self) -> tuple[int, ...]:
        """Sides that could raise at a future card turn (for the observation)."""
        rules = self.rules
        if self.phase == Phase.OVER or rules.kind == Kind.IRON or LADDER.next_value(
                self.stake) is None:
            return ()
        if rules.kind == Kind.ELEVEN and rules.truco_in_hand_of_11 == "illegal":
            return ()
        return tuple(side for side in range(2)
                     if not (rules.alternate_raises and self.last_raising_side == side)
                     and self._cap_allows(side, self.stake, LADDER.next_value(self.stake)))

    # --- transitions -------------------------------------------------------------------------
    def hands_dealt(self) -> None:
        """Chance finished dealing: the eleven decision, or play."""
        rules = self.rules
        if rules.kind == Kind.ELEVEN and rules.hand_of_11_decision:
            self.phase, self.to_act = Phase.ELEVEN, rules.eleven_decider()
        else:
            self.phase = Phase.PLAY

    def apply(self, action: int) -> None:
        """Applies a non-card action (assumed legal)."""
        rules = self.rules
        if action == PLAY_11:
            self.phase, self.to_act = Phase.PLAY, self.card_player
        elif action == RUN_11:
            self._end(1 - rules.eleven_side, 1)
        elif not self.pending:  # a raise at a card turn
            self._raise_at_card_turn()
        elif action == ACCEPT:
            self.stake, self.last_raising_side = self.proposal(), rules.side(self.proposer)
            self.pending, self.proposer, self.to_act = False, -1, self.card_player
        elif action == RAISE:  # accept, then propose the next value back
            self.stake, self.last_raising_side = self.proposal(), rules.side(self.proposer)
            self._propose(self.to_act)
        elif self.answer_index + 1 < len(rules.opponents(self.proposer)):  # Run: partner answers
            self.answer_index += 1
            self.to_act = rules.opponents(self.proposer)[self.answer_index]
        else:  # Run
            self._end(rules.side(self.proposer), self.stake)

    def _raise_at_card_turn(self) -> None:
        rules = self.rules
        if rules.kind == Kind.ELEVEN:  # truco_in_hand_of_11="forfeit": the raiser loses the match
            opponents = 1 - rules.side(self.card_player)
            self._end(opponents, rules.target - rules.scores[opponents], whole_match=True)
            return
        self.bet_this_turn = True
        self._propose(self.card_player)

    def _propose(self, seat: int) -> None:
        self.pending, self.proposer, self.answer_index = True, seat, 0
        self.to_act = self.rules.opponents(seat)[0]

    def play(self, strength: int, covered: bool = False) -> None:
        """The card player plays a card of this strength (TP-6..TP-9)."""
        rules = self.rules
        side = rules.side(self.card_player)
        self.round_plays += (tricks.Play(self.card_player, side, strength),)
        if covered:
            self.covered_sides += (side,)
        self.bet_this_turn = False
        if len(self.round_plays) < rules.num_players:
            self.card_player = self.to_act = (self.card_player + 1) % rules.num_players
            return
        winner, self.leader = tricks.settle_trick(self.round_plays)
        self.round_winners += (winner,)
        self.card_player = self.to_act = self.leader
        self.round_plays, self.covered_sides = (), ()
        result = tricks.hand_result(self.round_winners, rules.hand_size)
        if result == tricks.ALL_TIED:
            self._end_all_tied()
        elif result != tricks.UNDECIDED:
            self._end(result, self.stake)

    def _end_all_tied(self) -> None:
        rules = self.rules
        if rules.all_tied == "nobody":
            self._end(tricks.ALL_TIED, 0)
        else:
            seat = rules.dealer if rules.all_tied == "dealer" else rules.mao
            self._end(rules.side(seat), self.stake)

    def _end(self, winner: int, points: int, whole_match: bool = False) -> None:
        self.phase, self.winner, self.points = Phase.OVER, winner, points
        self.whole_match = whole_match
        self.to_act = -1

    def returns(self) -> list[float]:
        """Points of the hand: each member of the scoring side +points, the others -points."""
        rules = self.rules
        if self.phase != Phase.OVER or self.winner == tricks.ALL_TIED:
            return [0.0] * rules.num_players
        return [float(self.points if rules.side(seat) == self.winner else -self.points)
                for seat in range(rules.num_players)]


class ViraGame(tricks.PublicGame):
    """One vira class of a two-player Truco hand, for the public-tree engine
    (`tricks.PublicGame`). The vira is public, so each of its ranks (dealt with probability
    1/num_ranks: four cards of every rank) starts an independent sub-game whose private classes
    are the strength classes with `Rules.class_counts(vira)` cards each; a face-up card plays
    at its class's strength (class + 1), a covered one at 0 (TP-5, TP-7)."""

    def __init__(self, rules: Rules, vira: int):
        self.rules, self.vira = rules, vira
        self.label = f"vira {rules.deck.rank_name(vira)}"
        self.weight = 1.0 / rules.num_ranks
        self.hand_size = rules.hand_size
        self.class_counts = rules.class_counts(vira)

    def identity(self) -> tuple:
        """The counts of the classes that have cards, weakest first: classes play by their
        order alone (a card's strength is its class + 1), and a class without cards (the
        common class of the manilhas' rank) never appears, so two viras whose counts agree are
        the same game up to the names of the cards. The dirty deck's vira 2 and vira 3 are
        (the vira's own rank, three cards left, is the strongest common in both), and likewise
        the clean deck's."""
        return tuple(count for count in self.class_counts if count)

    def root(self) -> PublicState:
        public = PublicState(self.rules)
        public.hands_dealt()
        return public

    def may_cover(self, public: PublicState) -> bool:
        return public.may_cover()

    def play_card(self, public: PublicState, item: int, covered: bool) -> None:
        public.play(0 if covered else item + 1, covered)

    def card_action(self, item: int, covered: bool, last_card: bool) -> int:
        if not covered:
            return CARD_ACTION_BASE + item
        return PLAY_LAST_COVERED if last_card else CARD_ACTION_BASE + self.rules.num_items + item

    def class_name(self, item: int) -> str:
        return self.rules.class_name(item, self.vira)

    def bet_name(self, action: int) -> str:
        return BETTING_ACTION_NAMES[action]


def vira_games(rules: Rules) -> list[ViraGame]:
    """The sub-games of a two-player isomorphic Truco hand, one per vira rank (in rank order)."""
    return [ViraGame(rules, vira) for vira in range(rules.num_ranks)]


class TrucoGame(pyspiel.Game):
    """One hand of Truco; subclasses set GAME_TYPE and DEFAULTS (their declared parameters)."""

    GAME_TYPE: pyspiel.GameType
    DEFAULTS: dict

    def __init__(self, params=None):
        self.rules = Rules({**self.DEFAULTS, **(params or {})})
        rules = self.rules
        max_utility = float(rules.max_utility())
        game_info = pyspiel.GameInfo(
            num_distinct_actions=rules.num_distinct_actions(),
            # a card, a rank (the isomorphic vira) or a whole hand of strength classes
            max_chance_outcomes=max(rules.deck.num_cards, len(rules.hand_classes)),
            num_players=rules.num_players,
            min_utility=-max_utility,  # 12, or a forfeited match (target minus a score)
            max_utility=max_utility,
            utility_sum=0.0,
            max_game_length=rules.max_game_length())
        super().__init__(self.GAME_TYPE, game_info, params or {})

    def new_initial_state(self):
        if self.rules.private_play:
            return TrucoState(self)
        return PublicPlayTrucoState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return TrucoObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), self.rules, params)


class CardRecord:
    """The vira, who holds which cards, what is undealt, and the actions so far."""

    __slots__ = ("vira", "hands", "dealt", "undealt", "played_slots", "reveal", "history_items")

    def __init__(self, rules: Rules):
        self.vira = -1  # card (concrete) or rank (isomorphic)
        self.hands = [[] for _ in range(rules.num_players)]  # unplayed items per seat, sorted
        self.dealt = [() for _ in range(rules.num_players)]  # each seat's hand in dealing order
        self.undealt = () if rules.isomorphic else tuple(range(rules.deck.num_cards))
        self.played_slots = [() for _ in range(rules.num_players)]  # blind hands
        self.reveal = -1  # isomorphic blind hand: seat whose played slot awaits its card
        self.history_items = []  # (seat, action, item): item is the card played, else -1

    def __deepcopy__(self, memo):
        """Fast copy (OpenSpiel deep-copies states to clone them); tuples inside are shared."""
        other = CardRecord.__new__(CardRecord)
        other.vira, other.undealt, other.reveal = self.vira, self.undealt, self.reveal
        other.hands = [list(hand) for hand in self.hands]
        other.dealt = list(self.dealt)
        other.played_slots = list(self.played_slots)
        other.history_items = list(self.history_items)
        return other


class TrucoState(pyspiel.State):
    """A hand in progress: the public machine plus chance and the private hands."""

    def __init__(self, game: TrucoGame):
        super().__init__(game)
        self.rules = game.rules
        self.public = PublicState(game.rules)
        self.record = CardRecord(game.rules)

    # --- cards -------------------------------------------------------------------------------
    def vira_rank(self) -> int:
        vira = self.record.vira
        return vira if self.rules.isomorphic else self.rules.deck.rank_index(vira)

    def class_of(self, item: int) -> int:
        """Strength class of a card item (itself in isomorphic mode)."""
        return item if self.rules.isomorphic else self.rules.class_of(item, self.vira_rank())

    def strength(self, item: int) -> int:
        """TP-5 strength of a face-up card item: classes 0.. map to 1.. (0 is a covered card)."""
        return self.class_of(item) + 1

    def card_name(self, item: int) -> str:
        """`7s` for a concrete card, `7` or `Qc` for a strength class."""
        if self.rules.isomorphic:
            return self.rules.class_name(item, self.record.vira)
        return self.rules.deck.name(item)

    def class_name(self, item: int) -> str:
        """The isomorphic name of a card item (`Qc` for a manilha, `7` for any 7)."""
        return self.rules.class_name(self.class_of(item), self.vira_rank())

    def sorted_hand(self, hand) -> list[int]:
        """Card items strongest first."""
        return sorted(hand, key=lambda item: (self.class_of(item), item), reverse=True)

    # --- chance ------------------------------------------------------------------------------
    def _dealing_seat(self) -> int:
        """Seat receiving cards next, or -1 when the vira is next (concrete order)."""
        for seat, hand in enumerate(self.record.dealt):
            if len(hand) < self.rules.hand_size:
                return seat
        return -1

    def chance_outcomes(self):
        """Concrete: each undealt card, uniform. Isomorphic: vira rank, hand classes, reveals."""
        rules, record = self.rules, self.record
        if not rules.isomorphic:
            probability = 1.0 / len(record.undealt)
            return [(card, probability) for card in record.undealt]
        if record.reveal >= 0:
            hand = record.hands[record.reveal]
            return [(item, hand.count(item) / len(hand)) for item in sorted(set(hand))]
        if record.vira < 0:
            return [(rank, 1.0 / rules.num_ranks) for rank in range(rules.num_ranks)]
        total = math.comb(sum(record.undealt), rules.hand_size)
        outcomes = []
        for index, hand in enumerate(rules.hand_classes):
            weight = cards.multiset_weight(hand, record.undealt)
            if weight:
                outcomes.append((index, weight / total))
        return outcomes

    def _apply_chance(self, outcome: int) -> None:
        rules, record = self.rules, self.record
        if record.reveal >= 0:
            seat, record.reveal = record.reveal, -1
            self._play_card(seat, outcome, covered=False)
        elif rules.isomorphic and record.vira < 0:
            record.vira, record.undealt = outcome, rules.class_counts(outcome)
        elif rules.isomorphic:
            seat = self._dealing_seat()
            hand = rules.hand_classes[outcome]
            counts = cards.rank_counts(hand, rules.num_classes)
            record.undealt = tuple(a - c for a, c in zip(record.undealt, counts))
            record.hands[seat], record.dealt[seat] = list(hand), hand
        else:
            self._deal_card(outcome)
        if self.public.phase == Phase.DEAL and self._dealing_seat() < 0 and record.vira >= 0:
            self.public.hands_dealt()

    def _deal_card(self, card: int) -> None:
        record = self.record
        record.undealt = tuple(c for c in record.undealt if c != card)
        seat = self._dealing_seat()
        if seat < 0:
            record.vira = card
            return
        record.dealt[seat] += (card,)
        record.hands[seat] = sorted(record.hands[seat] + [card])

    # --- OpenSpiel hooks ---------------------------------------------------------------------
    def current_player(self):
        if self.public.is_over():
            return pyspiel.PlayerId.TERMINAL
        if self.public.phase == Phase.DEAL or self.record.reveal >= 0:
            return pyspiel.PlayerId.CHANCE
        return self.public.to_act

    def _legal_actions(self, player):
        actions = self.public.legal_actions()
        if self.public.is_card_turn():
            actions += self._card_actions(player)
        return sorted(actions)

    def _card_actions(self, seat: int) -> list[int]:
        rules = self.rules
        if rules.blind:
            played = self.record.played_slots[seat]
            return [CARD_ACTION_BASE + 2 * rules.num_items + slot
                    for slot in range(rules.hand_size) if slot not in played]
        items = sorted(set(self.record.hands[seat]))
        actions = [CARD_ACTION_BASE + item for item in items]
        if self.public.may_cover() and len(self.record.hands[seat]) == 1:
            actions.append(PLAY_LAST_COVERED)
        elif self.public.may_cover():
            actions += [CARD_ACTION_BASE + rules.num_items + item for item in items]
        return actions

    def _apply_action(self, action):
        if self.public.is_over():
            raise ValueError(f"action {action}: the hand is over, no action can be applied")
        if self.current_player() == pyspiel.PlayerId.CHANCE:
            if action not in {outcome for outcome, _ in self.chance_outcomes()}:
                raise ValueError(f"chance outcome {action} is not possible here")
            self._apply_chance(action)
            return
        seat = self.public.to_act
        if not 0 <= action < self.rules.num_distinct_actions():
            raise ValueError(f"action {action} is out of range: player actions are 0.."
                             f"{self.rules.num_distinct_actions() - 1}")
        legal = self._legal_actions(seat)
        if action not in legal:
            raise ValueError(
                f"action {action} ({self._action_to_string(seat, action)}) is not legal for "
                f"player {seat} here; legal: {[self._action_to_string(seat, a) for a in legal]}")
        if action == PLAY_LAST_COVERED:
            item = self.record.hands[seat][0]
            self.record.history_items.append((seat, action, item))
            self._play_card(seat, item, covered=True)
            return
        if action < CARD_ACTION_BASE:
            self.record.history_items.append((seat, action, -1))
            self.public.apply(action)
            return
        offset, num_items = action - CARD_ACTION_BASE, self.rules.num_items
        if offset >= 2 * num_items:
            self._play_slot(seat, offset - 2 * num_items)
        else:
            self.record.history_items.append((seat, action, offset % num_items))
            self._play_card(seat, offset % num_items, covered=offset >= num_items)

    def _play_slot(self, seat: int, slot: int) -> None:
        """Blind hand: the slot's card (concrete), or a chance reveal of it (isomorphic)."""
        record = self.record
        record.played_slots[seat] += (slot,)
        action = CARD_ACTION_BASE + 2 * self.rules.num_items + slot
        if self.rules.isomorphic:
            record.history_items.append((seat, action, -1))
            record.reveal = seat
            return
        card = record.dealt[seat][slot]
        record.history_items.append((seat, action, card))
        self._play_card(seat, card, covered=False)

    def _play_card(self, seat: int, item: int, covered: bool) -> None:
        record = self.record
        if record.history_items[-1][2] < 0:  # a revealed slot: its card becomes known
            last_seat, action, _ = record.history_items[-1]
            record.history_items[-1] = (last_seat, action, item)
        record.hands[seat].remove(item)
        self.public.play(0 if covered else self.strength(item), covered)

    def _action_to_string(self, player, action):
        return action_name(self, player, action)

    def is_terminal(self):
        return self.public.is_over()

    def returns(self):
        return self.public.returns()

    def __str__(self):
        hands = " / ".join(" ".join(self.card_name(i) for i in self.sorted_hand(hand))
                           for hand in self.record.hands)
        vira = self.card_name(self.record.vira) if self.record.vira >= 0 else "-"
        history = ", ".join(f"{seat}:{action_name(self, seat, action)}"
                            for seat, action, _ in self.record.history_items)
        return f"vira {vira} | hands {hands} | {history}"


class PublicPlayTrucoState(TrucoState):
    """A hand whose every action after the deal is public (no covered cards, not blind).

    Only these states offer `subtree_key`: memoized tree compilers name a player's information
    state by what he knew after the deal plus the public action sequence, which would reveal
    covered cards and miss the cards of blind slots.
    """

    def subtree_key(self):
        """Hashable key: states with equal keys have identical subtrees (players, actions,
        returns). After the deal only the machine and the hands matter; classes do not depend
        on the vira, concrete cards do."""
        record = self.record
        vira = -1 if self.rules.isomorphic else record.vira
        return self.public.key(), tuple(map(tuple, record.hands)), vira


def action_name(state: TrucoState, player: int, action: int) -> str:
    """Action strings: `Raise`, `Play 7s`, `Play 7s covered`, `Play slot 2`, `Deal 7s`, ..."""
    rules = state.rules
    if player == pyspiel.PlayerId.CHANCE:
        return _chance_name(state, action)
    if action < CARD_ACTION_BASE:
        return BETTING_ACTION_NAMES[action]
    offset = action - CARD_ACTION_BASE
    if offset >= 2 * rules.num_items:
        return f"Play slot {offset - 2 * rules.num_items + 1}"
    suffix = " covered" if offset >= rules.num_items else ""
    return f"Play {state.card_name(offset % rules.num_items)}{suffix}"


def _chance_name(state: TrucoState, outcome: int) -> str:
    rules, record = state.rules, state.record
    if record.reveal >= 0:
        return "Reveal " + state.card_name(outcome)
    if not rules.isomorphic:
        return ("Deal " if state._dealing_seat() >= 0 else "Vira ") + rules.deck.name(outcome)
    if record.vira < 0:
        return "Vira " + rules.deck.rank_name(outcome)
    return "Deal " + " ".join(state.card_name(item)
                              for item in reversed(rules.hand_classes[outcome]))


# --- information -----------------------------------------------------------------------------
def sees_hand(state: TrucoState, viewer: int, seat: int) -> bool:
    """TP-13, TP-11, TM-3: may `viewer` see `seat`'s unplayed cards?"""
    rules = state.rules
    if rules.blind:
        return False
    if viewer == seat:
        return True
    return (rules.kind == Kind.ELEVEN and rules.side(viewer) == rules.eleven_side
            and rules.side(seat) == rules.eleven_side)


def vira_name(state: TrucoState, name) -> str:
    """The vira as `name` renders cards (`7s`; a class name is its rank, `7`)."""
    if state.rules.isomorphic:
        return state.rules.deck.rank_name(state.record.vira)
    return name(state.record.vira)


def visible_hands(state: TrucoState, viewer: int) -> list[int]:
    """Seats whose dealt hand `viewer` knows: his own, and his partner's in a hand of eleven."""
    return [seat for seat in range(state.rules.num_players) if sees_hand(state, viewer, seat)]


def _public_view(state: TrucoState, viewer: int, seat: int, action: int, item: int,
                 name) -> str:
    """How an action reads to `viewer`: others' covered cards hidden, revealed slots named."""
    rules = state.rules
    offset = action - CARD_ACTION_BASE
    if action < CARD_ACTION_BASE:
        return BETTING_ACTION_NAMES[action]
    if offset >= 2 * rules.num_items:
        shown = f" ({name(item)})" if item >= 0 else ""
        return f"Play slot {offset - 2 * rules.num_items + 1}{shown}"
    if offset >= rules.num_items:
        return f"Play {name(item)} covered" if seat == viewer else "Play covered"
    return f"Play {name(item)}"


def information_state(state: TrucoState, player: int, name) -> str:
    """`p0 | vira 7s | hand Qc 3s 4d | 0:Raise, 1:Accept, 0:Play 3s, 1:Play covered`.

    `name` renders a card item (concrete card or class); opponents' covered cards read
    `Play covered`; in a hand of eleven of 4 players the partner's hand follows as `partner`.
    """
    record = state.record
    parts = [f"p{player}"]
    if record.vira >= 0:
        parts.append("vira " + vira_name(state, name))
    for seat in visible_hands(state, player):
        if record.dealt[seat]:
            label = "hand" if seat == player else "partner"
            parts.append(f"{label} " + " ".join(name(i) for i in state.sorted_hand(
                record.dealt[seat])))
    if state.rules.blind and record.dealt[player]:
        parts.append("blind hand")
    history = ", ".join(f"{seat}:{_public_view(state, player, seat, action, item, name)}"
                        for seat, action, item in record.history_items)
    if history:
        parts.append(history)
    return " | ".join(parts)


def isomorphic_information_state(state: TrucoState, player: int) -> str:
    """The information state a concrete `state` has in the isomorphic game (cards as classes)."""
    return information_state(state, player, state.class_name)


def isomorphic_action(state: TrucoState, action: int) -> int:
    """The isomorphic game's action for a concrete player action (`Play 7s` -> `Play 7`)."""
    rules = state.rules
    offset = action - CARD_ACTION_BASE
    if action < CARD_ACTION_BASE:
        return action
    if offset >= 2 * rules.num_items:  # a slot
        return CARD_ACTION_BASE + 2 * rules.num_classes + offset - 2 * rules.num_items
    covered = offset >= rules.num_items
    return (CARD_ACTION_BASE + rules.num_classes * covered
            + state.class_of(offset % rules.num_items))


class TrucoObserver(Observer):
    """Observer (PyObserver interface): information state (perfect recall) or observation."""

    def __init__(self, iig_obs_type, rules: Rules, params):
        super().__init__(iig_obs_type, params)
        self.rules = rules
        players, items = rules.num_players, rules.num_items
        vira_items = rules.num_ranks if rules.isomorphic else rules.deck.num_cards
        pieces = [("player", players, (players,))]
        if self.public:
            pieces.append(("vira", vira_items, (vira_items,)))
        if self.private:
            pieces.append(("hands", players * items, (players, items)))  # own (+ partner's)
        if self.perfect_recall and self.public:
            # each action as seen: its id, or the extra last code for a hidden covered card;
            # a revealed slot also marks its card's face-up action
            codes = rules.num_distinct_actions() + 1
            length = rules.max_game_length()
            pieces.append(("history", length * players * codes, (length, players, codes)))
        elif self.public:
            rounds, ladder = rules.hand_size, len(LADDER.values)
            pieces += [
                ("table", rounds * players * (items + 1), (rounds, players, items + 1)),
                ("round_winner", rounds * 3, (rounds, 3)),  # side 0, side 1, tied
                ("stake", ladder, (ladder,)),
                ("proposal", ladder, (ladder,)),  # the value awaiting an answer
                ("kind", 3, (3,)),  # normal, hand of eleven, iron hand
                ("to_act", players, (players,)),
            ]
        self.tensor, self.dict = allocate_tensor(pieces)

    def set_from(self, state: TrucoState, player: int):
        """Fills the tensor with what `player` knows (or sees now) in `state`."""
        self.tensor.fill(0)
        self.dict["player"][player] = 1
        record = state.record
        if "vira" in self.dict and record.vira >= 0:
            self.dict["vira"][record.vira] = 1
        if "hands" in self.dict:
            for seat in visible_hands(state, player):
                hand = record.dealt[seat] if self.perfect_recall else record.hands[seat]
                for item in hand:
                    self.dict["hands"][seat, item] += 1
        if "history" in self.dict:
            self._set_history(state, player)
        if "table" in self.dict:
            self._set_table(state)

    def _set_history(self, state: TrucoState, player: int):
        rules, history = self.rules, self.dict["history"]
        hidden = rules.num_distinct_actions()
        for turn, (seat, action, item) in enumerate(state.record.history_items):
            covered = CARD_ACTION_BASE + rules.num_items <= action < \
                CARD_ACTION_BASE + 2 * rules.num_items
            history[turn, seat, hidden if covered and seat != player else action] = 1
            if action >= CARD_ACTION_BASE + 2 * rules.num_items and item >= 0:
                history[turn, seat, CARD_ACTION_BASE + item] = 1

    def _set_table(self, state: TrucoState):
        public, rules = state.public, self.rules
        for number, plays in enumerate(_rounds(state)):
            for seat, item, covered in plays:
                self.dict["table"][number, seat, rules.num_items if covered else item] = 1
        for number, winner in enumerate(public.round_winners):
            self.dict["round_winner"][number, 2 if winner == tricks.TIE else winner] = 1
        self.dict["stake"][LADDER.values.index(public.stake)] = 1
        if public.pending:
            self.dict["proposal"][LADDER.values.index(public.proposal())] = 1
        self.dict["kind"][rules.kind] = 1
        if public.to_act >= 0:
            self.dict["to_act"][public.to_act] = 1

    def string_from(self, state: TrucoState, player: int) -> str:
        """Information state string, or a readable table view of what `player` sees now."""
        if self.perfect_recall:
            return information_state(state, player, state.card_name)
        return observation(state, player)


def _rounds(state: TrucoState) -> list[list[tuple[int, int, bool]]]:
    """Cards on the table per round as (seat, item, covered); item -1 while a slot is unrevealed."""
    rules = state.rules
    rounds, current = [], []
    for seat, action, item in state.record.history_items:
        if action < CARD_ACTION_BASE and action != PLAY_LAST_COVERED:
            continue
        offset = action - CARD_ACTION_BASE
        covered = action == PLAY_LAST_COVERED or rules.num_items <= offset < 2 * rules.num_items
        current.append((seat, item, covered))
        if len(current) == rules.num_players:
            rounds.append(current)
            current = []
    if current:
        rounds.append(current)
    return rounds


def observation(state: TrucoState, player: int) -> str:
    """`P0 | vira 7s, manilha Q | hand: Qc 3s 4d | stake 3, P1 may raise | R1: P0 3s, P1 Qh:
    P1 wins | P0 to play`."""
    rules, record = state.rules, state.record
    parts = [f"P{player}"]
    if record.vira >= 0:
        manilha = rules.deck.rank_name(rules.manilha_rank(state.vira_rank()))
        parts.append(f"vira {vira_name(state, state.card_name)}, manilha {manilha}")
    for seat in visible_hands(state, player):
        label = "hand" if seat == player else f"partner P{seat}"
        shown = " ".join(state.card_name(i) for i in state.sorted_hand(record.hands[seat]))
        parts.append(f"{label}: {shown or '-'}")
    if rules.blind:
        parts.append(f"blind hand, {len(record.hands[player])} cards unseen")
    parts.append(_stake_text(state))
    parts += [_round_text(state, number, plays) for number, plays in enumerate(_rounds(state))]
    parts.append(_turn_text(state, player))
    return " | ".join(parts)


def _side_name(rules: Rules, side: int) -> str:
    """`P1` with 2 players, `P1+P3` with 4."""
    return "+".join(f"P{seat}" for seat in range(rules.num_players) if rules.side(seat) == side)


def _stake_text(state: TrucoState) -> str:
    """`stake 3, P1 may raise to 6`, `stake 12`, `stake 3 (hand of eleven, no raising)`."""
    public, rules = state.public, state.rules
    kinds = {Kind.NORMAL: "", Kind.ELEVEN: " (hand of eleven)", Kind.IRON: " (iron hand)"}
    text = f"stake {public.stake}{kinds[rules.kind]}"
    sides = public.may_raise_sides()
    if public.pending or public.is_over():
        return text
    if sides:
        who = " or ".join(_side_name(rules, side) for side in sides)
        return f"{text}, {who} may raise to {public.proposal()}"
    return text + (", no raising" if public.stake < LADDER.top else "")


def _round_text(state: TrucoState, number: int, plays) -> str:
    """`R1: P0 3s, P1 Qh: P1 wins` (`covered` for a face-down card, `tied` for a tie)."""
    rules = state.rules
    cards_ = ", ".join(f"P{seat} " + ("covered" if covered else state.card_name(item)
                                      if item >= 0 else "?") for seat, item, covered in plays)
    text = f"R{number + 1}: {cards_}"
    if number < len(state.public.round_winners):
        winner = state.public.round_winners[number]
        text += ": tied" if winner == tricks.TIE else f": {_side_name(rules, winner)} wins"
    return text


def _turn_text(state: TrucoState, player: int) -> str:
    public, rules = state.public, state.rules
    if public.is_over():
        if public.winner == tricks.ALL_TIED:
            return "nobody scores"
        return f"{_side_name(rules, public.winner)} scores {public.points}"
    if public.phase == Phase.DEAL or state.record.reveal >= 0:
        return "dealing"
    if public.phase == Phase.ELEVEN:
        return f"P{public.to_act}: play the hand of eleven or run?"
    if public.pending:
        return (f"P{public.proposer} raises to {public.proposal()}, P{public.to_act} to answer")
    return f"P{public.to_act} to play"
