"""games/RULES.md is the one place a user looks rules up: every rule id cited in code, tests,
notebooks and result notes is defined there, the rules document is always cited by its path,
and every game parameter is documented there with its default."""
from __future__ import annotations

import pathlib
import re
import sys

import pyspiel
import pytest

import games  # noqa: F401  (registers the games)

ROOT = pathlib.Path(__file__).resolve().parent.parent
RULES_DOC = ROOT / "games/RULES.md"
SCANNED_DIRS = ("games", "solver", "tests", "notebooks", "results")
SCANNED_FILES = ("README.md",)
SUFFIXES = (".py", ".md", ".ipynb")
SKIPPED_DIRS = ("__pycache__", ".ipynb_checkpoints")
GAMES = ["python_le_truc", "python_truco_paulista", "python_trucomano", "python_two_ten_jack"]
OPTIONAL_GAMES = ["python_truco"]  # documented once it is registered

RULE_ID = r"[A-Z]{2,4}-\d+[a-z]?"
CITED_ID = re.compile(rf"\b{RULE_ID}\b")
# `LT-1..LT-10`, `TP-6 .. TP-9`, `TM-1..5`, `TTJ-1 … TTJ-9`: every id in between is cited too.
ID_RANGE = re.compile(rf"\b([A-Z]{{2,4}})-(\d+)\s*(?:\.\.|…)\s*(?:\1-)?(\d+)\b")
DEFINED_ID = re.compile(rf"^(?:#+\s+|\*\*)({RULE_ID})\b")
SECTION_HEADING = re.compile(r"^## (\d+)\. (.*)$")
RULES_MENTION = re.compile(r"RULES\.md")
DESIGN_MENTION = re.compile(r"DESIGN\.md")
SECTION_REFERENCE = re.compile(r"RULES\.md,?\s*(?:§\s*|sections?\s+)(\d+)(?:\s+and\s+(\d+))?")


def scanned_files() -> list[pathlib.Path]:
    """The .py/.md/.ipynb files of games/, solver/, tests/, notebooks/, results/ and README.md."""
    found = [ROOT / name for name in SCANNED_FILES]
    for directory in SCANNED_DIRS:
        found += [path for path in (ROOT / directory).rglob("*")
                  if path.suffix in SUFFIXES and path.is_file()
                  and not any(part in SKIPPED_DIRS for part in path.parts)]
    return sorted(found)


def numbered_lines(path: pathlib.Path):
    """(`file:line` label, text) for every line of `path`."""
    relative = path.relative_to(ROOT)
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        yield f"{relative}:{number}", line


def cited_ids(line: str) -> set[str]:
    """Rule ids a line cites, ranges expanded (`LT-1..LT-3` cites LT-1, LT-2 and LT-3)."""
    ids = set(CITED_ID.findall(line))
    for prefix, first, last in ID_RANGE.findall(line):
        ids |= {f"{prefix}-{n}" for n in range(int(first), int(last) + 1)}
    return ids


def defined_ids() -> list[str]:
    """Ids defined by games/RULES.md: those opening a heading or a bold label, in order."""
    return [match.group(1) for _, line in numbered_lines(RULES_DOC)
            if (match := DEFINED_ID.match(line))]


def sections() -> dict[int, str]:
    """games/RULES.md's numbered sections: number -> heading and text."""
    found, number = {}, None
    for _, line in numbered_lines(RULES_DOC):
        heading = SECTION_HEADING.match(line)
        if heading:
            number = int(heading.group(1))
            found[number] = ""
        elif line.startswith("## "):
            number = None
        if number is not None:
            found[number] += line + "\n"
    return found


def section_of(game_name: str) -> tuple[int, str]:
    """The number and text of the section whose heading names `game_name` in backticks."""
    for number, text in sections().items():
        if f"`{game_name}`" in text.splitlines()[0]:
            return number, text
    raise AssertionError(f"games/RULES.md has no section heading naming `{game_name}`")


def documented_default(value) -> str:
    """How games/RULES.md writes a default: true/false, a number, or a quoted string."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


def registered_games() -> list[str]:
    """The games whose parameters must be documented."""
    registered = set(pyspiel.registered_names())
    return GAMES + [name for name in OPTIONAL_GAMES if name in registered]


def test_rule_ids_are_defined_once():
    ids = defined_ids()
    assert len(ids) >= 30, f"too few rule ids parsed from games/RULES.md: {ids}"
    duplicates = sorted({rule for rule in ids if ids.count(rule) > 1})
    assert not duplicates, f"rule ids defined more than once in games/RULES.md: {duplicates}"


def test_every_cited_rule_id_is_defined():
    defined = set(defined_ids())
    citations, unresolved = 0, []
    for path in scanned_files():
        for where, line in numbered_lines(path):
            ids = cited_ids(line)
            citations += len(ids)
            unresolved += [f"{where}: {rule}" for rule in sorted(ids - defined)]
    assert citations, "no rule id cited anywhere: the scan is broken"
    assert not unresolved, ("rule ids cited but not defined in games/RULES.md:\n"
                            + "\n".join(unresolved))


def test_rules_doc_is_cited_by_its_path_and_no_design_doc():
    offenders = []
    for path in scanned_files():
        for where, line in numbered_lines(path):
            offenders += [f"{where}:{m.start() + 1}: {m.group()}, a file the repository lacks"
                          for m in DESIGN_MENTION.finditer(line)]
            offenders += [f"{where}:{m.start() + 1}: {m.group()} without its games/ path"
                          for m in RULES_MENTION.finditer(line)
                          if line[max(0, m.start() - len("games/")):m.start()] != "games/"]
    assert not offenders, "\n".join(offenders)


def test_section_references_resolve():
    numbers, dangling = set(sections()), []
    for path in scanned_files():
        for where, line in numbered_lines(path):
            for match in SECTION_REFERENCE.finditer(line):
                dangling += [f"{where}: section {n}" for n in match.groups()
                             if n is not None and int(n) not in numbers]
    assert numbers == {1, 2, 3, 4}, f"games/RULES.md sections: {sorted(numbers)}"
    assert not dangling, "references to missing sections of games/RULES.md:\n" + "\n".join(dangling)


def test_readme_links_the_rules():
    assert "games/RULES.md" in (ROOT / "README.md").read_text(encoding="utf-8"), \
        "README.md does not link games/RULES.md"


@pytest.mark.parametrize("game_name", registered_games())
def test_game_module_points_to_its_section(game_name):
    number, _ = section_of(game_name)
    module = sys.modules[type(pyspiel.load_game(game_name)).__module__]
    assert f"games/RULES.md, section {number}" in module.__doc__


@pytest.mark.parametrize("game_name", registered_games())
def test_every_parameter_is_documented_with_its_default(game_name):
    _, text = section_of(game_name)
    parameters = pyspiel.load_game(game_name).get_parameters()
    assert parameters
    missing = [f"`{name}`={documented_default(value)}" for name, value in sorted(parameters.items())
               if f"`{name}`={documented_default(value)}" not in text]
    assert not missing, (f"games/RULES.md's section on {game_name} does not state: "
                         + ", ".join(missing))
