"""`solve --lock PLAYER=SPEC [--lock-contexts NAME,...]`: node-locking (`solver.history.lock`).

SPEC is the locked player's strategy: `random` (the uniform policy), `heuristic` (the bot of
`solver.play.bots.make_bot`, asked once per information state) or a result directory (its
saved strategy: a history-engine solution of this very game read directly, any other solution
of Le Truc or Truco through `solver.play.strategy.Solution`, which also maps an isomorphic
solution onto the concrete game). Without `--lock-contexts` every decision of the player is
locked and the other player's exact best response is computed; with it, only his decisions in
those analysis contexts (`solver.analysis.contexts`, the keys of `tricksolver chart`; Le Truc)
are, and the rest of both strategies is re-solved by CFR with the stopping rules given.

The value gained is measured against the game's equilibrium value, which the same run
computes first by solving the unrestricted game with the same algorithm and stopping rules
(so one command is self-contained, and the error of both values is known): each value is the
midpoint of a best-response bracket, within its exploitability (`solver.history.lock`).
summary.json's `lock` record holds the figures and says how they were obtained.
"""
from __future__ import annotations

import argparse
import pathlib
import sys

import numpy as np
from open_spiel.python import policy as openspiel_policy

from solver import results
from solver.cli.games import game_string_from, load_game_checked
from solver.cli.solve import (
    DEFAULT_ITERATIONS,
    HISTORY_LIMIT,
    ProgressBar,
    _named_policy,
    _run_settings,
    history_tree_size,
    run_solve,
    stop_reason,
)
from solver.history.cfr import solve
from solver.history.lock import (
    FULL_LOCK,
    LockedSolve,
    make_lock,
    seat_value,
    solve_locked,
    value_bracket,
)
from solver.history.policy import AveragePolicy, policy_array, uniform_policy_array
from solver.history.tree import compile_game

BOT_SPECS = ("random", "heuristic")


def lock_argument(text: str) -> tuple[int, str]:
    """argparse type of --lock: `PLAYER=SPEC` -> (player, spec)."""
    player, sep, spec = text.partition("=")
    if not sep or player.strip() not in ("0", "1") or not spec.strip():
        raise argparse.ArgumentTypeError(
            f"{text!r}: write PLAYER=SPEC, PLAYER 0 or 1, SPEC random, heuristic or a result "
            f"directory")
    return int(player), spec.strip()


def add_arguments(parser) -> None:
    """The lock options of `solve`."""
    group = parser.add_argument_group(
        "node-locking", "fix one player's strategy and solve the other's answer (history "
        "engine; method: solver/history/lock.py)")
    group.add_argument("--lock", type=lock_argument, metavar="PLAYER=SPEC",
                       help="fix player PLAYER's strategy to SPEC (random, heuristic or a "
                       "result directory) and compute the other player's exact best response; "
                       "the summary gives the value he gains over the equilibrium (solved in "
                       "the same run, same stopping rules)")
    group.add_argument("--lock-contexts", metavar="NAME[,NAME...]",
                       help="with --lock, Le Truc: lock only the decisions of these analysis "
                       "contexts (e.g. open, follow_1, dealer_answer_raise_2: the keys of "
                       "'tricksolver chart'); the rest of both strategies is re-solved")


def add_parser(subparsers) -> None:
    """Extend the `solve` parser (registered by `solver.cli.solve` just before) with the lock
    options, and route `solve` through `run_solve_or_lock`: `solver.cli.solve` stays unaware
    of locking (this module imports it, not the other way round)."""
    parser = subparsers.choices["solve"]
    add_arguments(parser)
    parser.set_defaults(func=run_solve_or_lock)


def run_solve_or_lock(args) -> int:
    """`tricksolver solve`: `run_lock` with --lock, else `solver.cli.solve.run_solve`."""
    check_arguments(args)
    if args.lock is None:
        return run_solve(args)
    game = load_game_checked(game_string_from(args.game, args.param))
    if args.iterations is None and args.target is None and args.time_limit is None:
        args.iterations = DEFAULT_ITERATIONS
    return run_lock(args, game)


def check_arguments(args) -> None:
    """ValueError for lock options that do not go together (before anything is computed)."""
    if args.lock is None:
        if args.lock_contexts is not None:
            raise ValueError("--lock-contexts needs --lock PLAYER=SPEC")
        return
    if args.lock_contexts is not None and not _context_names(args.lock_contexts):
        raise ValueError("--lock-contexts names no context: give NAME[,NAME...], e.g. open")
    given = [option for option, used in (("--resume", args.resume), ("--part", args.part),
                                         ("--engine public", args.engine == "public")) if used]
    if given:
        raise ValueError(f"--lock runs on the history engine without checkpoints: drop "
                         f"{', '.join(given)}")
    player, spec = args.lock
    if spec not in BOT_SPECS and not pathlib.Path(spec).is_dir():
        raise ValueError(f"--lock {player}={spec}: SPEC is random, heuristic or a result "
                         f"directory, and there is no directory {spec!r}")


