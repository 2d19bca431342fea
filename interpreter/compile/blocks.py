"""The Python source of a block of statements: one function that runs it, from its start or from where it waited.

A block (the statements of a procedure, a rule, an `if` branch, a loop's body, ...) becomes one
generated function, made when the block first runs (runtime/codecache.py, `Body`),
`run(g, env, i=0, frame=None)`, which runs the block from statement `i` in the step that reached it:

- inline (`run(g, env)`, from its start): when a statement starts work that must wait (it pushed a
  frame), the rest of the block becomes a `BlockFrame` below that work (`_stop`), and the call
  running it learns that the step ends (SUSPENDED, ENDED, or a `return`'s value);
- as its frame's step (`BlockFrame.step`: from the frame's position, with the frame): it goes on
  until a statement starts other work, asks, or ends the game; the frame, on the stack below that
  work, keeps where the block goes on (`i`), set only where the step ends.

The statements from one resume point (the statement after one that may end the step) to the next
are one `if i <= k` arm; a block with no resume point but its start has no arm (its frame, once at
the block's end, takes code that only ends it: `Body.end`). While a frame's step runs, its position
is where its code is: the statement each generated line belongs to is kept (`block_source`), which a
located error raised inside the step reads (`machine.positions_now`). Rule coverage, which counts
the statements a frame started by its position, runs the counted build (`counted`), which keeps
the frame's position before each statement.

In it, `let`, `x = ...`, `set`, `move`, `create`, `if`, `for`, a procedure call and `return` are
spelled out as Python (their one definition, moved here from the closures that did them), with
their expressions called as the rulebook's generated functions (a literal or a local name read in
place: `_read`); an `if`, a `for` or a call runs its block's `run` at once (its frames made only if
that block has to wait), or pushes its frames when work may not run inline (`_enter`). A `draw`
evaluates its operands here and draws by its function (statements.py `draw_cards`: a frame made only
if the draw waits). The other statements that ask, push a frame of their own or end the game call their
function in statements.py.
After each statement that may have changed something the code tests whether the step ends there
(`_code`); a statement that only computes (`_computes_only`), or an `if` that took no arm, is not
followed by the test. So between two decisions a block is one Python call, with no loop over
closures and no call per statement. `statement_source` makes a `set`, `move` or `create`
alone a function (`Game.execute`, a scenario's edits).

Safe generation: nothing of a rulebook reaches the source. Every name, node and piece of code a
statement needs is a constant of the function's namespace, named by the generator (`Parts.const`);
the source holds only those names, Python keywords and numbers the generator computed (a
statement's cost). Two blocks of the same shape have the same source, compiled once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, assert_never

from ..language.values import Player, zone_key
from ..syntax import ast as s
from .body import BOOLEAN
from .depth import depths
from .source import KEY_TABLE, literal_value

if TYPE_CHECKING:
    from ..check.program import Program


class Parts(Protocol):
    """What the generator asks of the runtime: a namespace constant for each object the code uses."""

    def const(self, value: Any) -> str:
        """The name of a new constant of the function's namespace holding `value`."""

    def value(self, e: s.Expr) -> str:
        """The name of the function computing an expression's value: `f(g, env)`."""

    def truth(self, e: s.Expr) -> str:
        """The name of the function computing a condition (a boolean, else its located error)."""

    def items(self, e: s.Expr) -> str | None:
        """The name of the function giving a zone's cards for a list operand naming a keyed zone
        (`slot[p, 1, 2]`) without making the zone's reference; None for any other operand."""

    def body(self, stmts: tuple[s.Stmt, ...]) -> str:
        """The name of the block's `Body` (its `run`, made on first use)."""

    def method(self, st: s.Stmt) -> str:
        """The name of the statement's function (runtime/statements.py): `f(g, st, env)`; a draw's
        `f(g, st, n, src, dst, env)`, its operands evaluated."""

    # False when a block's code must call each expression's function, literals and locals too (a test's
    # probe listens to every node of the generated code).
    reads_in_place: bool

    def local(self, e: s.Expr) -> bool:
        """Whether an expression is a name the checker bound to a local."""


class _Lines:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def add(self, indent: int, *lines: str) -> None:
        self.lines.extend("    " * indent + line for line in lines)


