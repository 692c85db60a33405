"""The public tree of one Le Truc hand's card play, with vectors over private hands.

The second solving path for the Truc family, beside the history tree: the rules' public-state
machine (`games.le_truc.PublicState`) is walked once, and every public node carries, for each
player, a *list* of the private states he can be in there: the unplayed part `r` of his hand, every
rank multiset of the right size that the cards already on the table leave possible (at most
four cards of a rank in all). A player's information state is exactly (public node, his entry
in that list), so the solver stores one row of regrets per entry, laid out per node; card
legality is the entry's own cards (a row has one column per betting action, then one per
distinct rank it holds, ascending: the order of OpenSpiel's legal actions). Chance never
appears inside the tree: which hands are compatible, and how likely, is a coupling matrix
over the players' *full* hands (played + unplayed), applied where payoffs are collected
(`solver.public._kernels`). This is the vector layout of poker solvers (Johanson et al.,
"Accelerating Best Response Calculation in Large Extensive Games", IJCAI 2011, public tree
with private-state vectors; postflop-solver) applied to a game where every played card is
public and every payoff is a function of the public state alone.

Lists depend only on (own played cards, opponent's played cards), so they are shared by all
nodes with the same cards on the table; playing a card maps the actor's list onto the child's
(`r` loses the card; `map_slot` is its column) and filters the other player's (the card is no
longer available to him).
"""
from __future__ import annotations

import dataclasses
import hashlib
import itertools
import os
import pathlib
import sys

import numpy as np

from games import le_truc
from solver.cache import cache_dir, source_digest

SUITS = le_truc.SUITS_PER_RANK


@dataclasses.dataclass(frozen=True, eq=False)
class PlayTree:
    """Flat arrays of the public play tree (node 0: the first card turn at stake 1).

    node_player int8 [nodes]: the player to act, -1 at terminals; node_payoff float64: player
    0's points at terminals; child_start int64 [nodes + 1], child int32 [edges], edge_action
    int16 [edges]: children in the order of legal actions (betting actions ascending, then card
    ranks ascending); node_nbet int8: betting children (they come first); node_card_turn int8:
    1 where the actor may play a card (his rows then have card columns); node_list int32
    [nodes, 2]: each player's list at decision nodes (-1 at terminals); node_table int64: the
    acting player's first table entry at this node; edge_map int32 [edges, 2]: at card edges
    the maps of the actor's and the other player's lists (-1 at betting edges).

    Lists: list_start int64 [lists + 1]; per entry: entry_hand int32 (index of the full hand
    in `hands`), entry_nd int8 (distinct ranks in r: its card columns), entry_before int32
    (card columns of the list's earlier entries). Maps: map_start int64 [maps + 1]; per pair:
    map_src, map_dst int32 (entry in parent and child list), map_slot int8 (the card's column
    after the betting columns; -1 in the other player's maps). node_row int64 [nodes]: the
    actor's first row (information state) at a decision node, rows numbered per player;
    table_size int64 [2]: entries of each player's table.
    """

    game_string: str
    hands: tuple[tuple[int, ...], ...]
    node_player: np.ndarray
    node_payoff: np.ndarray
    child_start: np.ndarray
    child: np.ndarray
    edge_action: np.ndarray
    node_nbet: np.ndarray
    node_card_turn: np.ndarray
    node_list: np.ndarray
    node_table: np.ndarray
    edge_map: np.ndarray
    list_start: np.ndarray
    entry_hand: np.ndarray
    entry_nd: np.ndarray
    entry_before: np.ndarray
    map_start: np.ndarray
    map_src: np.ndarray
    map_dst: np.ndarray
    map_slot: np.ndarray
    node_row: np.ndarray
    table_size: np.ndarray
    list_keys: tuple = dataclasses.field(repr=False, default=())

    @property
    def num_nodes(self) -> int:
        return int(self.node_player.shape[0])

    def kernel_arrays(self) -> tuple[np.ndarray, ...]:
        """The arrays `solver.public._kernels` takes, in its argument order."""
        return (self.node_player, self.node_payoff, self.child_start, self.child,
                self.node_nbet, self.node_card_turn, self.node_list, self.node_table, self.edge_map, self.list_start,
                self.entry_hand, self.entry_nd, self.entry_before, self.map_start, self.map_src,
                self.map_dst, self.map_slot, self.node_row)

    def list_entries(self, list_id: int) -> list[tuple[int, ...]]:
        """The unplayed-card multisets of one list, in entry order."""
        own, other = self.list_keys[list_id]
        return _entries(own, other, len(self.hands[0]))

    def sizes(self) -> dict[str, int]:
        decision = int(np.count_nonzero(self.node_player >= 0))
        return {"public_nodes": self.num_nodes, "public_decision_nodes": decision,
                "public_terminals": self.num_nodes - decision,
                "infosets_player0": self.num_rows(0), "infosets_player1": self.num_rows(1),
                "table_entries_player0": int(self.table_size[0]),
                "table_entries_player1": int(self.table_size[1])}

    def num_rows(self, player: int) -> int:
        """The player's rows (information states) over all his decision nodes."""
        decision = np.flatnonzero(self.node_player == player)
        lists = self.node_list[decision, player]
        return int(np.sum(self.list_start[lists + 1] - self.list_start[lists]))


