"""Truco strategy analysis (`solver.analysis.truco`) of public-tree solutions, on tiny variants:
its frequencies are the solver's row probabilities, each hand's frequencies sum to one, the
reach and EV definitions hold (deal EVs weighted by the deal give the game value), the hand of
eleven is charted, and `write_truco_charts` writes the charts and tables."""
from __future__ import annotations

import json

import numpy as np
import pytest

import games  # noqa: F401  (registers the games)
from games import truco
from solver import analysis, results
from solver.analysis import charts
from solver.analysis import truco as truco_analysis
from solver.public.parts import public_parts
from solver.public.solve import solve_public, solver_for

PAULISTA = "python_truco_paulista(num_ranks=3,hand_size=2,isomorphic=true)"
ELEVEN = "python_trucomano(num_ranks=2,hand_size=2,isomorphic=true,score0=11)"


def solve_to_directory(game_string: str, directory, iterations: int):
    """Solve every vira class of a game into DIR/vira_X/ and write DIR/summary.json, as
    `tricksolver solve GAME --engine public --out DIR` does; the game."""
    from solver.registry import load_game

    game = load_game(game_string)
    exploitability = value = 0.0
    for part in public_parts(game):
        result = solve_public(game, iterations=iterations, eval_every=iterations,
                              progress=False, part=part)
        policy = result.average_policy
        results.save_result(results.part_directory(directory, part), policy,
                            result.curve, results.build_summary(result, policy.game_string,
                                                                {"engine": "public"}))
        exploitability += part.weight * result.exploitability
        value += part.weight * result.game_value
    (directory / "summary.json").write_text(json.dumps(
        {"game": str(game), "engine": "public", "algorithm": "dcfr",
         "exploitability": exploitability, "game_value": value}))
    return game


@pytest.fixture(scope="module")
def paulista(tree_cache, tmp_path_factory):
    directory = tmp_path_factory.mktemp("paulista")
    game = solve_to_directory(PAULISTA, directory, 60)
    return game, directory, truco_analysis.truco_rows(game, directory)


@pytest.fixture(scope="module")
def eleven(tree_cache, tmp_path_factory):
    directory = tmp_path_factory.mktemp("eleven")
    game = solve_to_directory(ELEVEN, directory, 30)
    return game, directory, truco_analysis.truco_rows(game, directory)


def _solver(game, directory, part):
    return solver_for(game, results.load_result(
        results.part_directory(directory, part)).policy)


def _labels(part, hand, actions):
    """Column labels of the OpenSpiel actions of a row where every card is unplayed."""
    names = []
    for action in actions:
        if action < truco.CARD_ACTION_BASE:
            names.append(truco.BETTING_ACTION_NAMES[action])
        else:
            names.append(truco_analysis.card_labels(
                hand, 1)[sorted(set(hand)).index(action - truco.CARD_ACTION_BASE)])
    return names


def test_opening_frequencies_are_the_solver_row_probabilities(paulista):
    game, directory, parts = paulista
    by_vira = truco_analysis.analyze_truco_parts(game, directory, parts)
    for part in public_parts(game):
        solver = _solver(game, directory, part)
        table = by_vira[part.label].context("open")
        for hand in solver.deals.hands:
            probabilities = solver.row_probabilities("play", [], game.rules.mao, (hand, ()))
            labels = _labels(part, hand, list(probabilities))
            row = table.hands.index(truco_analysis.hand_label(part, hand))
            for label, probability in zip(labels, probabilities.values()):
                assert table.frequency[row, table.actions.index(label)] == pytest.approx(
                    probability, abs=1e-12)
            assert table.reached[row] == pytest.approx(1.0)


def _follow_setting(paulista):
    """(rules, the first vira class, its solver, its `follow_1` table)."""
    game, directory, parts = paulista
    part = public_parts(game)[0]
    table = truco_analysis.analyze_truco_parts(game, directory, parts)[part.label].context(
        "follow_1")
    return game.rules, part, _solver(game, directory, part), table


