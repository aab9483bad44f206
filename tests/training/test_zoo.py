"""The committed zoo: every model loads by name, plays its game, beats random on fixed deals,
and is refused for another player count."""

from __future__ import annotations

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
