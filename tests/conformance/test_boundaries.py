"""Every env of every game at its boundaries: calls out of order, bad arguments, failed resets,
truncation. Each ends in a clear error of the documented type or in correct behaviour."""

from __future__ import annotations

import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

from kiaule_env import GAMES
from kiaule_env.core.options import NotResetError
from kiaule_env.core.records import GameRecord, ReplayMismatch, replay
from tests.conformance.conftest import variants


def _aec_envs(game):
    """The AEC envs of a game: raw and ``env()``."""
    return [game.raw_env(), game.env()]


def _first_legal(env) -> int:
    return int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])


@variants(default_only=True)
def test_bool_actions_are_refused(game, options):
    for env in _aec_envs(game):
        env.reset(seed=0)
        for flag in (True, False, np.bool_(True)):
            with pytest.raises(ValueError, match="integer index"):
                env.step(flag)
        env.step(_first_legal(env))  # and the env is still usable
    if game.parallel:
        par = game.load().parallel_env()
        par.reset(seed=0)
        with pytest.raises(ValueError, match="integer index"):
            par.step(dict.fromkeys(par.agents, True))


def _before_reset_calls(env, parallel: bool) -> dict:
    calls = {
        "observe()": lambda: env.observe("player_0"),
        "legal_moves()": lambda: env.legal_moves("player_0"),
        "view()": lambda: env.view("player_0"),
        "render()": env.render,
        "step()": lambda: env.step({"player_0": 0} if parallel else 0),
    }
    if not parallel:
        calls["last()"] = env.last
    return calls


@variants(default_only=True)
def test_calls_before_reset_say_to_reset(game, options):
    envs = [(game.raw_env(render_mode="ansi"), False)]
    if game.parallel:
        envs.append((game.load().parallel_env(render_mode="ansi"), True))
    for env, parallel in envs:
        for what, call in _before_reset_calls(env, parallel).items():
            with pytest.raises(NotResetError, match=re.escape(f"{what} called before reset")):
                call()


@variants(default_only=True)
def test_stepping_after_the_episode_warns_like_env(game, options):
    for env in _aec_envs(game):
        env.reset(seed=1)
        for _agent in env.agent_iter():
            _, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else _first_legal(env))
        assert env.agents == []
        state = repr(env.unwrapped.game_state)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            env.step(None)  # PettingZoo's warning, no KeyError
        assert env.agents == [] and repr(env.unwrapped.game_state) == state


@variants(default_only=True)
def test_unknown_agents_are_refused_naming_the_agents(game, options):
    envs = [game.raw_env()]
    if game.parallel:
        envs.append(game.load().parallel_env())
    for env in envs:
        env.reset(seed=0)
        for call in (env.observe, env.legal_moves, env.view):
            with pytest.raises(
                ValueError, match=r"unknown agent 'player_9'; the agents are player_0"
            ):
                call("player_9")


@variants(default_only=True)
def test_mask_and_legal_moves_agree_for_every_agent(game, options):
    env = game.raw_env()
    env.reset(seed=2)
    for _ in range(30):
        if not env.agents:
            break
        for agent in env.possible_agents:
            mask = env.observe(agent)["action_mask"]
            assert sorted(env.legal_moves(agent)) == np.flatnonzero(mask).tolist(), agent
        _, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else _first_legal(env))


@variants(default_only=True)
def test_after_max_cycles_nobody_has_a_mask_or_legal_moves(game, options):
    env = game.raw_env(max_cycles=1)
    env.reset(seed=3)
    while not any(env.truncations.values()):
        env.step(_first_legal(env))
    for agent in env.possible_agents:
        assert not env.observe(agent)["action_mask"].any(), agent
        assert env.legal_moves(agent) == {}, agent


