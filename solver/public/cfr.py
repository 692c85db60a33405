"""CFR on the public tree of a Truc-family hand, with exact exploitability.

A game reaches this engine through the `games.tricks.PublicGame` contract: Le Truc's card play
(`games.le_truc.PlayGame`), each vira class of two-player Truco (`games.truco.ViraGame`). One
`PublicSolver` solves one such sub-game: its play tree (`solver.public.tree`), the coupling of
the two players' hands (`Deals`: the exact deal probabilities) and a regret and an average
table per player. A game split into sub-games by a public chance event (Truco's vira) is
solved sub-game by sub-game and combined with their weights (`Combined`): a best response
decomposes over public chance, so the whole game's exploitability and value are the weighted
sums of the sub-games' (exactly). Le Truc's redeal talk, before the card play, is composed
around the same passes in `solver.public.redeal`.

The passes over a tree are the numba kernels of `solver.public._kernels` (`Passes` makes the
tree's walk and scratch once); every CFR variant of `solver.schedules` runs, through the row
update and regret matching the history engine shares (`solver._update`), PCFR+ (Farina, Kroer
& Sandholm 2021, arXiv:2007.14358) with its predictions, the last instantaneous regrets, kept
beside the regrets. `iterate` runs all its iterations in one kernel call.

Deal weights (class multisets, exact counts): with n_c the cards of class c and a_c, b_c the
counts of class c in the two hands, P(a, b) = prod_c n_c! / (a_c! b_c! (n_c - a_c - b_c)!) /
(C(N, k) C(N - k, k)): a product of one factor per hand, f(h) = prod_c 1/h_c!, and a kernel of
the classes' totals, prod_c 1/(n_c - t_c)!.
"""
from __future__ import annotations

import concurrent.futures
import dataclasses
import math

import numpy as np

from games.tricks import PublicGame
from solver.cfr import SolverState
from solver.cores import default_threads
from solver.public import _kernels as kernels
from solver.public.parts import part_named
from solver.public.tree import PlayTree, is_terminal, load_play_tree, tree_name
from solver.schedules import Schedule

ENGINE = "public"
ALGORITHMS = ("cfr", "cfr+", "lcfr", "dcfr", "pcfr+")
NOTHING = np.zeros(0)
NO_PAIRS = np.zeros((0, 0))
NO_ROWS = np.zeros((2, 0))
# Trees with fewer decision nodes walk in one thread: a pass takes well under 10 ms there, and
# the threads' hand-offs would eat what they save.
PARALLEL_NODES = 200_000


class Deals:
    """Chance of a sub-game's deal over class-multiset hands (`PlayTree.hands`)."""

    def __init__(self, class_counts: tuple[int, ...], hand_size: int,
                 hands: tuple[tuple[int, ...], ...]):
        self.class_counts = np.array(class_counts, dtype=np.int64)
        self.hands = hands
        classes = len(class_counts)
        self.counts = np.array([np.bincount(h, minlength=classes) for h in hands])
        factorials = np.array([math.factorial(i) for i in range(hand_size + 1)],
                              dtype=np.float64)
        self.factor = np.prod(1.0 / factorials[self.counts], axis=1)
        cards = int(self.class_counts.sum())
        full = math.prod(math.factorial(n) for n in class_counts)
        self.scale2 = full / (math.comb(cards, hand_size) * math.comb(cards - hand_size,
                                                                       hand_size))
        self.pair = self.scale2 * np.outer(self.factor, self.factor) * self.kernel_of_totals(
            self.counts[:, None, :] + self.counts[None, :, :])

    def kernel_of_totals(self, totals: np.ndarray) -> np.ndarray:
        """prod_c 1/(n_c - total_c)! (0 where a class is over-used); totals int [..., classes]."""
        top = int(self.class_counts.max())
        table = np.array([[1.0 / math.factorial(n - s) if s <= n else 0.0
                           for s in range(4 * top + 1)] for n in self.class_counts])
        return np.prod(table[np.arange(len(self.class_counts)), totals], axis=-1)

    def first_hands(self) -> np.ndarray:
        """P(hand0, hand1), float64 [hands, hands]."""
        return self.pair


