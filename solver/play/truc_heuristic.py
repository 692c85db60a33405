"""Human-like rule-based bots for Le Truc and two-player Truco (`make_bot("heuristic", ...)` on
python_le_truc, python_truco_paulista or python_trucomano; Two-Ten-Jack has its own).

A careful human judges a hand by its chances of winning it, and bets by comparing those chances
with the price of a bet. The bots do the same with one number, the *equity*: the share of the
hand the bot expects to win (a void hand, or an all-tied one that nobody scores, counts one
half) against every hand the opponent can hold given what the bot has seen (its own cards, the
vira, the cards played face up), each weighted by its number of deals. The rest of the hand is
played out the way people play: the player second to a trick wins it as cheaply as he can or
throws his weakest card, and the later tricks set strongest card against strongest card. The
equity takes in the cards held and played, the card already on the table and the tricks won,
lost or tied so far; it reads nothing into the opponent's bets.

Card play: the card that leaves the best equity, ties going to a covered card (Truco: a lost
trick shows nothing), then to the weakest card. Second to a trick this wins it as cheaply as
possible, throws the weakest card when the trick is lost, and ties where a tie wins the hand
(after a trick won). Leading the first trick the Le Truc bot plays its strongest card
instead, as Le Truc's players advise ("habituellement sa plus forte carte, parce qu'il est
très avantageux de faire la première levée", https://www.adpoker.fr/truc.html). The rule was
checked in duplicate matches of 600 deals between variants of the bot: leading the strongest
card won 0.29 points per deal (95% CI [0.02, 0.56]) over the best-equity lead in Le Truc, but
lost 0.40 [-0.57, -0.23] in Truco Paulista, where leading the middle card lost 0.16
[-0.26, -0.05]; the Truco bot keeps the best-equity lead, mostly its weakest card.

Betting, all thresholds on the equity p (at a card turn, that of the best card; module
constants):

* at its card turn the bot raises with p >= RAISE_EQUITY, and bluffs, raising with a hand below
  BLUFF_EQUITY BLUFF_FREQUENCY of the time (the one random choice, from the bot's seeded numpy
  Generator: `action_probabilities` is the mixed policy, `step` samples it);
* facing a bet it weighs the price: refusing loses the stake, accepting wins or loses the
  proposed value, so accepting pays from p = (proposed - stake) / (2 proposed) on (pot odds);
  the bot counts its equity at BET_RESPECT of itself, since a bettor's hand is mostly better
  than a random one, and raises back with p >= RERAISE_EQUITY;
* Le Truc: the rest (all-in to the match) only with p >= REST_EQUITY and when it is worth more
  than the stake at the scores given; a rest is matched when matching pays (with the default
  `rest_refusal`="match" always: refusing costs as much as losing); a hand that is all but lost
  (p < FOLD_EQUITY) is folded while a rest that must be matched can still come; the non-dealer
  asks for a redeal with p < ASK_REDEAL_EQUITY, and the dealer agrees with p <
  AGREE_REDEAL_EQUITY;
* Truco: the hand of eleven is played with p >= PLAY_ELEVEN_EQUITY (running costs 1, playing
  risks 3), and the bot never raises in it; in a blind iron hand it plays its first slot.

Everything the bots read is in the acting player's information state (own hand, public
actions, the game's parameters), so `bot_policy` and `tricksolver exploit --bot heuristic`
measure them exactly.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, replace

import numpy as np
import pyspiel

from games import cards, le_truc, tricks, truco
from solver.play.sampling import draw_action

RAISE_EQUITY = 0.7
BLUFF_EQUITY = 0.3
BLUFF_FREQUENCY = 0.1
BET_RESPECT = 0.8
RERAISE_EQUITY = 0.85
REST_EQUITY = 0.85
FOLD_EQUITY = 0.1
ASK_REDEAL_EQUITY = 0.3
AGREE_REDEAL_EQUITY = 0.35
PLAY_ELEVEN_EQUITY = 0.45
_CACHE_SIZE = 200_000
_EQUITY_DIGITS = 9  # equities equal to this many digits are ties (broken by the card)
ME, OPPONENT = 0, 1


@dataclass(frozen=True)
class Position:
    """The card play as the bot knows it, sides relative to the bot (ME, OPPONENT).

    `mine`: strengths of the bot's unplayed cards, ascending; `unseen`: cards the bot has not
    seen, per strength (index = strength); `table`: the open trick's card, (side, strength), if
    one is down; `winners`: the finished tricks (ME, OPPONENT or tricks.TIE); `all_tied_share`:
    the bot's share of a hand whose every trick ties."""

    mine: tuple[int, ...]
    unseen: tuple[int, ...]
    opponent_cards: int
    table: tuple[tuple[int, int], ...]
    winners: tuple[int, ...]
    hand_size: int
    all_tied_share: float


