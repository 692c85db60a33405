"""Tree sizes: brute force against known sizes, the dynamic programs (Le Truc, Truco) against
it, sampled and Knuth estimates against exact counts, the automatic rule and the command."""
from __future__ import annotations

import json

import pyspiel
import pytest

import games  # noqa: F401  (registers the games)
from solver import cli, compile_game, sizes

# Small Le Truc variants: both modes, with and without redeals, counter-raise on, rest/fold off.
SMALL_LE_TRUC = (
    "python_le_truc(num_ranks=2,hand_size=1)",
    "python_le_truc(num_ranks=1,hand_size=2,allow_counter_raise=true)",
    "python_le_truc(num_ranks=2,hand_size=1,isomorphic=true)",
    "python_le_truc(num_ranks=2,hand_size=2,isomorphic=true,max_redeals=2)",
    "python_le_truc(num_ranks=3,hand_size=2,isomorphic=true,max_redeals=0)",
    "python_le_truc(num_ranks=2,hand_size=3,isomorphic=true,max_redeals=0)",
    "python_le_truc(num_ranks=2,hand_size=2,isomorphic=true,allow_counter_raise=true,"
    "allow_rest=false,allow_fold=false)",
    "python_le_truc(num_ranks=3,hand_size=1,isomorphic=true,dealer=0,allow_counter_raise=true,"
    "stake_ladder=doubling)",
)

# Small two-player Truco hands: clean and dirty deck, Trucomano, concrete cards (with two cards
# of one class in a hand), a covered card chosen among two, a hand of eleven.
SMALL_TRUCO = (
    "python_truco_paulista(deck=clean,hand_size=1,isomorphic=true)",
    "python_truco_paulista(hand_size=1,isomorphic=true)",
    "python_trucomano(hand_size=1,isomorphic=true)",
    "python_truco_paulista(deck=clean,num_ranks=2,hand_size=1)",
    "python_truco_paulista(deck=clean,num_ranks=2,hand_size=2,score0=11,score1=11,"
    "allow_covered=false)",
    "python_truco_paulista(deck=clean,num_ranks=3,hand_size=2,covered_from_round=1,score0=11,"
    "score1=11,isomorphic=true)",
    "python_truco_paulista(deck=clean,num_ranks=3,hand_size=2,score0=11,score1=3,isomorphic=true)",
)
NODE_FIGURES = ("histories", "terminals", "decision_nodes", "chance_nodes")
TINY_TWO_TEN_JACK = "python_two_ten_jack(suits=h:s,ranks=2:T:J:A,hand_size=1)"


def _figures(size: sizes.TreeSize) -> tuple:
    return tuple(getattr(size, name) for name in NODE_FIGURES) + (size.infosets,)


def _assert_within(estimate: float, half_width: float, exact: int, tolerance: float) -> None:
    """The 95% interval contains the exact count and is narrower than `tolerance` of it."""
    assert abs(estimate - exact) <= half_width < tolerance * exact


def test_traversal_counts_kuhn_poker():
    # Root deal, 3 second-card deals, 6 betting trees of 9 nodes (5 terminal); 6 + 6 infosets.
    size = sizes.count_by_traversal(pyspiel.load_game("kuhn_poker"))
    assert (size.histories, size.terminals, size.decision_nodes, size.chance_nodes) == (
        58, 30, 24, 4)
    assert size.infosets == (6, 6)


def test_traversal_matches_openspiel_state_enumeration():
    from open_spiel.python.algorithms import get_all_states
    game = pyspiel.load_game("leduc_poker")
    states = get_all_states.get_all_states(game, include_terminals=True,
                                           include_chance_states=True)
    size = sizes.count_by_traversal(game)
    assert size.histories == len(states)
    assert size.terminals == sum(state.is_terminal() for state in states.values())
    assert size.infosets == (468, 468)


