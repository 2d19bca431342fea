"""The soak's checks: what must hold of a game after every decision (see soak.py, which runs them).

(Moved out of soak.py, which re-exports them.)
"""

from __future__ import annotations

import json
import random
from typing import Any

import attrs

from ..errors import GameError, RulebookError
from ..language.values import CardRef, Player
from ..render import where
from ..runtime.basics import SECRET_TEXT
from ..runtime.game import Decision, Event, Game, SecretRun
from ..runtime.information import hidden_positions, permute_hidden


def conservation(game: Game) -> str | None:
    """Why the cards are not conserved, or None: each created card is in exactly one zone, once."""
    st = game.state
    cards = st.cards
    where: list[str | None] = [None] * len(cards)  # card id -> the zone found holding it
    decls = game.program.zones
    for key, ids in st.zones.items():
        decl = decls.get(key.split("[", 1)[0])
        if decl is None:
            return f"a zone {key} that the rulebook does not declare"
        card_type = decl.card_type
        for cid in ids:
            if not isinstance(cid, int) or not 0 <= cid < len(cards):
                return f"{key} holds a card #{cid} that was never created"
            if where[cid] is not None:
                return f"card #{cid} is in {where[cid]} and in {key}"
            where[cid] = key
            if card_type != "any" and type(cards[cid]).__name__ != card_type:
                return f"{key} (of {card_type}) holds card #{cid}, a {type(cards[cid]).__name__}"
    if None in where:
        missing = [i for i, key in enumerate(where) if key is None]
        return f"cards {', '.join(f'#{i}' for i in missing[:5])} are in no zone"
    if len(st.location) != len(cards):
        return f"{len(cards)} cards but {len(st.location)} locations"
    for cid, card in enumerate(cards):
        if card.id != cid:
            return f"the card at #{cid} has id {card.id}"
    if st.location != where:
        cid = next(i for i, (a, b) in enumerate(zip(st.location, where, strict=True)) if a != b)
        return f"card #{cid} is in {where[cid]}, but its location says {st.location[cid]}"
    return None


def round_trip(game: Game) -> str | None:
    """Why the state or a view does not survive cattrs and JSON, or None."""
    conv = game.rulebook.converter
    data = conv.unstructure(game.state)
    again = conv.structure(json.loads(json.dumps(data)))
    if again != game.state:
        return "the state changes through the converter and JSON"
    if conv.unstructure(again) != data:
        return "the state's data changes through the converter and JSON"
    return views_round_trip(game)


def views_round_trip(game: Game) -> str | None:
    """Why a player's view (or the full view) does not survive JSON, or None."""
    viewers = (None, *game.players)
    views = [game.view(who) for who in viewers]
    # One text for all the views (JSON is compositional); views are fresh trees, so no cycle to look for.
    back = json.loads(json.dumps(views, check_circular=False))
    if back != views:
        who = next(w for w, v, b in zip(viewers, views, back, strict=True) if v != b)
        return f"the view of {who or 'all'} changes through JSON"
    return None


class RoundTrip:
    """`round_trip` for every decision of one game, made cheap by remembering the cards it has checked.

    The state's converter (un)structures `cards` one card at a time (the codec's card functions)
    and JSON text is compositional, so the state survives exactly when each card survives on its
    own and the rest of the state (with no cards) survives. A card is a frozen object holding
    immutable values, and most cards do not change from one decision to the next: a card that
    survived is remembered by identity, with the card that came back, and checked again only if
    it is a new object or no longer equal to what came back. Views are built afresh every time.
    `soak_game` checks the first and the last state whole (`round_trip`), which also confirms
    that the converter (un)structures the cards one by one.
    """

    def __init__(self, game: Game):
        self.codec = game.rulebook.converter
        self.seen: dict[int, tuple[Any, Any]] = {}

    def __call__(self, game: Game) -> str | None:
        codec, seen, st = self.codec, self.seen, game.state
        for cid, card in enumerate(st.cards):
            known = seen.get(id(card))
            if known is not None and known[0] is card and card == known[1]:
                continue
            data = codec.unstructure_card(card)
            again = codec.structure_card(json.loads(json.dumps(data, check_circular=False)))
            if again != card:
                return f"the state changes through the converter and JSON (card #{cid})"
            if codec.unstructure_card(again) != data:
                return f"the state's data changes through the converter and JSON (card #{cid})"
            seen[id(card)] = (card, again)  # holding the card keeps its id from being reused
        rest = attrs.evolve(st, cards=[])
        data = codec.unstructure(rest)
        again = codec.structure(json.loads(json.dumps(data, check_circular=False)))
        if again != rest:
            return "the state changes through the converter and JSON"
        if codec.unstructure(again) != data:
            return "the state's data changes through the converter and JSON"
        return views_round_trip(game)


