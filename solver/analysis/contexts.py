"""Le Truc strategy analysis: decision contexts, action frequencies, EV and bluffs per hand.

A *decision context* groups many information states that ask the same question, e.g. "the
non-dealer's first card turn at stake 1" or "answering a raise to 2" over every history that
leads there. For each context and each hand class (ranks, suits dropped, strongest first) we
report, under the solved average policy:

* frequency of each action, weighted by the probability of reaching each information state
  (chance x both players' policies): sum_I reach(I) pi(a|I) / sum_I reach(I);
* EV: the acting player's expected points from the context on, given that hand;
* reached: the probability of reaching the context at all, given the hand was dealt;
* for `Raise` and `Rest`, the hand's *equity against the calling range*: the probability that
  the bettor wins the hand (a void hand counts one half) after the bet is called (`Accept` a
  raise, `Rest` a rest), play continuing under the solved strategy, averaged over the
  histories of the context weighted by reach x the opponent's probability of calling there.
  A bet with equity >= 50% is a *value* bet, below 50% a *bluff*.

Hands are ordered by strength measured as the hand's equilibrium EV at the deal for the seat
that acts in the context (the expected points of being dealt that hand), strongest first.

Per action, the hand's *action EV*: the acting player's expected points if he takes that action
there (then play continues under the solved strategy), averaged like the EV. At equilibrium
every action a hand mixes has the same EV, so a mix is not advice: a hand whose best actions
are within `INDIFFERENCE_TOLERANCE` points of each other, at the information states holding
most of its reach, is flagged *indifferent* (any of them is as good for it; the frequencies
shown are only the ones that keep the opponent from exploiting it), and a hand reaching the decision less than `RARE_REACH` of the time is flagged
*rarely reached* (`hand_notes`).

The follower's contexts (`follow_*`) are also split by the lead card (`ContextTable.splits`):
averaged over the lead, the follower's card play hides what he does against each card.

Contexts are found by parsing the information state strings of `games.le_truc` (player, own
hands, public actions) and replaying the public actions on `games.le_truc.PublicState`.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pyspiel

from games import le_truc

CARD_POSITIONS = {1: ("Play",), 2: ("Play high", "Play low"),
                  3: ("Play high", "Play middle", "Play low")}
BET_ACCEPTS = {"Raise": le_truc.ACCEPT, "Rest": le_truc.REST}
INDIFFERENCE_TOLERANCE = 0.02  # points: actions this close in EV are equally good for the hand
RARE_REACH = 0.01  # a hand reaching a decision less often than this: "rarely reached"


@dataclasses.dataclass
class ContextTable:
    """One decision context: hands (rows, strongest first) x actions (columns).

    player: the seat acting here most often; players: every seat acting here (answers to bets
    come from both); frequency float64 [hands, actions] (NaN where the action is not available
    to that hand); ev: the acting player's;
    ev, reached, deal_ev float64 [hands]; probability: chance of reaching the context at all
    (any hand), under the solved strategy; equity: {"Raise"/"Rest": float64 [hands]} (NaN when
    nobody ever calls or the bet is not available); action_ev float64 [hands, actions]: the
    acting player's EV of taking each action (NaN where not available; None when the engine
    gives none); indifferent_share float64 [hands]: the share of the hand's reach at
    information states where it is indifferent (`is_flat`); splits: the same context per lead card ({lead label: ContextTable}, strongest
    lead first; follower contexts only), lead: the lead card of a split (None otherwise).
    """

    key: str
    title: str
    player: int
    players: tuple[int, ...]
    actions: list[str]
    hands: list[str]
    frequency: np.ndarray
    ev: np.ndarray
    reached: np.ndarray
    deal_ev: np.ndarray
    equity: dict[str, np.ndarray]
    probability: float
    action_ev: np.ndarray | None = None
    indifferent_share: np.ndarray | None = None
    splits: dict = dataclasses.field(default_factory=dict)
    lead: str | None = None


@dataclasses.dataclass
class Analysis:
    """Every decision context of one solved Le Truc game, in display order."""

    game_string: str
    contexts: list[ContextTable]

    def context(self, key: str) -> ContextTable:
        """The context with this key (KeyError if the game has none)."""
        for table in self.contexts:
            if table.key == key:
                return table
        raise KeyError(f"no decision context {key!r}; have {[t.key for t in self.contexts]}")


@dataclasses.dataclass(frozen=True)
class Decision:
    """A parsed Le Truc information state: who, with which hand, in which context."""

    player: int
    hand: tuple[str, ...]  # the current dealt hand, ranks strongest first
    remaining: tuple[str, ...]  # its unplayed ranks, strongest first
    context: str | None  # context key, None outside the charted contexts
    title: str | None
    history: tuple[str, ...]  # public actions "0:Raise", ...
    lead: str | None = None  # the lead card's rank in follower contexts


def is_le_truc(game: pyspiel.Game) -> bool:
    """Whether `game` is (a variant of) Le Truc."""
    return game.get_type().short_name == "python_le_truc"


def require_le_truc(game: pyspiel.Game) -> None:
    """ValueError unless `game` is Le Truc."""
    if not is_le_truc(game):
        raise ValueError(f"strategy charts and tables are defined for python_le_truc; this "
                         f"result is for {game}")


def _rank_text(card: str, isomorphic: bool) -> str:
    """`7` for `7s` (concrete) or `7` (isomorphic)."""
    return card if isomorphic else card[:-1]


class Parser:
    """Parses information state strings of one Le Truc game (public replays memoized)."""

    def __init__(self, game: pyspiel.Game):
        """A parser for `game` (a Le Truc game object)."""
        self.rules = game.rules
        self.memo: dict[tuple[str, ...], tuple] = {}

    def parse(self, name: str) -> Decision:
        """The Decision of an information state string."""
        parts = name.split(" | ")
        player = int(parts[0][1:])
        hands = [p[len("hand "):] for p in parts[1:] if p.startswith("hand ")]
        history = tuple(a for p in parts[1:] if not p.startswith("hand ") for a in p.split(", "))
        iso = self.rules.isomorphic
        hand = tuple(_rank_text(c, iso) for c in hands[-1].split()) if hands else ()
        remaining = list(hand)
        for entry in history[self._last_deal_index(history):]:
            actor, action = entry.split(":", 1)
            if int(actor) == player and action.startswith("Play "):
                remaining.remove(_rank_text(action[len("Play "):], iso))
        key, title = self.context(history, player)
        lead = None
        if key is not None and key.startswith("follow"):
            plays = [entry.split(":", 1)[1] for entry in history if ":Play " in entry]
            lead = _rank_text(plays[-1][len("Play "):], iso) if plays else None
        return Decision(player, hand, tuple(remaining), key, title, history, lead)

    @staticmethod
    def _last_deal_index(history: tuple[str, ...]) -> int:
        """Index just after the last agreed redeal (new hands start there)."""
        agreed = [i for i, entry in enumerate(history) if entry.endswith(":Agree")]
        return agreed[-1] + 1 if agreed else 0

    def context(self, history: tuple[str, ...], player: int) -> tuple[str | None, str | None]:
        """(key, title) of the decision after public `history`, or (None, None)."""
        if history not in self.memo:
            self.memo[history] = self._classify(self._replay(history), player)
        return self.memo[history]

    def _replay(self, history: tuple[str, ...]) -> le_truc.PublicState:
        """The public machine after `history`."""
        public = le_truc.PublicState(self.rules)
        public.hands_dealt()
        for entry in history:
            action = entry.split(":", 1)[1]
            if action.startswith("Play "):
                rank = self.rules.deck.ranks.index(
                    _rank_text(action[len("Play "):], self.rules.isomorphic))
                public.play(rank)
                continue
            public.apply(le_truc.BETTING_ACTION_NAMES.index(action))
            if public.phase == le_truc.Phase.DEAL:
                public.hands_dealt()
        return public

    def _classify(self, public: le_truc.PublicState, player: int):
        """Context key and title of the decision in `public` (see `classify`)."""
        return classify(self.rules, public, player)


def classify(rules, public: le_truc.PublicState, player: int) -> tuple[str | None, str | None]:
    """Context key and title of the decision in `public` (player to act: `player`), or
    (None, None) outside the charted contexts."""
    phase = public.phase
    if phase == le_truc.Phase.REDEAL_ASK:
        return "redeal_ask", "Non-dealer: keep or ask for a redeal"
    if phase == le_truc.Phase.REDEAL_ANSWER:
        return "redeal_answer", "Dealer: agree to a redeal?"
    seat, who = ("dealer", "Dealer") if player == rules.dealer else ("nondealer", "Non-dealer")
    if public.pending == le_truc.RAISE:
        value = rules.ladder.next_value(public.stake)
        return f"{seat}_answer_raise_{value}", f"{who} answering a raise to {value}"
    if public.pending == le_truc.REST:
        return f"{seat}_answer_rest", f"{who} answering my rest"
    first_trick = not public.trick_winners and not public.bet_this_turn
    if first_trick and not public.trick and player == rules.non_dealer and public.stake == 1:
        return "open", "Non-dealer's first card turn (stake 1)"
    if first_trick and len(public.trick) == 1 and player == rules.dealer:
        if public.rest_agreed:
            return "follow_rest", "Dealer's turn after seeing the lead card (rest agreed)"
        return (f"follow_{public.stake}",
                f"Dealer's turn after seeing the lead card (stake {public.stake})")
    return None, None


def context_order(key: str) -> tuple:
    """Display order: redeal (Truco: the hand of eleven), open, follow by stake, answers to
    raises by seat and stake, answers to rests by seat (Truco: then card turns where a card
    may be covered, by seat and round; `solver.analysis.truco`)."""
    kind, _, stake = key.rpartition("_") if key[-1].isdigit() else (key, "", "0")
    order = ("redeal_ask", "redeal_answer", "eleven", "open", "follow", "follow_rest",
             "dealer_answer_raise", "nondealer_answer_raise", "dealer_answer_rest",
             "nondealer_answer_rest", "nondealer_cover", "nondealer_cover_after_bet",
             "dealer_cover", "dealer_cover_after_bet")
    return order.index(kind), int(stake)


def answers_a_bet(key: str) -> bool:
    """Whether a context is a seat answering a raise or a rest."""
    return key.startswith(("dealer_answer", "nondealer_answer"))


def has_bet_equity(key: str) -> bool:
    """Whether bets made in a context get an equity (not in answers or the redeal talk)."""
    return not answers_a_bet(key) and not key.startswith("redeal")


def card_label(remaining: tuple[str, ...], rank: str) -> str:
    """`Play high` / `Play middle` / `Play low`: the card's place in the hand (pairs: higher)."""
    return CARD_POSITIONS[len(remaining)][remaining.index(rank)]