@pytest.mark.parametrize("game_string", SMALL_LE_TRUC)
def test_le_truc_dynamic_programming_equals_traversal(game_string):
    game = pyspiel.load_game(game_string)
    assert sizes.le_truc_sizes(game, infosets=True) == sizes.count_by_traversal(game)


def test_infosets_can_be_skipped():
    game = pyspiel.load_game("python_le_truc(num_ranks=2,hand_size=1)")
    counts_only = sizes.le_truc_sizes(game, infosets=False)
    assert counts_only.infosets is None and counts_only.histories == 70401


def test_le_truc_sizes_rejects_other_games():
    with pytest.raises(ValueError, match="python_le_truc"):
        sizes.le_truc_sizes(pyspiel.load_game("kuhn_poker"))


@pytest.mark.parametrize("game_string", SMALL_TRUCO)
def test_truco_dynamic_programming_equals_traversal(game_string):
    game = pyspiel.load_game(game_string)
    counted = sizes.truco_sizes(game)
    assert counted.method == "exact" and not counted.half_widths
    assert _figures(counted) == _figures(sizes.count_by_traversal(game))


@pytest.mark.parametrize("game_string", [
    "python_truco_paulista(deck=clean,hand_size=2,isomorphic=true)",
    "python_truco_paulista(deck=clean,num_ranks=4,hand_size=2)",
])
def test_truco_sampled_interval_contains_exact_count(game_string):
    game = pyspiel.load_game(game_string)
    exact = sizes.truco_sizes(game)
    sampled = sizes.truco_sizes(game, samples=200, seed=0)
    assert sampled.method == "sampled 200" and sampled.chance_nodes == exact.chance_nodes
    assert sampled.extras == exact.extras and "chance_nodes" not in sampled.half_widths
    for name in NODE_FIGURES[:3]:
        _assert_within(getattr(sampled, name), sampled.half_widths[name], getattr(exact, name),
                       0.1)
    for estimate, width, count in zip(sampled.infosets, sampled.half_widths["infosets"],
                                      exact.infosets):
        _assert_within(estimate, width, count, 0.1)


def test_truco_sizes_rejects_four_players_and_the_blind_hand():
    for game_string in ("python_truco_paulista(num_players=4,hand_size=1)",
                        "python_trucomano(score0=11,score1=11)", "kuhn_poker"):
        with pytest.raises(ValueError, match="two-player"):
            sizes.truco_sizes(pyspiel.load_game(game_string))


def test_knuth_interval_contains_exact_two_ten_jack_count():
    game = pyspiel.load_game(TINY_TWO_TEN_JACK)
    exact = compile_game(game, cache=False, workers=1).sizes()  # the memoized compiler's tree
    estimate = sizes.knuth_estimate(game, 2000, seed=0)
    assert estimate.method == "Knuth 2000 walks" and estimate.infosets is None
    for name in NODE_FIGURES:
        _assert_within(getattr(estimate, name), estimate.half_widths[name], exact[name], 0.1)


def test_knuth_is_exact_where_branching_depends_only_on_depth():
    # Kuhn poker's chance nodes: the root (3 deals), then 3 nodes of 2 deals, on every walk.
    estimate = sizes.knuth_estimate(pyspiel.load_game("kuhn_poker"), 20, seed=0)
    assert estimate.chance_nodes == 4 and estimate.half_widths["chance_nodes"] == 0