@dataclass(frozen=True)
class BetActions:
    """A game's ids of the betting actions the shared rules use."""

    raise_: int
    accept: int
    refuse: int


@functools.lru_cache(maxsize=_CACHE_SIZE)
def equity(position: Position) -> float:
    """The bot's expected share of the hand against every hand the opponent can hold."""
    total = weights = 0.0
    for hand, weight in _opponent_hands(position.unseen, position.opponent_cards):
        total += weight * _played_out(position, hand)
        weights += weight
    return total / weights


@functools.lru_cache(maxsize=_CACHE_SIZE)
def _opponent_hands(unseen: tuple[int, ...], size: int) -> list[tuple[tuple[int, ...], int]]:
    """The opponent's possible hands (strength multisets) and their numbers of deals."""
    hands = cards.rank_multisets(len(unseen), size, max(unseen, default=0))
    weighted = [(hand, cards.multiset_weight(hand, unseen)) for hand in hands]
    return [(hand, weight) for hand, weight in weighted if weight]


def _played_out(position: Position, theirs: tuple[int, ...]) -> float:
    """The bot's share once the hand is played out against `theirs`: the open trick answered
    by its follower's cheapest winner or weakest card, then strongest against strongest."""
    hands = [list(position.mine), list(theirs)]
    winners = position.winners
    if position.table:
        [(side, lead)] = position.table
        follower = hands[1 - side]
        reply = next((s for s in follower if s > lead), follower[0])
        follower.remove(reply)
        winners += (_trick_winner(lead, reply) if side == ME else _trick_winner(reply, lead),)
    result = tricks.hand_result(winners, position.hand_size)
    for mine, theirs_card in zip(reversed(hands[ME]), reversed(hands[OPPONENT])):
        if result != tricks.UNDECIDED:
            break
        winners += (_trick_winner(mine, theirs_card),)
        result = tricks.hand_result(winners, position.hand_size)
    if result == tricks.ALL_TIED:
        return position.all_tied_share
    return 1.0 if result == ME else 0.0


def _trick_winner(mine: int, theirs: int) -> int:
    """ME, OPPONENT or tricks.TIE for one card of each side."""
    if mine == theirs:
        return tricks.TIE
    return ME if mine > theirs else OPPONENT


def after_card(position: Position, held: int, shown: int) -> Position:
    """The position once the bot plays its card of strength `held`, showing `shown` (0 for a
    covered Truco card): leading, the card waits on the table; following, the trick is over."""
    mine = list(position.mine)
    mine.remove(held)
    if position.table:
        [(_, lead)] = position.table
        return replace(position, mine=tuple(mine), table=(),
                       winners=position.winners + (_trick_winner(shown, lead),))
    return replace(position, mine=tuple(mine), table=((ME, shown),))


def best_card(choices) -> tuple[int, float]:
    """The card action leaving the best equity, and that equity. `choices`: (action, position
    after it, strength held, covered); ties go to a covered card, then the weakest card."""
    scored = [(round(equity(after), _EQUITY_DIGITS), covered, -held, -action)
              for action, after, held, covered in choices]
    top = max(scored)
    return -top[3], top[0]


def strongest_card(choices) -> int:
    """The action playing the strongest card of `choices` (the lowest action of equals)."""
    return max(choices, key=lambda choice: (choice[2], -choice[0]))[0]


def accepts(p: float, refusal_loss: float, win: float, loss: float) -> bool:
    """Whether accepting a bet pays with equity `p` counted at BET_RESPECT (the bettor's hand
    is mostly better than a random one): refusing loses `refusal_loss`, accepting wins `win`
    or loses `loss`, so accepting breaks even at (loss - refusal_loss) / (win + loss)."""
    return BET_RESPECT * p >= (loss - refusal_loss) / (win + loss)


def answer_raise(p: float, legal: list[int], bets: BetActions, stake: int,
                 proposed: int) -> int:
    """Raise back with a very strong hand, accept a raise from `stake` to `proposed` when
    that pays (`accepts`), else refuse."""
    if bets.raise_ in legal and p >= RERAISE_EQUITY:
        return bets.raise_
    return bets.accept if accepts(p, stake, proposed, proposed) else bets.refuse


def card_turn(p: float, card: int, legal: list[int], raise_action: int) -> dict[int, float]:
    """Raise for value, bluff now and then, or play `card`."""
    if raise_action not in legal:
        return {card: 1.0}
    if p >= RAISE_EQUITY:
        return {raise_action: 1.0}
    if p < BLUFF_EQUITY:
        return {raise_action: BLUFF_FREQUENCY, card: 1.0 - BLUFF_FREQUENCY}
    return {card: 1.0}


