"""Information-set Monte Carlo tree search: an agent that plays through the rules alone.

For each decision the agent runs iterations of single-observer ISMCTS (Cowling, Powley and
Whitehouse, 2012). Each iteration:

1. **determinizes**: a fresh world its seat could be in (`Game.determinize`: every card and
   secret it cannot see drawn anew, chance reseeded), so the search never reads another hand,
   a secret plan or the real order of a deck;
2. **selects** down the tree, one node per decision, whoever takes it: each player picks, among
   the options legal in this world, the one of best UCB1 value for itself (counts of how often
   an option was legal stand in for the parent's visits, as ISMCTS does for options that come
   and go between worlds);
3. **expands** one option not tried yet, then **plays out** at random (or greedily, one ply of
   the rulebook's `heuristic`) until the game ends or, when the rulebook has a `heuristic` to
   judge the position, until the cut: `depth` decisions taken in the iteration (`cut=decisions`,
   the default with one or two players), or the searcher's turn over, at the first decision of
   another player (`cut=turn`, the default with three or more: the tree too stops there);
   chance is the table's own weighted draws, from the world's reseeded generator;
4. **backs up** each player's reward, in [0, 1]: a finished game gives its winners 1 shared
   between them (a game without winners, 1/players each; a cooperative end 1 to every player if
   they won together, 0 if they lost); a position cut off, or stopped
   unfinished by a guard, is judged by the heuristic (else `score`): with two players, how far
   the player is ahead of the other (`judge=lead`), scaled between the least and the greatest
   lead judged so far in this search (so that the small differences a heuristic makes between
   options are not lost in [0, 1]); alone or with three or more, how far the player is above
   where the search began (`judge=gain`), scaled between that player's own least and greatest
   gain so far (each player maximises its own, as in max^n: another player's heuristic, their
   hidden cards dealt anew in every world, would be noise to the searcher).
5. **proves** results (MCTS-Solver, Winands, Bjornsson and Saito 2008) where every world is the
   position itself (nothing hidden from the player) and no chance was drawn on the way: a
   finished game's result is known, and a node is proved when its player has a proved win or
   every option is proved. A proved node is not played out again; the search stops when the
   root is proved.

The answer is a proved win if there is one, never an option proved worse than another proved one,
else the option tried most often at the root. The search draws everything from one
generator seeded from the agent's own, so a game of seeded MCTS agents with an iteration budget
replays exactly; a time budget (`seconds`) stops after a number of iterations that depends on
the machine, so such a game does not replay.
"""

from __future__ import annotations

import math
import random
import time
from typing import Any, ClassVar

import attrs

from .check.program import Program
from .errors import GameError, RulebookError
from .runtime.determinize import Determinizer
from .runtime.game import Decision, Game
from .syntax import statements as s

# The default budget: iterations until the worlds searched have taken this many decisions in all
# (so a short game gets more iterations than a long one for about the same work; docs/AGENTS.md).
DECISIONS = 600
# Without a heuristic every iteration plays to the end and brings back one finished game (a win,
# a loss or a draw: little to choose by), so a rulebook that declares none gets a larger budget;
# the bundled games without one are small (a decision stays well under a second: docs/AGENTS.md).
DECISIONS_PLAYED_OUT = 6000
DEPTH = 4  # decisions taken in one iteration before the heuristic judges the position
# ... but 2 where the players choose in `secret` blocks and another player takes part: there the
# decisions that follow the searcher's within 4 are mostly the other player's own secret choice,
# which cannot answer the searcher's (it does not see it), taken at random or by an exploring tree;
# they add only noise to the judgement, and a costly answer of the other's tried at random moves
# the lead more than the searcher's own choice does. A look-ahead of 2 judges the searcher's choice
# and its own next step, and the same budget makes twice the iterations (a bundled rulebook of
# secret commitments, 2 players against greedy: docs/AGENTS.md). A solo search has no other player
# to add noise; with three players or more the cut is at the end of the searcher's turn, where no
# depth counts; a rulebook without `secret` blocks is searched as before.
DEPTH_SECRET = 2
# There the budget is larger too: such a search keeps gaining from more iterations (a bundled
# rulebook of secret commitments, 2 players against greedy, the same 60 seeds: 33 won at 600
# decisions, 35 at 1200, 41 at 1600), and since a world keeps the values that depend only on which
# card is where (determinize.py), 1600 decisions take less CPU than 600 took before: the slowest
# decision of those 60 games was 0.68 s (docs/AGENTS.md).
DECISIONS_SECRET = 1600
# With `cut=turn`, a turn longer than this many decisions is judged where it stands.
TURN_LIMIT = 50
EXPLORATION = 0.3  # UCB1's constant (rewards are in [0, 1])
# With three players or more each player is judged by its own gain, scaled between the least and
# greatest gain the search has judged, so one iteration's luck can put an option at 0: a larger
# constant tries it again (searches of different seeds then agree more often at a decision of
# many options: docs/AGENTS.md).
EXPLORATION_MANY = 0.7
PLAYOUTS = ("random", "greedy")
CUTS = ("decisions", "turn")
JUDGES = ("lead", "gain")


