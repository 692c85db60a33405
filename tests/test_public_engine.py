"""The public-tree engine (`solver.public.tree`, `solver.public.cfr`, `solver.analysis.public`)
pinned to the history-tree engine on small Le Truc variants: same information states, lock-step
CFR without the redeal, the same exact best responses, game value and strategy tables of one
policy with the redeal (where the two engines' CFR differ by design), and the CLI end to end."""
from __future__ import annotations

import json

import numpy as np
import pytest

from solver import analysis, cli, results
from solver.analysis.decision import decision_at
from solver.analysis.history import _action_values, info_state_reach, node_stats
from solver.history.best_response import best_response_value, policy_value
from solver.history.cfr import solve
from solver.history.policy import AveragePolicy
from solver.history.tree import compile_game
from solver.public.cfr import PublicSolver, walk_of
from solver.public.policy import info_state_probabilities, spot_of_info_state
from solver.public.redeal import RedealDeals
from solver.public.solve import make_solver, solve_public
from solver.public.tree import build_play_tree, is_terminal
from solver.registry import load_game
from solver.schedules import make_schedule

NO_REDEAL = "python_le_truc(num_ranks=4,hand_size=2,isomorphic=true,max_redeals=0)"
REDEAL = "python_le_truc(num_ranks=3,hand_size=2,isomorphic=true)"


def history_policy(public: PublicSolver, tree) -> np.ndarray:
    """The public solver's average policy laid out on the history tree, by information state
    string (`solver.public.policy.info_state_probabilities`)."""
    array = np.zeros(tree.num_infoset_actions)
    for infoset, name in enumerate(tree.info_state_strings()):
        start, end = tree.infoset_action_start[infoset], tree.infoset_action_start[infoset + 1]
        probabilities = info_state_probabilities(public, name)
        array[start:end] = [probabilities[int(a)] for a in tree.infoset_actions[start:end]]
    return array


def solved_with_random_answer(game_string: str, algorithm: str = "dcfr") -> PublicSolver:
    """A public solver after a few iterations, then with a random dealer answer to the redeal
    request so that both players' after-redeal best responses matter."""
    solver = make_solver(load_game(game_string), make_schedule(algorithm))
    solver.iterate(15)
    solver.talk_average[1] = np.random.default_rng(3).random(solver.talk_average[1].shape)
    return solver


@pytest.fixture(scope="module")
def redeal_solver():
    return solved_with_random_answer(REDEAL)


@pytest.mark.parametrize("game_string", [NO_REDEAL, REDEAL,
                                         "python_le_truc(num_ranks=3,hand_size=1,isomorphic=true,"
                                         "stake_ladder=plus_two,allow_counter_raise=true)"])
def test_play_tree_rows_are_the_information_states(game_string):
    """Without the redeal the play tree's rows are exactly the history tree's information
    states and its table entries their actions (redeal variants: the keep copy's part)."""
    game = load_game(game_string)
    play = build_play_tree(game)
    history = compile_game(load_game(game_string.replace(")", ",max_redeals=0)")
                                     if "max_redeals" not in game_string else game_string))
    counts = np.bincount(history.infoset_player)
    actions = np.bincount(history.infoset_player, np.diff(history.infoset_action_start))
    assert play.sizes()["infosets_player0"] == counts[0]
    assert play.sizes()["infosets_player1"] == counts[1]
    assert list(play.table_size) == list(actions.astype(int))


@pytest.mark.parametrize("algorithm", ["dcfr", "cfr+", "cfr", "lcfr", "pcfr+"])
def test_lock_step_with_the_history_engine_without_redeal(algorithm):
    """The same exploitability after every one of the first 30 iterations. (Not the same game
    value: exactly tied actions, such as folding or playing into a certain loss, get values
    that round differently in the two engines, so regret matching splits them differently;
    that moves the average policy's value, never a best response. Values of one policy are
    compared exactly below.)"""
    game = load_game(NO_REDEAL)
    history = solve(game, algorithm=algorithm, iterations=30, eval_every=1, progress=False)
    public = solve_public(game, algorithm=algorithm, iterations=30, eval_every=1,
                          progress=False)
    assert [row[0] for row in public.curve] == [row[0] for row in history.curve] == \
        list(range(1, 31))
    np.testing.assert_allclose([row[2] for row in public.curve],
                               [row[2] for row in history.curve], rtol=0, atol=1e-9)


