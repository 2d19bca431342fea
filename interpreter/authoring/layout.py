"""What the formatter (fmt.py) builds on: the comments of the source and their alignment, string
literals that read back as their text, how strongly each expression binds, and how a type is written.

(Moved out of fmt.py, which re-exports them.)
"""

from __future__ import annotations

from typing import assert_never

from ..errors import source_lines
from ..syntax import ast as s
from ..syntax.parser import comment_start

ALIGN = "\x00"  # stands between code and its end-of-line comment until the comments are aligned


def align_comments(lines: list[str]) -> list[str]:
    """Align the end-of-line comments of consecutive lines two spaces after the longest code."""
    out = list(lines)
    i = 0
    while i < len(out):
        if ALIGN not in out[i]:
            i += 1
            continue
        j = i
        while j < len(out) and ALIGN in out[j]:
            j += 1
        width = max(len(line.split(ALIGN)[0].rstrip()) for line in out[i:j])
        for k in range(i, j):
            code, comment = out[k].split(ALIGN, 1)
            out[k] = code.rstrip().ljust(width) + "  " + comment
        i = j
    return out


# ---------------------------------------------------------------- comments in the source


class Comment:
    __slots__ = ("line", "text", "trailing")

    def __init__(self, line: int, text: str, trailing: bool):
        self.line, self.text, self.trailing = line, text, trailing


def find_comments(text: str) -> list[Comment]:
    """Every `#` comment of the source with its 1-based line; `trailing` if code precedes it."""
    out = []
    for number, line in enumerate(source_lines(text), 1):
        i = comment_start(line)
        if i >= 0:
            out.append(Comment(number, line[i:].rstrip(), bool(line[:i].strip())))
    return out


# ---------------------------------------------------------------- expressions

# Binding strength of each expression form, as in grammar/rules.lark (weakest first).
TERNARY, QUERY, OR, AND, NOT, COMPARE, RANGE, SUM, PRODUCT, UNARY, POSTFIX, ATOM = range(12)
QUERY_WORDS = {
    "where": "where",
    "sorted": "sorted by",
    "max": "max by",
    "min": "min by",
    "group": "group by",
    "map": "map",
}


def quote(text: str) -> str:
    """A string literal that the parser reads back as `text`."""
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 32 or ord(ch) == 127:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def filled(text: str) -> str:
    """A string literal, where placeholders are filled in, that the parser reads back as `text`."""
    return quote(text.replace("{", "{{").replace("}", "}}"))


def level(e: s.Expr) -> int:
    match e:
        case s.CondExpr():
            return TERNARY
        case s.Query():
            return QUERY
        case s.Or():
            return OR
        case s.And():
            return AND
        case s.Not():
            return NOT
        case s.Compare() | s.In():
            return COMPARE
        case s.RangeOp():
            return RANGE
        case s.Binary(op):
            return SUM if op in ("+", "-") else PRODUCT
        case s.Neg():
            return UNARY
        case s.FieldAccess() | s.Index() | s.Call():
            return POSTFIX
        case _:
            return ATOM


def type_text(t: s.TypeExpr) -> str:
    match t:
        case s.NamedType(name):
            return name
        case s.ListType(element):
            return f"list of {type_text(element)}"
        case _:
            assert_never(t)
