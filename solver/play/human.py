"""A person plays a whole match in the terminal against a bot or a saved solution
(`tricksolver play`).

The match is a sequence of hands of the concrete game, each with the match's scores and dealer
as its parameters (`score0`, `score1`, `dealer`: the rest, the hand of eleven and the iron hand
play as the rules say at that score), the dealer alternating, until a player reaches the
game's target. Chance and the opponent draw from one seed.

Against a solution (`solver.play.strategy.Solution`) the opponent plays its average policy.
A hand-level solution is solved for one score and dealer; at the others it is used as it is:
its strategy for the same cards and actions, seats swapped when the other player deals (the
screen says so, since that is an approximation: a match-level solution is what `solve-match`
computes). Where the hand has decisions the solution does not (a Truco hand of eleven against
a solution at 0-0) the opponent plays the fallback bot, and says so.

`--hint` shows the solution's frequencies at each of the person's decisions and, for public-
tree solutions, each action's EV (points per hand for the person if he plays that action and
the solution plays on). After each hand a review sets the person's decisions beside the
solution's, with the EV each one cost (best action's EV minus the chosen one's).
"""
from __future__ import annotations

import dataclasses
import re
from typing import Callable

import numpy as np
import pyspiel

from solver.play.bots import make_bot
from solver.play.sampling import draw_action
from solver.play.strategy import OutsideSolution, Solution

FALLBACK_BOT = "heuristic"


@dataclasses.dataclass
class Advice:
    """The solution at one of the person's decisions: per legal action its probability and EV
    (None where the solution gives no EVs)."""

    probabilities: dict[int, float]
    values: dict[int, float] | None
    off_path: bool = False  # the solution never plays to here: its mix is arbitrary


@dataclasses.dataclass
class Reviewed:
    """One decision of the person: what he chose, and the solution's advice there."""

    chosen: int
    chosen_name: str
    advice: Advice | None
    names: dict[int, str]


class Opponent:
    """The person's opponent: a bot spec, or a result directory (with its fallback bot)."""

    def __init__(self, spec: str, game, solution: Solution | None, seed: int):
        self.spec, self.solution = spec, solution
        self.rng = np.random.default_rng(seed)
        if solution is None:
            make_bot(spec, game, seed)  # a bad bot spec fails here, before the first card

    def bot_for(self, hand_game) -> pyspiel.Bot | None:
        """The bot spec's bot for one hand (None when a solution plays)."""
        if self.solution is not None:
            return None
        return make_bot(self.spec, hand_game, int(self.rng.integers(2**31)))

    def step(self, state, bot) -> tuple[int, str]:
        """(action, a note for the screen or '')."""
        if bot is not None:
            return bot.step(state), ""
        try:
            probabilities = self.solution.probabilities(state)
        except OutsideSolution as error:
            fallback = make_bot(FALLBACK_BOT, state.get_game(), int(self.rng.integers(2**31)))
            return fallback.step(state), f" ({FALLBACK_BOT} bot: {error})"
        return draw_action(probabilities, self.rng), ""


def play_match(game, opponent: Opponent, seat: int, seed: int, hint: bool,
               read_line: Callable[[], str | None], write: Callable[[str], None]) -> list[int]:
    """Play hands until a player reaches the target (or input ends); returns the scores."""
    params = game.get_parameters()
    target = int(params["target"])
    scores = [int(params.get("score0", 0)), int(params.get("score1", 0))]
    dealer = int(params.get("dealer", 1)) % 2
    rng = np.random.default_rng(seed)
    number = 0
    if opponent.solution is not None:
        write(opponent.solution.describe())
    while max(scores) < target:
        number += 1
        hand_game = pyspiel.load_game(game.get_type().short_name, {
            **params, "score0": scores[0], "score1": scores[1], "dealer": dealer})
        write(_banner(number, scores, seat, dealer, target))
        state, stopped, reviewed = _play_hand(hand_game, opponent, seat, rng, hint,
                                              read_line, write)
        if stopped:
            write(f"Final score: You {scores[seat]} - {scores[1 - seat]} Opponent "
                  f"(stopped: end of input)")
            return scores
        points = state.returns()
        winner = int(np.argmax(points)) if max(points) > 0 else None
        write(f"Hands dealt: You {_dealt_hand(state, seat)} · Opponent "
              f"{_dealt_hand(state, 1 - seat)}")
        if winner is None:
            write("Nobody scores this hand.")
        else:
            scores[winner] += int(points[winner])
            write(f"{'You win' if winner == seat else 'The opponent wins'} "
                  f"{int(points[winner])} point{'s' if points[winner] != 1 else ''}.")
        write(_review(reviewed))
        dealer = 1 - dealer
    outcome = "You win the match." if scores[seat] >= target else "The opponent wins the match."
    write(f"Final score: You {scores[seat]} - {scores[1 - seat]} Opponent. {outcome}")
    return scores


def _dealt_hand(state, seat: int) -> str:
    """The seat's hand as dealt (after a redeal, the new one), from his information state."""
    parts = state.information_state_string(seat).split(" | ")
    hands = [part.removeprefix("hand ") for part in parts if part.startswith("hand ")]
    return hands[-1] if hands else "?"


