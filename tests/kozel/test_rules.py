"""One scenario per Kozel rule (RULES.md §1, K1–K16), on stacked decks and hand-built positions."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from kiaule_env.cards import CARD_TEXTS, parse_card
from kiaule_env.kozel import rules
from kiaule_env.kozel.rules import Config
from tests.kozel.stacking import legal_texts, new_state, set_endgame, stacked, texts

C = parse_card

#: The K6 pairing deal: hearts trump (indicator 9H), player_0 leads 7S AS.
PAIRING_HANDS = [
    ["7S", "AS", "6C", "6D"],
    ["8S", "9S", "6H", "KD"],
    ["7H", "10S", "QC", "JD"],
    ["8H", "JS", "7C", "8D"],
]


def pairing_state(**options) -> rules.State:
    return new_state(stacked(PAIRING_HANDS, indicator="9H"), **options)


def quiet_trick(state: rules.State) -> None:
    """The leader leads his first card, everybody else discards his first card(s), no claims."""
    while True:
        if state.phase == rules.PHASE_CLAIM:
            rules.apply(state, rules.DECLINE)
            continue
        moves = rules.legal_moves(state)
        if state.phase == rules.PHASE_LEAD:
            rules.apply(state, moves[0])  # mask 1: the first card alone
            continue
        discards = [m for m in moves if rules.kind_of(m) == rules.DISCARD]
        deltas = rules.apply(state, discards[0])
        if not state.trick:
            return deltas


# ---- setup
def test_K1_four_players_in_two_teams_of_partners_opposite():
    with pytest.raises(ValueError, match="num_players"):
        Config(num_players=3)
    state = pairing_state()
    rules.play(state, "lead 7S AS")
    rules.play(state, "beat 8S 6H")  # player_1 (team 1)
    rules.play(state, "beat 7H 10S")  # player_2 (team 0) beats last
    rules.play(state, "discard 7C 8D")
    assert state.tricks == [1, 0]
    assert sorted(state.piles[0]) == sorted(
        C(t) for t in ["7S", "AS", "8S", "6H", "7H", "10S", "7C", "8D"]
    )
    assert state.points == [11 + 10, 0]
    assert state.to_act == 2  # the winner leads next (K9)


def test_K2_36_card_deck_and_rank_order_6_7_8_9_J_Q_K_10_A():
    with pytest.raises(ValueError, match="36"):
        Config(deck="52")
    order = ["6", "7", "8", "9", "J", "Q", "K", "10", "A"]
    for low, high in itertools.pairwise(order):
        assert rules.can_beat([C(high + "S")], [C(low + "S")], trump=2)
        assert not rules.can_beat([C(low + "S")], [C(high + "S")], trump=2)
    assert rules.can_beat([C("10C")], [C("KC")], trump=0)  # 10 above K
    assert not rules.can_beat([C("KC")], [C("10C")], trump=0)
    assert [c for c in rules.DECK.cards] == sorted(rules.DECK.cards)
    assert len(rules.DECK.cards) == 36 and {CARD_TEXTS[c][:-1] for c in rules.DECK.cards} == set(
        order
    )


def test_K3_deal_one_at_a_time_from_the_dealers_left_and_the_stock_top_first():
    deck = [CARD_TEXTS[c] for c in rules.DECK.shuffled(np.random.default_rng(7))]
    state = new_state(deck)
    assert state.dealer == 3 and state.to_act == 0  # §0: player_0 (dealer's left) acts first
    for seat in range(4):
        assert sorted(state.hands[seat]) == sorted(C(deck[4 * r + seat]) for r in range(4))
    assert texts(state.stock) == deck[16:]
    quiet_trick(state)  # player_0 leads and takes it; refill starts with him
    assert C(deck[16]) in state.hands[0] and C(deck[17]) in state.hands[1]
    assert C(deck[18]) in state.hands[2] and C(deck[19]) in state.hands[3]


def test_K4_trump_is_the_middle_stock_card_which_stays_in_place_and_its_drawer_is_public():
    deck = stacked(PAIRING_HANDS, indicator="9H")
    state = new_state(deck)
    assert deck[26] == "9H" and state.trump == 2 and state.indicator == C("9H")
    assert rules.view(state, 1).indicator_at == 10
    quiet_trick(state)
    quiet_trick(state)
    assert rules.view(state, 1).indicator_at == 2
    quiet_trick(state)  # stock indices 8–11 go to player_0, 1, 2, 3: player_2 draws it
    assert C("9H") in state.hands[2]
    for seat in (0, 1, 3):
        v = rules.view(state, seat)
        assert v.indicator_at == -1 and v.known[2] == (C("9H"),)
    # option: the indicator goes to the bottom, the other stock cards keep their order
    bottom = new_state(deck, trump_card="bottom")
    assert texts(bottom.stock) == deck[16:26] + deck[27:] + ["9H"]
    assert rules.view(bottom, 0).indicator_at == 19
    for _ in range(5):
        quiet_trick(bottom)
    assert C("9H") in bottom.hands[3]  # drawn last: the fourth of the last round


# ---- play
def test_K5_lead_any_non_empty_same_suit_subset():
    state = pairing_state()
    assert legal_texts(state) == {"lead 6C", "lead 6D", "lead 7S", "lead AS", "lead 7S AS"}
    with pytest.raises(ValueError, match="illegal"):
        rules.play(state, "lead 6C 6D")
    rules.play(state, "lead as 7s")  # case-insensitive, any order
    assert state.trick == [(0, rules.LEAD, (C("7S"), C("AS")))]
    assert state.n_cards == 2


def test_K6_beat_by_one_to_one_pairing_against_the_winning_set():
    state = pairing_state()
    rules.play(state, "lead 7S AS")
    beats = {t for t in legal_texts(state) if t.startswith("beat")}
    assert beats == {"beat 6H 8S", "beat 6H 9S"}  # AS falls only to a trump
    with pytest.raises(ValueError, match="illegal"):
        rules.play(state, "beat 8S 9S")
    # discards: any two cards, even those that could beat
    assert sum(t.startswith("discard") for t in legal_texts(state)) == 6
    rules.play(state, "beat 8S 6H")
    # the mixed beat is now the set to beat: 6H only by a higher trump, 8S by a spade or trump
    assert state.winning == (C("6H"), C("8S"))
    assert {t for t in legal_texts(state) if t.startswith("beat")} == {"beat 7H 10S"}
    rules.play(state, "discard QC JD")
    v3, v0 = rules.view(state, 3), rules.view(state, 0)
    assert v3.trick[2] == (2, rules.DISCARD, ()) and v0.trick[2] == (2, rules.DISCARD, ())
    assert rules.view(state, 2).trick[2] == (2, rules.DISCARD, (C("QC"), C("JD")))


def test_K6_non_trumps_of_different_suits_never_beat_and_trumps_beat_trumps_by_rank():
    assert not rules.can_beat([C("AD")], [C("6S")], trump=2)
    assert not rules.can_beat([C("6S")], [C("AD")], trump=2)
    assert rules.can_beat([C("6H")], [C("AS")], trump=2)
    assert not rules.can_beat([C("6H")], [C("7H")], trump=2)
    assert rules.can_beat([C("AH")], [C("10H")], trump=2)


def test_K6_beat_partner_allowed_by_default_and_forbidden_by_option():
    for allowed in (True, False):
        state = pairing_state(beat_partner=allowed)
        rules.play(state, "lead 7S")
        rules.play(state, "discard KD")
        # player_2's partner (player_0) owns the winning set
        has_beat = any(t.startswith("beat") for t in legal_texts(state))
        assert has_beat == allowed, allowed
        assert {t for t in legal_texts(state) if t.startswith("discard")} == {
            "discard QC",
            "discard JD",
            "discard 7H",
            "discard 10S",
        }


def test_K7_the_winning_set_takes_the_trick_and_the_leader_if_nobody_beat():
    state = pairing_state()
    quiet_trick(state)  # nobody beats: the leader (player_0) takes all four cards
    assert state.tricks == [1, 0] and len(state.piles[0]) == 4 and state.to_act == 0
    state = pairing_state()
    rules.play(state, "lead 7S")
    rules.play(state, "beat 8S")
    rules.play(state, "discard QC")
    rules.play(state, "discard 7C")
    assert state.tricks == [0, 1] and state.piles[1] == [C("7S"), C("8S"), C("QC"), C("7C")]
    assert state.to_act == 1


MOLODKA_HANDS = [
    ["6C", "7C", "8C", "9C"],
    ["6D", "7D", "8D", "9D"],
    ["6S", "7S", "8S", "9S"],
    ["6H", "7H", "8H", "AH"],
]


def test_K8_molodka_window_asks_holders_clockwise_from_the_leader_and_returns_the_lead():
    state = new_state(stacked(MOLODKA_HANDS, indicator="9H"))  # hearts trump
    rules.play(state, "lead 6C")
    assert state.phase == rules.PHASE_CLAIM and state.to_act == 1
    assert legal_texts(state) == {"claim", "decline"}
    rules.play(state, "decline")
    assert state.to_act == 2  # the leader's partner is asked too
    rules.play(state, "decline")
    assert state.to_act == 3
    rules.play(state, "claim")
    # the led card is back with player_0, publicly; player_3's four cards are the lead
    assert C("6C") in state.hands[0] and len(state.hands[0]) == 4
    assert rules.view(state, 1).known[0] == (C("6C"),)
    assert state.trick == [(3, rules.LEAD, (C("6H"), C("7H"), C("8H"), C("AH")))]
    assert state.leader == 3 and state.n_cards == 4
    assert state.to_act == 0  # play continues clockwise from the claimant
    assert legal_texts(state) == {"discard 6C 7C 8C 9C"}
    rules.play(state, "discard 6C 7C 8C 9C")
    rules.play(state, "discard 6D 7D 8D 9D")
    rules.play(state, "discard 6S 7S 8S 9S")
    assert state.tricks == [0, 1] and state.to_act == 3  # the claimant took it (K7)


def test_K8_the_first_claim_wins_and_no_window_after_a_four_card_lead():
    state = new_state(stacked(MOLODKA_HANDS, indicator="9H"))
    rules.play(state, "lead 6C")
    rules.play(state, "claim")  # player_1 is first clockwise: player_2, 3 are never asked
    assert state.leader == 1 and state.to_act == 2 and state.phase == rules.PHASE_RESPOND
    state = new_state(stacked(MOLODKA_HANDS, indicator="9H"))
    rules.play(state, "lead 6C 7C 8C 9C")
    assert state.phase == rules.PHASE_RESPOND and state.to_act == 1


def test_K8_molodka_options_trumps_only_and_off():
    state = new_state(stacked(MOLODKA_HANDS, indicator="9H"), molodka="trumps")
    rules.play(state, "lead 6C")
    assert state.phase == rules.PHASE_CLAIM and state.to_act == 3  # only four trumps
    rules.play(state, "decline")
    assert state.phase == rules.PHASE_RESPOND and state.to_act == 1
    assert rules.view(state, 0).declined == (3,)
    state = new_state(stacked(MOLODKA_HANDS, indicator="9H"), molodka=None)
    rules.play(state, "lead 6C")
    assert state.phase == rules.PHASE_RESPOND and state.to_act == 1


def test_K9_refill_one_at_a_time_clockwise_from_the_trick_winner_who_leads_next():
    deck = stacked(PAIRING_HANDS, indicator="9H")
    state = new_state(deck)
    rules.play(state, "lead 7S AS")
    rules.play(state, "beat 8S 6H")
    rules.play(state, "beat 7H 10S")
    rules.play(state, "discard 7C 8D")  # player_2 wins; two rounds from player_2
    drawn = {2: deck[16:17] + deck[20:21], 3: deck[17:18] + deck[21:22]}
    drawn |= {0: deck[18:19] + deck[22:23], 1: deck[19:20] + deck[23:24]}
    for seat, cards in drawn.items():
        assert set(cards) <= set(texts(state.hands[seat])), seat
        assert len(state.hands[seat]) == 4
    assert state.stock_size == 12 and state.to_act == 2 and state.phase == rules.PHASE_LEAD


def test_K10_the_game_ends_when_the_stock_is_empty_and_all_hands_are_played_out():
    state = pairing_state()
    for trick in range(9):  # 36 cards, one card each per trick
        assert state.phase != rules.PHASE_OVER
        deltas = quiet_trick(state)
        assert (deltas is None) == (trick < 8)
    assert state.phase == rules.PHASE_OVER and state.to_act == -1
    assert state.stock_size == 0 and not any(state.hands)
    assert rules.legal_moves(state) == []


def test_K11_card_points_and_face_down_discards_score_for_the_taker():
    state = pairing_state()
    rules.play(state, "lead 7S")
    rules.play(state, "discard KD")  # 4
    rules.play(state, "discard QC")  # 3
    rules.play(state, "discard 7C")
    assert state.points == [7, 0] and state.points_seen == [0, 0]
    assert rules.view(state, 1).my_discard_points == (4, 0)
    assert sum(rules.POINTS[c] for c in rules.DECK.cards) == 120
    assert [rules.POINTS[C(r + "S")] for r in ("A", "10", "K", "Q", "J", "9", "6")] == [
        11,
        10,
        4,
        3,
        2,
        0,
        0,
    ]


# ---- scoring
ZEROS = [f"{r}{s}" for s in "CDHS" for r in ("6", "7", "8", "9")]  # the 16 blanks


def endgame(team1_pile: list[str], team1_tricks: int, **options) -> rules.State:
    """Last trick: player_0 leads 6C, everyone holds one blank; team 1 has ``team1_pile``."""
    last = ["6C", "7C", "8C", "9C"]
    rest = [CARD_TEXTS[c] for c in rules.DECK.cards if CARD_TEXTS[c] not in team1_pile + last]
    state = pairing_state(**options)
    return set_endgame(
        state,
        hands=[[last[0]], [last[1]], [last[2]], [last[3]]],
        piles=[rest, team1_pile],
        tricks=[8 - team1_tricks, team1_tricks],
        leader=0,
    )


def finish_quietly(state: rules.State) -> list[float]:
    """Play the last trick with no beat: player_0's team takes it."""
    deltas = quiet_trick(state)
    assert deltas is not None
    return deltas


