"""A per-user cache directory for data that is slow to compute and safe to recompute.

The directory is `$RULECRAFT_CACHE_DIR`, else `$XDG_CACHE_HOME/rulecraft`, else
`~/.cache/rulecraft`; `RULECRAFT_CACHE_DIR=off` turns the cache off. Cached files may be
unpickled, so they are only read from a directory and files that belong to the current user and
that nobody else may write; they are written whole (a temporary file, then a rename), so a reader
never sees half a file. Any problem means "no cache", never an error.

Every key names `version()`: a hash of all of the package's source (each module and the grammar),
of Python's bytecode tag and of Lark's version, so that any change to the package (a module that
emits code, a checker the generated code relies on, a value's helper) makes new keys, and nothing
made by other code is read. A cached file holds a digest of its name and content before the
content (`store`), and `load` gives the content only if the two agree: a damaged file, or one
copied under another key, is no cache, and is made again.
"""

from __future__ import annotations

import hashlib
import os
import stat
import sys
import tempfile
from collections.abc import Iterator
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

import lark

_DIGEST = 32  # bytes of the SHA-256 digest that opens every cached file


def directory() -> Path | None:
    """The cache directory (made if missing), or None if there is no safe one."""
    setting = os.environ.get("RULECRAFT_CACHE_DIR")
    if setting is not None and setting.strip().lower() in ("", "0", "off", "no", "false"):
        return None
    if setting:
        path = Path(setting)
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        path = Path(base) / "rulecraft"
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        return path if _private(path) else None
    except OSError:
        return None


def file(name: str) -> Path | None:
    """A file of the cache directory, or None if there is no safe cache directory."""
    folder = directory()
    return None if folder is None else folder / name


def readable(path: Path) -> bool:
    """Whether a cached file exists and may be trusted: the current user's, writable by nobody else."""
    try:
        return path.is_file() and _private(path)
    except OSError:
        return False


def load(name: str) -> bytes | None:
    """The content of the cached file `name`, if there is one that may be trusted (`readable`) and
    whose digest agrees with its name and content (`store`); else None."""
    path = file(name)
    if path is None or not readable(path):
        return None
    try:
        data = path.read_bytes()
    except OSError:
        return None
    content = data[_DIGEST:]
    return content if data[:_DIGEST] == _digest(name, content) else None


def store(name: str, content: bytes, keep: int | None = None) -> None:
    """Write the cached file `name` whole (a temporary file, then a rename), its digest before its
    content; with `keep`, only the newest `keep` files of the same kind (the same name up to its
    first '-', and the same suffix) stay."""
    path = file(name)
    if path is None:
        return
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(_digest(name, content))
                f.write(content)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except Exception:  # a cache that cannot be written is no cache, not an error
        return
    if keep is not None:
        _prune(path.parent, f"{name.split('-', 1)[0]}-*{path.suffix}", keep)


def version() -> str:
    """What every key names: the package's source as this process imported it (`package_hash`)."""
    return _VERSION


def package_hash() -> str:
    """A hash of every source file of the package (`sources`), Python's bytecode tag (the format of
    marshalled code) and Lark's version (the format of a saved parser)."""
    h = hashlib.sha256(f"{sys.implementation.cache_tag}\0{lark.__version__}\0".encode())
    for name, text in sources():
        h.update(f"{name}\0{len(text)}\0".encode())
        h.update(text)
    return h.hexdigest()


def sources() -> list[tuple[str, bytes]]:
    """Each module of the package (`*.py`) and the grammar (`*.lark`), by its name in the package, in
    order: read from the installed package (or the checkout an editable install maps)."""
    found: dict[str, bytes] = {}
    for prefix, root in (("", Path(__file__).parent), ("grammar/", resources.files("rulecraft.grammar"))):
        for name, entry in _walk(root, prefix):
            if name.endswith((".py", ".lark")):
                found.setdefault(name, entry.read_bytes())
    return sorted(found.items())


def _walk(folder: Traversable, prefix: str) -> Iterator[tuple[str, Traversable]]:
    for entry in folder.iterdir():
        if entry.is_dir():
            if entry.name != "__pycache__":
                yield from _walk(entry, f"{prefix}{entry.name}/")
        else:
            yield f"{prefix}{entry.name}", entry


def _digest(name: str, content: bytes) -> bytes:
    return hashlib.sha256(name.encode() + b"\0" + content).digest()


def _prune(folder: Path, pattern: str, keep: int) -> None:
    """Keep the newest `keep` files matching `pattern` (a fuzzer makes thousands of rulebooks)."""
    try:
        files = sorted(folder.glob(pattern), key=lambda p: p.stat().st_mtime)
        for old in files[:-keep]:
            old.unlink(missing_ok=True)
    except OSError:
        pass


def _private(path: Path) -> bool:
    info = path.stat()
    owner_ok = not hasattr(os, "getuid") or info.st_uid == os.getuid()
    return owner_ok and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


# Read when the package is imported, not when a file is cached: a process that runs for long (a soak,
# a simulation) while the package's files are edited would otherwise write what the code it runs makes
# under the key of the edited code, which later processes would then trust.
_VERSION = package_hash()
