"""Compile a two-player zero-sum sequential OpenSpiel game into a `GameTree` of flat arrays.

The history tree is laid out breadth-first: node 0 is the root, every node's children are contiguous
(`child_start[node]:child_start[node + 1]`) and a child's index is always larger than its parent's,
so one forward loop over the nodes is a reach pass and one backward loop is a value pass (see
`solver.history._kernels`). Information states are numbered in order of first appearance; each owns
a slice `infoset_action_start[i]:infoset_action_start[i + 1]` of the flat action arrays, in the
order of the game's `legal_actions()`, which is also the order of the children of every node in that
information state.

Two builders produce the same arrays:

* `_compile_by_traversal`: one iterative breadth-first walk through the OpenSpiel API, for any
  game. It checks perfect recall as it goes (one player and one list of legal actions per
  information state) and keeps the information state strings.
* `_compile_by_subtree_key`, for games whose states expose
  `subtree_key()` and whose every player action after the opening deal is public, and every later
  chance outcome (Le Truc's redeal) extends a player's information state string or leaves it alone:
  each distinct subtree is walked once through the Python API (or the game's own light state,
  `compile_walk_state()`, which skips OpenSpiel's deep-copy clones) and the history tree is then
  expanded in numba. Its information states are composed as (the player's information state right
  after the deal, his view since: the public actions and what the later chance outcomes appended to
  his information state string); their strings are produced on demand by replaying a representative
  history. Tests pin it to the traversal on small variants, with and without redeal, array for
  array.

Compiled trees are cached on disk, keyed by the game string and `solver.cache.source_digest` of this
module and the game's module (with every project module either imports), under `$TRICKSOLVER_CACHE`
or the user cache directory (`$XDG_CACHE_HOME/tricksolver`, default `~/.cache/tricksolver`).
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import multiprocessing
import os
import pathlib
import pickle
import shutil
import sys
from collections import deque

import numpy as np
import pyspiel

from solver.cache import cache_dir, enforce_cap, source_digest, touch
from solver.registry import load_game

logger = logging.getLogger(__name__)

CHANCE = -1
TERMINAL = -4

_ARRAY_FIELDS = (
    "node_player", "node_infoset", "node_parent", "node_action", "child_start", "edge_prob",
    "utility", "infoset_player", "infoset_action_start", "infoset_actions", "infoset_node",
)


@dataclasses.dataclass(frozen=True, eq=False)
class GameTree:
    """The history tree of a two-player zero-sum game as contiguous arrays.

    Per node (n nodes, breadth-first, root 0):
      node_player int8 [n]: 0 or 1, `CHANCE` (-1) or `TERMINAL` (-4).
      node_infoset int32 [n]: information state of a decision node, -1 elsewhere.
      node_parent int32 [n]: parent node, -1 at the root.
      node_action int32 [n]: OpenSpiel action leading from the parent, -1 at the root.
      child_start int64 [n + 1]: children of `node` are `child_start[node]:child_start[node+1]`.
      edge_prob float64 [n]: chance probability of the edge into a child of a chance node, else 1.
      utility float64 [n]: player 0's return at a terminal node, 0 elsewhere.
    Per information state (m states):
      infoset_player int8 [m]; infoset_node int32 [m]: first node of the information state.
      infoset_action_start int64 [m + 1]: slice of `infoset_actions` (int32, OpenSpiel actions).
    `game_string` is `str(game)`; `info_state_names` holds the information state strings when
    the builder kept them, else None (then `info_state_string` replays a history).
    """

    game_string: str
    node_player: np.ndarray
    node_infoset: np.ndarray
    node_parent: np.ndarray
    node_action: np.ndarray
    child_start: np.ndarray
    edge_prob: np.ndarray
    utility: np.ndarray
    infoset_player: np.ndarray
    infoset_action_start: np.ndarray
    infoset_actions: np.ndarray
    infoset_node: np.ndarray
    info_state_names: list[str] | None = None

    @property
    def num_nodes(self) -> int:
        """Number of histories (decision, chance and terminal nodes)."""
        return int(self.node_player.shape[0])

    @property
    def num_infosets(self) -> int:
        """Number of information states of both players."""
        return int(self.infoset_player.shape[0])

    @property
    def num_infoset_actions(self) -> int:
        """Length of the flat per-(information state, action) arrays."""
        return int(self.infoset_actions.shape[0])

    def sizes(self) -> dict[str, int]:
        """Node and information state counts, for logs and benchmarks."""
        player = self.node_player
        return {
            "histories": self.num_nodes,
            "decision_nodes": int(np.count_nonzero(player >= 0)),
            "chance_nodes": int(np.count_nonzero(player == CHANCE)),
            "terminals": int(np.count_nonzero(player == TERMINAL)),
            "infosets_player0": int(np.count_nonzero(self.infoset_player == 0)),
            "infosets_player1": int(np.count_nonzero(self.infoset_player == 1)),
        }

    def history(self, node: int) -> list[int]:
        """The OpenSpiel actions from the root to `node`."""
        actions = []
        while node > 0:
            actions.append(int(self.node_action[node]))
            node = int(self.node_parent[node])
        return actions[::-1]

    def info_state_string(self, infoset: int, game: pyspiel.Game | None = None) -> str:
        """The OpenSpiel information state string of information state `infoset`."""
        if self.info_state_names is not None:
            return self.info_state_names[infoset]
        game = game if game is not None else pyspiel.load_game(self.game_string)
        state = game.new_initial_state()
        for action in self.history(int(self.infoset_node[infoset])):
            state.apply_action(action)
        return state.information_state_string(int(self.infoset_player[infoset]))

    def info_state_strings(self, game: pyspiel.Game | None = None) -> list[str]:
        """All information state strings, in information state order: the kept ones, or read
        off one depth-first replay of the paths to each information state's first node (a
        path's prefix is applied once for all the states below it)."""
        if self.info_state_names is not None:
            return self.info_state_names
        game = game if game is not None else pyspiel.load_game(self.game_string)
        first_of = np.full(self.num_nodes, -1, dtype=np.int64)
        first_of[self.infoset_node] = np.arange(self.num_infosets)
        on_path = self._ancestors_of(self.infoset_node)
        names: list[str] = [""] * self.num_infosets
        stack = [(0, game.new_initial_state())]
        while stack:
            node, state = stack.pop()
            infoset = first_of[node]
            if infoset >= 0:
                names[infoset] = state.information_state_string(int(self.infoset_player[infoset]))
            children = [child for child in range(self.child_start[node], self.child_start[node + 1])
                        if on_path[child]]
            for k, child in enumerate(children):
                child_state = state if k == len(children) - 1 else state.clone()
                child_state.apply_action(int(self.node_action[child]))
                stack.append((child, child_state))
        return names

    def _ancestors_of(self, nodes: np.ndarray) -> np.ndarray:
        """bool [num_nodes]: the nodes and every node above them."""
        marked = np.zeros(self.num_nodes, dtype=np.bool_)
        frontier = np.unique(nodes)
        while frontier.size:
            marked[frontier] = True
            parents = self.node_parent[frontier]
            parents = parents[parents >= 0]
            frontier = np.unique(parents[~marked[parents]])
        return marked