def _entries(own: tuple[int, ...], other: tuple[int, ...], hand_size: int) -> list[tuple[int, ...]]:
    """Unplayed parts r (sorted rank multisets) possible with these played counts."""
    size = hand_size - sum(own)
    available = [SUITS - a - b for a, b in zip(own, other)]
    return [r for r in itertools.combinations_with_replacement(range(len(own)), size)
            if all(r.count(rank) <= available[rank] for rank in set(r))]


class _Builder:
    """Walks the public states once, numbering nodes depth-first and sharing lists and maps."""

    def __init__(self, rules: le_truc.Rules):
        self.rules = rules
        self.num_ranks = rules.deck.num_ranks
        self.hands = rules.hand_classes
        self.hand_index = {hand: i for i, hand in enumerate(self.hands)}
        self.lists: dict[tuple, int] = {}
        self.list_keys: list[tuple] = []
        self.list_rows: list[list[tuple[int, ...]]] = []
        self.list_position: list[dict] = []
        self.maps: dict[tuple, int] = {}
        self.map_parts: list[tuple[list, list, list]] = []
        self.node_player, self.node_payoff, self.node_nbet = [], [], []
        self.node_card_turn = []
        self.node_list, self.node_table, self.child_lists = [], [], []
        self.table_size = [0, 0]

    # --- lists and maps ------------------------------------------------------------------------
    def list_id(self, own: tuple[int, ...], other: tuple[int, ...]) -> int:
        key = (own, other)
        found = self.lists.get(key)
        if found is not None:
            return found
        rows = _entries(own, other, self.rules.hand_size)
        self.lists[key] = len(self.list_keys)
        self.list_keys.append(key)
        self.list_rows.append(rows)
        self.list_position.append({r: i for i, r in enumerate(rows)})
        return self.lists[key]

    def actor_map(self, parent: int, child: int, rank: int) -> int:
        """Entries holding `rank` -> the child entry without it, and the card's column."""
        key = (parent, child, rank, True)
        if key not in self.maps:
            position = self.list_position[child]
            src, dst, slot = [], [], []
            for i, r in enumerate(self.list_rows[parent]):
                if rank in r:
                    rest = list(r)
                    rest.remove(rank)
                    src.append(i)
                    dst.append(position[tuple(rest)])
                    slot.append(sorted(set(r)).index(rank))
            self._add_map(key, src, dst, slot)
        return self.maps[key]

    def other_map(self, parent: int, child: int) -> int:
        """Entries still possible once the opponent's card is on the table -> child entry."""
        key = (parent, child, -1, False)
        if key not in self.maps:
            position = self.list_position[child]
            src, dst = [], []
            for i, r in enumerate(self.list_rows[parent]):
                j = position.get(r)
                if j is not None:
                    src.append(i)
                    dst.append(j)
            self._add_map(key, src, dst, [-1] * len(src))
        return self.maps[key]

    def _add_map(self, key, src, dst, slot) -> None:
        self.maps[key] = len(self.map_parts)
        self.map_parts.append((src, dst, slot))

    # --- the walk ------------------------------------------------------------------------------
    def node(self, public: le_truc.PublicState, played: tuple[tuple[int, ...], tuple[int, ...]]):
        """Adds `public` and its subtree; returns its node id."""
        node = len(self.node_player)
        self.node_nbet.append(0)
        self.node_card_turn.append(0)
        self.child_lists.append(None)
        if public.is_over():
            self.node_player.append(-1)
            self.node_payoff.append(public.returns()[0])
            self.node_list.append((-1, -1))
            self.node_table.append(-1)
            return node
        actor = public.to_act
        lists = (self.list_id(played[0], played[1]), self.list_id(played[1], played[0]))
        self.node_player.append(actor)
        self.node_payoff.append(0.0)
        self.node_list.append(lists)
        bets = public.legal_actions()
        self.node_nbet[node] = len(bets)
        rows = self.list_rows[lists[actor]]
        self.node_table.append(self.table_size[actor])
        card_turn = public.is_card_turn()
        self.node_card_turn[node] = card_turn
        self.table_size[actor] += len(rows) * len(bets) + (
            sum(len(set(r)) for r in rows) if card_turn else 0)
        children = []
        for action in bets:
            child_state = public.clone()
            child_state.apply(action)
            children.append((action, self.node(child_state, played), -1, -1))
        if card_turn:
            for rank in range(self.num_ranks):
                if not any(rank in r for r in rows):
                    continue
                child_played = list(played)
                counts = list(played[actor])
                counts[rank] += 1
                child_played[actor] = tuple(counts)
                child_played = tuple(child_played)
                child_actor_list = self.list_id(child_played[actor], child_played[1 - actor])
                child_other_list = self.list_id(child_played[1 - actor], child_played[actor])
                maps = (self.actor_map(lists[actor], child_actor_list, rank),
                        self.other_map(lists[1 - actor], child_other_list))
                child_state = public.clone()
                child_state.play(rank)
                children.append((le_truc.CARD_ACTION_BASE + rank,
                                 self.node(child_state, child_played), *maps))
        self.child_lists[node] = children
        return node

    def finish(self, game_string: str) -> PlayTree:
        num_nodes = len(self.node_player)
        child_start = np.zeros(num_nodes + 1, dtype=np.int64)
        child_start[1:] = np.cumsum([len(c) if c else 0 for c in self.child_lists])
        edges = [edge for c in self.child_lists if c for edge in c]
        edge_array = np.array(edges, dtype=np.int64).reshape(-1, 4)
        list_sizes = [len(rows) for rows in self.list_rows]
        entry_hand, entry_nd, entry_before = [], [], []
        for (own, _), rows in zip(self.list_keys, self.list_rows):
            before = 0
            for r in rows:
                full = tuple(sorted(r + tuple(rank for rank, n in enumerate(own)
                                              for _ in range(n))))
                entry_hand.append(self.hand_index[full])
                entry_nd.append(len(set(r)))
                entry_before.append(before)
                before += len(set(r))
        map_sizes = [len(src) for src, _, _ in self.map_parts]
        node_row, rows = np.full(num_nodes, -1, dtype=np.int64), [0, 0]
        for node, (player, lists) in enumerate(zip(self.node_player, self.node_list)):
            if player >= 0:
                node_row[node] = rows[player]
                rows[player] += list_sizes[lists[player]]
        return PlayTree(
            game_string=game_string,
            hands=self.hands,
            node_player=np.array(self.node_player, dtype=np.int8),
            node_payoff=np.array(self.node_payoff, dtype=np.float64),
            child_start=child_start,
            child=edge_array[:, 1].astype(np.int32),
            edge_action=edge_array[:, 0].astype(np.int16),
            node_nbet=np.array(self.node_nbet, dtype=np.int8),
            node_card_turn=np.array(self.node_card_turn, dtype=np.int8),
            node_list=np.array(self.node_list, dtype=np.int32).reshape(-1, 2),
            node_table=np.array(self.node_table, dtype=np.int64),
            edge_map=edge_array[:, 2:].astype(np.int32),
            list_start=_starts(list_sizes),
            entry_hand=np.array(entry_hand, dtype=np.int32),
            entry_nd=np.array(entry_nd, dtype=np.int8),
            entry_before=np.array(entry_before, dtype=np.int32),
            map_start=_starts(map_sizes),
            map_src=np.array([i for src, _, _ in self.map_parts for i in src], dtype=np.int32),
            map_dst=np.array([i for _, dst, _ in self.map_parts for i in dst], dtype=np.int32),
            map_slot=np.array([i for _, _, slot in self.map_parts for i in slot], dtype=np.int8),
            node_row=node_row,
            table_size=np.array(self.table_size, dtype=np.int64),
            list_keys=tuple(self.list_keys),
        )


