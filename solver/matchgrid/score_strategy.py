"""How the equilibrium changes with the score: the first decision of every state's hand.

For each state of a match solved on the public tree (`solver.matchgrid.public_engine`), the
non-dealer's first card turn — bet (Raise, Rest), Fold, or lead a card — is read from the
state's average policy: each hand's row at the root of every copy of the play tree (Le Truc's
redeal: kept, declined, agreed), weighted by how often that hand reaches it under the played
strategies (`PublicSolver.played_couplings`, `branch_reaches`). That gives P(action) per state,
the score-dependent counterpart of a hand-level strategy chart: where the match makes the
non-dealer bet more or less. Each state's figures are read when it is solved and kept in its
record (`first_decision` in its summary.json), so a match resumed on another machine needs no
strategy file; a mirrored state (seat symmetry) takes its image's: the non-dealer is the same
seat of the same hand. Written as DIR/tables/first_decision.{csv,md}
and drawn as one heat map per action over the score grid, one panel per dealer
(DIR/charts/first_decision.{png,svg}). In Truco the non-dealer is the mão and his first turn
is truco (Raise) or a card, except in a hand of eleven, whose first decision is the side at
eleven's `Play 11` / `Run 11` (that side's, whoever deals), and in the iron hand (a card); a
hand split by vira class gives each class's frequencies weighted by its probability.
"""
from __future__ import annotations

import csv
import io
import pathlib

import numpy as np

from solver import results
from solver.atomic import atomic_write_bytes
from solver.analysis.charts import _save, game_title, plt
from solver.matchgrid import store
from solver.matchgrid.chart import draw_score_grid, percent_colour_bar
from solver.matchgrid.engine import HandSolution
from solver.matchgrid.hand_decisions import (
    BY_HAND_FILE,
    PLAY,
    HandDecision,
    action_order,
)
from solver.matchgrid.public_engine import PublicEngine
from solver.matchgrid.states import ScoreState
from solver.public import _kernels as kernels
from solver.public.cfr import PublicPolicy
from solver.registry import load_game

STEM = "first_decision"


def decisions_by_hand(engine: PublicEngine, game_string: str, utility_of_points: dict,
                      hand: HandSolution) -> list[HandDecision]:
    """The first decision of every hand of one state's hand game (each sub-game's hands, by
    sub-game)."""
    policies = [hand.policy] if hand.parts is None else [
        part.policy for part in hand.parts.values()]
    found = engine.map_parts(_part_decisions, game_string,
                             [(utility_of_points, policy) for policy in policies])
    return [row for rows in found for row in rows]


def first_decision(rows: list[HandDecision]) -> dict[str, float]:
    """{action: probability} of the state's first decision over all hands."""
    totals: dict[str, float] = {}
    for row in rows:
        for name, probability in row.frequencies.items():
            totals[name] = totals.get(name, 0.0) + row.probability * probability
    mass = sum(row.probability for row in rows)
    return {name: value / mass for name, value in totals.items()}


def _part_decisions(engine: PublicEngine, game_string: str, label: str | None,
                    utility_of_points: dict, policy: PublicPolicy) -> list[HandDecision]:
    """`decisions_by_hand` in sub-game `label` of the hand (None: the only one; a
    `PublicEngine.map_parts` task): each hand's root rows (one per copy of the play tree)
    weighted by how often it reaches them."""
    solver = engine.solver(game_string, utility_of_points, label=label)
    solver.load_policy(PublicPolicy(solver.name, policy.talk, policy.sums))
    tree, part = solver.tree, solver.part
    talk = solver.talk_policy(kernels.AVERAGE)
    couplings, reaches = solver.played_couplings(talk), solver.branch_reaches(talk)
    actor = int(tree.node_player[0])
    reach = np.zeros(len(tree.hands))
    totals: list[dict[str, float]] = [{} for _ in tree.hands]
    for branch in solver.branches:
        weight = (couplings[branch] * np.outer(*reaches[branch])).sum(axis=1 - actor)
        for hand_index, hand in enumerate(tree.hands):
            if weight[hand_index] <= 0.0:
                continue
            reach[hand_index] += weight[hand_index]
            entry = (hand, ())
            row = solver.row_policy(branch, 0, entry)
            names = [part.bet_name(a) for a in tree.row_actions(part, 0, entry)
                     [:int(tree.node_nbet[0])]]
            names += [PLAY] * (len(row) - len(names))
            found = totals[hand_index]
            for name, probability in zip(names, row):
                found[name] = found.get(name, 0.0) + weight[hand_index] * float(probability)
    share = part.weight / reach.sum()
    return [HandDecision(part.label, " ".join(part.class_name(c) for c in sorted(hand,
                                                                                reverse=True)),
                         float(reach[i] * share),
                         {name: value / reach[i] for name, value in totals[i].items()})
            for i, hand in enumerate(tree.hands) if reach[i] > 0.0]


