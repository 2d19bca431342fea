"""The resolver's record: what each name of a checked rulebook means, decided once by the checker.

The checker already walks every expression with the local names in scope; as it decides what a
name is, it records the answer here (`Resolution.bind`), keyed by the node's identity, so that
later stages (code generation, the evaluator) never look a name up again in an order of their
own. A node is immutable and kept alive by the `Program` that holds it, so its identity is never
reused while the program lives; each entry keeps its node as well, to be sure.

What a name can be (`Binding.kind`):

- `local`: a name bound in the body (a parameter, `let`, `for`, `choose ... as`, a comprehension's
  variable, `it`); `slot` numbers the distinct local names of the program (0, 1, ...);
- `const`, `var` (a variable without keys), `keyed_var` (indexed by its keys), `zone` (as a whole
  or indexed by its keys), `member` (an enumeration value written alone), `enum` (an enumeration
  as the list of its values), `enum_member` (`Colour.red`: the field access of an enumeration);
- `builtin`: `players`, `player_count` or `table`;
- `fn` and `builtin_fn` for calls (`Call` nodes).

Besides the bindings, `keys` holds the type of each key of every keyed zone and variable (the
state keys' types), and `locals` every name some body binds locally: a global name that is also
bound locally somewhere may be shadowed at run time by a local of the statement that evaluates it,
so only such names need a look at the local names before the global.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

import attrs

from ..language import types as t

Kind = Literal[
    "local",
    "const",
    "var",
    "keyed_var",
    "zone",
    "member",
    "enum",
    "enum_member",
    "builtin",
    "fn",
    "builtin_fn",
]
KINDS: tuple[Kind, ...] = get_args(Kind)


@attrs.frozen
class Binding:
    """What one name (or call, or `Enum.member`) of the text means."""

    kind: Kind
    name: str
    slot: int = -1  # a local's number among the program's local names; -1 for the others


class Resolution:
    """Every name's binding in a checked program, by node identity; the key types of the state."""

    def __init__(self) -> None:
        self._bindings: dict[int, tuple[Any, Binding]] = {}
        self.locals: dict[str, int] = {}  # every locally bound name, with its slot
        self.keys: dict[str, tuple[t.T, ...]] = {}  # a keyed zone's or variable's key types, by its name
        # For each local name read, the names its body binds unchecked (`Scope.unchecked`, filled in
        # as the body is checked): `held` below.
        self._bodies: dict[int, tuple[Any, set[str]]] = {}

    def local(self, name: str) -> None:
        """Note a name some body binds locally."""
        self.locals.setdefault(name, len(self.locals))

    def bind(self, node: Any, kind: Kind, name: str) -> None:
        assert kind in KINDS, kind
        slot = self.locals.setdefault(name, len(self.locals)) if kind == "local" else -1
        self._bindings[id(node)] = (node, Binding(kind, name, slot))

    def of(self, node: Any) -> Binding | None:
        """The node's binding, or None for a node the checker did not resolve (one not of this program)."""
        entry = self._bindings.get(id(node))
        return entry[1] if entry is not None and entry[0] is node else None

    def note_body(self, node: Any, unchecked: set[str]) -> None:
        self._bodies[id(node)] = (node, unchecked)

    def held(self, node: Any) -> bool:
        """Whether a local name read holds what only checked binders of its body gave it (`let`, a
        procedure's parameter, `choose one`): a value no deeper than the state may hold."""
        entry = self._bodies.get(id(node))
        return entry is not None and entry[0] is node and node.id not in entry[1]

    def __len__(self) -> int:
        return len(self._bindings)
