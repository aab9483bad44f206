"""The single-agent wrapper: reward accounting, team play, seats, Pig's parallel steps."""

from __future__ import annotations

import numpy as np
import pytest

from agents.training.pool import OpponentPool
from agents.training.wrapper import LearnerEnv
from tests.training.conftest import (
    expected_return,
    pig_deck,
    require_env,
    shuffled_texts,
)


def play_episode(env: LearnerEnv, rng: np.random.Generator, options: dict) -> tuple:
    """Random legal learner moves; returns (return, rewards list, infos list, acting agents)."""
    env.reset(options=options)
    rewards, acting = [], []
    while True:
        acting.append(env._current)
        mask = env.action_masks()
        assert mask.dtype == bool and mask.any()
        _, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        rewards.append(reward)
        if terminated or truncated:
            assert terminated and not truncated
            return sum(rewards), rewards, info, acting


@pytest.mark.parametrize("seat", [0, 1, 2, 3])
def test_kozel_team_return_equals_seat_reward_on_stacked_series(seat):
    """K14/K15: over a stacked series the team learner's return is exactly its seat's reward,
    paid only when a game ends, and the learner decides for both partners (K1)."""
    require_env("kozel")
    env = LearnerEnv(
        "kozel", {"series": True}, pool=OpponentPool("kozel", {"random": 1.0}), team_play=True
    )
    env.reset(seed=seat)
    rng = np.random.default_rng(seat)
    decks = [shuffled_texts("36", 100 * seat + g) for g in range(8)]
    total, rewards, info, acting = play_episode(
        env, rng, {"seat": seat, "env_options": {"decks": decks}}
    )
    team = {seat, (seat + 2) % 4}
    assert set(env.learner_seats) == team
    assert {int(a.split("_")[1]) for a in acting} == team  # both partners' decisions
    result = info["result"]
    assert total == pytest.approx(expected_return("kozel", result, seat, 4))
    assert result["games"] >= 2  # a series of several games, rewards paid game by game
    assert sum(1 for r in rewards if r != 0) <= result["games"]


def test_kozel_single_seat_learner_plays_only_its_seat():
    require_env("kozel")
    env = LearnerEnv("kozel", pool=OpponentPool("kozel", {"random": 1.0}), team_play=False)
    env.reset(seed=3)
    total, _, info, acting = play_episode(
        env, np.random.default_rng(3), {"seat": 1, "env_options": {"deck": shuffled_texts("36", 9)}}
    )
    assert set(acting) == {"player_1"}
    assert total == pytest.approx(expected_return("kozel", info["result"], 1, 4))


def test_kiauliaganys_no_opponent_outcome_is_credited():
    """G12: over stacked deals the learner gets -1 exactly when it is the swineherd and +1/3
    when another player is; both cases occur."""
    require_env("kiauliaganys")
    env = LearnerEnv("kiauliaganys", {"num_players": 4}, pool=OpponentPool("kiauliaganys"))
    env.reset(seed=11)
    rng = np.random.default_rng(11)
    seen = set()
    for episode in range(24):
        seat = episode % 4
        options = {"seat": seat, "env_options": {"deck": shuffled_texts("52", episode)}}
        total, rewards, info, acting = play_episode(env, rng, options)
        assert set(acting) == {f"player_{seat}"}
        assert all(r == 0 for r in rewards[:-1])
        expected = expected_return("kiauliaganys", info["result"], seat, 4)
        assert total == pytest.approx(expected)
        seen.add(np.sign(expected))
    assert {-1.0, 1.0} <= seen


def test_pig_parallel_return_equals_seat_reward():
    """P2/P9 through the parallel env: a stacked deal where player_1 starts with four aces."""
    require_env("pig")
    env = LearnerEnv("pig", {"num_players": 4}, pool=OpponentPool("pig"))
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    outcomes = set()
    for episode in range(30):
        seat = episode % 4
        options = {"seat": seat, "env_options": {"deck": pig_deck(episode)}}
        total, _, info, _ = play_episode(env, rng, options)
        expected = expected_return("pig", info["result"], seat, 4)
        assert total == pytest.approx(expected)
        outcomes.add(np.sign(expected))
    assert {-1.0, 1.0} <= outcomes


def test_pig_full_game_learner_episode_ends_when_eliminated():
    """P5/P9: in a full game the learner's episode ends when it leaves; its return is then
    -1/(n-1) (eliminated) or +1 (winner)."""
    require_env("pig")
    env = LearnerEnv("pig", {"num_players": 4, "game": "full"}, pool=OpponentPool("pig"))
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    returns = set()
    for _ in range(12):
        total, *_ = play_episode(env, rng, {})
        returns.add(round(total, 6))
    assert returns <= {round(-1 / 3, 6), 1.0, 0.0}
    assert round(-1 / 3, 6) in returns


def test_observation_and_mask_are_the_learners_own():
    require_env("kiauliaganys")
    env = LearnerEnv("kiauliaganys", {"num_players": 4})
    obs, _info = env.reset(seed=0, options={"seat": 2})
    raw = env.env
    engine, state = raw.engine, raw.game_state  # the episode the wrapper's play loop plays
    assert engine.to_act(state) == (2,)
    np.testing.assert_array_equal(obs, engine.observe(state, 2))
    raw.load_state(state)  # the env's own bookkeeping brought to that state shows the same
    assert raw.agent_selection == "player_2"
    np.testing.assert_array_equal(obs, raw.observe("player_2")["observation"])
    np.testing.assert_array_equal(env.action_masks(), raw.observe("player_2")["action_mask"] == 1)
    assert env.observation_space.contains(obs)


