"""Collects the duplicate-match JSON files of this folder into matches.md.

Run from the repository root: `.venv/bin/python results/two_ten_jack/summarize_matches.py`.
Runs split in parts (`*_partN.json`, different seeds, same bots) are pooled: the mean and the
95% confidence interval (mean ± 1.96 standard errors) are recomputed over all their deals.
"""
import json
import math
import pathlib
import re
from collections import defaultdict

import numpy as np

OUT = pathlib.Path(__file__).parent
Z_95 = 1.959963984540054


def pooled(records: list[dict]) -> dict:
    """One row from one or more runs of the same pairing."""
    points = np.concatenate([r["deal_points"] for r in records])
    mean = float(points.mean())
    half = Z_95 * float(points.std(ddof=1)) / math.sqrt(len(points))
    return {"bot_a": records[0]["bot_a"], "bot_b": records[0]["bot_b"], "deals": len(points),
            "mean": mean, "ci_low": mean - half, "ci_high": mean + half,
            "commands": [r["command"] for r in records], "game": records[0]["game"]}


def main():
    """Reads every match_*.json, pools parts and writes matches.md."""
    groups = defaultdict(list)
    for path in sorted(OUT.glob("match_*.json")):
        groups[re.sub(r"_part\d+$", "", path.stem)].append(json.loads(path.read_text()))
    rows = [pooled(records) for _, records in sorted(groups.items())]
    lines = ["# Two-Ten-Jack duplicate matches", "",
             "Each deal is played twice with the seats swapped; the figure is bot A's points per "
             "deal (mean over both seats), 95% confidence interval = mean ± 1.96 s.e.", "",
             f"Game: `{rows[0]['game']}`.", "",
             "| bot A | bot B | deals | mean points per deal for A | 95% CI | command(s) |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        commands = "<br>".join(f"`{c}`" for c in r["commands"])
        lines.append(f"| {r['bot_a']} | {r['bot_b']} | {r['deals']} | {r['mean']:+.3f} "
                     f"| [{r['ci_low']:+.3f}, {r['ci_high']:+.3f}] | {commands} |")
    lines += ["", "Summarised by `.venv/bin/python results/two_ten_jack/summarize_matches.py`."]
    (OUT / "matches.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
