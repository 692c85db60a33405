"""Le Truc on its public tree, redeal included: CFR for the default rules, exact exploitability.

The history tree of Le Truc with the redeal has 6.1e11 histories and 8.8e8 information
states, almost all after an agreed redeal, where each player also remembers the hand he set
aside. This engine solves the game on the public tree (`solver.public.tree`), split at the
redeal talk (LT-4) into three copies of the play tree: *keep* (no redeal asked), *decline*
(asked, declined) and *agree* (a redeal): the first hands are the private states of the first
two, the new hands of the third. Each copy is coupled to the deal by a matrix over the two
players' hands (`Deals`): the deal probability, with the talk's probabilities folded in where
they belong. The talk itself (the non-dealer's Keep / Ask redeal, the dealer's Agree /
Decline) is two rows per first hand, updated from the three copies' values.

**The one restriction.** After an agreed redeal the strategies computed here depend on the new
hand and the public actions, not on the hand set aside (a strategy of the real game that
simply does not use that memory; ~8.5e8 of the 8.8e8 information states collapse onto 7.4e6).
The agree copy is trained against the whole dealer range (as if the dealer agreed with every
hand), since the dealer's equilibrium answer may never reach it. Nothing is assumed when the
result is measured: the exploitability is exact in the real game, with best responses that do
use the set-aside hand. A best response decomposes over the responder's first hand, so after
a redeal it is one pass of the play tree per set-aside hand, with the coupling of that hand
(Johanson et al. 2011 for vector best responses).

The passes over a copy are the numba kernels of `solver.public._kernels` (`Passes` makes the
tree's walk and scratch once); every CFR variant of `solver.schedules` runs, through the row
update and regret matching the history engine shares (`solver._update`), PCFR+ (Farina, Kroer
& Sandholm 2021, arXiv:2007.14358) with its predictions, the last instantaneous regrets, kept
beside the regrets. Without the redeal, `iterate` runs all its iterations in one kernel call.

Deal weights, isomorphic (rank classes, exact counts): with a_r, b_r, ... the counts of rank r
in the hands dealt, P = prod_r 4! / (a_r! b_r! ... (4 - a_r - b_r - ...)!) / (C(N,k) C(N-k,k)
...): a product of one factor per hand, f(h) = prod_r 1/h_r!, and a kernel of the ranks' totals.
"""
from __future__ import annotations

import dataclasses
import math
import time
from typing import Callable

import numpy as np

from games import le_truc
from solver.cfr import SolverState, SolveResult, run_iterations, validate_stopping
from solver.public import _kernels as kernels
from solver.public.tree import PlayTree, load_play_tree
from solver.schedules import Schedule, make_schedule

ENGINE = "public_le_truc"
ALGORITHMS = ("cfr", "cfr+", "lcfr", "dcfr", "pcfr+")
NOTHING = np.zeros(0)
NO_PAIRS = np.zeros((0, 0))
NO_ROWS = np.zeros((2, 0))

BRANCHES_WITH_REDEAL = ("keep", "decline", "agree")
BRANCHES_WITHOUT = ("keep",)


def check_game(game) -> None:
    """ValueError unless the public-tree engine can solve `game`."""
    if game.get_type().short_name != "python_le_truc":
        raise ValueError(f"the public-tree engine solves python_le_truc, not {game}")
    rules = game.rules
    if not rules.isomorphic:
        raise ValueError("the public-tree engine solves the isomorphic game (suits dropped, "
                         "strategically the same): add isomorphic=true")
    if rules.max_redeals >= 2 and rules.redeal_possible(1):
        raise ValueError(f"the public-tree engine handles at most one redeal "
                         f"(max_redeals={rules.max_redeals} allows two here); use max_redeals=1")


def _kernel_of_totals(totals: np.ndarray) -> np.ndarray:
    """prod_r 1/(4 - total_r)! (0 where a rank is over-used); totals int [..., ranks]."""
    table = np.array([1.0 / math.factorial(4 - s) if s <= 4 else 0.0 for s in range(13)])
    return np.prod(table[totals], axis=-1)


