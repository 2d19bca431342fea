"""A game at the server's table: the game, its record, its agents, and what each seat is shown.

Nothing here knows of HTTP: app.py relays the seats' answers and sends each seat the messages
made here. Every message to a seat is made from what that seat may see and nothing else: the
viewer's steps as that seat sees them (`viewer.Pages`, built on `Game.view(seat)` and the seat's
trace), the seat's own pending decision, and the result. A spectator sees what every seat sees
(`common_view`). The game is never sent whole.

The game runs as its replay does (`auto_chance` off, each chance answered by `records.chance_answer`
as its own step), so a table restored from its record after a crash shows the very steps it
showed before, and its agents, shown every recorded decision again, choose as they would have.
"""

from __future__ import annotations

import hmac
import secrets
import sys
import time
from pathlib import Path
from typing import Any

import attrs

from .. import agents as agents_mod
from ..errors import RecordError, RulecraftError
from ..language.values import Player
from ..recording import RecordWriter
from ..records import Answer, chance_answer, read_record, replay
from ..render import result_lines
from ..rulebook import Rulebook
from ..runtime.core import DONE
from ..runtime.game import Decision, Game
from ..viewer import Pages, display_names, maps, owners, score_visibility

HUMAN = "human"
LOG = 30  # the steps of trace a seat's first message carries (the state holds the rest)


@attrs.define
class Meta:
    """A game as the index holds it (store.py): enough to restore it from its record."""

    id: str
    rulebook: str  # a bundled rulebook's name, or the path of a file in the allowed folder
    players: int
    seats: list[str]  # the agent of each seat (`human` for a person)
    secrets: list[str]  # each seat's secret: the capability its link carries
    spectator: str  # the spectator link's secret
    record: str  # the record's path
    status: str = "playing"  # playing, over, or stopped (a record that no longer replays: `note` says why)
    created: float = attrs.field(factory=time.time)
    note: str = ""


def new_secret() -> str:
    """A capability: 256 bits from the operating system, URL-safe."""
    return secrets.token_urlsafe(32)


