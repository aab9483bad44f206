"""The batched rollout collector (``collector: vector``, ``agents.training.batched``): the same
semantics as ``LearnerEnv`` (seat drawn per episode, team play K1, lineups clockwise from the
learner's left, the copies' reward), batched opponents, refusals, and training runs on it:
``kiaule train --set collector=vector``, reproducible, resumed exactly."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.training.batched import LEARNER, BatchActor, BatchedCollector, policy_actions
from agents.training.callbacks import StopRequest
from agents.training.policy import NumpyPolicy
from agents.training.pool import OpponentPool
from experiments import train as train_mod
from experiments.cli import main as cli_main
from tests.training.test_resume_exact import full_and_resumed, same_weights


def collector(game, mix=None, lineups=None, slots=32, **kwargs) -> BatchedCollector:
    players = {"kozel": {}, "kiauliaganys": {"num_players": 4}, "pig": {"num_players": 4}}
    pool = OpponentPool(game, mix or {"random": 1.0}, lineups=lineups)
    return BatchedCollector(game, players[game], pool, slots, seed=3, **kwargs)


def tiny_policy(obs_size: int, actions: int, seed: int = 0) -> NumpyPolicy:
    rng = np.random.default_rng(seed)
    layer = (rng.normal(size=(8, obs_size)).astype(np.float32), np.zeros(8, np.float32))
    head = (rng.normal(size=(actions, 8)).astype(np.float32), np.zeros(actions, np.float32))
    return NumpyPolicy([layer], head)


def test_kozel_learner_plays_a_drawn_team_with_its_shared_reward():
    """K1: each slot's learner plays one whole team (both teams drawn), paid the team's reward
    once (the mean of the partners' equal rewards); the other team is one opponent member."""
    env = collector("kozel", slots=64)
    env.reset()
    teams = set()
    for _ in range(30):
        masks = env.learner.learner_mask
        for slot in range(64):
            seats = tuple(np.flatnonzero(masks[slot]).tolist())
            assert seats in ((0, 2), (1, 3))
            teams.add(seats)
            weights = env.learner.reward_weights[slot]
            assert np.allclose(weights[list(seats)], 0.5) and weights.sum() == pytest.approx(1)
            others = [s for s in range(4) if s not in seats]
            assert len({int(env.who[slot, s]) for s in others}) == 1  # one member per side
        assert masks[np.arange(64), env.learner.venv.impl.agent].all()  # the learner acts
        env.step(_random_actions(env))
    assert teams == {(0, 2), (1, 3)}
    alone = collector("kozel", team_play=False)
    alone.reset()
    assert (alone.learner.learner_mask.sum(axis=1) == 1).all()


def test_seat_pairs_learner_plays_every_other_seat_for_their_mean_reward():
    """``seat_pairs`` (the two-agent tournament's A B A B seating, G12 scoring): each slot's
    learner plays two opposite seats (both pairs drawn), paid half of each seat's reward; the
    seats between are one member; a lineup names that one side."""
    env = collector("kiauliaganys", {"heuristic": 1.0, "random": 1.0}, slots=64, seat_pairs=True)
    env.reset()
    pairs, members = set(), set()
    for _ in range(30):
        masks = env.learner.learner_mask
        for slot in range(64):
            seats = tuple(np.flatnonzero(masks[slot]).tolist())
            assert seats in ((0, 2), (1, 3))
            pairs.add(seats)
            expected = np.zeros(4)
            expected[list(seats)] = 0.5
            assert np.allclose(env.learner.reward_weights[slot], expected)
            others = {int(env.who[slot, s]) for s in range(4) if s not in seats}
            assert len(others) == 1 and LEARNER not in others
            members |= others
        assert masks[np.arange(64), env.learner.venv.impl.agent].all()  # the learner acts
        env.step(_random_actions(env))
    assert pairs == {(0, 2), (1, 3)} and len(members) == 2
    lined = collector("kiauliaganys", lineups={"heuristic": 1.0}, seat_pairs=True)
    lined.reset()
    assert {lined.members[c] for c in lined.who[lined.who != LEARNER]} == {"kiauliaganys/heuristic"}
    with pytest.raises(ValueError, match="has 3 members; this game has 1 opposing side"):
        collector("kiauliaganys", lineups={"heuristic self random": 1.0}, seat_pairs=True)
    with pytest.raises(ValueError, match="seat_pairs is for games without teams; kozel"):
        collector("kozel", seat_pairs=True)


def _random_actions(env: BatchedCollector) -> np.ndarray:
    from kiaule_env import vector

    return vector.random_legal(env.learner.venv.impl.mask, np.random.default_rng(0))


def test_lineups_are_seated_clockwise_from_the_learners_left_with_the_copies_reward():
    """Pig lineup "heuristic self random": left of the learner the heuristic, opposite a
    snapshot, right random; with team_with_copies the reward is the mean of seat and copy."""
    env = collector("pig", lineups={"heuristic self random": 1.0}, team_with_copies=True)
    env.add_snapshot(tiny_policy(39, 6).to_arrays())
    env.reset()
    seats_seen = set()
    for _ in range(20):
        for slot in range(env.num_envs):
            seat = int(np.flatnonzero(env.who[slot] == LEARNER)[0])
            seats_seen.add(seat)
            members = [env.members[env.who[slot, (seat + k) % 4]] for k in (1, 2, 3)]
            assert members == ["pig/heuristic", "self:0", "pig/random"]
            weights = env.learner.reward_weights[slot]
            expected = np.zeros(4)
            expected[[seat, (seat + 2) % 4]] = 0.5
            assert np.allclose(weights, expected)
        env.step(_random_actions(env))
    assert seats_seen == {0, 1, 2, 3}
    plain = collector("pig", lineups={"heuristic self random": 1.0})
    plain.add_snapshot(tiny_policy(39, 6).to_arrays())
    plain.reset()
    assert (plain.learner.reward_weights.max(axis=1) == 1.0).all()
    with pytest.raises(ValueError, match="team_with_copies is for games without teams; kozel"):
        collector("kozel", team_with_copies=True)


def _per_seat_draw(env: BatchedCollector, slots: np.ndarray) -> None:
    """The draw as a loop over the learner's seats and the members' names, slot by slot:
    the generator calls of ``OpponentPool`` (seats, then lineups or mix members, then the
    snapshots), a code for each member the first time the loop meets it."""
    pool, rng, k = env.pool, env._rng, slots.size
    seats = rng.integers(env.num_players, size=k)
    serials = [serial for serial, _ in pool.snapshots]
    random = f"{env.game}/random"
    if pool.lineups:
        table, weights = list(pool.lineups), pool.lineup_weights
        if not serials:
            keep = [i for i, lineup in enumerate(table) if "self" not in lineup]
            if keep:
                table, weights = [table[i] for i in keep], weights[keep] / weights[keep].sum()
            else:
                table, weights = [tuple(random if m == "self" else m for m in table[0])], None
        drawn = rng.choice(len(table), size=k, p=weights)
        chosen = [list(table[i]) for i in drawn.tolist()]
    else:
        names, weights = list(pool.names), pool.weights
        if not serials and "self" in names:
            keep = [i for i, name in enumerate(names) if name != "self"]
            if keep:
                names, weights = [names[i] for i in keep], weights[keep] / weights[keep].sum()
            else:
                names, weights = [random], None
        drawn = rng.choice(len(names), size=(k, len(env._sides[0])), p=weights)
        chosen = [[names[i] for i in row] for row in drawn.tolist()]
    cells = [(r, c) for r, row in enumerate(chosen) for c, m in enumerate(row) if m == "self"]
    if cells:
        picks = rng.integers(len(serials), size=len(cells)).tolist()
        for (r, c), pick in zip(cells, picks, strict=True):
            chosen[r][c] = f"self:{serials[pick]}"
            env._use(*pool.snapshots[pick])
    for seat in sorted(set(seats.tolist())):
        rows = [r for r in range(k) if seats[r] == seat]
        env.who[slots[rows]] = LEARNER
        for index, side in enumerate(env._sides[seat]):
            codes = [env._code(chosen[r][index]) for r in rows]
            for s in side:
                if s not in env._teams[seat]:
                    env.who[slots[rows], s] = codes
    who = env.who[slots]
    paid = who == LEARNER
    env.learner.learner_mask[slots] = paid
    if env.team_with_copies:
        paid |= np.asarray(env._is_self)[np.maximum(who, 0)] & (who != LEARNER)
    env.learner.reward_weights[slots] = paid / paid.sum(axis=1, keepdims=True)


@pytest.mark.parametrize(
    ("game", "mix", "lineups", "kwargs"),
    [
        (
            "pig",
            None,
            {"heuristic self random": 1, "self self heuristic": 2},
            {"team_with_copies": True},
        ),
        ("pig", {"random": 1, "self": 2, "heuristic": 1}, None, {}),
        ("kozel", {"random": 1, "self": 1, "heuristic": 1}, None, {"team_play": False}),
    ],
)
def test_the_draws_are_the_per_seat_loops(game, mix, lineups, kwargs):
    """The vectorised draw of new episodes gives what a loop over seats and names gives with
    the same generator: the same seats, members, member codes (the order the opponents'
    generator serves them in), learner seats and reward weights, so the same games, while
    snapshots arrive and leave (a Kozel learner alone: its partner is an opponent)."""
    envs = [collector(game, mix, lineups, slots=24, **kwargs) for _ in range(2)]
    envs[1].learner.on_episodes = lambda slots: _per_seat_draw(envs[1], slots)
    obs_size, actions = envs[0].observation_space.shape[0], envs[0].action_space.n
    observed = [env.reset() for env in envs]
    for step in range(60):
        if step % 15 == 5:
            for env in envs:
                env.add_snapshot(tiny_policy(obs_size, actions, seed=step).to_arrays())
        assert np.array_equal(observed[0], observed[1])
        assert envs[0].members == envs[1].members
        assert np.array_equal(envs[0].who, envs[1].who)
        for name in ("learner_mask", "reward_weights"):
            assert np.array_equal(getattr(envs[0].learner, name), getattr(envs[1].learner, name))
        moves = _random_actions(envs[0])
        observed = [env.step(moves)[0] for env in envs]
    assert len([m for m in envs[0].members if m.startswith("self:")]) >= 3


def test_weighted_draws_are_numpys_choice():
    """The members' draw is ``rng.choice(n, size, p=weights)`` without its checks: the same
    values and the same generator state after it, for uniform and weighted draws (zero
    weights included), one index per row or a row of them."""
    from agents.training.batched import _cdf, _weighted_draw

    for case in range(200):
        setup = np.random.default_rng(case)
        n = int(setup.integers(1, 7))
        weights = setup.random(n) * (setup.random(n) > 0.2)
        weights = weights / weights.sum() if weights.sum() else None
        size = int(setup.integers(1, 30)) if case % 2 else (int(setup.integers(1, 9)), 3)
        ours, numpys = np.random.default_rng(case + 1000), np.random.default_rng(case + 1000)
        drawn = _weighted_draw(ours, _cdf(weights), n, size)
        assert np.array_equal(drawn, numpys.choice(n, size=size, p=weights))
        assert ours.bit_generator.state == numpys.bit_generator.state


def test_the_heuristic_plays_the_same_moves_without_acts_checks(monkeypatch):
    """The collector calls the compiled heuristic's kernel directly: the same games as
    through its checked ``act`` (a policy offering only ``act`` is called through it)."""
    import agents.training.batched as batched

    class ActOnly:
        def __init__(self, policy):
            self.act = policy.act

    direct = collector("pig", lineups={"heuristic heuristic heuristic": 1.0})
    real = batched._heuristic_for
    monkeypatch.setattr(batched, "_heuristic_for", lambda venv: ActOnly(real(venv)))
    checked = collector("pig", lineups={"heuristic heuristic heuristic": 1.0})
    assert isinstance(checked._heuristic, ActOnly)
    observed = [direct.reset(), checked.reset()]
    for _ in range(40):
        assert np.array_equal(observed[0], observed[1])
        moves = _random_actions(direct)
        observed = [direct.step(moves)[0], checked.step(moves)[0]]


def test_rewards_are_the_learners_seat_and_episodes_end_with_it():
    """Kiauliaganys (G12): each finished episode's return is the learner's seat's: -1 if it
    is the swineherd, +1/3 if another is, 0 with no loser."""
    env = collector("kiauliaganys", slots=16)
    env.reset()
    seen = set()
    for _ in range(400):
        seat = (env.who == LEARNER).argmax(axis=1)  # the episode each slot is in now
        _, _, dones, infos = env.step(_random_actions(env))
        for i in np.flatnonzero(dones):
            loser = infos[i]["final_result"]["loser"]
            expected = 0.0 if loser is None else (-1.0 if loser == f"player_{seat[i]}" else 1 / 3)
            assert infos[i]["episode"]["r"] == pytest.approx(expected, abs=1e-6)
            seen.add(round(expected, 3))
    assert seen == {0.0, -1.0, 0.333}


def test_snapshot_moves_are_the_policys_batched():
    """One forward pass for all rows: its argmax is NumpyPolicy.act's move for every row; a
    sampled move is always legal and follows the policy (not uniform)."""
    rng = np.random.default_rng(1)
    policy = tiny_policy(10, 5)
    actor = BatchActor(policy)
    obs = rng.normal(size=(200, 10)).astype(np.float32)
    mask = rng.random((200, 5)) < 0.6
    mask[:, 0] = True
    best = policy_actions(actor, obs, mask.astype(np.int8), rng, deterministic=True)
    assert best.tolist() == [policy.act(o, m) for o, m in zip(obs, mask, strict=True)]
    one = np.repeat(obs[:1], 4000, axis=0)
    full = np.ones((4000, 5), np.int8)
    drawn = policy_actions(actor, one, full, rng, deterministic=False)
    z = policy.logits(obs[0])
    p = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
    assert np.abs(np.bincount(drawn, minlength=5) / 4000 - p).max() < 0.03
    sampled = policy_actions(actor, obs, mask.astype(np.int8), rng, deterministic=False)
    assert mask[np.arange(200), sampled].all()


def test_opponents_without_a_batched_form_are_refused_where_the_batch_cannot_load_games(
    monkeypatch,
):
    """A member without a batched form is played by its Python agent on an engine game loaded
    into its slots (``tests/training/test_batched_fallback.py``); where the batched env has no
    ``load_state``, ValueError naming it and the envs collector; so is heuristic in a game
    without a compiled one."""
    from kiaule_env.pig.vector import PigVector

    monkeypatch.delattr(PigVector, "load_state")
    with pytest.raises(ValueError, match=r"'pig/pimc' has no batched form.*collector: envs"):
        collector("pig", mix={"pimc": 1.0, "random": 1.0})
    with pytest.raises(ValueError, match=r"'pig/pimc:worlds=4' has no batched form"):
        collector("pig", lineups={"heuristic pimc:worlds=4 random": 1.0})
    assert collector("pig", mix={"heuristic": 1.0})._engine_slots is None
    import agents.training.batched as batched

    monkeypatch.setattr(batched, "_heuristic_for", lambda venv: None)
    with pytest.raises(ValueError, match=r"'pig/heuristic' has no batched form"):
        collector("pig", mix={"heuristic": 1.0})


def test_the_collector_key_is_checked(monkeypatch):
    with pytest.raises(ValueError, match=r"collector: .*'envs'"):
        train_mod.resolve_config({"game": "kozel", "collector": "batch"})
    from kiaule_env import vector

    monkeypatch.setattr(vector, "games", lambda: ["kozel"])
    with pytest.raises(ValueError, match=r"pig has no batched env .*use collector: envs"):
        train_mod.resolve_config({"game": "pig", "collector": "vector"})


# ---------------------------------------------------------------------- training runs
TINY = {
    "collector": "vector",
    "total_timesteps": 2048,
    "n_envs": 32,
    "opponents": {"mix": {"random": 1.0, "self": 1.0}, "snapshot_every": 256},
    "ppo": {"n_steps": 16, "batch_size": 128, "n_epochs": 2},
    "policy": {"net_arch": [16]},
    "eval": {"every": 0, "deals": 2, "opponent": "random"},
    "checkpoint": {"every": 1024},
    "tensorboard": False,
}


@pytest.mark.parametrize("game", ["kozel", "kiauliaganys", "pig"])
def test_kiaule_train_collects_on_the_batched_env(game, tmp_path, capsys):
    """``kiaule train <game> --set collector=vector``: a short run per decision game writes its
    model, records the collector and where the time went."""
    out = tmp_path / game
    argv = ["train", game, "--timesteps", "1024", "--no-progress", "--output", str(out)]
    for key, value in {
        "collector": "vector",
        "n_envs": 32,
        "ppo.n_steps": 16,
        "ppo.batch_size": 128,
        "ppo.n_epochs": 1,
        "policy.net_arch": "[16]",
        "eval.every": 0,
        "warm_start": "null",
        "tensorboard": "false",
        "opponents.mix": "{random: 1, self: 1}",
        "opponents.lineups": "null",
        "opponents.team_with_copies": "false",
        "opponents.snapshot_every": 512,
    }.items():
        argv += ["--set", f"{key}={value}"]
    assert cli_main(argv) == 0
    assert json.loads((out / "config.json").read_text())["collector"] == "vector"
    stats = json.loads((out / "train_stats.json").read_text())
    assert stats["timesteps"] == 1024 and stats["episodes_this_run"] > 0
    assert 0 < stats["share"]["env_and_wrapper"] < 1
    assert (out / "final.zip").is_file()


def test_same_seed_same_run_and_resume_is_exact(tmp_path):
    """Two runs with one seed give the same model; a run stopped at a rollout boundary and
    resumed from its checkpoint ends with bit for bit the uninterrupted run's model."""
    config = {**TINY, "game": "kozel"}
    first = train_mod.train(
        train_mod.resolve_config({**config, "output": str(tmp_path / "a")}), progress=False
    )
    again = train_mod.train(
        train_mod.resolve_config({**config, "output": str(tmp_path / "b")}), progress=False
    )
    assert same_weights(first.final_model, again.final_model)
    other = train_mod.train(
        train_mod.resolve_config({**config, "seed": 1, "output": str(tmp_path / "c")}),
        progress=False,
    )
    assert not same_weights(first.final_model, other.final_model)
    resolved = train_mod.resolve_config({**config, "output": str(tmp_path / "d")})
    stopped = train_mod.train(resolved, progress=False, stop=StopRequest(at_step=700))
    assert stopped.stopped_at == 1024
    resumed = train_mod.train(resolved, resume=stopped.checkpoint, progress=False)
    assert resumed.timesteps == 2048
    assert same_weights(resumed.final_model, first.final_model)


def test_resume_with_a_heuristic_lineup_is_exact(tmp_path):
    """Pig with the compiled heuristic and a copy (team_with_copies): resumed from a scheduled
    checkpoint, the run ends as the uninterrupted one; an envs run cannot resume it."""
    config = {
        **TINY,
        "game": "pig",
        "env_kwargs": {"num_players": 4},
        "opponents": {
            "lineups": {"heuristic self heuristic": 1.0, "heuristic heuristic random": 1.0},
            "team_with_copies": True,
            "snapshot_every": 512,
            "max_snapshots": 1,
        },
    }
    full, resumed, checkpoint = full_and_resumed(config, tmp_path, step=1024)
    assert same_weights(resumed.final_model, full.final_model)
    envs = train_mod.resolve_config(
        {**config, "collector": "envs", "n_envs": 2, "output": str(tmp_path / "envs")}
    )
    with pytest.raises(ValueError, match="env state"):
        train_mod.train(envs, resume=checkpoint, progress=False)