@dataclasses.dataclass
class Tables:
    """Regret and average-policy sums of one copy of the play tree, and the last instantaneous
    regrets (the prediction of predictive variants; empty otherwise): [entries of player 0 + of
    player 1], both players' tables joined (`PlayTree.table_size`); float64, or float32 where
    memory is short (the passes compute in float64 and round what they store)."""

    regret: np.ndarray
    average: np.ndarray
    prediction: np.ndarray
    split: int  # player 1's first entry

    @classmethod
    def zeros(cls, tree: PlayTree, predictive: bool = False, dtype=np.float64) -> Tables:
        size = int(tree.table_size.sum())
        return cls(np.zeros(size, dtype), np.zeros(size, dtype),
                   np.zeros(size if predictive else 0, dtype), int(tree.table_size[0]))

    def average_of(self, player: int) -> np.ndarray:
        """The player's average sums (a view), indexed as `PlayTree.node_table`."""
        return self.average[:self.split] if player == 0 else self.average[self.split:]


class Passes:
    """The numba passes of `solver.public._kernels` over one play tree, with its walk and
    per-depth scratch made once. Reaches are over the root lists (the hand classes); a
    coupling is [player 0's hand, player 1's hand]. On a tree of `PARALLEL_NODES` or more the
    value passes walk the root's subtrees in `threads` threads (default: the cores this
    process may use, or $TRICKSOLVER_THREADS), with the same results to the bit."""

    def __init__(self, tree: PlayTree, threads: int | None = None,
                 parallel_nodes: int = PARALLEL_NODES):
        self.tree = tree
        self.walk = walk_of(tree)
        self.scratch = scratch_of(tree, self.walk)
        self.hands = len(tree.hands)
        threads = default_threads() if threads is None else threads
        self.split = (RootSplit(tree, self.walk, self.scratch, threads)
                      if threads > 1 and tree.num_nodes >= parallel_nodes else None)

    def update(self, player: int, reach_p, reach_q, coupling, tables: Tables, step
               ) -> np.ndarray:
        """One update of the player's rows (`step`: float64 [6], `solver.schedules.Step`); his
        counterfactual values per hand."""
        return self._run(self.walk, kernels.UPDATE, player, reach_p, reach_q, coupling,
                         tables.regret, tables.prediction, tables.average, step, NOTHING)

    def iterations(self, coupling, tables: Tables, steps: np.ndarray) -> None:
        """len(steps) iterations (player 0's update, then player 1's) of the tree played on
        its own, both players reaching the root with probability one."""
        ones = np.ones(self.hands)
        if self.split is None:  # every iteration in one kernel call
            kernels.update_iterations(self.walk, self.scratch, ones, _oriented(coupling, 0),
                                      _oriented(coupling, 1), tables.regret, tables.prediction,
                                      tables.average, steps, np.empty(self.hands))
            return
        for step in steps:
            for player in (0, 1):
                self.update(player, ones, ones, coupling, tables, step)

    def best_response(self, player: int, reach_q, coupling, tables: Tables,
                      actions: np.ndarray = NOTHING) -> np.ndarray:
        """The player's best-response counterfactual values per hand against the other's
        average policy; every action's best-response value at his rows in `actions` if given
        (float64 [his table entries], zero where the other never plays to)."""
        return self._run(self.walk, kernels.BEST_RESPONSE, player, reach_q, reach_q, coupling,
                         tables.average, NOTHING, tables.average, NOTHING, actions)

    def best_response_policy(self, player: int, reach_q, coupling, tables: Tables) -> Tables:
        """`tables` with the player's average sums replaced by a pure best response to the
        other's average policy (the first best action of each row, `kernels.best_rows`; rows
        the other never plays to: their first action)."""
        actions = np.zeros(int(self.tree.table_size[player]))
        self.best_response(player, reach_q, coupling, tables, actions)
        average = tables.average.copy()
        own = average[:tables.split] if player == 0 else average[tables.split:]
        kernels.best_rows(self.walk, player, actions, own)
        return dataclasses.replace(tables, average=average)

    def expectation(self, player: int, reach_p, reach_q, coupling, tables: Tables, source: int,
                    record: np.ndarray = NOTHING, payoff: np.ndarray | None = None,
                    actions: bool = False) -> np.ndarray:
        """The player's counterfactual values per hand with both playing `source` policies;
        every row's in `record` if given (float64 or float32 [his rows]), or with `actions`
        every action's value at his rows ([his table entries], laid out as his table);
        `payoff` replaces player 0's payoff at each terminal outcome (float64 [outcomes],
        `PlayTree.outcome_payoff`)."""
        walk = self.walk if payoff is None else self.walk._replace(outcome_payoff=payoff)
        table, prediction = _policy_tables(tables, source)
        mode = kernels.EXPECT_ACTIONS if actions else kernels.EXPECT
        return self._run(walk, mode, player, reach_p, reach_q, coupling, table, prediction,
                         table, NOTHING, record)

    def _run(self, walk, mode: int, player: int, reach_p, reach_q, coupling, table, prediction,
             average, steps, record) -> np.ndarray:
        """`solver.public._kernels.value_pass` (in threads where the tree is split); p's values
        per hand."""
        out = np.empty(self.hands)
        arguments = (walk, mode, player, _vector(reach_p), _vector(reach_q),
                     _oriented(coupling, player), table, prediction, average, steps, record, out)
        if self.split is None:
            kernels.value_pass(walk, self.scratch, *arguments[1:])
        else:
            self.split.run(*arguments)
        return out

    def joint(self, reach0, reach1, tables: Tables, source: int, out: np.ndarray = NO_PAIRS,
              coupling: np.ndarray = NO_PAIRS, own_out: np.ndarray = NO_ROWS,
              chance_out: np.ndarray = NO_ROWS, only: int = -1) -> None:
        """Both players playing `source` policies: out[hand0, hand1] += player 0's payoff x
        both reaches, if `out` is given; if `own_out` is, every row's own reach and chance x
        opponent weight (`coupling` given) into own_out/chance_out (float64 or float32
        [2, rows]; with `only` a player, his rows alone, [1, his rows])."""
        table, prediction = _policy_tables(tables, source)
        coupling1 = np.ascontiguousarray(coupling.T)
        kernels.joint_pass(self.walk, self.scratch, _vector(reach0), _vector(reach1), table,
                           prediction, out, coupling, coupling1, own_out, chance_out, only)


