"""`tricksolver play`: a person plays a whole match in the terminal against a bot or a saved
solution (`solver.play.human`)."""
from __future__ import annotations

import pathlib
import sys

from solver.cli.games import load_game_checked
from solver.cli.help import HelpFormatter
from solver.play.human import Opponent, play_match
from solver.play.strategy import ISOMORPHIC_VIEWS, Solution


def add_parser(subparsers) -> None:
    """Register `play`."""
    parser = subparsers.add_parser(
        "play", help="play a match in the terminal against a solution or a bot",
        description="Play a whole match (to the game's target, the dealer alternating) "
        "against SPEC: a result directory (its average policy; a solution of the isomorphic "
        "game plays the concrete one) or a bot spec (random, heuristic, ...). Type a number or "
        "an action's name at each decision. --hint shows the solution's frequencies and each "
        "action's EV at your decisions; after each hand a review sets your decisions beside "
        "the solution's. Reads one line per decision, also from a pipe; the last line printed "
        "starts 'Final score:'.",
        epilog="examples:\n  tricksolver play python_le_truc --against results/le_truc/full "
        "--hint\n  tricksolver play 'python_le_truc(num_ranks=4,hand_size=2)' --against "
        "results/le_truc/small --seat 1\n  tricksolver play python_truco_paulista --against "
        "heuristic",
        formatter_class=HelpFormatter)
    parser.add_argument("game", metavar="GAME", help="game string, e.g. python_le_truc")
    parser.add_argument("--against", metavar="SPEC", required=True,
                        help="a result directory, or a bot spec (random, heuristic, ...)")
    parser.add_argument("--seat", type=int, choices=(0, 1), default=0,
                        help="your seat (default 0; seat 1 deals the first hand by default)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the cards and the "
                        "opponent's choices (default 0)")
    parser.add_argument("--hint", action="store_true",
                        help="show the solution's advice at each of your decisions")
    parser.set_defaults(func=run)


def run(args) -> int:
    """Play the match on stdin/stdout."""
    game = load_game_checked(args.game)
    name = game.get_type().short_name
    if name not in ISOMORPHIC_VIEWS or game.num_players() != 2:
        raise ValueError(f"play takes a two-player {', '.join(ISOMORPHIC_VIEWS)} game, "
                         f"not {args.game}")
    solution = None
    if pathlib.Path(args.against).is_dir():
        solution = Solution(args.against, game, other_scores=True)
    elif args.hint:
        raise ValueError("--hint needs a solution to take advice from: --against DIR")
    opponent = Opponent(args.against, game, solution, args.seed)

    def read_line() -> str | None:
        print("> ", end="", flush=True)
        line = sys.stdin.readline()
        if not sys.stdin.isatty():  # piped: show what was read, as a terminal would
            print(line.rstrip("\n"))
        return line or None

    play_match(game, opponent, args.seat, args.seed, args.hint, read_line, print)
    return 0
