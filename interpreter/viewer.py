"""`rulecraft view`: a record as one self-contained HTML page, to step through in a browser.

The page holds the game as data, one entry a step (the decision, its trace lines, what changed in
the zones and variables, the scores), and the rulebook's source; the script in `viewer.html`
draws it. Nothing here re-implements the game: the record is re-run by `records.replay`, a state
is `Game.view`, a step's lines are `render.trace_lines`.

With a viewer (`--as P2`) every part of the data is what P2 may see, as `replay --as P2` shows it:
P2's view of each state, P2's trace, the options and answers of P2's own decisions only, the
scores only where the score reads nothing P2 cannot see, and another player's run of a `secret`
block as one step (as P2's trace folds it into one line), so that not even the number of its
steps shows. The rulebook's source is in every page: a rulebook is public, it says which cards
exist, not where they are.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import re
import stat
from importlib import resources
from pathlib import Path, PurePath
from typing import Any

import attrs

from .check.program import Program, reads_of
from .console import UsageError
from .errors import NO_SPAN, GameError, RecordError, RulecraftError
from .inputs import clip
from .language.values import EnumValue, Player
from .outputs import write_atomically
from .records import GameRecord, pending_draw, read_record, replay, rulebook_of
from .render import result_lines, trace_lines
from .rulebook import Rulebook, load
from .runtime.core import as_player
from .runtime.game import Decision, Event, Game, SecretRun
from .syntax import ast as s

# `verb text  @ file:line:col`, as render.trace_lines writes a line (the place is optional).
_LINE = re.compile(r"(?P<verb>\S+) +(?P<text>.*?)(?:  @ (?P<file>[^\s:]+):(?P<line>\d+):(?P<col>\d+))?")
_DATA_MARK = "__GAME_DATA__"
_TITLE_MARK = "__TITLE__"
_DRAW_MARKS = {"__DRAW_CSS__": "draw.css", "__DRAW_JS__": "draw.js"}  # the drawing shared with `rulecraft serve`


@attrs.define
class _Open:
    """The step being gathered: where its events begin, what was decided, whether the viewer saw it."""

    start: int
    decision: dict[str, Any] | None
    secret: SecretRun | None = None  # the run of a `secret` block the viewer does not see, if any


class Pages:
    """Gathers the steps of a replay, as the viewer may see them."""

    def __init__(self, program: Program, viewer: Player | None):
        self.viewer = viewer
        self.files = {PurePath(f).name: i for i, f in reversed(list(enumerate(program.files)))}
        self.zones: dict[str, Any] = {}
        self.vars: dict[str, Any] = {}
        self.steps: list[dict[str, Any]] = []
        self.open = _Open(0, None)
        self.public_scores, self.own_score = score_visibility(program)

    def on_step(self, game: Game, decision: Decision, answer: Any) -> None:
        """Before an answer is applied: close the step before it (unless it goes on), open this one."""
        hidden = self.viewer is not None and game.secret_run is not None and decision.by != str(self.viewer)
        if hidden and self.open.secret is not None and self.open.secret == game.secret_run:
            return  # another step of a secret run the viewer sees as one step
        self.close(game)
        if hidden:
            self.open = _Open(len(game.events), {"by": decision.by, "secret": True}, game.secret_run)
        else:
            self.open = _Open(len(game.events), self._decision(game, decision, answer.answer))

    def close(self, game: Game) -> None:
        """Write the open step: its decision, its trace lines, and the state after it (what changed)."""
        step, self.zones, self.vars = self._made(game)
        self.steps.append(step)

    def peek(self, game: Game) -> dict[str, Any]:
        """The open step as it stands now, left open (a live table shows it before the next answer)."""
        return self._made(game)[0]

    def _made(self, game: Game) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        view = game.view(self.viewer)
        step: dict[str, Any] = {"decision": self.open.decision, "trace": self._trace(game, self.open.start)}
        step.update(_diff("zones", self.zones, view["zones"]))
        step.update(_diff("vars", self.vars, view["vars"]))
        step["scores"] = self._scores(game)
        return step, view["zones"], view["vars"]

    def _decision(self, game: Game, decision: Decision, answer: str) -> dict[str, Any]:
        out: dict[str, Any] = {"by": decision.by}
        draw = pending_draw(game)
        if draw is not None:
            out["draw"] = list(draw)
        elif decision.prompt:
            out["prompt"] = decision.prompt
        if self.viewer is None or decision.by == str(self.viewer):
            out["options"] = decision.labels
            out["chosen"] = answer
        elif draw is not None and _sees_draw(game, draw, self.viewer):
            out["chosen"] = answer  # the card lands where the viewer sees it (in the viewer's own hand)
        elif draw is None and game.choice_public_to(self.viewer):
            out["chosen"] = answer  # a choice among values the viewer sees (a target, a public card)
        return out

    def _trace(self, game: Game, start: int) -> list[list[Any]]:
        lines = []
        for text in trace_lines(game, game.events[start:], viewer=self.viewer):
            m = _LINE.fullmatch(text)
            assert m is not None, text
            file = self.files.get(m["file"]) if m["file"] is not None else None
            place = None if file is None else [file, int(m["line"]), int(m["col"])]
            lines.append([m["verb"], m["text"], place])
        return lines

    def _scores(self, game: Game) -> list[int | None]:
        if "score" not in game.program.fns:
            return []
        if game.over:  # the result is announced to everyone
            return list(game.result()["scores"].values())
        out: list[int | None] = []
        for p in game.players:
            shown = self.viewer is None or self.public_scores or (self.own_score and p == self.viewer)
            try:
                out.append(game.score(p) if shown else None)
            except RulecraftError:  # a score that cannot be computed yet (mid-setup, say)
                out.append(None)
        return out


def _diff(kind: str, before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """What changed from one view's zones (or variables) to the next: new values, and keys gone."""
    out: dict[str, Any] = {kind: {k: v for k, v in after.items() if before.get(k) != v}}
    gone = [k for k in before if k not in after]
    if gone:
        out[f"{kind}_gone"] = gone
    return out


