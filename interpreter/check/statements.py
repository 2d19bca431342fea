"""Check statements: each assignment, move, choice and call against the declarations and its operands."""

from __future__ import annotations

from typing import assert_never

from ..errors import Span, did_you_mean
from ..language import types as t
from ..syntax import ast as s
from .expressions import ExpressionChecker
from .program import (
    first_player_param,
)


class StatementChecker(ExpressionChecker):
    """Check statements: each assignment, move, choice and call against the declarations and its operands."""

    def _compound(self, target: t.T, op: str, vt: t.T, changed: tuple[Span, str], value: tuple[Span, str]) -> None:
        """`x += v`, `x -= v`: numbers add and subtract, lists take `+` and `-`, texts take `+`.

        `changed` and `value` locate and name the thing changed and the value, for the messages.
        """
        if target.kind == "list":
            verb = "added to" if op == "+=" else "taken from"
            self.expect(vt, target, value[0], f"the value {verb} {value[1]}")
        elif target.kind == "str" and op == "+=":
            self.expect(vt, t.STR, value[0], f"the value added to {value[1]}")
        else:
            self.expect(target, t.INT, changed[0], f"{changed[1]} used with {op}")
            self.expect(vt, t.INT, value[0], f"the value added to {value[1]}")

    def block(self, b: s.Block) -> None:
        self.scope.push()
        for stmt in b.stmts:
            self.stmt(stmt)
        self.scope.pop()

    def stmt(self, st: s.Stmt) -> None:
        match st:
            case s.Let(name, value):
                if isinstance(value, s.Call) and value.name in self.procs:
                    self._call_args(value.name, self.procs[value.name].params, value.args, value.span)
                    self.scope.bind(name, t.ANY, checked=True)  # (a `return` checks its value)
                else:
                    vt = self.expr(value)
                    # A local name holds a zone's cards as they are now, not the zone (LANGUAGE.md).
                    self.scope.bind(name, t.list_of(vt.element or t.ANY) if vt.kind == "zone" else vt, checked=True)
            case s.Assign(name, op, value):
                have = self.scope.lookup(name)
                vt = self.expr(value)
                if have is None:
                    hint = f"declare it first with 'let {name} = ...'"
                    if name in self.vars:
                        hint = f"{name} is a game variable: write 'set {name} {op} ...'"
                    self.error(
                        st.span, f"unknown local name '{name}'{did_you_mean(name, self.scope.names())}", hint=hint
                    )
                elif op != "=":
                    self._compound(have, op, vt, (st.span, f"'{name}'"), (value.span, f"'{name}'"))
            case s.SetVar(name, keys, op, value):
                if name not in self.vars and name in self.consts:
                    self.error(
                        st.span,
                        f"'{name}' is a constant: it cannot be set",
                        hint=f"declare it as a variable to change it: var {name}: ... = ... public",
                    )
                    self.expr(value)
                    return
                if name not in self.vars:
                    local = self.scope.lookup(name) is not None
                    self.error(
                        st.span,
                        f"unknown variable '{name}'{did_you_mean(name, self.vars)}",
                        hint=f"'{name}' is a local name: write '{name} {op} ...' without 'set'" if local else None,
                    )
                    self.expr(value)
                    return
                self._keys(self.vars[name], keys, st.span)
                vt = self.expr(value)
                want = self.var_types[name]
                if op != "=":
                    self._compound(want, op, vt, (st.span, f"variable {name}"), (value.span, name))
                else:
                    self.expect(vt, want, value.span, f"the value of {name}")
            case s.SetField(obj, field, op, value):
                ot = self.expr(obj)
                vt = self.expr(value)
                ft = self._field_type(ot, field, st.span)
                if ft is not None and op == "=":
                    self.expect(vt, ft, value.span, f"the value of field {field}")
                elif ft is not None:
                    self._compound(ft, op, vt, (st.span, f"field {field}"), (value.span, f"field {field}"))
            case s.Move(what, to, _):
                wt = self.expr(what)
                if wt.kind not in ("card", "any", "list", "zone"):
                    self.error(what.span, f"only cards move: this is {wt}")
                elif wt.kind in ("list", "zone"):
                    el = wt.element or t.ANY
                    if el.kind not in ("card", "any"):
                        self.error(what.span, f"only cards move: this is {wt}")
                self._zone(to)
            case s.Draw(count, source, to):
                self.expect(self.expr(count), t.INT, count.span, "the number of cards to draw")
                self._zone(source)
                self._zone(to)
            case s.Reveal(what, to):
                wt = self.expr(what)
                el = (wt.element or t.ANY) if wt.kind in ("list", "zone") else wt
                if el.kind not in ("card", "any"):
                    self.error(what.span, f"only cards are revealed: this is {wt}")
                pt = self.expr(to)
                pl = (pt.element or t.ANY) if pt.kind == "list" else pt
                if pl.kind not in ("player", "any"):
                    self.error(to.span, f"cards are revealed to a player or a list of players, not to {pt}")
            case s.Tell(to, what, field, value):
                pt = self.expr(to)
                pl = (pt.element or t.ANY) if pt.kind == "list" else pt
                if pl.kind not in ("player", "any"):
                    self.error(to.span, f"facts are told to a player or a list of players, not to {pt}")
                wt = self.expr(what)
                el = (wt.element or t.ANY) if wt.kind in ("list", "zone") else wt
                if el.kind not in ("card", "any"):
                    self.error(what.span, f"facts are told about cards: this is {wt}")
                ft = self._field_type(el, field, st.span) if el.kind == "card" else None
                vt = self.expr(value)
                if ft is not None:
                    self.expect(vt, ft, value.span, f"the value of field {field}")
            case s.Create(count, card_type, inits, zone):
                self.expect(self.expr(count), t.INT, count.span, "the number of cards to create")
                ct = self.cards.get(card_type)
                if ct is None:
                    self.error(st.span, f"unknown card type '{card_type}'{did_you_mean(card_type, self.cards)}")
                for init in inits:
                    vt = self.expr(init.value)
                    if ct is not None:
                        ft = ct.field_type(init.name)
                        if ft is None:
                            self.error(
                                init.span,
                                f"card type {card_type} has no field '{init.name}'"
                                f"{did_you_mean(init.name, [f for f, _ in ct.fields])}",
                            )
                        else:
                            self.expect(vt, ft, init.value.span, f"field {init.name}")
                self._zone(zone)
            case s.If(cond, then, elifs, otherwise):
                self._cond(cond)
                self.block(then)
                for e in elifs:
                    self._cond(e.condition)
                    self.block(e.body)
                if otherwise is not None:
                    self.block(otherwise)
            case s.For(var, source, body):
                elem = self.collection(self.expr(source), source.span, "what a 'for' walks")
                self.scope.push()
                self.scope.bind(var, elem)
                self.block(body)
                self.scope.pop()
            case s.While(cond, body):
                self._cond(cond)
                self.block(body)
            case s.Repeat(count, body):
                self.expect(self.expr(count), t.INT, count.span, "the number of repeats")
                self.block(body)
            case s.Match(subject, cases, otherwise):
                subject_type = self.expr(subject)
                for case in cases:
                    case_type = self.expr(case.value)
                    if not t.compatible(case_type, subject_type) and not t.compatible(subject_type, case_type):
                        self.error(case.value.span, f"this case is {case_type} but the value matched is {subject_type}")
                    self.block(case.body)
                if otherwise is not None:
                    self.block(otherwise)
                else:
                    self._match_covers(st, subject_type, cases)
            case s.Attempt(body, otherwise):
                self.block(body)
                if otherwise is not None:
                    self.block(otherwise)
            case s.Together(body):
                self.block(body)
            case s.Secret(body):
                self.block(body)
            case s.Fail():
                pass
            case s.Require(cond, _):
                self._cond(cond)
            case s.Choose(target, quantity, count, source, by, prompt):
                # While several values are chosen, the name holds those picked so far (the list
                # chosen from is read again before each pick, so it may depend on them).
                self.scope.push()
                if quantity != "one":
                    self.scope.bind(target, t.list_of(t.ANY))
                st_type = self.expr(source)
                self.scope.pop()
                elem = self.collection(st_type, source.span, "what is chosen from")
                if quantity in ("exactly", "upto") and count is None:
                    self.error(st.span, f"'choose {quantity}' needs a number: choose {quantity} 2 from ...")
                if quantity in ("one", "any", "order") and count is not None:
                    self.error(count.span, f"'choose {quantity}' takes no number")
                if count is not None:
                    self.expect(self.expr(count), t.INT, count.span, "the number of choices")
                self._by(by)
                if prompt is not None:  # filled in before the name is bound
                    self.expr(prompt)
                # (one value of the list offered, which is checked; several are a list of them, one deeper)
                self.scope.bind(target, elem if quantity == "one" else t.list_of(elem), checked=quantity == "one")
            case s.Menu(by, prompt, options):
                self._by(by)
                if prompt is not None:
                    self.expr(prompt)
                labels: set[str] = set()
                for opt in options:
                    if opt.label in labels:
                        self.error(opt.span, f'two options are labelled "{opt.label}"')
                    labels.add(opt.label)
                    if opt.when is not None:
                        self._cond(opt.when)
                    self.block(opt.body)
            case s.Use(ability, args, upto, by):
                ab = self.abilities.get(ability)
                if ab is None and ability in self.procs:
                    self.error(
                        st.span,
                        f"'{ability}' is a procedure, not an ability",
                        hint=f"call it as '{ability}(...)'; 'use' offers the tiers of an ability",
                    )
                    for a in args:
                        self.expr(a)
                elif ab is None:
                    self.error(st.span, f"unknown ability '{ability}'{did_you_mean(ability, self.abilities)}")
                    for a in args:
                        self.expr(a)
                else:
                    self._call_args(ability, ab.params, args, st.span)
                    if by is None and first_player_param(ab) is None:
                        self.error(
                            st.span,
                            f"ability {ability} has no Player parameter to choose its tier",
                            hint=f"say who chooses: use {ability}(...) upto ... by PLAYER",
                        )
                self.expect(self.expr(upto), t.INT, upto.span, "the tier count")
                if by is not None:
                    bt = self.expr(by)
                    if bt.kind not in ("player", "any"):
                        self.error(by.span, f"a tier is chosen by a player, not by {bt}")
            case s.CallStmt(name, args):
                if name in self.procs:
                    self._call_args(name, self.procs[name].params, args, st.span)
                elif name in self.fns:
                    self.error(
                        st.span,
                        f"'{name}' is a function: it computes a value and changes nothing",
                        hint=f"use its value, e.g. 'let x = {name}(...)', or make it a proc",
                    )
                elif name in self.abilities:
                    self.error(
                        st.span,
                        f"'{name}' is an ability: it is resolved with 'use'",
                        hint=f"write 'use {name}(...) upto N' to offer its tiers up to N",
                    )
                    for a in args:
                        self.expr(a)
                else:
                    self.error(st.span, f"unknown procedure '{name}'{did_you_mean(name, self.procs)}")
                    for a in args:
                        self.expr(a)
            case s.Return(value):
                if self.scope.kind not in ("proc", "ability"):
                    self.error(st.span, "'return' outside a proc")
                if value is not None:
                    self.expr(value)
            case s.EndGame(winners):
                if winners is not None:
                    self.expect(self.expr(winners), t.list_of(t.PLAYER), winners.span, "the winners")
            case s.EndUnfinished(text) | s.Say(text):
                self.expr(text)
            case s.EndTogether():
                pass
            case _:
                assert_never(st)

    def _match_covers(self, st: s.Match, subject_type: t.T, cases: tuple[s.Case, ...]) -> None:
        """A `match` over an enumeration without `else` has an arm for every value: an unhandled value
        (a card kind an extension added, say) would run nothing, silently, which is almost always a bug."""
        if subject_type.kind != "enum" or subject_type.name not in self.enums:
            return
        covered = {c.value.id for c in cases if isinstance(c.value, s.Name)}
        missing = [v.name for v in self.enums[subject_type.name] if v.name not in covered]
        if missing:
            self.error(
                st.span,
                f"this match has no arm for {', '.join(missing)} of {subject_type.name}",
                hint="add an arm for each, or an 'else { }' arm if nothing is to happen",
            )

    def _by(self, by: s.Expr | None) -> None:
        if by is not None:
            bt = self.expr(by)
            if bt.kind not in ("player", "table", "any"):
                self.error(by.span, f"a decision is made by a player or by the table, not by {bt}")
