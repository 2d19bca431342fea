"""A rulebook's generated module, compiled and run once, with what its code reads at run time.

compile/generate.py writes the module's source from the checked program; this module gives the
source the names it reads (`RUNTIME_NAMES`: the expression nodes by number, the value classes,
the budgets, and the operations of operations.py for the unusual case), compiles it and keeps
its functions. The generated source is cached on disk (cache.py), keyed by the rulebook's digest
and a hash of the whole package's source (`cache.version`), so a rulebook seen before is not
generated again, and a change to any module the generated code depends on makes it anew.

`rulebook_span` maps a traceback through generated code back to the rulebook: the module's line
table says which expression each generated line computes.
"""

from __future__ import annotations

import hashlib
import itertools
import linecache
import marshal
import re
from collections.abc import Callable
from operator import attrgetter
from types import CodeType, TracebackType
from typing import Any

from .. import cache
from ..check.program import Program
from ..compile.fragment import fragment
from ..compile.generate import RUNTIME_NAMES, Generated, Generator, expression_nodes, generate
from ..errors import Span
from ..language.builtins import BUILTINS, LIST_BUDGET, sort_work
from ..language.values import CardRef, EnumValue, Player, Record, ZoneRef, contains, same, zone_key
from . import operations
from .basics import (
    EMPTY_MEMO,
    FN_DEPTH_BUDGET,
    INT_BUDGET,
    MEMO_BUDGET,
    TEXT_BUDGET,
    VALUE_ERRORS,
    attrs_fields,
    call_cost,
    card_refs,
    count_into,
    field_index,
    query_by_keys,
)

Code = Callable[..., Any]

_MISSING = object()
# The only built-in functions generated code may name: it cannot reach `open`, `__import__` or `eval`.
_BUILTINS_ALLOWED = {
    f.__name__: f for f in (len, tuple, range, getattr, any, all, bool, set, int, str, max, min, sum)
} | {"TypeError": TypeError}


def _call_fn(name: str, nodes: tuple[Any, ...]) -> Code:
    """A `fn`'s call function `(game, k, *args)` for a fragment's code (`Compiled.fragment`): `Game.call_fn`."""

    def call(g: Any, k: int, *args: Any) -> Any:
        return g.call_fn(name, args, nodes[k].span)

    return call


def _unknown(g: Any, e: Any) -> Any:
    """A call of a function that is neither the rulebook's nor built in: its located error."""
    raise operations.unknown_function(g, e)


def _no_probe(g: Any, k: int, value: Any, env: dict[str, Any]) -> Any:
    return value


def flatten(g: Any, seqs: tuple[Any, ...], node: Any) -> Any:
    """`flatten` of a list of lists, charged and bounded as the built-in does (builtins.py: its reading,
    then each element it makes); `_MISSING` if an element is not a list (a zone, none: the built-in's)."""
    for seq in seqs:
        if seq.__class__ is not tuple:
            return _MISSING
    g.charge(len(seqs), node)
    size = sum(map(len, seqs))
    g.charge(size, node)
    return tuple(itertools.chain.from_iterable(seqs)) if size <= LIST_BUDGET else g.bounded(None, node, size)


def namespace(nodes: tuple[Any, ...], program: Program, probe: Code = _no_probe) -> dict[str, Any]:
    """What the generated module reads (`RUNTIME_NAMES`), for a program whose expression nodes are `nodes`."""

    def field(g: Any, v: Any, name: str, having: set[type], e: Any) -> Any:
        """A field read other than of a card whose class is known to have it: a card of a class not seen
        before (remembered in `having` if it declares the field), a record, else the operation's error."""
        if v.__class__ is CardRef:
            card = g.state.cards[v.id]
            if name in attrs_fields(card.__class__):
                having.add(card.__class__)
                return getattr(card, name)
        elif v.__class__ is Record and v.has(name):
            return v.get(name)
        return operations.field(g, e, v)

    names = {
        "__builtins__": _BUILTINS_ALLOWED,
        "_N": nodes,
        "_program": program,
        "_M": _MISSING,
        "_index": operations.index,
        "_field_of": operations.field,
        "_compare": operations.compare,
        "_binary": operations.binary,
        "_member": operations.member,
        "_negate": operations.negate,
        "_span": operations.span,
        "_builtin": operations.builtin,
        "_not_taken": operations.not_taken,
        "_query_error": operations.query_error,
        "_unknown": _unknown,
        "_probe": probe,
        "_ZoneRef": ZoneRef,
        "_CardRef": CardRef,
        "_Record": Record,
        "_EnumValue": EnumValue,
        "_Player": Player,
        "_zone_key": zone_key,
        "_card_refs": card_refs,
        "_contains": contains,
        "_query_by_keys": query_by_keys,
        "_field": field,
        "_same": same,
        "_INTERNED": frozenset({EnumValue, Player, CardRef}),
        "_flatten": flatten,
        "_BUILTINS": BUILTINS,
        "_VALUE_ERRORS": VALUE_ERRORS,
        "_NO_ATTRIBUTE": AttributeError,
        "_INT_BUDGET": INT_BUDGET,
        "_TEXT_BUDGET": TEXT_BUDGET,
        "_LIST_BUDGET": LIST_BUDGET,
        "_FN_DEPTH_BUDGET": FN_DEPTH_BUDGET,
        "_MEMO_BUDGET": MEMO_BUDGET,
        "_EMPTY_MEMO": EMPTY_MEMO,
        "_fn_cost": lambda name: call_cost(program.fns[name].body),
        "_cost_of": lambda k: call_cost(nodes[k]),
        "_sort_work": sort_work,
        "_field_index": field_index,
        "_attrgetter": attrgetter,
        "_count_into": count_into,
        "_id": id,
    }
    assert set(RUNTIME_NAMES) <= set(names), set(RUNTIME_NAMES) - set(names)
    return names


