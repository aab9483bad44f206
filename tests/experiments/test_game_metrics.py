"""Research metrics of Kiauliaganys (colour forcing) and Pig on stacked decks and random play."""

from __future__ import annotations

import json

import pytest

from experiments.metrics import metrics_from_record
from experiments.tournament import TournamentConfig, load_records, run_tournament
from experiments.tournament.specs import get_spec


def _second(game: str) -> str:
    from agents.random_agent import RandomAgent
    from agents.registry import list_agents, register

    if f"{game}/heuristic" in list_agents(game):
        return f"{game}/heuristic"
    register(f"{game}/random-b", lambda seed=0: RandomAgent(game, seed))
    return f"{game}/random-b"


# ---------------------------------------------------------------------------- Kiauliaganys


def _kiauliaganys_script():
    kiauliaganys_v0 = pytest.importorskip("kiaule_env.kiauliaganys_v0")
    from experiments.metrics.kiauliaganys import Collector
    from kiaule_env.cards import CARD_TEXTS, get_deck

    top = ["7H", "3H", "5C", "9C", "2S", "4D", "6D", "KS", "QD", "AH", "8S", "JH", "2D", "3S", "4C"]
    rest = [CARD_TEXTS[c] for c in get_deck("52").cards if CARD_TEXTS[c] not in top]
    env = kiauliaganys_v0.raw_env(num_players=2)
    env.reset(seed=0, options={"deck": top + rest})
    collector = Collector()
    collector.start(env)
    script = [
        ("player_0", "search"),  # G4: finds 3H at once
        ("player_0", "drag blind"),  # 5C: clubs for player_1, who holds nothing (forced)
        ("player_1", "search"),  # finds 9C, picks up nothing
        ("player_1", "drag blind"),  # 2S: spades for player_0, who holds nothing (forced)
        ("player_0", "search"),  # picks up 4D 6D, finds KS: 2 cards caused by player_1
        ("player_0", "drag 4D"),  # diamonds for player_1 (empty hand: forced)
        ("player_1", "search"),  # QD at once
        ("player_1", "drag blind"),  # AH: hearts for player_0, who holds only 6D (forced)
        ("player_0", "search"),  # picks up 8S, finds JH: 1 card caused by player_1
        ("player_0", "drag 6D"),  # diamonds for player_1 (forced)
        ("player_1", "search"),  # 2D at once
        ("player_1", "drag blind"),  # 3S: spades for player_0, who holds 8S: not forced
        ("player_0", "play 8S"),
    ]
    for agent, text in script:
        assert env.agent_selection == agent
        action = {t: a for a, t in env.legal_moves(agent).items()}[text]
        seat = env.agent_name_mapping[agent]
        collector.before(env, (seat,), (action,))
        env.step(action)
        collector.after(env, (seat,), (action,), env.engine.step_info(env.game_state))
    return collector.per_seat()


def test_kiauliaganys_forcing_counts_on_a_stacked_deck():
    p0, p1 = _kiauliaganys_script()
    assert (p0["drags"], p0["blind_drags"], p0["forced"]) == (3, 1, 3)
    assert (p0["pickups_caused"], p0["searched_or_took"], p0["own_pickups"]) == (0, 3, 3)
    assert (p1["drags"], p1["blind_drags"], p1["forced"]) == (3, 3, 2)
    assert (p1["pickups_caused"], p1["searched_or_took"], p1["own_pickups"]) == (3, 2, 0)


def test_kiauliaganys_metrics_replay_and_add_up():
    pytest.importorskip("kiaule_env.kiauliaganys_v0")
    cfg = TournamentConfig(
        game="kiauliaganys", agents=["kiauliaganys/random", _second("kiauliaganys")], games=16
    )
    result = run_tournament(cfg, workers=1)
    for line in result.games:
        m = line["metrics"]
        loser = line["result"]["loser"]
        assert sum(s["swineherd"] for s in m) == (loser is not None)
        assert all(s["deals"] == 1 for s in m)
        for s in m:
            assert s["forced"] <= s["drags"] and s["searched_or_took"] <= s["drags"]
            assert s["forced"] <= s["searched_or_took"]  # forced means he had to search/take
    rates = result.summary["agents"]["kiauliaganys/random"]["metrics"]
    assert 0 < rates["forcing_success_rate"] < 1 and rates["pickups_per_drag"] > 0


