"""A single learner's view of a batched env, as a Gymnasium ``VectorEnv``.

Training code with one policy wants, in every slot, a state where *its* seat is to act: the
learner plays ``learner_seats``, and every other seat is played by a batched opponent callback
``opponent(obs, mask, agent, slots) -> actions`` (random legal moves, a frozen policy's forward
pass, a rule-based agent...). :class:`SingleLearner` steps the batch with the learner's actions,
then lets the opponents move in the slots where they are to act (only those slots move;
``VectorEnv.step(actions, active)``) until every slot has a learner seat to act again.

* ``reward[i]``: what the learner's seats received since its last action in slot ``i``, the
  mean over ``learner_seats`` of each seat's reward (a team's shared reward when the seats are
  partners, Kozel K1), opponents' moves included; a reward that arrives in a new episode before
  the learner's first move there is paid with that move.
* ``terminated[i]`` / ``truncated[i]``: the learner's episode in slot ``i`` ended after its last
  action (possibly after opponent moves); the slot has already started its next episode
  (same-step auto-reset), and ``info["final_result"][i]`` is the finished episode's result.
* an episode that starts and ends between two learner moves (only where the learner's seats may
  never be to act) is not the learner's: its result is not reported and its rewards are dropped;
* the observation is the learner seat's (``info["agent"]`` says which seat when it plays more
  than one); the spaces are the game env's, batched.

Per-slot seats (a training collector that draws the learner's seat every episode,
``agents.training.batched``): ``learner_mask[i, s]`` says whether the learner plays seat ``s``
in slot ``i``, and ``reward_weights[i, s]`` what share of seat ``s``'s reward is the learner's
(the constructor sets every slot to ``learner_seats``, each seat weighted ``1 / len``).
``on_episodes(slots)``, when given, is called with the slots (ascending) whose new episodes have
just started (every slot on ``reset``, then each auto-reset), after the finished episode's
rewards were counted and before anyone moves in the new one: it may rewrite those rows, and
load other games into those slots (``VectorGame.load_state``; the view then reads their seats
to act again).
``timing`` adds up the seconds spent in the batched env's ``step``/``reset`` (``env``) and in
the opponent callback (``opponents``).

Example::

    from kiaule_env import vector

    venv = vector.make("kozel", num_envs=256, seed=0)
    env = vector.SingleLearner(venv, learner_seats=[0, 2], opponent=vector.random_opponent(1))
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(actions)   # actions legal for obs
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector import VectorEnv as GymVectorEnv
from gymnasium.vector.utils import batch_space

from kiaule_env.core.options import is_integer
from kiaule_env.vector.base import VectorEnv
from kiaule_env.vector.kernels import kernel_decorator

#: ``opponent(obs, mask, agent, slots) -> actions``: rows of the slots where an opponent acts
Opponent = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]

#: ``on_episodes(slots)``: called with the slots whose new episodes just started
EpisodeHook = Callable[[np.ndarray], None]


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``mask`` (int64; ``ValueError`` for a row
    without one): row ``i`` takes its ``floor(u[i] * count)``-th legal action (ascending),
    ``u = rng.random(rows)``, ``count`` its legal actions. The draws are numpy's, the picks one
    compiled pass over the mask (the cost the benchmark counts)."""
    if not (isinstance(mask, np.ndarray) and mask.dtype == np.int8 and mask.flags.c_contiguous):
        mask = np.ascontiguousarray(np.asarray(mask) != 0).view(np.int8)
    if mask.ndim != 2:
        raise ValueError(f"mask must have shape (rows, actions), got {mask.shape}")
    picks = np.empty(mask.shape[0], dtype=np.int64)
    empty = _pick_legal(mask, rng.random(mask.shape[0]), picks)
    if empty >= 0:
        raise ValueError(f"row {empty} of the mask has no legal action to draw")
    return picks


@kernel_decorator()
def _pick_legal(mask: np.ndarray, draws: np.ndarray, picks: np.ndarray) -> int:
    """:func:`random_legal`'s picks into ``picks``; returns the first row without a legal
    action (then stops), else -1."""
    for i in range(mask.shape[0]):
        count = 0
        for j in range(mask.shape[1]):
            count += mask[i, j] != 0
        if count == 0:
            return i
        k = int(draws[i] * count)  # numpy's (draws * counts).astype(int64): truncation
        for j in range(mask.shape[1]):
            if mask[i, j] != 0:
                if k == 0:
                    picks[i] = j
                    break
                k -= 1
    return -1


def random_opponent(seed: int | None = None) -> Opponent:
    """An opponent callback playing uniformly random legal moves, seeded."""
    rng = np.random.default_rng(seed)

    def opponent(obs: np.ndarray, mask: np.ndarray, agent: np.ndarray, slots: np.ndarray):
        return random_legal(mask, rng)

    return opponent


