"""Changes of the state: every move, assignment and creation goes through here, traced and journalled
(while an attempt, or an `apply`, is open). Functions over the game (a `Stored`), not a layer of it:
`Game` has each public one as a method too (game.py, its facade), the function itself."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from ..errors import Span
from ..language.values import (
    CardRef,
    Record,
    ZoneRef,
)
from . import knowledge
from .basics import CARD_BUDGET, EMPTY_MEMO, LABEL_CACHE_SIZE, Event
from .core import (
    plain_card,
)
from .evaluate import Valued, card_label, label
from .machine import RuleFrame
from .state import card_with


class Stored(Valued, Protocol):
    """A game as the functions of this module change it (`Game` has it all): the values' `Valued`, and
    what undoing needs of `apply`'s `Keep` (machine.py)."""

    @property
    def keep(self) -> Any: ...

    def shallow(self, value: Any, span: Span) -> None: ...


def forget(g: Stored, name: str, key: str) -> None:
    """Forget what was derived from zone or variable `name`, changed at `key` (the memo:
    compile/memo.py, MemoLayout): of a function that reads it only at its player's keys,
    the values of that player alone, when the key is a player's."""
    plan = g.code.forgetting[len(g.players)].get(key)
    if plan is None:  # (the dicts to empty, found once for each key: changes come again and again)
        plan = g.code.forget_plan(len(g.players), name, key)
    memo = g.memo
    for i in plan:
        memo[i] = EMPTY_MEMO


def forget_all(g: Stored) -> None:
    """Forget everything derived from the state."""
    g.memo[:] = g.code.empty_memo


def undo(g: Stored, mark: int) -> None:
    """Undo the journal entries back to `mark` (an attempt: `machine.unwind`; a failed `apply`), the last first.

    An attempt opened before the pending answer that fails during it undoes past the mark of
    `apply` (`Keep.mark`): the state and journal as they were before the answer are copied
    first, once, for `apply` to put back if the answer fails after all."""
    keep = g.keep
    if keep is not None and mark < keep.mark and keep.state is None:
        undo(g, keep.mark)
        keep.state, keep.journal = g.state.copy(), list(g.journal)
    forget_all(g)
    st = g.state
    zones = st.zones
    while len(g.journal) > mark:
        entry = g.journal.pop()
        kind = entry[0]
        if kind == "move":
            _, cid, src, index, dst = entry
            zones[dst].remove(cid)
            (zones[src] if src in zones else zones.setdefault(src, [])).insert(index, cid)
            st.location[cid] = src
        elif kind == "var":
            _, key, old, existed = entry
            if existed:
                st.vars[key] = old
            else:
                st.vars.pop(key, None)
        elif kind == "field":
            _, cid, old_card = entry
            st.cards[cid] = old_card
        elif kind == "create":
            _, cid, zone = entry
            zones[zone].remove(cid)
            st.cards.pop()
            st.location.pop()
        elif kind == "zone":
            _, key = entry
            del zones[key]
        else:  # "known", "forgot", "told", "untold"
            knowledge.undo(g, entry)


def note_event(
    g: Stored,
    verb: str,
    text: str,
    span: Span,
    zones: tuple[str, ...] = (),
    hidden_text: str | None = None,
    top_text: str | None = None,
) -> None:
    """Tell the sinks of an event made here, in the secret run open now (only when `sinks.events`)."""
    g.emit(Event(verb, text, span, "", zones, hidden_text, top_text, g.secret_run))  # (positional: cheaper)


def _changed(g: Stored, name: str) -> None:
    watched = g.code.rule_reads
    if watched is not None and name not in watched:
        return  # no rule reads it: checking the rules would find what it found before
    if g.together or g.rule_frames:
        g.dirty.add(name)
    else:
        check_rules(g, {name})


def check_rules(g: Stored, names: set[str]) -> None:
    names |= g.dirty
    g.dirty = set()
    g.rule_frames += 1
    g.push(RuleFrame(names))


