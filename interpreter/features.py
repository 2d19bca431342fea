"""A player's view as a fixed-size vector of numbers, for learning agents and OpenSpiel's tensors.

The vector counts features of the view (`Game.view`) hashed into `size` buckets: one count per
(zone, card label) the player sees, the size of every zone, the top of a `top` pile, each visible
variable (a number adds its value, any other value counts 1 for (variable, value)), the prompt of
the player's pending decision, and a bias that is always 1. Seats are named relative to the player
(`me`, `+1`, `+2`: the next players in seat order), so one policy can play every seat. Buckets are
CRC-32 of the feature's text modulo `size`: the same on every machine, with collisions.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable
from typing import Any

import numpy as np

_SEAT = re.compile(r"\bP(\d+)\b")


def relative_seats(text: str, me: int, players: int) -> str:
    """`text` with each seat (`P2`) named from seat `me`'s side: `me`, `+1`, `+2`, ..."""

    def seat(m: re.Match[str]) -> str:
        d = (int(m.group(1)) - 1 - me) % players
        return "me" if d == 0 else f"+{d}"

    return _SEAT.sub(seat, text)


def view_features(view: dict[str, Any], me: int, players: int) -> Iterable[tuple[str, float]]:
    """The features of a view (see the module's docstring), each a text and a value."""
    for key, zone in view["zones"].items():
        key = relative_seats(key, me, players)
        if isinstance(zone, list):
            yield f"size|{key}", len(zone)
            for label in zone:
                yield f"card|{key}|{relative_seats(label, me, players)}", 1.0
        else:
            yield f"size|{key}", zone["count"]
            if zone.get("top") is not None:
                yield f"top|{key}|{relative_seats(zone['top'], me, players)}", 1.0
    for key, value in view["vars"].items():
        key = relative_seats(key, me, players)
        text = str(value)
        if text.lstrip("-").isdigit() and len(text) < 16:
            yield f"var|{key}", float(text)
        else:
            yield f"var|{key}|{relative_seats(text, me, players)}", 1.0
    pending = view["pending"]
    if pending is not None and "options" in pending:
        yield f"prompt|{relative_seats(pending['prompt'], me, players)}", 1.0
    yield "bias", 1.0  # never all zeros


def hashed(features: Iterable[tuple[str, float]], out: np.ndarray) -> np.ndarray:
    """Add each feature's value into its bucket of `out` (CRC-32 of its text modulo the size)."""
    size = len(out)
    for text, value in features:
        out[zlib.crc32(text.encode("utf-8")) % size] += value
    return out
