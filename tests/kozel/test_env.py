"""The Kozel AEC env: PettingZoo API, seeding, options, stacked decks, random-play invariants,
hidden information, illegal actions, rendering and a recorded game."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from agents.random_agent import RandomAgent
from kiaule_env import kozel_v0
from kiaule_env.cards import CARD_SYMBOLS, CARD_TEXTS, parse_card
from kiaule_env.core.play import play_episode
from kiaule_env.core.records import GameRecord, play_recorded, replay
from kiaule_env.kozel import rules
from kiaule_env.kozel.encoding import ENCODER
from tests.kozel.stacking import stacked

DATA = Path(__file__).parent / "data"

#: the option variants the descriptor declares (every rule option of §1)
CONFIGS = [dict(variant) for variant in kozel_v0.GAME.variants]


class _AfterStep:
    """Step observer calling ``after_step(env)`` after every step."""

    def __init__(self, after_step):
        self.after_step = after_step

    def start(self, env):
        pass

    def before(self, env, seats, actions):
        pass

    def after(self, env, seats, actions, info):
        if self.after_step is not None:
            self.after_step(env)


def random_game(env, rng, seed, options=None, after_step=None):
    """Play one episode of random legal moves; return the summed rewards per agent."""
    players = [RandomAgent("kozel", int(rng.integers(2**31)))] * 4
    episode = play_episode(env, players, seed, options, observer=_AfterStep(after_step), api=True)
    return dict(zip(env.possible_agents, episode.rewards, strict=True))


# ---- API


def test_spaces_and_observation_shape():
    env = kozel_v0.env()
    env.reset(seed=1)
    obs, *_ = env.last()
    assert obs["observation"].shape == (ENCODER.size,) and obs["observation"].dtype == np.float32
    assert obs["action_mask"].shape == (47,) and obs["action_mask"].dtype == np.int8
    assert env.action_space("player_0").n == 47
    assert env.observation_space("player_0")["observation"].contains(obs["observation"])
    other = env.observe("player_1")
    assert not other["action_mask"].any()  # not his turn


# ---- options
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_players": 5}, "num_players"),
        ({"deck": "52"}, "36"),
        ({"trump_card": "top"}, "trump_card"),
        ({"molodka": "all"}, "molodka"),
        ({"beat_partner": "no"}, "beat_partner"),
        ({"eggs": "double"}, "series"),
        ({"eggs": "triple", "series": True}, "eggs"),
        ({"series": 1}, "series"),
        ({"reward": "points"}, "reward"),
        ({"render_mode": "video"}, "render_mode"),
        ({"max_cycles": 0}, "max_cycles"),
    ],
)
def test_bad_options_raise_clear_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        kozel_v0.env(**kwargs)


DECK = [CARD_TEXTS[c] for c in rules.DECK.cards]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"deck": DECK[:35]}, "35 cards"),
        ({"deck": [*DECK[:35], "6C"]}, "more than once"),
        ({"deck": [*DECK[:35], "2C"]}, "not in the 36-card deck"),
        ({"deck": [*DECK[:35], "XX"]}, "malformed"),
        ({"deck": "6C 7C"}, "list"),
        ({"decks": [DECK, DECK]}, "single deal"),
        ({"deck": DECK, "decks": [DECK]}, "not both"),
        ({"shoe": DECK}, "unknown reset option"),
    ],
)
def test_bad_stacked_decks_raise_clear_errors(options, message):
    env = kozel_v0.raw_env()
    with pytest.raises(ValueError, match=message):
        env.reset(seed=0, options=options)


def test_stacked_deck_fixes_the_deal_and_series_decks_one_per_game():
    hands = [["7S", "AS", "6C", "6D"], ["8S", "9S", "6H", "KD"]]
    hands += [["7H", "10S", "QC", "JD"], ["8H", "JS", "7C", "8D"]]
    deck = stacked(hands, indicator="9H")
    env = kozel_v0.raw_env()
    for seed in (0, 1):
        env.reset(seed=seed, options={"deck": [t.lower() for t in deck]})  # case-insensitive
        for seat, agent in enumerate(env.possible_agents):
            assert {CARD_TEXTS[c] for c in env.view(agent).hand} == set(hands[seat])
        assert env.view("player_0").indicator == parse_card("9H")
    series = kozel_v0.raw_env(series=True)
    second = stacked(hands, indicator="QD", dealer=0)
    series.reset(seed=5, options={"decks": [deck, second]})
    rng = np.random.default_rng(0)
    while series.game_state.game_index == 0:
        legal = rules.legal_moves(series.game_state)
        series.step(legal[rng.integers(len(legal))])
    assert series.game_state.dealer == 0 and series.game_state.indicator == parse_card("QD")
    assert {CARD_TEXTS[c] for c in series.view("player_1").hand} == set(hands[1])


# ---- random play
def test_random_play_1000_games_keeps_every_invariant():
    """Every card exactly once, points 120, equal hands after refills, zero-sum K15 rewards."""
    rng = np.random.default_rng(2024)
    envs = [kozel_v0.raw_env(**c) for c in CONFIGS]
    games = 0
    for g in range(1000):
        index = g % len(CONFIGS)
        env, config = envs[index], CONFIGS[index]
        game_results, results = [], []

        def check(e, game_results=game_results, results=results):
            e.engine.check_invariants(e.game_state)
            if "game_result" in e.infos["player_0"]:
                game_results.append(e.infos["player_0"]["game_result"])
            if "result" in e.infos["player_0"]:
                results.extend(e.infos[a]["result"] for a in e.possible_agents)

        totals = random_game(env, rng, seed=g, after_step=check)
        assert abs(sum(totals.values())) < 1e-9
        assert totals["player_0"] == totals["player_2"] and totals["player_1"] == totals["player_3"]
        assert len(results) == 4 and all(r == results[0] for r in results)
        result = results[0]
        assert result == game_results[-1]
        expected = 0.0
        for game in game_results:
            assert sum(game["team_points"]) == 120
            assert game["eggs"] == (game["team_points"] == [60, 60])
            expected += _team0_reward(game, config.get("reward", "loss_points"))
        assert totals["player_0"] == pytest.approx(expected)
        if config.get("series"):
            assert max(result["series_loss_points"]) >= 12 and result["games"] == len(game_results)
            assert result["series_loss_points"] == [
                sum(g["loss_points"][t] for g in game_results) for t in (0, 1)
            ]
        else:
            assert len(game_results) == 1
        games += 1
    assert games == 1000


def _team0_reward(game, mode):
    """K15 for team 0, from the outcome fields (K12 loss points checked on the way)."""
    p0, _p1 = game["team_points"]
    if not game["eggs"]:
        loser = 0 if p0 < 61 else 1
        base = rules.loss_points(game["team_points"][loser], game["tricks"][loser])
        assert game["loss_points"][loser] % base == 0 and game["loss_points"][1 - loser] == 0
    if mode == "card_points":
        return (p0 - 60) / 60
    if game["eggs"]:
        return 0.0
    sign = 1 if p0 >= 61 else -1
    return sign * (1 if mode == "win_loss" else max(game["loss_points"]))


def test_molodka_claims_happen_in_random_play():
    """The claim window is reached and claims are made (so the soak covers K8)."""
    rng = np.random.default_rng(1)
    env = kozel_v0.raw_env()
    seen = {"window": 0, "claim": 0}
    for seed in range(300):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            _obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = env.legal_moves(agent)
            if "claim" in legal.values():
                seen["window"] += 1
                env.step(rules.CLAIM)
                seen["claim"] += 1
                assert (
                    env.game_state.claimed
                    and env.game_state.leader == env.agent_name_mapping[agent]
                )
                continue
            actions = list(legal)
            env.step(actions[rng.integers(len(actions))])
    assert seen["claim"] >= 10  # 17 with these seeds: a molodka is rare


# ---- hidden information


# ---- illegal actions
def test_raw_env_raises_naming_the_move_and_the_legal_ones():
    env = kozel_v0.raw_env()
    env.reset(seed=0)
    illegal = next(a for a in range(47) if a not in env.legal_moves("player_0"))
    with pytest.raises(ValueError, match=rf"player_0: action {illegal} is illegal now; legal"):
        env.step(illegal)
    with pytest.raises(ValueError, match="outside Discrete"):
        env.step(99)
    text = next(iter(env.legal_moves("player_0").values()))
    try:
        env.step(illegal)
    except ValueError as exc:
        assert text in str(exc)


def test_wrapped_env_follows_the_classic_illegal_move_convention():
    env = kozel_v0.env()
    env.reset(seed=0)
    illegal = next(a for a in range(47) if a not in env.unwrapped.legal_moves("player_0"))
    env.step(illegal)  # PettingZoo logs a warning and ends the episode
    assert all(env.terminations.values())
    assert env._cumulative_rewards["player_0"] == -1
    assert env._cumulative_rewards["player_1"] == 0


def test_legal_moves_texts_match_the_mask_and_parse_back():
    env = kozel_v0.raw_env()
    rng = np.random.default_rng(5)
    env.reset(seed=5)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = env.legal_moves(agent)
        assert sorted(legal) == np.flatnonzero(obs["action_mask"]).tolist()
        for action, text in legal.items():
            assert re.fullmatch(r"(lead|beat|discard)( \S+){1,4}|claim|decline", text)
            assert rules.parse_move(env.game_state, text) == action
        for other in env.possible_agents:
            if other != agent:
                assert env.legal_moves(other) == {}
        env.step(list(legal)[rng.integers(len(legal))])


# ---- outcome
def test_result_fields_and_series_game_results():
    env = kozel_v0.raw_env(series=True)
    rng = np.random.default_rng(8)
    game_results = []
    env.reset(seed=8)
    for agent in env.agent_iter():
        obs, _, term, trunc, _info = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
        if "game_result" in env.infos[agent]:
            game_results.append(env.infos[agent]["game_result"])
        if "result" in env.infos[agent]:
            result = env.infos[agent]["result"]
    assert set(result) == {
        "team_points",
        "loss_points",
        "tricks",
        "eggs",
        "trump",
        "series_loss_points",
        "games",
    }
    assert result["games"] == len(game_results) >= 2
    assert result["trump"] in "CDHS"


def test_max_cycles_truncates():
    env = kozel_v0.env(max_cycles=2)
    env.reset(seed=0)
    steps = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            assert trunc and "result" not in env.infos[agent]
            env.step(None)
            continue
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        steps += 1
    assert steps == 8


# ---- render
def test_render_ansi_hides_hands_and_discards():
    env = kozel_v0.raw_env(render_mode="ansi")
    env.reset(seed=4)
    state = env.game_state
    text = env.render()
    assert "trump" in text and "player_0" in text
    for seat in range(4):
        for c in state.hands[seat]:
            if c != state.indicator:
                assert CARD_SYMBOLS[c] not in text
    env.step(rules.legal_moves(state)[0])  # lead
    discard = next(m for m in rules.legal_moves(state) if rules.kind_of(m) == rules.DISCARD)
    cards = rules.move_cards(state.hands[1], discard)
    env.step(discard)
    text = env.render()
    assert "discard ▒" in text
    assert all(CARD_SYMBOLS[c] not in text for c in cards if c != state.indicator)
    mine = env.render_view("player_1")
    assert all(CARD_SYMBOLS[c] in mine for c in cards)


# ---- docs
def test_docstring_tables_are_the_generated_ones():
    assert kozel_v0.observation_table() in kozel_v0.__doc__
    assert kozel_v0.action_table() in kozel_v0.__doc__
    for line in kozel_v0.observation_table().splitlines()[2:-1]:
        name = line.split("`")[1]
        assert name in ENCODER.layout.offsets


# ---- records
def test_recorded_game_replays():
    for name in ("recorded_game.json", "recorded_series.json"):
        record = GameRecord.load(DATA / name)
        assert replay(kozel_v0.raw_env, record) == record.result, name


def make_records() -> None:
    """Regenerate the recorded games (run ``python -m tests.kozel.test_env``; review the diff).

    The first deck seeds whose random play includes a molodka ``claim`` are kept, so the
    records anchor K8 too.
    """
    DATA.mkdir(exist_ok=True)

    def record_with_claim(kwargs, deck_count, seed):
        for deck_seed in range(1000):
            rng = np.random.default_rng(seed)

            def choose(agent, obs, env, rng=rng):
                legal = np.flatnonzero(obs["action_mask"])
                return int(legal[rng.integers(len(legal))])

            decks = [
                [CARD_TEXTS[c] for c in rules.DECK.shuffled(np.random.default_rng(deck_seed + i))]
                for i in range(deck_count)
            ]
            options = {"deck": decks[0]} if deck_count == 1 else {"decks": decks}
            record = play_recorded(
                kozel_v0.raw_env, "kiaule/kozel-v0", kwargs, choose, seed=seed, options=options
            )
            if any(text == "claim" for _, _, text in record.moves):
                return record
        raise AssertionError("no deck with a claim found")

    record_with_claim({}, 1, 21).save(DATA / "recorded_game.json")
    kwargs = {"series": True, "eggs": "double", "trump_card": "bottom"}
    record_with_claim(kwargs, 2, 22).save(DATA / "recorded_series.json")


if __name__ == "__main__":
    make_records()
