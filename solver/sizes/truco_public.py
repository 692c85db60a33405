"""What the public-tree CFR engine holds for two-player Truco, per vira class, counted exactly
without building the tree: public nodes, private entries per node, table entries, memory,
coupling matrices, and an extrapolated cost per iteration.

**The layout measured** is `solver.public.tree`'s (Le Truc; the public tree with private-state
vectors of Johanson et al., "Accelerating Best Response Calculation in Large Extensive Games",
IJCAI 2011), carried over to Truco: one public node per public history of
`games.truco.PublicState` (betting, cards played face up as strength classes, a covered play as
one public action, round results, turn); per node, each player's list of the private states he
can be in there; one table row per (decision node, entry of the acting player), with one column
per legal action of that entry (betting actions, one face-up play per distinct class of his
unplayed cards and, where he may cover, one covered play per distinct class: the legal actions
of the isomorphic OpenSpiel game). The vira is public, so each vira class is an independent
sub-game, dealt with probability exactly 1/num_ranks (four vira cards per rank); its chance
lives in a coupling matrix over the two players' dealable hand classes, [hands, hands] float64,
nonzero where the two hands fit in the deck together (`Rules.class_counts(vira)`: three cards of
the vira's rank, none of the manilha rank's commons, one of each manilha). Every vira class
leaves the same multiset of class counts, and in every game measured all vira classes come out
with equal figures; each is counted on its own all the same.

**Covered cards.** Which card a player covered is his private knowledge. Two designs:

1. *Perfect recall* (the figures reported as rows and table entries): a private state is
   (r, c), r the multiset of unplayed classes, c the sequence of classes he covered (one per
   covered round, in round order). His full hand is his face-up plays + r + c, so each entry
   maps to one row of the coupling (payoffs are public: a covered card has strength 0). With
   f_X the cards of class X that neither player has shown face up (`class_counts` minus both
   players' face-up plays), a player with m cards left who covered k lists every r of size m
   and c of length k with r_X + c_X <= f_X for every class X. That is exactly his information
   state in the isomorphic game (hand dealt, public actions, the classes he covered), so the
   layout is exact: a player's rows are his information states, and a row's columns their
   legal actions (per vira class, equal to the compiled history tree's and, summed, to
   `solver.sizes.truco`'s information states: tests/test_truco_public_sizes.py).
2. *The strategy forgets which card it covered* (as Le Truc's engine forgets the hand set aside
   after a redeal): one row per distinct r (the `forgetful_*` figures), shared by every c. The
   vectors must still run over (r, c), or card removal and the reach of a covered card (which
   depends on which card the strategy chose) would be lost; so it saves table memory (59% of
   the table entries of the full dirty deck, 55% of the clean), not vector or coupling work,
   and its strategies have imperfect recall (their exploitability is still measured in the
   real game, with perfect recall).

**Counting.** Dynamic programming over the machine (states numbered by key, transitions cached),
memoised on (machine state, f, covered counts k0, k1): below a public node the cards matter only
through f (which face-up plays are possible, how long the lists are) and the covered counts.
A player's list statistics (entries, distinct classes summed over entries, the same for distinct
r, the classes some entry can play) depend only on (m, k, f) and are memoised on it. Per subtree
the program returns the sums of every figure, packed in one Python integer; the maximum list
length per player is kept aside (every distinct node is visited once). About 7 s per vira class
of the full dirty deck.

**Cost model (an extrapolation).** `solver.public._kernels.visit` runs once per player per
iteration over every public node; at each decision node it forms the actor's policy over his
table entries, passes both vectors down, and at nodes with a terminal child multiplies the
coupling by the other player's vector (E0 x E1 products). Seconds per iteration on one core are
modelled as a x table entries + b x coupling products + c x public nodes, a, b, c >= 0 fitted by
least squares to timed iterations of the Le Truc public engine (`time_le_truc_engine`,
`fit_cost_model`; `LE_TRUC_COST_MODEL` is the fit recorded with the committed results). In Le
Truc the three works grow almost in proportion, so the split between a, b and c is poorly
determined; the fit is scaled to reproduce the largest run, and `CostModel.bracket` gives
bounds that do not depend on the split (that run scaled by the smallest and the largest of the
three work ratios). A Truco engine would run the same kernels on the same layout; what it adds
(the covered columns, maps from one entry to several), the cache misses of a 30x larger tree
and the evaluation of exploitability are not in the model.
"""
from __future__ import annotations

