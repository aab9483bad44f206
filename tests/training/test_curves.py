"""Evaluations against several opponents during training, and the learning curves drawn from
them (``eval.extra_opponents``, :mod:`experiments.train.curves`)."""

from __future__ import annotations

import json

import pytest

from experiments import train as train_mod
from experiments.train import curves
from tests.training.test_train import tiny_config


def _entries(out):
    return [json.loads(line) for line in (out / "eval.jsonl").read_text().splitlines()]


def test_every_evaluation_logs_each_opponent_with_the_training_clocks(tmp_path):
    out = tmp_path / "run"
    config = tiny_config(
        "pig",
        out,
        eval={"every": 1024, "deals": 2, "opponent": "random", "extra_opponents": {"heuristic": 3}},
    )
    result = train_mod.train(config, progress=False)
    entries = _entries(out)
    by_step: dict[int, list[str]] = {}
    for entry in entries:
        by_step.setdefault(entry["timesteps"], []).append(entry["opponent"])
        assert entry["deals"] == (3 if entry["opponent"] == "pig/heuristic" else 2)
        assert 0.0 <= entry["train_s"] <= entry["elapsed_s"]
    assert by_step == {1024: ["pig/random", "pig/heuristic"], 2048: ["pig/random", "pig/heuristic"]}
    # the clocks run on with the steps; evaluation time is left out of train_s
    first, second = entries[0], entries[2]
    assert second["elapsed_s"] > first["elapsed_s"]
    evaluated = first["seconds"] + entries[1]["seconds"]
    assert second["elapsed_s"] - second["train_s"] >= evaluated - 1e-3
    assert (out / "curves.png").stat().st_size > 10_000
    assert [e["opponent"] for e in result.evals] == [e["opponent"] for e in entries]


def test_alternate_seating_evaluates_the_learner_on_every_other_seat(tmp_path):
    """``eval.seating: alternate``: each deal is played twice (the learner on seats 0 and 2,
    then 1 and 3), for the extra opponents too, and every entry says how it was seated."""
    out = tmp_path / "run"
    config = tiny_config(
        "pig",
        out,
        eval={
            "every": 1024,
            "deals": 3,
            "opponent": "random",
            "extra_opponents": {"heuristic": 2},
            "seating": "alternate",
        },
    )
    train_mod.train(config, progress=False)
    entries = _entries(out)
    assert len(entries) == 4
    for entry in entries:
        assert entry["seating"] == "alternate"
        assert entry["games"] == 2 * entry["deals"] and len(entry["per_side_mean"]) == 2


def test_an_unknown_extra_opponent_is_refused_before_training(tmp_path):
    config = tiny_config("pig", tmp_path / "run", eval={"extra_opponents": {"nobody": 3}})
    with pytest.raises(ValueError, match=r"eval.extra_opponents: 'nobody' is not a pig agent"):
        train_mod.train(config, progress=False)
    assert not (tmp_path / "run" / "eval.jsonl").exists()


def test_curves_group_by_opponent_in_step_order():
    def entry(steps, opponent, mean, half, **clocks):
        return {"timesteps": steps, "opponent": opponent, "mean_reward": mean,
                "reward_ci95": half, **clocks}  # fmt: skip

    entries = [
        entry(200, "a", 0.5, 0.1, train_s=120.0),
        entry(100, "a", 0.1, 0.2, train_s=60.0),
        entry(100, "b", -1.0, float("inf")),
    ]
    got = curves.curves_by_opponent(entries)
    assert got["a"] == {
        "steps": [100, 200],
        "minutes": [1.0, 2.0],
        "mean": [0.1, 0.5],
        "half": [0.2, 0.1],
    }
    assert got["b"] == {"steps": [100], "minutes": [None], "mean": [-1.0], "half": [0.0]}


def test_curves_cli_writes_a_plot_and_refuses_what_is_not_a_log(tmp_path, capsys):
    log = tmp_path / "eval.jsonl"
    line = {"timesteps": 10, "train_s": 6.0, "opponent": "x", "mean_reward": 0.0, "reward_ci95": 1}
    log.write_text(json.dumps(line) + "\n" + json.dumps({**line, "timesteps": 20}) + "\n")
    assert curves.main([str(tmp_path), "--out", str(tmp_path / "c.png")]) == 0
    assert (tmp_path / "c.png").stat().st_size > 10_000
    log.write_text('{"timesteps": 1}\n')
    assert curves.main([str(tmp_path)]) == 2
    assert "eval.jsonl:1: not an evaluation entry" in capsys.readouterr().err
    assert curves.main([str(tmp_path / "missing")]) == 2
    assert "no evaluation log" in capsys.readouterr().err
