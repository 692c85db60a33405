"""Issue 16, items 1-8: each test reproduces a defect a new user met (crash, hang, misleading
output, a command that changes tracked files, a silently growing cache, a documentation slip),
plus one table of bad arguments for every command: exit code 2, one line, no traceback."""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import signal
import subprocess
import tomllib

import pytest

from solver import cache, cfr, cli, results
from solver.cli import solution
from solver.cli.solve import ProgressBar
from solver.history import cfr as history_cfr
from solver.registry import load_game

ROOT = pathlib.Path(__file__).resolve().parent.parent
TINY = "python_le_truc(num_ranks=3,hand_size=1,isomorphic=true,max_redeals=0)"
SMALL = "python_le_truc(num_ranks=3,hand_size=2,isomorphic=true,max_redeals=0)"
MATCH_TINY = "python_le_truc(num_ranks=3,hand_size=1,isomorphic=true,max_redeals=0,target=3)"


def run(capfd, *argv) -> tuple[int, str, str]:
    """`tricksolver argv` in-process (usage errors included); (exit code, stdout, stderr)."""
    try:
        code = cli.main([str(a) for a in argv])
    except SystemExit as exit_:
        code = exit_.code
    captured = capfd.readouterr()
    return code, captured.out, captured.err


def assert_one_line_error(code: int, err: str, fragment: str = "") -> None:
    """Exit code 2, exactly one line on stderr, no traceback, `fragment` in it."""
    assert code == 2, err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert fragment in err, err


