"""Render a checked rulebook back to plain English: `rulecraft explain`.

One template per language construct, never per card: an ability's tiers read close to a
printed card because the statements inside them do (`set points[p] += 5` reads "Add 5 to p's
points."). Where the English reads wrong, the rulebook or a template here is wrong.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import assert_never

from ..check.program import Program
from ..check.resolve import Kind
from ..errors import RulecraftError, did_you_mean
from ..language.builtins import call_words
from ..syntax import ast as s
from ..terminal import printable
from .fmt import Formatter, level

BULLET = "- "
NESTED = "  "

COMPARE_WORDS = {
    "==": "is",
    "!=": "is not",
    "<": "is less than",
    "<=": "is at most",
    ">": "is more than",
    ">=": "is at least",
}
BINARY_WORDS = {"+": "plus", "-": "minus", "*": "times", "//": "divided by (rounded down)", "%": "modulo"}
QUANTITY_WORDS = {
    "one": "one of",
    "exactly": "exactly {n} of",
    "upto": "up to {n} of",
    "any": "any number of",
    "order": "an order for all of",
}
# `len(xs) > 0` reads "xs is not empty" (True: some; False: none).
EMPTINESS = {(">", 0): True, ("!=", 0): True, (">=", 1): True, ("==", 0): False, ("<", 1): False}
ORDINALS = ["first", "second", "third", "fourth", "fifth"]


def words(name: str) -> str:
    """`turns_left` reads "turns left"."""
    return name.replace("_", " ")


def of(name: str, args: str) -> str:
    """`the score of p`; a name that ends in `_of` is not doubled (`symbol_of(a)`: the symbol of a);
    without arguments, `the masters`."""
    base = words(name[:-3] if name.endswith("_of") else name)
    return f"the {base} of {args}" if args else f"the {base}"


def quoted(text: str) -> str:
    """The rulebook's text in quotes, its control characters escaped (it is read in a terminal)."""
    return f"“{printable(text)}”"


def sentence(text: str, capital: bool = True) -> str:
    head = text[:1].upper() if capital else text[:1]
    return head + text[1:] + ("" if text.endswith((".", ":", "?", "!")) else ".")


def article(noun: str) -> str:
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def type_words(t: s.TypeExpr) -> str:
    match t:
        case s.NamedType(name):
            return {
                "int": "a number",
                "bool": "yes or no",
                "str": "text",
                "Player": "a player",
                "any": "anything",
                "record": "a record",
                "card": "a card",
            }.get(name, article(name))
        case s.ListType(element):
            return f"a list of {type_words(element).removeprefix('a ').removeprefix('an ')}"
        case _:
            assert_never(t)


