"""Numba kernels of the open-card Two-Ten-Jack solver (`solver.play.open_card`).

Alpha-beta (Knuth & Moore 1975) on the point difference of the cards still to be won, player 0
maximising, with a transposition table (Zobrist 1970 hashing, full keys stored: no collision
error), move ordering (the table's move first, then a static order), equivalent-card pruning and
a depth limit with a static evaluation at trick boundaries. Values are floats (the exact ones
are integers); terminal value 0 (points already won are the caller's).

Position (one frame per ply of the search; the stock is an array read only):
  hand0, hand1  int64 bit masks of the cards in each hand (card c is bit c; at most 52 cards)
  stock         int64 [stock_len] the cards still to be drawn, top first
  pos           index of the next card to draw (even; stock_len when the stock is empty)
  lead          the open trick's lead code, -1 at a trick boundary; codes are the game's action
                ids: a card number, num_cards for the As led as trump, num_cards + 1 as spade
  mover         the player to lead or follow
  depth         plies left before the static evaluation (applied at trick boundaries only)

Tables (`Tables`, built by `solver.play.open_card.CardTables`) hold per-card suits, ranks,
points and ordering strengths, the follow group per lead code, the evaluation weights and the
Zobrist keys; card numbers are rank-major (`card = rank * num_suits + suit`, as
`games.cards.Deck`), so the next weaker card of a suit is `card - num_suits`.

The transposition table is an int64 [size, TABLE_COLUMNS] array (size a power of two; a
32-byte entry holds both hands, the rest of the key packed, and the value in fixed point with
its bound, depth and best move packed), in two-way buckets (slots i and i ^ 1, one cache line)
with depth-preferred replacement. A key is both hands, the stock index, the lead code, the
mover and the generation `ctl[GENERATION]`: entries of older generations are ignored and
replaced first, so a new generation empties the table at no cost (a new stock order needs one,
since the key leaves the stock's order out; so does a search whose result must not depend on
the searches before it).

Equivalent cards: two cards of one hand, of the same suit and points, with no card still in
play (either hand, the stock, or the open trick's lead) ranked between them, compare alike
against every card that can still be played, so they give the same value: only the lowest of
each such run is searched. The As is never equivalent to another card.

Every kernel mutates preallocated arrays, returns scalars or status, and has no objects or
strings in its loops; `ctl` is int64 [CTL_SIZE] of counters and switches (indices below).
`search` is one flat loop over an explicit stack (numba cannot cache recursive functions,
numba issue 6061) that unpacks the named tuples' arrays once: reading an array out of a tuple
inside the loop costs an atomic reference count each time, which had made it 30 times slower.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

# ctl indices
NODES = 0  # nodes visited (cumulative until reset)
BUDGET = 1  # abort once NODES exceeds it
ABORTED = 2  # 1 once aborted
GENERATION = 3  # tag of entries made while cards remain in the stock
USE_TABLE = 4  # 0 disables the transposition table
USE_EQUIVALENCE = 5  # 0 disables equivalent-card pruning
USE_ORDERING = 6  # 0 disables move ordering (moves in ascending action order)
TABLE_HITS = 7  # cutoffs and exact values taken from the table
CTL_SIZE = 8

EXACT_DEPTH = 127  # stored depth of values searched to the end of the deal
BOUND_LOWER = 1
BOUND_UPPER = 2
BOUND_EXACT = 3
VALUE_SCALE = 256.0  # table values in fixed point: exact (integer) values stay exact
MAX_MOVES = 32  # move codes at one node: a hand holds at most 26 cards, the As gives two
INFINITY = 1.0e9

HEARTS = 2  # suit numbers c d h s
SPADES = 3

_DEBRUIJN = 0x03F79D71B4CB0A89
_DEBRUIJN_INDEX = np.array([
    0, 1, 48, 2, 57, 49, 28, 3, 61, 58, 50, 42, 38, 29, 17, 4,
    62, 55, 59, 36, 53, 51, 43, 22, 45, 39, 33, 30, 24, 18, 12, 5,
    63, 47, 56, 27, 60, 41, 37, 16, 54, 35, 52, 21, 44, 32, 23, 11,
    46, 26, 40, 15, 34, 20, 31, 10, 25, 14, 19, 9, 13, 8, 7, 6], dtype=np.int64)


class Tables(NamedTuple):
    """The card model of one game for the kernels (n = number of cards)."""

    card_suit: np.ndarray  # int64 [n]: 0 c, 1 d, 2 h, 3 s
    card_rank: np.ndarray  # int64 [n]: strength within the suit, 0 weakest
    card_points: np.ndarray  # int64 [n]: TTJ-8 points
    card_strength: np.ndarray  # float64 [n]: what playing it gives up, for move ordering
    follow_mask: np.ndarray  # int64 [n + 2]: per lead code, the cards that follow it
    eval_weight: np.ndarray  # float64 [n + 1]: per card held by player 0 (minus for player 1);
    #                          last: the leader's bonus (plus for player 0 leading)
    zobrist_hand: np.ndarray  # int64 [2, n]
    zobrist_lead: np.ndarray  # int64 [n + 3]: index lead code + 1 (0: no open trick)
    zobrist_pos: np.ndarray  # int64 [n + 2]: per stock index
    zobrist_mover: np.ndarray  # int64 [2]
    scalars: np.ndarray  # int64 [4]: num_cards, As card number, trump mask, num_suits


class Work(NamedTuple):
    """Per-ply scratch arrays of the search (`max_ply` >= cards in play + 1)."""

    moves: np.ndarray  # int64 [max_ply, MAX_MOVES]: move codes, in search order
    scores: np.ndarray  # float64 [max_ply, MAX_MOVES]: their ordering scores
    frame_int: np.ndarray  # int64 [max_ply, FRAME_INTS]: the node of each ply (_HAND0...)
    frame_float: np.ndarray  # float64 [max_ply, FRAME_FLOATS]: its window, best value...


# table columns: the key (both hands, the rest of the position packed, -1 if empty) and the data
ENTRY_HAND0 = 0
ENTRY_HAND1 = 1
ENTRY_REST = 2
ENTRY_DATA = 3
TABLE_COLUMNS = 4

# frame columns (Work.frame_int)
_HAND0 = 0
_HAND1 = 1
_POS = 2
_LEAD = 3
_MOVER = 4
_DEPTH = 5
_KEY = 6
_SLOT = 7
_REST = 8
_COUNT = 9
_INDEX = 10
_BEST_MOVE = 11
_EXACT = 12
FRAME_INTS = 13
# frame columns (Work.frame_float)
_ALPHA = 0  # the window, narrowed as moves are searched
_BETA = 1
_ALPHA0 = 2  # the window on entry
_BETA0 = 3
_BEST = 4
_DELTA = 5  # points of the trick completed by the move into this node, for player 0
_VALUE = 6
FRAME_FLOATS = 7


@njit(cache=True, inline="always")
def popcount(x):
    """Number of set bits of a non-negative int64."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56


