"""One scenario test (or a few) per rule of RULES §2, G1–G14, on stacked decks."""

from __future__ import annotations

import numpy as np
import pytest

from kiaule_env import kiauliaganys_v0
from kiaule_env.cards import parse_card
from kiaule_env.kiauliaganys import rules
from tests.kiauliaganys.helpers import (
    EXHAUST36_OPENING,
    PAIRS54_OPENING,
    do,
    endgame,
    exhaust36,
    exhaust52,
    fund,
    hand,
    jokers54,
    legal,
    new_env,
    pairs54,
    required,
    stacked,
    suit_cards,
)


def decoded(env, agent: str) -> dict[str, np.ndarray]:
    return env.layout.decode(env.observe(agent)["observation"])


# ---------------------------------------------------------------------------------- G1
def test_G1_player_counts_and_decks():
    env = kiauliaganys_v0.raw_env()
    assert env.possible_agents == [f"player_{i}" for i in range(4)]
    assert env.config.deck == "52" and env.num_actions == 107
    for n in range(2, 7):
        assert len(kiauliaganys_v0.raw_env(num_players=n, deck="54").possible_agents) == n
    for n in (2, 3, 4):
        kiauliaganys_v0.raw_env(num_players=n, deck=36)  # the int form is accepted too
    with pytest.raises(ValueError, match=r"deck='36' allows 2–4 players"):
        kiauliaganys_v0.raw_env(num_players=5, deck="36")
    with pytest.raises(ValueError, match=r"num_players=7 is out of range.*between 2 and 6"):
        kiauliaganys_v0.raw_env(num_players=7)
    with pytest.raises(ValueError, match="num_players=1"):
        kiauliaganys_v0.raw_env(num_players=1)
    with pytest.raises(ValueError, match=r"deck='32' is not allowed.*'36', '52', '54'"):
        kiauliaganys_v0.raw_env(deck="32")


def test_G1_bad_options_are_refused_clearly():
    for kwargs, message in [
        ({"pips": "faces"}, r"pips='faces' is not allowed; choose one of 'points', 'face'"),
        ({"reward": "score"}, r"reward='score' is not allowed"),
        ({"max_turns": 0}, r"max_turns=0 is out of range"),
        ({"match_years": 0}, r"match_years=0 is out of range"),
        ({"must_play_from_hand": 1}, r"must_play_from_hand must be True or False"),
        ({"blind_drag_only_when_empty_hand": "yes"}, r"blind_drag_only_when_empty_hand"),
        ({"render_mode": "video"}, r"render_mode='video' is not supported"),
        ({"max_cycles": 0}, r"max_cycles must be a positive integer"),
    ]:
        with pytest.raises(ValueError, match=message):
            kiauliaganys_v0.raw_env(**kwargs)
    assert kiauliaganys_v0.raw_env(match_years=True).config.match_years == 20


# ---------------------------------------------------------------------------------- G2
def test_G2_position_0_starts_the_fund_and_the_rest_is_drawn_from_the_top():
    env = new_env(stacked("7H 2C 3D 9H 5S"))
    assert fund(env) == ["7H"] and required(env) == "H"
    assert len(env.game_state.face_down) == 51
    assert env.agent_selection == "player_0"  # the dealer is the last seat (RULES §0)
    do(env, "search")  # draws 2C, 3D (into the hand), then 9H (onto the fund)
    assert hand(env, 0) == {"2C", "3D"}
    assert fund(env) == ["7H", "9H"]
    assert len(env.game_state.face_down) == 48
    do(env, "drag blind")  # the next card of the sequence, 5S
    assert fund(env) == ["7H", "9H", "5S"] and required(env) == "S"