def check_game(game: pyspiel.Game) -> None:
    """Raise ValueError unless `game` is a two-player zero-sum sequential game."""
    game_type = game.get_type()
    if game.num_players() != 2:
        raise ValueError(f"{game}: the solver needs a two-player game, got {game.num_players()} players")
    if game_type.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        raise ValueError(
            f"{game}: the solver needs a sequential game, got {game_type.dynamics}; "
            "wrap simultaneous games with pyspiel.convert_to_turn_based")
    if game_type.utility != pyspiel.GameType.Utility.ZERO_SUM:
        raise ValueError(f"{game}: the solver needs a zero-sum game, got {game_type.utility}")


def compile_game(game: pyspiel.Game | str, cache: bool = True, method: str = "auto",
                 workers: int | None = None) -> GameTree:
    """Compile `game` (a pyspiel.Game or a game string) into a `GameTree`.

    method: "traversal" (generic walk), "subtree_key" (memoized walk, games with
    `State.subtree_key` whose play after the opening deal is public, see the module docstring)
    or "auto" (the memoized walk where it applies, else the traversal). The memoized walk
    uses `workers` processes (default: one per CPU). With `cache`, a tree
    compiled before for the same game string and source digest is loaded from disk instead.
    """
    game = load_game(game)
    check_game(game)
    automatic = method == "auto"
    method = _resolve_method(game, method)
    path = cache_path(game, method) if cache else None
    if path is not None and (path / "meta.json").exists():
        logger.info("loading compiled tree from %s", path)
        touch(path)  # a use: the cache's cap removes the least recently used trees first
        return _load_tree(path)
    tree = None
    if method == "subtree_key":
        try:
            tree = _compile_by_subtree_key(game, workers or os.cpu_count() or 1)
        except NotMemoizable as error:
            if not automatic:
                raise
            logger.info("%s; compiling by traversal", error)
    if tree is None:
        tree = _compile_by_traversal(game)
    if path is not None:
        _save_tree(tree, path)
        for removed in enforce_cap(keep=path):
            logger.info("cache over its cap: removed %s", removed)
    return tree


