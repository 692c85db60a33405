"""Baseline bots: uniform random, a rule-based Two-Ten-Jack player, and OpenSpiel's IS-MCTS.

Every bot is a `pyspiel.Bot` built by `make_bot(spec, game, seed)`; randomness comes only from
`seed`. Specs: `random`, `heuristic`, `ismcts` or `ismcts:SIMULATIONS` (default 100), `pimc`,
`pimc:WORLDS` or `pimc:WORLDS:NODES` (perfect information Monte Carlo with the open-card
solver, `solver.play.pimc`: WORLDS sampled deals per move, default 32, each searched with a
budget of NODES nodes while the stock lasts, default 300,000; playing for the deal's points),
`pimc-match`, `pimc-match:WORLDS`, `pimc-match:WORLDS:NODES` alike but playing for the match in
a deal that can end it, or `pimc-match:WORLDS:NODES:NOISE` with the match odds averaged over a
normal error of NOISE points on a world's value (`PIMCBot.match_noise`, default 4; 0: none),
`pimc-infer`, `pimc-infer:WORLDS`, `pimc-infer:WORLDS:NODES` alike, playing for points, its
worlds weighted by the opponent's plays (`solver.play.inference`, model error
`pimc.DEFAULT_INFERENCE_ERROR`), and `cheater`, `cheater:WORLDS`, `cheater:WORLDS:NODES`: PIMC
that sees the opponent's hand (the stock's order stays chance), for matches only: what the
hidden hand costs (Two-Ten-Jack only).

The Two-Ten-Jack heuristic is `solver.play.two_ten_jack_heuristic`; on Le Truc and two-player
Truco `heuristic` is the human-like bot of `solver.play.truc_heuristic`.

`bot_policy(game, bot)` turns a bot into an OpenSpiel `TabularPolicy` (one query per information
state, at a representative state) so that `solver.exploitability` can measure it exactly; for
IS-MCTS that is one seeded search per information state, a sample of its stochastic policy.
`BotPolicy(game, bot)` is the same as a lazy OpenSpiel `Policy`, for games too large to list
every state: `solver.exploitability` asks it once per information state of the compiled tree,
at the tree's first history of that information state. Both give probability one to a single
legal action without asking the bot.

IS-MCTS is `open_spiel.python.algorithms.ismcts.ISMCTSBot` (Cowling, Powley & Whitehouse 2012)
with one random rollout per leaf (`mcts.RandomRolloutEvaluator`; on Two-Ten-Jack the same
rollout played in numba, `solver.play.rollout`), UCT constant `ISMCTS_UCT_C`, unlimited world
samples (each simulation resamples the hidden cards with the game's `resample_from_infostate`)
and the most visited action as its move.
"""
from __future__ import annotations

import numpy as np
import pyspiel
from open_spiel.python import policy as openspiel_policy
from open_spiel.python.algorithms import ismcts, mcts

from solver.play import pimc
from solver.play.rollout import PlayoutEvaluator
from solver.play.two_ten_jack_heuristic import HeuristicBot

ISMCTS_DEFAULT_SIMULATIONS = 100
ISMCTS_UCT_C = 10.0  # returns are deal points, typically within +-15
_PIMC_FAMILY = ("pimc", "pimc-match", "pimc-infer", "cheater")  # specs of solver.play.pimc


class UniformRandomBot(pyspiel.Bot):
    """Plays a uniformly random legal action."""

    def __init__(self, seed: int):
        """A bot drawing from `np.random.default_rng(seed)`."""
        pyspiel.Bot.__init__(self)
        self._rng = np.random.default_rng(seed)

    def action_probabilities(self, state) -> dict[int, float]:
        """Uniform over the legal actions."""
        legal = state.legal_actions()
        return {a: 1.0 / len(legal) for a in legal}

    def step(self, state) -> int:
        """A uniform legal action."""
        return int(self._rng.choice(state.legal_actions()))

    def restart_at(self, state):
        """Stateless: nothing to do."""


def ismcts_bot(game, seed: int, simulations: int = ISMCTS_DEFAULT_SIMULATIONS,
               python_rollouts: bool = False):
    """OpenSpiel's IS-MCTS with random rollouts, seeded; on Two-Ten-Jack the rollouts run in
    numba unless `python_rollouts` (OpenSpiel's own, for `tricksolver bench --ismcts`)."""
    random_state = np.random.RandomState(seed)
    if game.get_type().short_name == "python_two_ten_jack" and not python_rollouts:
        evaluator = PlayoutEvaluator(game, random_state)
    else:
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=random_state)
    bot = ismcts.ISMCTSBot(game, evaluator, ISMCTS_UCT_C, max_simulations=simulations,
                           random_state=random_state)
    bot.set_resampler(
        lambda state, player: state.resample_from_infostate(player, random_state.uniform))
    return bot


