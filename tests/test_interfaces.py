"""Modules meet through public names (docs/ARCHITECTURE.md): no module reads or sets a private member
(`_name`) of an object other than its own `self` or `cls`, nor imports a private name from another module.

A private name is one module's own business; what another module needs is public and documented (the
game's interface to its frames and generated code is the `Context` of runtime/context.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "interpreter"
MODULES = sorted(ROOT.rglob("*.py"))

# The reaches that stay, each with its reason: (module, the source of the reach).
ALLOWED = {
    # The standard library names the type of `ArgumentParser.add_subparsers()` only privately.
    ("cli.py", "argparse._SubParsersAction"),
    ("authoring/__init__.py", "argparse._SubParsersAction"),
    ("tools/bench.py", "argparse._SubParsersAction"),
    ("tools/coverage.py", "argparse._SubParsersAction"),
    # Equality of two records compares their fields: `other` is a Record too (tested on the same line).
    ("language/values.py", "other._fields"),
    # `Counter`'s counting loop in C, without a Counter's two Python calls (`basics.count_into` says why).
    ("runtime/basics.py", "from collections import _count_elements"),
}


def private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def reaches(source: str) -> list[str]:
    """The private members a module's code reaches on objects not its own, and the private names it imports.

    `self._x`, `cls._x` and `super()._x` are the object's own; so is `C._x` for a class `C` defined in
    the same module (a table of its methods, say)."""
    tree = ast.parse(source)
    own_classes = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and private(node.attr):
            owner = node.value
            if isinstance(owner, ast.Name) and (owner.id in ("self", "cls") or owner.id in own_classes):
                continue
            if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "super":
                continue
            found.append(ast.unparse(node))
        elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
            found += [
                f"from {'.' * node.level}{node.module or ''} import {a.name}" for a in node.names if private(a.name)
            ]
    return found


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(ROOT)) for p in MODULES])
def test_no_module_reaches_into_another(path: Path) -> None:
    """A module touches private members only of its own objects and imports only public names."""
    where = str(path.relative_to(ROOT))
    assert [r for r in reaches(path.read_text(encoding="utf-8")) if (where, r) not in ALLOWED] == []


def test_the_check_finds_a_reach() -> None:
    """A private member of another object, read or set, and a private name imported are each found; the
    object's own members are not."""
    source = (
        "from .game import _helper\n"
        "class Frame:\n"
        "    def step(self, g):\n"
        "        g._push(self)\n"
        "        g._depth = 1\n"
        "        self._seen = Frame._table\n"
        "        return super()._step(g)\n"
    )
    assert sorted(reaches(source)) == ["from .game import _helper", "g._depth", "g._push"]


def test_every_allowed_reach_is_still_there() -> None:
    """The allowed list names only reaches that exist (one that is gone is taken off it)."""
    found = {(str(p.relative_to(ROOT)), r) for p in MODULES for r in reaches(p.read_text(encoding="utf-8"))}
    assert ALLOWED - found == set()
