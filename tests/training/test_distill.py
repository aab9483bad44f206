"""The imitation warm start (``agents.training.distill``): labels are the teacher's
moves at real choices, the network learns them, rounds resume from their files, the labels do not
depend on the number of worker processes, and a bad ``warm_start`` section is refused."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.base import decision_from_env
from agents.training import distill
from agents.training.model_io import export_for_play
from agents.training.policy import NumpyPolicy
from experiments import train as train_mod
from kiaule_env import kiauliaganys_v0, pig_v0
from kiaule_env.core.play import play_episode
from tests.training.test_train import tiny_config

WARM = {
    "teacher": "heuristic",
    "rounds": 2,
    "games_per_round": 12,
    "behaviour": {"heuristic": 0.5, "random": 0.5, "student": 1.0},
    "workers": 1,
    "epochs": 4,
    "batch_size": 128,
    "learning_rate": 0.002,
    "value_coef": 0.5,
}


def warm_config(tmp_path, game="kiauliaganys", **warm):
    return tiny_config(game, tmp_path / "run", warm_start={**WARM, **warm})


class HighestMove:
    """A stand-in teacher with a known rule: the highest legal action index."""

    def __init__(self):
        self.asked = 0

    def reset(self) -> None:
        pass

    def act(self, decision) -> int:
        self.asked += 1
        return max(decision.legal_moves)


def test_labels_are_the_teachers_moves_at_real_choices():
    teacher = HighestMove()
    seats = [
        distill._Labeller(agents.make("kiauliaganys/random", seed=s), teacher, False)
        for s in range(4)
    ]
    episode = play_episode(kiauliaganys_v0.raw_env(num_players=4), seats, seed=5, record=True)
    rows = [row for seat in seats for row in seat.rows]
    assert len(rows) == teacher.asked and 0 < len(rows) < episode.steps  # forced moves skipped
    for obs, mask, label, policy in rows:
        assert mask.sum() >= 2 and label == np.flatnonzero(mask)[-1]
        assert policy == {label: 1.0}  # a teacher without a search policy: one-hot
        assert obs.shape == (441,)
    # the seats played their own (random) moves, not the teacher's
    again = [agents.make("kiauliaganys/random", seed=s) for s in range(4)]
    replay = play_episode(kiauliaganys_v0.raw_env(num_players=4), again, seed=5, record=True)
    assert replay.moves == episode.moves


def test_a_round_labels_every_real_choice(tmp_path):
    config = warm_config(tmp_path)
    labels = distill.play_and_label(distill._tasks(config.as_dict(), 0, None)[0])
    assert len(labels) > 100 and labels.games == distill.CHUNK
    assert labels.mask.sum(axis=1).min() >= 2
    assert labels.mask[np.arange(len(labels)), labels.action].all()  # labels are legal
    for reward in np.unique(labels.reward):  # G12: the seat's reward in its game
        assert reward == pytest.approx(-1) or reward == 0 or reward == pytest.approx(1 / 3)


def test_a_search_teacher_gives_its_visit_shares_as_the_target(tmp_path):
    config = warm_config(tmp_path, teacher="ismcts:iterations=24,worlds=4", games_per_round=1)
    labels = distill.play_and_label(distill._tasks(config.as_dict(), 0, None)[0])
    assert len(labels) > 10
    assert np.allclose(labels.target.sum(axis=1), 1.0)
    assert not (labels.target * ~labels.mask).any()  # only legal moves have weight
    assert (labels.target.argmax(axis=1) == labels.action).all()  # act() plays the most visited
    assert (labels.target.max(axis=1) < 1).any()  # soft, not one-hot
    # act_with_policy's move is act's move for the same seed (the benchmark's agents unchanged)
    env = kiauliaganys_v0.raw_env(num_players=4)
    env.reset(seed=2)
    decision = decision_from_env(env, env.agent_selection)
    one = agents.make("kiauliaganys/ismcts:iterations=24,worlds=4", seed=7)
    two = agents.make("kiauliaganys/ismcts:iterations=24,worlds=4", seed=7)
    assert one.act(decision) == two.act_with_policy(decision)[0]


def test_a_pig_heuristic_with_random_ties_gives_its_tie_shares_as_the_target(tmp_path):
    config = warm_config(
        tmp_path, game="pig", teacher="heuristic:ties=random", games_per_round=10,
        behaviour={"heuristic": 1.0},
    )  # fmt: skip
    labels = distill.play_and_label(distill._tasks(config.as_dict(), 0, None)[0])
    assert np.allclose(labels.target.sum(axis=1), 1.0)
    assert not (labels.target * ~labels.mask).any()
    assert (labels.target[np.arange(len(labels)), labels.action] > 0).all()  # drawn from it
    soft = labels.target.max(axis=1) < 1
    assert soft.any() and (~soft).any()  # ties in some decisions, a single best move in others
    assert set(np.round(labels.target[soft].max(axis=1), 4)) <= {0.5, 0.3333, 0.25, 0.1667}


def test_the_first_round_has_no_student():
    config = tiny_config("kiauliaganys", "unused", warm_start=WARM)
    first = distill._tasks(config.as_dict(), 0, None)
    assert all("student" not in t["behaviour"] for t in first)
    assert sum(t["games"] for t in first) == WARM["games_per_round"]


def test_labels_do_not_depend_on_the_worker_count(tmp_path):
    one = distill.label_round(warm_config(tmp_path, workers=1).as_dict(), 0, None)
    two = distill.label_round(warm_config(tmp_path, workers=2).as_dict(), 0, None)
    assert np.array_equal(one.obs, two.obs) and np.array_equal(one.action, two.action)


def test_warm_start_learns_the_teacher_and_resumes_from_its_rounds(tmp_path):
    config = warm_config(tmp_path, rounds=2, games_per_round=30, epochs=8)
    result = train_mod.train(config, progress=False)
    stats = result.stats["warm_start"]["rounds"]
    assert [r["reused"] for r in stats] == [False, False]
    assert stats[-1]["held_out_agreement"] > 0.6  # far above a uniform guess over legal moves
    folder = tmp_path / "run" / "warm_start"
    assert sorted(p.name for p in folder.glob("round_*.npz")) == ["round_0.npz", "round_1.npz"]
    again = train_mod.train(config, progress=False)
    assert [r["reused"] for r in again.stats["warm_start"]["rounds"]] == [True, True]
    assert again.stats["warm_start"]["rounds"][-1]["labels"] == stats[-1]["labels"]


def test_warm_start_plays_the_parallel_game(tmp_path):
    config = tiny_config("pig", tmp_path / "pig", warm_start={**WARM, "rounds": 1})
    labels = distill.label_round(config.as_dict(), 0, None)
    assert len(labels) > 0
    env = pig_v0.parallel_env(num_players=4)
    assert labels.obs.shape[1] == env.observation_space("player_0")["observation"].shape[0]


@pytest.mark.parametrize(
    ("warm", "message"),
    [
        ({"behaviour": {"student": 1.0}}, "warm_start.behaviour: needs a positive weight"),
        ({"rounds": 0}, "warm_start.rounds"),
        ({"teacher": 3}, "warm_start.teacher"),
        ({"learning_rate": 0}, "warm_start.learning_rate"),
    ],
)
def test_a_bad_warm_start_section_is_refused(tmp_path, warm, message):
    with pytest.raises(ValueError, match=message):
        warm_config(tmp_path, **warm)


def test_zero_ppo_steps_only_with_a_warm_start(tmp_path):
    with pytest.raises(ValueError, match="total_timesteps: must be at least 1"):
        tiny_config("pig", tmp_path / "none", total_timesteps=0)
    config = tiny_config(
        "pig", tmp_path / "warm", total_timesteps=0, warm_start={**WARM, "rounds": 1}
    )
    result = train_mod.train(config, progress=False)
    assert result.timesteps == 0 and result.final_model.is_file()
    model = agents.make("pig/ppo", path=result.final_model)  # the imitated network plays
    assert model.meta["timesteps"] == 0


def _anchor_policy(seed: int = 3) -> NumpyPolicy:
    """A random actor of the Kiauliaganys observation and action sizes."""
    env = kiauliaganys_v0.raw_env(num_players=4)
    size = env.observation_space("player_0")["observation"].shape[0]
    count = env.action_space("player_0").n
    rng = np.random.default_rng(seed)
    layer = (rng.normal(size=(16, size)).astype(np.float32), np.zeros(16, np.float32))
    head = (rng.normal(size=(count, 16)).astype(np.float32), np.zeros(count, np.float32))
    return NumpyPolicy([layer], head)


def test_policy_probabilities_are_the_masked_softmax():
    policy = _anchor_policy()
    env = kiauliaganys_v0.raw_env(num_players=4)
    env.reset(seed=1)
    decision = decision_from_env(env, env.agent_selection)
    shares = policy.probabilities(decision.observation, decision.action_mask)
    assert sorted(shares) == list(np.flatnonzero(decision.action_mask))
    z = policy.logits(decision.observation)[sorted(shares)]
    expected = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
    assert np.allclose([shares[a] for a in sorted(shares)], expected)
    best = max(shares, key=shares.__getitem__)
    assert best == policy.act(decision.observation, decision.action_mask)


def test_teacher_where_has_the_teacher_label_only_matching_views_and_the_anchor_the_rest():
    teacher, anchor = HighestMove(), _anchor_policy()
    seats = [
        distill._Labeller(
            agents.make("kiauliaganys/random", seed=s), teacher, False, {"face_down": 0}, anchor
        )
        for s in range(4)
    ]
    play_episode(kiauliaganys_v0.raw_env(num_players=4), seats, seed=5)
    rows = [row for seat in seats for row in seat.rows]
    assert 0 < teacher.asked < len(rows)  # both kinds of decision came up
    taught = [row for row in rows if row[3] == {row[2]: 1.0}]  # the teacher's one-hot labels
    assert len(taught) == teacher.asked
    for _, mask, label, _ in taught:
        assert label == np.flatnonzero(mask)[-1]
    anchored = [row for row in rows if row[3] != {row[2]: 1.0}]
    assert len(anchored) == len(rows) - teacher.asked
    for obs, mask, label, policy in anchored:  # the starting network's own soft policy
        assert policy == pytest.approx(anchor.probabilities(obs, mask))
        assert label == anchor.act(obs, mask)


def test_teacher_where_picks_decisions_by_the_view():
    teacher = HighestMove()
    seen = []

    class Spy:
        def reset(self):
            pass

        def act(self, decision):
            if len(decision.legal_moves) > 1:
                seen.append(decision.view.face_down)
            return int(np.flatnonzero(decision.action_mask)[0])

    seats = [
        distill._Labeller(Spy(), teacher, False, {"face_down": 0}, _anchor_policy())
        for _ in range(4)
    ]
    play_episode(kiauliaganys_v0.raw_env(num_players=4), seats, seed=7)
    assert teacher.asked == sum(1 for f in seen if f == 0)  # G5: face-down cards gone
    assert 0 < teacher.asked < len(seen)


def test_teacher_where_needs_a_starting_network_and_a_field_of_the_view(tmp_path):
    with pytest.raises(ValueError, match=r"warm_start: .*teacher_where .* needs from_model: true"):
        warm_config(tmp_path, teacher_where={"face_down": 0})
    config = warm_config(tmp_path, teacher_where={"face_down": 0}, from_model=True)
    with pytest.raises(ValueError, match="start the run from a model file"):
        distill.warm_start(object(), config.as_dict(), tmp_path / "w")  # a fresh network
    with pytest.raises(ValueError, match="'facedown' is not a field of the kiauliaganys view; "
                       "its fields: seat, config, hand"):  # fmt: skip
        distill.check_teacher_where("kiauliaganys", {"num_players": 4}, {"facedown": 0}, True)


def test_a_run_started_from_a_model_file_imitates_from_it_where_the_teacher_labels(tmp_path):
    first = train_mod.train(tiny_config("kiauliaganys", tmp_path / "base"), progress=False)
    exported = tmp_path / "model.zip"
    export_for_play(first.final_model, exported)
    steps = first.timesteps
    warm = {**WARM, "rounds": 1, "games_per_round": 4, "teacher_where": {"face_down": 0}}
    warm.update(behaviour={"student": 1.0, "random": 1.0}, from_model=True)
    config = tiny_config("kiauliaganys", tmp_path / "run", total_timesteps=steps, warm_start=warm)
    result = train_mod.train(config, resume=exported, progress=False)
    warm = result.stats["warm_start"]
    assert warm["from_model"] and warm["teacher_where"] == {"face_down": 0}
    assert result.timesteps == steps  # imitation only: no PPO step added
    labels = distill.Labels.load(tmp_path / "run" / "warm_start" / "round_0.npz")
    start = agents.make("kiauliaganys/ppo", path=exported).policy
    anchored = [i for i in range(len(labels)) if labels.target[i].max() < 1]
    assert anchored  # the starting network labelled the decisions before the endgame
    i = anchored[0]
    shares = start.probabilities(labels.obs[i], labels.mask[i])
    assert labels.target[i][list(shares)] == pytest.approx(list(shares.values()), abs=1e-6)
    # a run resumed from its own checkpoint has done its warm start: none again
    with pytest.raises(ValueError, match="leaves nothing to train"):
        train_mod.train(config, resume=result.final_model, progress=False)


def test_a_run_resumed_from_a_model_file_imitates_only_with_from_model(tmp_path):
    first = train_mod.train(tiny_config("kiauliaganys", tmp_path / "base"), progress=False)
    exported = tmp_path / "model.zip"
    export_for_play(first.final_model, exported)
    steps = first.timesteps
    config = tiny_config(
        "kiauliaganys", tmp_path / "run", total_timesteps=steps + 1024, warm_start=WARM
    )  # as the shipped configs: a warm start for new runs, from_model left out
    result = train_mod.train(config, resume=exported, progress=False)
    assert "warm_start" not in result.stats and result.timesteps > steps
    assert not (tmp_path / "run" / "warm_start").exists()
    with pytest.raises(ValueError, match="leaves nothing to train"):  # no imitation to be had
        train_mod.train(
            tiny_config("kiauliaganys", tmp_path / "r2", total_timesteps=steps, warm_start=WARM),
            resume=exported,
            progress=False,
        )
