"""The Information part of a game: what each seat may see of the state (views) and of each event.

`Information` is an object of its own, made by `Game.__init__`; each of its methods is given the
game as a `Viewed` (the `Context`, with what a view reads besides: its labels of zones, a still
copy), and it never names the game's class nor holds the game (a game and its parts make no
cycle: a game nobody holds is freed at once). Its one piece of data is the views held while runs
of `secret` blocks ask other seats (`held_views`); what a seat knows is in the state (knowledge.py).
The game hands its public API's questions of visibility (`view`, `visible_to`, `shown_to`,
`choice_public_to`, `owned_by`, `sees_cards_of`, `zone_seen_by`) to this part.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any, Protocol

from ..errors import GameError, Span
from ..language.values import (
    CardRef,
    Player,
)
from ..syntax import ast as s
from . import knowledge
from .asks import Decision
from .basics import SECRET_TEXT, VIEW_BUDGET, Event
from .core import as_player
from .information import Copyable, HeldView


class Viewed(Copyable, Protocol):
    """A game as its `Information` part reads it (`Game` has it all)."""

    @property
    def key_info(self) -> dict[str, tuple[Any, str | None]]: ...

    def zone_labels(self, name: str, key: str, ids: Sequence[int]) -> tuple[str, ...]: ...

    def split_key(self, key: str) -> tuple[str, tuple[Any, ...]]: ...

    def current_span(self) -> Span: ...

    def still(self) -> Viewed: ...


class Information:
    """What each player sees of the state and of each event (the game's Information part)."""

    __slots__ = ("held_views",)

    def __init__(self, held_views: dict[str, HeldView] | None = None):
        # The views held while a secret run asks others (see `view`), by seat: replaced, never
        # changed in place, so that a failed `apply` puts the one before back (`Game.apply`).
        self.held_views: dict[str, HeldView] = held_views if held_views is not None else {}

    def view(self, g: Viewed, player: Player | int | str | None) -> dict[str, Any]:
        """What `player` may see (None: everything), as plain data; hidden cards become counts.

        While runs of `secret` blocks ask other players, a player's view is the one they had at the
        first such decision (`hold_views`): a step they cannot see changes nothing they see. (A
        public change made meanwhile shows in their trace at once, and in their view when they are
        next asked or a decision outside any secret run comes.)
        """
        who = as_player(player)
        if who is not None and who.index >= g.state.players:
            raise GameError(f"there is no {who} in a game of {g.state.players} players")
        if who is not None and g.pending is not None and g.secret_run is not None and g.pending.player != who:
            held = self.held_views.get(str(who))
            if held is not None:
                return copy.deepcopy(held.view())
        return self.seen_now(g, who)

    def hold_views(self, g: Viewed, decision: Decision) -> None:
        """Keep, at a decision inside a run of a `secret` block, the view of each player not asked
        it (unless one is kept already): the view that player keeps while secret runs ask others.
        A player asked, or a decision outside any secret run, lets the view go.

        Another player's trace folds a secret run into one line, however many steps it takes; the
        view holds likewise, so that a client showing a player's view after every step cannot count
        the steps of someone else's secret (hidden counts, who is waited on, ...). The dict is
        replaced, never changed, so that a failed `apply` puts the one before back (`Game.apply`).
        """
        held = self.held_views
        if g.secret_run is None:
            self.held_views = {}
            return
        asked = str(decision.player)
        missing = [p for p in g.players if p != decision.player and str(p) not in held]
        if missing or asked in held:
            held = {p: v for p, v in held.items() if p != asked}
            if missing:
                # Views are made when asked for, from a copy of the game as it is now: most held
                # views are let go unread (at the next decision outside the run), and a copy of
                # the state costs a fraction of a view.
                now = g.still()
                for p in missing:
                    held[str(p)] = HeldView(now, p)
            self.held_views = held

    def seen_now(self, g: Viewed, who: Player | None) -> dict[str, Any]:
        """What `who` may see now (None: everything); refused, as a runaway, as soon as the labels
        it shows pass VIEW_BUDGET characters (each label is bounded by LABEL_BUDGET on its own)."""
        owner = str(who) if who is not None else None
        size = 0
        info = g.key_info
        zones: dict[str, Any] = {}
        state_zones = g.state.zones
        shown = knowledge.shown_in_zones(g, who) if who is not None else {}
        told = knowledge.told_in_zones(g, who) if who is not None and g.state.told else {}
        for key in sorted(state_zones):
            ids = state_zones[key]
            decl, owned_by = info[key] if key in info else self._info_of(g, key)
            visibility = decl.visibility
            if who is None or visibility == "public":
                labels = g.zone_labels(decl.name, key, ids)
                size = self._viewed(g, size, sum(map(len, labels)))
                zones[key] = list(reversed(labels)) if not decl.shuffled else sorted(labels)
            elif (visibility == "owner" and owned_by == owner) or (visibility == "others" and owned_by != owner):
                labels = g.zone_labels(decl.name, key, ids)
                size = self._viewed(g, size, sum(map(len, labels)))
                zones[key] = list(reversed(labels))
            elif visibility == "top":
                zones[key] = {"top": g.label(CardRef(ids[-1])) if ids else None, "count": len(ids)}
            else:
                zones[key] = {"count": len(ids)}
            if key in shown and isinstance(zones[key], dict):
                zones[key]["shown"] = shown[key]  # the cards revealed to `who`, still there, by place
            if key in told and isinstance(zones[key], dict):
                zones[key]["told"] = facts = told[key]  # the facts told to `who` of its cards, by place
                size = self._viewed(g, size, sum(len(text) for texts in facts.values() for text in texts))
        vars_: dict[str, Any] = {}
        state_vars = g.state.vars
        for key in sorted(state_vars):
            var_decl, owned_by = info[key] if key in info else self._info_of(g, key)
            visibility = var_decl.visibility
            if who is None or visibility == "public" or (visibility == "owner" and owned_by == owner):
                text = vars_[key] = g.label(state_vars[key])
                size = self._viewed(g, size, len(text))
            elif visibility == "count":
                vars_[key] = "?"
        pending = None
        if g.pending is not None and (who is None or g.pending.player == who):
            pending = {"by": g.pending.by, "prompt": g.pending.prompt, "options": g.pending.labels}
        elif g.pending is not None:
            pending = {"by": g.pending.by, "prompt": "(waiting)"}
        return {
            "as": "all" if who is None else str(who),
            "zones": zones,
            "vars": vars_,
            "pending": pending,
            "over": g.state.over,
        }

    def _viewed(self, g: Viewed, size: int, more: int) -> int:
        """The characters of a view so far, `more` added: past VIEW_BUDGET, the located runaway error."""
        size += more
        if size > VIEW_BUDGET:
            raise g.runaway(
                g.current_span(),
                f"a view of more than {VIEW_BUDGET} characters is more than a game may show: a runaway computation?",
            )
        return size

    def _info_of(self, g: Viewed, key: str) -> tuple[Any, str | None]:
        """The declaration of a zone or variable key, and the text of its first Player key (kept per rulebook).

        (`slot[2,P1]`: P1. A player owns the key when that text is its seat, as `owned_by` says.)
        """
        name = key.split("[", 1)[0]
        try:
            _, keys = g.split_key(key)
        except ValueError:  # not a key the rules wrote (a state changed from outside): no owner
            keys = ()
        decl = g.program.zones.get(name) or g.program.vars[name]
        owner = None
        for type_, value in zip(decl.keys, keys, strict=False):
            if isinstance(type_, s.NamedType) and type_.name == "Player":
                owner = str(value) if isinstance(value, Player) else None
                break
        entry = g.key_info[key] = (decl, owner)
        return entry

    def owned_by(self, g: Viewed, key: str, who: Player) -> bool:
        """Whether `who` is the player named by the first Player key of a zone or variable key (`slot[2,P1]`)."""
        info = g.key_info.get(key)  # (a key kept there names a declared zone or variable)
        if info is None:
            name = key.split("[", 1)[0]
            if name not in g.program.zones and name not in g.program.vars:
                return False
            info = self._info_of(g, key)
        return info[1] == str(who)

    def choice_public_to(self, g: Viewed, who: Player) -> bool:
        """Whether `who` will see the answer to the pending decision, as a trace's `choose` line
        shows it (see visible_to): its options are values `who` sees, outside a `secret` block."""
        if g.pending is None or g.pending.player is None or g.secret_run is not None or not g.frames:
            return False
        zones = knowledge.public_zones(g.frames[-1], g.pending, g.state.location)
        return zones is not None and all(self.sees_cards_of(g, k, who) for k in zones)

    def shown_to(self, g: Viewed, event: Event, who: Player | None) -> bool:
        """Whether `who`'s trace has a line for the event: a forced decision's line is shown only
        to those who may not see the choice, so that its shape tells them nothing."""
        return not event.forced or (who is not None and self.visible_to(g, event, who) != _in_full(event, who))

    def visible_to(self, g: Viewed, event: Event, who: Player | None) -> str:
        """The text of a trace event as `who` may see it.

        Inside a `secret` block, an event that `who` may not see in full, and any decision that
        another player (or the table) answered, is only SECRET_TEXT: neither its prompt nor its
        answer shows (the trace folds a run's secret lines into one, see render.trace_lines).
        """
        text = self._visible_text(g, event, who)
        if (
            event.secret is not None
            and who is not None
            and (text != _in_full(event, who) or (event.verb in ("choose", "reveal") and event.actor != str(who)))
        ):
            return SECRET_TEXT
        return text

    def _visible_text(self, g: Viewed, event: Event, who: Player | None) -> str:
        if event.verb == knowledge.VERB or event.verb == knowledge.TELL_VERB:
            return knowledge.visible_text(g, event, who)
        if event.own_text is not None and who is not None:
            # A choice among cards its chooser may not identify: the chooser reads the place, the
            # seats that identified the card read it, the others the prompt.
            if event.actor == str(who):
                return event.own_text
            return event.text if str(who) in event.to else event.hidden_text or ""
        if who is None or not event.zones:
            if event.verb in ("choose",) and who is not None and event.actor not in (str(who), "table"):
                if event.public_zones is not None and all(self.sees_cards_of(g, k, who) for k in event.public_zones):
                    return event.text  # a choice among values the viewer sees is public
                return event.hidden_text or event.text
            if event.verb == "reveal" and who is not None:
                return event.hidden_text or event.text
            return event.text
        if event.verb == "move":
            return self._move_visible_to(g, event, who)
        for key in event.zones:
            name = key.split("[", 1)[0]
            if name in g.program.zones:
                decl = g.program.zones[name]
                if decl.visibility == "public" and not decl.shuffled:
                    continue
                if self.zone_seen_by(g, decl.visibility, key, who):
                    continue
                if decl.visibility == "top":
                    continue  # the card passed the face-up top of the pile
            elif name in g.program.vars:
                vdecl = g.program.vars[name]
                if vdecl.visibility == "public" or (vdecl.visibility == "owner" and self.owned_by(g, key, who)):
                    continue
            elif name == key:
                continue
            else:
                continue
            if name in g.program.zones and self._moved_between_visible(g, event, who):
                continue
            return event.hidden_text or "(hidden)"
        return event.text

    def _move_visible_to(self, g: Viewed, event: Event, who: Player) -> str:
        """A move names its cards to `who` if `who` saw them where they were or sees them where they land."""
        *sources, dst = event.zones
        if all(self.sees_cards_of(g, key, who, as_source=True) for key in sources) or self.sees_cards_of(g, dst, who):
            return event.text
        decl = g.program.zones.get(dst.split("[", 1)[0])
        if decl is not None and decl.visibility == "top" and event.top_text:
            return event.top_text
        return event.hidden_text or "(hidden)"

    def sees_cards_of(self, g: Viewed, key: str, who: Player, as_source: bool = False) -> bool:
        decl = g.program.zones.get(key.split("[", 1)[0])
        if decl is None or decl.shuffled:
            return False
        if self.zone_seen_by(g, decl.visibility, key, who):
            return True
        # A card taken from a pile whose top is face up is (normally) that top card.
        return as_source and decl.visibility == "top"

    def _moved_between_visible(self, g: Viewed, event: Event, who: Player) -> bool:
        # A card that lands somewhere `who` sees is seen, wherever it came from.
        dst = event.zones[-1]
        name = dst.split("[", 1)[0]
        decl = g.program.zones.get(name)
        if decl is None:
            return False
        return (decl.visibility in ("public", "top") and not decl.shuffled) or (
            decl.visibility in ("owner", "others") and self.zone_seen_by(g, decl.visibility, dst, who)
        )

    def zone_seen_by(self, g: Viewed, visibility: str, key: str, who: Player) -> bool:
        """Whether `who` sees the cards of zone `key`, of that visibility, in their order: a `public`
        zone, `who`'s own `owner` zone, another player's `others` zone (a shuffled zone's order is
        seen by nobody: the callers judge that)."""
        if visibility == "public":
            return True
        if visibility == "owner":
            return self.owned_by(g, key, who)
        return visibility == "others" and not self.owned_by(g, key, who)


def _in_full(event: Event, who: Player | None) -> str:
    """The most of the event's line `who` may read: all of it, or for the chooser of a card offered
    by its place, the place (`Event.own_text`)."""
    if event.own_text is not None and who is not None and event.actor == str(who):
        return event.own_text
    return event.text
