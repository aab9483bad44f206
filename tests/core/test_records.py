"""Game records' optional per-move probabilities: written by the play loop for agents with
``act_with_policy``, checked when read, absent (and not required) otherwise."""

from __future__ import annotations

import json
import re

import pytest

from agents import make
from kiaule_env import pig_v0
from kiaule_env.core.play import play_episode
from kiaule_env.core.records import GameRecord, ReplayMismatch, replay_episode, replay_moves

BASE = {"env_id": "kiaule/pig-v0", "env_kwargs": {}, "seed": 1, "options": {}}


def _moves(n: int) -> list[list]:
    return [["player_0", 0, "pass J"] for _ in range(n)]


def test_a_record_without_probabilities_still_reads_and_writes_as_before():
    record = GameRecord.from_dict({**BASE, "moves": _moves(2)})
    assert record.policies is None
    assert "policies" not in json.loads(record.to_json())


def test_probabilities_round_trip_and_bad_ones_are_refused():
    data = {**BASE, "moves": _moves(2), "policies": [None, {"0": 0.25, "3": 0.75}]}
    record = GameRecord.from_json(json.dumps(data))
    assert GameRecord.from_json(record.to_json()).policies == [None, {"0": 0.25, "3": 0.75}]
    for bad, says in (
        ([None], "one entry per move (2)"),
        ([None, {"0": 1.5}], "policies[1]"),
        ([None, {"x": 1.0}], "policies[1]"),
        ("all", "one entry per move"),
    ):
        with pytest.raises(ValueError, match="not a game record: .*" + re.escape(says)):
            GameRecord.from_dict({**BASE, "moves": _moves(2), "policies": bad}, "here")


@pytest.mark.parametrize("api", [False, True])
def test_the_play_loop_records_the_probabilities_of_agents_that_give_them(api):
    players = [make("pig/random", seed=1), make("pig/heuristic", seed=2)] * 2
    env = pig_v0.env() if api else pig_v0.parallel_env()
    episode = play_episode(env, players, seed=3, record=True, api=api)
    assert episode.policies is not None and len(episode.policies) == len(episode.moves)
    for (agent, action, _), policy in zip(episode.moves, episode.policies, strict=True):
        if agent in ("player_1", "player_3"):  # pig/heuristic: act_with_policy
            assert policy is not None and policy.get(action, 0.0) > 0.0
            assert sum(policy.values()) == pytest.approx(1.0)
        else:
            assert policy is None
    # without recording, or without such agents, nothing is collected
    assert play_episode(env, players, seed=3, api=api).policies is None
    randoms = [make("pig/random", seed=s) for s in range(4)]
    assert play_episode(env, randoms, seed=3, record=True, api=api).policies is None


def test_replay_moves_checks_the_moves_not_the_result_and_names_the_move_at_fault():
    players = [make("pig/heuristic", seed=s) for s in range(4)]
    episode = play_episode(pig_v0.raw_env(), players, seed=3, record=True)
    record = GameRecord.from_dict({**BASE, "seed": 3, "moves": episode.moves})
    record.result = {"pig": "nobody"}  # not what the game gave
    for api in (False, True):
        replayed = replay_moves(pig_v0.raw_env(), record, api=api)
        assert (replayed.result, replayed.rewards) == (episode.result, episode.rewards)
    with pytest.raises(ReplayMismatch, match="result differs") as err:
        replay_episode(pig_v0.raw_env, record)
    assert err.value.move is None
    agent, action, _ = record.moves[2]
    record.moves[2] = [agent, action, "pass X"]
    with pytest.raises(ReplayMismatch) as err:
        replay_moves(pig_v0.raw_env(), record, api=True)
    assert err.value.move == 2 and str(err.value) == f"move 2: {err.value.problem}"
    assert err.value.problem.startswith(f"recorded {action} = 'pass X', env has ")
