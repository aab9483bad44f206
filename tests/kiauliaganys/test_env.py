"""The Kiauliaganys PettingZoo env: API and seed tests, random play with invariants, the
information-set test, a recorded game, errors, rendering and registration."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test

import kiaule_env  # noqa: F401  (registers the env ids)
from kiaule_env import kiauliaganys_v0
from kiaule_env.cards import CARD_TEXTS
from kiaule_env.core.records import GameRecord, play_recorded, replay
from kiaule_env.kiauliaganys import rules
from tests.kiauliaganys.helpers import do, new_env, play_random, stacked

DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_players": 2},
        {"num_players": 3},
        {"num_players": 4},
        {"num_players": 6},
        {"num_players": 3, "deck": "36"},
        {"num_players": 4, "deck": "54"},
        {"num_players": 2, "deck": "54", "match_years": 5},
    ],
    ids=lambda kw: "-".join(f"{k}={v}" for k, v in kw.items()),
)
def test_pettingzoo_api_and_seed(kwargs):
    api_test(kiauliaganys_v0.env(**kwargs), num_cycles=1000, verbose_progress=False)
    seed_test(lambda: kiauliaganys_v0.env(**kwargs), num_cycles=500)


def test_registered_in_pettingzoo():
    env = pettingzoo.make("aec", "kiaule/kiauliaganys-v0", num_players=3)
    env.reset(seed=0)
    assert env.unwrapped.possible_agents == ["player_0", "player_1", "player_2"]


def _moves(seed: int, **kwargs) -> list[str]:
    env = kiauliaganys_v0.raw_env(**kwargs)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    texts = []
    while not all(env.terminations.values()):
        legal = env.legal_moves(env.agent_selection)
        action = list(legal)[rng.integers(len(legal))]
        texts.append(f"{env.agent_selection} {legal[action]}")
        env.step(action)
    return texts


def test_seeds_fix_the_game_and_different_seeds_differ():
    assert _moves(5, num_players=3) == _moves(5, num_players=3)
    assert _moves(5, num_players=3) != _moves(6, num_players=3)


@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_random_play_keeps_invariants(num_players):
    """1,000 seeded games per player count: every card exactly once after every step, the loser
    the only player holding cards at the end (``check_invariants``), rewards summing to zero."""
    deck = "36" if num_players == 3 else "54" if num_players == 5 else "52"
    env = kiauliaganys_v0.raw_env(num_players=num_players, deck=deck)
    rng = np.random.default_rng(num_players)
    outcomes = {"loser": 0, "tail": 0, "capped": 0, "repetition": 0}
    for seed in range(1000):
        totals = play_random(env, rng, seed)
        assert abs(sum(totals.values())) < 1e-9, f"seed {seed}: rewards {totals}"
        state = env.state
        assert state.phase == rules.OVER
        holders = [s for s in range(num_players) if state.hands[s]]
        if state.loser >= 0:
            outcomes["loser"] += 1
            assert totals[f"player_{state.loser}"] == -1.0
            if not (state.capped or state.repeated):
                assert holders == [state.loser]
        else:
            outcomes["tail"] += state.caught_by_tail >= 0
            assert holders == [] and set(totals.values()) == {0.0}
        outcomes["capped"] += state.capped
        outcomes["repetition"] += state.repeated
    # random play rarely repeats a position three times (G10a, about 2% of deals), never the cap
    assert outcomes["loser"] > 900 and outcomes["capped"] == 0 and outcomes["repetition"] < 50


def test_random_matches_keep_invariants():
    env = kiauliaganys_v0.raw_env(num_players=3, match_years=10, reward="years")
    rng = np.random.default_rng(1)
    for seed in range(30):
        totals = play_random(env, rng, seed)
        years = env.state.match_years
        assert max(years) >= 10
        assert sum(totals.values()) == -sum(years)  # reward="years": −years per lost deal
        assert env.infos["player_0"]["result"]["deals"] == env.state.deals


# ------------------------------------------------------------------------ information sets
def _permute_hidden(state: rules.State, observer: int, rng: np.random.Generator) -> rules.State:
    """A copy of ``state`` with the cards ``observer`` cannot see (the face-down table, the
    other hands except their face-up cards) permuted among their places."""
    permuted = rules.clone(state)
    places: list[tuple[list[int], int]] = [
        (permuted.face_down, i) for i in range(len(permuted.face_down))
    ]
    for seat, held in enumerate(permuted.hands):
        if seat != observer:
            places += [(held, i) for i, c in enumerate(held) if c not in permuted.face_up[seat]]
    cards = [where[i] for where, i in places]
    for (where, i), card in zip(places, rng.permutation(cards), strict=True):
        where[i] = int(card)
    return permuted


@pytest.mark.parametrize(("num_players", "deck"), [(2, "36"), (4, "52"), (5, "54")])
def test_hidden_cards_do_not_change_observation_mask_or_view(num_players, deck):
    env = kiauliaganys_v0.raw_env(num_players=num_players, deck=deck)
    rng = np.random.default_rng(0)
    changed = 0
    for seed in range(12):
        env.reset(seed=seed)
        while not all(env.terminations.values()):
            if rng.random() < 0.3:
                original = env.state
                for observer, agent in enumerate(env.possible_agents):
                    before = env.observe(agent)
                    view = env.view(agent)
                    moves = env.legal_moves(agent)
                    permuted = _permute_hidden(original, observer, rng)
                    changed += permuted.face_down != original.face_down
                    env.load_state(permuted)
                    after = env.observe(agent)
                    assert np.array_equal(before["observation"], after["observation"])
                    assert np.array_equal(before["action_mask"], after["action_mask"])
                    assert env.view(agent) == view and env.legal_moves(agent) == moves
                    env.load_state(original)
            legal = list(env.legal_moves(env.agent_selection))
            env.step(legal[rng.integers(len(legal))])
    assert changed > 50  # the permutations did move cards


def test_the_information_set_test_can_fail():
    """Swapping one of the observer's own cards with a face-down card changes his observation."""
    env = new_env(stacked("7H 2C 9H"))
    do(env, "search")
    state = rules.clone(env.state)
    state.hands[0][0], state.face_down[0] = state.face_down[0], state.hands[0][0]
    before = env.observe("player_0")["observation"]
    env.load_state(state)
    assert not np.array_equal(before, env.observe("player_0")["observation"])


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
    with pytest.raises(ValueError, match=r"player_0: action 105 is illegal now; legal moves: "):
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
