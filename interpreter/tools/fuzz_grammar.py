"""The programs that `rulecraft fuzz` makes from the grammar: generated at random (`generate`), spliced
from the language's constructs (`splice`), and unwound cases of failing steps inside attempts (`unwound`).

(Moved out of fuzz.py, which re-exports them.)
"""

from __future__ import annotations

import random
from functools import cache

from ..language.builtins import BUILTINS

# ---------------------------------------------------------------------------- generation from the grammar

_NAMES = (
    "p",
    "p",
    "c",
    "c",
    "x",
    "n",
    "n",
    "w",
    "w",
    "it",
    "hand",
    "deck",
    "row",
    "row",
    "pile",
    "points",
    "Colour",
    "red",
    "blue",
    "Chip",
    "players",
    "table",
    "score",
    "colour",
    "Player",
    "int",
    "len",
    "top",
    "first",
    "sum",
    "next",
    "key_of",
    "zone_of",
    "label",
    "unique",
    "abs",
    "seat",
    "ord",
    "max",
    "min",
)
_PRELUDE = """game G players 1..3
enum Colour { red, blue }
card Chip { colour: Colour, n: int } label "{colour} {n}"
zone deck: Chip hidden shuffled
zone hand[Player]: Chip owner
zone row: Chip public
zone pile: Chip top
var points[Player]: int = 0 public
var w: any = none public
fn score(p: Player) = points[p]
"""


@cache
def _grammar() -> tuple[dict[str, list[list[str]]], dict[str, str], dict[str, int]]:
    from ..syntax.grammar import grammar_parser

    lark = grammar_parser()
    rules: dict[str, list[list[str]]] = {}
    for rule in lark.rules:
        rules.setdefault(str(rule.origin.name), []).append([str(sym.name) for sym in rule.expansion])
    literals = {}
    for term in lark.terminals:
        if term.pattern.type == "str":
            literals[term.name] = term.pattern.value
    # The height of the smallest tree below each rule, so that deep expansions can stop.
    height = dict.fromkeys(rules, 10**6)
    changed = True
    while changed:
        changed = False
        for name, expansions in rules.items():
            best = min(1 + max((height.get(sym, 0) for sym in e), default=0) for e in expansions)
            if best < height[name]:
                height[name], changed = best, True
    return rules, literals, height


_TERMINAL_CHOICES = {
    "VISIBILITY": ("public", "owner", "hidden", "top", "count"),
    "SHUFFLED": ("shuffled",),
    "ASSIGN_OP": ("=", "+=", "-="),
    "BOTTOM_OF": ("bottom of",),
    "QUANTITY": ("one", "exactly", "upto", "any", "order"),
    "COMP_OP": ("==", "!=", "<=", ">=", "<", ">"),
    "ADD_OP": ("+", "-"),
    "MUL_OP": ("*", "//", "%"),
    "STRING": ('"a"', '"{p}"', '""', '"{c.colour}"', '"é"'),
}


def generate(rng: random.Random, max_depth: int = 10) -> str:
    """A random program from the grammar (after a small valid prelude, so names often resolve)."""
    rules, literals, height = _grammar()
    out: list[str] = []

    def expand(symbol: str, depth: int) -> None:
        if symbol in rules:
            options = rules[symbol]
            if depth >= max_depth or len(out) > 300:
                least = min(max((height.get(sym, 0) for sym in e), default=0) for e in options)
                options = [e for e in options if max((height.get(sym, 0) for sym in e), default=0) == least]
            for sym in rng.choice(options):
                expand(sym, depth + 1)
        elif symbol in literals:
            out.append(literals[symbol])
        elif symbol == "NAME":
            out.append(rng.choice(_NAMES))
        elif symbol == "INT":
            out.append(str(rng.choice((0, 1, 2, 3, 5, 100))))
        elif symbol in _TERMINAL_CHOICES:
            out.append(rng.choice(_TERMINAL_CHOICES[symbol]))
        else:
            out.append(symbol)

    for _ in range(rng.choice((0, 0, 1, 2))):
        expand("decl", 0)
        out.append("\n")
    out.append(
        "setup { for p in players { create 2 Chip { colour: red, n: 1 } in hand[p] }\n"
        "  create 3 Chip { colour: blue, n: 2 } in row  create 4 Chip { colour: red, n: 3 } in deck }\n"
        "play {\n  let p = first(players)  let c = top(row)  let n = 1  let x = [1, 2]\n "
    )
    for _ in range(rng.randint(1, 6)):
        expand("stmt", 1)
        out.append("\n ")
    out.append("}")
    return _PRELUDE + " ".join(out) + "\n"


