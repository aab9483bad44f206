"""The Kozel observation encoder (named slices, relative seats) and the action codec."""

from __future__ import annotations

import numpy as np
import pytest

from kiaule_env import kozel_v0
from kiaule_env.cards import parse_card
from kiaule_env.kozel import rules
from kiaule_env.kozel.encoding import CODEC, ENCODER, RELATIVE
from tests.kozel.stacking import new_state, stacked
from tests.kozel.test_rules import MOLODKA_HANDS, PAIRING_HANDS, quiet_trick

C = parse_card
POS = rules.DECK.position


def decode(state: rules.State, seat: int) -> dict[str, np.ndarray]:
    return ENCODER.layout.decode(ENCODER.encode(rules.view(state, seat)))


def cards_of(part: np.ndarray) -> set[int]:
    return {rules.DECK.cards[i] for i in np.flatnonzero(part)}


def test_layout_is_the_documented_table():
    layout = ENCODER.layout
    assert layout.size == 490
    assert [s.name for s in layout.slices][:3] == ["hand", "trump", "indicator"]
    assert kozel_v0.observation_table() == layout.markdown_table()
    assert "| **total** | | **490** | |" in kozel_v0.observation_table()


def test_own_hand_trump_indicator_and_stock():
    state = new_state(stacked(PAIRING_HANDS, indicator="9H"))
    parts = decode(state, 1)
    assert cards_of(parts["hand"]) == {C(t) for t in PAIRING_HANDS[1]}
    assert parts["trump"].tolist() == [0, 0, 1, 0]
    assert cards_of(parts["indicator"]) == {C("9H")}
    assert parts["indicator_where"].tolist() == [1, 0, 0, 0, 0, 0]
    assert parts["indicator_depth"][0] == pytest.approx(10 / 20)
    assert parts["stock_size"][0] == 1.0
    assert parts["hand_sizes"].tolist() == [1, 1, 1, 1]
    assert parts["phase"].tolist() == [1, 0, 0]
    assert parts["dealer"].tolist() == [0, 0, 1, 0]  # player_3 sits opposite player_1


def test_other_players_are_relative_to_the_observer():
    state = new_state(stacked(PAIRING_HANDS, indicator="9H"))
    rules.play(state, "lead 7S AS")  # player_0
    rules.play(state, "beat 8S 6H")  # player_1
    rules.play(state, "discard QC JD")  # player_2
    for observer in range(4):
        parts = decode(state, observer)
        rel = {RELATIVE[(s - observer) % 4]: s for s in range(4)}
        assert cards_of(parts[f"trick_{RELATIVE[(0 - observer) % 4]}"]) == {C("7S"), C("AS")}
        assert cards_of(parts[f"trick_{RELATIVE[(1 - observer) % 4]}"]) == {C("8S"), C("6H")}
        assert not parts[f"trick_{RELATIVE[(2 - observer) % 4]}"].any()  # face down
        assert parts["leader"][(0 - observer) % 4] == 1 and parts["leader"].sum() == 1
        assert parts["winning_seat"][(1 - observer) % 4] == 1
        assert parts["trick_discarded"][(2 - observer) % 4] == 1
        assert parts["trick_discarded"].sum() == 1
        assert parts["trick_played"].tolist() == [int(rel[r] != 3) for r in RELATIVE]
        assert cards_of(parts["to_beat"]) == {C("8S"), C("6H")}
        assert parts["cards_to_play"].tolist() == [0, 1, 0, 0]
        assert cards_of(parts["seen"]) == {C("7S"), C("AS"), C("8S"), C("6H")}
        mine = {C("QC"), C("JD")} if observer == 2 else set()
        assert cards_of(parts["my_discards"]) == mine
        assert parts["dealer"][(3 - observer) % 4] == 1


def test_known_cards_indicator_holder_and_points():
    state = new_state(stacked(PAIRING_HANDS, indicator="9H"))
    for _ in range(3):
        quiet_trick(state)  # player_2 draws the indicator (test_K4)
    parts = decode(state, 1)  # player_2 is left of player_1
    assert cards_of(parts["known_left"]) == {C("9H")}
    assert parts["indicator_where"].tolist() == [0, 0, 1, 0, 0, 0]
    assert decode(state, 2)["indicator_where"].tolist() == [0, 1, 0, 0, 0, 0]
    assert decode(state, 0)["indicator_where"].tolist() == [0, 0, 0, 1, 0, 0]
    # player_2 discards face down: the indicator may now be among his discards (0.5)
    rules.apply(state, rules.legal_moves(state)[0])  # player_0 leads
    rules.apply(state, rules.move_code(rules.DISCARD, 1))  # player_1 discards
    index = state.hands[2].index(C("9H"))
    other = (index + 1) % len(state.hands[2])
    rules.apply(state, rules.move_code(rules.DISCARD, 1 << other))  # not the indicator
    parts = decode(state, 1)
    assert parts["known_left"][POS[C("9H")]] == 0.5
    assert parts["known_left"].sum() == 0.5
    assert parts["points_known"].tolist() == pytest.approx(
        [
            (state.points_seen[1] + state.discard_points[1][1]) / 120,
            (state.points_seen[0] + state.discard_points[1][0]) / 120,
        ]
    )
    assert parts["tricks_taken"].tolist() == pytest.approx([0, 3 / 9])


def test_claim_window_declined_and_returned_cards():
    state = new_state(stacked(MOLODKA_HANDS, indicator="9H"))
    rules.play(state, "lead 6C")
    parts = decode(state, 1)
    assert parts["phase"].tolist() == [0, 0, 1]
    rules.play(state, "decline")
    rules.play(state, "decline")
    assert decode(state, 0)["declined"].tolist() == [0, 1, 1, 0]
    rules.play(state, "claim")
    parts = decode(state, 2)  # player_0 is player_2's partner
    assert cards_of(parts["known_partner"]) == {C("6C")}
    assert parts["claimed"][0] == 1
    assert parts["leader"].tolist() == [0, 1, 0, 0]  # player_3 is left of player_2
    assert C("6C") not in cards_of(parts["seen"])


def test_observations_stay_in_the_space_in_random_play():
    env = kozel_v0.raw_env(series=True, eggs="double")
    space = env.observation_space("player_0")["observation"]
    rng = np.random.default_rng(3)
    for seed in range(20):
        env.reset(seed=seed)
        while env.game_state.phase != rules.PHASE_OVER:
            for agent in env.possible_agents:
                assert space.contains(env.observe(agent)["observation"])
            legal = rules.legal_moves(env.game_state)
            env.step(legal[rng.integers(len(legal))])


def test_action_codec_texts_and_table():
    state = new_state(stacked(PAIRING_HANDS, indicator="9H"))
    hand = state.hands[0]
    for action in rules.legal_moves(state):
        assert CODEC.text(hand, action) == rules.move_text(state, action)
    assert CODEC.text(hand, rules.move_code(rules.LEAD, 0b1100)) == "lead 7S AS"
    assert CODEC.text(hand, 15 + 0b0001 - 1) == "beat 6C"
    assert CODEC.text(hand, 30 + 0b1111 - 1) == "discard 6C 6D 7S AS"
    assert CODEC.text(hand, 45) == "claim" and CODEC.text(hand, 46) == "decline"
    mask = CODEC.mask([0, 3, 46])
    assert mask.dtype == np.int8 and np.flatnonzero(mask).tolist() == [0, 3, 46]
    table = kozel_v0.action_table()
    for indices in ("0–14", "15–29", "30–44", "45", "46"):
        assert f"| {indices} |" in table
