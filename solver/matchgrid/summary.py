"""The match's summary.json: per-state figures, totals, the symmetry check, and how each
figure was obtained (see `solver.matchgrid.store` for the files)."""
from __future__ import annotations

from solver import results
from solver.matchgrid.states import MatchSpec, ScoreState

AT_A_GLANCE = ((0, 0), (11, 11), (10, 7), (7, 10))

HOW = {
    "p0_win": "player 0's probability of winning the match from the state, before the hand: "
              "the midpoint of the best-response bracket of the state's hand game whose "
              "terminal utility for player 0 is 2*V(next state) - 1 (+1 / -1 where a score "
              "reaches the target), V(next) from the states solved before it",
    "exploitability": "half the bracket (NashConv / 2 of the average strategy in the hand "
                      "game with those utilities), in match-win probability: the value of "
                      "that hand game is within it of p0_win",
    "error_bound": "a bound on |p0_win - the exact match value|: the state's exploitability "
                   "plus the largest error bound of the states its hand reaches, and for two "
                   "dealers linked by void hands the fixed point's residual, through the "
                   "largest probability of a void hand (solver/matchgrid/fixed_point.py)",
    "fixed_point_residual": "void hands swap the dealer and keep the scores: both dealers at "
                            "a score are iterated (Gauss-Seidel) until the value re-solved "
                            "last moves by at most the tolerance; its last move (0: no void "
                            "hand links the two)",
    "iterations": "CFR iterations of the state's hand game, summed over the fixed point's "
                  "rounds (each round warm-started from the last)",
    "seconds": "CFR seconds of the state (iterations and evaluations), summed over rounds",
    "position_seconds": "wall seconds of the state's position (both dealers: compiling, "
                        "every round, brackets, bounds, names); the totals count each "
                        "position once",
    "complete": "whether every state of the match (or of the rows from from_score) is "
                "solved: false while a run is in progress or after it was stopped, the table "
                "then holding the states solved so far (states of states_of_match; "
                "--resume continues it)",
    "wall_seconds_of_last_run": "wall seconds of the run that wrote this file, up to the "
                                "write: a run rewrites the file when it has read the saved "
                                "states (a resumed run then shows seconds, not its solving "
                                "time) and after every position",
    "from_score": "where set, only the states where a player has at least that many points "
                  "are solved (their hands reach no other state); the table holds those",
    "symmetry": "max over states of |V(a, b, d) - (1 - V(b, a, 1 - d))|: zero for a game "
                "whose two seats play by the same rules, up to the error bounds; with "
                "seat_symmetry the states with score0 < score1 are the mirror images of the "
                "solved ones (mirror_of in their summary.json, no CFR), so it checks the "
                "diagonal's two dealers only",
}


def match_summary(spec: MatchSpec, records: dict[ScoreState, dict], run: dict,
                  wall_seconds: float, workers: str, commit: str | None) -> dict:
    """The summary.json of a match solve: of the states solved so far (`records`), complete
    once they are all of `spec`'s."""
    states = sorted(records)
    values = {state: records[state]["p0_win"] for state in states}
    glance = {state.label: round(values[state], 6)
              for a, b in AT_A_GLANCE for state in (ScoreState(a, b, 0), ScoreState(a, b, 1))
              if state in values}
    return {
        "game": spec.game,
        "game_short_name": spec.short_name,
        "objective": "match",
        "target": spec.target,
        **{key: value for key, value in run.items() if key != "match_game"},
        **({"from_score": spec.from_score} if spec.from_score else {}),
        "states": len(states),
        "states_of_match": len(spec.states()),
        "complete": len(states) == len(spec.states()),
        "at_a_glance": glance,
        "totals": {
            "solve_seconds": sum(r["seconds"] for r in records.values()),
            "compile_seconds": sum(r["compile_seconds"] for r in records.values()),
            "position_seconds": sum(r["position_seconds"] for r in records.values()) / 2,
            "iterations": sum(r["iterations"] for r in records.values()),
            "max_exploitability": max(r["exploitability"] for r in records.values()),
            "max_error_bound": max(r["error_bound"] for r in records.values()),
            "max_fixed_point_residual": max(r["fixed_point_residual"]
                                            for r in records.values()),
            "max_fixed_point_rounds": max(r["fixed_point_rounds"] for r in records.values()),
            "symmetry": symmetry_deviation(values),
            "wall_seconds_of_last_run": wall_seconds,
            "execution_of_last_run": workers,
        },
        "how": HOW,
        "per_state": {state.label: {key: records[state][key] for key in (
            "p0_win", "p0_win_bracket", "exploitability", "error_bound", "iterations",
            "seconds", "compile_seconds", "position_seconds", "fixed_point_rounds",
            "fixed_point_residual")}
            for state in states},
        "versions": results.package_versions(),
        "git_commit": commit,
    }


def symmetry_deviation(values: dict[ScoreState, float]) -> float:
    """max |V(a, b, d) - (1 - V(b, a, 1 - d))| over the states."""
    return max((abs(v - (1.0 - values[s.mirrored()])) for s, v in values.items()
                if s.mirrored() in values), default=0.0)


def format_summary(summary: dict, directory) -> str:
    """What solve-match prints when it is done."""
    totals = summary["totals"]
    glance = "  ".join(f"V({label})={value:.4f}"
                       for label, value in summary["at_a_glance"].items())
    return "\n".join([
        f"game            {summary['game']}",
        f"states          {summary['states']} (target {summary['target']}"
        + (f", from score {summary['from_score']}" if summary.get("from_score") else "")
        + "), "
        f"{totals['iterations']} {summary['algorithm']} iterations; "
        f"{totals['position_seconds']:.1f} s in all ({totals['solve_seconds']:.1f} s CFR, "
        f"{totals['compile_seconds']:.1f} s compile); this run "
        f"{totals['wall_seconds_of_last_run']:.1f} s wall, {totals['execution_of_last_run']}",
        f"exploitability  at most {totals['max_exploitability']:.3g} per state; error bound "
        f"at most {totals['max_error_bound']:.3g} (match-win probability)",
        f"fixed point     residual at most {totals['max_fixed_point_residual']:.3g} "
        f"({totals['max_fixed_point_rounds']} rounds at most); symmetry "
        f"{totals['symmetry']:.3g}",
        f"p0 wins         {glance}",
        f"saved           {directory}/  (match_values.csv, summary.json, states/, charts/)"])
