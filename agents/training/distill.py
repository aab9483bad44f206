"""Warm start by imitation: DAgger from a teacher agent into the MaskablePPO network.

A training config with a ``warm_start`` section (``experiments/configs/kiauliaganys.yaml``)
first runs this, then PPO continues from the imitated weights for ``total_timesteps``:

1. **Label** (:func:`play_and_label`): play games in which every seat is drawn from
   ``warm_start.behaviour`` (a mix of agents: registry kinds or names, ``teacher``, and
   ``student``, the network trained so far) and ask the teacher what it would play at every
   decision with more than one legal move, whoever acts there. The seats play their own moves,
   so the states are those the student and its opponents reach (DAgger), while the labels are
   the teacher's. The first round has no student yet; its weight goes to the other members
   (unless the run started from a model file: that network is then the first student).
2. **Fit** (:func:`fit`): the policy network (actor and value head) is trained on every round's
   labels so far (the DAgger aggregate): cross-entropy of the masked policy against the teacher's
   policy (a teacher with ``act_with_policy`` gives its distribution: IS-MCTS its root visit
   shares, as AlphaZero's policy targets; ``pig/heuristic:ties=random`` the exact shares of its
   tied moves; other agents their move, one-hot), and squared error of the value head against
   the seat's reward at the end of the game.

With ``warm_start.from_model``, a run started from a model file (``--resume`` a file without
training state, such as a zoo model) imitates from that network. It can then improve the network
where it is weak and leave it alone elsewhere: ``warm_start.teacher_where`` (``{face_down: 0}``:
the Kiauliaganys endgame) has the teacher label only the decisions whose view has those values,
and the starting network's own policy label all the others, so the fit pulls the policy toward
the teacher there and holds it in place around them.

Games are split into fixed chunks with their own seeds, played by ``workers`` processes: the
labels, and so the network, do not depend on how the chunks were scheduled. Each round's labels
are saved under ``<output>/warm_start/``; a rerun with the same output folder reuses the finished
rounds instead of playing them again (an interrupted warm start resumes where it stopped).
"""

from __future__ import annotations

import json
import time
import zipfile
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.training.policy import NumpyPolicy, PolicyAgent

TEACHER = "teacher"
STUDENT = "student"
#: games per labelling task (a task is the unit of scheduling and of seeding)
CHUNK = 10


@dataclass
class Labels:
    """Labelled decisions: the observation and mask of the deciding seat, the teacher's action,
    the teacher's policy over the actions (``target``: the distribution of a teacher with
    ``act_with_policy``, else one-hot on its action) and that seat's total reward in the
    game (the value target)."""

    obs: np.ndarray
    mask: np.ndarray
    action: np.ndarray
    target: np.ndarray
    reward: np.ndarray
    games: int = 0
    #: seconds spent playing and labelling, summed over the worker processes
    seconds: float = 0.0
    #: wall-clock seconds of the round's labelling (0 when it was read from a file)
    wall_seconds: float = 0.0

    @classmethod
    def concat(cls, parts: list[Labels]) -> Labels:
        return cls(
            np.concatenate([p.obs for p in parts]),
            np.concatenate([p.mask for p in parts]),
            np.concatenate([p.action for p in parts]),
            np.concatenate([p.target for p in parts]),
            np.concatenate([p.reward for p in parts]),
            sum(p.games for p in parts),
            sum(p.seconds for p in parts),
        )

    def __len__(self) -> int:
        return len(self.action)

    def save(self, path: Path) -> None:
        np.savez_compressed(
            path, obs=self.obs, mask=self.mask, action=self.action, target=self.target,
            reward=self.reward, games=self.games, seconds=self.seconds,
        )  # fmt: skip

    @classmethod
    def load(cls, path: Path) -> Labels:
        """Labels a previous run saved; arrays only (``allow_pickle=False``: a file cannot run
        code). ``ValueError`` naming the file if it is not such labels."""
        try:
            with np.load(path, allow_pickle=False) as data:
                return cls(
                    data["obs"], data["mask"], data["action"], data["target"], data["reward"],
                    int(data["games"]), float(data["seconds"]),
                )  # fmt: skip
        except (ValueError, KeyError, TypeError, OSError, EOFError, zipfile.BadZipFile) as exc:
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise ValueError(
                f"{path} is not a round of warm-start labels ({first}); delete it to label the "
                "round again"
            ) from None


