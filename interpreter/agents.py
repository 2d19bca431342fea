"""Agents: they answer decisions through the same door as a person (labels of legal answers)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, ClassVar, Protocol, TextIO

from .errors import GameError, RulebookError
from .inputs import clip
from .language.values import Player
from .runtime.basics import MASK64, splitmix
from .runtime.game import Decision, Game
from .runtime.information import sample_hidden
from .terminal import printable


class Agent(Protocol):
    def choose(self, game: Game, decision: Decision) -> str: ...


def _at_least(least: int) -> Callable[[str], int]:
    """The parser of a whole number option of at least `least`."""

    def parse(text: str) -> int:
        value = int(text)
        if value < least:
            raise ValueError(text)
        return value

    parse.__name__ = "int"
    return parse


class RandomAgent:
    """Uniform over the legal answers, from its own seeded generator."""

    def __init__(self, seed: int = 0):
        self.rng = seed & MASK64

    def _below(self, n: int) -> int:
        self.rng, bits = splitmix(self.rng)
        return bits % n

    def choose(self, game: Game, decision: Decision) -> str:
        options = decision.options
        # (`_below` and its `splitmix`, written out: a random game's commonest call)
        rng = self.rng = (self.rng + 0x9E3779B97F4A7C15) & MASK64
        z = ((rng ^ (rng >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return options[(z ^ (z >> 31)) % len(options)].label


class GreedyAgent(RandomAgent):
    """One ply: try each answer on a clone (with its own chance), keep the best `heuristic(p)`.

    A finished game counts as a large win or loss. Ties go to a seeded random choice, so greedy
    players differ between seeds. The agent looks ahead only in a world its seat could be in:
    before it tries the answers, every card it cannot identify is dealt anew at random among the
    places it cannot see, agreeing with what the seat was shown and told (`sample_hidden`), and
    the clone's chance is reseeded from the agent's own generator. So it never peeks at another
    hand or the real order of a shuffled deck, and it decides alike in two games that differ only
    in what it cannot see.

    Two options (off by default, so a greedy game is as it always was):

    - `lookahead=N`: an answer that leads to another decision of the same player (a menu's
      option, then the card it plays; whom to tell, then what) is judged by the best answer of
      that decision, up to N decisions deep, instead of by the position in between, where
      nothing may have happened yet.
    - `samples=N`: each answer is tried in N worlds the seat could be in, and judged by its mean
      value over them (worlds the rules cannot go on from left out): a card whose identity the
      seat does not know is played for what it is on average, not for what one world dealt.
    """

    WIN = 1_000_000
    OPTIONS: ClassVar[dict[str, Callable[[str], Any]]] = {"lookahead": _at_least(0), "samples": _at_least(1)}

    def __init__(self, seed: int = 0, lookahead: int = 0, samples: int = 1):
        super().__init__(seed)
        self.lookahead = lookahead
        self.samples = samples

    def choose(self, game: Game, decision: Decision) -> str:
        me = decision.player
        assert me is not None
        if self.lookahead == 0 and self.samples == 1:
            values = self._one_world(game, decision, me)
        else:
            worlds = []
            for _ in range(self.samples):
                salt = self._below(1 << 62)
                worlds.append((sample_hidden(game, me, salt), salt))
            values = self._values(worlds, [o.label for o in decision.options], me, self.lookahead)
        best: list[str] = []
        best_value: float = float("-inf")
        for option, value in zip(decision.options, values, strict=True):
            if value > best_value:
                best, best_value = [option.label], value
            elif value == best_value:
                best.append(option.label)
        return best[self._below(len(best))]

    def _one_world(self, game: Game, decision: Decision, me: Player) -> list[float]:
        salt = self._below(1 << 62)
        world = sample_hidden(game, me, salt)
        values = []
        firsts: dict[str, int] = {}  # each label -> its first option: the one its label answers
        last = len(decision.options) - 1
        for i, option in enumerate(decision.options):
            # The last answer is tried on the world itself: it is thrown away after, as a clone would be.
            trial = world.clone() if i < last else world
            trial.reseed(salt)
            trial.decisions.trial = True  # (its next decision need not be labelled: it is judged, then thrown away)
            try:
                # By index, as the label would (the world is a clone at this decision: the same
                # options), without a scan of the labels; a clone, thrown away: need not be kept whole.
                trial.apply(firsts.setdefault(option.label, i), atomic=False)
            except RulebookError:
                # The sampled world may be one the rules cannot go on from (a card dealt where the
                # real one would have fitted): the answer is judged unknown, below any other.
                values.append(float("-inf"))
            else:
                values.append(self._value(trial, me))
        return values

    def _values(self, worlds: list[tuple[Game, int]], labels: list[str], me: Player, depth: int) -> list[float]:
        """Each answer's mean value over the worlds, through `depth` more decisions of `me`."""
        values = []
        for label in labels:
            after: list[tuple[Game, int]] = []
            for world, salt in worlds:
                trial = world.clone()
                trial.reseed(salt)
                try:
                    trial.apply(label, atomic=False)
                except (RulebookError, GameError):
                    continue  # a world the rules cannot go on from, or where the answer is no option
                after.append((trial, salt))
            if not after:
                values.append(float("-inf"))
                continue
            nexts = [None if g.over else g.current_decision() for g, _ in after]
            if depth > 0 and all(d is not None and d.player == me for d in nexts):
                first = nexts[0]
                assert first is not None
                values.append(max(self._values(after, [o.label for o in first.options], me, depth - 1)))
            else:
                values.append(sum(self._value(g, me) for g, _ in after) / len(after))
        return values

    def _value(self, game: Game, me: Player) -> float:
        # A game a guard stopped unfinished has no winner: what counts there is the position.
        if game.over and game.state.unfinished is None:
            winners = game.state.winners or []
            if game.state.together == "won":  # a cooperative win is a whole win for every player
                return self.WIN
            if me.index in winners:
                return self.WIN / len(winners)
            return -self.WIN
        return game.heuristic(me)