class Deals:
    """Chance of Le Truc's deals over rank-class hands (the rules' `hand_classes`)."""

    def __init__(self, rules: le_truc.Rules):
        ranks = rules.deck.num_ranks
        self.hands = rules.hand_classes
        self.counts = np.array([np.bincount(h, minlength=ranks) for h in self.hands])
        factorials = np.array([math.factorial(i) for i in range(5)], dtype=np.float64)
        self.factor = np.prod(1.0 / factorials[self.counts], axis=1)
        cards, k = rules.deck.num_cards, rules.hand_size
        full = math.factorial(4) ** ranks
        self.scale2 = full / (math.comb(cards, k) * math.comb(cards - k, k))
        self.pair = self.scale2 * np.outer(self.factor, self.factor) * _kernel_of_totals(
            self.counts[:, None, :] + self.counts[None, :, :])
        self._redeal_ready = False

    # --- two hands (no redeal) --------------------------------------------------------------
    def first_hands(self) -> np.ndarray:
        """P(hand0, hand1) of the first deal, float64 [hands, hands]."""
        return self.pair

    # --- four hands (after a redeal) ------------------------------------------------------------
    def _prepare_redeal(self, rules: le_truc.Rules) -> None:
        """(set-aside, new) pairs of one player, their unions and the kernel between unions."""
        if self._redeal_ready:
            return
        counts = self.counts
        fits = np.all(counts[:, None, :] + counts[None, :, :] <= 4, axis=2)
        self.pair_old, self.pair_new = np.nonzero(fits)
        unions = counts[self.pair_old] + counts[self.pair_new]
        self.union_counts, self.pair_union = np.unique(unions, axis=0, return_inverse=True)
        self.pair_union = self.pair_union.ravel()
        self.pair_factor = self.factor[self.pair_old] * self.factor[self.pair_new]
        u = self.union_counts
        self.union_kernel = np.empty((len(u), len(u)))
        for start in range(0, len(u), 256):
            self.union_kernel[start:start + 256] = _kernel_of_totals(
                u[start:start + 256, None, :] + u[None, :, :])
        cards, k = rules.deck.num_cards, rules.hand_size
        self.scale4 = math.factorial(4) ** rules.deck.num_ranks / math.prod(
            math.comb(cards - i * k, k) for i in range(4))
        self._redeal_ready = True

    def _union_by_new(self, old_weight: np.ndarray) -> np.ndarray:
        """A(u, n) = sum over pairs (o, n) with union u of f(o) f(n) w(o): [unions, hands]."""
        table = np.zeros((len(self.union_counts), len(self.hands)))
        np.add.at(table, (self.pair_union, self.pair_new),
                  self.pair_factor * old_weight[self.pair_old])
        return table

    def after_redeal(self, rules, weight0: np.ndarray, weight1: np.ndarray) -> np.ndarray:
        """sum over set-aside hands of P(o0, n0, o1, n1) w0(o0) w1(o1): [n0, n1]."""
        self._prepare_redeal(rules)
        a0, a1 = self._union_by_new(weight0), self._union_by_new(weight1)
        return self.scale4 * (a0.T @ (self.union_kernel @ a1))

    def value_by_set_aside(self, rules, pair_values: np.ndarray, other_weight: np.ndarray
                           ) -> np.ndarray:
        """v(o) = sum over (n, o', n') of P(o, n, o', n') w'(o') V[n, n'], per hand o of the
        player whose hands index V's rows: [hands]."""
        self._prepare_redeal(rules)
        spread = self.union_kernel @ (self._union_by_new(other_weight) @ pair_values.T)
        per_pair = self.scale4 * self.pair_factor * spread[self.pair_union, self.pair_new]
        return np.bincount(self.pair_old, weights=per_pair, minlength=len(self.hands))

    def by_set_aside(self, rules, other_weight: np.ndarray):
        """Per set-aside hand o: (o, sum over o' of P(o, n, o', n') w'(o') as [n, n']), the
        coupling a player who remembers o faces after a redeal."""
        self._prepare_redeal(rules)
        spread = self.union_kernel @ self._union_by_new(other_weight)
        for old in range(len(self.hands)):
            coupling = np.zeros((len(self.hands), len(self.hands)))
            mine = np.flatnonzero(self.pair_old == old)
            coupling[self.pair_new[mine]] = (self.scale4 * self.pair_factor[mine])[:, None] * \
                spread[self.pair_union[mine]]
            yield old, coupling


