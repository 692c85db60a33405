"""Game-tree sizes of Two-Ten-Jack and its reduced variants; writes tree_sizes.json and .md.

Run from the repository root: `.venv/bin/python results/two_ten_jack/tree_sizes.py`.

No variant can be walked (every one has at least 16! chance sequences), so the figures are:
exact chance sequences (every card is dealt or drawn one at a time: num_cards! orders) and
Knuth's unbiased estimator of the numbers of histories and of terminal histories (D. E. Knuth,
"Estimating the efficiency of backtrack programs", 1975): random root-to-leaf walks, each node
counted with the product of the branching factors above it; mean and standard error over walks.
"""
import json
import math
import pathlib

import numpy as np
import pyspiel

import games  # noqa: F401  (registers the games)

VARIANTS = [
    "python_two_ten_jack",
    "python_two_ten_jack(ranks=2:T:J:A,hand_size=8)",
    "python_two_ten_jack(ranks=2:T:J:A,hand_size=3)",
    "python_two_ten_jack(ranks=2:T:J:A,hand_size=2)",
    "python_two_ten_jack(ranks=2:T:J:A,hand_size=1)",
]
WALKS = 2000
SEED = 2026
OUT = pathlib.Path(__file__).parent


def knuth_walk(game, rng) -> tuple[float, float]:
    """One random walk: (estimate of all histories, estimate of terminal histories)."""
    state = game.new_initial_state()
    weight, nodes = 1.0, 1.0
    while not state.is_terminal():
        actions = ([a for a, _ in state.chance_outcomes()] if state.is_chance_node()
                   else state.legal_actions())
        weight *= len(actions)
        nodes += weight
        state.apply_action(int(rng.choice(actions)))
    return nodes, weight


def measure(game_string: str, rng) -> dict:
    """Sizes of one variant."""
    game = pyspiel.load_game(game_string)
    rules = game.rules
    walks = np.array([knuth_walk(game, rng) for _ in range(WALKS)])
    mean, sem = walks.mean(axis=0), walks.std(axis=0, ddof=1) / math.sqrt(WALKS)
    return {
        "game": str(game), "cards": rules.num_cards, "hand_size": rules.hand_size,
        "stock": rules.stock_size, "tricks": rules.num_tricks,
        "chance_sequences": math.factorial(rules.num_cards),
        "first_decision_infostates": math.comb(rules.num_cards, rules.hand_size),
        "histories_estimate": float(mean[0]), "histories_sem": float(sem[0]),
        "terminal_estimate": float(mean[1]), "terminal_sem": float(sem[1]),
    }


def main():
    """Measures every variant and writes the JSON and Markdown tables."""
    rng = np.random.default_rng(SEED)
    rows = [measure(v, rng) for v in VARIANTS]
    command = ".venv/bin/python results/two_ten_jack/tree_sizes.py"
    (OUT / "tree_sizes.json").write_text(json.dumps(
        {"command": command, "walks": WALKS, "seed": SEED, "variants": rows}, indent=1))
    lines = [
        "# Two-Ten-Jack tree sizes", "",
        f"Command: `{command}` ({WALKS} Knuth walks per variant, seed {SEED}).", "",
        "| game | cards | hand | stock | tricks | chance sequences (exact) "
        "| histories (estimate ± s.e.) | terminal histories (estimate ± s.e.) "
        "| player 0 infostates at the first lead |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| `{r['game']}` | {r['cards']} | {r['hand_size']} | {r['stock']} | {r['tricks']} "
            f"| {r['chance_sequences']:.3e} | {r['histories_estimate']:.2e} ± "
            f"{r['histories_sem']:.1e} | {r['terminal_estimate']:.2e} ± {r['terminal_sem']:.1e} "
            f"| {r['first_decision_infostates']} |")
    (OUT / "tree_sizes.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