class NotMemoizable(ValueError):
    """The game does not fit the memoized compiler (see `_compile_by_subtree_key`)."""


class _Interner:
    """Maps information state strings to consecutive ids, checking perfect recall."""

    def __init__(self):
        self.ids: dict[str, int] = {}
        self.names: list[str] = []
        self.player: list[int] = []
        self.actions: list[tuple[int, ...]] = []
        self.node: list[int] = []

    def intern(self, name: str, player: int, actions: tuple[int, ...], node: int) -> int:
        """The id of information state `name`, created on first sight."""
        infoset = self.ids.get(name)
        if infoset is None:
            infoset = len(self.names)
            self.ids[name] = infoset
            self.names.append(name)
            self.player.append(player)
            self.actions.append(actions)
            self.node.append(node)
        elif self.player[infoset] != player or self.actions[infoset] != actions:
            raise ValueError(
                f"imperfect recall: information state {name!r} is reached with player "
                f"{self.player[infoset]} / actions {self.actions[infoset]} and with player "
                f"{player} / actions {actions}")
        return infoset


def _compile_by_traversal(game: pyspiel.Game) -> GameTree:
    """Walk the whole tree breadth-first through the OpenSpiel API (any game)."""
    interner = _Interner()
    node_player, node_infoset, node_parent, node_action = [], [], [], []
    edge_prob, utility, child_start = [], [], []
    frontier = deque([(game.new_initial_state(), -1, -1, 1.0)])
    while frontier:
        state, parent, action, prob = frontier.popleft()
        node = len(node_player)
        node_parent.append(parent)
        node_action.append(action)
        edge_prob.append(prob)
        child_start.append(node + 1 + len(frontier))
        if state.is_terminal():
            returns = state.returns()
            if abs(returns[0] + returns[1]) > 1e-9:
                raise ValueError(f"{game}: returns {returns} of a terminal state do not sum to zero")
            node_player.append(TERMINAL)
            node_infoset.append(-1)
            utility.append(float(returns[0]))
            continue
        utility.append(0.0)
        if state.is_chance_node():
            node_player.append(CHANCE)
            node_infoset.append(-1)
            for outcome, outcome_prob in state.chance_outcomes():
                frontier.append((state.child(outcome), node, outcome, float(outcome_prob)))
            continue
        player = state.current_player()
        if player not in (0, 1):
            raise ValueError(f"{game}: unsupported current player {player} (simultaneous node?)")
        actions = tuple(state.legal_actions())
        name = state.information_state_string(player)
        node_player.append(player)
        node_infoset.append(interner.intern(name, player, actions, node))
        for legal_action in actions:
            frontier.append((state.child(legal_action), node, legal_action, 1.0))
    child_start.append(len(node_player))
    return _tree_from_lists(str(game), interner, node_player, node_infoset, node_parent,
                            node_action, child_start, edge_prob, utility)


