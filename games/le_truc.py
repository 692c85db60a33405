"""Le Truc as an OpenSpiel Python game (`python_le_truc`): one hand of the French bluffing game.

Rules and parameters: games/RULES.md, section 1 (ids LT-1..LT-10). Parameters: `target`,
`score0`, `score1`, `dealer`, `stake_ladder`, `alternate_raises`, `allow_counter_raise`,
`allow_rest`, `rest_refusal`, `allow_fold`, `max_redeals`; size parameters `num_ranks`,
`hand_size`, `isomorphic` (suit-free deals of rank classes with exact weights, the same game).

The rules live once, in `PublicState`: a machine over public information only (betting, played
ranks, trick results, turn). The OpenSpiel state adds chance and the private hands, which decide
only which card actions are legal.
"""
from __future__ import annotations

import enum
import math

import pyspiel

from games import cards, tricks
from games.observer import Observer, allocate_tensor

# Player actions; card actions follow at CARD_ACTION_BASE + card (concrete) or + rank (isomorphic).
KEEP, ASK_REDEAL, AGREE, DECLINE, RAISE, REST, ACCEPT, REFUSE, FOLD = range(9)
CARD_ACTION_BASE = 9
BETTING_ACTION_NAMES = (
    "Keep", "Ask redeal", "Agree", "Decline", "Raise", "Rest", "Accept", "Refuse", "Fold")

NUM_PLAYERS = 2
SUITS_PER_RANK = 4
STRENGTH_SCALE = "9TJQKA87"  # weakest first: 7 > 8 > A > K > Q > J > T > 9
NAMED_LADDERS = {
    # name: (opening values, step after them)
    "seed": ((1, 2, 6), 2),
    "plus_two": ((1, 2), 2),
    "doubling": ((1, 2), None),  # None: keep doubling
}
REST_REFUSAL_RULES = ("match", "stake")

_DEFAULT_PARAMS = {
    "target": 12,
    "score0": 0,
    "score1": 0,
    "dealer": 1,
    "stake_ladder": "seed",
    "alternate_raises": True,
    "allow_counter_raise": False,
    "allow_rest": True,
    "rest_refusal": "match",
    "allow_fold": True,
    "max_redeals": 1,
    "num_ranks": len(STRENGTH_SCALE),
    "hand_size": 3,
    "isomorphic": False,
}

_GAME_TYPE = pyspiel.GameType(
    short_name="python_le_truc",
    long_name="Python Le Truc",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=NUM_PLAYERS,
    min_num_players=NUM_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULT_PARAMS,
)


def stake_ladder(name_or_list: str, target: int) -> tricks.Ladder:
    """LT-7: the ladder named by `stake_ladder` for this target (ValueError if not allowed)."""
    if name_or_list in NAMED_LADDERS:
        opening, step = NAMED_LADDERS[name_or_list]
        values = list(opening)
        while values[-1] < target:
            values.append(values[-1] + step if step else values[-1] * 2)
        return tricks.Ladder(tuple(v for v in values if v < target) + (target,))
    if ":" not in name_or_list and not name_or_list.isdigit():
        raise ValueError(
            f"stake_ladder={name_or_list!r} is unknown: allowed {', '.join(NAMED_LADDERS)} or a "
            f"colon-separated list starting at 1, strictly increasing, ending at most at the "
            f"target (e.g. 1:3:5:12)")
    values = tricks.parse_ladder_list(name_or_list)
    if values[0] != 1 or any(b <= a for a, b in zip(values, values[1:])) or values[-1] > target:
        raise ValueError(
            f"stake_ladder={name_or_list!r} is not allowed: a custom ladder must start at 1, "
            f"increase strictly and end at most at target={target}")
    return tricks.Ladder(values)


