"""``kiaule bench --train``: the envs and the vector collector measured in one run with the same
network and PPO settings, their time shares and speed-up, and the warm start's throughput."""

from __future__ import annotations

import pytest

from experiments import bench_train
from experiments.cli import main as cli_main


def test_one_run_measures_both_collectors_with_their_breakdown(capsys):
    # --torch-threads 2 replaces the config's one thread in both rows
    report = bench_train.run(["pig"], steps=1024, label_games=2, slots=64, torch_threads=2)
    rows = report["games"]["pig"]
    envs, vector = rows["envs"], rows["vector"]
    config = bench_train.train_mod.resolve_config("pig")
    assert config.torch_threads == 1 and envs["torch_threads"] == vector["torch_threads"] == 2
    assert envs["collector"] == "envs" and vector["collector"] == "vector"
    assert vector["n_envs"] == 64
    assert vector["n_envs"] * vector["n_steps"] == envs["n_envs"] * envs["n_steps"]
    for row in (envs, vector):
        assert row["net_arch"] == config.policy.net_arch
        assert (row["n_epochs"], row["batch_size"]) == (config.ppo.n_epochs, config.ppo.batch_size)
        assert row["steps"] >= 1024 and row["steps_per_second"] > 0
        shares = row["share"]
        parts = shares["env"] + shares["opponents"] + shares["wrapper_overhead"]
        assert abs(parts - shares["env_and_wrapper"]) < 0.01
        assert 0 < shares["network"] < 1
    assert vector["speedup"] == round(vector["steps_per_second"] / envs["steps_per_second"], 2)
    ceiling = envs["learn_seconds"] / vector["seconds"]["network_update"]
    assert vector["speedup_ceiling"] == round(ceiling, 2) >= vector["speedup"]
    warm = rows["warm_start"]
    assert warm["labels"] > 0 and warm["labels_per_second"] > 0
    table = bench_train.format_report(report)
    assert "| pig | envs | 8 × 256 | 128×128 | 4 × 512 | 2 |" in table
    assert "| pig | vector | 64 × 32 |" in table
    assert "labels/s" in table


def test_a_rollout_the_slots_do_not_divide_is_refused():
    with pytest.raises(ValueError, match="not a multiple of 1000"):
        bench_train.collector_overrides("pig", slots=1000)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--train", "--engine"], "choose one of --engine, --train and --vector"),
        (["--torch-threads", "2"], "--torch-threads goes with --train"),
    ],
)
def test_the_command_refuses_options_that_do_not_go_together(capsys, argv, message):
    try:
        code = cli_main(["bench", *argv])
    except SystemExit as exc:
        code = exc.code
    assert code == 2
    assert message in capsys.readouterr().err


def test_rounds_interleave_the_collectors_and_report_medians(monkeypatch):
    calls = []
    speeds = iter([100.0, 300.0, 50.0, 200.0, 120.0, 240.0])  # (envs, vector) per round
    updates = iter([0.025, 0.1, 0.02])  # the vector rows' PPO update seconds

    def fake_measure(game, overrides, steps, out):
        calls.append(overrides["collector"])
        speed = next(speeds)
        update = next(updates) if overrides["collector"] == "vector" else 0.0
        return {
            "collector": overrides["collector"],
            "steps_per_second": speed,
            "learn_seconds": steps / speed,
            "seconds": {"network_update": update},
        }

    monkeypatch.setattr(bench_train, "measure_ppo", fake_measure)
    report = bench_train.run(["pig"], steps=10, label_games=0, slots=64, rounds=3)
    assert calls == ["envs", "vector"] * 3
    rows = report["games"]["pig"]
    assert rows["envs"]["steps_per_second"] == 100.0  # median of 100, 50, 120
    assert rows["envs"]["rounds"] == [100.0, 50.0, 120.0]
    assert rows["vector"]["steps_per_second"] == 240.0  # median of 300, 200, 240
    # the median of the rounds' own ratios (3, 4, 2 in round order), not the ratio of the
    # medians (2.4)
    assert rows["vector"]["speedup"] == 3.0 and rows["vector"]["round_speedups"] == [3.0, 4.0, 2.0]
    # the ceiling: each round's envs learning time over its vector row's update (0.1 / 0.025,
    # 0.2 / 0.1, 0.0833 / 0.02 = 4, 2, 4.17), their median
    assert rows["vector"]["speedup_ceiling"] == 4.0
    with pytest.raises(ValueError, match="rounds must be a positive integer"):
        bench_train.run(["pig"], steps=10, label_games=0, rounds=0)
