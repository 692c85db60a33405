"""Which games the public-tree engine takes, and the sub-games it solves them as
(`games.tricks.PublicGame`: Le Truc's card play, one per vira class of two-player Truco)."""
from __future__ import annotations

from games import le_truc, truco
from games.tricks import PublicGame


def public_parts(game) -> list[PublicGame]:
    """The sub-games of `game` the engine solves one by one (ValueError, in one line, if it
    cannot take the game)."""
    name = game.get_type().short_name
    rules = getattr(game, "rules", None)
    if name == "python_le_truc":
        if not rules.isomorphic:
            raise ValueError("the public-tree engine solves the isomorphic game (suits dropped, "
                             "strategically the same): add isomorphic=true")
        if rules.max_redeals >= 2 and rules.redeal_possible(1):
            raise ValueError(f"the public-tree engine handles at most one redeal (max_redeals="
                             f"{rules.max_redeals} allows two here); use max_redeals=1")
        return [le_truc.PlayGame(rules)]
    if name in ("python_truco_paulista", "python_trucomano"):
        if rules.num_players != 2:
            raise ValueError("the public-tree engine solves two-player Truco; the 4-player "
                             "partnership game is a team game (not solved here)")
        if not rules.isomorphic:
            raise ValueError("the public-tree engine solves the isomorphic game (suits of "
                             "commons dropped, strategically the same): add isomorphic=true")
        if rules.blind:
            raise ValueError("the blind iron hand has no private information (nobody sees a "
                             "card): solve it with --engine history")
        return truco.vira_games(rules)
    raise ValueError(f"the public-tree engine solves python_le_truc, python_truco_paulista and "
                     f"python_trucomano, not {game}")


def part_named(game, label: str | None) -> PublicGame:
    """The sub-game of `game` with this label (the only one if None)."""
    parts = public_parts(game)
    if label is None:
        if len(parts) != 1:
            raise ValueError(f"{game} has {len(parts)} sub-games; name one of: "
                             + ", ".join(part.label for part in parts))
        return parts[0]
    for part in parts:
        if part.label == label:
            return part
    raise ValueError(f"{game} has no sub-game {label!r}; its sub-games: "
                     + ", ".join(part.label or "(one)" for part in parts))


def first_twin(parts: list[PublicGame], part: PublicGame) -> PublicGame:
    """The first of `parts` that is the same game as `part` (`PublicGame.identity`): `part`
    itself unless an earlier sub-game is it under other names."""
    return next(other for other in parts if other.identity() == part.identity())