def test_G2_a_stacked_deck_must_be_a_permutation_of_the_deck():
    env = kiauliaganys_v0.raw_env()
    good = stacked("7H")
    with pytest.raises(ValueError, match="more than once"):
        env.reset(options={"deck": ["7H", *good]})
    with pytest.raises(ValueError, match="missing: 7H"):
        env.reset(options={"deck": good[1:]})
    with pytest.raises(ValueError, match="RJ, not in the 52-card deck"):
        env.reset(options={"deck": ["RJ", *good[1:]]})
    with pytest.raises(ValueError, match="malformed card text 'XX'"):
        env.reset(options={"deck": ["XX", *good[1:]]})
    with pytest.raises(ValueError, match="single deal"):
        env.reset(options={"decks": [good, good]})
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(options={"piles": []})


# ---------------------------------------------------------------------------------- G3
def test_G3_a_joker_starting_card_means_any_suit():
    env = new_env(stacked("RJ 5D 6C", "54"), deck="54")
    assert required(env) == "any"
    do(env, "search")  # the first card matches whatever it is
    assert hand(env, 0) == set() and fund(env) == ["RJ", "5D"]


def test_G3_named_joker_requires_its_suit_and_a_take_that_uncovers_it_means_any():
    env = new_env(jokers54(), num_players=2, deck="54")
    do(env, "search", "drag 2C", "search")  # P0 finds RJ; P1 picks up 3S…AS and finds BJ
    assert env.game_state.face_down == [] and fund(env) == ["2S", "RJ", "2C", "BJ"]
    do(env, "drag 3S", "take")  # P1 drags a spade; P0 (no spades) must take it
    assert required(env) == "any"  # BJ was found by a search: it names no suit
    do(env, "take")  # P1 takes BJ itself; 2C is on top again
    assert required(env) == "C"
    do(env, "play 3C", "drag 3S", "play 4S", "drag BJ H")
    assert required(env) == "H"  # G6: the dragged joker names hearts
    plays = {m for m in legal(env) if m.startswith("play")}
    assert plays == {f"play {c}" for c in suit_cards("H")}
    do(env, "play 2H", "drag 2D", "take")  # P1 has no diamonds: take
    assert required(env) == "H"
    do(env, "take")  # P0 takes 2H although he holds hearts (G5)
    assert fund(env)[-1] == "BJ" and required(env) == "any"  # the name is gone
    assert "play 5S" in legal(env) and "play 2D" in legal(env)


def test_G3_an_empty_fund_means_any_suit():
    env = new_env(exhaust36(), num_players=2, deck="36")
    do(env, *EXHAUST36_OPENING, "take", "take", "take")  # P1 6C, P0 7S, P1 6S: fund empty
    assert fund(env) == [] and required(env) == "any"
    assert legal(env) == {f"play {c}" for c in hand(env, 0)}  # every card; no take, no search


# ---------------------------------------------------------------------------------- G4
def test_G4_search_draws_until_the_suit_and_others_see_only_how_many():
    env = new_env(stacked("7H 2C 3D 9H"))
    do(env, "search")
    assert hand(env, 0) == {"2C", "3D"} and env.game_state.phase == rules.DRAG
    assert env.agent_selection == "player_0"  # the drag is the same player's next decision
    seen_by_p1 = decoded(env, "player_1")
    assert seen_by_p1["hand_sizes"][3] * 52 == pytest.approx(2)  # P0 is P1's relative seat 3
    assert seen_by_p1["not_suit"][12:16] * 52 == pytest.approx([0, 0, 2, 0])  # not hearts
    assert not seen_by_p1["face_up"][3 * 52 :].any()  # but not which cards
    assert not seen_by_p1["hand"].any()
    assert env.view("player_1").not_suit[0] == (0, 0, 2, 0)


def test_G4_search_is_allowed_while_holding_the_suit_and_proves_nothing():
    env = new_env(stacked("7H 2C 9H 3C 4C 5H 6H 8C 10C JC QC"))
    do(env, "search", "drag blind")  # P0 keeps 2C; 3C is dragged: clubs
    do(env, "search", "drag blind", "search", "drag blind", "search", "drag blind")
    assert required(env) == "C" and hand(env, 0) == {"2C"}
    assert legal(env) == {"play 2C", "search"}
    do(env, "search")  # finds QC at once
    assert hand(env, 0) == {"2C"} and env.view("player_1").not_suit[0] == (0, 0, 1, 0)
    assert env.game_state.not_suit[0][0] == 0  # he still may hold clubs: no count for clubs