def write_by_hand_table(directory: pathlib.Path, out: pathlib.Path) -> list[pathlib.Path]:
    """`out`/first_decision_by_hand.csv: every state's `first_decision_by_hand.csv` with its
    score0, score1, dealer in front (a mirror image takes its source's rows: the same seat of
    the same hand); nothing if some solved state has none (solved before they were kept)."""
    tables: dict[ScoreState, list[dict]] = {}
    for state, _, source in store.solved_directories(directory):
        table = source / BY_HAND_FILE
        if not table.exists():
            return []
        tables[state] = list(csv.DictReader(table.read_text().splitlines()))
    actions = action_order({key for rows in tables.values() if rows for key in rows[0]} - {
        "part", "hand", "share"})  # (a blind iron hand has no hand seen, so no rows)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["score0", "score1", "dealer", "part", "hand", "share", *actions])
    for state in sorted(tables):
        for row in tables[state]:
            writer.writerow([state.score0, state.score1, state.dealer, row["part"], row["hand"],
                             row["share"], *(row.get(a, "0.000000") for a in actions)])
    path = pathlib.Path(out) / BY_HAND_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, buffer.getvalue().encode())
    return [path]


def state_frequencies(directory: pathlib.Path) -> dict[ScoreState, dict[str, float]]:
    """{state: first-decision frequencies} of every solved state of a match directory, as
    recorded when it was solved (ValueError, one line, for states solved without them: not
    on the public tree)."""
    found, missing = {}, []
    for state, path, _ in store.solved_directories(directory):
        record = results.read_summary(path)["match"]
        if "first_decision" in record:
            found[state] = record["first_decision"]
        else:
            missing.append(path.name)
    if missing:
        raise ValueError(f"{directory}: {len(missing)} states ({', '.join(missing[:3])}, ...) "
                         f"hold no first decision: it is read from public-tree solutions")
    return found


def frequency_table(frequencies: dict[ScoreState, dict[str, float | None]],
                    columns: list[str] | None = None) -> tuple[list, list]:
    """(header, rows) of the table: one row per state, one column per action (`columns`, by
    default every action, `action_order`); "-" where a state has no figure (None)."""
    columns = columns or action_order({name for row in frequencies.values() for name in row})
    header = ["score0", "score1", "dealer", *columns]
    rows = [[s.score0, s.score1, s.dealer, *(
        "-" if frequencies[s].get(c, 0.0) is None else f"{frequencies[s].get(c, 0.0):.4f}"
        for c in columns)] for s in sorted(frequencies)]
    return header, rows


def write_tables(frequencies, out: pathlib.Path, caption: str, stem: str = STEM,
                 columns: list[str] | None = None) -> list[pathlib.Path]:
    """`out`/`stem`.csv and .md (DIR/tables/first_decision.* by default)."""
    header, rows = frequency_table(frequencies, columns)
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows([header, *rows])
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    markdown = [caption, "", "| " + " | ".join(header) + " |",
                "|" + "---:|" * len(header)]
    markdown += ["| " + " | ".join(map(str, row)) + " |" for row in rows]
    paths = [out / f"{stem}.csv", out / f"{stem}.md"]
    atomic_write_bytes(paths[0], buffer.getvalue().encode())
    atomic_write_bytes(paths[1], ("\n".join(markdown) + "\n").encode())
    return paths


def plot_first_decision(frequencies, game_string: str, target: int,
                        out: pathlib.Path) -> list[pathlib.Path]:
    """DIR/charts/first_decision.{png,svg} (`plot_score_frequencies`)."""
    return plot_score_frequencies(
        frequencies, f"{game_title(load_game(game_string))}: the hand's first decision per "
        f"score (match to {target}), % of hands", target, out, STEM)


def plot_score_frequencies(frequencies, title: str, target: int, out: pathlib.Path, stem: str,
                           columns: list[str] | None = None,
                           unit: str = "% of hands") -> list[pathlib.Path]:
    """One heat map per action (rows) and dealer (columns), percent in every cell (none
    where a state has no figure); `unit` labels the colour bars."""
    header, _ = frequency_table(frequencies, columns)
    actions = header[3:]
    size = 0.36 * target + 1.2
    figure, axes = plt.subplots(len(actions), 2, figsize=(2 * size + 2.0, size * len(actions)),
                                constrained_layout=True, squeeze=False)
    for row, action in enumerate(actions):
        image = None
        for axis, dealer in zip(axes[row], (1, 0)):
            leader = "player 0" if dealer == 1 else "player 1"
            image = draw_score_grid(
                axis, {state: values.get(action, 0.0) for state, values in frequencies.items()
                       if values.get(action, 0.0) is not None},
                dealer, target, "viridis", lambda v: "black" if v > 0.6 else "white",
                f"{action}: dealer {dealer} ({leader} leads)")
        percent_colour_bar(figure, image, axes[row], unit)
    figure.suptitle(title, fontsize=10)
    return _save(figure, pathlib.Path(out), stem)
