"""The tournament harness on a toy game: duplicate deals, determinism, resume, outputs, records."""

from __future__ import annotations

import json
from collections import defaultdict

import numpy as np
import pytest

from agents import make
from experiments.metrics import metrics_from_record
from experiments.tournament import TournamentConfig, load_records, main, run_tournament
from experiments.tournament.runner import ResumeMismatch
from experiments.tournament.specs import get_spec
from kiaule_env.core.aec import wrap_classic
from kiaule_env.core.play import play_episode
from kiaule_env.core.records import replay
from tests.experiments import toy

AGENTS = ["toy/random", "toy/smart", "toy/keep"]


def config(games: int = 90, **kw) -> TournamentConfig:
    return TournamentConfig(game="toy", agents=AGENTS, games=games, seed=3, **kw)


def test_duplicate_deals_repeat_the_same_deck_across_seat_rotations(tmp_path):
    run_tournament(config(60), workers=1, out=tmp_path, plots=False)
    by_deal = defaultdict(list)
    for key, record in load_records(tmp_path):
        by_deal[key[0]].append((key, record))
    assert len(by_deal) == 20
    lines = {
        tuple(json.loads(x)["key"]): json.loads(x)
        for x in (tmp_path / "games.jsonl").read_text().splitlines()
    }
    for games in by_deal.values():
        assert len(games) == 3  # three seatings of one lineup
        assert len({json.dumps(r.options["deck"]) for _, r in games}) == 1
        assert len({r.seed for _, r in games}) == 1
        hands = []
        for _, record in games:
            env = toy.ToyEnv(**record.env_kwargs)
            env.reset(seed=record.seed, options=record.options)
            hands.append([tuple(h) for h in env.game_state.hands])
        assert hands[0] == hands[1] == hands[2]  # every seat gets the same cards every time
        seatings = [tuple(lines[tuple(k)]["seats"]) for k, _ in games]
        for seat in range(3):  # ... and each agent plays that seat's hand once
            assert sorted(s[seat] for s in seatings) == sorted(AGENTS)
    other = {tuple(r.options["deck"]) for games in by_deal.values() for _, r in games[:1]}
    assert len(other) == 20  # different deals are different decks


def test_confidence_intervals_shrink_with_more_games():
    small = run_tournament(config(60), workers=1).summary["agents"]
    large = run_tournament(config(960), workers=1).summary["agents"]
    for agent in AGENTS:
        lo_s, hi_s = small[agent]["ci95"]
        lo_l, hi_l = large[agent]["ci95"]
        assert hi_l - lo_l < 0.6 * (hi_s - lo_s)
        assert lo_l <= large[agent]["mean_reward"] <= hi_l


def test_same_seed_same_results_with_one_and_two_workers(tmp_path):
    one = run_tournament(config(), workers=1, out=tmp_path / "w1", plots=False)
    two = run_tournament(config(), workers=2, out=tmp_path / "w2", plots=False)
    assert one.summary == two.summary
    for name in ("summary.json", "games.jsonl", "games.csv", "agents.csv", "head_to_head.csv"):
        assert (tmp_path / "w1" / name).read_text() == (tmp_path / "w2" / name).read_text(), name
    assert two.outcome.workers == 2
    other_seed = run_tournament(
        TournamentConfig(game="toy", agents=AGENTS, games=90, seed=4), workers=1
    )
    assert other_seed.summary != one.summary


def test_interrupted_run_resumes_and_skips_finished_games(tmp_path):
    whole = run_tournament(config(), workers=1, out=tmp_path / "whole", plots=False)
    out = tmp_path / "parts"
    part = run_tournament(config(), workers=2, out=out, plots=False, max_new_games=40)
    assert part.outcome.played == 40 and not part.outcome.complete
    assert (out / "summary.json").read_text() != (tmp_path / "whole/summary.json").read_text()
    rest = run_tournament(config(), workers=1, out=out, plots=False)
    assert rest.outcome.resumed == 40 and rest.outcome.played == 50
    assert rest.summary == whole.summary
    assert (out / "games.jsonl").read_text() == (tmp_path / "whole/games.jsonl").read_text()
    again = run_tournament(config(), workers=1, out=out, plots=False)
    assert again.outcome.played == 0 and again.summary == whole.summary
    more = run_tournament(config(120), workers=1, out=out, plots=False)
    assert more.outcome.played == 30  # more games later only adds deals