def _follow_mass(solver, part, rules, j: int, lead_item: int | None) -> tuple[dict, float]:
    """The pé holding hand j, after the mão's lead (`lead_item` only, or any): ({action label:
    chance x the mão's lead probability x the pé's probability}, that weight summed)."""
    hands, pair = solver.deals.hands, solver.deals.first_hands()
    hand = hands[j]
    mass, weight = {}, 0.0
    for i, lead_hand in enumerate(hands):
        if pair[i, j] <= 0:
            continue
        lead = solver.row_probabilities("play", [], rules.mao, (lead_hand, ()))
        for item in sorted(set(lead_hand)):
            reach = pair[i, j] * lead[truco.CARD_ACTION_BASE + item]
            if reach <= 0 or lead_item not in (None, item):
                continue
            answer = solver.row_probabilities(
                "play", [truco.CARD_ACTION_BASE + item], rules.dealer, (hand, ()))
            weight += reach
            for label, p in zip(_labels(part, hand, list(answer)), answer.values()):
                mass[label] = mass.get(label, 0.0) + reach * p
    return mass, weight


def test_follow_frequencies_are_reach_weighted_row_probabilities(paulista):
    """The pé's first card turn at stake 1 (after each lead card, no raise): frequencies are
    the pé's row probabilities weighted by chance x the mão's probability of that lead."""
    rules, part, solver, table = _follow_setting(paulista)
    hands, pair = solver.deals.hands, solver.deals.first_hands()
    for j, hand in enumerate(hands):
        mass, weight = _follow_mass(solver, part, rules, j, None)
        label = truco_analysis.hand_label(part, hand)
        if weight < truco_analysis.MIN_HAND_REACH * pair[:, j].sum():
            assert label not in table.hands
            continue
        row = table.hands.index(label)
        for label, total in mass.items():
            assert table.frequency[row, table.actions.index(label)] == pytest.approx(
                total / weight, abs=1e-9)


def test_frequencies_sum_to_one_and_equities_are_probabilities(paulista):
    game, directory, parts = paulista
    tables = [truco_analysis.analyze_truco(game, directory, parts)] + list(
        truco_analysis.analyze_truco_parts(game, directory, parts).values())
    for result in tables:
        keys = [t.key for t in result.contexts]
        assert {"open", "follow_1", "dealer_answer_raise_3", "nondealer_cover_2"} <= set(keys)
        for table in result.contexts:
            np.testing.assert_allclose(np.nansum(table.frequency, axis=1), 1.0, atol=1e-9)
            assert np.all((table.reached > 0) & (table.reached <= 1 + 1e-9))
            if np.any(table.reached >= truco_analysis.MIN_HAND_REACH):  # else: all kept
                assert np.all(table.reached >= truco_analysis.MIN_HAND_REACH)
            for equity in table.equity.values():
                finite = equity[np.isfinite(equity)]
                assert np.all((finite >= -1e-9) & (finite <= 1 + 1e-9))
    cover = tables[0].context("nondealer_cover_2")
    assert {"Play", "Play covered"} <= set(cover.actions)
    assert all(" | " in hand and hand.startswith("vira ") for hand in cover.hands)


def test_deal_evs_weighted_by_the_deal_are_the_game_value(paulista):
    game, directory, parts = paulista
    total = 0.0
    for rows in parts:
        solver = _solver(game, directory, rows.part)
        for player, sign in ((0, 1.0), (1, -1.0)):
            value = sum(p * ev for p, ev in rows.deal[player].values() if p > 0)
            assert value == pytest.approx(sign * solver.game_value(), abs=1e-9)
        total += rows.part.weight * rows.game_value
    summary = results.read_summary(directory)
    assert total == pytest.approx(summary["game_value"], abs=1e-9)
    opening = truco_analysis.analyze_truco(game, directory, parts).context("open")
    assert opening.probability == pytest.approx(1.0)
    np.testing.assert_allclose(opening.ev, opening.deal_ev, atol=1e-9)  # the opening is the deal
    assert list(opening.deal_ev) == sorted(opening.deal_ev, reverse=True)


def test_hand_of_eleven_is_charted(eleven):
    game, directory, parts = eleven
    result = analysis.analyze(game, directory)
    table = result.context("eleven")
    assert table.actions == ["Play 11", "Run 11"]
    assert table.player == game.rules.eleven_decider()
    np.testing.assert_allclose(table.frequency.sum(axis=1), 1.0)
    part = public_parts(game)[0]
    solver = _solver(game, directory, part)
    hand = solver.deals.hands[0]
    expected = solver.row_probabilities("play", [], table.player, (hand, ()))
    by_vira = truco_analysis.analyze_truco_parts(game, directory, parts)[part.label]
    row = by_vira.context("eleven").hands.index(truco_analysis.hand_label(part, hand))
    assert by_vira.context("eleven").frequency[row, 0] == pytest.approx(
        expected[truco.PLAY_11], abs=1e-12)
    assert not any(t.key.startswith(("nondealer_answer", "dealer_answer"))
                   for t in result.contexts)  # no raise in a hand of eleven (TM-4)


