"""The stages import one another one way: no cycle among them, and no import inside a function to hide one."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "interpreter"
# The pipeline, from text to a running game (docs/ARCHITECTURE.md).
STAGES = (
    "inputs",
    "errors",
    "syntax",
    "parser",
    "types",
    "values",
    "builtins",
    "check",
    "state",
    "asks",
    "machine",
    "closures",
    "runtime",
    "cache",
    "rulebook",
)


def _imports(module: str) -> list[tuple[str, bool]]:
    """The stages a module imports, each with whether the import is inside a function."""
    tree = ast.parse((ROOT / f"{module}.py").read_text())
    type_only: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            type_only |= {id(n) for n in ast.walk(node)}
    in_function: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            in_function |= {id(n) for n in ast.walk(node)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1 and id(node) not in type_only:
            names = [node.module] if node.module else [a.name for a in node.names]
            found += [(name, id(node) in in_function) for name in names if name in STAGES]
    return found


@pytest.mark.parametrize("module", STAGES)
def test_a_stage_imports_no_stage_inside_a_function(module: str) -> None:
    """A stage imports the stages it needs at its top, where the order of the layers shows."""
    assert [name for name, inside in _imports(module) if inside] == []


def test_the_stages_import_one_another_without_a_cycle() -> None:
    """Following the imports (type annotations aside) from any stage never comes back to it."""
    graph = {m: {name for name, _ in _imports(m)} for m in STAGES}

    def reaches(start: str) -> set[str]:
        seen: set[str] = set()
        todo = list(graph[start])
        while todo:
            m = todo.pop()
            if m not in seen:
                seen.add(m)
                todo.extend(graph[m])
        return seen

    assert [m for m in STAGES if m in reaches(m)] == []
