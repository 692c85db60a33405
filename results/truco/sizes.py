"""Tree sizes of isomorphic 2-player Truco Paulista: deals, histories, information states.

Usage: `.venv/bin/python results/truco/sizes.py [--samples N] [--seed S] GAME_STRING...`
(writes nothing; prints one JSON object per game). With `--check` it first compares the
counters with a brute-force OpenSpiel traversal on tiny variants.

Counts, all in isomorphic mode (`isomorphic=true` is forced), over one hand:
* deals: isomorphic deal classes (vira rank, player 0's hand class, player 1's hand class) and
  concrete deals (ordered card sequences: 2 hands and the vira);
* histories: every node of the game tree (chance, decision and terminal nodes);
* infosets: distinct information states of each player at his decision nodes.

Histories below a deal are counted by dynamic programming over the public-state machine
(`games.truco.PublicState`) with both hands as class counts (memo on machine key and hands).
Information states of player p are the p-nodes of his *view tree*: his own hand classes are
known, the opponent's face-up plays branch over every class still unseen by p, a covered
opponent card is one branch; memo on (machine key, own hand, unseen counts capped at the
opponent's cards left). Where the totals are too large for Python (`--samples N`), N deal
classes (histories) and N (vira, own hand) roots per player (infosets) are drawn uniformly, each
counted exactly, and the total is extrapolated as (number of classes) x (sample mean), with a
95% half-width 1.96 x classes x sample standard deviation / sqrt(N).
"""
from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time

import pyspiel

import games  # noqa: F401  (registers the games)
from games import cards, truco


def _isomorphic_game(game_string: str) -> pyspiel.Game:
    game = pyspiel.load_game(game_string)
    return pyspiel.load_game(game.get_type().short_name,
                             {**game.get_parameters(), "isomorphic": True})


def _load(game_string: str) -> truco.Rules:
    rules = _isomorphic_game(game_string).rules
    if rules.num_players != 2 or rules.blind:
        raise ValueError("the counters cover 2-player, sighted hands")
    return rules


def _hands(rules: truco.Rules, available: tuple) -> list[tuple[int, ...]]:
    """Hand classes (as class counts) that can be dealt from `available`."""
    return [cards.rank_counts(hand, rules.num_classes) for hand in rules.hand_classes
            if cards.multiset_weight(hand, available)]


def _minus(a: tuple, b: tuple) -> tuple:
    return tuple(x - y for x, y in zip(a, b))


def _removed(counts: tuple, item: int) -> tuple:
    return counts[:item] + (counts[item] - 1,) + counts[item + 1:]


def _start(rules: truco.Rules) -> truco.PublicState:
    public = truco.PublicState(rules)
    public.hands_dealt()
    return public


def _children(public: truco.PublicState):
    """The machine after each non-card action (card plays are expanded by the callers)."""
    for action in public.legal_actions():
        child = public.clone()
        child.apply(action)
        yield child


def _play(public: truco.PublicState, item: int, covered: bool) -> truco.PublicState:
    child = public.clone()
    child.play(0 if covered else item + 1, covered)
    return child


def _cover_options(public: truco.PublicState) -> tuple[bool, ...]:
    return (False, True) if public.may_cover() else (False,)


class HistoryCounter:
    """Nodes below a dealt hand pair (memo on machine key and both hands)."""

    def __init__(self):
        self.memo = {}

    def count(self, public: truco.PublicState, hands: tuple) -> int:
        key = (public.key(), hands)
        if key in self.memo:
            return self.memo[key]
        total = 1
        if not public.is_over():
            total += sum(self.count(child, hands) for child in _children(public))
            if public.is_card_turn():
                seat = public.card_player
                for item, held in enumerate(hands[seat]):
                    if held:
                        after = list(hands)
                        after[seat] = _removed(hands[seat], item)
                        for covered in _cover_options(public):
                            total += self.count(_play(public, item, covered), tuple(after))
        self.memo[key] = total
        return total


class ViewCounter:
    """Decision nodes of `player`'s view tree (his information states)."""

    def __init__(self, rules: truco.Rules, player: int):
        self.rules, self.player, self.memo = rules, player, {}

    def count(self, public: truco.PublicState, own: tuple, unseen: tuple,
              opponent_left: int) -> int:
        capped = tuple(min(u, opponent_left) for u in unseen)
        key = (public.key(), own, capped)
        if key in self.memo:
            return self.memo[key]
        total = 0
        if not public.is_over():
            total += public.to_act == self.player
            total += sum(self.count(child, own, unseen, opponent_left)
                         for child in _children(public))
            if public.is_card_turn():
                total += self._card_plays(public, own, unseen, opponent_left)
        self.memo[key] = total
        return total

    def _card_plays(self, public, own, unseen, opponent_left) -> int:
        total = 0
        covers = _cover_options(public)
        if public.card_player == self.player:
            for item, held in enumerate(own):
                if held:
                    for covered in covers:
                        total += self.count(_play(public, item, covered), _removed(own, item),
                                            unseen, opponent_left)
            return total
        for item, left in enumerate(unseen):
            if left:
                total += self.count(_play(public, item, False), own, _removed(unseen, item),
                                    opponent_left - 1)
        if True in covers:
            total += self.count(_play(public, 0, True), own, unseen, opponent_left - 1)
        return total


