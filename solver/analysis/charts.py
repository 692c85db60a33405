"""Charts (PNG and SVG, matplotlib Agg) and tables of saved results.

* `curves`: exploitability vs iterations and vs seconds, log-log, one line per result.
* `strategy-<context>`: for Le Truc, hands (strongest first) x actions, cells coloured by action
  frequency (cividis), with each hand's EV beside the grid; the follower's contexts draw one
  grid per lead card instead (averaged over the lead, the card play means nothing).
* In every chart: one hand order for all panels (said in words on the chart), the numbers on
  the cells and bars, "—" where a hand cannot take an action or never meets the decision, the
  reach beside the hand where it is below 100%, and hands whose choice is not advice marked:
  hatched "indifferent" (two or more actions within `contexts.INDIFFERENCE_TOLERANCE` points of
  the best) or greyed "rarely reached" (`contexts.RARE_REACH`). Legends list only the actions
  the panel's decision has.
* `bluffing`: per hand, how often the non-dealer opens with a value raise or rest, a bluff
  raise or rest (equity against the calling range below 50%, see `solver.analysis`), a card or
  a fold; how often the dealer does the same after seeing the lead card; and how often each
  hand calls or refuses facing the first raise.
* `tables/`: the same numbers as CSV and Markdown (`solver.analysis.tables`).
* Two-player Truco (`write_truco_charts`, a result directory of the public-tree engine: one
  solved sub-game per vira class): the same strategy grids, bluffing chart and tables per vira
  class in `vira_X/` (rows `vira 7 | Qc 3`), one table per context over every vira class in
  `tables/` with the deal table (`deals`: each hand's EV at the deal), and the curves of the
  whole game and of each vira class (`curves`). Facing a raise, `Run` counts as refusing.
Colours follow the Okabe-Ito colour-blind-safe palette; bluffs are also hatched.
"""
from __future__ import annotations

import pathlib

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.hashsalt"] = "tricksolver"  # stable SVG ids: reruns give equal files
matplotlib.rcParams["svg.fonttype"] = "none"  # text as text: SVGs a third the size
import matplotlib.patches  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pyspiel  # noqa: E402

from solver import analysis  # noqa: E402
from solver.analysis import contexts, tables  # noqa: E402
from solver.analysis import truco as truco_analysis  # noqa: E402
from solver.public.parts import public_parts  # noqa: E402
from solver.registry import load_game  # noqa: E402
from solver.results import SavedResult, part_directory, read_curve, read_summary  # noqa: E402

OKABE_ITO = {"orange": "#E69F00", "sky": "#56B4E9", "green": "#009E73", "yellow": "#F0E442",
             "blue": "#0072B2", "vermillion": "#D55E00", "purple": "#CC79A7", "grey": "#999999",
             "black": "#000000"}
LINE_COLOURS = [OKABE_ITO[c] for c in ("blue", "vermillion", "green", "orange", "purple", "sky",
                                       "black")]
FORMATS = ("png", "svg")
MAX_PNG_WIDTH = 2400  # pixels (before the tight crop): wide charts get a lower resolution
MIN_CONTEXT_PROBABILITY = 1e-4
GAME_NAMES = {"python_le_truc": "Le Truc", "python_truco_paulista": "Truco Paulista",
              "python_trucomano": "Trucomano", "python_two_ten_jack": "Two-Ten-Jack"}


def game_title(game: pyspiel.Game) -> str:
    """`Le Truc (num_ranks=3, hand_size=2)`: the game's name and its non-default parameters."""
    game_type = game.get_type()
    name = GAME_NAMES.get(game_type.short_name, game_type.short_name)
    defaults = game_type.parameter_specification
    changed = [f"{k}={v}" for k, v in sorted(game.get_parameters().items())
               if defaults.get(k) != v]
    return f"{name} ({', '.join(changed)})" if changed else f"{name} (default parameters)"


def _save(figure, out: pathlib.Path, stem: str) -> list[pathlib.Path]:
    """Write `figure` as PNG and SVG; return the paths."""
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    width = figure.get_size_inches()[0]
    for extension in FORMATS:
        path = out / f"{stem}.{extension}"
        figure.savefig(path, dpi=min(150, MAX_PNG_WIDTH / width), bbox_inches="tight",
                       metadata={"Date": None} if extension == "svg" else None)
        paths.append(path)
    plt.close(figure)
    return paths