def _sees_draw(game: Game, draw: tuple[str, str], viewer: Player) -> bool:
    """Whether the viewer sees the card a draw moves, by the rule a trace's move line follows."""
    probe = Event("move", "seen", NO_SPAN, zones=draw, hidden_text="")
    return game.visible_to(probe, viewer) == "seen"


def score_visibility(program: Program) -> tuple[bool, bool]:
    """(every player may see every score, a player may see their own) from what `score` reads.

    Every zone and variable the function reads (through other functions and constants) decides
    it: all public, every score is public; public or `owner`, a player sees their own score (a
    score is taken to read its own player's owned zones). What may be any zone (`check.reads_of`'s
    "*": a zone held in a variable, `zone_of`, a field of a card held in a variable) shows the
    scores only when the game is over.
    """
    fn = program.fns.get("score")
    if fn is None:
        return True, True
    kinds = {
        "any" if name == "*" else (program.zones.get(name) or program.vars[name]).visibility
        for name in reads_of(program, [fn.body])
    }
    return kinds <= {"public"}, kinds <= {"public", "owner"}


def owners(program: Program, keys: list[str]) -> dict[str, str]:
    """The player each zone or variable key belongs to (its first Player key), for the page's areas."""
    out = {}
    for key in keys:
        name, _, rest = key.partition("[")
        decl = program.zones.get(name) or program.vars.get(name)
        if decl is None or not rest:
            continue
        for type_, raw in zip(decl.keys, rest[:-1].split(","), strict=False):
            if isinstance(type_, s.NamedType) and type_.name == "Player":
                out[key] = raw
                break
    return out


def display_names(program: Program) -> dict[str, str]:
    """The names the rules give zones and variables for people (`zone vp_cards[Player]: … "VP cards"`)."""
    decls: list[s.ZoneDecl | s.VarDecl] = [*program.zones.values(), *program.vars.values()]
    return {d.name: d.display for d in decls if d.display is not None}


def maps(game: Game) -> list[dict[str, Any]]:
    """The boards the rules lay out (`layout Space { A: 0 0, … } links ROADS`), for the page to draw as maps:
    each value's place, the links (the constant's pairs), the zones keyed by the enumeration (with the
    index of that key) and the variables that hold one of its values (drawn as markers at the place)."""
    program = game.program
    out = []
    for enum, layout in program.layouts.items():
        links: list[list[str]] = []
        if layout.links is not None:
            try:
                value = game.evaluate(program.consts[layout.links].value, {})
            except RulecraftError:  # a constant that cannot be computed: the places alone
                value = ()
            for pair in value if isinstance(value, list | tuple) else ():
                if isinstance(pair, list | tuple) and len(pair) == 2 and all(isinstance(v, EnumValue) for v in pair):
                    links.append([pair[0].name, pair[1].name])
        zones = {}
        for zone in program.zones.values():
            for i, key in enumerate(zone.keys):
                if isinstance(key, s.NamedType) and key.name == enum:
                    zones[zone.name] = i
                    break
        markers = [v.name for v in program.vars.values() if isinstance(v.type, s.NamedType) and v.type.name == enum]
        places = [[p.name, p.x, p.y] for p in layout.places]
        out.append({"enum": enum, "places": places, "links": links, "zones": zones, "markers": markers})
    return out