def move(g: Stored, cards: Sequence[CardRef], zone: ZoneRef, bottom: bool, span: Span) -> None:
    if not cards:
        return
    if g.sinks.moves:
        for sink in g.sinks.moves:
            sink.on_move(g, cards, zone)
    st = g.state
    dst_key = zone.key
    zones = st.zones
    if dst_key in zones:
        dst = zones[dst_key]
    else:
        dst = zones[dst_key] = []
        if g.attempts:  # undone, the zone is gone again: the state is as if the attempt had not begun
            g.journal.append(("zone", dst_key))
    location = st.location
    # (the commonest move, one card: the loop below without its list of sources, written twice on purpose:
    # some 0.6 % of a bundled card game's instructions, 1 % of a small game's bytecodes: RESULTS.md)
    if len(cards) == 1:
        cid = cards[0].id
        src_key = location[cid]
        src = zones[src_key]
        index = src.index(cid)
        del src[index]
        if bottom:
            dst.insert(0, cid)
        else:
            dst.append(cid)
        location[cid] = dst_key
        if g.attempts:
            g.journal.append(("move", cid, src_key, index, dst_key))
    else:
        sources: list[str] = []
        journal = g.journal if g.attempts else None
        # The zone the last card came from and its list, read again only when a card's differs.
        src_key = ""
        src = dst  # (a list never used: the first card reads its own)
        for card in cards:
            cid = card.id
            if location[cid] != src_key:
                src_key = location[cid]
                src = zones[src_key]
                if src_key not in sources:
                    sources.append(src_key)
            index = src.index(cid)
            del src[index]
            if bottom:
                dst.insert(0, cid)
            else:
                dst.append(cid)
            location[cid] = dst_key
            if journal is not None:
                journal.append(("move", cid, src_key, index, dst_key))
        if len(sources) > 1:
            _forget_moved(g, cards, zone, sources, bottom, span)
            return
    # (from one zone, the commonest: `forget` of both zones and the zones the rules read, made once for the
    # pair: `CodeCache.move_plan`)
    code, memo, players = g.code, g.memo, len(g.players)
    pair = code.moving[players].get((src_key, dst_key)) or code.move_plan(players, src_key, dst_key, zone.name)
    for i in pair[0]:
        memo[i] = EMPTY_MEMO
    if st.known or st.told:
        knowledge.forget(g, [c.id for c in cards])
    if g.sinks.events:
        _move_event(g, cards, [src_key], dst_key, bottom, span)
    for name in pair[1]:  # (`_changed` of each, written out)
        if g.together or g.rule_frames:
            g.dirty.add(name)
        else:
            check_rules(g, {name})


def _forget_moved(
    g: Stored, cards: Sequence[CardRef], zone: ZoneRef, sources: list[str], bottom: bool, span: Span
) -> None:
    """What `move` does once its cards moved, for cards from several zones: `forget` of the destination
    and each source, the event, and the rules told of the zones they read."""
    st, code, memo, players, dst_key = g.state, g.code, g.memo, len(g.players), zone.key
    changed = {zone.name} if g.program.rules else None  # (no rule: `_changed` does nothing)
    plans = code.forgetting[players]
    plan = plans.get(dst_key)
    if plan is None:
        plan = code.forget_plan(players, zone.name, dst_key)
    for i in plan:
        memo[i] = EMPTY_MEMO
    for key in sources:
        if key != dst_key:
            plan = plans.get(key)
            if plan is None or changed is not None:  # (the zone's name, only where it is needed)
                name = key.split("[", 1)[0]
                if changed is not None:
                    changed.add(name)
                if plan is None:
                    plan = code.forget_plan(players, name, key)
            for i in plan:
                memo[i] = EMPTY_MEMO
    if st.known or st.told:
        knowledge.forget(g, [c.id for c in cards])
    if g.sinks.events:
        _move_event(g, cards, sources, dst_key, bottom, span)
    if changed is not None:  # (`_changed` of each, written out: a move is among the commonest changes)
        watched = code.rule_reads
        for name in sorted(changed) if len(changed) > 1 else changed:
            if watched is None or name in watched:  # (else no rule reads it: checking would find the same)
                if g.together or g.rule_frames:
                    g.dirty.add(name)
                else:
                    check_rules(g, {name})


def _move_event(
    g: Stored, cards: Sequence[CardRef], sources: list[str], dst_key: str, bottom: bool, span: Span
) -> None:
    labels = ", ".join(label(g, c) for c in cards)
    where = "bottom of " if bottom else ""
    text = f"{labels}: {' + '.join(sources)} -> {where}{dst_key}"
    hidden = f"{len(cards)} card{'s' if len(cards) != 1 else ''}: {' + '.join(sources)} -> {where}{dst_key}"
    top = None if bottom else f"{hidden} (top: {label(g, cards[-1])})"
    note_event(g, "move", text, span, zones=(*sources, dst_key), hidden_text=hidden, top_text=top)