def plot_curves(saved: list[SavedResult], out: pathlib.Path) -> list[pathlib.Path]:
    """Exploitability vs iterations and vs seconds, log-log, one line per result."""
    figure, axes = plt.subplots(1, 2, figsize=(11, 4.5), sharey=True)
    games_shown = {result.game_string for result in saved}
    for colour, result in zip(LINE_COLOURS * 4, saved):
        rows = np.array([row for row in result.curve if row[0] > 0 and row[2] > 0])
        if rows.size == 0:
            continue
        label = f"{result.summary['algorithm']} ({rows[-1, 2]:.2g} after {int(rows[-1, 0])} it)"
        if len(games_shown) > 1:
            label = f"{game_title(load_game(result.game_string))}: {label}"
        axes[0].loglog(rows[:, 0], rows[:, 2], color=colour, label=label)
        axes[1].loglog(rows[:, 1], rows[:, 2], color=colour, label=label)
    axes[0].set_xlabel("iterations")
    axes[1].set_xlabel("seconds")
    axes[0].set_ylabel("exploitability (points per hand)")
    for axis in axes:
        axis.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=8)
    title = (game_title(load_game(saved[0].game_string)) if len(games_shown) == 1
             else "several games")
    figure.suptitle(f"{title}: exploitability of the average strategy (NashConv / 2)")
    return _save(figure, out, "curves")


EMPTY = "—"  # a cell the hand cannot play, or a hand that does not meet this decision
EMPTY_COLOUR = "#E8E8E8"
MIN_BAR_TEXT = 0.08  # segments narrower than this carry no number
SPLITS_PER_ROW = 4  # lead-card grids per row of a follower's chart
NOTE_STYLE = {"indifferent": {"alpha": 0.45, "hatch": "xx"},
              "rarely reached": {"alpha": 0.7, "hatch": None}}


def hand_order(tables: list[contexts.ContextTable]) -> list[str]:
    """One hand order for every panel of a chart: the first panel's (its acting seat's EV at
    the deal, strongest first), then hands only later panels have, in their order."""
    order = []
    for table in tables:
        order += [hand for hand in table.hands if hand not in order]
    return order


def order_note(table: contexts.ContextTable) -> str:
    """The sort key of a chart's rows, in words."""
    return (f"hands sorted by player {table.player}'s EV at the deal (expected points of being "
            f"dealt the hand), strongest on top")


def aligned(table: contexts.ContextTable, order: list[str], values: np.ndarray) -> np.ndarray:
    """`values` [hands, ...] of `table` on the rows of `order` (NaN for hands it lacks)."""
    out = np.full((len(order),) + values.shape[1:], np.nan)
    for index, hand in enumerate(table.hands):
        out[order.index(hand)] = values[index]
    return out


def row_labels(table: contexts.ContextTable, order: list[str]) -> list[str]:
    """Row labels: the hand, its reach where below 100%, and its note ("indifferent", "rarely
    reached"); hands the context lacks read `hand  —`."""
    notes = dict(zip(table.hands, contexts.hand_notes(table)))
    reached = dict(zip(table.hands, table.reached))
    labels = []
    for hand in order:
        if hand not in notes:
            labels.append(f"{hand}  {EMPTY}")
            continue
        text = hand if reached[hand] >= 0.995 else f"{hand}  (reached {_reach_text(reached[hand])})"
        labels.append(f"{text}  · {notes[hand]}" if notes[hand] else text)
    return labels


def _reach_text(reach: float) -> str:
    """`68%`, `0.4%`, `<0.1%`."""
    if reach >= 0.095:
        return f"{100 * reach:.0f}%"
    return f"{100 * reach:.1f}%" if reach >= 0.001 else "<0.1%"


def row_notes(table: contexts.ContextTable, order: list[str]) -> list[str]:
    """hand_notes on the rows of `order` ("" for hands the context lacks)."""
    notes = dict(zip(table.hands, contexts.hand_notes(table)))
    return [notes.get(hand, "") for hand in order]


def cell_texts(table: contexts.ContextTable, order: list[str]) -> list[list[str]]:
    """The numbers written in a strategy grid: % of the time, or "—" where the hand cannot take
    the action (or never meets the decision)."""
    frequency = aligned(table, order, table.frequency)
    return [[EMPTY if np.isnan(v) else f"{100 * v:.0f}" for v in row] for row in frequency]