def _banner(number: int, scores, seat: int, dealer: int, target: int) -> str:
    who = "you deal" if dealer == seat else "the opponent deals"
    return (f"\n=== Hand {number} · You {scores[seat]} - {scores[1 - seat]} Opponent · to "
            f"{target} · {who} (you are seat {seat}) ===")


def _play_hand(game, opponent: Opponent, seat: int, rng, hint: bool, read_line, write):
    """(terminal state or the state where input ended, stopped?, the person's decisions)."""
    state = game.new_initial_state()
    bot = opponent.bot_for(game)
    reviewed: list[Reviewed] = []
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probabilities = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(actions, p=np.array(probabilities))))
            continue
        player = state.current_player()
        if player != seat:
            action, note = opponent.step(state, bot)
            write(f"Opponent: {state.action_to_string(player, action)}{note}")
            state.apply_action(action)
            continue
        advice = _advice(opponent.solution, state)
        names = {a: state.action_to_string(player, a) for a in state.legal_actions()}
        write(_table(state, seat, names, advice if hint else None))
        action = _ask(names, read_line, write)
        if action is None:
            return state, True, reviewed
        write(f"You: {names[action]}")
        reviewed.append(Reviewed(action, names[action], advice, names))
        state.apply_action(action)
    return state, False, reviewed


def _advice(solution: Solution | None, state) -> Advice | None:
    """The solution's advice at the person's decision (None without one, or outside it)."""
    if solution is None:
        return None
    try:
        probabilities, values, off_path = solution.advice(state)
    except OutsideSolution:
        return None
    return Advice(probabilities, values, off_path)


def _table(state, seat: int, names: dict[int, str], advice: Advice | None) -> str:
    """The person's view: his information state in words and the numbered actions."""
    lines = []
    parts = state.information_state_string(seat).split(" | ")[1:]
    last_hand = max(k for k, part in enumerate(parts) if part.startswith("hand "))
    for k, part in enumerate(parts):
        if re.match(r"\d:", part):
            moves = [("You" if move[0] == str(seat) else "Opponent") + ": " + move[2:]
                     for move in part.split(", ")]
            lines.append("  So far: " + " · ".join(moves))
        elif part.startswith("hand "):
            label = "Your hand" if k == last_hand else "Your hand before the redeal"
            lines.append(f"  {label}: " + part.removeprefix("hand "))
        else:
            text = part.replace(" ", ": ", 1)
            lines.append("  " + text[:1].upper() + text[1:])
    stake = _stake(state)
    if stake is not None:
        lines.append(f"  Stake: {stake}")
    if advice is not None and advice.off_path:
        lines.append("  (off the solution's path: it never plays to here with this hand, so "
                     "its mix is arbitrary; the EVs hold)")
    width = max(map(len, names.values()))
    for k, (action, name) in enumerate(names.items(), 1):
        extra = ""
        if advice is not None:
            p = advice.probabilities.get(action, 0.0)
            extra = f"   solution {100 * p:5.1f}%"
            if advice.values is not None:
                extra += f", EV {advice.values[action]:+.2f}"
        lines.append(f"  {k}) {name:<{width}}{extra}")
    return "\n".join(lines)


def _stake(state) -> str | None:
    """The hand's current stake, where the game's state shows it (Le Truc: and whether a rest
    was agreed, which makes the hand decide the match)."""
    public = getattr(state, "public", None)
    stake = getattr(public, "stake", None)
    if stake is not None and getattr(public, "rest_agreed", False):
        return "the match (rest agreed: whoever wins this hand wins the match)"
    return None if stake is None else str(stake)


def _ask(names: dict[int, str], read_line, write) -> int | None:
    """The action the person types (a number or a name); None at the end of input."""
    actions = list(names)
    by_name = {name.lower(): action for action, name in names.items()}
    while True:
        line = read_line()
        if line is None:
            return None
        text = line.strip()
        if text.isdigit() and 1 <= int(text) <= len(actions):
            return actions[int(text) - 1]
        if text.lower() in by_name:
            return by_name[text.lower()]
        write(f"{text!r} is not one of the actions: type a number 1-{len(actions)} or an "
              f"action's name")


def _review(reviewed: list[Reviewed]) -> str:
    """The person's decisions of a hand beside the solution's, with the EV each cost."""
    advised = [r for r in reviewed if r.advice is not None]
    if not advised:
        return "Review: no solution to compare your decisions with."
    with_values = any(r.advice.values is not None for r in advised)
    lines = ["Review (your decision; the solution's"
             + ("; EV lost against its best action):" if with_values else
                "; this solution gives no EVs, a public-tree one does):")]
    for r in advised:
        ranked = sorted(r.advice.probabilities.items(), key=lambda item: -item[1])
        mix = ", ".join(f"{r.names[a]} {100 * p:.0f}%" for a, p in ranked if p >= 0.005)
        cost = ""
        if r.advice.values is not None:
            best = max(r.advice.values.values())
            cost = f"; cost {best - r.advice.values[r.chosen]:.3f} points"
        off = " (off its path: any mix)" if r.advice.off_path else ""
        lines.append(f"  {r.chosen_name} (solution{off}: {mix}){cost}")
    return "\n".join(lines)
