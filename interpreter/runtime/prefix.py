"""A game's setup up to its first chance, run once for a rulebook and copied by every game that nobody hears.

Every new game of a rulebook begins the same way: its variables take their initial values, and
the first statements of its setup create the same cards in the same zones and set the same
variables (`create 1 Card { rank: r } in deck` for each rank), before the first draw or question
makes the games differ. That *settled* prefix (`settled_count`: the leading `create`, `set`, `let`,
assignment, `for` and `if` statements of the first setup block, whose bodies are the same) is run
once for each number of players and way of running (`Prefix`), and a game that no sink hears (no
trace, no observer: nobody is told of the prefix's events) starts as a copy of its end: the state
(a copy, with the game's own generator), the memo, the setup block's local names, what is left of
the budget of work. Its first step goes on from the setup block's next statement (the block's
generated code resumes at a position, as after a decision), so the game has the same state,
steps, answers and budgets as one that ran the prefix itself. The block's code resumes only at its
resume points (compile/blocks.py, `resume_points`: the statement after one that may end a step),
so the prefix ends at the last of them within the settled statements (a `let` or an assignment at
its end is left to each game), or at the block's end. A setup whose first statement is not settled
has no prefix (`settled_end`): copying the variables' initial values costs more than setting them.

Nothing of the prefix is shared mutable with a game: its state is copied (`State.copy`), as are its
local names and each dict of its memo that holds values (a game adds its own values to a dict).
It depends on the rulebook (the cache is the rulebook's: a rulebook edited and loaded again is
another, with prefixes of its own), the players and the switches (`prefix_for`'s key), never on the
seed: a prefix that touched the generator is not taken.

The prefix is taken only when its run proves it settled: it ran within the first step without
asking, drawing, touching the generator, firing a rule or starting other work (the frames are as
they were, but the setup block's), and raised nothing; otherwise no game of that kind uses a
prefix, and each runs its setup from the start (its errors its own, as before).
"""

from __future__ import annotations

from typing import Any

from ..check.program import Program
from ..compile.blocks import resume_points
from ..syntax import ast as s
from .basics import EMPTY_MEMO, MASK64, WORK_BUDGET, shared_dict
from .core import MISSING, fold_seed
from .machine import BlockFrame
from .state import State


class Prefix:
    """The end of a setup's settled prefix (see the module), shared by the games that copy it (never changed)."""

    __slots__ = ("body", "code", "consts", "env", "filled", "i", "memo", "players", "state", "work_left")

    def __init__(self, g: Any, i: int, env: dict[str, Any]):
        self.code = g.code  # (the code it was run by: a game of another code cache runs its own setup)
        self.i = i  # the setup block's statements run: 0, a resume point of its code, or all of them
        self.env = env  # the setup block's local names then
        self.state: State = g.state
        self.memo = tuple(g.memo)
        self.filled = tuple(k for k, m in enumerate(self.memo) if m is not EMPTY_MEMO)  # (each game's own copy)
        pure = g.code.pure_consts  # (the pure ones are the code cache's for every game: `evaluate.global_value`)
        self.consts = {k: v for k, v in g.consts.items() if k not in pure}
        self.work_left = g.work_left
        self.players = g.players
        # The setup block's frame's code from there: the block's, or at its end the code that only ends it.
        self.body: Any = None
        if i:
            stmts = g.program.setup[0].stmts
            body = g.code.block(stmts)
            self.body = body.end if i == len(stmts) else body

    def start(self, g: Any, players: int, seed: int | None) -> None:
        """Give a new game (`Game.__init__`'s, its frames pushed: the setup block's on top) the prefix's state,
        with its own generator, memo, constants and seats; its setup block goes on from the statement after
        the prefix, with its local names."""
        g.state = state = self.state.copy()
        state.rng = seed if seed is not None and 0 <= seed <= MASK64 else fold_seed(seed or 0)  # (its own state)
        g.memo = memo = list(self.memo)
        for k in self.filled:
            memo[k] = dict(memo[k])
        consts = g.code.const_values.get(players)
        g.consts = {**consts, **self.consts} if self.consts else dict(consts) if consts else {}
        g.players = self.players
        if self.i:
            first = g.frames[-1]
            assert isinstance(first, BlockFrame)
            first.i, first.env, first.code = self.i, dict(self.env), self.body


