"""PettingZoo environments of Pig: the native ``ParallelEnv`` and its AEC conversion (P2).

:class:`PigParallelEnv` is thin glue between the rules engine (:mod:`kiaule_env.pig.rules`) and
the encoders (:mod:`kiaule_env.pig.encoding`): one ``step(actions)`` is one simultaneous passing
round (P2), eliminated players leave ``agents`` in the step they are eliminated (P5), and
``infos[agent]["result"]`` holds the outcome at the end (P10). It exposes the same extras as the
turn-based games: ``game_state`` (the engine state), ``state()`` (the global state vector),
``view(agent)``, ``legal_moves(agent)`` and ``check_invariants()``.

:class:`PigAECEnv` is PettingZoo's ``parallel_to_aec`` conversion as a plain ``AECEnv`` with
those extras, so PettingZoo's classic wrappers (``wrap_classic``) and the agents' arena work on
it as on the turn-based games.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import AgentSelector

from kiaule_env.core import frames
from kiaule_env.core.aec import moves_nobody
from kiaule_env.core.engine import check_action
from kiaule_env.core.options import (
    CheckedKeywords,
    check_max_cycles,
    check_option_keys,
    check_render_mode,
    check_seed,
    require_reset,
    rule_keywords,
    seat_of,
)
from kiaule_env.pig import rules
from kiaule_env.pig.display import frame_table, render_table
from kiaule_env.pig.engine import Engine


class PigParallelEnv(CheckedKeywords, ParallelEnv):
    """Pig as a PettingZoo ``ParallelEnv``; keywords as in RULES §3 (see ``kiaule_env.pig_v0``)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "kiaule/pig-v0",
        "render_modes": ["ansi", "human", "rgb_array"],
        "is_parallelizable": True,
        "render_fps": 1,
    }

    @rule_keywords(rules.Config)
    def __init__(
        self, *, render_mode: str | None = None, max_cycles: int | None = None, **options: Any
    ):
        self.engine = Engine(**options)
        self.config = self.engine.config
        self.render_mode = check_render_mode(render_mode, self.metadata["render_modes"])
        if self.render_mode == "rgb_array":
            frames.require_pillow()  # refused now, naming the extra, rather than at render()
        #: parallel steps after which the episode is truncated (``None``: off)
        self.max_cycles = check_max_cycles(max_cycles)
        self.num_players = num_players = self.engine.num_players
        self.encoder = self.engine.encoder
        self.actions = self.engine.codec
        self.layout = self.encoder.layout
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        n_actions = self.engine.num_actions
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(self.layout.low, self.layout.high, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(n_actions,), dtype=np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = {a: spaces.Discrete(n_actions) for a in self.possible_agents}
        #: the global state's layout and space (``state()``; ``kiaule_env.core.state``)
        self.state_layout = self.engine.state_layout
        self.state_space = spaces.Box(
            self.state_layout.low, self.state_layout.high, dtype=np.float32
        )
        self.np_random: np.random.Generator | None = None
        self.game_state: rules.State | None = None
        self.agents: list[str] = []
        self._legal: dict[int, tuple[int, ...]] = {}
        #: legal action tuple -> mask (shared, never handed out: observations get copies)
        self._mask_cache: dict[tuple[int, ...], np.ndarray] = {}
        self._zero_mask = np.zeros(n_actions, dtype=np.int8)

    @property
    def step_limit(self) -> int | None:
        """Parallel steps after which ``max_cycles`` truncates the episode (None: never)."""
        return self.max_cycles

    # ------------------------------------------------------------------ PettingZoo API
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, dict]]:
        seed = check_seed(seed)
        checked = check_option_keys(options, self.engine.option_keys)
        rng = self.np_random
        if seed is not None or rng is None:
            rng, _ = seeding.np_random(seed)
        # built before anything is assigned: a refused option leaves the env as it was
        state = self.engine.new_episode(rng, checked)
        self.np_random = rng
        self.game_state = state
        self.agents = list(self.possible_agents)
        self._num_steps = 0
        self._refresh_legal()
        observations = {a: self._observe(a) for a in self.agents}
        return observations, {a: {} for a in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        require_reset(self.game_state, "step()")
        state = self.game_state
        if not self.agents:
            raise ValueError("step() called on a finished episode; call reset() first")
        joint = self._check_actions(actions)
        deltas = self.engine.apply(state, joint)
        self._num_steps += 1
        live = self.agents
        mapping = self.agent_name_mapping
        rewards = {a: deltas[mapping[a]] for a in live}
        over = self.engine.is_over(state)
        terminations = {a: over or mapping[a] not in state.seats_in for a in live}
        truncated = not over and self.max_cycles is not None and self._num_steps >= self.max_cycles
        truncations = dict.fromkeys(live, truncated)
        infos: dict[str, dict[str, Any]] = {a: {} for a in live}
        extra = self.engine.step_info(state)
        if extra:
            for a in live:
                infos[a].update(extra)
        if over:
            outcome = self.engine.result(state)
            for a in live:
                infos[a]["result"] = outcome
        self.agents = [a for a in live if not (terminations[a] or truncated)]
        self._refresh_legal()
        observations = {a: self._observe(a) for a in live}
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos

    def _check_actions(self, actions: dict[str, Any]) -> list[int]:
        """Actions of the seats to act, in seat order; ``ValueError`` naming a missing, foreign
        or illegal action."""
        if not isinstance(actions, dict):
            raise ValueError(
                f"actions must be a dict agent -> action, got {type(actions).__name__}"
            )
        foreign = [a for a in actions if a not in self.agents]
        if foreign:
            raise ValueError(f"actions for {foreign}, who are not playing; agents: {self.agents}")
        joint = []
        for agent in self.agents:
            if agent not in actions:
                raise ValueError(f"no action for {agent}; every agent in env.agents acts each step")
            joint.append(self.check_action(agent, actions[agent]))
        return joint

    def _seat_of(self, agent: Any, what: str) -> int:
        return seat_of(self.agent_name_mapping, self.game_state, agent, what)

    def check_action(self, agent: str, action: Any) -> int:
        """``agent``'s ``action`` as an int; ``ValueError`` naming it and the legal ones."""
        seat = self._seat_of(agent, "step()")
        return check_action(self.engine, self.game_state, seat, action, self._legal.get(seat, ()))

    def _refresh_legal(self) -> None:
        """Legal action indices of every agent still playing (cached for the step)."""
        state = self.game_state
        legal_actions = self.engine.legal_actions
        cache = self._mask_cache
        self._legal = {}
        self._masks: dict[int, np.ndarray] = {}
        for agent in self.agents:
            seat = self.agent_name_mapping[agent]
            legal = legal_actions(state, seat)
            mask = cache.get(legal)
            if mask is None:
                mask = cache[legal] = np.zeros(self.engine.num_actions, dtype=np.int8)
                mask[list(legal)] = 1
            self._legal[seat] = legal
            self._masks[seat] = mask

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_name_mapping[agent]
        obs = self.engine.observe(self.game_state, seat)
        mask = self._masks.get(seat)
        mask = self._zero_mask if mask is None else mask
        return {"observation": obs, "action_mask": mask.copy()}

    # ------------------------------------------------------------------ extras
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The current observation and mask of ``agent`` (as the last reset/step returned it)."""
        self._seat_of(agent, "observe()")
        return self._observe(agent)

    def state(self) -> np.ndarray:
        """The global state (``state_space``; the state table of docs/games/pig.md): who acts, every
        seat's observation (every hand), the stock and discard order. For centralized critics."""
        require_reset(self.game_state, "state()")
        return self.engine.encode_state(self.game_state)

    def legal_moves(self, agent: str) -> dict[int, str]:
        """Every legal action of ``agent`` this step mapped to its move text (RULES §0)."""
        legal = self._legal.get(self._seat_of(agent, "legal_moves()"), ())
        return {a: self.actions.texts[a] for a in legal}

    def view(self, agent: str) -> rules.PigView:
        """What ``agent`` knows (his information set) as plain data."""
        return self.engine.view(self.game_state, self._seat_of(agent, "view()"))

    def load_state(self, state: rules.State) -> None:
        """Replace the engine state (tests, search agents) and recompute the legal actions."""
        self.game_state = state
        self._refresh_legal()

    def check_invariants(self) -> None:
        """Engine invariants, and the env's agents agreeing with the players still in."""
        state = self.game_state
        rules.check_invariants(state)
        if state.phase != rules.OVER and self.agents:
            if self.agents != [self.possible_agents[s] for s in state.seats_in]:
                raise AssertionError(
                    f"agents {self.agents} differ from the players in {state.seats_in}"
                )
            for agent in self.agents:
                if not self._legal[self.agent_name_mapping[agent]]:
                    raise AssertionError(f"{agent} has no legal move")

    def render(self) -> str | np.ndarray | None:
        """The table: text (``ansi``; printed in ``human`` mode) or, in ``rgb_array`` mode, an
        ``(H, W, 3)`` ``uint8`` image as the omniscient onlooker sees it
        (:mod:`kiaule_env.core.frames`), for recording videos."""
        if self.render_mode is None:
            from gymnasium.logger import warn

            warn("You are calling render method without specifying any render mode.")
            return None
        require_reset(self.game_state, "render()")
        if self.render_mode == "rgb_array":
            return frames.draw(frame_table(self.game_state))
        text = render_table(self.game_state)
        if self.render_mode == "human":
            print(text)  # noqa: T201 - 'human' mode prints by definition
            return None
        return text

    def close(self) -> None:
        pass


class PigAECEnv(AECEnv):
    """Pig as an AEC env: the conversion of PettingZoo's ``parallel_to_aec`` of the parallel env.

    Agents choose one after another in ``player_0 … player_{n-1}`` order (those still in); the
    parallel step runs when the last has chosen, as in
    ``pettingzoo.utils.conversions.parallel_to_aec_wrapper`` (a test checks both give the same
    episode). It is its own class rather than that wrapper so that ``unwrapped`` is a plain
    ``AECEnv`` (PettingZoo's ``api_test`` requires it) on which the classic wrappers
    (``wrap_classic``) work, it raises ``ValueError`` on an illegal action at once instead of
    when the parallel step runs, and in a full game (P5) a player who leaves stays in
    ``agents``, terminated and never selected, until the episode ends (D13): PettingZoo's
    conversion steps him with ``None`` at once, and a library that ends the episode when the
    selected agent is done (Tianshou) then lost the rest of the game and its rewards.
    """

    metadata: ClassVar[dict[str, Any]] = {**PigParallelEnv.metadata, "is_parallelizable": True}

    @rule_keywords(rules.Config)
    def __init__(
        self, *, render_mode: str | None = None, max_cycles: int | None = None, **options: Any
    ):
        super().__init__()
        self.parallel = PigParallelEnv(render_mode=render_mode, max_cycles=max_cycles, **options)
        self.render_mode = self.parallel.render_mode
        self.possible_agents = self.parallel.possible_agents
        self.agent_name_mapping = self.parallel.agent_name_mapping
        self.observation_spaces = self.parallel.observation_spaces
        self.action_spaces = self.parallel.action_spaces
        self.config = self.parallel.config
        self.layout = self.parallel.layout
        self.state_layout = self.parallel.state_layout
        self.state_space = self.parallel.state_space
        self.agents: list[str] = []

    @property
    def game_state(self) -> rules.State | None:  # the engine state, like the turn-based games
        return self.parallel.game_state

    @property
    def engine(self) -> Engine:
        return self.parallel.engine

    @property
    def max_cycles(self) -> int | None:
        return self.parallel.max_cycles

    @max_cycles.setter
    def max_cycles(self, value: int | None) -> None:
        self.parallel.max_cycles = value

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._observations, self.infos = self.parallel.reset(seed=seed, options=options)
        self.agents = self.parallel.agents[:]
        self._actions: dict[str, int] = {}
        self._agent_selector = AgentSelector(self.agents)
        self.agent_selection = self._agent_selector.reset()
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._skip_agent_selection = None

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The agent's observation of the current simultaneous step; its mask is non-zero while
        the agent has a move to make in that step (also before its turn in the AEC order), as
        ``legal_moves`` says."""
        seat_of(self.agent_name_mapping, self.game_state, agent, "observe()")
        obs = self._observations[agent]
        return {"observation": obs["observation"], "action_mask": obs["action_mask"].copy()}

    def last(self, observe: bool = True) -> tuple:
        require_reset(self.game_state, "last()")
        return super().last(observe)

    def step(self, action: Any) -> None:
        require_reset(self.game_state, "step()")
        if moves_nobody(self, action):
            return
        agent = self.agent_selection
        self.parallel.check_action(agent, action)  # raises at once, naming the legal moves
        self._actions[agent] = int(action)
        if not self._agent_selector.is_last():
            if self._agent_selector.is_first():
                self._clear_rewards()
            self.agent_selection = self._agent_selector.next()
            return
        observations, rewards, terminations, truncations, infos = self.parallel.step(self._actions)
        self._actions = {}
        # an agent out of the game keeps its last observation, with nothing left to do
        kept = {
            agent: {"observation": obs["observation"], "action_mask": obs["action_mask"] * 0}
            for agent, obs in self._observations.items()
            if agent not in observations
        }
        self._observations = {**kept, **observations}
        self._settle_step(observations, rewards, terminations, truncations, infos)

    def _settle_step(
        self,
        observations: dict[str, Any],
        rewards: dict[str, float],
        terminations: dict[str, bool],
        truncations: dict[str, bool],
        infos: dict[str, dict[str, Any]],
    ) -> None:
        """The AEC bookkeeping after a parallel step (D13).

        The agents who played the step get its rewards, terminations, truncations and infos.
        Agents who left in earlier steps (P5) stay in ``agents``, terminated, with reward 0, the
        step's public info and their cumulative reward kept; nobody who left is selected until
        the episode is over, when every agent is stepped with ``None`` in seat order. So a
        library that reads ``env.rewards`` after every step and ends the episode when the
        selected agent is done (Tianshou's ``PettingZooEnv``) sees every reward of a full game.
        """
        gone = [a for a in self.agents if a not in observations]  # left in an earlier step
        shared = next(iter(infos.values()), {})  # step_info and result: the same for everyone
        self.terminations = {**dict.fromkeys(gone, True), **terminations}
        self.truncations = {**dict.fromkeys(gone, False), **truncations}
        self.infos = {**{a: dict(shared) for a in gone}, **infos}
        self.rewards = {**dict.fromkeys(gone, 0.0), **rewards}
        self._cumulative_rewards = {
            **{a: self._cumulative_rewards[a] for a in gone},
            **rewards,  # everyone else acted in the step: their earlier reward was read
        }
        live = self.parallel.agents
        out = [a for a in self.possible_agents if a in self.terminations and a not in live]
        self.agents = live + out
        if live:
            self._agent_selector = AgentSelector(live)
            self.agent_selection = self._agent_selector.reset()
        else:  # the episode is over: every agent is stepped with None, in seat order
            self._deads_step_first()

    def legal_moves(self, agent: str) -> dict[int, str]:
        """Legal actions of ``agent`` in the current simultaneous step with their texts: the
        moves its observation's mask allows (empty once it is out, or the episode is over)."""
        seat_of(self.agent_name_mapping, self.game_state, agent, "legal_moves()")
        if self.terminations.get(agent, True) or self.truncations.get(agent, True):
            return {}
        return self.parallel.legal_moves(agent)

    def view(self, agent: str) -> rules.PigView:
        return self.parallel.view(agent)

    def state(self) -> np.ndarray:
        """The global state of the parallel env (``state_space``)."""
        return self.parallel.state()

    def check_invariants(self) -> None:
        self.parallel.check_invariants()

    def render(self) -> str | np.ndarray | None:
        return self.parallel.render()

    def close(self) -> None:
        self.parallel.close()
