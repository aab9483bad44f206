"""Elgeta's batched compiled env (``kiaule_env/elgeta/vector.py``) against the Python env.

The differential test plays seeded episodes of every option variant (the descriptor's, the
training config's, short capped ones) in a batch and, slot by slot, in ``elgeta_v0.raw_env``
reset with the same seed: at every step the same observation floats, mask, seat to act, every
seat's reward, end and result. Stacked scenarios (loaded with ``load_state``) add the endings
random deals almost never reach; resampled and sampled states check that the observation
depends only on what the seat to act may know (the shared harness ``tests/vector_support.py``
runs the differential and the permutation tests). ``KIAULE_VECTOR_EPISODES`` sets the number of
episodes of the differential test (default a CI-sized count, over all its variants together).
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np
import pytest
import yaml

pytest.importorskip("numba")

import kiaule_env
from kiaule_env import elgeta_v0, vector
from kiaule_env.elgeta import compiled, rules, sampling
from kiaule_env.elgeta.vector import WORDS, ElgetaVector
from tests.elgeta.helpers import new_env
from tests.elgeta.test_compiled import CAPPED, SCENARIOS, VARIANTS, _random_split, _variant_id
from tests.vector_support import differential, episode_count, permutation

GAME = kiaule_env.get_game("elgeta")
_CONFIG = os.path.join(os.path.dirname(__file__), "../../experiments/configs/elgeta.yaml")
with open(_CONFIG, encoding="utf-8") as _file:
    _TRAINING = {**GAME.default_options, **yaml.safe_load(_file)["env_kwargs"]}
#: every variant of the differential test: the default, the descriptor's, the training
#: config's and short capped ones (E8 cap, capped ties, all aces)
OPTIONS = [*VARIANTS, *([_TRAINING] if _TRAINING not in VARIANTS else []), *CAPPED]
#: max_cycles truncation (the base's, as the AEC env's: max_cycles x num_players agent steps)
OPTIONS.append({"num_players": 3, "deck": "32", "max_cycles": 30})
#: episodes of the differential test over all its variants together
EPISODES = episode_count(240)


def _play(env: Any) -> None:
    """One agent step of the raw env (the only action: ``play``, E3)."""
    env.step(0)


def _same(vec: ElgetaVector, slot: int, env: Any, where: str) -> None:
    """The slot's observation, mask and seat to act are the env's for its agent to act."""
    agent = env.agent_selection
    seat = env.agent_name_mapping[agent]
    assert vec.agent[slot] == seat, f"{where}: seat to act {vec.agent[slot]} != {seat}"
    expected = env.observe(agent)
    diff = np.flatnonzero(vec.obs[slot] != expected["observation"])
    assert diff.size == 0, f"{where}: observation differs at {diff.tolist()[:10]}"
    assert np.array_equal(vec.mask[slot], expected["action_mask"]), f"{where}: mask"


def _step_both(vec: ElgetaVector, envs: list[Any], where: str) -> np.ndarray:
    """One step in every slot and in every env; compares rewards and ends; returns the slots
    whose episodes ended, after comparing their results."""
    n = len(envs)
    rewards = np.full((n, vec.num_players), np.nan, dtype=np.float32)
    terminated = np.zeros(n, dtype=bool)
    vec.step(np.zeros(n, dtype=np.int64), rewards, terminated)
    for slot, env in enumerate(envs):
        _play(env)
        expected = np.array([env.rewards[a] for a in env.possible_agents], dtype=np.float32)
        assert np.array_equal(rewards[slot], expected), f"{where} slot {slot}: rewards"
        assert terminated[slot] == env.game_state.over, f"{where} slot {slot}: the end"
    ended = np.flatnonzero(terminated)
    for slot, result in zip(ended.tolist(), vec.results(ended), strict=True):
        env = envs[slot]
        assert result == env.infos[env.possible_agents[0]]["result"], f"{where}: result"
    return ended


@pytest.mark.parametrize("options", OPTIONS, ids=_variant_id)
def test_E2_E10_seeded_episodes_agree_with_the_env_step_by_step(options):
    episodes = max(4, math.ceil(EPISODES / len(OPTIONS)))
    steps = differential("elgeta", options, episodes, seed=len(str(options)), num_envs=16)
    assert steps >= episodes


@pytest.mark.parametrize("options", VARIANTS, ids=_variant_id)
def test_states_the_seat_to_act_cannot_tell_apart_give_the_same_observation(options):
    # the information-set permutation test: another order of every pile's unseen top part
    assert permutation("elgeta", options, positions=12, seed=5) > 0


def _loaded(env: Any, num_envs: int = 1, slot: int = 0) -> ElgetaVector:
    """A batch with ``env``'s running state loaded into ``slot``."""
    vec = ElgetaVector(num_envs, env.config.__dict__)
    vec.load_state(slot, env.game_state)
    return vec


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_E5_E8_stacked_scenarios_agree_step_by_step(name):
    piles, options, _, _ = SCENARIOS[name]
    env = new_env(piles, **options)
    vec = _loaded(env)
    _same(vec, 0, env, name)
    steps = 0
    while not len(_step_both(vec, [env], f"{name} step {steps}")):
        steps += 1
        _same(vec, 0, env, f"{name} step {steps}")


