"""The local names of a body being checked."""

from __future__ import annotations

from collections.abc import Iterator

from ..language import types as t
from .resolve import Resolution


class Scope:
    """Local names of a body being checked: a chain of dicts, innermost last."""

    def __init__(self, kind: str, resolution: Resolution | None = None):
        self.kind = kind  # proc | fn | ability | rule | setup | play
        self.frames: list[dict[str, t.T]] = [{}]
        self.resolution = resolution  # where the names it binds are noted (resolve.py)

    def lookup(self, name: str) -> t.T | None:
        for frame in reversed(self.frames):
            if name in frame:
                return frame[name]
        return None

    def bind(self, name: str, type_: t.T) -> None:
        self.frames[-1][name] = type_
        if self.resolution is not None:
            self.resolution.local(name)

    def names(self) -> Iterator[str]:
        for frame in self.frames:
            yield from frame

    def push(self) -> None:
        self.frames.append({})

    def pop(self) -> None:
        self.frames.pop()
