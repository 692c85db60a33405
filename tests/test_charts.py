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


# --- issue 16, items 9-11: charts a card player can learn from -------------------------------

def test_one_hand_order_for_every_panel_and_the_key_in_words(no_rest):
    """Item 9: the bluffing chart's panels share one row order (the first panel's), the sort
    key is said in words, rows carry the reach below 100%, and missing cells read "—"."""
    result = no_rest[2]
    panels = [table for table, _ in charts.bluff_panels(result)]
    order = charts.hand_order(panels)
    assert order == panels[0].hands and sorted(order) == sorted(panels[1].hands)
    assert panels[1].hands != order  # the dealer's own order differs: the chart re-sorts it
    segments = charts.aligned(panels[1], order, charts.bet_segments(panels[1]))
    own = charts.bet_segments(panels[1])
    for row, hand in enumerate(order):
        np.testing.assert_allclose(segments[row], own[panels[1].hands.index(hand)])
    assert "player 0's EV at the deal" in charts.order_note(panels[0])
    assert "strongest on top" in charts.order_note(panels[0])
    labels = charts.row_labels(panels[1], order)
    reached = dict(zip(panels[1].hands, panels[1].reached))
    for hand, label in zip(order, labels):
        assert label.startswith(hand)
        assert ("reached" in label) == (reached[hand] < 0.995)
    assert all("reached" not in label for label in charts.row_labels(panels[0], order))
    # a hand the context lacks: a row of "—"
    assert charts.row_labels(panels[0], order + ["X Y"])[-1] == "X Y  —"
    assert charts.bar_texts(charts.aligned(panels[0], order + ["X Y"],
                                           charts.bet_segments(panels[0])))[-1][0] == "—"


def test_numbers_on_bars_and_dashes_for_missing_cells(no_rest):
    """Item 9: numbers on the bars (segments wide enough), "—" where the hand has no such
    card (a pair has no `Play low`)."""
    opening = no_rest[2].context("open")
    texts = charts.bar_texts(charts.bet_segments(opening))
    for row, segments in zip(texts, charts.bet_segments(opening)):
        for text, value in zip(row, segments):
            assert text == (f"{100 * value:.0f}" if value >= charts.MIN_BAR_TEXT else "")
    cells = charts.cell_texts(opening, opening.hands)
    low = opening.actions.index("Play low")
    for hand, row in zip(opening.hands, cells):
        pair = hand.split()[0] == hand.split()[1]
        assert (row[low] == "—") == pair


def test_legends_list_only_actions_the_game_has(no_rest, small):
    """Item 9: without the rest no `Rest` entry; answers name the game's own actions."""
    bet = charts.legend_labels(no_rest[2].context("open"), "bet")
    assert [label for label in bet if label] == ["Raise (value)", "Raise (bluff)",
                                                 "Play a card", "Fold"]
    answer = charts.legend_labels(no_rest[2].context("dealer_answer_raise_2"), "answer")
    assert answer == ["Call (Accept)", None, "Refuse (Refuse)"]
    assert charts.legend_labels(small[2].context("dealer_answer_rest"), "answer") == [
        "Call (Rest)", None, "Refuse (Refuse)"]
    assert "Rest (value)" in charts.legend_labels(small[2].context("open"), "bet")


def test_no_blank_band_under_the_title(no_rest):
    """Item 9: in a tall chart the title sits right above the panels (less than half an
    inch between the title's bottom and the panels' tops, titles included)."""
    result = no_rest[2]
    for figure in (charts.bluffing_figure(result, "title"),
                   charts.strategy_figure(result.context("open"), "title")):
        figure.canvas.draw()
        renderer = figure.canvas.get_renderer()
        title = figure._suptitle.get_window_extent(renderer)
        top = max(axis.get_tightbbox(renderer).y1 for axis in figure.axes)
        assert (title.y0 - top) / figure.dpi < 0.5
        charts.plt.close(figure)