def block_source(
    stmts: tuple[s.Stmt, ...], costs: tuple[int, ...], program: Program, parts: Parts, counted: bool = False
) -> tuple[str, tuple[int, ...]]:
    """The source of the block's one function, `run(g, env, i=0, frame=None)` (see the module's docstring),
    and for each of its lines the statement it belongs to (-1: none), which `BlockFrame.position` reads;
    `costs` is what each statement charges the budget of work when it starts (`node_count`).

    `i` is where the block resumes: 0 when it starts, else the statement after one that ended a step
    (a resume point). The statements from one resume point to the next are one `if i <= k` arm; a block
    with no resume point but its start has no arm (a frame left at its end never runs it: `_stop`).
    `counted` (rule coverage's build, tools/coverage.py) keeps the frame's position before each
    statement, as coverage counts it (`frame.i`); it runs only as a frame's step."""
    body, me = parts.const(stmts), parts.body(stmts)
    codes = [_statement(st, program, parts) for st in stmts]
    computes = [_computes_only(st, program) for st in stmts]
    resumes = resume_points(stmts, program)

    run = _Lines()
    run.add(0, "def run(g, env, i=0, frame=None):", "    frames = g.frames", "    depth = len(frames)", "    at = 0")
    run.add(1, "try:")
    owners = [-1] * len(run.lines)
    indent = 3 if resumes else 2
    for k, (code, sets_r) in enumerate(codes):
        if resumes and (k == 0 or k in resumes):
            run.add(2, f"if i <= {k}:")
        if not computes[k]:
            run.add(indent, f"at = {k}")
        _charge(run, indent, body, k, costs[k])
        if counted:
            run.add(indent, f"frame.i = {k + 1}")
        test = "len(frames) != depth or g.pending is not None or g.state.over"
        _code(run, indent, code, sets_r, test, _stop_lines(k + 1, len(stmts), sets_r, me, counted), not computes[k])
        owners += [k] * (len(run.lines) - len(owners))
    if not codes:
        run.add(2, "pass")
    run.add(1, "except _TooDeep:  # as the machine names it: the statement that went too deep")
    run.add(2, f"raise g.runaway({body}[at].span, _DEPTH_MESSAGE) from None")
    run.add(1, "return None")
    owners += [-1] * (len(run.lines) - len(owners))
    return "\n".join(run.lines) + "\n", tuple(owners)


def resume_points(stmts: tuple[s.Stmt, ...], program: Program) -> list[int]:
    """Where the block's code may resume (`i` of `run`) besides its start and its end: the statement after
    one after which the step may end, the block going on later (not one that only computes, nor an end)."""
    return [k + 1 for k, st in enumerate(stmts[:-1]) if not _computes_only(st, program) and not isinstance(st, _ENDS)]


def _computes_only(st: s.Stmt, program: Program) -> bool:
    """Whether a statement only computes (a value into a local: `let` of an expression, an assignment; a
    condition: `require`; a text: `say`) or fails (`fail`): expressions cannot change the state, push a
    frame or end the game, so after it the block goes on for sure (no test of the frames needed, and
    its frame never waits there) and no frame can go too deep in it (`at` need not name it)."""
    return (isinstance(st, s.Let) and not _calls_procedure(st, program)) or isinstance(st, _COMPUTES)


_COMPUTES = (s.Assign, s.Say, s.Require, s.Fail)
# The statements after which a block never goes on: a `return`, and the ends of the game.
_ENDS = (s.Return, s.EndGame, s.EndUnfinished, s.EndTogether)


def _calls_procedure(st: s.Let, program: Program) -> bool:
    """Whether a `let` takes its value from a procedure's `return` (else from an expression)."""
    return isinstance(st.value, s.Call) and st.value.name in program.procs


def statement_source(st: s.SetVar | s.Move | s.Create, program: Program, parts: Parts) -> str:
    """The source of `do(g, env)`, doing one `set`, `move` or `create` on its own (`Game.execute`)."""
    lines, _sets_r = _statement(st, program, parts)
    return "def do(g, env):\n" + "".join(f"    {line}\n" for line in lines)


# A line of a statement's code that stands for the test of whether the step ends there (`_code`), for a
# statement that tests it only where it ran something (an `if` with no arm taken computed only).
ENDS_STEP = "# (ends the step?)"


