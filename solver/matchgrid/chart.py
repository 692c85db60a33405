"""The match-win heat map: player 0's probability of winning the match before a hand, over
the score grid, one panel per dealer (PNG and SVG, matplotlib Agg, like `solver.analysis.
charts`). A diverging colour map centred on 1/2 (ColorBrewer RdBu, colour-blind safe):
blue where player 0 is ahead in the match, red where he is behind; every cell carries its
value."""
from __future__ import annotations

import pathlib

import numpy as np

from solver.analysis.charts import _save, game_title, plt
from solver.matchgrid.states import ScoreState
from solver.registry import load_game

STEM = "match_values"


def draw_score_grid(axis, values: dict[ScoreState, float], dealer: int, target: int,
                    cmap: str, text_colour, title: str):
    """One panel: `values` of the states with this dealer over the score grid (0..1), each
    cell labelled in percent (`text_colour(value)` picks its colour); returns the image."""
    grid = np.full((target, target), np.nan)
    for state, value in values.items():
        if state.dealer == dealer:
            grid[state.score1, state.score0] = value
    image = axis.imshow(grid, origin="lower", cmap=cmap, vmin=0.0, vmax=1.0)
    for score1, score0 in zip(*np.nonzero(~np.isnan(grid))):
        value = grid[score1, score0]
        axis.text(score0, score1, f"{100 * value:.0f}", ha="center", va="center",
                  fontsize=7 if target > 8 else 9, color=text_colour(value))
    axis.set_title(title, fontsize=10)
    axis.set_xlabel("player 0's score")
    axis.set_ylabel("player 1's score")
    axis.set_xticks(range(target))
    axis.set_yticks(range(target))
    return image


def percent_colour_bar(figure, image, axes, label: str) -> None:
    """A colour bar for 0..1 values, ticked in percent."""
    bar = figure.colorbar(image, ax=list(axes), shrink=0.8)
    bar.set_label(label)
    bar.set_ticks([0, 0.25, 0.5, 0.75, 1])
    bar.set_ticklabels(["0", "25", "50", "75", "100"])


def plot_match_values(values: dict[ScoreState, float], game_string: str, target: int,
                      out: pathlib.Path) -> list[pathlib.Path]:
    """Write `out`/match_values.png and .svg; return their paths."""
    size = 0.42 * target + 1.5
    figure, axes = plt.subplots(1, 2, figsize=(2 * size + 1.2, size), constrained_layout=True)
    image = None
    for dealer, axis in zip((1, 0), axes):
        seat = "player 0 deals" if dealer == 0 else "player 1 deals (player 0 leads)"
        image = draw_score_grid(axis, values, dealer, target, "RdBu",
                                lambda v: "white" if abs(v - 0.5) > 0.3 else "black",
                                f"dealer {dealer}: {seat}")
    percent_colour_bar(figure, image, axes, "P(player 0 wins the match), %")
    figure.suptitle(f"{game_title(load_game(game_string))}: match-win probability before a "
                    f"hand, in % (match to {target})", fontsize=11)
    return _save(figure, pathlib.Path(out), STEM)
