"""Duplicate matches between bots: `tricksolver match GAME --bot A --bot B --hands N --seed S`.

Each deal is played twice with the seats swapped: the chance outcomes come from one shuffled
deck per deal (every chance node takes the next card of the shuffle, which is exactly uniform
over the undealt cards), so both bots face the same cards from both seats. Chance nodes whose
outcomes are not equally likely (an isomorphic game's whole hands of rank classes) draw by
their probabilities from a generator seeded per deal, the same draws in both games. Matches
are between two players (Truco: `num_players`=2). A deal's figure is
bot A's points averaged over its two games; the match reports the mean over deals and a 95%
confidence interval (normal approximation, mean ± 1.96 standard errors).

Runs of the same bots on the same game (e.g. a long match split in parts with different seeds)
pool into one: `pool_matches` recomputes the mean and the interval over all their deals. A
record's game string is canonicalised when it is read (`canonical_game_string`: every
parameter, defaults included), so records written before a game printed a default parameter
pool with later ones.

The match also times every move of each bot (wall clock of `bot.step`, milliseconds; median,
95th percentile, mean and count in `move_ms`). The timings depend on the machine and its load:
they are not part of the reproducible result (not compared, not pooled).

Randomness: the shuffles and the bots' seeds derive from `seed` only: deal k's seed is the k-th
child of `numpy.random.SeedSequence(seed)`, whatever the number of deals. So a match can stop
and continue (`MatchProgress`, saved after every deal by `tricksolver match --json PATH`,
continued by `--resume`) and gives the same deal points as one played in a single run.
"""
from __future__ import annotations

import math
import sys
import time
from dataclasses import MISSING, dataclass, field, fields

import numpy as np
import pyspiel
from tqdm import tqdm

import games  # noqa: F401  (registers the python_* games, for canonical_game_string)
from solver.play.bots import make_bot

Z_95 = 1.959963984540054


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
    # {"a": {...}, "b": {...}}: each bot's milliseconds per move (`move_time_stats`); None in
    # records written before the match timed its moves. Not compared: timings vary run to run.
    move_ms: dict | None = field(default=None, compare=False)

    @classmethod
    def from_record(cls, record: dict) -> MatchSummary:
        """A summary from its JSON record (`tricksolver match --json`), its game string
        canonicalised (`canonical_game_string`); ValueError if malformed."""
        required = [f.name for f in fields(cls) if f.default is MISSING]
        missing = ([name for name in required if name not in record]
                   if isinstance(record, dict) else required)
        if missing:
            raise ValueError(f"not a match record: no {', '.join(missing)}")
        values = {f.name: record[f.name] for f in fields(cls) if f.name in record}
        values["game"] = canonical_game_string(record["game"])
        values["deal_points"] = tuple(float(p) for p in record["deal_points"])
        summary = cls(**values)
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


def canonical_game_string(game_string: str) -> str:
    """The game string as the loaded game prints it (every parameter, defaults included), e.g.
    `python_two_ten_jack` -> `python_two_ten_jack(dealer=1,...,suits=c:d:h:s,target=31)`; the
    string unchanged if no registered game loads from it."""
    try:
        return str(pyspiel.load_game(game_string))
    except pyspiel.SpielError:
        return game_string


def move_time_stats(seconds) -> dict:
    """Milliseconds per move from the moves' durations in seconds: median, p95, mean, count."""
    ms = 1000.0 * np.asarray(seconds, dtype=float)
    if ms.size == 0:
        return {"moves": 0}
    return {"median": float(np.median(ms)), "p95": float(np.percentile(ms, 95)),
            "mean": float(ms.mean()), "moves": int(ms.size)}


def confidence_interval(points) -> tuple[float, float, float]:
    """Mean of per-deal points and its 95% confidence interval (mean ± 1.96 s.e.)."""
    mean = float(np.mean(points))
    half_width = Z_95 * float(np.std(points, ddof=1)) / math.sqrt(len(points))
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


def play_game(game, bots, deck_order, move_seconds=None, chance_seed=0):
    """Plays one game, `bots[p]` in seat p, chance taking the first outcome in `deck_order`
    (weighted outcomes: drawn from a generator seeded with `chance_seed`, see `chance_action`);
    returns the terminal state. With `move_seconds` (a list per seat), appends the wall-clock
    duration of each move to the mover's list."""
    state = game.new_initial_state()
    draws = np.random.default_rng(chance_seed)
    while not state.is_terminal():
        if state.is_chance_node():
            action = chance_action(state, deck_order, draws)
        else:
            player = state.current_player()
            start = time.perf_counter()
            action = bots[player].step(state)
            if move_seconds is not None:
                move_seconds[player].append(time.perf_counter() - start)
            if action not in state.legal_actions():
                raise RuntimeError(f"bot {bots[player]} played illegal {action}")
        state.apply_action(action)
    return state


def chance_action(state, deck_order, draws: np.random.Generator) -> int:
    """The first outcome in `deck_order` if all are equally likely (the next card of the
    shuffle), else one drawn from `draws` by its probability."""
    outcomes, probabilities = zip(*state.chance_outcomes())
    if max(probabilities) - min(probabilities) > 1e-12:
        return int(draws.choice(outcomes, p=probabilities))
    possible = set(outcomes)
    return next(int(card) for card in deck_order if card in possible)