import dataclasses
import fractions
import itertools
import math
import time

import numpy as np
import pyspiel

from games.truco import PublicState, Rules
from solver.sizes.common import progress_bar
from solver.sizes.truco import TRUCO_GAMES, counts_truco
from solver.public.tree import is_terminal

# Fields of one vira class's figures: sums over its public tree, except the two maxima.
FIELDS = ("decision_nodes", "terminals", "entries_p0", "entries_p1", "max_entries_p0",
          "max_entries_p1", "rows_p0", "rows_p1", "table_entries_p0", "table_entries_p1",
          "forgetful_rows_p0", "forgetful_rows_p1", "forgetful_table_entries_p0",
          "forgetful_table_entries_p1", "coupling_products")
# What a solve holds at once (`solver.public.tree.PlayTree`, its walk, and the tables): per
# decision node 60 bytes (actor, betting count, card flag, two list ids, table and row offsets,
# child start; the walk's terminal flag, depth, edge in and subtree end), per edge 14 (child,
# action, two map ids: a terminal is nothing but the edge into it); lists and maps, shared
# between nodes, aside.
TREE_BYTES_PER_DECISION_NODE = 60
TREE_BYTES_PER_EDGE = 14
ITERATIONS = 300
CORES = 2
DEFAULT_GAMES = ("python_truco_paulista(isomorphic=true)",
                 "python_truco_paulista(deck=clean,isomorphic=true)",
                 "python_trucomano(isomorphic=true)")


@dataclasses.dataclass(frozen=True)
class CostModel:
    """Seconds per iteration on one core = per_table_entry x table entries + per_coupling_product
    x coupling products + per_node x public nodes (module docstring), fitted to `samples`: timed
    Le Truc runs as dicts with keys game, nodes, table_entries, coupling_products, seconds.
    `source` says where and how they were timed."""

    per_table_entry: float
    per_coupling_product: float
    per_node: float
    samples: tuple = ()
    source: str = ""

    def seconds(self, table_entries: int, coupling_products: int, nodes: int) -> float:
        """The fitted seconds of one iteration over a tree with this work."""
        return (self.per_table_entry * table_entries
                + self.per_coupling_product * coupling_products + self.per_node * nodes)

    def bracket(self, table_entries: int, coupling_products: int, nodes: int
                ) -> tuple[float, float]:
        """(low, high) seconds: the largest timed run's seconds times the smallest and the
        largest of the three work ratios: bounds for any cost linear in the three works with
        nonnegative coefficients that reproduces that run, as the fit does."""
        reference = max(self.samples, key=lambda sample: sample["nodes"])
        ratios = (table_entries / reference["table_entries"],
                  coupling_products / reference["coupling_products"],
                  nodes / reference["nodes"])
        return min(ratios) * reference["seconds"], max(ratios) * reference["seconds"]

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


LE_TRUC_TIMING_GAMES = tuple(
    f"python_le_truc(num_ranks={ranks},hand_size={hand},isomorphic=true,max_redeals=0)"
    for ranks, hand in ((8, 2), (5, 3), (6, 3), (7, 3), (8, 3)))
