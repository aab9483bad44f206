"""``kiaule bench --vector`` (experiments/bench_vector.py), run tiny on the reference batch of
Python envs (``tests/vector/fake.py``) so that it needs no game's compiled env."""

from __future__ import annotations

import json

import pytest

from experiments import bench_envs, bench_vector
from tests.vector import fake


def test_bench_vector_reports_every_batch_and_the_pettingzoo_path(
    monkeypatch, tmp_path, capsys
) -> None:
    fake.use(monkeypatch, "highcard", "PythonVector")
    monkeypatch.setattr(bench_vector, "openspiel_available", lambda: False)
    out = tmp_path / "vector.json"
    argv = ["highcard", "--vector", "--seconds", "0.05", "--batches", "1,4"]
    assert bench_envs.main([*argv, "--no-compile-time", "--json", str(out)]) == 0
    table = capsys.readouterr().out
    assert "| highcard | 1 |" in table and "| highcard | 4 |" in table
    assert "| highcard_v0.env() | — |" in table
    report = json.loads(out.read_text())
    rows = {(r["env"], r["path"], r["batch"]): r for r in report["rows"]}
    assert set(rows) == {
        ("highcard", "vector", 1),
        ("highcard", "vector", 4),
        ("highcard_v0.env()", "pettingzoo", 1),
    }
    assert all(r["steps"] > 0 and r["steps_per_s"] > 0 for r in rows.values())
    assert rows["highcard", "vector", 4]["steps"] % 4 == 0  # whole batch steps counted
    assert report["games"] == [
        {
            "game": "highcard",
            "options": {},
            "state_bytes": 0,
            "compile_first_s": None,
            "compile_cached_s": None,
        }
    ]
    with pytest.raises(ValueError, match="the file exists"):
        bench_envs.main([*argv, "--no-compile-time", "--json", str(out)])


def test_rounds_measure_every_cell_each_round_and_report_its_median(
    monkeypatch, tmp_path, capsys
) -> None:
    fake.use(monkeypatch, "highcard", "PythonVector")
    monkeypatch.setattr(bench_vector, "openspiel_available", lambda: False)
    order = []
    measure = bench_vector.measure_vector

    def recording(game, batch, seconds, seed=0):
        order.append(batch)
        return measure(game, batch, seconds, seed)

    monkeypatch.setattr(bench_vector, "measure_vector", recording)
    out = tmp_path / "vector.json"
    argv = ["highcard", "--vector", "--seconds", "0.02", "--batches", "1,4", "--rounds", "3"]
    assert bench_envs.main([*argv, "--no-compile-time", "--json", str(out)]) == 0
    assert order == [1, 4, 1, 4, 1, 4]  # interleaved rounds of the whole table
    for row in json.loads(out.read_text())["rows"]:
        assert len(row["rounds"]) == 3
        assert row["steps_per_s"] == sorted(row["rounds"])[1]


def test_the_median_round_is_the_lower_middle_one() -> None:
    rows = [bench_vector.Row("x", "vector", 8, steps, 1.0, 100) for steps in (30, 10, 40, 20)]
    median = bench_vector._median_round(tuple(rows))
    assert (median.steps, median.state_bytes) == (20, 100)
    assert median.rounds == [30.0, 10.0, 40.0, 20.0]
    assert bench_vector._median_round((rows[0],)) is rows[0]
    with pytest.raises(ValueError, match="rounds must be a positive integer"):
        bench_vector.run(["highcard"], 0.01, (1,), openspiel=False, rounds=0)


def test_openspiel_rows_and_the_ratio_column(monkeypatch) -> None:
    pytest.importorskip("pyspiel")
    row = bench_vector.measure_openspiel("euchre", 0.05)
    assert row.steps > 0 and row.path == "openspiel"
    fast = bench_vector.Row("x", "vector", 64, int(row.steps_per_s * 2), 1.0)
    table = bench_vector.format_report([row, fast], [])
    assert "| OpenSpiel euchre | — |" in table and "| 2.00 |" in table


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--vector", "--batches", "0,4"], "expected positive integers"),
        (["--vector", "--batches", "a"], "expected positive integers"),
        (["--vector", "--engine"], "choose one of --engine, --train and --vector"),
        (["--batches", "4"], "--batches and --no-compile-time go with --vector"),
        (["--rounds", "3"], "--rounds goes with --vector or --train"),
        (["--vector", "--rounds", "0"], "--rounds"),
    ],
)
def test_bad_arguments_are_refused(capsys, argv, message) -> None:
    with pytest.raises(SystemExit) as exit_info:
        bench_envs.main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_a_game_without_a_batched_env_is_named() -> None:
    with pytest.raises(ValueError, match="no batched env for highcard"):
        bench_envs.main(["highcard", "--vector", "--seconds", "0.01", "--no-compile-time"])
