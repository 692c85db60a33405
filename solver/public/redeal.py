"""Le Truc's redeal talk (LT-4) around the public-tree engine of `solver.public.cfr`.

The history tree of Le Truc with the redeal has 6.1e11 histories and 8.8e8 information
states, almost all after an agreed redeal, where each player also remembers the hand he set
aside. `LeTrucSolver` solves the game on the public tree of its card play (`games.le_truc.
PlayGame`), split at the redeal talk into three copies of the play tree: *keep* (no redeal
asked), *decline* (asked, declined) and *agree* (a redeal): the first hands are the private
states of the first two, the new hands of the third. Each copy is coupled to the deal by a
matrix over the two players' hands (`RedealDeals`): the deal probability, with the talk's
probabilities folded in where they belong. The talk itself (the non-dealer's Keep / Ask redeal,
the dealer's Agree / Decline) is two rows per first hand, updated from the three copies' values.

**The one restriction.** After an agreed redeal the strategies computed here depend on the new
hand and the public actions, not on the hand set aside (a strategy of the real game that
simply does not use that memory; ~8.5e8 of the 8.8e8 information states collapse onto 7.4e6).
The agree copy is trained against the whole dealer range (as if the dealer agreed with every
hand), since the dealer's equilibrium answer may never reach it. Nothing is assumed when the
result is measured: the exploitability is exact in the real game, with best responses that do
use the set-aside hand. A best response decomposes over the responder's first hand, so after
a redeal it is one pass of the play tree per set-aside hand, with the coupling of that hand
(Johanson et al. 2011 for vector best responses): 120 passes per player on the default deck,
the time of some 23 iterations. A solve with a target screens its evaluations with a lower
bound that costs a few passes (`exploitability_lower_bound`: the responder who forgets the
set-aside hand, one best response for all of them; within 1% of the exact figure on the
small variants) and measures exactly only once the bound is below the target.

Four-hand deal weights: with a_c, b_c, ... the counts of class c in the four hands, the
product of one factor per hand, f(h) = prod_c 1/h_c!, and the kernel of the classes' totals
(`solver.public.cfr.Deals`), over the unions of each player's two hands.
"""
from __future__ import annotations

import math

import numpy as np

from games import le_truc
from solver.public import _kernels as kernels
from solver.public.cfr import Deals, PublicSolver, _row_policies

BRANCHES_WITH_REDEAL = ("keep", "decline", "agree")
TALK = "talk"  # the decisions before the play tree
# the talk's rows: the non-dealer's (Keep, Ask redeal), the dealer's (Agree, Decline)
TALK_ACTIONS = ((le_truc.KEEP, le_truc.ASK_REDEAL), (le_truc.AGREE, le_truc.DECLINE))