# `fit_cost_model` of two `time_le_truc_engine()` runs (5 repeats each, the faster of each
# game's two minima), the model behind results/truco/public_sizes.json.
LE_TRUC_COST_MODEL = CostModel(
    per_table_entry=0.0, per_coupling_product=5.0626e-08, per_node=0.0,
    samples=tuple({"game": game, "nodes": nodes, "table_entries": table,
                   "coupling_products": products, "seconds": seconds}
                  for game, nodes, table, products, seconds in zip(
                      LE_TRUC_TIMING_GAMES,
                      (125_914, 544_970, 1_557_346, 3_819_630, 8_350_154),
                      (260_516, 1_114_570, 3_257_172, 8_123_374, 17_994_848),
                      (234_064, 1_137_445, 3_428_660, 8_731_387, 19_634_048),
                      (0.008502, 0.04966, 0.1384, 0.4350, 0.9940))),
    source="Le Truc public engine (PublicSolver, DCFR; the loop kernels of the working tree "
           "of 2026-11-30, 3.2x faster than the recursive ones before them) timed on the "
           "project's 2-core machine while other jobs shared it: fastest of 10 single "
           "iterations per game. Seconds per node grew from 68 ns to 119 ns with the tree's "
           "size, so a 30x larger tree may cost more per unit than this linear model says")


def tree_bytes(decision_nodes: int, public_nodes: int) -> int:
    """A public tree's node and edge arrays and its walk (`TREE_BYTES_PER_DECISION_NODE`,
    `TREE_BYTES_PER_EDGE`: every public node but the root is an edge), the lists and maps
    aside: a lower bound."""
    return (TREE_BYTES_PER_DECISION_NODE * decision_nodes + 8  # child_start's end
            + TREE_BYTES_PER_EDGE * (public_nodes - 1))


@dataclasses.dataclass(frozen=True)
class ViraSizes:
    """The public tree of one vira class (module docstring): exact counts.

    `weight` is the vira class's probability (a Fraction); `hand_classes` the dealable hands
    (each player's root list, one side of the coupling matrix), `deal_classes` the nonzero
    coupling entries (pairs of hands that fit in the deck together); `figures` maps every name
    of `FIELDS` to its count (`rows_p*` are the information states of design 1).
    """

    vira: int
    vira_name: str
    weight: fractions.Fraction
    hand_classes: int
    deal_classes: int
    figures: dict

    @property
    def public_nodes(self) -> int:
        return self.figures["decision_nodes"] + self.figures["terminals"]

    def table_entries(self, forgetful: bool = False) -> int:
        """Both players' table entries (design 1, or design 2 if `forgetful`)."""
        prefix = "forgetful_table_entries" if forgetful else "table_entries"
        return self.figures[prefix + "_p0"] + self.figures[prefix + "_p1"]

    def table_bytes(self, bytes_per_number: int, forgetful: bool = False) -> int:
        """The CFR tables: a regret and an average-policy sum per table entry, both players."""
        return 2 * bytes_per_number * self.table_entries(forgetful)

    def tree_bytes(self) -> int:
        """The public tree's node and edge arrays and its walk (`TREE_BYTES_PER_DECISION_NODE`,
        `TREE_BYTES_PER_EDGE`), the lists and maps aside: a lower bound."""
        return tree_bytes(self.figures["decision_nodes"], self.public_nodes)

    def solve_bytes(self, bytes_per_number: int) -> int:
        """What a solve of the class holds at once, at least: tree, tables, coupling."""
        return self.tree_bytes() + self.table_bytes(bytes_per_number) + self.coupling_bytes()

    def coupling_bytes(self) -> int:
        """The coupling matrix, [hands, hands] float64."""
        return 8 * self.hand_classes ** 2

    def work(self) -> tuple[int, int, int]:
        """(table entries, coupling products, public nodes): the cost model's inputs."""
        return self.table_entries(), self.figures["coupling_products"], self.public_nodes

    def as_dict(self, model: CostModel | None = None) -> dict:
        record = {"vira": self.vira, "vira_name": self.vira_name, "weight": str(self.weight),
                  "hand_classes": self.hand_classes, "deal_classes": self.deal_classes,
                  "public_nodes": self.public_nodes, **self.figures,
                  "table_entries": self.table_entries(),
                  "forgetful_table_entries": self.table_entries(True),
                  "table_bytes_float32": self.table_bytes(4),
                  "table_bytes_float64": self.table_bytes(8),
                  "forgetful_table_bytes_float32": self.table_bytes(4, True),
                  "forgetful_table_bytes_float64": self.table_bytes(8, True),
                  "tree_bytes": self.tree_bytes(),
                  "coupling_matrix_bytes": self.coupling_bytes()}
        if model is not None:
            low, high = model.bracket(*self.work())
            record.update({"seconds_per_iteration_extrapolated": model.seconds(*self.work()),
                           "seconds_per_iteration_bracket": [low, high]})
        return record


