"""Any rulebook as an OpenSpiel game (`pip install -e '.[openspiel]'`; docs/OPENSPIEL.md).

    import pyspiel
    import rulecraft.openspiel  # registers the game "rulecraft"
    game = pyspiel.load_game("rulecraft", {"rulebook": "examples/games/kuhn_poker.rules", "returns": "score"})

The game is registered with OpenSpiel as a Python game, so OpenSpiel's algorithms (CFR,
exploitability, MCTS, minimax, ...) run on it as on OpenSpiel's own Python games:

- **Chance** is explicit by default: a draw from a shuffled zone, or a choice `by table`, is a
  chance node whose outcomes are the decision's options, each with its probability (the share of
  the cards of that label, as OpenSpiel's card games give). With `chance="sampled"` the seed
  answers chance inside the game instead (OpenSpiel's sampled stochastic mode).
- **Actions**: action i answers the pending decision with its i-th option, in the order the rules
  list them (as `rulecraft.env` maps them); `num_distinct_actions` is `max_actions`.
- **Returns** at the end: with `returns="win"` (the default) the winners share +1 and the other
  players share -1, and a game nobody or everybody wins is 0 for all (zero-sum); with
  `returns="score"` each player's score as the rulebook counts it. A solo game is +1 won, -1 lost,
  and so is a cooperative end (`end game together won`/`lost`) for every player alike (a rulebook
  that can end so is general-sum, not zero-sum).
- **Information**: a player's information state is the trace as that player may see it (what
  `rulecraft replay --as P2` shows) and their view; the observation is the view alone. Tensors
  are those texts' features hashed into `features` numbers (rulecraft/features.py).
- `str(state)` is the whole state (every zone and variable, hidden ones too) and the pending
  decision; a state is cloned with `Game.clone` and serialised, as OpenSpiel's Python games are,
  by its history of actions.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pyspiel

from .check.reach import nodes
from .errors import GameError
from .features import hashed, relative_seats, view_features
from .language.values import Player
from .render import trace_lines
from .rulebook import Rulebook, load
from .runtime.game import Game
from .syntax import ast as s

SHORT_NAME = "rulecraft"

# Every parameter and its default. `players` 0 is the rulebook's fewest; `seed` answers chance in
# the sampled mode only (the explicit mode's games differ only by the chance outcomes chosen).
DEFAULTS: dict[str, Any] = {
    "rulebook": "",
    "players": 0,
    "chance": "explicit",
    "seed": 0,
    "returns": "win",
    "max_actions": 512,
    "max_game_length": 10_000,
    "features": 256,
    "min_utility": -1000.0,
    "max_utility": 1000.0,
}

_GameType = pyspiel.GameType


def _game_type(
    program: Any = None,
    *,
    chance: str = "explicit",
    perfect: bool = False,
    deterministic: bool = False,
    zero_sum: bool = False,
) -> pyspiel.GameType:
    if deterministic:
        chance_mode = _GameType.ChanceMode.DETERMINISTIC
    elif chance == "sampled":
        chance_mode = _GameType.ChanceMode.SAMPLED_STOCHASTIC
    else:
        chance_mode = _GameType.ChanceMode.EXPLICIT_STOCHASTIC
    return _GameType(
        short_name=SHORT_NAME,
        long_name=f"rulecraft: {program.name}" if program is not None else "rulecraft rulebook",
        dynamics=_GameType.Dynamics.SEQUENTIAL,
        chance_mode=chance_mode,
        information=(
            _GameType.Information.PERFECT_INFORMATION if perfect else _GameType.Information.IMPERFECT_INFORMATION
        ),
        utility=_GameType.Utility.ZERO_SUM if zero_sum else _GameType.Utility.GENERAL_SUM,
        reward_model=_GameType.RewardModel.TERMINAL,
        max_num_players=program.max_players if program is not None else 100,
        min_num_players=program.min_players if program is not None else 1,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=DEFAULTS,
    )


def _program_nodes(program: Any) -> Any:
    for group in (program.fns, program.procs, program.abilities, program.consts):
        yield from nodes(tuple(group.values()))
    yield from nodes((tuple(program.rules), tuple(program.setup), program.play))


def information_of(program: Any) -> tuple[bool, bool]:
    """(perfect, deterministic): whether every player sees everything (no zone or variable but
    public ones, no `secret`), and whether nothing is left to chance (no shuffled zone, no
    choice `by table`)."""
    shuffled = any(z.shuffled for z in program.zones.values())
    public = all(z.visibility == "public" for z in program.zones.values()) and all(
        v.visibility == "public" for v in program.vars.values()
    )
    secret = table = False
    for node in _program_nodes(program):
        if isinstance(node, s.Secret):
            secret = True
        elif isinstance(node, s.Name) and node.id == "table":
            table = True
    return public and not secret, not shuffled and not table


class RulecraftGame(pyspiel.Game):
    """A rulebook's game as an OpenSpiel game (see the module's docstring for the parameters)."""

    def __init__(self, params: dict[str, Any] | None = None):
        params = {**DEFAULTS, **(params or {})}
        unknown = set(params) - set(DEFAULTS)
        if unknown:
            raise GameError(f"rulecraft's OpenSpiel game has no parameter {', '.join(sorted(unknown))}")
        if not params["rulebook"]:
            raise GameError('name the rulebook: pyspiel.load_game("rulecraft", {"rulebook": "path/to/game.rules"})')
        if params["chance"] not in ("explicit", "sampled"):
            raise GameError(f"chance is 'explicit' or 'sampled', not {params['chance']!r}")
        if params["returns"] not in ("win", "score"):
            raise GameError(f"returns is 'win' or 'score', not {params['returns']!r}")
        self.rulebook: Rulebook = load(params["rulebook"])
        program = self.rulebook.program
        players = params["players"] or program.min_players
        if not program.min_players <= players <= program.max_players:
            raise GameError(
                f"{program.name} is played by {program.min_players} to {program.max_players} players, not {players}"
            )
        self.players = players
        self.explicit = params["chance"] == "explicit"
        self.seed = int(params["seed"])
        self.by_score = params["returns"] == "score"
        self.max_actions = int(params["max_actions"])
        self.features = int(params["features"])
        perfect, deterministic = information_of(program)
        win = not self.by_score
        # By winners, two players or more share +1 and -1 (zero-sum); a solo game is +1 or -1, and
        # so is a cooperative end for every player (a rulebook that has one is not zero-sum).
        zero_sum = win and players > 1 and not any(isinstance(node, s.EndTogether) for node in _program_nodes(program))
        game_type = _game_type(
            program, chance=params["chance"], perfect=perfect, deterministic=deterministic, zero_sum=zero_sum
        )
        info = pyspiel.GameInfo(
            num_distinct_actions=self.max_actions,
            max_chance_outcomes=self.max_actions if self.explicit and not deterministic else 0,
            num_players=players,
            min_utility=-1.0 if win else float(params["min_utility"]),
            max_utility=1.0 if win else float(params["max_utility"]),
            utility_sum=0.0 if zero_sum else None,
            max_game_length=int(params["max_game_length"]),
        )
        super().__init__(game_type, info, params)

    def new_initial_state(self) -> RulecraftState:
        return RulecraftState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> RulecraftObserver:
        if params:
            raise ValueError(f"rulecraft's observer takes no parameters, not {params}")
        recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return RulecraftObserver(self, recall)


class _Play:
    """A rulecraft game and the OpenSpiel game it is played in: what a state's `__dict__` holds.

    OpenSpiel clones a Python state by deep-copying its `__dict__`, and pickles (serialises) it
    likewise: a copy here is the game's own clone (a copy of its data, the rulebook shared), and
    a pickle is the game's parameters and its answers, replayed when it is read."""

    def __init__(self, spec: RulecraftGame, game: Game):
        self.spec = spec
        self.game = game

    def __deepcopy__(self, memo: dict[int, Any]) -> _Play:
        return _Play(self.spec, self.game.clone(trace=True))

    def __reduce__(self) -> tuple[Any, ...]:
        return _replayed, (self.spec.get_parameters(), [label for _, label in self.game.answers])