class Rules:
    """Validated parameters of one Le Truc game and what follows from them."""

    def __init__(self, params: dict):
        p = {**_DEFAULT_PARAMS, **params}
        _require(p["target"] >= 1, "target", p["target"], "a whole number >= 1")
        for name in ("score0", "score1"):
            _require(0 <= p[name] < p["target"], name, p[name],
                     f"0 <= {name} < target={p['target']}")
        _require(p["dealer"] in (0, 1), "dealer", p["dealer"], "0 or 1")
        _require(p["rest_refusal"] in REST_REFUSAL_RULES, "rest_refusal", p["rest_refusal"],
                 " or ".join(REST_REFUSAL_RULES))
        _require(p["max_redeals"] >= 0, "max_redeals", p["max_redeals"], "a whole number >= 0")
        _require(1 <= p["num_ranks"] <= len(STRENGTH_SCALE), "num_ranks", p["num_ranks"],
                 f"1..{len(STRENGTH_SCALE)}")
        _require(1 <= p["hand_size"] <= 3, "hand_size", p["hand_size"], "1..3")
        _require(2 * p["hand_size"] <= SUITS_PER_RANK * p["num_ranks"], "hand_size",
                 p["hand_size"], f"at most {SUITS_PER_RANK * p['num_ranks'] // 2} cards for "
                 f"num_ranks={p['num_ranks']} (two hands must fit in the deck)")
        self.params = p
        self.target = p["target"]
        self.scores = (p["score0"], p["score1"])
        self.dealer = p["dealer"]
        self.non_dealer = 1 - p["dealer"]
        self.ladder = stake_ladder(p["stake_ladder"], p["target"])
        self.alternate_raises = p["alternate_raises"]
        self.allow_counter_raise = p["allow_counter_raise"]
        self.allow_rest = p["allow_rest"]
        self.rest_refusal = p["rest_refusal"]
        self.allow_fold = p["allow_fold"]
        self.max_redeals = p["max_redeals"]
        self.hand_size = p["hand_size"]
        self.isomorphic = p["isomorphic"]
        self.deck = cards.Deck(cards.strongest_ranks(STRENGTH_SCALE, p["num_ranks"]))
        self.hand_classes = cards.rank_multisets(self.deck.num_ranks, self.hand_size,
                                                 SUITS_PER_RANK)

    def __deepcopy__(self, memo):
        """Rules are immutable: clones of a state share them (OpenSpiel deep-copies states)."""
        return self

    def redeal_possible(self, redeals_done: int) -> bool:
        """LT-4: another redeal may be asked for (limit not reached, talon holds two hands)."""
        talon = self.deck.num_cards - 2 * self.hand_size * (redeals_done + 1)
        return redeals_done < self.max_redeals and talon >= 2 * self.hand_size

    @property
    def num_card_items(self) -> int:
        """Distinct card actions: one per card, or one per rank in isomorphic mode."""
        return self.deck.num_ranks if self.isomorphic else self.deck.num_cards

    def rank_of(self, item: int) -> int:
        """Rank class (= strength) of a card item (card number, or rank in isomorphic mode)."""
        return item if self.isomorphic else self.deck.rank_index(item)

    def max_utility(self) -> int:
        rest_value = self.target - min(self.scores) if self.allow_rest else 0
        return max(self.ladder.top, rest_value)

    def tree_scores(self) -> tuple[int, int]:
        """Scores at which the hand's play is the same as at these (the scores change only
        what a terminal marked `whole_match` scores): any, so 0-0."""
        return 0, 0

    def max_betting_actions_per_card_turn(self) -> int:
        """A bet, its chain of answers (counter-raises climb the ladder), then the card or fold."""
        return 1 + len(self.ladder.values) + 1 + 1

    def max_game_length(self) -> int:
        redeal_talk = 2 * self.max_redeals + 1
        return redeal_talk + 2 * self.hand_size * self.max_betting_actions_per_card_turn()


def _require(ok: bool, name: str, value, allowed: str) -> None:
    if not ok:
        raise ValueError(f"{name}={value!r} is not allowed: {allowed}")


class Phase(enum.IntEnum):
    DEAL = 0  # chance deals hands (private)
    REDEAL_ASK = 1  # non-dealer: Keep or Ask redeal
    REDEAL_ANSWER = 2  # dealer: Agree or Decline
    PLAY = 3  # card turns, bets and answers
    OVER = 4