@dataclasses.dataclass(frozen=True)
class PublicSizes:
    """Every vira class of one game, and what a solve of them all would cost."""

    game: str
    viras: tuple

    def total(self, name: str) -> int:
        """A figure (a `FIELDS` name, or public_nodes) summed over the vira classes."""
        if name == "public_nodes":
            return sum(vira.public_nodes for vira in self.viras)
        return sum(vira.figures[name] for vira in self.viras)

    def weight(self) -> fractions.Fraction:
        return sum((vira.weight for vira in self.viras), fractions.Fraction(0))

    def extrapolation(self, model: CostModel, iterations: int = ITERATIONS,
                      cores: int = CORES) -> dict:
        """Seconds of `iterations` iterations of every vira class, on one core and on `cores`
        (one vira class per process, longest first), with the fit and the bracket; and the
        memory of the tables held at once on `cores` cores. Extrapolations, not measurements."""
        fitted = [model.seconds(*vira.work()) for vira in self.viras]
        brackets = [model.bracket(*vira.work()) for vira in self.viras]
        largest = sorted((vira.table_entries() for vira in self.viras), reverse=True)[:cores]
        forgetful = sorted((vira.table_entries(True) for vira in self.viras),
                           reverse=True)[:cores]
        trees = sorted((vira.tree_bytes() for vira in self.viras), reverse=True)[:cores]
        return {
            "iterations": iterations, "cores": cores,
            "seconds_per_iteration": sum(fitted),
            "seconds_per_iteration_bracket": [sum(b[0] for b in brackets),
                                              sum(b[1] for b in brackets)],
            "seconds_one_core": iterations * sum(fitted),
            "seconds_on_cores": iterations * _makespan(fitted, cores),
            "seconds_on_cores_bracket": [iterations * _makespan([b[0] for b in brackets], cores),
                                         iterations * _makespan([b[1] for b in brackets], cores)],
            "table_bytes_float32_on_cores": 8 * sum(largest),
            "table_bytes_float64_on_cores": 16 * sum(largest),
            "forgetful_table_bytes_float32_on_cores": 8 * sum(forgetful),
            "tree_bytes_on_cores": sum(trees),
        }

    def as_dict(self, model: CostModel | None = None, iterations: int = ITERATIONS,
                cores: int = CORES) -> dict:
        totals = {name: self.total(name) for name in ("public_nodes",) + FIELDS
                  if not name.startswith("max_")}
        totals["weight"] = str(self.weight())
        record = {"game_string": self.game,
                  "vira_classes": [vira.as_dict(model) for vira in self.viras],
                  "totals": totals}
        if model is not None:
            record["extrapolation"] = self.extrapolation(model, iterations, cores)
        return record


def _makespan(seconds: list[float], cores: int) -> float:
    """Wall time of independent jobs on `cores` workers, longest job first to the least
    loaded worker."""
    loads = [0.0] * cores
    for job in sorted(seconds, reverse=True):
        loads[loads.index(min(loads))] += job
    return max(loads)


def check_game(game: pyspiel.Game) -> None:
    """ValueError (one line, naming the fix) unless `game` is a two-player isomorphic Truco hand
    with seen cards."""
    name = game.get_type().short_name
    if name not in TRUCO_GAMES:
        raise ValueError(f"the public-tree sizes need a two-player {' or '.join(TRUCO_GAMES)} "
                         f"game, not {name}")
    rules = game.rules
    if rules.num_players != 2:
        raise ValueError(f"the public-tree sizes are for two-player Truco, not "
                         f"num_players={rules.num_players}")
    if not counts_truco(game):
        raise ValueError("the public-tree sizes need two-player Truco with seen cards, not the "
                         "blind iron hand (iron_hand_blind=true at 11-11)")
    if not rules.isomorphic:
        raise ValueError(f"the public-tree sizes are for the isomorphic game (suit-free "
                         f"classes): add isomorphic=true to {name}")


