"""Pig's batched compiled env (``kiaule_env/pig/vector.py``) against the Python env.

The differential test (``tests/vector_support.differential``) plays seeded random episodes of
every option variant (the descriptor's, the training configs', the compiled twin's extra
combinations, a short race cap and a ``max_cycles`` cap) through ``vector.make("pig", …)`` and,
slot by slot, ``pig_v0.raw_env`` (the AEC version, one seat at a time) reset with the same seed:
at every agent step the same observation floats, mask, seat to act, every seat's reward, end and
result. A collecting policy read from the observation reaches what random passing rarely does
(four of a kind on several seats, touches in the same step, races cut short). States loaded with
``load_state`` mid-game (passing memory and generator included) play on as the env does;
redealt states the seat to act cannot tell apart give the same observation (the
information-set permutation test). ``KIAULE_VECTOR_EPISODES`` sets the number of episodes of the
differential test (default a CI-sized count, over all its variants together).
"""

from __future__ import annotations

import glob
import math
import os
from typing import Any

import numba
import numpy as np
import pytest
import yaml

pytest.importorskip("numba")

import kiaule_env
from kiaule_env import pig_v0, vector
from kiaule_env.pig import rules
from kiaule_env.pig.vector import WORDS, PigVector
from tests.pig.test_compiled import EXTRA_VARIANTS
from tests.vector_support import differential, episode_count, permutation

GAME = kiaule_env.get_game("pig")
_CONFIGS = os.path.join(os.path.dirname(__file__), "../../experiments/configs/*pig*.yaml")


def _training_options() -> list[dict[str, Any]]:
    """The ``env_kwargs`` of the zoo's Pig training configs."""
    found = []
    for path in sorted(glob.glob(_CONFIGS)):
        with open(path, encoding="utf-8") as file:
            found.append(dict(yaml.safe_load(file).get("env_kwargs") or {}))
    return found


def _bounded(options: dict[str, Any]) -> dict[str, Any]:
    """A full game (P5) of four or more players with letters (P7) or 13 seats played at random
    mostly has capped rounds (P4), which decide nothing: ``max_cycles`` bounds its episodes."""
    full = options.get("game") == "full" and options["num_players"] >= 4
    if full and (options.get("letters") or options["num_players"] == 13):
        return {**options, "max_cycles": 150}
    return dict(options)


#: the differential test's variants: the descriptor's, the training configs', the twin test's
#: extra combinations, the shortest race (D2 cut short after one race step) and a max_cycles cap
OPTIONS: list[dict[str, Any]] = [dict(v) for v in GAME.variants]
OPTIONS += [o for o in _training_options() if o not in OPTIONS]
OPTIONS += [_bounded(v) for v in EXTRA_VARIANTS]
OPTIONS += [{"num_players": 5, "max_race_steps": 1}, {"num_players": 5, "max_cycles": 12}]
#: episodes of the differential test over all its variants together
EPISODES = episode_count(230)


def _id(options: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in options.items()) or "default"


def _weight(options: dict[str, Any]) -> float:
    """Share of the episodes: full games (P5) are many rounds, most of them capped (P4) when
    passing is random, so far fewer of them; with letters (P7) three times as many."""
    if options.get("game") != "full":
        return 1.0
    return 0.01 if options.get("letters") and options.get("stock") else 0.06


def test_variants_cover_every_option_and_the_training_configs() -> None:
    assert _training_options(), "no experiments/configs/*pig*.yaml found"
    assert all(o in OPTIONS for o in _training_options())
    keys = set().union(*OPTIONS)
    assert set(GAME.default_options) <= keys  # every rule option varies somewhere


@pytest.mark.parametrize("options", OPTIONS, ids=_id)
def test_P1_P10_random_episodes_agree_with_the_env_step_by_step(options) -> None:
    total = sum(_weight(o) for o in OPTIONS)
    episodes = max(1, math.ceil(EPISODES * _weight(options) / total))
    num_envs = min(16, episodes)
    steps = differential("pig", options, episodes, seed=len(_id(options)), num_envs=num_envs)
    assert steps > 0