def test_K12_31_points_lose_2_and_30_points_lose_4():
    pile31 = ["AC", "10D", "10S", "6D", "7D", "8D", "9D", "6S"]  # 11 + 10 + 10
    state = endgame(pile31, 2)
    deltas = finish_quietly(state)
    assert state.last_result["team_points"] == [89, 31]
    assert state.last_result["loss_points"] == [0, 2] and deltas == [2, -2, 2, -2]
    pile30 = ["AD", "10D", "JS", "QS", "KS", "6D", "7D", "8D"]  # 11 + 10 + 2 + 3 + 4
    state = endgame(pile30, 2)
    deltas = finish_quietly(state)
    assert state.last_result["team_points"] == [90, 30]
    assert state.last_result["loss_points"] == [0, 4] and deltas == [4, -4, 4, -4]


def test_K12_a_trick_worth_0_saves_from_6():
    state = endgame([], 0)
    rules.play(state, "lead 6C")
    rules.play(state, "beat 7C")  # team 1's only trick, worth 0 points
    rules.play(state, "discard 8C")
    deltas = rules.play(state, "discard 9C")
    assert state.last_result["tricks"] == [8, 1] and state.last_result["team_points"] == [120, 0]
    assert state.last_result["loss_points"] == [0, 4] and deltas == [4, -4, 4, -4]
    state = endgame([], 0)
    deltas = finish_quietly(state)  # no trick at all
    assert state.last_result["loss_points"] == [0, 6] and deltas == [6, -6, 6, -6]