# --- lists ------------------------------------------------------------------------------------
def _sequences(length: int, room: tuple) -> int:
    """Sequences of `length` classes using class X at most room[X] times."""
    if length == 0:
        return 1
    return sum(_sequences(length - 1, room[:x] + (room[x] - 1,) + room[x + 1:])
               for x in range(len(room)) if room[x])


class _Lists:
    """Statistics of one player's list given (m unplayed, k covered, f free per class),
    memoised: entries, sum of distinct classes in r over entries, the same two for distinct r
    (the forgetful design), and the classes some entry can play face up."""

    def __init__(self):
        self.memo = {}
        self.sequence_memo = {}

    def stats(self, m: int, k: int, free: tuple) -> tuple:
        key = (m, k, free)
        found = self.memo.get(key)
        if found is None:
            found = self.memo[key] = self._count(m, k, free)
        return found

    def _covered(self, k: int, room: tuple) -> int:
        key = (k, tuple(sorted(v for v in room if v)))
        found = self.sequence_memo.get(key)
        if found is None:
            found = self.sequence_memo[key] = _sequences(k, key[1])
        return found

    def _count(self, m: int, k: int, free: tuple) -> tuple:
        entries = distinct_sum = rows = rows_distinct_sum = 0
        playable = set()
        present = [x for x, f in enumerate(free) if f]
        for r in itertools.combinations_with_replacement(present, m):
            counts = {x: r.count(x) for x in set(r)}
            if any(n > free[x] for x, n in counts.items()):
                continue
            room = tuple(f - counts.get(x, 0) for x, f in enumerate(free))
            covered = self._covered(k, room)
            if not covered:
                continue
            entries += covered
            distinct_sum += covered * len(counts)
            rows += 1
            rows_distinct_sum += len(counts)
            playable.update(counts)
        return entries, distinct_sum, rows, rows_distinct_sum, tuple(sorted(playable))


# --- the public tree --------------------------------------------------------------------------
_SUMS = tuple(f for f in FIELDS if not f.startswith("max_"))
_SHIFT = 128  # bits per packed sum: subtree sums are added as one Python integer
_UNIT = {name: 1 << (_SHIFT * i) for i, name in enumerate(_SUMS)}


def _unpack(packed: int) -> dict:
    mask = (1 << _SHIFT) - 1
    return {name: packed >> (_SHIFT * i) & mask for i, name in enumerate(_SUMS)}


class _Machine:
    """The public-state machine's states numbered by key, with their transitions cached (the
    same machine state recurs under many card histories)."""

    def __init__(self, rules: Rules):
        self.ids = {}
        self.states = []
        self.info = []  # per id: (over, actor, betting children, card turn, may cover)
        self.plays = {}  # (id, class, covered) -> child id
        start = PublicState(rules)
        start.hands_dealt()
        self.root = self.intern(start)

    def intern(self, public: PublicState) -> int:
        key = public.key()
        found = self.ids.get(key)
        if found is None:
            found = self.ids[key] = len(self.states)
            self.states.append(public)
            self.info.append(None)
        return found

    def node(self, node: int) -> tuple:
        """(over, actor, betting children ids, card turn, may cover) of a machine state."""
        found = self.info[node]
        if found is None:
            public = self.states[node]
            if public.is_over():
                found = (True, -1, (), False, False)
            else:
                children = []
                for action in public.legal_actions():
                    child = public.clone()
                    child.apply(action)
                    children.append(self.intern(child))
                card_turn = public.is_card_turn()
                found = (False, public.to_act, tuple(children), card_turn,
                         card_turn and public.may_cover())
            self.info[node] = found
        return found

    def play(self, node: int, item: int, covered: bool) -> int:
        """The state after the card player plays class `item` (face down if covered)."""
        key = (node, item, covered)
        found = self.plays.get(key)
        if found is None:
            child = self.states[node].clone()
            child.play(0 if covered else item + 1, covered)
            found = self.plays[key] = self.intern(child)
        return found