@pytest.mark.parametrize("options", VARIANTS + CAPPED, ids=_variant_id)
def test_E8_a_new_game_is_the_twins_encoding_of_the_engines_deal(options):
    # the compiled start (reset_slots' and deal_piles') finds the E8 repetition with Brent's
    # method and falls back on the exact look-ahead: stacked splits and the scenarios cycle,
    # reach the cap and end every way, unlike random suit deals
    engine = GAME.make_engine(**options)
    rng = np.random.default_rng(11)
    decks = [_random_split(engine.config, rng) for _ in range(12)]
    decks += [piles for piles, opts, _, _ in SCENARIOS.values() if opts == options]
    vec = ElgetaVector(1, options)
    for piles in decks:
        state = engine.new_episode(rng, {"piles": piles})
        vec.deal_piles(0, [list(pile) for pile in state.piles])
        assert np.array_equal(vec.state[0, : compiled.SIZE], compiled.encode(state)), piles
        loaded = ElgetaVector(1, options)
        loaded.load_state(0, state)
        assert np.array_equal(vec.state, loaded.state) and np.array_equal(vec.obs, loaded.obs)


def test_E8_cycles_found_at_the_start_end_the_game_as_the_env():
    piles = SCENARIOS["E8_cycle"][0]
    options = SCENARIOS["E8_cycle"][1]
    env = new_env(piles, **options)
    vec = ElgetaVector(1, options)
    vec.deal_piles(0, [list(pile) for pile in env.game_state.piles])
    assert vec.state[0, compiled.CYCLE_AT] == 27
    steps = 0
    while not len(_step_both(vec, [env], f"step {steps}")):
        steps += 1
        _same(vec, 0, env, f"step {steps}")
    assert vec.results(np.array([0]))[0]["cycle"]


@pytest.mark.parametrize("options", VARIANTS[:4], ids=_variant_id)
def test_a_state_loaded_mid_game_goes_on_as_the_env(options):
    # the trick's seats, its tie-break rounds, the unseen counts, the beggars and the E8
    # history come from the engine state, in any slot of the batch
    rng = np.random.default_rng(7)
    for _ in range(6):
        env = elgeta_v0.raw_env(**options)
        env.reset(seed=int(rng.integers(2**31)))
        for _ in range(int(rng.integers(1, 300))):
            if env.game_state.over:
                break
            _play(env)
        if env.game_state.over:
            continue
        vec = _loaded(env, num_envs=3, slot=2)
        others = [elgeta_v0.raw_env(**options) for _ in range(2)]
        vec.reset_slots(np.arange(2), np.array([1, 2]))
        for slot, other in enumerate(others):
            other.reset(seed=slot + 1)
        envs = [*others, env]
        for step in range(400):
            _same(vec, 2, env, f"{options} step {step}")
            if len(_step_both(vec, envs, f"{options} step {step}")):
                break