@njit(cache=True, inline="always")
def lowest_bit(x):
    """Index of the lowest set bit of a non-zero non-negative int64."""
    return _DEBRUIJN_INDEX[(((x & -x) * _DEBRUIJN) >> 58) & 63]


@njit(cache=True, inline="always")
def legal_mask(hand, lead, follow_mask, trump_mask):
    """Cards of `hand` that may be played: any when leading (lead < 0); else the lead's
    follow group, failing that a trump, failing that any card (TTJ-5)."""
    if lead < 0:
        return hand
    group = hand & follow_mask[lead]
    if group != 0:
        return group
    trumps = hand & trump_mask
    if trumps != 0:
        return trumps
    return hand


@njit(cache=True, inline="always")
def follower_wins(lead, card, num_cards, ace, card_suit, card_rank):
    """TTJ-6 for lead code `lead` and follow card `card`: As wins, else the highest heart,
    else the highest card of the led suit."""
    if lead >= num_cards or lead == ace:
        return False
    if card == ace:
        return True
    lead_suit = card_suit[lead]
    suit = card_suit[card]
    if suit == HEARTS and lead_suit != HEARTS:
        return True
    return suit == lead_suit and card_rank[card] > card_rank[lead]


@njit(cache=True, inline="always")
def _previous_in_play(card, in_play, num_suits):
    """The strongest card of `card`'s suit below it that is still in play, -1 if none."""
    other = card - num_suits
    while other >= 0:
        if in_play >> other & 1:
            return other
        other -= num_suits
    return -1