def test_G4_a_search_that_exhausts_the_table_continues_the_same_turn_as_in_G5():
    env = new_env(exhaust36(), num_players=2, deck="36")
    do(env, "search", "drag 6C")
    assert len(env.game_state.face_down) == 7
    do(env, "search")  # P1 searches for clubs: 8S…AS, no club
    assert env.game_state.face_down == []
    assert hand(env, 1) == set(suit_cards("S", "8 9 10 J Q K A"))
    assert env.agent_selection == "player_1" and env.game_state.turns == 1  # same turn
    assert legal(env) == {"take"}  # G5: no club in hand
    assert env.view("player_0").not_suit[1] == (7, 0, 0, 0)
    do(env, "take")
    assert hand(env, 1) >= {"6C"} and env.view("player_0").face_up[1] == (parse_card("6C"),)
    assert env.agent_selection == "player_0" and env.game_state.turns == 2


# ---------------------------------------------------------------------------------- G5
def test_G5_without_face_down_cards_play_or_take_and_take_ends_the_turn():
    env = new_env(exhaust36(), num_players=2, deck="36")
    do(env, *EXHAUST36_OPENING, "take")
    assert legal(env) == {"take"}  # P0 holds no spade: take is the only move
    do(env, "take")  # takes 7S; no drag follows
    assert env.agent_selection == "player_1" and fund(env) == ["6S"]
    spades = {f"play {c}" for c in suit_cards("S", "8 9 10 J Q K A")}
    assert legal(env) == spades | {"take"}  # take allowed even when holding the suit


def test_G5_the_fund_holding_only_one_card_when_taken_leaves_any_card_playable():
    env = new_env(exhaust36(), num_players=2, deck="36")
    do(env, *EXHAUST36_OPENING, "take", "take")
    assert fund(env) == ["6S"]
    do(env, "take")  # P1 takes the last fund card
    assert fund(env) == [] and required(env) == "any"
    assert "take" not in legal(env) and len(legal(env)) == len(hand(env, 0)) == 27
    do(env, "play AH")  # any suit will do
    assert env.game_state.phase == rules.DRAG and fund(env) == ["AH"]


# ---------------------------------------------------------------------------------- G6
def test_G6_drag_from_hand_sets_the_next_suit_and_drag_blind_is_face_up():
    env = new_env(stacked("7H 2C 9H 5S 4C 8D"))
    do(env, "search")
    assert legal(env) == {"drag 2C", "drag blind"}
    do(env, "drag 2C")
    assert required(env) == "C" and env.agent_selection == "player_1"
    do(env, "search")  # 5S picked up, 4C found
    do(env, "drag blind")
    assert fund(env)[-1] == "8D"
    assert required(env) == "D"


def test_G6_a_blind_dragged_joker_names_no_suit():
    env = new_env(pairs54("tail"), num_players=2, deck="54")
    do(env, *PAIRS54_OPENING[:13])  # 6 turns, then the 7th search finds RJ after AC (clubs)
    assert fund(env)[-2:] == ["AC", "RJ"]
    do(env, "drag blind")  # BJ, face up, no suit named
    assert fund(env)[-1] == "BJ" and required(env) == "any"
    do(env, "search")  # AD matches at once
    assert fund(env)[-1] == "AD" and hand(env, 0) == set()


def test_G6_a_dragged_joker_must_name_a_suit():
    env = new_env(jokers54(), num_players=2, deck="54")
    do(env, "search", "drag 2C", "search", "drag 3S", "take", "take", "play 3C", "drag 3S")
    do(env, "play 4S")
    drags = {m for m in legal(env) if m.startswith("drag B")}
    assert drags == {"drag BJ C", "drag BJ D", "drag BJ H", "drag BJ S"}
    assert "drag BJ" not in legal(env) and "drag blind" not in legal(env)  # table is empty
    with pytest.raises(ValueError, match="must name a suit"):
        rules.parse_move("drag BJ")
    assert rules.parse_move("drag bj s") == rules.Move(rules.DRAG_CARD, 53, 3)