def bar_texts(segments: np.ndarray) -> list[list[str]]:
    """The numbers written on stacked bars: each segment's %, blank where it is narrower than
    MIN_BAR_TEXT; "—" on a row the context lacks (all NaN)."""
    texts = []
    for row in segments:
        if np.all(np.isnan(row)):
            texts.append([EMPTY] + [""] * (len(row) - 1))
        else:
            texts.append([f"{100 * v:.0f}" if v >= MIN_BAR_TEXT else "" for v in row])
    return texts


def _shade_notes(axis, notes: list[str], left: float, right: float) -> None:
    """Grey out (and hatch, for indifferent hands) the rows that are not advice."""
    for index, note in enumerate(notes):
        if note:
            style = NOTE_STYLE[note]
            axis.add_patch(matplotlib.patches.Rectangle(
                (left, index - 0.5), right - left, 1.0, facecolor="white", alpha=style["alpha"],
                edgecolor="none", zorder=3))
            if style["hatch"]:
                axis.add_patch(matplotlib.patches.Rectangle(
                    (left, index - 0.5), right - left, 1.0, fill=False, hatch=style["hatch"],
                    edgecolor=OKABE_ITO["grey"], linewidth=0.0, zorder=3))


def _draw_grid(grid, table, order, labels: bool = True):
    """One heatmap of `table` on the rows of `order` into axis `grid`; the image."""
    frequency = aligned(table, order, table.frequency)
    cmap = matplotlib.colormaps["cividis"].with_extremes(bad=EMPTY_COLOUR)
    image = grid.imshow(np.ma.masked_invalid(frequency), cmap=cmap, vmin=0.0, vmax=1.0,
                        aspect="auto")
    for (i, j), text in np.ndenumerate(np.array(cell_texts(table, order), dtype=object)):
        value = frequency[i, j]
        colour = "#555555" if np.isnan(value) else "black" if value > 0.55 else "white"
        grid.text(j, i, text, ha="center", va="center", fontsize=7, color=colour, zorder=4)
    grid.set_xticks(range(len(table.actions)), table.actions, rotation=30, ha="right")
    grid.set_yticks(range(len(order)), row_labels(table, order) if labels else
                    [""] * len(order), fontsize=8)
    _shade_notes(grid, row_notes(table, order), -0.5, len(table.actions) - 0.5)
    return image


def strategy_figure(table: contexts.ContextTable, title: str):
    """The figure of `plot_strategy_grid`."""
    if table.splits:
        return _split_figure(table, title)
    order = hand_order([table])
    rows, columns = len(order), len(table.actions)
    figure, (grid, ev_axis) = plt.subplots(
        1, 2, figsize=(2.0 + 1.0 * columns + 4.0, 1.0 + 0.32 * rows),
        gridspec_kw={"width_ratios": [columns, 2.2]}, sharey=True, layout="constrained")
    image = _draw_grid(grid, table, order)
    colours = [OKABE_ITO["blue"] if v >= 0 else OKABE_ITO["vermillion"] for v in table.ev]
    ev_axis.barh(range(rows), table.ev, color=colours)
    for index, ev in enumerate(table.ev):
        ev_axis.text(ev, index, f" {ev:+.2f} ", va="center", fontsize=6,
                     ha="left" if ev >= 0 else "right")
    ev_axis.axvline(0, color="black", linewidth=0.8)
    ev_axis.set_xlabel("EV (points per hand)")
    ev_axis.grid(True, axis="x", alpha=0.3)
    ev_axis.margins(x=0.25)
    figure.colorbar(image, ax=ev_axis, label="action frequency", fraction=0.08, pad=0.04)
    figure.suptitle(f"{title}\n{table.title} — {tables.seats(table)}; {order_note(table)};"
                    f"\ncells: % of the time ({EMPTY}: not available){_notes_legend()}",
                    fontsize=10)
    return figure


def _notes_legend() -> str:
    """The line explaining greyed rows."""
    return (f"\nhatched: indifferent (actions within {contexts.INDIFFERENCE_TOLERANCE:g} points of "
            f"the best: the mix is not advice); greyed: rarely reached "
            f"(<{100 * contexts.RARE_REACH:g}% of the time with that hand)")


