"""The words of the language, read from the Lark grammar (grammar/rules.lark) and the checker.

The highlighters (the Pygments lexer, the TextMate grammar) and the language server's completion
take their keywords from here, never from a list of their own: a keyword added to the grammar is
highlighted and completed at once, and `tests/test_editor.py` holds the generated TextMate file to
what this module says.

A keyword's kind comes from the grammar rule it appears in (its alias):
- the leading words of a declaration (`game`, `extend enum`, `override fn`, `tier`): declaration;
- the words of `true`, `false`, `none`: constant;
- the words of an expression operator (an alias ending in `_op`: `and`, `not in`, `sorted by`): operator;
- every other word of a rule (`move`, `to`, `choose`, `when`, …): keyword;
- the words of a terminal the grammar names (`VISIBILITY: "public" | "owner" …`, `SHUFFLED`,
  `QUANTITY`, `BOTTOM_OF`): modifier.
A word used in several ways takes the first kind of that list (`of` of `list of` is a keyword).
Built-in functions and names (`len`, `players`) and types (`int`) come from the checker; some are
grammar words too (`max`, `players`), which the highlighters show as grammar words.
"""

from __future__ import annotations

import functools
import re

import attrs

from ..check.program import BASIC_TYPES
from ..language.builtins import BUILTIN_NAMES, BUILTINS
from ..syntax.parser import grammar_words

_DECLARATION_ALIASES = re.compile(r".*(_decl|_extension|_override)$|^tier$")
_CONSTANT_ALIASES = {"true_lit", "false_lit", "none_lit"}

# Names the checker binds in a query's key (`hand[p] where it.value > 1`) and in scenarios.
PSEUDO_NAMES = ("it",)


@attrs.frozen
class Words:
    """The words of the language by kind, each tuple sorted."""

    declarations: tuple[str, ...]
    constants: tuple[str, ...]
    operators: tuple[str, ...]
    modifiers: tuple[str, ...]
    keywords: tuple[str, ...]
    builtins: tuple[str, ...]  # built-in functions and names (`len`, `players`)
    types: tuple[str, ...]  # built-in types (`int`, `Player`)

    def reserved(self) -> tuple[str, ...]:
        """Every word the grammar itself spells (not the builtins or types, which are names)."""
        return tuple(sorted({*self.declarations, *self.constants, *self.operators, *self.modifiers, *self.keywords}))


@functools.cache
def words() -> Words:
    """Read the keywords of the language from the grammar, and the builtins from the checker."""
    kinds: dict[str, set[str]] = {}
    for word, alias, leading, named in grammar_words():
        if named:
            kind = "modifier"
        elif alias in _CONSTANT_ALIASES:
            kind = "constant"
        elif leading and _DECLARATION_ALIASES.match(alias):
            kind = "declaration"
        elif alias.endswith("_op"):
            kind = "operator"
        else:
            kind = "keyword"
        kinds.setdefault(word, set()).add(kind)
    order = ("constant", "declaration", "operator", "keyword", "modifier")
    chosen = {word: next(k for k in order if k in ks) for word, ks in kinds.items()}

    def of(kind: str) -> tuple[str, ...]:
        return tuple(sorted(w for w, k in chosen.items() if k == kind))

    return Words(
        declarations=of("declaration"),
        constants=of("constant"),
        operators=of("operator"),
        modifiers=of("modifier"),
        keywords=of("keyword"),
        builtins=tuple(sorted({*BUILTINS, *BUILTIN_NAMES})),
        types=tuple(sorted(BASIC_TYPES)),
    )
