"""The grammar (grammar/rules.lark) as a parser: built once per process, or loaded from the user's cache."""

from __future__ import annotations

import functools
import hashlib
import io
from typing import Any

from lark import Lark

from .. import cache

GRAMMAR_FILES = 4  # parsers kept in the disk cache (one for each version of the package), the newest
_LARK_OPTIONS: dict[str, Any] = {"parser": "lalr", "propagate_positions": True, "maybe_placeholders": True}


@functools.cache
def grammar_parser() -> Lark:
    """The parser, built from the grammar once per process, or loaded from the user's cache."""
    # The grammar and Lark's version are in `cache.version()` (the package's source), the options too.
    digest = hashlib.sha256(f"{cache.version()}\0{sorted(_LARK_OPTIONS.items())}".encode())
    name = f"grammar-{digest.hexdigest()[:32]}.lark"
    data = cache.load(name)
    if data is not None:
        try:
            return Lark.load(io.BytesIO(data))
        except Exception:  # a stale cache is rebuilt, never trusted
            pass
    parser = Lark.open_from_package("rulecraft.grammar", "rules.lark", **_LARK_OPTIONS)
    saved = io.BytesIO()
    parser.save(saved)
    cache.store(name, saved.getvalue(), keep=GRAMMAR_FILES)
    return parser