class Explainer:
    """Turn the AST of a checked program into English, construct by construct."""

    def __init__(self, program: Program):
        self.program = program

    # ------------------------------------------------------------ expressions

    def possessive(self, owner: s.Expr, thing: str) -> str:
        if isinstance(owner, s.Name):
            who = "its" if owner.id == "it" else f"{owner.id}'s"
            return f"{who} {thing}"
        return f"the {thing} of {self.x(owner)}"

    def shown(self, name: str) -> str:
        """A zone's or a variable's name as people read it: the display name the rules give, else its words."""
        decl = self.program.zones.get(name) or self.program.vars.get(name)
        return decl.display if decl is not None and decl.display is not None else words(name)

    def keyed(self, name: str, keys: Sequence[s.Expr]) -> str:
        if len(keys) == 1:
            return self.possessive(keys[0], self.shown(name))
        return f"{self.shown(name)} ({', '.join(self.x(k) for k in keys)})"

    def x(self, e: s.Expr) -> str:
        p = self.program
        match e:
            case s.IntLit(value):
                return str(value)
            case s.StrLit(value):
                return quoted(value)
            case s.Template(parts):  # the text as it reads, each placeholder as written
                source = Formatter("", s.Rulebook(()))
                return quoted("".join(p if isinstance(p, str) else "{" + source.expr(p, "") + "}" for p in parts))
            case s.BoolLit(value):
                return "true" if value else "false"
            case s.NoneLit():
                return "nothing"
            case s.Name(id):
                if id == "players":
                    return "the players"
                if id == "player_count":
                    return "the number of players"
                if id == "table":
                    return "chance"
                if id in p.zones:
                    shown = self.shown(id)
                    return shown if shown.lower().startswith("the ") else f"the {shown}"
                if id in p.vars:
                    return self.shown(id)
                return id
            case s.ListLit(items):
                if not items:
                    return "no values"
                texts = [self.x(i) for i in items]
                return texts[0] if len(texts) == 1 else ", ".join(texts[:-1]) + " and " + texts[-1]
            case s.Comprehension(element, var, source, condition, flat):
                text = f"{self.x(element)}" if flat else f"{self.x(element)} for each {var} in {self.x(source)}"
                if flat:  # the inner clauses follow the outer one: `…, for each b in B, for each a in A`
                    text += f", for each {var} in {self.x(source)}"
                return text + (f" for which {self.x(condition)}" if condition is not None else "")
            case s.RecordLit(inits):
                return "(" + ", ".join(f"{i.name} {self.x(i.value)}" for i in inits) + ")"
            case s.FieldAccess(obj, name):
                if isinstance(obj, s.Name) and obj.id in p.enums:
                    return name
                return self.possessive(obj, words(name))
            case s.Index(obj, args):
                if isinstance(obj, s.Name) and (obj.id in p.zones or obj.id in p.vars):
                    return self.keyed(obj.id, args)
                if len(args) == 1 and isinstance(args[0], s.IntLit) and args[0].value < len(ORDINALS):
                    return f"the {ORDINALS[args[0].value]} of {self.x(obj)}"
                return f"element {', '.join(self.x(a) for a in args)} (from 0) of {self.x(obj)}"
            case s.Call(name, args):
                texts = [self.x(a) for a in args]
                if name in ("len", "count") and len(args) == 1 and self.is_zone(args[0]):
                    return f"the number of cards in {texts[0]}"
                if name in p.fns or name in p.procs:
                    if len(texts) <= 1:
                        return of(name, texts[0] if texts else "")
                    return f"{words(name)}({', '.join(texts)})"
                return call_words(name, texts) or f"{words(name)}({', '.join(texts)})"
            case s.Neg(operand):
                return f"minus {self.operand(operand, e, right=True)}"
            case s.Binary(op, left, right):
                return f"{self.operand(left, e)} {BINARY_WORDS[op]} {self.operand(right, e, right=True)}"
            case s.RangeOp(low, high):
                return f"{self.x(low)} to {self.x(high)}"
            case s.Compare(op, s.Call("len" | "count", (counted,)), s.IntLit(n)) if (op, n) in EMPTINESS:
                some = EMPTINESS[(op, n)]
                if isinstance(counted, s.Query) and counted.op == "where":
                    zone = self.is_zone(counted.source)
                    what = (
                        ("a card in " if some else "no card in ") if zone else ("one among " if some else "none among ")
                    )
                    return f"there is {what}{self.query('where', counted.source, counted.key)}"
                if self.is_zone(counted):
                    return f"{self.x(counted)} is {'not ' if some else ''}empty"
                return f"there is {'one' if some else 'none'} among {self.x(counted)}"
            case s.Compare(op, left, right):
                return f"{self.x(left)} {COMPARE_WORDS[op]} {self.x(right)}"
            case s.In(item, collection, negated):
                return f"{self.x(item)} is {'not ' if negated else ''}in {self.x(collection)}"
            case s.Not(s.Call(name, args)) if name in p.fns:
                return f"{words(name)}({', '.join(self.x(a) for a in args)}) does not hold"
            case s.Not(operand):
                return f"not ({self.x(operand)})" if not isinstance(operand, s.Name) else f"not {self.x(operand)}"
            case s.And(left, right):
                return f"{self.grouped(left, s.Or)} and {self.grouped(right, s.Or)}"
            case s.Or(left, right):
                return f"{self.grouped(left, s.And)} or {self.grouped(right, s.And)}"
            case s.Query(op, source, key):
                return self.query(op, source, key)
            case s.CondExpr(condition, then, otherwise):
                return f"{self.x(then)} if {self.x(condition)}, else {self.x(otherwise)}"
            case _:
                assert_never(e)

    def operand(self, e: s.Expr, outer: s.Binary | s.Neg | None = None, right: bool = False) -> str:
        """An operand of arithmetic, in parentheses where the grouping would be lost in words."""
        if isinstance(e, s.CondExpr):
            return f"({self.x(e)})"
        if isinstance(e, s.Binary) and outer is not None:
            inner_level, outer_level = level(e), level(outer)
            if inner_level < outer_level or (right and inner_level == outer_level):
                return f"({self.x(e)})"
        return self.x(e)

    def holds(self, e: s.Expr) -> str:
        """A condition: a call of a function reads `name(args) holds`."""
        if isinstance(e, s.Call) and self.bound(e, "fn") and e.args:
            return f"{words(e.name)}({', '.join(self.x(a) for a in e.args)}) holds"
        if isinstance(e, s.And):
            return f"{self.grouped(e.left, s.Or, True)} and {self.grouped(e.right, s.Or, True)}"
        if isinstance(e, s.Or):
            return f"{self.grouped(e.left, s.And, True)} or {self.grouped(e.right, s.And, True)}"
        return self.x(e)

    def grouped(self, e: s.Expr, other: type, holds: bool = False) -> str:
        """An operand of `and` / `or`: in parentheses when it is the other one (`a and (b or c)`)."""
        text = self.holds(e) if holds else self.x(e)
        return f"({text})" if isinstance(e, other) else text

    def query(self, op: str, source: s.Expr, key: s.Expr) -> str:
        src = self.x(source)
        key_text = self.holds(key)
        its = key_text.startswith("its ")
        field = re.sub(r"\bits ", "", key_text)  # `its suit and its value`: suit and value
        match op:
            case "where":
                return f"{src} whose {field}" if its else f"{src} for which {key_text}"
            case "sorted":
                return f"{src} sorted by {field if its else self.x(key)}"
            case "max" | "min":
                most = "largest" if op == "max" else "smallest"
                return f"those of {src} with the {most} {field if its else self.x(key)}"
            case "group":
                return f"{src} in groups of equal {field if its else self.x(key)}"
            case "map":
                return f"the {field} of each of {src}" if its else f"{self.x(key)} for each of {src}"
        raise AssertionError(op)

    def who(self, by: s.Expr | None) -> str:
        if by is None:
            return "the player"
        if isinstance(by, s.Name) and by.id == "table":
            return "chance"
        return self.x(by)

    # ------------------------------------------------------------ statements

    def block(self, b: s.Block, depth: int) -> list[str]:
        out: list[str] = []
        for st in b.stmts:
            out.extend(self.stmt(st, depth))
        if not out:
            out.append(NESTED * depth + BULLET + "Nothing happens.")
        return out

    def line(self, depth: int, text: str, capital: bool = True) -> list[str]:
        return [NESTED * depth + BULLET + sentence(text, capital)]

    def bound(self, e: s.Expr, kind: Kind) -> bool:
        """Whether the checker resolved the node to a name of this kind (check/resolve.py)."""
        binding = self.program.resolution.of(e)
        return binding is not None and binding.kind == kind

    def is_zone(self, e: s.Expr) -> bool:
        """Whether an expression reads a zone (so `len` counts cards in it)."""
        match e:
            case s.Name() | s.Index():
                return self.bound(e, "zone")
            case s.Query("where" | "sorted", source, _):
                return self.is_zone(source)
        return False

    def stmt(self, st: s.Stmt, depth: int) -> list[str]:
        x, line = self.x, self.line
        match st:
            case s.Let(name, value):
                if isinstance(value, s.Call) and value.name in self.program.procs:
                    args = ", ".join(x(a) for a in value.args)
                    return line(depth, f"{words(value.name)} ({args}); call the result {name}")
                return line(depth, f"let {name} be {x(value)}")
            case s.Assign(name, op, value) | s.SetVar(name, _, op, value) if True:
                target = (
                    self.keyed(name, st.keys)
                    if isinstance(st, s.SetVar) and st.keys
                    else (self.shown(name) if isinstance(st, s.SetVar) else name)
                )
                if op == "+=":
                    return line(depth, f"add {x(value)} to {target}")
                if op == "-=":
                    return line(depth, f"subtract {x(value)} from {target}")
                return line(depth, f"set {target} to {x(value)}")
            case s.SetField(obj, field, op, value):
                target = self.possessive(obj, words(field))
                verb = {"=": f"set {target} to", "+=": f"add to {target}", "-=": f"subtract from {target}"}[op]
                return line(depth, f"{verb} {x(value)}")
            case s.Move(what, to, bottom):
                return line(depth, f"move {x(what)} to {'the bottom of ' if bottom else ''}{x(to)}")
            case s.Draw(count, source, to):
                n = x(count) if isinstance(count, s.IntLit | s.Name) else f"({x(count)})"
                cards = "card" if n == "1" else "cards"
                return line(depth, f"draw {n} {cards} from {x(source)} into {x(to)}")
            case s.Reveal(what, to):
                return line(depth, f"show {x(what)} to {x(to)} (to them alone, until the cards move)")
            case s.Tell(to, what, field, value):
                return line(
                    depth,
                    f"tell {x(to)}, of each of {x(what)}, whether its {words(field)} is {x(value)} (until it moves)",
                )
            case s.Create(count, card_type, inits, zone):
                fields = ", ".join(f"{words(i.name)} {x(i.value)}" for i in inits)
                return line(depth, f"put {x(count)} new {card_type} ({fields}) in {x(zone)}")
            case s.If(condition, then, elifs, otherwise):
                out = line(depth, f"if {self.holds(condition)}:") + self.block(then, depth + 1)
                for clause in elifs:
                    out += line(depth, f"otherwise, if {self.holds(clause.condition)}:") + self.block(
                        clause.body, depth + 1
                    )
                if otherwise is not None:
                    out += line(depth, "otherwise:") + self.block(otherwise, depth + 1)
                return out
            case s.For(var, source, body):
                return line(depth, f"for each {var} in {x(source)}:") + self.block(body, depth + 1)
            case s.While(condition, body):
                return line(depth, f"as long as {self.holds(condition)}:") + self.block(body, depth + 1)
            case s.Repeat(count, body):
                n = x(count)
                return line(depth, "once:" if n == "1" else f"repeat {n} times:") + self.block(body, depth + 1)
            case s.Match(subject, cases, otherwise):
                out = line(depth, f"depending on {x(subject)}:")
                for case in cases:
                    out += line(depth + 1, f"if {x(case.value)}:") + self.block(case.body, depth + 2)
                if otherwise is not None:
                    out += line(depth + 1, "otherwise:") + self.block(otherwise, depth + 2)
                return out
            case s.Attempt(body, otherwise):
                out = line(depth, "try the following, all or nothing:") + self.block(body, depth + 1)
                if otherwise is not None:
                    out += line(depth, "if that fails:") + self.block(otherwise, depth + 1)
                return out
            case s.Together(body):
                return line(depth, "all at once (rules are checked afterwards):") + self.block(body, depth + 1)
            case s.Secret(body):
                return line(
                    depth, "in secret (the other players see only that a secret choice was made):"
                ) + self.block(body, depth + 1)
            case s.Fail(message):
                return line(depth, f"this fails: {quoted(message)}")
            case s.Require(condition, message):
                return line(depth, f"this requires that {self.holds(condition)} (else it fails: {quoted(message)})")
            case s.Choose(target, quantity, count, source, by, prompt):
                how_many = QUANTITY_WORDS[quantity].format(n=x(count) if count is not None else "")
                ask = f" ({x(prompt)})" if prompt else ""
                who = self.who(by)
                verb = "picks" if who == "chance" else "chooses"
                return line(
                    depth,
                    f"{who} {verb} {how_many} {x(source)}{ask}; call that {target}",
                    capital=not isinstance(by, s.Name),
                )
            case s.Menu(by, prompt, options):
                ask = f" ({x(prompt)})" if prompt else ""
                out = line(depth, f"{self.who(by)} chooses one{ask}:", capital=not isinstance(by, s.Name))
                for option in options:
                    when = f", only if {self.holds(option.when)}" if option.when is not None else ""
                    out += line(depth + 1, f"{quoted(option.label)}{when}:") + self.block(option.body, depth + 2)
                return out
            case s.Use(ability, args, upto, by):
                chooser = f" ({self.who(by)} chooses)" if by is not None else ""
                return line(
                    depth,
                    f"use the ability {words(ability)} ({', '.join(x(a) for a in args)}), "
                    f"any tier up to {x(upto)}, or none{chooser}",
                )
            case s.CallStmt(name, args):
                return line(depth, f"{words(name)} ({', '.join(x(a) for a in args)})" if args else words(name))
            case s.Return(value):
                return line(depth, "stop here" if value is None else f"the result is {x(value)}")
            case s.EndGame(winners):
                return line(depth, "the game ends" + (f"; the winners are {x(winners)}" if winners else ""))
            case s.EndUnfinished(text):
                return line(depth, f"the game stops unfinished, with no winner: {x(text)}")
            case s.EndTogether(won):
                return line(depth, "the game ends: the players " + ("win" if won else "lose") + " together")
            case s.Say(text):
                return line(depth, f"announce {x(text)}")
            case _:
                assert_never(st)

    # ------------------------------------------------------------ declarations

    def params(self, params: Sequence[s.Param]) -> str:
        texts = [f"{type_words(p.type)} {p.name}" for p in params]
        return texts[0] if len(texts) == 1 else ", ".join(texts[:-1]) + " and " + texts[-1]

    def ability(self, a: s.AbilityDecl) -> list[str]:
        out = [f"Ability {words(a.name)}, for {self.params(a.params)}: {quoted(a.text)}"]
        for tier in a.tiers:
            when = f", only if {self.holds(tier.when)}" if tier.when is not None else ""
            out.append(f"{NESTED}Tier {tier.level}: {quoted(tier.text)}{when}")
            out.extend(self.block(tier.body, 2))
        return out

    def rule(self, r: s.RuleDecl) -> list[str]:
        binds = " and ".join(f"{b.name} in {self.x(b.source)}" for b in r.bindings)
        where = f"for any {binds}, " if binds else ""
        return [f"Rule {words(r.name)}: {where}whenever {self.holds(r.when)}:", *self.block(r.body, 1)]

    def invariant(self, d: s.InvariantDecl) -> list[str]:
        binds = " and ".join(f"{b.name} in {self.x(b.source)}" for b in d.bindings)
        where = f"for every {binds}, " if binds else ""
        return [f"Invariant {words(d.name)}: {where}always {self.holds(d.condition)}."]

    def proc(self, d: s.ProcDecl) -> list[str]:
        given = f", given {self.params(d.params)}" if d.params else ""
        return [f"To {words(d.name)}{given}:", *self.block(d.body, 1)]

    def fn(self, d: s.FnDecl) -> list[str]:
        names = [p.name for p in d.params]
        if isinstance(d.body, s.Compare | s.And | s.Or | s.Not | s.In | s.BoolLit) and names:
            return [f"{words(d.name).capitalize()}({', '.join(names)}) holds when {self.holds(d.body)}."]
        if len(names) <= 1:
            return [sentence(f"{of(d.name, names[0] if names else '')} is {self.x(d.body)}")]
        return [f"{words(d.name).capitalize()}({', '.join(names)}) is {self.x(d.body)}."]

    def card(self, name: str) -> list[str]:
        ct = self.program.cards[name]
        texts = [f"{article(words(f))} ({type_words(s.NamedType(str(t)))})" for f, t in ct.fields]
        fields = (texts[0] if len(texts) == 1 else ", ".join(texts[:-1]) + " and " + texts[-1]) if texts else ""
        label = f"; it is shown as {quoted(ct.label)}" if ct.label else ""
        head = article(name)
        return [f"{head[0].upper()}{head[1:]} card has {fields or 'no fields'}{label}."]

    def zone(self, z: s.ZoneDecl) -> list[str]:
        seen = {
            "public": "seen by everyone",
            "owner": "seen only by its owner",
            "others": "seen by everyone but its owner (who sees how many)",
            "hidden": "seen by nobody",
            "top": "only its top card is seen",
            "count": "only its size is seen",
        }[z.visibility]
        each = (
            f", one per {' and '.join(str(k.name) if isinstance(k, s.NamedType) else '?' for k in z.keys)}"
            if z.keys
            else ""
        )
        shuffled = ", shuffled (drawing from it is chance)" if z.shuffled else ""
        name = words(z.name) if z.display is None else f"{z.display} ({z.name})"
        return [f"Zone {name}{each}: {z.card_type} cards, {seen}{shuffled}."]

    def var(self, v: s.VarDecl) -> list[str]:
        each = (
            f", one per {' and '.join(k.name if isinstance(k, s.NamedType) else '?' for k in v.keys)}" if v.keys else ""
        )
        name = words(v.name) if v.display is None else f"{v.display} ({v.name})"
        return [
            f"Variable {name}{each}: {type_words(v.type)}, starting at {self.x(v.init)}, "
            f"{'seen by everyone' if v.visibility == 'public' else v.visibility}."
        ]

    def explain(self, name: str | None = None) -> str:
        p = self.program
        sections: list[tuple[str, list[list[str]]]] = []
        named: dict[str, list[str]] = {}
        named.update({n: [f"{n}: {', '.join(str(v) for v in vs)}."] for n, vs in p.enums.items()})
        named.update({n: self.card(n) for n in p.cards})
        named.update({n: self.zone(z) for n, z in p.zones.items()})
        named.update({n: self.var(v) for n, v in p.vars.items()})
        named.update({n: [f"{n} is {self.x(c.value)}."] for n, c in p.consts.items()})
        named.update({n: self.fn(f) for n, f in p.fns.items()})
        named.update({n: self.proc(d) for n, d in p.procs.items()})
        named.update({n: self.ability(a) for n, a in p.abilities.items()})
        named.update({r.name: self.rule(r) for r in p.rules})
        named.update({i.name: self.invariant(i) for i in p.invariants})
        if name is not None:
            if name not in named:
                raise RulecraftError(f"{p.name} declares nothing called '{name}'{did_you_mean(name, named)}")
            return "\n".join(named[name]) + "\n"
        sections.append(("Components", [named[n] for n in [*p.enums, *p.cards, *p.zones, *p.vars, *p.consts]]))
        sections.append(("Setup", [self.block(b, 0) for b in p.setup]))
        if p.play is not None:
            sections.append(("Play", [self.block(p.play, 0)]))
        sections.append(("Procedures", [named[n] for n in p.procs]))
        sections.append(("Abilities", [named[n] for n in p.abilities]))
        sections.append(("Rules (checked after every change)", [named[r.name] for r in p.rules]))
        sections.append(("Invariants (hold whenever the game waits)", [named[i.name] for i in p.invariants]))
        sections.append(("Functions", [named[n] for n in p.fns]))
        out = [f"# {p.name}, for {p.min_players} to {p.max_players} players"]
        for title, parts in sections:
            if not parts:
                continue
            out += ["", f"## {title}"]
            for part in parts:
                if title not in ("Components", "Functions"):
                    out.append("")
                out.extend(part)
        return "\n".join(out) + "\n"


def explain(program: Program, name: str | None = None) -> str:
    """The whole rulebook, or the declaration called `name`, in plain English."""
    return Explainer(program).explain(name)


__all__ = ["explain"]
