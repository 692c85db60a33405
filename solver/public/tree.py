"""The public tree of one Truc-family hand's play, with vectors over private hands.

The second solving path for the Truc family, beside the history tree: a game's public-state
machine (the `games.tricks.PublicGame` contract: Le Truc's `games.le_truc.PlayGame`, one
`games.truco.ViraGame` per vira class of Truco) is walked once, and every public node carries,
for each player, a *list* of the private states he can be in there: an entry (r, c) is the
unplayed part r of his hand (a sorted class multiset) and the classes c he played face down,
in order, every pair the cards shown face up leave possible (at most `class_counts` cards of a
class in all). A player's information state is exactly (public node, his entry in that list),
so the solver stores one row of regrets per entry, laid out per node; card legality is the
entry's own cards (a row has one column per betting action, then one per distinct class of r,
ascending, played face up, then, where the player may cover, one per distinct class played
face down). Chance never appears inside the tree: which hands are compatible, and how likely,
is a coupling matrix over the players' *full* hands (face up + r + c), applied where payoffs
are collected (`solver.public._kernels`). This is the vector layout of poker solvers (Johanson
et al., "Accelerating Best Response Calculation in Large Extensive Games", IJCAI 2011, public
tree with private-state vectors; postflop-solver) applied to games whose payoffs are a function
of the public state alone (a covered card plays at strength 0, whatever it is).

Lists depend only on (own face-up cards, opponent's face-up cards, own covered count), so they
are shared by all nodes with the same cards on the table; a face-up play maps the actor's list
onto the child's (r loses the card; `map_slot` is its column) and filters the other player's
(the card is no longer available to him); a covered play is one public edge whose map sends
each entry to one child entry per class it could have covered (r loses it, c gains it).
"""
from __future__ import annotations

import dataclasses
import hashlib
import itertools
import os
import pathlib
import sys

import numpy as np

from games import tricks
from solver.cache import cache_dir, source_digest
from solver.public.parts import part_named

COVERED_EDGE = -1  # edge_action of a covered play: one public edge for every class covered

Entry = tuple[tuple[int, ...], tuple[int, ...]]  # (unplayed classes r, covered classes c)


@dataclasses.dataclass(frozen=True, eq=False)
class PlayTree:
    """Flat arrays of the public play tree (node 0: the game's root).

    node_player int8 [nodes]: the player to act, -1 at terminals; node_payoff float64: player
    0's points at terminals; node_whole_match int8: 1 at terminals whose points are what the
    winner needed to win the match (a rest; they alone change with the scores); child_start
    int64 [nodes + 1], child int32 [edges], edge_action
    int16 [edges]: children in the order of the row's columns (betting actions ascending, then
    face-up classes ascending, then the covered play, `COVERED_EDGE`); node_nbet int8: betting
    children (they come first); node_card_turn int8: 0 where the actor plays no card, 1 where
    he may play face up (his rows then have a column per distinct class of r), 2 where he may
    also cover (as many columns again); node_list int32 [nodes, 2]: each player's list at
    decision nodes (-1 at terminals); node_table int64: the acting player's first table entry
    at this node; edge_map int32 [edges, 2]: at card edges the maps of the actor's and the
    other player's lists (-1 at betting edges).

    Lists: list_start int64 [lists + 1]; per entry: entry_hand int32 (index of the full hand
    in `hands`), entry_nd int8 (distinct classes in r), entry_before int32 (the same summed
    over the list's earlier entries: a row's card columns start at node_card_turn times that).
    Maps: map_start int64 [maps + 1]; per pair: map_src, map_dst int32 (entry in parent and
    child list), map_slot int8 (the card's column after the betting columns; -1 in the other
    player's maps). node_row int64 [nodes]: the actor's first row (information state) at a
    decision node, rows numbered per player; table_size int64 [2]: entries of each player's
    table. list_keys: per list (own face-up counts, other's face-up counts, own covered count).
    """

    game_string: str
    hands: tuple[tuple[int, ...], ...]
    node_player: np.ndarray
    node_payoff: np.ndarray
    node_whole_match: np.ndarray
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
    class_counts: tuple[int, ...] = ()
    list_keys: tuple = dataclasses.field(repr=False, default=())
    _positions: dict = dataclasses.field(repr=False, default_factory=dict, compare=False)

    @property
    def num_nodes(self) -> int:
        return int(self.node_player.shape[0])

    def list_entries(self, list_id: int) -> list[Entry]:
        """The (unplayed, covered) class multisets of one list, in entry order."""
        own, other, covered = self.list_keys[list_id]
        return _entries(own, other, covered, self.class_counts, len(self.hands[0]))

    def entry_index(self, list_id: int, entry: Entry) -> int:
        """The position of `entry` in a list (ValueError if the list has no such entry)."""
        positions = self._positions.get(list_id)
        if positions is None:
            positions = {e: i for i, e in enumerate(self.list_entries(list_id))}
            self._positions[list_id] = positions
        if entry not in positions:
            raise ValueError(f"no private state {entry} at this point of the play tree")
        return positions[entry]

    def row_actions(self, game: tricks.PublicGame, node: int, entry: Entry) -> list[int]:
        """The OpenSpiel actions of `entry`'s row at decision node `node`, column by column."""
        edges = range(self.child_start[node], self.child_start[node + 1])
        actions = [int(self.edge_action[e]) for e in edges][:int(self.node_nbet[node])]
        card_turn = int(self.node_card_turn[node])
        unplayed, _ = entry
        last = len(unplayed) == 1
        for covered in (False, True)[:card_turn]:
            actions += [game.card_action(item, covered, last) for item in sorted(set(unplayed))]
        return actions

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