class PublicState(tricks.PublicMachine):
    """LT-1..LT-9 over public information only.

    Card plays are ranks (`play`); whether a rank can be played is for the caller to decide
    from the private hand. `legal_actions` lists the non-card actions; at a card turn
    (`is_card_turn`) the player may also play any card he holds.
    """

    __slots__ = ("rules", "phase", "redeals", "leader", "card_player", "to_act", "trick",
                 "trick_winners", "stake", "pending", "proposer", "last_raiser",
                 "bet_this_turn", "rest_agreed", "winner", "points", "whole_match")

    def __init__(self, rules: Rules):
        self.rules = rules
        self.phase = Phase.DEAL
        self.redeals = 0
        self.leader = rules.non_dealer
        self.card_player = rules.non_dealer
        self.to_act = rules.non_dealer
        self.trick: tuple[tricks.Play, ...] = ()
        self.trick_winners: tuple[int, ...] = ()
        self.stake = 1
        self.pending = None  # RAISE or REST while a proposal awaits its answer
        self.proposer = -1
        self.last_raiser = -1  # maker of the most recent accepted raise
        self.bet_this_turn = False
        self.rest_agreed = False
        self.winner = -1  # scoring player, or tricks.ALL_TIED for a void hand
        self.points = 0
        self.whole_match = False  # the points are what the winner needed to win the match

    # --- queries -----------------------------------------------------------------------------
    def is_over(self) -> bool:
        return self.phase == Phase.OVER

    def is_card_turn(self) -> bool:
        return self.phase == Phase.PLAY and self.pending is None

    def _may_bet(self) -> bool:
        """LT-7 conditions shared by Raise and Rest (LT-8), ladder aside."""
        rules = self.rules
        return (not self.rest_agreed and not self.bet_this_turn
                and not (rules.alternate_raises and self.last_raiser == self.card_player))

    def legal_actions(self) -> list[int]:
        """Non-card actions of the player to act, ascending."""
        rules = self.rules
        if self.phase == Phase.REDEAL_ASK:
            return [KEEP, ASK_REDEAL]
        if self.phase == Phase.REDEAL_ANSWER:
            return [AGREE, DECLINE]
        if self.phase != Phase.PLAY:
            return []
        if self.pending == REST:
            return [REST, REFUSE]
        if self.pending == RAISE:
            counter = (rules.allow_counter_raise
                       and rules.ladder.next_value(self._proposed_value()) is not None)
            return [RAISE, ACCEPT, REFUSE] if counter else [ACCEPT, REFUSE]
        actions = []
        if self._may_bet() and rules.ladder.next_value(self.stake) is not None:
            actions.append(RAISE)
        if self._may_bet() and rules.allow_rest:
            actions.append(REST)
        if rules.allow_fold:
            actions.append(FOLD)
        return actions

    def _proposed_value(self) -> int:
        return self.rules.ladder.next_value(self.stake)

    # --- transitions -------------------------------------------------------------------------
    def hands_dealt(self) -> None:
        """Chance finished dealing: redeal talk if possible, else play."""
        if self.rules.redeal_possible(self.redeals):
            self.phase, self.to_act = Phase.REDEAL_ASK, self.rules.non_dealer
        else:
            self._start_play()

    def _start_play(self) -> None:
        self.phase = Phase.PLAY
        self.to_act = self.card_player = self.leader = self.rules.non_dealer

    def apply(self, action: int) -> None:
        """Applies a non-card action (assumed legal)."""
        rules = self.rules
        if action == KEEP or action == DECLINE:
            self._start_play()
        elif action == ASK_REDEAL:
            self.phase, self.to_act = Phase.REDEAL_ANSWER, rules.dealer
        elif action == AGREE:
            self.phase, self.redeals = Phase.DEAL, self.redeals + 1
        elif action == FOLD:
            self._score(1 - self.card_player, for_match=self.rest_agreed)
        elif self.pending is None:  # Raise or Rest at a card turn
            self.pending, self.proposer, self.bet_this_turn = action, self.card_player, True
            self.to_act = 1 - self.card_player
        elif action == ACCEPT:
            self.stake, self.last_raiser = self._proposed_value(), self.proposer
            self._close_proposal()
        elif action == RAISE:  # counter-raise: accept, then propose the next value back
            self.stake, self.last_raiser = self._proposed_value(), self.proposer
            self.proposer, self.to_act = self.to_act, self.proposer
        elif action == REST:  # rest matched
            self.rest_agreed = True
            self._close_proposal()
        elif action == REFUSE:
            self._score(self.proposer, for_match=(self.pending == REST
                                                  and rules.rest_refusal == "match"))

    def _close_proposal(self) -> None:
        self.pending, self.proposer, self.to_act = None, -1, self.card_player

    def _score(self, winner: int, for_match: bool) -> None:
        """The hand ends: `winner` scores the stake or, `for_match` (a rest agreed, or refused
        under rest_refusal=match), what he needs to win the match."""
        points = self.rules.target - self.rules.scores[winner] if for_match else self.stake
        self._end(winner, points, for_match)

    def play(self, rank: int) -> None:
        """The card player plays a card of this rank (LT-5, LT-6)."""
        self.trick += (tricks.Play(self.card_player, self.card_player, rank),)
        self.bet_this_turn = False
        if len(self.trick) < NUM_PLAYERS:
            self.card_player = self.to_act = 1 - self.card_player
            return
        winner, self.leader = tricks.settle_trick(self.trick)
        self.trick_winners += (winner,)
        self.card_player = self.to_act = self.leader
        self.trick = ()
        result = tricks.hand_result(self.trick_winners, self.rules.hand_size)
        if result == tricks.ALL_TIED:
            self._end(tricks.ALL_TIED, 0)
        elif result != tricks.UNDECIDED:
            self._score(result, for_match=self.rest_agreed)

    def _end(self, winner: int, points: int, whole_match: bool = False) -> None:
        self.phase, self.winner, self.points = Phase.OVER, winner, points
        self.whole_match = whole_match
        self.to_act = -1

    def returns(self) -> list[float]:
        """Zero-sum points of the hand: the scorer +points, the other -points."""
        if self.phase != Phase.OVER or self.winner == tricks.ALL_TIED:
            return [0.0, 0.0]
        result = [float(-self.points)] * NUM_PLAYERS
        result[self.winner] = float(self.points)
        return result