class _Counter:
    """The public tree's figures below a node (module docstring), memoised on
    (machine state, free counts, covered counts); sums packed in one integer, maxima of the
    list lengths kept aside (every distinct node is visited once)."""

    def __init__(self, rules: Rules, vira: int, machine: _Machine, lists: _Lists):
        self.rules = rules
        self.free = rules.class_counts(vira)
        self.machine = machine
        self.lists = lists
        self.memo = {}
        self.max_entries = [0, 0]

    def root(self) -> dict:
        hand = self.rules.hand_size
        over = self.machine.node(self.machine.root)[0]
        packed = _UNIT["terminals"] if over else self.count(
            self.machine.root, self.free, (hand, hand), (0, 0))
        figures = _unpack(packed)
        figures["max_entries_p0"], figures["max_entries_p1"] = self.max_entries
        return {name: figures[name] for name in FIELDS}

    def count(self, node: int, free: tuple, unplayed: tuple, covered: tuple) -> int:
        """Packed sums below a decision node; `free` per class, `unplayed` and `covered` per
        player."""
        key = (node, free, covered)
        found = self.memo.get(key)
        if found is not None:
            return found
        machine = self.machine
        _, actor, bets, card_turn, cover = machine.node(node)
        stats = (self.lists.stats(unplayed[0], covered[0], free),
                 self.lists.stats(unplayed[1], covered[1], free))
        for p in (0, 1):
            if stats[p][0] > self.max_entries[p]:
                self.max_entries[p] = stats[p][0]
        entries, distinct, rows, rows_distinct, playable = stats[actor]
        card_columns = (2 if cover else 1) if card_turn else 0
        suffix = f"_p{actor}"
        total = (_UNIT["decision_nodes"] + stats[0][0] * _UNIT["entries_p0"]
                 + stats[1][0] * _UNIT["entries_p1"] + entries * _UNIT["rows" + suffix]
                 + (entries * len(bets) + card_columns * distinct)
                 * _UNIT["table_entries" + suffix]
                 + rows * _UNIT["forgetful_rows" + suffix]
                 + (rows * len(bets) + card_columns * rows_distinct)
                 * _UNIT["forgetful_table_entries" + suffix])
        terminals = 0
        for child in bets:
            if machine.node(child)[0]:
                terminals += 1
            else:
                total += self.count(child, free, unplayed, covered)
        if card_turn:
            left = (unplayed[0] - 1, unplayed[1]) if actor == 0 else (
                unplayed[0], unplayed[1] - 1)
            for item in playable:
                child = machine.play(node, item, False)
                if machine.node(child)[0]:
                    terminals += 1
                else:
                    total += self.count(child, free[:item] + (free[item] - 1,)
                                        + free[item + 1:], left, covered)
            if cover and entries:
                child = machine.play(node, 0, True)
                if machine.node(child)[0]:
                    terminals += 1
                else:
                    total += self.count(child, free, left, (covered[0] + 1, covered[1])
                                        if actor == 0 else (covered[0], covered[1] + 1))
        if terminals:
            total += terminals * _UNIT["terminals"] + stats[0][0] * stats[1][0] * _UNIT[
                "coupling_products"]
        self.memo[key] = total
        return total


