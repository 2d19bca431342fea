"""Declarations nothing reaches: warnings that `check` prints and the language server shows.

An ability no reachable statement `use`s, a procedure or function no reachable code calls, a card
type nothing creates, a zone nothing moves cards into: each is almost always a slip (a card
written and never wired in), never an error of the language. The game reaches what its setup,
its play, its rules and invariants, its variables' initial values and the engine's own functions
(`score`, `tiebreak`, `heuristic`) reach, through the functions, procedures, abilities and
constants they name.

A comment with `allow-unused` on the declaration's line, or on the line above it, silences its
warning (an extension point kept for others to override, say).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..errors import Diagnostic, Span
from ..syntax import ast as s

# The functions the engine calls by name (runtime: result, tie-breaks, agents' judgement).
ENGINE_FNS = ("score", "tiebreak", "heuristic", "team_score")
SILENCE = "allow-unused"


def nodes(root: Any) -> Iterator[Any]:
    """Every AST node under `root`, without recursion (attrs nodes, tuples and lists walked)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, tuple | list):
            stack.extend(node)
        elif hasattr(node, "__attrs_attrs__"):
            yield node
            stack.extend(getattr(node, a.name) for a in node.__attrs_attrs__ if a.name != "span")


def _named(node: Any) -> str | None:
    """The declaration a node names: a call, a procedure call, a `use`, or a name (a constant)."""
    match node:
        case s.Call(name) | s.CallStmt(name):
            return name
        case s.Use(ability):
            return ability
        case s.Name(id):
            return id
    return None


def _zone_named(e: Any) -> str | None:
    """The zone a target expression names directly (`discard`, `hand[p]`), or None if computed."""
    match e:
        case s.Name(id):
            return id
        case s.Index(obj):
            return _zone_named(obj)
    return None


def unreached(program: Any) -> list[Diagnostic]:
    """The warnings of declarations nothing reaches, in the order of the files."""
    bodies: dict[str, Any] = {**program.consts, **program.fns, **program.procs, **program.abilities}
    roots: list[Any] = [program.setup, program.play, program.rules, program.invariants]
    roots += [v.init for v in program.vars.values()]
    roots += [program.fns[n] for n in ENGINE_FNS if n in program.fns]
    reached: set[str] = {n for n in ENGINE_FNS if n in program.fns}
    created: set[str] = set()
    filled: set[str] = set()
    computed_target = False
    stack = list(roots)
    seen_decls: set[str] = set()
    while stack:
        for node in nodes(stack.pop()):
            name = _named(node)
            if name is not None and name in bodies and name not in seen_decls:
                seen_decls.add(name)
                stack.append(bodies[name])
            if name is not None:
                reached.add(name)
            match node:
                case s.Create(card_type=card_type, zone=zone):
                    created.add(card_type)
                    targets = [zone]
                case s.Move(to=to) | s.Draw(to=to):
                    targets = [to]
                case _:
                    targets = []
            for target in targets:
                zone_name = _zone_named(target)
                if zone_name is not None and zone_name in program.zones:
                    filled.add(zone_name)
                else:
                    computed_target = True  # a zone held in a name or made by a function: any may be filled
    found: list[Diagnostic] = []

    def warn(span: Span, message: str) -> None:
        if not _silenced(program.sources, span):
            found.append(Diagnostic(span, message, severity="warning", hint=f"a comment '# {SILENCE}' silences it"))

    for name, decl in program.abilities.items():
        if name not in reached:
            warn(decl.span, f"ability {name} is never used: no statement the game reaches says 'use {name}(...)'")
    for name, decl in program.procs.items():
        if name not in reached:
            warn(decl.span, f"procedure {name} is never called by anything the game reaches")
    for name, decl in program.fns.items():
        if name not in reached:
            warn(decl.span, f"function {name} is never called by anything the game reaches")
    for name, card in program.cards.items():
        if name not in created:
            warn(card.decl.span, f"card type {name} is never created: no 'create ... {name}' the game reaches")
    if not computed_target:
        for name, decl in program.zones.items():
            if name not in filled:
                warn(
                    decl.span,
                    f"zone {name} never receives a card: nothing the game reaches moves, draws or creates into it",
                )
    found.sort(key=lambda d: (program.files.index(d.span.file) if d.span.file in program.files else 0, d.span.line))
    return found


def _silenced(sources: dict[str, str], span: Span) -> bool:
    lines = sources.get(span.file, "").split("\n")
    return any(SILENCE in lines[i] for i in (span.line - 2, span.line - 1) if 0 <= i < len(lines))
