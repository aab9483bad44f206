"""Opponent pool draws and snapshots; the numpy actor agrees with SB3's masked policy."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from agents.training.evaluate import _intervals, evaluate
from agents.training.policy import NumpyPolicy, PolicyAgent
from agents.training.pool import OpponentPool
from tests.training.conftest import require_env


def tiny_policy(obs: int = 3, actions: int = 4, seed: int = 0) -> NumpyPolicy:
    rng = np.random.default_rng(seed)
    layers = [(rng.normal(size=(5, obs)).astype(np.float32), rng.normal(size=5).astype(np.float32))]
    head = (rng.normal(size=(actions, 5)).astype(np.float32), np.zeros(actions, np.float32))
    return NumpyPolicy(layers, head, "tanh")


def test_pool_mix_draw_frequencies_and_self_fallback():
    pool = OpponentPool("pig", {"random": 1.0, "self": 3.0}, max_snapshots=2)
    rng = np.random.default_rng(0)
    assert {pool.draw(rng) for _ in range(50)} == {"pig/random"}  # no snapshot yet
    pool.add_snapshot(tiny_policy())
    counts = Counter(pool.draw(rng) for _ in range(4000))
    assert counts["self:0"] == pytest.approx(3000, abs=150)
    assert counts["pig/random"] == pytest.approx(1000, abs=150)


def test_pool_keeps_newest_snapshots_and_round_trips_arrays():
    pool = OpponentPool("pig", {"self": 1.0}, max_snapshots=2)
    for seed in range(3):
        pool.add_snapshot(tiny_policy(seed=seed).to_arrays())
    assert [s for s, _ in pool.snapshots] == [1, 2]
    assert {pool.draw(np.random.default_rng(i)) for i in range(40)} == {"self:1", "self:2"}
    again = NumpyPolicy.from_arrays(pool.snapshot_arrays()[-1])
    obs = np.array([0.1, -0.2, 0.3], np.float32)
    np.testing.assert_allclose(again.logits(obs), tiny_policy(seed=2).logits(obs), rtol=1e-6)


def test_pool_refuses_bad_mixes():
    with pytest.raises(ValueError, match="at least one positive weight"):
        OpponentPool("pig", {"random": 0})
    with pytest.raises(ValueError, match=">= 0"):
        OpponentPool("pig", {"random": -1})
    with pytest.raises(ValueError, match="unknown opponent 'pig/wizard'"):
        OpponentPool("pig", {"wizard": 1})
    with pytest.raises(ValueError, match="not a pig agent"):
        OpponentPool("pig", {"kozel/random": 1})


def test_numpy_actor_matches_sb3_masked_policy():
    """The numpy copy picks exactly the action MaskablePPO's deterministic predict picks."""
    import gymnasium as gym
    import torch
    from sb3_contrib import MaskablePPO

    class Box(gym.Env):
        observation_space = gym.spaces.Box(-1, 1, (6,), np.float32)
        action_space = gym.spaces.Discrete(5)

        def reset(self, seed=None, options=None):
            return np.zeros(6, np.float32), {}

        def step(self, action):
            return np.zeros(6, np.float32), 0.0, True, False, {}

        def action_masks(self):
            return np.ones(5, bool)

    for activation in (torch.nn.Tanh, torch.nn.ReLU):
        model = MaskablePPO(
            "MlpPolicy",
            Box(),
            seed=1,
            policy_kwargs={"net_arch": [16, 8], "activation_fn": activation},
            device="cpu",
        )
        actor = NumpyPolicy.from_sb3(model.policy)
        rng = np.random.default_rng(0)
        for _ in range(50):
            obs = rng.uniform(-1, 1, 6).astype(np.float32)
            mask = rng.random(5) < 0.6
            mask[rng.integers(5)] = True
            expected, _ = model.predict(obs, action_masks=mask, deterministic=True)
            assert actor.act(obs, mask) == int(expected)
        # sampling never leaves the mask
        mask = np.array([0, 1, 0, 1, 0], bool)
        assert {actor.act(obs, mask, rng, deterministic=False) for _ in range(60)} == {1, 3}


