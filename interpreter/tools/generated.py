"""`rulecraft compile`: write the Python module a rulebook becomes, so that its author can read it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..compile.generate import generate
from ..console import UsageError
from ..errors import RulecraftError
from ..inputs import clip
from ..rulebook import load


def cmd_compile(args: argparse.Namespace) -> int:
    rb = load(args.game)
    source = generate(rb.program).source
    if args.output is None:
        sys.stdout.write(source)
        return 0
    path = Path(args.output)
    if path.is_dir():
        raise RulecraftError(f"-o {clip(args.output)}: is a folder, not a file")
    if path.exists() and not args.force:
        raise UsageError(f"-o {clip(args.output)}: the file is there already; give --force to replace it")
    try:
        path.write_text(source, encoding="utf-8")
    except OSError as exc:
        raise RulecraftError(f"-o {clip(args.output)}: cannot write the file: {exc.strerror or exc}") from None
    print(f"wrote {clip(args.output)} ({len(source.splitlines())} lines)")
    return 0


def register(sub: Any) -> None:
    """Add the `compile` command to the command line."""
    p = sub.add_parser(
        "compile",
        help="write the Python module a rulebook is compiled to",
        description="Write the Python module that a rulebook's expressions and functions are compiled to "
        "(the code the game runs); its LINES table maps each generated line to the expression it computes.",
    )
    p.add_argument("game", help="a bundled rulebook or a path")
    p.add_argument("-o", "--output", metavar="FILE.py", help="write the module to this file (default: print it)")
    p.add_argument("--force", action="store_true", help="with -o: replace an existing file")
    p.set_defaults(func=cmd_compile)