def test_K13_eggs_60_60_give_no_loss_points():
    pile60 = ["AD", "10D", "KD", "QD", "JD", "AS", "10S", "KS", "QS", "JS", "6D", "7D"]
    state = endgame(pile60, 3)
    deltas = finish_quietly(state)
    assert state.last_result["eggs"] is True and state.last_result["loss_points"] == [0, 0]
    assert deltas == [0, 0, 0, 0]
    with pytest.raises(ValueError, match="series"):
        Config(eggs="double")


PILE60 = ["AD", "10D", "KD", "QD", "JD", "AS", "10S", "KS", "QS", "JS", "6D", "7D"]
PILE30 = ["AD", "10D", "JS", "QS", "KS", "6D", "7D", "8D"]


def series_endgame(state: rules.State, team1_pile: list[str], team1_tricks: int) -> rules.State:
    last = ["6C", "7C", "8C", "9C"]
    rest = [CARD_TEXTS[c] for c in rules.DECK.cards if CARD_TEXTS[c] not in team1_pile + last]
    return set_endgame(
        state,
        hands=[[t] for t in last],
        piles=[rest, team1_pile],
        tricks=[8 - team1_tricks, team1_tricks],
        leader=0,
    )


def test_K13_eggs_double_multiplies_the_next_decided_game_by_2_to_the_k():
    state = pairing_state(series=True, eggs="double")
    for k in (1, 2):
        finish_quietly(series_endgame(state, PILE60, 3))
        assert state.eggs_streak == k and state.series_loss == [0, 0]
    deltas = finish_quietly(series_endgame(state, PILE30, 2))
    assert state.last_result["loss_points"] == [0, 16]  # 4 × 2²
    assert state.last_result["series_loss_points"] == [0, 16] and deltas == [16, -16, 16, -16]
    assert state.eggs_streak == 0 and state.phase == rules.PHASE_OVER
    # default eggs: no multiplier in a series
    state = pairing_state(series=True)
    finish_quietly(series_endgame(state, PILE60, 3))
    finish_quietly(series_endgame(state, PILE30, 2))
    assert state.last_result["loss_points"] == [0, 4]


