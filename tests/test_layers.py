"""The packages import one another one way (docs/ARCHITECTURE.md): a layer imports only the layers below it,
no module imports itself back through others, and the pipeline's modules import at their top."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "interpreter"

# The pipeline from text to a running game, lowest first. A module may import from its own layer
# or from a layer before it, never from one after it.
LAYERS = (
    ("errors", "inputs", "outputs", "cache", "terminal"),
    ("syntax",),
    ("language",),
    ("check",),
    ("compile",),
    ("runtime",),
    ("rulebook",),
)
# Beside and on top of the pipeline; they may import any layer, never the other way round.
ON_TOP = (
    "records",
    "recording",
    "agents",
    "mcts",
    "env",
    "openspiel",
    "features",
    "render",
    "viewer",
    "console",
    "authoring",
    "tools",
    "editor",
    "serve",
    "cli",
    "pytest_plugin",
)


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module(p): p for p in sorted(ROOT.rglob("*.py")) if _module(p) not in ("", "__main__")}


def _target(module: str, is_package: bool, node: ast.ImportFrom) -> list[str]:
    """The modules of this package that an import names, as dotted paths under `rulecraft`."""
    if node.level == 0:
        if not (node.module or "").startswith("rulecraft"):
            return []
        base = (node.module or "").removeprefix("rulecraft").lstrip(".")
    else:
        here = module.split(".") if is_package else module.split(".")[:-1]
        here = here[: len(here) - (node.level - 1)]
        base = ".".join([*here, *([node.module] if node.module else [])])
    found = [
        f"{base}.{a.name}" if base else a.name
        for a in node.names
        if (f"{base}.{a.name}" if base else a.name) in MODULES
    ]
    return found or ([base] if base in MODULES else [])


def imports(module: str, *, types: bool = False) -> list[tuple[str, bool]]:
    """The modules of this package that a module imports (type annotations aside, unless `types`), each
    with whether the import is inside a function."""
    path = MODULES[module]
    tree = ast.parse(path.read_text())
    type_only: set[int] = set()
    in_function: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            type_only |= {id(n) for n in ast.walk(node)}
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            in_function |= {id(n) for n in ast.walk(node)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (types or id(node) not in type_only):
            found += [(t, id(node) in in_function) for t in _target(module, path.name == "__init__.py", node)]
    return found


def layer(module: str) -> int:
    top = module.split(".")[0]
    for i, names in enumerate(LAYERS):
        if top in names:
            return i
    return len(LAYERS)


PIPELINE = [m for m in MODULES if layer(m) < len(LAYERS)]


def test_every_module_has_a_place() -> None:
    """Each module belongs to a layer of the pipeline or to the tools on top: a new one is placed on purpose."""
    assert [m for m in MODULES if layer(m) == len(LAYERS) and m.split(".")[0] not in ON_TOP] == []


@pytest.mark.parametrize("module", PIPELINE)
def test_a_layer_imports_only_layers_below_it(module: str) -> None:
    """A module of the pipeline imports nothing from a later layer nor from the tools on top."""
    assert [t for t, _ in imports(module) if layer(t) > layer(module)] == []


@pytest.mark.parametrize("module", PIPELINE)
def test_a_pipeline_module_imports_at_its_top(module: str) -> None:
    """The pipeline's modules import at their top, where the order of the layers shows (no import hidden in a
    function to break a cycle)."""
    assert [t for t, inside in imports(module) if inside] == []


def test_the_modules_import_one_another_without_a_cycle() -> None:
    """Following the top-level imports (type annotations aside) from any module never comes back to it."""
    graph = {m: {t for t, inside in imports(m) if not inside and t != m} for m in MODULES}
    assert [m for m in MODULES if m in _reaches(graph, m)] == []


def test_no_module_comes_back_to_itself_by_any_import() -> None:
    """Following every import, those for types and those inside functions too, no module comes back
    to itself: compile/, runtime/ and the commands and tools import one way. In runtime/, the frames,
    the generated code, the observers and the information functions take a game as the `Context`
    protocol (runtime/context.py), never as the class of the game or of a layer of it."""
    graph = {m: {t for t, _ in imports(m, types=True) if t != m} for m in MODULES}
    assert [m for m in MODULES if m in _reaches(graph, m)] == []


def _reaches(graph: dict[str, set[str]], start: str) -> set[str]:
    """The modules `start` reaches by following the graph's edges."""
    seen: set[str] = set()
    todo = list(graph[start])
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo.extend(graph.get(m, ()))
    return seen


def test_a_game_is_its_core_and_its_values_changes_statements_and_definitions_are_functions() -> None:
    """`Game`'s only base is `GameCore`, no chain of layers (runtime/core.py says so): the values
    (evaluate.py) and the changes (store.py) are functions over the game, which `Game` has as methods
    (its facade: the functions themselves); the statements a
    block's code does not spell out (statements.py) are functions over the game, which the generated code
    reaches through its table; the tree-walking definition of each kind of expression is the tests'
    oracle (tests/oracle/), functions over the game, and the runtime has no module of it."""
    from rulecraft.runtime import evaluate, statements, store
    from rulecraft.runtime.core import GameCore
    from rulecraft.runtime.game import Game

    from .oracle import definitions

    assert Game.__mro__ == (Game, GameCore, object)
    assert Game.label is evaluate.label and Game.evaluate is evaluate.evaluate  # the facade: the functions themselves
    assert Game.move is store.move and Game.set_var is store.set_var
    assert not (ROOT / "runtime" / "definitions.py").exists()
    for module, table in ((statements, statements.EXEC), (definitions, definitions.EVAL)):
        for function in table.values():
            assert function.__module__ == module.__name__
            assert "." not in function.__qualname__  # a function of the module, not a method of a class