def test_kiauliaganys_match_counts_every_deal(tmp_path):
    pytest.importorskip("kiaule_env.kiauliaganys_v0")
    cfg = TournamentConfig(
        game="kiauliaganys",
        agents=["kiauliaganys/random", _second("kiauliaganys")],
        games=2,
        env_kwargs={"num_players": 3, "match_years": 8},
    )
    run_tournament(cfg, workers=1, out=tmp_path, plots=False)
    spec = get_spec("kiauliaganys")
    lines = [json.loads(x) for x in (tmp_path / "games.jsonl").read_text().splitlines()]
    for (_, record), line in zip(load_records(tmp_path), lines, strict=True):
        m = line["metrics"]
        assert all(s["deals"] == line["result"]["deals"] for s in m)
        years = line["result"]["match_years"]
        assert [s["years"] for s in m] == [years[f"player_{i}"] for i in range(3)]
        assert metrics_from_record(spec, record) == m


# ---------------------------------------------------------------------------- Pig


@pytest.mark.parametrize("kwargs", [{}, {"game": "full", "num_players": 4}])
def test_pig_metrics_follow_the_round_results(tmp_path, kwargs):
    pytest.importorskip("kiaule_env.pig_v0")
    from kiaule_env import pig_v0
    from kiaule_env.core.records import replay

    cfg = TournamentConfig(
        game="pig", agents=["pig/random", _second("pig")], games=8, env_kwargs=kwargs
    )
    run_tournament(cfg, workers=1, out=tmp_path, plots=False)
    spec = get_spec("pig")
    lines = [json.loads(x) for x in (tmp_path / "games.jsonl").read_text().splitlines()]
    for (_, record), line in zip(load_records(tmp_path), lines, strict=True):
        m = line["metrics"]
        result = line["result"]
        assert replay(pig_v0.raw_env, record) == result  # parallel games replay through env()
        assert metrics_from_record(spec, record) == m
        if not kwargs:
            assert all(s["rounds"] == 1 for s in m)
            if result["pig"] is not None:
                pig = int(result["pig"].split("_")[1])
                assert [s["pig"] for s in m] == [int(i == pig) for i in range(4)]
                first = int(result["first_nose"].split("_")[1])
                assert m[first]["first"] == 1 and m[first]["passes_first"] == result["passes"]
        else:
            assert max(s["rounds"] for s in m) == result["rounds"]
            assert sum(s["pig"] for s in m) >= len(result["eliminated"])


# ---------------------------------------------------------------------------- Elgeta


def test_elgeta_has_no_decisions_so_duplicate_deals_give_every_agent_the_same(tmp_path):
    pytest.importorskip("kiaule_env.elgeta_v0")
    cfg = TournamentConfig(
        game="elgeta",
        agents=["elgeta/random", _second("elgeta")],
        games=8,
        env_kwargs={"num_players": 2, "deck": "32"},
    )
    result = run_tournament(cfg, workers=1, out=tmp_path, plots=False)
    a, b = result.summary["agents"].values()
    assert a["mean_reward"] == b["mean_reward"] == 0.0 and a["ci95"] == [0.0, 0.0]
    assert a["metrics"] == b["metrics"]
    spec = get_spec("elgeta")
    lines = [json.loads(x) for x in (tmp_path / "games.jsonl").read_text().splitlines()]
    for (_, record), line in zip(load_records(tmp_path), lines, strict=True):
        m = line["metrics"]
        assert metrics_from_record(spec, record) == m
        assert sum(s["tricks"] for s in m) <= line["result"]["tricks"]
        assert [s["beggar"] for s in m] == [
            int(f"player_{i}" in line["result"]["beggars"]) for i in range(2)
        ]


@pytest.mark.parametrize(
    ("game", "kwargs"),
    [("kiauliaganys", {}), ("kiauliaganys", {"num_players": 3, "match_years": 6}),
     ("elgeta", {"num_players": 2, "deck": "32"})],
)  # fmt: skip
def test_fast_play_equals_env_play(game, kwargs):
    """The hooks loop of the tournament plays the same games as ``env()`` (RULES §0 decks)."""
    import numpy as np

    from agents import make
    from kiaule_env.core.play import play_episode

    module = pytest.importorskip(f"kiaule_env.{game}_v0")
    spec = get_spec(game)
    names = [f"{game}/random", _second(game)]
    for seed in range(3):
        env = spec.build_env(kwargs)
        seats = [names[i % 2] for i in range(len(env.possible_agents))]
        options = spec.deal_options(env, np.random.default_rng(seed))
        fast = play_episode(
            env, [make(n, seed=seed + i) for i, n in enumerate(seats)], seed, options,
            record=True,
        )  # fmt: skip
        ref_env = module.env(**kwargs)
        ref = play_episode(
            ref_env, [make(n, seed=seed + i) for i, n in enumerate(seats)], seed=seed,
            options=options, record=True, api=True,
        )  # fmt: skip
        assert fast.moves == ref.moves
        assert fast.rewards == pytest.approx(ref.rewards)
        assert fast.result == ref.result
