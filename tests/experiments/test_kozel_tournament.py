"""Kozel in the tournament: duplicate deals on stacked decks, play identical to the env, and the
team-play metrics checked against the engine's own bookkeeping and the public move record."""

from __future__ import annotations

import json
from collections import defaultdict

import numpy as np
import pytest

pytest.importorskip("kiaule_env.kozel_v0")

from agents import make
from experiments.metrics import metrics_from_record
from experiments.tournament import TournamentConfig, load_records, run_tournament
from experiments.tournament.specs import get_spec
from kiaule_env import kozel_v0
from kiaule_env.core.play import play_episode


def _opponent_agent() -> str:
    """A second Kozel agent: the rule-based one once it exists, else a second random name."""
    from agents.random_agent import RandomAgent
    from agents.registry import list_agents, register

    if "kozel/heuristic" in list_agents("kozel"):
        return "kozel/heuristic"
    register("kozel/random-b", lambda seed=0: RandomAgent("kozel", seed))
    return "kozel/random-b"


@pytest.fixture(scope="module")
def kozel_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("kozel")
    cfg = TournamentConfig(
        game="kozel", agents=["kozel/random", _opponent_agent()], games=40, seed=11
    )
    result = run_tournament(cfg, workers=1, out=out, plots=False)
    lines = [json.loads(x) for x in (out / "games.jsonl").read_text().splitlines()]
    return result, list(load_records(out)), lines


def test_every_deal_is_one_stacked_deck_played_with_the_teams_swapped(kozel_run):
    _, records, lines = kozel_run
    by_deal = defaultdict(list)
    for (key, record), line in zip(records, lines, strict=True):
        by_deal[key[0]].append((record, line["seats"]))
    assert len(by_deal) == 20
    for games in by_deal.values():
        (r0, s0), (r1, s1) = games
        assert r0.options == r1.options and r0.seed == r1.seed
        assert len(r0.options["deck"]) == 36
        hands = []
        for record in (r0, r1):
            env = kozel_v0.raw_env()
            env.reset(seed=record.seed, options=record.options)
            hands.append([tuple(env.view(a).hand) for a in env.possible_agents])
        assert hands[0] == hands[1]  # K3: the same hands at the same seats
        assert s0[0] == s0[2] == s1[1] == s1[3] and s0[1] == s1[0] != s0[0]


def test_fast_play_equals_play_through_the_wrapped_env():
    spec = get_spec("kozel")
    name = _opponent_agent()
    for seed in range(6):
        env = kozel_v0.raw_env()
        options = spec.deal_options(env, np.random.default_rng(seed))
        names = ["kozel/random", name, "kozel/random", name]
        fast = play_episode(
            env, [make(n, seed=seed * 10 + i) for i, n in enumerate(names)], seed, options,
            record=True,
        )  # fmt: skip
        ref = play_episode(
            kozel_v0.env(), [make(n, seed=seed * 10 + i) for i, n in enumerate(names)],
            seed=seed, options=options, record=True, api=True,
        )  # fmt: skip
        assert fast.moves == ref.moves
        assert fast.rewards == ref.rewards
        assert fast.result == ref.result