def settled_count(stmts: tuple[s.Stmt, ...], program: Program) -> int:
    """How many statements at the start of a block are settled: the same work in every game, never
    asking, drawing or starting a frame of their own (a rule they fire is seen when the prefix runs)."""
    n = 0
    for st in stmts:
        if not _settled(st, program):
            break
        n += 1
    return n


def _settled(st: s.Stmt, program: Program) -> bool:
    match st:
        case s.Create() | s.SetVar() | s.Assign():
            return True
        case s.Let(value=value):
            return not (isinstance(value, s.Call) and value.name in program.procs)
        case s.For(body=body):
            return settled_count(body.stmts, program) == len(body.stmts)
        case s.If(then=then, elifs=elifs, otherwise=otherwise):
            blocks = (then, *(e.body for e in elifs), *((otherwise,) if otherwise is not None else ()))
            return all(settled_count(b.stmts, program) == len(b.stmts) for b in blocks)
    return False


def prefix_for(g: Any, key: tuple[Any, ...], made: Any) -> Prefix | None:
    """The rulebook's prefix for games of this `key` (players and switches), run on first use by the
    game `made()` returns (set up as a game of that key, its frames pushed, not run); None: none
    proved settled."""
    prefixes = shared_dict(g.rulebook, "setup_prefixes")
    found = prefixes.get(key, MISSING)
    if found is MISSING or (found is not None and found.code is not g.code):
        k = settled_end(g.program)
        found = prefixes[key] = _run_prefix(made, g.program, k) if k else None
    return found


def settled_end(program: Program) -> int:
    """Where the settled prefix of the setup's first block ends: the last resume point of the block's code
    within its settled statements (compile/blocks.py `resume_points`), or the block's end. None settled
    (0): no prefix, the variables' initial values alone cost a game less to set than to copy."""
    stmts = program.setup[0].stmts if program.setup else ()
    k = settled_count(stmts, program)
    if k and k < len(stmts):  # (its code resumes only at a resume point: the last one in it)
        k = max((r for r in resume_points(stmts, program) if r <= k), default=0)
    return k


def _run_prefix(made: Any, program: Program, k: int) -> Prefix | None:
    """Run the first `k` statements of the setup in the game `made()` returns (its variables set, its frames
    pushed, as `Game.__init__` pushes them), as the first step of `machine.run` would run them; their end,
    if it proves settled. One that fails (its variables' values too) is not taken: each game meets its error
    itself, at its own place."""
    env: dict[str, Any] = {}
    try:
        t = made()
        frames = t.frames
        below, top, rng = list(frames[:-1]), frames[-1] if frames else None, t.state.rng
        if not isinstance(top, BlockFrame) or top.stmts is not program.setup[0].stmts:
            return None
        frames[-1] = BlockFrame(top.stmts[:k], env)  # (its generated code does the same statements as the block's)
        t.work_left = WORK_BUDGET  # as `machine.run` begins
        frames[-1].step(t)
    except Exception:
        return None
    settled = (
        len(frames) == len(below)
        and all(a is b for a, b in zip(frames, below, strict=True))
        and t.pending is None
        and not t.state.over
        and t.state.rng == rng
        and not t.answers
        and not t.journal
        and not (t.attempts or t.together or t.secret or t.rule_frames or t.steps or t.fn_depth or t.inline_depth)
        and t.secret_run is None
        and not t.dirty
        and not t.information.held_views
        and not t.decisions.next_draws
    )
    if not settled:
        return None
    _keep_draw_labels(t, program)
    return Prefix(t, k, env)


def _keep_draw_labels(t: Any, program: Program) -> None:
    """Put in the prefix's memo the labels of each shuffled zone's cards (`zone_labels`), which a draw
    reads first (`Decisions.draw_at_once`): computed once here, not by every game's first draw. They
    are derived from the state alone, as a game's own would be, so nothing a game does sees the
    difference; their work is not charged (the work left is the prefix's), and a label that cannot be
    made here is left to the game to meet."""
    work_left = t.work_left
    for key, ids in t.state.zones.items():
        name = key.split("[", 1)[0]
        zone = program.zones.get(name)
        if ids and zone is not None and zone.shuffled:
            try:
                t.zone_labels(name, key, ids)
            except Exception:
                break
    t.work_left = work_left
