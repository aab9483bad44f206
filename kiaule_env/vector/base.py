"""The batch owner shared by every game's compiled batched env: seeds, checks, auto-reset.

A game's batched implementation (``kiaule_env/<game>/vector.py``, named by its descriptor's
``vector`` field) holds the compiled state of ``num_envs`` games and their observation buffers
(:class:`VectorGame`); :class:`VectorEnv` wraps it with everything that must behave the same in
every game:

* **seeds**: a numpy ``Generator`` built from the batch seed draws each episode's seed, an
  int64 in ``[0, 2**63)``: the first ``num_envs`` draws are the slots' first episodes in slot
  order, later episodes take the next draws, finished slots in ascending slot order.
  ``info["seed"][i]`` is slot ``i``'s current episode seed, and
  ``<game>_v0.raw_env(**options).reset(seed=info["seed"][i])`` deals the same game;
* **action checks**: ``actions`` must be an integer array of shape ``(num_envs,)``; an illegal
  action raises ``ValueError`` naming the slot, the seat, the action and the legal ones, and
  changes no slot (every slot is checked before any moves);
* **truncation** by ``max_cycles`` exactly as the Python env does it: after
  ``max_cycles * num_players`` agent steps (turn-based games, ``kiaule_env.core.aec``), or after
  ``max_cycles`` simultaneous steps where the game counts them (Pig's ``parallel_steps``);
* **auto-reset**: a slot whose episode ended (``terminated`` or ``truncated``) starts its next
  episode in the same call; ``obs`` and ``info`` then describe the new episode and
  ``info["final_result"][i]`` holds the finished episode's result dict (the Python env's
  ``infos[agent]["result"]``; None for a truncated episode, which has no result, and for slots
  that did not finish).

``get_state()`` / ``set_state(state)`` save and restore the whole batch as data (JSON values and
numpy arrays, nothing pickled), generically over the implementation's attributes: its numpy
arrays, generators and plain scalars, with the batch's own seeder, seeds and step counts. A
training run's checkpoint uses them to resume exactly.

The observation and mask arrays returned are the game's own buffers, rewritten in place by the
next ``step`` or ``reset``: copy them to keep them. Rewards, terminations, truncations and infos
are new arrays each call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import numpy as np
from gymnasium import spaces

from kiaule_env.core.options import check_max_cycles, check_seed
from kiaule_env.vector.kernels import kernel_decorator

#: episode seeds are drawn in [0, SEED_BOUND)
SEED_BOUND = 2**63

#: the format of :meth:`VectorEnv.get_state`'s data
VECTOR_STATE_FORMAT = 1

_SCALARS = (bool, int, float, str)


def attribute_state(obj: Any) -> dict[str, Any]:
    """``obj``'s numpy arrays, generators and plain scalars as ``{"data", "arrays"}``: the
    scalars and generator states are JSON values, the arrays numpy arrays (copied)."""
    data: dict[str, Any] = {"scalars": {}, "generators": {}}
    arrays: dict[str, np.ndarray] = {}
    for name, value in vars(obj).items():
        if isinstance(value, np.ndarray) and value.dtype != object:
            arrays[name] = value.copy()
        elif isinstance(value, np.random.Generator):
            data["generators"][name] = value.bit_generator.state
        elif isinstance(value, _SCALARS):
            data["scalars"][name] = value
    return {"data": data, "arrays": arrays}


def set_attribute_state(obj: Any, state: Mapping[str, Any], where: str) -> None:
    """Put :func:`attribute_state`'s ``state`` back into ``obj``. An array of the same shape and
    type is written in place (whoever holds it sees the new values), another one replaces the
    attribute (a buffer that grew). ``ValueError`` naming ``where`` for an attribute ``obj``
    does not have or of another kind."""
    data, arrays = state["data"], state["arrays"]
    for name, value in arrays.items():
        current = getattr(obj, name, None)
        if not isinstance(current, np.ndarray):
            raise ValueError(f"{where} has no array {name!r} to restore")
        value = np.asarray(value)
        if current.shape == value.shape and current.dtype == value.dtype:
            current[...] = value
        else:
            setattr(obj, name, value.astype(current.dtype, copy=True))
    for name, value in data["generators"].items():
        current = getattr(obj, name, None)
        if not isinstance(current, np.random.Generator):
            raise ValueError(f"{where} has no generator {name!r} to restore")
        current.bit_generator.state = value
    for name, value in data["scalars"].items():
        if not isinstance(getattr(obj, name, None), _SCALARS):
            raise ValueError(f"{where} has no value {name!r} to restore")
        setattr(obj, name, value)


class VectorGame(Protocol):
    """What a game's batched implementation provides (``docs/vector.md``)."""

    num_players: int
    obs_size: int
    num_actions: int
    #: float32 (num_envs, obs_size): each slot's observation of the seat to act
    obs: np.ndarray
    #: int8 (num_envs, num_actions): that seat's legal actions
    mask: np.ndarray
    #: int64 (num_envs,): the seat to act in each slot
    agent: np.ndarray

    def reset_slots(self, slots: np.ndarray, seeds: np.ndarray) -> None: ...

    def step(self, actions: np.ndarray, rewards: np.ndarray, terminated: np.ndarray) -> None: ...

    def results(self, slots: np.ndarray) -> list[dict[str, Any]]: ...

    def load_state(self, slot: int, state: Any) -> None: ...

    def state_bytes(self) -> int: ...


