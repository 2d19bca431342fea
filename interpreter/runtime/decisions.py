"""The Decisions part of a game: asking a player or the table, the labelled options, and taking an answer.

`Decisions` is an object of its own, made by `Game.__init__`; each of its methods is given the game
as `Asking` (the `Context`, with what a question reads besides: its values, labels and answers so
far), and it never names the game's class. It holds no reference to the game: a game and its parts
make no cycle, so that a game nobody holds is freed at once, not by the cyclic collector (a still
copy is made at every decision of a secret run). The frames ask through it (`AskFrame.step` ->
`g.decisions.ask(g, frame)`), and the statements that draw from a shuffled zone call
`draw_at_once`. `public_zones` (whether others see a choice) is a function of the question and the
state, which the Information part reads too.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from ..check.program import first_player_param
from ..errors import RulebookError, Span
from ..language.values import (
    TABLE,
    CardRef,
    Player,
    ZoneRef,
    kept_among,
)
from ..syntax import ast as s
from . import knowledge
from .asks import Decision, Option, PlacedOption, tier_label
from .basics import CARD_REFS, EMPTY_MEMO, MASK64, MEMO_BUDGET, OPTION_BUDGET, Event, splitmix
from .codecache import CodeCache
from .context import Context, Frame
from .core import (
    DONE,
    MANY,
    MISSING,
    Switches,
    span_of,
)
from .machine import AskFrame, BlockFrame, CallFrame, open_attempt
from .tally import label_counts, label_tally, tally_after_draw


class Asking(Context, Protocol):
    """A game as its `Decisions` part uses it (`Game` has it all)."""

    answers: list[tuple[str, str]]

    @property
    def code(self) -> CodeCache: ...

    @property
    def switches(self) -> Switches: ...

    def evaluate(self, e: s.Expr, env: dict[str, Any]) -> Any: ...

    def argument(self, param: s.Param, v: Any, e: s.Expr) -> Any: ...

    def located(self, span: Span, message: str) -> RulebookError: ...

    def labels_of(self, ids: Sequence[int]) -> list[str]: ...

    def zone_labels(self, name: str, key: str, ids: Sequence[int]) -> tuple[str, ...]: ...

    def keep_zone_labels(self, name: str, key: str, labels: tuple[str, ...]) -> None: ...

    def note_event(self, verb: str, text: str, span: Span) -> None: ...


class Decisions:
    """Asking: a `Decision` made of labelled options, and the answer taken back into the frame that asked
    (the game's Decisions part: made by `Game.__init__`; each method is given the game, as `Asking`).

    Its own data: whether the table's draws are answered by the game's generator (`auto_chance`),
    and the next draws of shuffled zones named from outside (`next_draws`: zone key -> (label,
    span), in order; `Game.draw_next`)."""

    __slots__ = ("auto_chance", "next_draws", "trial")

    def __init__(self, auto_chance: bool, next_draws: dict[str, tuple[tuple[str, Span], ...]] | None = None):
        self.auto_chance = auto_chance
        self.next_draws: dict[str, tuple[tuple[str, Span], ...]] = next_draws if next_draws is not None else {}
        # A trial's (set by a greedy agent or MCTS playout on the clones it alone makes, thrown away): a
        # player's decision that surely has two options or more is left unlabelled (`_stop_trial`).
        self.trial = False

    def ask(self, g: Asking, frame: AskFrame) -> None:
        node, env = frame.node, frame.env
        if frame.kind == "menu":
            menu: s.Menu = node
            entry = g.code.menus.get(id(menu))
            if entry is None or entry[0] is not menu:  # (options never change once made: shared by every ask)
                cache = g.code
                offered = tuple(
                    (Option(o.label, o), None if o.when is None else cache.truth(o.when)) for o in menu.options
                )
                by = cache.value(menu.by) if menu.by is not None else None
                # (every option, when none has a condition: offered as they are, not filtered at each ask)
                always = None if any(when for _, when in offered) else tuple(option for option, _ in offered)
                entry = cache.menus[id(menu)] = (menu, offered, _prompt_code(cache, menu.prompt), by, always)
            options = entry[4]
            if options is None:
                options = [option for option, when in entry[1] if when is None or when(g, env)]
                if not options:
                    raise g.failure(menu.span, "no option of this choice is possible")
            prompt = entry[2]
            if prompt.__class__ is not str:
                prompt = prompt(g, env) or "Choose"
            if menu.by is None:
                who = self._first_player(g, env)
            else:  # (`_who`, written out for the commonest chooser: a player)
                by_code: Any = entry[3]
                who = by_code(g, env)
                if who.__class__ is not Player:
                    who = self._who(g, by_code, menu.by, env)
            self._decide(g, frame, who, prompt, options, menu.span)
        elif frame.kind == "use":
            use: s.Use = node
            ability = g.program.abilities[use.ability]
            upto = g.number_of(use.upto, env)
            ability_env = {
                p.name: g.argument(p, g.evaluate(a, env), a) for p, a in zip(ability.params, use.args, strict=True)
            }
            frame.pool = (ability_env,)
            options = [Option("no ability", None)]
            for tier in ability.tiers:
                if (
                    tier.level <= upto
                    and tier.level not in frame.picked
                    and (tier.when is None or g.holds(tier.when, ability_env))
                ):
                    options.append(Option(tier_label(tier), tier))
            chooser = self._tier_chooser(g, use, ability, env, ability_env)
            self._decide(g, frame, chooser, f"{ability.text}: which tier? (count {upto})", options, use.span)
        elif frame.kind == "draw":
            draw: s.Draw = node
            src, dst = frame.pool
            if self.next_draws.get(src.key) and self._draw_named(g, frame, src, dst):
                return
            if self.auto_chance:
                g.frames.pop()  # (asked on top: drawn off the stack, and put back where work must wait)
                if self.draw_at_once(g, frame, draw, frame.env, frame.count, src, dst, len(g.frames)):
                    return
                g.frames.append(frame)
            ids = g.state.zones.get(src.key, [])
            if frame.count <= 0 or not ids:
                g.frames.pop()
                return
            options, weights = self._zone_chance_options(g, ids)
            frame.chance_pool = (src, dst)
            self._decide(g, frame, None, f"draw from {src.key}", options, draw.span, weights)
        else:
            choose: s.Choose = node
            ops = g.code.chooses.get(id(choose))
            if ops is None or ops[0] is not choose:
                ops = g.code.chooses[id(choose)] = _choose_code(g.code, choose)
            if choose.quantity == "one":
                self._choose_one(g, frame, choose, ops, env)
                return
            several = choose.quantity != "one"
            if several:  # while several values are chosen, the name holds those picked so far
                env[choose.target] = tuple(frame.picked)
            # (Not again after a "done" to an empty choice: frame.decision says it was asked.)
            if not frame.picked and frame.count == 0 and not frame.pool and frame.decision is None:
                source = ops[1](g, env)
                if source.__class__ is not tuple:
                    source = g.as_list(source, choose.source)
                frame.pool = g.nested(source, choose.source, 0)  # (its values no deeper than the state's)
                if choose.quantity in ("exactly", "upto"):
                    if choose.count is None:
                        frame.count = 1
                    else:
                        count = ops[4](g, env)
                        frame.count = count if count.__class__ is int else g.number_of(choose.count, env)
                elif choose.quantity == "one":
                    frame.count = 1
                elif choose.quantity == "any":
                    # One more than it can pick: only "done" ends it (alone, taken at once, when all
                    # are picked), so that how many fitted does not show by where the lines stop.
                    frame.count = len(source) + 1
                else:
                    frame.count = len(source)
                if choose.quantity in ("one", "exactly") and len(source) < frame.count:
                    what = "one" if choose.quantity == "one" else str(frame.count)
                    raise g.failure(choose.span, f"cannot choose {what}: only {len(source)} to choose from")
                if choose.quantity in ("order",) and not source:
                    frame.pool = ()
            done = len(frame.picked) >= frame.count
            if done:
                remaining = []
            elif several and frame.picked:  # read again (it may depend on the picks), among the values first offered
                again = ops[1](g, env)
                if again.__class__ is not tuple:
                    again = g.as_list(again, choose.source)
                remaining = kept_among(again, frame.pool, frame.picked)
            elif frame.picked:
                remaining = kept_among(frame.pool, frame.pool, frame.picked)
            else:
                remaining = list(frame.pool)
            if not done and not remaining and choose.quantity == "exactly":
                raise g.failure(choose.span, f"cannot choose {frame.count}: only {len(frame.picked)} fit")
            # `upto` and `any` with nothing left that fits still ask, with "done" alone: taken at once,
            # it shows the others the same line as a free "done" (the shape of the trace tells nothing).
            done = done or (not remaining and choose.quantity not in ("upto", "any"))
            if done:
                g.frames.pop()
                env[choose.target] = (
                    frame.picked[0]
                    if choose.quantity == "one" and frame.picked
                    else (None if choose.quantity == "one" else tuple(frame.picked))
                )
                return
            who = self._who(g, ops[3], choose.by, env)
            if (
                self.trial
                and who is not None
                and (
                    0 < len(remaining) < OPTION_BUDGET  # (`upto` and `any`: its options and "done")
                    if choose.quantity in ("upto", "any")
                    else knowledge.two_options(g, remaining)
                )
            ):
                self._stop_trial(g, frame, who, choose.span)
                return
            options = self._options(g, remaining, who)
            if choose.quantity in ("upto", "any"):
                options.append(Option("done", DONE))
            prompt = ops[2]
            if prompt.__class__ is not str:
                prompt = prompt(g, env) or "Choose"
            if frame.count > 1 or choose.quantity in ("upto", "any", "order"):
                total = "" if choose.quantity in ("any", "order") else f" of {frame.count}"
                prompt = f"{prompt} ({len(frame.picked) + 1}{total})"
            if who is None and choose.quantity == "one":
                opts, weights = self._chance_options(g, remaining)
                self._decide(g, frame, None, prompt, opts, choose.span, weights)
                return
            self._decide(g, frame, who, prompt, options, choose.span)

    def _choose_one(self, g: Asking, frame: AskFrame, choose: s.Choose, ops: Any, env: dict[str, Any]) -> None:
        """`ask` for a choose of one value, the commonest: what the general branch does for it (nothing is
        ever picked: the answer ends the frame), without the tests of the other quantities."""
        if frame.count == 0 and not frame.pool and frame.decision is None:
            source = ops[1](g, env)
            if source.__class__ is not tuple:
                source = g.as_list(source, choose.source)
            frame.pool = g.nested(source, choose.source, 0)  # (its values no deeper than the state's)
            frame.count = 1
            if not source:
                raise g.failure(choose.span, "cannot choose one: only 0 to choose from")
        remaining = list(frame.pool)
        if not remaining:
            g.frames.pop()
            env[choose.target] = None
            return
        if choose.by is None:
            who = self._first_player(g, env)
        else:  # (`_who`, written out for the commonest chooser: a player)
            who = ops[3](g, env)
            if who.__class__ is not Player:
                who = self._who(g, ops[3], choose.by, env)
        if self.trial and who is not None and knowledge.two_options(g, remaining):
            self._stop_trial(g, frame, who, choose.span)
            return
        # (the options labelled before the prompt is computed, as the general branch does)
        options, weights = (
            self._chance_options(g, remaining) if who is None else (self._options(g, remaining, who), None)
        )
        prompt = ops[2]
        if prompt.__class__ is not str:
            prompt = prompt(g, env) or "Choose"
        self._decide(g, frame, who, prompt, options, choose.span, weights)

    def _draw_named(self, g: Asking, frame: AskFrame, src: ZoneRef, dst: ZoneRef) -> bool:
        """Draw the next card named by `draw_next` for this zone, as the table would have drawn it
        (True); False when the frame has nothing left to draw."""
        ids = g.state.zones.get(src.key, [])
        if frame.count <= 0 or not ids:
            return False
        (label, span), *rest = self.next_draws[src.key]
        first, _counts = self._label_counts(g, ids)
        if label not in first:
            raise g.located(span, f"the next draw from {src.key} is to be '{label}', which is not in {src.key}")
        self.next_draws = {**self.next_draws, src.key: tuple(rest)}
        g.answers.append(("table", label))
        frame.count -= 1
        g.move([CardRef(first[label])], dst, False, frame.node.span)
        return True

    def draw_at_once(
        self,
        g: Asking,
        frame: AskFrame | None,
        node: s.Draw,
        env: dict[str, Any],
        count: int,
        src: ZoneRef,
        dst: ZoneRef,
        depth: int,
    ) -> bool:
        """Draw `count` cards with the game's own generator, card after card, without making decisions of the table.

        The same draws, answers and moves as asking the table (`_zone_chance_options`, then
        `_decide`) with less work; it stops when the drawing is done (True), when a move started
        other work such as a rule (True: the frame draws on when it is stepped again), or when the
        draw would offer more options than a decision may (False, before anything is drawn: asking
        reports it).

        The draw's frame (`frame`, the frame that asks; None: the statement's own, not made yet) is
        not on the stack (`frames` has `depth` frames): it is put there, made if need be, below the
        work a move started, only if that happens, so that the frames are then as they would have
        been had it stayed on top; a draw done at once leaves no frame and, from a statement, makes none.
        """
        st, frames = g.state, g.frames
        key, dst_key, span = src.key, dst.key, node.span
        left = count
        ids = st.zones.get(key, ())
        if left <= 0 or not ids:
            return True
        # The labels of the source's cards, kept in step with it between draws (nothing else runs
        # between two: a move that starts other work ends the drawing), so the options' count, checked
        # here, never grows.
        # (`zone_labels`, written out: labels not found are kept below, after the first card is drawn)
        part = g.code.memo_layout.label_slots.get(src.name, 0)
        labels_key = ("#labels", key)
        found = g.memo[part].get(labels_key)
        labels = list(found) if found is not None else g.labels_of(ids)
        # The labels' tally (`label_tally`; None: no two alike), kept beside them by the draw before while they
        # are the labels it kept (the same tuple), and brought up to date after each draw (`tally_after_draw`):
        # a deck's labels are not counted again at every draw. Labels all unlike keep no tally: a few are found
        # so by one C call at once, more after a look for a tally kept.
        if len(labels) <= _FEW_LABELS and len(set(labels)) == len(labels):
            tally = None
        else:
            kept = g.memo[part].get(("#tally", key)) if found is not None else None
            if kept is not None and kept[0] is found:
                tally = kept[1]
            else:
                tally = label_tally(labels)
        if len(labels) > OPTION_BUDGET and (tally is None or len(tally[0]) > OPTION_BUDGET):
            return False
        while True:
            if tally is None:  # each label one option of weight 1, in the zone's order: the r-th is drawn
                drawn = 0
                if len(labels) > 1:  # (`splitmix`, written out)
                    rng = st.rng = (st.rng + 0x9E3779B97F4A7C15) & MASK64
                    z = ((rng ^ (rng >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
                    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
                    drawn = (z ^ (z >> 31)) % len(ids)
                    g.answers.append(("table", labels[drawn]))
            else:
                # Each label an option weighted by how many cards carry it, in the order the labels first
                # come (as `_zone_chance_options` counts them: the tally's order and counts).
                order, counts = tally
                chosen, place = labels[0], 0
                if len(order) > 1:  # (else one option: taken at once, unrecorded, as `_decide` does)
                    st.rng, bits = splitmix(st.rng)
                    r = bits % len(ids)
                    for place, chosen in enumerate(order):  # noqa: B007 -- the loop finds `chosen`, the place-th label
                        w = counts[chosen]
                        if r < w:
                            break
                        r -= w
                    g.answers.append(("table", chosen))
                drawn = labels.index(chosen)  # where the first card of that label lies: the card drawn
            left -= 1
            if frame is not None:
                frame.count = left
            cid = ids[drawn]
            # (`[CardRef(cid)]`: the reference read from the table of them, without the call of `CardRef`)
            g.move(CARD_REFS[cid : cid + 1] or [CardRef(cid)], dst, False, span)
            if dst_key == key:
                labels.append(labels.pop(drawn))  # the card went back into the source, on top
                if tally is not None:
                    tally = label_tally(labels)
            else:
                del labels[drawn]  # nothing else changed in the source: nothing else ran
                if tally is not None:
                    tally = tally_after_draw(tally, labels, chosen, place, drawn)
            memo: Any = g.memo[part]  # (the move forgot them: `keep_zone_labels`, written out)
            if memo is EMPTY_MEMO:
                memo = g.memo[part] = {}
            elif len(memo) >= MEMO_BUDGET:
                memo.clear()
            memo[labels_key] = now = tuple(labels)
            if tally is not None:
                memo["#tally", key] = (now, tally)
            if len(frames) != depth or g.pending is not None or st.over:
                if not st.over:
                    if frame is None:
                        frame = AskFrame("draw", node, env)
                        frame.count, frame.pool = left, (src, dst)
                    frames.insert(depth, frame)
                return True
            ids = st.zones.get(key, ())
            if left <= 0 or not ids:
                return True

    def _decide(
        self,
        g: Asking,
        frame: AskFrame,
        who: Player | None,
        prompt: str,
        options: Sequence[Option],
        span: Span,
        weights: tuple[int, ...] | None = None,
    ) -> None:
        if len(options) > OPTION_BUDGET:
            raise g.runaway(
                span,
                f"a decision of {len(options)} options is more than a decision may offer "
                f"({OPTION_BUDGET}): choose in steps instead",
            )
        # (`Decision(who, prompt, tuple(options), span, weights)`, its initializer written out: one a decision)
        decision = _new_decision(Decision)
        decision.player, decision.prompt, decision.options = who, prompt, tuple(options)
        decision.span, decision.chance_weights = span, weights
        frame.decision = decision
        if len(options) == 1 and not g.switches.ask_forced:
            if g.sinks.events and frame.kind != "draw":
                # Taken at once, unrecorded; its line is shown only to those it is hidden from.
                g.emit(self.choice_event(g, frame, decision, options[0], forced=True))
            self.answered(g, frame, options[0].value)
            return
        if who is None and self.auto_chance:
            g.state.rng, bits = splitmix(g.state.rng)
            if weights is not None:
                r = bits % sum(weights)
                for option, w in zip(options, weights, strict=True):  # noqa: B007 -- the option drawn is the one the loop stops at
                    if r < w:
                        break
                    r -= w
            else:
                option = options[bits % len(options)]
            g.answers.append(("table", option.label))
            if g.sinks.events and frame.kind != "draw":
                g.emit(
                    Event(
                        "reveal",
                        option.label + (f"  [{prompt}]" if prompt else ""),
                        span,
                        "table",
                        hidden_text=f"[{prompt}]",
                        secret=g.secret_run,
                    )
                )
            self.answered(g, frame, option.value)
            return
        g.pending = decision

    def _stop_trial(self, g: Asking, frame: AskFrame, who: Player, span: Span) -> None:
        """A trial's decision of two options or more: asked, without its options (a trial only needs to
        know that play stops here, not what it would offer: it is judged, then thrown away)."""
        frame.decision = g.pending = Decision(who, "", (), span)

    def choice_event(self, g: Asking, frame: Frame, decision: Decision, option: Option, forced: bool = False) -> Event:
        """The trace's line for a player's answer (`choose`) or the table's (`reveal`).

        An option that offers a card by its place (`PlacedOption`) shows the chooser the place, and
        the card with it to the full trace and to the other seats that identify the card now."""
        suffix = f"  [{decision.prompt}]" if decision.prompt else ""
        text, own = option.label + suffix, None
        to: tuple[str, ...] = ()
        if isinstance(option, PlacedOption):
            own, text = text, f"{option.card} ({option.label}){suffix}"
            card = [option.value]
            to = tuple(str(p) for p in g.players if p != decision.player and not knowledge.offered_by_place(g, p, card))
        return Event(
            "reveal" if decision.player is None else "choose",
            text,
            decision.span,
            decision.by,
            hidden_text=f"[{decision.prompt}]" if decision.prompt else "",
            secret=g.secret_run,
            public_zones=knowledge.public_zones(frame, decision, g.state.location),
            forced=forced,
            to=to,
            own_text=own,
        )

    def answered(self, g: Asking, frame: AskFrame, value: Any) -> None:
        env = frame.env
        if frame.kind == "menu":
            option: s.Option = value
            if g.sinks.pushes:
                g.frames.pop()
                g.push(BlockFrame(option.body.stmts, env))
            else:  # (the option's block in the frame's place: no deeper, and nobody hears a push)
                # (`BlockFrame(option.body.stmts, env)`, its initializer written out: one an answer)
                block = _new_frame(BlockFrame)
                block.stmts, block.i, block.env, block.code = option.body.stmts, 0, env, None
                g.frames[-1] = block
        elif frame.kind == "use":
            g.frames.pop()
            if value is None:
                return
            tier: s.Tier = value
            ability = g.program.abilities[frame.node.ability]
            ability_env = dict(frame.pool[0])
            if g.sinks.events:
                g.note_event("use", f"{ability.name} tier {tier.level}: {tier.text}", tier.span)
            open_attempt(
                g,
                None,
                ability_env,
                tier.span,
                f"{ability.name} tier {tier.level}",
                retry=(frame.node, env, (*frame.picked, tier.level)),
            )
            g.push(CallFrame(ability.name, ability_env, None, None))
            g.push(BlockFrame(tier.body.stmts, ability_env))
        elif frame.kind == "draw":
            _src, dst = frame.chance_pool or frame.pool
            frame.count -= 1
            g.move([value], dst, False, frame.node.span)
        elif frame.node.quantity == "one":
            # Done at once, as stepping the frame again would find it (`ask`): one step less a decision.
            g.frames.pop()
            env[frame.node.target] = value
        elif value is DONE:
            frame.count = len(frame.picked)
        else:
            frame.picked = (*frame.picked, value)

    def _who(self, g: Asking, by_code: Any, by: s.Expr | None, env: dict[str, Any]) -> Player | None:
        """Who makes a decision: its `by` (computed by `by_code`), else the first player among the local
        names, else the first seat; None for the table."""
        if by is None:
            return self._first_player(g, env)
        who = by_code(g, env)
        if who is TABLE:
            return None
        if not isinstance(who, Player):
            raise g.runtime_error(span_of(by), f"a decision is made by a player, not {g.label(who)}")
        return who

    def _tier_chooser(
        self, g: Asking, use: s.Use, ability: s.AbilityDecl, env: dict[str, Any], ability_env: dict[str, Any]
    ) -> Player:
        """Who chooses the tier of a `use`: its `by`, else the ability's first Player parameter."""
        if use.by is not None:
            who = g.evaluate(use.by, env)
            where = span_of(use.by)
        else:
            param = first_player_param(ability)
            who = ability_env.get(param) if param is not None else None
            where = use.span
        if not isinstance(who, Player):
            raise g.runtime_error(where, f"a tier is chosen by a player, not by {g.label(who)}")
        return who

    def _first_player(self, g: Asking, env: dict[str, Any]) -> Player | None:
        for value in env.values():
            if isinstance(value, Player):
                return value
        return g.players[0]

    def _options(self, g: Asking, values: Iterable[Any], who: Player | None = None) -> list[Option]:
        """Label the values; identical cards in one zone are one option (choosing either is the same).

        A card the chooser `who` may not identify is offered by its place (`card 2 of hand[P1]`,
        `knowledge.offered_by_place`), never merged with another: no option names, or tells by
        their number, cards its chooser cannot see."""
        values = values if isinstance(values, list | tuple) else list(values)
        if who is None:
            return self._labelled_options(g, values)[0]
        # Distinct numbers (a cell, an amount: the commonest values offered besides cards): each one's
        # option (its label its digits), made once and shared, as a menu's are; the general way otherwise.
        numbers, options = _NUMBER_OPTIONS, []
        for v in values:
            if v.__class__ is not int:
                break
            option = numbers.get(v)
            if option is None:
                if len(numbers) >= _NUMBERS_KEPT:
                    break
                option = numbers[v] = Option(str(v), v)
            options.append(option)
        else:
            if len(set(values)) == len(values):
                return options
        cards = [v for v in values if v.__class__ is CardRef]
        by_place = knowledge.offered_by_place(g, who, cards) if cards else None
        options = self._labelled_options(g, values, by_place)[0]
        if not by_place:
            return options
        label = g.label
        return [
            PlacedOption(o.label, o.value, label(o.value))
            if o.value.__class__ is CardRef and o.value.id in by_place
            else o
            for o in options
        ]

    def _labelled_options(
        self, g: Asking, values: Sequence[Any], by_place: dict[int, str] | None = None
    ) -> tuple[list[Option], list[str]]:
        """The options of `_options`, and each value's own label, in order (`by_place`: the labels of
        the cards offered by their places)."""
        label, location = g.label, g.state.location
        # (a number's label is its digits, a text's the text, a card's the one kept for it (`label`, its
        # common case written out): the common choices without the call)
        texts: list[str] = []
        cards = False
        state_cards, card_labels = g.state.cards, g.code.card_labels
        for v in values:
            cls = v.__class__
            if cls is CardRef:
                cards = True
                if by_place and v.id in by_place:
                    texts.append(by_place[v.id])
                else:
                    card = state_cards[v.id]
                    entry = card_labels.get(id(card))
                    texts.append(entry[1] if entry is not None and entry[0] is card else label(v))
            elif cls is str:
                texts.append(v)
            elif cls is int:
                texts.append(str(v))
            else:
                texts.append(label(v))
        if len(set(texts)) == len(texts):  # (the common case: all distinct, each value its own option)
            return list(map(Option, texts, values)), texts
        # One option per distinct label, in order; a card's option names its zone where the values of its
        # label lie in more than one place (MANY). Where all lie in one place (no card among them, or all in
        # one zone: the commonest), no label lies in two.
        places: dict[str, Any] = {}
        if cards and len({location[v.id] if v.__class__ is CardRef else "" for v in values}) > 1:
            for text, v in zip(texts, values, strict=True):
                where = location[v.id] if v.__class__ is CardRef else ""
                known = places.get(text, MISSING)
                if known is MISSING:
                    places[text] = where
                elif known is not MANY and known != where:
                    places[text] = MANY
        seen: set[str] = set()
        options = []
        for text, v in zip(texts, values, strict=True):
            if places and places[text] is MANY and v.__class__ is CardRef:
                text = f"{text} in {location[v.id]}"
            if text in seen:
                continue
            seen.add(text)
            options.append(Option(text, v))
        return options, texts

    def _zone_chance_options(self, g: Asking, ids: Sequence[int]) -> tuple[list[Option], tuple[int, ...]]:
        """`_chance_options` of the cards of one zone (so no option needs the name of a zone), faster."""
        first, counts = self._label_counts(g, ids)
        return [Option(text, CardRef(i)) for text, i in first.items()], tuple(counts.values())

    def _label_counts(self, g: Asking, ids: Sequence[int]) -> tuple[dict[str, int], dict[str, int]]:
        """For each distinct label among the cards, in order: its first card's id, and how many carry it."""
        return label_counts(ids, g.labels_of(ids))

    def _chance_options(self, g: Asking, values: Sequence[Any]) -> tuple[list[Option], tuple[int, ...]]:
        """Options of a chance decision: one per distinct label, weighted by how many values carry it."""
        options, texts = self._labelled_options(g, values)
        index = {o.label: i for i, o in enumerate(options)}
        weights = [0] * len(options)
        location = g.state.location
        for text, v in zip(texts, values, strict=True):
            if text not in index and v.__class__ is CardRef:
                text = f"{text} in {location[v.id]}"
            weights[index[text]] += 1
        return options, tuple(weights)


_FEW_LABELS = 8  # a draw from a zone of this many cards or fewer tells whether they are all unlike first
_NUMBER_OPTIONS: dict[int, Option] = {}  # by number: its option, shared by every decision that offers it
_NUMBERS_KEPT = 4096
_new_decision = object.__new__
_new_frame = object.__new__


def _prompt_code(code: CodeCache, prompt: s.Expr | None) -> Any:
    """A decision's prompt as `ask` reads it: the text itself where it is written as one (an empty text
    or none: "Choose"), else the code computing it."""
    op = code.operand(prompt)
    if op is None or op.__class__ is str:
        return op or "Choose"
    return op if callable(op) else code.value(prompt)


def _choose_code(code: CodeCache, choose: s.Choose) -> tuple[s.Choose, Any, Any, Any, Any]:
    """What `ask` evaluates a choose's operands by (`CodeCache.chooses`): its node, then the code of its
    pool, its prompt (`_prompt_code`), its chooser (None: none) and its count (None: none)."""
    by = code.value(choose.by) if choose.by is not None else None
    count = code.value(choose.count) if choose.count is not None else None
    return choose, code.value(choose.source), _prompt_code(code, choose.prompt), by, count