def _entries(own: tuple[int, ...], other: tuple[int, ...], covered: int,
             class_counts: tuple[int, ...], hand_size: int) -> list[Entry]:
    """Every (r, c) possible with these face-up counts and `covered` covered cards: r a sorted
    multiset, c a sequence, r + c within the cards neither player has shown."""
    size = hand_size - sum(own) - covered
    available = [n - a - b for n, a, b in zip(class_counts, own, other)]
    classes = range(len(own))
    result = []
    for unplayed in itertools.combinations_with_replacement(classes, size):
        if any(unplayed.count(x) > available[x] for x in set(unplayed)):
            continue
        for hidden in itertools.product(classes, repeat=covered):
            both = unplayed + hidden
            if all(both.count(x) <= available[x] for x in set(hidden)):
                result.append((unplayed, hidden))
    return result


class _Builder:
    """Walks the public states once, numbering nodes depth-first and sharing lists and maps."""

    def __init__(self, game: tricks.PublicGame):
        self.game = game
        self.num_classes = len(game.class_counts)
        empty = (0,) * self.num_classes
        self.hands = tuple(r for r, _ in _entries(empty, empty, 0, game.class_counts,
                                                    game.hand_size))
        self.hand_index = {hand: i for i, hand in enumerate(self.hands)}
        self.lists: dict[tuple, int] = {}
        self.list_keys: list[tuple] = []
        self.list_rows: list[list[Entry]] = []
        self.list_position: list[dict] = []
        self.maps: dict[tuple, int] = {}
        self.map_parts: list[tuple[list, list, list]] = []
        self.node_player, self.node_payoff, self.node_nbet = [], [], []
        self.node_whole_match = []
        self.node_card_turn = []
        self.node_list, self.node_table, self.child_lists = [], [], []
        self.table_size = [0, 0]

    # --- lists and maps ------------------------------------------------------------------------
    def list_id(self, own: tuple[int, ...], other: tuple[int, ...], covered: int) -> int:
        key = (own, other, covered)
        found = self.lists.get(key)
        if found is not None:
            return found
        rows = _entries(own, other, covered, self.game.class_counts, self.game.hand_size)
        self.lists[key] = len(self.list_keys)
        self.list_keys.append(key)
        self.list_rows.append(rows)
        self.list_position.append({r: i for i, r in enumerate(rows)})
        return self.lists[key]

    def actor_map(self, parent: int, child: int, item: int, covered: bool) -> int:
        """Entries holding `item` -> the child entry without it (with it covered, if covered:
        then every class of r maps, each to its own child entry), and the card's column."""
        key = (parent, child, item, covered)
        if key not in self.maps:
            position = self.list_position[child]
            src, dst, slot = [], [], []
            for i, (unplayed, hidden) in enumerate(self.list_rows[parent]):
                distinct = sorted(set(unplayed))
                for x in (distinct if covered else [item] if item in distinct else []):
                    rest = list(unplayed)
                    rest.remove(x)
                    src.append(i)
                    dst.append(position[(tuple(rest), hidden + ((x,) if covered else ()))])
                    slot.append(distinct.index(x) + (len(distinct) if covered else 0))
            self._add_map(key, src, dst, slot)
        return self.maps[key]

    def other_map(self, parent: int, child: int) -> int:
        """Entries still possible once the opponent's card is on the table -> child entry."""
        key = (parent, child, -1, False)
        if key not in self.maps:
            position = self.list_position[child]
            src, dst = [], []
            for i, entry in enumerate(self.list_rows[parent]):
                j = position.get(entry)
                if j is not None:
                    src.append(i)
                    dst.append(j)
            self._add_map(key, src, dst, [-1] * len(src))
        return self.maps[key]

    def _add_map(self, key, src, dst, slot) -> None:
        self.maps[key] = len(self.map_parts)
        self.map_parts.append((src, dst, slot))

    # --- the walk ------------------------------------------------------------------------------
    def node(self, public: tricks.PublicMachine, shown: tuple, covered: tuple) -> int:
        """Adds `public` and its subtree; returns its node id. shown: each player's face-up
        counts per class; covered: each player's covered count."""
        node = len(self.node_player)
        self.node_nbet.append(0)
        self.node_card_turn.append(0)
        self.child_lists.append(None)
        if public.is_over():
            self.node_player.append(-1)
            self.node_payoff.append(public.returns()[0])
            self.node_whole_match.append(public.whole_match)
            self.node_list.append((-1, -1))
            self.node_table.append(-1)
            return node
        actor = public.to_act
        lists = tuple(self.list_id(shown[p], shown[1 - p], covered[p]) for p in (0, 1))
        self.node_player.append(actor)
        self.node_payoff.append(0.0)
        self.node_whole_match.append(False)
        self.node_list.append(lists)
        bets = public.legal_actions()
        self.node_nbet[node] = len(bets)
        rows = self.list_rows[lists[actor]]
        self.node_table.append(self.table_size[actor])
        card_turn = (2 if self.game.may_cover(public) else 1) if public.is_card_turn() else 0
        self.node_card_turn[node] = card_turn
        self.table_size[actor] += len(rows) * len(bets) + card_turn * sum(
            len(set(unplayed)) for unplayed, _ in rows)
        children = []
        for action in bets:
            child_state = public.clone()
            child_state.apply(action)
            children.append((action, self.node(child_state, shown, covered), -1, -1))
        if card_turn:
            children += self.card_children(public, actor, lists, shown, covered, card_turn)
        self.child_lists[node] = children
        return node

    def card_children(self, public, actor: int, lists: tuple, shown: tuple, covered: tuple,
                      card_turn: int) -> list[tuple]:
        """The face-up play of each class the actor may hold, then the covered play."""
        rows = self.list_rows[lists[actor]]
        children = []
        for item in range(self.num_classes):
            if not any(item in unplayed for unplayed, _ in rows):
                continue
            child_shown = list(shown)
            counts = list(shown[actor])
            counts[item] += 1
            child_shown[actor] = tuple(counts)
            child_shown = tuple(child_shown)
            child_own = self.list_id(child_shown[actor], child_shown[1 - actor], covered[actor])
            child_other = self.list_id(child_shown[1 - actor], child_shown[actor],
                                       covered[1 - actor])
            maps = (self.actor_map(lists[actor], child_own, item, False),
                    self.other_map(lists[1 - actor], child_other))
            child_state = public.clone()
            self.game.play_card(child_state, item, False)
            children.append((self.game.card_action(item, False, False),
                             self.node(child_state, child_shown, covered), *maps))
        if card_turn == 2:
            child_covered = list(covered)
            child_covered[actor] += 1
            child_covered = tuple(child_covered)
            child_own = self.list_id(shown[actor], shown[1 - actor], child_covered[actor])
            maps = (self.actor_map(lists[actor], child_own, -1, True),
                    self.other_map(lists[1 - actor], lists[1 - actor]))
            child_state = public.clone()
            self.game.play_card(child_state, 0, True)
            children.append((COVERED_EDGE, self.node(child_state, shown, child_covered), *maps))
        return children

    def finish(self, game_string: str) -> PlayTree:
        num_nodes = len(self.node_player)
        child_start = np.zeros(num_nodes + 1, dtype=np.int64)
        child_start[1:] = np.cumsum([len(c) if c else 0 for c in self.child_lists])
        edges = [edge for c in self.child_lists if c for edge in c]
        edge_array = np.array(edges, dtype=np.int64).reshape(-1, 4)
        list_sizes = [len(rows) for rows in self.list_rows]
        entry_hand, entry_nd, entry_before = [], [], []
        for (own, _, _), rows in zip(self.list_keys, self.list_rows):
            before = 0
            for unplayed, hidden in rows:
                shown = tuple(item for item, n in enumerate(own) for _ in range(n))
                entry_hand.append(self.hand_index[tuple(sorted(unplayed + hidden + shown))])
                entry_nd.append(len(set(unplayed)))
                entry_before.append(before)
                before += len(set(unplayed))
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
            node_whole_match=np.array(self.node_whole_match, dtype=np.int8),
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
            class_counts=tuple(self.game.class_counts),
            list_keys=tuple(self.list_keys),
        )