@njit(cache=True, inline="always")
def prune_equivalent(moves, in_play, ace, num_suits, card_points):
    """`moves` (a mask within one hand) without each card whose next weaker card in play of
    its suit is also in `moves` with the same points (the lowest of each run stays)."""
    kept = moves
    x = moves
    while x != 0:
        card = lowest_bit(x)
        x &= x - 1
        if card == ace:
            continue
        other = _previous_in_play(card, in_play, num_suits)
        if other >= 0 and other != ace and moves >> other & 1 and \
                card_points[other] == card_points[card]:
            kept &= ~(np.int64(1) << card)
    return kept


@njit(cache=True)
def representative(card, moves, in_play, tables):
    """The lowest card of `moves` equivalent to `card` (itself if none is)."""
    ace = tables.scalars[1]
    num_suits = tables.scalars[3]
    points = tables.card_points
    if card == ace:
        return card
    while True:
        other = _previous_in_play(card, in_play, num_suits)
        if other < 0 or other == ace or not moves >> other & 1 or points[other] != points[card]:
            return card
        card = other


@njit(cache=True, inline="always")
def static_eval(hand0, hand1, mover, eval_weight):
    """Estimated future point difference at a trick boundary: a weight per card held (for
    player 0, minus for player 1) and a bonus for the leader."""
    value = 0.0
    x = hand0
    while x != 0:
        value += eval_weight[lowest_bit(x)]
        x &= x - 1
    x = hand1
    while x != 0:
        value -= eval_weight[lowest_bit(x)]
        x &= x - 1
    bonus = eval_weight[eval_weight.shape[0] - 1]
    return value + bonus if mover == 0 else value - bonus


@njit(cache=True)
def child(hand0, hand1, stock, pos, lead, mover, key, code, tables):
    """The position after move `code`: (hand0, hand1, pos, lead, mover, key, delta), delta the
    points of a trick it completes for player 0 (the draws from the stock made). The same
    step as inside `search`."""
    num_cards = tables.scalars[0]
    ace = tables.scalars[1]
    card = ace if code >= num_cards else code
    bit = np.int64(1) << card
    other = 1 - mover
    if mover == 0:
        hand0 = hand0 & ~bit
    else:
        hand1 = hand1 & ~bit
    key ^= tables.zobrist_hand[mover, card]
    if lead < 0:
        key ^= tables.zobrist_lead[0] ^ tables.zobrist_lead[code + 1]
        key ^= tables.zobrist_mover[mover] ^ tables.zobrist_mover[other]
        return hand0, hand1, pos, code, other, key, 0.0
    lead_card = ace if lead >= num_cards else lead
    winner = mover if follower_wins(lead, card, num_cards, ace, tables.card_suit,
                                    tables.card_rank) else other
    points = tables.card_points[lead_card] + tables.card_points[card]
    delta = points if winner == 0 else -points
    key ^= tables.zobrist_lead[lead + 1] ^ tables.zobrist_lead[0]
    key ^= tables.zobrist_mover[mover] ^ tables.zobrist_mover[winner]
    if pos < stock.shape[0]:
        first_draw = stock[pos]
        second_draw = stock[pos + 1]
        if winner == 0:
            hand0 |= np.int64(1) << first_draw
            hand1 |= np.int64(1) << second_draw
        else:
            hand1 |= np.int64(1) << first_draw
            hand0 |= np.int64(1) << second_draw
        key ^= tables.zobrist_hand[winner, first_draw]
        key ^= tables.zobrist_hand[1 - winner, second_draw]
        key ^= tables.zobrist_pos[pos] ^ tables.zobrist_pos[pos + 2]
        pos += 2
    return hand0, hand1, pos, -1, winner, key, float(delta)