def _stop_lines(i: int, n: int, sets_r: bool, me: str, counted: bool) -> list[str]:
    """The step ends before statement `i` of `n` (the one before returned `r`, or started work that must
    wait, or ended the game). Inline, the rest of the block becomes a frame below the new work (`_stop`);
    as its frame's step, the frame (below it already) keeps where the block goes on, or at the block's
    end takes the code that only ends it (`Body.end`), and the step gives what ended it, never None
    (None: the block is done, `BlockFrame.step`)."""
    keep = [] if counted else [f"frame.i = {i}"]  # (a counted frame keeps it at every statement)
    if i == n:
        keep.append("frame.code = frame.code.end")
    r = "r" if sets_r else "None"
    gives = "r if r is not None else _SUSPENDED" if sets_r else "_SUSPENDED"
    # (inline, a game that ended is `_stop`'s answer without its call: every block it ends in gives it)
    ended = "r is _ENDED or r is None and g.state.over" if sets_r else "g.state.over"
    return [
        "if frame is None:",
        f"    if {ended}:",
        "        return _ENDED",
        f"    return _stop(g, {r}, depth, {me}, env, {i})",
        *keep,
        f"return {gives}",
    ]


def _code(out: _Lines, indent: int, code: list[str], sets_r: bool, test: str, stop: list[str], tested: bool) -> None:
    """A statement's code, then the test of whether the step ends after it (it gave `r` or changed the
    frames: `test`, which `stop` ends), where `ENDS_STEP` says, else after it unless it only computes."""
    ends = [f"if {'r is not None or ' if sets_r else ''}{test}:", *("    " + line for line in stop)]
    marked = False
    for line in code:
        if line.strip() == ENDS_STEP:
            margin = line[: len(line) - len(line.lstrip())]
            out.add(indent, *(margin + end for end in ends))
            marked = True
        else:
            out.add(indent, line)
    if tested and not marked:
        out.add(indent, *ends)


def _charge(out: _Lines, indent: int, body: str, k: int, cost: int) -> None:
    out.add(indent, f"g.work_left -= {cost}", "if g.work_left < 0:", f"    g.charge(0, {body}[{k}])")


def _statement(st: s.Stmt, program: Program, parts: Parts) -> tuple[list[str], bool]:
    """The lines doing one statement (at the block's indentation), and whether they set `r`: what ends
    the step (None: the block goes on; SUSPENDED, ENDED, or a `return`'s `Returned`)."""
    match st:
        case s.Let(name=name, value=value):
            if isinstance(value, s.Call) and _calls_procedure(st, program):
                return _call(value.name, value.args, name, program, parts), True  # its `return` gives the value
            if depths(program).within(value):  # proved no deeper than a local may hold: no depth to check
                return _keep_within(parts.const(name), _read(value, parts), parts.const(value)), False
            return _keep(parts.const(name), _read(value, parts), parts.const(value)), False
        case s.Assign(name=name, op=op, value=value):
            sign = parts.const(op[0])  # (the operator's first character: '+' of '+=')
            read, node = _read(value, parts), parts.const(value)
            if op == "=" and depths(program).within(value):
                return _keep_within(parts.const(name), read, node), False
            return _assign(parts.const(name), op, sign, read, node, parts.const(st)), False
        case s.If():
            return _if(st, parts), True
        case s.For():
            return _for(st, parts), True
        case s.CallStmt(name=name, args=args):
            return _call(name, args, None, program, parts), True
        case s.Return(value=value, span=span):
            if value is None:
                return [f"r = _Returned(None, {parts.const(span)})"], True
            node = parts.const(value)
            if depths(program).within(value):  # a zone's cards as they are now, else the value as it is
                return [f"v = {_read(value, parts)}", *_returned(node, parts.const(span))], True
            held = f"g.held({_read(value, parts)}, {node})"
            return [f"r = _Returned({held}, {parts.const(span)})"], True
        case s.SetVar():
            return _set_var(st, program, parts), False
        case s.Move(what=what, to=to, bottom=bottom, span=span):
            return [
                f"v = {_read(what, parts)}",
                f"cards = [v] if v.__class__ is _CardRef else g.cards_of(v, {parts.const(what)})",
                *_zone("to", to, parts),
                f"g.move(cards, to, {bottom}, {parts.const(span)})",
            ], False
        case s.Create(card_type=card_type, count=count, zone=zone, inits=inits, span=span):
            values = ", ".join(f"{parts.const(i.name)}: {_read(i.value, parts)}" for i in inits)
            return [
                f"n = {_read(count, parts)}",
                "if n.__class__ is not int:",
                f"    n = g.number_of({parts.const(count)}, env)  # its located error",
                f"new = {{{values}}}",
                *_zone("to", zone, parts),
                f"g.create({parts.const(card_type)}, n, new, to, {parts.const(span)})",
            ], False
        case s.Draw(count=count, source=source, to=to):
            return [
                f"n = {_read(count, parts)}",
                "if n.__class__ is not int:",
                f"    n = g.number_of({parts.const(count)}, env)  # its located error",
                *_zone("src", source, parts),
                *_zone("to", to, parts),
                f"{parts.method(st)}(g, {parts.const(st)}, n, src, to, env)",
            ], False
        case (
            s.SetField()
            | s.Reveal()
            | s.Tell()
            | s.While()
            | s.Repeat()
            | s.Match()
            | s.Attempt()
            | s.Together()
            | s.Secret()
            | s.Choose()
            | s.Menu()
            | s.Use()
            | s.EndGame()
            | s.EndUnfinished()
            | s.EndTogether()
        ):
            return [f"r = {parts.method(st)}(g, {parts.const(st)}, env)"], True
        case s.Say() | s.Require() | s.Fail():  # (they compute, or fail: the block goes on after them)
            return [f"{parts.method(st)}(g, {parts.const(st)}, env)"], False
        case _:
            assert_never(st)


