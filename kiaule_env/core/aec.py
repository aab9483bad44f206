"""The PettingZoo AEC base shared by the turn-based games (Kozel, Kiauliaganys, Elgeta).

The env is thin glue (``docs/ARCHITECTURE.md``): a game's :class:`~kiaule_env.core.engine.Engine`
owns the rules; this base owns the PettingZoo bookkeeping that must behave the same in every
game: agents and spaces, seeding, reward accumulation, terminations and ``max_cycles``
truncation, ``infos[agent]["result"]`` at the end (RULES §0), illegal-action errors,
``legal_moves``, ``view`` and rendering. The episode's engine state is ``game_state`` (so that
PettingZoo's ``state()`` method is not shadowed).

Conventions every game follows:

* ``observe(agent)`` returns ``{"observation": float32 vector, "action_mask": int8 vector}``; the
  mask is all zeros for an agent who is not to act.
* ``raw_env.step`` raises ``ValueError`` naming the move and the legal ones on an illegal action;
  the wrapped ``env()`` applies PettingZoo's classic convention instead (the offender gets −1,
  the episode ends; see :func:`wrap_classic`).
* ``state()`` is the global state (``state_space``), for centralized critics; see
  :mod:`kiaule_env.core.state`.
* ``max_cycles`` (``None``: off) truncates the episode after ``max_cycles * num_players`` agent
  steps; every game also has its own rule cap with a defined result.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from kiaule_env.core import frames
from kiaule_env.core.engine import Engine, check_action
from kiaule_env.core.options import (
    CheckedKeywords,
    NotResetError,
    check_max_cycles,
    check_option_keys,
    check_render_mode,
    check_seed,
    require_reset,
    seat_of,
)


def moves_nobody(env: AECEnv, action: Any) -> bool:
    """Handle a ``step(action)`` that moves nobody, as PettingZoo's AEC envs do, and say whether
    it was one: after the episode (every agent gone) a warning and nothing else, as
    ``OrderEnforcingWrapper`` gives; for an agent already terminated or truncated, its dead step
    (``_was_dead_step``: the agent leaves, the next one is selected). Every AEC env of the suite
    starts its ``step`` with it."""
    if not env.agents:
        EnvLogger.warn_step_after_terminated_truncated()
        return True
    agent = env.agent_selection
    if env.terminations[agent] or env.truncations[agent]:
        env._was_dead_step(action)
        return True
    return False


class TurnBasedCardEnv(CheckedKeywords, AECEnv):
    """Base class of the turn-based card-game environments; see the module docstring."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human", "rgb_array"],
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        engine: Engine,
        render_mode: str | None = None,
        max_cycles: int | None = None,
    ):
        super().__init__()
        self.render_mode = check_render_mode(render_mode, self.metadata["render_modes"])
        if self.render_mode == "rgb_array":
            frames.require_pillow()  # refused now, naming the extra, rather than at render()
        self.max_cycles = check_max_cycles(max_cycles)
        self.engine = engine
        self.config = engine.config
        self.num_players = engine.num_players
        self.layout = engine.encoder.layout
        self.num_actions = engine.num_actions
        self.option_keys = engine.option_keys
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(self.layout.low, self.layout.high, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(self.num_actions,), dtype=np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = {a: spaces.Discrete(self.num_actions) for a in self.possible_agents}
        #: the global state's layout and space (``state()``; ``kiaule_env.core.state``)
        self.state_layout = engine.state_layout
        self.state_space = spaces.Box(
            self.state_layout.low, self.state_layout.high, dtype=np.float32
        )
        self.np_random: np.random.Generator | None = None
        self.game_state: Any = None
        self._zero_mask = np.zeros(self.num_actions, dtype=np.int8)
        self.agents: list[str] = []

    @property
    def step_limit(self) -> int | None:
        """Agent steps after which ``max_cycles`` truncates the episode (None: never)."""
        return None if self.max_cycles is None else self.max_cycles * self.num_players

    # ------------------------------------------------------------------ PettingZoo API
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        seed = check_seed(seed)
        checked = check_option_keys(options, self.option_keys)
        rng = self.np_random
        if seed is not None or rng is None:
            rng, _ = seeding.np_random(seed)
        # built before anything is assigned: a refused option leaves the env as it was
        state = self.engine.new_episode(rng, checked)
        self.np_random = rng
        self.game_state = state
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._num_steps = 0
        self._refresh()

    def load_state(self, state: Any) -> None:
        """Replace the engine state (tests, search agents) and recompute who acts."""
        self.game_state = state
        self._refresh()

    def _refresh(self) -> None:
        """Recompute who acts and the legal actions after a change of state."""
        self._obs_cache: dict[int, np.ndarray] = {}
        seats = self.engine.to_act(self.game_state)
        if not seats:
            self._seat = -1
            self._legal: Sequence[int] = ()
            self._mask = self._zero_mask
            return
        seat = self._seat = seats[0]
        self.agent_selection = self.possible_agents[seat]
        self._legal = self.engine.legal_actions(self.game_state, seat)
        mask = np.zeros(self.num_actions, dtype=np.int8)
        mask[list(self._legal)] = 1
        self._mask = mask

    def _seat_of(self, agent: Any, what: str) -> int:
        return seat_of(self.agent_name_mapping, self.game_state, agent, what)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat_of(agent, "observe()")
        obs = self._obs_cache.get(seat)
        if obs is None:
            obs = self.engine.observe(self.game_state, seat)
            self._obs_cache[seat] = obs
        mask = self._mask if seat == self._seat else self._zero_mask
        return {"observation": obs, "action_mask": mask.copy()}

    def state(self) -> np.ndarray:
        """The global state (``state_space``; layout ``state_layout``, the games' docs pages):
        who acts, every seat's observation, the face-down order nobody knows. For centralized
        critics (MAPPO); an agent must never see it."""
        require_reset(self.game_state, "state()")
        return self.engine.encode_state(self.game_state)

    def legal_moves(self, agent: str) -> dict[int, str]:
        """Every legal action of ``agent`` mapped to its move text (empty if not his turn, and
        once the episode is over or truncated)."""
        seat = self._seat_of(agent, "legal_moves()")
        if seat != self._seat:
            return {}
        text = self.engine.action_text
        return {a: text(self.game_state, seat, a) for a in self._legal}

    def view(self, agent: str) -> Any:
        """The information set of ``agent``: the game's ``View`` (what an agent may read)."""
        return self.engine.view(self.game_state, self._seat_of(agent, "view()"))

    def last(self, observe: bool = True) -> tuple:
        require_reset(self.game_state, "last()")
        return super().last(observe)

    def step(self, action: Any) -> None:
        require_reset(self.game_state, "step()")
        if moves_nobody(self, action):
            return
        agent = self.agent_selection
        seat = self._seat
        action = check_action(self.engine, self.game_state, seat, action, self._legal)
        deltas = self.engine.apply(self.game_state, (action,))
        self._num_steps += 1
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.infos = {a: {} for a in self.agents}
        for s, delta in enumerate(deltas):
            if delta:
                self.rewards[self.possible_agents[s]] = float(delta)
        extra = self.engine.step_info(self.game_state)
        if extra:
            for a in self.agents:
                self.infos[a].update(extra)
        self._refresh()
        if self._seat < 0:
            result = self.engine.result(self.game_state)
            for a in self.agents:
                self.terminations[a] = True
                self.infos[a]["result"] = result
        elif self.step_limit is not None and self._num_steps >= self.step_limit:
            for a in self.agents:
                self.truncations[a] = True
            self._legal, self._mask = (), self._zero_mask  # nobody acts any more
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def check_invariants(self) -> None:
        """Raise ``AssertionError`` describing any broken engine or env invariant."""
        self.engine.check_invariants(self.game_state)
        seats = self.engine.to_act(self.game_state)
        if seats and self.agent_selection != self.possible_agents[seats[0]]:
            raise AssertionError("stale agent_selection")
        if seats and not list(self._legal):
            raise AssertionError("the agent to act has no legal move")

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
            return frames.draw(self.engine.table(self.game_state))
        text = self._render_table()
        if self.render_mode == "human":
            print(text)  # noqa: T201 - 'human' mode prints by definition
            return None
        return text

    def _render_table(self) -> str:
        """The table as a person standing above it sees it: hidden cards hidden."""
        return self.engine.render(self.game_state)

    def close(self) -> None:
        pass


def _forward_after_reset(name: str) -> property:
    """A property reading ``name`` from the wrapped env, refused before ``reset`` (as
    ``OrderEnforcingWrapper`` does), without the ``__getattr__`` fallback on the hot path."""

    def getter(self: ClassicWrapper) -> Any:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    return property(getter)


class ClassicWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's classic wrapper stack in one layer, with the same behaviour.

    ``texas_holdem_v4.env()`` stacks ``TerminateIllegalWrapper(illegal_reward=-1)``,
    ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper``. Each layer forwards every
    attribute through ``__getattr__``, which cost more than half of a Kozel step; this class does
    the three checks in one ``step`` and reads the hot attributes through properties:

    * an action outside the action space, or a bool, raises ``ValueError`` (PettingZoo's
      ``AssertOutOfBoundsWrapper`` asserts, which ``python -O`` would skip);
    * an illegal action (mask 0) ends the episode for everyone: the offender gets
      ``illegal_reward``, the others 0, and a warning is logged (``TerminateIllegalWrapper``);
    * calls before ``reset`` and steps after the end are refused or warned about
      (``OrderEnforcingWrapper``; ``step`` before ``reset`` raises
      :class:`~kiaule_env.core.options.NotResetError`, as the raw env does), and a refused
      ``reset`` leaves the wrapper as it was (never reset stays never reset).
    """

    agent_selection = _forward_after_reset("agent_selection")
    agents = _forward_after_reset("agents")
    rewards = _forward_after_reset("rewards")
    terminations = _forward_after_reset("terminations")
    truncations = _forward_after_reset("truncations")
    infos = _forward_after_reset("infos")

    def __init__(self, env: AECEnv, illegal_reward: float = -1):
        super().__init__(env)
        self._illegal_value = illegal_reward
        self._terminated_by_illegal = False

    @property
    def _cumulative_rewards(self) -> dict[str, float]:
        return self.env._cumulative_rewards

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Reset the env; a refused ``reset`` (bad seed or option) changes nothing.

        PettingZoo's ``OrderEnforcingWrapper`` marks itself reset before the env accepts the
        call, so after a refused first reset it would act as if reset (``agents`` ``[]``,
        ``step`` a warning); here the wrapper keeps the state it had.
        """
        before = (self._has_reset, self._has_updated, self._terminated_by_illegal)
        try:
            self._terminated_by_illegal = False
            super().reset(seed=seed, options=options)
        except BaseException:
            self._has_reset, self._has_updated, self._terminated_by_illegal = before
            raise

    def state(self) -> np.ndarray:
        """The global state; :class:`~kiaule_env.core.options.NotResetError` before ``reset``
        (PettingZoo's wrapper raises a bare ``AssertionError``)."""
        if not self._has_reset:
            raise NotResetError("state()")
        return self.env.state()

    def step(self, action: Any) -> None:
        if not self._has_reset:  # as the raw env (PettingZoo's wrapper asserts)
            raise NotResetError("step()")
        if not self.env.agents:
            super().step(action)  # OrderEnforcingWrapper's warning
            return
        raw = self.env.unwrapped
        agent = raw.agent_selection
        done = raw.terminations[agent] or raw.truncations[agent]
        if not ((action is None and done) or _in_space(self.env.action_space(agent), action)):
            n = self.env.action_space(agent).n
            raise ValueError(
                f"{agent}: action must be an integer index into Discrete({n}), got {action!r}"
            )
        self._has_updated = True
        if done:
            if self._terminated_by_illegal:
                raw._was_dead_step(action)
            else:
                self.env.step(action)
            return
        mask = self.env.observe(agent)["action_mask"]
        if not mask[action]:
            self._terminate_illegal(raw, agent)
            return
        self.env.step(action)

    def _terminate_illegal(self, raw: AECEnv, agent: str) -> None:
        EnvLogger.warn_on_illegal_move()
        raw._cumulative_rewards[agent] = 0
        raw.terminations = dict.fromkeys(raw.agents, True)
        raw.truncations = dict.fromkeys(raw.agents, True)
        raw.rewards = dict.fromkeys(raw.truncations, 0)
        raw.rewards[agent] = float(self._illegal_value)
        raw._accumulate_rewards()
        raw._deads_step_first()
        self._terminated_by_illegal = True

    def __str__(self) -> str:
        return str(self.env)


def _in_space(space: spaces.Discrete, action: Any) -> bool:
    """``action`` is an integer (not a bool) of the Discrete space."""
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        return False
    return bool(space.contains(action))


def wrap_classic(raw: AECEnv) -> AECEnv:
    """PettingZoo's classic convention for ``env()`` (like ``texas_holdem_v4.env``).

    An illegal action ends the episode with reward −1 for the offender and 0 for the others, an
    index outside the space raises ``ValueError``, and calls out of order raise; see
    :class:`ClassicWrapper`.
    """
    return ClassicWrapper(raw, illegal_reward=-1)
