"""Any rulebook as a PettingZoo AEC environment, for learning agents (`pip install -e '.[rl]'`).

    from rulecraft.env import RulecraftEnv
    env = RulecraftEnv("path/to/game.rules", players=2)
    env.reset(seed=1)
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else env.action_space(agent).sample(observation["action_mask"])
        env.step(action)

- **Agents** are `player_0` .. `player_{n-1}`: seat P1 is `player_0`. The agent selected is the
  player the game waits on; the table's chance is drawn by the game's seeded generator, so the
  environment never selects it.
- **Actions**: `Discrete(max_options)` (default 512). Action i answers the pending decision with
  its i-th option, in the order the rules list them; `info["labels"]` names them, and the mask
  `observation["action_mask"]` has a 1 for each of them. A decision with more options than
  `max_options` stops the game with an error that says so (make the environment with more).
- **Observations**: `{"observation": float32[features], "action_mask": int8[max_options]}`. The
  vector is the player's view (`Game.view`) hashed into `features` (default 256) buckets: one
  count per (zone, card label) the player sees, the size of every zone, the top of a `top` pile,
  each visible variable (a number adds its value, any other value counts 1 for (variable, value)),
  and the prompt of the player's pending decision. Seats are named relative to the player (`me`,
  `+1`, `+2`: the next players in seat order), so one policy can play every seat. Buckets are
  CRC-32 of the feature's text modulo `features`: the same on every machine, with collisions.
  `info["view"]` is the labelled view itself (JSON-ready), for agents that read it directly.
- **Rewards** come at the end: +1 shared among the winners, -1 to each other player; a draw (no
  winner) is 0 for everyone. A cooperative end gives every player the same: +1 each when they win
  together (`end game together won`), -1 each when they lose together. A game a guard stops
  (`end game unfinished`) *truncates* every agent, with reward 0; a finished game *terminates* them.
- **Seeding**: `reset(seed=s)` plays the game of seed s; `reset()` after it takes the next seed
  from a generator seeded by s, so a sequence of resets replays too.
"""

from __future__ import annotations

import random
from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv

from .errors import GameError
from .features import hashed, view_features
from .language.values import Player
from .rulebook import Rulebook, load
from .runtime.game import Game


class RulecraftEnv(AECEnv):
    """A rulebook's game as a PettingZoo AEC environment (see the module's docstring)."""

    metadata = {"name": "rulecraft_v0", "render_modes": ["ansi"], "is_parallelizable": False}  # noqa: RUF012

    def __init__(
        self,
        rulebook: str | Rulebook,
        players: int | None = None,
        *,
        max_options: int = 512,
        features: int = 256,
        render_mode: str | None = None,
    ):
        super().__init__()
        self.rulebook = load(rulebook) if isinstance(rulebook, str) else rulebook
        program = self.rulebook.program
        self.players = players or program.min_players
        if not program.min_players <= self.players <= program.max_players:
            raise GameError(
                f"{program.name} is played by {program.min_players} to {program.max_players} players, "
                f"not {self.players}"
            )
        if render_mode not in (None, "ansi"):
            raise GameError(f"render_mode must be 'ansi' or None, not {render_mode!r}")
        self.render_mode = render_mode
        self.max_options, self.features = max_options, features
        self.possible_agents = [f"player_{i}" for i in range(self.players)]
        self._observation_space = gymnasium.spaces.Dict(
            {
                "observation": gymnasium.spaces.Box(-np.inf, np.inf, (features,), np.float32),
                "action_mask": gymnasium.spaces.Box(0, 1, (max_options,), np.int8),
            }
        )
        self._action_space = gymnasium.spaces.Discrete(max_options)
        self._seeds = random.Random()
        self.game: Game | None = None

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self._action_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._seeds.seed(seed)
            game_seed = seed
        else:
            game_seed = self._seeds.getrandbits(64)
        self.game = self.rulebook.new_game(players=self.players, seed=game_seed, trace=False)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self._next()

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self._game()
        decision = game.current_decision()
        assert decision is not None
        index = int(action)
        if not 0 <= index < len(decision.options):
            raise GameError(f"action {index} is not an option of {agent}'s decision: it has {len(decision.options)}")
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        game.apply(index)
        self._next()
        self._accumulate_rewards()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        game = self._game()
        me = self.possible_agents.index(agent)
        mask = np.zeros(self.max_options, np.int8)
        decision = game.current_decision()
        if decision is not None and decision.player is not None and decision.player.index == me:
            mask[: len(decision.options)] = 1
        return {"observation": self._encode(game.view(Player(me)), me), "action_mask": mask}

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.game is None:
            return None
        from .render import view_text

        return view_text(self.game, None)

    def close(self) -> None:
        self.game = None

    # ---------------------------------------------------------------- inside

    def _game(self) -> Game:
        if self.game is None:
            raise GameError("the environment has no game: call reset() first")
        return self.game

    def _next(self) -> None:
        """Select the agent the game waits on, or end every agent's game."""
        game = self._game()
        if game.over:
            state = game.state
            winners = state.winners or []
            for i, agent in enumerate(self.possible_agents):
                if state.unfinished is not None:
                    self.truncations[agent] = True
                else:
                    self.terminations[agent] = True
                    if state.together is not None:  # one result for all the players
                        self.rewards[agent] = 1.0 if state.together == "won" else -1.0
                    elif winners:
                        self.rewards[agent] = 1.0 / len(winners) if i in winners else -1.0
                self.infos[agent] = {"view": game.view(Player(i)), "labels": []}
            self.agent_selection = self.agents[0]
            return
        decision = game.current_decision()
        assert decision is not None and decision.player is not None  # a seeded game draws chance itself
        if len(decision.options) > self.max_options:
            raise GameError(
                f"{decision.by}'s decision has {len(decision.options)} options, more than this environment's "
                f"action space ({self.max_options}): make it with max_options={len(decision.options)} or more"
            )
        for agent in self.agents:
            self.infos[agent] = {}
        self.agent_selection = self.possible_agents[decision.player.index]
        self.infos[self.agent_selection] = {"view": game.view(decision.player), "labels": decision.labels}

    def _encode(self, view: dict[str, Any], me: int) -> np.ndarray:
        """The view hashed into a vector of `features` numbers (see the module's docstring)."""
        return hashed(view_features(view, me, self.players), np.zeros(self.features, np.float32))