def _set_var(st: s.SetVar, program: Program, parts: Parts) -> list[str]:
    """`set name[keys] op= value`: the state key spelled, the value held as the variable holds it."""
    name = parts.const(st.name)
    if not st.keys:
        lines = [f"key = {name}"]
    elif len(st.keys) == 1:  # one key, the common case; a seat's or small number's key text made once for each
        seats = tuple(zone_key(st.name, (Player(i),)) for i in range(max(program.max_players, 1)))
        numbers = tuple(zone_key(st.name, (i,)) for i in range(KEY_TABLE))
        lines = [
            f"k = {_read(st.keys[0], parts)}",
            f"if k.__class__ is _Player and -1 < k.index < {len(seats)}:",
            f"    key = {parts.const(seats)}[k.index]",
            f"elif k.__class__ is int and -1 < k < {len(numbers)}:",
            f"    key = {parts.const(numbers)}[k]",
            "else:",
            f"    key = _zone_key({name}, (k,))",
        ]
    else:
        keys = "".join(f"{_read(k, parts)}, " for k in st.keys)
        lines = [f"key = _zone_key({name}, ({keys}))"]
    node, op = parts.const(st.value), st.op
    lines.append(f"v = {_read(st.value, parts)}")
    if program.var_types[st.name].kind == "list":  # a list variable holds the cards, not the zone (Game.held)
        lines += ["if v.__class__ is _ZoneRef:", f"    v = g.as_list(v, {node})"]
    if op != "=":
        arith = f"v = g.arith({parts.const(op[0])}, old, v, {node}, {node}, {parts.const(st)})"
        # (`g.variable`, its common case written out: a value set before, or a literal initial value)
        literal, init = literal_value(program.vars[st.name].init)
        if literal:
            lines.append(f"old = g.state.vars.get(key, {parts.const(init)})")
        else:
            lines += ["old = g.state.vars.get(key, _M)", "if old is _M:", f"    old = g.variable({name}, key)"]
        if op == "+=":  # a count, as `arith` adds (`g.number`, its common case written out)
            count = f"v = v if -_INT_BUDGET <= v <= _INT_BUDGET else g.number(v, {parts.const(st)})"
            lines += [
                "if v.__class__ is int and old.__class__ is int:",
                "    v += old",
                f"    {count}",
                "else:",
                f"    {arith}",
            ]
        else:
            lines.append(arith)
    lines.append(f"g.set_var({name}, key, v, {parts.const(st.span)})")
    return lines


def _read(e: s.Expr, parts: Parts) -> str:
    """Python computing an expression's value: a call of its generated function, or, for a literal or a
    local name (the commonest arguments and values), what that function would do, without the call: a
    literal is its constant, a local is read from `env` (the function again if it is not there, for
    its error)."""
    if parts.reads_in_place:
        is_literal, value = literal_value(e)
        if is_literal:
            return parts.const(value)
        if isinstance(e, s.Name) and parts.local(e):
            read = f"(w := env.get({parts.const(e.id)}, _M))"
            return f"(w if {read} is not _M else {parts.value(e)}(g, env))"
    return f"{parts.value(e)}(g, env)"