def run_lock(args, game) -> int:
    """`tricksolver solve GAME --lock PLAYER=SPEC`: solve, save, print."""
    histories, how = history_tree_size(game)
    if histories > HISTORY_LIMIT:
        raise ValueError(f"{game} has {how}{histories:.2g} histories, too many for the history "
                         f"tree that node-locking runs on (limit {HISTORY_LIMIT:.0e}): lock a "
                         f"smaller variant")
    player, spec = args.lock
    directory = args.out if args.out is not None else default_lock_dir(game, args)
    commit = results.git_commit()
    tree = compile_game(game, cache=not args.no_cache)
    contexts = _context_names(args.lock_contexts)
    rows = context_rows(game, tree, player, contexts) if contexts else None
    lock = make_lock(tree, player, spec_policy(game, tree, player, spec, args.seed), rows)
    results.mark_unfinished(directory)
    print("[1/2] the game's equilibrium (the reference value)", file=sys.stderr)
    equilibrium = _with_bar(args, lambda **hooks: solve(game, tree=tree, **_settings(args),
                                                         **hooks))
    if lock.is_full(tree):
        print("[2/2] the best response (exact)", file=sys.stderr)
        locked = solve_locked(game, lock, tree, seed=args.seed)
    else:
        print("[2/2] the locked game (the unlocked rows re-solved)", file=sys.stderr)
        locked = _with_bar(args, lambda **hooks: solve_locked(game, lock, tree,
                                                              **_settings(args), **hooks))
    summary = results.build_summary(locked.result, str(game), _run_record(args, locked),
                                    commit)
    summary["lock"] = lock_record(tree, locked, spec, contexts, equilibrium)
    results.save_result(directory, _named_policy(game, locked.result.average_policy),
                        locked.result.curve, summary)
    (directory / results.CHECKPOINT_FILE).unlink(missing_ok=True)  # an earlier solve's
    print(format_lock_summary(summary, directory))
    return 0


def default_lock_dir(game, args) -> pathlib.Path:
    """`runs/<game>/<params-hash>_lock<P>_<spec>[_<contexts>]/`: beside the game's solve."""
    player, spec = args.lock
    name = spec if spec in BOT_SPECS else pathlib.Path(spec).resolve().name
    contexts = "_" + "-".join(_context_names(args.lock_contexts)) if args.lock_contexts else ""
    base = results.default_result_dir(str(game))
    return base.with_name(f"{base.name}_lock{player}_{name}{contexts}")


def _context_names(text: str | None) -> list[str]:
    """`open, follow_1` -> ["open", "follow_1"]."""
    return [name.strip() for name in text.split(",") if name.strip()] if text else []


def context_rows(game, tree, player: int, names: list[str]) -> np.ndarray:
    """bool [num_infosets]: `player`'s information states in the analysis contexts `names`
    (Le Truc; ValueError naming the contexts he has, for a name he has none of)."""
    from solver.analysis.contexts import Parser, context_order, is_le_truc

    if not is_le_truc(game):
        raise ValueError(f"--lock-contexts: decision contexts are defined for python_le_truc, "
                         f"not {game.get_type().short_name}; lock every decision with --lock "
                         f"alone")
    parser, own = Parser(game), np.flatnonzero(tree.infoset_player == player)
    context = {int(i): parser.parse(tree.info_state_string(int(i), game)).context for i in own}
    available = sorted({key for key in context.values() if key is not None}, key=context_order)
    unknown = [name for name in names if name not in available]
    if unknown:
        raise ValueError(f"--lock-contexts: player {player} has no decision in context "
                         f"{', '.join(unknown)}; his contexts: {', '.join(available)}")
    rows = np.zeros(tree.num_infosets, dtype=bool)
    rows[[i for i, key in context.items() if key in names]] = True
    return rows


def spec_policy(game, tree, player: int, spec: str, seed: int) -> np.ndarray:
    """SPEC's probabilities on `tree` (float64 [num_infoset_actions]; read on `player`'s
    rows): see the module docstring."""
    if spec == "random":
        return uniform_policy_array(tree)
    if spec not in BOT_SPECS:
        solved = results.base_game_string(results.read_summary(spec)["game"])
        if results.game_short_name(solved) != game.get_type().short_name:
            raise ValueError(f"--lock {player}={spec}: a solution of {solved}, not of {game}")
        saved = None if results.is_combined(spec) else results.load_result(spec)
        if saved is not None and isinstance(saved.policy, AveragePolicy) \
                and saved.game_string == str(game):
            return policy_array(tree, saved.policy, game)
        spec = f"strategy:{spec}"
    from solver.play.bots import BotPolicy, make_bot

    seat = _SeatPolicy(game, BotPolicy(game, make_bot(spec, game, seed)), player)
    return policy_array(tree, seat, game)


class _SeatPolicy(openspiel_policy.Policy):
    """`policy` at `player`'s decisions, uniform at the other's (not asked: the lock does not
    read them)."""

    def __init__(self, game, policy, player: int):
        super().__init__(game, [0, 1])
        self.policy, self.player = policy, player

    def action_probabilities(self, state, player_id=None) -> dict[int, float]:
        if state.current_player() == self.player:
            return self.policy.action_probabilities(state)
        legal = state.legal_actions()
        return {action: 1.0 / len(legal) for action in legal}


