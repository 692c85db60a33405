"""The house plan: no import cycles, games/ independent of solver/, results/ data only, and
compiled-tree cache keys that change when any source a tree is built from changes."""
import pathlib
import shutil
import subprocess
import sys

import pytest

from solver.cache import project_imports

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGES = ("games", "solver")


def module_files() -> list[pathlib.Path]:
    """Every Python module of the project's packages."""
    return sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))


def import_graph() -> dict[pathlib.Path, set[pathlib.Path]]:
    """file -> the project files it imports (an import of a package is an edge to its
    __init__.py; the implicit import of a module's own parent packages is not an edge)."""
    return {path: {target.resolve() for target in project_imports(path)} - {path}
            for path in module_files()}


def cycles(graph: dict) -> list[list[pathlib.Path]]:
    """The strongly connected components with more than one file (Tarjan 1972)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    return found


def relative(paths) -> list[str]:
    """Paths relative to the repository root, for messages."""
    return [str(path.relative_to(ROOT)) for path in paths]


def test_cycle_finder_finds_a_planted_cycle():
    a, b, c = (ROOT / name for name in ("a.py", "b.py", "c.py"))
    assert cycles({a: {b}, b: {c}, c: {a}}) == [sorted([a, b, c])]
    assert cycles({a: {b}, b: {c}, c: set()}) == []


def test_no_import_cycle_in_the_packages():
    found = [relative(component) for component in cycles(import_graph())]
    assert found == [], f"import cycles: {found}"


def test_games_never_import_the_solver():
    graph = import_graph()
    offenders = [f"{path.relative_to(ROOT)} -> {target.relative_to(ROOT)}"
                 for path, targets in graph.items() if path.is_relative_to(ROOT / "games")
                 for target in targets if target.is_relative_to(ROOT / "solver")]
    assert offenders == []


def test_only_the_command_line_imports_the_command_line():
    cli = ROOT / "solver" / "cli"
    offenders = [f"{path.relative_to(ROOT)} -> {target.relative_to(ROOT)}"
                 for path, targets in import_graph().items()
                 if not path.is_relative_to(cli) and path.name != "__main__.py"
                 for target in targets if target.is_relative_to(cli)]
    assert offenders == []


def test_every_solver_package_says_what_it_is_for():
    for init in (ROOT / "solver").rglob("__init__.py"):
        text = init.read_text()
        assert text.startswith('"""') and len(text.split('"""')[1].split()) >= 10, init


def test_results_hold_data_only():
    assert sorted(relative((ROOT / "results").rglob("*.py"))) == []


KEY_SCRIPT = """
import sys
import games
from solver.registry import load_game
from solver.history.tree import cache_path
from solver.public.tree import play_tree_cache_path
game = load_game(sys.argv[1])
print(cache_path(game) if sys.argv[2] == "history" else play_tree_cache_path(game))
"""


def cache_key(source_root: pathlib.Path, game: str, engine: str) -> str:
    """The compiled-tree cache path of `game` computed by the sources under `source_root`."""
    return subprocess.run([sys.executable, "-c", KEY_SCRIPT, game, engine], cwd=source_root,
                          capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture(scope="module")
def source_copy(tmp_path_factory) -> pathlib.Path:
    """A copy of games/ and solver/ that a test may edit."""
    root = tmp_path_factory.mktemp("sources")
    for package in PACKAGES:
        shutil.copytree(ROOT / package, root / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    return root


@pytest.mark.parametrize("game, engine, edited", [
    ("python_truco_paulista(deck=clean,hand_size=1,isomorphic=true)", "history", "games/truco.py"),
    ("python_truco_paulista(deck=clean,hand_size=1,isomorphic=true)", "history", "games/tricks.py"),
    ("python_truco_paulista(deck=clean,hand_size=1,isomorphic=true)", "history", "games/cards.py"),
    ("python_le_truc(num_ranks=2,hand_size=1)", "history", "solver/history/_kernels.py"),
    ("python_le_truc(num_ranks=2,hand_size=1,isomorphic=true)", "public", "games/tricks.py"),
    ("python_le_truc(num_ranks=2,hand_size=1,isomorphic=true)", "public", "games/cards.py"),
])
def test_editing_a_dependency_changes_the_cache_key(source_copy, game, engine, edited):
    before = cache_key(source_copy, game, engine)
    path = source_copy / edited
    original = path.read_text()
    try:
        path.write_text(original + "\n# an edit\n")
        after = cache_key(source_copy, game, engine)
    finally:
        path.write_text(original)
    assert after != before
    assert cache_key(source_copy, game, engine) == before