def test_metrics_agree_with_the_engine_and_the_public_record(kozel_run):
    _, records, lines = kozel_run
    spec = get_spec("kozel")
    for (_, record), line in zip(records, lines, strict=True):
        m = line["metrics"]
        assert metrics_from_record(spec, record) == m
        result = line["result"]
        assert sum(s["points"] for s in m) == 120  # K11: every point goes to some trick taker
        for team in (0, 1):
            assert m[team]["points"] + m[team + 2]["points"] == result["team_points"][team]
            assert m[team]["tricks"] + m[team + 2]["tricks"] == result["tricks"][team]
            assert m[team]["team_points"] == result["team_points"][team]
        # replay: the engine's own per-seat discard bookkeeping and the public move texts
        env = kozel_v0.raw_env()
        env.reset(seed=record.seed, options=record.options)
        beats_partner = [0] * 4
        partner_winning = [0] * 4
        claims = [0] * 4
        windows = [0] * 4
        for agent, action, text in record.moves:
            seat = env.agent_name_mapping[agent]
            v = env.view(agent)
            verb = text.split()[0]
            if verb in ("claim", "decline"):
                windows[seat] += 1
                claims[seat] += verb == "claim"
            elif verb != "lead" and v.winner == (seat + 2) % 4:
                partner_winning[seat] += 1
                beats_partner[seat] += verb == "beat"
            env.step(action)
        for seat in range(4):
            own = seat % 2
            assert m[seat]["discard_partner"] == env.game_state.discard_points[seat][own]
            assert m[seat]["discard_opponents"] == env.game_state.discard_points[seat][1 - own]
            assert m[seat]["beat_partner"] == beats_partner[seat]
            assert m[seat]["partner_winning"] == partner_winning[seat]
            assert m[seat]["claims"] == claims[seat]
            assert m[seat]["claim_windows"] == windows[seat]
            assert m[seat]["kozel_games"] == 1


def test_summary_reports_the_kozel_metrics(kozel_run):
    result, _, _ = kozel_run
    summary = result.summary
    names = {m["name"] for m in summary["metrics"]}
    assert {"card_points", "tricks_won", "discard_to_partner", "discard_to_opponents",
            "beat_partner_rate", "molodka_claims"} <= names  # fmt: skip
    for entry in summary["agents"].values():
        assert 0 < entry["metrics"]["card_points"] < 120
        assert 0 <= entry["metrics"]["beat_partner_rate"] <= 1


def test_series_games_count_every_game_of_the_series():
    cfg = TournamentConfig(
        game="kozel",
        agents=["kozel/random", _opponent_agent()],
        games=4,
        seed=2,
        env_kwargs={"series": True},
    )
    result = run_tournament(cfg, workers=1)
    for line in result.games:
        games = line["result"]["games"]
        assert all(s["kozel_games"] == games for s in line["metrics"])
        assert sum(s["points"] for s in line["metrics"]) == 120 * games
        assert max(line["result"]["series_loss_points"]) >= 12  # K14


def _register_policy_agent() -> str:
    """A learned-style agent (random MLP, sampling) that reads only observation and mask."""
    from agents.registry import register
    from agents.training.policy import NumpyPolicy, PolicyAgent

    env = kozel_v0.raw_env()
    obs_size = env.observation_space("player_0")["observation"].shape[0]
    n = env.action_space("player_0").n
    rng = np.random.default_rng(0)
    policy = NumpyPolicy(
        layers=[(rng.normal(size=(16, obs_size)).astype(np.float32), np.zeros(16, np.float32))],
        head=(rng.normal(size=(n, 16)).astype(np.float32), np.zeros(n, np.float32)),
    )
    register("kozel/mlp-test", lambda seed=0: PolicyAgent(policy, "kozel/mlp-test", seed=seed))
    return "kozel/mlp-test"


def test_observation_agents_see_what_the_env_shows_and_runs_are_reproducible():
    name = _register_policy_agent()
    spec = get_spec("kozel")
    for seed in range(3):
        env = kozel_v0.raw_env()
        options = spec.deal_options(env, np.random.default_rng(seed))
        names = [name, "kozel/random", name, "kozel/random"]
        fast = play_episode(
            env, [make(n, seed=seed * 10 + i) for i, n in enumerate(names)], seed, options,
            record=True,
        )  # fmt: skip
        ref = play_episode(
            kozel_v0.env(), [make(n, seed=seed * 10 + i) for i, n in enumerate(names)],
            seed=seed, options=options, record=True, api=True,
        )  # fmt: skip
        assert fast.moves == ref.moves and fast.result == ref.result
    cfg = TournamentConfig(game="kozel", agents=[name, "kozel/random"], games=24, seed=5)
    one = run_tournament(cfg, workers=1)
    two = run_tournament(cfg, workers=2)
    assert one.summary == two.summary