def _settings(args) -> dict:
    """The solve settings both solves share."""
    return {"algorithm": args.algorithm, "iterations": args.iterations,
            "target_exploitability": args.target, "time_limit": args.time_limit,
            "eval_every": args.eval_every, "progress": False, "seed": args.seed,
            "alpha": args.alpha, "beta": args.beta, "gamma": args.gamma}


def _with_bar(args, run):
    """`run(**hooks)` with a progress bar on stderr."""
    bar = ProgressBar(args, 0, 0.0, not args.quiet)
    hooks = {"on_progress": bar.update, "on_iteration": bar.advance, "on_phase": bar.phase}
    try:
        return run(**hooks)
    finally:
        bar.close()


def _run_record(args, locked: LockedSolve) -> dict:
    """summary.json's run settings (the locked game's solve; a full lock iterates nothing)."""
    full = locked.result.algorithm == FULL_LOCK
    return {**_run_settings(args), "algorithm": locked.result.algorithm, "engine": "history",
            "stopping": {"iterations": args.iterations, "target": args.target,
                         "time_limit": args.time_limit},
            "stopped_by": "exact" if full else stop_reason(args, locked.result),
            "eval_every": args.eval_every if args.eval_every is not None else "by time",
            "seed": args.seed, "resumed_from_iteration": None}


def lock_record(tree, locked: LockedSolve, spec: str, contexts: list[str],
                equilibrium) -> dict:
    """summary.json's `lock` record: who is locked to what, the value his answer gets, the
    equilibrium's, the value gained, their error bounds, and how each was obtained."""
    lock, responder = locked.lock, locked.responder
    full = locked.result.algorithm == FULL_LOCK
    bracket = value_bracket(tree, equilibrium.average_policy.probabilities)
    equilibrium_value = seat_value(bracket, responder)
    equilibrium_error = (bracket[1] - bracket[0]) / 2
    responder_error = 0.0 if full else locked.restricted_exploitability
    answer = (f"player {responder}'s exact best response to the locked strategy" if full else
              f"the locked rows fixed, the rest of both strategies re-solved by "
              f"{locked.result.algorithm} ({locked.result.iterations} iterations): "
              f"responder_value is the midpoint of the restricted game's best-response bracket, "
              f"within its exploitability (restricted_exploitability)")
    return {
        "player": lock.player, "spec": spec, "contexts": contexts or None,
        "locked_information_states": int(np.count_nonzero(lock.rows)),
        "player_information_states": int(np.count_nonzero(tree.infoset_player == lock.player)),
        "responder": responder,
        "responder_value": locked.responder_value,
        "responder_value_error": responder_error,
        "restricted_exploitability": locked.restricted_exploitability,
        "equilibrium_value": equilibrium_value,
        "equilibrium_value_error": equilibrium_error,
        "value_gained": locked.responder_value - equilibrium_value,
        "value_gained_error": responder_error + equilibrium_error,
        "method": f"{answer}. equilibrium_value: the unrestricted game solved in this run by "
                  f"{equilibrium.algorithm} with the same stopping rules ("
                  f"{equilibrium.iterations} iterations, exploitability "
                  f"{equilibrium.exploitability:.3g}), the midpoint of its best-response "
                  f"bracket [-BR_1, BR_0], within equilibrium_value_error; values in points "
                  f"per hand for the responder's seat. exploitability (top level): the saved "
                  f"profile's in the whole game; curve.csv: the locked game's exploitability "
                  f"in the restricted game.",
    }


def format_lock_summary(summary: dict, directory: pathlib.Path) -> str:
    """What `solve --lock` prints when it is done."""
    lock = summary["lock"]
    player, responder = lock["player"], lock["responder"]
    where = (f"all {lock['player_information_states']} of his information states"
             if lock["contexts"] is None else
             f"contexts {', '.join(lock['contexts'])} ({lock['locked_information_states']} of "
             f"his {lock['player_information_states']} information states; the rest "
             f"re-solved, {summary['iterations']} iterations)")
    how = ("best response" if lock["contexts"] is None else "locked game  ")
    within = ("exact" if lock["responder_value_error"] == 0.0 else
              f"within {lock['responder_value_error']:.2g}")
    return (f"game            {summary['game']}\n"
            f"lock            player {player} plays {lock['spec']} at {where}\n"
            f"{how}   player {responder} gets {lock['responder_value']:+.6f} points per "
            f"hand ({within})\n"
            f"equilibrium     player {responder} gets {lock['equilibrium_value']:+.6f} "
            f"(within {lock['equilibrium_value_error']:.2g})\n"
            f"value gained    {lock['value_gained']:+.6f} points per hand for player "
            f"{responder} (within {lock['value_gained_error']:.2g}): what the lock costs "
            f"player {player}\n"
            f"exploitability  {summary['exploitability']:.6g} points per hand (the saved "
            f"profile, in the whole game)\n"
            f"saved           {directory}/  (strategy.npz, curve.csv, summary.json)")
