"""Duplicate matches between bots: `tricksolver match GAME --bot A --bot B --hands N --seed S`.

Each deal is played twice with the seats swapped: the chance outcomes come from one shuffled
deck per deal (every chance node takes the next card of the shuffle, which is exactly uniform
over the undealt cards), so both bots face the same cards from both seats. A deal's figure is
bot A's points averaged over its two games; the match reports the mean over deals and a 95%
confidence interval (normal approximation, mean ± 1.96 standard errors).

Randomness: the shuffles and the bots' seeds derive from `seed` only.
"""
from __future__ import annotations

import json
import math
import shlex
from dataclasses import asdict, dataclass

import numpy as np
import pyspiel

import games  # noqa: F401  (registers the games)
from solver.bots import make_bot

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
    mean = float(np.mean(points))
    half_width = _Z_95 * float(np.std(points, ddof=1)) / math.sqrt(deals)
    return MatchSummary(str(game), spec_a, spec_b, deals, seed, mean, mean - half_width,
                        mean + half_width, tuple(points))


def format_summary(summary: MatchSummary) -> str:
    """One line: `heuristic vs random: +3.21 points per deal for heuristic, 95% CI [...]`."""
    return (f"{summary.bot_a} vs {summary.bot_b} on {summary.game}: "
            f"{summary.mean:+.3f} points per deal for {summary.bot_a}, "
            f"95% CI [{summary.ci_low:+.3f}, {summary.ci_high:+.3f}] "
            f"over {summary.deals} duplicate deals ({2 * summary.deals} games), seed {summary.seed}")


def add_parser(subparsers):
    """Registers `match`."""
    parser = subparsers.add_parser(
        "match", help="play two bots against each other on duplicate deals",
        description="Plays bot A against bot B; each deal twice with seats swapped. Prints bot "
        "A's mean points per deal with a 95% confidence interval.")
    parser.add_argument("game", help='game string, e.g. "python_two_ten_jack(hand_size=6)"')
    parser.add_argument("--bot", action="append", required=True, metavar="SPEC",
                        help="random, heuristic, ismcts or ismcts:SIMULATIONS; give it twice")
    parser.add_argument("--hands", type=int, default=1000, help="duplicate deals (1000)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (0)")
    parser.add_argument("--json", metavar="PATH",
                        help="also write the summary, per-deal points and command as JSON")
    parser.set_defaults(func=run)


def run(args) -> int:
    """Runs the match and prints its summary line."""
    if len(args.bot) != 2:
        raise ValueError(f"--bot must be given exactly twice, got {len(args.bot)}")
    game = pyspiel.load_game(args.game)
    summary = play_match(game, args.bot[0], args.bot[1], args.hands, args.seed)
    print(format_summary(summary))
    if args.json:
        record = {**asdict(summary), "command": _command_line(args)}
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(record, handle, indent=1)
    return 0


def _command_line(args) -> str:
    """The command that reproduces this match."""
    bots = " ".join(f"--bot {shlex.quote(spec)}" for spec in args.bot)
    return (f"tricksolver match {shlex.quote(args.game)} {bots} --hands {args.hands} "
            f"--seed {args.seed}")