class Quit(Exception):
    """A person typed `quit`: the game stops where it is (its record keeps every answer so far)."""


HELP = """\
  a number from 1 to {n}, or an option's label: answer
  view: show {whose} again
  help or ?: this help
  quit: stop here; {saved}
"""


class HumanAgent:
    """A person at a terminal: shows what happened since their last turn and their view, then the
    decision with numbered options; reads a number or a label and asks again until it is one.

    At any prompt `?` or `help` lists what may be typed, `view` shows the view again and `quit`
    stops the game (raises `Quit`; the record, if one is kept, has every answer so far).
    """

    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None):
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        self.seen = 0  # events of the game already shown
        self.record: str | None = None  # the record being kept, named when the person quits

    def choose(self, game: Game, decision: Decision) -> str:
        from .render import display_key, trace_lines, view_text

        out = self.stdout
        me = decision.player
        if me is None:  # the table: a person types what was revealed on the real table
            from .records import pending_draw

            draw = pending_draw(game)
            what = (
                f"a card drawn from {display_key(game, draw[0])} to {display_key(game, draw[1])}"
                if draw
                else decision.prompt
            )
            return self._ask(decision, f"table: {what}: what was revealed?", None)
        # What happened since this seat last answered, as it may see it (without the rule spans).
        news = [line.split("  @ ", 1)[0] for line in trace_lines(game, game.events[self.seen :], viewer=me)]
        self.seen = len(game.events)
        if news:
            out.write("\n" + "\n".join(news) + "\n")
        view = "\n" + view_text(game, me, order=decision.labels, display=True) + "\n"
        out.write(view)
        return self._ask(decision, f"{decision.by}: {decision.prompt}", view)

    def _ask(self, decision: Decision, question: str, view: str | None) -> str:
        """Show the numbered options and read until the answer is one of them (or a command)."""
        out = self.stdout

        def show_question() -> None:  # the prompt and labels are the rulebook's text: escaped (console.printable)
            out.write(printable(question) + "\n")
            for i, option in enumerate(decision.options, 1):
                out.write(printable(f"  {i}. {option.label}") + "\n")

        show_question()
        while True:
            out.write("> ")
            out.flush()
            try:
                line = self.stdin.readline()
            except UnicodeDecodeError:
                raise GameError("input that is not UTF-8 text: the game is left unfinished") from None
            if not line:
                raise GameError("no more input: the game is left unfinished")
            text = line.strip()
            # ASCII digits only ('²' is a digit to str.isdigit), and few: int() refuses 4300 of them
            if text.isascii() and text.isdigit() and len(text) < 10 and 1 <= int(text) <= len(decision.options):
                return decision.options[int(text) - 1].label
            if text in decision.labels:
                return text
            match text.lower():  # an option's own label wins over a command of the same name
                case "?" | "help":
                    saved = (
                        f"the record {self.record} keeps the game (go on with: rulecraft play --resume {self.record})"
                        if self.record
                        else "the game is not recorded (play with --record FILE to keep it)"
                    )
                    whose = "your view" if view is not None else "the question"
                    out.write(HELP.format(n=len(decision.options), whose=whose, saved=saved))
                case "view":
                    if view is not None:
                        out.write(view)
                    show_question()
                case "quit":
                    raise Quit
                case _:
                    shown = printable(clip(text).encode("utf-8", "backslashreplace").decode("utf-8"))  # no half pairs
                    out.write(
                        f"'{shown}' is not an answer: type a number from 1 to {len(decision.options)}, "
                        "or an option's label (? for help)\n"
                    )