def _relative(me: int, side: int) -> int:
    """A side (or tricks.TIE) as seen by player `me`: ME or OPPONENT."""
    return side if side == tricks.TIE else int(side != me)


class TrucFamilyHeuristicBot(pyspiel.Bot):
    """What the two bots share: `step` samples the policy that each defines as its
    `action_probabilities` ({action: probability} at a state, by the rules of the module
    docstring)."""

    def __init__(self, seed: int):
        """A bot whose bluffs draw from `np.random.default_rng(seed)`."""
        pyspiel.Bot.__init__(self)
        self._rng = np.random.default_rng(seed)

    def step(self, state) -> int:
        """An action drawn from `action_probabilities` (a forced one draws nothing)."""
        probabilities = self.action_probabilities(state)
        if len(probabilities) == 1:
            return next(iter(probabilities))
        return draw_action(probabilities, self._rng)

    def restart_at(self, state):
        """Stateless but for the generator: nothing to do."""


class LeTrucHeuristicBot(TrucFamilyHeuristicBot):
    """The human-like Le Truc player (module docstring), concrete or isomorphic."""

    _BETS = BetActions(le_truc.RAISE, le_truc.ACCEPT, le_truc.REFUSE)

    def __init__(self, game, seed: int):
        """Checks that `game` is Le Truc."""
        super().__init__(seed)
        if game.get_type().short_name != "python_le_truc":
            raise ValueError(f"the Le Truc heuristic plays python_le_truc only, not {game}")

    def action_probabilities(self, state) -> dict[int, float]:
        legal = state.legal_actions()
        if len(legal) == 1:
            return {legal[0]: 1.0}
        public, position = state.public, le_truc_position(state)
        if public.phase == le_truc.Phase.REDEAL_ASK:
            asks = equity(position) < ASK_REDEAL_EQUITY
            return {le_truc.ASK_REDEAL if asks else le_truc.KEEP: 1.0}
        if public.phase == le_truc.Phase.REDEAL_ANSWER:
            agrees = equity(position) < AGREE_REDEAL_EQUITY
            return {le_truc.AGREE if agrees else le_truc.DECLINE: 1.0}
        if public.pending == le_truc.REST:
            return {self._answer_rest(state, equity(position)): 1.0}
        if public.pending == le_truc.RAISE:
            return {answer_raise(equity(position), legal, self._BETS, public.stake,
                                 state.rules.ladder.next_value(public.stake)): 1.0}
        return self._card_turn(state, position, legal)

    def _answer_rest(self, state, p: float) -> int:
        """Match a rest when matching beats refusing it (`rest_refusal`)."""
        rules, public = state.rules, state.public
        me = public.to_act
        refusal = (rules.target - rules.scores[1 - me] if rules.rest_refusal == "match"
                   else public.stake)
        return le_truc.REST if accepts(p, refusal, *_rest_stakes(rules, me)) else le_truc.REFUSE

    def _card_turn(self, state, position: Position, legal: list[int]) -> dict[int, float]:
        """Rest, raise, fold, bluff or play the best card."""
        rules, public = state.rules, state.public
        choices = [(action, after_card(position, held, held), held, False)
                   for action in legal if action >= le_truc.CARD_ACTION_BASE
                   for held in [rules.rank_of(action - le_truc.CARD_ACTION_BASE)]]
        card, p = best_card(choices)
        if not position.table and not position.winners:  # leading the first trick
            card = strongest_card(choices)
        if le_truc.REST in legal and self._rests(state, p):
            return {le_truc.REST: 1.0}
        hopeless = (le_truc.FOLD in legal and p < FOLD_EQUITY and rules.allow_rest
                    and rules.rest_refusal == "match" and not public.rest_agreed)
        return card_turn(p, le_truc.FOLD if hopeless else card, legal, le_truc.RAISE)

    @staticmethod
    def _rests(state, p: float) -> bool:
        """A very strong hand, and the rest worth more than playing for the stake."""
        win, loss = _rest_stakes(state.rules, state.public.to_act)
        return p >= REST_EQUITY and p * win - (1 - p) * loss > (2 * p - 1) * state.public.stake


def _rest_stakes(rules, me: int) -> tuple[int, int]:
    """What a matched rest wins and loses for player `me`: each side's points to the target."""
    return rules.target - rules.scores[me], rules.target - rules.scores[1 - me]