@dataclass
class _Labeller:
    """Wraps the agent of one seat: records the teacher's move at the seat's real choices."""

    behaviour: Any
    teacher: Any
    is_teacher: bool
    #: ``warm_start.teacher_where`` and the starting network that labels the other decisions
    where: dict[str, int] | None = None
    anchor: NumpyPolicy | None = None
    rows: list[tuple[np.ndarray, np.ndarray, int, dict[int, float]]] = field(default_factory=list)

    def reset(self) -> None:
        self.behaviour.reset()
        self.rows = []

    def act(self, decision: Any) -> int:
        if len(decision.legal_moves) < 2:
            return self.behaviour.act(decision)
        if self.anchor is not None and not _matches(decision.view, self.where):
            policy = self.anchor.probabilities(decision.observation, decision.action_mask)
            label = max(policy, key=policy.__getitem__)
            self.rows.append((decision.observation, decision.action_mask, label, policy))
            return self.behaviour.act(decision)
        if hasattr(self.teacher, "act_with_policy"):
            label, policy = self.teacher.act_with_policy(decision)
        else:
            label = int(self.teacher.act(decision))
            policy = {label: 1.0}
        self.rows.append((decision.observation, decision.action_mask, int(label), policy))
        return label if self.is_teacher else self.behaviour.act(decision)


def _matches(view: Any, where: dict[str, int] | None) -> bool:
    """Whether ``view`` has every value of ``where`` (None: every view)."""
    return where is None or all(getattr(view, key) == value for key, value in where.items())


def check_teacher_where(
    game: str, env_kwargs: dict[str, Any], where: dict[str, int] | None, from_model: bool
) -> None:
    """Refuse (``ValueError``), before any game is played, a ``warm_start.teacher_where`` that
    cannot run: one without a starting network (``from_model``: a run started from a model
    file) to label the other decisions, or with a key that is not a field of the game's view.
    None (the teacher labels every decision) always passes."""
    from dataclasses import fields, is_dataclass

    if where is None:
        return
    if not from_model:
        raise ValueError(
            "warm_start.teacher_where labels the other decisions with the starting network's "
            "own policy: start the run from a model file (--resume), or leave teacher_where out"
        )

    from kiaule_env import get_game

    env = get_game(game).load().raw_env(**env_kwargs)
    env.reset(seed=0)
    view = env.view(env.possible_agents[0])
    names = [f.name for f in fields(view)] if is_dataclass(view) else []
    unknown = [key for key in where if key not in names]
    if unknown:
        raise ValueError(
            f"warm_start.teacher_where: {unknown[0]!r} is not a field of the {game} view; its "
            f"fields: {', '.join(names)}"
        )


def _member_agent(
    game: str,
    member: str,
    teacher: Any,
    student: NumpyPolicy | None,
    seed: int,
    deterministic: bool = True,
):
    from agents import registry

    if member == TEACHER:
        return teacher
    if member == STUDENT:  # played as the model will play (config's deterministic_play)
        return PolicyAgent(student, name=STUDENT, seed=seed, deterministic=deterministic)
    return registry.make(registry.qualified(game, member), seed=seed)