def _replayed(params: dict[str, Any], labels: list[str]) -> _Play:
    spec = pyspiel.load_game(SHORT_NAME, params)
    play = _Play(spec, _new_game(spec))
    for label in labels:
        play.game.apply(label)
    return play


def _new_game(spec: RulecraftGame) -> Game:
    # The explicit mode asks the table (seed None); the sampled one lets the seed answer.
    return spec.rulebook.new_game(players=spec.players, seed=None if spec.explicit else spec.seed, ask_forced=True)


class RulecraftState(pyspiel.State):
    """A game in progress: a rulecraft `Game`, answered by action ids."""

    def __init__(self, game: RulecraftGame):
        super().__init__(game)
        self.play = _Play(game, _new_game(game))

    @property
    def game(self) -> Game:
        """The rulecraft game this state plays."""
        return self.play.game

    @property
    def spec(self) -> RulecraftGame:
        """The OpenSpiel game (its parameters)."""
        return self.play.spec

    # ------------------------------------------------------------ the OpenSpiel API

    def current_player(self) -> int:
        game = self.game
        if game.over:
            return int(pyspiel.PlayerId.TERMINAL)
        decision = game.current_decision()
        if decision is None:
            raise GameError("the game waits on no decision and is not over")
        return int(pyspiel.PlayerId.CHANCE) if decision.player is None else decision.player.index

    def _options(self) -> int:
        decision = self.game.current_decision()
        if decision is None:
            return 0
        n = len(decision.options)
        if n > self.spec.max_actions:
            raise GameError(
                f"{decision.by}'s decision has {n} options, more than this game's action space "
                f"({self.spec.max_actions}): load it with max_actions={n} or more"
            )
        return n

    def _legal_actions(self, player: int) -> list[int]:
        return list(range(self._options()))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        decision = self.game.current_decision()
        assert decision is not None and decision.player is None
        n = self._options()
        weights = decision.chance_weights or (1,) * n
        total = sum(weights)
        return [(i, w / total) for i, w in enumerate(weights)]

    def _apply_action(self, action: int) -> None:
        # Not all or nothing: OpenSpiel offers legal actions only, and a rulebook's error stops the
        # algorithm anyway (the game's own bookkeeping for putting itself back is a fifth of a step).
        self.game.apply(int(action), atomic=False)

    def _action_to_string(self, player: int, action: int) -> str:
        decision = self.game.current_decision()
        if decision is not None and 0 <= action < len(decision.options):
            return decision.options[action].label
        return f"action {action}"

    def is_terminal(self) -> bool:
        return self.game.over

    def returns(self) -> list[float]:
        game = self.game
        n = self.spec.players
        if not game.over:
            return [0.0] * n
        if self.spec.by_score:
            return [float(game.score(Player(i)) or 0) for i in range(n)]
        winners = set(game.state.winners or [])
        if game.state.together is not None:  # the players won or lost together: one return for all
            return [1.0 if game.state.together == "won" else -1.0] * n
        if n == 1:  # a solo game is won or lost
            return [1.0 if winners else -1.0]
        if not winners or len(winners) == n:
            return [0.0] * n
        return [1.0 / len(winners) if i in winners else -1.0 / (n - len(winners)) for i in range(n)]

    def __str__(self) -> str:
        game = self.game
        state = game.rulebook.converter.unstructure(game.state)
        decision = game.current_decision()
        pending = None if decision is None else [decision.by, decision.prompt, decision.labels]
        return json.dumps({"state": state, "pending": pending}, sort_keys=True, ensure_ascii=False)

    # ------------------------------------------------------------ what a player knows

    def information_text(self, player: int) -> str:
        """What `player` knows: the trace as they may see it, and their view."""
        who = Player(player)
        lines = trace_lines(self.game, viewer=who)
        return "\n".join([*lines, self.observation_text(player)])

    def observation_text(self, player: int) -> str:
        """What `player` sees now: their view, seats named from their side."""
        view = self.game.view(Player(player))
        text = json.dumps(view, sort_keys=True, ensure_ascii=False)
        return relative_seats(text, player, self.spec.players)


class RulecraftObserver:
    """OpenSpiel's Python observer: the information state (perfect recall) or the observation."""

    def __init__(self, game: RulecraftGame, recall: bool):
        self.recall = recall
        self.tensor = np.zeros(game.features, np.float32)
        self.dict = {"features": self.tensor}

    def set_from(self, state: RulecraftState, player: int) -> None:
        self.tensor.fill(0)
        view = state.game.view(Player(player))
        features = list(view_features(view, player, state.spec.players))
        if self.recall:
            features += [(f"trace|{line}", 1.0) for line in trace_lines(state.game, viewer=Player(player))]
        hashed(features, self.tensor)

    def string_from(self, state: RulecraftState, player: int) -> str:
        return state.information_text(player) if self.recall else state.observation_text(player)


pyspiel.register_game(_game_type(), RulecraftGame)

__all__ = ["DEFAULTS", "SHORT_NAME", "RulecraftGame", "RulecraftObserver", "RulecraftState", "information_of"]
