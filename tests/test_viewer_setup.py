"""The README's test command on a machine without Chromium: the viewer's browser tests are skipped with
one line saying why (shown: `-rs` in pyproject.toml), fail where `RULECRAFT_BROWSER_REQUIRED` says they
must run (`.ci/run`), and a `RULECRAFT_CHROMIUM` naming no binary is one line naming it, not a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# One test that opens a page and makes its record itself (no module fixture playing games first).
ONE = "test_as_p1_the_page_shows_beside_p2s_count_the_card_revealed_to_p1"


def _pytest(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """tests/test_viewer.py's one test, run as the README runs the tests, with a PATH holding no browser."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("RULECRAFT_CHROMIUM", "RULECRAFT_BROWSER"))}
    empty = tmp_path / "bin"
    empty.mkdir(exist_ok=True)
    clean.update(PATH=str(empty), RULECRAFT_CACHE_DIR="off", **env)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "tests/test_viewer.py", "-k", ONE],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_without_chromium_the_browser_tests_skip_with_their_reason(tmp_path: Path) -> None:
    done = _pytest(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 skipped" in done.stdout
    (reason,) = [line for line in done.stdout.splitlines() if line.startswith("SKIPPED")]
    assert "no Chromium to test the viewer in" in reason and "RULECRAFT_CHROMIUM" in reason


def test_where_the_browser_is_required_its_absence_fails_in_one_line(tmp_path: Path) -> None:
    done = _pytest(tmp_path, RULECRAFT_BROWSER_REQUIRED="1")
    assert done.returncode == 1
    assert "1 error" in done.stdout
    assert "no Chromium to test the viewer in" in done.stdout and "RULECRAFT_BROWSER_REQUIRED is set" in done.stdout
    assert "Traceback" not in done.stdout and "def chromium" not in done.stdout


@pytest.mark.parametrize("named", ["/nonexistent/chromium", "tests"])
def test_a_chromium_named_that_is_no_binary_is_one_line_naming_it(named: str, tmp_path: Path) -> None:
    done = _pytest(tmp_path, RULECRAFT_CHROMIUM=named)
    assert done.returncode == 1
    assert f"RULECRAFT_CHROMIUM names {named}, which is not an executable file" in done.stdout
    assert "Traceback" not in done.stdout and "playwright" not in done.stdout.lower()
