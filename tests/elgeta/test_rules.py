"""One scenario per Elgeta rule (RULES §4, E1–E10) on stacked piles, and the seed's examples.

Every scenario that plays a whole game runs through the raw env and through the fast path
``rules.simulate`` and checks both play the same cards (``helpers.both_paths``).
"""

from __future__ import annotations

import numpy as np
import pytest

from kiaule_env import elgeta_v0
from kiaule_env.cards import SUITS, cards_text, parse_card
from kiaule_env.elgeta import rules
from tests.elgeta.helpers import both_paths, cards, new_env, stacked, step_env


# ------------------------------------------------------------------------------- E1, E2 setup
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_players": 1}, "num_players=1 is out of range; it must be between 2 and 4"),
        ({"num_players": 5}, "between 2 and 4"),
        ({"deck": "54"}, "deck='54' is not allowed here; choose one of 52, 36, 32"),
        ({"deck": 40}, "choose one of 52, 36, 32"),
        ({"max_tricks": 0}, "max_tricks=0 is out of range"),
        ({"stop_on_all_aces": 1}, "stop_on_all_aces must be True or False"),
    ],
)
def test_E1_players_and_decks_are_checked(kwargs, message):
    with pytest.raises(ValueError, match=message):
        elgeta_v0.raw_env(**kwargs)


def test_E1_allowed_players_and_decks_and_defaults():
    env = elgeta_v0.raw_env()
    assert env.config == rules.Config(num_players=4, deck="52", max_tricks=10_000)
    assert env.possible_agents == ["player_0", "player_1", "player_2", "player_3"]
    for n in (2, 3, 4):
        for deck in ("32", "36", 52):
            env = elgeta_v0.raw_env(num_players=n, deck=deck)
            env.reset(seed=1)
            assert env.config.deck == str(deck)
            assert (
                sum(map(len, env.game_state.piles))
                == {"32": 32, "36": 36, "52": 52}[str(deck)] * (3 if n == 3 else 4) // 4
            )