def duplicate_deal(game, spec_a: str, spec_b: str, deal_seed: np.random.SeedSequence,
                   move_seconds=None) -> float:
    """Bot A's mean points over one deal played from both seats. With `move_seconds` (lists for
    bot A and bot B), appends each bot's move durations to its list."""
    deck_seed, *bot_seeds = deal_seed.spawn(5)
    deck_order = np.random.default_rng(deck_seed).permutation(game.max_chance_outcomes())
    [chance_seed] = deck_seed.spawn(1)
    seeds = [int(s.generate_state(1)[0]) for s in bot_seeds]
    a, b = move_seconds if move_seconds is not None else (None, None)
    a_first = play_game(game, [make_bot(spec_a, game, seeds[0]),
                               make_bot(spec_b, game, seeds[1])], deck_order,
                        None if a is None else [a, b], chance_seed).returns()
    a_second = play_game(game, [make_bot(spec_b, game, seeds[2]),
                                make_bot(spec_a, game, seeds[3])], deck_order,
                         None if a is None else [b, a], chance_seed).returns()
    return (a_first[0] + a_second[1]) / 2.0


@dataclass
class MatchProgress:
    """The deals played so far of a match (`play_match`): what it needs to continue, as saved
    between deals. `move_seconds` holds bot A's and bot B's move durations."""

    game: str
    bot_a: str
    bot_b: str
    deals: int
    seed: int
    deal_points: list[float] = field(default_factory=list)
    move_seconds: tuple[list[float], list[float]] = field(default_factory=lambda: ([], []))

    @classmethod
    def from_record(cls, record: dict) -> MatchProgress:
        """Progress from its JSON record (`dataclasses.asdict`); ValueError if malformed."""
        names = [f.name for f in fields(cls)]
        if not isinstance(record, dict) or any(name not in record for name in names):
            raise ValueError(f"not a match in progress: it needs {', '.join(names)}")
        try:
            a, b = record["move_seconds"]
            return cls(**{**record, "deal_points": [float(p) for p in record["deal_points"]],
                          "move_seconds": ([float(t) for t in a], [float(t) for t in b])})
        except (TypeError, ValueError) as error:
            raise ValueError(f"not a match in progress: {error}") from error

    def check_continues(self, game: str, bot_a: str, bot_b: str, deals: int, seed: int):
        """ValueError unless this progress is of the match described (the same game, bots,
        seed and number of deals) and holds fewer deals than it."""
        wanted = {"game": game, "bot_a": bot_a, "bot_b": bot_b, "deals": deals, "seed": seed}
        differ = [f"{key} {getattr(self, key)!r} (asked {value!r})"
                  for key, value in wanted.items() if getattr(self, key) != value]
        if differ:
            raise ValueError(f"the saved match differs: {'; '.join(differ)}")
        if len(self.deal_points) > deals:
            raise ValueError(f"the saved match holds {len(self.deal_points)} deal points, "
                             f"more than its {deals} deals")


def play_match(game, spec_a: str, spec_b: str, deals: int, seed: int,
               progress: bool = True, resume: MatchProgress | None = None,
               after_deal=None) -> MatchSummary:
    """`deals` duplicate deals of bot A against bot B, with a progress bar on stderr (the mean
    so far as its postfix) unless `progress` is False. With `resume` (the progress of the same
    match, `MatchProgress.check_continues`), plays only the deals it lacks; `after_deal`, if
    given, is called with the `MatchProgress` after every deal (to save it)."""
    if deals < 2:
        raise ValueError(f"deals={deals}: a confidence interval needs at least 2 deals")
    if game.num_players() != 2:
        raise ValueError(f"{game} has {game.num_players()} players: a match is between two")
    for spec in (spec_a, spec_b):
        make_bot(spec, game, 0)
    done = MatchProgress(str(game), spec_a, spec_b, deals, seed)
    if resume is not None:
        resume.check_continues(str(game), spec_a, spec_b, deals, seed)
        done.deal_points.extend(resume.deal_points)
        for mine, saved in zip(done.move_seconds, resume.move_seconds):
            mine.extend(saved)
    points = done.deal_points
    deal_seeds = np.random.SeedSequence(seed).spawn(deals)[len(points):]
    with tqdm(deal_seeds, desc=f"{spec_a} vs {spec_b}", unit="deal", file=sys.stderr,
              disable=not progress, initial=len(points), total=deals) as bar:
        for deal_seed in bar:
            points.append(duplicate_deal(game, spec_a, spec_b, deal_seed, done.move_seconds))
            bar.set_postfix(mean=f"{np.mean(points):+.2f}", refresh=False)
            if after_deal is not None:
                after_deal(done)
    return MatchSummary(str(game), spec_a, spec_b, deals, seed, *confidence_interval(points),
                        tuple(points), {"a": move_time_stats(done.move_seconds[0]),
                                        "b": move_time_stats(done.move_seconds[1])})


def format_summary(summary: MatchSummary) -> str:
    """One line: `heuristic vs random: +3.21 points per deal for heuristic, 95% CI [...]`."""
    return (f"{summary.bot_a} vs {summary.bot_b} on {summary.game}: "
            f"{summary.mean:+.3f} points per deal for {summary.bot_a}, "
            f"95% CI [{summary.ci_low:+.3f}, {summary.ci_high:+.3f}] "
            f"over {summary.deals} duplicate deals ({2 * summary.deals} games), seed {summary.seed}"
            + _format_move_ms(summary))


def _format_move_ms(summary: MatchSummary) -> str:
    """`; ms per move (median, p95): A 12.0, 30.1; B 0.1, 0.2`, or nothing if not timed."""
    if not summary.move_ms or not all(summary.move_ms.get(k, {}).get("moves") for k in "ab"):
        return ""
    a, b = summary.move_ms["a"], summary.move_ms["b"]
    return (f"; ms per move (median, p95): {summary.bot_a} {a['median']:.2f}, {a['p95']:.2f}; "
            f"{summary.bot_b} {b['median']:.2f}, {b['p95']:.2f}")
