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
        # The names some binder of this body binds to a value whose depth nothing checks (all but
        # `let`, a procedure's parameter and `choose one`): the run time holds a body's locals in one
        # dict, so a name read may hold what any binder of the body gave it (compile/depth.py).
        self.unchecked: set[str] = set()

    def lookup(self, name: str) -> t.T | None:
        for frame in reversed(self.frames):
            if name in frame:
                return frame[name]
        return None

    def bind(self, name: str, type_: t.T, checked: bool = False) -> None:
        """Bind a local name; `checked`: its binder refuses a value nested deeper than the state's (`Game.nested`)."""
        self.frames[-1][name] = type_
        if not checked:
            self.unchecked.add(name)
        if self.resolution is not None:
            self.resolution.local(name)

    def names(self) -> Iterator[str]:
        for frame in self.frames:
            yield from frame

    def push(self) -> None:
        self.frames.append({})

    def pop(self) -> None:
        self.frames.pop()
