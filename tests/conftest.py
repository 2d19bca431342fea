"""Shared fixtures: the `.trace` snapshot extension, helpers to run scripted games, and a browser."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Iterator

import pytest
import rulecraft
from playwright.sync_api import Browser, sync_playwright
from playwright.sync_api import Error as PlaywrightError
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


# ---------------------------------------------------------------------------- a browser to test in
# (the pages of the viewer, tests/test_viewer.py, and of the live table, tests/test_serve_browser.py)


def chromium() -> str:
    """The Chromium binary to test in: `RULECRAFT_CHROMIUM` (which must name an executable file), else
    `chromium` on the PATH. Without one (or with one found on the PATH that does not start: `browser`)
    the test is skipped, or fails where `RULECRAFT_BROWSER_REQUIRED` says the browser tests must run;
    each time with one line, never a traceback."""
    named = os.environ.get("RULECRAFT_CHROMIUM")
    if named:
        if not (os.path.isfile(named) and os.access(named, os.X_OK)):
            pytest.fail(f"RULECRAFT_CHROMIUM names {named}, which is not an executable file", pytrace=False)
        return named
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        missing = (
            "no Chromium to test the viewer in: install Debian's package (apt-get install chromium) "
            "or name a Chromium binary in RULECRAFT_CHROMIUM"
        )
        if os.environ.get("RULECRAFT_BROWSER_REQUIRED"):
            pytest.fail(f"{missing} (RULECRAFT_BROWSER_REQUIRED is set)", pytrace=False)
        pytest.skip(missing)
    return found


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    binary = chromium()
    with sync_playwright() as playwright:
        try:
            launched = playwright.chromium.launch(executable_path=binary)
        except PlaywrightError as e:
            why = f"Chromium ({binary}) did not start: {str(e).strip().splitlines()[0]}"
            if os.environ.get("RULECRAFT_BROWSER_REQUIRED") or os.environ.get("RULECRAFT_CHROMIUM"):
                pytest.fail(why, pytrace=False)
            pytest.skip(why)
        yield launched
        launched.close()
