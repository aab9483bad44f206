"""The Elgeta game-length study (``kiaule elgeta-lengths``): outputs, numbers, reproducibility."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from experiments import cli, elgeta_lengths
from kiaule_env.elgeta import rules


def test_study_writes_csv_histogram_plot_and_table(tmp_path, capsys):
    argv = ["elgeta-lengths", "--deals", "300", "--players", "2", "4", "--deck", "32"]
    argv += ["--workers", "1", "--out", str(tmp_path), "--no-progress"]
    assert cli.main(argv) == 0
    with open(tmp_path / "summary.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["players"] for r in rows] == ["2", "4"] and all(r["deals"] == "300" for r in rows)
    for r in rows:
        assert float(r["p10"]) <= float(r["median"]) <= float(r["p90"]) <= int(r["max"])
        n = int(r["players"])
        wins = sum(float(r[f"win_share_player_{s}"]) for s in range(n))
        ends = float(r["share_cycle"]) + float(r["share_capped"]) + float(r["share_e5_draw"])
        assert wins + ends == pytest.approx(1.0, abs=1e-3)
    with open(tmp_path / "histogram.csv") as f:
        hist = list(csv.DictReader(f))
    assert sum(int(h["players_2"]) for h in hist) == 300
    assert sum(int(h["players_4"]) for h in hist) == 300
    assert (tmp_path / "histogram.png").stat().st_size > 10_000
    table = (tmp_path / "table.md").read_text()
    assert table.startswith("| players | deals | mean | median |")
    assert "| 4 | 300 |" in table and "32-card deck" in table
    assert table in capsys.readouterr().out


def test_numbers_are_those_of_the_fast_path_on_the_documented_deals():
    config = rules.Config(num_players=3, deck="36")
    result = elgeta_lengths.run(config, 40, seed=5, workers=1, progress=False)
    rng = np.random.default_rng([5, 3, 0])
    expected = [rules.simulate(config, rules.deal_piles(config, rng)) for _ in range(40)]
    assert result.tricks.tolist() == [o.tricks for o in expected]
    assert result.winner.tolist() == [o.winner for o in expected]
    row = elgeta_lengths.summary(result, config)
    assert row["mean"] == pytest.approx(np.mean([o.tricks for o in expected]), abs=0.01)
    assert row["max"] == max(o.tricks for o in expected)


def test_results_do_not_depend_on_the_number_of_workers():
    config = rules.Config(num_players=4, deck="32")
    one = elgeta_lengths.run(config, 2_500, seed=1, workers=1, progress=False)
    two = elgeta_lengths.run(config, 2_500, seed=1, workers=2, progress=False)
    assert np.array_equal(one.tricks, two.tricks) and np.array_equal(one.winner, two.winner)
    assert len(one.tricks) == 2_500


def test_endings_are_classified():
    config = rules.Config(num_players=3, deck="32", max_tricks=30)
    result = elgeta_lengths.run(config, 400, seed=0, workers=1, progress=False)
    capped = result.ending == elgeta_lengths.CAPPED
    assert capped.any() and (result.tricks[capped] == 30).all()
    assert (result.tricks <= 30).all()
    assert elgeta_lengths.summary(result, config)["share_capped"] == pytest.approx(capped.mean())
