"""Baseline bots and duplicate matches (solver.play.bots, solver.play.match)."""
import dataclasses
import json
import math
import statistics

import numpy as np
import pyspiel
import pytest

import games  # noqa: F401  (registers the games)
from open_spiel.python.algorithms import exploitability as openspiel_exploitability

import solver
from solver.play import match
from solver.play.bots import BotPolicy, bot_policy, make_bot
from solver.play.two_ten_jack_heuristic import HeuristicBot
from solver.cli import main
from solver.cli import match as match_cli

FULL = "python_two_ten_jack"
SMALL = "python_two_ten_jack(ranks=2:T:J:A,hand_size=3)"


def _dealt(hand0, hand1):
    """A full-deck state with hands of equal size just dealt."""
    game = pyspiel.load_game(FULL, {"hand_size": len(hand0)})
    state = game.new_initial_state()
    for name in hand0 + hand1:
        state.apply_action(state.rules.deck.index(name))
    return state


def _play(state, *names):
    """Applies player actions given by their strings."""
    for name in names:
        by_string = {state.action_to_string(a): a for a in state.legal_actions()}
        state.apply_action(by_string[name])
    return state


@pytest.mark.parametrize("game_string, spec_a, spec_b", [
    (FULL, "random", "heuristic"),
    (SMALL, "ismcts:5", "heuristic"),
    (SMALL, "random", "ismcts:3"),
])
def test_bots_only_play_legal_actions(game_string, spec_a, spec_b):
    game = pyspiel.load_game(game_string)
    summary = match.play_match(game, spec_a, spec_b, deals=3, seed=4)
    assert len(summary.deal_points) == 3


def test_match_is_reproducible_and_has_a_confidence_interval():
    game = pyspiel.load_game(FULL)
    first = match.play_match(game, "heuristic", "random", deals=20, seed=9)
    second = match.play_match(game, "heuristic", "random", deals=20, seed=9)
    assert first == second
    assert first.ci_low < first.mean < first.ci_high


def test_duplicate_deals_cancel_between_identical_deterministic_bots():
    game = pyspiel.load_game(FULL)
    summary = match.play_match(game, "heuristic", "heuristic", deals=5, seed=1)
    assert summary.deal_points == (0.0,) * 5


@pytest.mark.parametrize("hand0, hand1, moves, expected", [
    (["Kd", "4d"], ["Tc", "3c"], ["Play Kd"], "Play Tc"),  # dump -5 on the opponent's trick
    (["Th", "4d", "5d"], ["Jh", "Ah", "3d"], ["Play Th"], "Play Jh"),  # win points cheaply
    (["4s", "4d"], ["As", "3s"], ["Play 4s"], "Play 3s"),  # keep the As for a better trick
    (["Th", "4d"], ["As", "3h"], ["Play Th"], "Play As"),  # spend it on five points
    (["9c", "4d", "2h"], ["5c", "Tc", "7d"], ["Play 9c"], "Play 5c"),  # do not take own -5
])
def test_heuristic_choices(hand0, hand1, moves, expected):
    state = _play(_dealt(hand0, hand1), *moves)
    bot = HeuristicBot(state.get_game())
    assert state.action_to_string(bot.step(state)) == expected


def test_heuristic_leads_a_plain_low_card_and_keeps_the_as():
    state = _dealt(["As", "Jh", "4d", "Kc"], ["5c", "Tc", "7d", "8d"])
    bot = HeuristicBot(state.get_game())
    assert state.action_to_string(bot.step(state)) == "Play 4d"


@pytest.mark.parametrize("spec", ["minimax", "ismcts:0", "ismcts:x", "random:3"])
def test_bad_bot_specs_raise(spec):
    with pytest.raises(ValueError, match="bot"):
        make_bot(spec, pyspiel.load_game(FULL), 0)


def test_heuristic_refuses_other_games():
    with pytest.raises(ValueError, match="python_two_ten_jack"):
        HeuristicBot(pyspiel.load_game("kuhn_poker"))


def test_match_command_prints_summary_and_writes_json(tmp_path, capsys):
    path = tmp_path / "match.json"
    code = main(["match", SMALL, "--bot", "heuristic", "--bot", "random", "--hands", "10",
                     "--seed", "2", "--json", str(path)])
    line = capsys.readouterr().out.strip()
    assert code == 0
    assert line.startswith("heuristic vs random") and "95% CI" in line
    record = json.loads(path.read_text())
    assert record["deals"] == 10 and len(record["deal_points"]) == 10
    assert record["command"].startswith("tricksolver match")


class _Killed(Exception):
    """Stands for a kill between two deals."""


def _kill_after(deals):
    """An `after_deal` that saves a copy of the progress, then stops the match after `deals`."""
    saved = []

    def after_deal(progress):
        saved.append(match.MatchProgress.from_record(json.loads(json.dumps(
            dataclasses.asdict(progress)))))
        if len(progress.deal_points) == deals:
            raise _Killed
    return after_deal, saved