def vira_sizes(game: pyspiel.Game, vira: int, machine: _Machine | None = None,
               lists: _Lists | None = None) -> ViraSizes:
    """The public tree of one vira class (module docstring); `machine` and `lists` (caches
    that do not depend on the vira) may be shared between calls for one game."""
    check_game(game)
    rules = game.rules
    figures = _Counter(rules, vira, machine or _Machine(rules), lists or _Lists()).root()
    free = rules.class_counts(vira)
    hands = [hand for hand in rules.hand_classes
             if all(hand.count(x) <= free[x] for x in set(hand))]
    counts = np.array([[hand.count(x) for x in range(len(free))] for hand in hands])
    fits = np.all(counts[:, None, :] + counts[None, :, :] <= np.array(free), axis=2)
    return ViraSizes(vira, rules.deck.rank_name(vira), fractions.Fraction(1, rules.num_ranks),
                     len(hands), int(fits.sum()), figures)


def check_solve_fits(game: pyspiel.Game, vira: int, available: int | None = None,
                     float32: bool = False, float32_option: bool = True) -> None:
    """ValueError (one line) if solving vira class `vira` on its public tree surely needs more
    memory than `available` bytes (default: this machine's available memory, unchecked where
    it cannot be read): `ViraSizes.solve_bytes`, counted exactly (about 8 s for the full dirty
    deck, a second for smaller games), tables of float64 or, if `float32`, float32 numbers;
    the refusal suggests --float32 where it would fit and the command has it
    (`float32_option`)."""
    available = _available_memory() if available is None else available
    if available is None:
        return
    sizes = vira_sizes(game, vira)
    needed = sizes.solve_bytes(4 if float32 else 8)
    if needed <= available:
        return
    hint = (f"; with --float32 tables it needs {sizes.solve_bytes(4) / 1e9:.1f} GB"
            if float32_option and not float32 and sizes.solve_bytes(4) <= available else
            "; full-size Truco fits as the clean deck (deck=clean) and as the hands of eleven "
            "and the iron hand (score0=11; solve-match --from-score 11), the full deck on a "
            "larger machine (results/truco/README.md)")
    raise ValueError(
        f"{game}, vira {sizes.vira_name}: its public tree has {sizes.public_nodes:,} nodes and "
        f"solving it holds at least {needed / 1e9:.1f} GB (tree {sizes.tree_bytes() / 1e9:.1f}, "
        f"{'float32' if float32 else 'float64'} tables "
        f"{sizes.table_bytes(4 if float32 else 8) / 1e9:.1f}), more than the "
        f"{available / 1e9:.1f} GB available here{hint}")


def check_parts_fit(game: pyspiel.Game, parts: list, float32: bool = False,
                    float32_option: bool = True) -> None:
    """`check_solve_fits` (the same options) for each sub-game of a public-tree solve of Truco
    (`games.truco.ViraGame`s; Le Truc's full game fits)."""
    if game.get_type().short_name not in TRUCO_GAMES:
        return
    for part in parts:
        check_solve_fits(game, part.vira, float32=float32, float32_option=float32_option)


def check_analysis_fits(tree_sizes: dict, name: str, available: int | None = None) -> None:
    """ValueError (one line) if analysing a solved class (`solver.analysis.truco.class_sums`)
    surely needs more memory than `available` bytes (default: this machine's available memory,
    unchecked where it cannot be read): its tree, its average table and one player's records
    (own reach, chance weight and win value per row, an action value per table entry), in the
    strategy's number type, from the tree sizes its summary recorded (`tree_sizes`)."""
    available = _available_memory() if available is None else available
    if available is None or tree_sizes.get("engine") != "public":
        return
    number = 4 if tree_sizes.get("tables") == "float32" else 8
    entries = [tree_sizes[f"table_entries_player{p}"] for p in (0, 1)]
    player = max(3 * tree_sizes[f"infosets_player{p}"] + entries[p] for p in (0, 1))
    tree = tree_bytes(tree_sizes["public_decision_nodes"], tree_sizes["public_nodes"])
    needed = tree + number * (sum(entries) + player)
    if needed > available:
        raise ValueError(
            f"{name}: analysing it holds at least {needed / 1e9:.1f} GB (tree "
            f"{tree / 1e9:.1f}, average table {number * sum(entries) / 1e9:.1f}, one player's "
            f"records {number * player / 1e9:.1f}), more than the {available / 1e9:.1f} GB "
            f"available here: stop what else runs, or chart it on a larger machine")


