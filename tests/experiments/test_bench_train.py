"""``kiaule bench --train``: the previous ("before") and current ("after") zoo configs measured
in one run, with their time shares, and the warm start's labelling and fit throughput."""

from __future__ import annotations

from experiments import bench_train
from experiments.cli import main as cli_main


def test_one_run_measures_before_and_after_with_their_breakdown(capsys):
    report = bench_train.run(["pig"], steps=512, label_games=2)
    rows = report["games"]["pig"]
    before, after = rows["before"], rows["after"]
    assert before["net_arch"] == [64, 64]  # the previous zoo config, not today's file
    assert after["net_arch"] == bench_train.train_mod.resolve_config("pig").policy.net_arch
    for row in (before, after):
        assert row["steps"] >= 512 and row["steps_per_second"] > 0
        shares = row["share"]
        parts = shares["env"] + shares["opponents"] + shares["wrapper_overhead"]
        assert abs(parts - shares["env_and_wrapper"]) < 0.01
        assert 0 < shares["network"] < 1
    warm = rows["warm_start"]
    assert warm["labels"] > 0 and warm["labels_per_second"] > 0
    table = bench_train.format_report(report)
    assert "| pig | before | 64×64 |" in table and "| pig | after |" in table
    assert "labels/s" in table


def test_the_command_refuses_engine_with_train(capsys):
    try:
        code = cli_main(["bench", "--train", "--engine"])
    except SystemExit as exc:
        code = exc.code
    assert code == 2
    assert "choose one of --engine, --train and --vector" in capsys.readouterr().err