class RootSplit:
    """A value pass in threads (`solver.public._kernels.open_root`, `walk_subtrees`,
    `close_root`): the root's decision children shared out by subtree size (the largest first,
    each to the least loaded thread), a scratch per thread."""

    def __init__(self, tree: PlayTree, walk: kernels.Walk, scratch: kernels.Scratch,
                 threads: int):
        edges = tree.child[tree.child_start[0]:tree.child_start[1]]
        self.children = edges[edges >= 0].astype(np.int64)
        sizes = walk.after[self.children] - self.children
        loads, shares = [0] * threads, [[] for _ in range(threads)]
        for i in np.argsort(-sizes, kind="stable"):
            least = loads.index(min(loads))
            shares[least].append(int(i))
            loads[least] += int(sizes[i])
        self.shares = [np.array(sorted(share), dtype=np.int64) for share in shares if share]
        self.scratch = scratch
        self.thread_scratch = [scratch_of(tree, walk) for _ in self.shares]
        self.child_values = np.zeros((self.children.shape[0], scratch.values.shape[1]))
        self.child_open = np.zeros(self.children.shape[0], dtype=np.int8)
        self.pool = concurrent.futures.ThreadPoolExecutor(len(self.shares))

    def run(self, walk, mode, p, reach_p, reach_q, coupling, table, prediction, average, steps,
            record, out) -> None:
        """The pass `mode` (arguments as `_kernels.value_pass` takes them) into `out`."""
        if not kernels.open_root(walk, self.scratch, mode, p, reach_p, reach_q, coupling, table,
                                 prediction, out):
            return
        tasks = [self.pool.submit(kernels.walk_subtrees, walk, self.scratch, mine_scratch, mode,
                                  p, coupling, table, prediction, average, steps, record,
                                  self.children, mine, self.child_values, self.child_open)
                 for mine, mine_scratch in zip(self.shares, self.thread_scratch)]
        for task in tasks:
            task.result()
        kernels.close_root(walk, self.scratch, mode, p, coupling, table, prediction, average,
                           steps, record, self.children, self.child_values, self.child_open,
                           out)


def walk_of(tree: PlayTree) -> kernels.Walk:
    """The tree's arrays as the passes take them, with its depth-first walk."""
    nodes = tree.num_nodes
    node_terminal = np.zeros(nodes, dtype=np.int8)
    step_depth, step_edge, after = (np.zeros(nodes, dtype=np.int64) for _ in range(3))
    kernels.walk_order(tree.child_start, tree.child, node_terminal, step_depth, step_edge, after)
    return kernels.Walk(
        tree.node_player, tree.outcome_payoff, tree.child_start, tree.child, tree.node_nbet,
        tree.node_card_turn, tree.node_list, tree.node_table, tree.edge_map, tree.list_start,
        tree.entry_hand, tree.entry_nd, tree.entry_before, tree.map_start, tree.map_src,
        tree.map_dst, tree.map_slot, tree.node_row,
        np.array([0, tree.table_size[0]], dtype=np.int64), node_terminal, step_depth,
        step_edge, after)