def _tree_from_lists(game_string, interner, node_player, node_infoset, node_parent, node_action,
                     child_start, edge_prob, utility) -> GameTree:
    """Freeze the traversal's Python lists into a GameTree."""
    action_counts = np.array([len(a) for a in interner.actions], dtype=np.int64)
    return GameTree(
        game_string=game_string,
        node_player=np.asarray(node_player, dtype=np.int8),
        node_infoset=np.asarray(node_infoset, dtype=np.int32),
        node_parent=np.asarray(node_parent, dtype=np.int32),
        node_action=np.asarray(node_action, dtype=np.int32),
        child_start=np.asarray(child_start, dtype=np.int64),
        edge_prob=np.asarray(edge_prob, dtype=np.float64),
        utility=np.asarray(utility, dtype=np.float64),
        infoset_player=np.asarray(interner.player, dtype=np.int8),
        infoset_action_start=np.concatenate(([0], np.cumsum(action_counts))).astype(np.int64),
        infoset_actions=np.fromiter((a for acts in interner.actions for a in acts), dtype=np.int32,
                                    count=int(action_counts.sum())),
        infoset_node=np.asarray(interner.node, dtype=np.int32),
        info_state_names=interner.names,
    )


def _compile_by_subtree_key(game: pyspiel.Game, workers: int) -> GameTree:
    """Walk each distinct post-deal subtree once (memoized by `State.subtree_key`), unroll in numba.

    Requires: the opening chance nodes (the deal) all end at one depth, every later player
    action is public and every later chance outcome (a redeal) extends a player's information
    state string or leaves it alone; raises NotMemoizable otherwise. The walk runs in `workers`
    processes.
    """
    from solver.history import _kernels
    deal, roots = _walk_deal(game)
    knowledge_ids: list[dict[str, int]] = [{}, {}]
    root_knowledge = np.zeros((len(roots), 2), dtype=np.int32)
    for index, state in enumerate(roots):
        if not state.is_terminal():
            for player in (0, 1):
                names = knowledge_ids[player]
                root_knowledge[index, player] = names.setdefault(
                    state.information_state_string(player), len(names))
    dag, root_dag = _walk_distinct_subtrees(game, roots, workers)
    sizes = np.empty(dag["player"].shape[0], dtype=np.int64)
    _kernels.dag_subtree_sizes(dag["child_start"], dag["child"], sizes)
    root_start = len(deal["player"]) - len(roots)
    total = root_start + int(sizes[root_dag].sum())
    logger.info("%s: %d distinct subtrees unroll into %d histories", game, sizes.shape[0], total)
    tree_arrays = _preallocate_tree(total, deal)
    node_dag = np.empty(total, dtype=np.int32)
    node_view = np.empty((total, 2), dtype=np.int64)
    node_root = np.empty(total, dtype=np.int32)
    infoset_player = np.empty(total, dtype=np.int8)
    infoset_dag = np.empty(total, dtype=np.int32)
    infoset_node = np.empty(total, dtype=np.int32)
    num_knowledge = max(1, len(knowledge_ids[0]), len(knowledge_ids[1]))
    status = _kernels.expand_public_tree(
        dag["player"], dag["utility"], dag["child_start"], dag["child"], dag["action"],
        dag["prob"], dag["token"], dag["num_tokens"], root_start, root_dag, root_knowledge,
        num_knowledge,
        tree_arrays["node_player"], tree_arrays["node_infoset"], tree_arrays["node_parent"],
        tree_arrays["node_action"], tree_arrays["child_start"], tree_arrays["edge_prob"],
        tree_arrays["utility"], node_dag, node_view, node_root, infoset_player, infoset_dag,
        infoset_node)
    if status < 0:
        node = -status - 1
        raise ValueError(f"imperfect recall: an information state is reached with different "
                         f"legal actions (history {node}: {_history_of(tree_arrays, node)})")
    del node_dag, node_view, node_root
    num_infosets = int(status)
    action_counts = np.diff(dag["child_start"])[infoset_dag[:num_infosets]]
    action_start = np.concatenate(([0], np.cumsum(action_counts))).astype(np.int64)
    first_action = dag["child_start"][infoset_dag[:num_infosets]]
    gather = np.repeat(first_action - action_start[:-1], action_counts) + np.arange(
        action_start[-1])
    return GameTree(
        game_string=str(game),
        infoset_player=infoset_player[:num_infosets].copy(),
        infoset_action_start=action_start,
        infoset_actions=dag["action"][gather].astype(np.int32),
        infoset_node=infoset_node[:num_infosets].copy(),
        **tree_arrays,
    )


