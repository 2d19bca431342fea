"""Writing a record when writing fails or the record grows long: the file stays the record of the
answers before, the command ends with one line, and an answer costs what it writes.

Through the command line (`main` in this process, or `rulecraft` in a child process with a
file-size limit), as a person meets these.
"""

from __future__ import annotations

import errno
import os
import resource
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from rulecraft import outputs, recording, records
from rulecraft.cli import main
from rulecraft.records import read_record
from rulecraft.runtime.game import Game

from .test_records import LONG_GAME  # the same endless game of two answers a turn


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def _long(turns: int) -> str:
    Path("long.rules").write_text(LONG_GAME.replace("TURNS", str(turns)), encoding="utf-8")
    return "long.rules"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _replays(capsys: pytest.CaptureFixture[str], path: str) -> int:
    """The number of answers of a record that `rulecraft replay` accepts."""
    code, _, err = _run(capsys, "replay", path)
    assert (code, err) == (0, ""), err
    return len(read_record(path).answers)


def _limit_file_size(limit: int) -> Callable[[], None]:
    def child() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG), it does not kill
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return child


def test_a_file_size_limit_stops_the_game_with_one_line_and_a_record_that_replays(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`(ulimit -f 6; rulecraft play … --record r.json)`: a write fails (EFBIG) mid-game; the record on disk
    is the record of the answers before, and the command says so in one line (no traceback), exit 1."""
    done = subprocess.run(
        [sys.executable, "-m", "rulecraft", "play", "guildhall", "--players", "2", "--seed", "5", "--record", "r.json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        preexec_fn=_limit_file_size(6 * 1024),
    )
    assert done.returncode == 1, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    kept = _replays(capsys, "r.json")
    assert lines[0] == (
        f"r.json: cannot write the record: File too large; the game stops here, and the record keeps the {kept} "
        "answers before (go on with: rulecraft play --resume r.json)"
    )
    assert kept > 0 and os.path.getsize("r.json") <= 6 * 1024


def _failing_pwrite(monkeypatch: pytest.MonkeyPatch, at: int, fail: Callable[[int, bytes, int], int]) -> None:
    """Make the `at`-th write of an answer into the record fail as `fail` does."""
    real, calls = os.pwrite, [0]

    def pwrite(fd: int, data: bytes, offset: int) -> int:
        calls[0] += 1
        return fail(fd, data, offset) if calls[0] == at else real(fd, data, offset)

    monkeypatch.setattr(recording.os, "pwrite", pwrite)


@pytest.mark.parametrize(
    ("how", "why"),
    [
        ("short", "only 5 of"),  # the disk filled up after 5 bytes
        ("enospc", "No space left on device"),
        ("efbig", "File too large"),
    ],
)
def test_a_failed_write_of_an_answer_leaves_the_record_of_the_answers_before(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, how: str, why: str
) -> None:
    """A write that is short or fails (a full disk, a quota) is undone: `replay` reads the record of the
    answers before it, and the game ends with one line saying what happened."""

    def fail(fd: int, data: bytes, offset: int) -> int:
        if how == "short":
            return os.pwrite(fd, data[:5], offset)
        raise OSError(
            errno.ENOSPC if how == "enospc" else errno.EFBIG,
            os.strerror(errno.ENOSPC if how == "enospc" else errno.EFBIG),
        )

    with monkeypatch.context() as patch:
        _failing_pwrite(patch, 40, fail)
        code, _, err = _run(capsys, "play", _long(3000), "--seed", "1", "--record", "r.json")
    assert code == 1 and len(err.splitlines()) == 1 and why in err, err
    kept = _replays(capsys, "r.json")
    assert err.endswith(f"the record keeps the {kept} answers before (go on with: rulecraft play --resume r.json)\n")
    assert 40 <= kept < 3000


def test_a_record_is_never_written_larger_than_a_record_may_be_read(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """One limit for writing and reading: the writer refuses the answer that would take the record past
    it (one line, exit 1), and the file is the record of the answers before, which `replay` reads."""
    monkeypatch.setattr(records, "MAX_RECORD_BYTES", 30_000)
    code, _, err = _run(capsys, "play", _long(3000), "--seed", "1", "--record", "r.json")
    assert code == 1 and len(err.splitlines()) == 1, err
    assert (
        err.startswith("r.json: the record would be ")
        and "more than a record may be (30000, what rulecraft reads)" in err
    )
    assert os.path.getsize("r.json") <= 30_000
    kept = _replays(capsys, "r.json")
    assert err.endswith(f"the record keeps the {kept} answers before\n") and kept > 500


def test_an_answer_costs_what_it_writes(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Recording a long game writes, in all, a few times the final record, not the record again every few
    answers (before: the whole file every 4 KiB of answers, quadratic); resuming it too."""
    written = [0]
    real_replace, real_pwrite = outputs.os.replace, recording.os.pwrite

    def count_replace(src: str, dst: str | Path) -> None:
        written[0] += os.path.getsize(src)
        real_replace(src, dst)

    def count_pwrite(fd: int, data: bytes, offset: int) -> int:
        written[0] += len(data)
        return real_pwrite(fd, data, offset)

    monkeypatch.setattr(outputs.os, "replace", count_replace)
    monkeypatch.setattr(recording.os, "pwrite", count_pwrite)
    rules = _long(12_000)
    code, _, err = _run(capsys, "play", rules, "--seed", "1", "--record", "r.json")
    assert (code, err) == (0, "")
    size = os.path.getsize("r.json")
    # Each replacement of the file writes the record and as much room again, at sizes that double: some
    # six times the record in all (the file of every 4 KiB of answers, before: some fifty times here).
    assert size > 350_000 and written[0] < 8 * size, (written[0], size)

    # A record cut in the middle, resumed: the same.
    lines = Path("r.json").read_text(encoding="utf-8").splitlines()
    first = lines.index(' "answers": [') + 1
    kept = [*lines[: first + 6000 - 1], lines[first + 6000 - 1].rstrip(",")]
    Path("half.json").write_text("\n".join([*kept, " ]", "}", ""]), encoding="utf-8")
    written[0] = 0
    code, _, err = _run(capsys, "play", "--resume", "half.json")
    assert (code, err) == (0, "")
    assert written[0] < 8 * os.path.getsize("half.json"), (written[0], size)


def test_resuming_shows_the_agents_the_game_itself_not_a_copy_at_every_step(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Resuming brings each agent up to date by showing it every recorded decision of its seat: on the
    game being replayed, as a live game does, not on a copy of it each time (a copy costs the length of
    the game: resuming a 120k-answer record took a minute, now seconds)."""
    _half(capsys, 2000)
    copies = [0]
    clone = Game.clone

    def counted(self: Game, **kwargs: bool) -> Game:
        copies[0] += 1
        return clone(self, **kwargs)

    monkeypatch.setattr(Game, "clone", counted)
    code, _, err = _run(capsys, "play", "--resume", "half.json")
    assert (code, err) == (0, "") and copies[0] < 10, copies
    assert Path("half.json").read_text(encoding="utf-8") == Path("whole.json").read_text(encoding="utf-8")


def _half(capsys: pytest.CaptureFixture[str], answers: int, name: str = "half.json") -> None:
    """A record of a game of twice `answers` answers, cut after `answers` of them (as a killed game leaves it)."""
    code, _, err = _run(capsys, "play", _long(2 * answers), "--seed", "1", "--record", "whole.json")
    assert (code, err) == (0, "")
    lines = Path("whole.json").read_text(encoding="utf-8").splitlines()
    first = lines.index(' "answers": [') + 1
    kept = [*lines[: first + answers - 1], lines[first + answers - 1].rstrip(",")]
    Path(name).write_text("\n".join([*kept, " ]", "}", ""]), encoding="utf-8")


def test_resuming_a_record_through_a_symlink_keeps_the_link(capsys: pytest.CaptureFixture[str]) -> None:
    """`play --resume link.json` writes the record the link leads to; the link stays a link."""
    _half(capsys, 50, "real.json")
    Path("link.json").symlink_to("real.json")
    code, _, err = _run(capsys, "play", "--resume", "link.json")
    assert (code, err) == (0, "")
    assert Path("link.json").is_symlink() and os.readlink("link.json") == "real.json"
    assert Path("real.json").read_text(encoding="utf-8") == Path("whole.json").read_text(encoding="utf-8")
    assert sorted(os.listdir(".")) == ["link.json", "long.rules", "real.json", "whole.json"]  # no lock left


def test_resuming_with_ignore_hash_says_that_the_records_hash_is_rewritten(capsys: pytest.CaptureFixture[str]) -> None:
    """`play --resume --ignore-hash` of a record of another text of its rulebook goes on, and says, in one
    line, that the record's hash is now this text's (it used to be rewritten silently)."""
    _half(capsys, 20)
    text = Path("half.json").read_text(encoding="utf-8")
    old = read_record("half.json").rulebook.hash
    assert old is not None
    Path("half.json").write_text(text.replace(old, "0123456789abcdef"), encoding="utf-8")
    code, _, err = _run(capsys, "play", "--resume", "half.json", "--ignore-hash")
    assert (code, err) == (
        0,
        "half.json: note: the rulebook's text has changed since the record was made (hash 0123456789abcdef); "
        f"the game goes on with this text, and the record now has its hash, {old} (--ignore-hash)\n",
    )
    assert read_record("half.json").rulebook.hash == old
    code, _, err = _run(capsys, "play", "--resume", "half.json", "--ignore-hash")  # the same text: nothing to say
    assert (code, err) == (0, "")