def play_and_label(task: dict[str, Any]) -> Labels:
    """Play one chunk of games (``task`` from :func:`_tasks`) and return its labels."""
    from agents import registry
    from kiaule_env import get_game
    from kiaule_env.core.play import play_episode

    start = time.perf_counter()
    game, seed = task["game"], task["seed"]
    env = get_game(game).load().raw_env(**task["env_kwargs"])
    n = len(env.possible_agents)
    student = NumpyPolicy.from_arrays(task["student"]) if task["student"] is not None else None
    anchor = NumpyPolicy.from_arrays(task["anchor"]) if task["anchor"] is not None else None
    names, weights = zip(*task["behaviour"].items(), strict=True)
    p = np.asarray(weights, dtype=float) / sum(weights)
    rng = np.random.default_rng(seed)
    teacher = registry.make(task["teacher"], seed=seed)
    size = env.observation_space(env.possible_agents[0])["observation"].shape[0]
    count = env.action_space(env.possible_agents[0]).n
    obs, masks, actions, targets, rewards = [], [], [], [], []
    for game_index in range(task["games"]):
        members = [names[int(rng.choice(len(names), p=p))] for _ in range(n)]
        seats = [
            _Labeller(
                _member_agent(game, m, teacher, student, seed * 97 + s, task["deterministic_play"]),
                teacher,
                m == TEACHER,
                task["teacher_where"],
                anchor,
            )
            for s, m in enumerate(members)
        ]
        episode = play_episode(env, seats, seed=seed * 1000 + game_index)
        for s, seat in enumerate(seats):
            for o, m, a, policy in seat.rows:
                obs.append(o)
                masks.append(m)
                actions.append(a)
                target = np.zeros(count, dtype=np.float32)
                target[list(policy)] = list(policy.values())
                targets.append(target)
                rewards.append(episode.rewards[s])
    return Labels(
        np.asarray(obs, dtype=np.float32).reshape(-1, size),
        np.asarray(masks, dtype=bool).reshape(-1, count),
        np.asarray(actions, dtype=np.int64),
        np.asarray(targets, dtype=np.float32).reshape(-1, count),
        np.asarray(rewards, dtype=np.float32),
        task["games"],
        time.perf_counter() - start,
    )


def _tasks(
    config: dict[str, Any],
    round_index: int,
    student: NumpyPolicy | None,
    anchor: NumpyPolicy | None = None,
) -> list[dict]:
    warm = config["warm_start"]
    behaviour = {k: float(v) for k, v in warm["behaviour"].items() if v > 0}
    if student is None:
        behaviour.pop(STUDENT, None)
    if not behaviour:
        raise ValueError("warm_start.behaviour needs a positive weight besides 'student'")
    from agents import registry

    teacher = registry.qualified(config["game"], warm["teacher"])
    games = int(warm["games_per_round"])
    tasks = []
    for chunk, first in enumerate(range(0, games, CHUNK)):
        tasks.append(
            {
                "game": config["game"],
                "env_kwargs": dict(config["env_kwargs"]),
                "teacher": teacher,
                "behaviour": behaviour,
                "student": None if student is None else student.to_arrays(),
                "games": min(CHUNK, games - first),
                "deterministic_play": bool(config["deterministic_play"]),
                "teacher_where": warm.get("teacher_where"),
                "anchor": None if anchor is None else anchor.to_arrays(),
                "seed": int(config["seed"]) * 1_000_003 + round_index * 10_007 + chunk,
            }
        )
    return tasks


def label_round(
    config: dict[str, Any],
    round_index: int,
    student: NumpyPolicy | None,
    anchor: NumpyPolicy | None = None,
) -> Labels:
    """Play and label one round's games on ``warm_start.workers`` processes (``anchor``: the
    network that labels the decisions outside ``warm_start.teacher_where``)."""
    tasks = _tasks(config, round_index, student, anchor)
    workers = int(config["warm_start"]["workers"])
    if workers <= 1:
        parts = [play_and_label(t) for t in tasks]
    else:
        import multiprocessing

        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(workers, mp_context=context) as pool:
            parts = list(pool.map(play_and_label, tasks))
    return Labels.concat(parts)


