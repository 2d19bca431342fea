"""The disk cache (cache.py): keyed by the whole package's source, and a file's content checked before use."""

from __future__ import annotations

import marshal
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import rulecraft
from rulecraft import cache
from rulecraft.runtime import compiled
from rulecraft.syntax import grammar

ROOT = Path(__file__).resolve().parent.parent

# `sum` is one of the built-ins compile/calls.py writes inline code for.
SUMS = """game T players 1..1
var v: int = 0 public
fn total(xs: list of int) = sum(xs)
fn score(p: Player) = v
play { set v = total([1, 2, 3]) end game winners [] }
"""
SCORE = "import rulecraft; print(rulecraft.load('s.rules').new_game(players=1, seed=1).result()['scores']['P1'])"


def test_the_key_covers_every_module_and_the_grammar(monkeypatch: pytest.MonkeyPatch) -> None:
    """The modules the generated code depends on beyond the generator (the built-ins' inline code, the
    checker, the value helpers) and the grammar are in the package's hash: a change to any of them is a
    new key for the generated code and the parser."""
    names = dict(cache.sources())
    for name in ("compile/generate.py", "compile/calls.py", "check/contents.py", "check/program.py"):
        assert name in names
    assert {"language/values.py", "grammar/rules.lark", "cache.py", "runtime/codecache.py"} <= set(names)
    before = cache.package_hash()
    assert before == cache.version()  # (as imported: the files have not changed)
    key = compiled.cache_key("0123456789abcdef")
    for edited in ("compile/calls.py", "language/values.py", "grammar/rules.lark"):
        changed = [(n, text + b"\n# edited\n" if n == edited else text) for n, text in names.items()]
        monkeypatch.setattr(cache, "sources", lambda changed=changed: changed)
        monkeypatch.setattr(cache, "_VERSION", cache.package_hash())
        assert cache.version() != before
        assert compiled.cache_key("0123456789abcdef") != key


def test_the_key_is_the_package_this_process_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The package's hash is read when it is imported: a process whose files are edited while it runs (a long
    soak) goes on keying what it makes by the code it runs."""
    before = cache.version()
    monkeypatch.setattr(cache, "sources", lambda: [("compile/calls.py", b"an edited module")])
    assert cache.package_hash() != before  # what reading the files now would give
    assert cache.version() == before


def _run(code: str, cwd: Path, cache_dir: Path, pythonpath: Path | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["RULECRAFT_CACHE_DIR"] = str(cache_dir)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_an_edited_module_that_emits_code_is_not_answered_from_the_cache(tmp_path: Path) -> None:
    """The user's path: a rulebook run, then the package's inline code for a built-in edited (a copy of the
    package, laid out as a wheel installs it), then the original again, all with one cache. Each gives its
    own answer: neither reuses the other's generated code."""
    copy = tmp_path / "site" / "rulecraft"
    shutil.copytree(ROOT / "interpreter", copy, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "grammar", copy / "grammar", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "rulebooks", copy / "rulebooks", ignore=shutil.ignore_patterns("__pycache__"))
    calls = copy / "compile" / "calls.py"
    text = calls.read_text(encoding="utf-8")
    assert 'body.emit(f"{t} = sum({v})")' in text
    calls.write_text(text.replace('body.emit(f"{t} = sum({v})")', 'body.emit(f"{t} = sum({v}) + 100")'), "utf-8")
    (tmp_path / "s.rules").write_text(SUMS, encoding="utf-8")
    shared = tmp_path / "cache"
    assert _run(SCORE, tmp_path, shared) == "6"
    assert _run(SCORE, tmp_path, shared, pythonpath=copy.parent) == "106"  # the edited package's own code
    assert _run(SCORE, tmp_path, shared) == "6"  # and the original's, once it is back
    assert len(list(shared.glob("compiled-*.marshal"))) == 2


def test_a_damaged_or_tampered_cache_file_is_made_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cached module whose content does not agree with the digest stored with it (damaged, or replaced by
    other valid code) is never run: the game gives the right answer and the file is written anew."""
    monkeypatch.setenv("RULECRAFT_CACHE_DIR", str(tmp_path))
    rb = rulecraft.load_text(SUMS, "s.rules")
    first = compiled.compile_program(rb.program, rb.digest).generated
    (path,) = tmp_path.glob("compiled-*.marshal")
    data = path.read_bytes()
    header = data[: _start(data)]  # (what the file keeps before its content: its digest)
    wrong = (first.source.replace("sum(", "100 + sum("), first.roots, first.fns, first.lines)
    damaged = data[:-7] + bytes(b ^ 0xFF for b in data[-7:])
    for bad in (header + marshal.dumps(wrong), damaged, data[:20], b""):
        path.write_bytes(bad)
        again = compiled.compile_program(rb.program, rb.digest).generated
        assert again.source == first.source
        game = rb.new_game(players=1, seed=1)  # (a new rulebook-level code cache: read from the disk)
        assert game.result()["scores"]["P1"] == 6
        assert path.read_bytes() == data  # made again
    # A good file under another rulebook's name is not that rulebook's code.
    other = rulecraft.load_text(SUMS.replace("1, 2, 3", "4, 5"), "s.rules")
    other_path = tmp_path / f"compiled-{compiled.cache_key(other.digest)}.marshal"
    other_path.write_bytes(data)
    assert cache.load(other_path.name) is None
    assert compiled.compile_program(other.program, other.digest).generated.source != first.source


def _start(data: bytes) -> int:
    """Where the marshalled module starts in a cached file."""
    for start in range(64):
        try:
            if isinstance(marshal.loads(data[start:]), tuple):
                return start
        except (ValueError, EOFError, TypeError):
            pass
    raise AssertionError("no module in the file")


def test_a_damaged_grammar_in_the_cache_is_built_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The saved parser (a pickle) is read only when its digest agrees: a damaged one is rebuilt, and parses."""
    monkeypatch.setenv("RULECRAFT_CACHE_DIR", str(tmp_path))
    grammar.grammar_parser.cache_clear()
    try:
        grammar.grammar_parser()
        (path,) = tmp_path.glob("grammar-*.lark")
        good = path.read_bytes()
        path.write_bytes(good[:32] + b"\x80\x04not a parser")
        grammar.grammar_parser.cache_clear()
        parser = grammar.grammar_parser()
        assert parser.parse("game T players 1..2\n") is not None
        assert path.read_bytes() != good[:32] + b"\x80\x04not a parser" and cache.load(path.name) is not None
    finally:
        grammar.grammar_parser.cache_clear()