def test_policy_agent_refuses_decisions_of_another_shape():
    from agents.base import Decision

    agent = PolicyAgent(tiny_policy(obs=3, actions=4), name="pig/ppo")
    bad = Decision("player_0", np.zeros(7, np.float32), np.ones(4, np.int8), None, {})
    with pytest.raises(ValueError, match="trained for another game or player count"):
        agent.act(bad)


def test_evaluation_intervals_are_t_over_deals_and_win_rates_stay_in_0_1():
    """Mean reward: Student's t over per-deal means; win rate: a share's interval in [0, 1]."""
    from scipy import stats

    rewards = np.array([[1.0, 1.0], [-1.0, 1.0], [1.0, 1.0], [1.0, -1.0]])
    mean, half, win, (lo, hi) = _intervals(rewards)
    deal_means = rewards.mean(axis=1)
    assert mean == pytest.approx(0.5)
    assert half == pytest.approx(stats.t.ppf(0.975, 3) * stats.sem(deal_means))
    assert win == pytest.approx(0.75)
    assert 0.0 <= lo < win < hi <= 1.0  # a symmetric normal interval would pass 1
    # every deal won: still an interval, not the point [1, 1]
    _, _, win, (lo, hi) = _intervals(np.ones((3, 2)))
    assert win == 1.0 and hi == 1.0 and 0.0 < lo < 1.0
    # one deal: no spread to estimate
    _, half, _, (lo, hi) = _intervals(np.array([[1.0, -1.0]]))
    assert half == float("inf") and (lo, hi) == (0.0, 1.0)


def test_evaluate_rotates_seats_on_the_same_deals():
    """Random vs random: every deal is played once per seat, the sides' rewards are mirrored."""
    require_env("pig")
    result = evaluate("pig", "pig/random", "pig/random", deals=10, env_kwargs={"num_players": 4})
    assert (result.games, result.deals) == (40, 10)
    assert len(result.per_side_mean) == 4
    assert -1.0 <= result.mean_reward <= 1 / 3
    require_env("kozel")
    kozel = evaluate("kozel", "kozel/random", "kozel/random", deals=5)
    assert (kozel.games, len(kozel.per_side_mean)) == (10, 2)  # team play: two sides


def test_lineups_seat_their_members_clockwise_from_the_learner():
    """``opponents.lineups``: a snapshot opposite the learner between heuristics."""
    from agents.training.wrapper import LearnerEnv

    pool = OpponentPool(
        "pig", {"heuristic": 1.0}, lineups={"heuristic self random": 1.0}, max_snapshots=2
    )
    env = LearnerEnv("pig", {"num_players": 4}, pool=pool)
    env.reset(seed=0)  # before the first snapshot "self" plays random (as in the mix)
    assert sorted(env.opponent_names.values()) == ["pig/heuristic", "pig/random", "pig/random"]
    obs_size = env.observation_space.shape[0]
    pool.add_snapshot(tiny_policy(obs=obs_size, actions=env.action_space.n))
    for seed in range(8):
        env.reset(seed=seed)
        (me,) = env.learner_seats
        names = {(s - me) % 4: name for s, name in env.opponent_names.items()}
        assert names == {1: "pig/heuristic", 2: "self:0", 3: "pig/random"}
    assert pool.describe()["lineups"] == {"pig/heuristic self pig/random": 1.0}


def test_lineups_without_self_are_drawn_before_the_first_snapshot():
    pool = OpponentPool(
        "pig", {"heuristic": 1.0}, lineups={"self self self": 3.0, "random heuristic random": 1.0}
    )
    rng = np.random.default_rng(0)
    assert {pool.draw_lineup(rng) for _ in range(20)} == {
        ("pig/random", "pig/heuristic", "pig/random")
    }
    pool.add_snapshot(tiny_policy())
    counts = Counter(pool.draw_lineup(rng) for _ in range(2000))
    assert counts[("self:0",) * 3] == pytest.approx(1500, abs=90)