@pytest.fixture(scope="module")
def solved(tmp_path_factory, tree_cache):
    """A result directory of the small Le Truc, solved to 1e-3."""
    out = tmp_path_factory.mktemp("solved") / "result"
    assert cli.main(["solve", SMALL, "--target", "1e-3", "--quiet", "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def kuhn_result(tmp_path_factory, tree_cache):
    """A result directory of Kuhn poker (another game than `solved`)."""
    out = tmp_path_factory.mktemp("kuhn") / "result"
    assert cli.main(["solve", "kuhn_poker", "--iterations", "20", "--quiet", "--out",
                     str(out)]) == 0
    return out


# --- item 1: a stopped solve saves what it has ---------------------------------------------------

def test_progress_bar_survives_an_evaluation_past_the_time_limit(capfd):
    # tqdm drops a total that `n` exceeds by 0.5; "{total:.0f}" then crashed on None.
    args = argparse.Namespace(target=None, algorithm="dcfr", iterations=None, time_limit=1.0)
    bar = ProgressBar(args, 0, 0.0, enabled=True)
    bar.advance(3, 0.4)
    bar.update(7, 5.0, 0.01)  # the last evaluation ends 4 s past the limit
    bar.close()
    assert "exploitability=0.01" in capfd.readouterr().err


def test_time_limited_solve_with_a_late_evaluation_saves(tmp_path, capfd, tree_cache,
                                                         monkeypatch):
    original = history_cfr.nash_conv_of_array

    def slow(*args, **kwargs):
        import time
        time.sleep(0.7)
        return original(*args, **kwargs)

    monkeypatch.setattr(history_cfr, "nash_conv_of_array", slow)
    out = tmp_path / "timed"
    code, stdout, err = run(capfd, "solve", TINY, "--time-limit", "0.2", "--out", out)
    assert code == 0, err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["stopped_by"] == "time limit"
    assert "saved" in stdout


def test_ctrl_c_stops_the_solve_and_saves(tmp_path, capfd, tree_cache, monkeypatch):
    before = signal.getsignal(signal.SIGINT)  # SIG_IGN when the suite runs in the background
    original = history_cfr.CFREngine.iterate

    def iterate(self, count=1):
        original(self, count)
        if self.iteration >= 3:
            os.kill(os.getpid(), signal.SIGINT)  # what Ctrl-C sends

    monkeypatch.setattr(history_cfr.CFREngine, "iterate", iterate)
    out = tmp_path / "interrupted"
    code, stdout, err = run(capfd, "solve", TINY, "--iterations", "100000", "--quiet",
                            "--out", out)
    assert code == 0, err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["stopped_by"] == "interrupted" and 3 <= summary["iterations"] < 100000
    assert results.load_result(out).curve[-1][0] == summary["iterations"]
    assert "--resume" in stdout
    assert signal.getsignal(signal.SIGINT) is before  # restored


def test_second_ctrl_c_during_the_last_evaluation_keeps_a_checkpoint(tmp_path, capfd,
                                                                      tree_cache, monkeypatch):
    original = history_cfr.CFREngine.iterate

    def iterate(self, count=1):
        original(self, count)
        if self.iteration >= 3:
            os.kill(os.getpid(), signal.SIGINT)

    def evaluate(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGINT)  # the impatient second Ctrl-C
        return 1.0

    monkeypatch.setattr(history_cfr.CFREngine, "iterate", iterate)
    monkeypatch.setattr(history_cfr, "nash_conv_of_array", evaluate)
    out = tmp_path / "twice"
    code, _, err = run(capfd, "solve", TINY, "--iterations", "100000", "--quiet", "--out", out)
    assert code == 130 and "interrupted" in err
    game_string = str(load_game(TINY))
    assert results.load_checkpoint(out, game_string, {}).state.iteration == 3


@pytest.mark.parametrize("bad", [["--iterations", "-5"], ["--iterations", "0"]])
def test_bad_iteration_counts_are_one_line_errors(capfd, bad, tmp_path):
    # `--iterations -5` crashed in tqdm before the solver could reject it.
    code, _, err = run(capfd, "solve", TINY, *bad, "--out", tmp_path / "x")
    assert_one_line_error(code, err, "--iterations")
    assert not (tmp_path / "x").exists()


# --- item 2: --engine history refuses a game too big for it ---------------------------------------

@pytest.mark.parametrize("game, fragments", [
    ("python_le_truc(isomorphic=true)", ("6.1e+11 histories", "--engine public")),
    ("python_le_truc", ("7.1e+20 histories", "isomorphic=true")),
])
def test_history_engine_refuses_le_truc_too_big(capfd, game, fragments):
    code, _, err = run(capfd, "solve", game, "--engine", "history", "--iterations", "1")
    assert_one_line_error(code, err, "too many for the history tree")
    for fragment in fragments:
        assert fragment in err


def test_history_engine_refuses_other_huge_games(capfd):
    code, _, err = run(capfd, "solve", "python_two_ten_jack", "--iterations", "1")
    assert_one_line_error(code, err, "histories, too many for the history tree")
    assert "smaller variant" in err


# --- item 3: sizes of too-large games never brute-force ---------------------------------------

def test_sizes_of_default_truco_do_not_traverse(capfd, monkeypatch):
    import solver.sizes as sizes
    from solver.sizes.common import TreeSize

    def forbidden(*args, **kwargs):
        raise AssertionError("brute-force traversal of a huge game")

    calls = []

    def fake_dp(game, samples, seed, infosets, progress):
        calls.append(str(game))
        return TreeSize(str(game), 10, 5, 3, 2, None, method="exact")

    monkeypatch.setattr(sizes, "count_by_traversal", forbidden)
    monkeypatch.setattr(sizes, "truco_sizes", fake_dp)
    code, stdout, err = run(capfd, "sizes", "python_truco_paulista")
    assert code == 0, err
    assert calls and "exact" in stdout


def test_sizes_of_a_huge_game_without_dynamic_program_estimate(capfd, monkeypatch):
    import solver.sizes as sizes

    def forbidden(*args, **kwargs):
        raise AssertionError("brute-force traversal of a huge game")

    monkeypatch.setattr(sizes, "count_by_traversal", forbidden)
    code, stdout, err = run(capfd, "sizes", "python_truco_paulista(num_players=4,hand_size=1)",
                            "--samples", "300")
    assert code == 0, err
    assert "±" in stdout and "knuth" in stdout.lower()


# --- item 4: phases, a bar that ticks, evaluations chosen by time ---------------------------------

class FakeClock:
    """A perf_counter that moves only when the fake engine works."""

    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class FakeEngine:
    """`iteration`, `iterate`, `state`: each iteration costs `seconds` on the fake clock."""

    def __init__(self, clock: FakeClock, seconds: float):
        self.clock, self.seconds, self.iteration, self.calls = clock, seconds, 0, []

    def iterate(self, count: int = 1) -> None:
        self.calls.append(count)
        self.iteration += count
        self.clock.now += count * self.seconds

    def state(self, seconds):
        return None


def _run_fake(monkeypatch, iteration_seconds, evaluation_seconds, iterations, eval_every=None):
    clock = FakeClock()
    monkeypatch.setattr(cfr.time, "perf_counter", clock)
    engine = FakeEngine(clock, iteration_seconds)
    spent = {"evaluating": 0.0}
    phases, ticks = [], []

    def evaluate() -> float:
        clock.now += evaluation_seconds
        spent["evaluating"] += evaluation_seconds
        return 1.0 / (engine.iteration + 1)

    curve, _, seconds = cfr.run_iterations(
        engine, evaluate, algorithm="dcfr", iterations=iterations, target_exploitability=None,
        time_limit=None, eval_every=eval_every, checkpoint=None, checkpoint_every=100,
        progress=False, on_progress=None, start_seconds=0.0,
        on_iteration=lambda i, s: ticks.append(i), on_phase=phases.append)
    return engine, curve, spent["evaluating"] / seconds, phases, ticks


def test_evaluations_take_about_a_tenth_of_the_run_by_default(monkeypatch):
    # One exact evaluation of the full game costs 30 iterations: every 10 iterations would
    # spend 75% of the run evaluating.
    engine, curve, share, _, _ = _run_fake(monkeypatch, 10.0, 300.0, 3000)
    assert share <= 0.12
    assert curve[0][0] == cfr.FIRST_EVALUATION and curve[-1][0] == 3000
    fixed = _run_fake(monkeypatch, 10.0, 300.0, 3000, eval_every=10)
    assert fixed[2] > 0.7 and [row[0] for row in fixed[1]][:3] == [10, 20, 30]


def test_big_games_tick_every_iteration_and_report_phases(monkeypatch):
    engine, _, _, phases, ticks = _run_fake(monkeypatch, 10.0, 300.0, 50)
    assert set(engine.calls) == {1} and ticks == list(range(1, 51))
    assert phases[0] == cfr.SOLVING and cfr.EVALUATING in phases
    small = _run_fake(monkeypatch, 1e-6, 1e-5, 5000)[0]
    assert max(small.calls) > 100  # tiny games still run many iterations per kernel call


def test_solve_shows_its_phases(tmp_path, capfd, tree_cache):
    code, _, err = run(capfd, "solve", TINY, "--iterations", "30", "--out", tmp_path / "p")
    assert code == 0
    assert "building the tree" in err and "evaluating exploitability" in err
    summary = json.loads((tmp_path / "p" / "summary.json").read_text())
    assert summary["eval_every"] == "by time" and summary["stopped_by"] == "iterations"


# --- item 5: show: ambiguity, --hand/--history, reach, off-path ---------------------------------

def test_show_ambiguous_fragment_lists_matches(solved, capfd):
    code, _, err = run(capfd, "show", solved, "--infostate", "p1")
    assert_one_line_error(code, err, "information states contain 'p1'")
    count = int(re.search(r"(\d+) information states", err).group(1))
    assert count > solution.MAX_SHOWN
    assert len(re.findall(r"'p1 \|[^']*'", err)) == 5


def test_show_player_one_after_any_first_action(solved, capfd):
    # 'p1 | hand A' used to say "no information state contains" (too many did).
    code, out, err = run(capfd, "show", solved, "--infostate", "p1 | hand 8 A")
    assert code == 0, err
    assert out.count("p1 | hand 8 A | 0:") >= 2


def test_show_by_hand_and_history(solved, capfd):
    code, out, err = run(capfd, "show", solved, "--hand", "A 8")
    assert code == 0, err
    assert out.startswith("p0 | hand 8 A\n") and "Reached in" in out
    code, out, err = run(capfd, "show", solved, "--hand", "8 A", "--history", "Rest")
    assert code == 0, err
    assert out.startswith("p1 | hand 8 A | 0:Rest\n")
    code, _, err = run(capfd, "show", solved, "--hand", "8 A", "--player", "1")
    assert_one_line_error(code, err, "give --history")


def test_show_flags_decisions_off_the_equilibrium_path(solved):
    from solver.analysis.decision import OFF_PATH_REACH
    from solver.analysis.history import info_state_reach

    saved = results.load_result(solved)
    reach = info_state_reach(load_game(saved.game_string), saved.policy)
    assert abs(sum(r for name, r in reach.items() if name.count("|") == 1
                   and name.startswith("p0")) - 1.0) < 1e-9  # p0's first decisions: all deals
    off = [name for name, r in reach.items() if r < OFF_PATH_REACH]
    assert off, "some decision is never reached at equilibrium"
    assert "off the equilibrium path" in solution._reach_line(reach[off[0]])
    assert "off the equilibrium path" not in solution._reach_line(0.25)


# --- item 6: examples never change tracked files -------------------------------------------------

def test_default_outputs_are_git_ignored(tmp_path, monkeypatch, capfd, tree_cache):
    monkeypatch.chdir(tmp_path)
    code, stdout, _ = run(capfd, "solve", "kuhn_poker", "--iterations", "5", "--quiet")
    assert code == 0
    written = [p for p in tmp_path.rglob("summary.json")]
    assert len(written) == 1 and written[0].relative_to(tmp_path).parts[0] == "runs"
    for path in ("runs/le_truc/small/summary.json", "runs/bench/2026-11-30.json"):
        check = subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT)
        assert check.returncode == 0, f"{path} must be git-ignored"
    bench = [a for a in cli.build_parser()._subparsers._group_actions[0].choices["bench"]
             ._actions if "--output" in a.option_strings][0]
    assert bench.default.startswith("runs/")


def _example_commands() -> list[str]:
    """Every tricksolver command in the README and in the --help texts."""
    parser = cli.build_parser()
    texts = [ROOT.joinpath("README.md").read_text(), parser.epilog]
    texts += [sub.epilog or "" for sub in
              parser._subparsers._group_actions[0].choices.values()]
    text = "\n".join(texts).replace("\\\n", " ")
    return [line.split("tricksolver", 1)[1] for line in text.splitlines()
            if re.match(r"\s*(\$ )?tricksolver ", line)]


def test_examples_write_only_to_git_ignored_places():
    commands = _example_commands()
    assert len(commands) > 5
    for command in commands:
        for option, path in re.findall(r"(--out|--output|--json|--markdown) (\S+)", command):
            assert path.startswith("runs/") or path in ("PATH", "DIR"), command
    makefile = ROOT.joinpath("Makefile").read_text()
    assert "OUT ?= runs/" in makefile and "--out $(OUT)" in makefile
    assert "--out results" not in makefile and "bench --output runs/" in makefile


# --- item 7: the tree cache: where, how big, capped, cleared -------------------------------------

def _entry(root: pathlib.Path, kind: str, name: str, size: int, age: float) -> pathlib.Path:
    path = root / kind / name
    path.mkdir(parents=True)
    (path / "data.npy").write_bytes(b"x" * size)
    stamp = 1_700_000_000 - age
    os.utime(path, (stamp, stamp))
    return path


def test_cache_cap_removes_least_recently_used(tmp_path):
    old = _entry(tmp_path, "trees", "old", 600, age=300)
    middle = _entry(tmp_path, "trees", "middle", 600, age=200)
    new = _entry(tmp_path, "trees", "new", 600, age=100)
    public = tmp_path / "public" / "p.npz"
    public.parent.mkdir()
    public.write_bytes(b"y" * 100)
    os.utime(public, (1_700_000_000 - 250,) * 2)
    assert cache.cache_bytes(tmp_path) == 1900
    removed = cache.enforce_cap(keep=old, max_bytes=1300, root=tmp_path)
    assert removed == [public, middle] and old.exists() and new.exists()


def test_cache_size_parsing(monkeypatch):
    assert cache.parse_size("8G") == 8 * 1024**3 and cache.parse_size("500m") == 500 * 1024**2
    assert cache.parse_size("0") == 0 and cache.parse_size("1.5KiB") == 1536
    monkeypatch.delenv(cache.MAX_SIZE_ENV, raising=False)
    assert cache.max_cache_bytes() == cache.DEFAULT_MAX_BYTES
    with pytest.raises(ValueError, match="cache size"):
        cache.parse_size("lots")


def test_compiling_keeps_the_cache_under_its_cap(tmp_path, monkeypatch):
    from solver.history.tree import compile_game

    monkeypatch.setenv("TRICKSOLVER_CACHE", str(tmp_path))
    monkeypatch.setenv(cache.MAX_SIZE_ENV, "1")  # one byte: only the newest tree stays
    compile_game("kuhn_poker")
    compile_game(TINY)
    entries = cache.cache_entries(tmp_path)
    assert len(entries) == 1 and "python_le_truc" in (entries[0][0] / "meta.json").read_text()


def test_cache_command_shows_and_clears(tmp_path, monkeypatch, capfd):
    monkeypatch.setenv("TRICKSOLVER_CACHE", str(tmp_path))
    _entry(tmp_path, "trees", "a", 2048, age=10)
    code, out, _ = run(capfd, "cache", "--list")
    assert code == 0 and str(tmp_path) in out and "2.0 KB in 1 trees" in out and "8.0 GB" in out
    code, out, _ = run(capfd, "cache", "--clear")
    assert code == 0 and "removed 1" in out and cache.cache_entries(tmp_path) == []
    help_text = cli.build_parser().format_help()
    assert "~/.cache/tricksolver" in help_text and "cache --clear" in help_text
    assert "tricksolver cache --clear" in ROOT.joinpath("README.md").read_text()


# --- item 8: documentation slips ------------------------------------------------------------

def test_documentation_slips_are_fixed():
    readme = ROOT.joinpath("README.md").read_text()
    flat = " ".join(readme.split())
    assert "source .venv/bin/activate" in readme
    assert "raises back (orange-red)" in flat and "raises back or refuses (grey)" not in flat
    assert "7.1e20 histories with real cards" in flat
    notebook = json.loads(ROOT.joinpath("notebooks/getting_started.ipynb").read_text())
    first = "".join(notebook["cells"][0]["source"])
    assert "nbconvert" not in first and "pytest tests/test_notebooks.py" in first
    results_readme = ROOT.joinpath("results/README.md").read_text()
    assert "(below)" not in results_readme
    table = results_readme.split("| file | content |")[1].split("\n\n")[0]
    assert all(line.startswith("|") for line in table.strip().splitlines())
    project = tomllib.loads(ROOT.joinpath("pyproject.toml").read_text())
    assert isinstance(project["project"]["license"], str)  # the table form is deprecated
    assert any(r.replace(" ", "").startswith("setuptools>=77")
               for r in project["build-system"]["requires"])


# --- every command with bad arguments ---------------------------------------------------------

BAD_ARGUMENTS = [
    # (argv, fragment of the error); RESULT/KUHN/CORRUPT/MISSING/BADJSON are filled in below
    (["solve", TINY, "--iterations", "-5"], "--iterations"),
    (["solve", TINY, "--iterations", "0"], "--iterations"),
    (["solve", TINY, "--eval-every", "0"], "--eval-every"),
    (["solve", TINY, "--checkpoint-every", "-1"], "--checkpoint-every"),
    (["solve", TINY, "--checkpoint-seconds", "0"], "--checkpoint-seconds"),
    (["solve", TINY, "--time-limit", "-3"], "--time-limit"),
    (["solve", TINY, "--target", "0"], "--target"),
    (["solve", TINY, "--iterations", "ten"], "--iterations"),
    (["solve", TINY, "--algorithm", "magic"], "--algorithm"),
    (["solve", TINY, "--engine", "quantum"], "--engine"),
    (["solve", "python_le_trucc"], "unknown game"),
    (["solve", "python_le_truc(num_ranks=3"], ""),
    (["solve", "python_le_truc(num_ranks=three)"], "num_ranks"),
    (["solve", "python_le_truc", "-p", "colour=red"], "colour"),
    (["solve", "python_le_truc", "-p", "num_ranks"], "key=value"),
    (["solve", TINY, "--resume", "--out", "MISSING"], ""),
    (["solve", "kuhn_poker", "--resume", "--iterations", "40", "--out", "RESULT"], ""),
    (["solve", TINY, "--lock", "2=random"], "--lock"),
    (["solve", TINY, "--lock", "random"], "PLAYER=SPEC"),
    (["solve", TINY, "--lock", "0=nonsense"], "nonsense"),
    (["solve", TINY, "--lock", "0=random", "--lock-contexts", "nowhere"], "nowhere"),
    (["solve", TINY, "--lock", "1=random", "--lock-contexts", "open"], "his contexts"),
    (["solve", TINY, "--lock-contexts", "open"], "needs --lock"),
    (["solve", TINY, "--lock", "0=random", "--lock-contexts", ","], "names no context"),
    (["solve", TINY, "--lock", "0=random", "--engine", "public"], "history engine"),
    (["solve", "kuhn_poker", "--lock", "0=random", "--lock-contexts", "open"], "python_le_truc"),
    (["solve", "kuhn_poker", "--lock", "0=heuristic"], "heuristic"),
    (["solve", "python_two_ten_jack", "--lock", "0=random"], "too many for the history tree"),
    (["solve-match", "python_two_ten_jack"], "Truc-family"),
    (["solve-match", MATCH_TINY, "-p", "score0=1"], "sets the score"),
    (["solve-match", MATCH_TINY, "--target-exploitability", "0"], "--target-exploitability"),
    (["solve-match", MATCH_TINY, "--workers", "0"], "--workers"),
    (["solve-match", MATCH_TINY, "--iterations", "-1"], "--iterations"),
    (["solve-match", MATCH_TINY, "--out", "RESULT"], "not a match solve"),
    (["solve-match", "python_le_truc"], "isomorphic=true"),
    (["solve-match", "python_truco_paulista", "--engine", "public"], "isomorphic=true"),
    (["solve-match", "python_trucomano(isomorphic=true)", "--engine", "public"],
     "solving it holds at least"),
    (["solve-match", MATCH_TINY, "--from-score", "3"], "from score 3"),
    (["solve-match", MATCH_TINY, "--from-score", "-1"], "--from-score"),
    (["solve-match", MATCH_TINY, "--engine", "history", "--part-workers", "2"], "vira classes"),
    (["solve-match", "python_truco_paulista(num_players=4)"], "two-player"),
    (["show", "RESULT", "--score", "1-1"], "match solve"),
    (["show", "MISSING", "--hand", "7"], ""),
    (["show", "CORRUPT", "--hand", "7"], ""),
    (["show", "RESULT", "--infostate", "no such thing"], "no information state"),
    (["show", "RESULT", "--hand", "7 7 7 7"], "no decision"),
    (["show", "RESULT"], "--hand"),
    (["show", "RESULT", "--hand", "A", "--player", "2"], "--player"),
    (["chart", "MISSING"], ""),
    (["chart", "CORRUPT"], ""),
    (["chart", "RESULT", "--kind", "pie"], "--kind"),
    (["chart", "KUHN", "--kind", "strategy"], ""),
    (["chart", "RESULT", "--part", "vira K"], "vira class"),
    (["compact"], "RESULT"),
    (["compact", "MISSING"], "no such result directory"),
    (["compact", "CORRUPT"], "not valid JSON"),
    (["exploit", "MISSING"], ""),
    (["exploit", "CORRUPT"], ""),
    (["exploit", SMALL, "--bot", "random", "--against", "KUHN"], "equilibrium of"),
    (["exploit", SMALL, "--bot", "genius"], ""),
    (["exploit", "python_two_ten_jack", "--bot", "random"], "too many for the history tree"),
    (["match", "python_two_ten_jack", "--bot", "random", "--bot", "random", "--hands", "0"],
     "--hands"),
    (["match", "python_two_ten_jack", "--bot", "random", "--bot", "oracle"], ""),
    (["match", "--summarize", "MISSING"], ""),
    (["match", "--summarize", "BADJSON"], ""),
    (["match", "python_two_ten_jack", "--bot", "random", "--bot", "random", "--resume"],
     "--resume needs --json"),
    (["match", "python_two_ten_jack", "--bot", "random", "--bot", "random", "--json",
      "MISSING", "--resume"], "no match in progress"),
    (["match", "--summarize", "BADJSON", "--resume"], "drop --resume"),
    (["match", "python_two_ten_jack", "--bot", "random", "--bot", "random", "--json",
      "BADPROGRESS", "--resume"], "not a match in progress"),
    (["sizes", "kuhn_poker", "--samples", "0"], "samples"),
    (["sizes", "kuhn_poker", "--samples", "-3"], "samples"),
    (["sizes", "no_such_game"], "unknown game"),
    (["sizes", "python_le_truc(hand_size=9)"], "hand_size"),
    (["bench", "--eval-every", "0"], "--eval-every"),
    (["bench", "--time-limit", "-1"], "--time-limit"),
    (["frobnicate"], "invalid choice"),
]


@pytest.mark.parametrize("argv, fragment", BAD_ARGUMENTS, ids=lambda v: " ".join(v)
                         if isinstance(v, list) else None)
def test_bad_arguments_exit_2_with_one_line(argv, fragment, solved, kuhn_result, tmp_path,
                                            capfd, tree_cache):
    corrupt = tmp_path / "corrupt"
    corrupt.mkdir()
    (corrupt / "summary.json").write_text("{not json")
    (corrupt / "strategy.npz").write_bytes(b"garbage")
    (corrupt / "curve.csv").write_text("iteration,seconds,exploitability\n")
    bad_json = tmp_path / "bad.json"
    bad_json.write_text("[1, 2")
    bad_progress = tmp_path / "progress.json"
    (tmp_path / "progress.json.partial").write_text(
        '{"game": "g", "bot_a": "a", "bot_b": "b", "deals": 5, "seed": 1, '
        '"deal_points": [1.0], "move_seconds": 3}')
    places = {"RESULT": solved, "KUHN": kuhn_result, "CORRUPT": corrupt,
              "MISSING": tmp_path / "missing", "BADJSON": bad_json,
              "BADPROGRESS": bad_progress}
    argv = [str(places.get(a, a)) for a in argv]
    code, _, err = run(capfd, *argv)
    assert_one_line_error(code, err, fragment)


def test_bad_cache_cap_is_one_line(monkeypatch, capfd):
    monkeypatch.setenv(cache.MAX_SIZE_ENV, "huge")
    code, _, err = run(capfd, "cache")
    assert_one_line_error(code, err, "cache size")