class Node:
    """One decision of the tree: its children by option label, with their statistics."""

    __slots__ = ("available", "children", "labels", "proven", "total", "visits", "who")

    def __init__(self) -> None:
        self.children: dict[str, Node] = {}
        self.visits = 0  # iterations that went through this node
        self.total = 0.0  # their rewards, for the player who chose the option leading here
        self.available = 0  # iterations in which the option leading here was legal
        # Where every world is the same position (`_Search.exact`): the player deciding here and
        # the legal options, and, once the search has proved it, each player's reward from here.
        self.who: int | None = None
        self.labels: list[str] | None = None
        self.proven: list[float] | None = None


class MctsAgent:
    """Information-set MCTS with a budget of `iterations` (or `seconds`) per decision."""

    # Options as `--agent-option mcts.NAME=VALUE` gives them: their parsers.
    OPTIONS: ClassVar[dict[str, Any]] = {
        "iterations": int,
        "decisions": int,
        "seconds": float,
        "playout": str,
        "depth": int,
        "c": float,
        "cut": str,
        "judge": str,
    }

    def __init__(
        self,
        seed: int = 0,
        *,
        iterations: int | None = None,
        decisions: int | None = None,
        seconds: float | None = None,
        playout: str = "random",
        depth: int | None = None,
        c: float | None = None,
        cut: str | None = None,
        judge: str | None = None,
    ):
        if iterations is not None and iterations < 1:
            raise GameError(f"mcts.iterations must be at least 1, not {iterations}")
        if decisions is not None and decisions < 1:
            raise GameError(f"mcts.decisions must be at least 1, not {decisions}")
        if seconds is not None and not seconds > 0:
            raise GameError(f"mcts.seconds must be more than 0, not {seconds}")
        if playout not in PLAYOUTS:
            raise GameError(f"mcts.playout must be one of {', '.join(PLAYOUTS)}, not '{playout}'")
        if depth is not None and depth < 1:
            raise GameError(f"mcts.depth must be at least 1, not {depth}")
        if c is not None and not c >= 0:
            raise GameError(f"mcts.c must be 0 or more, not {c}")
        if cut is not None and cut not in CUTS:
            raise GameError(f"mcts.cut must be one of {', '.join(CUTS)}, not '{cut}'")
        if judge is not None and judge not in JUDGES:
            raise GameError(f"mcts.judge must be one of {', '.join(JUDGES)}, not '{judge}'")
        self.rng = random.Random(seed)
        self.iterations, self.decisions, self.seconds = iterations, decisions, seconds
        self.playout, self.depth, self.c = playout, depth, c
        self.cut, self.judge = cut, judge  # None: by the number of players (_Search)
        self._secret: tuple[Program, bool] | None = None  # whether a rulebook has `secret` blocks
        self.last_iterations = 0  # iterations of the last search (for the benchmark)

    def secret_choices(self, program: Program) -> bool:
        """Whether the rulebook has players choose in a `secret` block (worked out once)."""
        if self._secret is None or self._secret[0] is not program:
            self._secret = (program, _has_secret(program))
        return self._secret[1]

    def choose(self, game: Game, decision: Decision) -> str:
        me = decision.player
        assert me is not None
        # One draw from the agent's generator per decision, whatever it decides, so that a
        # resumed game (which shows the agent its recorded decisions again) catches up exactly.
        rng = random.Random(self.rng.getrandbits(64))
        if len(decision.options) == 1:
            return decision.options[0].label
        search = _Search(game, me.index, rng, self)
        root = search.run()
        self.last_iterations = search.done
        children = root.children
        # A proved result decides: a proved win at once; a choice proved worse than another proved
        # one never (MCTS-Solver, Winands, Bjornsson and Saito 2008). Else the one tried most often.
        proven = [children[label].proven for label in decision.labels if label in children]
        best = max((value[me.index] for value in proven if value is not None), default=None)

        def rank(label: str) -> tuple[int, int, float]:
            child = children.get(label)
            if child is None:
                return (0, -1, 0.0)
            if child.proven is not None:
                mine = child.proven[me.index]
                if mine >= 1.0:
                    return (2, child.visits, child.total)
                if best is not None and mine < best:
                    return (0, child.visits, child.total)
            return (1, child.visits, child.total)

        return max(decision.labels, key=rank)