def _starts(sizes: list[int]) -> np.ndarray:
    starts = np.zeros(len(sizes) + 1, dtype=np.int64)
    starts[1:] = np.cumsum(sizes)
    return starts


def build_play_tree(game, part: tricks.PublicGame | None = None) -> PlayTree:
    """The public play tree of one sub-game of the OpenSpiel `game` (the only one if None)."""
    part = part if part is not None else part_named(game, None)
    builder = _Builder(part)
    empty = (0,) * builder.num_classes
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        builder.node(part.root(), (empty, empty), (0, 0))
    finally:
        sys.setrecursionlimit(limit)
    return builder.finish(tree_name(game, part))


_ARRAY_FIELDS = tuple(f.name for f in dataclasses.fields(PlayTree)
                      if f.name not in ("game_string", "hands", "class_counts", "list_keys",
                                        "_positions"))


def tree_name(game, part: tricks.PublicGame) -> str:
    """The OpenSpiel game string with the sub-game's label (e.g. `...|vira 7`)."""
    return f"{game}|{part.label}" if part.label else str(game)


def play_tree_cache_path(game, part: tricks.PublicGame | None = None) -> pathlib.Path:
    """The cache file of a sub-game's play tree (the only one if None): keyed by its name and
    the digest of every source the tree is built from (this module, the game's module and what
    they import)."""
    part = part if part is not None else part_named(game, None)
    digest = source_digest(sys.modules[__name__], sys.modules[type(game).__module__])
    key = hashlib.sha256(f"{tree_name(game, part)}|{digest}".encode()).hexdigest()[:24]
    return cache_dir() / "public" / f"{key}.npz"


