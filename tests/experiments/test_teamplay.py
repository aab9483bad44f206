"""The team-play study (Kozel K1 teams): given teams, also teams sharing an agent, play
each other on duplicate deals; results per team composition, metrics split by partner, and the
coordination gain; the benchmark's ``kozel-teams`` entry and its report section."""

from __future__ import annotations

import json
import math
from collections import defaultdict

import pytest

from experiments import benchmark, benchmark_report
from experiments.stats import mean_ci
from experiments.tournament import TournamentConfig, main, run_tournament
from experiments.tournament.schedule import distinct_rotations, make_lineups, make_schedule
from experiments.tournament.teamplay import (
    Compositions,
    composition_label,
    composition_results,
    coordination,
    coordination_sentence,
    verdict,
)
from tests.experiments import toy  # noqa: F401  (registers the toy games and agents)

K1_TEAMS = ((0, 2), (1, 3))  # Kozel K1: partners opposite
STUDY = [["p", "p"], ["p", "h"], ["h", "h"]]
SMART, KEEP = "toyteam/smart", "toyteam/keep"
TOY_TEAMS = [[SMART, SMART], [SMART, KEEP], [KEEP, KEEP]]
TOY_ENV = {"num_players": 4, "teams": True}


# ---------------------------------------------------------------------------- schedule


def test_k1_compositions_play_every_pair_of_teams_even_sharing_an_agent():
    lineups = make_lineups(["p", "h"], 4, K1_TEAMS, compositions=STUDY)
    assert lineups == [("p", "p", "p", "h"), ("p", "h", "p", "h"), ("p", "h", "h", "h")]
    assert [len(distinct_rotations(lu)) for lu in lineups] == [4, 2, 4]
    assert make_schedule(["p", "h"], 4, 25, K1_TEAMS, compositions=STUDY).games_per_deal == 10
    # the lone h of the mixed team holds every seat of a deal once; the teams swap sides
    for lu in (lineups[0], lineups[2]):
        lone = "h" if lu.count("h") == 1 else "p"
        seats = [next(i for i in range(4) if lu[(i + r) % 4] == lone) for r in range(4)]
        assert sorted(seats) == [0, 1, 2, 3]
        table = Compositions(STUDY)
        sides = [table.seat_labels([lu[(i + r) % 4] for i in range(4)], K1_TEAMS) for r in range(4)]
        assert {s[0] for s in sides} == {s[1] for s in sides} and len({s[0] for s in sides}) == 2


@pytest.mark.parametrize(
    ("agents", "compositions", "teams", "message"),
    [
        (["p", "h"], [["p", "h"], ["h", "p"]], K1_TEAMS, "given twice"),
        (["p", "h"], [["p", "h"]], K1_TEAMS, "two different teams"),
        (["p", "h"], [["p", "x"], ["h", "h"]], K1_TEAMS, "not in the tournament's agents"),
        (["p", "h", "r"], STUDY, K1_TEAMS, r"\['r'\] are in no team"),
        (["p", "h"], [["p", "h", "h"], ["h", "h"]], K1_TEAMS, "two agent names"),
        (["p", "p"], STUDY, K1_TEAMS, "agents must be different"),
        (["p", "h"], STUDY, None, "need a team game"),
    ],
)
def test_bad_compositions_are_refused_naming_the_problem(agents, compositions, teams, message):
    with pytest.raises(ValueError, match=message):
        make_lineups(agents, 4, teams, compositions=compositions)


def test_compositions_and_mixed_partners_exclude_each_other():
    with pytest.raises(ValueError, match="either mixed_partners or compositions"):
        make_lineups(["p", "h"], 4, K1_TEAMS, mixed_partners=True, compositions=STUDY)
    with pytest.raises(TypeError, match="list of teams"):
        make_lineups(["p", "h"], 4, K1_TEAMS, compositions="p+h")


def test_labels_name_the_game_once_and_ignore_member_order():
    assert composition_label(["kozel/ppo", "kozel/heuristic"]) == "kozel/ppo+heuristic"
    table = Compositions([["kozel/ppo", "kozel/heuristic"], ["kozel/ppo", "kozel/ppo"]])
    assert table.label(["kozel/heuristic", "kozel/ppo"]) == "kozel/ppo+heuristic"
    with pytest.raises(ValueError, match="not one of the compositions"):
        table.label(["kozel/heuristic", "kozel/heuristic"])


