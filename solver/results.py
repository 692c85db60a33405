"""Saved solver results on disk: strategy, curve, summary and checkpoints of one solve.

A result directory holds
  strategy.npz     the average policy (`AveragePolicy.to_arrays()`: game string, information
                   state strings, action offsets, actions, probabilities; or, from the
                   public-tree engine, `PublicPolicy.to_arrays()`: engine name, game string,
                   the redeal talk's and every play-tree copy's average sums);
  strategy.q8.npz.xz
                   the same strategy in compact form, small enough to commit (`solver.compact`:
                   every row in steps of 1/255), written by `tricksolver compact`, which also
                   records its exploitability in summary.json; loaded when strategy.npz is
                   absent (a fresh clone: the full-size games' strategy.npz is git-ignored);
  curve.csv        iteration, seconds, exploitability at each evaluation;
  summary.json     game string and parameters, algorithm, stopping rule, iterations,
                   exploitability, game value, seconds, peak memory, seed, versions, git commit
                   (and `compact`: the compact file's size, exploitability and value);
  checkpoint.npz   the solver state (`SolverState`) plus the curve so far, for `--resume`.
Every file is written atomically (`solver.atomic`), so a killed process leaves either the
previous file or the new one, never half of one. Loading checks the files and raises
`ResultError` (a ValueError) naming the bad file.
"""
from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import json
import os
import pathlib
import platform
import resource
import subprocess
import sys
import zipfile
from importlib import metadata

import numpy as np

from solver import compact as compact_format
from solver.atomic import atomic_write_bytes, atomic_write_npz
from solver.cfr import SolverState
from solver.history.policy import AveragePolicy
from solver.public.cfr import ENGINE as PUBLIC_ENGINE, PublicPolicy

# the public engine's name in results written before it solved Truco too
PUBLIC_ENGINES = (PUBLIC_ENGINE, "public_le_truc")

STRATEGY_FILE = "strategy.npz"
COMPACT_FILE = compact_format.COMPACT_FILE
CURVE_FILE = "curve.csv"
SUMMARY_FILE = "summary.json"
CHECKPOINT_FILE = "checkpoint.npz"
CURVE_HEADER = ("iteration", "seconds", "exploitability")
VERSIONED_PACKAGES = ("tricksolver", "numpy", "numba", "open_spiel", "matplotlib")
RESULTS_ROOT = pathlib.Path("results")  # committed results: written only when --out names them
RUNS_ROOT = pathlib.Path("runs")  # git-ignored: where commands write unless told otherwise
# settings older checkpoints do not record
SETTING_DEFAULTS = {"engine": "history", "tables": "float64"}


class ResultError(ValueError):
    """A result or checkpoint file is missing, corrupt or belongs to another run."""


@dataclasses.dataclass(frozen=True)
class SavedResult:
    """A result directory loaded back: summary dict, average policy and curve rows; `compact`
    if the policy came from the compact file (strategy.npz absent)."""

    path: pathlib.Path
    summary: dict
    policy: AveragePolicy | PublicPolicy
    curve: list[tuple[int, float, float]]
    compact: bool = False

    @property
    def game_string(self) -> str:
        """The full OpenSpiel game string the strategy was solved for."""
        return self.summary["game"]

    @property
    def recorded_exploitability(self) -> float | None:
        """summary.json's exploitability of the strategy loaded: the compact one's if it came
        from the compact file (None if not recorded)."""
        record = self.summary.get("compact", {}) if self.compact else self.summary
        return record.get("exploitability")


def game_short_name(game_string: str) -> str:
    """`python_le_truc` for `python_le_truc(isomorphic=True,...)`."""
    return game_string.split("(", 1)[0]


def params_hash(game_string: str) -> str:
    """A short stable digest of the full game string (all parameters)."""
    return hashlib.sha256(game_string.encode()).hexdigest()[:10]


