"""``render_mode="rgb_array"`` in every game: PettingZoo's render test, the frame's shape and
dtype, one size per episode, frames that follow the game, the same state giving the same frame,
and the omniscient view (a hand's cards are drawn)."""

from __future__ import annotations

import warnings
from itertools import pairwise

import numpy as np
import pytest
from pettingzoo.test import render_test

from kiaule_env import GAMES
from tests.conformance.conftest import variants


def _load(env, state) -> None:
    """Put ``state`` in ``env`` (Pig's AEC env keeps it in its parallel env)."""
    raw = env.unwrapped
    getattr(raw, "parallel", raw).load_state(state)


def _frames(game, options, seed: int = 3, limit: int = 60) -> tuple[list[np.ndarray], object]:
    """The frames of the first ``limit`` steps of a seeded game with random legal moves: one
    after the reset and one after every move (not after the ``None`` steps that retire the
    agents of a finished game: they move nothing)."""
    env = game.env(render_mode="rgb_array", **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    frames = [env.render()]
    for _ in range(limit):
        if not env.agents:
            break
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        frames.append(env.render())
    return frames, env


@variants(default_only=True)
def test_pettingzoo_render_test(game, options):
    env = game.env(**options)
    assert "rgb_array" in env.metadata["render_modes"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        render_test(lambda render_mode=None: game.env(render_mode=render_mode, **options))


@variants()
def test_frames_are_images_of_one_size(game, options):
    frames, _ = _frames(game, options, limit=400)
    height, width, channels = frames[0].shape
    assert channels == 3 and height >= 200 and width >= 400
    for frame in frames:
        assert frame.dtype == np.uint8
        assert frame.shape == (height, width, 3)  # a video needs one size


def _parallel_frames(game, options, seed: int = 3, limit: int = 30) -> list[np.ndarray]:
    """As :func:`_frames` for a native parallel env: a frame per simultaneous step."""
    env = game.load().parallel_env(render_mode="rgb_array", **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    frames = [env.render()]
    while env.agents and len(frames) <= limit:
        masks = {a: env.observe(a)["action_mask"] for a in env.agents}
        env.step({a: int(rng.choice(np.flatnonzero(m))) for a, m in masks.items()})
        frames.append(env.render())
    return frames


@variants(default_only=True)
def test_frames_change_as_the_game_moves(game, options):
    """Every move changes the picture (in Pig every simultaneous step: its AEC env's choices
    before the last agent's are not on the table yet)."""
    if game.parallel:
        frames = _parallel_frames(game, options)
    else:
        frames, _ = _frames(game, options, limit=30)
    assert len(frames) > 5
    for i, (before, after) in enumerate(pairwise(frames)):
        assert not np.array_equal(before, after), f"step {i + 1} left the frame unchanged"


@variants(default_only=True)
def test_same_state_same_frame(game, options):
    frames, env = _frames(game, options, seed=5, limit=25)
    again, _ = _frames(game, options, seed=5, limit=25)
    assert all(np.array_equal(a, b) for a, b in zip(frames, again, strict=True))
    raw = env.unwrapped
    assert np.array_equal(env.render(), env.render())
    other = game.env(render_mode="rgb_array", **options)
    other.reset(seed=11)
    _load(other, raw.engine.clone(raw.game_state))
    assert np.array_equal(other.render(), frames[-1])
    frames[-1][:] = 0  # a frame is the caller's own array, not a shared buffer
    assert not np.array_equal(env.render(), frames[-1])


@variants(default_only=True)
def test_hands_are_drawn_face_up(game, options):
    """The omniscient onlooker's table: cards moved to other places (a redeal of what a seat
    cannot see, ``card_locations`` differing) change the picture."""
    _, env = _frames(game, options, seed=2, limit=12)  # Kiauliaganys starts with empty hands
    raw = env.unwrapped
    engine = raw.engine
    before = env.render()
    places = engine.card_locations(raw.game_state)
    rng = np.random.default_rng(2)
    n = engine.num_players
    redeals = (engine.resample_hidden(raw.game_state, t % n, rng) for t in range(20))
    moved = next(o for o in redeals if engine.card_locations(o) != places)
    _load(env, moved)
    assert not np.array_equal(env.render(), before)


def test_pig_parallel_env_renders_frames():
    env = GAMES["pig"].load().parallel_env(render_mode="rgb_array")
    env.reset(seed=1)
    first = env.render()
    assert first.dtype == np.uint8 and first.ndim == 3 and first.shape[2] == 3
    env.step({a: int(np.flatnonzero(env.observe(a)["action_mask"])[0]) for a in env.agents})
    assert env.render().shape == first.shape
    assert not np.array_equal(env.render(), first)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_unknown_render_mode_names_rgb_array(name):
    with pytest.raises(ValueError, match=r"render_mode='video'.*'rgb_array'"):
        GAMES[name].env(render_mode="video")
