"""``kiaule benchmark`` writes to a run folder by default and never rewrites the published results
unless asked; its report says how it differs from the published one."""

from __future__ import annotations

from pathlib import Path

from experiments import benchmark, benchmark_report
from tests.experiments import toy  # noqa: F401  (registers the toy games and agents)


def test_default_run_writes_a_run_folder_and_leaves_the_published_results(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setattr(benchmark, "SUITE", (benchmark.SuiteEntry("toy", 30, {}, "a toy game"),))
    published = benchmark.PUBLISHED / "README.md"
    before = published.read_bytes() if published.exists() else None
    monkeypatch.chdir(tmp_path)
    args = ["--no-speed", "--no-progress", "--no-plots", "--workers", "1"]
    assert benchmark.main(args) == 0
    report = Path("runs/benchmark/report/README.md")
    assert report.is_file()
    text = report.read_text()
    assert "## Compared with the published results" in text
    assert "toy: no published summary to compare with" in text
    out = capsys.readouterr().out
    assert "report: runs/benchmark/report/README.md" in out
    assert "published results in experiments/results/benchmark are unchanged" in out
    if before is not None:
        assert published.read_bytes() == before


def test_comparison_with_published_summaries(tmp_path):
    import json

    summary = json.loads((benchmark.PUBLISHED / "pig" / "summary.json").read_text())
    mine = json.loads(json.dumps(summary))
    mine["games"] = 40
    first = next(iter(mine["agents"]))
    mine["agents"][first]["mean_reward"] += 0.5
    report = benchmark.GameReport(benchmark.SUITE[2], list(mine["agents"]), {}, mine, 1.0, 1.0)
    lines = "\n".join(benchmark_report.comparison_section([report], tmp_path))
    assert f"pig: games 40 (published {summary['games']})" in lines
    assert "+0.500" in lines
    same = "\n".join(benchmark_report.comparison_section([report], benchmark.PUBLISHED))
    assert "These are the published results" in same


def test_a_folder_with_a_users_readme_is_refused_and_force_overwrites_it(
    tmp_path, monkeypatch, capsys
):
    import pytest

    monkeypatch.setattr(benchmark, "SUITE", (benchmark.SuiteEntry("toy", 12, {}, "a toy game"),))
    out = tmp_path / "out"
    out.mkdir()
    (out / "README.md").write_text("my own notes")
    args = ["--out", str(out), "--work", str(tmp_path / "work"), "--no-speed", "--no-progress"]
    args += ["--no-plots", "--workers", "1"]
    with pytest.raises(ValueError, match=r"not written by kiaule benchmark \(README\.md\)"):
        benchmark.main(args)
    assert (out / "README.md").read_text() == "my own notes"
    assert benchmark.main([*args, "--force"]) == 0
    assert "## Results" in (out / "README.md").read_text()
    assert benchmark.main(args) == 0  # its own report for the same settings: rewritten
    with pytest.raises(ValueError, match=r"other settings \(scale: 1\.0 there, 2\.0 here\)"):
        benchmark.main([*args, "--scale", "2"])
    capsys.readouterr()


def test_the_published_folder_is_its_own_output_for_any_settings(tmp_path, monkeypatch):
    import shutil

    from experiments.outdir import read_marker

    marker = read_marker(benchmark.PUBLISHED)
    assert marker is not None and marker["command"] == benchmark.OWNER
    published = tmp_path / "experiments" / "results" / "benchmark"
    shutil.copytree(benchmark.PUBLISHED, published)
    for module in (benchmark, benchmark_report):  # the command and its report
        monkeypatch.setattr(module, "PUBLISHED", published)
    monkeypatch.setattr(benchmark, "SUITE", (benchmark.SuiteEntry("toy", 12, {}, "a toy game"),))
    args = ["--out", str(published), "--work", str(tmp_path / "work"), "--no-speed"]
    args += ["--no-progress", "--no-plots", "--workers", "1", "--scale", "0.5", "--seed", "4"]
    assert benchmark.main(args) == 0  # other settings than the published run's: rewritten
    assert "## toy" in (published / "README.md").read_text()
    settings = read_marker(published)["settings"]
    assert settings == {"scale": 0.5, "seed": 4, "only": None, "agents": []}


def test_a_resumed_suite_says_its_games_were_resumed_not_zero_games_per_second(
    tmp_path, monkeypatch
):
    """A second run over the same work folder plays nothing: its report must not claim 0 games/s."""
    monkeypatch.setattr(benchmark, "SUITE", (benchmark.SuiteEntry("toy", 12, {}, "a toy game"),))
    run = {"workers": 1, "work": tmp_path / "work", "progress": False, "plots": False}
    first = benchmark.run_suite(out=tmp_path / "one", **run)
    again = benchmark.run_suite(out=tmp_path / "two", **run)
    assert first[0].resumed == 0 and first[0].rate_text().endswith("games/s")
    assert again[0].resumed == again[0].summary["games"] == first[0].summary["games"]
    assert again[0].rate_text() == "every game resumed from the work folder (no speed measured)"
    part = benchmark.GameReport(benchmark.SUITE[0], [], {}, first[0].summary, 1.0, 50.0, 4)
    assert part.rate_text() == "50 games/s over the games played, 4 resumed"
