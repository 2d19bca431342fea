"""Render traces and views as stable text: what snapshot tests store and the CLI prints.

Text the rulebook or the game wrote (a label, a `say`, a prompt, an `unfinished` reason, the
rulebook's file name) has its control characters written as visible escapes (`console.printable`)
in everything rendered here, in a file as on a terminal: a trace or view is read in a terminal
wherever it was written (`cat game.trace`), and a line of it must be one line, the program's own.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import PurePath
from typing import Any

from .errors import Span
from .language.values import Player
from .runtime.basics import SECRET_TEXT
from .runtime.game import Event, Game, SecretRun
from .terminal import printable


def where(span: Span) -> str:
    """`file:line:col` with the file's base name only, so traces do not depend on the checkout."""
    if span.line == 0:
        return ""
    return f"{PurePath(span.file).name}:{span.line}:{span.column}"


def trace_lines(game: Game, events: Iterable[Event] | None = None, viewer: Player | None = None) -> list[str]:
    """One line per event: verb, text, and the rule that caused it; creates of one statement folded.

    What `viewer` may not see of a run of a `secret` block is one line, `choose  P1 [a secret
    choice]` at the block, however many steps the run took.
    """
    events = [e for e in (events if events is not None else game.events) if game.shown_to(e, viewer)]
    out: list[str] = []
    pending_create: tuple[Span, int, str] | None = None  # folded creates: place, events, text
    cards_created = 0  # the cards those events made (an event says `N x card in zone`)
    texts = [game.visible_to(event, viewer) for event in events]
    # The players whose answers a run of a secret block hides from the viewer, in order.
    deciders: dict[SecretRun, list[str]] = {}
    for event, text in zip(events, texts, strict=True):
        if event.secret is not None and text == SECRET_TEXT:
            names = deciders.setdefault(event.secret, [])
            if event.verb == "choose" and event.actor not in names:
                names.append(event.actor)
    last_secret: SecretRun | None = None

    def flush() -> None:
        nonlocal pending_create, cards_created
        if pending_create is not None:
            span, n, text = pending_create
            out.append(_line("create", text if n == 1 else f"{cards_created} {text}", span))
            pending_create = None

    for event, text in zip(events, texts, strict=True):
        if event.secret is not None and text == SECRET_TEXT:
            if event.secret != last_secret:
                flush()
                last_secret = event.secret
                who = ", ".join(deciders[event.secret])
                out.append(_line("choose", f"{who} {SECRET_TEXT}".lstrip(), event.secret.span))
            continue
        if event.verb == "create":
            zone = event.zones[0] if event.zones else ""
            if pending_create is not None and pending_create[0] == event.span and pending_create[2].endswith(zone):
                span, n, _ = pending_create
                pending_create = (span, n + 1, f"cards in {zone}")
                cards_created += _created(text)
                continue
            flush()
            pending_create = (event.span, 1, text)
            cards_created = _created(text)
            continue
        flush()
        actor = f"{event.actor} " if event.actor else ""
        out.append(_line(event.verb, actor + text, event.span))
    flush()
    return out


def _created(text: str) -> int:
    """The number of cards a `create` event made: its text is `N x card in zone` (store.py)."""
    count, _, _ = text.partition(" x ")
    return int(count) if count.isdigit() else 1


def _line(verb: str, text: str, span: Span) -> str:
    at = where(span)
    return printable(f"{verb:<7} {text}" + (f"  @ {at}" if at else ""))


def trace_text(game: Game, header: dict[str, Any] | None = None, viewer: Player | None = None) -> str:
    """A whole trace: a self-describing header, then one event per line, then the result."""
    lines = [printable(f"# rulebook: {game.rulebook.name} ({game.program.name})")]
    for key, value in (header or {}).items():
        lines.append(printable(f"# {key}: {value}"))
    lines.append("")
    lines.extend(trace_lines(game, viewer=viewer))
    if game.over:
        lines.append("")
        lines.extend(result_lines(game))
    return "\n".join(lines) + "\n"


def result_lines(game: Game) -> list[str]:
    """Scores, then `winner: P2`, `winners: P1 P3`, `unfinished: why` or, for a cooperative end,
    `together: won, score 17` (`together: lost` without a team score) as the last line."""
    result = game.result()
    lines = []
    for player, score in result["scores"].items():
        if score is not None:
            lines.append(f"{player}: {score}")
    winners = result["winners"]
    if "unfinished" in result:
        lines.append(printable(f"unfinished: {result['unfinished']}"))
    elif "together" in result:
        team = result["team_score"]
        lines.append(f"together: {result['together']}" + (f", score {team}" if team is not None else ""))
    elif len(winners) == 1:
        lines.append(f"winner: {winners[0]}")
    elif winners:
        lines.append("winners: " + " ".join(winners))
    else:
        lines.append("winners: none")
    return lines


def display_key(game: Game, key: str) -> str:
    """A zone's or a variable's key as people read it: `VP cards (P1)` for `vp_cards[P1]` where the rules
    name the zone "VP cards"; the key itself where they give no such name."""
    name, _, rest = key.partition("[")
    decl = game.program.zones.get(name) or game.program.vars.get(name)
    if decl is None or decl.display is None:
        return key
    return f"{decl.display} ({rest[:-1].replace(',', ', ')})" if rest else decl.display


def view_text(game: Game, viewer: Player | None, order: Sequence[str] = (), display: bool = False) -> str:
    """A player's view as a few readable lines.

    With `order` (the labels of the options of a decision), the cards of a zone that are options
    are listed first, in the order of the options, so that a hand reads like the numbered choices.
    With `display`, zones and variables go by the names the rules give them for people (`display_key`).
    """
    view = game.view(viewer)
    rank = {label: i for i, label in enumerate(order)}
    lines = [f"-- view of {view['as']} --"]
    for key, value in view["zones"].items():
        if isinstance(value, list):
            if rank:
                value = sorted(value, key=lambda label: rank.get(label, len(rank)))
            shown = ", ".join(value) if value else "(empty)"
        elif "top" in value:
            shown = f"{_cards(value['count'])}, top: {value['top'] or '-'}"
        else:
            shown = f"{_cards(value['count'])} (hidden)"
        if isinstance(value, dict) and value.get("shown"):  # cards revealed to the viewer (`reveal`), by place
            shown += f", shown to you: {', '.join(f'{place}: {label}' for place, label in value['shown'].items())}"
        if isinstance(value, dict) and value.get("told"):  # facts told to the viewer (`tell`), by place
            told = "; ".join(f"{place}: {', '.join(facts)}" for place, facts in value["told"].items())
            shown += f", told you: {told}"
        lines.append(printable(f"  {display_key(game, key) if display else key}: {shown}"))
    for key, value in view["vars"].items():
        lines.append(printable(f"  {display_key(game, key) if display else key} = {value}"))
    return "\n".join(lines)


def _cards(n: int) -> str:
    """`1 card`, `0 cards`, `3 cards`."""
    return f"{n} card" if n == 1 else f"{n} cards"