@njit(cache=True)
def search(hand0, hand1, stock, pos, lead, mover, depth, alpha, beta, key, tables, table, work,
           ctl):
    """Alpha-beta value (fail-soft) of the position: player 0's future points minus player 1's,
    exact if the search reached the end of the deal, else with static evaluations at depth 0.
    `key` is the position's Zobrist hash (`zobrist_key`). Returns 0 once aborted
    (ctl[ABORTED] = 1).

    One frame per ply in `work`: a node is entered (a leaf, a static evaluation or a table hit
    gives its value at once; otherwise its moves are laid out, ordered), its moves are searched
    one child at a time, and it is finished (its best value stored in the table); a child's
    value plus the points of the trick its move completed updates the parent's best value and
    window."""
    card_suit = tables.card_suit
    card_rank = tables.card_rank
    card_points = tables.card_points
    card_strength = tables.card_strength
    follow_mask = tables.follow_mask
    eval_weight = tables.eval_weight
    zobrist_hand = tables.zobrist_hand
    zobrist_lead = tables.zobrist_lead
    zobrist_pos = tables.zobrist_pos
    zobrist_mover = tables.zobrist_mover
    num_cards = tables.scalars[0]
    ace = tables.scalars[1]
    trump_mask = tables.scalars[2]
    num_suits = tables.scalars[3]
    table_mask = table.shape[0] - 1
    codes = work.moves
    scores = work.scores
    fi = work.frame_int
    ff = work.frame_float
    use_table = ctl[USE_TABLE] != 0
    use_equivalence = ctl[USE_EQUIVALENCE] != 0
    use_ordering = ctl[USE_ORDERING] != 0
    generation = ctl[GENERATION]
    budget = ctl[BUDGET]
    nodes = ctl[NODES]
    stock_len = stock.shape[0]
    # in_play_stock[i]: the cards of stock[i:]
    stock_masks = np.zeros(stock_len + 1, dtype=np.int64)
    for i in range(stock_len - 1, -1, -1):
        stock_masks[i] = stock_masks[i + 1] | (np.int64(1) << stock[i])

    fi[0, _HAND0] = hand0
    fi[0, _HAND1] = hand1
    fi[0, _POS] = pos
    fi[0, _LEAD] = lead
    fi[0, _MOVER] = mover
    fi[0, _DEPTH] = depth
    fi[0, _KEY] = key
    ff[0, _ALPHA] = alpha
    ff[0, _BETA] = beta
    ff[0, _DELTA] = 0.0
    p = 0
    entering = True
    while True:
        if entering:
            # --- enter node p: resolve it at once, or lay out its moves
            nodes += 1
            if nodes > budget:
                ctl[NODES] = nodes
                ctl[ABORTED] = 1
                return 0.0
            hand0 = fi[p, _HAND0]
            hand1 = fi[p, _HAND1]
            pos = fi[p, _POS]
            lead = fi[p, _LEAD]
            mover = fi[p, _MOVER]
            depth = fi[p, _DEPTH]
            resolved = False
            if lead < 0:
                if hand0 == 0 and hand1 == 0:
                    ff[p, _VALUE] = 0.0
                    resolved = True
                elif depth <= 0:
                    ff[p, _VALUE] = static_eval(hand0, hand1, mover, eval_weight)
                    resolved = True
            if not resolved:
                stock_left = stock_len - pos
                rest = pos | ((lead + 1) << 8) | (mover << 16) | (generation << 17)
                fi[p, _REST] = rest
                fi[p, _EXACT] = depth >= popcount(hand0) + popcount(hand1) + stock_left
                slot = -1
                table_move = -1
                if use_table:
                    first = fi[p, _KEY] & table_mask
                    for i in range(2):
                        j = first ^ i
                        if table[j, ENTRY_REST] == rest and table[j, ENTRY_HAND0] == hand0 \
                                and table[j, ENTRY_HAND1] == hand1:
                            slot = j
                            break
                    if slot >= 0:
                        data = table[slot, ENTRY_DATA]
                        table_move = ((data >> 48) & 0xFF) - 1
                        stored = (data >> 40) & 0xFF
                        if stored == EXACT_DEPTH or stored >= depth:
                            value = _entry_value(data)
                            bound = (data >> 32) & 0xFF
                            if bound == BOUND_EXACT or \
                                    (bound == BOUND_LOWER and value >= ff[p, _BETA]) or \
                                    (bound == BOUND_UPPER and value <= ff[p, _ALPHA]):
                                ctl[TABLE_HITS] += 1
                                ff[p, _VALUE] = value
                                resolved = True
                fi[p, _SLOT] = slot
            if resolved:
                entering = False
                finished = True
            else:
                hand = hand0 if mover == 0 else hand1
                moves = legal_mask(hand, lead, follow_mask, trump_mask)
                if use_equivalence and moves & (moves - 1) != 0:
                    in_play = hand0 | hand1 | stock_masks[pos]
                    if lead >= 0:
                        in_play |= np.int64(1) << (ace if lead >= num_cards else lead)
                    moves = prune_equivalent(moves, in_play, ace, num_suits, card_points)
                count = 0
                lead_card = ace if lead >= num_cards else lead
                x = moves
                while x != 0:
                    card = lowest_bit(x)
                    x &= x - 1
                    if lead < 0:
                        score = -abs(card_points[card]) - card_strength[card]
                    else:
                        trick = card_points[lead_card] + card_points[card]
                        if follower_wins(lead, card, num_cards, ace, card_suit, card_rank):
                            score = trick - card_strength[card]
                        else:
                            score = -trick - card_strength[card]
                    if lead < 0 and card == ace:
                        codes[p, count] = num_cards
                        codes[p, count + 1] = num_cards + 1
                        scores[p, count] = score
                        scores[p, count + 1] = score - 0.001
                        count += 2
                    else:
                        codes[p, count] = card
                        scores[p, count] = score
                        count += 1
                if use_ordering:
                    for i in range(count):
                        if codes[p, i] == table_move:
                            scores[p, i] = INFINITY
                    for i in range(1, count):  # insertion sort, descending
                        c = codes[p, i]
                        s = scores[p, i]
                        k = i - 1
                        while k >= 0 and scores[p, k] < s:
                            codes[p, k + 1] = codes[p, k]
                            scores[p, k + 1] = scores[p, k]
                            k -= 1
                        codes[p, k + 1] = c
                        scores[p, k + 1] = s
                fi[p, _COUNT] = count
                fi[p, _INDEX] = 0
                fi[p, _BEST_MOVE] = -1
                ff[p, _BEST] = -INFINITY if mover == 0 else INFINITY
                ff[p, _ALPHA0] = ff[p, _ALPHA]
                ff[p, _BETA0] = ff[p, _BETA]
                entering = False
                finished = False
        else:
            finished = False
            i = fi[p, _INDEX]
            if i < fi[p, _COUNT] and ff[p, _ALPHA] < ff[p, _BETA]:
                # --- descend into the next move's child
                fi[p, _INDEX] = i + 1
                code = codes[p, i]
                hand0 = fi[p, _HAND0]
                hand1 = fi[p, _HAND1]
                pos = fi[p, _POS]
                lead = fi[p, _LEAD]
                mover = fi[p, _MOVER]
                key = fi[p, _KEY]
                card = ace if code >= num_cards else code
                bit = np.int64(1) << card
                other = 1 - mover
                if mover == 0:
                    hand0 &= ~bit
                else:
                    hand1 &= ~bit
                key ^= zobrist_hand[mover, card]
                delta = 0.0
                if lead < 0:
                    key ^= zobrist_lead[0] ^ zobrist_lead[code + 1]
                    key ^= zobrist_mover[mover] ^ zobrist_mover[other]
                    lead = code
                    mover = other
                else:
                    lead_card = ace if lead >= num_cards else lead
                    winner = other
                    if follower_wins(lead, card, num_cards, ace, card_suit, card_rank):
                        winner = mover
                    points = card_points[lead_card] + card_points[card]
                    delta = float(points if winner == 0 else -points)
                    key ^= zobrist_lead[lead + 1] ^ zobrist_lead[0]
                    key ^= zobrist_mover[mover] ^ zobrist_mover[winner]
                    if pos < stock_len:
                        first_draw = stock[pos]
                        second_draw = stock[pos + 1]
                        if winner == 0:
                            hand0 |= np.int64(1) << first_draw
                            hand1 |= np.int64(1) << second_draw
                        else:
                            hand1 |= np.int64(1) << first_draw
                            hand0 |= np.int64(1) << second_draw
                        key ^= zobrist_hand[winner, first_draw]
                        key ^= zobrist_hand[1 - winner, second_draw]
                        key ^= zobrist_pos[pos] ^ zobrist_pos[pos + 2]
                        pos += 2
                    lead = -1
                    mover = winner
                q = p + 1
                fi[q, _HAND0] = hand0
                fi[q, _HAND1] = hand1
                fi[q, _POS] = pos
                fi[q, _LEAD] = lead
                fi[q, _MOVER] = mover
                fi[q, _DEPTH] = fi[p, _DEPTH] - 1
                fi[q, _KEY] = key
                ff[q, _DELTA] = delta
                ff[q, _ALPHA] = ff[p, _ALPHA] - delta
                ff[q, _BETA] = ff[p, _BETA] - delta
                p = q
                entering = True
            else:
                # --- finish node p: its value is the best found; store it
                best = ff[p, _BEST]
                ff[p, _VALUE] = best
                if use_table:
                    if best <= ff[p, _ALPHA0]:
                        bound = BOUND_UPPER
                    elif best >= ff[p, _BETA0]:
                        bound = BOUND_LOWER
                    else:
                        bound = BOUND_EXACT
                    slot = fi[p, _SLOT]
                    if slot < 0:  # replace the stale, empty or shallower entry of the bucket
                        first = fi[p, _KEY] & table_mask
                        slot = first
                        if _entry_priority(table[first ^ 1, ENTRY_REST],
                                           table[first ^ 1, ENTRY_DATA], generation) < \
                                _entry_priority(table[first, ENTRY_REST],
                                                table[first, ENTRY_DATA], generation):
                            slot = first ^ 1
                    stored_depth = EXACT_DEPTH if fi[p, _EXACT] != 0 else \
                        min(fi[p, _DEPTH], EXACT_DEPTH - 1)
                    table[slot, ENTRY_HAND0] = fi[p, _HAND0]
                    table[slot, ENTRY_HAND1] = fi[p, _HAND1]
                    table[slot, ENTRY_REST] = fi[p, _REST]
                    table[slot, ENTRY_DATA] = _entry_data(best, bound, stored_depth,
                                                           fi[p, _BEST_MOVE])
                finished = True
        if finished:
            # --- node p has its value: back to the parent
            if p == 0:
                ctl[NODES] = nodes
                return ff[0, _VALUE]
            value = ff[p, _VALUE] + ff[p, _DELTA]
            p -= 1
            code = codes[p, fi[p, _INDEX] - 1]
            if fi[p, _MOVER] == 0:
                if value > ff[p, _BEST]:
                    ff[p, _BEST] = value
                    fi[p, _BEST_MOVE] = code
                    ff[p, _ALPHA] = max(ff[p, _ALPHA], value)
            else:
                if value < ff[p, _BEST]:
                    ff[p, _BEST] = value
                    fi[p, _BEST_MOVE] = code
                    ff[p, _BETA] = min(ff[p, _BETA], value)
            entering = False


