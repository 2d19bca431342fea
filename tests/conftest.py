"""Shared fixtures: the `.trace` snapshot extension and helpers to run scripted games."""

from __future__ import annotations

from collections.abc import Iterable

import pytest
import rulecraft
from rulecraft.render import trace_text
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode


class TraceExtension(SingleFileSnapshotExtension):
    """One `.trace` text file per test, next to the test module, reviewed like code."""

    _write_mode = WriteMode.TEXT
    file_extension = "trace"


@pytest.fixture
def trace_snapshot(snapshot):  # type: ignore[no-untyped-def]
    return snapshot.use_extension(TraceExtension)


class TextExtension(SingleFileSnapshotExtension):
    """One `.txt` file per test, for text that is not a trace (explain's English)."""

    _write_mode = WriteMode.TEXT
    file_extension = "txt"


@pytest.fixture
def text_snapshot(snapshot):  # type: ignore[no-untyped-def]
    return snapshot.use_extension(TextExtension)


def run_script(game: rulecraft.Game, answers: Iterable[str]) -> rulecraft.Game:
    """Answer the pending decisions with the given labels, in order."""
    for answer in answers:
        assert game.current_decision() is not None, f"the game asks nothing, but the script says {answer!r}"
        game.apply(answer)
    return game


def scripted_trace(game: rulecraft.Game, answers: list[str], **header: object) -> str:
    """Run a script and render its trace with a self-describing header."""
    run_script(game, answers)
    return trace_text(game, {"players": game.state.players, "seed": game.seed, "answers": answers, **header})
