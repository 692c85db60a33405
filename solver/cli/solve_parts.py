"""`solve` for a game the public-tree engine splits into sub-games (Truco's vira classes).

Each sub-game is its own solve, in its own result directory under DIR (`vira_K/`: strategy,
curve, summary, checkpoint), with the stopping rules applied to it; `--resume` skips the
sub-games already finished and resumes the one a previous run left unfinished (stopped by
Ctrl-C, or by `--time-limit` before its iterations or target: resume it with a longer
limit or none, the seconds of earlier runs count), so a game too long for one
session is built over several. A sub-game that is the same game as an earlier one
under other names (`PublicGame.identity`: Truco's vira 2 and vira 3) is solved once; the other
takes its strategy, measured again in its own tree (`record_twin`). After every sub-game DIR/summary.json is
rewritten (atomically) with what is finished so far; once all are, it holds the whole game's
exploitability and value: the sums over the sub-games weighted by their probabilities (the
vira is public, so a best response decomposes over it and the sums are exact), and
DIR/curve.csv the weighted curve at the iterations every sub-game evaluated. Once every
sub-game is compacted (`tricksolver compact`), DIR/summary.json also holds the compact
strategy's weighted exploitability and value.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import pathlib
import sys
import time
from collections.abc import Callable

from solver import results
from solver.atomic import atomic_write_bytes
from solver.bench import peak_memory_mb
from solver.public.parts import first_twin
from solver.results import part_directory


def run_parts(args, game, directory: pathlib.Path, parts: list, selected: list,
              solve_one: Callable[..., dict]) -> int:
    """Solve the `selected` sub-games in turn (`solve_one(args, game, sub_directory, part)`
    returns its summary), skipping finished ones on --resume; after each, rewrite the
    combined summary of every sub-game finished in `directory` (by this run or another)."""
    directory = pathlib.Path(directory)
    selected = _with_twins(parts, selected)
    for index, part in enumerate(selected, start=1):
        sub = part_directory(directory, part)
        if args.resume and _finished_summary(sub) is not None:
            print(f"[{index}/{len(selected)}] {part.label}: finished in {sub}, skipped",
                  file=sys.stderr)
            continue
        twin = first_twin(parts, part)
        if twin.label != part.label:
            print(f"[{index}/{len(selected)}] {part.label} is the same game as {twin.label}: "
                  f"its strategy, measured in {part.label}'s own tree -> {sub}", file=sys.stderr)
            summary = record_twin(game, directory, part, twin)
            print(f"{part.label}: exploitability {summary['exploitability']:.6g}, value "
                  f"{summary['game_value']:+.6f} (measured in {summary['measure_seconds']:.0f} s, "
                  f"its tree built in {summary['compile_seconds']:.0f} s)")
        else:
            print(f"[{index}/{len(selected)}] {part.label} -> {sub}", file=sys.stderr)
            resume = args.resume and (sub / results.CHECKPOINT_FILE).exists()
            solve_one(argparse.Namespace(**{**vars(args), "resume": resume}), game, sub, part)
        write_combined(game, directory, parts)
    combined = write_combined(game, directory, parts)
    print(format_combined(combined, directory))
    return 0


def _with_twins(parts: list, selected: list) -> list:
    """`selected` in order, each sub-game that is the same game as an earlier one
    (`PublicGame.identity`) preceded by that one if it is not selected itself: it is solved
    once, and the others take its strategy."""
    order = {}
    for part in selected:
        for needed in (first_twin(parts, part), part):
            order.setdefault(needed.label, needed)  # the same class may come as two objects
    return list(order.values())


def record_twin(game, directory: pathlib.Path, part, twin) -> dict:
    """Save sub-game `part`, the same game as the solved `twin`, from the twin's solve: the
    same strategy (the two trees differ only in the names of the cards, so the tables line
    up), its exploitability and value measured exactly in `part`'s own tree (built for
    that); the twin's curve. Its summary names the twin (`same_game_as`); its directory holds
    no strategy of its own (`results.load_result` reads the twin's). Returns the summary."""
    from solver.public.solve import solver_for  # imported on use, as solve's engines are
    from solver.public.tree import tree_name

    source = results.load_result(part_directory(directory, twin))
    name = tree_name(game, part)
    start = time.perf_counter()
    solver = solver_for(game, dataclasses.replace(source.policy, game_string=name))
    built = time.perf_counter() - start
    exploitability, value = solver.exploitability(), solver.game_value()
    sizes = {**source.summary["tree_sizes"], "part": part.label, **solver.tree.sizes()}
    summary = {**source.summary, "game": name, "same_game_as": twin.label,
               "exploitability": exploitability, "game_value": value, "seconds": 0.0,
               "compile_seconds": built, "measure_seconds": time.perf_counter() - start - built,
               "peak_memory_mb": peak_memory_mb(), "tree_sizes": sizes,
               "git_commit": results.git_commit(),
               "how": results.twin_how(twin.label)}
    sub = part_directory(directory, part)
    sub.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(sub / results.CURVE_FILE,
                       (part_directory(directory, twin) / results.CURVE_FILE).read_bytes())
    results.write_summary(sub, summary)
    return summary


def write_combined(game, directory: pathlib.Path, parts: list) -> dict:
    """DIR/summary.json (and, once every sub-game is finished, DIR/curve.csv) from the
    sub-games finished in `directory`; the combined summary."""
    finished = {part.label: summary for part in parts
                if (summary := _finished_summary(part_directory(directory, part))) is not None}
    combined = combine(str(game), parts, finished)
    results.write_summary(directory, combined)
    if combined["exploitability"] is not None:
        curve = combined_curve(parts, [part_directory(directory, p) for p in parts])
        atomic_write_bytes(directory / results.CURVE_FILE,
                           results.curve_csv(curve).encode())
    return combined


def _finished_summary(directory: pathlib.Path) -> dict | None:
    """A sub-game directory's summary if its solve finished: not stopped by Ctrl-C, nor by
    the time limit before the iterations or target it was also given (a session's end:
    --resume continues it from its checkpoint, and the whole game does not count it yet)."""
    path = directory / results.SUMMARY_FILE
    if not path.exists():
        return None
    summary = json.loads(path.read_text())
    return None if _stopped_early(summary) else summary


def _stopped_early(summary: dict) -> bool:
    """Whether a solve stopped before its own goal: interrupted, or cut by the time limit
    while it also had iterations or a target to reach."""
    stopping = summary.get("stopping", {})
    goal = stopping.get("iterations") is not None or stopping.get("target") is not None
    return (summary.get("stopped_by") == "interrupted"
            or (summary.get("stopped_by") == "time limit" and goal))


def combine(game_string: str, parts: list, finished: dict[str, dict]) -> dict:
    """The whole game's summary from its sub-games' (weighted sums once all are finished)."""
    rows = []
    for part in parts:
        summary = finished.get(part.label)
        row = {"part": part.label, "weight": part.weight, "finished": summary is not None}
        if summary is not None:
            row.update({key: summary[key] for key in (
                "exploitability", "game_value", "iterations", "seconds", "compile_seconds",
                "peak_memory_mb", "stopped_by")})
            row["tree_sizes"] = summary["tree_sizes"]
            if "compact" in summary:
                row["compact"] = summary["compact"]
        rows.append(row)
    complete = all(row["finished"] for row in rows)
    first = next(iter(finished.values()), {})
    compact = all("compact" in row for row in rows)
    return {
        "game": game_string,
        "engine": "public",
        "algorithm": first.get("algorithm"),
        "parts_finished": sum(row["finished"] for row in rows),
        "parts": len(rows),
        "exploitability": (sum(r["weight"] * r["exploitability"] for r in rows)
                           if complete else None),
        "game_value": sum(r["weight"] * r["game_value"] for r in rows) if complete else None,
        **({"compact": _combined_compact(rows)} if compact else {}),
        "seconds": sum(r.get("seconds", 0.0) for r in rows),
        "peak_memory_mb": max(r.get("peak_memory_mb", 0.0) for r in rows),
        "how": "exploitability and value of the whole game: the sub-games' (each exact, in "
               "points per hand) weighted by their probabilities; the vira is public, so a "
               "best response decomposes over it",
        "by_part": rows,
        "git_commit": first.get("git_commit"),
    }


def _combined_compact(rows: list[dict]) -> dict:
    """The whole game's compact record from every sub-game's: files and bytes summed,
    exploitability and value weighted like the originals'."""
    first = rows[0]["compact"]
    return {"file": f"*/{first['file']}", "bytes": sum(r["compact"]["bytes"] for r in rows),
            "step": first["step"],
            **{key: sum(r["weight"] * r["compact"][key] for r in rows)
               for key in ("exploitability", "game_value")}}


def combined_curve(parts: list, directories: list[pathlib.Path]) -> list[tuple]:
    """(iteration, seconds summed, weighted exploitability) at the iterations every sub-game
    evaluated."""
    curves = [{i: (s, e) for i, s, e in results.read_curve(d / results.CURVE_FILE)}
              for d in directories]
    common = set.intersection(*(set(curve) for curve in curves))
    return [(i, sum(curve[i][0] for curve in curves),
             sum(part.weight * curve[i][1] for part, curve in zip(parts, curves)))
            for i in sorted(common)]


def format_combined(summary: dict, directory: pathlib.Path) -> str:
    """What `solve` prints when every sub-game is done."""
    lines = [f"game            {summary['game']}",
             f"sub-games       {summary['parts_finished']}/{summary['parts']} finished, "
             f"{summary['seconds']:.1f} s in all"]
    for row in (row for row in summary["by_part"] if row["finished"]):
        lines.append(f"  {row['part']:<12}  exploitability {row['exploitability']:.6g}  value "
                     f"{row['game_value']:+.6f}  {row['iterations']} it, {row['seconds']:.0f} s")
    if summary["exploitability"] is not None:
        lines += [f"exploitability  {summary['exploitability']:.6g} points per hand (weighted "
                  f"sum)",
                  f"game value      {summary['game_value']:+.6f} points per hand for player 0"]
    else:
        lines.append("whole game      when every sub-game is finished (--resume continues)")
    lines.append(f"saved           {directory}/  (one directory per sub-game, summary.json)")
    return "\n".join(lines)
