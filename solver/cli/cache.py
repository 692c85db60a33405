"""`tricksolver cache`: where the compiled-tree cache is, how big, its cap; `--clear` empties it.

Trees are cached by `solver.history.tree` and `solver.public.tree` under `solver.cache.cache_dir()`;
the cap (`$TRICKSOLVER_CACHE_MAX`, default 8 GiB) removes the least recently used ones first.
"""
from __future__ import annotations

from solver import cache
from solver.cli.help import HelpFormatter


def add_parser(subparsers) -> None:
    """Register `tricksolver cache`."""
    parser = subparsers.add_parser(
        "cache", help="show where compiled trees are cached and how much space they take; "
        "--clear empties the cache",
        description="Compiled game trees are cached so that a second solve of the same game "
        f"skips compiling. Place: $TRICKSOLVER_CACHE, else $XDG_CACHE_HOME/tricksolver, default "
        f"~/.cache/tricksolver (here: {cache.cache_dir()}). Cap: ${cache.MAX_SIZE_ENV} (bytes, "
        "or with a K, M, G or T suffix), default "
        f"{_size(cache.DEFAULT_MAX_BYTES)}; when a new tree would exceed it, the least recently "
        "used trees are removed. A tree is rebuilt when needed, so clearing is always safe.",
        epilog="examples:\n  tricksolver cache\n  tricksolver cache --clear\n"
        "  TRICKSOLVER_CACHE_MAX=20G tricksolver solve ...",
        formatter_class=HelpFormatter)
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--clear", action="store_true", help="remove every cached tree")
    action.add_argument("--trim", action="store_true",
                        help="remove least recently used trees until the cache fits its cap")
    parser.add_argument("--list", action="store_true",
                        help="also list the entries, least recently used first")
    parser.set_defaults(func=run)


def run(args) -> int:
    """`tricksolver cache`."""
    limit = cache.max_cache_bytes()  # a bad $TRICKSOLVER_CACHE_MAX fails before anything else
    root = cache.cache_dir()
    if args.clear:
        count, freed = cache.clear_cache(root)
        print(f"removed {count} cached trees ({_size(freed)}) from {root}")
        return 0
    if args.trim:
        removed = cache.enforce_cap(max_bytes=limit, root=root)
        print(f"removed {len(removed)} cached trees to fit the cap")
    entries = cache.cache_entries(root)
    total = sum(size for _, size, _ in entries)
    print(f"cache  {root}")
    print(f"size   {_size(total)} in {len(entries)} trees (cap {_size(limit)}, "
          f"${cache.MAX_SIZE_ENV} changes it)")
    if args.list:
        for path, size, _ in entries:
            print(f"  {_size(size):>10}  {path.relative_to(root)}")
    return 0


def _size(count: int) -> str:
    """`1.2 GB`-style text for a byte count (powers of 1024)."""
    for unit in ("B", "KB", "MB", "GB"):
        if count < 1024 or unit == "GB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1024
    return f"{count:.1f} GB"
