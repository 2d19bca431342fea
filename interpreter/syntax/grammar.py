"""The grammar (grammar/rules.lark) as a parser: built once per process, or loaded from the user's cache."""

from __future__ import annotations

import functools
import hashlib
from importlib import resources
from typing import Any

import lark
from lark import Lark

from .. import cache

_LARK_OPTIONS: dict[str, Any] = {"parser": "lalr", "propagate_positions": True, "maybe_placeholders": True}


@functools.cache
def grammar_parser() -> Lark:
    """The parser, built from the grammar once per process, or loaded from the user's cache."""
    grammar = resources.files("rulecraft.grammar").joinpath("rules.lark").read_text(encoding="utf-8")
    digest = hashlib.sha256(f"{lark.__version__}\0{sorted(_LARK_OPTIONS.items())}\0{grammar}".encode())
    path = cache.file(f"grammar-{digest.hexdigest()[:32]}.lark")
    if path is not None and cache.readable(path):
        try:
            with path.open("rb") as f:
                return Lark.load(f)
        except Exception:  # a damaged or stale cache is rebuilt, never trusted
            pass
    parser = Lark.open_from_package("rulecraft.grammar", "rules.lark", **_LARK_OPTIONS)
    if path is not None:
        cache.write(path, parser.save)
    return parser