class PlayGame(tricks.PublicGame):
    """The card play of a Le Truc hand, for the public-tree engine (`tricks.PublicGame`):
    classes are the ranks, four cards each, nothing is ever played face down. The root is the
    first card turn; the redeal talk before it (LT-4) is composed around this by the engine
    (`solver.public.redeal`)."""

    def __init__(self, rules: Rules):
        self.rules = rules
        self.hand_size = rules.hand_size
        self.class_counts = (SUITS_PER_RANK,) * rules.deck.num_ranks

    def root(self) -> PublicState:
        public = PublicState(self.rules)
        public._start_play()
        return public

    def play_card(self, public: PublicState, item: int, covered: bool) -> None:
        public.play(item)

    def card_action(self, item: int, covered: bool, last_card: bool) -> int:
        return CARD_ACTION_BASE + item

    def class_name(self, item: int) -> str:
        return self.rules.deck.rank_name(item)

    def bet_name(self, action: int) -> str:
        return BETTING_ACTION_NAMES[action]


class LeTrucGame(pyspiel.Game):
    """One hand of Le Truc (rules and parameters: games/RULES.md, section 1)."""

    def __init__(self, params=None):
        self.rules = Rules(params or {})
        rules = self.rules
        max_utility = float(rules.max_utility())
        game_info = pyspiel.GameInfo(
            num_distinct_actions=CARD_ACTION_BASE + rules.num_card_items,
            # one card per node, or one whole hand (a rank multiset) per node
            max_chance_outcomes=(len(rules.hand_classes) if rules.isomorphic
                                 else rules.deck.num_cards),
            num_players=NUM_PLAYERS,
            min_utility=-max_utility,  # a lost rest: target minus the lower score
            max_utility=max_utility,
            utility_sum=0.0,
            max_game_length=rules.max_game_length())
        super().__init__(_GAME_TYPE, game_info, params or {})

    def new_initial_state(self):
        return LeTrucState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return LeTrucObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), self.rules, params)


