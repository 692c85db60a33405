"""Le Truc strategy analysis (`solver.analysis`), tables and charts on small solved variants."""
from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import solver
from solver import analysis
from solver.analysis import charts, tables
from solver.analysis.history import deal_values, fast_info_state_names, node_stats
from solver.history.tree import compile_game
from solver.registry import load_game

SMALL = "python_le_truc(num_ranks=3,hand_size=2,isomorphic=true,max_redeals=0)"
NO_REST = ("python_le_truc(num_ranks=3,hand_size=2,isomorphic=true,max_redeals=0,"
           "allow_rest=false)")
WITH_REDEAL = "python_le_truc(num_ranks=2,hand_size=1,isomorphic=true)"
ITERATIONS = 300

pytestmark = pytest.mark.usefixtures("tree_cache")  # a private compiled-tree cache


def solved(game_string: str):
    """(game, SolveResult, Analysis) of a short DCFR solve."""
    game = load_game(game_string)
    result = solver.solve(game, iterations=ITERATIONS, eval_every=ITERATIONS, progress=False)
    return game, result, analysis.analyze(game, result.average_policy)


@pytest.fixture(scope="module")
def small():
    return solved(SMALL)


@pytest.fixture(scope="module")
def no_rest():
    return solved(NO_REST)


def test_frequencies_are_distributions(small, no_rest):
    for _, _, result in (small, no_rest):
        for table in result.contexts:
            totals = np.nansum(table.frequency, axis=1)
            np.testing.assert_allclose(totals, 1.0, atol=1e-9)


def test_deal_evs_average_to_the_game_value(small, no_rest):
    for game, result, _ in (small, no_rest):
        tree = compile_game(game)
        stats = node_stats(tree, result.average_policy.probabilities)
        deal = deal_values(game, tree, stats)
        for player, sign in ((0, 1.0), (1, -1.0)):
            value = sum(p * ev for p, ev in deal[player].values())
            assert value == pytest.approx(sign * result.game_value, abs=1e-9)
            assert sum(p for p, _ in deal[player].values()) == pytest.approx(1.0, abs=1e-12)


def test_hands_are_sorted_by_deal_ev(small):
    for table in small[2].contexts:
        assert np.all(np.diff(table.deal_ev) <= 1e-12)
    opening = small[2].context("open")
    assert opening.hands[0] == "7 7" and opening.player == 0
    assert opening.reached.tolist() == pytest.approx([1.0] * len(opening.hands))


def test_opening_ev_is_the_deal_ev(small):
    opening = small[2].context("open")
    np.testing.assert_allclose(opening.ev, opening.deal_ev, atol=1e-9)


def test_contexts_of_the_game(small, no_rest):
    assert [t.key for t in no_rest[2].contexts][:2] == ["open", "follow_1"]
    assert not any("rest" in t.key for t in no_rest[2].contexts)
    for seat, player in (("dealer", 1), ("nondealer", 0)):
        answer = no_rest[2].context(f"{seat}_answer_raise_2")
        assert answer.actions == ["Accept", "Refuse"] and answer.players == (player,)
    assert "Rest" in small[2].context("open").actions
    assert small[2].context("dealer_answer_rest").actions == ["Rest", "Refuse"]


def test_redeal_contexts():
    game, _, result = solved(WITH_REDEAL)
    keys = [t.key for t in result.contexts]
    assert keys[:3] == ["redeal_ask", "redeal_answer", "open"]
    assert result.context("redeal_ask").actions == ["Keep", "Ask redeal"]
    assert result.context("redeal_answer").actions == ["Agree", "Decline"]


def brute_force_equity(game, policy, hand: str, bet: int, accept: int) -> float:
    """The opening bettor's win probability once called, by walking OpenSpiel states."""
    numerator = denominator = 0.0

    def walk(state, weight, called):
        nonlocal numerator, denominator
        if state.is_terminal():
            if called:
                returns = state.returns()[0]
                numerator += weight * (1.0 if returns > 0 else 0.5 if returns == 0 else 0.0)
                denominator += weight
            return
        if state.is_chance_node():
            for action, probability in state.chance_outcomes():
                walk(state.child(action), weight * probability, called)
            return
        probabilities = policy.action_probabilities(
            state.information_state_string(state.current_player()))
        history = state.history()
        opening = len(history) == 2 and state.current_player() == 0
        if opening:
            if state.information_state_string(0) != f"p0 | hand {hand}":
                return
            walk(state.child(bet), weight, False)
            return
        if len(history) == 3 and not called:
            walk(state.child(accept), weight * probabilities[accept], True)
            return
        for action, probability in probabilities.items():
            if probability > 0:
                walk(state.child(action), weight * probability, called)

    walk(game.new_initial_state(), 1.0, False)
    return numerator / denominator


@pytest.mark.parametrize("hand", ["7 7", "8 A", "A A"])
def test_raise_equity_against_the_calling_range(no_rest, hand):
    from games import le_truc
    game, result, found = no_rest
    opening = found.context("open")
    expected = brute_force_equity(game, result.average_policy, hand, le_truc.RAISE,
                                  le_truc.ACCEPT)
    assert opening.equity["Raise"][opening.hands.index(hand)] == pytest.approx(expected, abs=1e-9)


def test_fast_info_state_names_equal_the_game_strings():
    for game_string in (SMALL, "python_le_truc(num_ranks=2,hand_size=1,max_redeals=0)"):
        game = load_game(game_string)
        tree = compile_game(game, cache=False, method="traversal")
        assert fast_info_state_names(game, tree) == tree.info_state_names
    assert fast_info_state_names(load_game(WITH_REDEAL), tree) is None


def test_bet_class_and_tables(no_rest):
    assert tables.bet_class(0.5) == "value" and tables.bet_class(0.49) == "bluff"
    assert tables.bet_class(float("nan")) == "-"
    header, rows = tables.context_rows(no_rest[2].context("open"))
    assert header[:3] == ["hand", "reached %", "EV"]
    assert "Raise equity %" in header and len(rows) == 6
    markdown = tables.to_markdown(header, rows, "caption")
    assert markdown.splitlines()[2].startswith("| hand | reached % | EV | Raise % |")


def test_bluff_segments_split_bets_by_equity(no_rest):
    opening = no_rest[2].context("open")
    segments = charts.bet_segments(opening)
    np.testing.assert_allclose(segments.sum(axis=1), 1.0, atol=1e-9)
    raise_frequency = opening.frequency[:, opening.actions.index("Raise")]
    value = opening.equity["Raise"] >= 0.5
    np.testing.assert_allclose(segments[:, 0], np.where(value, raise_frequency, 0.0))
    np.testing.assert_allclose(segments[:, 1], np.where(value, 0.0, raise_frequency))


def test_game_title_lists_changed_parameters():
    assert charts.game_title(load_game(NO_REST)) == (
        "Le Truc (allow_rest=False, hand_size=2, isomorphic=True, max_redeals=0, num_ranks=3)")
    assert charts.game_title(pyspiel.load_game("kuhn_poker")) == "kuhn_poker (default parameters)"


def test_charts_are_written(no_rest, tmp_path):
    game, result, found = no_rest
    title = "test title"
    paths = charts.plot_bluffing(found, title, tmp_path) + charts.plot_strategy_grid(
        found.context("open"), title, tmp_path)
    assert sorted(p.name for p in paths) == ["bluffing.png", "bluffing.svg",
                                             "strategy-open.png", "strategy-open.svg"]
    assert all(p.stat().st_size > 1000 for p in paths)
