"""`rulecraft compile`: write the Python a rulebook becomes, so that its author can read it: the module of
its expressions and functions, or (`--blocks`) the code of each block of statements."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..check.program import Program
from ..compile.generate import generate
from ..console import UsageError
from ..errors import RulecraftError, Span
from ..inputs import clip
from ..rulebook import load
from ..runtime.codecache import CodeCache, generated_block
from ..syntax import ast as s
from .coverage import Structure


def blocks_source(program: Program) -> str:
    """The generated code of every block of statements of the program (compile/blocks.py), each headed by
    where it stands and what its constants are. For reading: blocks are generated when they first run."""
    cache = CodeCache(program)
    structure = Structure(program)
    out = [
        "# The blocks of statements, as generated (compile/blocks.py): `run` does the block from statement `i`,",
        "# inline (0) or as its frame's step (from where the frame is). c0, c1, ... are the block's constants,",
        "# listed above it; a block is generated and compiled when it first runs, and blocks of one shape share",
        "# their compiled code.",
    ]
    for arm, stmts in structure.blocks:
        asked: dict[str, tuple[str, Any]] = {}
        run, _namespace, _owners = generated_block(stmts, cache, asked)
        out += ["", "", f"# ---- {arm.label} ({arm.file}:{arm.line})"]
        out += [f"#   {name} = {_describe(kind, of, stmts, structure)}" for name, (kind, of) in asked.items()]
        out.append(run.rstrip())
    return "\n".join(out) + "\n"


_KINDS = {"value": "the value of", "truth": "the truth of", "items": "the items of"}


def _describe(kind: str, of: Any, stmts: tuple[s.Stmt, ...], structure: Structure) -> str:
    """A constant of the code of block `stmts`, for people: the expression or block it is, and its line."""
    if kind in _KINDS:
        return f"{_KINDS[kind]} `{_text(of, structure)}` (line {of.span.line})"
    if of is stmts:
        return "this block's statements" if kind == "constant" else "this block's code (the frame of what is left)"
    if kind == "block":
        return f"the code of the block at line {of[0].span.line}" if of else "the code of an empty block"
    if kind == "method":
        return f"the {type(of).__name__.lower()} statement `{structure.head(of)}` (line {of.span.line})"
    if isinstance(of, s.Block):
        return f"the block at line {of.span.line} (what its frame holds)"
    if isinstance(of, Span):
        return f"the place {of.file}:{of.line}:{of.column}"
    if hasattr(of, "span"):
        return f"the node `{_text(of, structure)}` (line {of.span.line}), which its errors name"
    return repr(of)


def _text(node: Any, structure: Structure) -> str:
    """The source of a node on its first line."""
    span = node.span
    lines = structure.lines.get(span.file, [])
    if not 0 < span.line <= len(lines):
        return "?"
    line = lines[span.line - 1]
    text = line[span.column - 1 : span.end_column - 1] if span.end_line == span.line else line[span.column - 1 :]
    text = text.strip()
    return text if len(text) <= 70 else text[:67] + "..."


def cmd_compile(args: argparse.Namespace) -> int:
    rb = load(args.game)
    source = blocks_source(rb.program) if args.blocks else generate(rb.program).source
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
    p.add_argument(
        "--blocks",
        action="store_true",
        help="write the code each block of statements becomes instead (for reading: made when the block first runs)",
    )
    p.set_defaults(func=cmd_compile)