def test_K14_series_rotates_the_dealer_and_the_last_trick_winner_leads_next():
    decks = [
        stacked(PAIRING_HANDS, indicator="9H"),
        stacked(MOLODKA_HANDS, indicator="QH", dealer=0),
        stacked(PAIRING_HANDS, indicator="QD", dealer=1),
    ]
    config = Config(series=True)
    parsed = [rules.DECK.parse_permutation(d) for d in decks]
    state = rules.new_deal(config, np.random.default_rng(0), parsed)
    last = ["6C", "7C", "8C", "9C"]
    rest = [CARD_TEXTS[c] for c in rules.DECK.cards if CARD_TEXTS[c] not in PILE30 + last]
    set_endgame(state, [[t] for t in last], [rest, PILE30], [6, 2], leader=2)
    quiet_trick(state)  # player_2 leads and takes the last trick; team 1 loses 4
    assert state.last_result["games"] == 1 and state.series_loss == [0, 4]
    assert state.game_index == 1 and state.dealer == 0
    assert [texts(h) for h in state.hands] == [
        texts(rules.sort_hand([C(t) for t in h])) for h in MOLODKA_HANDS
    ]
    assert state.to_act == 2 and state.trump == 2  # last-trick winner leads; new trump
    state.series_loss = [0, 10]
    set_endgame(state, [[t] for t in last], [rest, PILE30], [6, 2], leader=0)
    quiet_trick(state)
    assert state.phase == rules.PHASE_OVER  # 14 ≥ 12: team 1 is the goat
    assert state.last_result["series_loss_points"] == [0, 14]
    assert state.last_result["games"] == 2