def _split_figure(table: contexts.ContextTable, title: str):
    """One grid per lead card, sharing the rows of the averaged table (then hands only some
    lead's table lists)."""
    splits = list(table.splits.values())
    order = hand_order([table] + splits)
    columns = len(table.actions)
    across = min(len(splits), SPLITS_PER_ROW)
    down = -(-len(splits) // across)
    figure, axes = plt.subplots(down, across, figsize=(
        1.0 + (1.0 * columns + 2.6) * across, 1.0 + (0.8 + 0.3 * len(order)) * down),
        layout="constrained", squeeze=False)
    for axis in axes.flat[len(splits):]:
        axis.set_visible(False)
    axes = axes.flat[:len(splits)]
    for axis, split in zip(axes, splits):
        image = _draw_grid(axis, split, order)
        axis.set_title(f"lead {split.lead}\n(reached {_reach_text(split.probability)} of "
                       f"hands)", fontsize=9)
    figure.colorbar(image, ax=list(axes), label="action frequency", fraction=0.02, pad=0.01)
    figure.suptitle(f"{title}\n{table.title} — {tables.seats(table)}, one grid per lead card; "
                    f"every grid: {order_note(table)} (reached: facing that lead);\ncells: % of "
                    f"the time ({EMPTY}: not available){_notes_legend()}", fontsize=10)
    return figure


def plot_strategy_grid(table: contexts.ContextTable, title: str,
                       out: pathlib.Path) -> list[pathlib.Path]:
    """Hands x actions heatmap of one context, with the EV of each hand beside it (the
    follower's contexts: one grid per lead card)."""
    return _save(strategy_figure(table, title), out, f"strategy-{table.key}")


BLUFF_SEGMENTS = (
    ("Raise (value)", OKABE_ITO["vermillion"], None),
    ("Raise (bluff)", OKABE_ITO["orange"], "//"),
    ("Rest (value)", OKABE_ITO["purple"], None),
    ("Rest (bluff)", OKABE_ITO["yellow"], "//"),
    ("Play a card", OKABE_ITO["blue"], None),
    ("Fold", OKABE_ITO["grey"], None),
)
ANSWER_SEGMENTS = (
    ("Call", OKABE_ITO["green"], None),
    ("Raise back", OKABE_ITO["vermillion"], None),
    ("Refuse", OKABE_ITO["grey"], None),
)
ANSWER_ACTIONS = (("Accept", "Rest"), ("Raise",), ("Refuse", "Run"))


def bet_segments(table: contexts.ContextTable) -> np.ndarray:
    """float64 [hands, len(BLUFF_SEGMENTS)]: the betting context's mass split for the chart."""
    segments = np.zeros((len(table.hands), len(BLUFF_SEGMENTS)))
    for column, action in enumerate(table.actions):
        frequency = np.nan_to_num(table.frequency[:, column])
        if action in table.equity:
            value = table.equity[action] >= tables.VALUE_THRESHOLD
            offset = 0 if action == "Raise" else 2
            segments[:, offset] += np.where(value, frequency, 0.0)
            segments[:, offset + 1] += np.where(value, 0.0, frequency)
        elif action == "Fold":
            segments[:, 5] += frequency
        elif action.startswith("Play"):
            segments[:, 4] += frequency
    return segments


def answer_segments(table: contexts.ContextTable) -> np.ndarray:
    """float64 [hands, len(ANSWER_SEGMENTS)]: call / counter-raise / refuse."""
    segments = np.zeros((len(table.hands), len(ANSWER_SEGMENTS)))
    for index, names in enumerate(ANSWER_ACTIONS):
        for name in names:
            if name in table.actions:
                segments[:, index] += np.nan_to_num(table.frequency[:, table.actions.index(name)])
    return segments


def legend_labels(table: contexts.ContextTable, kind: str) -> list[str | None]:
    """Per segment of the panel ("bet" or "answer"), its legend label, None for a segment the
    context has no action for (left out of the legend)."""
    actions = set(table.actions)
    if kind == "bet":
        labels = []
        for label, _, _ in BLUFF_SEGMENTS:
            name = label.split(" ")[0]
            present = (any(a.startswith("Play") for a in actions) if name == "Play"
                       else name in actions)
            labels.append(label if present else None)
        return labels
    labels = []
    for (label, _, _), names in zip(ANSWER_SEGMENTS, ANSWER_ACTIONS):
        present = [name for name in names if name in actions]
        labels.append(f"{label} ({' / '.join(present)})" if present else None)
    return labels


def _stacked(axis, table, order, segments, items, labels, heading: str) -> None:
    """Horizontal stacked bars, one per hand of `order` (strongest on top), with the numbers
    on them; legend entries only for `labels` that are not None."""
    segments = aligned(table, order, segments)
    positions = np.arange(len(order))
    left = np.zeros(len(order))
    texts = bar_texts(segments)
    for index, ((_, colour, hatch), label) in enumerate(zip(items, labels)):
        width = np.nan_to_num(segments[:, index])
        axis.barh(positions, width, left=left, color=colour, hatch=hatch, edgecolor="white",
                  linewidth=0.5, label="_nolegend_" if label is None else label)
        for row in positions:
            if texts[row][index] and texts[row][index] != EMPTY:
                axis.text(left[row] + width[row] / 2, row, texts[row][index], ha="center",
                          va="center", fontsize=6, color="black" if colour in (
                              OKABE_ITO["yellow"], OKABE_ITO["orange"], OKABE_ITO["grey"],
                              OKABE_ITO["green"], OKABE_ITO["purple"]) else "white", zorder=4)
        left += width
    for row in positions:
        if texts[row][0] == EMPTY:
            axis.text(0.5, row, EMPTY, ha="center", va="center", fontsize=8, color="#555555")
            axis.axhspan(row - 0.4, row + 0.4, color=EMPTY_COLOUR, zorder=0)
    _shade_notes(axis, row_notes(table, order), 0.0, 1.0)
    axis.set_yticks(positions, row_labels(table, order), fontsize=7)
    axis.set_ylim(len(order) - 0.5, -0.5)
    axis.set_xlim(0, 1)
    axis.set_xticks(np.linspace(0, 1, 6), [f"{p}%" for p in range(0, 101, 20)])
    axis.set_title(f"{heading}\n(reached {_reach_text(table.probability)} of hands)",
                   fontsize=9)


def reached_contexts(result: contexts.Analysis) -> list[contexts.ContextTable]:
    """Contexts reached in at least MIN_CONTEXT_PROBABILITY of the hands (the others are off
    the equilibrium path, where any action is as good as another)."""
    return [t for t in result.contexts if t.probability >= MIN_CONTEXT_PROBABILITY]


def bluff_panels(result: contexts.Analysis) -> list[tuple[contexts.ContextTable, str]]:
    """What the bluffing chart shows: the two most reached betting contexts (the opening first)
    and the two most reached answers to a bet."""
    reached = reached_contexts(result)
    by_reach = sorted(reached, key=lambda t: -t.probability)
    bets = [t for t in by_reach if t.equity and np.nansum(t.frequency[:, [
        t.actions.index(b) for b in t.equity]]) > 0][:2]
    answers = [t for t in by_reach if contexts.answers_a_bet(t.key)][:2]
    bets.sort(key=lambda t: contexts.context_order(t.key))
    answers.sort(key=lambda t: contexts.context_order(t.key))
    return [(t, "bet") for t in bets] + [(t, "answer") for t in answers]


def bluffing_figure(result: contexts.Analysis, title: str):
    """The figure of `plot_bluffing` (None when there is nothing to draw)."""
    panels = bluff_panels(result)
    if not panels:
        return None
    order = hand_order([t for t, _ in panels])
    height = 2.2 + 0.26 * len(order)
    figure, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), height),
                                layout="constrained")
    axes = np.atleast_1d(axes)
    for axis, (table, kind) in zip(axes, panels):
        segments = bet_segments(table) if kind == "bet" else answer_segments(table)
        items = BLUFF_SEGMENTS if kind == "bet" else ANSWER_SEGMENTS
        _stacked(axis, table, order, segments, items, legend_labels(table, kind),
                 f"{table.title}: {tables.seats(table)}")
        axis.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.04), ncol=2,
                    frameon=False)
    figure.suptitle(f"{title}\nBluffing: a bet is a bluff when the hand wins less than 50% of "
                    f"the time once the bet is called (equity against the calling range); "
                    f"every panel: {order_note(panels[0][0])}; numbers: % of the time"
                    f"{_notes_legend()}", fontsize=9)
    return figure


