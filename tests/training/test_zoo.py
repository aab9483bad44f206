"""The committed zoo: every model loads by name, plays its game, beats random on fixed deals,
and is refused for another player count; its published evaluations carry today's intervals."""

from __future__ import annotations

import json

import pytest

import agents
from agents.learned import ZOO_DIR, zoo_models
from agents.training.evaluate import evaluate
from agents.training.model_io import LAYOUT_KEY, current_layout, layout_metadata, read_metadata
from kiaule_env import GAMES
from tests.training.conftest import require_env

ZOO = {(g, n): f for g in GAMES for n, f in zoo_models(g).items()}


@pytest.mark.parametrize(("game", "players"), sorted(ZOO))
def test_zoo_model_loads_by_name_and_beats_random(game, players):
    require_env(game)
    path = ZOO_DIR / ZOO[game, players]
    meta = read_metadata(path)
    assert (meta["game"], meta["num_players"]) == (game, players)
    assert "experiments.train" in meta["command"]
    # the current layout for its env keywords is recorded (format 2), and loading checked it
    assert meta["format"] == 2
    assert meta[LAYOUT_KEY] == layout_metadata(current_layout(meta))
    agent = agents.make(f"{game}/ppo", seed=0)
    assert agent.meta == meta
    agent.check_env(GAMES[game].native_env(**meta["env_kwargs"]))
    kwargs = {} if game == "kozel" else {"num_players": players}
    result = evaluate(game, f"{game}/ppo", f"{game}/random", deals=20, env_kwargs=kwargs, seed=7)
    assert result.mean_reward - result.reward_ci95 > 0


def test_zoo_refuses_other_player_counts():
    require_env("kiauliaganys")
    with pytest.raises(ValueError, match="no kiauliaganys model for num_players=5"):
        agents.make("kiauliaganys/ppo", num_players=5)
    with pytest.raises(ValueError, match="the zoo has no elgeta model"):
        agents.make("elgeta/ppo")


def test_published_zoo_evaluations_carry_the_intervals_evaluate_writes():
    """Every row of ``agents/zoo/results.json`` (``--evaluate --json``) has the mean reward's
    half-width and the win rate's ``[lo, hi]`` interval around its rate, as ``evaluate`` writes
    them today (rows written by an older version gave the win rate a ± half-width)."""
    results = json.loads((ZOO_DIR / "results.json").read_text())
    rows = [row for key in sorted(results) for row in results[key]]
    assert rows
    for row in rows:
        label = f"{row['agent']} vs {row['opponent']}"
        assert isinstance(row["win_ci95"], list) and len(row["win_ci95"]) == 2, label
        lo, hi = row["win_ci95"]
        assert 0.0 <= lo < row["win_rate"] < hi <= 1.0, label
        assert row["reward_ci95"] > 0.0, label
        assert row["games"] == row["deals"] * len(row["per_side_mean"]), label