@variants(default_only=True)
def test_a_failed_reset_leaves_the_env_as_it_was(game, options):
    fresh = game.raw_env()
    with pytest.raises(ValueError):
        fresh.reset(seed=0, options={"bogus": 1})
    with pytest.raises(NotResetError):
        fresh.step(0)
    env = game.raw_env()
    env.reset(seed=4)
    env.step(_first_legal(env))
    before = (env.agent_selection, repr(env.game_state), env.observe(env.agent_selection))
    with pytest.raises(ValueError):
        env.reset(seed=5, options={"bogus": 1})
    with pytest.raises(ValueError):
        env.reset(seed=True)
    after = (env.agent_selection, repr(env.game_state), env.observe(env.agent_selection))
    assert before[:2] == after[:2]
    assert np.array_equal(before[2]["observation"], after[2]["observation"])


@variants(default_only=True)
def test_bool_and_negative_seeds_are_refused(game, options):
    env = game.raw_env()
    for seed in (True, False, -1, 1.5, "3"):
        with pytest.raises(ValueError, match="seed must be a non-negative integer"):
            env.reset(seed=seed)


@variants(default_only=True)
def test_validation_survives_python_dash_O(game, options):
    """``assert`` vanishes under ``-O``; an out-of-space action must still be refused."""
    code = (
        "import kiaule_env, sys\n"
        f"env = kiaule_env.GAMES[{game.name!r}].env(); env.reset(seed=0)\n"
        "try:\n    env.step(-1)\nexcept ValueError:\n    sys.exit(0)\nsys.exit(1)\n"
    )
    assert subprocess.run([sys.executable, "-O", "-c", code], check=False).returncode == 0


@variants(default_only=True)
def test_replay_refuses_a_record_of_another_game(game, options):
    other = next(g.env_id for g in GAMES.values() if g is not game)
    record = GameRecord(other, {}, 0, {}, [], None)
    with pytest.raises(ReplayMismatch, match=f"record is of '{other}'"):
        replay(game.raw_env, record)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("5", "a JSON object, got int"),
        ("null", "a JSON object, got NoneType"),
        ("[1, 2]", "a JSON object, got list"),
        (
            '{"env_id": "x", "env_kwargs": {}, "seed": 0, "options": {}, "moves": [], "extra": 1}',
            "unknown field",
        ),
        (
            '{"env_id": "x", "env_kwargs": {}, "seed": 0, "options": {}, "moves": 5}',
            "'moves' must be a list",
        ),
        (
            '{"env_id": "x", "env_kwargs": {}, "seed": 0, "options": {}, "moves": [[1, 2]]}',
            r"move 0 is \[1, 2\]",
        ),
        (
            '{"env_id": "x", "env_kwargs": {}, "seed": true, "options": {}, "moves": []}',
            "'seed' must be an integer",
        ),
        ('{"env_id": "x", "env_kwargs"', "not JSON"),
    ],
)
def test_bad_records_are_refused_naming_what_is_wrong(tmp_path, text, message):
    with pytest.raises(ValueError, match=message):
        GameRecord.from_json(text)
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=str(path)):
        GameRecord.load(path)


@variants(default_only=True)
def test_env_after_a_refused_first_reset_acts_as_never_reset(game, options):
    env = game.env()
    with pytest.raises(ValueError, match="shuffle"):
        env.reset(seed=0, options={"shuffle": True})
    with pytest.raises(AttributeError, match="before reset"):
        _ = env.agents
    with pytest.raises(NotResetError, match=r"step\(\) called before reset"):
        env.step(0)
    env.reset(seed=0)  # a good reset afterwards works as ever
    assert env.agents == env.possible_agents


@variants(default_only=True)
def test_a_refused_reset_after_a_good_one_leaves_the_episode_as_it_was(game, options):
    env = game.env()
    env.reset(seed=1)
    agent, mask = env.agent_selection, env.last()[0]["action_mask"].copy()
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=-1)
    assert env.agent_selection == agent and (env.last()[0]["action_mask"] == mask).all()
    env.step(int(mask.nonzero()[0][0]))  # still playable
