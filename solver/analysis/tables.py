"""Strategy tables (CSV and Markdown) from a `solver.analysis.Analysis`.

One table per decision context: a row per hand (strongest first, see `solver.analysis`) with
how often the context is reached, the hand's EV there, the frequency of each action and, where
the player can bet, the equity of a called bet and whether betting that hand is a value bet
or a bluff. The bluffing table gathers the betting contexts in one place.
"""
from __future__ import annotations

import csv
import io
import math

from solver.analysis.contexts import (INDIFFERENCE_TOLERANCE, RARE_REACH, ContextTable,
                                      hand_notes)

VALUE_THRESHOLD = 0.5  # a called bet with at least this equity is a value bet
MIN_BET_FREQUENCY = 0.0005  # bets made less often are listed as not made


def bet_class(equity: float) -> str:
    """`value`, `bluff`, or `-` when nobody ever calls."""
    if math.isnan(equity):
        return "-"
    return "value" if equity >= VALUE_THRESHOLD else "bluff"


def context_rows(table: ContextTable) -> tuple[list[str], list[list[str]]]:
    """Header and rows (formatted strings) of one context's table."""
    header = ["hand", "reached %", "EV"] + [f"{a} %" for a in table.actions]
    bets = list(table.equity)
    for bet in bets:
        header += [f"{bet} equity %", f"{bet} is"]
    if table.action_ev is not None:
        header += [f"EV if {a}" for a in table.actions]
    header.append("note")
    notes = hand_notes(table)
    rows = []
    for index, hand in enumerate(table.hands):
        row = [hand, _percent(table.reached[index]), f"{table.ev[index]:+.3f}"]
        row += [_percent(f) for f in table.frequency[index]]
        for bet in bets:
            equity = table.equity[bet][index]
            frequency = table.frequency[index][table.actions.index(bet)]
            made = frequency > MIN_BET_FREQUENCY
            row += [_percent(equity), bet_class(equity) if made else "-"]
        if table.action_ev is not None:
            row += ["-" if math.isnan(v) else f"{v:+.3f}" for v in table.action_ev[index]]
        row.append(notes[index] or "-")
        rows.append(row)
    return header, rows


def split_rows(table: ContextTable) -> tuple[list[str], list[list[str]]]:
    """Header and rows of a follower context per lead card (`ContextTable.splits`): the
    context's table once per lead, with a first column naming the lead."""
    header, rows = None, []
    for lead, split in table.splits.items():
        split_header, split_rows_ = context_rows(split)
        header = header or ["lead"] + split_header
        columns = {name: i for i, name in enumerate(split_header)}
        rows += [[lead] + [row[columns[name]] if name in columns else "-"
                           for name in header[1:]] for row in split_rows_]
    return header or ["lead"], rows


def _percent(value: float) -> str:
    """`12.3`, or `-` for NaN (action not available)."""
    return "-" if math.isnan(value) else f"{100 * value:.1f}"


def to_csv(header: list[str], rows: list[list[str]]) -> str:
    """CSV text."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def to_markdown(header: list[str], rows: list[list[str]], caption: str) -> str:
    """A Markdown table with a caption line above it (a `|` inside a cell is escaped: Truco's
    hands read `vira 7 | Qc 3`)."""
    lines = [caption, "", "| " + " | ".join(header) + " |",
             "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |"
              for row in rows]
    return "\n".join(lines) + "\n"


def seats(table: ContextTable) -> str:
    """`player 1`, or `players 0 and 1` where both seats act in the context."""
    if len(table.players) > 1:
        return "players " + " and ".join(map(str, table.players))
    return f"player {table.player}"


def context_caption(table: ContextTable, title: str) -> str:
    """Caption of one context's table."""
    return (f"**{table.title}** — {seats(table)}, {title}. Reached with probability "
            f"{100 * table.probability:.2f}% per hand. Hands sorted by player {table.player}'s "
            f"equilibrium EV at the deal (strongest first); EV in points per hand for the "
            f"acting player from this decision on; "
            f"equity = probability of winning the hand once the bet is called; EV if <action>: "
            f"the hand's EV when it takes that action there; note: indifferent (two or more "
            f"actions within {INDIFFERENCE_TOLERANCE:g} points of the best: the mix is not "
            f"advice) or rarely reached (below {100 * RARE_REACH:g}% with that hand).")


def bluff_rows(contexts: list[ContextTable]) -> tuple[list[str], list[list[str]]]:
    """The bluffing table: the contexts' bets per hand, value or bluff."""
    header = ["context", "hand", "bet", "frequency %", "equity when called %", "is"]
    rows = []
    for table in contexts:
        for bet, equities in table.equity.items():
            column = table.actions.index(bet)
            for index, hand in enumerate(table.hands):
                frequency = table.frequency[index][column]
                if frequency > MIN_BET_FREQUENCY:
                    rows.append([table.title, hand, bet, _percent(frequency),
                                 _percent(equities[index]), bet_class(equities[index])])
    return header, rows