def _written(paths, out) -> set[str]:
    assert all(path.exists() for path in paths)
    return {path.relative_to(out).as_posix() for path in paths}


def test_write_truco_charts_writes_charts_and_tables(paulista, eleven, tmp_path):
    """Tables, bluffing charts and curves of the Paulista variant; every chart of the hand of
    eleven (few contexts: drawing all of the Paulista's grids takes a minute)."""
    game, directory, parts = paulista
    out = tmp_path / "paulista"
    label = public_parts(game)[0].label.replace(" ", "_")
    names = set()
    for kind in ("curve", "bluff", "tables"):
        names |= _written(charts.write_truco_charts(directory, out, kind, parts), out)
    for name in ("curves.png", f"{label}/bluffing.svg", f"{label}/tables/strategy-open.md",
                 f"{label}/tables/bluffing.csv", "tables/strategy-open.csv", "tables/deals.md"):
        assert name in names
    assert not any("strategy-" in name and name.endswith(".png") for name in names)
    markdown = (out / "tables" / "strategy-open.md").read_text()
    assert "vira " in markdown and "\\|" in markdown  # the hand's `|` escaped in the table
    game, directory, parts = eleven
    out = tmp_path / "eleven"
    label = public_parts(game)[0].label.replace(" ", "_")
    names = _written(charts.write_truco_charts(directory, out, "all", parts), out)
    assert {f"{label}/strategy-eleven.png", f"{label}/strategy-eleven.svg",
            "tables/strategy-eleven.md"} <= names
    with pytest.raises(ValueError, match="kind"):
        charts.write_truco_charts(directory, out, "grid")


def test_write_truco_charts_of_chosen_vira_classes(eleven, tmp_path):
    """`labels` draws those classes only (a class not solved yet, with no directory at all,
    is never read), with their own tables, and the curves of the classes solved; the
    whole-game tables wait for every class."""
    import shutil

    game, source, _ = eleven
    directory = tmp_path / "result"
    shutil.copytree(source, directory)
    chosen = public_parts(game)[1]
    shutil.rmtree(results.part_directory(directory, public_parts(game)[0]))
    out = tmp_path / "charts"
    names = _written(charts.write_truco_charts(directory, out, "all", labels=[chosen.label]),
                     out)
    assert "curves.png" in names
    folders = {name.split("/")[0] for name in names if "/" in name}
    assert folders == {chosen.label.replace(" ", "_")}
    assert f"{chosen.label.replace(' ', '_')}/tables/strategy-eleven.csv" in names
    with pytest.raises(ValueError, match="no sub-game 'vira 1'"):
        truco_analysis.truco_rows(game, directory, ["vira 1"])


def test_write_truco_charts_rejects_another_game(tmp_path):
    (tmp_path / "summary.json").write_text(json.dumps({"game": "python_le_truc"}))
    with pytest.raises(ValueError, match="python_truco_paulista"):
        charts.write_truco_charts(tmp_path, tmp_path / "out")


# --- issue 16, items 9-11 on Truco ------------------------------------------------------------

def test_truco_bluffing_chart_one_order_and_the_game_actions(paulista):
    """Item 9: the bluffing panels of a vira class share one hand order (hands a panel lacks
    read "—"), and the legends name Truco's actions (`Run`, raising back)."""
    game, directory, parts = paulista
    part = public_parts(game)[0]
    result = truco_analysis.analyze_truco_parts(game, directory, parts)[part.label]
    panels = charts.bluff_panels(result)
    order = charts.hand_order([table for table, _ in panels])
    assert order[:len(panels[0][0].hands)] == panels[0][0].hands
    for table, kind in panels:
        labels = charts.row_labels(table, order)
        for hand, label in zip(order, labels):
            assert label.startswith(hand)
            assert label.endswith("—") == (hand not in table.hands)
        legend = charts.legend_labels(table, kind)
        if kind == "answer":
            assert legend[0] == "Call (Accept)" and legend[2] == "Refuse (Run)"
            assert (legend[1] == "Raise back (Raise)") == ("Raise" in table.actions)
        else:
            assert "Rest (value)" not in legend