def test_identity_of_tournaments_without_compositions_is_unchanged():
    plain = TournamentConfig(game="kozel", agents=["kozel/a", "kozel/b"])
    assert "team_compositions" not in plain.identity()  # old result folders still resume
    study = TournamentConfig(game="kozel", agents=["p", "h"], team_compositions=STUDY)
    assert study.identity()["team_compositions"] == STUDY


# ---------------------------------------------------------------------------- figures


def _line(deal, seats, team0_reward):
    """A result line: team 0 (seats 0, 2) gets ``team0_reward``, team 1 the opposite."""
    r = team0_reward
    return {"key": [deal, 0, 0], "seats": seats, "rewards": [r, -r, r, -r], "metrics": None}


def test_gain_is_the_learned_teams_margin_minus_twice_the_mixed_teams_paired_over_deals():
    table = Compositions(STUDY)
    pp_hh = ["p", "h", "p", "h"]
    ph_hh = ["p", "h", "h", "h"]
    pp_ph = ["p", "p", "p", "h"]
    games = []
    # deal d: p+p beats h+h by aa[d] (once each way round), p+h beats h+h by ab[d]
    aa, ab, direct = [2.0, 3.0, 1.0], [1.0, 2.0, 1.0], [0.5, 1.0, 0.0]
    for d in range(3):
        games += [_line(d, pp_hh, aa[d]), _line(d, ["h", "p", "h", "p"], -aa[d])]
        games += [_line(d, ph_hh, ab[d]), _line(d, ["h", "h", "h", "p"], -ab[d])]
        games += [_line(d, pp_ph, direct[d])]
    results = composition_results(games, K1_TEAMS, table)
    assert results["p+p"]["vs"]["h+h"]["mean"] == pytest.approx(2.0)
    assert results["h+h"]["vs"]["p+h"]["mean"] == pytest.approx(-4 / 3)
    assert results["p+h"]["games"] == 9  # 6 against h+h, 3 against p+p
    (study, reverse) = coordination(games, K1_TEAMS, table)
    assert (study["agent"], study["baseline"]) == ("p", "h")
    assert (reverse["agent"], reverse["baseline"]) == ("h", "p")
    expected = mean_ci([aa[d] - 2 * ab[d] for d in range(3)])  # [0, -1, -1]
    assert study["gain"]["mean"] == pytest.approx(expected.mean)
    assert study["gain"]["ci95"] == pytest.approx([expected.lo, expected.hi], abs=1e-6)
    assert study["gain"]["deals"] == 3
    assert study["aa_vs_ab"]["mean"] == pytest.approx(0.5)
    assert study["verdict"] == "no effect"  # the interval [-2.1, +0.8] contains 0
    # the reverse study: h+h against p+p is -aa, h+p against p+p is -direct
    assert reverse["gain"]["mean"] == pytest.approx(
        sum(-aa[d] + 2 * direct[d] for d in range(3)) / 3
    )


def test_verdict_reads_the_interval():
    assert verdict({"ci95": [0.01, 0.3]}) == "coordinate"
    assert verdict({"ci95": [-0.6, -0.2]}) == "interfere"
    assert verdict({"ci95": [-0.1, 0.2]}) == "no effect"
    assert verdict({"ci95": [None, None]}) == "undecided"


@pytest.fixture(scope="module")
def toy_study():
    cfg = TournamentConfig(
        game="toyteam",
        agents=[SMART, KEEP],
        games=60,
        seed=3,
        env_kwargs=dict(TOY_ENV),
        team_compositions=TOY_TEAMS,
    )
    return run_tournament(cfg, workers=1, plots=False)