def base_game_string(name: str) -> str:
    """The OpenSpiel game string of a result's game, without a sub-game label (a vira class
    of Truco solved on its own is named `GAME|vira 7`)."""
    return name.split("|", 1)[0]


def default_result_dir(game_string: str, root: pathlib.Path = RUNS_ROOT) -> pathlib.Path:
    """`runs/<game>/<params-hash>/`, e.g. `runs/le_truc/917a762271/` (runs/ is git-ignored:
    a solve never changes committed files unless its --out names them)."""
    return root / game_short_name(game_string).removeprefix("python_") / params_hash(game_string)


def _load_npz(path: pathlib.Path) -> dict[str, np.ndarray]:
    """All arrays of an npz file, or ResultError if it is missing or unreadable."""
    if not path.exists():
        raise ResultError(f"{path}: no such file")
    try:
        with np.load(path, allow_pickle=False) as data:
            return {name: data[name] for name in data.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
        raise ResultError(f"{path}: not a readable npz file ({error})") from error


def curve_csv(curve) -> str:
    """The curve rows as CSV text with a header."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CURVE_HEADER)
    for iteration, seconds, exploitability in curve:
        writer.writerow((int(iteration), f"{seconds:.6f}", repr(float(exploitability))))
    return buffer.getvalue()


def read_curve(path: pathlib.Path) -> list[tuple[int, float, float]]:
    """Rows of a curve.csv, or ResultError."""
    if not path.exists():
        raise ResultError(f"{path}: no such file")
    try:
        rows = list(csv.reader(path.read_text().splitlines()))
        if tuple(rows[0]) != CURVE_HEADER:
            raise ValueError(f"header {rows[0]} is not {list(CURVE_HEADER)}")
        return [(int(i), float(s), float(e)) for i, s, e in rows[1:]]
    except (ValueError, IndexError) as error:
        raise ResultError(f"{path}: not a curve file ({error})") from error


def package_versions() -> dict[str, str]:
    """Installed versions of the packages that decide a result, plus Python's."""
    versions = {"python": platform.python_version()}
    for name in VERSIONED_PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def git_commit() -> str | None:
    """The commit of the source tree this package runs from (with `+dirty`), if it is a clone."""
    here = pathlib.Path(__file__).resolve().parent
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True,
                                text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=here, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return commit + ("+dirty" if dirty.strip() else "")


def peak_memory_mb() -> float:
    """Peak resident memory of this process so far, in MiB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def build_summary(result, game_string: str, run: dict, commit: str | None = None) -> dict:
    """The summary.json content of a finished `SolveResult`; `run` holds the CLI's settings,
    `commit` the source tree's commit when the run started (default: now)."""
    return {
        "game": game_string,
        "game_short_name": game_short_name(game_string),
        "params_hash": params_hash(game_string),
        "algorithm": result.algorithm,
        **run,
        "iterations": result.iterations,
        "exploitability": result.exploitability,
        "game_value": result.game_value,
        "seconds": result.seconds,
        "compile_seconds": result.compile_seconds,
        "peak_memory_mb": round(peak_memory_mb(), 1),
        "tree_sizes": result.tree_sizes,
        "versions": package_versions(),
        "git_commit": commit if commit is not None else git_commit(),
    }


def save_result(directory: pathlib.Path, policy: AveragePolicy, curve, summary: dict) -> None:
    """Write strategy.npz, curve.csv and summary.json (summary last: it marks completeness);
    remove an earlier solve's compact file (it no longer matches)."""
    directory = pathlib.Path(directory)
    atomic_write_npz(directory / STRATEGY_FILE, policy.to_arrays(),
                     compressed=True)  # strings: 50x smaller
    (directory / COMPACT_FILE).unlink(missing_ok=True)
    atomic_write_bytes(directory / CURVE_FILE, curve_csv(curve).encode())
    write_summary(directory, summary)


def write_summary(directory: pathlib.Path, summary: dict) -> None:
    """Write summary.json (atomically, fields in the dict's order)."""
    text = json.dumps(summary, indent=2) + "\n"
    atomic_write_bytes(pathlib.Path(directory) / SUMMARY_FILE, text.encode())


def mark_unfinished(directory: pathlib.Path) -> None:
    """Remove a previous run's summary.json: a directory without one is not a finished solve."""
    (pathlib.Path(directory) / SUMMARY_FILE).unlink(missing_ok=True)


def read_summary(directory: pathlib.Path) -> dict:
    """summary.json of a result directory, or ResultError."""
    path = pathlib.Path(directory) / SUMMARY_FILE
    if not pathlib.Path(directory).is_dir():
        raise ResultError(f"{directory}: no such result directory")
    if not path.exists():
        raise ResultError(f"{path}: no such file (is {directory} a finished solve?)")
    try:
        summary = json.loads(path.read_text())
    except (ValueError, UnicodeDecodeError) as error:
        raise ResultError(f"{path}: not valid JSON ({error})") from error
    if not isinstance(summary, dict) or "game" not in summary:
        raise ResultError(f"{path}: not a tricksolver summary (no 'game' field)")
    return summary


def load_result(directory: pathlib.Path) -> SavedResult:
    """Load a result directory written by `save_result`: its strategy.npz, or if there is none
    its compact file (`solver.compact`); a sub-game recorded as the same game as another
    (`same_game_as`, `solver.cli.solve_parts.record_twin`) reads the other's, under its own
    name. ResultError if anything is wrong."""
    directory = pathlib.Path(directory)
    summary = read_summary(directory)
    twin = summary.get("same_game_as")  # a sub-game solved as another (`record_twin`)
    source = strategy_directory(directory)
    compact = not (source / STRATEGY_FILE).exists() and (source / COMPACT_FILE).exists()
    path = source / (COMPACT_FILE if compact else STRATEGY_FILE)
    policy = load_compact(path) if compact else _load_strategy(path)
    if twin:
        policy = dataclasses.replace(policy, game_string=summary["game"])
    if policy.game_string != summary["game"]:
        raise ResultError(f"{path}: strategy is for {policy.game_string!r}, "
                          f"summary says {summary['game']!r}")
    if isinstance(policy, AveragePolicy):
        _check_policy_shapes(path, policy)
    return SavedResult(directory, summary, policy, read_curve(directory / CURVE_FILE), compact)


def strategy_directory(directory: pathlib.Path) -> pathlib.Path:
    """Where a result's strategy files are: its own directory, or for a sub-game recorded as
    the same game as another (`same_game_as`), the other's."""
    directory = pathlib.Path(directory)
    twin = read_summary(directory).get("same_game_as")
    return part_directory_named(directory.parent, twin) if twin else directory


def _load_strategy(path: pathlib.Path) -> AveragePolicy | PublicPolicy:
    """The policy of a strategy.npz (ResultError if it is missing or not one)."""
    if not path.exists():
        raise ResultError(f"{path}: no such file (nor {COMPACT_FILE})")
    arrays = _load_npz(path)
    public = "engine" in arrays and str(arrays["engine"]) in PUBLIC_ENGINES
    try:
        return (PublicPolicy if public else AveragePolicy).from_arrays(arrays)
    except KeyError as error:
        raise ResultError(f"{path}: missing array {error}") from error


def load_compact(path: pathlib.Path) -> AveragePolicy | PublicPolicy:
    """The dequantised policy of a compact file (ResultError if it is not one)."""
    try:
        return compact_format.policy_from_compact(pathlib.Path(path).read_bytes())
    except ValueError as error:
        raise ResultError(f"{path}: {error}") from error


def _check_policy_shapes(path: pathlib.Path, policy: AveragePolicy) -> None:
    """ResultError unless the policy arrays are consistent with each other."""
    infosets = len(policy.info_state_strings())
    start = policy.action_start
    consistent = (start.shape == (infosets + 1,) and policy.infoset_player.shape == (infosets,)
                  and start[-1] == policy.actions.shape[0] == policy.probabilities.shape[0])
    if not consistent:
        raise ResultError(f"{path}: policy arrays have inconsistent shapes")


def save_checkpoint(directory: pathlib.Path, state: SolverState, curve, run: dict) -> None:
    """Write checkpoint.npz: the solver state, the curve so far and the run's settings."""
    arrays = {
        "game_string": np.array(state.game_string),
        "algorithm": np.array(state.algorithm),
        "iteration": np.array(state.iteration),
        "seconds": np.array(state.seconds),
        "cumulative_regret": state.cumulative_regret,
        "cumulative_policy": state.cumulative_policy,
        "current_policy": state.current_policy,
        "curve": np.asarray(curve, dtype=np.float64).reshape(-1, 3),
        "run": np.array(json.dumps(run, sort_keys=True)),
    }
    atomic_write_npz(pathlib.Path(directory) / CHECKPOINT_FILE, arrays)


@dataclasses.dataclass(frozen=True)
class Checkpoint:
    """A loaded checkpoint: solver state, curve so far, and the run settings it was made with."""

    state: SolverState
    curve: list[tuple[int, float, float]]
    run: dict


def load_checkpoint(directory: pathlib.Path, game_string: str, run: dict) -> Checkpoint:
    """The checkpoint in `directory`, refused (ResultError) if made for another game or run.

    `run` holds the settings that must match (algorithm and its parameters).
    """
    path = pathlib.Path(directory) / CHECKPOINT_FILE
    arrays = _load_npz(path)
    try:
        saved_game = str(arrays["game_string"])
        saved_run = json.loads(str(arrays["run"]))
        state = SolverState(saved_game, str(arrays["algorithm"]), int(arrays["iteration"]),
                            float(arrays["seconds"]), arrays["cumulative_regret"],
                            arrays["cumulative_policy"], arrays["current_policy"])
        curve = [(int(i), float(s), float(e)) for i, s, e in arrays["curve"]]
    except (KeyError, ValueError) as error:
        raise ResultError(f"{path}: not a tricksolver checkpoint ({error})") from error
    if saved_game != game_string:
        raise ResultError(f"{path}: checkpoint is for game {saved_game!r}, not {game_string!r}; "
                          f"use another --out directory or drop --resume")
    for key, value in run.items():
        saved_value = saved_run.get(key, SETTING_DEFAULTS.get(key))
        if saved_value != value:
            raise ResultError(f"{path}: checkpoint was made with {key}={saved_value!r}, "
                              f"not {value!r}; use the same settings or drop --resume")
    return Checkpoint(state, curve, saved_run)


def part_directory(directory: pathlib.Path, part) -> pathlib.Path:
    """The result directory of one sub-game (`vira 7` -> DIR/vira_7), as `tricksolver solve`
    writes a game solved sub-game by sub-game."""
    return part_directory_named(directory, part.label)


def twin_how(twin_label: str) -> str:
    """The `how` of a sub-game's summary recorded as the same game as `twin_label`."""
    return (f"the strategy of {twin_label} (the same game: `PublicGame.identity`), measured "
            f"in this sub-game's own tree; curve.csv is {twin_label}'s")


def part_directory_named(directory: pathlib.Path, label: str) -> pathlib.Path:
    """`part_directory` of the sub-game labelled `label`."""
    return pathlib.Path(directory) / label.replace(" ", "_")


def is_combined(directory: pathlib.Path) -> bool:
    """Whether `directory` holds a game solved sub-game by sub-game (its summary.json)."""
    path = pathlib.Path(directory) / SUMMARY_FILE
    try:
        return "by_part" in json.loads(path.read_text())
    except (OSError, ValueError):  # no summary, or not JSON: not such a directory
        return False