_DEF = re.compile(r"def ([a-z][0-9]+)\(")
CACHE_FILES = 64  # compiled rulebooks kept in the disk cache, the least recently written dropped first


class Compiled:
    """A program's generated module, run: the function of each root expression and of each `fn`.

    The module is compiled function by function, each when first needed (a root when a statement
    first asks for it, a `fn` when first called): Python's `compile` takes some 40 µs a generated
    line, and most games, and most rulebooks a fuzzer makes, run a small part of their rules.
    Each function is compiled at its own lines of the module, so tracebacks and the line table
    read the module as a whole.
    """

    def __init__(self, program: Program, generated: Generated, filename: str, probe: Code = _no_probe):
        self.program = program
        self.generated = generated
        nodes, roots = expression_nodes(program)
        self.nodes = tuple(nodes)
        if sorted(generated.roots) != roots or set(generated.fns) != set(program.fns):
            raise ValueError("generated code of another program")
        self.filename = filename
        self._generator: Generator | None = None  # (made for the first fragment: `fragment`)
        self.names = names = namespace(self.nodes, program, probe)
        self._lines = lines = generated.source.splitlines(True)
        self._chunks: dict[str, tuple[int, int]] = {}  # function name -> its first line and the line after it
        prologue = []
        i = 0
        while i < len(lines):
            found = _DEF.match(lines[i])
            if found is None:
                if lines[i][:1].isalpha() and not lines[i].startswith("LINES"):
                    prologue.append(i)  # a module-level value (`k3 = ...`)
                i += 1
                continue
            end = i + 1
            while end < len(lines) and (lines[end][:1] in (" ", "\n") or not lines[end].strip()):
                end += 1
            self._chunks[found.group(1)] = (i, end)
            names[found.group(1)] = self._stub(found.group(1))
            i = end
        for i in prologue:
            exec(self._code(i, i + 1), names)  # the generated source: see compile/generate.py, "Safe generation"
        self.roots: dict[int, tuple[Any, str]] = {
            id(self.nodes[k]): (self.nodes[k], f) for k, f in generated.roots.items()
        }
        linecache.cache[filename] = (len(generated.source), None, lines, filename)

    def _code(self, start: int, end: int) -> CodeType:
        """Lines start..end of the module, compiled where they stand in it."""
        return compile("\n" * start + "".join(self._lines[start:end]), self.filename, "exec")

    def function(self, name: str) -> Code:
        """A generated function, compiled now if it was not yet."""
        value = self.names[name]
        if getattr(value, "stub", False):
            start, end = self._chunks[name]
            exec(self._code(start, end), self.names)  # the generated source: see compile/generate.py
            value = self.names[name]
        return value

    def _stub(self, name: str) -> Code:
        def stub(*args: Any) -> Any:
            return self.function(name)(*args)

        stub.stub = True  # type: ignore[attr-defined]
        return stub

    def root(self, e: Any) -> Code | None:
        """The function `(game, env)` of a root expression of the program, None for any other node."""
        entry = self.roots.get(id(e))
        return self.function(entry[1]) if entry is not None and entry[0] is e else None

    def fragment(self, e: Any) -> Code:
        """The function `(game, env)` of an expression that is not a root of the program (one made outside
        it: a scenario's `expect`, a test's), generated now (compile/generate.py `fragment`) and run in
        a copy of the module's names, where a call of a `fn` is `Game.call_fn`."""
        if self._generator is None:
            self._generator = Generator(self.program, False)
        source, nodes = fragment(self._generator, e)
        names = dict(self.names)
        names["_N"] = nodes
        for name, call in self.generated.fns.items():
            names[call] = _call_fn(name, nodes)
        exec(compile(source, "<generated fragment>", "exec"), names)  # the generated source: generate.py
        code: Code = names["r"]
        return code

    def rulebook_span(self, tb: TracebackType | None) -> Span | None:
        """Where in the rulebook the innermost generated line of a traceback comes from (the line table)."""
        found = None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self.filename:
                k = self.generated.lines.get(tb.tb_lineno)
                if k is not None:
                    found = self.nodes[k].span
            tb = tb.tb_next
        return found


def compile_program(program: Program, digest: str | None, probe: Code | None = None) -> Compiled:
    """The program's module, generated (or read from the disk cache when seen before) and ready to run."""
    if probe is not None:  # code checked node by node (tests): never cached
        return Compiled(program, generate(program, probe=True), "<generated, probed>", probe)
    key = cache_key(digest) if digest else None
    name = f"compiled-{key}.marshal"
    filename = f"<generated {key or 'rulebook'}>"
    data = cache.load(name) if key else None
    if data is not None:
        try:
            source, roots, fns, lines = marshal.loads(data)
            return Compiled(program, Generated(source, roots, fns, lines), filename)
        except Exception:  # a stale cache is made again, never trusted
            pass
    generated = generate(program)
    if key:
        saved = (generated.source, generated.roots, generated.fns, generated.lines)
        cache.store(name, marshal.dumps(saved), keep=CACHE_FILES)
    return Compiled(program, generated, filename)


def cache_key(digest: str) -> str:
    """The key of a rulebook's generated module in the disk cache: the rulebook's digest (its text) and
    the package's source as this process runs it (`cache.version`: the generator, the built-ins'
    inline code, the checker and the value helpers it relies on, and Python's bytecode tag)."""
    return hashlib.sha256(f"{digest}\0{cache.version()}".encode()).hexdigest()[:32]