def test_same_seed_same_episode():
    require_env("kozel")
    runs = []
    for _ in range(2):
        env = LearnerEnv("kozel", pool=OpponentPool("kozel", {"random": 1.0}))
        env.reset(seed=42)
        rng = np.random.default_rng(0)
        runs.append([play_episode(env, rng, {})[0] for _ in range(3)])
    assert runs[0] == runs[1]


def test_bad_reset_options_and_seat_are_refused():
    require_env("pig")
    with pytest.raises(ValueError, match=r"seat must be 0\.\.3"):
        LearnerEnv("pig", {"num_players": 4}, seat=4)
    env = LearnerEnv("pig", {"num_players": 4})
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(seed=0, options={"deck": []})
    with pytest.raises(ValueError, match="unknown game"):
        LearnerEnv("chess")


def test_learner_illegal_action_raises_naming_the_legal_moves():
    require_env("kozel")
    env = LearnerEnv("kozel", pool=OpponentPool("kozel", {"random": 1.0}))
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.raises(ValueError, match="legal moves"):
        env.step(illegal)


@pytest.mark.parametrize("game", ["pig", "kiauliaganys"])
def test_team_with_copies_pays_the_mean_of_the_learner_and_its_copies(game):
    """``opponents.team_with_copies``: the learner's return is the mean of its seat's and the
    ``self`` seats' rewards (P9, G12), the tournament's score of an agent on two seats; the
    other seats' rewards never count. Without the option it is the seat's own reward."""
    from tests.training.test_pool_policy import tiny_policy

    require_env(game)
    kwargs = {"num_players": 4}
    returns = {}
    for shared in (False, True):
        pool = OpponentPool(game, {"random": 1.0}, lineups={"random self random": 1.0})
        env = LearnerEnv(game, kwargs, pool=pool, team_with_copies=shared)
        pool.add_snapshot(
            tiny_policy(obs=env.observation_space.shape[0], actions=env.action_space.n)
        )
        env.reset(seed=5)
        rng = np.random.default_rng(5)
        totals = []
        for episode in range(16):
            seat = episode % 4
            deck = pig_deck(episode) if game == "pig" else shuffled_texts("52", episode)
            total, _, info, _ = play_episode(
                env, rng, {"seat": seat, "env_options": {"deck": deck}}
            )
            copy = (seat + 2) % 4
            assert env.reward_agents == (
                (f"player_{seat}", f"player_{copy}") if shared else (f"player_{seat}",)
            )
            mine = expected_return(game, info["result"], seat, 4)
            theirs = expected_return(game, info["result"], copy, 4)
            assert total == pytest.approx((mine + theirs) / 2 if shared else mine)
            totals.append(total)
        returns[shared] = totals
    assert returns[True] != returns[False]


def test_team_with_copies_is_refused_for_team_games():
    with pytest.raises(ValueError, match="team_with_copies is for games without teams; kozel"):
        LearnerEnv("kozel", {}, pool=OpponentPool("kozel"), team_with_copies=True)


def test_seat_pairs_learner_plays_every_other_seat_for_their_mean_reward():
    """``opponents.seat_pairs`` (G12 scoring, the two-agent tournament's A B A B seating): the
    learner decides for its seat and the one opposite, its return is the mean of the two
    seats' rewards, and one member plays both seats between."""
    require_env("kiauliaganys")
    pool = OpponentPool("kiauliaganys", {"heuristic": 1.0, "random": 1.0})
    env = LearnerEnv("kiauliaganys", {"num_players": 4}, pool=pool, seat_pairs=True)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    for episode in range(12):
        seat = episode % 4
        deck = shuffled_texts("52", 40 + episode)
        total, _, info, acting = play_episode(
            env, rng, {"seat": seat, "env_options": {"deck": deck}}
        )
        pair = (seat % 2, seat % 2 + 2)
        assert env.learner_seats == pair
        assert set(acting) == {f"player_{s}" for s in pair}  # it decides for both
        assert env.reward_agents == tuple(f"player_{s}" for s in pair)
        others = {env.opponent_names[s] for s in range(4) if s not in pair}
        assert len(others) == 1 and sorted(env.opponents) == [s for s in range(4) if s not in pair]
        rewards = [expected_return("kiauliaganys", info["result"], s, 4) for s in pair]
        assert total == pytest.approx(sum(rewards) / 2)


@pytest.mark.parametrize(
    ("game", "kwargs", "message"),
    [
        ("kozel", {}, "seat_pairs is for games without teams; kozel"),
        ("pig", {"num_players": 4}, "pig is a simultaneous-move game"),
        ("kiauliaganys", {"num_players": 3}, "even number of players.*num_players=3"),
    ],
)
def test_seat_pairs_is_refused_where_it_cannot_seat_the_learner(game, kwargs, message):
    require_env(game)
    with pytest.raises(ValueError, match=message):
        LearnerEnv(game, kwargs, pool=OpponentPool(game), seat_pairs=True)
