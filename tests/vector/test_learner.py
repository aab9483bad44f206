"""The training adapters: stepping some slots (``active``), the single-learner view
(``vector.SingleLearner``) and the SB3 vector env (``kiaule_env.vector.sb3``)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import kiaule_env
from kiaule_env import vector
from tests.vector import fake


@pytest.mark.parametrize("cls", ["PythonVector", "Counter"])  # partial steps / the fallback
def test_only_active_slots_move(monkeypatch, cls) -> None:
    fake.use(monkeypatch, "highcard", cls)
    venv = vector.make("highcard", num_envs=6, seed=4)
    twin = vector.make("highcard", num_envs=6, seed=4)
    obs, _ = venv.reset()
    twin.reset()
    active = np.array([True, False, True, False, False, True])
    actions = vector.random_legal(obs["action_mask"], np.random.default_rng(0))
    before = {k: v.copy() for k, v in obs.items()}
    agent = venv.impl.agent.copy()
    masked = actions.copy()
    masked[~active] = 99  # ignored where the slot waits
    obs, rewards, term, trunc, _ = venv.step(masked, active=active)
    full, full_rewards, *_ = twin.step(actions)
    assert np.array_equal(obs["observation"][~active], before["observation"][~active])
    assert np.array_equal(obs["action_mask"][~active], before["action_mask"][~active])
    assert np.array_equal(venv.impl.agent[~active], agent[~active])
    assert np.array_equal(obs["observation"][active], full["observation"][active])
    assert np.array_equal(rewards[active], full_rewards[active])
    assert not rewards[~active].any() and not (term | trunc)[~active].any()
    with pytest.raises(ValueError, match="slot 0: action 99"):
        venv.step(np.full(6, 99), active=active)
    with pytest.raises(ValueError, match="active must be a bool array"):
        venv.step(actions, active=np.ones(6, np.int64))


def test_waiting_slots_count_no_step_towards_max_cycles(monkeypatch) -> None:
    fake.use(monkeypatch, "highcard", "PythonVector")
    venv = vector.make("highcard", num_envs=2, seed=0, max_cycles=1)
    obs, _ = venv.reset()
    rng = np.random.default_rng(0)
    only_first = np.array([True, False])
    for _ in range(2):
        obs, _, _, trunc, _ = venv.step(vector.random_legal(obs["action_mask"], rng), only_first)
    assert trunc.tolist() == [True, False]


def _highcard_learner(monkeypatch, seats, num_envs=16):
    fake.use(monkeypatch, "highcard", "PythonVector")
    venv = vector.make("highcard", num_envs=num_envs, seed=1, hand_size=2)
    return vector.SingleLearner(venv, seats, vector.random_opponent(2))


@pytest.mark.parametrize("seat", [0, 1])
def test_single_learner_gets_every_turn_and_its_rewards(monkeypatch, seat) -> None:
    """High card pays ±1 at the end (H6): the learner's reward is its seat's, whether its own
    move or an opponent's ended the game; it is to act in every slot after every call."""
    env = _highcard_learner(monkeypatch, [seat])
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(40):
        assert (info["agent"] == seat).all()
        assert np.array_equal(env.action_masks(), obs["action_mask"].astype(bool))
        actions = vector.random_legal(obs["action_mask"], rng)
        obs, reward, term, trunc, info = env.step(actions)
        assert reward.dtype == np.float32 and not trunc.any()
        for i in range(env.num_envs):
            result = info["final_result"][i]
            if term[i]:
                winner = result["winner"]
                assert reward[i] == (0.0 if winner is None else (1.0 if winner == seat else -1.0))
                ends += 1
            else:
                assert result is None and reward[i] == 0.0
    assert ends > 100


def test_single_learner_spaces_and_checks(monkeypatch) -> None:
    env = _highcard_learner(monkeypatch, [0], num_envs=3)
    assert env.observation_space["observation"].shape == (3, 42)
    assert env.action_space.shape == (3,)
    assert env.single_action_space.n == 12
    with pytest.raises(ValueError, match=r"learner_seats must be seats in 0..1"):
        vector.SingleLearner(env.venv, [2], vector.random_opponent())
    with pytest.raises(ValueError, match="learner_seats"):
        vector.SingleLearner(env.venv, [], vector.random_opponent())
    with pytest.raises(ValueError, match="opponent must be callable"):
        vector.SingleLearner(env.venv, [0], None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="reset options"):
        env.reset(options={"deck": []})


