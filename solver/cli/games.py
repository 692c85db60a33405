"""Game arguments of the `tricksolver` commands: `GAME` plus `-p key=value` into one game
string, checked against the game's parameter specification before OpenSpiel sees it (OpenSpiel's
C++ side prints its own multi-line message before raising; a user gets one line instead)."""
from __future__ import annotations

import difflib

import pyspiel

from solver.registry import load_game


def game_string_from(name: str, params: list[str]) -> str:
    """`name(k=v,...)` from a game name or string plus `key=value` overrides."""
    base, _, inner = name.partition("(")
    pairs = [p for p in inner.rstrip(")").split(",") if p] if inner else []
    merged = dict(_split_param(p) for p in pairs)
    merged.update(_split_param(p) for p in params)
    if not merged:
        return base
    return base + "(" + ",".join(f"{k}={v}" for k, v in merged.items()) + ")"


def load_game_checked(game_string: str) -> pyspiel.Game:
    """`load_game`, after checking the name and parameters here: OpenSpiel's C++ side prints
    its own multi-line message to stderr before raising, which a one-line error must avoid."""
    import games  # noqa: F401  (registers the python_* games)

    name, _, inner = game_string.partition("(")
    game_type = {t.short_name: t for t in pyspiel.registered_games()}.get(name)
    if game_type is None:
        close = difflib.get_close_matches(name, pyspiel.registered_names(), n=3)
        hint = f"did you mean {' or '.join(close)}?" if close else "Le Truc is python_le_truc"
        raise ValueError(f"unknown game {name!r}; {hint}")
    if inner and "(" not in inner:
        spec = game_type.parameter_specification
        for key, value in (_split_param(p) for p in inner.rstrip(")").split(",") if p):
            _check_param(name, spec, key, value)
    return load_game(game_string)


def _check_param(game: str, spec: dict, key: str, value: str) -> None:
    """ValueError unless `key` is a parameter of `game` and `value` parses as its type."""
    if key not in spec:
        raise ValueError(f"{game} has no parameter {key!r}; its parameters: {', '.join(spec)}")
    default = spec[key]
    if isinstance(default, bool):
        ok, kind = value in ("true", "false", "True", "False"), "true or false"
    elif isinstance(default, int):
        ok, kind = value.lstrip("-").isdigit(), "a whole number"
    elif isinstance(default, float):
        ok, kind = _is_float(value), "a number"
    else:
        ok, kind = True, "text"
    if not ok:
        raise ValueError(f"{key}={value!r} is not allowed: {kind} (default {default!r})")


def _is_float(text: str) -> bool:
    """Whether `text` parses as a float."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def _split_param(text: str) -> tuple[str, str]:
    """`key=value` -> (key, value); ValueError otherwise."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip() or not value.strip():
        raise ValueError(f"bad game parameter {text!r}: write key=value, e.g. num_ranks=4")
    return key.strip(), value.strip()