class SingleLearner(GymVectorEnv):
    """The learner plays ``learner_seats`` of every slot; see the module docstring."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}  # noqa: RUF012 - Gymnasium's

    def __init__(
        self,
        venv: VectorEnv,
        learner_seats: Iterable[int],
        opponent: Opponent,
        on_episodes: EpisodeHook | None = None,
    ):
        seats = sorted(set(learner_seats))
        if not seats or not all(is_integer(s) and 0 <= s < venv.num_players for s in seats):
            raise ValueError(
                f"learner_seats must be seats in 0..{venv.num_players - 1}, got {learner_seats!r}"
            )
        if not callable(opponent):
            raise ValueError(f"opponent must be callable, got {opponent!r}")
        if on_episodes is not None and not callable(on_episodes):
            raise ValueError(f"on_episodes must be callable or None, got {on_episodes!r}")
        self.venv = venv
        self.learner_seats = np.array(seats, dtype=np.int64)
        self.opponent = opponent
        self.on_episodes = on_episodes
        #: per slot, the seats the learner plays (bool ``(num_envs, num_players)``)
        self.learner_mask = np.zeros((venv.num_envs, venv.num_players), np.bool_)
        self.learner_mask[:, self.learner_seats] = True
        #: per slot, each seat's share of the learner's reward (float32, rows sum to 1)
        self.reward_weights = np.zeros((venv.num_envs, venv.num_players), np.float32)
        self.reward_weights[:, self.learner_seats] = 1.0 / len(seats)
        #: seconds in the batched env (``env``) and in the opponent callback (``opponents``)
        self.timing = {"env": 0.0, "opponents": 0.0}
        self.num_envs = venv.num_envs
        self.single_observation_space = venv.single_observation_space
        self.single_action_space = venv.single_action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._carry = np.zeros(self.num_envs, np.float32)
        self._all = np.arange(self.num_envs, dtype=np.int64)
        #: scratch of ``_collect``: the episodes an opponents' step ended, and the learner's
        self._ended = np.zeros(self.num_envs, np.bool_)
        self._fresh = np.zeros(self.num_envs, np.bool_)
        #: what the learner gains from a step that pays no seat (read only)
        self._unpaid = np.zeros(self.num_envs, np.float32)
        self._info: dict[str, Any] = {}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """New episodes in every slot (``seed`` re-seeds the batch), advanced to the learner."""
        if options:
            raise ValueError(f"reset options are not supported by batched envs, got {options!r}")
        start = time.perf_counter()
        obs, info = self.venv.reset(seed=seed)
        self.timing["env"] += time.perf_counter() - start
        self._carry[:] = 0.0
        self._started(np.arange(self.num_envs, dtype=np.int64), info)
        ended = np.zeros(self.num_envs, np.bool_)
        final = info["final_result"]
        obs, info = self._advance(obs, info, self._carry, ended, ended.copy(), final)
        return _copy(obs), info

    def step(
        self, actions: Any
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """The learner's action in every slot, then the opponents' moves up to its next turn."""
        start = time.perf_counter()
        obs, rewards, terminated, truncated, info = self.venv.step(actions)
        self.timing["env"] += time.perf_counter() - start
        reward = self._carry + self._learner(rewards)
        self._carry = np.zeros(self.num_envs, np.float32)
        self._started(np.flatnonzero(terminated | truncated), info)
        final = info["final_result"]
        obs, info = self._advance(obs, info, reward, terminated, truncated, final)
        return _copy(obs), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every slot, ``(num_envs, num_actions)`` booleans."""
        return self.venv.impl.mask.astype(bool)

    def get_state(self) -> dict[str, Any]:
        """The batch and this view (pending rewards, per-slot seats and weights, timing) as
        data: ``{"data": JSON values, "arrays": {name: ndarray}}`` (the batch's under ``venv/``)."""
        inner = self.venv.get_state()
        arrays = {f"venv/{name}": value for name, value in inner["arrays"].items()}
        arrays["carry"] = self._carry.copy()
        arrays["learner_mask"] = self.learner_mask.copy()
        arrays["reward_weights"] = self.reward_weights.copy()
        return {"data": {"venv": inner["data"], "timing": dict(self.timing)}, "arrays": arrays}

    def set_state(self, state: dict[str, Any]) -> None:
        """Become the view :meth:`get_state` described; ``ValueError`` if it does not fit."""
        try:
            data, arrays = state["data"], state["arrays"]
            inner = {k.removeprefix("venv/"): v for k, v in arrays.items() if k.startswith("venv/")}
            mine = {
                name: np.asarray(arrays[name])
                for name in ("carry", "learner_mask", "reward_weights")
            }
            timing = {key: float(data["timing"][key]) for key in self.timing}
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"not a single-learner state ({type(exc).__name__}: {exc})") from None
        for name, value in mine.items():
            if value.shape != getattr(self, f"_{name}" if name == "carry" else name).shape:
                raise ValueError(
                    f"not a state of this single-learner view: {name} has shape {value.shape}"
                )
        self.venv.set_state({"data": data["venv"], "arrays": inner})
        self._carry[...] = mine["carry"]
        self.learner_mask[...] = mine["learner_mask"]
        self.reward_weights[...] = mine["reward_weights"]
        self.timing = timing

    def close(self, **kwargs: Any) -> None:
        self.venv.close()

    # ------------------------------------------------------------------ internals
    def _learner(self, rewards: np.ndarray) -> np.ndarray:
        """Each slot's learner reward: its seats' rewards weighted by ``reward_weights``."""
        return np.einsum("ij,ij->i", rewards, self.reward_weights, dtype=np.float32)

    def _started(self, slots: np.ndarray, info: dict[str, Any]) -> None:
        """Tell ``on_episodes`` about the episodes just started in ``slots`` (if any), then
        read their seats to act into ``info`` again (the hook may have loaded other games)."""
        if self.on_episodes is not None and slots.size:
            self.on_episodes(slots)
            info["agent"][slots] = self.venv.impl.agent[slots]

    def _advance(
        self,
        obs: dict[str, np.ndarray],
        info: dict[str, Any],
        reward: np.ndarray,
        terminated: np.ndarray,
        truncated: np.ndarray,
        final: np.ndarray,
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Opponents move where they are to act until the learner is to act everywhere;
        rewards go to ``reward`` (to ``_carry`` in slots whose episode already ended)."""
        final = final.copy()
        timing = self.timing
        while True:
            agent = info["agent"]
            waiting = ~self.learner_mask[self._all, agent]
            slots = np.flatnonzero(waiting)
            if not slots.size:
                break
            moves = np.zeros(self.num_envs, np.int64)
            start = time.perf_counter()
            moves[slots] = self.opponent(
                obs["observation"][slots], obs["action_mask"][slots], agent[slots], slots
            )
            middle = time.perf_counter()
            obs, rewards, term, trunc, info = self.venv.step(moves, active=waiting)
            timing["opponents"] += middle - start
            timing["env"] += time.perf_counter() - middle
            self._collect(rewards, term, trunc, info, reward, terminated, truncated, final)
        return obs, {**info, "final_result": final}

    def _collect(
        self,
        rewards: np.ndarray,
        term: np.ndarray,
        trunc: np.ndarray,
        info: dict[str, Any],
        reward: np.ndarray,
        terminated: np.ndarray,
        truncated: np.ndarray,
        final: np.ndarray,
    ) -> None:
        """Count an opponents' step into the learner's step (``reward``, ``terminated``,
        ``truncated``, ``final`` are updated in place; :func:`_count_step`), then record the
        results of the learner's episodes it ended and tell ``on_episodes`` of the new ones."""
        # a step that pays no seat gains +0.0 in every slot, as the weighted sum would
        gained = self._learner(rewards) if rewards.any() else self._unpaid
        ended, fresh, carry = self._ended, self._fresh, self._carry
        if _count_step(gained, term, trunc, reward, carry, terminated, truncated, ended, fresh):
            final[fresh] = info["final_result"][fresh]
            self._started(np.flatnonzero(ended), info)


@kernel_decorator()
def _count_step(gained, term, trunc, reward, carry, terminated, truncated, ended, fresh) -> int:
    """One opponents' step counted per slot: what the learner ``gained`` goes to ``reward``,
    or to ``carry`` where its episode already ended (``terminated``/``truncated``); an episode
    the step ends (``ended``) is the learner's where its own had not ended (``fresh``: its
    end and result are the call's), else it was not the learner's and its carry is dropped.
    Returns the number of ended episodes. The float32 sums are numpy's
    ``reward += where(done, 0, gained)`` and ``carry += where(done, gained, 0)``: the 0.0
    not added changes no bit, as neither sum is ever -0.0 (both start at +0.0)."""
    count = 0
    for i in range(gained.shape[0]):
        done = terminated[i] or truncated[i]
        if done:
            carry[i] += gained[i]
        else:
            reward[i] += gained[i]
        end = term[i] or trunc[i]
        ended[i] = end
        fresh[i] = end and not done
        if end:
            count += 1
            if done:
                carry[i] = 0.0
            else:
                terminated[i] |= term[i]
                truncated[i] |= trunc[i]
    return count


def _copy(obs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {key: value.copy() for key, value in obs.items()}