def action_label(game: pyspiel.Game, decision: Decision, action: int) -> str:
    """Column label of an action at a decision (card actions by their place in the hand)."""
    if action < le_truc.CARD_ACTION_BASE:
        return le_truc.BETTING_ACTION_NAMES[action]
    item = action - le_truc.CARD_ACTION_BASE
    rank = game.rules.deck.rank_name(game.rules.rank_of(item))
    return card_label(decision.remaining, rank)


@dataclasses.dataclass
class HandRow:
    """One hand's sums over the information states of a context: reach (per acting player),
    reach x the acting player's value, reach x probability per action label, and (numerator,
    denominator) per bet's equity."""

    hand: tuple[str, ...]
    weight: float = 0.0
    value: float = 0.0
    action_mass: dict = dataclasses.field(default_factory=dict)
    equity: dict = dataclasses.field(default_factory=dict)
    player_weight: list = dataclasses.field(default_factory=lambda: [0.0, 0.0])
    action_value: dict = dataclasses.field(default_factory=dict)
    action_weight: dict = dataclasses.field(default_factory=dict)
    flat_weight: float = 0.0  # reach of the information states where the hand is indifferent

    def add(self, player: int, reach: float, value: float, labels, probabilities,
            equity: dict, action_values=None) -> None:
        """Add one information state of `player` (`value`: reach x his value there;
        `action_values`: his EV of each action there, if known)."""
        self.weight += reach
        self.player_weight[player] += reach
        self.value += value
        for label, prob in zip(labels, probabilities):
            self.action_mass[label] = self.action_mass.get(label, 0.0) + reach * prob
        if action_values is not None:
            if is_flat(np.asarray(action_values, dtype=float)):
                self.flat_weight += reach
            for label, action_value in zip(labels, action_values):
                if np.isfinite(action_value):
                    self.action_value[label] = self.action_value.get(label, 0.0) + (
                        reach * action_value)
                    self.action_weight[label] = self.action_weight.get(label, 0.0) + reach
        for bet, (numerator, denominator) in equity.items():
            sums = self.equity.setdefault(bet, [0.0, 0.0])
            sums[0] += numerator
            sums[1] += denominator


