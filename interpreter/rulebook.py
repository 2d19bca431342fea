"""Load a rulebook: read its files (following includes), parse, check, and prepare it to run."""

from __future__ import annotations

import functools
import hashlib
import inspect
from collections import OrderedDict
from importlib import resources
from pathlib import Path
from typing import Any

from .check.checker import Checker
from .check.program import Program
from .errors import Diagnostic, GameError, RulebookError, RulecraftError, Span
from .inputs import InputProblem, clip, decode, read_regular, within
from .runtime.codecache import CodeCache
from .runtime.game import Game
from .runtime.state import card_class, make_converter
from .syntax import ast as s
from .syntax.parser import parse

# A rulebook (all its files together) larger than this is refused before parsing. Parsing takes
# about 200 bytes of memory per byte of text, and time: some 15 KB a second for the slowest text
# measured (a list literal of one-digit numbers, on this project's loaded 2-core machine; a
# bundled rulebook parses ten times faster), so this bounds a load to some 7 s. The largest
# bundled rulebook is 30 KB.
MAX_RULEBOOK_BYTES = 100_000
MAX_RULEBOOK_FILES = 64  # files in one rulebook, includes counted
CACHE_SIZE = 32  # checked rulebooks (and parsed files) kept in memory, the least recently used dropped first

# Parsing and checking depend only on the text of the files, so both are kept in memory, keyed by
# a hash of the text (a file changed on disk is parsed again). A cached Rulebook is shared by every
# load of the same text: nothing mutates a Rulebook or its Program after checking (games keep their
# own state), so sharing is safe.
_parsed: OrderedDict[tuple[str, str], s.Rulebook] = OrderedDict()
_checked: OrderedDict[tuple[str, str], Rulebook] = OrderedDict()


class Rulebook:
    """A checked rulebook, ready to start games: `rb.new_game(players=3, seed=1)`."""

    def __init__(self, program: Program, name: str, digest: str):
        self.program = program
        self.name = name
        self.digest = digest
        self.card_classes = {n: card_class(ct) for n, ct in program.cards.items()}
        self.labels = {n: ct.label for n, ct in program.cards.items() if ct.label}
        self.converter = make_converter(program, self.card_classes)
        self.label_cache: dict[Any, Any] = {}  # card labels, filled by the games (see Game.label)
        self.code_cache: CodeCache | None = None  # its generated code, made by the games (codecache.py)
        self.key_info: dict[str, Any] = {}  # what each zone or variable key is, filled by the games (Game.view)

    def new_game(self, players: int | None = None, seed: int | None = 0, **options: Any) -> Game:
        """Start a game (setup runs at once, up to the first decision)."""
        program = self.program
        if players is not None and (not isinstance(players, int) or isinstance(players, bool)):
            raise GameError(
                f"players is a whole number of seats ({program.min_players} to {program.max_players}), "
                f"not {clip(repr(players))}"
            )
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise GameError(
                f"seed is a whole number (or None: chance is answered from outside), not {clip(repr(seed))}"
            )
        known = _game_options()
        for key, value in options.items():
            if key not in known:
                raise GameError(f"new_game has no option {clip(key)!r}: its options are {', '.join(known)}")
            if isinstance(known[key], bool) and not isinstance(value, bool):
                raise GameError(f"the option {key} is True or False, not {clip(repr(value))}")
        return Game(self, players if players is not None else program.min_players, seed, **options)

    def __repr__(self) -> str:
        players = f"{self.program.min_players}-{self.program.max_players} players"
        return f"<Rulebook {self.name} ({self.program.name}, {players})>"


@functools.cache
def _game_options() -> dict[str, Any]:
    """The switches of a game (`trace=`, `check_invariants=`, ...) and their defaults.

    (`before_play`, a function, is not one: a caller that edits a position makes its `Game` itself.)
    """
    params = inspect.signature(Game.__init__).parameters.values()
    return {
        p.name: p.default
        for p in params
        if p.kind is p.KEYWORD_ONLY and not p.name.startswith("_") and isinstance(p.default, bool)
    }