@dataclasses.dataclass
class Tables:
    """Regret and average-policy sums of one copy of the play tree, and the last instantaneous
    regrets (the prediction of predictive variants; empty otherwise): float64 [entries of
    player 0 + of player 1], both players' tables joined (`PlayTree.table_size`)."""

    regret: np.ndarray
    average: np.ndarray
    prediction: np.ndarray
    split: int  # player 1's first entry

    @classmethod
    def zeros(cls, tree: PlayTree, predictive: bool = False) -> "Tables":
        size = int(tree.table_size.sum())
        return cls(np.zeros(size), np.zeros(size), np.zeros(size if predictive else 0),
                   int(tree.table_size[0]))

    def average_of(self, player: int) -> np.ndarray:
        """The player's average sums (a view), indexed as `PlayTree.node_table`."""
        return self.average[:self.split] if player == 0 else self.average[self.split:]


class Passes:
    """The numba passes of `solver.public._kernels` over one play tree, with its walk and
    per-depth scratch made once. Reaches are over the root lists (the hand classes); a
    coupling is [player 0's hand, player 1's hand]."""

    def __init__(self, tree: PlayTree):
        self.tree = tree
        self.walk = walk_of(tree)
        self.scratch = scratch_of(tree, self.walk)
        self.hands = len(tree.hands)

    def update(self, player: int, reach_p, reach_q, coupling, tables: Tables, step
               ) -> np.ndarray:
        """One update of the player's rows (`step`: float64 [6], `solver.schedules.Step`); his
        counterfactual values per hand."""
        out = np.empty(self.hands)
        kernels.update_pass(self.walk, self.scratch, player, _vector(reach_p), _vector(reach_q),
                            _oriented(coupling, player), tables.regret, tables.prediction,
                            tables.average, step, out)
        return out

    def iterations(self, coupling, tables: Tables, steps: np.ndarray) -> None:
        """len(steps) iterations (player 0's update, then player 1's) of the tree played on
        its own, both players reaching the root with probability one."""
        out = np.empty(self.hands)
        kernels.update_iterations(self.walk, self.scratch, np.ones(self.hands),
                                  _oriented(coupling, 0), _oriented(coupling, 1), tables.regret,
                                  tables.prediction, tables.average, steps, out)

    def best_response(self, player: int, reach_q, coupling, tables: Tables) -> np.ndarray:
        """The player's best-response counterfactual values per hand against the other's
        average policy."""
        out = np.empty(self.hands)
        kernels.best_response_pass(self.walk, self.scratch, player, _vector(reach_q),
                                   _oriented(coupling, player), tables.average, out)
        return out

    def expectation(self, player: int, reach_p, reach_q, coupling, tables: Tables, source: int,
                    record: np.ndarray = NOTHING, payoff: np.ndarray | None = None
                    ) -> np.ndarray:
        """The player's counterfactual values per hand with both playing `source` policies;
        every row's in `record` if given (float64 [his rows]); `payoff` replaces player 0's
        payoffs at terminals (float64 [nodes])."""
        walk = self.walk if payoff is None else self.walk._replace(node_payoff=payoff)
        table, prediction = _policy_tables(tables, source)
        out = np.empty(self.hands)
        kernels.expectation_pass(walk, self.scratch, player, _vector(reach_p), _vector(reach_q),
                                 _oriented(coupling, player), table, prediction, record, out)
        return out

    def joint(self, reach0, reach1, tables: Tables, source: int, out: np.ndarray = NO_PAIRS,
              coupling: np.ndarray = NO_PAIRS, own_out: np.ndarray = NO_ROWS,
              chance_out: np.ndarray = NO_ROWS) -> None:
        """Both players playing `source` policies: out[hand0, hand1] += player 0's payoff x
        both reaches, if `out` is given; if `own_out` is, every row's own reach and chance x
        opponent weight (`coupling` given) into own_out/chance_out float64 [2, rows]."""
        table, prediction = _policy_tables(tables, source)
        coupling1 = np.ascontiguousarray(coupling.T)
        kernels.joint_pass(self.walk, self.scratch, _vector(reach0), _vector(reach1), table,
                           prediction, out, coupling, coupling1, own_out, chance_out)