def test_pcfr_plus_converges_with_the_redeal():
    """Predictive CFR+ with the redeal talk's rows too (the lock-step test above pins the play
    tree's to the history engine)."""
    result = solve_public(load_game(REDEAL), algorithm="pcfr+", target_exploitability=1e-4,
                          iterations=500, eval_every=10, progress=False)
    assert result.exploitability <= 1e-4


def test_the_walk_is_the_depth_first_order():
    """`walk_of`: each node's depth and edge from its parent, the node after its subtree, the
    nodes with a terminal child, against a recursive walk of the tree; the nodes are numbered
    in the order the recursion reaches them."""
    tree = build_play_tree(load_game(REDEAL))
    walk = walk_of(tree)
    expected = {}  # node -> (depth, edge into it, one past its subtree's last node)
    reached = []

    def visit(node, depth, edge):
        reached.append(node)
        end = node + 1
        for e in range(tree.child_start[node], tree.child_start[node + 1]):
            if not is_terminal(tree.child[e]):
                end = visit(int(tree.child[e]), depth + 1, e)
        expected[node] = (depth, edge, end)
        return end

    visit(0, 0, -1)
    assert reached == list(range(tree.num_nodes))
    for node in range(tree.num_nodes):
        depth, edge, end = expected[node]
        assert (walk.step_depth[node], walk.step_edge[node], walk.after[node]) == (
            depth, edge, end)
    children = [tree.child[tree.child_start[n]:tree.child_start[n + 1]]
                for n in range(tree.num_nodes)]
    assert list(walk.node_terminal) == [int(any(is_terminal(c) for c in kids))
                                        for kids in children]


def test_kernels_are_cached_and_exact():
    """Every kernel of the public engine and of the shared update is cached on disk (a new
    process loads them instead of compiling them) and none uses fastmath."""
    from numba.core.registry import CPUDispatcher

    from solver import _update
    from solver.public import _kernels

    found = [obj for module in (_kernels, _update) for obj in vars(module).values()
             if isinstance(obj, CPUDispatcher)]
    assert len(found) > 10
    for kernel in found:
        assert kernel.stats.cache_path is not None, kernel
        assert not kernel.targetoptions.get("fastmath"), kernel


@pytest.mark.parametrize("game_string, algorithm", [
    (REDEAL, "dcfr"),
    ("python_le_truc(num_ranks=3,hand_size=2,isomorphic=true,dealer=0)", "cfr+"),
    ("python_le_truc(num_ranks=3,hand_size=2,isomorphic=true,score0=7,score1=3,"
     "stake_ladder=plus_two)", "cfr+"),
])
def test_best_responses_and_value_equal_the_history_engine_with_redeal(game_string, algorithm):
    """The real game's exact best responses (set-aside hands remembered) and game value of one
    policy, by the public engine's per-set-aside-hand passes and by the history tree; also with
    the dealer in seat 0, match scores and another ladder."""
    solver = solved_with_random_answer(game_string, algorithm)
    tree = compile_game(load_game(game_string))
    policy = history_policy(solver, tree)
    br0, br1 = solver.best_response_values()
    assert br0 == pytest.approx(best_response_value(tree, policy, 0), abs=1e-12)
    assert br1 == pytest.approx(best_response_value(tree, policy, 1), abs=1e-12)
    assert solver.game_value() == pytest.approx(policy_value(tree, policy), abs=1e-12)
    assert solver.exploitability() > 0.01  # the random answer is exploitable