def plot_bluffing(result: contexts.Analysis, title: str, out: pathlib.Path) -> list[pathlib.Path]:
    """The bluffing chart (see the module docstring)."""
    figure = bluffing_figure(result, title)
    return [] if figure is None else _save(figure, out, "bluffing")


def write_tables(result: contexts.Analysis, title: str, out: pathlib.Path) -> list[pathlib.Path]:
    """CSV and Markdown per context, plus the bluffing table."""
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for table in reached_contexts(result):
        header, rows = tables.context_rows(table)
        paths += _write_pair(out, f"strategy-{table.key}", header, rows,
                             tables.context_caption(table, title))
        if table.splits:
            header, rows = tables.split_rows(table)
            paths += _write_pair(out, f"strategy-{table.key}-by_lead", header, rows,
                                 tables.context_caption(table, title) + " One block per lead "
                                 "card.")
    header, rows = tables.bluff_rows(reached_contexts(result))
    caption = (f"**Bluffing** — {title}. Every bet made at least "
               f"{100 * tables.MIN_BET_FREQUENCY:g}% of the time in a decision context reached in "
               f"at least {100 * MIN_CONTEXT_PROBABILITY:g}% of the hands; a bet is a bluff when "
               f"its equity once called (probability of winning the hand) is below 50%.")
    paths += _write_pair(out, "bluffing", header, rows, caption)
    return paths