def walk_of(tree: PlayTree) -> kernels.Walk:
    """The tree's arrays as the passes take them, with its depth-first walk."""
    decision = np.flatnonzero(tree.node_player >= 0).astype(np.int64)
    node_terminal = np.zeros(tree.num_nodes, dtype=np.int8)
    step_depth, step_edge, after = (np.zeros(decision.shape[0], dtype=np.int64)
                                    for _ in range(3))
    kernels.walk_order(tree.node_player, tree.child_start, tree.child, decision, node_terminal,
                       step_depth, step_edge, after)
    return kernels.Walk(
        tree.node_player, tree.node_payoff, tree.child_start, tree.child, tree.node_nbet,
        tree.node_card_turn, tree.node_list, tree.node_table, tree.edge_map, tree.list_start,
        tree.entry_hand, tree.entry_nd, tree.entry_before, tree.map_start, tree.map_src,
        tree.map_dst, tree.map_slot, tree.node_row,
        np.array([0, tree.table_size[0]], dtype=np.int64), node_terminal, decision, step_depth,
        step_edge, after)


def scratch_of(tree: PlayTree, walk: kernels.Walk) -> kernels.Scratch:
    """Per-depth work arrays big enough for every node of the tree."""
    decision = walk.decision
    depths = int(walk.step_depth.max()) + 1
    list_size = np.diff(tree.list_start)
    entries = int(list_size.max())
    lists = tree.node_list[decision, tree.node_player[decision]]
    entry_list = np.repeat(np.arange(list_size.shape[0]), list_size)
    card_columns = np.bincount(entry_list, weights=tree.entry_nd, minlength=list_size.shape[0])
    width = int(np.max(list_size[lists] * tree.node_nbet[decision]
                       + np.where(tree.node_card_turn[decision] != 0, card_columns[lists], 0)))
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
    """CFR-family iterations on the public tree of one Le Truc game (module docstring)."""

    def __init__(self, game, schedule: Schedule, tree: PlayTree | None = None,
                 state: SolverState | None = None):
        """Start from zero regrets (uniform policies), or from `state` (`self.state`)."""
        check_game(game)
        if schedule.algorithm not in ALGORITHMS:
            raise ValueError(f"the public-tree engine runs {', '.join(ALGORITHMS)}; "
                             f"not {schedule.algorithm!r}")
        rules = game.rules
        self.game = game
        self.rules = rules
        self.schedule = schedule
        self.tree = tree if tree is not None else load_play_tree(game)
        self.passes = Passes(self.tree)
        self.deals = Deals(rules)
        self.redeal = rules.redeal_possible(0)
        self.branches = BRANCHES_WITH_REDEAL if self.redeal else BRANCHES_WITHOUT
        self.predictive = schedule.step(1).predictive
        self.tables = {branch: Tables.zeros(self.tree, self.predictive)
                       for branch in self.branches}
        hands = len(self.deals.hands)
        self.talk_regret = np.zeros((2, hands, 2))  # [non-dealer ask row, dealer answer row]
        self.talk_average = np.zeros((2, hands, 2))
        self.talk_prediction = np.zeros((2, hands, 2))
        self.iteration = 0
        self.non_dealer, self.dealer = rules.non_dealer, rules.dealer
        for player in (0, 1):
            entries = self.tree.list_entries(int(self.tree.node_list[0, player]))
            if entries != list(self.deals.hands):
                raise AssertionError("the root list must be the hand classes in order")
        if state is not None:
            self._restore(state)

    # --- state, for checkpoints and results -------------------------------------------------
    def _flat(self, talk: np.ndarray, which: str) -> np.ndarray:
        parts = [talk.ravel()]
        for branch in self.branches:
            parts.append(getattr(self.tables[branch], which))
        return np.concatenate(parts)

    def _unflat(self, flat: np.ndarray, talk: np.ndarray, which: str) -> None:
        sizes = [talk.size] + [int(self.tree.table_size.sum())] * len(self.branches)
        if flat.shape != (sum(sizes),):
            raise ValueError(f"saved tables hold {flat.size} numbers, this game's public tree "
                             f"needs {sum(sizes)}; they belong to another game")
        pieces = np.split(flat, np.cumsum(sizes)[:-1])
        talk[...] = pieces[0].reshape(talk.shape)
        for branch, piece in zip(self.branches, pieces[1:]):
            getattr(self.tables[branch], which)[:] = piece

    def state(self, seconds: float) -> SolverState:
        """The run's state (regrets and average sums of the talk and every copy, flattened;
        in place of a current policy, the predictions of a predictive variant, else nothing:
        the current policy is regret matching on the regrets)."""
        return SolverState(str(self.game), self.schedule.algorithm, self.iteration, seconds,
                           self._flat(self.talk_regret, "regret"),
                           self._flat(self.talk_average, "average"),
                           self._flat(self.talk_prediction, "prediction") if self.predictive
                           else np.zeros(0))

    def _restore(self, state: SolverState) -> None:
        if state.game_string != str(self.game):
            raise ValueError(f"checkpoint is for game {state.game_string!r}, not {self.game}")
        if state.algorithm != self.schedule.algorithm:
            raise ValueError(f"checkpoint was made by {state.algorithm!r}, "
                             f"not {self.schedule.algorithm!r}")
        self._unflat(state.cumulative_regret, self.talk_regret, "regret")
        self._unflat(state.cumulative_policy, self.talk_average, "average")
        if self.predictive:
            self._unflat(state.current_policy, self.talk_prediction, "prediction")
        self.iteration = state.iteration

    def average_policy(self) -> "PublicPolicy":
        """The average policy (unnormalised sums; rows normalise on reading)."""
        return PublicPolicy(str(self.game), self.talk_average.copy(),
                            self._flat(np.zeros(0), "average"))

    def load_policy(self, policy: "PublicPolicy") -> None:
        """Make `policy` this solver's average policy (for measuring and reading it)."""
        if policy.game_string != str(self.game):
            raise ValueError(f"policy is for {policy.game_string!r}, not {self.game}")
        self.talk_average[...] = policy.talk
        self._unflat(np.concatenate([self.talk_average.ravel(), policy.sums]),
                     self.talk_average, "average")

    # --- one pass ---------------------------------------------------------------------------
    def _pair_values(self, branch: str, source: int) -> np.ndarray:
        """Player 0's payoff x both reaches (no chance) summed per [hand0, hand1]."""
        hands = len(self.deals.hands)
        out = np.zeros((hands, hands))
        self.passes.joint(np.ones(hands), np.ones(hands), self.tables[branch], source, out)
        return out

    def talk_policy(self, source: int) -> np.ndarray:
        """[non-dealer (Keep, Ask), dealer (Agree, Decline)] per first hand."""
        if source == kernels.CURRENT:
            return _row_policies(self.talk_regret,
                                 self.talk_prediction if self.predictive else None)
        return _row_policies(self.talk_average)

    def branch_reaches(self, talk: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Each player's own probability of entering each copy, per first hand (agree: 1,
        its talk probabilities are in its coupling)."""
        hands = len(self.deals.hands)
        ones = np.ones(hands)
        if not self.redeal:
            return {"keep": (ones, ones)}
        reaches = {}
        for branch, nd, d in (("keep", talk[0, :, 0], ones),
                              ("decline", talk[0, :, 1], talk[1, :, 1]),
                              ("agree", ones, ones)):
            by_player = [None, None]
            by_player[self.non_dealer], by_player[self.dealer] = nd, d
            reaches[branch] = tuple(by_player)
        return reaches

    def couplings(self, talk: np.ndarray) -> dict[str, np.ndarray]:
        """Each copy's coupling [hand0, hand1]; the agree copy's for the dealer's whole range."""
        result = {branch: self.deals.first_hands() for branch in self.branches
                  if branch != "agree"}
        if self.redeal:
            weights = [None, None]
            weights[self.non_dealer] = talk[0, :, 1]
            weights[self.dealer] = np.ones(len(self.deals.hands))
            result["agree"] = self.deals.after_redeal(self.rules, *weights)
        return result

    # --- iterations -----------------------------------------------------------------------------
    def iterate(self, count: int = 1) -> None:
        """`count` iterations, each updating player 0, then player 1."""
        steps = self.schedule.steps(self.iteration + 1, count)
        if not self.redeal:  # all in one kernel call
            self.passes.iterations(self.deals.first_hands(), self.tables["keep"], steps)
            self.iteration += count
            return
        for step in steps:
            for player in (0, 1):
                self._update(player, step)
            self.iteration += 1

    def _update(self, player: int, step: np.ndarray) -> None:
        talk = self.talk_policy(kernels.CURRENT)
        reaches = self.branch_reaches(talk)
        couplings = self.couplings(talk)
        agree_values = None
        if self.redeal:
            agree_values = self.talk_value_of_agree(player, talk, kernels.CURRENT)
        values = {}
        for branch in self.branches:
            own, other = reaches[branch][player], reaches[branch][1 - player]
            values[branch] = self.passes.update(player, own, other, couplings[branch],
                                                self.tables[branch], step)
        if self.redeal:
            self._update_talk(player, talk, values, agree_values, step)

    def talk_value_of_agree(self, player: int, talk: np.ndarray, source: int) -> np.ndarray:
        """The player's value of a redeal per set-aside hand, the agree copy played by `source`
        policies and the other's talk probability of getting there."""
        pair = self._pair_values("agree", source)
        mine = pair if player == 0 else -pair.T
        other_weight = talk[0, :, 1] if player == self.dealer else talk[1, :, 0]
        return self.deals.value_by_set_aside(self.rules, mine, other_weight)

    def _update_talk(self, player, talk, values, agree_values, step) -> None:
        """The player's talk row per first hand (own reach one), from the copies' values."""
        if player == self.non_dealer:
            row, action_values = 0, np.stack(
                [values["keep"], values["decline"] + agree_values], axis=1)
        else:
            row, action_values = 1, np.stack([agree_values, values["decline"]], axis=1)
        kernels.update_rows(self.talk_regret[row].reshape(-1),
                            self.talk_average[row].reshape(-1),
                            self.talk_prediction[row].reshape(-1), self.predictive,
                            np.ascontiguousarray(talk[row]).reshape(-1),
                            action_values.reshape(-1), 2, step)

    # --- measurement --------------------------------------------------------------------------
    def best_response_values(self) -> tuple[float, float]:
        """Each player's best-response value (his points per hand) against the other's average
        policy, in the real game (the set-aside hand remembered)."""
        talk = self.talk_policy(kernels.AVERAGE)
        reaches = self.branch_reaches(talk)
        result = [0.0, 0.0]
        for player in (0, 1):
            branch_values = {}
            for branch in self.branches:
                if branch == "agree":
                    continue
                branch_values[branch] = self.passes.best_response(
                    player, reaches[branch][1 - player], self.deals.first_hands(),
                    self.tables[branch])
            if not self.redeal:
                result[player] = float(branch_values["keep"].sum())
                continue
            agree = self._agree_best_responses(player, talk)
            if player == self.non_dealer:
                per_hand = np.maximum(branch_values["keep"], branch_values["decline"] + agree)
            else:
                per_hand = branch_values["keep"] + np.maximum(branch_values["decline"], agree)
            result[player] = float(per_hand.sum())
        return result[0], result[1]

    def _agree_best_responses(self, player: int, talk: np.ndarray) -> np.ndarray:
        """Per set-aside hand: the player's best value in the agree copy, knowing that hand,
        against the other's average play there and talk probability of getting there."""
        other_weight = talk[0, :, 1] if player == self.dealer else talk[1, :, 0]
        hands = len(self.deals.hands)
        result = np.zeros(hands)
        if not other_weight.any():
            return result
        ones = np.ones(hands)
        for old, coupling in self.deals.by_set_aside(self.rules, other_weight):  # [mine, his]
            by_hand0 = coupling if player == 0 else coupling.T  # a view
            result[old] = self.passes.best_response(player, ones, by_hand0,
                                                    self.tables["agree"]).sum()
        return result

    def exploitability(self) -> float:
        """NashConv / 2 of the average policies, points per hand, exact."""
        br0, br1 = self.best_response_values()
        return (br0 + br1) / 2.0

    def game_value(self) -> float:
        """Player 0's expected points per hand when both play their average policies."""
        talk = self.talk_policy(kernels.AVERAGE)
        total = 0.0
        for branch in self.branches:
            pair = self._pair_values(branch, kernels.AVERAGE)
            if branch == "agree":
                weights = [None, None]
                weights[self.non_dealer], weights[self.dealer] = talk[0, :, 1], talk[1, :, 0]
                total += float(np.sum(self.deals.after_redeal(self.rules, *weights) * pair))
                continue
            reach0, reach1 = self.branch_reaches(talk)[branch]
            total += float(np.sum(self.deals.first_hands() * np.outer(reach0, reach1) * pair))
        return total

    # --- reading the policy by information state ------------------------------------------------
    def action_probabilities(self, info_state: str) -> dict[int, float]:
        """The average policy at one information state string of `games.le_truc` (isomorphic:
        ranks without suits), as {action: probability} over its legal actions."""
        player, branch, hand, actions = self._parse(info_state)
        if branch == "talk":
            row = 0 if player == self.non_dealer else 1
            probabilities = _row_policies(self.talk_average[row])[self._hand_index(hand)]
            names = (le_truc.KEEP, le_truc.ASK_REDEAL) if row == 0 else (le_truc.AGREE,
                                                                        le_truc.DECLINE)
            return dict(zip(names, map(float, probabilities)))
        node, remaining = self._walk(actions, player, hand)
        tree = self.tree
        if tree.node_player[node] != player:
            raise ValueError(f"{info_state!r}: player {player} does not act there")
        entries = tree.list_entries(int(tree.node_list[node, player]))
        x = entries.index(remaining)
        first = int(tree.list_start[tree.node_list[node, player]])
        nbet = int(tree.node_nbet[node])
        cards = bool(tree.node_card_turn[node])
        start = int(tree.node_table[node]) + x * nbet + (int(tree.entry_before[first + x])
                                                          if cards else 0)
        edges = range(tree.child_start[node], tree.child_start[node + 1])
        legal = [int(tree.edge_action[e]) for e in edges][:nbet]
        if cards:
            legal += [le_truc.CARD_ACTION_BASE + rank for rank in sorted(set(remaining))]
        sums = self.tables[branch].average_of(player)[start:start + len(legal)]
        return dict(zip(legal, map(float, _row_policies(sums))))

    def _hand_index(self, hand: tuple[int, ...]) -> int:
        return self.deals.hands.index(hand)

    def _parse(self, info_state: str):
        """(player, branch or "talk", current hand as sorted ranks, play actions as ids)."""
        parts = info_state.split(" | ")
        try:
            player = int(parts[0][1:])
            hands = [self._ranks(part[5:]) for part in parts[1:] if part.startswith("hand ")]
            actions = [a for part in parts[1:] if not part.startswith("hand ")
                       for a in part.split(", ")]
        except (ValueError, IndexError):
            raise ValueError(f"not a Le Truc information state: {info_state!r}") from None
        names = [a.split(":", 1)[1] for a in actions]
        if not self.redeal:
            return player, "keep", hands[0], names
        if not names or names == ["Ask redeal"]:
            return player, "talk", hands[0], []
        if names[0] == "Keep":
            return player, "keep", hands[0], names[1:]
        branch = "agree" if names[1] == "Agree" else "decline"
        return player, branch, hands[-1], names[2:]

    def _ranks(self, text: str) -> tuple[int, ...]:
        index = {self.rules.deck.rank_name(r): r for r in range(self.rules.deck.num_ranks)}
        return tuple(sorted(index[name] for name in text.split()))

    def _walk(self, names: list[str], player: int, hand: tuple[int, ...]):
        """The play-tree node after these action names, and `player`'s unplayed cards there."""
        tree = self.tree
        ids = {name: action for action, name in enumerate(le_truc.BETTING_ACTION_NAMES)}
        node, remaining = 0, list(hand)
        for name in names:
            if name.startswith("Play "):
                rank = self._ranks(name[5:])[0]
                action = le_truc.CARD_ACTION_BASE + rank
                if tree.node_player[node] == player:
                    remaining.remove(rank)
            else:
                action = ids[name]
            edges = range(tree.child_start[node], tree.child_start[node + 1])
            node = next(int(tree.child[e]) for e in edges if tree.edge_action[e] == action)
        return node, tuple(remaining)