class Table:
    """One live game and the seats' views of it."""

    def __init__(
        self,
        meta: Meta,
        rb: Rulebook,
        game: Game,
        agents: list[agents_mod.Agent | None],
        pages: list[Pages] | None = None,
        public: _PublicSteps | None = None,
    ):
        self.meta, self.rb, self.game, self.agents = meta, rb, game, agents
        self.pages = pages if pages is not None else [Pages(rb.program, Player(i)) for i in range(meta.players)]
        self.public = public if public is not None else _PublicSteps()
        self.writer: RecordWriter | None = None
        self.version = 0  # how many changes the seats were told of
        self.watchers: set[Any] = set()  # the open connections (app.py)
        # Each seat's answers so far: the turn of its decision (an answer to a decision gone is refused).
        # Its own, not the game's count of answers, which would count another's steps in a `secret` block.
        self.answered = [sum(1 for by, _ in game.answers if by == str(p)) for p in game.players]
        self.indexed = meta.status  # the status the index holds
        self.stopped = ""  # why the game cannot go on (an agent or the rules failed), for the host

    # ------------------------------------------------------------------------ starting

    @classmethod
    def start(cls, meta: Meta, rb: Rulebook, *, rulebook_file: str | None, seed: int, agent_seed: int) -> Table:
        """A new game, its record written at once."""
        game = rb.new_game(players=meta.players, seed=seed, auto_chance=False)
        table = cls(meta, rb, game, _agents(meta.seats, meta.players, agent_seed))
        options = {"agents": list(meta.seats), "agent_seed": agent_seed}
        table.writer = RecordWriter(meta.record, game, rulebook_file=rulebook_file, options=options)
        table.settle()
        return table

    @classmethod
    def restore(cls, meta: Meta, rb: Rulebook) -> Table:
        """The game of a record, replayed to where it was; its agents brought to where they were.

        Raises RulecraftError (a record that no longer replays: its rulebook changed, it was edited)."""
        path = Path(meta.record)
        record = read_record(path)
        seed = record.options.get("agent_seed")
        if not isinstance(seed, int) or record.players != meta.players:
            raise RulecraftError(f"{path}: not the record this game started (no agent_seed, or other players)")
        agents = _agents(meta.seats, meta.players, seed)
        pages = [Pages(rb.program, Player(i)) for i in range(meta.players)]
        public = _PublicSteps()

        def catch_up(game: Game, decision: Decision, answer: Answer) -> None:
            public.after(game)
            for p in pages:
                p.on_step(game, decision, answer)
            agent = agents[decision.player.index] if decision.player is not None else None
            if agent is not None:  # as `play --resume` does (cli._resume): the agent's generator moves on
                _think(game, agent, decision)

        game = replay(record, rb, base=path.parent, on_step=catch_up)
        table = cls(meta, rb, game, agents, pages, public)
        table.writer = RecordWriter(
            path, game, rulebook_file=record.rulebook.file, options=record.options, resumed=record
        )
        table.settle()
        return table

    # ------------------------------------------------------------------------ seats

    def seat_of(self, secret: str) -> int | None:
        """The seat a secret opens (its index; -1 the spectator), or None: compared in constant time."""
        found = None
        given = secret.encode()
        for i, own in enumerate([*self.meta.secrets, self.meta.spectator]):
            if hmac.compare_digest(given, own.encode()):
                found = i if i < self.meta.players else -1
        return found

    def answer(self, seat: int, labels: list[str], turn: int) -> str | None:
        """Apply a seat's answers (several: the picks of a `choose any`, then `done`); an error's text, or None.

        An error never quotes the game: it says only what the seat did wrong."""
        game = self.game
        if self.stopped:
            return "the game is stopped"
        for n, label in enumerate(labels):
            if n and self.stopped:
                return None
            decision = game.current_decision()
            if decision is None:
                return "the game is over" if n == 0 else None
            if decision.player is None or decision.player.index != seat:
                return f"it is not your turn: the game waits on {decision.by}" if n == 0 else None
            if n == 0 and turn != self.answered[seat]:
                return "the game has moved on since: answer the decision shown now"
            if label not in decision.labels:
                return "that is not an answer to the decision shown now"
            try:
                self._apply(decision, label, seat)
            except RulecraftError as exc:  # the rules failed: the game is as it was (apply is all or nothing)
                print(f"rulecraft serve: game {self.meta.id}: an answer of P{seat + 1} failed:\n{exc}", file=sys.stderr)
                return "the rules could not go on with that answer (the host's log says why); choose another"
            self.settle()
        return None

    def agent_seat(self) -> int | None:
        """The seat whose agent owes the pending decision, if an agent does."""
        decision = self.game.current_decision()
        if self.stopped or decision is None or decision.player is None:
            return None
        return decision.player.index if self.agents[decision.player.index] is not None else None

    def think(self) -> str:
        """The answer of the agent owed the pending decision (run in a worker thread: the game is not changed)."""
        decision = self.game.current_decision()
        assert decision is not None and decision.player is not None
        agent = self.agents[decision.player.index]
        assert agent is not None
        return _think(self.game, agent, decision)

    def play_agent(self, seat: int, label: str) -> None:
        """Apply an agent's answer."""
        decision = self.game.current_decision()
        assert decision is not None and decision.player is not None and decision.player.index == seat
        self._apply(decision, label, seat)
        self.settle()

    def _apply(self, decision: Decision, label: str, seat: int | None) -> None:
        game = self.game
        self.public.after(game)
        saved = [(p.open, p.zones, p.vars, len(p.steps)) for p in self.pages]
        for p in self.pages:
            p.on_step(game, decision, Answer(decision.by, label))
        try:
            game.apply(label, by=None if seat is None else Player(seat))
            if seat is not None:
                self.answered[seat] += 1
        except BaseException:
            for p, (open_, zones, vars_, n) in zip(self.pages, saved, strict=True):
                p.open, p.zones, p.vars = open_, zones, vars_
                del p.steps[n:]
            raise
        assert self.writer is not None
        try:
            self.writer.update(game)
        except RecordError as exc:  # a full disk: the record keeps the answers before; no more is taken
            self.stopped = f"the record cannot be written: {exc}"
            print(f"rulecraft serve: game {self.meta.id}: {exc}", file=sys.stderr)

    def settle(self) -> None:
        """Answer the chance decisions (each its own step, as in a replay); write the record; close it at the end."""
        game = self.game
        while (decision := game.current_decision()) is not None and decision.player is None:
            self._apply(decision, chance_answer(game), None)
        self.public.after(game)
        if game.over and self.writer is not None:
            self.writer.close(game)
            self.meta.status = "over"
        self.version += 1

    # ------------------------------------------------------------------------ messages

    def state(self) -> str:
        """The game's state for the lobby: whom it waits on, or its end."""
        if self.stopped:
            return "stopped"
        decision = self.game.current_decision()
        if decision is None:
            return "over"
        return f"waits on {decision.by}" + (f" ({self.meta.seats[decision.player.index]})" if decision.player else "")

    def quiet_for(self, seat: int) -> bool:
        """Whether a `secret` block asks another seat now, whose steps this seat sees as one step."""
        decision = self.game.current_decision()
        if self.game.secret_run is None or decision is None:
            return False
        return seat < 0 or decision.player is None or decision.player.index != seat

    def first(self, seat: int) -> tuple[dict[str, Any], int]:
        """A seat's first message (after a connection or a reload): the state, the latest steps, the decision.

        And how many steps it holds (the next message sends the steps after those)."""
        program = self.rb.program
        if seat < 0:
            steps, state = self.public.steps, self.public.state
        else:
            pages = self.pages[seat]
            steps, state = pages.steps, {"zones": pages.zones, "vars": pages.vars}
        head = {
            "type": "hello",
            "title": f"{program.name}: {self.rb.name}",
            "game": program.name,
            "rulebook": self.rb.name,
            "as": f"P{seat + 1}" if seat >= 0 else None,
            "players": [str(p) for p in self.game.players],
            "seats": list(self.meta.seats),
            "names": display_names(program),
            "maps": maps(self.game),
            "files": [{"name": Path(f).name, "text": program.sources[f]} for f in program.files],
            "state": state,
            "log": [{"decision": s["decision"], "trace": s["trace"]} for s in steps[-LOG:]],
            "count": len(steps),
            "scores": [s["scores"] for s in steps],
        }
        body = self.since(seat, len(steps))
        keys = [*state["zones"], *state["vars"], *body["owners"]]
        body["owners"] = owners(program, keys)
        return {**head, **body, "type": "hello"}, len(steps)

    def since(self, seat: int, sent: int) -> dict[str, Any]:
        """What changed for a seat since it was sent `sent` steps: the new steps, the open one, the decision."""
        game = self.game
        if seat < 0:
            new, open_ = self.public.steps[sent:], None
        else:
            pages = self.pages[seat]
            new, open_ = pages.steps[sent:], pages.peek(game)
        keys = {k for step in [*new, *([open_] if open_ else [])] for kind in ("zones", "vars") for k in step[kind]}
        decision = game.current_decision()
        mine = decision is not None and decision.player is not None and decision.player.index == seat
        pending: dict[str, Any] | None = None
        if mine:
            assert decision is not None
            pending = {"by": decision.by, "turn": self.answered[seat], "prompt": decision.prompt}
            # Picks then "done" only where the choice takes several (`choose any`, `upto`): its "done"
            # is the choice's own end, not an option of a menu or a value that reads "done".
            pending |= {"options": decision.labels, "pick": any(o.value is DONE for o in decision.options)}
        elif decision is not None:
            # Only whose the decision is, as the seat's view says it (it holds while a `secret` block asks
            # another): not how many answers were given, which would count another's secret steps.
            held = game.view(Player(seat))["pending"] if seat >= 0 else None
            pending = {"by": held["by"] if held else decision.by}
        end: dict[str, Any] = {}
        if game.over:
            end = {"result": result_lines(game)}
        elif self.stopped:
            end = {"stopped": "the game is stopped: the host's log says why"}
        return {
            "type": "update",
            "from": sent,
            "steps": new,
            "open": open_,
            "decision": pending,
            "end": end,
            "owners": owners(self.rb.program, sorted(keys)),
        }


