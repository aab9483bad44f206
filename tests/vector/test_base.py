"""The batch owner (``kiaule_env.vector``): make's checks, seeds, action checks, auto-reset,
truncation, and the shared harness (``tests/vector_support.py``), on a reference batched env
made of Python envs (``tests/vector/fake.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from kiaule_env import vector
from tests.vector import fake
from tests.vector_support import differential, permutation, random_actions


@pytest.fixture
def highcard(monkeypatch: pytest.MonkeyPatch) -> None:
    fake.use(monkeypatch, "highcard", "PythonVector")


def test_a_game_without_a_batched_env_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="'highcard' has no batched env"):
        vector.make("highcard", num_envs=2)
    with pytest.raises(ValueError, match="unknown game 'nope'"):
        vector.make("nope", num_envs=2)


@pytest.mark.parametrize("num_envs", [0, -3, 2.0, True, "4", None])
def test_num_envs_must_be_a_positive_integer(highcard, num_envs) -> None:
    with pytest.raises(ValueError, match="num_envs must be a positive integer"):
        vector.make("highcard", num_envs=num_envs)


def test_env_keywords_render_mode_refused_max_cycles_checked(highcard) -> None:
    with pytest.raises(ValueError, match="render_mode='ansi': batched envs do not render"):
        vector.make("highcard", num_envs=2, render_mode="ansi")
    with pytest.raises(ValueError, match="max_cycles must be a positive integer"):
        vector.make("highcard", num_envs=2, max_cycles=0)
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        vector.make("highcard", num_envs=2, seed=-1)
    assert vector.make("highcard", num_envs=2, render_mode=None).num_envs == 2


def test_options_reach_the_game_which_validates_them(highcard) -> None:
    with pytest.raises(ValueError, match="'unsupported' is not supported"):
        vector.make("highcard", num_envs=2, unsupported=1)
    with pytest.raises(ValueError, match="hand_size"):
        vector.make("highcard", num_envs=2, hand_size=99)
    venv = vector.make("highcard", num_envs=3, hand_size=2)
    assert all(env.config.hand_size == 2 for env in venv.impl.envs)


def test_the_game_name_is_positional_only(highcard) -> None:
    """An option called ``game`` (Pig's) goes to the game, not to make's first argument."""
    with pytest.raises(TypeError):
        vector.make(game="highcard", num_envs=2)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="game"):
        vector.make("highcard", num_envs=2, game="full")  # highcard has no such option


def test_spaces_and_shapes(highcard) -> None:
    venv = vector.make("highcard", num_envs=5, seed=1)
    obs, info = venv.reset()
    assert obs["observation"].shape == (5, 42) and obs["observation"].dtype == np.float32
    assert obs["action_mask"].shape == (5, 12) and obs["action_mask"].dtype == np.int8
    assert info["agent"].dtype == np.int64 and info["seed"].dtype == np.int64
    assert venv.single_action_space.n == 12
    assert venv.single_observation_space["observation"].shape == (42,)
    assert list(info["final_result"]) == [None] * 5


def test_seeds_come_from_the_batch_seed_in_slot_order(highcard) -> None:
    venv = vector.make("highcard", num_envs=4, seed=7)
    _, info = venv.reset()
    draws = np.random.default_rng(7).integers(0, 2**63, size=12, dtype=np.int64)
    assert info["seed"].tolist() == draws[:4].tolist()
    rng = np.random.default_rng(0)
    obs, _ = venv.reset(seed=7)  # re-seeding replays the same batch
    used = 4
    for _ in range(12):
        obs, _, term, trunc, info = venv.step(random_actions(obs["action_mask"], rng))
        done = np.flatnonzero(term | trunc)
        assert info["seed"][done].tolist() == draws[used : used + done.size].tolist()
        used += done.size
        if used > 8:
            break
    assert used > 4
    again = vector.make("highcard", num_envs=4, seed=7)
    assert again.reset()[1]["seed"].tolist() == draws[:4].tolist()
    other = vector.make("highcard", num_envs=4, seed=8)
    assert other.reset()[1]["seed"].tolist() != draws[:4].tolist()


def test_an_illegal_action_names_slot_action_and_legal_ones_and_changes_nothing(
    highcard,
) -> None:
    venv = vector.make("highcard", num_envs=4, seed=3)
    twin = vector.make("highcard", num_envs=4, seed=3)
    obs, info = venv.reset()
    twin.reset()
    actions = random_actions(obs["action_mask"], np.random.default_rng(0))
    bad = actions.copy()
    illegal = int(np.flatnonzero(obs["action_mask"][2] == 0)[0])
    bad[2] = illegal
    before = (obs["observation"].copy(), obs["action_mask"].copy(), info["agent"].copy())
    legal = np.flatnonzero(obs["action_mask"][2]).tolist()
    seat = info["agent"][2]
    message = f"slot 2: action {illegal} is not legal for player_{seat}; legal actions: {legal}"
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        venv.step(bad)
    assert np.array_equal(obs["observation"], before[0])
    assert np.array_equal(obs["action_mask"], before[1])
    assert np.array_equal(venv.impl.agent, before[2])
    # the refused call changed no slot: the next steps are the twin's
    for _ in range(3):
        a, *rest_a = venv.step(actions)
        b, *rest_b = twin.step(actions)
        assert np.array_equal(a["observation"], b["observation"])
        assert all(np.array_equal(x, y) for x, y in zip(rest_a[:3], rest_b[:3], strict=True))
        actions = random_actions(a["action_mask"], np.random.default_rng(1))


@pytest.mark.parametrize(
    ("actions", "match"),
    [
        (np.zeros(3, np.int64), r"shape \(4,\)"),
        (np.zeros((4, 1), np.int64), r"shape \(4,\)"),
        (np.zeros(4, np.float64), "must be integers"),
        (np.zeros(4, np.bool_), "must be integers"),
        (np.full(4, 12), "slot 0: action 12 is not legal"),
        (np.full(4, -1), "slot 0: action -1 is not legal"),
    ],
)
def test_malformed_actions_are_refused(highcard, actions, match) -> None:
    venv = vector.make("highcard", num_envs=4, seed=0)
    venv.reset()
    with pytest.raises(ValueError, match=match):
        venv.step(actions)


def test_step_before_reset_is_refused(highcard) -> None:
    venv = vector.make("highcard", num_envs=2)
    with pytest.raises(RuntimeError, match="before reset"):
        venv.step(np.zeros(2, np.int64))


@pytest.mark.parametrize("options", [{}, {"hand_size": 1}, {"hand_size": 5}])
def test_reference_batch_passes_the_differential_with_auto_resets(highcard, options) -> None:
    steps = differential("highcard", options, episodes=40, seed=11, num_envs=8)
    assert steps >= 40 * 2 * options.get("hand_size", 4)  # every episode played to its end


def test_max_cycles_truncates_as_the_python_env_and_gives_no_result(highcard) -> None:
    differential("highcard", {"max_cycles": 1}, episodes=20, seed=2, num_envs=4)
    venv = vector.make("highcard", num_envs=3, seed=2, max_cycles=1)
    obs, _ = venv.reset()
    rng = np.random.default_rng(0)
    _, _, term, trunc, info = venv.step(random_actions(obs["action_mask"], rng))
    assert not trunc.any() and not term.any()
    obs, _, term, trunc, info = venv.step(random_actions(obs["action_mask"], rng))
    assert trunc.all() and not term.any()  # two players, one cycle: two agent steps
    assert list(info["final_result"]) == [None] * 3


def test_final_result_is_the_python_envs_result(highcard) -> None:
    venv = vector.make("highcard", num_envs=2, seed=5, hand_size=1)
    obs, _ = venv.reset()
    rng = np.random.default_rng(0)
    results = []
    for _ in range(6):
        obs, _, term, _, info = venv.step(random_actions(obs["action_mask"], rng))
        results += [info["final_result"][i] for i in np.flatnonzero(term)]
    assert results and all(isinstance(r, dict) and r for r in results)


@pytest.mark.parametrize(
    ("cls", "match"), [("Skewed", "observation differs"), ("WrongReward", "rewards")]
)
def test_the_differential_catches_a_wrong_batch(monkeypatch, cls, match) -> None:
    fake.use(monkeypatch, "highcard", cls)
    with pytest.raises(AssertionError, match=match):
        differential("highcard", {}, episodes=20, seed=0, num_envs=4)


def test_permutation_harness_on_the_reference_batch(monkeypatch) -> None:
    fake.use(monkeypatch, "kozel", "KozelPython")
    assert permutation("kozel", {}, positions=6, seed=0) > 0


def test_permutation_harness_catches_a_leak(monkeypatch) -> None:
    fake.use(monkeypatch, "kozel", "Leaky")
    with pytest.raises(AssertionError, match="observation differs"):
        permutation("kozel", {}, positions=6, seed=0)


def test_random_actions_are_legal_and_cover_every_legal_one() -> None:
    mask = np.array([[0, 1, 1, 0], [1, 0, 0, 0], [1, 1, 1, 1]], np.int8)
    rng = np.random.default_rng(0)
    seen = [set() for _ in range(3)]
    for _ in range(200):
        for i, a in enumerate(random_actions(mask, rng)):
            assert mask[i, a] == 1
            seen[i].add(int(a))
    assert seen == [{1, 2}, {0}, {0, 1, 2, 3}]
