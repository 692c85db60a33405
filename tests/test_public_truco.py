"""Truco on the public-tree engine (`solver.public`), pinned to the history-tree engine on
reduced variants where both run: the play trees' rows are the information states, one policy's
exact best responses and value are the same in both engines (sub-games combined with their
weights against the whole game), CFR runs the same iterations, and the games the engine cannot
take are refused in one line."""
from __future__ import annotations

import json

import numpy as np
import pytest

from solver import cli
from solver.history.best_response import exploitability, policy_value
from solver.history.cfr import solve
from solver.history.policy import policy_array
from solver.history.tree import compile_game
from solver.public.parts import public_parts
from solver.public.policy import (
    SolutionPolicy,
    find_spot,
    info_state_probabilities,
    parse_hand,
)
from solver.public.solve import make_solver
from solver.public.tree import build_play_tree
from solver.registry import load_game
from solver.schedules import make_schedule

COVERED = "python_truco_paulista(num_ranks=2,hand_size=2,isomorphic=true)"
VARIANTS = [
    COVERED,
    "python_truco_paulista(num_ranks=4,hand_size=1,isomorphic=true)",
    "python_truco_paulista(deck=clean,hand_size=1,isomorphic=true,all_tied=mao,"
    "alternate_raises=false)",
    "python_trucomano(num_ranks=2,hand_size=2,isomorphic=true)",
    "python_truco_paulista(num_ranks=2,hand_size=2,isomorphic=true,score0=11)",
    "python_truco_paulista(num_ranks=2,hand_size=2,isomorphic=true,score0=11,score1=11)",
    "python_trucomano(num_ranks=2,hand_size=2,isomorphic=true,score1=11)",
]


def solvers_of(game, algorithm: str = "dcfr"):
    return [make_solver(game, make_schedule(algorithm), part) for part in public_parts(game)]


@pytest.mark.parametrize("game_string", VARIANTS[:4])
def test_play_tree_rows_are_the_information_states(game_string):
    """Summed over the vira classes, each player's rows and table entries are the history
    tree's information states and their actions (covered cards remembered: perfect recall)."""
    game = load_game(game_string)
    history = compile_game(game)
    infosets = np.bincount(history.infoset_player)
    actions = np.bincount(history.infoset_player, np.diff(history.infoset_action_start))
    rows, entries = np.zeros(2, dtype=int), np.zeros(2, dtype=int)
    for part in public_parts(game):
        tree = build_play_tree(game, part)
        rows += [tree.num_rows(0), tree.num_rows(1)]
        entries += tree.table_size
    assert list(rows) == list(infosets) and list(entries) == list(actions.astype(int))


@pytest.mark.parametrize("game_string", VARIANTS)
def test_one_policy_measured_by_both_engines(game_string):
    """A random average policy (a fifth of the rows left at zero: uniform) read through
    `SolutionPolicy` by the history engine: the same exploitability and value, the sub-games'
    figures combined with their weights."""
    game = load_game(game_string)
    solvers = solvers_of(game)
    rng = np.random.default_rng(0)
    for solver in solvers:
        average = solver.tables["play"].average
        average[:] = rng.random(average.shape) * (rng.random(average.shape) < 0.8)
    public_exploitability = sum(s.part.weight * s.exploitability() for s in solvers)
    public_value = sum(s.part.weight * s.game_value() for s in solvers)
    policy = SolutionPolicy(game, solvers)
    tree = compile_game(game)
    assert exploitability(game, policy) == pytest.approx(public_exploitability, abs=1e-9)
    assert policy_value(tree, policy_array(tree, policy, game)) == pytest.approx(
        public_value, abs=1e-9)


@pytest.mark.parametrize("game_string", [VARIANTS[1], VARIANTS[4], VARIANTS[5],
                                         "python_trucomano(num_ranks=3,hand_size=2,"
                                         "isomorphic=true)"])
def test_lock_step_with_the_history_engine(game_string):
    """The same exploitability after each of the first 12 DCFR iterations, the vira classes
    iterated side by side. (Where covering a card and playing it face up tie exactly, the two
    engines' action values round differently and regret matching may split the tie otherwise:
    `COVERED` drifts from the third iteration, the clean deck's `VARIANTS[2]` from the second;
    their passes are pinned by the test above.)"""
    game = load_game(game_string)
    history = solve(game, algorithm="dcfr", iterations=12, eval_every=1, progress=False)
    solvers = solvers_of(game)
    curve = []
    for _ in range(12):
        for solver in solvers:
            solver.iterate(1)
        curve.append(sum(s.part.weight * s.exploitability() for s in solvers))
    np.testing.assert_allclose(curve, [row[2] for row in history.curve], rtol=0, atol=1e-9)