def context_table(game, key: str, title: str, rows: list[HandRow], deal) -> ContextTable:
    """The ContextTable of one context from its hands' sums; `deal[player][hand]` = (probability
    of being dealt the hand, its EV at the deal). Its player is the one acting there most
    often (answers come from both seats); EVs are always the acting player's."""
    seat_weight = np.sum([row.player_weight for row in rows], axis=0)
    player = int(np.argmax(seat_weight))
    players = tuple(int(p) for p in np.flatnonzero(seat_weight > 0))
    rows = sorted(rows, key=lambda r: (-deal[player][r.hand][1], _strength(game, r.hand)))
    columns = sorted({label for row in rows for label in row.action_mass}, key=_column_order)
    frequency = np.array([[row.action_mass.get(c, np.nan) / row.weight for c in columns]
                          for row in rows])
    equities = {bet: np.array([row.equity[bet][0] / row.equity[bet][1]
                               if bet in row.equity and row.equity[bet][1] > 0 else np.nan
                               for row in rows])
                for bet in BET_ACCEPTS
                if bet in columns and has_bet_equity(key)}
    return ContextTable(
        key=key, title=title, player=player, players=players, actions=columns,
        hands=[" ".join(row.hand) for row in rows], frequency=frequency,
        ev=np.array([row.value / row.weight for row in rows]),
        reached=np.array([row.weight / deal[player][row.hand][0] if row.hand in deal[player]
                          else np.nan for row in rows]),
        deal_ev=np.array([deal[player][row.hand][1] for row in rows]),
        equity=equities, probability=float(sum(row.weight for row in rows)),
        action_ev=action_evs(rows, columns), indifferent_share=indifferent_shares(rows))


