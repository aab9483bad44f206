"""The Pig observation encoder and action codec: layout, docs, exact values, text round trips."""

from __future__ import annotations

import numpy as np
import pytest

from kiaule_env import pig_v0
from kiaule_env.cards import cards_text
from kiaule_env.pig import rules
from kiaule_env.pig.encoding import ActionCodec, ObservationEncoder, build_layout
from tests.pig.util import deck_for, make, step

HANDS = [  # player_1 is dealt four aces
    ["KC", "QC", "JC", "JD"],
    ["AC", "AD", "AH", "AS"],
    ["KD", "QD", "JH", "QH"],
    ["KH", "KS", "QS", "JS"],
]


def test_docstring_tables_are_the_generated_ones():
    doc = pig_v0.__doc__
    assert pig_v0.observation_table() in doc
    assert pig_v0.observation_table(**pig_v0.ALL_VARIANTS) in doc
    assert pig_v0.action_table() in doc
    assert len(pig_v0.observation_table().splitlines()) == 15  # 12 slices, 2 header, 1 total


@pytest.mark.parametrize("n", [3, 4, 8, 13])
@pytest.mark.parametrize(
    "variant",
    [{}, {"stock": True}, {"game": "full", "letters": True}, {"tokens": True}],
)
def test_observation_size_is_fixed_per_player_count_and_variant(n, variant):
    if variant.get("stock") and n == 13:
        pytest.skip("stock allows at most 12 players (P6)")
    config = rules.Config(num_players=n, **variant)
    r = 13 if config.stock else n
    expected = 6 * r + 3 * n + 3
    expected += n if config.letters else 0
    expected += 2 if config.stock else 0
    expected += 1 if config.tokens else 0
    layout = build_layout(config)
    assert layout.size == expected
    env = make(num_players=n, **variant)
    obs, _ = env.reset(seed=n)
    assert {o["observation"].shape for o in obs.values()} == {(expected,)}
    assert env.observation_space("player_0")["observation"].shape == (expected,)
    assert ActionCodec(config).num_actions == r + 2


def decode(env, agent):
    return env.layout.decode(env.observe(agent)["observation"])


def test_hand_ranks_and_relative_seats_at_the_deal():
    env = make()
    env.reset(seed=0, options={"deck": deck_for(HANDS)})
    d0, d1 = decode(env, "player_0"), decode(env, "player_1")
    assert d0["hand"].tolist() == [0.5, 0.25, 0.25, 0.0]  # J J Q K
    assert d1["hand"].tolist() == [0.0, 0.0, 0.0, 1.0]  # four aces
    assert d0["ranks_in_play"].tolist() == [1, 1, 1, 1]
    assert d0["dealer"].tolist() == [0, 0, 0, 1]  # the dealer player_3 is player_0's right
    assert d1["dealer"].tolist() == [0, 0, 1, 0]  # … and across from player_1
    assert d0["players_in"].tolist() == [1, 1, 1, 1]
    for name in ("last_passed", "last_received", "passed", "received", "touched"):
        assert not d0[name].any()
    assert d0["race"][0] == 0 and d0["passes"][0] == 0


def test_passed_and_received_memory_after_two_passes():
    env = make(max_passes=10)
    env.reset(seed=0, options={"deck": deck_for(HANDS)})
    step(env, ["pass J", "pass A", "pass Q", "pass K"])  # player_0 passes JC, gets KH
    step(env, ["pass K", "pass A", "pass Q", "pass K"])  # player_0 passes KC, gets KS
    d0 = decode(env, "player_0")
    assert d0["last_passed"].tolist() == [0, 0, 1, 0]
    assert d0["last_received"].tolist() == [0, 0, 1, 0]
    assert d0["passed"].tolist() == [0.5, 0.0, 0.5, 0.0]  # one J, one K of two passes
    assert d0["received"].tolist() == [0.0, 0.0, 1.0, 0.0]  # two Ks
    assert d0["hand"].tolist() == [0.25, 0.25, 0.5, 0.0]  # JD QC KH KS
    assert d0["passes"][0] == pytest.approx(0.2)
    view = env.view("player_0")
    assert view.passed_counts[9] == 1 and view.received_counts[11] == 2
    assert cards_text([view.last_passed, view.last_received]) == "KC KS"


def test_touched_and_race_are_public_relative_to_each_observer():
    env = make(max_race_steps=5)
    env.reset(seed=0, options={"deck": deck_for(HANDS)})
    step(env, ["pass J", "nose", "pass Q", "pass K"])
    for agent, index in (("player_0", 1), ("player_1", 0), ("player_2", 3), ("player_3", 2)):
        d = decode(env, agent)
        assert d["touched"].tolist() == [int(i == index) for i in range(4)]
        assert d["race"][0] == 1.0
    step(env, ["wait"] * 4)
    assert decode(env, "player_0")["race_steps"][0] == pytest.approx(0.2)


def test_rank_removal_players_in_and_letters_in_a_full_game():
    three = ["QC", "KC", "AC", "QD", "KD", "AD", "QH", "KH", "AH", "QS", "KS", "AS"]
    env = make(num_players=3, game="full", letters=True)
    env.reset(seed=0, options={"decks": [three] * 4})
    for _ in range(3):
        pass_rank = next(t for t in env.legal_moves("player_2").values() if t != "nose")
        step(env, ["nose", "nose", pass_rank])
    d0 = decode(env, "player_0")
    assert d0["ranks_in_play"].tolist() == [0, 1, 1]  # Q left the deck
    assert d0["players_in"].tolist() == [1, 1, 0]  # player_2 (my right) is out
    assert d0["letters"].tolist() == [0, 0, 1]
    assert env.observe("player_0")["action_mask"][0] == 0


def test_stock_and_token_slices():
    env = make(stock=True, tokens=True)
    env.reset(seed=5)
    d = decode(env, "player_2")
    assert d["stock_size"][0] == pytest.approx(36 / 52) and d["discard_size"][0] == 0
    assert d["tokens_left"][0] == 1.0
    assert d["hand"].shape == (13,)


def test_encoder_reads_only_the_view():
    env = make()
    env.reset(seed=2)
    view = env.view("player_1")
    encoder = ObservationEncoder(env.config)
    assert np.array_equal(encoder.encode(view), env.observe("player_1")["observation"])


def test_action_codec_round_trips_indices_moves_and_texts():
    config = rules.Config(num_players=5, tokens=True)
    codec = ActionCodec(config)
    assert codec.texts == ("pass 10", "pass J", "pass Q", "pass K", "pass A", "token", "wait")
    for action, text in enumerate(codec.texts):
        assert codec.parse(text) == action
        assert codec.parse(f"  {text.upper()} ") == action
        assert codec.to_action(codec.to_move(action)) == action
    assert codec.to_move(0) == 8 and codec.to_move(5) == rules.NOSE
    with pytest.raises(ValueError, match="moves are 'pass R' with R one of 10 J Q K A"):
        codec.parse("pass 9")
    with pytest.raises(ValueError, match="'token' or 'wait'"):
        codec.parse("nose")
    assert codec.mask([codec.nose, codec.wait]).tolist() == [0, 0, 0, 0, 0, 1, 1]


def test_legal_moves_texts_match_the_mask():
    env = make(num_players=6, stock=True)
    obs, _ = env.reset(seed=8)
    for agent in env.agents:
        moves = env.legal_moves(agent)
        assert sorted(moves) == np.flatnonzero(obs[agent]["action_mask"]).tolist()
        assert all(t.startswith("pass ") for t in moves.values())