def fit(model: Any, labels: Labels, warm: dict[str, Any], seed: int) -> dict[str, float]:
    """Train ``model.policy`` (an SB3 MaskablePPO policy) on ``labels``; return the losses and
    the held-out agreement with the teacher (5% of the labels, drawn with ``seed``)."""
    import torch

    policy = model.policy
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(labels))
    held = order[: max(1, len(order) // 20)]
    train = order[len(held) :]
    optimizer = torch.optim.Adam(policy.parameters(), lr=float(warm["learning_rate"]))
    obs = torch.as_tensor(labels.obs)
    mask = torch.as_tensor(labels.mask)
    action = torch.as_tensor(labels.action)
    target = torch.as_tensor(labels.target)
    reward = torch.as_tensor(labels.reward)
    batch = int(warm["batch_size"])
    value_coef = float(warm["value_coef"])
    policy.set_training_mode(True)
    losses = []
    for _ in range(int(warm["epochs"])):
        rng.shuffle(train)
        for begin in range(0, len(train), batch):
            idx = torch.as_tensor(train[begin : begin + batch])
            dist = policy.get_distribution(obs[idx], action_masks=mask[idx].numpy())
            log_probs = dist.distribution.logits  # normalised, illegal moves at -1e8
            policy_loss = -(target[idx] * log_probs).sum(dim=1).mean()
            values = policy.predict_values(obs[idx])
            value_loss = torch.nn.functional.mse_loss(values.flatten(), reward[idx])
            loss = policy_loss + value_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            optimizer.step()
            losses.append((policy_loss.item(), value_loss.item()))
    policy.set_training_mode(False)
    with torch.no_grad():
        idx = torch.as_tensor(held)
        dist = policy.get_distribution(obs[idx], action_masks=mask[idx].numpy())
        guess = dist.distribution.probs.argmax(dim=1)
        agreement = float((guess == action[idx]).float().mean())
    tail = losses[-max(1, len(losses) // 10) :]
    return {
        "policy_loss": float(np.mean([t[0] for t in tail])),
        "value_loss": float(np.mean([t[1] for t in tail])),
        "held_out_agreement": agreement,
        "held_out": len(held),
    }


def warm_start(
    model: Any, config: dict[str, Any], out: Path, log: Any = None, from_model: bool = False
) -> dict[str, Any]:
    """Run the DAgger rounds of ``config["warm_start"]`` on ``model`` (see the module
    docstring); return the statistics written to ``<out>/warm_start/stats.json``.

    ``from_model``: ``model`` already holds a trained network (a run started from a model
    file), which is then the student of the first round and, with ``teacher_where``, labels
    the decisions the teacher does not."""
    warm = config["warm_start"]
    where = warm.get("teacher_where")
    check_teacher_where(config["game"], config["env_kwargs"], where, from_model)
    folder = out / "warm_start"
    folder.mkdir(parents=True, exist_ok=True)
    rounds: list[dict[str, Any]] = []
    data: list[Labels] = []
    student = NumpyPolicy.from_sb3(model.policy) if from_model else None
    anchor = student if where is not None else None
    for round_index in range(int(warm["rounds"])):
        path = folder / f"round_{round_index}.npz"
        if path.is_file():
            labels = Labels.load(path)
            reused = True
        else:
            wall = time.perf_counter()
            labels = label_round(config, round_index, student, anchor)
            labels.wall_seconds = time.perf_counter() - wall
            labels.save(path)
            reused = False
        data.append(labels)
        start = time.perf_counter()
        losses = fit(model, Labels.concat(data), warm, int(config["seed"]) + round_index)
        fit_s = time.perf_counter() - start
        student = NumpyPolicy.from_sb3(model.policy)
        row = {
            "round": round_index,
            "games": labels.games,
            "labels": len(labels),
            "label_seconds": round(labels.seconds, 2),
            "label_wall_seconds": round(labels.wall_seconds, 2),
            "labels_per_s_per_worker": round(len(labels) / max(labels.seconds, 1e-9), 1),
            "reused": reused,
            "fit_seconds": round(fit_s, 2),
            "aggregate": int(sum(len(d) for d in data)),
            **{k: round(v, 4) if isinstance(v, float) else v for k, v in losses.items()},
        }
        rounds.append(row)
        if log is not None:
            log(row)
    stats = {
        "teacher": warm["teacher"],
        "behaviour": warm["behaviour"],
        "teacher_where": where,
        "from_model": from_model,
        "rounds": rounds,
    }
    (folder / "stats.json").write_text(json.dumps(stats, indent=2))
    return stats