def hidden_leak(game: Game, rng: random.Random, tries: int = 3) -> str | None:
    """Whether the player deciding now could tell apart states that differ only in what they cannot see.

    Two states *differ only in what A cannot see* when one is the other with the cards at A's
    hidden positions (`hidden_positions`) exchanged among themselves, as they were created, what
    the rules changed on each staying at its place (`permute_hidden`). The promise:
    A's view, and the decision A is asked (prompt and legal answers, re-asked from the changed
    state at the same point of the rules), are the same in both. What A remembers from earlier
    (the trace) is not part of the comparison; nor are other players' `owner` variables.
    """
    decision = game.current_decision()
    if decision is None or decision.player is None:
        return None
    viewer = decision.player
    view = game.view(viewer)
    asked = (decision.prompt, decision.labels)
    for _ in range(tries):
        twin = permute_hidden(game, viewer, rng)
        twin.ask_again()
        again = twin.current_decision()
        twin_asked = (again.prompt, again.labels) if again is not None and again.player == viewer else None
        if twin_asked != asked:
            return (
                f"{viewer} is asked {asked} but, with the hidden cards exchanged, {twin_asked}: the decision "
                "depends on what the player cannot see"
            )
        if twin.view(viewer) != view:
            diff = _first_difference(view, twin.view(viewer))
            return f"{viewer}'s view changes when only hidden cards are exchanged: {diff}"
    return names_hidden(game) or error_leak(game, rng)


def names_hidden(game: Game) -> str | None:
    """Whether an option of the pending decision names, by its label, a card its chooser cannot
    identify (a card at one of the chooser's hidden positions): such a card is offered by its place.

    Exact where the exchange of `hidden_leak` may miss it: the chooser's hidden cards may all be
    alike, or the exchange may happen to leave the named ones in place."""
    decision = game.current_decision()
    if decision is None or decision.player is None:
        return None
    viewer = decision.player
    zones = game.state.zones
    hidden = {zones[key][i] for key, i in hidden_positions(game, viewer)}
    for option in decision.options:
        value = option.value
        if isinstance(value, CardRef) and value.id in hidden:
            own = game.label(value)
            if option.label == own or option.label.startswith(f"{own} in "):
                return f"{viewer} is offered {option.label!r}, which names a card {viewer} cannot see"
    return None


def error_leak(game: Game, rng: random.Random) -> str | None:
    """Whether the error a seat is sent for an answer that is not legal (`Game.apply(..., by=seat)`,
    as a server relays it to whoever sent the answer) depends on what that seat cannot see: for
    each seat, the error in the game and in a twin with the cards that seat cannot see exchanged
    must be the same. (An error that quotes neither the prompt nor an option depends on neither:
    it is not compared, which spares a twin per seat at most decisions.)"""
    decision = game.current_decision()
    if decision is None:
        return None
    wrong = "\x00 not an answer"
    quoted = [text for text in (decision.prompt, *decision.labels) if text]
    for seat in game.players:
        said = _refusal(game, wrong, seat)
        if not any(text in said for text in quoted):
            continue
        twin = permute_hidden(game, seat, rng)
        twin.ask_again()
        if twin.current_decision() is None:
            continue  # taken at once in the twin: `hidden_leak` and `shape_leak` judge that
        again = _refusal(twin, wrong, seat)
        if again != said:
            return (
                f"the error {seat} is sent for an answer that is not legal depends on what {seat} cannot "
                f"see: {said!r} but, with the hidden cards exchanged, {again!r}"
            )
    return None


def _refusal(game: Game, answer: str, seat: Player) -> str:
    try:
        game.apply(answer, by=seat)
    except GameError as error:
        return str(error)
    raise AssertionError(f"{answer!r} was taken as an answer")