def test_G6_one_card_move_when_hand_and_table_are_empty():
    env = new_env(exhaust52(), num_players=5)
    do(env, "search", "drag 2C", "search", "take", "take", "take")  # P1 2C, P2 3S, P3 2S
    assert env.agent_selection == "player_0"  # P4 is out (G7) and passed over
    do(env, "play 5H", "drag 6H", "take", "take")  # P1 takes 6H, P2 (3S only) takes 5H
    assert env.agent_selection == "player_3" and fund(env) == [] and hand(env, 3) == {"2S"}
    do(env, "play 2S")  # his last card, no face-down cards: the turn ends, no drag
    assert env.agent_selection == "player_0" and env.game_state.phase == rules.MATCH
    assert env.game_state.out[3] and fund(env) == ["2S"] and required(env) == "S"


# ---------------------------------------------------------------------------------- G7
def test_G7_no_cards_before_a_first_turn_means_take_and_skip_or_out_on_an_empty_fund():
    env = new_env(exhaust52(), num_players=5)
    do(env, "search", "drag 2C", "search", "take")
    assert env.agent_selection == "player_2" and hand(env, 2) == set()
    assert legal(env) == {"take"}  # never had a turn, no cards, no face-down cards
    do(env, "take")
    assert hand(env, 2) == {"3S"} and not env.game_state.out[2]  # still in
    do(env, "take")  # player_3 takes the starting card: the fund is empty
    assert env.game_state.out[4] and not env.game_state.had_turn[4] and hand(env, 4) == set()
    assert env.agent_selection == "player_0"  # player_4 is passed over…
    assert "player_4" in env.agents  # …but stays until the deal ends
    assert env.observe("player_4")["action_mask"].sum() == 0
    assert decoded(env, "player_0")["out"].tolist() == [0, 0, 0, 0, 1]


def test_G7_an_empty_hand_while_face_down_cards_remain_is_not_out_and_searches():
    env = new_env(stacked("7H 9H 3C 4C 5C"), num_players=2)
    do(env, "search", "drag blind")  # P0 finds 9H at once and drags 3C blind: empty hand
    assert hand(env, 0) == set() and not env.game_state.out[0]
    do(env, "search", "drag blind")
    assert env.agent_selection == "player_0" and legal(env) == {"search"}


def test_G7_players_out_as_soon_as_the_table_is_empty():
    env = new_env(pairs54("tail"), num_players=2, deck="54")
    do(env, *PAIRS54_OPENING)
    assert not env.game_state.out[1]  # empty hand, but face-down cards remain
    do(env, "search")  # P0 picks up AH, the last card: P1 is out at once
    assert env.game_state.out == [False, True] and env.agent_selection == "player_0"
    assert decoded(env, "player_0")["out"].tolist() == [0, 1]


def test_G7a_forced_moves_are_agent_steps():
    env = new_env(exhaust36(), num_players=2, deck="36", blind_drag_only_when_empty_hand=True)
    do(env, "search")
    steps = env._num_steps
    do(env, "drag 6C", "search")
    assert env.agent_selection == "player_1" and legal(env) == {"take"}  # not auto-applied
    assert env._num_steps == steps + 2
    do(env, "take")
    assert env._num_steps == steps + 3
    env2 = new_env(stacked("7H 9H 3C"), num_players=2, blind_drag_only_when_empty_hand=True)
    do(env2, "search")
    assert legal(env2) == {"drag blind"} and env2.agent_selection == "player_0"


