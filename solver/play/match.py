"""Duplicate matches between bots: `tricksolver match GAME --bot A --bot B --hands N --seed S`.

Each deal is played twice with the seats swapped: the chance outcomes come from one shuffled
deck per deal (every chance node takes the next card of the shuffle, which is exactly uniform
over the undealt cards), so both bots face the same cards from both seats. A deal's figure is
bot A's points averaged over its two games; the match reports the mean over deals and a 95%
confidence interval (normal approximation, mean ± 1.96 standard errors).

Runs of the same bots on the same game (e.g. a long match split in parts with different seeds)
pool into one: `pool_matches` recomputes the mean and the interval over all their deals.

Randomness: the shuffles and the bots' seeds derive from `seed` only.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

from solver.play.bots import make_bot

_Z_95 = 1.959963984540054


@dataclass(frozen=True)
class MatchSummary:
    """Bot A's points per duplicate deal against bot B, with a 95% confidence interval."""

    game: str
    bot_a: str
    bot_b: str
    deals: int
    seed: int
    mean: float
    ci_low: float
    ci_high: float
    deal_points: tuple[float, ...]

    @classmethod
    def from_record(cls, record: dict) -> MatchSummary:
        """A summary from its JSON record (`tricksolver match --json`); ValueError if malformed."""
        names = [field.name for field in fields(cls)]
        missing = ([name for name in names if name not in record] if isinstance(record, dict)
                   else names)
        if missing:
            raise ValueError(f"not a match record: no {', '.join(missing)}")
        summary = cls(**{name: record[name] for name in names if name != "deal_points"},
                      deal_points=tuple(float(p) for p in record["deal_points"]))
        if len(summary.deal_points) != summary.deals:
            raise ValueError(f"match record of {summary.deals} deals holds "
                             f"{len(summary.deal_points)} deal points")
        return summary


@dataclass(frozen=True)
class PooledMatch:
    """Runs of bot A against bot B on one game pooled over all their deals; `runs` are the
    indices of the pooled runs in the list given to `pool_matches`."""

    game: str
    bot_a: str
    bot_b: str
    deals: int
    seeds: tuple[int, ...]
    mean: float
    ci_low: float
    ci_high: float
    runs: tuple[int, ...]


def confidence_interval(points) -> tuple[float, float, float]:
    """Mean of per-deal points and its 95% confidence interval (mean ± 1.96 s.e.)."""
    mean = float(np.mean(points))
    half_width = _Z_95 * float(np.std(points, ddof=1)) / math.sqrt(len(points))
    return mean, mean - half_width, mean + half_width


def pool_matches(summaries: list[MatchSummary]) -> list[PooledMatch]:
    """The runs grouped by game and bots (in order of first appearance), each group pooled.

    Raises ValueError if a group repeats a seed (the same deals counted twice).
    """
    groups: dict[tuple[str, str, str], list[int]] = {}
    for index, summary in enumerate(summaries):
        groups.setdefault((summary.game, summary.bot_a, summary.bot_b), []).append(index)
    return [_pooled([summaries[i] for i in runs], tuple(runs)) for runs in groups.values()]


def _pooled(runs: list[MatchSummary], indices: tuple[int, ...]) -> PooledMatch:
    """One group of runs of the same pairing as one match."""
    seeds = tuple(run.seed for run in runs)
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"runs of {runs[0].bot_a} vs {runs[0].bot_b} repeat a seed "
                         f"({', '.join(map(str, seeds))}): their deals would count twice")
    points = [point for run in runs for point in run.deal_points]
    return PooledMatch(runs[0].game, runs[0].bot_a, runs[0].bot_b, len(points), seeds,
                       *confidence_interval(points), indices)


def play_game(game, bots, deck_order) -> list[float]:
    """Plays one game, `bots[p]` in seat p; chance takes the first outcome in `deck_order`."""
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = {a for a, _ in state.chance_outcomes()}
            action = next(int(card) for card in deck_order if card in outcomes)
        else:
            action = bots[state.current_player()].step(state)
            if action not in state.legal_actions():
                raise RuntimeError(f"bot {bots[state.current_player()]} played illegal {action}")
        state.apply_action(action)
    return state.returns()


def duplicate_deal(game, spec_a: str, spec_b: str, deal_seed: np.random.SeedSequence) -> float:
    """Bot A's mean points over one deal played from both seats."""
    deck_seed, *bot_seeds = deal_seed.spawn(5)
    deck_order = np.random.default_rng(deck_seed).permutation(game.max_chance_outcomes())
    seeds = [int(s.generate_state(1)[0]) for s in bot_seeds]
    a_first = play_game(game, [make_bot(spec_a, game, seeds[0]),
                               make_bot(spec_b, game, seeds[1])], deck_order)
    a_second = play_game(game, [make_bot(spec_b, game, seeds[2]),
                                make_bot(spec_a, game, seeds[3])], deck_order)
    return (a_first[0] + a_second[1]) / 2.0


def play_match(game, spec_a: str, spec_b: str, deals: int, seed: int) -> MatchSummary:
    """`deals` duplicate deals of bot A against bot B."""
    if deals < 2:
        raise ValueError(f"deals={deals}: a confidence interval needs at least 2 deals")
    for spec in (spec_a, spec_b):
        make_bot(spec, game, 0)
    points = [duplicate_deal(game, spec_a, spec_b, deal_seed)
              for deal_seed in np.random.SeedSequence(seed).spawn(deals)]
    return MatchSummary(str(game), spec_a, spec_b, deals, seed, *confidence_interval(points),
                        tuple(points))


def format_summary(summary: MatchSummary) -> str:
    """One line: `heuristic vs random: +3.21 points per deal for heuristic, 95% CI [...]`."""
    return (f"{summary.bot_a} vs {summary.bot_b} on {summary.game}: "
            f"{summary.mean:+.3f} points per deal for {summary.bot_a}, "
            f"95% CI [{summary.ci_low:+.3f}, {summary.ci_high:+.3f}] "
            f"over {summary.deals} duplicate deals ({2 * summary.deals} games), seed {summary.seed}")