def _available_memory() -> int | None:
    """MemAvailable of /proc/meminfo in bytes (None where there is no such file)."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def public_sizes(game: pyspiel.Game, progress: bool = False) -> PublicSizes:
    """`vira_sizes` of every vira class, in rank order (about 7 s each for the full dirty
    deck); `progress` shows a tqdm bar on stderr."""
    check_game(game)
    machine, lists = _Machine(game.rules), _Lists()
    return PublicSizes(str(game), tuple(
        vira_sizes(game, vira, machine, lists)
        for vira in progress_bar(range(game.rules.num_ranks), "vira classes", progress)))


# --- the cost model -----------------------------------------------------------------------------
def le_truc_work(tree) -> dict:
    """(nodes, table entries, coupling products) of a `solver.public.tree.PlayTree`, counted as
    for Truco: coupling products are E0 x E1 summed over decision nodes with a terminal child."""
    sizes = np.diff(tree.list_start)
    has_terminal = np.zeros(tree.num_nodes, dtype=bool)
    has_terminal[tree.parents_of(np.flatnonzero(is_terminal(tree.child)))] = True
    products = sizes[tree.node_list[:, 0]].astype(np.int64) * sizes[tree.node_list[:, 1]]
    return {"nodes": tree.num_nodes + tree.num_terminals,
            "table_entries": int(tree.table_size.sum()),
            "coupling_products": int(products[has_terminal].sum())}


def time_le_truc_engine(game_strings=LE_TRUC_TIMING_GAMES, repeats: int = 3,
                        progress: bool = False) -> list[dict]:
    """Times iterations of the Le Truc public engine (`solver.public.cfr.PublicSolver`, DCFR,
    used as a black box) on each game: one warm-up iteration (numba compiles), then the fastest
    of `repeats` single iterations (the least disturbed by other processes). Returns the work
    (`le_truc_work`) and seconds per game. Builds every tree (about 70 s for the full-size
    game), without the tree cache."""
    from solver.public.solve import make_solver
    from solver.public.tree import build_play_tree
    from solver.registry import load_game
    from solver.schedules import make_schedule

    samples = []
    for game_string in progress_bar(game_strings, "timing Le Truc", progress):
        game = load_game(game_string)
        tree = build_play_tree(game)
        engine = make_solver(game, make_schedule("dcfr"), tree=tree)
        engine.iterate(1)
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            engine.iterate(1)
            times.append(time.perf_counter() - start)
        samples.append({"game": game_string, **le_truc_work(tree), "seconds": min(times)})
    return samples


def fit_cost_model(samples: list[dict], source: str = "") -> CostModel:
    """Nonnegative least squares of seconds on (table entries, coupling products, nodes) over
    the timed runs, relative errors weighted equally (every subset of the three works is fitted
    and the best fit with no negative coefficient kept), then scaled to reproduce the largest
    run exactly, so that the fit lies within `CostModel.bracket`."""
    work = np.array([[s["table_entries"], s["coupling_products"], s["nodes"]] for s in samples],
                    dtype=float)
    seconds = np.array([s["seconds"] for s in samples], dtype=float)
    scaled = work / seconds[:, None]  # rows divided by their seconds: relative residuals
    best, best_error = np.zeros(3), math.inf
    for size in (1, 2, 3):
        for subset in itertools.combinations(range(3), size):
            columns = list(subset)
            solution = np.linalg.lstsq(scaled[:, columns], np.ones(len(samples)), rcond=None)[0]
            if np.any(solution < 0):
                continue
            coefficients = np.zeros(3)
            coefficients[columns] = solution
            error = float(np.sum((scaled @ coefficients - 1.0) ** 2))
            if error < best_error - 1e-12:
                best, best_error = coefficients, error
    largest = int(np.argmax(work[:, 2]))
    best *= seconds[largest] / float(work[largest] @ best)
    return CostModel(*map(float, best), tuple(samples), source)
