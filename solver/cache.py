"""Where compiled trees are cached, and the key that says when a cached tree is stale.

A compiled tree (history or public) depends on the code that built it: the tree builder, the
kernels it calls, the game's module and everything that module imports (Truco Paulista's
32-line module is a thin layer over `games/truco.py`, `games/tricks.py` and `games/cards.py`).
`source_digest` hashes all of it — the given modules and, transitively, every module of this
project (`games`, `solver`) they import, found by reading their import statements — so editing
any rule or kernel invalidates the trees built from it.
"""
from __future__ import annotations

import ast
import hashlib
import importlib.util
import os
import pathlib
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
