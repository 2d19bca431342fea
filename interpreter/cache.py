"""A per-user cache directory for data that is slow to compute and safe to recompute.

The directory is `$RULECRAFT_CACHE_DIR`, else `$XDG_CACHE_HOME/rulecraft`, else
`~/.cache/rulecraft`; `RULECRAFT_CACHE_DIR=off` turns the cache off. Cached files may be
unpickled, so they are only read from a directory and files that belong to the current user and
that nobody else may write; they are written whole (a temporary file, then a rename), so a reader
never sees half a file. Any problem means "no cache", never an error.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any


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


def write(path: Path, save: Callable[[IO[bytes]], Any]) -> None:
    """Write a cached file whole: `save` writes into a temporary file that is then renamed."""
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                save(f)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except Exception:  # a cache that cannot be written is no cache, not an error
        pass


def _private(path: Path) -> bool:
    info = path.stat()
    owner_ok = not hasattr(os, "getuid") or info.st_uid == os.getuid()
    return owner_ok and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