def bundled_names() -> list[str]:
    """Names of the rulebooks shipped with rulecraft."""
    root = resources.files("rulecraft.rulebooks")
    return sorted(p.name[: -len(".rules")] for p in root.iterdir() if p.name.endswith(".rules"))


def _read_bundled(name: str) -> str:
    return resources.files("rulecraft.rulebooks").joinpath(name).read_text(encoding="utf-8")


def _is_bundled(name: str) -> bool:
    return "/" not in name and not name.endswith(".rules") and name in bundled_names()


def clear_cache() -> None:
    """Forget every parsed and checked rulebook kept in memory (the next load parses and checks again)."""
    _parsed.clear()
    _checked.clear()


def _remember(cache: OrderedDict[Any, Any], key: Any, value: Any) -> None:
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > CACHE_SIZE:
        cache.popitem(last=False)


def remember_parse(file: str, text: str, tree: s.Rulebook) -> None:
    """Keep a file's parse for the next load of the same text (the language server parses first)."""
    _remember(_parsed, (file, _text_hash(file, text)), tree)


def _text_hash(file: str, body: str) -> str:
    return hashlib.sha256(f"{file}\0{body}".encode()).hexdigest()


def load(name_or_path: str | Path) -> Rulebook:
    """Load a bundled rulebook by name (`tutorial`) or a rulebook file by path."""
    name = str(name_or_path)
    if _is_bundled(name):
        return _load_files(f"{name}.rules", bundled=True)
    path = Path(name)
    if not path.exists():
        hint = ", ".join(bundled_names()) or "none"
        raise RulecraftError(f"no rulebook '{name}': not a file, nor a bundled rulebook (bundled: {hint})")
    return _load_files(str(path), bundled=False)


def load_text(text: str, file: str = "<string>") -> Rulebook:
    """Load a rulebook from text (includes resolve against the current folder or the bundled ones)."""
    return _load_files(file, bundled=False, text=text)


def read_rulebook_file(file: str) -> str:
    """The text of one rulebook file read as `check` reads it (`fmt` reads so too): a regular file
    of at most MAX_RULEBOOK_BYTES bytes of UTF-8. Anything else is a RulecraftError of one line:
    located (`file:line:col: error: ...`) when it is a RulebookError, as `check` reports it."""
    try:
        return _read_file(file)
    except InputProblem as exc:
        raise RulebookError([_input_problem(file, exc, None)]) from None


def _read_file(file: str) -> str:
    """A regular file only (a pipe or a device could block or never end, and is refused before it
    is read), read with a bound; InputProblem if it is not a rulebook's text."""
    return decode(read_regular(file, MAX_RULEBOOK_BYTES, "a rulebook"), file, "a rulebook")


def _input_problem(file: str, exc: InputProblem, via: Span | None) -> Diagnostic:
    """The diagnostic of a file that cannot be read as a rulebook (`via`: the include that names
    it); a file too large is a RulecraftError at once."""
    if exc.too_large:
        raise RulecraftError(f"{file}: more than {MAX_RULEBOOK_BYTES} bytes is more than a rulebook may be") from None
    # Line 1 at the least: every diagnostic names a place in a file.
    message = exc.message if via is None else f"{clip(file)}: {exc.message}"
    return Diagnostic(exc.span or via or Span(file, 1, 1), message)


