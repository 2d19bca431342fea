"""Docs run: every rules example in docs/LANGUAGE.md parses, every example rulebook checks, every
scenario block of the docs runs, and every command the docs show with `$` runs as shown."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest
import rulecraft
from rulecraft.authoring.scenario import run_scenario
from rulecraft.cli import main
from rulecraft.errors import RulebookError
from rulecraft.syntax.parser import parse

ROOT = Path(__file__).resolve().parent.parent
LANGUAGE = (ROOT / "docs" / "LANGUAGE.md").read_text(encoding="utf-8")
EXAMPLES = re.findall(r"```rules\n(.*?)```", LANGUAGE, re.S)


@pytest.mark.parametrize("source", EXAMPLES, ids=[f"example-{i}" for i in range(len(EXAMPLES))])
def test_language_doc_example_parses(source: str) -> None:
    """Each example is declarations, or statements that parse inside a procedure."""
    try:
        parse(source, "LANGUAGE.md")
    except RulebookError:
        parse("proc _example() {\n" + source + "}\n", "LANGUAGE.md")


def test_language_doc_has_many_examples() -> None:
    """The language doc shows every construct; it is not an empty page."""
    assert len(EXAMPLES) >= 25


@pytest.mark.parametrize("path", sorted((ROOT / "examples").rglob("*.rules")), ids=lambda p: p.name)
def test_example_rulebook_checks(path: Path) -> None:
    """Every rulebook in examples/ loads and checks."""
    rulecraft.load(path)


@pytest.mark.parametrize("name", rulecraft.bundled_names())
def test_bundled_rulebook_checks(name: str) -> None:
    """Every bundled rulebook loads and checks."""
    rulecraft.load(name)


DOCS = {
    path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8")
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
}
SCENARIO_BLOCKS = [
    (name, block) for name, text in DOCS.items() for block in re.findall(r"```scenario\n(.*?)```", text, re.S)
]
# A command shown as `    $ rulecraft ...` claims to run as it is, from the project's root.
COMMANDS = [(name, line) for name, text in DOCS.items() for line in re.findall(r"^ {4}\$ (rulecraft .*)$", text, re.M)]


@pytest.mark.parametrize(
    ("doc", "block"), SCENARIO_BLOCKS, ids=[f"{d}-{i}" for i, (d, _) in enumerate(SCENARIO_BLOCKS)]
)
def test_doc_scenario_runs_as_copied(doc: str, block: str, tmp_path: Path) -> None:
    """A scenario block, saved in examples/scenarios/ as the docs say, runs and its expectations hold."""
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    path = tmp_path / "examples" / "scenarios" / "from_the_docs.scenario"
    path.write_text(block, encoding="utf-8")
    text = run_scenario(None, path)
    assert text.count(": holds  @ ") == block.count("\nexpect ")


@pytest.mark.parametrize(("doc", "command"), COMMANDS, ids=[f"{d}: {c}" for d, c in COMMANDS])
def test_doc_command_runs_as_shown(doc: str, command: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every `$ rulecraft ...` line of the docs exits 0 when run from the project's root."""
    monkeypatch.chdir(ROOT)
    assert main(shlex.split(command, comments=True)[1:]) == 0


def test_the_docs_hold_runnable_blocks() -> None:
    """The scenario format and the first commands are shown by examples that run."""
    assert "docs/SCENARIOS.md" in {d for d, _ in SCENARIO_BLOCKS}
    assert len(COMMANDS) >= 3


def test_the_readme_sets_up_a_fresh_clone_in_a_virtual_environment() -> None:
    """A system Python that refuses `pip install` (PEP 668) gets a venv in one line; then two commands."""
    readme = DOCS["README.md"]
    setup = readme.split("## Two commands", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"^ {4}(\S.*)$", setup, re.M)
    assert commands == [
        "python3 -m venv .venv && . .venv/bin/activate",
        "pip install -e . && rulecraft play guildhall --players 3 --seed 1 --agents greedy",
        "pip install -e '.[test]' && pytest",
    ]
    assert "PEP 668" in setup
