"""Text a rulebook wrote reaches a terminal with its control characters escaped (`console.printable`).

A label, a prompt, an option, a `say` or a `fail` may hold escapes (`"\\x1b[2J"`, an OSC title,
BEL, `"\\r\\n"`): written raw, they clear the screen, set the terminal's title, or start a line
that reads as the program's own (`create  1 FAKE in hand[P1]`). Every place such text is shown
(the trace, the view, the human's questions, explain, error messages) writes them as visible
escapes; a line of the program's stays one line. The bundled games hold no control character, so
their traces are unchanged (tests/test_scenarios.py, the trace snapshots).
"""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import pytest
from rulecraft.cli import main
from rulecraft.terminal import printable

# Escapes in the rulebook's strings: clear the screen, set the title (OSC ... BEL), a new line that forges one.
HOSTILE = r"x\x1b[2J\x1b]0;pwned\x07\r\ncreate  1 FAKE in hand[P1]"
RULES = f"""game Esc players 2..2

card C {{ name: str }} label "{{name}}"

zone hand[Player]: C public

var n: int = 0 public

setup {{
  create 1 C {{ name: "{HOSTILE}" }} in hand[players[0]]
}}

play {{
  say "hi\\x1b[31m\\x9b"
  choose by players[0] prompt "Go\\x1b[2J?" {{
    option "a\\rb" {{ set n += 1 }}
    option "Pass" {{ }}
  }}
  end game unfinished "bye\\x1b]0;pwned\\x07"
}}
"""
# Any control character but the newline (C0, DEL, C1).
CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")


@pytest.fixture
def rules(tmp_path: Path) -> str:
    path = tmp_path / "esc.rules"
    path.write_text(RULES, encoding="utf-8")
    return str(path)


def test_printable_escapes_control_characters_and_keeps_the_rest() -> None:
    assert printable("a\x1b[2J\x07\r\n\t\x7f\x9bé") == "a\\x1b[2J\\x07\\r\\n\\t\\x7f\\x9bé"
    assert printable("one\ntwo\r\n", newlines=True) == "one\ntwo\\r\n"
    assert printable("5 of coins") == "5 of coins"


def test_the_trace_of_play_shows_the_rulebooks_text_escaped(rules: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`play --trace`: the label, the `say`, the prompt and the option are escaped; no line of
    the trace is one the rulebook wrote (the forged `create` stays inside its line)."""
    assert main(["play", rules, "--seed", "1", "--trace"]) == 0
    out, err = capsys.readouterr()
    assert not CONTROL.search(out) and not CONTROL.search(err)
    assert not any(line.startswith("create  1 FAKE") for line in out.splitlines())
    assert "create  1 x x\\x1b[2J\\x1b]0;pwned\\x07\\r\\ncreate  1 FAKE in hand[P1] in hand[P1]" in out
    assert "say     hi\\x1b[31m\\x9b" in out
    assert "choose  P1 a\\rb  [Go\\x1b[2J?]" in out
    assert out.endswith("\nunfinished: bye\\x1b]0;pwned\\x07\n")


def test_an_error_message_shows_the_rulebooks_text_escaped(rules: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A `fail` message is the rulebook's text too: on stderr it is escaped, the message's own lines kept."""
    path = Path(rules)
    path.write_text(RULES.replace("end game unfinished", "fail"), encoding="utf-8")
    assert main(["play", rules, "--seed", "1"]) == 1
    out, err = capsys.readouterr()
    assert not CONTROL.search(out) and not CONTROL.search(err)
    assert "bye\\x1b]0;pwned\\x07" in err and err.count("\n") > 1


def test_a_human_sees_the_prompt_options_and_view_escaped(
    rules: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A person at a terminal: the news (`say`), the view (the card's label), the question and the
    options, and an answer echoed back, are all written with visible escapes."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("\x1b[2Jnope\n1\n"))
    main(["play", rules, "--seed", "1", "--agents", "human,random"])
    out, err = capsys.readouterr()
    assert not CONTROL.search(out) and not CONTROL.search(err)
    assert "P1: Go\\x1b[2J?\n  1. a\\rb\n  2. Pass\n" in out
    assert "hand[P1]: x\\x1b[2J" in out and "say     hi\\x1b[31m" in out
    assert "'\\x1b[2Jnope' is not an answer" in out


def test_replay_and_explain_show_the_rulebooks_text_escaped(
    rules: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`replay` of a record that waits on the prompt, `replay --trace` and `explain`."""
    record = tmp_path / "game.json"
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(["play", rules, "--seed", "1", "--agents", "human,random", "--record", str(record)]) == 0
    capsys.readouterr()
    assert main(["replay", str(record)]) == 0
    assert main(["replay", str(record), "--trace"]) == 0
    assert main(["explain", rules]) == 0
    out, err = capsys.readouterr()
    assert not CONTROL.search(out) and not CONTROL.search(err)
    assert "the game waits on P1: Go\\x1b[2J?" in out
    assert "“a\\rb”" in out and "“Go\\x1b[2J?”" in out


def test_a_located_error_shows_the_line_escaped_with_the_caret_still_under_the_column(tmp_path: Path) -> None:
    """A rulebook line that holds raw control characters (an ESC in a string) is shown escaped
    under the message, and the caret points where it pointed, past the escapes."""
    import rulecraft
    from rulecraft.errors import RulebookError

    with pytest.raises(RulebookError) as info:
        rulecraft.load_text('game E players 2..2\nplay { say "\x1b[2J\x07"  set nope = 1 }\n', "e.rules")
    rendered = str(info.value)
    assert not CONTROL.search(rendered)
    head, line, caret = rendered.splitlines()[:3]
    assert head == "e.rules:2:21: error: unknown variable 'nope'"
    assert line == '    play { say "\\x1b[2J\\x07"  set nope = 1 }'
    assert caret.index("^") == line.index("set") and caret.strip() == "^" * len("set nope = 1")