def le_truc_position(state) -> Position:
    """The Le Truc card play as the player to act knows it."""
    rules, public, record = state.rules, state.public, state.record
    me = public.to_act
    unseen = [le_truc.SUITS_PER_RANK] * rules.deck.num_ranks
    seen = [item for hand in record.dealt_hands[me] for item in hand]
    opponent_plays = [action - le_truc.CARD_ACTION_BASE for player, action in record.history_items
                      if player != me and action >= le_truc.CARD_ACTION_BASE]
    for item in seen + opponent_plays:
        unseen[rules.rank_of(item)] -= 1
    return Position(
        mine=tuple(sorted(rules.rank_of(item) for item in record.hands[me])),
        unseen=tuple(unseen),
        opponent_cards=rules.hand_size - len(opponent_plays),
        table=tuple((_relative(me, play.seat), play.strength) for play in public.trick),
        winners=tuple(_relative(me, winner) for winner in public.trick_winners),
        hand_size=rules.hand_size,
        all_tied_share=0.5)


class TrucoHeuristicBot(TrucFamilyHeuristicBot):
    """The human-like player of two-player Truco (Paulista or Trucomano; module docstring),
    concrete or isomorphic."""

    _BETS = BetActions(truco.RAISE, truco.ACCEPT, truco.RUN)

    def __init__(self, game, seed: int):
        """Checks that `game` is two-player Truco."""
        super().__init__(seed)
        if not isinstance(game, truco.TrucoGame) or game.num_players() != 2:
            raise ValueError(f"the Truco heuristic plays two-player python_truco_paulista or "
                             f"python_trucomano only, not {game}")

    def action_probabilities(self, state) -> dict[int, float]:
        legal = state.legal_actions()
        public = state.public
        if len(legal) == 1 or state.rules.blind:
            return {legal[0]: 1.0}
        position = truco_position(state)
        if public.phase == truco.Phase.ELEVEN:
            plays = equity(position) >= PLAY_ELEVEN_EQUITY
            return {truco.PLAY_11 if plays else truco.RUN_11: 1.0}
        if public.pending:
            return {answer_raise(equity(position), legal, self._BETS, public.stake,
                                 public.proposal()): 1.0}
        card, p = best_card(truco_card_choices(state, position, legal))
        if state.rules.kind == truco.Kind.ELEVEN:  # a raise there forfeits the match (TM-4)
            return {card: 1.0}
        return card_turn(p, card, legal, truco.RAISE)


def truco_card_choices(state, position: Position, legal: list[int]):
    """(action, position after it, strength held, covered) for each legal card action."""
    items = state.rules.num_items
    choices = []
    for action in legal:
        offset = action - truco.CARD_ACTION_BASE
        if action == truco.PLAY_LAST_COVERED:
            item, covered = state.record.hands[state.public.to_act][0], True
        elif 0 <= offset < 2 * items:
            item, covered = offset % items, offset >= items
        else:
            continue
        held = state.strength(item)
        choices.append((action, after_card(position, held, 0 if covered else held), held,
                        covered))
    return choices


def truco_position(state) -> Position:
    """The Truco card play as the player to act knows it (two players: side = seat)."""
    rules, public, record = state.rules, state.public, state.record
    me = public.to_act
    unseen = [0, *rules.class_counts(state.vira_rank())]  # strength = class + 1; 0: covered
    opponent_plays = [(action, item) for seat, action, item in record.history_items
                      if seat != me and _is_card_play(action)]
    face_up = [item for action, item in opponent_plays
               if truco.CARD_ACTION_BASE <= action < truco.CARD_ACTION_BASE + rules.num_items]
    for item in [*record.dealt[me], *face_up]:
        unseen[state.strength(item)] -= 1
    return Position(
        mine=tuple(sorted(state.strength(item) for item in record.hands[me])),
        unseen=tuple(unseen),
        opponent_cards=rules.hand_size - len(opponent_plays),
        table=tuple((_relative(me, play.side), play.strength) for play in public.round_plays),
        winners=tuple(_relative(me, winner) for winner in public.round_winners),
        hand_size=rules.hand_size,
        all_tied_share=_all_tied_share(rules, me))


def _is_card_play(action: int) -> bool:
    """A card played, face up, covered or from a blind slot."""
    return action == truco.PLAY_LAST_COVERED or action >= truco.CARD_ACTION_BASE


def _all_tied_share(rules, me: int) -> float:
    """TP-9, TM-1: the bot's share of a hand whose every round ties (`all_tied`)."""
    if rules.all_tied == "nobody":
        return 0.5
    return float(me == (rules.dealer if rules.all_tied == "dealer" else rules.mao))


def heuristic_bot(game, seed: int) -> TrucFamilyHeuristicBot:
    """The heuristic bot for Le Truc or two-player Truco; ValueError for another game."""
    if game.get_type().short_name == "python_le_truc":
        return LeTrucHeuristicBot(game, seed)
    if isinstance(game, truco.TrucoGame):
        return TrucoHeuristicBot(game, seed)
    raise ValueError(f"the heuristic bot plays python_two_ten_jack, python_le_truc and "
                     f"two-player python_truco_paulista or python_trucomano, not {game}")