class _Search:
    """The search for one decision of player `me` in `game`."""

    def __init__(self, game: Game, me: int, rng: random.Random, agent: MctsAgent):
        self.game, self.me, self.rng, self.agent = game, me, rng, agent
        program = game.program
        # Cut off at `depth` only with a heuristic, written to judge positions between turns; a
        # game a guard stops is judged by `score` where there is no heuristic (Game.heuristic).
        self.cut = "heuristic" in program.fns
        self.judged = self.cut or "score" in program.fns
        self.players = game.state.players
        # With three players or more, a position is judged when the searcher's turn is over, each
        # player by its own gain: in a game of more, the best other player's heuristic is mostly
        # noise to the searcher (their hidden cards dealt anew in every world, their random
        # playouts), and a cut at a fixed number of decisions falls now in the searcher's turn, now
        # in another's, where a heuristic may weigh a position differently (docs/AGENTS.md).
        many = self.players >= 3
        cut = agent.cut or ("turn" if many else "decisions")
        self.turns = cut == "turn" and self.cut  # judged when the turn is over
        # Decisions taken in one iteration before the heuristic judges (with `cut=decisions`).
        secret = self.players >= 2 and agent.secret_choices(program)
        self.depth = agent.depth if agent.depth is not None else DEPTH_SECRET if secret else DEPTH
        self.gain = (agent.judge or ("lead" if self.players == 2 else "gain")) == "gain"
        self.start: list[float] = []  # each player's heuristic where the search began
        self.low, self.high = math.inf, -math.inf  # the least and greatest lead judged so far
        # The least and greatest gain judged so far, per player.
        self.lows, self.highs = [math.inf] * self.players, [-math.inf] * self.players
        self.c = agent.c if agent.c is not None else EXPLORATION_MANY if many else EXPLORATION
        self.worlds = Determinizer(game, game.players[me])  # `Game.determinize`, worked out once
        # Nothing hidden from the player: every world is the position itself (reseeded), so where
        # no chance is drawn on the way a node is one position, whose result the search can prove.
        self.exact = not self.worlds.groups and not self.worlds.resets
        default = (DECISIONS_SECRET if secret else DECISIONS) if self.cut else DECISIONS_PLAYED_OUT
        self.budget = agent.decisions if agent.decisions is not None else default
        self.done = 0  # iterations
        self.taken = 0  # decisions taken in the worlds searched
        self.failed = 0  # iterations whose world the rules could not go on from

    def run(self) -> Node:
        agent = self.agent
        root = Node()
        if self.judged:
            self.start = [float(self.game.heuristic(p)) for p in self.game.players]
        deadline = None if agent.seconds is None else time.perf_counter() + agent.seconds
        while True:
            if deadline is not None:
                if time.perf_counter() >= deadline and self.done > 0:
                    break
            elif agent.iterations is not None:
                if self.done >= agent.iterations:
                    break
            elif self.taken >= self.budget or self.failed >= self.budget:
                # An iteration that fails at once takes no decision: without a bound of their own,
                # worlds that all fail (a card whose state the draw dealt elsewhere) would search on
                # and on. As many failures as the budget's decisions stop the search too.
                break
            if root.proven is not None:
                break  # the result of every answer is known
            self.iterate(root)
            self.done += 1
        return root

    def iterate(self, root: Node) -> None:
        world = self.worlds.draw(self.rng)
        world.auto_chance = True  # the table's draws come from the world's (reseeded) generator
        path: list[tuple[Node, int]] = []  # each node entered, and who chose the option leading to it
        node, taken = root, 0
        sure = self.exact  # every node entered so far is one position (no chance drawn on the way)
        rewards: list[float] | None = None
        try:
            # Selection and expansion.
            while not world.over:
                if node.proven is not None:
                    rewards = node.proven  # known: no need to play it out again
                    self.taken += taken == 0  # an iteration that plays nothing counts as one decision
                    break
                decision = world.current_decision()
                if decision is None:
                    break
                assert decision.player is not None
                if self.turns and decision.player.index != self.me:
                    break  # the searcher's turn is over: the position is judged (_playout)
                labels = decision.labels
                if sure:
                    node.who, node.labels = decision.player.index, labels
                for label in labels:
                    child = node.children.get(label)
                    if child is not None:
                        child.available += 1
                untried = [label for label in labels if label not in node.children]
                if untried:
                    label = untried[self.rng.randrange(len(untried))]
                    child = node.children[label] = Node()
                    child.available = 1
                else:
                    label = self._select(node, labels, decision.player.index)
                    child = node.children[label]
                drawn = world.state.rng
                world.apply(label, atomic=False)  # a world thrown away after the iteration
                sure = sure and world.state.rng == drawn
                taken += 1
                self.taken += 1
                path.append((child, decision.player.index))
                node = child
                if sure and world.over and world.state.unfinished is None:
                    node.proven = self._outcome(world)
                if untried:
                    break
            if rewards is None:
                rewards = self._playout(world, taken)
        except (RulebookError, GameError):
            # A world drawn at random may be one the rules cannot go on from (a secret reset to a
            # value that no longer fits): the iteration counts as the worst outcome for each choice
            # on its way, so that an answer that fails in every world is not tried again and again.
            for child, _ in path:
                child.visits += 1
            self.failed += 1
            return
        for child, who in path:
            child.visits += 1
            child.total += rewards[who]
        if self.exact:
            for parent, _ in reversed([(root, -1), *path[:-1]]):
                if not self._prove(parent):
                    break

    def _prove(self, node: Node) -> bool:
        """Prove `node`'s result from its children's where they decide it; whether it now is proved.

        The player deciding there takes a proved best outcome for itself at once; otherwise the
        node is proved only when every option is, as the best of them for that player."""
        if node.proven is not None:
            return True
        if node.who is None or node.labels is None:
            return False
        who = node.who
        values = [None if child is None else child.proven for child in map(node.children.get, node.labels)]
        won = [value for value in values if value is not None and value[who] >= 1.0]
        if won:
            node.proven = won[0]
        elif values and all(value is not None for value in values):
            node.proven = max(values, key=lambda value: value[who])  # type: ignore[index]
        return node.proven is not None

    def _select(self, node: Node, labels: list[str], who: int) -> str:
        c = self.c
        best, best_value = labels[0], -math.inf
        for label in labels:
            child = node.children[label]
            if child.visits == 0:
                return label
            if child.proven is not None:
                value = child.proven[who]  # known exactly: nothing left to explore
            else:
                value = child.total / child.visits + c * math.sqrt(math.log(max(child.available, 1)) / child.visits)
            if value > best_value:
                best, best_value = label, value
        return best

    def _playout(self, world: Game, taken: int) -> list[float]:
        depth = self.depth if self.cut else None
        greedy = self.agent.playout == "greedy"
        rng = self.rng
        while not world.over:
            if depth is not None and not self.turns and taken >= depth:
                return self._judge(world)
            decision = world.current_decision()
            if decision is None:
                break
            if self.turns:
                assert decision.player is not None
                if decision.player.index != self.me or taken >= TURN_LIMIT:
                    return self._judge(world)
            options = decision.options
            if greedy and decision.player is not None and self.judged:
                label = self._greedy(world, decision)
            else:
                label = options[rng.randrange(len(options))].label
            world.apply(label, atomic=False)
            taken += 1
            self.taken += 1
        return self._outcome(world)

    def _greedy(self, world: Game, decision: Decision) -> str:
        """One ply of the heuristic for the player deciding (ties: at random)."""
        assert decision.player is not None
        who = decision.player
        best: list[str] = []
        best_value = -math.inf
        firsts: dict[str, int] = {}  # each label -> its first option: the one its label answers
        for i, option in enumerate(decision.options):
            trial = world.clone()
            trial.decisions.trial = True  # (judged, then thrown away: its next decision need not be labelled)
            trial.apply(firsts.setdefault(option.label, i), atomic=False)  # by index, as by its label
            if trial.over and trial.state.unfinished is None:
                value = math.inf if who.index in (trial.state.winners or []) else -math.inf
            else:
                value = float(trial.heuristic(who))
            if value > best_value:
                best, best_value = [option.label], value
            elif value == best_value:
                best.append(option.label)
        return best[self.rng.randrange(len(best))] if best else decision.options[0].label

    def _outcome(self, world: Game) -> list[float]:
        state = world.state
        if state.over and state.unfinished is None:
            if state.together is not None:  # a cooperative end: every player won, or every player lost
                return [1.0 if state.together == "won" else 0.0] * self.players
            winners = state.winners or []
            if not winners:
                return [1.0 / self.players] * self.players
            return [1.0 / len(winners) if i in winners else 0.0 for i in range(self.players)]
        if self.judged:
            return self._judge(world)
        return [1.0 / self.players] * self.players

    def _judge(self, world: Game) -> list[float]:
        """Rewards from the heuristic: how far each player is ahead, or (`gain`) above the start."""
        values = [float(world.heuristic(p)) for p in world.players]
        if self.gain:
            # Each player's gains scaled between its own least and greatest so far: one player's
            # large swings do not flatten another's.
            rewards = []
            for i, value in enumerate(values):
                gain = value - self.start[i]
                self.lows[i], self.highs[i] = min(self.lows[i], gain), max(self.highs[i], gain)
                low, high = self.lows[i], self.highs[i]
                rewards.append(0.5 if high <= low else (gain - low) / (high - low))
            return rewards
        diffs = [v - max(values[:i] + values[i + 1 :]) for i, v in enumerate(values)]
        self.low, self.high = min(self.low, *diffs), max(self.high, *diffs)
        if self.high <= self.low:
            return [0.5] * self.players
        return [(d - self.low) / (self.high - self.low) for d in diffs]


def _has_secret(program: Program) -> bool:
    """Whether any statement of the rulebook is a `secret` block."""
    stack: list[Any] = [program.setup, program.play, list(program.procs.values())]
    stack += [list(program.abilities.values()), program.rules]
    while stack:
        node = stack.pop()
        if isinstance(node, s.Secret):
            return True
        if isinstance(node, list | tuple):
            stack.extend(node)
        elif attrs.has(type(node)):
            stack.extend(getattr(node, f.name) for f in attrs.fields(type(node)))
    return False