def test_automatic_rule():
    kuhn = pyspiel.load_game("kuhn_poker")
    assert sizes.measure(kuhn) == sizes.count_by_traversal(kuhn)
    assert sizes.measure(kuhn, samples=50).method == "Knuth 50 walks"
    le_truc = pyspiel.load_game("python_le_truc(num_ranks=2,hand_size=1)")
    assert sizes.measure(le_truc, samples=50) == sizes.le_truc_sizes(le_truc)
    truco = pyspiel.load_game(SMALL_TRUCO[0])
    assert sizes.measure(truco) == sizes.truco_sizes(truco)
    assert sizes.measure(truco, samples=50, seed=3) == sizes.truco_sizes(truco, 50, 3)
    big = sizes.measure(pyspiel.load_game("python_two_ten_jack(ranks=2:T:J:A,hand_size=1)"),
                        samples=100)
    assert big.method == "Knuth 100 walks"
    assert big.extras == {"chance sequences": 20922789888000, "infosets at the first lead": 16}
    with pytest.raises(ValueError, match="samples=1"):
        sizes.measure(kuhn, samples=1)


@pytest.fixture
def run_cli(monkeypatch):
    """`tricksolver ARGS` through the real entry point, with only this subcommand registered."""
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("solver.cli.sizes",))
    return cli.main


def test_cli_prints_table_and_writes_json(run_cli, tmp_path, capsys):
    path = tmp_path / "out" / "sizes.json"
    game_string = "python_le_truc(num_ranks=2,hand_size=1)"
    assert run_cli(["sizes", game_string, "kuhn_poker", "--json", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("game | histories | terminals | decision nodes | chance nodes")
    assert lines[1].startswith(f"{game_string} | 70,401 | 41,216 | 28,784 | 401 | 512 | 3,288 |")
    assert lines[2].startswith("kuhn_poker | 58 | 30 | 24 | 4 | 6 | 6 | exact |")
    rows = json.loads(path.read_text())["sizes"]
    assert [row["game_string"] for row in rows] == [game_string, "kuhn_poker"]
    assert rows[0]["histories"] == 70401 and rows[0]["infosets"] == [512, 3288]
    assert [p.name for p in path.parent.iterdir()] == ["sizes.json"]


def test_cli_marks_estimates_with_half_widths(run_cli, tmp_path, capsys):
    truco, two_ten_jack = SMALL_TRUCO[0], "python_two_ten_jack(ranks=2:T:J:A,hand_size=1)"
    markdown = tmp_path / "sizes.md"
    assert run_cli(["sizes", truco, two_ten_jack, "--markdown", str(markdown)]) == 0
    _, exact_row, knuth_row = capsys.readouterr().out.splitlines()
    assert exact_row.startswith(f"{truco} | 25,471 | 11,550 | 13,860 | 61 | 648 | 7,500 | exact")
    assert "±" not in exact_row and "deal classes 462" in exact_row
    cells = knuth_row.split(" | ")
    assert all("±" in cell for cell in cells[1:5])
    assert cells[5:8] == ["-", "-", f"Knuth {sizes.DEFAULT_WALKS} walks"]
    assert "chance sequences 20,922,789,888,000" in cells[-1]
    text = markdown.read_text()
    assert f"Command: `tricksolver sizes '{truco}' '{two_ten_jack}' --markdown" in text
    assert f"| `{two_ten_jack}` | " in text and text.count("±") == 4 + 1  # four cells, a legend

    assert run_cli(["sizes", truco, "--samples", "30", "--seed", "1"]) == 0
    sampled_row = capsys.readouterr().out.splitlines()[1].split(" | ")
    assert all("±" in cell for cell in sampled_row[1:4] + sampled_row[5:7])
    assert sampled_row[4] == "61" and sampled_row[7] == "sampled 30"


@pytest.mark.parametrize("arguments", [
    ["python_le_truc(num_ranks=9)"], ["no_such_game"], ["python_le_truc(colour=red)"],
    ["kuhn_poker", "--samples", "0"], ["kuhn_poker", "--samples", "-3"],
])
def test_cli_bad_input_is_one_line_exit_2(run_cli, capsys, arguments):
    assert run_cli(["sizes", "python_le_truc(num_ranks=2,hand_size=1)", *arguments]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # checked before any counting
    assert len(captured.err.strip().splitlines()) == 1
    assert captured.err.startswith("tricksolver sizes: error:")
