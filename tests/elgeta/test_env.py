"""The Elgeta AEC env: PettingZoo API and seeding, registration, options, invariants in random
play, agreement with the fast whole-game path, hidden information, illegal actions, truncation,
rendering and a recorded game."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from kiaule_env import elgeta_v0
from kiaule_env.cards import CARD_SYMBOLS, card_text, parse_card
from kiaule_env.core.records import GameRecord, ReplayMismatch, play_recorded, replay
from kiaule_env.elgeta import rules, sampling
from tests.elgeta.helpers import new_env, play_out, stacked, step_env

DATA = Path(__file__).parent / "data"
CONFIGS = [{"num_players": n, "deck": d} for n in (2, 3, 4) for d in ("32", "36", "52")]
IDS = [f"{c['num_players']}p-{c['deck']}" for c in CONFIGS]


@pytest.mark.parametrize(
    ("num_players", "deck", "size"), [(4, "52", 694), (2, "32", 4 * 2 + 3 * 2 * 32 + 32 + 2)]
)
def test_spaces(num_players, deck, size):
    env = elgeta_v0.raw_env(num_players=num_players, deck=deck)
    env.reset(seed=0)
    for agent in env.possible_agents:
        assert env.action_space(agent).n == 1
        obs = env.observe(agent)
        assert obs["observation"].shape == (size,) and obs["observation"].dtype == np.float32
        assert env.observation_space(agent).contains(obs)
    assert env.observe("player_0")["action_mask"].tolist() == [1]
    assert env.observe("player_1")["action_mask"].tolist() == [0]


def _first_plays(env, count=20):
    return [c for _, c in step_env(env, count)]


def test_reset_options_are_checked():
    env = elgeta_v0.raw_env(num_players=2, deck="32")
    with pytest.raises(ValueError, match=r"unknown reset option.*'deck'.*accepts 'piles'"):
        env.reset(options={"deck": []})
    env.reset(seed=0, options={"options": 1})  # PettingZoo's API-test probe, ignored


def test_random_play_keeps_every_invariant_and_rewards_sum_to_zero():
    games = 0
    for config in CONFIGS:
        env = elgeta_v0.raw_env(**config, stop_on_all_aces=config["deck"] == "36")
        for seed in range(4):
            env.reset(seed=seed)
            env.check_invariants()
            total = 0.0
            while not env.game_state.over:
                env.step(0)
                env.check_invariants()
                total += sum(env.rewards.values())
            assert abs(total) < 1e-9
            result = env.infos["player_0"]["result"]
            if result["winner"] is not None and not result["all_aces"]:
                in_play = len(env.game_state.cards_in_play)
                assert result["cards"] == [
                    in_play if a == result["winner"] else 0 for a in env.possible_agents
                ]
            games += 1
    assert games == 36


def test_invariant_checks_catch_a_lost_card():
    env = elgeta_v0.raw_env(num_players=2, deck="32")
    env.reset(seed=0)
    env.game_state.piles[0].pop()
    with pytest.raises(AssertionError, match="cards not conserved"):
        env.check_invariants()


def test_10000_random_games_conserve_cards_on_the_fast_path():
    """10,000 random deals over every player count and deck (the env itself is soaked by
    ``python -m experiments.soak elgeta``): every card ends with the winner, or in the trick of
    an E5 draw, or stays spread over the piles of a cycle or capped game."""
    rng = np.random.default_rng(2024)
    ends = {"won": 0, "other": 0}
    configs = [rules.Config(num_players=n, deck=d) for n in (2, 3, 4) for d in ("32", "36")]
    configs.append(rules.Config(num_players=4, deck="52", stop_on_all_aces=True))
    for i in range(10_000):
        config = configs[i % len(configs)]
        piles = rules.deal_piles(config, rng)
        in_play = sum(map(len, piles))
        outcome = rules.simulate(config, piles)
        n = config.num_players
        if outcome.winner != rules.NOBODY and not (outcome.capped or outcome.all_aces):
            assert outcome.cards == tuple(in_play if s == outcome.winner else 0 for s in range(n))
            assert sorted(outcome.beggars) == [s for s in range(n) if s != outcome.winner]
            ends["won"] += 1
        elif outcome.winner == rules.NOBODY and not (outcome.cycle or outcome.capped):
            assert outcome.cards == (0,) * n  # E5 draw: everything is in the trick
        else:
            assert sum(outcome.cards) == in_play
            ends["other"] += 1
    assert ends["won"] > 8_000 and ends["other"] > 1_000  # 1 game in 7 stops on all aces


@pytest.mark.parametrize(
    "config",
    [
        {"num_players": 2, "deck": "32"},
        {"num_players": 3, "deck": "36"},
        {"num_players": 4, "deck": "52"},
        {"num_players": 4, "deck": "32", "stop_on_all_aces": True},
        {"num_players": 3, "deck": "32", "max_tricks": 40},
    ],
)
def test_fast_path_agrees_with_the_env_card_by_card(config):
    env = elgeta_v0.raw_env(**config)
    for seed in range(6):
        env.reset(seed=seed)
        dealt = [list(p) for p in env.game_state.piles]
        played = play_out(env)
        trace: list[tuple[int, int]] = []
        outcome = rules.simulate(env.config, dealt, trace)
        assert trace == played
        assert outcome == rules.result(env.game_state)


def test_sample_state_is_consistent_with_the_view():
    env = elgeta_v0.raw_env(num_players=3, deck="36")
    env.reset(seed=2)
    step_env(env, 25)
    view = env.view("player_1")
    sample = sampling.sample_state(view, env.config, np.random.default_rng(0))
    rules.check_invariants(sample)
    assert rules.view(sample, 1) == view
    assert sample.cards_in_play == env.game_state.cards_in_play


def test_raw_env_raises_naming_the_action_and_the_legal_one():
    env = elgeta_v0.raw_env(num_players=2)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"player_0: action 1 is outside Discrete\(1\); legal "):
        env.step(1)
    with pytest.raises(ValueError, match=r"legal moves: 0 \(play\)"):
        env.step(-1)


def test_wrapped_env_follows_the_classic_illegal_move_convention():
    env = elgeta_v0.env(num_players=3)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"outside|integer index"):  # outside Discrete(1)
        env.step(1)
    env.reset(seed=0)
    env.unwrapped._mask = np.zeros(1, dtype=np.int8)  # make "play" look illegal to the wrapper
    env.step(0)  # PettingZoo logs "Illegal move made, game terminating ..."
    assert env.rewards == {"player_0": -1.0, "player_1": 0.0, "player_2": 0.0}
    assert all(env.terminations.values())


def test_max_cycles_truncates():
    env = elgeta_v0.raw_env(num_players=2, max_cycles=5)
    env.reset(seed=0)
    steps = 0
    for _agent in env.agent_iter():
        _, _, term, trunc, info = env.last()
        if term or trunc:
            assert trunc and "result" not in info
            env.step(None)
            continue
        env.step(0)
        steps += 1
    assert steps == 10


def test_render_ansi_shows_piles_as_counts_and_public_cards_only():
    env = new_env(stacked(["JS 6S", "AD 7D", "AH 9H", "4C QC"]), render_mode="ansi")
    text = env.render()
    assert not any(symbol in text for symbol in CARD_SYMBOLS[:52])  # nothing face up yet
    assert "player_0: 13 cards (13 never seen)  leads" in text and "to play: player_0" in text
    step_env(env, 6)
    text = env.render()
    assert "tie-break round 1" in text
    assert "on the table: J♠(0) A♦(1) A♥(2) 4♣(3) | newest round: 6♠(0) 7♦(1)" in text
    step_env(env, 2)
    text = env.render()
    assert "last trick, taken by player_3: J♠(0) A♦(1) A♥(2) 4♣(3) 6♠(0) 7♦(1) 9♥(2) Q♣(3)" in text
    assert "player_3: 19 cards (11 never seen)  leads" in text
    assert env.render_view("player_2").count("(you)") == 1
    with pytest.raises(ValueError, match="render_mode='rgb'"):
        elgeta_v0.raw_env(render_mode="rgb")


def test_render_at_the_end_names_the_winner():
    env = new_env(stacked(["QS", "10D", "4H", "AC"], fill=(3,)), render_mode="ansi")
    step_env(env, 4)
    assert "winner: player_3" in env.render() and "game over" in env.render()


def test_recorded_game_replays_and_plays_the_recorded_cards():
    record = GameRecord.load(DATA / "elgeta_3p_32_seed2.json")
    assert record.result == replay(elgeta_v0.raw_env, record)
    assert record.result["winner"] == "player_1" and len(record.moves) == 123
    # the moves are all "play": the cards each one turned up anchor the deal and the rules
    env = elgeta_v0.raw_env(**record.env_kwargs)
    env.reset(seed=record.seed)
    played = [f"{env.possible_agents[s]} {card_text(c)}" for s, c in play_out(env)]
    assert played == json.loads((DATA / "elgeta_3p_32_seed2_cards.json").read_text())
    broken = GameRecord.from_json(record.to_json())
    broken.result = {**broken.result, "tricks": broken.result["tricks"] + 1}
    with pytest.raises(ReplayMismatch, match="result differs"):
        replay(elgeta_v0.raw_env, broken)


def test_stacked_piles_record_replays_with_its_options():
    piles = stacked(["JS 7S", "AD 8D", "AH 9H", "10C QC"], deck="32")
    record = play_recorded(
        elgeta_v0.raw_env, "kiaule/elgeta-v0", {"deck": "32"}, lambda *_: 0, 0, {"piles": piles}
    )
    assert replay(elgeta_v0.raw_env, GameRecord.from_json(record.to_json())) == record.result
    assert record.moves[0] == ["player_0", 0, "play"]
    assert parse_card("JS") in rules.new_deal(rules.Config(deck="32"), piles=piles).piles[0]