# ---------------------------------------------------------------------- a collecting policy
def _collector(vec: PigVector, rng: np.random.Generator, touch: float) -> np.ndarray:
    """Actions read from each slot's observation and mask: pass a rank held least, touch with
    four of a kind (P3), in the race touch with probability ``touch``; with ``false_nose``
    rarely a false touch. Rounds then reach the nose race, same-step touches and race cuts."""
    layout = vec_layout(vec)
    hand = vec.obs[:, layout["hand"].start : layout["hand"].stop]
    race = vec.obs[:, layout["race"].start] > 0
    nose = vec.num_actions - 2
    actions = np.empty(vec.obs.shape[0], dtype=np.int64)
    for i in range(actions.size):
        legal = np.flatnonzero(vec.mask[i])
        if race[i]:
            actions[i] = nose if nose in legal and rng.random() < touch else legal[-1]
        elif hand[i].max() == 1.0 or (nose in legal and rng.random() < 0.01):
            actions[i] = nose
        else:
            held = np.where(hand[i] > 0, hand[i], np.inf)
            fewest = np.flatnonzero(held == held.min())
            actions[i] = rng.choice(fewest)
    return actions


def vec_layout(vec: PigVector) -> dict[str, slice]:
    """Slices of the observation layout by name."""
    return dict(pig_v0.raw_env(**vec.options).layout.offsets)


def _same(vec: PigVector, i: int, env: Any, where: str) -> None:
    agent = env.agent_selection
    assert vec.agent[i] == env.agent_name_mapping[agent], f"{where}: seat to act"
    seen = env.observe(agent)
    diff = np.flatnonzero(vec.obs[i] != seen["observation"])
    assert diff.size == 0, f"{where}: observation differs at {diff.tolist()[:8]}"
    assert np.array_equal(vec.mask[i], seen["action_mask"]), f"{where}: mask"


def _collect(options: dict[str, Any], episodes: int, seed: int, touch: float) -> dict[str, int]:
    """Play ``episodes`` episodes of the collecting policy through the batch and the raw envs,
    comparing at every agent step; returns how often the rare endings came up."""
    rng = np.random.default_rng(seed)
    n = 8
    vec = PigVector(n, options)
    envs = [pig_v0.raw_env(**options) for _ in range(n)]
    seeds = rng.integers(0, 2**63, n)
    vec.reset_slots(np.arange(n), seeds)
    for i, env in enumerate(envs):
        env.reset(seed=int(seeds[i]))
    rewards = np.zeros((n, vec.num_players), dtype=np.float32)
    terminated = np.zeros(n, dtype=bool)
    seen = {"race_cut": 0, "first_nose": 0, "episodes": 0}
    step = 0
    while seen["episodes"] < episodes:
        for i, env in enumerate(envs):
            _same(vec, i, env, f"{options} seed {seeds[i]} step {step}")
        actions = _collector(vec, rng, touch)
        vec.step(actions, rewards, terminated)
        step += 1
        for i, env in enumerate(envs):
            env.step(int(actions[i]))
            want = np.array([env.rewards[a] for a in env.possible_agents], dtype=np.float32)
            assert np.array_equal(rewards[i], want), f"{options} seed {seeds[i]}: rewards"
            over = not env.parallel.agents
            assert bool(terminated[i]) == over, f"{options} seed {seeds[i]}: the end"
            if over:
                result = env.infos[env.possible_agents[0]]["result"]
                assert vec.results([i]) == [result], f"{options} seed {seeds[i]}: result"
                seen["episodes"] += 1
                seen["race_cut"] += result["race_cut"]
                seen["first_nose"] += result["first_nose"] is not None
                seeds[i] = rng.integers(0, 2**63)
                env.reset(seed=int(seeds[i]))
                vec.reset_slots(np.array([i]), seeds[i : i + 1])
    return seen


@pytest.mark.parametrize(
    "options",
    [
        {"num_players": 4, "max_race_steps": 1},
        {"num_players": 6, "max_race_steps": 2, "tokens": True},
        {"num_players": 5, "game": "full", "letters": True, "max_race_steps": 2},
        {"num_players": 4, "game": "full", "stock": True, "false_nose": "pig"},
    ],
    ids=_id,
)
def test_P3_races_same_step_touches_and_cuts_agree(options) -> None:
    """P3, D1–D3: the reaction order of same-step touches and the pig of a race cut short are
    drawn from the episode's generator as the engine draws them."""
    seen = _collect(options, episodes=24, seed=7, touch=0.3)
    assert seen["first_nose"] > 0
    if not options.get("false_nose") and not options.get("game"):
        assert seen["race_cut"] > 0


# ---------------------------------------------------------------------- loaded states
def _random_step(env: Any, rng: np.random.Generator) -> None:
    env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))