def build(
    record: GameRecord,
    *,
    viewer: Player | None = None,
    rulebook: Rulebook | None = None,
    base: Path | None = None,
    check_hash: bool = True,
) -> dict[str, Any]:
    """The page's data: every step of the record as `viewer` may see it (None: everything)."""
    rb = rulebook or rulebook_of(record, base)
    if viewer is not None and viewer.index >= record.players:
        raise RulecraftError(f"--as {viewer}: there is no {viewer} in a game of {record.players}")
    pages = Pages(rb.program, viewer)
    game = replay(record, rb, trace=True, check_hash=check_hash, base=base, on_step=pages.on_step)
    pages.close(game)
    program = rb.program
    keys = sorted({k for step in pages.steps for kind in ("zones", "vars") for k in step[kind]})
    pending = game.current_decision()
    end: dict[str, Any] = {}
    if game.over:
        end["result"] = result_lines(game)
    elif pending is not None:
        end["waits"] = pending.by
        if viewer is None or pending.player == viewer:
            end["prompt"] = pending.prompt
    return {
        "title": f"{program.name}: {rb.name}" + (f", as {viewer}" if viewer else ""),
        "game": program.name,
        "rulebook": rb.name,
        "as": str(viewer) if viewer else None,
        "players": [str(p) for p in game.players],
        "owners": owners(program, keys),
        "names": display_names(program),
        "maps": maps(game),
        "steps": pages.steps,
        "end": end,
        "files": [{"name": PurePath(f).name, "text": program.sources[f]} for f in program.files],
    }


def page(data: dict[str, Any]) -> str:
    """The whole HTML file: the template with the data in it (no network, nothing else to load)."""
    template = resources.files("rulecraft").joinpath("viewer.html").read_text(encoding="utf-8")
    for mark, name in _DRAW_MARKS.items():  # before the data: no text of the data is taken for a mark
        template = template.replace(mark, asset(name), 1)
    # `<` is written \u003c inside the JSON, so no text in it can close the script element. The data
    # goes in first: the title's mark comes before it, so no text in the data can be taken for it.
    data_text = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    return template.replace(_DATA_MARK, data_text, 1).replace(_TITLE_MARK, html.escape(data["title"]), 1)


def asset(name: str) -> str:
    """A file of the drawing shared by the viewer's page and the live table (draw.js, draw.css)."""
    return resources.files("rulecraft").joinpath(name).read_text(encoding="utf-8")


def register(sub: Any) -> None:
    """Add `rulecraft view` to the command line."""
    p = sub.add_parser(
        "view",
        help="write a record as one HTML page to step through in a browser",
        description="Replay a record and write one self-contained HTML file: a step slider, the decision, "
        "the state, the trace linked to the rulebook's source, a score chart. With --as P2, the file "
        "holds only what P2 may see.",
    )
    p.add_argument("record", help="a record file (JSON)")
    p.add_argument("--as", dest="as_player", metavar="P", help="only what this player may see")
    p.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="the HTML file to write (default: the record's name .html); a file there that is not a page of "
        "`rulecraft view` is left as it is, unless --force is given",
    )
    p.add_argument("--force", action="store_true", help="replace the file at -o even if it is not a page of view")
    p.add_argument("--rulebook", metavar="FILE", help="the rulebook to use instead of the one the record names")
    p.add_argument("--ignore-hash", action="store_true", help="replay even if the rulebook's text has changed")
    p.set_defaults(func=_command)


def _command(args: argparse.Namespace) -> int:
    try:
        viewer = as_player(args.as_player) if args.as_player else None
    except GameError as exc:
        raise RulecraftError(f"--as {args.as_player}: {exc}") from None
    path = Path(args.record)
    record = read_record(path)
    rb = load(args.rulebook) if args.rulebook else None
    try:
        data = build(record, viewer=viewer, rulebook=rb, base=path.parent, check_hash=not args.ignore_hash)
    except RecordError as exc:
        raise RecordError(f"{path}: {exc}") from None
    out = Path(args.output) if args.output else path.with_suffix(".html")
    if out.resolve() == path.resolve():  # never write the page over the record
        out = path.with_name(path.name + ".html")
    _may_replace(out, args.force)
    write_atomically(out, page(data), what="the page")
    print(f"{out}: {len(data['steps']) - 1} steps" + (f", as {viewer}" if viewer else ""))
    return 0


def _may_replace(out: Path, force: bool) -> None:
    """Refuse to replace a file that is not a page of `view` (a rulebook, notes), or a symlink, without
    --force. The page replaces the name (a rename), so a link is replaced itself, never written through."""
    try:
        info = out.lstat()
    except FileNotFoundError:
        return
    except OSError as exc:
        raise RulecraftError(f"{clip(str(out))}: cannot write the page: {exc.strerror or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise RulecraftError(f"{clip(str(out))}: is a folder, not a file: the page is not written")
    if force:
        return
    if stat.S_ISLNK(info.st_mode):
        why = "is a symbolic link (the page is never written through one)"
    elif not stat.S_ISREG(info.st_mode) or not _is_page(out):
        why = "is there already and is not a page of rulecraft view"
    else:
        return
    raise UsageError(f"-o {clip(str(out))}: the file {why}; it is left as it is (give --force to replace it)")


def _is_page(path: Path) -> bool:
    """Whether a file begins as every page `view` writes (its template's first lines)."""
    start = resources.files("rulecraft").joinpath("viewer.html").read_bytes().split(_TITLE_MARK.encode(), 1)[0]
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_NOCTTY)
    except OSError:
        return False
    try:
        return os.read(fd, len(start)) == start
    except OSError:
        return False
    finally:
        os.close(fd)