# ---------------------------------------------------------------------------------- G8
def test_G8_caught_the_pig_by_the_tail():
    env = new_env(pairs54("tail"), num_players=2, deck="54")
    do(env, *PAIRS54_OPENING, "search")
    assert legal(env) == {"take"}  # AH picked up; no spade
    do(env, "take")  # takes AS; P1 is out, so P0 makes one last turn: his own turn again
    assert env.agent_selection == "player_0" and env.game_state.last_turn
    assert decoded(env, "player_0")["last_turn"][0] == 1
    assert required(env) == "H" and legal(env) == {"play AH", "take"}
    do(env, "play AH", "drag AS")  # sheds both: nobody loses
    result = env.infos["player_0"]["result"]
    assert result["loser"] is None and result["caught_by_tail"] == "player_0"
    assert result["years"] == 0 and result["turns"] == 28
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
    assert all(env.terminations.values())


def test_G8_the_last_player_who_keeps_cards_is_the_swineherd():
    env = new_env(pairs54("swineherd"), num_players=2, deck="54")
    do(env, *PAIRS54_OPENING, "search", "take")
    assert env.game_state.last_turn and required(env) == "C" and legal(env) == {"take"}
    do(env, "take")
    result = env.infos["player_1"]["result"]
    assert result["loser"] == "player_0" and result["caught_by_tail"] is None
    assert result["years"] == 3 and not result["capped"]
    assert env.rewards == {"player_0": -1.0, "player_1": 1.0}


def test_G8_a_player_going_out_hands_the_last_turn_to_the_other():
    env = new_env(exhaust36(), num_players=2, deck="36")
    do(env, *EXHAUST36_OPENING, "take", "take")  # P1 holds 8S…AS and 6C; P0 took 7S
    # P1 sheds two cards a turn, P0 takes every drag back
    do(env, "play 8S", "drag 9S", "take", "play 10S", "drag JS", "take")
    do(env, "play QS", "drag KS", "take", "play AS")
    assert hand(env, 1) == {"6C"}
    do(env, "drag 6C")  # P1's hand is empty: he is out
    assert env.game_state.out[1] and env.agent_selection == "player_0" and env.game_state.last_turn
    do(env, "play 7C", "drag 8C")
    result = env.infos["player_0"]["result"]
    assert result["loser"] == "player_0" and result["years"] == len(hand(env, 0)) == 26 + 4 - 2


# ---------------------------------------------------------------------------------- G9
@pytest.mark.parametrize(("pips", "piglets"), [("points", 11 + 11 + 0), ("face", 11 + 11 + 9)])
def test_G9_years_and_piglets(pips, piglets):
    env = new_env(pairs54("swineherd"), num_players=2, deck="54", pips=pips)
    do(env, *PAIRS54_OPENING, "search", "take", "take")
    assert hand(env, 0) == {"AH", "AS", "9C"}
    result = env.infos["player_0"]["result"]
    assert (result["years"], result["piglets"]) == (3, piglets)


def test_G9_pip_tables():
    env = new_env(stacked("7H"), pips="face")
    table = env.config.pips_table
    card = parse_card
    assert [int(table[card(t)]) for t in ("2C", "9D", "10H", "JS", "QS", "KS", "AS")] == [
        2,
        9,
        10,
        2,
        3,
        4,
        11,
    ]
    points = kiauliaganys_v0.raw_env().config.pips_table
    assert [int(points[card(t)]) for t in ("2C", "9D", "10H", "JS", "QS", "KS", "AS")] == [
        0,
        0,
        10,
        2,
        3,
        4,
        11,
    ]


# ---------------------------------------------------------------------------------- G10
def _cap_deck() -> list[str]:
    return stacked("7H 2C 3C 9H 4C 5D 2S 6D 8S")


def test_G10_cap_most_cards_lose_ties_from_the_next_mover_clockwise():
    env = new_env(_cap_deck(), max_turns=3)
    do(env, "search", "drag 2C")  # P0 keeps 3C
    do(env, "search", "drag blind")  # P1 finds 4C, drags 5D: empty hand
    do(env, "search")  # P2 picks up 2S, finds 6D
    assert env.game_state.turns == 2 and not env.terminations["player_0"]  # a drag is no turn
    do(env, "drag blind")
    result = env.infos["player_0"]["result"]
    # P0 and P2 hold one card each; the next mover is P3, so P0 comes first clockwise
    assert result == {
        "loser": "player_0",
        "years": 1,
        "piglets": 0,
        "capped": True,
        "turns": 3,
        "caught_by_tail": None,
        "repetition": False,
    }
    assert env.rewards["player_0"] == -1.0
    assert env.rewards["player_2"] == pytest.approx(1 / 3)