@njit(cache=True, inline="always")
def _entry_priority(rest, data, generation):
    """How much a table entry is worth keeping: -1 if empty or of an older generation, else
    its depth."""
    if rest >> 17 != generation:
        return -1
    return (data >> 40) & 0xFF


@njit(cache=True, inline="always")
def _entry_data(value, bound, depth, move):
    """An entry's value (fixed point, 1/VALUE_SCALE), bound, depth and move in one int64."""
    fixed = np.int64(np.round(value * VALUE_SCALE)) & 0xFFFFFFFF
    return fixed | (np.int64(bound) << 32) | (np.int64(depth) << 40) | (np.int64(move + 1) << 48)


@njit(cache=True, inline="always")
def _entry_value(data):
    """The value stored by `_entry_data`."""
    fixed = ((data & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000
    return fixed / VALUE_SCALE


@njit(cache=True)
def zobrist_key(hand0, hand1, stock_len, pos, lead, mover, tables):
    """The Zobrist hash of a position, as `search` updates it move by move."""
    key = tables.zobrist_lead[lead + 1] ^ tables.zobrist_mover[mover]
    if pos < stock_len:
        key ^= tables.zobrist_pos[pos]
    else:
        key ^= tables.zobrist_pos[0]
    x = hand0
    while x != 0:
        key ^= tables.zobrist_hand[0, lowest_bit(x)]
        x &= x - 1
    x = hand1
    while x != 0:
        key ^= tables.zobrist_hand[1, lowest_bit(x)]
        x &= x - 1
    return key


@njit(cache=True)
def root_moves(hand0, hand1, stock, pos, lead, mover, tables, codes, representatives):
    """Fills `codes` with the legal move codes in ascending order and `representatives` with,
    per move, the index in `codes` of the equivalent move that is searched; returns the count."""
    num_cards = tables.scalars[0]
    ace = tables.scalars[1]
    hand = hand0 if mover == 0 else hand1
    moves = legal_mask(hand, lead, tables.follow_mask, tables.scalars[2])
    in_play = hand0 | hand1
    for i in range(pos, stock.shape[0]):
        in_play |= np.int64(1) << stock[i]
    if lead >= 0:
        in_play |= np.int64(1) << (ace if lead >= num_cards else lead)
    count = 0
    x = moves
    while x != 0:
        card = lowest_bit(x)
        x &= x - 1
        if lead < 0 and card == ace:
            codes[count] = num_cards
            codes[count + 1] = num_cards + 1
            count += 2
        else:
            codes[count] = card
            count += 1
    for i in range(count):
        code = codes[i]
        representatives[i] = i
        if code >= num_cards:
            continue
        rep = representative(code, moves, in_play, tables)
        for k in range(count):
            if codes[k] == rep:
                representatives[i] = k
                break
    return count


@njit(cache=True, nogil=True)
def move_values(hand0, hand1, stock, pos, lead, mover, depth, tables, table, work, ctl,
                codes, values):
    """Value of every legal move (full window each, equivalent moves searched once): player 0's
    future points minus player 1's after the move, `depth` plies deep from the position.
    Fills `codes` and `values` (float64 [>= MAX_MOVES]); returns the number of moves, or -1
    if the node budget ran out (`values` then partly filled)."""
    representatives = np.empty(codes.shape[0], dtype=np.int64)
    count = root_moves(hand0, hand1, stock, pos, lead, mover, tables, codes, representatives)
    if ctl[USE_EQUIVALENCE] == 0:
        for i in range(count):
            representatives[i] = i
    key = zobrist_key(hand0, hand1, stock.shape[0], pos, lead, mover, tables)
    for i in range(count):
        if representatives[i] != i:
            continue
        child0, child1, child_pos, child_lead, child_mover, child_key, delta = child(
            hand0, hand1, stock, pos, lead, mover, key, codes[i], tables)
        value = delta + search(child0, child1, stock, child_pos, child_lead, child_mover,
                               depth - 1, -INFINITY, INFINITY, child_key, tables, table, work,
                               ctl)
        if ctl[ABORTED] != 0:
            return -1
        values[i] = value
    for i in range(count):
        values[i] = values[representatives[i]]
    return count


@njit(cache=True, nogil=True)
def solve_value(hand0, hand1, stock, pos, lead, mover, depth, tables, table, work, ctl):
    """The position's alpha-beta value with a full window (`search` from the root)."""
    key = zobrist_key(hand0, hand1, stock.shape[0], pos, lead, mover, tables)
    return search(hand0, hand1, stock, pos, lead, mover, depth, -INFINITY, INFINITY, key,
                  tables, table, work, ctl)


@njit(cache=True, nogil=True)
def iterative_move_values(hand0, hand1, stock, pos, lead, mover, max_depth, budget, tables,
                          table, work, ctl, codes, values, scratch):
    """Iterative deepening of `move_values`, one trick deeper each time, up to `max_depth`
    plies or the end of the deal, until `budget` nodes have been searched in all (the first
    iteration, to the end of the current trick and one more trick, always completes).
    `values` holds the deepest completed iteration's values. Returns (number of moves, depth of
    that iteration in plies, 1 if it was exact else 0)."""
    stock_left = stock.shape[0] - pos
    plies_left = popcount(hand0) + popcount(hand1) + stock_left
    depth = 3 if lead >= 0 else 4  # the open trick (or a whole trick) and one more
    count = 0
    done_depth = 0
    exact = 0
    start = ctl[NODES]
    first = True
    while True:
        depth = min(depth, plies_left)
        depth = min(depth, max_depth)
        ctl[BUDGET] = (1 << 62) if first else start + budget
        ctl[ABORTED] = 0
        n = move_values(hand0, hand1, stock, pos, lead, mover, depth, tables, table, work, ctl,
                        codes, scratch)
        if n < 0:
            ctl[ABORTED] = 0
            break
        count = n
        for i in range(n):
            values[i] = scratch[i]
        done_depth = depth
        first = False
        if depth >= plies_left:
            exact = 1
            break
        if depth >= max_depth or ctl[NODES] - start >= budget:
            break
        depth += 2
    ctl[BUDGET] = 1 << 62
    return count, done_depth, exact


@njit(cache=True)
def random_playout(hand0, hand1, stock, lead, mover, uniforms, tables, actions):
    """Plays the position out at random: the stock shuffled (Fisher-Yates on the first
    stock_len - 1 of `uniforms`), then at every turn a uniform choice among the game's legal
    actions (the As led counts twice: as trump and as spade), one uniform each. `stock` is
    shuffled in place; `actions` (at least 2 * num_cards) receives the playout's actions in the
    game's order, each trick's draws after it. Returns (player 0's points won in the playout
    minus player 1's, number of actions)."""
    num_cards = tables.scalars[0]
    ace = tables.scalars[1]
    used = 0
    for i in range(stock.shape[0] - 1, 0, -1):
        j = np.int64(uniforms[used] * (i + 1))
        used += 1
        stock[i], stock[j] = stock[j], stock[i]
    pos = 0
    total = 0.0
    count = 0
    while hand0 | hand1 != 0:
        hand = hand0 if mover == 0 else hand1
        moves = legal_mask(hand, lead, tables.follow_mask, tables.scalars[2])
        declarations = 2 if lead < 0 and moves >> ace & 1 else 0
        if declarations:
            moves &= ~(np.int64(1) << ace)
        cards = popcount(moves)
        pick = np.int64(uniforms[used] * (cards + declarations))
        used += 1
        if pick >= cards:
            code = num_cards + pick - cards
        else:
            for _ in range(pick):
                moves &= moves - 1
            code = lowest_bit(moves)
        drawn = pos
        hand0, hand1, pos, lead, mover, _, delta = child(hand0, hand1, stock, pos, lead, mover,
                                                         0, code, tables)
        total += delta
        actions[count] = code
        count += 1
        for i in range(drawn, pos):
            actions[count] = stock[i]
            count += 1
    return total, count
