"""Docs run: every rules example in docs/LANGUAGE.md parses, and every example rulebook checks."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import rulecraft
from rulecraft.errors import RulebookError
from rulecraft.parser import parse

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