class CardRecord:
    """Who holds which cards, what is undealt, and the public actions so far."""

    __slots__ = ("hands", "dealt_hands", "undealt", "history_items")

    def __init__(self, rules: Rules):
        self.hands = [[], []]  # unplayed card items per player, sorted
        self.dealt_hands = [[], []]  # every hand each player was dealt, in order (his memory)
        self.undealt = (tuple([SUITS_PER_RANK] * rules.deck.num_ranks) if rules.isomorphic
                        else tuple(range(rules.deck.num_cards)))
        self.history_items = []  # public actions: (player, action)

    def __deepcopy__(self, memo):
        """Fast copy (OpenSpiel deep-copies states to clone them); tuples inside are shared."""
        other = CardRecord.__new__(CardRecord)
        other.hands = [list(hand) for hand in self.hands]
        other.dealt_hands = [list(hands) for hands in self.dealt_hands]
        other.undealt = self.undealt
        other.history_items = list(self.history_items)
        return other


class Hand:
    """One hand outside OpenSpiel: the rules, the public machine and the card record, with the
    chance and card logic. `LeTrucState` wraps one (and checks actions); the memoized tree
    compiler (`solver.tree`) walks Hands directly, cloning them without OpenSpiel's deep copy."""

    __slots__ = ("rules", "public", "record")

    def __init__(self, rules: Rules):
        self.rules = rules
        self.public = PublicState(rules)
        self.record = CardRecord(rules)

    def clone(self) -> "Hand":
        other = Hand.__new__(Hand)
        other.rules = self.rules
        other.public = self.public.clone()
        other.record = self.record.__deepcopy__(None)
        return other

    def __deepcopy__(self, memo):
        """OpenSpiel clones Python states by deep-copying their attributes."""
        return self.clone()

    # --- chance ------------------------------------------------------------------------------
    def is_chance_node(self) -> bool:
        return self.public.phase == Phase.DEAL

    def _dealing_player(self) -> int:
        """Who receives cards next (player 0's hand first), given hands are being dealt."""
        return 0 if len(self.record.hands[0]) < self.rules.hand_size else 1

    def chance_outcomes(self):
        """Concrete: each undealt card, uniform. Isomorphic: each hand class, exact weights."""
        if not self.rules.isomorphic:
            probability = 1.0 / len(self.record.undealt)
            return [(card, probability) for card in self.record.undealt]
        talon = sum(self.record.undealt)
        total = math.comb(talon, self.rules.hand_size)
        outcomes = []
        for index, hand in enumerate(self.rules.hand_classes):
            weight = cards.multiset_weight(hand, self.record.undealt)
            if weight:
                outcomes.append((index, weight / total))
        return outcomes

    def _apply_deal(self, outcome: int) -> None:
        player = self._dealing_player()
        if self.rules.isomorphic:
            hand = self.rules.hand_classes[outcome]
            counts = cards.rank_counts(hand, self.rules.deck.num_ranks)
            self.record.undealt = tuple(a - c for a, c in zip(self.record.undealt, counts))
            self.record.hands[player] = list(hand)
        else:
            self.record.undealt = tuple(card for card in self.record.undealt if card != outcome)
            self.record.hands[player] = sorted(self.record.hands[player] + [outcome])
        if len(self.record.hands[player]) == self.rules.hand_size:
            self.record.dealt_hands[player].append(tuple(self.record.hands[player]))
            if player == 1:
                self.public.hands_dealt()

    # --- play --------------------------------------------------------------------------------
    def current_player(self) -> int:
        if self.public.is_over():
            return pyspiel.PlayerId.TERMINAL
        if self.public.phase == Phase.DEAL:
            return pyspiel.PlayerId.CHANCE
        return self.public.to_act

    def legal_actions_of(self, player: int) -> list[int]:
        """`player`'s legal actions, ascending (he must be the one to act)."""
        actions = self.public.legal_actions()
        if self.public.is_card_turn():
            actions += sorted({CARD_ACTION_BASE + item for item in self.record.hands[player]})
        return sorted(actions)

    def legal_actions(self) -> list[int]:
        """The legal actions of the player to act (chance: the possible outcomes)."""
        if self.public.phase == Phase.DEAL:
            return [outcome for outcome, _ in self.chance_outcomes()]
        return self.legal_actions_of(self.public.to_act)

    def apply_action(self, action: int) -> None:
        """Apply a legal action or chance outcome (unchecked: see `LeTrucState`)."""
        if self.public.phase == Phase.DEAL:
            self._apply_deal(action)
            return
        player = self.public.to_act
        self.record.history_items.append((player, action))
        if action >= CARD_ACTION_BASE:
            item = action - CARD_ACTION_BASE
            self.record.hands[player].remove(item)
            self.public.play(self.rules.rank_of(item))
        else:
            self.public.apply(action)
            if action == AGREE:
                self.record.hands = [[], []]

    def child(self, action: int) -> "Hand":
        other = self.clone()
        other.apply_action(action)
        return other

    def is_terminal(self) -> bool:
        return self.public.is_over()

    def returns(self) -> list[float]:
        return self.public.returns()

    def subtree_key(self):
        """Hashable key: hands with equal keys have identical subtrees (players, legal actions,
        chance outcomes and probabilities, returns). Everything after the first deal that is
        not a redeal deal is public."""
        return (self.public.key(), tuple(map(tuple, self.record.hands)), self.record.undealt)

    def information_state_string(self, player: int) -> str:
        return information_state(self, player, self.card_name)

    def action_to_string(self, player: int, action: int) -> str:
        return action_name(self.rules, player, action, self.card_name)

    def card_name(self, item: int) -> str:
        """`7s` for a concrete card, `7` for a rank class."""
        return self.rules.deck.rank_name(item) if self.rules.isomorphic else \
            self.rules.deck.name(item)

    def __str__(self):
        hands = " / ".join(" ".join(self.card_name(i) for i in hand) for hand in self.record.hands)
        history = ", ".join(f"{p}:{self.action_to_string(p, a)}"
                            for p, a in self.record.history_items)
        return f"hands {hands} | {history}"