_ATOMS = (
    "none",
    "w",
    "0",
    "1",
    "-1",
    '"a"',
    '""',
    "red",
    "blue",
    "players[0]",
    "p",
    "c",
    "row",
    "hand[p]",
    "deck",
    "pile",
    "[]",
    '[1, "a"]',
    "[red, 1]",
    "[[1], [2]]",
    "table",
    "true",
    "{v: 1}",
    "players",
    "Colour",
    "99999999999999999999",
    "n",
    "x",
    "first(row)",
    "top(pile)",
    "1..3",
)
_BUILTINS = tuple(BUILTINS)
_STATEMENTS = (
    "set w = {e}",
    'say "{{w}} {{c.colour}} {{p}}"',
    "move {e} to row",
    "move {e} to hand[p]",
    "draw {e} from deck to hand[p]",
    "for y in {e} {{ set w = y }}",
    "repeat {e} {{ }}",
    "let y = choose one from {e} by p",
    "let y = choose upto {e} from row by p",
    "create {e} Chip {{ colour: red, n: 1 }} in row",
    "if {e} == w {{ set w = {e} }}",
    "attempt {{ set w = {e} }} else {{ }}",
    "end game winners {e}",
    "set c.n = {e}",
)


def _splice_expr(rng: random.Random, depth: int = 0) -> str:
    roll = rng.random()
    if depth >= 2 or roll < 0.3:
        return rng.choice(_ATOMS)
    if roll < 0.7:
        args = ", ".join(_splice_expr(rng, depth + 1) for _ in range(rng.choice((0, 1, 1, 2, 2, 3))))
        return f"{rng.choice(_BUILTINS)}({args})"
    if roll < 0.85:
        op = rng.choice(
            (
                "where it == w",
                "sorted by it",
                "max by it",
                "min by it",
                "group by it",
                "map it",
                "where it.colour == red",
                "map it.n",
            )
        )
        return f"({_splice_expr(rng, depth + 1)} {op})"
    op = rng.choice(("+", "-", "*", "//", "%", "==", "<", "in", "and", ".."))
    return f"({_splice_expr(rng, depth + 1)} {op} {_splice_expr(rng, depth + 1)})"


# Changes of every kind, made inside an attempt or a tier before the statements that may fail.
_CHANGES = (
    "set points[p] += 1",
    "set w = {e}",
    "move top(row) to pile",
    "move top(row) to heap[{k}]",
    "create 1 Chip {{ colour: blue, n: {k} }} in heap[{k}]",
    "set top(row).n = {k}",
    "draw 1 from deck to hand[p]",
    "let y = choose one from row by p",
)
# Values that the checker lets through (`w` is `any`) and that are often of the wrong kind, or not there.
_RISKY = (
    "w",
    "none",
    "top(heap[{k}])",
    "first(hand[p])",
    "(w + 1)",
    "(1 // len(heap[{k}]))",
    "abs(w)",
    "[1, 2][len(heap[{k}])]",
    "top(heap[{k}]).n",
    "next(w)",
    "(w where it.n > 1)",
    "sorted([1, w])",
    "([1, w] max by it)",
    "{k}",
    "[{k}, w]",
)
# Statements that fail for many values (and one that always does).
_FAILING = (
    'fail "f"',
    'require {e} == w else "r"',
    "set w = {e}",
    "set points[p] += {e}",
    "let y = [1, 2][{e}]",
    "let y = {e}.n",
    "let y = 1 // {e}",
    "set w += {e}",
    "move {e} to row",
    "move top(row) to {e}",
    "move top(heap[{k}]) to row",
    "for y in {e} {{ set w = y }}",
    "repeat {e} {{ }}",
    "if {e} {{ set w = 1 }}",
    "let y = choose one from {e} by p",
    "let y = choose exactly {e} from row by p",
    'say "{{w.n}}"',
    "end game winners {e}",
)
# The state, as text: the same before an attempt and after it fails.
_FINGERPRINT = (
    "fn fingerprint() = label([w, [points[q] for q in players], row map label(it), pile map label(it), "
    "deck map label(it), [hand[q] map label(it) for q in players], [heap[k] map label(it) for k in 0..3]])\n"
)