def _walk_deal(game: pyspiel.Game) -> tuple[dict[str, list], list]:
    """Breadth-first walk of the opening chance nodes; returns their arrays and the roots after.

    The returned lists cover every node of the deal levels plus the roots (the first non-chance
    level), whose `child_start` entries are left for the expansion to fill.
    """
    deal = {"player": [], "parent": [], "action": [], "prob": [], "child_start": []}
    level = [(game.new_initial_state(), -1, -1, 1.0)]
    while all(state.is_chance_node() for state, *_ in level):
        next_level = []
        level_end = len(deal["player"]) + len(level)
        for state, parent, action, prob in level:
            node = len(deal["player"])
            _append_deal_node(deal, CHANCE, parent, action, prob, level_end + len(next_level))
            for outcome, outcome_prob in state.chance_outcomes():
                next_level.append((state.child(outcome), node, outcome, float(outcome_prob)))
        level = next_level
    roots = []
    for state, parent, action, prob in level:
        if state.is_chance_node():
            raise NotMemoizable(f"{game}: the deal does not end at one depth")
        _append_deal_node(deal, -2, parent, action, prob, -1)
        roots.append(state)
    return deal, roots


def _append_deal_node(deal, player, parent, action, prob, first_child) -> None:
    """Record one node of the deal walk."""
    deal["player"].append(player)
    deal["parent"].append(parent)
    deal["action"].append(action)
    deal["prob"].append(prob)
    deal["child_start"].append(first_child)


def _walk_distinct_subtrees(game: pyspiel.Game, roots: list,
                            workers: int) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Each distinct subtree below the roots, once: a DAG keyed by `State.subtree_key()`.

    Returns the DAG as arrays (player int8, utility float64 player 0's return, CSR
    child_start int64 / child int32 / action int32 / prob float64 (chance edges, else 1) /
    token int32 [edges, 2]: what each player sees of an edge, see `_outcome_tokens`), with
    `num_tokens` bounding the tokens, and each root's DAG node.

    With `workers` > 1 the roots are split among forked processes, each walking its share
    (subtrees below different deals rarely coincide: a key holds the hands); their DAGs are
    concatenated, a subtree found by two workers appearing twice, which the unrolled tree does
    not see.
    """
    workers = min(workers, len(roots))
    if workers <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        parts = [_walk_share(game, roots, range(len(roots)))]
    else:
        global _FORKED_WALK
        _FORKED_WALK = (game, roots)  # read by the forked workers, never pickled
        try:
            with multiprocessing.get_context("fork").Pool(workers) as pool:
                parts = pool.map(_walk_forked_share, [range(w, len(roots), workers)
                                                      for w in range(workers)])
        finally:
            _FORKED_WALK = None
    return _merge_shares(game, parts, len(roots))


_FORKED_WALK = None


def _walk_forked_share(indices: range) -> tuple:
    """`_walk_share` in a forked worker, on the walk the parent left in `_FORKED_WALK`."""
    game, roots = _FORKED_WALK
    return _walk_share(game, roots, indices)


def _merge_shares(game: pyspiel.Game, parts: list, num_roots: int
                  ) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """One DAG from the workers' `_walk_share` results (node ids shifted, tokens re-interned)."""
    num_actions = game.num_distinct_actions()
    suffix_ids: dict[str, int] = {}
    root_dag = np.empty(num_roots, dtype=np.int32)
    arrays: dict[str, list] = {name: [] for name in parts[0][0]}
    node_offset = edge_offset = 0
    for dag, indices, part_roots, suffixes in parts:
        root_dag[np.asarray(indices)] = part_roots + node_offset
        shared_ids = np.array([suffix_ids.setdefault(suffix, len(suffix_ids))
                               for suffix in suffixes] or [0], dtype=np.int32)
        seen = dag["token"] >= num_actions
        dag["token"][seen] = num_actions + shared_ids[dag["token"][seen] - num_actions]
        dag["child"] += node_offset
        dag["child_start"] = dag["child_start"][:-1] + edge_offset
        for name, values in dag.items():
            arrays[name].append(values)
        node_offset += dag["player"].shape[0]
        edge_offset += dag["child"].shape[0]
    merged = {name: np.concatenate(values) for name, values in arrays.items()}
    merged["child_start"] = np.append(merged["child_start"], edge_offset)
    merged["num_tokens"] = num_actions + len(suffix_ids)
    return merged, root_dag