@pytest.mark.parametrize("game_string", [COVERED, VARIANTS[3], VARIANTS[4]])
def test_decisions_found_by_name_are_the_concrete_states_rows(game_string):
    """`solver.public.policy.spot_of_info_state`: every decision of a random policy, found from
    the information state string alone (the player's hand, bets, face-up cards, his own covered
    cards by name, the opponent's as `Play covered`), has the policy `SolutionPolicy` gives the
    concrete state (located by its cards)."""
    game = load_game(game_string)
    solvers = solvers_of(game)
    rng = np.random.default_rng(1)
    for solver in solvers:
        average = solver.tables["play"].average
        average[:] = rng.random(average.shape) * (rng.random(average.shape) < 0.8)
    policy = SolutionPolicy(game, solvers)
    by_vira = {solver.part.label: solver for solver in solvers}
    seen = 0
    for state in _decision_states(game.new_initial_state()):
        name = state.information_state_string()
        solver = by_vira[name.split(" | ")[1]]
        expected = policy.action_probabilities(state)
        found = info_state_probabilities(solver, name)
        assert found.keys() == expected.keys(), name
        np.testing.assert_allclose([found[a] for a in expected], list(expected.values()),
                                   rtol=0, atol=1e-15, err_msg=name)
        seen += 1
    assert seen > 1000


def _decision_states(state):
    """Every decision state below `state` (chance outcomes all taken)."""
    if state.is_terminal():
        return
    if not state.is_chance_node():
        yield state
    for action in (state.legal_actions() if not state.is_chance_node()
                   else [a for a, _ in state.chance_outcomes()]):
        yield from _decision_states(state.child(action))


def test_decisions_by_name_say_what_does_not_fit():
    game = load_game(COVERED)
    solver = solvers_of(game)[0]
    hand = parse_hand(solver, "2 2")
    with pytest.raises(ValueError, match="is not a card with vira"):
        parse_hand(solver, "Zz 2")
    with pytest.raises(ValueError, match="not an action after the deal; the actions there"):
        find_spot(solver, hand, ["Fold"])
    with pytest.raises(ValueError, match="player 1 acts, not player 0"):
        find_spot(solver, hand, ["Play 2"], player=0)
    with pytest.raises(ValueError, match="plays 3d but holds 2 2"):
        find_spot(solver, hand, ["Play 2", "Play 3d"])


def test_vira_classes_are_the_sub_games():
    rules = load_game(COVERED).rules
    parts = public_parts(load_game(COVERED))
    assert [part.vira for part in parts] == list(range(rules.num_ranks))
    assert sum(part.weight for part in parts) == pytest.approx(1.0)
    for part in parts:
        assert part.class_counts == rules.class_counts(part.vira)
        assert sum(part.class_counts) == 4 * rules.num_ranks - 1  # all but the vira


@pytest.mark.parametrize("game_string, message", [
    ("python_truco_paulista(num_players=4,hand_size=1,num_ranks=4,isomorphic=true)",
     "team game"),
    ("python_truco_paulista(num_ranks=4,hand_size=1)", "isomorphic=true"),
    ("python_trucomano(num_ranks=4,hand_size=1,isomorphic=true,score0=11,score1=11)",
     "blind iron hand"),
])
def test_games_the_engine_refuses(game_string, message):
    with pytest.raises(ValueError, match=message):
        public_parts(load_game(game_string))