def _zone(name: str, e: s.Expr, parts: Parts) -> list[str]:
    """`name = ` the zone an operand names: a zone of keys that are all values at once, else what
    `Game.zone_value` makes of it (its located error)."""
    return [
        f"{name} = {_read(e, parts)}",
        f"if {name}.__class__ is not _ZoneRef or None in {name}.keys:",
        f"    {name} = g.zone_value({name}, {parts.const(e)})",
    ]


def _holds(e: s.Expr, parts: Parts) -> str:
    """Python computing a condition, a boolean: as `_read`, a local that is a boolean read without the call; a
    condition not a boolean by construction its value's function, its kind tested in place."""
    if parts.reads_in_place:
        if isinstance(e, s.BoolLit):
            return parts.const(e.value)
        if isinstance(e, s.Name) and parts.local(e):
            read = f"(w := env.get({parts.const(e.id)}, _M))"
            return f"(w if {read}.__class__ is bool else {parts.truth(e)}(g, env))"
        if not isinstance(e, BOOLEAN):  # (the condition's `truth`, written out: its value, tested here)
            read = f"(w := {parts.value(e)}(g, env))"
            return f"(w if {read}.__class__ is bool else g.truth_of(w, {parts.const(e)}))"
    return f"{parts.truth(e)}(g, env)"


def _keep(name: str, value: str, node: str) -> list[str]:
    """`let name = value`: a zone's value is held as the language holds a zone in a local, a list or a
    record only once its depth is known to be within the state's (`Game.held`)."""
    return [
        f"v = {value}",
        f"env[{name}] = v if v.__class__ not in _HELD else g.nested(v, {node}) if v.__class__ is _tuple "
        f"else g.held(v, {node})",
    ]


def _keep_within(name: str, value: str, node: str) -> list[str]:
    """`let name = value` (or `name = value`) of a value proved no deeper than a local may hold
    (compile/depth.py): a zone's cards as they are now, anything else as it is."""
    return [f"v = {value}", f"env[{name}] = v if v.__class__ is not _ZoneRef else g.held(v, {node})"]


def _returned(node: str, span: str) -> list[str]:
    """`return v` of a value proved no deeper than a local may hold: as `_keep_within` holds it."""
    return [f"r = _Returned(v if v.__class__ is not _ZoneRef else g.held(v, {node}), {span})"]


def _assign(name: str, op: str, sign: str, value: str, node: str, st: str) -> list[str]:
    if op == "=":
        return _keep(name, value, node)
    arith = (
        f"env[{name}] = g.arith({sign}, env[{name}], v if v.__class__ is not _ZoneRef else g.held(v, {node}),"
        f" {node}, {node}, {st})"
    )
    # (`xs += [xs]` nests as `xs = [xs]` does: a list made so is held as `let` holds it)
    deep = f"if (w := env[{name}]).__class__ is _tuple or w.__class__ is _Record:", f"    g.nested(w, {node})"
    if op != "+=":
        return [f"v = {value}", arith, *deep]
    return [  # a count, as `arith` adds
        f"v = {value}",
        f"if v.__class__ is int and (old := env[{name}]).__class__ is int:",
        "    v += old",  # (`g.number`, its common case written out: a number within bounds)
        f"    env[{name}] = v if -_INT_BUDGET <= v <= _INT_BUDGET else g.number(v, {st})",
        "else:",
        f"    {arith}",
        *("    " + line for line in deep),
    ]


def _enter(frames: int, push: list[str], run: list[str], after: tuple[str, ...] = ()) -> list[str]:
    """Run a block's work inline when it may (not while a sink hears every frame pushed, as rule
    coverage does, nor past INLINE_DEPTH), else push its frames: the depth budget counts the `frames`
    that inline work stands for, so a runaway recursion stops where the machine did."""
    return [
        f"d = g.inline_depth + {frames}",
        "if d > _INLINE_DEPTH or g.sinks.pushes:",
        *("    " + line for line in push),
        "    r = None",
        "else:",
        "    if len(frames) + d > _DEPTH_BUDGET:",
        "        raise _TooDeep",
        "    g.inline_depth = d",
        "    try:",
        *("        " + line for line in run),
        "    finally:",
        f"        g.inline_depth -= {frames}",
        *("    " + line for line in after),
    ]