def test_truco_action_evs_and_flags(paulista):
    """Item 10: each action's EV from the public engine (`public.BranchStats`): at the
    opening (one row per hand) the frequencies weight them into the hand's EV, and mixing
    hands are flagged indifferent; the flags reach the tables."""
    from solver.analysis import contexts, tables
    game, directory, parts = paulista
    for result in truco_analysis.analyze_truco_parts(game, directory, parts).values():
        opening = result.context("open")
        np.testing.assert_array_equal(np.isnan(opening.action_ev), np.isnan(opening.frequency))
        np.testing.assert_allclose(np.nansum(opening.frequency * opening.action_ev, axis=1),
                                   opening.ev, atol=1e-9)
        flat = contexts.indifferent(opening)
        for index, evs in enumerate(opening.action_ev):
            evs = evs[np.isfinite(evs)]
            assert flat[index] == (np.count_nonzero(
                evs >= evs.max() - contexts.INDIFFERENCE_TOLERANCE) >= 2)
        for table in result.contexts:
            assert table.action_ev is not None and table.action_ev.shape == table.frequency.shape
            header, rows = tables.context_rows(table)
            assert header[-1] == "note"
            assert [r[-1] for r in rows] == [n or "-" for n in contexts.hand_notes(table)]


def test_truco_follower_split_by_lead_card(paulista):
    """Item 11: the pé's first card turn per lead class: each lead's frequencies are the pé's
    row probabilities after that lead, weighted by chance x the mão's probability of leading
    it; leads strongest first."""
    rules, part, solver, table = _follow_setting(paulista)
    assert table.splits
    hands = solver.deals.hands
    items = sorted({c for hand in hands for c in hand}, reverse=True)
    names = [part.rules.class_name(c, part.vira) for c in items]
    assert list(table.splits) == [n for n in names if n in table.splits]
    for item, name in zip(items, names):
        if name not in table.splits:
            continue
        split = table.splits[name]
        assert split.lead == name
        for j, hand in enumerate(hands):
            mass, weight = _follow_mass(solver, part, rules, j, item)
            label = truco_analysis.hand_label(part, hand)
            if label not in split.hands:
                continue
            row = split.hands.index(label)
            for action, total in mass.items():
                assert split.frequency[row, split.actions.index(action)] == pytest.approx(
                    total / weight, abs=1e-9)


