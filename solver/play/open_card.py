"""An exact open-card solver for Two-Ten-Jack positions (both hands and the stock order known).

What the field knows. In Bridge, Skat and Schnapsen the strongest card-play programs use perfect
information Monte Carlo (PIMC): sample the hidden cards consistently with what was seen, solve
each sample exactly as an open-card ("double dummy") game, and play the action with the best
average (Ginsberg 2001, GIB, JAIR 14; Long, Sturtevant, Buro & Furtak 2010, AAAI, on why it
works despite strategy fusion, Frank & Basin 1998). Skat programs add inference over the
opponents' likely hands (Buro, Long, Furtak & Sturtevant 2009, IJCAI; Solinas, Rebstock & Buro
2019, AAAI, arXiv:1903.09604), Schnapsen ones sample hands and the stock order (Wisser 2010,
ICTAI, "Sims tables"; Wisser 2015, IJCAI, presumed-value PIMC). The open-card solvers behind
them are alpha-beta searches with transposition tables, move ordering and equivalent-card
reductions (Ginsberg 1996, partition search, AAAI; Kupferschmid & Helmert 2006, CG: a Skat
hand in about 10 ms). This module is that solver for Two-Ten-Jack (games/RULES.md §4); the
PIMC player built on it is `solver.play.pimc`.

Algorithm (kernels in `solver.play._open_card_kernels`): alpha-beta (Knuth & Moore 1975) over
the point difference of the cards still to be won (player 0's points minus player 1's, each
trick's two cards to its winner, TTJ-8), the draws from the known stock after each trick
(winner first, TTJ-7), a Zobrist-hashed (Zobrist 1970) transposition table with lower, upper and
exact bounds, the table's best move tried first and otherwise a static order (following: win a
valuable trick cheaply, lose a costly one; leading: cheap cards first), and equivalent-card
pruning (two cards of one hand, of one suit and equal points, with no card still in play
between them, play alike: only the lower is searched). With a depth limit in plies the search
stops at trick boundaries and scores the position by a static evaluation (a weight per card
held and a bonus for the leader, `DEFAULT_EVAL_WEIGHTS`); iterative deepening by one trick at
a time runs under a node budget and keeps the deepest completed iteration.

Conventions: values returned here are *deal* values (the points won so far plus the search's
value of the rest), so an exact value equals player 0's return at the end of the deal under
optimal open-card play; the As led as trump and as spade are two moves (their codes are the
game's action ids, as everywhere). `OpenCardSolver.new_stock` empties the transposition table
at no cost and is needed whenever the stock order changes (the table's keys leave it out).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from solver.play import _open_card_kernels as kernels

DEFAULT_TABLE_BITS = 20  # 2**20 entries of 32 bytes
# Static evaluation: points per card held (for its holder) and for the player to lead, fitted
# by `solver.play.open_card_eval.fit_eval_weights(game, deals=800, seed=2,
# stock_sizes=(12, 14, 16))` on the full deck (2,400 positions; root mean square error 6.10
# points against 9.63 for the zero evaluation). Cards a reduced deck lacks are ignored.
DEFAULT_EVAL_WEIGHTS: dict[str, float] = {
    "2c": 6.27, "3c": 0.62, "4c": 1.58, "5c": 0.95, "6c": 1.21, "7c": 0.42, "8c": 0.77,
    "9c": 0.66, "Tc": 1.29, "Jc": 0.65, "Qc": 0.21, "Kc": -0.23, "Ac": 0.94, "2d": -1.85,
    "3d": -1.16, "4d": -1.71, "5d": -0.62, "6d": -1.51, "7d": -2.78, "8d": -2.10, "9d": -2.02,
    "Td": -1.04, "Jd": -1.26, "Qd": -0.52, "Kd": -0.33, "Ad": -0.12, "2h": 0.86, "3h": 0.10,
    "4h": -0.30, "5h": -0.39, "6h": -0.93, "7h": -0.78, "8h": -0.55, "9h": -0.10, "Th": 2.66,
    "Jh": 4.15, "Qh": 0.81, "Kh": 1.57, "Ah": 2.62, "2s": -1.87, "3s": -1.19, "4s": -2.50,
    "5s": -1.20, "6s": -2.11, "7s": -0.50, "8s": -1.55, "9s": -1.45, "Ts": -0.89, "Js": -0.15,
    "Qs": -0.43, "Ks": 0.79, "As": 5.01,
}
DEFAULT_LEADER_BONUS = 2.40
_ZOBRIST_SEED = 20240914
# Move ordering: what playing a card gives up (its rank, more for a trump, most for the As).
_ORDER_RANK_STEP = 0.01
_ORDER_TRUMP = 0.3
_ORDER_ACE = 0.6
_UNLIMITED = 1 << 62


@dataclasses.dataclass(frozen=True)
class Position:
    """A Two-Ten-Jack position with every card known.

    hands: (player 0's, player 1's) bit masks (card c is bit c, card numbers of the game's deck);
    stock: int64 [k] the cards still to draw, top first (k even);
    lead: the open trick's lead as an action id (a card, or the As's `Lead As trump` /
      `Lead As spade` ids), -1 at a trick boundary;
    mover: the player to lead or follow;
    points: player 0's points won so far minus player 1's.
    """

    hands: tuple[int, int]
    stock: np.ndarray
    lead: int
    mover: int
    points: int = 0


@dataclasses.dataclass(frozen=True)
class MoveValues:
    """Every legal move's value at a position: `actions` int64 [m] ascending, `values` float64
    [m] the deal's value for player 0 after each; `depth` plies searched (the end of the deal if
    `exact`), `nodes` visited."""

    actions: np.ndarray
    values: np.ndarray
    depth: int
    exact: bool
    nodes: int


def position_from_state(state, stock) -> Position:
    """The position of a `python_two_ten_jack` state at a decision node, all cards known, with
    `stock` (card numbers, top first) the order of the cards not yet dealt or drawn."""
    if state.is_chance_node() or state.is_terminal():
        raise ValueError("position_from_state needs a decision node: apply the due chance "
                         "outcomes first")
    stock = np.asarray(stock, dtype=np.int64)
    if len(stock) != state.stock_left():
        raise ValueError(f"the stock holds {state.stock_left()} cards, {len(stock)} given")
    trick = state.open_trick()
    rules = state.rules
    lead = -1 if trick is None else rules.lead_action(trick)
    return Position((mask_of(state.hands[0]), mask_of(state.hands[1])), stock, lead,
                    state.current_player(), state.points[0] - state.points[1])


def mask_of(cards) -> int:
    """Bit mask of card numbers."""
    mask = 0
    for card in cards:
        mask |= 1 << int(card)
    return mask


def cards_of(mask: int) -> list[int]:
    """Card numbers of a bit mask, ascending."""
    return [card for card in range(mask.bit_length()) if mask >> card & 1]


class CardTables:
    """The kernels' card model (`kernels.Tables`) of one game's `Rules`.

    `eval_weights`: {card name: weight} of the static evaluation (cards not named weigh 0) and
    `leader_bonus`; defaults `DEFAULT_EVAL_WEIGHTS`, `DEFAULT_LEADER_BONUS`.
    """

    def __init__(self, rules, eval_weights: dict[str, float] | None = None,
                 leader_bonus: float | None = None):
        """Builds the arrays of `rules` (a `games.two_ten_jack.Rules`)."""
        self.rules = rules
        n = rules.num_cards
        if n > 62:
            raise ValueError(f"{n} cards do not fit the solver's 64-bit masks")
        deck = rules.deck
        card_suit = np.array([rules.suit(c) for c in range(n)], dtype=np.int64)
        card_rank = np.array([rules.rank(c) for c in range(n)], dtype=np.int64)
        card_points = np.array([rules.points(c) for c in range(n)], dtype=np.int64)
        follow_mask = np.zeros(n + 2, dtype=np.int64)
        ace = rules.ace_of_spades
        for code in range(n + 2):
            lead = ace if code >= n else code
            follow_mask[code] = mask_of(rules.follow_group(lead, code == n + 1))
        card_strength = np.array([_ORDER_RANK_STEP * rules.rank(c)
                                  + (_ORDER_ACE if c == ace else
                                     _ORDER_TRUMP if rules.is_trump(c) else 0.0)
                                  for c in range(n)], dtype=np.float64)
        weights = DEFAULT_EVAL_WEIGHTS if eval_weights is None else eval_weights
        eval_weight = np.zeros(n + 1, dtype=np.float64)
        for name, weight in weights.items():
            if name in deck.names:
                eval_weight[deck.index(name)] = weight
        eval_weight[n] = DEFAULT_LEADER_BONUS if leader_bonus is None else leader_bonus
        rng = np.random.default_rng(_ZOBRIST_SEED)
        high = np.iinfo(np.int64).max

        def keys(*shape):
            return rng.integers(0, high, size=shape, dtype=np.int64)

        self.kernel = kernels.Tables(
            card_suit, card_rank, card_points, card_strength, follow_mask, eval_weight,
            keys(2, n), keys(n + 3), keys(n + 2), keys(2),
            np.array([n, ace, mask_of(rules.trumps), deck.num_suits], dtype=np.int64))


class OpenCardSolver:
    """Alpha-beta with a transposition table over open-card positions of one game.

    game: a `python_two_ten_jack` game (or its `Rules`); table_bits: log2 of the transposition
    table's entries; the switches turn the table, equivalent-card pruning and move ordering off
    (for tests: none changes an exact value); eval_weights, leader_bonus: see `CardTables`.
    Not thread-safe: one solver per thread.
    """

    def __init__(self, game, table_bits: int = DEFAULT_TABLE_BITS, use_table: bool = True,
                 use_equivalence: bool = True, use_ordering: bool = True,
                 eval_weights: dict[str, float] | None = None,
                 leader_bonus: float | None = None):
        """Allocates the table (`2**table_bits` entries) and the scratch arrays."""
        if not 1 <= table_bits <= 30:
            raise ValueError(f"table_bits={table_bits}: use 1..30")
        rules = getattr(game, "rules", game)
        self.tables = CardTables(rules, eval_weights, leader_bonus)
        self.rules = rules
        size = 1 << table_bits
        self.table = np.zeros((size, kernels.TABLE_COLUMNS), np.int64)  # generation 0: empty
        max_ply = rules.num_cards + 3
        self.work = kernels.Work(np.zeros((max_ply, kernels.MAX_MOVES), np.int64),
                                 np.zeros((max_ply, kernels.MAX_MOVES), np.float64),
                                 np.zeros((max_ply, kernels.FRAME_INTS), np.int64),
                                 np.zeros((max_ply, kernels.FRAME_FLOATS), np.float64))
        self.ctl = np.zeros(kernels.CTL_SIZE, np.int64)
        self.ctl[kernels.BUDGET] = _UNLIMITED
        self.ctl[kernels.GENERATION] = 1
        self.ctl[kernels.USE_TABLE] = use_table
        self.ctl[kernels.USE_EQUIVALENCE] = use_equivalence
        self.ctl[kernels.USE_ORDERING] = use_ordering
        self._codes = np.zeros(kernels.MAX_MOVES, np.int64)
        self._values = np.zeros(kernels.MAX_MOVES, np.float64)
        self._scratch = np.zeros(kernels.MAX_MOVES, np.float64)

    @property
    def nodes(self) -> int:
        """Nodes visited since the solver was made."""
        return int(self.ctl[kernels.NODES])

    def new_stock(self):
        """Empties the transposition table (a new generation of entries, at no cost): needed
        before a position whose stock order differs from the last position's."""
        self.ctl[kernels.GENERATION] += 1

    def value(self, position: Position, depth: int | None = None) -> float:
        """The deal's value for player 0 (points so far plus the rest under optimal open-card
        play); with `depth` plies, the depth-limited value with static evaluations."""
        self._check(position)
        hand0, hand1 = position.hands
        plies = self._depth(position, depth)
        self.ctl[kernels.BUDGET] = _UNLIMITED
        self.ctl[kernels.ABORTED] = 0
        future = kernels.solve_value(hand0, hand1, position.stock, 0, position.lead,
                                     position.mover, plies, self.tables.kernel, self.table,
                                     self.work, self.ctl)
        return position.points + float(future)

    def move_values(self, position: Position, depth: int | None = None,
                    node_budget: int | None = None) -> MoveValues:
        """The value of every legal move (full-window searches). Without a budget: `depth`
        plies (default: to the end of the deal). With `node_budget`: iterative deepening by
        one trick from the end of the next trick up to `depth`, keeping the deepest iteration
        finished within the budget (the first always finishes)."""
        self._check(position)
        hand0, hand1 = position.hands
        plies = self._depth(position, depth)
        start = self.nodes
        if node_budget is None:
            self.ctl[kernels.BUDGET] = _UNLIMITED
            self.ctl[kernels.ABORTED] = 0
            count = kernels.move_values(hand0, hand1, position.stock, 0, position.lead,
                                        position.mover, plies, self.tables.kernel, self.table,
                                        self.work, self.ctl, self._codes, self._values)
            done, exact = plies, plies >= self._plies_left(position)
        else:
            if node_budget < 1:
                raise ValueError(f"node_budget={node_budget}: give a positive number of nodes")
            count, done, exact = kernels.iterative_move_values(
                hand0, hand1, position.stock, 0, position.lead, position.mover, plies,
                node_budget, self.tables.kernel, self.table, self.work, self.ctl, self._codes,
                self._values, self._scratch)
        return MoveValues(self._codes[:count].copy(), self._values[:count] + position.points,
                          int(done), bool(exact), self.nodes - start)

    def _check(self, position: Position):
        """ValueError unless the position fits the game and has a legal move."""
        n = self.rules.num_cards
        hand0, hand1 = position.hands
        stock = position.stock
        if stock.dtype != np.int64 or stock.ndim != 1 or len(stock) % 2:
            raise ValueError("the stock must be an int64 array of an even number of cards")
        if hand0 & hand1 or (hand0 | hand1) >> n or any(not 0 <= c < n for c in stock.tolist()):
            raise ValueError("the hands overlap or hold cards outside the deck")
        if position.mover not in (0, 1):
            raise ValueError(f"mover={position.mover}: use 0 or 1")
        if not -1 <= position.lead < n + 2:
            raise ValueError(f"lead={position.lead} is not a card or an As declaration")
        if not position.hands[position.mover]:
            raise ValueError("the player to move holds no card")

    def _plies_left(self, position: Position) -> int:
        """Cards still to be played."""
        hand0, hand1 = position.hands
        return hand0.bit_count() + hand1.bit_count() + len(position.stock)

    def _depth(self, position: Position, depth: int | None) -> int:
        """The search depth in plies: `depth`, or to the end of the deal."""
        if depth is None:
            return self._plies_left(position)
        if depth < 1:
            raise ValueError(f"depth={depth}: give at least one ply")
        return depth