def _if(st: s.If, parts: Parts) -> list[str]:
    arms = [(st.condition, st.then.stmts), *((e.condition, e.body.stmts) for e in st.elifs)]
    lines = []
    for n, (condition, stmts) in enumerate(arms):
        lines += [f"{'if' if n == 0 else 'elif'} {_holds(condition, parts)}:", f"    body = {parts.body(stmts)}"]
    otherwise = st.otherwise.stmts if st.otherwise is not None else None
    lines += ["else:", f"    body = {parts.body(otherwise) if otherwise is not None else 'None'}"]
    enter = _enter(1, ["g.push(_BlockFrame(body.stmts, env, 0, body))"], ["r = body.run(g, env)"])
    if otherwise is not None:
        return lines + enter
    # No arm taken: the conditions only computed, so the block goes on without testing the frames.
    return [*lines, "if body is not None:", *("    " + line for line in [*enter, ENDS_STEP])]


def _for(st: s.For, parts: Parts) -> list[str]:
    var, block, body = parts.const(st.var), parts.const(st.body), parts.body(st.body.stmts)
    return [
        *_items(st.source, parts),
        "r = None",
        *_enter(
            2,
            [f"g.push(_ForFrame({var}, items, {block}, env))"],
            [
                f"run = {body}.run",
                "for j, item in enumerate(items):",
                f"    env[{var}] = item",
                "    r = run(g, env)",
                "    if r is not None:",
                "        if r is _SUSPENDED:",
                f"            frames.insert(depth, _ForFrame({var}, items, {block}, env, j + 1))",
                "        break",
            ],
        ),
    ]


def _items(e: s.Expr, parts: Parts) -> list[str]:
    """`items`: a `for`'s list as a tuple (a zone's cards, none as empty), as `Game.as_list` makes it."""
    zone = parts.items(e)
    if zone is not None:
        return [f"items = {zone}(g, env)"]
    cards = f"items = g.as_list(items, {parts.const(e)})"
    return [f"items = {_read(e, parts)}", "if items.__class__ is not _tuple:", f"    {cards}"]


def _call(name: str, args: tuple[s.Expr, ...], target: str | None, program: Program, parts: Parts) -> list[str]:
    """A procedure call: its locals made from the arguments, its body run inline (or its frames pushed);
    with a `target`, `let target = name(...)`, which its `return` gives a value."""
    proc, proved = program.procs[name], depths(program)
    proc_name, to = parts.const(name), parts.const(target)
    body = parts.body(proc.body.stmts)
    made = ", ".join(f"{parts.const(p.name)}: {_read(a, parts)}" for p, a in zip(proc.params, args, strict=True))
    lines = [f"new = {{{made}}}"]
    for p, a in zip(proc.params, args, strict=True):
        key = parts.const(p.name)
        if p.type.__class__ is s.ListType:  # a zone passed as a `list of T` is its cards at the call
            cards = f"g.as_list(new[{key}], {parts.const(a)})"
            lines += [f"if new[{key}].__class__ is _ZoneRef:", f"    new[{key}] = {cards}"]
        if proved.within(a):  # proved no deeper than a local may hold (compile/depth.py)
            continue
        # a parameter is a local: a list or record no deeper than the state's (`Game.nested`)
        lines += [
            f"if (w := new[{key}]).__class__ is _tuple or w.__class__ is _Record:",
            f"    g.nested(w, {parts.const(a)})",
        ]
    # run inline: its frames below the work that waits, or (as `CallFrame.finish`) the value returned
    gives = [f"    env[{to}] = r.value if r is not None else None"] if target is not None else []
    after = (
        "if r is _SUSPENDED:",
        f"    frames.insert(depth, _CallFrame({proc_name}, new, env, {to}))",
        "elif r is not _ENDED:",
        *gives,
        "    r = None",
    )
    push = [f"g.push(_CallFrame({proc_name}, new, env, {to}))", f"g.push(_BlockFrame({body}.stmts, new, 0, {body}))"]
    return lines + _enter(2, push, [f"r = {body}.run(g, new)"], after)