class LeTrucState(pyspiel.State):
    """A hand in progress as an OpenSpiel state: a `Hand`, and checks on the actions applied.

    `rules`, `public` and `record` read through to the hand (OpenSpiel clones a state by
    deep-copying its attributes: one attribute, one copy)."""

    def __init__(self, game: LeTrucGame):
        super().__init__(game)
        self.hand = Hand(game.rules)

    rules = property(lambda self: self.hand.rules)
    public = property(lambda self: self.hand.public)
    record = property(lambda self: self.hand.record)

    def compile_walk_state(self) -> Hand:
        """A copy of the hand for `solver.tree`'s memoized walk (same walk methods, no OpenSpiel)."""
        return self.hand.clone()

    # --- OpenSpiel hooks ---------------------------------------------------------------------
    def current_player(self):
        return self.hand.current_player()

    def chance_outcomes(self):
        return self.hand.chance_outcomes()

    def _legal_actions(self, player):
        return self.hand.legal_actions_of(player)

    def _apply_action(self, action):
        hand = self.hand
        if hand.public.is_over():
            raise ValueError(f"action {action} cannot be applied: the hand is over")
        if hand.public.phase == Phase.DEAL:
            if action not in {outcome for outcome, _ in hand.chance_outcomes()}:
                raise ValueError(f"chance outcome {action} is not possible here")
        else:
            player = hand.public.to_act
            legal = hand.legal_actions_of(player)
            if action not in legal:
                raise ValueError(
                    f"action {action} is not legal for player {player} here; legal: "
                    f"{[hand.action_to_string(player, a) for a in legal]}")
        hand.apply_action(action)

    def _action_to_string(self, player, action):
        return self.hand.action_to_string(player, action)

    def is_terminal(self):
        return self.hand.is_terminal()

    def returns(self):
        return self.hand.returns()

    def subtree_key(self):
        """See `Hand.subtree_key`."""
        return self.hand.subtree_key()

    def __str__(self):
        return str(self.hand)