def test_sb3_vec_env_offers_masks_to_maskable_ppo(monkeypatch) -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    from kiaule_env.vector.sb3 import SB3VecEnv

    env = SB3VecEnv(_highcard_learner(monkeypatch, [0], num_envs=8))
    env.seed(5)
    obs = env.reset()
    assert obs.shape == (8, 42) and is_masking_supported(env)
    masks = get_action_masks(env)
    assert masks.shape == (8, 12) and masks.dtype == bool and masks.any(axis=1).all()
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=0)
    model.learn(256)
    assert model.num_timesteps >= 256
    env.seed(5)
    assert np.array_equal(env.reset(), obs)  # seeded: the same batch again


def test_single_learner_on_kozel_plays_a_team_and_maskable_ppo_learns_on_it() -> None:
    """The real Kozel batch (K1: seats 0 and 2 are partners and share their reward): the
    learner is to act in every slot after every call, its reward is the team's, and
    ``MaskablePPO`` trains through the SB3 adapter (an illegal masked move would raise)."""
    pytest.importorskip("numba")
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from kiaule_env.vector.sb3 import SB3VecEnv

    venv = vector.make("kozel", num_envs=32, seed=0)
    env = vector.SingleLearner(venv, [0, 2], vector.random_opponent(0))
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(1)
    ends = 0
    for _ in range(60):
        assert np.isin(info["agent"], [0, 2]).all()
        obs, reward, term, trunc, info = env.step(vector.random_legal(obs["action_mask"], rng))
        assert not reward[~(term | trunc)].any()  # Kozel pays at the game's end (K15)
        ends += int(term.sum())
    assert ends > 10
    model = MaskablePPO("MlpPolicy", SB3VecEnv(env), n_steps=16, batch_size=128, n_epochs=1, seed=0)
    model.learn(512)
    assert model.num_timesteps >= 512


def test_single_learner_on_pig_waits_through_the_simultaneous_step() -> None:
    """Pig (P2) is presented one seat at a time: after each learner move the three other seats
    of the same passing step move, and the learner is to act again; a round pays at its end
    (P9: the pig −1, the others +1/3; P4: 0 for a capped round without a pig)."""
    pytest.importorskip("numba")
    venv = vector.make("pig", num_envs=32, seed=0, num_players=4)
    env = vector.SingleLearner(venv, [0], vector.random_opponent(0))
    obs, info = env.reset(seed=1)
    rng = np.random.default_rng(1)
    payouts = set()
    for _ in range(150):
        assert (info["agent"] == 0).all()
        obs, reward, term, trunc, info = env.step(vector.random_legal(obs["action_mask"], rng))
        assert not reward[~term].any() and not trunc.any()
        payouts |= {round(float(r), 6) for r in reward[term]}
    assert payouts and payouts <= {-1.0, round(1 / 3, 6), 0.0}
    assert -1.0 in payouts and round(1 / 3, 6) in payouts