def _load_files(first: str, bundled: bool, text: str | None = None) -> Rulebook:
    sources: dict[str, str] = {}
    files: list[tuple[str, s.Rulebook]] = []
    errors: list[Diagnostic] = []

    def read(file: str, from_bundle: bool, via: Span | None) -> None:
        if file in sources:
            return
        try:
            if text is not None and file == first:
                body = text
            elif from_bundle:
                body = _read_bundled(file)
            else:
                body = _read_file(file)
        except InputProblem as exc:
            errors.append(_input_problem(file, exc, via))
            return
        except OSError as exc:
            errors.append(Diagnostic(via or Span(file, 1, 1), f"cannot read {clip(file)}: {exc.strerror or exc}"))
            return
        total[0] += len(body)
        if len(body) > MAX_RULEBOOK_BYTES or total[0] > MAX_RULEBOOK_BYTES:
            raise RulecraftError(
                f"{file}: more than {MAX_RULEBOOK_BYTES} characters (with its includes) is more than a rulebook may be"
            )
        if len(sources) >= MAX_RULEBOOK_FILES:
            errors.append(Diagnostic(via or Span(file, 1, 1), f"more than {MAX_RULEBOOK_FILES} files in one rulebook"))
            return
        sources[file] = body
        key = (file, _text_hash(file, body))
        tree = _parsed.get(key)
        if tree is None:
            try:
                tree = parse(body, file)
            except RulebookError as exc:
                errors.extend(exc.diagnostics)
                return
            _remember(_parsed, key, tree)
        for decl in tree.decls:
            if isinstance(decl, s.IncludeDecl):
                target, target_bundled = _resolve_include(file, from_bundle, decl.path, roots)
                if target is None or target.startswith("!"):
                    errors.append(
                        Diagnostic(decl.span, target[1:] if target else f"cannot find included rulebook '{decl.path}'")
                    )
                    continue
                read(target, target_bundled, decl.span)
        files.append((file, tree))

    total = [0]
    try:
        roots = [Path.cwd(), Path(first).resolve().parent.parent]
    except (OSError, RuntimeError):  # a symlink loop: reading it fails below, with its message
        roots = [Path.cwd()]
    read(first, bundled, None)
    if errors:
        raise RulebookError(errors, sources)
    # The hash names the text, not where it was read from: the same rulebook loaded by another path
    # (a record replayed from another folder) has the same hash.
    digest = hashlib.sha256("\0".join(f"{Path(f).name}\0{sources[f]}" for f, _ in files).encode()).hexdigest()[:16]
    name = Path(first).name[: -len(".rules")] if first.endswith(".rules") else first
    # The cache key names the paths too: spans (and so error messages) name the files read.
    full_key = (name, hashlib.sha256("\0".join(f"{f}\0{sources[f]}" for f, _ in files).encode()).hexdigest())
    cached = _checked.get(full_key)
    if cached is not None:
        _checked.move_to_end(full_key)
        return cached
    # The including file's declarations come after what it includes, so order is includes-first.
    program = Checker(files, sources).check()
    rulebook = Rulebook(program, name, digest)
    _remember(_checked, full_key, rulebook)
    return rulebook


def _resolve_include(including: str, from_bundle: bool, path: str, roots: list[Path]) -> tuple[str | None, bool]:
    """Where an include leads: (file, bundled?), (None, _) if nowhere, ("!why", _) if it may not go there.

    An include reads only rulebook files: a bundled rulebook by name, or a relative path ending
    in `.rules` to a regular file (an extension beside a game may say `include "../game.rules"`).
    Never a device, a pipe, a folder or a file of another kind, nor a symlink to one. Its real
    path lies inside the `roots`: the current folder, or the folder that holds the first
    rulebook's folder (so a part below the rulebook or beside its folder is read, and nothing
    farther away). A bundled rulebook includes only bundled rulebooks.
    """
    if from_bundle:
        return (path, True) if path in {f"{n}.rules" for n in bundled_names()} else (None, False)
    if not path.endswith(".rules") or "\0" in path:
        return f"!an include names a rulebook file ending in .rules, not '{path}'", False
    if Path(path).is_absolute():
        return f"!an include names a path relative to the including file, not '{path}'", False
    candidate = Path(including).parent / path
    try:
        exists = candidate.exists()
    except OSError:  # a name too long for the file system, say
        exists = False
    if exists:
        resolved = candidate.resolve()
        if not resolved.is_file():
            return f"!'{path}' is not a regular file", False
        if not resolved.name.endswith(".rules"):  # a symlink named .rules to some other file
            return f"!'{path}' leads to {resolved.name}, which is not a .rules file", False
        if not within(resolved, roots):
            return (
                f"!'{path}' lies outside the folders a rulebook may include from ({', '.join(str(r) for r in roots)})",
                False,
            )
        return str(candidate), False
    bare = path[: -len(".rules")] if path.endswith(".rules") else path
    if bare in bundled_names():
        return f"{bare}.rules", True
    return None, False