@dataclasses.dataclass(frozen=True, eq=False)
class PublicPolicy:
    """The average policy of a public-tree solve: the talk's sums [non-dealer, dealer][first
    hand][action] and every copy's table sums, flattened (branch by branch, player 0 then 1).
    Read it through `PublicSolver.load_policy`."""

    game_string: str
    talk: np.ndarray
    sums: np.ndarray

    def to_arrays(self) -> dict[str, np.ndarray]:
        return {"engine": np.array(ENGINE), "game_string": np.array(self.game_string),
                "talk_average": self.talk, "average": self.sums}

    @classmethod
    def from_arrays(cls, arrays) -> "PublicPolicy":
        return cls(str(arrays["game_string"]), np.asarray(arrays["talk_average"], dtype=float),
                   np.asarray(arrays["average"], dtype=float))


def solver_for(game, policy: PublicPolicy, cache: bool = True) -> PublicSolver:
    """A solver holding `policy` as its average policy (to measure or read it)."""
    solver = PublicSolver(game, make_schedule("dcfr"), load_play_tree(game, cache))
    solver.load_policy(policy)
    return solver


def solve_public(game, algorithm: str = "dcfr", iterations: int | None = None,
                 target_exploitability: float | None = None, time_limit: float | None = None,
                 eval_every: int = 10, checkpoint: Callable[[SolverState], None] | None = None,
                 checkpoint_every: int = 100, progress: bool = True,
                 on_progress: Callable[[int, float, float], None] | None = None,
                 on_iteration: Callable[[int, float], None] | None = None,
                 seed: int | None = None, resume: SolverState | None = None, cache: bool = True,
                 alpha: float = 1.5, beta: float = 0.0, gamma: float = 2.0) -> SolveResult:
    """`solver.cfr.solve` for Le Truc on the public tree (same stopping rules, checkpoints and
    result; the exploitability is exact in the real game, see the module docstring)."""
    validate_stopping(iterations, target_exploitability, time_limit, eval_every, checkpoint_every)
    schedule = make_schedule(algorithm, alpha, beta, gamma)
    build_start = time.perf_counter()
    tree = load_play_tree(game, cache)
    build_seconds = time.perf_counter() - build_start
    engine = PublicSolver(game, schedule, tree, resume)
    curve, exploitability, seconds = run_iterations(
        engine, engine.exploitability, algorithm=algorithm, iterations=iterations,
        target_exploitability=target_exploitability, time_limit=time_limit,
        eval_every=eval_every, checkpoint=checkpoint, checkpoint_every=checkpoint_every,
        progress=progress, on_progress=on_progress, on_iteration=on_iteration,
        start_seconds=resume.seconds if resume is not None else 0.0)
    state = engine.state(seconds)
    if checkpoint is not None:
        checkpoint(state)
    return SolveResult(
        average_policy=engine.average_policy(), exploitability=exploitability,
        game_value=engine.game_value(), curve=curve, iterations=engine.iteration,
        seconds=seconds, compile_seconds=build_seconds, algorithm=algorithm, seed=seed,
        tree_sizes={"engine": ENGINE, "branches": len(engine.branches), **tree.sizes()},
        state=state)