def load_play_tree(game, part: tricks.PublicGame | None = None, cache: bool = True
                   ) -> PlayTree:
    """`build_play_tree` of one sub-game of `game` (the only one if None), read from (or
    written to) the tree cache (`solver.cache`), keyed by its name and the digest of every
    source it is built from."""
    part = part if part is not None else part_named(game, None)
    name = tree_name(game, part)
    if not cache:
        return build_play_tree(game, part)
    path = play_tree_cache_path(game, part)
    if path.exists():
        with np.load(path) as arrays:
            fields = {field: arrays[field] for field in _ARRAY_FIELDS}
            classes = len(part.class_counts)
            keys = tuple((tuple(map(int, row[:classes])), tuple(map(int, row[classes:-1])),
                          int(row[-1])) for row in arrays["list_keys"])
            hands = tuple(tuple(map(int, hand)) for hand in arrays["hands"])
        return PlayTree(game_string=name, hands=hands, class_counts=tuple(part.class_counts),
                        list_keys=keys, **fields)
    tree = build_play_tree(game, part)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(f".{os.getpid()}.tmp.npz")
    keys = np.array([own + other + (covered,) for own, other, covered in tree.list_keys],
                    dtype=np.int8)
    np.savez(temporary, list_keys=keys, hands=np.array(tree.hands, dtype=np.int8),
             **{name: getattr(tree, name) for name in _ARRAY_FIELDS})
    os.replace(temporary, path)
    return tree