def test_single_learner_per_slot_seats_from_the_episode_hook(monkeypatch) -> None:
    """``on_episodes`` redraws each new episode's learner seat: the learner is to act at its
    slot's seat after every call, and its reward is that seat's (H6: ±1 at the end)."""
    fake.use(monkeypatch, "highcard", "PythonVector")
    venv = vector.make("highcard", num_envs=16, seed=1, hand_size=2)
    draws = np.random.default_rng(5)
    started: list[np.ndarray] = []
    env: vector.SingleLearner

    def redraw(slots: np.ndarray) -> None:
        started.append(slots.copy())
        seats = draws.integers(2, size=slots.size)
        env.learner_mask[slots] = False
        env.learner_mask[slots, seats] = True
        env.reward_weights[slots] = 0.0
        env.reward_weights[slots, seats] = 1.0

    env = vector.SingleLearner(venv, [0], vector.random_opponent(2), on_episodes=redraw)
    obs, info = env.reset(seed=3)
    assert np.array_equal(started[0], np.arange(16))
    rng = np.random.default_rng(0)
    seen, ends = set(), 0
    for _ in range(40):
        seat = env.learner_mask.argmax(axis=1)
        assert np.array_equal(info["agent"], seat)
        seen.update(seat.tolist())
        obs, reward, term, _, info = env.step(vector.random_legal(obs["action_mask"], rng))
        for i in np.flatnonzero(term):
            winner = info["final_result"][i]["winner"]
            assert reward[i] == (0.0 if winner is None else (1.0 if winner == seat[i] else -1.0))
            ends += 1
        assert not reward[~term].any()
    assert seen == {0, 1} and ends > 100
    assert sum(s.size for s in started[1:]) >= ends  # every finished slot was redrawn
    assert env.timing["env"] > 0 and env.timing["opponents"] > 0
    with pytest.raises(ValueError, match="on_episodes must be callable"):
        vector.SingleLearner(venv, [0], vector.random_opponent(2), on_episodes=3)


def test_single_learner_reads_the_seats_of_games_the_hook_loads() -> None:
    """``on_episodes`` may load other games into its slots (Kozel: one move into a deal, so
    player_1 is to act where the batch's own deal had player_0): the view reads those seats
    again, lets the opponents move there, and hands every slot back with the learner (its team,
    K1) to act."""
    pytest.importorskip("numba")
    from gymnasium.utils import seeding

    venv = vector.make("kozel", num_envs=8, seed=0)
    engine = kiaule_env.get_game("kozel").make_engine()
    loaded: list[int] = []

    def load(slots: np.ndarray) -> None:
        for slot in slots.tolist()[::2]:
            state = engine.new_episode(seeding.np_random(slot + 100 * len(loaded))[0], {})
            engine.apply(state, (engine.legal_actions(state, 0)[0],))
            venv.impl.load_state(slot, state)
            loaded.append(slot)

    seen: list[np.ndarray] = []

    def opponent(obs, mask, agent, slots):
        assert np.array_equal(agent, venv.impl.agent[slots]) and (agent != 0).all()
        seen.append(slots.copy())
        return vector.random_legal(mask, np.random.default_rng(0))

    env = vector.SingleLearner(venv, [0, 2], opponent, on_episodes=load)
    obs, info = env.reset(seed=1)
    assert loaded == [0, 2, 4, 6] and np.array_equal(seen[0], [0, 2, 4, 6])
    assert np.array_equal(info["agent"], [2, 0, 2, 0, 2, 0, 2, 0])  # the learner's team
    assert np.array_equal(info["agent"], venv.impl.agent)
    rng = np.random.default_rng(2)
    for _ in range(60):
        obs, _, _, _, info = env.step(vector.random_legal(obs["action_mask"], rng))
        assert np.array_equal(info["agent"], venv.impl.agent)
        assert np.isin(info["agent"], [0, 2]).all()
    assert len(loaded) > 8


class _PlainSums(vector.SingleLearner):
    """An opponents' step counted in the plain form: a ``where`` and a sum in every slot."""

    def _collect(self, rewards, term, trunc, info, reward, terminated, truncated, final) -> None:
        gained = self._learner(rewards)
        done = terminated | truncated
        reward += np.where(done, 0.0, gained).astype(np.float32)
        self._carry += np.where(done, gained, 0.0).astype(np.float32)
        ended = term | trunc
        fresh = ended & ~done
        final[fresh] = info["final_result"][fresh]
        terminated |= term & ~done
        truncated |= trunc & ~done
        self._carry[ended & done] = 0.0
        self._started(np.flatnonzero(ended), info)


class Paying(fake.PythonVector):
    """High card that also pays every seat 0.1 × (seat + 1) for every move (rewards within
    an episode, before the learner's first move)."""

    def step(self, actions: np.ndarray, rewards: np.ndarray, terminated: np.ndarray) -> None:
        super().step(actions, rewards, terminated)
        rewards[actions >= 0] += 0.1 * np.arange(1, self.num_players + 1, dtype=np.float32)