def test_crashed_run_with_a_torn_last_line_resumes(tmp_path):
    whole = run_tournament(config(), workers=1, plots=False)
    toy.CRASH.update(after_calls=150, calls=0)
    try:
        with pytest.raises(RuntimeError, match="simulated crash"):
            run_tournament(config(), workers=1, out=tmp_path, plots=False)
    finally:
        toy.CRASH.update(after_calls=None, calls=0)
    games = tmp_path / "games.jsonl"
    done = games.read_text().splitlines()
    assert 0 < len(done) < 90
    with games.open("a") as f:  # a write cut off by the crash
        f.write(done[-1][: len(done[-1]) // 2])
    resumed = run_tournament(config(), workers=1, out=tmp_path, plots=False)
    assert resumed.outcome.resumed == len(done)
    assert resumed.summary == whole.summary
    assert len(games.read_text().splitlines()) == 90


def test_resume_refuses_a_different_tournament(tmp_path):
    run_tournament(config(), workers=1, out=tmp_path, plots=False, max_new_games=5)
    with pytest.raises(ResumeMismatch, match="different tournament"):
        run_tournament(
            TournamentConfig(game="toy", agents=AGENTS, games=90, seed=99),
            workers=1,
            out=tmp_path,
        )


def test_records_replay_and_give_the_same_metrics(tmp_path):
    run_tournament(config(30), workers=1, out=tmp_path, plots=False)
    lines = [json.loads(x) for x in (tmp_path / "games.jsonl").read_text().splitlines()]
    spec = get_spec("toy")
    records = list(load_records(tmp_path))
    assert len(records) == len(lines) == 30
    for (key, record), line in zip(records, lines, strict=True):
        assert key == line["key"]
        assert replay(toy.raw_env, record) == line["result"]
        assert metrics_from_record(spec, record) == line["metrics"]


def test_fast_play_is_identical_to_play_through_the_wrapped_env():
    spec = get_spec("toy")
    for seed in range(20):
        names = ["toy/random", "toy/smart", "toy/random"]
        options = spec.deal_options(toy.raw_env(), np.random.default_rng(seed))
        fast = play_episode(
            toy.raw_env(),
            [make(n, seed=seed + i) for i, n in enumerate(names)],
            seed,
            options,
            record=True,
        )
        ref = play_episode(
            wrap_classic(toy.raw_env()),
            [make(n, seed=seed + i) for i, n in enumerate(names)],
            seed=seed,
            options=options,
            record=True,
            api=True,
        )
        assert fast.moves == ref.moves
        assert fast.rewards == ref.rewards
        assert fast.result == ref.result
        generic = play_episode(  # the public agent_iter driver of the loop
            wrap_classic(toy.raw_env()),
            [make(n, seed=seed + i) for i, n in enumerate(names)],
            seed,
            options,
            record=True,
            api=True,
        )
        assert (generic.moves, generic.rewards, generic.result) == (
            fast.moves,
            fast.rewards,
            fast.result,
        )


def test_team_game_summary_and_mixed_partners():
    cfg = TournamentConfig(
        game="toyteam",
        agents=["toyteam/smart", "toyteam/keep", "toyteam/random"],
        games=120,
        env_kwargs={"num_players": 4, "teams": True},
        mixed_partners=True,
    )
    result = run_tournament(cfg, workers=1)
    settings = result.summary["settings"]
    assert settings["teams"] == [[0, 2], [1, 3]]
    assert ["toyteam/smart", "toyteam/keep", "toyteam/random", "toyteam/keep"] in settings[
        "lineups"
    ]
    for game in result.games:  # partners share the team's reward
        r = game["rewards"]
        assert r[0] == r[2] and r[1] == r[3] and r[0] == -r[1]
    agents = result.summary["agents"]
    assert agents["toyteam/smart"]["mean_reward"] > agents["toyteam/keep"]["mean_reward"]


def test_summary_json_and_files(tmp_path, capsys):
    code = main(
        ["toy", "--agents", "random", "smart", "keep", "--games", "60", "--seed", "3",
         "--workers", "1", "--out", str(tmp_path), "--no-progress"]
    )  # fmt: skip
    assert code == 0
    printed = capsys.readouterr().out
    assert "toy/smart" in printed and "head-to-head" in printed and "swap_rate" in printed
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["game"] == "toy" and summary["settings"]["seed"] == 3
    assert summary["games"] == 60 and summary["complete"]
    for name in AGENTS:
        entry = summary["agents"][name]
        assert entry["games"] == 60
        lo, hi = entry["ci95"]
        assert lo < entry["mean_reward"] < hi
        assert 0 <= entry["win_rate"] <= 1
        assert set(entry["rating"]) == {"mu", "sigma", "ordinal"}
        assert set(entry["metrics"]) == {"swap_rate", "swaps_per_game"}
    assert summary["agents"]["toy/keep"]["metrics"]["swap_rate"] == 0.0
    assert summary["head_to_head"]["toy/smart"]["toy/keep"]["games"] == 60
    for name in ("ratings.png", "head_to_head.png", "metrics.png", "games.csv", "agents.csv"):
        assert (tmp_path / name).stat().st_size > 0, name
    rows = (tmp_path / "games.csv").read_text().splitlines()
    assert len(rows) == 61 and rows[0].startswith("deal,lineup,rotation,agent_0")


def test_unknown_agents_and_games_are_refused():
    with pytest.raises(ValueError, match="unknown agent 'toy/nobody'"):
        run_tournament(TournamentConfig(game="toy", agents=["toy/random", "toy/nobody"]))
    with pytest.raises(ValueError, match="not a toy agent"):
        run_tournament(TournamentConfig(game="toy", agents=["toy/random", "kozel/random"]))


def test_an_illegal_action_raises_naming_it_and_the_legal_moves():
    class Cheat:
        name = "cheat"

        def reset(self) -> None:
            pass

        def act(self, decision) -> int:
            assert list(decision.legal_moves) == [0, 1]
            assert dict(decision.legal_moves) == {0: "keep", 1: "swap"}
            assert decision.action_mask.tolist() == [1, 1]
            assert decision.observation.shape == (52,)
            return 7

    with pytest.raises(ValueError, match=r"player_0: action 7 is outside .*0 \(keep\), 1 \(swap\)"):
        play_episode(toy.raw_env(), [Cheat()] * 3, 0, None)


def test_endings_count_play_and_max_cycles_and_warn(tmp_path, capsys):
    """Item: a tournament says how its games ended; max_cycles truncation (scored 0–0) is
    counted and warned about in summary.json, the leaderboard and the console."""
    summary = run_tournament(config(30), workers=1).summary
    assert summary["endings"]["total"] == {
        "games": 30,
        "play": 30,
        "rule_cap": 0,
        "max_cycles": 0,
        "by_ending": {"play": 30},
        "not_by_play_share": 0.0,
        "warning": False,
    }
    assert summary["warnings"] == []
    code = main(
        ["toy", "--agents", "random", "smart", "--games", "24", "--workers", "1", "--out",
         str(tmp_path), "--no-progress", "--no-plots", "--env", "max_cycles=1"]
    )  # fmt: skip
    assert code == 0
    printed = capsys.readouterr().out
    summary = json.loads((tmp_path / "summary.json").read_text())
    rows = summary["endings"]["lineups"]
    assert [r["max_cycles"] for r in rows] == [r["games"] for r in rows] and len(rows) >= 1
    assert summary["endings"]["total"]["max_cycles"] == 24
    assert len(summary["warnings"]) == len(rows)
    assert "WARNING: 100% of the" in printed and "truncated by max_cycles" in printed
    assert "WARNING: 100%" in (tmp_path / "leaderboard.txt").read_text()
    csv_rows = (tmp_path / "games.csv").read_text().splitlines()
    assert csv_rows[0].endswith(",steps,ending")  # truncated games have no result fields
    assert all(r.endswith(",max_cycles") for r in csv_rows[1:])


def test_endings_of_a_game_come_from_its_rules():
    """Kiauliaganys: the G10 cap is a rule cap, counted apart from play (and from max_cycles)."""
    cfg = TournamentConfig(
        game="kiauliaganys",
        agents=["kiauliaganys/random", "kiauliaganys/heuristic"],
        games=8,
        env_kwargs={"num_players": 2, "max_turns": 4},
    )
    endings = run_tournament(cfg, workers=1).summary["endings"]
    assert endings["total"]["rule_cap"] == 8 and endings["total"]["by_ending"] == {"cap": 8}
    spec = get_spec("kiauliaganys")
    assert spec.ending_of(None) == "max_cycles"
    assert spec.ending_of({"capped": False, "repetition": True}) == "repetition"
    assert spec.ending_of({"capped": False, "repetition": False}) == "play"
    assert get_spec("pig").ending_of({"capped": True, "race_cut": False}) == "max_passes"
    assert get_spec("pig").ending_of({"capped": False, "race_cut": True}) == "race_cut"
    assert get_spec("elgeta").ending_of({"cycle": True, "capped": False}) == "cycle"
    assert get_spec("elgeta").ending_of({"cycle": False, "capped": True}) == "cap"
    assert get_spec("kozel").ending_of({"winner": "team_0"}) == "play"
    assert get_spec("toy").ending_of({}) == "play"  # a game without an ending function
