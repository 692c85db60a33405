"""Where compiled trees are cached, and the key that says when a cached tree is stale.

A compiled tree (history or public) depends on the code that built it: the tree builder, the
kernels it calls, the game's module and everything that module imports (Truco Paulista's
32-line module is a thin layer over `games/truco.py`, `games/tricks.py` and `games/cards.py`).
`source_digest` hashes all of it — the given modules and, transitively, every module of this
project (`games`, `solver`) they import, found by reading their import statements — so editing
any rule or kernel invalidates the trees built from it.

The cache is capped (`max_cache_bytes`: $TRICKSOLVER_CACHE_MAX, default 8 GiB): after a tree is
written, the least recently used entries (last written or loaded) go until the cache fits
(`enforce_cap`); `tricksolver cache` shows its place and size, `--clear` empties it.
"""
from __future__ import annotations

import ast
import hashlib
import importlib.util
import os
import pathlib
import shutil
import time
import types

PROJECT_PACKAGES = ("games", "solver")


def cache_dir() -> pathlib.Path:
    """Where compiled trees are cached: $TRICKSOLVER_CACHE, else the user cache directory
    ($XDG_CACHE_HOME/tricksolver, default ~/.cache/tricksolver)."""
    if os.environ.get("TRICKSOLVER_CACHE"):
        return pathlib.Path(os.environ["TRICKSOLVER_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(base) / "tricksolver"


def source_digest(*modules: types.ModuleType) -> str:
    """sha256 (16 hex digits) of the sources of `modules` and of every project module they
    import, directly or not. Modules without Python source (pyspiel's C++ games) add nothing."""
    pending = [pathlib.Path(m.__file__) for m in modules
               if str(getattr(m, "__file__", "") or "").endswith(".py")]
    seen: set[pathlib.Path] = set()
    while pending:
        path = pending.pop().resolve()
        if path not in seen:
            seen.add(path)
            pending.extend(project_imports(path))
    digest = hashlib.sha256()
    for path in sorted(seen):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def project_imports(path: pathlib.Path) -> list[pathlib.Path]:
    """Source files of the project modules that the module at `path` imports (anywhere in it,
    function-level imports included). `from package import name` is an import of the submodule
    `package.name` where one exists, else of the package; the implicit import of a module's own
    parent packages is not counted."""
    package = _package_of(path)
    found = []
    for node in ast.walk(ast.parse(path.read_bytes(), filename=str(path))):
        if isinstance(node, ast.Import):
            sources = [_project_source(alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node.module or "", node.level, package)
            sources = [_project_source(f"{base}.{alias.name}") or _project_source(base)
                       for alias in node.names]
        else:
            continue
        found.extend(source for source in sources if source is not None)
    return found


def _package_of(path: pathlib.Path) -> str:
    """The dotted package that holds `path` (relative imports are resolved against it)."""
    parts = []
    folder = path.parent
    while (folder / "__init__.py").exists():
        parts.append(folder.name)
        folder = folder.parent
    return ".".join(reversed(parts))


def _absolute(module: str, level: int, package: str) -> str:
    """The absolute name of `from <level dots><module> import ...` inside `package`."""
    if level == 0:
        return module
    base = package.rsplit(".", level - 1)[0] if level > 1 else package
    return f"{base}.{module}" if module else base


def _project_source(name: str) -> pathlib.Path | None:
    """The .py file of module `name` if it belongs to this project, else None."""
    if name.split(".")[0] not in PROJECT_PACKAGES:
        return None
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    origin = getattr(spec, "origin", None)
    return pathlib.Path(origin) if origin and origin.endswith(".py") else None


# --- size, cap and clearing ---------------------------------------------------------------------
DEFAULT_MAX_BYTES = 8 * 1024**3  # 8 GiB: the largest history trees here take 1-2 GB each
MAX_SIZE_ENV = "TRICKSOLVER_CACHE_MAX"
_UNITS = {"": 1, "B": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}
_STALE_TEMPORARY_SECONDS = 24 * 3600  # a half-written entry this old belongs to a dead process


def parse_size(text: str) -> int:
    """Bytes in `text`: a number with an optional K, M, G or T suffix (powers of 1024), e.g.
    `8G`, `500M`, `0`; ValueError naming the text otherwise."""
    cleaned = text.strip().upper().removesuffix("IB").removesuffix("B")
    number, unit = (cleaned[:-1], cleaned[-1]) if cleaned[-1:] in _UNITS else (cleaned, "")
    try:
        value = float(number)
    except ValueError:
        value = -1.0
    if not value >= 0:
        raise ValueError(f"cache size {text!r}: give bytes with an optional K, M, G or T suffix, "
                         f"e.g. 8G or 500M")
    return int(value * _UNITS[unit])


def max_cache_bytes() -> int:
    """The cap on the cache's size: $TRICKSOLVER_CACHE_MAX (e.g. `20G`), default 8 GiB."""
    text = os.environ.get(MAX_SIZE_ENV)
    return DEFAULT_MAX_BYTES if not text else parse_size(text)


def cache_entries(root: pathlib.Path | None = None) -> list[tuple[pathlib.Path, int, float]]:
    """Every cached tree as (path, bytes, last use as a POSIX time), least recently used first.
    An entry is a directory or a file directly under `root/trees` or `root/public`."""
    root = cache_dir() if root is None else root
    entries = []
    for kind in ("trees", "public"):
        folder = root / kind
        if not folder.is_dir():
            continue
        for path in folder.iterdir():
            try:
                entries.append((path, _entry_bytes(path), _last_use(path)))
            except FileNotFoundError:  # removed meanwhile by another process
                continue
    return sorted(entries, key=lambda entry: entry[2])


def cache_bytes(root: pathlib.Path | None = None) -> int:
    """Total bytes of the cached trees."""
    return sum(size for _, size, _ in cache_entries(root))


def touch(path: pathlib.Path) -> None:
    """Record a use of the cache entry `path` (its modification time is its last use)."""
    try:
        os.utime(path)
    except OSError:
        pass


def enforce_cap(keep: pathlib.Path | None = None, max_bytes: int | None = None,
                root: pathlib.Path | None = None) -> list[pathlib.Path]:
    """Remove least recently used entries until the cache holds at most `max_bytes` (default
    `max_cache_bytes()`); `keep` (the entry just written) is never removed. Returns the removed
    paths. Entries still being written by another process (`*.tmp-PID`) are left alone unless
    they are a day old."""
    limit = max_cache_bytes() if max_bytes is None else max_bytes
    entries = cache_entries(root)
    total = sum(size for _, size, _ in entries)
    removed = []
    now = time.time()
    for path, size, last_use in entries:
        if total <= limit:
            break
        temporary = ".tmp" in path.name and now - last_use < _STALE_TEMPORARY_SECONDS
        if temporary or (keep is not None and path.resolve() == keep.resolve()):
            continue
        _remove(path)
        total -= size
        removed.append(path)
    return removed


def clear_cache(root: pathlib.Path | None = None) -> tuple[int, int]:
    """Remove every cached tree; (entries removed, bytes freed)."""
    entries = cache_entries(root)
    for path, _, _ in entries:
        _remove(path)
    return len(entries), sum(size for _, size, _ in entries)


def _entry_bytes(path: pathlib.Path) -> int:
    """Bytes of a file, or of every file below a directory."""
    if path.is_file():
        return path.stat().st_size
    return sum(child.stat().st_size for child in path.rglob("*") if child.is_file())


def _last_use(path: pathlib.Path) -> float:
    """When the entry was last written or loaded (`touch`)."""
    return path.stat().st_mtime


def _remove(path: pathlib.Path) -> None:
    """Delete a cache entry, file or directory, ignoring one already gone."""
    if path.is_dir():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)