def indifferent_shares(rows: list[HandRow]) -> np.ndarray | None:
    """float64 [hands]: the share of each hand's reach at information states where it is
    indifferent (None when no row carries action values)."""
    if not any(row.action_weight for row in rows):
        return None
    return np.array([row.flat_weight / row.weight for row in rows])


def is_flat(action_values: np.ndarray, tolerance: float = INDIFFERENCE_TOLERANCE) -> bool:
    """Whether at least two of these action EVs (NaN: unavailable) are within `tolerance` of
    the best one."""
    values = action_values[np.isfinite(action_values)]
    return values.size >= 2 and np.count_nonzero(values >= values.max() - tolerance) >= 2


def action_evs(rows: list[HandRow], columns: list[str]) -> np.ndarray | None:
    """float64 [hands, columns]: each hand's EV per action (NaN where it has none); None when
    no row carries action values."""
    if not any(row.action_weight for row in rows):
        return None
    return np.array([[row.action_value[c] / row.action_weight[c]
                      if row.action_weight.get(c, 0.0) > 0 else np.nan for c in columns]
                     for row in rows])


def split_tables(make_table, split_rows: dict, lead_order) -> dict:
    """{context key: {lead label: ContextTable}} from split_rows[key][lead][hand] (HandRows),
    `make_table(key, lead, rows)` building one table; leads sorted by `lead_order` (strongest
    first)."""
    return {key: {lead: make_table(key, lead, list(by_lead[lead].values()))
                  for lead in sorted(by_lead, key=lead_order)}
            for key, by_lead in split_rows.items()}


def attach_splits(tables: list[ContextTable], splits: dict) -> None:
    """Give each follower table its per-lead tables (`split_tables`)."""
    for table in tables:
        table.splits = splits.get(table.key, {})
        for lead, split in table.splits.items():
            split.lead = lead
            split.title = f"{table.title}: lead {lead}"


def indifferent(table: ContextTable) -> np.ndarray:
    """bool [hands]: the hand is indifferent (`is_flat`: at least two actions within
    INDIFFERENCE_TOLERANCE points of the best one, so the choice between them is not advice)
    at the information states holding at least half of its reach. A context gathering many
    states (other histories, other lead cards) is judged state by state, not on its averaged
    EVs. False where EVs are unknown."""
    if table.indifferent_share is None:
        return np.zeros(len(table.hands), dtype=bool)
    return table.indifferent_share >= 0.5


def rarely_reached(table: ContextTable, threshold: float = RARE_REACH) -> np.ndarray:
    """bool [hands]: the hand reaches the decision less than `threshold` of the time."""
    return np.nan_to_num(table.reached, nan=1.0) < threshold


def hand_notes(table: ContextTable) -> list[str]:
    """Per hand: "rarely reached", "indifferent" or "" (the first that applies)."""
    rare, flat = rarely_reached(table), indifferent(table)
    return ["rarely reached" if r else "indifferent" if f else "" for r, f in zip(rare, flat)]


def _strength(game: pyspiel.Game, hand: tuple[str, ...]) -> tuple[int, ...]:
    """Sort key putting lexicographically stronger hands (ranks strongest first) first."""
    return tuple(-game.rules.deck.ranks.index(rank) for rank in hand)


def _column_order(label: str) -> int:
    """Betting actions in the game's order, then cards strongest first."""
    if label in le_truc.BETTING_ACTION_NAMES:
        return le_truc.BETTING_ACTION_NAMES.index(label)
    return len(le_truc.BETTING_ACTION_NAMES) + ("Play", "Play high", "Play middle",
                                                "Play low").index(label)


def describe_decision(game: pyspiel.Game, info_state: str, probabilities: dict[int, float]) -> str:
    """The strategy at one information state, in words."""
    state = game.new_initial_state()
    lines = [info_state]
    player = 0
    if is_le_truc(game):
        decision = Parser(game).parse(info_state)
        seat = "non-dealer" if decision.player == game.rules.non_dealer else "dealer"
        where = decision.title or "a later decision of the hand"
        lines.append(f"  Player {decision.player} ({seat}) holding {' '.join(decision.hand)}: "
                     f"{where}.")
        if decision.history:
            lines.append(f"  So far: {', '.join(decision.history)}.")
        player = decision.player
    ranked = sorted(probabilities.items(), key=lambda item: -item[1])
    lines.append("  Strategy: " + ", ".join(
        f"{state.action_to_string(player, action)} {100 * p:.1f}%" for action, p in ranked))
    return "\n".join(lines)