def shape_leak(game: Game, rng: random.Random) -> str | None:
    """Whether what a player is shown of the next step depends on what they cannot see.

    For each player V: the game, and a twin with the cards V cannot see exchanged
    (`permute_hidden`), answer the pending decision (the same option, or its counterpart among
    the exchanged cards: V cannot tell which was taken) and run on to the next decision. The lines of
    the trace V is shown of that step must match, line for line, up to the first pair of lines
    that both show V something of what happened (not only their hidden text) and that differ (a
    card or a `say` V sees tells V the games apart from then on, as it may), or up to a line that
    shows V something in full in one game and appears nowhere in the other (an attempt's failure,
    which everyone is shown: a search of a hidden pile that finds nothing). Any other difference
    (a line one shows and the other does not, a hidden line against another) is information in
    the shape of the trace: a decision taken at once because it had one option, a hidden step in
    a branch on a hidden card. If the decision was taken at once in the twin, the game may answer
    it any way: the check fails only if no answer shows V what the twin shows.
    """
    decision = game.current_decision()
    if decision is None:
        return None
    index = rng.randrange(len(decision.options))
    for viewer in game.players:
        twin = permute_hidden(game, viewer, rng, trace=True)
        twin_start = len(twin.events)
        try:
            same = twin.ask_again(go_on=True)
            again = twin.current_decision()
            answers = [index]
            if same and again is not None and again.prompt == decision.prompt:
                twin.apply(_counterpart(decision, again, index))
            else:  # taken at once in the twin: any answer here may be the one that matches it
                answers = list(range(len(decision.options)))[:12]
        except RulebookError:
            continue  # a failing answer is the soak's own finding, when it plays it
        told = _shown(twin, twin.events[twin_start:], viewer)
        problems = []
        for answer in answers:
            ours = game.clone(trace=True)
            start = len(ours.events)
            try:
                ours.apply(answer)
            except RulebookError:
                continue
            seen = _shown(ours, ours.events[start:], viewer)
            problems.append(_own_answer(viewer, decision, seen, told) or _compare(viewer, seen, told))
        if problems and all(problems):
            return problems[0]
    return None


def _own_answer(
    viewer: Player, decision: Decision, seen: list[tuple[str, bool]], told: list[tuple[str, bool]]
) -> str | None:
    """Whether the line of the viewer's own answer differs between the games: answering the same
    option, the chooser reads the same (a card they may not see is offered, and shown to them, by
    its place)."""
    if decision.player != viewer:
        return None
    mine = f"choose  {viewer} "
    a = next((text for text, _ in seen if text.startswith(mine)), None)
    b = next((text for text, _ in told if text.startswith(mine)), None)
    if a is None or b is None or a == b:
        return None
    return (
        f"what {viewer} reads of their own answer depends on what they cannot see: {a!r} but, with the "
        f"hidden cards exchanged, {b!r}"
    )


def _compare(viewer: Player, seen: list[tuple[str, bool]], told: list[tuple[str, bool]]) -> str | None:
    for (a, full_a), (b, full_b) in zip(seen, told, strict=False):
        if a == b:
            continue
        if full_a and full_b:
            break  # what the viewer sees in full tells the two games apart from here on
        # A line shown in full in one game and nowhere in the other (an attempt's failure, shown to
        # everyone; a `say` on one branch) tells them apart by what it shows, as the rules mean it
        # to. A line shown in full in both tells nothing apart: the hidden line beside it does.
        if (full_a and (a, True) not in told) or (full_b and (b, True) not in seen):
            break
        return (
            f"what {viewer} is shown depends on what they cannot see: {a!r} but, with the hidden cards exchanged, {b!r}"
        )
    return None


def _counterpart(decision: Decision, again: Decision, index: int) -> int:
    """The twin's answer to option `index`: the same label if offered, else an option of the same
    kind (a card for a card, "done" for "done"), one only the twin offers first (the hidden
    cards were exchanged: a card of the one for a card of the other), else the one at that place."""
    chosen = decision.options[index]
    labels = again.labels
    if chosen.label in labels:
        return labels.index(chosen.label)
    kind = type(chosen.value)
    alike = [i for i, o in enumerate(again.options) if type(o.value) is kind]
    only = [i for i in alike if labels[i] not in decision.labels] or alike
    return only[index % len(only)] if only else index % len(labels)


def _shown(game: Game, events: list[Event], viewer: Player) -> list[tuple[str, bool]]:
    """The lines of the trace `viewer` is shown of `events` (a run of another player's secret
    block as one line, as render.trace_lines folds it), each with whether it shows V something
    of its cards or answer (in full, or the top card it leaves face up) or only its hidden text."""
    out: list[tuple[str, bool]] = []
    last: SecretRun | None = None
    for event in events:
        if not game.shown_to(event, viewer):
            continue
        text = game.visible_to(event, viewer)
        if event.secret is not None and text == SECRET_TEXT:
            if event.secret != last:
                last = event.secret
                out.append((f"choose  {SECRET_TEXT}  @ {where(event.secret.span)}", False))
            continue
        shows = text not in (event.hidden_text, "(hidden)")  # in full, or the top card it left face up
        out.append((f"{event.verb:<7} {event.actor} {text}  @ {where(event.span)}", shows))
    return out


def _first_difference(a: Any, b: Any, path: str = "") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            if a.get(k) != b.get(k):
                return _first_difference(a.get(k), b.get(k), f"{path}.{k}" if path else str(k))
    return f"{path}: {a!r} vs {b!r}"
