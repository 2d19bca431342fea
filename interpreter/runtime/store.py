"""Changes of the state: every move, assignment and creation goes through here, traced and journalled
(while an attempt, or an `apply`, is open)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import Span
from ..language.values import (
    CardRef,
    Record,
    ZoneRef,
)
from . import knowledge
from .basics import CARD_BUDGET, EMPTY_MEMO, LABEL_CACHE_SIZE, Event
from .core import (
    GameCore,
    plain_card,
)
from .evaluate import card_label, label
from .machine import RuleFrame
from .state import card_with


class Store(GameCore):
    """The only way the state changes: each change is traced and, inside an attempt, journalled for undo."""

    def forget(self, name: str, key: str) -> None:
        """Forget what was derived from zone or variable `name`, changed at `key` (the memo:
        compile/generate.py, MemoLayout): of a function that reads it only at its player's keys,
        the values of that player alone, when the key is a player's."""
        plan = self.code.forgetting[len(self.players)].get(key)
        if plan is None:  # (the dicts to empty, found once for each key: changes come again and again)
            plan = self.code.forget_plan(len(self.players), name, key)
        memo = self.memo
        for i in plan:
            memo[i] = EMPTY_MEMO

    def forget_all(self) -> None:
        """Forget everything derived from the state."""
        self.memo[:] = self.code.empty_memo

    def undo(self, mark: int) -> None:
        """Undo the journal entries back to `mark` (an attempt: `machine.unwind`; a failed `apply`), the last first.

        An attempt opened before the pending answer that fails during it undoes past the mark of
        `apply` (`Keep.mark`): the state and journal as they were before the answer are copied
        first, once, for `apply` to put back if the answer fails after all."""
        keep = self.keep
        if keep is not None and mark < keep.mark and keep.state is None:
            self.undo(keep.mark)
            keep.state, keep.journal = self.state.copy(), list(self.journal)
        self.forget_all()
        st = self.state
        zones = st.zones
        while len(self.journal) > mark:
            entry = self.journal.pop()
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
                knowledge.undo(self, entry)  # type: ignore[arg-type]  # a layer of Game (see core.py)

    def note_event(
        self,
        verb: str,
        text: str,
        span: Span,
        zones: tuple[str, ...] = (),
        hidden_text: str | None = None,
        top_text: str | None = None,
    ) -> None:
        """Tell the sinks of an event made here, in the secret run open now (only when `sinks.events`)."""
        self.emit(Event(verb, text, span, "", zones, hidden_text, top_text, self.secret_run))  # (positional: cheaper)

    def _changed(self, name: str) -> None:
        watched = self.code.rule_reads
        if watched is not None and name not in watched:
            return  # no rule reads it: checking the rules would find what it found before
        if self.together or self.rule_frames:
            self.dirty.add(name)
        else:
            self.check_rules({name})

    def check_rules(self, names: set[str]) -> None:
        names |= self.dirty
        self.dirty = set()
        self.rule_frames += 1
        self.push(RuleFrame(names))

    def move(self, cards: Sequence[CardRef], zone: ZoneRef, bottom: bool, span: Span) -> None:
        if not cards:
            return
        if self.sinks.moves:
            for sink in self.sinks.moves:
                sink.on_move(self, cards, zone)
        st = self.state
        dst_key = zone.key
        zones = st.zones
        if dst_key in zones:
            dst = zones[dst_key]
        else:
            dst = zones[dst_key] = []
            if self.attempts:  # undone, the zone is gone again: the state is as if the attempt had not begun
                self.journal.append(("zone", dst_key))
        sources: list[str] = []
        location = st.location
        journal = self.journal if self.attempts else None
        # The zone the last card came from and its list, read again only when a card's differs.
        src_key: str | None = None
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
        changed = {zone.name} if self.program.rules else None  # (no rule: `_changed` does nothing)
        self.forget(zone.name, dst_key)
        for key in sources:
            if key != dst_key:
                name = key.split("[", 1)[0]
                if changed is not None:
                    changed.add(name)
                self.forget(name, key)
        if st.known or st.told:
            knowledge.forget(self, [c.id for c in cards])  # type: ignore[arg-type]  # a layer of Game (see core.py)
        if self.sinks.events:
            labels = ", ".join(label(self, c) for c in cards)  # type: ignore[arg-type]  # a layer of Game
            where = "bottom of " if bottom else ""
            text = f"{labels}: {' + '.join(sources)} -> {where}{dst_key}"
            hidden = f"{len(cards)} card{'s' if len(cards) != 1 else ''}: {' + '.join(sources)} -> {where}{dst_key}"
            top = None if bottom else f"{hidden} (top: {label(self, cards[-1])})"  # type: ignore[arg-type]  # a layer of Game
            self.note_event("move", text, span, zones=(*sources, dst_key), hidden_text=hidden, top_text=top)
        if changed is not None:
            for name in sorted(changed):
                self._changed(name)

    def set_var(self, name: str, key: str, value: Any, span: Span) -> None:
        self.forget(name, key)
        st = self.state
        if self.attempts:
            self.journal.append(("var", key, st.vars.get(key), key in st.vars))
        old = st.vars.get(key)
        if value.__class__ is tuple or value.__class__ is Record:
            self._shallow(value, span)
        st.vars[key] = value
        if self.sinks.events and old != value:
            # (made here, not by `_event`: the commonest line of a trace, thousands a game in some rulebooks)
            self.emit(Event("set", f"{key} = {label(self, value)}", span, "", (key,), None, None, self.secret_run))  # type: ignore[arg-type]  # a layer of Game
        self._changed(name)

    def set_field(self, card: CardRef, field: str, value: Any, span: Span) -> None:
        # A card's field is read wherever the card is: forgotten is all but the values of the functions
        # that read no card's field or label (MemoLayout.field_free), which stay right.
        memo = self.memo
        for i in self.code.field_dicts:
            memo[i] = EMPTY_MEMO
        st = self.state
        old = st.cards[card.id]
        if self.attempts:
            self.journal.append(("field", card.id, old))
        # The trace names the card as it was, since the change may alter its label.
        before = label(self, card) if self.sinks.events else ""  # type: ignore[arg-type]  # a layer of Game
        if value.__class__ is tuple or value.__class__ is Record:
            self._shallow(value, span)
        st.cards[card.id] = card_with(old, **{field: value})
        if st.told:
            knowledge.forget_field(self, card.id, field)  # type: ignore[arg-type]  # a layer of Game (see core.py)
        if self.sinks.events:
            self.note_event("set", f"{before}.{field} = {label(self, value)}", span, zones=(st.location[card.id],))  # type: ignore[arg-type]  # a layer of Game
        self._changed(st.location[card.id].split("[", 1)[0])

    def create(self, card_type: str, n: int, values: dict[str, Any], zone: ZoneRef, span: Span) -> None:
        # What was derived from the zone it goes into: nothing else saw the new cards (no expression
        # reads every card; one that may read any zone keeps its values in the dict every change empties).
        key = zone.key
        self.forget(zone.name, key)
        st = self.state
        cards = st.cards
        if len(cards) + max(n, 0) > CARD_BUDGET:
            raise self.runaway(
                span, f"{len(cards) + n} cards is more than a game may hold ({CARD_BUDGET}): a runaway computation?"
            )
        for value in values.values():
            if value.__class__ is tuple or value.__class__ is Record:
                self._shallow(value, span)
        cls = self.rulebook.card_classes[card_type]  # (`classes`, without the property's call)
        if key in st.zones:
            dst = st.zones[key]
        else:
            dst = st.zones[key] = []
            if self.attempts:
                self.journal.append(("zone", key))
        if n > 0:
            location, created = st.location, st.created
            journal = self.journal if self.attempts else None
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
            labels = self.card_labels
            plain = labels.get(cls)  # (`plain_card`'s answer, kept under the class: its call only the first time)
            if plain is None:
                plain = plain_card(cls, self.program, labels)
            if plain:
                self._label_new_cards(cards[-n:] if n > 1 else [card], cls, values)
        if self.sinks.events and n:
            text = f"{n} x {label(self, CardRef(len(cards) - 1))} in {key}"  # type: ignore[arg-type]  # a layer of Game
            self.note_event("create", text, span, zones=(key,), hidden_text=f"{n} x {card_type} in {key}")
        if self.program.rules:  # else `_changed` does nothing
            self._changed(zone.name)

    def _label_new_cards(self, cards: list[Any], cls: type, values: dict[str, Any]) -> None:
        """Put new cards of a plain class in the label cache: one label for them all, known from their fields.

        (The label of a plain card depends on its fields alone, so the same fields in a later game
        find it without rendering the template again.)
        """
        labels = self.card_labels
        by_fields = (cls, tuple(values.items()))
        try:
            text = labels.get(by_fields)
        except TypeError:  # a value that cannot be a key (a checker-approved `any`): label as usual
            return
        kept = text is not None
        if not kept:
            text = card_label(self, cards[0])  # type: ignore[arg-type]  # a layer of Game
        # Bounded at every insertion: each game's new cards add entries, and a simulation of many games
        # would otherwise grow the cache (and the collector's work) without end.
        if len(labels) + len(cards) > LABEL_CACHE_SIZE:
            labels.clear()
            kept = False
        if not kept:
            labels[by_fields] = text
        for card in cards:
            labels[id(card)] = (card, text)
