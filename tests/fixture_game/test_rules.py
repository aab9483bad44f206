"""High card's rules, one test per rule id (``highcard/RULES.md``, H1–H7)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.stats import chisquare

from kiaule_env.cards import parse_cards
from tests.fixture_game.highcard import rules
from tests.fixture_game.highcard.engine import Engine
from tests.fixture_game.highcard.rules import DECK, Config

#: a stacked deck (H2): player_0 gets AH QH 10S 9S, player_1 KH JH AS 9H; the stock JS QS KS 10H
STACKED = ["AH", "KH", "QH", "JH", "10S", "AS", "9S", "9H", "JS", "QS", "KS", "10H"]


def _state(hand_size: int = 4):
    engine = Engine(hand_size=hand_size)
    return engine, engine.new_episode(np.random.default_rng(0), {"deck": STACKED})


def _play(engine, state, *cards: str) -> list:
    out = []
    for card in parse_cards(list(cards)):
        seat, action = engine.to_act(state)[0], engine.codec.action(card)
        assert action in engine.legal_actions(state, seat)
        out.append(engine.apply(state, [action]))
        engine.check_invariants(state)
    return out


def test_h1_two_players_and_the_12_card_deck():
    assert DECK.size == 12 and set(DECK.ranks) == {"9", "10", "J", "Q", "K", "A"}
    assert Config().num_players == 2
    with pytest.raises(ValueError, match="num_players=3 is out of range"):
        Config(num_players=3)
    with pytest.raises(ValueError, match=r"deck='36' is not allowed; choose one of '12'"):
        Config(deck="36")


def test_h2_the_deal_alternates_and_the_rest_is_the_stock():
    engine, state = _state()
    assert state.hands == [sorted(parse_cards(h.split())) for h in ("AH QH 10S 9S", "KH JH AS 9H")]
    assert state.stock == parse_cards(["JS", "QS", "KS", "10H"])
    with pytest.raises(ValueError, match="hand_size=7 is out of range"):
        Config(hand_size=7)
    with pytest.raises(ValueError, match="contains AH more than once"):
        engine.new_episode(np.random.default_rng(0), {"deck": ["AH", *STACKED[:-1]]})


def test_h3_player_0_leads_then_the_trick_winner():
    engine, state = _state()
    assert engine.to_act(state) == (0,)
    _play(engine, state, "QH", "KH")  # player_1 takes it (H5) and leads next
    assert engine.to_act(state) == (1,) and state.leader == 1


def test_h4_follow_the_led_suit_if_able():
    engine, state = _state()
    _play(engine, state, "10S")
    legal = [engine.codec.card(a) for a in engine.legal_actions(state, 1)]
    assert legal == parse_cards(["AS"])  # his only spade
    _play(engine, state, "AS")
    _play(engine, state, "9H")  # player_1 leads a heart; player_0 holds QH AH
    assert [engine.codec.card(a) for a in engine.legal_actions(state, 0)] == parse_cards(
        ["QH", "AH"]
    )
    with pytest.raises(ValueError, match="not legal now"):
        rules.parse_move(state, "play 9S")


def test_h5_the_highest_card_of_the_led_suit_wins():
    assert rules.trick_winner([(0, parse_cards(["9H"])[0]), (1, parse_cards(["AS"])[0])]) == 0
    assert rules.trick_winner([(1, parse_cards(["JH"])[0]), (0, parse_cards(["QH"])[0])]) == 0
    assert rules.trick_winner([(0, parse_cards(["10S"])[0]), (1, parse_cards(["AS"])[0])]) == 1


def test_h6_the_end_pays_the_player_with_more_tricks():
    engine, state = _state()
    deltas = _play(engine, state, "9S", "AS", "9H", "QH", "AH", "JH", "10S", "KH")
    assert all(list(d) == [0.0, 0.0] for d in deltas[:-1])  # nothing before the end
    assert engine.is_over(state) and list(deltas[-1]) == [1.0, -1.0]
    assert engine.result(state) == {"tricks": [3, 1], "winner": 0}
    assert engine.step_info(state) == {"game_result": {"tricks": [3, 1], "winner": 0}}
    engine, state = _state()  # equal tricks: a draw
    deltas = _play(engine, state, "AH", "9H", "QH", "JH", "10S", "AS", "KH", "9S")
    assert list(deltas[-1]) == [0.0, 0.0]
    assert engine.result(state) == {"tricks": [2, 2], "winner": None}


def test_h7_a_player_who_does_not_follow_shows_a_void_and_is_never_dealt_that_suit():
    engine, state = _state()
    _play(engine, state, "9S", "AS", "KH", "AH", "10S")
    assert state.voids == [set(), set()]
    _play(engine, state, "9H")  # player_1 has no spade left: he shows it
    assert state.voids == [set(), {3}] and engine.view(state, 0).voids[1] == {3}
    rng = np.random.default_rng(1)
    drawn = {tuple(engine.sample_state(engine.view(state, 0), rng).hands[1]) for _ in range(200)}
    assert drawn == {tuple(parse_cards(["JH"])), tuple(parse_cards(["10H"]))}  # hearts only
    broken = engine.clone(state)
    broken.hands[1] = parse_cards(["JS"])
    broken.stock[broken.stock.index(parse_cards(["JS"])[0])] = parse_cards(["JH"])[0]
    with pytest.raises(AssertionError, match="suit he showed void"):
        engine.check_invariants(broken)


def test_h7_determinizations_are_exactly_uniform_over_the_consistent_deals():
    """After player_1 showed a spade void: his one card is either unseen heart, the stock any
    order of the other four unseen cards (2 × 24 deals); a chi-square test must not reject."""
    engine, state = _state()
    _play(engine, state, "9S", "AS", "KH", "AH", "10S", "9H")
    unseen = parse_cards(["JH", "10H", "JS", "QS", "KS"])
    allowed = {
        (card, order)
        for card in parse_cards(["JH", "10H"])
        for order in itertools.permutations([c for c in unseen if c != card])
    }
    rng = np.random.default_rng(5)
    view = engine.view(state, 0)
    counts = dict.fromkeys(allowed, 0)
    for _ in range(4800):
        sampled = engine.sample_state(view, rng)
        key = (sampled.hands[1][0], tuple(sampled.stock))
        assert key in counts, f"an inconsistent deal {key}"
        counts[key] += 1
    assert chisquare(list(counts.values())).pvalue > 0.001