class VectorEnv:
    """``num_envs`` games of one kind stepped at once; see the module docstring.

    Built by :func:`kiaule_env.vector.make`. ``single_observation_space`` and
    ``single_action_space`` are one slot's spaces, the same as the Python env's.
    """

    def __init__(
        self,
        game: Any,
        impl: VectorGame,
        num_envs: int,
        seed: int | None = None,
        max_cycles: int | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        self.game = game
        self.impl = impl
        self.num_envs = num_envs
        self.options = dict(options or {})
        self.max_cycles = check_max_cycles(max_cycles)
        self.num_players = int(impl.num_players)
        self.num_actions = int(impl.num_actions)
        self.obs_size = int(impl.obs_size)
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        layout = game.observation_layout(**self.options)
        self.single_observation_space = spaces.Dict(
            {
                "observation": spaces.Box(layout.low, layout.high, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(self.num_actions,), dtype=np.int8),
            }
        )
        self.single_action_space = spaces.Discrete(self.num_actions)
        self._seeder = np.random.default_rng(check_seed(seed))
        self._seeds = np.zeros(num_envs, np.int64)
        self._steps = np.zeros(num_envs, np.int64)
        self._all = np.arange(num_envs, dtype=np.int64)
        self._obs = {"observation": impl.obs, "action_mask": impl.mask}
        self._started = False

    # ------------------------------------------------------------------ API
    @property
    def step_limit(self) -> int | None:
        """The count after which ``max_cycles`` truncates an episode (None: never): agent steps
        (``max_cycles * num_players``), or simultaneous steps where the game counts them."""
        if self.max_cycles is None:
            return None
        if self._parallel_steps() is not None:
            return self.max_cycles
        return self.max_cycles * self.num_players

    def reset(self, seed: int | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """New episodes in every slot; ``seed`` (when given) re-seeds the batch first."""
        if seed is not None:
            self._seeder = np.random.default_rng(check_seed(seed))
        self._start(self._all)
        self._started = True
        return self._obs, self._info(np.empty(self.num_envs, dtype=object))

    def step(
        self, actions: Any, active: np.ndarray | None = None
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One action per slot, for the seat to act there; see the module docstring.

        ``active`` (bool ``(num_envs,)``, optional): only these slots move; the others keep
        their state and observation, get zero rewards and neither end nor count a step (their
        entries of ``actions`` are ignored). The single-learner view uses it to let opponents
        move while the learner's slots wait.
        """
        if not self._started:
            raise RuntimeError("step() called before reset(); call venv.reset(seed=...) first")
        active = self._check_active(active)
        actions = self._check_actions(actions, active)
        rewards = np.zeros((self.num_envs, self.num_players), np.float32)
        terminated = np.zeros(self.num_envs, np.bool_)
        if active is None:
            self.impl.step(actions, rewards, terminated)
        else:
            self._step_some(actions, active, rewards, terminated)
        truncated = self._truncated(terminated, active)
        final = np.empty(self.num_envs, dtype=object)
        ended = terminated | truncated
        if ended.any():
            done = np.flatnonzero(terminated)
            if done.size:
                for slot, result in zip(done, self.impl.results(done), strict=True):
                    final[slot] = result
            self._start(np.flatnonzero(ended))
        return self._obs, rewards, terminated, truncated, self._info(final)

    def state_bytes(self) -> int:
        """Bytes of compiled game state per slot (besides the observation buffers)."""
        return int(self.impl.state_bytes())

    def close(self) -> None:
        """Nothing to release (kept for the Gymnasium / SB3 conventions)."""

    def get_state(self) -> dict[str, Any]:
        """The whole batch as data: ``{"data": JSON values, "arrays": {name: ndarray}}`` (the
        implementation's arrays under ``impl/``, the batch's seeds and step counts)."""
        impl = attribute_state(self.impl)
        arrays = {f"impl/{name}": value for name, value in impl["arrays"].items()}
        arrays["seeds"], arrays["steps"] = self._seeds.copy(), self._steps.copy()
        data = {
            "format": VECTOR_STATE_FORMAT,
            "game": self.game.name,
            "num_envs": self.num_envs,
            "seeder": self._seeder.bit_generator.state,
            "started": self._started,
            "impl": impl["data"],
        }
        return {"data": data, "arrays": arrays}

    def set_state(self, state: Mapping[str, Any]) -> None:
        """Become the batch :meth:`get_state` described; ``ValueError`` if it is not such a
        state or is another game's or batch size's."""
        try:
            data, arrays = state["data"], state["arrays"]
            if data.get("format") != VECTOR_STATE_FORMAT:
                raise ValueError(f"format {data.get('format')!r}, not {VECTOR_STATE_FORMAT}")
            if data["game"] != self.game.name or data["num_envs"] != self.num_envs:
                raise ValueError(
                    f"it is a batch of {data['num_envs']} {data['game']} games, this one of "
                    f"{self.num_envs} {self.game.name} games"
                )
            impl = {k.removeprefix("impl/"): v for k, v in arrays.items() if k.startswith("impl/")}
            for name in ("obs", "mask"):
                if np.shape(impl[name]) != getattr(self.impl, name).shape:
                    raise ValueError(f"its {name} buffer has another shape (other options)")
            set_attribute_state(self.impl, {"data": data["impl"], "arrays": impl}, "the batch")
            self._seeder.bit_generator.state = data["seeder"]
            self._seeds[...] = arrays["seeds"]
            self._steps[...] = arrays["steps"]
            self._started = bool(data["started"])
        except (KeyError, TypeError, AttributeError, IndexError) as exc:
            raise ValueError(f"not a batched env state ({type(exc).__name__}: {exc})") from None
        except ValueError as exc:
            raise ValueError(f"not a state of this batched env: {exc}") from None
        self._obs = {"observation": self.impl.obs, "action_mask": self.impl.mask}

    # ------------------------------------------------------------------ internals
    def _start(self, slots: np.ndarray) -> None:
        """New episodes in ``slots`` (ascending), with the next seeds of the batch generator."""
        seeds = self._seeder.integers(0, SEED_BOUND, size=slots.size, dtype=np.int64)
        self._seeds[slots] = seeds
        self._steps[slots] = 0
        self.impl.reset_slots(slots, seeds)

    def _info(self, final: np.ndarray) -> dict[str, Any]:
        return {"agent": self.impl.agent.copy(), "seed": self._seeds.copy(), "final_result": final}

    def _parallel_steps(self) -> np.ndarray | None:
        """The game's count of simultaneous steps per slot, if it has one (Pig)."""
        return getattr(self.impl, "parallel_steps", None)

    def _truncated(self, terminated: np.ndarray, active: np.ndarray | None) -> np.ndarray:
        """Slots whose episode ``max_cycles`` ends with this step (never a terminated one, nor
        one that did not move)."""
        if active is None:
            self._steps += 1
        else:
            self._steps[active] += 1
        limit = self.step_limit
        if limit is None:
            return np.zeros(self.num_envs, np.bool_)
        parallel = self._parallel_steps()
        count = self._steps if parallel is None else parallel
        truncated = ~terminated & (count >= limit)
        return truncated if active is None else truncated & active

    def _check_active(self, active: np.ndarray | None) -> np.ndarray | None:
        if active is None:
            return None
        array = np.asarray(active)
        if array.shape != (self.num_envs,) or array.dtype != np.bool_:
            raise ValueError(
                f"active must be a bool array of shape ({self.num_envs},), "
                f"got {array.dtype} {array.shape}"
            )
        return array

    def _step_some(
        self, actions: np.ndarray, active: np.ndarray, rewards: np.ndarray, terminated: np.ndarray
    ) -> None:
        """Step the ``active`` slots only: the game skips slots whose action is -1 when it says
        so (``partial_steps``); otherwise the waiting slots' rows are copied and put back."""
        waiting = np.flatnonzero(~np.asarray(active))
        actions[waiting] = -1
        impl = self.impl
        if getattr(impl, "partial_steps", False):
            impl.step(actions, rewards, terminated)
            return
        arrays = [impl.state, impl.obs, impl.mask, impl.agent]
        parallel = self._parallel_steps()
        if parallel is not None:
            arrays.append(parallel)
        saved = [a[waiting].copy() for a in arrays]
        actions[waiting] = np.argmax(impl.mask[waiting], axis=1)  # any legal move, undone below
        impl.step(actions, rewards, terminated)
        for array, rows in zip(arrays, saved, strict=True):
            array[waiting] = rows
        rewards[waiting] = 0.0
        terminated[waiting] = False

    def _check_actions(self, actions: Any, active: np.ndarray | None = None) -> np.ndarray:
        """``actions`` as a C-contiguous int64 array, after checking every (active) slot's."""
        array = np.asarray(actions)
        if array.shape != (self.num_envs,):
            raise ValueError(
                f"actions must have shape ({self.num_envs},) (one per slot), got {array.shape}"
            )
        if array.dtype.kind not in "iu":
            raise ValueError(f"actions must be integers, got dtype {array.dtype}")
        array = np.array(array, dtype=np.int64, order="C")  # a copy: the caller's stays as given
        slot = _first_illegal(self.impl.mask, array, _NO_SLOTS if active is None else active)
        if slot >= 0:
            seat = int(self.impl.agent[slot])
            allowed = np.flatnonzero(self.impl.mask[slot]).tolist()
            raise ValueError(
                f"slot {slot}: action {int(array[slot])} is not legal for player_{seat}; "
                f"legal actions: {allowed}"
            )
        return array


#: ``_first_illegal``'s ``active`` when every slot moves
_NO_SLOTS = np.zeros(0, dtype=np.bool_)


@kernel_decorator()
def _first_illegal(mask: np.ndarray, actions: np.ndarray, active: np.ndarray) -> int:
    """The first slot whose action is not legal in its ``mask`` row (outside ``[0, width)``
    or masked out), among the ``active`` ones (empty: all), else -1: one compiled pass."""
    width = mask.shape[1]
    for i in range(actions.shape[0]):
        if active.shape[0] and not active[i]:
            continue
        a = actions[i]
        if a < 0 or a >= width or mask[i, a] == 0:
            return i
    return -1