def _suits(pile) -> set[str]:
    return {SUITS[c // 13] for c in pile}


def test_E2_four_players_one_suit_each_shuffled():
    env = elgeta_v0.raw_env(num_players=4, deck="36")
    env.reset(seed=3)
    piles = [list(p) for p in env.game_state.piles]
    assert [_suits(p) for p in piles] == [{"S"}, {"C"}, {"D"}, {"H"}]
    assert all(len(p) == 9 for p in piles)
    assert any(p != sorted(p) for p in piles), "piles are shuffled"
    env.reset(seed=4)
    assert [list(p) for p in env.game_state.piles] != piles, "another seed, another order"


def test_E2_three_players_one_random_suit_left_out_others_in_order():
    env = elgeta_v0.raw_env(num_players=3, deck="32")
    left_out_seen = set()
    for seed in range(40):
        env.reset(seed=seed)
        suits = [_suits(p) for p in env.game_state.piles]
        assert all(len(s) == 1 for s in suits)
        order = [next(iter(s)) for s in suits]
        (left_out,) = set("SCDH") - set(order)
        assert order == [s for s in "SCDH" if s != left_out]
        left_out_seen.add(left_out)
    assert left_out_seen == set("SCDH")


def test_E2_two_players_red_against_black():
    env = elgeta_v0.raw_env(num_players=2, deck="32")
    env.reset(seed=0)
    assert [_suits(p) for p in env.game_state.piles] == [{"D", "H"}, {"C", "S"}]
    assert [len(p) for p in env.game_state.piles] == [16, 16]


def test_E2_stacked_piles_fix_the_deal_in_any_distribution():
    piles = stacked(["QS 10S", "10D", "4H", "AC"], fill=(1, 2))
    env = new_env(piles)
    assert [cards_text(p) for p in env.game_state.piles] == [" ".join(p) for p in piles]
    assert [len(p) for p in env.game_state.piles] == [2, 1 + 24, 1 + 23, 1]


@pytest.mark.parametrize(
    ("num_players", "piles", "message"),
    [
        (2, "AS", "must be a list of 2 piles"),
        (2, [["AS"]], "must be a list of 2 piles"),
        (2, [["AS"], "KS"], r"options\['piles'\]\[1\] must be a list of card texts"),
        (2, [["AS", "XS"], ["KS"]], "malformed card text 'XS'"),
        (2, [["AS", "RJ"], ["KS"]], r"options\['piles'\]\[0\] contains RJ, not in the 32-card"),
        (
            2,
            [["AS", "6S"], ["KS"]],
            r"contains 6S, not in the 32-card deck \(ranks 7 8 9 10 J Q K A, no jokers; E1\)",
        ),
        (2, [["AS", "KS"], ["KS"]], "contain KS more than once"),
        (2, [["AS"], []], r"options\['piles'\]\[1\] is empty"),
        (2, [["AS"], ["KS"]], "must hold the whole 32-card deck .E2.; missing: 7C 8C"),
        (3, [["AS"], ["KS"], ["QS"]], "less exactly one whole suit .E2.; missing: 7C"),
    ],
)
def test_E2_bad_stacked_piles_are_refused_naming_the_problem(num_players, piles, message):
    env = elgeta_v0.raw_env(num_players=num_players, deck="32")
    with pytest.raises(ValueError, match=message):
        env.reset(options={"piles": piles})


def test_E2_three_players_stacked_piles_leave_out_exactly_one_suit():
    piles = stacked(["AS", "AC", "AD"], num_players=3, deck="32", left_out="H")
    env = new_env(piles, num_players=3, deck="32")
    assert sum(map(len, env.game_state.piles)) == 24
    with pytest.raises(ValueError, match="one whole suit"):  # 7H in play but 7D left out
        swapped = [[("7H" if t == "7D" else t) for t in p] for p in piles]
        new_env(swapped, num_players=3, deck="32")


# ------------------------------------------------------------------------------- E3 play
def test_E3_players_play_top_cards_clockwise_from_the_previous_winner():
    env = new_env(stacked(["2S 3S", "5C 2C", "AD 4D", "3H AH"]))
    assert env.legal_moves("player_0") == {0: "play"} and env.legal_moves("player_1") == {}
    first = step_env(env, 4)
    assert first == list(enumerate(cards("2S 5C AD 3H")))
    assert env.game_state.last_taker == 2 and env.game_state.leader == 2  # the ace wins
    second = step_env(env, 4)
    assert [s for s, _ in second] == [2, 3, 0, 1]  # the winner leads, then clockwise
    assert env.game_state.last_taker == 3  # AH


def test_E3_suits_are_equal_and_beggars_are_skipped():
    # 9S and 9D meet: neither beats the other, the tie is broken by the next round (E4)
    env = new_env(stacked(["9S 2S", "9D 3D", "5C 4C", "8H 5H"]))
    step_env(env, 4)
    assert env.game_state.rounds == 2 and env.game_state.trick_cards == cards("9S 9D 5C 8H")
    # player_3 has one card: he loses the first trick and is skipped afterwards
    env = new_env(stacked(["KS", "2D", "QC", "3H"], fill=(0, 1, 2)))
    step_env(env, 4)
    assert env.game_state.beggars == [3]
    assert [s for s, _ in step_env(env, 3)] == [0, 1, 2]


# ------------------------------------------------------------------------------- E4 ties
def test_E4_seed_example_a_the_ace_takes():
    env = new_env(stacked(["QS", "10D", "4H", "AC"]))
    step_env(env, 4)
    assert env.game_state.last_taker == 3
    assert list(env.game_state.piles[3])[-4:] == cards("QS 10D 4H AC")


def test_E4_seed_example_b_a_tie_below_the_highest_card_does_not_matter():
    env = new_env(stacked(["9S", "9D", "5H", "QC"]))
    step_env(env, 4)
    assert env.game_state.last_taker == 3 and env.game_state.rounds == 1
    assert list(env.game_state.piles[3])[-4:] == cards("9S 9D 5H QC")


def test_E4_seed_example_c_two_aces_tie_and_the_newest_round_decides():
    env = new_env(stacked(["JS 6S", "AD 7D", "AH 9H", "4C QC"]))
    step_env(env, 4)
    assert (
        env.game_state.last_taker == rules.NOBODY and env.game_state.rounds == 2
    )  # nobody takes it yet
    step_env(env, 4)
    assert env.game_state.last_taker == 3  # his queen is the highest of the last four
    assert list(env.game_state.piles[3])[-8:] == cards("JS AD AH 4C 6S 7D 9H QC")
    assert env.game_state.leader == 3 and env.game_state.tricks == 1


def test_E4_ties_repeat_until_one_card_is_highest():
    env = new_env(stacked(["KS 5S 2S", "KD 5D 3D", "2H 3H KH", "2C 3C 4C"]))
    step_env(env, 8)
    assert env.game_state.rounds == 3  # K K tie, then 5 5 tie
    step_env(env, 4)
    assert env.game_state.last_taker == 2  # KH, the newest round's highest, takes all 12 cards
    assert len(env.game_state.last_trick_cards) == 12


# ------------------------------------------------------------------------------- E5 running out
def test_E5_a_player_out_of_cards_in_a_tie_is_a_beggar_at_once():
    # player_1 ties with his last card; he cannot add and is out at once, his ace stays
    env = new_env(stacked(["AS 2S", "AD", "5H 3H", "4C KC"], fill=(0, 2, 3)))
    step_env(env, 4)
    assert env.game_state.beggars == [1] and not env.game_state.still_in[1]
    assert env.agent_selection == "player_0"
    assert [s for s, _ in step_env(env, 3)] == [0, 2, 3]  # he adds nothing
    assert env.game_state.last_taker == 3  # KC takes the trick, the beggar's ace included
    assert cards("AS AD 5H 4C 2S 3H KC") == list(env.game_state.piles[3])[-7:]
    assert env.game_state.beggars == [1]


def test_E5_when_only_one_player_can_add_he_takes_the_trick_without_adding():
    piles = stacked(["7S", "7D 8D"], num_players=2, deck="32", fill=(1,))
    env, outcome = both_paths(piles, num_players=2, deck="32")
    assert outcome.winner == 1 and outcome.tricks == 1 and outcome.beggars == (0,)
    pile = list(env.game_state.piles[1])
    assert pile[0] == parse_card("8D")  # his next card was not added
    assert pile[-2:] == cards("7S 7D")


def test_E5_when_nobody_can_add_the_game_is_a_draw_and_the_cards_stay():
    ranks = ["7", "8", "9", "10", "J", "Q", "K", "A"]
    piles = [[r + "C" for r in ranks] + [r + "D" for r in ranks]]
    piles.append([r + "H" for r in ranks] + [r + "S" for r in ranks])
    env, outcome = both_paths(piles, num_players=2, deck="32")
    assert outcome.winner == rules.NOBODY and not outcome.cycle and not outcome.capped
    assert outcome.tricks == 1 and outcome.beggars == (0, 1) and outcome.cards == (0, 0)
    assert len(env.game_state.trick_cards) == 32 and env.game_state.rounds == 16
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}


# ------------------------------------------------------------------------------- E6 under pile
def test_E6_the_trick_goes_under_the_pile_in_play_order_round_by_round():
    env = new_env(stacked(["2S 3S 8S", "3D 4D AD", "AH 5H 6H", "4C 6C 7C"]))
    step_env(env, 4)  # AH takes: under player_2's pile in the order played
    assert list(env.game_state.piles[2])[-4:] == cards("2S 3D AH 4C")
    played = step_env(env, 4)  # player_2 leads: 5H 6C 3S 4D, the six takes
    assert [s for s, _ in played] == [2, 3, 0, 1] and env.game_state.last_taker == 3
    assert list(env.game_state.piles[3])[-4:] == cards("5H 6C 3S 4D")
    # a trick of two rounds goes under round by round (seed example c)
    env = new_env(stacked(["JS 6S", "AD 7D", "AH 9H", "4C QC"]))
    step_env(env, 8)
    assert list(env.game_state.piles[3])[-8:] == cards("JS AD AH 4C 6S 7D 9H QC")


# ------------------------------------------------------------------------------- E7 beggars
def test_E7_players_out_of_cards_after_a_trick_are_beggars_in_playing_order_last_one_wins():
    piles = stacked(["7S", "8D", "AH", "9C"], deck="32", fill=(2,))
    env, outcome = both_paths(piles, deck="32")
    assert outcome.winner == 2 and outcome.tricks == 1
    assert outcome.beggars == (0, 1, 3) and outcome.cards == (0, 0, 32, 0)
    assert env.infos["player_0"]["result"]["beggars"] == ["player_0", "player_1", "player_3"]


def test_E7_a_beggar_is_out_and_the_game_goes_on():
    env = new_env(stacked(["KS", "2D", "QC", "3H"], fill=(0, 1, 2)))
    step_env(env, 4)
    assert env.game_state.beggars == [3] and not env.game_state.over
    assert env.observe("player_3")["action_mask"].tolist() == [0]
    assert "player_3" in env.agents  # out, but an agent until the end (E9 at the end)


# ------------------------------------------------------------------------------- E8 ends
def cycle_piles() -> list[list[str]]:
    """3 players, 36 cards: player_2 loses his only card, then player_1's ace and player_0's
    13 rising pairs chase each other forever (a 26-trick cycle from trick 2)."""
    pairs = "6D JC 7C JD 7D JS 8C QC 8D QD 9C QS 9D KC 9S KD 10C KS 10D AC 10S AD"
    return [["8S", *pairs.split(), "6C"], ["6S", "AS"], ["7S"]]


def test_E8_a_repeated_position_ends_the_game_as_a_draw():
    env, outcome = both_paths(cycle_piles(), num_players=3, deck="36")
    assert outcome.cycle and outcome.winner == rules.NOBODY and not outcome.capped
    assert outcome.tricks == 27 and outcome.beggars == (2,) and outcome.cards == (26, 1, 0)
    result = env.infos["player_0"]["result"]
    assert result["cycle"] is True and result["winner"] is None and result["tricks"] == 27
    assert all(r == 0 for r in env.rewards.values())


def test_E8_a_cycle_is_caught_at_its_first_repetition_even_near_the_cap():
    # the repetition comes at trick 27: a cap of 27 still reports the cycle (checked first) ...
    _, outcome = both_paths(cycle_piles(), num_players=3, deck="36", max_tricks=27)
    assert outcome.cycle and not outcome.capped and outcome.tricks == 27
    # ... and a cap of 26 ends the game before it: player_0 has most cards and wins
    _, outcome = both_paths(cycle_piles(), num_players=3, deck="36", max_tricks=26)
    assert outcome.capped and not outcome.cycle and outcome.tricks == 26
    assert outcome.winner == 0 and outcome.cards == (25, 2, 0)


def test_E8_the_cap_gives_the_player_with_most_cards_the_win_and_a_tie_is_a_draw():
    piles = stacked(["AS KS QS", "7D 8D 9D"], num_players=2, deck="32")
    env, outcome = both_paths(piles, num_players=2, deck="32", max_tricks=3)
    assert outcome.capped and outcome.tricks == 3 and outcome.cards == (19, 13)
    assert outcome.winner == 0 and not outcome.cycle
    result = env.infos["player_1"]["result"]
    assert result["capped"] is True and result["winner"] == "player_0"
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert rules.most_cards([[1, 2], [3], [4, 5]]) == rules.NOBODY
    # a capped tie: 2 players, after one trick both hold 16 cards
    piles = stacked(["AS 8S", "7D 9D"], num_players=2, deck="32")
    _, outcome = both_paths(piles, num_players=2, deck="32", max_tricks=2)
    assert outcome.capped and outcome.cards == (16, 16) and outcome.winner == rules.NOBODY


def test_E8_stop_on_all_aces_ends_when_one_pile_holds_every_ace():
    # 2 players: two ace-against-ace ties, each won by player_0 in the next round
    piles = stacked(["AH 8H AD 9H", "AS 7S AC 8S"], num_players=2, deck="32")
    env, outcome = both_paths(piles, num_players=2, deck="32", stop_on_all_aces=True)
    assert outcome.all_aces and outcome.winner == 0 and outcome.tricks == 2
    assert outcome.beggars == () and outcome.cards == (20, 12)  # 2 cards won per round
    pile = env.game_state.piles[0]
    assert all(parse_card(a) in pile for a in ("AS", "AC", "AD", "AH"))
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    _, plain = both_paths(piles, num_players=2, deck="32")
    assert not plain.all_aces and plain.tricks > 2


# ------------------------------------------------------------------------------- E9, E10
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_E9_winner_plus_one_others_minus_one_over_n_minus_one(num_players):
    env = elgeta_v0.raw_env(num_players=num_players, deck="32")
    env.reset(seed=5)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        _, reward, term, trunc, info = env.last()
        totals[agent] += reward
        env.step(None if term or trunc else 0)
    winner = info["result"]["winner"]
    assert winner is not None
    for agent, total in totals.items():
        assert total == pytest.approx(1.0 if agent == winner else -1 / (num_players - 1))


def test_E10_outcome_fields():
    env, _ = both_paths(stacked(["QS", "10D", "4H", "AC"], fill=(3,)), deck="52")
    result = env.infos["player_2"]["result"]
    assert result == {
        "winner": "player_3",
        "tricks": 1,
        "cycle": False,
        "capped": False,
        "beggars": ["player_0", "player_1", "player_2"],
        "all_aces": False,
        "cards": [0, 0, 0, 52],
    }
    assert all(env.infos[a]["result"] == result for a in env.possible_agents)


def test_rules_engine_refuses_moves_after_the_end_and_unknown_moves():
    state = rules.new_deal(rules.Config(num_players=2), np.random.default_rng(0))
    with pytest.raises(ValueError, match="only move in Elgeta is 'play'"):
        rules.apply(state, "pass")
    assert rules.legal_moves(state) == ["play"]
    while not state.over:
        rules.apply(state)
    assert rules.legal_moves(state) == [] and rules.to_act(state) == rules.NOBODY
    with pytest.raises(ValueError, match="game is over"):
        rules.apply(state)