def _deal_classes(rules: truco.Rules):
    """Every isomorphic deal (vira rank, hand 0 counts, hand 1 counts)."""
    for vira in range(rules.num_ranks):
        available = rules.class_counts(vira)
        for hand0 in _hands(rules, available):
            for hand1 in _hands(rules, _minus(available, hand0)):
                yield vira, hand0, hand1


def _roots(rules: truco.Rules):
    """Every (vira rank, own hand counts) of one player."""
    for vira in range(rules.num_ranks):
        available = rules.class_counts(vira)
        for hand in _hands(rules, available):
            yield vira, hand


def concrete_deals(rules: truco.Rules) -> int:
    cards_ = rules.deck.num_cards
    return math.perm(cards_, 2 * rules.hand_size + 1)


def chance_nodes(rules: truco.Rules) -> int:
    """Isomorphic chance nodes: the vira node, one per vira rank, one per (vira, hand 0)."""
    return 1 + rules.num_ranks + sum(1 for _ in _roots(rules))


def histories_of_deal(rules, counter, deal) -> int:
    """Nodes below one deal (strength classes do not depend on the vira once dealt)."""
    _, hand0, hand1 = deal
    return counter.count(_start(rules), (hand0, hand1))


def infosets_of_root(rules, counter, root) -> int:
    vira, hand = root
    unseen = _minus(rules.class_counts(vira), hand)
    return counter.count(_start(rules), hand, unseen, rules.hand_size)


def _estimate(values: list[int], population: int) -> dict:
    mean = statistics.fmean(values)
    spread = statistics.stdev(values) if len(values) > 1 else 0.0
    return {"estimate": population * mean,
            "half_width_95": 1.96 * population * spread / math.sqrt(len(values)),
            "sample": len(values), "population": population}


def sizes(game_string: str, samples: int = 0, seed: int = 0) -> dict:
    """Exact counts (samples=0) or sampled estimates of deals, histories and infosets."""
    rules = _load(game_string)
    started = time.time()
    deals = list(_deal_classes(rules))
    roots = list(_roots(rules))
    result = {"game": game_string, "isomorphic_deal_classes": len(deals),
              "concrete_deals": concrete_deals(rules)}
    rng = random.Random(seed)
    history_counter = HistoryCounter()
    chosen = rng.sample(deals, samples) if samples else deals
    below = [histories_of_deal(rules, history_counter, deal) for deal in chosen]
    if samples:
        history_memo = len(history_counter.memo)
        result["histories"] = _estimate(below, len(deals))
        result["histories"]["estimate"] += chance_nodes(rules)
        result["history_memo_entries"] = history_memo
    else:
        result["histories"] = chance_nodes(rules) + sum(below)
    result["infosets"] = {}
    for player in (0, 1):
        counter = ViewCounter(rules, player)
        picked = rng.sample(roots, samples) if samples else roots
        counts = [infosets_of_root(rules, counter, root) for root in picked]
        result["infosets"][f"player{player}"] = (_estimate(counts, len(roots)) if samples
                                                 else sum(counts))
    result["seconds"] = round(time.time() - started, 1)
    return result


def brute_force(game_string: str) -> dict:
    """Histories and per-player infosets by walking the isomorphic OpenSpiel game."""
    game = _isomorphic_game(game_string)
    histories, infosets = 0, ([set(), set()])
    stack = [game.new_initial_state()]
    while stack:
        state = stack.pop()
        histories += 1
        if state.is_terminal():
            continue
        if state.is_chance_node():
            stack += [state.child(a) for a, _ in state.chance_outcomes()]
            continue
        player = state.current_player()
        infosets[player].add(state.information_state_string(player))
        stack += [state.child(a) for a in state.legal_actions()]
    return {"histories": histories, "infosets": [len(s) for s in infosets]}


def check(game_strings: list[str]) -> None:
    """Raises AssertionError unless the counters equal the brute force on these games."""
    for game_string in game_strings:
        fast, slow = sizes(game_string), brute_force(game_string)
        got = [fast["infosets"]["player0"], fast["infosets"]["player1"]]
        assert (fast["histories"], got) == (slow["histories"], slow["infosets"]), (fast, slow)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="+")
    parser.add_argument("--samples", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    if args.check:
        check(["python_truco_paulista(deck=clean,num_ranks=2,hand_size=1)",
               "python_truco_paulista(deck=clean,num_ranks=3,hand_size=2,covered_from_round=1)",
               "python_truco_paulista(deck=clean,num_ranks=3,hand_size=2,score0=11,score1=3)"])
        print(json.dumps({"check": "counters equal brute force"}), flush=True)
    for game_string in args.games:
        print(json.dumps(sizes(game_string, args.samples, args.seed)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