def test_lineups_are_checked():
    from agents.training.wrapper import LearnerEnv

    with pytest.raises(ValueError, match="unknown opponent 'pig/nobody'"):
        OpponentPool("pig", {"heuristic": 1.0}, lineups={"heuristic nobody heuristic": 1.0})
    with pytest.raises(ValueError, match="at least one positive weight"):
        OpponentPool("pig", {"heuristic": 1.0}, lineups={"heuristic self heuristic": 0.0})
    pool = OpponentPool("pig", {"heuristic": 1.0}, lineups={"heuristic heuristic": 1.0})
    with pytest.raises(ValueError, match="has 2 members; this game has 3 opposing side"):
        LearnerEnv("pig", {"num_players": 4}, pool=pool)
    kozel = OpponentPool("kozel", {"heuristic": 1.0}, lineups={"heuristic": 1.0})
    LearnerEnv("kozel", {}, pool=kozel)  # team play: one opposing side, the other team


class _Recorder:
    """A random agent that logs, under its ``tag``, every seat it decides for and every reset
    (each episode starts by resetting every seat's agent)."""

    def __init__(self, game: str, tag: str, log: list, seed: int):
        import agents

        self.inner = agents.make(f"{game}/random", seed=seed)
        self.name, self.tag, self.log = self.inner.name, tag, log

    def reset(self) -> None:
        self.log.append(("reset", self.tag))
        self.inner.reset()

    def act(self, decision) -> int:
        self.log.append((self.tag, decision.agent))
        return self.inner.act(decision)


def _seats_per_game(log: list) -> list[dict[str, set]]:
    """The seats each tag decided for, game by game (a game starts at a run of resets)."""
    games: list[dict[str, set]] = []
    previous = None
    for tag, seat in log:
        if tag == "reset":
            if previous != "reset":
                games.append({})
        else:
            games[-1].setdefault(tag, set()).add(seat)
        previous = tag
    return games


def test_alternate_seating_puts_the_agent_on_every_other_seat():
    """``seating="alternate"``: each deal is played twice, the agent on seats 0 and 2, then on
    1 and 3 (the two-agent tournament's seating), the opponent on the others."""
    require_env("kiauliaganys")
    log: list = []
    result = evaluate(
        "kiauliaganys",
        lambda s: _Recorder("kiauliaganys", "agent", log, s),
        lambda s: _Recorder("kiauliaganys", "opponent", log, s),
        deals=2,
        env_kwargs={"num_players": 4},
        seating="alternate",
    )
    assert (result.games, result.deals, len(result.per_side_mean)) == (4, 2, 2)
    first, second = {"player_0", "player_2"}, {"player_1", "player_3"}
    expected = [first, second] * 2
    games = _seats_per_game(log)
    assert [g["agent"] for g in games] == expected
    assert [g["opponent"] for g in games] == [second, first] * 2
    # the default seats it on one seat per game, every seat in turn
    log.clear()
    evaluate(
        "kiauliaganys",
        lambda s: _Recorder("kiauliaganys", "agent", log, s),
        lambda s: _Recorder("kiauliaganys", "opponent", log, s),
        deals=1,
        env_kwargs={"num_players": 4},
    )
    assert [g["agent"] for g in _seats_per_game(log)] == [{f"player_{s}"} for s in range(4)]


def test_alternate_seating_needs_an_even_number_of_players():
    require_env("kiauliaganys")
    with pytest.raises(ValueError, match=r"needs an even number of players.*num_players=3"):
        evaluate(
            "kiauliaganys",
            "kiauliaganys/random",
            "kiauliaganys/random",
            deals=1,
            env_kwargs={"num_players": 3},
            seating="alternate",
        )
    with pytest.raises(ValueError, match="seating must be one of one, alternate, got 'pairs'"):
        evaluate("kiauliaganys", "kiauliaganys/random", "kiauliaganys/random", 1, seating="pairs")
