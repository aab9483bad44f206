"""Kozel's batched compiled env (``kiaule_env/kozel/vector.py``) against the Python env.

The differential test (``tests/vector_support.differential``) plays seeded random episodes of
every option variant (the descriptor's, the training configs', a ``max_cycles`` cap) through
``vector.make("kozel", …)`` and, slot by slot, ``kozel_v0.raw_env`` reset with the same seed: at
every step the same observation floats, mask, seat to act, every seat's reward, end and result.
Episodes loaded mid-game with ``load_state`` (memory and series generator included) must play
on exactly as the Python env does; redealt states the seat to act cannot tell apart give the same
observation (the information-set permutation test). ``KIAULE_VECTOR_EPISODES`` sets the number
of episodes of the differential test (default a CI-sized count, over all its variants together).
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
from kiaule_env import kozel_v0, vector
from kiaule_env.kozel import compiled, rules
from kiaule_env.kozel.vector import KozelVector
from kiaule_env.vector import rng
from kiaule_env.vector.kernels import stamped_with
from tests.kozel.test_compiled import molodka_rich_deck
from tests.vector_support import differential, episode_count, permutation, random_actions

GAME = kiaule_env.get_game("kozel")
_CONFIGS = os.path.join(os.path.dirname(__file__), "../../experiments/configs/*kozel*.yaml")


def _training_options() -> list[dict[str, Any]]:
    """The ``env_kwargs`` of the zoo's Kozel training configs."""
    found = []
    for path in sorted(glob.glob(_CONFIGS)):
        with open(path, encoding="utf-8") as file:
            found.append(dict(yaml.safe_load(file).get("env_kwargs") or {}))
    return found


#: the differential test's variants: the descriptor's, the training configs', a cap (K14 series
#: truncated by the base's max_cycles)
OPTIONS: list[dict[str, Any]] = [dict(v) for v in GAME.variants]
OPTIONS += [o for o in _training_options() if o not in OPTIONS]
OPTIONS += [{"series": True, "max_cycles": 40}, {"trump_card": "bottom", "molodka": "trumps"}]
#: episodes of the differential test over all its variants together
EPISODES = episode_count(2000)


def _episodes(series: bool) -> int:
    """Episodes of one variant: a series is about ten games (K14), so a series variant plays a
    sixth of a single-game one's share, and the variants together play at least EPISODES."""
    n_series = sum(bool(o.get("series")) for o in OPTIONS)
    per_series = max(4, math.ceil(EPISODES / len(OPTIONS) / 6))
    if series:
        return per_series
    return math.ceil(max(EPISODES - per_series * n_series, 0) / (len(OPTIONS) - n_series))


def _id(options: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in options.items()) or "default"


def test_episode_share() -> None:
    """The variants together play at least EPISODES episodes."""
    assert sum(_episodes(bool(o.get("series"))) for o in OPTIONS) >= EPISODES


def test_training_configs_found() -> None:
    """The zoo trains Kozel with ``reward="card_points"``: the variants must include it."""
    assert _training_options(), "no experiments/configs/*kozel*.yaml found"
    assert {"reward": "card_points"} in OPTIONS


@pytest.mark.parametrize("options", OPTIONS, ids=_id)
def test_differential(options: dict[str, Any]) -> None:
    """Step by step the same as ``kozel_v0.raw_env`` from the same seeds."""
    episodes = _episodes(bool(options.get("series")))
    steps = differential("kozel", options, episodes, seed=len(_id(options)), num_envs=16)
    assert steps > 0


@pytest.mark.parametrize(
    "options", [{}, {"molodka": "trumps", "trump_card": "bottom"}, {"series": True}], ids=_id
)
def test_information_set(options: dict[str, Any]) -> None:
    """Redeals of what the seat to act cannot see, loaded into slots, observe alike."""
    assert permutation("kozel", options, positions=25, seed=3) > 0


@pytest.mark.parametrize("options", [{}, {"series": True, "eggs": "double"}], ids=_id)
def test_load_state_plays_on(options: dict[str, Any]) -> None:
    """A mid-episode engine state (memory, eggs streak, the series' generator) loaded into a
    slot plays on exactly as the Python env: every observation, reward, end and result, and the
    later games of a series dealt from the loaded generator."""
    rng = np.random.default_rng(11)
    for episode in range(6):
        env = kozel_v0.raw_env(**options)
        env.reset(seed=100 + episode)
        for _ in range(int(rng.integers(1, 120))):  # into a later game of a series
            if env.terminations[env.agent_selection]:
                break
            env.step(
                int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])))
            )
        if env.terminations[env.agent_selection]:
            continue
        vec = KozelVector(2, options)
        vec.load_state(1, env.game_state)
        _play_on(vec, env, rng, f"{options} episode {episode}")


@pytest.mark.parametrize(
    "options",
    [{}, {"molodka": "trumps", "beat_partner": False}, {"series": True, "trump_card": "bottom"}],
    ids=_id,
)
def test_molodka_rich_deals(options: dict[str, Any]) -> None:
    """K8 claim windows with several holders, claims and declines (rare in random deals):
    molodka-rich stacked decks, loaded at the deal, play on exactly as the Python env."""
    rng = np.random.default_rng(5)
    played: list[int] = []
    for episode in range(12):
        env = kozel_v0.raw_env(**options)
        env.reset(seed=episode, options={"deck": molodka_rich_deck(rng)})
        vec = KozelVector(2, options)
        vec.load_state(1, env.game_state)
        played += _play_on(vec, env, rng, f"{options} stacked episode {episode}")
    assert rules.CLAIM in played and rules.DECLINE in played


