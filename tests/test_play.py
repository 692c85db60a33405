"""Saved solutions at the table (`solver.play.strategy`, `solver.play.human`, `tricksolver
play`, `--bot strategy:DIR`): a concrete game read through a solution of its isomorphic game,
a whole match driven by piped input, and the one-line errors."""
from __future__ import annotations

import io
import json

import numpy as np
import pytest

from solver import cli
from solver.play.bots import make_bot
from solver.play.strategy import Solution, swap_seats
from solver.registry import load_game

SOLVED = "python_le_truc(num_ranks=4,hand_size=2,isomorphic=true,target=3)"
CONCRETE = "python_le_truc(num_ranks=4,hand_size=2,target=3)"


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    """A public-tree solution (redeal included) of a small Le Truc with a match to 3."""
    out = tmp_path_factory.mktemp("play") / "solution"
    assert cli.main(["solve", SOLVED, "--engine", "public", "--iterations", "60", "--quiet",
                     "--out", str(out)]) == 0
    return out


def _random_states(game, count: int, seed: int):
    """Decision states of `count` random playouts."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probabilities = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(actions, p=np.array(probabilities))))
                continue
            yield state
            state.apply_action(int(rng.choice(state.legal_actions())))


def test_a_concrete_state_plays_its_isomorphic_decision(solved):
    """The solution read at concrete states: each isomorphic action's probability (the
    public solver's, found by the isomorphic information state) shared by the concrete cards
    of its rank."""
    from games.le_truc import isomorphic_action, isomorphic_information_state
    from solver import results
    from solver.public.policy import info_state_probabilities
    from solver.public.solve import solver_for

    concrete, iso_game = load_game(CONCRETE), load_game(SOLVED)
    solution = Solution(solved, concrete)
    solver = solver_for(iso_game, results.load_result(solved).policy)
    checked = 0
    for state in _random_states(concrete, 40, seed=1):
        mine = solution.probabilities(state)
        assert sorted(mine) == sorted(state.legal_actions())
        assert sum(mine.values()) == pytest.approx(1.0, abs=1e-12)
        player = state.current_player()
        expected = info_state_probabilities(solver, isomorphic_information_state(state, player))
        summed = {}
        for action, p in mine.items():
            iso = isomorphic_action(state.rules, action)
            summed[iso] = summed.get(iso, 0.0) + p
        assert summed == pytest.approx(expected, abs=1e-12)
        checked += 1
    assert checked > 100


@pytest.fixture(scope="module")
def solved_without_redeal(tmp_path_factory):
    """The same game without the redeal (after a redeal the strategy forgets the hand set
    aside, so own reach there is not the hand's own), solved long enough for the actions it
    rejects to fall below `OFF_PATH_REACH`."""
    out = tmp_path_factory.mktemp("play") / "no_redeal"
    assert cli.main(["solve", SOLVED.replace("target=3", "target=3,max_redeals=0"), "--engine",
                     "public", "--iterations", "400", "--quiet", "--out", str(out)]) == 0
    return out


def test_advice_flags_decisions_the_solution_never_plays_to(solved_without_redeal):
    """Once the acting player has taken an action the solution (almost) never takes, his
    later decisions of the hand are off its path (flagged); while every action so far had a
    clearly positive probability, they are not. Playouts take the least likely action half of
    the time."""
    from solver.analysis.decision import OFF_PATH_REACH
    from solver.play.human import Advice

    concrete = load_game(CONCRETE.replace("target=3", "target=3,max_redeals=0"))
    solution = Solution(solved_without_redeal, concrete)
    rng = np.random.default_rng(3)
    seen = {True: 0, False: 0}
    for _ in range(60):
        state, deviated, likely = concrete.new_initial_state(), [False, False], True
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probabilities = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(actions, p=np.array(probabilities))))
                continue
            player = state.current_player()
            advice = Advice(*solution.advice(state))
            if deviated[player]:
                assert advice.off_path
                seen[True] += 1
            elif likely:
                assert not advice.off_path
                seen[False] += 1
            action = (min(advice.probabilities, key=advice.probabilities.get)
                      if rng.random() < 0.5 else int(rng.choice(state.legal_actions())))
            p = advice.probabilities[action]
            deviated[player] |= p < OFF_PATH_REACH
            likely &= p > 0.05
            state.apply_action(action)
    assert seen[True] > 10 and seen[False] > 10, seen


def test_seats_swap_in_information_states():
    assert swap_seats("p1 | hand 7 A | 0:Keep, 1:Raise") == "p0 | hand 7 A | 1:Keep, 0:Raise"
    assert swap_seats("p0 | hand A A | 0:Ask redeal, 1:Agree | hand 8 K | 0:Raise") == \
        "p1 | hand A A | 1:Ask redeal, 0:Agree | hand 8 K | 1:Raise"


def test_other_games_are_refused(solved):
    with pytest.raises(ValueError, match="they differ in max_redeals"):
        Solution(solved, load_game("python_le_truc(num_ranks=4,hand_size=2,target=3,"
                                   "max_redeals=0)"))
    with pytest.raises(ValueError, match="differ in score0"):  # a bot plays the game solved
        Solution(solved, load_game(CONCRETE.replace(")", ",score0=1)")))
    Solution(solved, load_game(CONCRETE.replace(")", ",score0=1)")), other_scores=True)


def _play(monkeypatch, capsys, lines: str, *options: str) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(lines))
    code = cli.main(["play", CONCRETE, *options])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_whole_match_from_piped_input(solved, monkeypatch, capsys):
    """A bad line gets one line and the same decision again; the match runs to the target,
    each hand ends with its review, and the last line is the final score."""
    code, out, _ = _play(monkeypatch, capsys, "1\nzzz\n" + "1\n" * 400, "--against",
                         str(solved), "--hint", "--seed", "3")
    assert code == 0
    lines = out.strip().splitlines()
    assert lines[-1].startswith("Final score: You ") and "wins the match" in lines[-1]
    bad = [k for k, line in enumerate(lines) if "'zzz' is not one of the actions" in line]
    assert len(bad) == 1
    asked = lines[bad[0] - 1]  # the echo of the bad line, and the same decision's answer after
    assert asked.endswith("zzz") and lines[bad[0] + 1].startswith("> 1")
    assert out.count("=== Hand ") == out.count("Review (your decision")
    assert "   solution " in out and ", EV " in out
    again = _play(monkeypatch, capsys, "1\nzzz\n" + "1\n" * 400, "--against", str(solved),
                  "--hint", "--seed", "3")
    assert again[1] == out  # one seed, one match


def test_input_ending_midway_stops_cleanly(solved, monkeypatch, capsys):
    code, out, err = _play(monkeypatch, capsys, "1\n", "--against", str(solved))
    assert code == 0 and all(line.startswith("loading ") for line in err.splitlines())
    assert out.strip().splitlines()[-1].startswith("Final score: You 0 - 0 Opponent (stopped")


def test_play_against_a_bot_and_bad_options(monkeypatch, capsys):
    code, out, _ = _play(monkeypatch, capsys, "2\n" * 400, "--against", "random")
    assert code == 0 and out.strip().splitlines()[-1].startswith("Final score:")
    assert "Review: no solution to compare" in out
    for options, message in ((["--against", "random", "--hint"], "--hint needs a solution"),
                             (["--against", "nonsense"], "unknown bot 'nonsense'")):
        code, _, err = _play(monkeypatch, capsys, "", *options)
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_strategy_bot_in_a_duplicate_match(solved, tmp_path, capsys):
    """`--bot strategy:DIR` plays the concrete game; against random it wins clearly."""
    out = tmp_path / "match.json"
    assert cli.main(["match", CONCRETE, "--bot", f"strategy:{solved}", "--bot", "random",
                     "--hands", "150", "--seed", "2", "--json", str(out)]) == 0
    record = json.loads(out.read_text())
    assert record["ci_low"] > 0, record["mean"]
    with pytest.raises(ValueError, match="strategy:DIR"):
        make_bot("strategy:", load_game(CONCRETE), 0)
