"""The Kiauliaganys observation encoder and action codec: layout, exact contents, round trips,
and the documentation tables generated from them."""

from __future__ import annotations

import numpy as np
import pytest

from kiaule_env import kiauliaganys_v0
from kiaule_env.cards import CARD_TEXTS, get_deck, parse_card
from kiaule_env.kiauliaganys import rules
from kiaule_env.kiauliaganys.encoding import ActionCodec
from tests.kiauliaganys.helpers import (
    EXHAUST36_OPENING,
    do,
    exhaust36,
    new_env,
    stacked,
    suit_cards,
)


def cards_in(part: np.ndarray, deck: str = "52") -> set[str]:
    cards = get_deck(deck).cards
    return {CARD_TEXTS[cards[i]] for i in np.flatnonzero(part)}


def test_docstring_tables_are_the_generated_ones():
    doc = kiauliaganys_v0.__doc__
    assert kiauliaganys_v0.observation_table() in doc
    assert kiauliaganys_v0.action_table() in doc


@pytest.mark.parametrize(
    ("num_players", "deck", "obs_size", "actions"),
    [
        (4, "52", 441, 107),
        (2, "36", 3 * 36 + 25 + 26 + 72, 75),
        (6, "54", 162 + 25 + 78 + 324, 117),
    ],
)
def test_sizes_are_fixed_by_player_count_and_deck(num_players, deck, obs_size, actions):
    env = kiauliaganys_v0.raw_env(num_players=num_players, deck=deck)
    assert env.layout.size == obs_size and env.num_actions == actions
    space = env.observation_space("player_0")["observation"]
    assert space.shape == (obs_size,) and space.low.min() == 0 and space.high.max() == 1


@pytest.mark.parametrize("deck", ["36", "52", "54"])
def test_action_codec_round_trips(deck):
    codec = ActionCodec(rules.Config(num_players=2, deck=deck))
    seen = set()
    for index in range(codec.num_actions):
        move = codec.move(index)
        assert codec.index(move) == index and move.text == codec.text(index)
        assert rules.parse_move(codec.text(index).lower()) == move
        seen.add(codec.text(index))
    assert len(seen) == codec.num_actions
    assert codec.text(0) == f"play {CARD_TEXTS[get_deck(deck).cards[0]]}"
    assert codec.texts[-3:] == ("search", "take", "drag blind")
    if deck == "54":
        assert codec.text(codec.joker_base) == "drag RJ C"
        assert codec.text(codec.joker_base + 7) == "drag BJ S"


def test_parse_move_explains_the_grammar():
    with pytest.raises(ValueError, match="moves are 'play C', 'search', 'take'"):
        rules.parse_move("pass")
    with pytest.raises(ValueError, match="ten is written '10'"):
        rules.parse_move("play 1H")


def test_observation_contents_after_a_search_and_a_take():
    env = new_env(exhaust36(), num_players=3, deck="36")
    do(env, *EXHAUST36_OPENING, "take")  # P0: 26 C/D/H, P1: 8S…AS + 6C (face up); P2 to act
    layout = env.layout
    mine = layout.decode(env.observe("player_0")["observation"])
    cdh = {c for s in "CDH" for c in suit_cards(s, "6 7 8 9 10 J Q K A")}
    assert cards_in(mine["hand"], "36") == cdh - {"6C"}
    assert cards_in(mine["fund_top"], "36") == {"7S"}
    assert cards_in(mine["fund"], "36") == {"6S", "7S"}
    assert mine["required_suit"].tolist() == [0, 0, 0, 1, 0]  # spades
    assert mine["phase"].tolist() == [1, 0] and mine["last_turn"][0] == 0
    assert mine["face_down"][0] == 0 and mine["fund_size"][0] == pytest.approx(2 / 36)
    assert mine["turns"][0] == pytest.approx(2 / 1000)
    assert mine["to_act"].tolist() == [0, 0, 1]  # player_2 is my right: relative seat 2
    assert mine["hand_sizes"] * 36 == pytest.approx([26, 8, 0])
    assert mine["had_turn"].tolist() == [1, 1, 0] and mine["out"].tolist() == [0, 0, 0]
    face_up = mine["face_up"].reshape(3, 36)
    assert cards_in(face_up[1], "36") == {"6C"} and not face_up[0].any()
    assert (mine["not_suit"].reshape(3, 4) * 36).round().tolist() == [
        [0, 0, 0, 26],  # me: 27 picked up searching for spades, then 6C (unseen) dragged
        [7, 0, 0, 0],  # player_1: 7 picked up searching for clubs
        [0, 0, 0, 0],
    ]
    assert not mine["match_years"].any()
    # public card counting: the 7 unseen cards are 8S…AS; player_1 holds 6C face up
    # and 7 hidden cards, none of them clubs (G4 not_suit), so he surely has clubs and spades
    # and surely lacks diamonds and hearts; player_2 holds nothing; my own row is what I hold
    assert (mine["unseen"] * 36).round().tolist() == [0, 0, 0, 7, 0]
    assert mine["match_chance"].reshape(3, 4).tolist() == [[1, 1, 1, 0], [1, 0, 0, 1], [0] * 4]
    assert mine["next_chance"].tolist() == [1, 0, 0, 1]  # player_1 is the next still in
    assert not mine["search_length"].any()  # no face-down cards left
    # the same public facts, relative to player_1
    theirs = layout.decode(env.observe("player_1")["observation"])
    assert cards_in(theirs["hand"], "36") == {"8S", "9S", "10S", "JS", "QS", "KS", "AS", "6C"}
    assert theirs["hand_sizes"] * 36 == pytest.approx([8, 0, 26])
    assert cards_in(theirs["face_up"].reshape(3, 36)[0], "36") == {"6C"}
    assert (theirs["not_suit"].reshape(3, 4) * 36).round().tolist()[2] == [0, 0, 0, 26]
    assert theirs["to_act"].tolist() == [0, 1, 0]