def test_action_evs_and_indifference_flags(no_rest):
    """Item 10: each action's EV (history engine: the children's values); at one information
    state per hand (the opening) the frequencies weight them into the hand's EV; hands with two
    actions within the tolerance of the best are flagged indifferent, hands reaching the
    decision rarely are flagged, and the flags reach the tables and the charts' rows."""
    from solver.analysis import contexts
    result = no_rest[2]
    opening = result.context("open")
    assert opening.action_ev.shape == opening.frequency.shape
    np.testing.assert_array_equal(np.isnan(opening.action_ev), np.isnan(opening.frequency))
    np.testing.assert_allclose(np.nansum(opening.frequency * opening.action_ev, axis=1),
                               opening.ev, atol=1e-9)
    flat = contexts.indifferent(opening)
    for index, evs in enumerate(opening.action_ev):
        evs = evs[~np.isnan(evs)]
        near = np.count_nonzero(evs >= evs.max() - contexts.INDIFFERENCE_TOLERANCE)
        assert flat[index] == (near >= 2)
        mixed = np.count_nonzero(opening.frequency[index] > 0.05) >= 2
        if mixed:  # at equilibrium a hand only mixes between equally good actions
            assert flat[index]
    assert flat.any() and not flat.all()
    assert contexts.is_flat(np.array([1.0, 1.0 + contexts.INDIFFERENCE_TOLERANCE / 2, np.nan]))
    assert not contexts.is_flat(np.array([1.0, 0.9, np.nan]))
    for table in result.contexts:  # judged state by state: a share of the hand's reach
        assert np.all((table.indifferent_share >= 0) & (table.indifferent_share <= 1 + 1e-12))
        np.testing.assert_array_equal(contexts.indifferent(table),
                                      table.indifferent_share >= 0.5)
    header, rows = tables.context_rows(opening)
    assert header[-1] == "note" and "EV if Raise" in header
    notes = contexts.hand_notes(opening)
    assert [row[-1] for row in rows] == [note or "-" for note in notes]
    labels = charts.row_labels(opening, opening.hands)
    assert all(label.endswith("· indifferent") == (note == "indifferent")
               for label, note in zip(labels, notes))
    rare = [t for t in result.contexts if contexts.rarely_reached(t).any()]
    assert rare
    for table in rare:
        notes = contexts.hand_notes(table)
        assert all((note == "rarely reached") == (reach < contexts.RARE_REACH)
                   for note, reach in zip(notes, table.reached))


def test_public_engine_action_evs_equal_the_history_engine():
    """Item 10: the public-tree analysis measures each action's EV (one pass per column and
    level) as the history analysis does, on the redeal game (the talk included)."""
    from solver.history.policy import AveragePolicy
    from solver.public.solve import solve_public, solver_for
    from tests.test_public_engine import history_policy
    game = load_game("python_le_truc(num_ranks=3,hand_size=1,isomorphic=true)")
    public = solve_public(game, iterations=40, eval_every=40, progress=False)
    mine = analysis.analyze(game, public.average_policy)
    tree = compile_game(game)
    theirs = analysis.analyze(game, AveragePolicy.on_tree(
        tree, history_policy(solver_for(game, public.average_policy), tree)), tree)
    for a, b in zip(mine.contexts, theirs.contexts):
        order = [b.hands.index(hand) for hand in a.hands]
        np.testing.assert_allclose(a.action_ev, b.action_ev[order], atol=1e-9, err_msg=a.key)
        assert a.splits.keys() == b.splits.keys()
        for lead in a.splits:
            x, y = a.splits[lead], b.splits[lead]
            order = [y.hands.index(hand) for hand in x.hands]
            np.testing.assert_allclose(x.frequency, y.frequency[order], atol=1e-9)
            np.testing.assert_allclose(x.action_ev, y.action_ev[order], atol=1e-9)


def test_follower_grids_per_lead_card(no_rest, tmp_path):
    """Item 11: every follower context carries one table per lead card (strongest lead
    first); weighting them by their reach gives back the averaged table; the chart draws one
    grid per lead and the tables add a by-lead table."""
    game, _, result = no_rest
    ranks = game.rules.deck.ranks
    follow = [t for t in result.contexts if t.key.startswith("follow")]
    assert follow and all(t.splits for t in follow)
    assert not any(t.splits for t in result.contexts if not t.key.startswith("follow"))
    for table in follow:
        leads = list(table.splits)
        assert leads == sorted(leads, key=ranks.index, reverse=True)
        assert all(s.lead == lead and f"lead {lead}" in s.title
                   for lead, s in table.splits.items())
        assert sum(s.probability for s in table.splits.values()) == pytest.approx(
            table.probability, abs=1e-12)
        for column, action in enumerate(table.actions):
            for row, hand in enumerate(table.hands):
                mass = weight = 0.0
                for split in table.splits.values():
                    if hand in split.hands:
                        i = split.hands.index(hand)
                        w = split.reached[i]
                        weight += w
                        if action in split.actions:
                            mass += w * np.nan_to_num(split.frequency[i, split.actions.index(
                                action)])
                assert weight == pytest.approx(table.reached[row], abs=1e-12)
                if not np.isnan(table.frequency[row, column]):
                    assert mass / weight == pytest.approx(table.frequency[row, column],
                                                          abs=1e-9)
    figure = charts.strategy_figure(follow[0], "title")
    grids = [axis for axis in figure.axes if axis.get_title().startswith("lead ")]
    assert [axis.get_title().split("\n")[0] for axis in grids] == [
        f"lead {lead}" for lead in follow[0].splits]
    assert grids[-1].get_yticklabels()[0].get_text().startswith(
        follow[0].hands[0])
    charts.plt.close(figure)
    paths = charts.write_tables(result, "title", tmp_path)
    by_lead = tmp_path / f"strategy-{follow[0].key}-by_lead.csv"
    assert by_lead in paths
    header, *lines = by_lead.read_text().splitlines()
    assert header.startswith("lead,hand,reached %")
    assert {line.split(",")[0] for line in lines} == set(follow[0].splits)
