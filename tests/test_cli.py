"""`tricksolver` end to end on a small Le Truc variant: solve -> chart -> show -> exploit, and
every bad-input case (one-line error, exit code 2, no traceback)."""
from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys

import pytest

import solver
from solver import cli, results
from solver.registry import load_game

SMALL_LE_TRUC = "python_le_truc(num_ranks=3,hand_size=2,isomorphic=true,max_redeals=0)"
OTHER_LE_TRUC = "python_le_truc(num_ranks=2,hand_size=1,isomorphic=true,max_redeals=0)"
TARGET = 1e-3


@pytest.fixture(scope="module")
def small_result(tmp_path_factory, tree_cache):
    """Result directory of `tricksolver solve` on the small variant."""
    out = tmp_path_factory.mktemp("small") / "result"
    code = cli.main(["solve", "python_le_truc", "-p", "num_ranks=3", "-p", "hand_size=2",
                     "-p", "isomorphic=true", "-p", "max_redeals=0", "--target", str(TARGET),
                     "--eval-every", "5", "--quiet", "--out", str(out), "--seed", "7"])
    assert code == 0
    return out


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    """Run `tricksolver argv` in-process; (exit code, stdout, stderr). Pass `capfd` to see
    what C++ code writes to the file descriptors too."""
    code = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_bad_solve_keeps_the_previous_result(small_result, tmp_path, capsys):
    other = tmp_path / "other"
    shutil.copytree(small_result, other)
    assert_one_line_error(capsys, ["solve", SMALL_LE_TRUC, "--iterations", "-5", "--quiet",
                                   "--out", other], "--iterations")
    assert results.read_summary(other) == results.read_summary(small_result)


def test_a_new_checkpoint_marks_the_directory_unfinished(small_result, tmp_path):
    from solver.cli.solve import Checkpointer
    other = tmp_path / "other"
    shutil.copytree(small_result, other)
    state = results.load_checkpoint(other, str(load_game(SMALL_LE_TRUC)), {}).state
    Checkpointer(other, [], {"algorithm": "dcfr"}, every=1, seconds=60.0).write(state)
    assert not (other / "summary.json").exists()
    with pytest.raises(results.ResultError, match="is .* a finished solve"):
        results.load_result(other)