def action_name(rules: Rules, player: int, action: int, card_name) -> str:
    """Action strings (games/RULES.md, section 1): `Raise`, `Play 7s`, `Deal 7s`, `Deal 7 7 A`
    (isomorphic)."""
    if player == pyspiel.PlayerId.CHANCE:
        if rules.isomorphic:
            return "Deal " + " ".join(rules.deck.rank_name(r)
                                      for r in reversed(rules.hand_classes[action]))
        return "Deal " + rules.deck.name(action)
    if action < CARD_ACTION_BASE:
        return BETTING_ACTION_NAMES[action]
    return "Play " + card_name(action - CARD_ACTION_BASE)


def _hand_text(hand, card_name) -> str:
    """A hand strongest card first."""
    return " ".join(card_name(item) for item in sorted(hand, reverse=True))


def information_state(state: LeTrucState, player: int, card_name) -> str:
    """`p0 | hand 7s As 9d | 0:Ask redeal, 1:Agree | hand 8c Jd Qh | 0:Raise, 1:Accept, ...`.

    Own hands appear where they were dealt (after the deal that created them), public actions in
    order; the opponent's cards appear only when played.
    """
    rules = state.rules
    dealt = state.record.dealt_hands[player]
    parts = [f"p{player}"]
    if dealt:
        parts.append("hand " + _hand_text(dealt[0], card_name))
    segment, hands_shown = [], 1
    for actor, action in state.record.history_items:
        segment.append(f"{actor}:{action_name(rules, actor, action, card_name)}")
        if action == AGREE and hands_shown < len(dealt):
            parts.append(", ".join(segment))
            parts.append("hand " + _hand_text(dealt[hands_shown], card_name))
            segment, hands_shown = [], hands_shown + 1
    if segment:
        parts.append(", ".join(segment))
    return " | ".join(parts)


def isomorphic_information_state(state: LeTrucState, player: int) -> str:
    """The information state a concrete `state` has in the isomorphic game (suits dropped)."""
    return information_state(state, player, lambda item: state.rules.deck.rank_name(
        state.rules.rank_of(item)))


def isomorphic_action(rules: Rules, action: int) -> int:
    """The isomorphic game's action for a concrete player action (`Play 7s` -> `Play 7`)."""
    if action < CARD_ACTION_BASE:
        return action
    return CARD_ACTION_BASE + rules.deck.rank_index(action - CARD_ACTION_BASE)