def _play_on(vec: KozelVector, env: Any, rng: np.random.Generator, where: str) -> list[int]:
    """Step slot 1 of ``vec`` and ``env`` alike to the episode's end, comparing every step;
    returns the actions played."""
    played = []
    rewards = np.zeros((2, 4), dtype=np.float32)
    terminated = np.zeros(2, dtype=bool)
    step = 0
    while True:
        agent = env.agent_selection
        seen = env.observe(agent)
        assert vec.agent[1] == env.agent_name_mapping[agent], f"{where} step {step}: seat"
        assert np.array_equal(vec.obs[1], seen["observation"]), (
            f"{where} step {step}: observation differs at "
            f"{np.flatnonzero(vec.obs[1] != seen['observation']).tolist()}"
        )
        assert np.array_equal(vec.mask[1], seen["action_mask"]), f"{where} step {step}: mask"
        action = int(random_actions(vec.mask[1:], rng)[0])
        played.append(action)
        vec.step(np.array([0, action]), rewards, terminated)  # slot 0 holds no game: untouched
        env.step(action)
        want = np.array([env.rewards[a] for a in env.possible_agents], dtype=np.float32)
        assert np.array_equal(rewards[1], want), f"{where} step {step}: rewards"
        assert bool(terminated[1]) == env.terminations[agent], f"{where} step {step}: end"
        step += 1
        if terminated[1]:
            assert vec.results(np.array([1])) == [env.infos[agent]["result"]], where
            return played


def test_waiting_and_empty_slots_untouched() -> None:
    """A slot whose action is -1 (``partial_steps``) or that holds no episode (never reset)
    stays as it is, observation included, while the others play."""
    vec = KozelVector(3, {})
    vec.reset_slots(np.array([1, 2]), np.array([5, 6]))
    before = [a.copy() for a in (vec.state, vec.obs, vec.mask, vec.agent)]
    lead = int(np.flatnonzero(vec.mask[2])[0])
    vec.step(np.array([0, -1, lead]), np.zeros((3, 4), np.float32), np.zeros(3, bool))
    for now, then in zip((vec.state, vec.obs, vec.mask, vec.agent), before, strict=True):
        assert np.array_equal(now[:2], then[:2])
        assert not np.array_equal(now[2], then[2])


def test_same_deal_as_raw_env() -> None:
    """A slot's deal is ``raw_env().reset(seed)``'s, for large seeds too (the harness seeds)."""
    seeds = np.array([0, 1, 2**31, 2**62 + 12345, 2**63 - 1], dtype=np.int64)
    vec = KozelVector(len(seeds), {"trump_card": "bottom"})
    vec.reset_slots(np.arange(len(seeds)), seeds)
    for i, seed in enumerate(seeds):
        env = kozel_v0.raw_env(trump_card="bottom")
        env.reset(seed=int(seed))
        assert np.array_equal(vec.obs[i], env.observe("player_0")["observation"]), int(seed)


def test_state_bytes() -> None:
    """About 4 KB of compiled state per slot (the goal); here well under it."""
    venv = vector.make("kozel", num_envs=3, seed=0)
    assert venv.impl.state_bytes() == venv.impl.state.shape[1] * 8 <= 4096


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"molodka": "all"}, "molodka"),
        ({"num_players": 3}, "num_players"),
        ({"eggs": "double"}, "series"),
        ({"trumps": 1}, "trumps"),
    ],
)
def test_bad_options(options: dict[str, Any], message: str) -> None:
    """Bad options are the env's errors, naming the option."""
    with pytest.raises(ValueError, match=message):
        vector.make("kozel", num_envs=2, **options)
    with pytest.raises((ValueError, TypeError)):
        kozel_v0.raw_env(**options)


def test_load_state_refuses_what_it_cannot_play() -> None:
    """Another configuration, stacked decks still to deal, a series without its generator."""
    env = kozel_v0.raw_env(molodka=None)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="config"):
        KozelVector(1, {}).load_state(0, env.game_state)
    env = kozel_v0.raw_env(series=True)
    env.reset(seed=0, options={"decks": [molodka_rich_deck(np.random.default_rng(0))] * 2})
    with pytest.raises(ValueError, match="decks"):
        KozelVector(1, {"series": True}).load_state(0, env.game_state)
    state = rules.clone(env.game_state)
    state.decks, state.rng = [], None
    with pytest.raises(ValueError, match="generator"):
        KozelVector(1, {"series": True}).load_state(0, state)
    with pytest.raises(TypeError, match="State"):
        KozelVector(1, {}).load_state(0, "state")


def test_kernel_caches_go_stale_with_what_they_call() -> None:
    """numba's cache checks only a kernel's own file: every kernel also carries the stamps of
    the twin's, the generator's and the rules' files, so an edit there recompiles it."""
    from kiaule_env.kozel import vector as module

    kernels = [f for f in vars(module).values() if isinstance(f, numba.core.dispatcher.Dispatcher)]
    assert len(kernels) >= 20
    for kernel in kernels:
        for path in (compiled.__file__, rng.__file__, rules.__file__):
            assert stamped_with(kernel, path), (kernel.__name__, path)