def test_solve_writes_strategy_curve_and_summary(small_result):
    for name in ("strategy.npz", "curve.csv", "summary.json", "checkpoint.npz"):
        assert (small_result / name).is_file()
    summary = json.loads((small_result / "summary.json").read_text())
    assert summary["game"] == str(load_game(SMALL_LE_TRUC))
    assert summary["algorithm"] == "dcfr" and summary["seed"] == 7
    assert summary["exploitability"] <= TARGET
    for field in ("iterations", "game_value", "seconds", "peak_memory_mb", "versions",
                  "git_commit", "alpha", "beta", "gamma", "stopping", "tree_sizes"):
        assert field in summary
    assert {"numpy", "numba", "open_spiel", "python"} <= set(summary["versions"])
    with open(small_result / "curve.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert [int(r["iteration"]) for r in rows] == list(range(5, summary["iterations"] + 1, 5))
    assert float(rows[-1]["exploitability"]) == summary["exploitability"]
    assert float(rows[0]["exploitability"]) > float(rows[-1]["exploitability"])


def test_summary_exploitability_equals_recomputation(small_result, capsys):
    saved = results.load_result(small_result)
    recomputed = solver.exploitability(load_game(saved.game_string), saved.policy)
    assert recomputed == pytest.approx(saved.summary["exploitability"], rel=1e-9, abs=1e-12)
    code, out, _ = run_cli(capsys, "exploit", small_result)
    assert code == 0
    assert f"{recomputed:.9g} points per hand (recomputed)" in out


def test_saved_strategy_matches_openspiel_tabular_policy(tmp_path, capsys, tree_cache):
    assert run_cli(capsys, "solve", OTHER_LE_TRUC, "--iterations", "50", "--quiet",
                   "--out", tmp_path)[0] == 0
    saved = results.load_result(tmp_path)
    game = load_game(saved.game_string)
    tabular = saved.policy.to_tabular(game)
    from open_spiel.python.algorithms import exploitability as openspiel_exploitability
    assert openspiel_exploitability.exploitability(game, tabular) == pytest.approx(
        saved.summary["exploitability"], abs=1e-9)


def test_show_prints_the_strategy_in_words(small_result, capsys):
    code, out, _ = run_cli(capsys, "show", small_result, "--infostate", "p0 | hand 7 7")
    assert code == 0
    assert "Player 0 (non-dealer) holding 7 7: Non-dealer's first card turn (stake 1)." in out
    saved = results.load_result(small_result)
    probabilities = saved.policy.action_probabilities("p0 | hand 7 7")
    best = max(probabilities, key=probabilities.get)
    name = load_game(SMALL_LE_TRUC).new_initial_state().action_to_string(0, best)
    assert f"Strategy: {name} {100 * probabilities[best]:.1f}%" in out


def test_show_lists_several_matching_decisions(small_result, capsys):
    code, out, _ = run_cli(capsys, "show", small_result, "--infostate", "p1 | hand 8 A | 0:Play")
    assert code == 0
    assert out.count("Strategy:") >= 2
    assert "Dealer's turn after seeing the lead card" in out


def test_chart_writes_charts_and_tables(small_result, tmp_path, capsys):
    out = tmp_path / "charts"
    code, printed, _ = run_cli(capsys, "chart", small_result, "--out", out)
    assert code == 0
    for stem in ("curves", "bluffing", "strategy-open"):
        assert (out / f"{stem}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert "<svg" in (out / f"{stem}.svg").read_text()[:2000]
    with open(out / "tables" / "strategy-open.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["hand"] for row in rows][0] == "7 7"
    for row in rows:
        total = sum(float(v) for k, v in row.items() if k.endswith(" %") and k != "reached %"
                    and "equity" not in k and v != "-")
        assert total == pytest.approx(100.0, abs=0.3)
    (out / "strategy-answer_raise_99.png").write_bytes(b"stale")
    (out / "tables" / "strategy-answer_raise_99.md").write_text("stale")
    assert run_cli(capsys, "chart", small_result, "--out", out, "--kind", "all")[0] == 0
    assert not list(out.glob("**/strategy-answer_raise_99.*"))
    markdown = (out / "tables" / "strategy-open.md").read_text()
    assert "| hand | reached % | EV |" in markdown
    assert str(out / "bluffing.png") in printed


def test_chart_curve_puts_several_algorithms_on_one_plot(small_result, tmp_path, capsys):
    other = tmp_path / "cfr_plus"
    assert run_cli(capsys, "solve", SMALL_LE_TRUC, "--algorithm", "cfr+", "--iterations", "30",
                   "--quiet", "--out", other)[0] == 0
    code, printed, _ = run_cli(capsys, "chart", small_result, other, "--kind", "curve",
                               "--out", tmp_path / "c")
    assert code == 0
    assert printed.split() == [str(tmp_path / "c" / "curves.png"),
                               str(tmp_path / "c" / "curves.svg")]
    svg = (tmp_path / "c" / "curves.svg").read_text()
    assert "dcfr" in svg and "cfr+" in svg


def assert_one_line_error(capsys, argv, fragment: str) -> None:
    """The command exits with code 2 and one stderr line containing `fragment`."""
    code, _, err = run_cli(capsys, *argv)
    assert code == 2
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert fragment in err


def test_unknown_game(capfd, tree_cache):
    assert_one_line_error(capfd, ["solve", "python_le_trucc", "--iterations", "1"],
                          "unknown game 'python_le_trucc'; did you mean python_le_truc")


@pytest.mark.parametrize("param,fragment", [
    ("num_ranks=99", "num_ranks=99 is not allowed: 1..8"),
    ("num_ranks=abc", "num_ranks='abc' is not allowed: a whole number"),
    ("isomorphic=maybe", "isomorphic='maybe' is not allowed: true or false"),
    ("stake_ladder=1:5:3", "stake_ladder='1:5:3' is not allowed"),
])
def test_bad_parameter_value(capfd, tree_cache, param, fragment):
    assert_one_line_error(capfd, ["solve", "python_le_truc", "-p", param, "--iterations", "1"],
                          fragment)


def test_unknown_parameter_name(capfd, tree_cache):
    assert_one_line_error(capfd, ["solve", "python_le_truc", "-p", "no_such_param=1",
                                   "--iterations", "1"], "has no parameter 'no_such_param'")


def test_malformed_parameter(capsys, tree_cache):
    assert_one_line_error(capsys, ["solve", "python_le_truc", "-p", "num_ranks",
                                   "--iterations", "1"], "key=value")


@pytest.mark.parametrize("command", [["exploit"], ["chart"], ["show", "--infostate", "p0"]])
def test_missing_result(capsys, tmp_path, command):
    missing = tmp_path / "nothing_here"
    assert_one_line_error(capsys, [command[0], missing, *command[1:]], "no such result directory")


@pytest.mark.parametrize("name,content,fragment", [
    ("strategy.npz", b"not a zip file", "not a readable npz file"),
    ("summary.json", b"{ truncated", "not valid JSON"),
    ("curve.csv", b"iteration,seconds,exploitability\n1,2\n", "not a curve file"),
])
def test_corrupt_result_file(small_result, tmp_path, capsys, name, content, fragment):
    broken = tmp_path / "broken"
    shutil.copytree(small_result, broken)
    (broken / name).write_bytes(content)
    assert_one_line_error(capsys, ["exploit", broken], fragment)


def test_missing_strategy_file(small_result, tmp_path, capsys):
    broken = tmp_path / "broken"
    shutil.copytree(small_result, broken)
    (broken / "strategy.npz").unlink()
    assert_one_line_error(capsys, ["show", broken, "--infostate", "p0"], "no such file")


def test_resume_without_checkpoint(capsys, tmp_path, tree_cache):
    assert_one_line_error(capsys, ["solve", SMALL_LE_TRUC, "--iterations", "5", "--resume",
                                   "--out", tmp_path / "empty"], "no such file")


def test_resume_refuses_checkpoint_of_another_game(small_result, tmp_path, capsys):
    other = tmp_path / "other"
    shutil.copytree(small_result, other)
    assert_one_line_error(capsys, ["solve", OTHER_LE_TRUC, "--iterations", "5", "--resume",
                                   "--out", other, "--quiet"], "checkpoint is for game")


def test_resume_refuses_checkpoint_of_another_algorithm(small_result, tmp_path, capsys):
    other = tmp_path / "other"
    shutil.copytree(small_result, other)
    assert_one_line_error(capsys, ["solve", SMALL_LE_TRUC, "--algorithm", "cfr+",
                                   "--iterations", "5", "--resume", "--out", other, "--quiet"],
                          "checkpoint was made with algorithm='dcfr'")


def test_resume_refuses_corrupt_checkpoint(small_result, tmp_path, capsys):
    other = tmp_path / "other"
    shutil.copytree(small_result, other)
    (other / "checkpoint.npz").write_bytes(b"PK\x03\x04 truncated")
    assert_one_line_error(capsys, ["solve", SMALL_LE_TRUC, "--iterations", "5", "--resume",
                                   "--out", other, "--quiet"], "not a readable npz file")


def test_show_unknown_infostate(small_result, capsys):
    assert_one_line_error(capsys, ["show", small_result, "--infostate", "p7 | nothing"],
                          "no information state contains")


def test_strategy_charts_refuse_other_games(tmp_path, capsys, tree_cache):
    out = tmp_path / "kuhn"
    assert run_cli(capsys, "solve", "kuhn_poker", "--iterations", "20", "--quiet",
                   "--out", out)[0] == 0
    assert_one_line_error(capsys, ["chart", out, "--kind", "bluff"], "python_le_truc")
    code, printed, _ = run_cli(capsys, "chart", out)
    assert code == 0 and printed.split() == [str(out / "charts" / "curves.png"),
                                             str(out / "charts" / "curves.svg")]


def test_console_script_and_module_entry_point(tree_cache):
    script = os.path.join(os.path.dirname(sys.executable), "tricksolver")
    for argv in ([script], [sys.executable, "-m", "solver"]):
        run = subprocess.run(argv + ["exploit", "/nonexistent/result"], capture_output=True,
                             text=True)
        assert run.returncode == 2
        assert run.stderr.strip() == ("tricksolver exploit: error: /nonexistent/result: no such "
                                      "result directory")
    help_text = subprocess.run([sys.executable, "-m", "solver", "--help"], capture_output=True,
                               text=True, check=True).stdout
    for command in ("solve", "chart", "show", "exploit"):
        assert command in help_text


def test_default_result_dir_names_game_and_parameters():
    game_string = str(load_game(SMALL_LE_TRUC))
    path = results.default_result_dir(game_string)
    assert path.parts[:2] == ("runs", "le_truc")
    assert path.name == results.params_hash(game_string) != results.params_hash(
        str(load_game(OTHER_LE_TRUC)))


def test_game_string_from_merges_parameters():
    from solver.cli.games import game_string_from
    assert game_string_from("python_le_truc(hand_size=2)", ["num_ranks=3", "hand_size=1"]) == \
        "python_le_truc(hand_size=1,num_ranks=3)"
    assert game_string_from("kuhn_poker", []) == "kuhn_poker"