def _mcts(seed: int, **options: Any) -> Agent:
    from .mcts import MctsAgent

    return MctsAgent(seed, **options)


AGENTS: dict[str, Callable[..., Any]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "human": lambda seed: HumanAgent(),
    "mcts": _mcts,
}


def agent_options(name: str) -> dict[str, Callable[[str], Any]]:
    """The options an agent takes (`mcts:iterations=200`), each with the parser of its value."""
    if name == "mcts":
        from .mcts import MctsAgent

        return MctsAgent.OPTIONS
    if name == "greedy":
        return GreedyAgent.OPTIONS
    return {}


def parse_agent(spec: str) -> tuple[str, dict[str, Any]]:
    """An agent's name and options from its spelling `name:option=value:...` (`mcts:iterations=50`)."""
    name, *given = spec.strip().split(":")
    if name not in AGENTS:
        raise GameError(f"unknown agent '{clip(name)}': choose from {', '.join(AGENTS)}")
    known = agent_options(name)
    options: dict[str, Any] = {}
    for item in given:
        key, eq, text = item.partition("=")
        if not eq or key not in known:
            takes = f"takes {', '.join(known)}" if known else "takes no options"
            raise GameError(f"agent '{name}': unknown option '{clip(item)}' ({name} {takes})")
        try:
            options[key] = known[key](text)
        except ValueError:
            kind = {"int": "a whole number", "float": "a number"}.get(known[key].__name__, "a word")
            raise GameError(f"agent '{name}': option {key} must be {kind}, not '{clip(text)}'") from None
    return name, options


def with_options(names: list[str], options: list[str]) -> list[str]:
    """The agents' spellings with `--agent-option AGENT.OPTION=VALUE` added to every seat of that agent."""
    out = list(names)
    for option in options:
        agent, dot, setting = option.partition(".")
        if not dot or "=" not in setting:
            raise GameError(f"agent option '{clip(option)}' is not AGENT.OPTION=VALUE (as in mcts.iterations=200)")
        if not any(parse_agent(n)[0] == agent for n in out):
            raise GameError(f"agent option '{clip(option)}': no seat is played by {clip(agent)}")
        out = [f"{n}:{setting}" if parse_agent(n)[0] == agent else n for n in out]
    for spec in out:
        make_agent(spec, 0)  # a bad value is refused here, before any game starts
    return out


def make_agent(spec: str, seed: int) -> Agent:
    """The agent of a spelling such as `greedy` or `mcts:iterations=50`, seeded."""
    name, options = parse_agent(spec)
    agent: Agent = AGENTS[name](seed, **options)
    return agent


def make_agents(names: list[str], players: int, seed: int) -> list[Agent]:
    """One agent per seat from names (the last name repeats for the remaining seats)."""
    if not names:
        names = ["random"]
    agents = []
    for i in range(players):
        agents.append(make_agent(names[min(i, len(names) - 1)], (seed * 7919 + i * 104729 + 1) & MASK64))
    return agents


def play(
    game: Game,
    agents: list[Agent],
    on_answer: Callable[[Game], None] | None = None,
    max_decisions: int = 100_000,
    table: Agent | None = None,
    atomic: bool = True,
) -> Game:
    """Answer decisions with the agents (one per seat) until the game is over.

    A game without a seed asks chance of `table` (a person typing what was revealed), if given.
    Each answer is applied all or nothing (`Game.apply`); `atomic=False` skips what that keeps, for
    a caller that throws the game away when an answer fails (a simulation or a benchmark: some
    7 to 11 % of a game's instructions).
    """
    count = 0
    while not game.state.over:  # (`game.over` and `current_decision()`, read without their calls)
        decision = game.pending
        if decision is None:
            break
        if decision.player is None and table is None:
            raise GameError(
                f'the game waits on the table ("{decision.prompt}") and has no seed to draw with: '
                "go on with --table, and type what was revealed"
            )
        agent = table if decision.player is None else agents[decision.player.index]
        assert agent is not None
        game.apply(agent.choose(game, decision), atomic=atomic)
        count += 1
        if on_answer is not None:
            on_answer(game)
        if count > max_decisions:
            raise GameError(f"more than {max_decisions} decisions: the game does not end")
    return game