def test_K15_reward_modes():
    pile30 = PILE30
    state = endgame(pile30, 2, reward="win_loss")
    assert finish_quietly(state) == [1.0, -1.0, 1.0, -1.0]
    state = endgame(pile30, 2, reward="card_points")
    assert finish_quietly(state) == pytest.approx([0.5, -0.5, 0.5, -0.5])  # (90 − 60) / 60
    state = endgame(PILE60, 3, reward="win_loss")
    assert finish_quietly(state) == [0.0, 0.0, 0.0, 0.0]
    state = endgame(PILE60, 3, reward="card_points")
    assert finish_quietly(state) == [0.0, 0.0, 0.0, 0.0]


def test_K16_outcome_fields():
    state = endgame(PILE30, 2)
    finish_quietly(state)
    assert rules.result(state) == {
        "team_points": [90, 30],
        "loss_points": [0, 4],
        "tricks": [7, 2],
        "eggs": False,
        "trump": "H",
    }
    state = pairing_state(series=True)
    finish_quietly(series_endgame(state, PILE30, 2))
    assert set(rules.result(state)) == {
        "team_points",
        "loss_points",
        "tricks",
        "eggs",
        "trump",
        "series_loss_points",
        "games",
    }


# ---- moves
def test_move_texts_parse_case_insensitive_and_refuse_what_is_wrong():
    state = pairing_state()
    assert rules.parse_move(state, "LEAD as 7s") == rules.parse_move(state, "lead 7S AS")
    for bad, message in [
        ("", "empty"),
        ("follow 7S", "unknown move"),
        ("lead", "1 to 4"),
        ("lead 8H", "does not hold"),
        ("lead 7S 7S", "twice"),
        ("claim 7S", "no cards"),
        ("lead 1S", "malformed"),
    ]:
        with pytest.raises(ValueError, match=message):
            rules.parse_move(state, bad)


def test_clone_is_independent():
    state = pairing_state()
    copy = rules.clone(state)
    rules.play(copy, "lead 7S AS")
    assert state.trick == [] and len(state.hands[0]) == 4 and copy.trick
    assert rules.view(state, 0) != rules.view(copy, 0)