@pytest.mark.parametrize(
    "options",
    [
        {"num_players": 4},
        {"num_players": 5, "game": "full", "letters": True, "stock": True, "max_passes": 12},
    ],
    ids=_id,
)
def test_loaded_mid_game_states_play_on_as_the_env(options) -> None:
    """``load_state`` takes the passing memory, the outcome so far and the generator: a slot
    loaded mid-game goes on exactly as the env (in full games through the next rounds' deals,
    P5), while a slot given the action -1 waits unchanged (the base's partial steps)."""
    rng = np.random.default_rng(3)
    compared = 0
    for episode in range(6):
        env = pig_v0.raw_env(**options)
        env.reset(seed=episode)
        for _ in range(int(rng.integers(5, 60))):
            if env.parallel.agents:
                _random_step(env, rng)
        while env.parallel.agents and env.agent_selection != env.parallel.agents[0]:
            _random_step(env, rng)  # on to a step's start: the state alone says who acts
        if not env.parallel.agents:
            continue
        vec = PigVector(2, options)
        vec.reset_slots(np.array([0]), np.array([0]))
        vec.load_state(1, env.game_state)
        waiting = vec.state[0].copy(), vec.obs[0].copy()
        rewards = np.zeros((2, vec.num_players), dtype=np.float32)
        terminated = np.zeros(2, dtype=bool)
        for _ in range(300):
            _same(vec, 1, env, f"{options} episode {episode}")
            action = int(rng.choice(np.flatnonzero(vec.mask[1])))
            vec.step(np.array([-1, action]), rewards, terminated)
            env.step(action)
            compared += 1
            want = np.array([env.rewards[a] for a in env.possible_agents], dtype=np.float32)
            assert np.array_equal(rewards[1], want), f"{options} episode {episode}: rewards"
            assert terminated[1] == (not env.parallel.agents)
            if terminated[1]:
                assert vec.results([1]) == [env.infos["player_0"]["result"]]
                break
        assert np.array_equal(vec.state[0], waiting[0]) and np.array_equal(vec.obs[0], waiting[1])
    assert compared > 100


@pytest.mark.parametrize(
    "options", [{"num_players": 4}, {**pig_v0.ALL_VARIANTS, "max_cycles": 60}], ids=_id
)
def test_information_set_permutation(options) -> None:
    """Redeals of what the seat to act cannot see (other hands, stock, discard pile) give the
    same observation and mask (ARCHITECTURE's information-set test, on the batch)."""
    assert permutation("pig", options, positions=40, seed=5) > 0


# ---------------------------------------------------------------------- the batch itself
def test_state_is_about_4_kb_per_slot() -> None:
    vec = PigVector(3, {})
    assert vec.state.shape == (3, WORDS)
    assert vec.state_bytes() == WORDS * 8 <= 5000


def test_unknown_and_bad_options_are_refused_like_the_env() -> None:
    with pytest.raises(ValueError, match="'deck_size'"):
        vector.make("pig", num_envs=2, deck_size=52)
    with pytest.raises(ValueError, match="num_players"):
        vector.make("pig", num_envs=2, num_players=14)
    with pytest.raises(ValueError, match="letters"):
        vector.make("pig", num_envs=2, letters=True)


def test_the_game_finds_its_batch_and_presents_seats_in_turn() -> None:
    """Four players: the seats choose in seat order (P2 as pig_v0.env() presents it); the
    rewards come with the last seat's choice."""
    venv = vector.make("pig", num_envs=4, seed=11)
    assert isinstance(venv.impl, PigVector)
    _, info = venv.reset()
    for seat in range(4):
        assert info["agent"].tolist() == [seat] * 4
        obs, rewards, terminated, _, info = venv.step(venv.impl.mask.argmax(axis=1))
        if seat < 3:
            assert not rewards.any() and not terminated.any()
    assert info["agent"].tolist() == [0] * 4
    assert (venv.impl.parallel_steps == 1).all()
    # the first seat's observation after one pass counts it: passes / max_passes
    passes = obs["observation"][:, vec_layout(venv.impl)["passes"].start]
    assert np.allclose(passes[~terminated], 1 / rules.Config().max_passes)


def test_kernel_caches_go_stale_with_the_twin_and_the_generator() -> None:
    """numba's cache checks only a kernel's own file: every kernel of the batch also carries
    the stamps of the twin's and the generator's files, so an edit there recompiles it."""
    from kiaule_env.pig import compiled
    from kiaule_env.pig import vector as module
    from kiaule_env.vector import rng
    from kiaule_env.vector.kernels import stamped_with

    kernels = [f for f in vars(module).values() if isinstance(f, numba.core.dispatcher.Dispatcher)]
    assert len(kernels) >= 10
    for kernel in kernels:
        assert stamped_with(kernel, compiled.__file__), kernel.__name__
        assert stamped_with(kernel, rng.__file__), kernel.__name__