def test_strategy_tables_equal_the_history_analysis(redeal_solver):
    game = load_game(REDEAL)
    tree = compile_game(game)
    mine = analysis.analyze(game, redeal_solver.average_policy())
    theirs = analysis.analyze(game, AveragePolicy.on_tree(tree, history_policy(redeal_solver,
                                                                               tree)), tree)
    assert [t.key for t in mine.contexts] == [t.key for t in theirs.contexts]
    assert "redeal_answer" in [t.key for t in mine.contexts]
    for a, b in zip(mine.contexts, theirs.contexts):
        assert (a.actions, a.player, a.players) == (b.actions, b.player, b.players)
        order = [b.hands.index(hand) for hand in a.hands]
        for field in ("frequency", "ev", "reached", "deal_ev"):
            np.testing.assert_allclose(getattr(a, field), getattr(b, field)[order], atol=1e-10,
                                       err_msg=f"{a.key} {field}")
        assert a.equity.keys() == b.equity.keys()
        for bet in a.equity:
            np.testing.assert_allclose(a.equity[bet], b.equity[bet][order], atol=1e-10)
        assert a.probability == pytest.approx(b.probability, abs=1e-12)


@pytest.mark.parametrize("game_string", [NO_REDEAL, REDEAL])
def test_each_decision_reads_like_the_history_tree(game_string):
    """`show` on a public result (`solver.analysis.decision`): the information states of the
    history tree, found by their strings, have the history tree's reach and action EVs under
    the same policy (after an agreed redeal a public row stands for every hand set aside:
    reaches summed, EVs reach-weighted; 150 decisions spread over the tree are measured)."""
    game = load_game(game_string)
    if game_string == REDEAL:
        solver = solved_with_random_answer(game_string)
    else:
        solver = make_solver(game, make_schedule("dcfr"))
        solver.iterate(5)
    tree = compile_game(game)
    array = history_policy(solver, tree)
    reach = info_state_reach(game, AveragePolicy.on_tree(tree, array), tree)
    values = _action_values(tree, node_stats(tree, array), range(tree.num_infosets))
    groups = {}
    for infoset, name in enumerate(tree.info_state_strings()):
        spot = spot_of_info_state(solver, name)
        start, end = tree.infoset_action_start[infoset], tree.infoset_action_start[infoset + 1]
        by_action = dict(zip(tree.infoset_actions[start:end].tolist(), values[start:end]))
        column = np.array([by_action[a] for a in spot.actions])
        key = (spot.branch, spot.node, spot.entry)
        _, total, weighted = groups.get(key, (spot, 0.0, 0.0))
        groups[key] = (spot, total + reach[name],
                       weighted + (reach[name] * column if reach[name] > 0 else 0.0))
    checked = 0
    for spot, total, weighted in list(groups.values())[::max(1, len(groups) // 150)]:
        decision = decision_at(solver, spot)
        assert decision.reach == pytest.approx(total, abs=1e-12)
        if total > 1e-9:
            np.testing.assert_allclose(decision.values, weighted / total, rtol=0, atol=1e-9)
            checked += 1
    assert checked > 50


def test_deal_weights_are_probabilities():
    game = load_game("python_le_truc(num_ranks=4,hand_size=2,isomorphic=true)")
    deals = RedealDeals((4,) * 4, 2, game.rules.hand_classes)
    hands = len(deals.hands)
    assert deals.first_hands().sum() == pytest.approx(1.0, abs=1e-12)
    after = deals.after_redeal(game.rules, np.ones(hands), np.ones(hands))
    assert after.sum() == pytest.approx(1.0, abs=1e-12)
    weight = np.random.default_rng(1).random(hands)
    per_old = sum(coupling for _, coupling in deals.by_set_aside(game.rules, weight))
    np.testing.assert_allclose(per_old, deals.after_redeal(game.rules, np.ones(hands), weight),
                               atol=1e-15)


@pytest.mark.parametrize("algorithm", ["dcfr", "pcfr+"])
def test_state_round_trip_continues_the_same_run(algorithm):
    """(PCFR+'s state also carries its predictions, the last instantaneous regrets.)"""
    game = load_game(REDEAL)
    straight = make_solver(game, make_schedule(algorithm))
    straight.iterate(12)
    first = make_solver(game, make_schedule(algorithm))
    first.iterate(5)
    resumed = make_solver(game, make_schedule(algorithm), state=first.state(1.0))
    resumed.iterate(7)
    end, expected = resumed.state(0.0), straight.state(0.0)
    assert end.iteration == 12
    np.testing.assert_array_equal(end.cumulative_regret, expected.cumulative_regret)
    np.testing.assert_array_equal(end.cumulative_policy, expected.cumulative_policy)
    np.testing.assert_array_equal(end.current_policy, expected.current_policy)
    assert end.current_policy.size == (end.cumulative_regret.size if algorithm == "pcfr+"
                                       else 0)


@pytest.mark.parametrize("game_string, message", [
    ("kuhn_poker", "solves python_le_truc, python_truco_paulista"),
    ("python_le_truc(num_ranks=3,hand_size=2)", "isomorphic=true"),
    ("python_le_truc(num_ranks=8,hand_size=2,isomorphic=true,max_redeals=2)", "at most one"),
])
def test_games_the_engine_refuses(game_string, message):
    with pytest.raises(ValueError, match=message):
        make_solver(load_game(game_string), make_schedule("dcfr"))


def test_cli_public_engine_end_to_end(tmp_path, capsys):
    out = tmp_path / "result"
    assert cli.main(["solve", REDEAL, "--engine", "public", "--target", "1e-4", "--quiet",
                     "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["engine"] == "public" and summary["exploitability"] <= 1e-4
    assert summary["tree_sizes"]["engine"] == "public"
    saved = results.load_result(out)
    assert saved.curve[-1][2] == summary["exploitability"]
    capsys.readouterr()
    assert cli.main(["exploit", str(out)]) == 0
    recomputed = float(capsys.readouterr().out.split("exploitability")[1].split()[0])
    assert recomputed == pytest.approx(summary["exploitability"], rel=1e-9)
    assert cli.main(["show", str(out), "--infostate", "p1 | hand A 8 | 0:Ask redeal"]) == 0
    by_infostate = capsys.readouterr().out
    assert cli.main(["show", str(out), "--hand", "8 A", "--history", "Ask redeal"]) == 0
    shown = capsys.readouterr().out
    assert shown == by_infostate and "Player 1 holding 8 A, after 0:Ask redeal." in shown
    assert "Decline" in shown and "(EV " in shown and "Reached in" in shown
    assert cli.main(["show", str(out), "--infostate", "p1 | hand A"]) == 2
    assert "is not a hand of this game" in capsys.readouterr().err
    assert cli.main(["show", str(out), "--hand", "A 8", "--history", "Keep, Accept"]) == 2
    assert "the actions there: Raise, Rest, Fold, Play" in capsys.readouterr().err
    assert cli.main(["chart", str(out), "--kind", "tables"]) == 0
    assert (out / "charts" / "tables" / "strategy-redeal_ask.md").exists()
    assert cli.main(["solve", REDEAL, "--engine", "public", "--algorithm", "pcfr+",
                     "--iterations", "3", "--quiet", "--out", str(tmp_path / "x")]) == 0
    assert json.loads((tmp_path / "x" / "summary.json").read_text())["algorithm"] == "pcfr+"


def test_auto_engine_takes_the_public_tree_only_where_the_history_tree_is_too_big():
    from solver.cli.solve import resolve_engine

    big = "python_le_truc(num_ranks=5,hand_size=3{})"  # 2.0e9 histories with the redeal
    assert resolve_engine("auto", load_game(REDEAL)) == "history"
    assert resolve_engine("auto", load_game(big.format(",isomorphic=true"))) == "public"
    with pytest.raises(ValueError, match="too many for the history tree"):  # issue 16, item 2
        resolve_engine("history", load_game(big.format(",isomorphic=true")))
    with pytest.raises(ValueError, match="add -p isomorphic=true"):
        resolve_engine("auto", load_game(big.format("")))


def test_cli_resume_with_the_public_engine_continues_the_same_run(tmp_path, capsys):
    def solve_to(out, iterations, *extra):
        assert cli.main(["solve", REDEAL, "--engine", "public", "--iterations", str(iterations),
                         "--eval-every", "5", "--quiet", "--out", str(out), *extra]) == 0

    solve_to(tmp_path / "straight", 10)
    solve_to(tmp_path / "resumed", 5)
    solve_to(tmp_path / "resumed", 10, "--resume")
    assert "resuming" in capsys.readouterr().err
    straight, resumed = (results.load_result(tmp_path / name) for name in ("straight", "resumed"))
    np.testing.assert_array_equal(resumed.policy.sums, straight.policy.sums)
    np.testing.assert_array_equal(resumed.policy.talk, straight.policy.talk)
    assert [row[::2] for row in resumed.curve] == [row[::2] for row in straight.curve]
    assert cli.main(["solve", REDEAL, "--engine", "history", "--iterations", "12", "--quiet",
                     "--out", str(tmp_path / "resumed"), "--resume"]) == 2
    assert "engine='public'" in capsys.readouterr().err



@pytest.mark.parametrize("game_string", [
    "python_le_truc(num_ranks=4,hand_size=2,isomorphic=true)",
    "python_truco_paulista(num_ranks=3,hand_size=2,isomorphic=true)"])
def test_passes_in_threads_are_the_one_thread_passes(game_string):
    """`Passes` walking the root's subtrees in two threads (`RootSplit`; forced on these small
    trees): after DCFR iterations, the same tables, best responses, value and recorded row
    values to the bit as in one thread (Le Truc with the redeal: its branch updates too)."""
    from solver.public.cfr import Passes
    from solver.public.parts import public_parts

    game = load_game(game_string)
    part = public_parts(game)[0]
    solvers = []
    for threads in (1, 2):
        solver = make_solver(game, make_schedule("dcfr"), part)
        solver.passes = Passes(solver.tree, threads=threads, parallel_nodes=0)
        solver.iterate(7)
        solvers.append(solver)
    one, two = solvers
    assert two.passes.split is not None and len(two.passes.split.shares) == 2
    for branch in one.tables:
        for which in ("regret", "average"):
            assert np.array_equal(getattr(one.tables[branch], which),
                                  getattr(two.tables[branch], which))
    assert one.best_response_values() == two.best_response_values()
    assert one.game_value() == two.game_value()
    branch = one.branches[0]
    ones = np.ones(len(one.tree.hands))
    for player in (0, 1):
        records = [np.zeros(s.tree.num_rows(player)) for s in solvers]
        values = [s.passes.expectation(player, ones, ones, s.deals.first_hands(),
                                       s.tables[branch], 1, record)
                  for s, record in zip(solvers, records)]
        assert np.array_equal(values[0], values[1]) and np.array_equal(*records)


def test_threads_variable_is_checked(monkeypatch):
    from solver.cores import default_threads

    monkeypatch.setenv("TRICKSOLVER_THREADS", "3")
    assert default_threads() == 3
    monkeypatch.setenv("TRICKSOLVER_THREADS", "two")
    with pytest.raises(ValueError, match="TRICKSOLVER_THREADS='two': give a whole number"):
        default_threads()


@pytest.mark.parametrize("game_string, label", [
    ("python_truco_paulista(num_ranks=4,hand_size=2,isomorphic=true)", "vira A"),
    ("python_le_truc(num_ranks=4,hand_size=3,isomorphic=true)", None),
])
def test_a_tree_built_in_two_processes_is_the_tree_built_in_one(game_string, label,
                                                                 monkeypatch):
    """The root's subtrees walked in forked workers and adopted in order give the serial
    walk's tree, every array (lists, maps and outcomes numbered alike)."""
    import dataclasses

    import solver.public.tree as tree_module
    from solver.public.parts import part_named

    game = load_game(game_string)
    part = part_named(game, label)
    serial = build_play_tree(game, part, workers=1)
    monkeypatch.setattr(tree_module, "PARALLEL_BUILD_NODES", 0)
    parallel = build_play_tree(game, part, workers=2)
    for field in dataclasses.fields(serial):
        if field.name == "_positions":
            continue
        mine, theirs = getattr(serial, field.name), getattr(parallel, field.name)
        assert (np.array_equal(mine, theirs) if isinstance(mine, np.ndarray)
                else mine == theirs), field.name
    assert serial.num_nodes > 1000


def test_best_response_actions_make_a_pure_best_response():
    """`Passes.best_response_policy` (the best-response pass's action values, their argmax
    rows by `kernels.best_rows`): a pure policy that, played against the other's average
    policy, earns each hand exactly its best-response value; the other's rows untouched."""
    from solver.public import _kernels as kernels

    solver = make_solver(load_game(NO_REDEAL), make_schedule("dcfr"))
    solver.iterate(5)
    tables, ones = solver.tables["play"], np.ones(len(solver.tree.hands))
    coupling = solver.deals.first_hands()
    for player in (0, 1):
        best = solver.passes.best_response(player, ones, coupling, tables)
        pure = solver.passes.best_response_policy(player, ones, coupling, tables)
        own, other = slice(None, tables.split), slice(tables.split, None)
        if player == 1:
            own, other = other, own
        assert set(np.unique(pure.average[own])) == {0.0, 1.0}
        assert np.array_equal(pure.average[other], tables.average[other])
        values = solver.passes.expectation(player, ones, ones, coupling, pure, kernels.AVERAGE)
        np.testing.assert_allclose(values, best, rtol=0, atol=1e-12)


@pytest.mark.parametrize("game_string", [
    REDEAL, "python_le_truc(num_ranks=3,hand_size=2,isomorphic=true,dealer=0)"])
def test_forgetful_lower_bound(game_string):
    """`exploitability_lower_bound` (Le Truc with the redeal): below the exact figure, and
    its per-set-aside-hand values of the one forgetful best response equal the slow way's,
    one expectation pass of that pure policy per set-aside hand with that hand's coupling."""
    from solver.public import _kernels as kernels

    solver = solved_with_random_answer(game_string)
    low, exact = solver.exploitability_lower_bound(), solver.exploitability()
    assert 0.01 < low <= exact
    talk = solver.talk_policy(kernels.AVERAGE)
    hands, tables = len(solver.deals.hands), solver.tables["agree"]
    ones = np.ones(hands)
    for player in (0, 1):
        fast = solver._forgetful_agree_values(player, talk)
        other = talk[0, :, 1] if player == solver.dealer else talk[1, :, 0]
        weights = [ones, ones]
        weights[1 - player] = other
        pure = solver.passes.best_response_policy(
            player, ones, solver.deals.after_redeal(solver.rules, *weights), tables)
        slow = np.zeros(hands)
        for old, coupling in solver.deals.by_set_aside(solver.rules, other):  # [mine, his]
            slow[old] = solver.passes.expectation(
                player, ones, ones, coupling if player == 0 else coupling.T, pure,
                kernels.AVERAGE).sum()
        np.testing.assert_allclose(fast, slow, rtol=0, atol=1e-12)
        assert np.any(slow != 0.0)


def test_screened_evaluations_stop_where_exact_ones_do():
    """`run_iterations` with the forgetful lower bound as its screen: the same last
    iteration, tables and exploitability as with an exact evaluation every time, its curve
    the exact curve's last points, and fewer exact evaluations."""
    from solver.cfr import run_iterations

    runs = []
    for screened in (False, True):
        solver = make_solver(load_game(REDEAL), make_schedule("dcfr"))
        curve, exploitability, _ = run_iterations(
            solver, solver.exploitability, algorithm="dcfr", iterations=500,
            target_exploitability=0.002, time_limit=None, eval_every=5, checkpoint=None,
            checkpoint_every=500, progress=False, on_progress=None, start_seconds=0.0,
            screen=solver.exploitability_lower_bound if screened else None)
        runs.append((solver, [row[0::2] for row in curve], exploitability))
    (plain, plain_curve, plain_exp), (fast, fast_curve, fast_exp) = runs
    assert fast.iteration == plain.iteration < 500 and fast_exp == plain_exp <= 0.002
    assert fast_curve == plain_curve[-len(fast_curve):] and len(fast_curve) < len(plain_curve)
    for branch in plain.tables:
        assert np.array_equal(plain.tables[branch].average, fast.tables[branch].average)