def test_cli_solves_vira_class_by_vira_class_and_resumes(tmp_path, capsys):
    """`solve --engine public` on Truco: one result directory per vira class and a combined
    summary (weighted sums); `--part` solves some classes, `--resume` the rest, skipping the
    finished ones; the whole-game figures equal the classes' weighted by 1/num_ranks."""
    game = "python_truco_paulista(num_ranks=3,hand_size=1,isomorphic=true)"
    out = tmp_path / "truco"
    common = ["solve", game, "--engine", "public", "--iterations", "20", "--out", str(out),
              "--quiet"]
    assert cli.main([*common, "--part", "vira 2"]) == 0
    partial = json.loads((out / "summary.json").read_text())
    assert (partial["parts_finished"], partial["parts"]) == (1, 3)
    assert partial["exploitability"] is None
    assert cli.main([*common, "--resume"]) == 0
    assert "vira 2: finished" in capsys.readouterr().err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["parts_finished"] == 3
    parts = [json.loads((out / name / "summary.json").read_text())
             for name in ("vira_A", "vira_2", "vira_3")]
    assert summary["exploitability"] == pytest.approx(
        sum(p["exploitability"] for p in parts) / 3, abs=1e-12)
    assert summary["game_value"] == pytest.approx(sum(p["game_value"] for p in parts) / 3,
                                                  abs=1e-12)
    solved = solve(load_game(game), algorithm="dcfr", iterations=20, progress=False)
    assert summary["exploitability"] == pytest.approx(solved.exploitability, abs=1e-9)
    assert cli.main([*common, "--part", "vira 9"]) == 2
    capsys.readouterr()
    for directory in (out, out / "vira_A"):  # recomputed from the strategies: the same figure
        assert cli.main(["exploit", str(directory)]) == 0
        assert "(difference 0)" in capsys.readouterr().out
    assert cli.main(["chart", str(out), "--kind", "tables", "--out", str(tmp_path / "c")]) == 0
    assert (tmp_path / "c" / "vira_A" / "tables").is_dir()
    capsys.readouterr()
    for directory in (out, out / "vira_A"):  # the whole game or one vira class's directory
        assert cli.main(["show", str(directory), "--hand", "vira A | 3"]) == 0
        assert "Player 0 holding 3 (vira A), first decision." in capsys.readouterr().out
    assert cli.main(["show", str(out), "--infostate", "p1 | vira A | hand A | 0:Play 3"]) == 0
    assert "Player 1 holding A (vira A), after 0:Play 3." in capsys.readouterr().out
    assert cli.main(["show", str(out), "--hand", "3"]) == 2
    assert "name the vira" in capsys.readouterr().err
    assert cli.main(["show", str(out), "--hand", "vira 7 | 3"]) == 2
    assert "the vira classes: vira A, vira 2, vira 3" in capsys.readouterr().err


def test_a_class_stopped_by_the_time_limit_is_resumed_not_skipped(tmp_path, capsys):
    """A vira class that a session's `--time-limit` stopped before its iterations or target is
    not finished: the combined summary does not count it, and `--resume` continues it from its
    checkpoint to the figures of an uninterrupted solve. With the time limit as its only goal,
    it is finished."""
    game = "python_truco_paulista(num_ranks=3,hand_size=1,isomorphic=true)"
    out = tmp_path / "truco"
    common = ["solve", game, "--engine", "public", "--part", "vira 2", "--iterations", "20",
              "--out", str(out), "--quiet"]
    assert cli.main([*common, "--time-limit", "1e-9"]) == 0
    stopped = json.loads((out / "vira_2" / "summary.json").read_text())
    assert stopped["stopped_by"] == "time limit" and stopped["iterations"] < 20
    assert json.loads((out / "summary.json").read_text())["parts_finished"] == 0
    capsys.readouterr()
    assert cli.main([*common, "--resume"]) == 0
    assert "skipped" not in capsys.readouterr().err
    resumed = json.loads((out / "vira_2" / "summary.json").read_text())
    assert (resumed["stopped_by"], resumed["iterations"]) == ("iterations", 20)
    assert resumed["resumed_from_iteration"] == stopped["iterations"]
    assert json.loads((out / "summary.json").read_text())["parts_finished"] == 1
    direct = tmp_path / "direct"
    assert cli.main([*common[:-3], "--out", str(direct), "--quiet"]) == 0
    assert resumed["exploitability"] == json.loads(
        (direct / "vira_2" / "summary.json").read_text())["exploitability"]
    time_only = ["solve", game, "--engine", "public", "--part", "vira A", "--time-limit",
                 "1e-9", "--out", str(out), "--quiet"]  # the time limit its only goal: done
    assert cli.main(time_only) == 0
    assert json.loads((out / "summary.json").read_text())["parts_finished"] == 2


def test_float32_tables_follow_float64():
    """Float32 regret and average tables (what the full-size classes need): the same first two
    iterations to float32 rounding; later ties split otherwise and the runs part, converging
    alike (60 DCFR iterations: both below 0.005, within 20% of each other)."""
    game = load_game("python_truco_paulista(num_ranks=3,hand_size=2,isomorphic=true)")
    part = public_parts(game)[0]
    runs = [make_solver(game, make_schedule("dcfr"), part, table_dtype=dtype)
            for dtype in (np.float64, np.float32)]
    assert runs[1].tables["play"].regret.dtype == np.float32
    curves = [[], []]
    for _ in range(60):
        for run, curve in zip(runs, curves):
            run.iterate(1)
            curve.append(run.exploitability())
    np.testing.assert_allclose(curves[1][:2], curves[0][:2], rtol=1e-6)
    assert curves[1][1] != curves[0][1]  # the float32 run rounds to float32
    assert max(curves[0][-1], curves[1][-1]) < 0.005
    assert curves[1][-1] == pytest.approx(curves[0][-1], rel=0.2)