def test_G10_cap_applies_even_with_a_last_turn_pending():
    env = new_env(pairs54("tail"), num_players=2, deck="54", max_turns=27)
    do(env, *PAIRS54_OPENING, "search", "take")
    result = env.infos["player_0"]["result"]
    assert result["capped"] and result["loser"] == "player_0" and result["years"] == 2


def test_G10_max_cycles_truncates_independently():
    env = new_env(stacked("7H"), max_cycles=2)
    for _ in range(8):
        agent = env.agent_selection
        env.step(next(iter(env.legal_moves(agent))))
        if any(env.truncations.values()):
            break
    assert all(env.truncations.values()) and env._num_steps == 8


# ---------------------------------------------------------------------------------- G10a
#: six turns that bring the hand-built position of :func:`_cycle_env` back to itself: the mover
#: plays 9H and drags KS, the other takes KS, the mover takes 9H, the other plays 10H and drags KS,
#: the mover takes KS, the other takes 10H
CYCLE = ("play 9H", "drag KS", "take", "take", "play 10H", "drag KS", "take", "take")


def _cycle_env(mover: int, other_extra: str = "", **kwargs) -> kiauliaganys_v0.raw_env:
    """Two players, no face-down cards. ``mover`` holds 9H KS 8C, the other 6C 10H (plus
    ``other_extra``) below a fund ending 7H 10H; the other is to act and takes 10H, which makes
    the position P (``mover`` to play onto 7H) that :data:`CYCLE` repeats."""
    other = 1 - mover
    hands = ["", ""]
    hands[mover] = "9H KS 8C"
    hands[other] = ("6C " + other_extra).strip()
    env = endgame(hands, ["7H", "10H"], to_act=other, **kwargs)
    do(env, "take")  # P, first occurrence
    return env


def test_G10a_a_position_occurring_the_third_time_ends_the_deal():
    env = _cycle_env(mover=0, other_extra="7C 7D")
    assert env.game_state.repeats == 1 and env.view("player_1").repetitions == 1
    do(env, *CYCLE)  # P again: 7 turns
    assert env.game_state.repeats == 2 and env.game_state.turns == 7
    assert not any(env.terminations.values())
    # the count is public (G10a): both players see it, in the view and the observation
    for agent in ("player_0", "player_1"):
        assert env.view(agent).repetitions == 2
        assert decoded(env, agent)["repetition"].tolist() == pytest.approx([2 / 3])
    do(env, *CYCLE[:-1])
    assert not any(env.terminations.values())
    do(env, "take")  # the third occurrence of P
    result = env.infos["player_0"]["result"]
    # the player holding the most cards is the swineherd: player_1 (4 cards to 3) although
    # player_0 is to move
    assert result == {
        "loser": "player_1",
        "years": 4,
        "piglets": 10,
        "capped": False,
        "turns": 13,
        "caught_by_tail": None,
        "repetition": True,
    }
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert rules.ending(result) == "repetition"


def test_G10a_most_cards_ties_go_to_the_first_clockwise_from_the_player_to_move():
    env = _cycle_env(mover=1, other_extra="7C")  # P: player_1 to move, 3 cards each
    do(env, *CYCLE, *CYCLE)
    result = env.infos["player_0"]["result"]
    assert result["repetition"] and result["loser"] == "player_1" and result["years"] == 3
    assert rules.tie_break_loser([2, 2, 1], 1) == 1
    assert rules.tie_break_loser([2, 1, 2], 1) == 2
    assert rules.tie_break_loser([3, 1, 2], 1) == 0


def test_G10a_option_repetition_2_ends_at_the_second_occurrence():
    env = _cycle_env(mover=0, repetition=2)
    do(env, *CYCLE)
    result = env.infos["player_0"]["result"]
    assert result["repetition"] and result["turns"] == 7 and result["loser"] == "player_0"