def _walk_share(game: pyspiel.Game, roots: list, indices) -> tuple:
    """The DAG of the subtrees below `roots[i]` for i in `indices` (see
    `_walk_distinct_subtrees`; chance tokens are num_actions + an index into the returned
    suffixes), the indices, their DAG nodes and the suffixes.

    Keys are stored pickled (compact bytes; pickling a key is deterministic) to bound memory.
    """
    memo: dict = {}
    player, utility, child_lists, action_lists, prob_lists = [], [], [], [], []
    chance_tokens: dict[int, tuple] = {}
    suffix_ids: dict[str, int] = {}
    pending = []

    def node_of(state) -> int:
        key = pickle.dumps(state.subtree_key(), protocol=pickle.HIGHEST_PROTOCOL)
        dag = memo.get(key)
        if dag is None:
            dag = len(player)
            memo[key] = dag
            player.append(TERMINAL)
            utility.append(0.0)
            child_lists.append(())
            action_lists.append(())
            prob_lists.append(())
            pending.append((dag, state))
            if dag % 1_000_000 == 0 and dag:
                logger.info("%s: %d distinct subtrees so far", game, dag)
        return dag

    root_dag = np.array([node_of(_walk_state(roots[i])) for i in indices], dtype=np.int32)
    while pending:
        dag, state = pending.pop()
        if state.is_terminal():
            returns = state.returns()
            if abs(returns[0] + returns[1]) > 1e-9:
                raise ValueError(f"{game}: returns {returns} of a terminal state do not sum to zero")
            utility[dag] = float(returns[0])
            continue
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            player[dag] = CHANCE
            action_lists[dag] = tuple(outcome for outcome, _ in outcomes)
            prob_lists[dag] = tuple(float(prob) for _, prob in outcomes)
            children = [state.child(outcome) for outcome, _ in outcomes]
            chance_tokens[dag] = tuple(_outcome_tokens(game, state, children, p, suffix_ids)
                                       for p in (0, 1))
            child_lists[dag] = tuple(node_of(child) for child in children)
            continue
        player[dag] = state.current_player()
        actions = tuple(state.legal_actions())
        action_lists[dag] = actions
        prob_lists[dag] = (1.0,) * len(actions)
        children = [node_of(state.child(action)) for action in actions[:-1]]
        state.apply_action(actions[-1])  # the last child reuses the parent: one clone fewer
        children.append(node_of(state))
        child_lists[dag] = tuple(children)
    counts = np.fromiter(map(len, child_lists), dtype=np.int64, count=len(child_lists))
    num_edges = int(counts.sum())
    dag = {
        "player": np.asarray(player, dtype=np.int8),
        "utility": np.asarray(utility, dtype=np.float64),
        "child_start": np.concatenate(([0], np.cumsum(counts))).astype(np.int64),
        "child": np.fromiter((c for children in child_lists for c in children), dtype=np.int32,
                             count=num_edges),
        "action": np.fromiter((a for actions in action_lists for a in actions), dtype=np.int32,
                              count=num_edges),
        "prob": np.fromiter((p for probs in prob_lists for p in probs), dtype=np.float64,
                            count=num_edges),
    }
    num_actions = game.num_distinct_actions()
    dag["token"] = np.repeat(dag["action"][:, None], 2, axis=1)
    for node, tokens in chance_tokens.items():
        first = dag["child_start"][node]
        for p in (0, 1):
            dag["token"][first:first + len(tokens[p]), p] = [
                num_actions + token if token >= 0 else -1 for token in tokens[p]]
    return dag, indices, root_dag, list(suffix_ids)


def _walk_state(state):
    """What the memoized walk expands below a root: the game's own light copy of the state
    (`compile_walk_state()`, with the walk's methods: is_terminal, returns, is_chance_node,
    chance_outcomes, current_player, legal_actions, child, apply_action, subtree_key,
    information_state_string) where it offers one, else the OpenSpiel state itself."""
    light_copy = getattr(state, "compile_walk_state", None)
    return light_copy() if light_copy is not None else state