def test_a_resumed_match_equals_one_played_in_a_single_run():
    game = pyspiel.load_game(SMALL)
    after_deal, saved = _kill_after(3)
    with pytest.raises(_Killed):
        match.play_match(game, "ismcts:3", "heuristic", deals=7, seed=11, progress=False,
                         after_deal=after_deal)
    resumed = match.play_match(game, "ismcts:3", "heuristic", deals=7, seed=11,
                               progress=False, resume=saved[-1])
    whole = match.play_match(game, "ismcts:3", "heuristic", deals=7, seed=11, progress=False)
    assert len(saved[-1].deal_points) == 3
    assert resumed == whole
    assert resumed.move_ms["a"]["moves"] == whole.move_ms["a"]["moves"]


@pytest.mark.parametrize("change, fragment", [
    ({"seed": 12}, "seed 11"), ({"deals": 8}, "deals 7"), ({"spec_a": "random"}, "bot_a"),
])
def test_resume_refuses_progress_of_another_match(change, fragment):
    game = pyspiel.load_game(SMALL)
    after_deal, saved = _kill_after(2)
    with pytest.raises(_Killed):
        match.play_match(game, "heuristic", "random", deals=7, seed=11, progress=False,
                         after_deal=after_deal)
    asked = {"spec_a": "heuristic", "spec_b": "random", "deals": 7, "seed": 11, **change}
    with pytest.raises(ValueError, match=fragment):
        match.play_match(game, progress=False, resume=saved[-1], **asked)


def test_progress_is_saved_only_once_its_interval_has_passed(tmp_path):
    progress = match.MatchProgress("g", "a", "b", 5, 1, [1.0, -2.0], ([0.5], [0.25]))
    match_cli.ProgressSaver(tmp_path / "late.partial", seconds=3600)(progress)
    assert not (tmp_path / "late.partial").exists()
    match_cli.ProgressSaver(tmp_path / "due.partial", seconds=0)(progress)
    saved = json.loads((tmp_path / "due.partial").read_text())
    assert match.MatchProgress.from_record(saved) == progress


def test_match_command_saves_progress_and_resumes_it(tmp_path, capsys, monkeypatch):
    path = tmp_path / "match.json"
    partial = tmp_path / "match.json.partial"
    argv = ["match", SMALL, "--bot", "heuristic", "--bot", "random", "--hands", "6", "--seed",
            "3", "--json", str(path)]

    class KilledAfterFour(match_cli.ProgressSaver):
        def __call__(self, progress):
            super().__call__(progress)
            if len(progress.deal_points) == 4:
                raise _Killed

    monkeypatch.setattr(match_cli, "SAVE_SECONDS", 0.0)
    monkeypatch.setattr(match_cli, "ProgressSaver", KilledAfterFour)
    with pytest.raises(_Killed):
        main(argv)
    assert len(json.loads(partial.read_text())["deal_points"]) == 4
    monkeypatch.undo()
    assert main(argv) == 2
    assert "add --resume" in capsys.readouterr().err
    assert main(argv + ["--resume"]) == 0
    resumed = json.loads(path.read_text())
    assert not partial.exists()
    path.unlink()
    assert main(argv) == 0
    assert json.loads(path.read_text())["deal_points"] == resumed["deal_points"]
    assert len(resumed["deal_points"]) == 6 and not partial.exists()


def test_pooled_runs_give_the_interval_over_all_their_deals():
    game = pyspiel.load_game(FULL)
    first = match.play_match(game, "heuristic", "random", deals=4, seed=1)
    second = match.play_match(game, "heuristic", "random", deals=5, seed=2)
    [pooled] = match.pool_matches([first, second])
    points = first.deal_points + second.deal_points
    half_width = 1.959963984540054 * statistics.stdev(points) / math.sqrt(len(points))
    assert (pooled.deals, pooled.seeds, pooled.runs) == (9, (1, 2), (0, 1))
    assert pooled.mean == pytest.approx(statistics.fmean(points), abs=1e-12)
    assert (pooled.ci_low, pooled.ci_high) == pytest.approx(
        (pooled.mean - half_width, pooled.mean + half_width), abs=1e-12)
    [alone] = match.pool_matches([second])
    assert (alone.mean, alone.ci_low, alone.ci_high) == (second.mean, second.ci_low,
                                                         second.ci_high)


def test_pooling_keeps_pairings_apart_and_refuses_a_repeated_seed():
    game = pyspiel.load_game(FULL)
    one = match.play_match(game, "heuristic", "random", deals=2, seed=1)
    other = match.play_match(game, "random", "heuristic", deals=2, seed=1)
    later = dataclasses.replace(one, seed=3)
    assert [p.runs for p in match.pool_matches([one, other, later])] == [(0, 2), (1,)]
    with pytest.raises(ValueError, match="repeat a seed"):
        match.pool_matches([one, one])