class RedealDeals(Deals):
    """`Deals` of Le Truc's first hands, and of the four hands after a redeal."""

    def __init__(self, class_counts, hand_size, hands):
        super().__init__(class_counts, hand_size, hands)
        self._redeal_ready = False

    def _prepare_redeal(self, rules: le_truc.Rules) -> None:
        """(set-aside, new) pairs of one player, their unions and the kernel between unions."""
        if self._redeal_ready:
            return
        counts = self.counts
        fits = np.all(counts[:, None, :] + counts[None, :, :] <= self.class_counts, axis=2)
        self.pair_old, self.pair_new = np.nonzero(fits)
        unions = counts[self.pair_old] + counts[self.pair_new]
        self.union_counts, self.pair_union = np.unique(unions, axis=0, return_inverse=True)
        self.pair_union = self.pair_union.ravel()
        self.pair_factor = self.factor[self.pair_old] * self.factor[self.pair_new]
        u = self.union_counts
        self.union_kernel = np.empty((len(u), len(u)))
        for start in range(0, len(u), 256):
            self.union_kernel[start:start + 256] = self.kernel_of_totals(
                u[start:start + 256, None, :] + u[None, :, :])
        cards, k = rules.deck.num_cards, rules.hand_size
        self.scale4 = math.prod(math.factorial(int(n)) for n in self.class_counts) / math.prod(
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


class LeTrucSolver(PublicSolver):
    """`PublicSolver` of Le Truc: with the redeal talk where the rules allow a redeal
    (module docstring), else the plain card play."""

    def __init__(self, game, schedule, part=None, tree=None, state=None,
                 table_dtype=np.float64):
        rules = game.rules
        self.redeal = rules.redeal_possible(0)
        self.branches = BRANCHES_WITH_REDEAL if self.redeal else PublicSolver.branches
        self.deals_per_hand = 2 if self.redeal else 1
        self.non_dealer, self.dealer = rules.non_dealer, rules.dealer
        hands = len(rules.hand_classes)
        self.talk_regret = np.zeros((2, hands, 2))  # [non-dealer ask row, dealer answer row]
        self.talk_average = np.zeros((2, hands, 2))
        self.talk_prediction = np.zeros((2, hands, 2))
        super().__init__(game, schedule, part, tree, state, table_dtype)
        if tuple(self.tree.hands) != tuple(rules.hand_classes):
            raise AssertionError("the root list must be the hand classes in order")

    def _deals(self) -> Deals:
        return RedealDeals(self.part.class_counts, self.part.hand_size, self.tree.hands)

    def _talk(self, which: str) -> np.ndarray:
        if not self.redeal:
            return super()._talk(which)
        return {"regret": self.talk_regret, "average": self.talk_average,
                "prediction": self.talk_prediction}[which]

    def talk_policy(self, source: int) -> np.ndarray:
        """[non-dealer (Keep, Ask), dealer (Agree, Decline)] per first hand."""
        if not self.redeal:
            return super().talk_policy(source)
        if source == kernels.CURRENT:
            return _row_policies(self.talk_regret,
                                 self.talk_prediction if self.predictive else None)
        return _row_policies(self.talk_average)

    def branch_reaches(self, talk: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Each player's own probability of entering each copy, per first hand (agree: 1,
        its talk probabilities are in its coupling)."""
        if not self.redeal:
            return super().branch_reaches(talk)
        ones = np.ones(len(self.deals.hands))
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
        if not self.redeal:
            return super().couplings(talk)
        result = {branch: self.deals.first_hands() for branch in ("keep", "decline")}
        weights = [None, None]
        weights[self.non_dealer] = talk[0, :, 1]
        weights[self.dealer] = np.ones(len(self.deals.hands))
        result["agree"] = self.deals.after_redeal(self.rules, *weights)
        return result

    def played_couplings(self, talk: np.ndarray) -> dict[str, np.ndarray]:
        """`couplings`, with the agree copy's under the dealer's actual answer (his agreeing)
        rather than his whole range."""
        couplings = self.couplings(talk)
        if self.redeal:
            weights = [None, None]
            weights[self.non_dealer], weights[self.dealer] = talk[0, :, 1], talk[1, :, 0]
            couplings["agree"] = self.deals.after_redeal(self.rules, *weights)
        return couplings

    # --- iterations -----------------------------------------------------------------------------
    def iterate(self, count: int = 1) -> None:
        """`count` iterations, each updating player 0, then player 1."""
        if not self.redeal:
            super().iterate(count)
            return
        for step in self.schedule.steps(self.iteration + 1, count):
            for player in (0, 1):
                self._update(player, step)
            self.iteration += 1

    def _update(self, player: int, step: np.ndarray) -> None:
        talk = self.talk_policy(kernels.CURRENT)
        reaches = self.branch_reaches(talk)
        couplings = self.couplings(talk)
        agree_values = self.talk_value_of_agree(player, talk, kernels.CURRENT)
        values = {}
        for branch in self.branches:
            own, other = reaches[branch][player], reaches[branch][1 - player]
            values[branch] = self.passes.update(player, own, other, couplings[branch],
                                                self.tables[branch], step)
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
        if not self.redeal:
            return super().best_response_values()
        return self._response_values(self._agree_best_responses)

    def exploitability_lower_bound(self) -> float | None:
        """A lower bound of `exploitability` at a small part of its cost (None without the
        redeal, where nothing is cheaper than the exact figure): each player's value when,
        after an agreed redeal, he plays one best response whatever hand he set aside, the
        talk and the other copies played best. That is a strategy of the real game (one that
        forgets the set-aside hand), so its value is at most his best response's; the exact
        best response needs a pass of the agree copy per set-aside hand."""
        if not self.redeal:
            return None
        return sum(self._response_values(self._forgetful_agree_values)) / 2.0

    def _response_values(self, agree_values) -> tuple[float, float]:
        """Each player's value (points per hand) against the other's average policy when he
        plays the keep and decline copies and the talk best, and `agree_values(player, talk)`
        is his value of a redeal per set-aside hand."""
        talk = self.talk_policy(kernels.AVERAGE)
        reaches = self.branch_reaches(talk)
        result = [0.0, 0.0]
        for player in (0, 1):
            keep, decline = (self.passes.best_response(
                player, reaches[branch][1 - player], self.deals.first_hands(),
                self.tables[branch]) for branch in ("keep", "decline"))
            agree = agree_values(player, talk)
            if player == self.non_dealer:
                per_hand = np.maximum(keep, decline + agree)
            else:
                per_hand = keep + np.maximum(decline, agree)
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

    def _forgetful_agree_values(self, player: int, talk: np.ndarray) -> np.ndarray:
        """Per set-aside hand: the player's value in the agree copy, the other reaching it with
        his talk probability and playing his average policy there, when the player plays one
        pure best response for every set-aside hand (to the coupling over his whole first-hand
        range, as the agree copy is trained)."""
        other_weight = talk[0, :, 1] if player == self.dealer else talk[1, :, 0]
        hands = len(self.deals.hands)
        if not other_weight.any():
            return np.zeros(hands)
        ones = np.ones(hands)
        weights = [ones, ones]
        weights[1 - player] = other_weight
        pure = self.passes.best_response_policy(
            player, ones, self.deals.after_redeal(self.rules, *weights), self.tables["agree"])
        pair = np.zeros((hands, hands))
        self.passes.joint(ones, ones, pure, kernels.AVERAGE, pair)
        mine = pair if player == 0 else -pair.T
        return self.deals.value_by_set_aside(self.rules, mine, other_weight)

    # --- reading the policy -----------------------------------------------------------------------
    def branch_of(self, names: list[str]) -> tuple[str, int]:
        """(copy, talk actions) of a hand's actions so far: TALK while the talk is on, else the
        copy it led to ('Keep'; 'Ask redeal' then 'Agree' or 'Decline')."""
        if not self.redeal:
            return super().branch_of(names)
        keep, ask, agree, decline = (self.part.bet_name(action) for row in TALK_ACTIONS
                                     for action in row)
        if names[:1] == [keep]:
            return "keep", 1
        if names[:1] == [ask] and len(names) >= 2 and names[1] in (agree, decline):
            return ("agree" if names[1] == agree else "decline"), 2
        if names in ([], [ask]):
            return TALK, len(names)
        raise ValueError(f"a hand of this game starts with the redeal talk: {keep!r}, or {ask!r} "
                         f"then {agree!r} or {decline!r}; not {', '.join(names[:2])!r}")

    def talk_seat(self, row: int) -> int:
        """The player of talk row `row` (0: the non-dealer's ask, 1: the dealer's answer)."""
        return (self.non_dealer, self.dealer)[row]
