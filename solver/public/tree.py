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

A big tree (a full-size Truco class: 254 M public nodes, an hour's walk in Python) is built in
as many processes as there are cores: the root's subtrees are walked by forked workers, each
with a builder of its own, and appended in the root's order by the parent's builder, which
renumbers their lists, maps and outcomes as a single walk would have (`_Builder.adopt`), so
the tree is the same, array for array.
"""
from __future__ import annotations

import array
import dataclasses
import hashlib
import itertools
import multiprocessing
import pathlib
import sys

import numpy as np

from games import tricks
from solver.atomic import atomic_write_npz
from solver.cache import cache_dir, source_digest
from solver.cores import default_threads
from solver.public.parts import part_named

COVERED_EDGE = -1  # edge_action of a covered play: one public edge for every class covered
BET, FACE_UP, COVERED = 0, 1, 2  # the builder's kinds of move out of a decision node
# A tree with more decision nodes than this is built in several processes (`build_play_tree`):
# below it, starting them costs more than it saves.
PARALLEL_BUILD_NODES = 100_000

Entry = tuple[tuple[int, ...], tuple[int, ...]]  # (unplayed classes r, covered classes c)


@dataclasses.dataclass(frozen=True, eq=False)
class PlayTree:
    """Flat arrays of the public play tree: its decision nodes, numbered depth-first (node 0:
    the game's root), and its terminals folded into the edges that reach them.

    A terminal is one of a few *outcomes* (player 0's points, and whether they are what the
    winner needed to win the match: a rest; those alone change with the scores): outcome_payoff
    float64 [outcomes], outcome_whole_match int8 [outcomes]. Nine public nodes in ten are
    terminals (a card that ends the hand, a refused raise), so they are stored as nothing but
    the edge into them: child int32 [edges] is a decision node, or -1 - outcome at a terminal
    (`is_terminal`, `outcome_of`).

    Per decision node: node_player int8 (the player to act); child_start int64 [nodes + 1];
    node_nbet int8: betting children (they come first; edge_action int16 [edges] gives the
    children in the order of the row's columns: betting actions ascending, then face-up classes
    ascending, then the covered play, `COVERED_EDGE`); node_card_turn int8: 0 where the actor
    plays no card, 1 where he may play face up (his rows then have a column per distinct class
    of r), 2 where he may also cover (as many columns again); node_list int32 [nodes, 2]: each
    player's list; node_table int64: the acting player's first table entry at this node;
    edge_map int32 [edges, 2]: at card edges the maps of the actor's and the other player's
    lists (-1 at betting edges).

    Lists: list_start int64 [lists + 1]; per entry: entry_hand int32 (index of the full hand
    in `hands`), entry_nd int8 (distinct classes in r), entry_before int32 (the same summed
    over the list's earlier entries: a row's card columns start at node_card_turn times that).
    Maps: map_start int64 [maps + 1]; per pair: map_src, map_dst int32 (entry in parent and
    child list), map_slot int8 (the card's column after the betting columns; -1 in the other
    player's maps). node_row int64 [nodes]: the actor's first row (information state), rows
    numbered per player; table_size int64 [2]: entries of each player's table. list_keys: per
    list (own face-up counts, other's face-up counts, own covered count).
    """

    game_string: str
    hands: tuple[tuple[int, ...], ...]
    node_player: np.ndarray
    outcome_payoff: np.ndarray
    outcome_whole_match: np.ndarray
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
        """Decision nodes."""
        return int(self.node_player.shape[0])

    @property
    def num_terminals(self) -> int:
        """Terminals (edges into one)."""
        return int(np.count_nonzero(self.child < 0))

    def parents_of(self, edges: np.ndarray) -> np.ndarray:
        """int64 [len(edges)]: the node each of these edges leaves."""
        return np.searchsorted(self.child_start, edges, side="right") - 1

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
        terminals = self.num_terminals
        return {"public_nodes": self.num_nodes + terminals,
                "public_decision_nodes": self.num_nodes, "public_terminals": terminals,
                "infosets_player0": self.num_rows(0), "infosets_player1": self.num_rows(1),
                "table_entries_player0": int(self.table_size[0]),
                "table_entries_player1": int(self.table_size[1])}

    def num_rows(self, player: int) -> int:
        """The player's rows (information states) over all his decision nodes."""
        lists = self.node_list[self.node_player == player, player]
        return int(np.sum(self.list_start[lists + 1] - self.list_start[lists]))


def is_terminal(child) -> bool | np.ndarray:
    """Whether a `PlayTree.child` value (or array of them) is a terminal."""
    return child < 0


def outcome_of(child):
    """The outcome of a terminal `PlayTree.child` value (or array of them)."""
    return -1 - child


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
    """Walks the public states once, numbering decision nodes depth-first, folding terminals
    into their edges and sharing lists and maps. Nodes and edges go straight into typed
    buffers (`array.array`, a few bytes per edge: a full-size Truco class has 2.5e8): a node's
    edges are reserved when it is reached, and filled as its children are numbered."""

    def __init__(self, game: tricks.PublicGame, budget: int = sys.maxsize):
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
        self.list_items: list[list[int]] = []  # the classes some entry may play face up
        self.list_width: list[int] = []  # the entries' distinct classes, summed: card columns
        self.card_plays: dict[tuple, tuple] = {}
        self.maps: dict[tuple, int] = {}
        self.map_parts: list[tuple[list, list, list]] = []
        self.outcomes: dict[tuple[float, bool], int] = {}
        self.node_player, self.node_nbet, self.node_card_turn = (array.array("b")
                                                                 for _ in range(3))
        self.node_list = array.array("i")  # two per node
        self.node_table, self.child_start = array.array("q"), array.array("q")
        self.child, self.edge_map = array.array("i"), array.array("i")  # edge_map: two per edge
        self.edge_action = array.array("h")
        self.table_size = [0, 0]
        self.budget = budget

    # --- lists and maps ------------------------------------------------------------------------
    def list_id(self, own: tuple[int, ...], other: tuple[int, ...], covered: int,
                rows: list[Entry] | None = None) -> int:
        """The id of the list with these cards on the table, numbered when first asked for
        (its entries: `rows` if another builder enumerated them already)."""
        key = (own, other, covered)
        found = self.lists.get(key)
        if found is not None:
            return found
        if rows is None:
            rows = _entries(own, other, covered, self.game.class_counts, self.game.hand_size)
        self.lists[key] = len(self.list_keys)
        self.list_keys.append(key)
        self.list_rows.append(rows)
        self.list_position.append({r: i for i, r in enumerate(rows)})
        self.list_items.append(sorted({item for unplayed, _ in rows for item in unplayed}))
        self.list_width.append(sum(len(set(unplayed)) for unplayed, _ in rows))
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
    def node(self, public: tricks.PublicMachine, lists: tuple[int, int]) -> int:
        """Adds `public` and its subtree; returns its `PlayTree.child` value (its node id, or
        -1 - its outcome at a terminal). lists: each player's list there (they name the cards on
        the table: each player's face-up counts per class and covered count)."""
        if public.is_over():
            key = (float(public.returns()[0]), bool(public.whole_match))
            return -1 - self.outcomes.setdefault(key, len(self.outcomes))
        if len(self.node_player) >= self.budget:
            raise _OverBudget
        node, first, moves = self.open_node(public, lists)
        for k, move in enumerate(moves):
            action, child_state, child_lists, maps = self.child_of(public, lists, move)
            self._edge(first + k, action, self.node(child_state, child_lists), maps)
        return node

    def open_node(self, public: tricks.PublicMachine, lists: tuple[int, int]
                  ) -> tuple[int, int, list[tuple[int, int]]]:
        """Numbers the decision node `public` and reserves its edges: (node, first edge, its
        moves in edge order: (BET, action), (FACE_UP, class), (COVERED, 0))."""
        node = len(self.node_player)
        actor = public.to_act
        bets = public.legal_actions()
        own = lists[actor]
        card_turn = (2 if self.game.may_cover(public) else 1) if public.is_card_turn() else 0
        moves = [(BET, action) for action in bets]
        if card_turn:
            moves += [(FACE_UP, item) for item in self.list_items[own]]
            if card_turn == 2:
                moves.append((COVERED, 0))
        self.node_player.append(actor)
        self.node_nbet.append(len(bets))
        self.node_card_turn.append(card_turn)
        self.node_list.extend(lists)
        self.node_table.append(self.table_size[actor])
        self.table_size[actor] += (len(self.list_rows[own]) * len(bets)
                                   + card_turn * self.list_width[own])
        first = len(self.child)
        self.child_start.append(first)
        self.child.extend(itertools.repeat(0, len(moves)))
        self.edge_action.extend(itertools.repeat(0, len(moves)))
        self.edge_map.extend(itertools.repeat(-1, 2 * len(moves)))
        return node, first, moves

    def child_of(self, public: tricks.PublicMachine, lists: tuple[int, int],
                 move: tuple[int, int]) -> tuple[int, tricks.PublicMachine, tuple, tuple]:
        """(edge action, state, lists, maps of the actor's list and the other's; -1 where
        nothing is mapped) after one of `open_node`'s moves."""
        kind, value = move
        child_state = public.clone()
        if kind == BET:
            child_state.apply(value)
            return value, child_state, lists, (-1, -1)
        covered = kind == COVERED
        self.game.play_card(child_state, value, covered)
        child_lists, maps = self.card_play(lists, public.to_act, -1 if covered else value)
        action = COVERED_EDGE if covered else self.game.card_action(value, False, False)
        return action, child_state, child_lists, maps

    def _edge(self, edge: int, action: int, child: int, maps: tuple[int, int]) -> None:
        self.child[edge] = child
        self.edge_action[edge] = action
        self.edge_map[2 * edge], self.edge_map[2 * edge + 1] = maps

    def card_play(self, lists: tuple[int, int], actor: int, item: int
                  ) -> tuple[tuple[int, int], tuple[int, int]]:
        """The players' lists after `actor` plays a card of class `item` face up (-1: face
        down), and the maps of his list and the other player's onto them (memoized: they
        depend on the cards on the table only)."""
        key = (lists, actor, item)
        found = self.card_plays.get(key)
        if found is not None:
            return found
        (own, other, covered), other_key = (self.list_keys[lists[actor]],
                                            self.list_keys[lists[1 - actor]])
        if item >= 0:
            shown = list(own)
            shown[item] += 1
            child_own = self.list_id(tuple(shown), other, covered)
            child_other = self.list_id(other_key[0], tuple(shown), other_key[2])
        else:
            child_own, child_other = self.list_id(own, other, covered + 1), lists[1 - actor]
        child_lists = (child_own, child_other) if actor == 0 else (child_other, child_own)
        maps = (self.actor_map(lists[actor], child_own, item, item < 0),
                self.other_map(lists[1 - actor], child_other))
        self.card_plays[key] = child_lists, maps
        return child_lists, maps

    def root_lists(self) -> tuple[int, int]:
        """Both players' lists at the root (nothing on the table)."""
        empty = (0,) * self.num_classes
        return (self.list_id(empty, empty, 0),) * 2

    # --- a tree built in parts -----------------------------------------------------------------
    def fragment(self, value: int) -> dict:
        """What this builder holds, to be appended to another's (`adopt`): its buffers, its
        lists, maps and outcomes in the order they were numbered, and `value`, the child value
        of the subtree it built."""
        return {"value": value, "table_size": list(self.table_size),
                "list_keys": self.list_keys, "list_rows": self.list_rows,
                "map_keys": list(self.maps),
                "map_parts": self.map_parts, "outcome_keys": list(self.outcomes),
                **{name: getattr(self, name) for name in _BUFFERS}}

    def adopt(self, fragment: dict) -> int:
        """Appends a subtree built by another builder (`fragment`), numbered as if this builder
        had walked it next: its lists, maps and outcomes are renumbered here in the order they
        were met there (so new ones get the ids a walk from here would have given them), its
        nodes, edges and table entries follow this builder's. Returns its child value here."""
        lists = np.array([self.list_id(*key, rows) for key, rows
                          in zip(fragment["list_keys"], fragment["list_rows"])], dtype=np.int32)
        maps = np.array([self._adopted_map(key, part, lists) for key, part
                         in zip(fragment["map_keys"], fragment["map_parts"])], dtype=np.int32)
        outcomes = np.array([self.outcomes.setdefault(key, len(self.outcomes))
                             for key in fragment["outcome_keys"]], dtype=np.int32)
        node_offset, edge_offset = len(self.node_player), len(self.child)
        arrays = {name: _numpy(fragment[name], _BUFFERS[name]) for name in _BUFFERS}
        player = arrays["node_player"]
        child = arrays["child"].astype(np.int64)
        terminal = child < 0
        child[~terminal] += node_offset
        child[terminal] = -1 - outcomes[-1 - child[terminal]]
        edge_map = arrays["edge_map"]
        edge_map = np.where(edge_map >= 0, maps[np.maximum(edge_map, 0)], -1)
        renumbered = {
            "node_list": lists[arrays["node_list"]],
            "node_table": arrays["node_table"] + np.array(self.table_size)[player],
            "child_start": arrays["child_start"] + edge_offset,
            "child": child, "edge_map": edge_map}
        for name, dtype in _BUFFERS.items():
            values = renumbered.get(name, arrays[name])
            getattr(self, name).frombytes(np.ascontiguousarray(values, dtype=dtype).tobytes())
        for p in (0, 1):
            self.table_size[p] += fragment["table_size"][p]
        value = fragment["value"]
        return value + node_offset if value >= 0 else -1 - int(outcomes[-1 - value])

    def _adopted_map(self, key: tuple, part: tuple, lists: np.ndarray) -> int:
        """The id here of another builder's map (its key names that builder's lists)."""
        parent, child, item, covered = key
        key = (int(lists[parent]), int(lists[child]), item, covered)
        if key not in self.maps:
            self._add_map(key, *part)
        return self.maps[key]

    def finish(self, game_string: str) -> PlayTree:
        self.child_start.append(len(self.child))
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
        node_player = _numpy(self.node_player, np.int8)
        node_list = _numpy(self.node_list, np.int32).reshape(-1, 2)
        outcomes = sorted(self.outcomes, key=self.outcomes.get)
        return PlayTree(
            game_string=game_string,
            hands=self.hands,
            node_player=node_player,
            outcome_payoff=np.array([points for points, _ in outcomes], dtype=np.float64),
            outcome_whole_match=np.array([match for _, match in outcomes], dtype=np.int8),
            child_start=_numpy(self.child_start, np.int64),
            child=_numpy(self.child, np.int32),
            edge_action=_numpy(self.edge_action, np.int16),
            node_nbet=_numpy(self.node_nbet, np.int8),
            node_card_turn=_numpy(self.node_card_turn, np.int8),
            node_list=node_list,
            node_table=_numpy(self.node_table, np.int64),
            edge_map=_numpy(self.edge_map, np.int32).reshape(-1, 2),
            list_start=_starts(list_sizes),
            entry_hand=np.array(entry_hand, dtype=np.int32),
            entry_nd=np.array(entry_nd, dtype=np.int8),
            entry_before=np.array(entry_before, dtype=np.int32),
            map_start=_starts(map_sizes),
            map_src=np.array([i for src, _, _ in self.map_parts for i in src], dtype=np.int32),
            map_dst=np.array([i for _, dst, _ in self.map_parts for i in dst], dtype=np.int32),
            map_slot=np.array([i for _, _, slot in self.map_parts for i in slot], dtype=np.int8),
            node_row=_node_rows(node_player, node_list, np.array(list_sizes, dtype=np.int64)),
            table_size=np.array(self.table_size, dtype=np.int64),
            class_counts=tuple(self.game.class_counts),
            list_keys=tuple(self.list_keys),
        )


# The builder's typed buffers, by the numpy type of their items.
_BUFFERS = {"node_player": np.int8, "node_nbet": np.int8, "node_card_turn": np.int8,
            "node_list": np.int32, "node_table": np.int64, "child_start": np.int64,
            "child": np.int32, "edge_action": np.int16, "edge_map": np.int32}


class _OverBudget(Exception):
    """A builder with a budget met more decision nodes than it."""


def _numpy(buffer: array.array, dtype) -> np.ndarray:
    """A typed buffer as a numpy array of the same item type, without a copy."""
    return np.frombuffer(buffer, dtype=dtype) if len(buffer) else np.zeros(0, dtype=dtype)


def _node_rows(node_player: np.ndarray, node_list: np.ndarray,
               list_sizes: np.ndarray) -> np.ndarray:
    """Each node's first row of its actor's, rows numbered per player in node order."""
    node_row = np.zeros(node_player.shape[0], dtype=np.int64)
    for player in (0, 1):
        mine = np.flatnonzero(node_player == player)
        sizes = list_sizes[node_list[mine, player]]
        node_row[mine] = np.cumsum(sizes) - sizes
    return node_row


def _starts(sizes: list[int]) -> np.ndarray:
    starts = np.zeros(len(sizes) + 1, dtype=np.int64)
    starts[1:] = np.cumsum(sizes)
    return starts


def build_play_tree(game, part: tricks.PublicGame | None = None,
                    workers: int | None = None) -> PlayTree:
    """The public play tree of one sub-game of the OpenSpiel `game` (the only one if None).
    A tree of more than PARALLEL_BUILD_NODES decision nodes is built in `workers` processes
    (default: `solver.cores.default_threads()`), the root's subtrees shared out among them and
    appended in order (`_Builder.adopt`): the same tree, array for array."""
    part = part if part is not None else part_named(game, None)
    workers = default_threads() if workers is None else workers
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        if workers > 1:
            try:
                return _walk(part, PARALLEL_BUILD_NODES).finish(tree_name(game, part))
            except _OverBudget:
                return _walk_in_parts(part, workers).finish(tree_name(game, part))
        return _walk(part).finish(tree_name(game, part))
    finally:
        sys.setrecursionlimit(limit)


def _walk(part: tricks.PublicGame, budget: int = sys.maxsize) -> _Builder:
    """A builder that walked the whole sub-game (_OverBudget past `budget` decision nodes)."""
    builder = _Builder(part, budget)
    builder.node(part.root(), builder.root_lists())
    return builder


_FORKED_PART: tricks.PublicGame | None = None  # the sub-game forked workers walk


def _walk_in_parts(part: tricks.PublicGame, workers: int) -> _Builder:
    """A builder that opened the root and adopted each of its subtrees, walked in `workers`
    forked processes (each by a builder of its own, `_walk_subtree`), in the root's order."""
    global _FORKED_PART
    builder = _Builder(part)
    root, lists = part.root(), builder.root_lists()
    _, first, moves = builder.open_node(root, lists)
    _FORKED_PART = part
    context = multiprocessing.get_context("fork")
    try:
        with context.Pool(min(workers, len(moves))) as pool:
            for k, fragment in enumerate(pool.imap(_walk_subtree, moves)):
                action, _, _, maps = builder.child_of(root, lists, moves[k])
                builder._edge(first + k, action, builder.adopt(fragment), maps)
    finally:
        _FORKED_PART = None
    return builder


def _walk_subtree(move: tuple[int, int]) -> dict:
    """In a forked worker: the subtree of the root's `move`, walked by a fresh builder."""
    builder = _Builder(_FORKED_PART)
    root, lists = _FORKED_PART.root(), builder.root_lists()
    _, child_state, child_lists, _ = builder.child_of(root, lists, move)
    return builder.fragment(builder.node(child_state, child_lists))


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
    keys = np.array([own + other + (covered,) for own, other, covered in tree.list_keys],
                    dtype=np.int8)
    atomic_write_npz(path, dict(list_keys=keys, hands=np.array(tree.hands, dtype=np.int8),
                                **{name: getattr(tree, name) for name in _ARRAY_FIELDS}))
    return tree