def scratch_of(tree: PlayTree, walk: kernels.Walk) -> kernels.Scratch:
    """Per-depth work arrays big enough for every node of the tree."""
    depths = int(walk.step_depth.max()) + 1
    list_size = np.diff(tree.list_start)
    entries = int(list_size.max())
    lists = tree.node_list[np.arange(tree.num_nodes), tree.node_player]
    entry_list = np.repeat(np.arange(list_size.shape[0]), list_size)
    card_columns = np.bincount(entry_list, weights=tree.entry_nd, minlength=list_size.shape[0])
    width = int(np.max(list_size[lists] * tree.node_nbet + tree.node_card_turn
                       * card_columns[lists]))
    return kernels.Scratch(
        node=np.zeros(depths, dtype=np.int64), edge=np.zeros(depths, dtype=np.int64),
        reach=np.zeros((depths, 2, entries)), values=np.zeros((depths, entries)),
        gather=np.zeros((depths, entries)), policy=np.zeros(depths * width),
        action_values=np.zeros(depths * width))


def _vector(reach) -> np.ndarray:
    return np.ascontiguousarray(reach, dtype=np.float64)


def _oriented(coupling: np.ndarray, player: int) -> np.ndarray:
    """The coupling [player's hand, other's hand]."""
    return np.ascontiguousarray(coupling if player == 0 else coupling.T)


def _policy_tables(tables: Tables, source: int) -> tuple[np.ndarray, np.ndarray]:
    """(table, prediction) whose regret matching is the `source` policy."""
    if source == kernels.AVERAGE:
        return tables.average, NOTHING
    return tables.regret, tables.prediction


def _row_policies(table: np.ndarray, prediction: np.ndarray | None = None) -> np.ndarray:
    """Regret matching per row of table [..., width] (plus `prediction`, same shape): the
    current policy of regrets, the average policy of average sums."""
    table = np.ascontiguousarray(table, dtype=np.float64)
    policy = np.empty_like(table)
    predictive = prediction is not None
    kernels.row_policies(table.reshape(-1), (prediction if predictive else table).reshape(-1),
                         predictive, table.shape[-1], policy.reshape(-1))
    return policy