def _starts(sizes: list[int]) -> np.ndarray:
    starts = np.zeros(len(sizes) + 1, dtype=np.int64)
    starts[1:] = np.cumsum(sizes)
    return starts


def build_play_tree(game) -> PlayTree:
    """The public play tree of a `python_le_truc` game (its rules; isomorphic or not, the same
    rank-class tree)."""
    rules = game.rules
    public = le_truc.PublicState(rules)
    public._start_play()
    builder = _Builder(rules)
    empty = (0,) * rules.deck.num_ranks
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        builder.node(public, (empty, empty))
    finally:
        sys.setrecursionlimit(limit)
    return builder.finish(str(game))


_ARRAY_FIELDS = tuple(f.name for f in dataclasses.fields(PlayTree)
                      if f.name not in ("game_string", "hands", "list_keys"))


def play_tree_cache_path(game) -> pathlib.Path:
    """The cache file of `game`'s play tree: keyed by the game string and the digest of every
    source the tree is built from (this module, the game's module and what they import)."""
    digest = source_digest(sys.modules[__name__], sys.modules[type(game).__module__])
    key = hashlib.sha256(f"{game}|{digest}".encode()).hexdigest()[:24]
    return cache_dir() / "public" / f"{key}.npz"


def load_play_tree(game, cache: bool = True) -> PlayTree:
    """`build_play_tree`, read from (or written to) the tree cache (`solver.cache`), keyed by
    the game string and the digest of every source the tree is built from."""
    if not cache:
        return build_play_tree(game)
    path = play_tree_cache_path(game)
    if path.exists():
        with np.load(path) as arrays:
            fields = {name: arrays[name] for name in _ARRAY_FIELDS}
            keys = tuple((tuple(map(int, own)), tuple(map(int, other)))
                         for own, other in arrays["list_keys"])
        return PlayTree(game_string=str(game), hands=game.rules.hand_classes, list_keys=keys,
                        **fields)
    tree = build_play_tree(game)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(f".{os.getpid()}.tmp.npz")
    np.savez(temporary, list_keys=np.array(tree.list_keys, dtype=np.int8),
             **{name: getattr(tree, name) for name in _ARRAY_FIELDS})
    os.replace(temporary, path)
    return tree