def test_cli_float32_strategy_is_measured_exactly(tmp_path, capsys):
    """`solve --float32`: the strategy saved in float32, read back as float32, its
    exploitability recomputed (`exploit`, in float64) equal to the solve's; a float64 resume
    of a float32 checkpoint, and --float32 on the history engine, refused in one line."""
    game = "python_truco_paulista(num_ranks=3,hand_size=2,isomorphic=true)"
    out = tmp_path / "f32"
    assert cli.main(["solve", game, "--engine", "public", "--iterations", "20", "--out",
                     str(out), "--quiet", "--float32"]) == 0
    with np.load(out / "vira_A" / "strategy.npz") as arrays:
        assert arrays["average"].dtype == np.float32
    assert json.loads((out / "vira_A" / "summary.json").read_text())["tree_sizes"][
        "tables"] == "float32"
    capsys.readouterr()
    for directory in (out, out / "vira_A"):
        assert cli.main(["exploit", str(directory)]) == 0
        assert "(difference 0)" in capsys.readouterr().out
    le_truc = ["solve", "python_le_truc(num_ranks=3,hand_size=2,isomorphic=true)", "--engine",
               "public", "--out", str(tmp_path / "le_truc"), "--quiet"]
    assert cli.main([*le_truc, "--iterations", "10", "--float32"]) == 0
    capsys.readouterr()
    assert cli.main([*le_truc, "--iterations", "20", "--resume"]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and "tables='float32'" in error, error
    assert cli.main([*le_truc, "--iterations", "20", "--resume", "--float32"]) == 0
    assert cli.main(["solve", "python_le_truc(num_ranks=3,hand_size=1)", "--engine", "history",
                     "--float32", "--iterations", "2", "--quiet"]) == 2
    assert "--float32 is an option of the public-tree engine" in capsys.readouterr().err


def test_vira_classes_that_are_the_same_game_are_solved_once(tmp_path, capsys):
    """Dirty deck, ranks A 2 3: vira 2 and vira 3 leave the same class counts (the vira's rank,
    three cards left, the strongest common), so their trees agree in every array the solver
    reads; `--part 'vira 3'` solves vira 2 and records vira 3 from it, measured in vira 3's own
    tree: the figures a solve of vira 3 gives, to the bit."""
    game_string = "python_truco_paulista(num_ranks=3,hand_size=1,isomorphic=true)"
    game = load_game(game_string)
    vira_a, vira_2, vira_3 = public_parts(game)
    assert vira_2.identity() == vira_3.identity() != vira_a.identity()
    two, three = build_play_tree(game, vira_2), build_play_tree(game, vira_3)
    for name in ("node_player", "child_start", "child", "outcome_payoff", "node_list",
                 "node_table", "edge_map", "entry_hand", "map_src", "map_dst", "map_slot",
                 "node_row", "table_size"):
        assert np.array_equal(getattr(two, name), getattr(three, name)), name
    out = tmp_path / "truco"
    assert cli.main(["solve", game_string, "--engine", "public", "--iterations", "20",
                     "--part", "vira 3", "--out", str(out), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "[1/2] vira 2 ->" in err and "[2/2] vira 3 is the same game as vira 2" in err
    recorded = json.loads((out / "vira_3" / "summary.json").read_text())
    assert recorded["same_game_as"] == "vira 2" and recorded["seconds"] == 0.0
    assert not (out / "vira_3" / "strategy.npz").exists()
    solved = make_solver(game, make_schedule("dcfr"), vira_3)
    solved.iterate(20)
    assert recorded["exploitability"] == solved.exploitability()
    assert recorded["game_value"] == solved.game_value()
    assert json.loads((out / "summary.json").read_text())["parts_finished"] == 2
    assert cli.main(["exploit", str(out / "vira_3")]) == 0  # read through vira 2's strategy
    assert "(difference 0)" in capsys.readouterr().out
    assert cli.main(["solve", game_string, "--engine", "public", "--iterations", "20",
                     "--part", "vira A", "--out", str(out), "--quiet"]) == 0
    err = capsys.readouterr().err  # a class that is its own first twin: solved once, no record
    assert "[1/1] vira A ->" in err and "same game" not in err
    assert "same_game_as" not in json.loads((out / "vira_A" / "summary.json").read_text())