@pytest.mark.parametrize("options", VARIANTS, ids=_variant_id)
def test_a_state_drawn_from_the_view_gives_the_same_observation(options):
    # sampling.sample_state: a state consistent with the view of the seat to act, its history
    # only the current trick's start
    rng = np.random.default_rng(3)
    engine = GAME.make_engine(**options)
    vec = ElgetaVector(2, options)
    checked = 0
    for _ in range(10):
        state = engine.new_episode(rng, {})
        for _ in range(int(rng.integers(0, 120))):
            if state.over:
                break
            engine.apply(state, [0])
        if state.over:
            continue
        seat = rules.to_act(state)
        vec.load_state(0, state)
        vec.load_state(1, sampling.sample_state(rules.view(state, seat), engine.config, rng))
        assert np.array_equal(vec.obs[1], vec.obs[0])
        assert np.array_equal(vec.mask[1], vec.mask[0])
        assert vec.agent[1] == vec.agent[0] == seat
        checked += 1
    assert checked >= 5


def test_the_same_seeds_deal_the_same_batch_and_other_seeds_other_deals():
    a, b = ElgetaVector(8, {}), ElgetaVector(8, {})
    seeds = np.arange(8, dtype=np.int64) * 977
    a.reset_slots(np.arange(8), seeds)
    b.reset_slots(np.arange(8)[::-1].copy(), seeds[::-1].copy())
    assert np.array_equal(a.state, b.state) and np.array_equal(a.obs, b.obs)
    b.reset_slots(np.arange(8), seeds + 1)
    assert not any(np.array_equal(a.state[i], b.state[i]) for i in range(8))


def test_options_are_checked_as_the_env_checks_them():
    with pytest.raises(ValueError, match=r"unknown keyword.*'colour'.*allowed: num_players"):
        ElgetaVector(2, {"colour": "red"})
    for bad in ({"num_players": 5}, {"deck": "54"}, {"max_tricks": 0}):
        with pytest.raises(ValueError) as vec_error:
            ElgetaVector(2, bad)
        with pytest.raises(ValueError) as env_error:
            elgeta_v0.raw_env(**bad)
        assert str(vec_error.value) == str(env_error.value)
    with pytest.raises(ValueError, match=r"max_tricks=4611686018427387904 .*below 2\*\*62"):
        ElgetaVector(2, {"max_tricks": 2**62})


def test_load_state_refuses_a_finished_game_and_another_configuration():
    env = new_env(SCENARIOS["E8_capped_tie"][0], **SCENARIOS["E8_capped_tie"][1])
    with pytest.raises(ValueError, match="this vector env plays"):
        ElgetaVector(1, {}).load_state(0, env.game_state)
    vec = _loaded(env)
    while not env.game_state.over:
        _play(env)
    with pytest.raises(ValueError, match="finished game"):
        vec.load_state(0, env.game_state)
    with pytest.raises(TypeError, match="State"):
        vec.load_state(0, {"piles": []})


def test_a_slot_holds_about_4_kb_of_state():
    vec = ElgetaVector(4, {})
    assert vec.state_bytes() == WORDS * 8 <= 4096
    assert vec.state.shape == (4, WORDS) and vec.state.flags.c_contiguous


def test_waiting_slots_keep_their_game_in_a_partial_step():
    venv = vector.make("elgeta", num_envs=4, seed=1, num_players=2, deck="32")
    obs, _ = venv.reset()
    state, before = venv.impl.state.copy(), obs["observation"].copy()
    active = np.array([True, False, True, False])
    obs, rewards, terminated, _, _ = venv.step(np.zeros(4, dtype=np.int64), active)
    assert np.array_equal(venv.impl.state[~active], state[~active])
    assert np.array_equal(obs["observation"][~active], before[~active])
    for slot in np.flatnonzero(active):  # one card was played (E3)
        assert venv.impl.state[slot, compiled.TRICK_LEN] == 1
    assert not rewards.any() and not terminated.any()