def _unwound_block(rng: random.Random) -> str:
    def risky() -> str:  # typed `any` by the list with `w`, so that the checker lets it anywhere
        return "[" + rng.choice(_RISKY).format(k=rng.randint(0, 3)) + ", w][0]"

    changes = [rng.choice(_CHANGES) for _ in range(rng.randint(1, 3))]
    failing = [rng.choice(_FAILING) for _ in range(rng.randint(1, 2))]
    return "  ".join(s.format(e=risky(), k=rng.randint(0, 3)) for s in changes + failing)


def unwound(rng: random.Random) -> str:
    """Failing statements inside attempts and a tier, each checked to leave the state as it found it."""
    steps = []
    for _ in range(rng.randint(1, 3)):
        if rng.random() < 0.5:
            steps.append(
                f"set saved = fingerprint()\n  attempt {{ {_unwound_block(rng)} }} else {{\n"
                '    if fingerprint() != saved { fail "an attempt that failed was not undone" }\n  }'
            )
        else:
            steps.append(
                "set saved = fingerprint()  set tier_ran = false\n  use risk(p) upto 1\n"
                '  if not tier_ran and fingerprint() != saved { fail "a tier that failed was not undone" }'
            )
    tier = f'tier 1 "Risk" {{ set tier_ran = true  {_unwound_block(rng)} }}'
    ability = f'ability risk(p: Player) "Risk" {{\n  tier 0 "Nothing" {{ }}\n  {tier}\n}}\n'
    return (
        _PRELUDE
        + 'zone heap[int]: Chip public\nvar saved: str = "" public\nvar tier_ran: bool = false public\n'
        + _FINGERPRINT
        + ability
        + "setup { for p in players { create 2 Chip { colour: red, n: 1 } in hand[p] }\n"
        "  create 3 Chip { colour: blue, n: 2 } in row  create 4 Chip { colour: red, n: 3 } in deck\n"
        "  create 1 Chip { colour: blue, n: 4 } in pile }\n"
        "play {\n  let p = first(players)  let c = top(row)  let n = 1  let x = [1, 2]\n  set w = c\n  "
        + "\n  ".join(steps)
        + "\n}\n"
    )


def splice(rng: random.Random) -> str:
    """A valid prelude and play block, with statements of values of any kind spliced in (`w` is `any`)."""
    body = "\n  ".join(rng.choice(_STATEMENTS).format(e=_splice_expr(rng)) for _ in range(rng.randint(1, 4)))
    return (
        _PRELUDE + "setup { for p in players { create 2 Chip { colour: red, n: 1 } in hand[p] }\n"
        "  create 3 Chip { colour: blue, n: 2 } in row  create 4 Chip { colour: red, n: 3 } in deck\n"
        "  create 1 Chip { colour: blue, n: 4 } in pile }\n"
        "play {\n  let p = first(players)  let c = top(row)  let n = 1  let x = [1, 2]\n  set w = c\n  "
        + body
        + "\n}\n"
    )