def _outcome_tokens(game: pyspiel.Game, state, children: list, player: int,
                    suffix_ids: dict[str, int]) -> tuple[int, ...]:
    """What `player` sees of each outcome of chance node `state` (`children`: one state per
    outcome): -1 where his information state string stays the same, else the id (interned in
    `suffix_ids`) of what the outcome appends to it. Raises NotMemoizable where an outcome
    rewrites his string instead of extending it."""
    before = state.information_state_string(player)
    tokens = []
    for child in children:
        after = child.information_state_string(player)
        if after == before:
            tokens.append(-1)
        elif after.startswith(before):
            tokens.append(suffix_ids.setdefault(after[len(before):], len(suffix_ids)))
        else:
            raise NotMemoizable(f"{game}: a chance outcome after the deal rewrites player "
                                f"{player}'s information state instead of extending it")
    return tuple(tokens)


def _preallocate_tree(total: int, deal: dict[str, list]) -> dict[str, np.ndarray]:
    """Tree arrays of `total` nodes with the deal levels filled in."""
    size = len(deal["player"])
    arrays = {
        "node_player": np.empty(total, dtype=np.int8),
        "node_infoset": np.full(total, -1, dtype=np.int32),
        "node_parent": np.empty(total, dtype=np.int32),
        "node_action": np.empty(total, dtype=np.int32),
        "child_start": np.empty(total + 1, dtype=np.int64),
        "edge_prob": np.empty(total, dtype=np.float64),
        "utility": np.zeros(total, dtype=np.float64),
    }
    arrays["node_player"][:size] = deal["player"]
    arrays["node_parent"][:size] = deal["parent"]
    arrays["node_action"][:size] = deal["action"]
    arrays["edge_prob"][:size] = deal["prob"]
    arrays["child_start"][:size] = deal["child_start"]
    return arrays


def _history_of(arrays: dict[str, np.ndarray], node: int) -> list[int]:
    """Actions from the root to `node` in partially built arrays."""
    actions = []
    while node > 0:
        actions.append(int(arrays["node_action"][node]))
        node = int(arrays["node_parent"][node])
    return actions[::-1]


def _resolve_method(game: pyspiel.Game, method: str) -> str:
    """"auto" -> "subtree_key" for games whose states have `subtree_key`, else "traversal"."""
    if method not in ("auto", "traversal", "subtree_key"):
        raise ValueError(f"method must be 'auto', 'traversal' or 'subtree_key', got {method!r}")
    if method != "auto":
        return method
    has_key = getattr(game.new_initial_state(), "subtree_key", None) is not None
    return "subtree_key" if has_key else "traversal"


def cache_path(game: pyspiel.Game, method: str = "auto") -> pathlib.Path:
    """The cache directory of one compiled game (it holds meta.json once complete)."""
    method = _resolve_method(game, method)
    digest = source_digest(sys.modules[__name__], sys.modules[type(game).__module__])
    key = hashlib.sha256(f"{game}|{method}|{digest}".encode()).hexdigest()[:24]
    return cache_dir() / "trees" / key


def _save_tree(tree: GameTree, path: pathlib.Path) -> None:
    """Write a tree as one .npy per array plus meta.json into a temporary directory, then
    rename it to `path` (atomic: readers never see half a tree; if another process saved the
    same tree meanwhile, its copy stays)."""
    temporary = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    temporary.mkdir(parents=True, exist_ok=True)
    for field in _ARRAY_FIELDS:
        np.save(temporary / f"{field}.npy", getattr(tree, field))
    if tree.info_state_names is not None:
        (temporary / "info_state_names.json").write_text(json.dumps(tree.info_state_names))
    (temporary / "meta.json").write_text(json.dumps({"game_string": tree.game_string}))
    if path.exists() and not (path / "meta.json").exists():
        shutil.rmtree(path, ignore_errors=True)  # left incomplete by an interrupted older save
    try:
        os.rename(temporary, path)
    except OSError:  # another process saved the same tree first: keep its copy
        shutil.rmtree(temporary, ignore_errors=True)


def _load_tree(path: pathlib.Path) -> GameTree:
    """Read a tree written by `_save_tree`."""
    meta = json.loads((path / "meta.json").read_text())
    arrays = {field: np.load(path / f"{field}.npy") for field in _ARRAY_FIELDS}
    names_path = path / "info_state_names.json"
    names = json.loads(names_path.read_text()) if names_path.exists() else None
    return GameTree(game_string=meta["game_string"], info_state_names=names, **arrays)