def test_G10a_repetition_none_lets_the_deal_run_on_to_the_cap():
    env = _cycle_env(mover=0, repetition=None, max_turns=61)
    do(env, *CYCLE * 9)  # P has occurred ten times
    assert not any(env.terminations.values())
    assert env.game_state.positions == {} and env.view("player_0").repetitions == 0
    assert decoded(env, "player_0")["repetition"].tolist() == [0.0]
    do(env, *CYCLE)
    result = env.infos["player_0"]["result"]
    assert result["capped"] and not result["repetition"] and result["turns"] == 61
    assert rules.ending(result) == "cap"


def test_G10a_when_the_cap_and_the_repetition_meet_the_cap_of_the_turn_before_wins():
    env = _cycle_env(mover=0, max_turns=13)
    do(env, *CYCLE, *CYCLE)
    result = env.infos["player_0"]["result"]
    assert result["capped"] and not result["repetition"] and result["turns"] == 13
    env = _cycle_env(mover=0, max_turns=14)
    do(env, *CYCLE, *CYCLE)
    result = env.infos["player_0"]["result"]
    assert result["repetition"] and not result["capped"] and result["turns"] == 13


def test_G10a_positions_are_recorded_only_once_no_face_down_cards_remain():
    env = new_env(exhaust36(), num_players=2, deck="36")
    do(env, "search", "drag 6C")  # face-down cards remain: nothing recorded
    assert env.game_state.positions == {} and env.view("player_1").repetitions == 0
    do(env, "search")  # player_1 empties the table, no match: the same turn, G5
    assert env.game_state.positions == {} and env.game_state.repeats == 0
    do(env, "take")  # the first turn to start with the table empty
    assert list(env.game_state.positions.values()) == [1] and env.game_state.repeats == 1


def test_G10a_the_position_includes_the_fund_order_and_who_is_to_move():
    env = _cycle_env(mover=0)
    keys = set(env.game_state.positions)
    do(env, *CYCLE[:2])  # same hands would not do: the fund differs
    assert len(set(env.game_state.positions) - keys) == 1
    base = rules.clone(env.game_state)
    moved = rules.clone(base)
    moved.to_act = 0
    swapped = rules.clone(base)
    swapped.fund[0], swapped.fund[1] = swapped.fund[1], swapped.fund[0]
    key = rules.position_key(base)
    assert rules.position_key(moved) != key and rules.position_key(swapped) != key
    shuffled = rules.clone(base)
    shuffled.hands[0].reverse()  # a hand is a set
    assert rules.position_key(shuffled) == key


@pytest.mark.parametrize("value", [0, 1, True, 2.5, "3", -3])
def test_G10a_bad_repetition_values_are_refused_naming_the_option(value):
    with pytest.raises(ValueError, match=r"repetition=.* must be None .* at least 2"):
        kiauliaganys_v0.raw_env(repetition=value)


def test_G10a_default_is_3():
    assert kiauliaganys_v0.raw_env().config.repetition == 3
    assert kiauliaganys_v0.raw_env(repetition=None).config.repetition is None


# ---------------------------------------------------------------------------------- G11
def test_G11_match_the_loser_deals_next_until_n_years():
    deck = pairs54("swineherd")
    env = kiauliaganys_v0.raw_env(num_players=2, deck="54", match_years=4)
    env.reset(seed=3, options={"decks": [deck, deck, deck]})
    totals = {"player_0": 0.0, "player_1": 0.0}

    def play(*moves):
        for move in moves:
            do(env, move)
            for agent, reward in env.rewards.items():
                totals[agent] += reward

    play(*PAIRS54_OPENING, "search", "take", "take")  # deal 1: P0 swineherd, 3 years
    info = env.infos["player_0"]
    assert info["deal_result"]["loser"] == "player_0" and "result" not in info
    assert env.rewards == {"player_0": -1.0, "player_1": 1.0}
    assert env.game_state.dealer == 0 and env.agent_selection == "player_1"  # the loser deals
    assert fund(env) == [deck[0]] and env.game_state.match_years == [3, 0]
    assert decoded(env, "player_1")["match_years"].tolist() == [0, 0.75]  # relative seats
    play(*PAIRS54_OPENING, "search", "take", "take")  # deal 2: P1 in P0's former role
    assert env.game_state.match_years == [3, 3] and env.agent_selection == "player_0"
    play(*PAIRS54_OPENING, "search", "take", "take")  # deal 3: P0 again: 6 years >= 4
    result = env.infos["player_0"]["result"]
    assert result["match_years"] == {"player_0": 6, "player_1": 3} and result["deals"] == 3
    assert result["loser"] == "player_0" and result["years"] == 3
    assert totals == {"player_0": -1.0, "player_1": 1.0}
    assert all(env.terminations.values())


