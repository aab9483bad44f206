"""The shared card core (RULES §0): ids, texts, decks, rank orders, points."""

from __future__ import annotations

import numpy as np
import pytest

from kiaule_env import cards
from kiaule_env.cards import (
    BLACK_JOKER,
    CARD_POINTS,
    DECKS,
    FACE_PIPS,
    KOZEL_ORDER,
    RED_JOKER,
    card_text,
    get_deck,
    make_card,
    parse_card,
    parse_cards,
    rank_strength_table,
)


def test_card_ids_round_trip_through_text():
    for card in range(cards.NUM_CARD_IDS):
        assert parse_card(card_text(card)) == card
    assert card_text(make_card("10", "H")) == "10H"
    assert card_text(RED_JOKER) == "RJ" and card_text(BLACK_JOKER) == "BJ"


@pytest.mark.parametrize("text", ["10h", " qs ", "6C", "rj", "Bj", "aD"])
def test_parsing_is_case_insensitive(text):
    assert card_text(parse_card(text)) == text.strip().upper()


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("1H", "ten is written '10'"),
        ("QX", "suit must be one of"),
        ("ZS", "rank must be"),
        ("", "malformed"),
        ("10", "malformed"),
    ],
)
def test_malformed_card_text_says_what_is_allowed(text, fragment):
    with pytest.raises(ValueError, match=fragment):
        parse_card(text)


def test_parse_card_rejects_non_text():
    with pytest.raises(ValueError, match="as text"):
        parse_card(None)  # type: ignore[arg-type]


def test_deck_sizes_and_ranks():
    assert {n: d.size for n, d in DECKS.items()} == {"32": 32, "36": 36, "52": 52, "54": 54}
    assert all(
        cards.rank_of(c) in ["7", "8", "9", "10", "J", "Q", "K", "A"] for c in DECKS["32"].cards
    )
    assert min(cards.rank_index(c) for c in DECKS["36"].cards) == cards.RANKS.index("6")
    assert RED_JOKER in DECKS["54"] and RED_JOKER not in DECKS["52"]
    assert sorted(DECKS["52"].position[list(DECKS["52"].cards)]) == list(range(52))


def test_get_deck_refuses_decks_the_game_does_not_allow():
    assert get_deck(36, allowed=("36",)).size == 36
    with pytest.raises(ValueError, match="choose one of 36"):
        get_deck("52", allowed=("36",))


def test_parse_permutation_names_each_problem():
    deck = DECKS["36"]
    texts = [card_text(c) for c in deck.cards]
    assert deck.parse_permutation(texts) == list(deck.cards)
    with pytest.raises(ValueError, match="2C, not in the 36-card deck"):
        deck.parse_permutation(["2C", *texts[1:]])
    with pytest.raises(ValueError, match="more than once"):
        deck.parse_permutation([texts[1], *texts[1:]])
    with pytest.raises(ValueError, match="missing: AS"):
        deck.parse_permutation(texts[:-1])
    with pytest.raises(ValueError, match="malformed card text"):
        deck.parse_permutation(["XX", *texts[1:]])
    with pytest.raises(ValueError, match="list of card texts"):
        deck.parse_permutation(" ".join(texts))


def test_shuffled_is_a_seeded_permutation():
    deck = DECKS["52"]
    a = deck.shuffled(np.random.default_rng(1))
    assert a == deck.shuffled(np.random.default_rng(1))
    assert sorted(a) == sorted(deck.cards) and a != list(deck.cards)


def test_kozel_rank_order_puts_ten_between_king_and_ace():
    strength = rank_strength_table(KOZEL_ORDER)
    king, ten, ace = (strength[make_card(r, "S")] for r in ("K", "10", "A"))
    assert king < ten < ace
    assert strength[make_card("9", "S")] < strength[make_card("J", "S")]
    assert strength[make_card("2", "S")] == -1


def test_points_tables():
    assert int(CARD_POINTS[list(DECKS["36"].cards)].sum()) == 120  # K11
    assert CARD_POINTS[make_card("9", "H")] == 0 and CARD_POINTS[RED_JOKER] == 0
    assert FACE_PIPS[make_card("7", "C")] == 7 and FACE_PIPS[make_card("K", "C")] == 4  # G9
    assert parse_cards("AS 10S KS") == [
        make_card("A", "S"),
        make_card("10", "S"),
        make_card("K", "S"),
    ]
