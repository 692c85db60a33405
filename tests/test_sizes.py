"""Tree sizes: brute force against known sizes, Le Truc's dynamic programming against it."""
from __future__ import annotations

import json

import pyspiel
import pytest

import games  # noqa: F401  (registers the games)
from solver import cli, sizes

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
    assert sizes.le_truc_sizes(game, "exact") == sizes.count_by_traversal(game)


def test_infosets_can_be_skipped():
    game = pyspiel.load_game("python_le_truc(num_ranks=2,hand_size=1)")
    counts_only = sizes.le_truc_sizes(game, infosets=False)
    assert counts_only.infosets is None and counts_only.histories == 70401


def test_le_truc_sizes_rejects_other_games():
    with pytest.raises(ValueError, match="python_le_truc"):
        sizes.le_truc_sizes(pyspiel.load_game("kuhn_poker"))


@pytest.fixture
def run_cli(monkeypatch):
    """`tricksolver ARGS` through the real entry point, with only this subcommand registered."""
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("solver.sizes",))
    return cli.main


def test_cli_prints_table_and_writes_json(run_cli, tmp_path, capsys):
    path = tmp_path / "out" / "sizes.json"
    game_string = "python_le_truc(num_ranks=2,hand_size=1)"
    assert run_cli(["sizes", game_string, "kuhn_poker", "--json", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("game | histories | terminals | decision nodes | chance nodes")
    assert lines[1].startswith(f"{game_string} | 70,401 | 41,216 | 28,784 | 401 | 512 | 3,288 |")
    assert lines[2].startswith("kuhn_poker | 58 | 30 | 24 | 4 | 6 | 6 |")
    rows = json.loads(path.read_text())["sizes"]
    assert [row["game_string"] for row in rows] == [game_string, "kuhn_poker"]
    assert rows[0]["histories"] == 70401 and rows[0]["infosets"] == [512, 3288]
    assert [p.name for p in path.parent.iterdir()] == ["sizes.json"]


@pytest.mark.parametrize("game_string", ["python_le_truc(num_ranks=9)", "no_such_game",
                                         "python_le_truc(colour=red)"])
def test_cli_bad_game_string_is_one_line_exit_2(run_cli, capsys, game_string):
    assert run_cli(["sizes", "python_le_truc(num_ranks=2,hand_size=1)", game_string]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # game strings are checked before any counting
    assert len(captured.err.strip().splitlines()) == 1
    assert captured.err.startswith("tricksolver sizes: error:")