def _weighted_run(cls: type, game: str, options: dict, steps: int) -> list[bytes]:
    """Every call's reward, ends, results and carry of ``cls`` on ``game``. Each episode
    redraws the learner's seat, or gives it none (its episode passes between two of its
    moves); two seats share its reward 0.3 / 0.7 (float32 sums that round)."""
    venv = vector.make(game, num_envs=16, seed=2, **options)
    draws = np.random.default_rng(7)
    n = venv.num_players

    def redraw(slots: np.ndarray) -> None:
        seats = draws.integers(n, size=slots.size)
        env.learner_mask[slots] = False
        plays = draws.random(slots.size) < 0.75
        env.learner_mask[slots[plays], seats[plays]] = True
        env.reward_weights[slots] = 0.0
        env.reward_weights[slots, seats] = 0.3
        env.reward_weights[slots, (seats + 1) % n] = 0.7

    env = cls(venv, [0], vector.random_opponent(3), on_episodes=redraw)
    obs, _ = env.reset(seed=4)
    rng = np.random.default_rng(0)
    seen = []
    for _ in range(steps):
        obs, reward, term, trunc, info = env.step(vector.random_legal(obs["action_mask"], rng))
        results = repr(info["final_result"].tolist()).encode()
        seen.append(reward.tobytes() + term.tobytes() + trunc.tobytes() + results)
        seen.append(env._carry.tobytes())
    return seen


@pytest.mark.parametrize(("game", "options"), [("paying", {}), ("pig", {"game": "full"})])
def test_opponents_steps_count_as_the_plain_sums_bit_for_bit(monkeypatch, game, options):
    """The single-learner view skips the additions of 0.0 that change nothing: its rewards,
    ends, results and carried rewards are, bit for bit, those of the plain form (High card
    paying every move: rewards carried into the learner's next move, episodes that start
    and end between two; Pig's full game, P5: rounds paid while the learner's seat has
    left)."""
    if game == "paying":
        game = "highcard"
        patched = replace(kiaule_env.GAMES[game], vector="tests.vector.test_learner:Paying")
        monkeypatch.setitem(kiaule_env.GAMES, game, patched)
    else:
        pytest.importorskip("numba")
    fast = _weighted_run(vector.SingleLearner, game, options, 60)
    assert fast == _weighted_run(_PlainSums, game, options, 60)
    carried = [np.frombuffer(c, np.float32) for c in fast[1::2]]
    assert game == "pig" or any(c.any() for c in carried)


@pytest.mark.parametrize(
    ("game", "options"), [("kozel", {}), ("kiauliaganys", {"num_players": 4}), ("pig", {})]
)
def test_state_restores_the_batch_exactly(game, options) -> None:
    """``get_state``/``set_state``: a batch restored into another (other seed, other games)
    continues exactly as the original: same observations, rewards, seeds and results."""
    venv = vector.make(game, num_envs=8, seed=1, **options)
    obs, _ = venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(25):
        obs, *_ = venv.step(vector.random_legal(obs["action_mask"], rng))
    state = venv.get_state()
    other = vector.make(game, num_envs=8, seed=9, **options)
    other.reset()
    other.set_state(state)
    ra, rb = np.random.default_rng(3), np.random.default_rng(3)
    for _ in range(150):
        a = venv.step(vector.random_legal(venv.impl.mask, ra))
        b = other.step(vector.random_legal(other.impl.mask, rb))
        assert np.array_equal(a[0]["observation"], b[0]["observation"])
        assert np.array_equal(a[0]["action_mask"], b[0]["action_mask"])
        assert all(np.array_equal(x, y) for x, y in zip(a[1:4], b[1:4], strict=True))
        assert np.array_equal(a[4]["seed"], b[4]["seed"])
        assert list(a[4]["final_result"]) == list(b[4]["final_result"])
    with pytest.raises(ValueError, match="batch of 8 kozel games"):
        vector.make("kozel", num_envs=4, seed=0).set_state(
            vector.make("kozel", num_envs=8, seed=0).get_state()
        )
    with pytest.raises(ValueError, match="not a batched env state"):
        venv.set_state({"data": {"format": 1}})