def make_bot(spec: str, game, seed: int) -> pyspiel.Bot:
    """A bot from its spec (`random`, `heuristic`, `ismcts`, `ismcts:SIMULATIONS`, `pimc`,
    `pimc:WORLDS`, `pimc:WORLDS:NODES`, `pimc-match` alike or `pimc-match:WORLDS:NODES:NOISE`,
    `pimc-infer` alike: with inference, `cheater` alike: PIMC seeing the opponent's hand,
    `solver.play.pimc.CheaterBot`)."""
    name, _, argument = spec.partition(":")
    if name == "random" and not argument:
        return UniformRandomBot(seed)
    if name == "strategy":
        if not argument:
            raise ValueError(f"bad bot {spec!r}: strategy:DIR, DIR a result directory")
        from solver.play.strategy import StrategyBot  # loads the solver: only when asked for
        return StrategyBot(game, argument, seed)
    if name == "heuristic" and not argument:
        if game.get_type().short_name == "python_two_ten_jack":
            return HeuristicBot(game)
        from solver.play.truc_heuristic import heuristic_bot
        return heuristic_bot(game, seed)
    if name == "ismcts":
        if argument and (not argument.isdigit() or int(argument) < 1):
            raise ValueError(f"bad bot {spec!r}: ismcts:SIMULATIONS needs a positive integer")
        return ismcts_bot(game, seed, int(argument) if argument else ISMCTS_DEFAULT_SIMULATIONS)
    if name in _PIMC_FAMILY:
        numbers = argument.split(":") if argument else []
        noise = numbers.pop() if name == "pimc-match" and len(numbers) == 3 else None
        if (len(numbers) > 2 or any(not n.isdigit() or int(n) < 1 for n in numbers)
                or (noise is not None and not _is_non_negative_number(noise))):
            raise ValueError(f"bad bot {spec!r}: {name}, {name}:WORLDS or {name}:WORLDS:NODES "
                             "with positive integers (pimc-match:WORLDS:NODES:NOISE with "
                             "NOISE >= 0)")
        settings = dict(zip(("worlds", "node_budget"), map(int, numbers)))
        if noise is not None:
            settings["match_noise"] = float(noise)
        if name == "cheater":
            return pimc.CheaterBot(game, seed, **settings)
        if name == "pimc-infer":
            settings["inference_error"] = pimc.DEFAULT_INFERENCE_ERROR
        return pimc.PIMCBot(game, seed, match_aware=name == "pimc-match", **settings)
    raise ValueError(f"unknown bot {spec!r}: use random, heuristic, ismcts, "
                     "ismcts:SIMULATIONS, pimc, pimc:WORLDS or pimc:WORLDS:NODES (pimc-match "
                     "alike, or pimc-match:WORLDS:NODES:NOISE; pimc-infer alike: with inference; "
                     "cheater alike: PIMC that sees the opponent's hand)")


def _is_non_negative_number(text: str) -> bool:
    """Whether `text` is a finite number >= 0 (`0`, `4`, `2.5`)."""
    try:
        return 0.0 <= float(text) < float("inf")
    except ValueError:
        return False


def policy_depends_on_seed(spec: str) -> bool:
    """Whether a bot's policy, not only its moves, depends on its seed: IS-MCTS's and PIMC's
    (their samples) do."""
    return spec.partition(":")[0] in ("ismcts", *_PIMC_FAMILY)


def bot_probabilities(bot, state) -> dict[int, float]:
    """{action: probability} of `bot` at `state`; a single legal action without asking the bot.

    Uses `bot.action_probabilities(state)` where the bot has it, else `bot.get_policy(state)`.
    """
    legal = state.legal_actions()
    if len(legal) == 1:
        return {legal[0]: 1.0}
    if hasattr(bot, "action_probabilities"):
        return bot.action_probabilities(state)
    return dict(bot.get_policy(state))


def refuse_hidden_cards(bot) -> None:
    """ValueError (one line) for a bot that reads the opponent's cards: its moves are no
    function of the information state, so it is not a policy."""
    if getattr(bot, "sees_hidden_cards", False):
        raise ValueError(f"{type(bot).__name__} sees the opponent's hand: it plays matches, it "
                         f"is not a policy of information states")


def bot_policy(game, bot) -> openspiel_policy.TabularPolicy:
    """`bot`'s play as a TabularPolicy over every information state of `game` (small games)."""
    refuse_hidden_cards(bot)
    table = openspiel_policy.TabularPolicy(game)
    for index, state in enumerate(table.states):
        row = table.action_probability_array[index]
        row[:] = 0.0
        for action, probability in bot_probabilities(bot, state).items():
            row[action] = probability
    return table


class BotPolicy(openspiel_policy.Policy):
    """`bot` as an OpenSpiel Policy, asked at each state it is given (large games)."""

    def __init__(self, game, bot):
        """Both players play `bot` (`refuse_hidden_cards`)."""
        refuse_hidden_cards(bot)
        super().__init__(game, list(range(game.num_players())))
        self.bot = bot

    def action_probabilities(self, state, player_id=None) -> dict[int, float]:
        """The bot's probabilities at `state` (see `bot_probabilities`)."""
        return bot_probabilities(self.bot, state)