def test_counting_slices_are_the_heuristics_counting():
    """While face-down cards remain the chances are strictly between 0 and 1 and the search
    lengths are those of ``kiauliaganys.counting``, from the view alone."""
    from kiaule_env.kiauliaganys.counting import expected_search, match_chances

    env = new_env(stacked("7H 2C 3D 9H 4D"))
    do(env, "search")  # P0 picks up 2C, 3D searching for hearts, plays 9H; he drags next
    view = env.view("player_1")
    mine = env.layout.decode(env.observe("player_1")["observation"])
    rows = mine["match_chance"].reshape(4, 4)
    for rel in (1, 2, 3):
        seat = (1 + rel) % 4
        assert rows[rel] == pytest.approx(match_chances(view, seat), abs=1e-6)
    # P0 (relative seat 3) holds two hidden cards, both picked up searching for hearts
    assert rows[3][2] == 0 and 0 < rows[3][0] < 1 and 0 < rows[3][3] < 1
    assert not rows[1].any() and not rows[2].any()  # nobody else holds a card yet (G2)
    assert not rows[0].any()  # nor do I
    assert mine["next_chance"] == pytest.approx(rows[1])  # player_2 follows me
    assert mine["search_length"] * 52 == pytest.approx(
        [expected_search(view, t) for t in range(4)], abs=1e-5
    )
    assert mine["search_length"].all()


def test_not_suit_counts_drop_when_unseen_cards_are_played():
    env = new_env(stacked("7H 2C 3D 9H 4D"))
    do(env, "search")  # P0 picks up 2C, 3D searching for hearts: 2 cards are not hearts
    assert env.view("player_1").not_suit[0] == (0, 0, 2, 0)
    do(env, "drag 2C")  # an unseen non-heart: it may have been one of them
    assert env.view("player_1").not_suit[0] == (0, 0, 1, 0)
    assert env.view("player_1").hand_sizes[0] == 1


def test_view_holds_exactly_the_public_facts():
    env = new_env(stacked("7H 2C 3D 9H"))
    do(env, "search")
    view = env.view("player_2")
    assert view.hand == () and view.fund == (parse_card("7H"), parse_card("9H"))
    assert view.hand_sizes == (2, 0, 0, 0) and view.face_down == 48
    assert view.to_act == 0 and view.phase == rules.DRAG and view.required_suit == 2
    assert view.face_up == ((), (), (), ()) and view.last_picked == 2
    assert env.view("player_0").hand == (parse_card("2C"), parse_card("3D"))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_players": 3, "deck": "54"},
        {"num_players": 2, "deck": "36", "must_play_from_hand": True},
        {"num_players": 4, "blind_drag_only_when_empty_hand": True},
    ],
)
def test_the_mask_fast_path_agrees_with_legal_moves(kwargs):
    env = kiauliaganys_v0.raw_env(**kwargs)
    rng = np.random.default_rng(3)
    for seed in range(15):
        env.reset(seed=seed)
        while not all(env.terminations.values()):
            state = env.game_state
            fast = env.codec.legal_indices(rules.legal_options(state))
            assert fast == env.codec.indices(rules.legal_moves(state))
            assert fast == np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist()
            env.step(fast[rng.integers(len(fast))])