def test_match_summarize_pools_saved_runs(tmp_path, capsys):
    paths = [tmp_path / f"part{seed}.json" for seed in (1, 2)]
    for seed, path in zip((1, 2), paths):
        assert main(["match", SMALL, "--bot", "heuristic", "--bot", "random", "--hands", "6",
                     "--seed", str(seed), "--json", str(path)]) == 0
    capsys.readouterr()
    markdown = tmp_path / "matches.md"
    assert main(["match", "--summarize", *map(str, paths), "--markdown", str(markdown)]) == 0
    printed = capsys.readouterr().out
    runs = [match.MatchSummary.from_record(json.loads(p.read_text())) for p in paths]
    [pooled] = match.pool_matches(runs)
    row = (f"| heuristic | random | 12 | {pooled.mean:+.3f} "
           f"| [{pooled.ci_low:+.3f}, {pooled.ci_high:+.3f}] |")
    assert row in printed and row in markdown.read_text()
    timings = "<br>".join("; ".join(f"{run.move_ms[seat]['median']:.2f}, "
                                    f"{run.move_ms[seat]['p95']:.2f}" for seat in "ab")
                          for run in runs)  # a cell per run, the runs' lines in order
    assert f"| {timings} |" in markdown.read_text()
    assert printed.count("--seed 1") == printed.count("--seed 2") == 1
    assert "Summarised by `tricksolver match --summarize" in markdown.read_text()


@pytest.mark.parametrize("argv, message", [
    (["--summarize", "MISSING", "--bot", "random"], "drop --bot"),
    (["--summarize", "MISSING"], "No such file"),
    (["--summarize", "NOT_JSON"], "NOT_JSON"),
    (["--summarize", "NOT_A_MATCH"], "not a match record"),
    ([SMALL, "--bot", "heuristic", "--bot", "random", "--markdown", "x.md"], "--summarize"),
    ([], "give GAME"),
])
def test_match_summarize_rejects_bad_input_in_one_line(tmp_path, argv, message, capsys):
    files = {"NOT_JSON": "{ truncated",
             "NOT_A_MATCH": json.dumps({"game": SMALL, "bot_a": "random"})}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    argv = [str(tmp_path / word) if word in (*files, "MISSING") else word for word in argv]
    assert main(["match", *argv]) == 2
    error = capsys.readouterr().err
    assert message in error and len(error.strip().splitlines()) == 1


@pytest.mark.parametrize("argv, message", [
    (["--bot", "heuristic"], "twice"),
    (["--bot", "heuristic", "--bot", "minimax"], "unknown bot"),
    (["--bot", "heuristic", "--bot", "random", "--hands", "1"], "at least 2"),
])
def test_match_command_rejects_bad_input_in_one_line(argv, message, capsys):
    assert main(["match", SMALL, *argv]) == 2
    error = capsys.readouterr().err
    assert message in error and len(error.strip().splitlines()) == 1


def test_bot_policy_of_random_bot_has_kuhn_uniform_exploitability():
    game = pyspiel.load_game("kuhn_poker")
    table = bot_policy(game, make_bot("random", game, 0))
    assert solver.exploitability(game, table) == pytest.approx(11 / 24, abs=1e-12)


def test_bot_policy_of_ismcts_is_a_measurable_policy():
    game = pyspiel.load_game("kuhn_poker")
    table = bot_policy(game, make_bot("ismcts:20", game, 3))
    assert table.action_probability_array.sum(axis=1) == pytest.approx(1.0)
    assert solver.exploitability(game, table) == pytest.approx(
        openspiel_exploitability.exploitability(game, table), abs=1e-9)


def test_bot_policy_asked_lazily_matches_the_tabular_policy():
    game = pyspiel.load_game("leduc_poker")
    bot = make_bot("random", game, 0)
    lazy = solver.exploitability(game, BotPolicy(game, bot), cache=False)
    assert lazy == pytest.approx(
        openspiel_exploitability.exploitability(game, bot_policy(game, bot)), abs=1e-9)
    assert lazy > 1.0  # uniform play in Leduc is far from equilibrium


def test_heuristic_policy_is_over_legal_actions_in_the_two_suit_variant():
    game = pyspiel.load_game("python_two_ten_jack(suits=h:s,ranks=2:T:J:A,hand_size=2)")
    policy = BotPolicy(game, HeuristicBot(game))
    rng = np.random.default_rng(5)
    asked = 0
    for _ in range(40):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
                continue
            probabilities = policy.action_probabilities(state)
            assert set(probabilities) <= set(state.legal_actions())
            assert sum(probabilities.values()) == pytest.approx(1.0)
            asked += len(state.legal_actions()) > 1
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert asked > 40