class LeTrucObserver(Observer):
    """Observer (PyObserver interface): information state (perfect recall) or observation."""

    def __init__(self, iig_obs_type, rules: Rules, params):
        super().__init__(iig_obs_type, params)
        self.rules = rules
        items = rules.num_card_items
        num_actions = CARD_ACTION_BASE + items
        pieces = [("player", NUM_PLAYERS, (NUM_PLAYERS,))]
        if self.perfect_recall:
            if self.private:
                hands = rules.max_redeals + 1
                pieces.append(("hands", hands * items, (hands, items)))
            if self.public:
                length = rules.max_game_length()
                pieces.append(("history", length * NUM_PLAYERS * num_actions,
                               (length, NUM_PLAYERS, num_actions)))
        else:
            if self.private:
                pieces.append(("hand", items, (items,)))
            if self.public:
                tricks_, ladder = rules.hand_size, len(rules.ladder.values)
                pieces += [
                    ("table", tricks_ * NUM_PLAYERS * items, (tricks_, NUM_PLAYERS, items)),
                    ("trick_winner", tricks_ * 3, (tricks_, 3)),  # player 0, player 1, spoiled
                    ("stake", ladder, (ladder,)),
                    ("proposal", 2, (2,)),  # raise pending, rest pending
                    ("rest_agreed", 1, (1,)),
                    ("to_play_card", NUM_PLAYERS, (NUM_PLAYERS,)),
                ]
        self.tensor, self.dict = allocate_tensor(pieces)

    def set_from(self, state: LeTrucState, player: int):
        """Fills the tensor with what `player` knows (or sees now) in `state`."""
        self.tensor.fill(0)
        self.dict["player"][player] = 1
        if "hands" in self.dict:
            for slot, hand in enumerate(state.record.dealt_hands[player]):
                for item in hand:
                    self.dict["hands"][slot, item] += 1
        if "history" in self.dict:
            for turn, (actor, action) in enumerate(state.record.history_items):
                self.dict["history"][turn, actor, action] = 1
        if "hand" in self.dict:
            for item in state.record.hands[player]:
                self.dict["hand"][item] += 1
        if "table" in self.dict:
            self._set_table(state)

    def _set_table(self, state: LeTrucState):
        public = state.public
        trick, seats = 0, 0
        for actor, action in state.record.history_items:
            if action >= CARD_ACTION_BASE:
                self.dict["table"][trick, actor, action - CARD_ACTION_BASE] += 1
                seats += 1
                if seats == NUM_PLAYERS:
                    trick, seats = trick + 1, 0
        for index, winner in enumerate(public.trick_winners):
            self.dict["trick_winner"][index, 2 if winner == tricks.TIE else winner] = 1
        self.dict["stake"][self.rules.ladder.values.index(public.stake)] = 1
        if public.pending is not None:
            self.dict["proposal"][0 if public.pending == RAISE else 1] = 1
        self.dict["rest_agreed"][0] = float(public.rest_agreed)
        if public.is_card_turn():
            self.dict["to_play_card"][public.card_player] = 1

    def string_from(self, state: LeTrucState, player: int) -> str:
        """Information state string, or a readable table view of what `player` sees now."""
        if self.perfect_recall:
            return information_state(state, player, state.hand.card_name)
        return observation(state, player)


def observation(state: LeTrucState, player: int) -> str:
    """`P0 | hand: 7s Ah | stake 2 | T1: 9d>8c | T2: Kh | raise to 6? | P1 to play`."""
    public, name = state.public, state.hand.card_name
    parts = [f"P{player}", "hand: " + (_hand_text(state.record.hands[player], name) or "-")]
    stake = f"stake {public.stake}" + (" (rest agreed)" if public.rest_agreed else "")
    parts.append(stake)
    parts += _trick_lines(state)
    parts.append(_turn_line(state))
    return " | ".join(parts)


def _trick_lines(state: LeTrucState) -> list[str]:
    """`T1: 9d>8c` (first card won), `<` (second won), `=` (spoiled); the open trick as `T2: Kh`."""
    plays = [(actor, action - CARD_ACTION_BASE) for actor, action in state.record.history_items
             if action >= CARD_ACTION_BASE]
    lines = []
    for index in range(0, len(plays), NUM_PLAYERS):
        trick = plays[index:index + NUM_PLAYERS]
        cards_ = [state.hand.card_name(item) for _, item in trick]
        number = index // NUM_PLAYERS
        if len(trick) < NUM_PLAYERS:
            lines.append(f"T{number + 1}: {cards_[0]}")
            continue
        winner = state.public.trick_winners[number]
        symbol = "=" if winner == tricks.TIE else (">" if winner == trick[0][0] else "<")
        lines.append(f"T{number + 1}: {cards_[0]}{symbol}{cards_[1]}")
    return lines


def _turn_line(state: LeTrucState) -> str:
    public = state.public
    if public.is_over():
        if public.winner == tricks.ALL_TIED:
            return "void hand"
        return f"P{public.winner} scores {public.points}"
    if public.phase == Phase.DEAL:
        return "dealing"
    if public.phase == Phase.REDEAL_ASK:
        return f"P{public.to_act}: keep or ask redeal?"
    if public.phase == Phase.REDEAL_ANSWER:
        return f"P{public.to_act}: agree to redeal?"
    if public.pending == RAISE:
        return (f"P{public.proposer} raises to {public.rules.ladder.next_value(public.stake)}, "
                f"P{public.to_act} to answer")
    if public.pending == REST:
        return f"P{public.proposer} calls rest, P{public.to_act} to answer"
    return f"P{public.to_act} to play"


pyspiel.register_game(_GAME_TYPE, LeTrucGame)