def _write_pair(out: pathlib.Path, stem: str, header, rows, caption) -> list[pathlib.Path]:
    """`stem.csv` and `stem.md`."""
    csv_path, md_path = out / f"{stem}.csv", out / f"{stem}.md"
    csv_path.write_text(tables.to_csv(header, rows))
    md_path.write_text(tables.to_markdown(header, rows, caption))
    return [csv_path, md_path]


def chart_title(saved: SavedResult, game: pyspiel.Game) -> str:
    """Game, parameters and the exploitability of the strategy shown (of a node-locked
    result: which player is locked, to what, and where)."""
    title = (f"{game_title(game)} — {saved.summary['algorithm']}, "
             f"exploitability {saved.summary['exploitability']:.2g} points per hand")
    lock = saved.summary.get("lock")
    if lock is None:
        return title
    where = (f"in {', '.join(lock['contexts'])}" if lock.get("contexts") else "everywhere")
    return (f"{title}\nnode-locked: player {lock['player']} plays {lock['spec']} {where}; "
            f"player {lock['responder']} gains {lock['value_gained']:+.3f} points per hand")


def write_charts(saved: list[SavedResult], out: pathlib.Path, kind: str) -> list[pathlib.Path]:
    """Everything `tricksolver chart --kind kind` draws; returns the files written."""
    out = pathlib.Path(out)
    paths = []
    if kind in ("curve", "all"):
        paths += plot_curves(saved, out)
    if kind == "curve":
        return paths
    game = load_game(saved[0].game_string)
    if kind == "all" and not contexts.is_le_truc(game):
        return paths
    result = analysis.analyze(game, saved[0].policy)
    title = chart_title(saved[0], game)
    if kind in ("strategy", "all"):
        _remove_old(out, "strategy-*")
        for table in reached_contexts(result):
            paths += plot_strategy_grid(table, title, out)
    if kind in ("bluff", "all"):
        paths += plot_bluffing(result, title, out)
    if kind in ("tables", "all"):
        _remove_old(out / "tables", "strategy-*")
        paths += write_tables(result, title, out / "tables")
    return paths


def _remove_old(directory: pathlib.Path, pattern: str) -> None:
    """Delete earlier per-context outputs (the set of contexts drawn can change)."""
    for extension in FORMATS + ("csv", "md"):
        for path in directory.glob(f"{pattern}.{extension}"):
            path.unlink()


