"""``kiaule benchmark`` on toy games: report, summaries, resumable work folder, agent filtering."""

from __future__ import annotations

import json

from experiments import benchmark, benchmark_report
from kiaule_env import GAMES
from tests.experiments import toy  # noqa: F401  (registers the toy games and agents)


def test_benchmark_writes_the_report_and_resumes(tmp_path, monkeypatch):
    monkeypatch.setattr(
        benchmark,
        "SUITE",
        (
            benchmark.SuiteEntry("toy", 60, {}, "a toy game"),
            benchmark.SuiteEntry("toyteam", 40, {"num_players": 4, "teams": True}, "teams"),
        ),
    )
    out, work = tmp_path / "out", tmp_path / "work"
    args = ["--out", str(out), "--work", str(work), "--no-speed", "--no-progress", "--workers", "1"]
    assert benchmark.main([*args, "--no-plots"]) == 0
    report = (out / "README.md").read_text()
    assert "## Results" in report and "## toy" in report and "## toyteam" in report
    for agent in ("toy/smart", "toy/random", "toy/keep", "toyteam/smart"):
        assert f"| {agent} |" in report
    assert "swap_rate" in report and "Head-to-head" in report
    summary = json.loads((out / "toy" / "summary.json").read_text())
    assert summary["games"] == 60 and set(summary["agents"]) == {
        "toy/keep",
        "toy/random",
        "toy/smart",
    }
    first = report.split("## Results")[1].split("##")[0]
    # the same command again finds every game done in the work folder and reports the same
    reports = benchmark.run_suite(workers=1, work=work, out=out, progress=False, plots=False)
    assert [r.summary["games"] for r in reports] == [60, 42]  # whole deals: 7 × 6 seatings
    again = benchmark.results_table(reports)
    assert again.strip() == first.strip()
    runs = [json.loads(p.read_text()) for p in sorted(work.glob("*/run.json"))]
    assert len(runs) == 2 and all(r["played_this_run"] == 0 for r in runs)


def test_agents_that_cannot_play_are_listed_not_run(monkeypatch):
    from agents.registry import register

    def broken(seed=0):
        raise ValueError("the zoo model file is missing")

    register("toy/broken", broken)
    ok, skipped = benchmark.usable_agents("toy", {})
    assert "toy/broken" not in ok and "missing" in skipped["toy/broken"]
    assert {"toy/random", "toy/smart", "toy/keep"} <= set(ok)


def test_kozel_speed_run_counts_games_and_cpu_time():
    from agents.registry import list_agents

    if "kozel/heuristic" not in list_agents("kozel"):
        assert benchmark.kozel_speed(20, workers=1) is None
        return
    speed = benchmark.kozel_speed(20, workers=1)
    assert speed.games == 20 and speed.workers == 1
    assert speed.seconds > 0 and speed.cpu_seconds > 0
    assert speed.cpu_bound_games_per_s > 0
    # the same tournament with records (the default) is measured too, and both are reported
    assert speed.records_seconds > 0 and speed.records_cpu_seconds > 0
    section = "\n".join(benchmark_report.speed_section(speed))
    assert f"**{speed.games_per_s:,.0f} games/s**" in section
    assert f"**{speed.records_games_per_s:,.0f} games/s**" in section
    assert "no records" in section and "with records" in section


def test_benchmark_report_says_how_games_ended_and_warns(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(
        benchmark,
        "SUITE",
        (
            benchmark.SuiteEntry("toy", 30, {}, "decided by play"),
            benchmark.SuiteEntry("toyteam", 24, {"num_players": 4, "max_cycles": 1}, "truncated"),
        ),
    )
    out, work = tmp_path / "out", tmp_path / "work"
    args = ["--out", str(out), "--work", str(work), "--no-speed", "--no-progress", "--workers", "1"]
    assert benchmark.main([*args, "--no-plots"]) == 0
    report = (out / "README.md").read_text()
    toy_part = report.split("## toy\n")[1].split("## toyteam")[0]
    team_part = report.split("## toyteam\n")[1]
    assert "| lineup | games | by play | rule cap | max_cycles | not by play |" in toy_part
    assert "0.0%" in toy_part and "WARNING" not in toy_part
    assert team_part.count("| 8 | 0 | 0 | 8 | 100.0% ⚠ |") == 3  # three lineups
    assert "> - WARNING: 100% of the 8 games" in team_part
    top = report.split("## Results")[1].split("## toy\n")[0]
    assert "> **Warning**" in top and "toyteam: WARNING" in top
    assert "toyteam: WARNING: 100%" in capsys.readouterr().out


def test_search_agents_play_their_own_tournament_at_the_benchmark_budget():
    from agents.search import BENCHMARK_BUDGETS

    usable = ["kozel/heuristic", "kozel/ismcts", "kozel/pimc", "kozel/ppo", "kozel/random"]
    main = benchmark.SuiteEntry("kozel", 100)
    search = benchmark.SuiteEntry("kozel", 100, search=True)
    assert search.key == "kozel-search" and main.key == "kozel"
    assert benchmark.lineup(main, usable, []) == ["kozel/heuristic", "kozel/ppo", "kozel/random"]
    assert benchmark.lineup(search, usable, []) == [
        "kozel/heuristic",
        "kozel/ppo",
        f"kozel/pimc:{BENCHMARK_BUDGETS['pimc']}",
        f"kozel/ismcts:{BENCHMARK_BUDGETS['ismcts']}",
    ]
    overrides = ["kozel/pimc:worlds=2", "kozel/heuristic:worth_plain=4", "pig/pimc:worlds=3"]
    assert benchmark.lineup(search, usable, overrides)[:3] == [
        "kozel/heuristic:worth_plain=4",
        "kozel/ppo",
        "kozel/pimc:worlds=2",
    ]
    assert benchmark.lineup(main, usable, overrides)[0] == "kozel/heuristic:worth_plain=4"
    keys = [e.key for e in benchmark.SUITE]
    searched = {f"{name}-search" for name, game in GAMES.items() if game.has_decisions}
    assert {k for k in keys if k.endswith("-search")} == searched  # every game with decisions
    assert "elgeta-search" not in keys  # no decisions, nothing to search


def test_benchmark_refuses_a_bad_agent_option(capsys):
    import pytest

    with pytest.raises(SystemExit) as exc:
        benchmark.main(["--agents", "kozel/pimc:worlds=0", "--no-speed"])
    assert exc.value.code == 2
    assert "worlds must be > 0" in capsys.readouterr().err