def test_tiny_study_reports_per_team_composition_computed_from_the_games(toy_study):
    summary, games = toy_study.summary, toy_study.games
    labels = ["toyteam/smart+smart", "toyteam/smart+keep", "toyteam/keep+keep"]
    assert summary["games"] == 60 and summary["settings"]["games_per_deal"] == 10
    assert list(summary["agents"]) == labels  # rows are teams
    assert summary["settings"]["team_compositions"] == TOY_TEAMS
    # by hand: each team's reward per deal in each pairing, then Student t over deals
    per: dict[tuple[str, str], dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    overall: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for g in games:
        names = []
        for group in K1_TEAMS:
            members = sorted((g["seats"][s] for s in group), reverse=True)  # smart first
            names.append(f"toyteam/{members[0][8:]}+{members[1][8:]}")
        for me, other, group in ((0, 1, K1_TEAMS[0]), (1, 0, K1_TEAMS[1])):
            r = sum(g["rewards"][s] for s in group) / 2
            per[names[me], names[other]][g["key"][0]].append(r)
            overall[names[me]][g["key"][0]].append(r)
    comps = summary["team_play"]["compositions"]
    for (a, b), by_deal in per.items():
        e = mean_ci([sum(v) / len(v) for _, v in sorted(by_deal.items())])
        got = comps[a]["vs"][b]
        assert got["mean"] == pytest.approx(e.mean, abs=1e-6)
        assert got["ci95"] == pytest.approx([e.lo, e.hi], abs=1e-6)
        assert got["games"] == sum(len(v) for v in by_deal.values())
    for a, by_deal in overall.items():
        e = mean_ci([sum(v) / len(v) for _, v in sorted(by_deal.items())])
        assert comps[a]["mean"] == pytest.approx(e.mean, abs=1e-6)
        assert summary["agents"][a]["mean_reward"] == pytest.approx(e.mean, abs=1e-6)
    study = summary["team_play"]["coordination"][0]
    gain = mean_ci(
        [
            sum(per[labels[0], labels[2]][d]) / len(per[labels[0], labels[2]][d])
            - 2 * sum(per[labels[1], labels[2]][d]) / len(per[labels[1], labels[2]][d])
            for d in range(6)
        ]
    )
    assert study["gain"]["mean"] == pytest.approx(gain.mean, abs=1e-6)
    assert study["verdict"] == verdict(study["gain"])


def test_tiny_study_splits_the_metrics_by_partner_and_opponents(toy_study):
    rows = toy_study.summary["team_play"]["partner_metrics"]
    keys = [(r["agent"][8:], r["partner"][8:], r["opponents"]) for r in rows]
    assert keys[:3] == [
        ("smart", "smart", "all"),
        ("smart", "smart", "toyteam/smart+keep"),
        ("smart", "smart", "toyteam/keep+keep"),
    ]
    assert ("keep", "keep", "toyteam/keep+keep") not in keys  # a team never meets itself
    swaps, decisions = 0, 0
    for g in toy_study.games:
        for seat, counts in enumerate(g["metrics"]):
            if g["seats"][seat] == SMART and g["seats"][(seat + 2) % 4] == KEEP:
                swaps += counts["swaps"]
                decisions += counts["decisions"]
    row = next(
        r for r in rows if (r["agent"], r["partner"], r["opponents"]) == (SMART, KEEP, "all")
    )
    assert row["metrics"]["swap_rate"] == pytest.approx(swaps / decisions, abs=1e-6)
    assert row["seat_games"] == 8 * 6  # per deal 4 games against each other team, 6 deals
    keep = [r for r in rows if r["agent"] == KEEP]
    assert keep and all(r["metrics"]["swap_rate"] == 0.0 for r in keep)


# ---------------------------------------------------------------------------- report, CLI


def test_report_section_renders_the_figures_of_the_summary(toy_study):
    summary = json.loads(json.dumps(toy_study.summary))
    entry = benchmark.SuiteEntry("toyteam", 60, dict(TOY_ENV), "toy study", teams=(("a", "b"),))
    text = "\n".join(benchmark_report.team_play_section(entry, summary))
    comps = summary["team_play"]["compositions"]
    pp_kk = comps["toyteam/smart+smart"]["vs"]["toyteam/keep+keep"]
    lo, hi = pp_kk["ci95"]
    assert f"| toyteam/smart+smart | toyteam/keep+keep | {pp_kk['games']} | " in text
    assert f"{pp_kk['mean']:+.3f} [{lo:+.3f}, {hi:+.3f}]" in text
    assert "| toyteam/smart | toyteam/keep | all |" in text and "swap_rate" in text
    study = summary["team_play"]["coordination"][0]
    g = study["gain"]
    assert f"G = {g['mean']:+.3f} [{g['ci95'][0]:+.3f}, {g['ci95'][1]:+.3f}]" in text
    assert "Do `toyteam/smart` partners coordinate?" in text
    assert "toyteam/keep partners coordinate" not in text  # the first team's agent only
    # the answer follows the interval, never a fixed text
    study["gain"] = {"deals": 6, "mean": 0.4, "ci95": [0.1, 0.7]}
    study["verdict"] = "coordinate"
    assert "**yes**" in "\n".join(benchmark_report.team_play_section(entry, summary))
    study["gain"] = {"deals": 6, "mean": -0.4, "ci95": [-0.7, -0.1]}
    study["verdict"] = "interfere"
    assert "**no**" in coordination_sentence(study)
    assert benchmark_report.team_play_section(entry, {"metrics": []}) == []


def test_benchmark_runs_the_team_study_and_reports_it(tmp_path, monkeypatch):
    entry = benchmark.SuiteEntry(
        "toyteam", 30, dict(TOY_ENV), "toy study", teams=(("smart", "smart"), ("smart", "keep"))
    )
    missing = benchmark.SuiteEntry("toyteam", 30, dict(TOY_ENV), "gone", teams=(("smart", "x"),))
    assert entry.key == "toyteam-teams"
    monkeypatch.setattr(benchmark, "SUITE", (entry,))
    out, work = tmp_path / "out", tmp_path / "work"
    args = ["--out", str(out), "--work", str(work), "--no-speed", "--no-progress", "--workers", "1"]
    assert benchmark.main([*args, "--no-plots"]) == 0
    report = (out / "README.md").read_text()
    assert "## toyteam-teams" in report and "### Team play" in report
    assert "| toyteam-teams | toyteam/smart+smart |" in report
    summary = json.loads((out / "toyteam-teams" / "summary.json").read_text())
    assert set(summary["agents"]) == {"toyteam/smart+smart", "toyteam/smart+keep"}
    assert summary["team_play"]["coordination"] == []  # no keep+keep team: no study
    teams, gone = benchmark.team_lineup(entry, [SMART, KEEP], ["toyteam/smart:x=1"])
    assert teams == [["toyteam/smart:x=1"] * 2, ["toyteam/smart:x=1", KEEP]] and gone == []
    assert benchmark.team_lineup(missing, [SMART], [])[1] == ["toyteam/x"]
    reports = benchmark.run_suite(workers=1, work=work, out=out, progress=False, plots=False)
    assert reports[0].summary["games"] == summary["games"]
    monkeypatch.setattr(benchmark, "SUITE", (missing,))
    (rep,) = benchmark.run_suite(workers=1, work=work, out=out, progress=False, plots=False)
    assert rep.summary is None and "toyteam/x" in rep.skipped
    kozel = benchmark.KOZEL_TEAMS
    assert kozel.key == "kozel-teams" and kozel.teams == (
        ("ppo", "ppo"),
        ("ppo", "heuristic"),
        ("heuristic", "heuristic"),
    )


def test_tournament_cli_plays_given_teams(tmp_path, capsys):
    env = ["--env", "num_players=4", "teams=True"]
    base = ["toyteam", *env, "--games", "20", "--no-progress", "--no-plots", "--workers", "1"]
    assert main([*base, "--teams", "smart+smart", "smart+keep", "--out", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert "team play: mean team reward per game" in text and "toyteam/smart+keep" in text
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["settings"]["agents"] == [SMART, KEEP]
    for bad, message in (
        (["--teams", "smart"], "two agents joined by '+'"),
        (["--teams", "smart+keep", "--agents", "smart", "keep"], "leave out --agents"),
        (["--teams", "smart+keep", "keep+smart"], "given twice"),
    ):
        with pytest.raises(SystemExit) as exc:
            main([*base, *bad])
        assert exc.value.code == 2
        assert message in capsys.readouterr().err
    assert math.isfinite(summary["agents"]["toyteam/smart+keep"]["mean_reward"])


def test_mixed_partner_tournaments_split_the_metrics_by_partner_too():
    agents = ["toyteam/random", SMART, KEEP]
    cfg = TournamentConfig(
        game="toyteam", agents=agents, games=12, seed=1, env_kwargs=dict(TOY_ENV),
        mixed_partners=True,
    )  # fmt: skip
    summary = run_tournament(cfg, workers=1, plots=False).summary
    team_play = summary["team_play"]
    assert "compositions" not in team_play and list(summary["agents"]) == agents
    pairs = {(r["agent"], r["partner"]) for r in team_play["partner_metrics"]}
    assert (SMART, KEEP) in pairs and (KEEP, SMART) in pairs and (SMART, SMART) in pairs
    keep = [r for r in team_play["partner_metrics"] if r["agent"] == KEEP]
    assert all(r["metrics"]["swap_rate"] == 0.0 for r in keep)