def _agents(seats: list[str], players: int, seed: int) -> list[agents_mod.Agent | None]:
    """Each seat's agent, seeded as `play` and `simulate` seed them (None for a person)."""
    made = agents_mod.make_agents(seats, players, seed)
    return [None if seats[i] == HUMAN else made[i] for i in range(players)]


def _think(game: Game, agent: agents_mod.Agent, decision: Decision) -> str:
    """An agent's answer, with chance on in the games it looks ahead in (as in a live game of `play`)."""
    replaying, game.auto_chance = game.auto_chance, game.seed is not None
    try:
        return agent.choose(game, decision)
    finally:
        game.auto_chance = replaying


class _PublicSteps:
    """The spectator's steps: one each time what every seat sees changes (`common_view`)."""

    def __init__(self) -> None:
        self.steps: list[dict[str, Any]] = []
        self.state: dict[str, Any] = {"zones": {}, "vars": {}}
        self.by: str | None = None

    def after(self, game: Game) -> None:
        """Take the common view now (before the next answer, and at the end)."""
        view = common_view(game)
        if view == self.state and self.steps:
            return
        step: dict[str, Any] = {"decision": None if self.by is None else {"by": self.by}, "trace": []}
        for kind in ("zones", "vars"):
            before, after = self.state[kind], view[kind]
            step[kind] = {k: v for k, v in after.items() if before.get(k) != v}
            gone = [k for k in before if k not in after]
            if gone:
                step[f"{kind}_gone"] = gone
        step["scores"] = _public_scores(game)
        self.steps.append(step)
        self.state = view
        decision = game.current_decision()
        self.by = decision.by if decision is not None else None


def common_view(game: Game) -> dict[str, Any]:
    """What every seat sees: a zone or variable shown alike to all, else its count (a variable: '?').

    The count is that of a seat not asked the pending decision (whose view holds while a `secret`
    block asks another), so that it moves only when the seats see it move."""
    views = [game.view(p) for p in game.players]
    decision = game.current_decision()
    asked = decision.player.index if decision is not None and decision.player is not None else -1
    ref = views[0 if asked != 0 or len(views) == 1 else 1]
    zones: dict[str, Any] = {}
    for key, value in ref["zones"].items():
        if all(v["zones"].get(key) == value for v in views):
            zones[key] = value
        else:
            zones[key] = {"count": len(value) if isinstance(value, list) else value.get("count", 0)}
    vars_ = {}
    for key, text in ref["vars"].items():
        vars_[key] = text if all(v["vars"].get(key) == text for v in views) else "?"
    return {"zones": zones, "vars": vars_}


def _public_scores(game: Game) -> list[int | None]:
    if "score" not in game.program.fns:
        return []
    if game.over:
        return list(game.result()["scores"].values())
    if not score_visibility(game.program)[0]:
        return [None] * len(game.players)
    out: list[int | None] = []
    for p in game.players:
        try:
            out.append(game.score(p))
        except RulecraftError:
            out.append(None)
    return out
