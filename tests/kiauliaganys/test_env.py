"""The Kiauliaganys PettingZoo env: API and seed tests, random play with invariants, the
information-set test, a recorded game, errors, rendering and registration."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import kiaule_env  # noqa: F401  (registers the env ids)
from kiaule_env import kiauliaganys_v0
from kiaule_env.cards import CARD_TEXTS
from kiaule_env.core.records import GameRecord, play_recorded, replay
from tests.kiauliaganys.helpers import do, new_env, play_random, stacked

DATA = Path(__file__).parent / "data"


def test_random_matches_keep_invariants():
    env = kiauliaganys_v0.raw_env(num_players=3, match_years=10, reward="years")
    rng = np.random.default_rng(1)
    for seed in range(30):
        totals = play_random(env, rng, seed)
        years = env.game_state.match_years
        assert max(years) >= 10
        assert sum(totals.values()) == -sum(years)  # reward="years": −years per lost deal
        assert env.infos["player_0"]["result"]["deals"] == env.game_state.deals


# ------------------------------------------------------------------------ information sets


# ------------------------------------------------------------------------ recorded games
RECORDS = {
    "recorded_game_3p_54.json": {"num_players": 3, "deck": "54"},
    "recorded_match_2p.json": {"num_players": 2, "deck": "36", "match_years": 6},
}


def record_game(name: str) -> GameRecord:
    """Play the recorded games afresh (``python -m tests.kiauliaganys.test_env`` rewrites them)."""
    kwargs = RECORDS[name]
    rng = np.random.default_rng(2024)
    deck = kiauliaganys_v0.raw_env(**kwargs).config.the_deck
    options = {"decks": [[CARD_TEXTS[c] for c in deck.shuffled(rng)] for _ in range(2)]}
    if "match_years" not in kwargs:
        options = {"deck": options["decks"][0]}

    def choose(agent, obs, env):
        return int(rng.choice(np.flatnonzero(obs["action_mask"])))

    return play_recorded(
        kiauliaganys_v0.raw_env, "kiaule/kiauliaganys-v0", kwargs, choose, 99, options
    )


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_recorded_game_replays_identically(name):
    record = GameRecord.load(DATA / name)
    assert replay(kiauliaganys_v0.raw_env, record) == record.result
    assert record.moves == record_game(name).moves  # and the generator still makes it


# ------------------------------------------------------------------------ errors, render
def test_raw_env_raises_on_illegal_actions_and_env_applies_the_classic_convention():
    raw = new_env(stacked("7H 2C 9H"))
    with pytest.raises(ValueError, match=r"player_0: action 105 \(take\) is illegal now; legal"):
        raw.step(105)  # take, while face-down cards remain
    with pytest.raises(ValueError, match=r"104 \(search\)"):
        raw.step(105)
    with pytest.raises(ValueError, match="outside Discrete"):
        raw.step(500)
    env = kiauliaganys_v0.env()
    env.reset(seed=0, options={"deck": stacked("7H 2C 9H")})
    env.step(105)
    assert env.rewards["player_0"] == -1.0 and all(env.terminations.values())


def test_legal_moves_texts_and_only_the_actor_has_a_mask():
    env = new_env(stacked("7H 2C 9H"))
    assert env.legal_moves("player_0") == {104: "search"}
    assert env.legal_moves("player_1") == {}
    assert env.observe("player_1")["action_mask"].sum() == 0
    do(env, "search")
    assert env.legal_moves("player_0") == {52: "drag 2C", 106: "drag blind"}


def test_render_shows_the_table_from_above_with_hidden_cards_hidden():
    env = kiauliaganys_v0.raw_env(num_players=3, render_mode="ansi")
    env.reset(seed=0, options={"deck": stacked("7H 2C 3D 9H")})
    do(env, "search")
    text = env.render()
    assert "top 9♥" in text and "required suit H" in text and "face-down: 48" in text
    assert "player_0: 2 card(s)" in text and "2♣" not in text and "3♦" not in text
    assert "player_0: search (picked up 2 and found 9♥)" in text
    own = env.render_view("player_0")
    assert "your hand (player_0): 2♣ 3♦" in own


def test_human_render_prints(capsys):
    env = kiauliaganys_v0.raw_env(render_mode="human")
    env.reset(seed=0, options={"deck": stacked("7H 2C 9H")})
    do(env, "search")
    assert "Kiauliaganys" in capsys.readouterr().out


if __name__ == "__main__":
    for record_name in RECORDS:
        record_game(record_name).save(DATA / record_name)