class PublicSolver:
    """CFR-family iterations on the public tree of one sub-game (module docstring)."""

    def __init__(self, game, schedule: Schedule, part: PublicGame | None = None,
                 tree: PlayTree | None = None, state: SolverState | None = None,
                 table_dtype=np.float64):
        """Start from zero regrets (uniform policies), or from `state` (`self.state`, whose
        tables must be of `table_dtype`: float64, or float32 to halve the tables' memory)."""
        if schedule.algorithm not in ALGORITHMS:
            raise ValueError(f"the public-tree engine runs {', '.join(ALGORITHMS)}; "
                             f"not {schedule.algorithm!r}")
        self.part = part if part is not None else part_named(game, None)
        self.game = game
        self.rules = game.rules
        self.name = tree_name(game, self.part)
        self.schedule = schedule
        self.tree = tree if tree is not None else load_play_tree(game, self.part)
        self.passes = Passes(self.tree)
        self.deals = self._deals()
        self.predictive = schedule.step(1).predictive
        self.table_dtype = np.dtype(table_dtype)
        self.tables = {branch: Tables.zeros(self.tree, self.predictive, self.table_dtype)
                       for branch in self.branches}
        self.iteration = 0
        if state is not None:
            self._restore(state)

    branches = ("play",)
    deals_per_hand = 1  # deals a hand may see (Le Truc's redeal: two)

    def _deals(self) -> Deals:
        return Deals(self.part.class_counts, self.part.hand_size, self.tree.hands)

    # --- state, for checkpoints and results -------------------------------------------------
    def _talk(self, which: str) -> np.ndarray:
        """The rows before the play tree (none here; Le Truc's redeal talk)."""
        return NOTHING

    def _flat(self, which: str) -> np.ndarray:
        """The talk's rows and every copy's table `which`, in one array: the table itself (not
        a copy: a full-size Truco class's is 5.7 GB) where there is nothing else."""
        parts = [self._talk(which).ravel()]
        for branch in self.branches:
            parts.append(getattr(self.tables[branch], which))
        if parts[0].size == 0 and len(parts) == 2:
            return parts[1]
        return np.concatenate(parts, dtype=self.table_dtype)

    def _unflat(self, flat: np.ndarray, which: str) -> None:
        """`_flat`'s inverse; where `flat` is one table of the right type, it becomes the
        table (no copy)."""
        talk = self._talk(which)
        sizes = [talk.size] + [int(self.tree.table_size.sum())] * len(self.branches)
        if flat.shape != (sum(sizes),):
            raise ValueError(f"saved tables hold {flat.size} numbers, this game's public tree "
                             f"needs {sum(sizes)}; they belong to another game")
        if talk.size == 0 and len(self.branches) == 1 and flat.dtype == self.table_dtype \
                and flat.flags.writeable:
            setattr(self.tables[self.branches[0]], which, flat)
            return
        pieces = np.split(flat, np.cumsum(sizes)[:-1])
        talk[...] = pieces[0].reshape(talk.shape)
        for branch, piece in zip(self.branches, pieces[1:]):
            getattr(self.tables[branch], which)[:] = piece

    def state(self, seconds: float) -> SolverState:
        """The run's state (regrets and average sums, flattened; in place of a current policy,
        the predictions of a predictive variant, else nothing: the current policy is regret
        matching on the regrets). Where the solver has one table of each kind they are the
        state's arrays, not copies: save the state before iterating on (a solver made from a
        state likewise takes its arrays over)."""
        return SolverState(self.name, self.schedule.algorithm, self.iteration, seconds,
                           self._flat("regret"), self._flat("average"),
                           self._flat("prediction") if self.predictive else np.zeros(0))

    def _restore(self, state: SolverState) -> None:
        if state.game_string != self.name:
            raise ValueError(f"checkpoint is for game {state.game_string!r}, not {self.name}")
        if state.algorithm != self.schedule.algorithm:
            raise ValueError(f"checkpoint was made by {state.algorithm!r}, "
                             f"not {self.schedule.algorithm!r}")
        if state.cumulative_regret.dtype != self.table_dtype:
            raise ValueError(f"checkpoint holds {state.cumulative_regret.dtype} tables, this "
                             f"solve {self.table_dtype} ones (--float32 makes float32 tables)")
        self._unflat(state.cumulative_regret, "regret")
        self._unflat(state.cumulative_policy, "average")
        if self.predictive:
            self._unflat(state.current_policy, "prediction")
        self.iteration = state.iteration

    def average_policy(self) -> PublicPolicy:
        """The average policy (unnormalised sums; rows normalise on reading)."""
        return PublicPolicy(self.name, self._talk("average").copy(), self._flat("average")[
            self._talk("average").size:])

    def load_policy(self, policy: PublicPolicy) -> None:
        """Make `policy` this solver's average policy (for measuring and reading it)."""
        if policy.game_string != self.name:
            raise ValueError(f"policy is for {policy.game_string!r}, not {self.name}")
        sums = (policy.sums.astype(self.table_dtype, copy=False) if policy.talk.size == 0
                else np.concatenate([np.ravel(policy.talk), policy.sums], dtype=self.table_dtype))
        self._unflat(sums, "average")  # a lone table is adopted: no copy of 5.7 GB at full size

    # --- the copies of the play tree and how they are entered -------------------------------
    def talk_policy(self, source: int) -> np.ndarray:
        """The policy of the rows before the play tree (none here)."""
        return NOTHING

    def branch_reaches(self, talk: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Each player's own probability of entering each copy, per first hand."""
        ones = np.ones(len(self.deals.hands))
        return {"play": (ones, ones)}

    def couplings(self, talk: np.ndarray) -> dict[str, np.ndarray]:
        """Each copy's coupling [hand0, hand1]."""
        return {"play": self.deals.first_hands()}

    def played_couplings(self, talk: np.ndarray) -> dict[str, np.ndarray]:
        """Each copy's coupling under the policies actually played (what analysis reads)."""
        return self.couplings(talk)

    def _pair_values(self, branch: str, source: int) -> np.ndarray:
        """Player 0's payoff x both reaches (no chance) summed per [hand0, hand1]."""
        hands = len(self.deals.hands)
        out = np.zeros((hands, hands))
        self.passes.joint(np.ones(hands), np.ones(hands), self.tables[branch], source, out)
        return out

    # --- iterations -----------------------------------------------------------------------------
    def iterate(self, count: int = 1) -> None:
        """`count` iterations, each updating player 0, then player 1, all in one kernel call."""
        steps = self.schedule.steps(self.iteration + 1, count)
        self.passes.iterations(self.deals.first_hands(), self.tables["play"], steps)
        self.iteration += count

    # --- measurement --------------------------------------------------------------------------
    def best_response_values(self) -> tuple[float, float]:
        """Each player's best-response value (his points per hand) against the other's average
        policy."""
        ones = np.ones(len(self.deals.hands))
        return tuple(float(self.passes.best_response(player, ones, self.deals.first_hands(),
                                                     self.tables["play"]).sum())
                     for player in (0, 1))

    def exploitability(self) -> float:
        """NashConv / 2 of the average policies, points per hand, exact."""
        br0, br1 = self.best_response_values()
        return (br0 + br1) / 2.0

    def exploitability_lower_bound(self) -> float | None:
        """A lower bound of `exploitability` much cheaper than it, where the game has one
        (`solver.public.redeal`); None here."""
        return None

    def game_value(self) -> float:
        """Player 0's expected points per hand when both play their average policies."""
        talk = self.talk_policy(kernels.AVERAGE)
        couplings, reaches = self.played_couplings(talk), self.branch_reaches(talk)
        return sum(float(np.sum(couplings[branch] * np.outer(*reaches[branch])
                                * self._pair_values(branch, kernels.AVERAGE)))
                   for branch in self.branches)

    # --- reading the policy -----------------------------------------------------------------------
    def branch_of(self, names: list[str]) -> tuple[str, int]:
        """(copy of the play tree, how many of the leading action names are talk before it) of a
        hand's actions so far; here there is no talk (Le Truc's redeal: `LeTrucSolver`)."""
        return self.branches[0], 0

    def node_after(self, actions: list[int]) -> int:
        """The play tree's node after its edge actions (`PlayTree.edge_action`) from the root."""
        tree, node = self.tree, 0
        for action in actions:
            if is_terminal(node):
                raise ValueError("the hand is over before the last of these actions")
            edges = range(tree.child_start[node], tree.child_start[node + 1])
            node = next(int(tree.child[e]) for e in edges if tree.edge_action[e] == action)
        return node

    def row_policy(self, branch: str, node: int, entry: tuple) -> np.ndarray:
        """The average policy of the row of `entry` ((unplayed classes, covered classes)) at
        decision node `node` of copy `branch`, column by column (`PlayTree.row_actions`)."""
        tree = self.tree
        player = int(tree.node_player[node])
        lst = int(tree.node_list[node, player])
        x = tree.entry_index(lst, entry)
        first = int(tree.list_start[lst])
        nbet, cards = int(tree.node_nbet[node]), int(tree.node_card_turn[node])
        start = int(tree.node_table[node]) + x * nbet + cards * int(tree.entry_before[first + x])
        width = nbet + cards * int(tree.entry_nd[first + x])
        return _row_policies(self.tables[branch].average_of(player)[start:start + width])

    def row_probabilities(self, branch: str, actions: list[int], player: int,
                          entry: tuple) -> dict[int, float]:
        """`row_policy` at the node after the play tree's `actions`, as {OpenSpiel action:
        probability}."""
        node = self.node_after(actions)
        if is_terminal(node) or self.tree.node_player[node] != player:
            raise ValueError(f"player {player} does not act at that point")
        legal = self.tree.row_actions(self.part, node, entry)
        return dict(zip(legal, map(float, self.row_policy(branch, node, entry))))


@dataclasses.dataclass(frozen=True, eq=False)
class PublicPolicy:
    """The average policy of a public-tree solve of one sub-game: the sums of the rows before
    the play tree (`talk`: Le Truc's redeal talk, [non-dealer, dealer][first hand][action];
    empty elsewhere) and every copy's table sums, flattened (copy by copy, player 0 then 1).
    Read it through `PublicSolver.load_policy`."""

    game_string: str
    talk: np.ndarray
    sums: np.ndarray

    def to_arrays(self) -> dict[str, np.ndarray]:
        return {"engine": np.array(ENGINE), "game_string": np.array(self.game_string),
                "talk_average": self.talk, "average": self.sums}

    @classmethod
    def from_arrays(cls, arrays) -> PublicPolicy:
        sums = np.asarray(arrays["average"])  # float32 from a solve with float32 tables
        return cls(str(arrays["game_string"]), np.asarray(arrays["talk_average"], dtype=float),
                   sums if sums.dtype == np.float32 else sums.astype(np.float64))