def test_every_action_value_of_one_pass_is_the_action_played_purely(paulista):
    """The fast path of the action EVs (one `EXPECT_ACTIONS` pass records every action's value)
    pinned to the slow exact one it replaced: play the action purely at the node, the average
    policy everywhere else, and record the row's counterfactual value (one pass per node and
    column, on a few nodes of each player, betting and card columns)."""
    from solver.public import _kernels as kernels
    from solver.public.cfr import Tables

    game, directory, _ = paulista
    part = public_parts(game)[-1]
    solver = _solver(game, directory, part)
    tree, tables = solver.tree, solver.tables["play"]
    ones = np.ones(len(solver.deals.hands))
    coupling = solver.deals.first_hands()
    for player in (0, 1):
        recorded = np.zeros(int(tree.table_size[player]))
        solver.passes.expectation(player, ones, ones, coupling, tables, kernels.AVERAGE,
                                  recorded, actions=True)
        nodes = np.flatnonzero(tree.node_player == player)
        checked = 0
        for node in nodes[:: max(1, len(nodes) // 12)]:
            first = int(tree.list_start[int(tree.node_list[node, player])])
            count = int(tree.list_start[int(tree.node_list[node, player]) + 1]) - first
            for x in range(count):
                start, width = analysis.public.row_block(tree, int(node), x)
                for column in range(width):
                    pure = tables.average.copy()
                    own = pure[:tables.split] if player == 0 else pure[tables.split:]
                    own[start:start + width] = 0.0
                    own[start + column] = 1.0
                    values = np.zeros(tree.num_rows(player))
                    solver.passes.expectation(player, ones, ones, coupling, Tables(
                        tables.regret, pure, tables.prediction, tables.split),
                        kernels.AVERAGE, values)
                    assert recorded[start + column] == values[int(tree.node_row[node]) + x]
                    checked += 1
        assert checked > 20


def test_one_players_joint_records_are_his_rows_of_both(paulista):
    """`Passes.joint(only=player)` records that player's rows exactly as the record of both."""
    from solver.public import _kernels as kernels

    game, directory, _ = paulista
    solver = _solver(game, directory, public_parts(game)[0])
    tree, tables = solver.tree, solver.tables["play"]
    ones = np.ones(len(solver.deals.hands))
    coupling = solver.deals.first_hands()
    rows = max(tree.num_rows(0), tree.num_rows(1))
    own, chance = np.zeros((2, rows)), np.zeros((2, rows))
    solver.passes.joint(ones, ones, tables, kernels.AVERAGE, coupling=coupling, own_out=own,
                        chance_out=chance)
    for player in (0, 1):
        mine = tree.num_rows(player)
        own_p, chance_p = np.zeros((1, mine), np.float32), np.zeros((1, mine), np.float32)
        solver.passes.joint(ones, ones, tables, kernels.AVERAGE, coupling=coupling,
                            own_out=own_p, chance_out=chance_p, only=player)
        np.testing.assert_array_equal(own_p[0], own[player, :mine].astype(np.float32))
        np.testing.assert_array_equal(chance_p[0], chance[player, :mine].astype(np.float32))


def test_a_class_analysis_is_kept_with_its_result_and_read_back(paulista, tmp_path):
    """`part_rows` saves each class's sums (`ANALYSIS_FILE`) beside its strategy; read back
    with no strategy at all (a full-size class's is not committed) they give the same tables;
    a class solved again (other iterations) is analysed again."""
    import shutil

    game, directory, parts = paulista
    copy = tmp_path / "result"
    shutil.copytree(directory, copy)
    before = {label: result for label, result in
              truco_analysis.analyze_truco_parts(game, directory, parts).items()}
    for part in public_parts(game):
        sub = results.part_directory(copy, part)
        assert (sub / truco_analysis.ANALYSIS_FILE).exists()
        for name in ("strategy.npz", "strategy.q8.npz.xz"):
            (sub / name).unlink(missing_ok=True)
    again = truco_analysis.analyze_truco_parts(game, copy, truco_analysis.truco_rows(game, copy))
    for label, result in again.items():
        for table, expected in zip(result.contexts, before[label].contexts):
            assert table.hands == expected.hands and table.actions == expected.actions
            np.testing.assert_array_equal(table.frequency, expected.frequency)
            np.testing.assert_array_equal(table.ev, expected.ev)
    sub = results.part_directory(copy, public_parts(game)[0])
    summary = json.loads((sub / "summary.json").read_text())
    summary["iterations"] += 1
    (sub / "summary.json").write_text(json.dumps(summary))
    with pytest.raises(results.ResultError):  # stale: analysed again, from the missing strategy
        truco_analysis.truco_rows(game, copy)


def test_a_class_too_big_to_analyse_here_is_refused_in_one_line():
    """`check_analysis_fits` counts the tree, the average table and one player's records from
    the tree sizes a summary records (here a full-size dirty class's, solved in float32)."""
    from solver.sizes.truco_public import check_analysis_fits

    sizes = {"engine": "public", "tables": "float32", "public_nodes": 254_105_649,
             "public_decision_nodes": 24_873_293, "infosets_player0": 318_713_694,
             "infosets_player1": 319_698_972, "table_entries_player0": 712_209_114,
             "table_entries_player1": 721_873_152}
    with pytest.raises(ValueError, match=r"at least 17\.5 GB .* more than the 16\.0 GB"):
        check_analysis_fits(sizes, "vira 4", available=16 * 10**9)
    check_analysis_fits(sizes, "vira 4", available=18 * 10**9)
    check_analysis_fits({**sizes, "tables": "float64"}, "vira 4", available=10**12)
    with pytest.raises(ValueError, match=r"at least 30\.0 GB \(tree 5\.0, average table 11\.5, one player.s records 13\.4\)"):
        check_analysis_fits({**sizes, "tables": "float64"}, "vira 4", available=24 * 10**9)