def set_var(g: Stored, name: str, key: str, value: Any, span: Span) -> None:
    code = g.code
    plan = code.forgetting[len(g.players)].get(key)  # (`forget`, written out: the commonest change)
    if plan is None:
        plan = code.forget_plan(len(g.players), name, key)
    memo = g.memo
    for i in plan:
        memo[i] = EMPTY_MEMO
    held = g.state.vars
    if g.attempts:
        g.journal.append(("var", key, held.get(key), key in held))
    if value.__class__ is tuple or value.__class__ is Record:
        g.shallow(value, span)
    if g.sinks.events:
        old = held.get(key)
        held[key] = value
        if old != value:
            # (made here, not by `_event`: the commonest line of a trace, thousands a game in some rulebooks)
            g.emit(Event("set", f"{key} = {label(g, value)}", span, "", (key,), None, None, g.secret_run))
    else:
        held[key] = value
    watched = code.rule_reads  # (`_changed`, written out)
    if watched is None or name in watched:
        if g.together or g.rule_frames:
            g.dirty.add(name)
        else:
            check_rules(g, {name})


def set_field(g: Stored, card: CardRef, field: str, value: Any, span: Span) -> None:
    # A card's field is read wherever the card is: forgotten is all but the values of the functions
    # that read no card's field or label (MemoLayout.field_free), which stay right.
    memo = g.memo
    for i in g.code.field_dicts:
        memo[i] = EMPTY_MEMO
    st = g.state
    old = st.cards[card.id]
    if g.attempts:
        g.journal.append(("field", card.id, old))
    # The trace names the card as it was, since the change may alter its label.
    before = label(g, card) if g.sinks.events else ""
    if value.__class__ is tuple or value.__class__ is Record:
        g.shallow(value, span)
    st.cards[card.id] = card_with(old, **{field: value})
    if st.told:
        knowledge.forget_field(g, card.id, field)
    if g.sinks.events:
        note_event(g, "set", f"{before}.{field} = {label(g, value)}", span, zones=(st.location[card.id],))
    _changed(g, st.location[card.id].split("[", 1)[0])


def create(g: Stored, card_type: str, n: int, values: dict[str, Any], zone: ZoneRef, span: Span) -> None:
    # What was derived from the zone it goes into: nothing else saw the new cards (no expression
    # reads every card; one that may read any zone keeps its values in the dict every change empties).
    key = zone.key
    forget(g, zone.name, key)
    st = g.state
    cards = st.cards
    if len(cards) + max(n, 0) > CARD_BUDGET:
        raise g.runaway(
            span, f"{len(cards) + n} cards is more than a game may hold ({CARD_BUDGET}): a runaway computation?"
        )
    for value in values.values():
        if value.__class__ is tuple or value.__class__ is Record:
            g.shallow(value, span)
    cls = g.rulebook.card_classes[card_type]  # (`classes`, without the property's call)
    if key in st.zones:
        dst = st.zones[key]
    else:
        dst = st.zones[key] = []
        if g.attempts:
            g.journal.append(("zone", key))
    if n > 0:
        location, created = st.location, st.created
        journal = g.journal if g.attempts else None
        for cid in range(len(cards), len(cards) + n):
            card = cls(id=cid, **values)
            cards.append(card)
            if len(created) == cid:  # (`add_created`'s common case, without its call)
                created.append(card)
            else:
                st.add_created(card)
                created = st.created
            location.append(key)
            dst.append(cid)
            if journal is not None:
                journal.append(("create", cid, key))
        labels = g.code.card_labels
        plain = labels.get(cls)  # (`plain_card`'s answer, kept under the class: its call only the first time)
        if plain is None:
            plain = plain_card(cls, g.program, labels)
        if plain:
            _label_new_cards(g, cards[-n:] if n > 1 else [card], cls, values)
    if g.sinks.events and n:
        text = f"{n} x {label(g, CardRef(len(cards) - 1))} in {key}"
        note_event(g, "create", text, span, zones=(key,), hidden_text=f"{n} x {card_type} in {key}")
    if g.program.rules:  # else `_changed` does nothing
        _changed(g, zone.name)


def _label_new_cards(g: Stored, cards: list[Any], cls: type, values: dict[str, Any]) -> None:
    """Put new cards of a plain class in the label cache: one label for them all, known from their fields.

    (The label of a plain card depends on its fields alone, so the same fields in a later game
    find it without rendering the template again.)
    """
    labels = g.code.card_labels
    by_fields = (cls, tuple(values.items()))
    try:
        text = labels.get(by_fields)
    except TypeError:  # a value that cannot be a key (a checker-approved `any`): label as usual
        return
    kept = text is not None
    if not kept:
        text = card_label(g, cards[0])
    # Bounded at every insertion: each game's new cards add entries, and a simulation of many games
    # would otherwise grow the cache (and the collector's work) without end.
    if len(labels) + len(cards) > LABEL_CACHE_SIZE:
        labels.clear()
        kept = False
    if not kept:
        labels[by_fields] = text
    for card in cards:
        labels[id(card)] = (card, text)
