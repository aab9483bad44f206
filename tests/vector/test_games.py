"""Every game's batched env keeps the batch contract (``docs/vector.md``): its spaces are the
env's, a seed fixes the batch, slot ``i`` deals ``raw_env().reset(seed=info["seed"][i])``'s game,
an illegal action is refused naming the slot, and its state size is reported. The step-by-step
agreement with the Python env is each game's differential test (``tests/<game>/test_vector.py``).
"""

from __future__ import annotations

import numpy as np
import pytest

from kiaule_env import GAMES, vector

pytest.importorskip("numba")
GAMES_WITH_VECTOR = [name for name in GAMES if GAMES[name].vector]


@pytest.mark.parametrize("game", GAMES_WITH_VECTOR)
def test_spaces_seeds_and_first_observations_are_the_envs(game) -> None:
    venv = vector.make(game, num_envs=6, seed=3)
    env = GAMES[game].raw_env()
    space = env.observation_space(env.possible_agents[0])
    assert venv.single_observation_space["observation"] == space["observation"]
    assert venv.single_action_space == env.action_space(env.possible_agents[0])
    assert venv.num_players == len(env.possible_agents)
    obs, info = venv.reset()
    assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
    for i in range(6):
        env.reset(seed=int(info["seed"][i]))
        agent = env.agent_selection
        assert info["agent"][i] == env.agent_name_mapping[agent]
        assert np.array_equal(obs["observation"][i], env.observe(agent)["observation"])
        assert np.array_equal(obs["action_mask"][i], env.observe(agent)["action_mask"])
    first = obs["observation"].copy()
    again = vector.make(game, num_envs=6, seed=3).reset()[0]["observation"]
    assert np.array_equal(again, first)
    # another seed deals other games (compared by state: in Elgeta every deal looks the same
    # before the first card, since each seat's suit is public, E2)
    other = vector.make(game, num_envs=6, seed=4)
    other.reset()
    assert not np.array_equal(other.impl.state, venv.impl.state)
    assert 0 < venv.state_bytes() <= 64 * 1024


@pytest.mark.parametrize("game", GAMES_WITH_VECTOR)
def test_an_illegal_action_is_refused_naming_the_slot(game) -> None:
    venv = vector.make(game, num_envs=3, seed=0)
    obs, _ = venv.reset()
    actions = vector.random_legal(obs["action_mask"], np.random.default_rng(0))
    illegal = np.flatnonzero(obs["action_mask"][1] == 0)
    if illegal.size == 0:
        pytest.skip("every action is legal here")
    actions[1] = illegal[0]
    before = obs["observation"].copy()
    with pytest.raises(ValueError, match=f"slot 1: action {illegal[0]} is not legal"):
        venv.step(actions)
    assert np.array_equal(obs["observation"], before)