def test_G11_the_pig_catcher_deals_next_and_later_deals_are_shuffled_from_the_seed():
    env = kiauliaganys_v0.raw_env(num_players=2, deck="54", match_years=20)
    env.reset(seed=7, options={"decks": [pairs54("tail")]})
    do(env, *PAIRS54_OPENING, "search", "take", "play AH", "drag AS")
    assert env.infos["player_0"]["deal_result"]["caught_by_tail"] == "player_0"
    assert env.game_state.dealer == 0 and env.agent_selection == "player_1"
    again = kiauliaganys_v0.raw_env(num_players=2, deck="54", match_years=20)
    again.reset(seed=7, options={"decks": [pairs54("tail")]})
    do(again, *PAIRS54_OPENING, "search", "take", "play AH", "drag AS")
    assert (
        again.game_state.fund == env.game_state.fund
        and again.game_state.face_down == env.game_state.face_down
    )


# ---------------------------------------------------------------------------------- G12
def test_G12_reward_years():
    env = new_env(pairs54("swineherd"), num_players=2, deck="54", reward="years")
    do(env, *PAIRS54_OPENING, "search", "take", "take")
    assert env.rewards == {"player_0": -3.0, "player_1": 0.0}


def test_G12_win_loss_shares_among_the_others():
    env = new_env(_cap_deck(), max_turns=3)
    do(env, "search", "drag 2C", "search", "drag blind", "search", "drag blind")
    assert env.rewards == pytest.approx(
        {"player_0": -1.0, "player_1": 1 / 3, "player_2": 1 / 3, "player_3": 1 / 3}
    )


# ---------------------------------------------------------------------------------- G13
def test_G13_must_play_from_hand_forbids_search_not_take():
    deck = stacked("7H 2C 9H 3C 4C 5H 6H 8C 10C JC QC")
    env = new_env(deck, must_play_from_hand=True)
    do(env, "search", "drag blind", *["search", "drag blind"] * 3)
    assert required(env) == "C" and legal(env) == {"play 2C"}
    env = new_env(exhaust36(), num_players=2, deck="36", must_play_from_hand=True)
    do(env, *EXHAUST36_OPENING, "take", "take")
    assert "take" in legal(env) and "play 8S" in legal(env)  # take is never restricted


def test_G13_blind_drag_only_when_empty_hand():
    env = new_env(stacked("7H 2C 9H 4C"), blind_drag_only_when_empty_hand=True)
    do(env, "search")
    assert legal(env) == {"drag 2C"}
    do(env, "drag 2C", "search")  # P1 finds 4C at once: empty hand
    assert legal(env) == {"drag blind"}


# ---------------------------------------------------------------------------------- G14
def test_G14_outcome_fields_identical_for_all_agents():
    env = new_env(pairs54("swineherd"), num_players=2, deck="54")
    do(env, *PAIRS54_OPENING, "search", "take", "take")
    expected = {
        "loser": "player_0",
        "years": 3,
        "piglets": 22,
        "capped": False,
        "turns": 28,
        "caught_by_tail": None,
        "repetition": False,
    }
    assert env.infos["player_0"]["result"] == expected
    assert env.infos["player_1"]["result"] == expected