def plot_part_curves(directory: pathlib.Path, game: pyspiel.Game,
                     out: pathlib.Path) -> list[pathlib.Path]:
    """Exploitability vs iterations and vs seconds of a game solved vira class by vira class:
    the whole game's (weighted sum, DIR/curve.csv, once every class is solved) and each solved
    class's, log-log."""
    directory = pathlib.Path(directory)
    combined = read_curve(directory / "curve.csv") if (directory / "curve.csv").exists() else []
    # the whole game's curve has a point where every class evaluated: none if they did so by time
    lines = [("whole game (weighted sum)", combined if len(combined) > 1 else [])]
    for part in truco_analysis.public_parts(game):
        curve = part_directory(directory, part) / "curve.csv"
        if curve.exists():  # a class not solved yet has none
            lines.append((part.label, read_curve(curve)))
    figure, axes = plt.subplots(1, 2, figsize=(11, 4.5), sharey=True)
    for index, (label, curve) in enumerate(lines):
        rows = np.array([row for row in curve if row[0] > 0 and row[2] > 0])
        if rows.size == 0:
            continue
        style = {"color": "black", "linewidth": 2.0} if index == 0 else {
            "color": LINE_COLOURS[(index - 1) % (len(LINE_COLOURS) - 1)], "linewidth": 0.9,
            "alpha": 0.8}
        text = f"{label} ({rows[-1, 2]:.2g} after {int(rows[-1, 0])} it)"
        axes[0].loglog(rows[:, 0], rows[:, 2], label=text, **style)
        axes[1].loglog(rows[:, 1], rows[:, 2], label=text, **style)
    axes[0].set_xlabel("iterations")
    axes[1].set_xlabel("seconds (the whole game's: summed over the vira classes)"
                       if lines[0][1] else "seconds")
    axes[0].set_ylabel("exploitability (points per hand)")
    for axis in axes:
        axis.grid(True, which="both", alpha=0.3)
        axis.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    axes[0].legend(fontsize=7)
    figure.suptitle(f"{game_title(game)}: exploitability of the average strategy (NashConv / 2)"
                    f", solved per vira class")
    return _save(figure, out, "curves")


def write_truco_charts(directory: pathlib.Path, out: pathlib.Path, kind: str = "all",
                       parts: list | None = None, labels: list[str] | None = None
                       ) -> list[pathlib.Path]:
    """Everything drawn for a two-player Truco result directory (`tricksolver solve GAME
    --engine public --out DIR`: DIR/summary.json and one DIR/vira_X/ per vira class): curves,
    then per vira class `out/vira_X/` strategy grids, bluffing chart and tables, then
    `out/tables/` with every vira class in one table per context and the deal table. `kind`
    as `tricksolver chart --kind`: "curve", "strategy", "bluff", "tables" or "all"; `parts`:
    the directory's `solver.analysis.truco.truco_rows` if already computed; `labels`: draw
    only these vira classes (e.g. ["vira K"]: a class's analysis rebuilds its tree, minutes
    at full size), and the whole-game tables only if they are every class. Returns the files
    written (ValueError for a result of another game or an unknown kind)."""
    if kind not in ("curve", "strategy", "bluff", "tables", "all"):
        raise ValueError(f"kind={kind!r}: use curve, strategy, bluff, tables or all")
    directory, out = pathlib.Path(directory), pathlib.Path(out)
    summary = read_summary(directory)
    game = load_game(summary["game"])
    if not truco_analysis.is_truco(game):
        raise ValueError(f"write_truco_charts draws python_truco_paulista and python_trucomano "
                         f"results; {directory} holds {summary['game']}")
    paths = plot_part_curves(directory, game, out) if kind in ("curve", "all") else []
    if kind == "curve":
        return paths
    parts = parts if parts is not None else truco_analysis.truco_rows(game, directory, labels)
    algorithm = summary.get("algorithm") or "dcfr"
    for rows, (label, result) in zip(parts, truco_analysis.analyze_truco_parts(
            game, directory, parts).items()):
        sub = part_directory(out, rows.part)
        title = (f"{game_title(game)}, {label} — {algorithm}, exploitability "
                 f"{rows.exploitability:.2g} points per hand")
        if kind in ("strategy", "all"):
            _remove_old(sub, "strategy-*")
            for table in reached_contexts(result):
                paths += plot_strategy_grid(table, title, sub)
        if kind in ("bluff", "all"):
            paths += plot_bluffing(result, title, sub)
        if kind in ("tables", "all"):
            _remove_old(sub / "tables", "strategy-*")
            paths += write_tables(result, title, sub / "tables")
    if kind not in ("tables", "all") or len(parts) < len(public_parts(game)):
        return paths
    exploitability = summary.get("exploitability")
    title = (f"{game_title(game)} — {algorithm}, exploitability "
             + (f"{exploitability:.2g} points per hand" if exploitability is not None
                else "(not every vira class solved)"))
    _remove_old(out / "tables", "strategy-*")
    paths += write_tables(truco_analysis.analyze_truco(game, directory, parts), title,
                          out / "tables")
    header, rows = truco_analysis.deal_table(game, parts)
    paths += _write_pair(out / "tables", "deals", header, rows,
                         f"**Deals** — {title}. Every vira and hand, with its probability of "
                         f"being dealt and each seat's equilibrium EV at the deal (points per "
                         f"hand); sorted by the mão's EV.")
    return paths
