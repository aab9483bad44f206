"""One scenario per rule of RULES §3 (P1–P10), on stacked decks.

Hands are written in dealing order (``player_0`` first in the first round: the dealer is the last
seat, §0); :func:`tests.pig.util.deck_for` turns them into the stacked deck.
"""

from __future__ import annotations

import numpy as np
import pytest

from kiaule_env import pig_v0
from kiaule_env.cards import CARD_TEXTS, RANKS, parse_card
from kiaule_env.pig import rules
from tests.pig.util import deck_for, hand, legal, make, step

# Four players play with J Q K A (P1).
TWO_COMPLETE = [  # after one pass player_0 holds four aces and player_2 four kings
    ["AC", "AD", "AH", "JC"],
    ["KS", "QC", "QD", "JD"],
    ["KC", "KD", "KH", "QH"],
    ["AS", "QS", "JH", "JS"],
]
TWO_COMPLETE_PASSES = ["pass J", "pass K", "pass Q", "pass A"]
ACES_DEALT = [  # player_1 is dealt four aces
    ["KC", "QC", "JC", "JD"],
    ["AC", "AD", "AH", "AS"],
    ["KD", "QD", "JH", "QH"],
    ["KH", "KS", "QS", "JS"],
]


def first_pass(env, agent: str) -> str:
    """The first legal ``pass R`` of ``agent`` (lowest rank held)."""
    return next(t for t in legal(env, agent) if t.startswith("pass"))


def all_cards(env) -> list[int]:
    state = env.game_state
    return sorted([c for h in state.hands for c in h] + state.stock + state.discard)


# ---------------------------------------------------------------------------------------- P1
@pytest.mark.parametrize("n", [3, 4, 8, 13])
def test_P1_deck_is_the_top_n_ranks_in_four_suits(n):
    env = make(num_players=n)
    env.reset(seed=n)
    ranks = {CARD_TEXTS[c][:-1] for c in all_cards(env)}
    assert ranks == set(RANKS[13 - n :])
    assert len(all_cards(env)) == 4 * n
    assert all(len(env.game_state.hands[s]) == 4 for s in range(n))
    assert env.action_space("player_0").n == n + 2


def test_P1_deal_one_at_a_time_from_the_dealers_left():
    deck = deck_for(ACES_DEALT)
    assert deck[:5] == ["KC", "AC", "KD", "KH", "QC"]
    env = make()
    env.reset(seed=0, options={"deck": deck})
    for seat, cards in enumerate(ACES_DEALT):
        assert hand(env, seat) == sorted(cards)
    assert env.game_state.dealer == 3


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_players": 2}, "num_players=2 is out of range"),
        ({"num_players": 14}, "between 3 and 13"),
        ({"num_players": 13, "stock": True}, "between 3 and 12"),
        ({"game": "match"}, "choose one of 'round', 'full'"),
        ({"false_nose": "yes"}, "choose one of None, 'pig'"),
        ({"max_passes": 0}, "max_passes=0 is out of range"),
        ({"letters": True}, "letters=True needs game='full'"),
        ({"tokens": 1}, "tokens must be True or False"),
    ],
)
def test_P1_bad_options_say_what_is_allowed(kwargs, message):
    with pytest.raises(ValueError, match=message):
        make(**kwargs)


# ---------------------------------------------------------------------------------------- P2
def test_P2_everyone_passes_one_card_left_at_once():
    env = make()
    env.reset(seed=0, options={"deck": deck_for(TWO_COMPLETE)})
    step(env, TWO_COMPLETE_PASSES)
    assert hand(env, 0) == ["AC", "AD", "AH", "AS"]  # AS from player_3 (his right)
    assert hand(env, 1) == ["JC", "JD", "QC", "QD"]  # JC from player_0
    assert hand(env, 2) == ["KC", "KD", "KH", "KS"]
    assert hand(env, 3) == ["JH", "JS", "QH", "QS"]
    assert env.game_state.passes == 1


def test_P2_the_lowest_suit_of_the_rank_goes_and_a_four_may_still_pass():
    env = make()
    hands = [["JS", "JC", "QD", "KH"], ["AC", "AD", "AH", "AS"], *ACES_DEALT[2:]]
    hands[2], hands[3] = ["KD", "QC", "JH", "QH"], ["KC", "KS", "QS", "JD"]
    env.reset(seed=0, options={"deck": deck_for(hands)})
    assert "pass A" in legal(env, "player_1") and "nose" in legal(env, "player_1")
    step(env, ["pass J", "pass A", "pass K", "pass J"])
    assert "JC" in hand(env, 1) and "JS" in hand(env, 0)  # C before D H S
    assert "AC" in hand(env, 2)  # the four of a kind was broken by choice
    assert "JD" in hand(env, 0)


def test_P2_only_ranks_held_may_be_passed():
    env = make()
    env.reset(seed=0, options={"deck": deck_for(ACES_DEALT)})
    assert legal(env, "player_0") == ["pass J", "pass K", "pass Q"]
    with pytest.raises(ValueError, match=r"player_0: action 3 \(pass A\) is illegal now"):
        env.step({"player_0": 3, "player_1": 3, "player_2": 0, "player_3": 0})


# ---------------------------------------------------------------------------------------- P3
def test_P3_four_of_a_kind_dealt_at_the_start_noses_in_the_first_step():
    env = make()
    obs, _ = env.reset(seed=0, options={"deck": deck_for(ACES_DEALT)})
    assert obs["player_1"]["action_mask"][4] == 1  # nose
    assert obs["player_0"]["action_mask"][4] == 0
    before = [hand(env, s) for s in range(4)]
    _, rewards, *_ = step(env, ["pass J", "nose", "pass Q", "pass K"])
    assert [hand(env, s) for s in range(4)] == before  # the touch is faster: no card moves
    assert env.game_state.phase == rules.RACE and env.game_state.touched == [1]
    assert env.game_state.passes == 0
    assert legal(env, "player_1") == ["wait"]
    assert legal(env, "player_0") == ["nose", "wait"]
    assert set(rewards.values()) == {0.0}
    _, rewards, terms, _, infos = step(env, ["nose", "wait", "nose", "wait"])
    assert infos["player_0"]["result"]["pig"] == "player_3"
    assert infos["player_0"]["result"]["first_nose"] == "player_1"
    assert rewards["player_3"] == -1.0 and rewards["player_1"] == pytest.approx(1 / 3)
    assert all(terms.values()) and env.agents == []


def test_P3_nose_needs_four_of_a_kind_and_wait_needs_the_race():
    env = make()
    env.reset(seed=0, options={"deck": deck_for(ACES_DEALT)})
    with pytest.raises(ValueError, match=r"player_0: action 4 \(nose\) is illegal now"):
        step(env, ["nose", "nose", "pass Q", "pass K"])
    with pytest.raises(ValueError, match=r"action 5 \(wait\) is illegal now"):
        step(env, ["pass J", "wait", "pass Q", "pass K"])


def test_P3_two_players_completing_in_the_same_step_are_ordered_by_the_seeded_draw():
    firsts = []
    for seed in range(30):
        env = make()
        env.reset(seed=seed, options={"deck": deck_for(TWO_COMPLETE)})
        step(env, TWO_COMPLETE_PASSES)
        assert "nose" in legal(env, "player_0") and "nose" in legal(env, "player_2")
        step(env, ["nose", "pass J", "nose", "pass Q"])
        order = list(env.game_state.touched)
        assert sorted(order) == [0, 2]
        assert hand(env, 1) == ["JC", "JD", "QC", "QD"]  # no card moved
        _, _, _, _, infos = step(env, ["wait", "nose", "wait", "wait"])
        result = infos["player_0"]["result"]
        assert result["pig"] == "player_3"
        assert result["first_nose"] == f"player_{order[0]}"
        firsts.append(result["first_nose"])
        again = make()
        again.reset(seed=seed, options={"deck": deck_for(TWO_COMPLETE)})
        step(again, TWO_COMPLETE_PASSES)
        step(again, ["nose", "pass J", "nose", "pass Q"])
        assert again.game_state.touched == order  # the same seed, the same order
    assert set(firsts) == {"player_0", "player_2"}


def test_P3_when_the_last_players_touch_in_one_step_the_last_of_the_order_is_pig():
    pigs = set()
    for seed in range(30):
        env = make()
        env.reset(seed=seed, options={"deck": deck_for(ACES_DEALT)})
        step(env, ["pass J", "nose", "pass Q", "pass K"])
        step(env, ["nose", "wait", "wait", "wait"])
        _, rewards, _, _, infos = step(env, ["wait", "wait", "nose", "nose"])
        pig = infos["player_0"]["result"]["pig"]
        assert pig == f"player_{env.game_state.touched[-1]}"
        assert env.game_state.touched[:2] == [1, 0]
        assert rewards[pig] == -1.0
        pigs.add(pig)
    assert pigs == {"player_2", "player_3"}


def test_P3_everyone_touching_in_the_first_step_makes_the_last_of_the_order_pig():
    hands = [["JC", "JD", "JH", "JS"], ["QC", "QD", "QH", "QS"]]
    hands += [["KC", "KD", "KH", "KS"], ["AC", "AD", "AH", "AS"]]
    env = make()
    env.reset(seed=3, options={"deck": deck_for(hands)})
    _, _, _, _, infos = step(env, ["nose"] * 4)
    order = env.game_state.touched
    assert sorted(order) == [0, 1, 2, 3]
    assert infos["player_0"]["result"]["pig"] == f"player_{order[-1]}"
    assert infos["player_0"]["result"]["first_nose"] == f"player_{order[0]}"


def test_P3_race_cut_short_after_max_race_steps_draws_the_pig_among_those_left():
    pigs = set()
    for seed in range(40):
        env = make(max_race_steps=2)
        env.reset(seed=seed, options={"deck": deck_for(ACES_DEALT)})
        step(env, ["pass J", "nose", "pass Q", "pass K"])
        _, _, terms, _, _ = step(env, ["wait"] * 4)
        assert not any(terms.values())
        _, _, terms, _, infos = step(env, ["nose", "wait", "wait", "wait"])
        result = infos["player_0"]["result"]
        assert all(terms.values()) and result["race_cut"] is True
        assert result["pig"] in {"player_2", "player_3"}
        pigs.add(result["pig"])
    assert pigs == {"player_2", "player_3"}


def test_P3_false_nose_pig_a_touch_without_four_makes_the_toucher_pig_at_once():
    env = make(false_nose="pig")
    env.reset(seed=0, options={"deck": deck_for(TWO_COMPLETE)})
    assert "nose" in legal(env, "player_1")  # allowed, at his peril
    before = [hand(env, s) for s in range(4)]
    _, rewards, terms, _, infos = step(env, ["pass J", "nose", "pass Q", "pass A"])
    assert [hand(env, s) for s in range(4)] == before
    result = infos["player_0"]["result"]
    assert result["pig"] == "player_1" and result["first_nose"] == "player_1"
    assert rewards["player_1"] == -1.0 and all(terms.values())


def test_P3_false_nose_is_judged_on_the_hand_at_the_start_of_the_step():
    # player_0 completes his aces by this very pass: touching now is still a false touch.
    env = make(false_nose="pig")
    env.reset(seed=0, options={"deck": deck_for(TWO_COMPLETE)})
    _, _, _, _, infos = step(env, ["nose", "pass K", "pass Q", "pass A"])
    assert infos["player_0"]["result"]["pig"] == "player_0"


def test_P3_several_false_touches_the_first_of_the_order_is_pig_even_after_a_true_one():
    pigs = set()
    for seed in range(30):
        env = make(false_nose="pig")
        env.reset(seed=seed, options={"deck": deck_for(ACES_DEALT)})
        _, _, _, _, infos = step(env, ["nose", "nose", "nose", "pass K"])
        order = env.game_state.touched
        false_order = [s for s in order if s != 1]
        result = infos["player_0"]["result"]
        assert result["pig"] == f"player_{false_order[0]}"
        assert result["first_nose"] == f"player_{order[0]}"
        pigs.add(result["pig"])
    assert pigs == {"player_0", "player_2"}


# ---------------------------------------------------------------------------------------- P4
def test_P4_max_passes_without_a_nose_ends_the_round_with_no_pig():
    env = make(max_passes=3)
    env.reset(seed=0, options={"deck": deck_for(ACES_DEALT)})
    for _ in range(2):
        _, _, terms, _, _ = step(env, [first_pass(env, a) for a in env.agents])
        assert not any(terms.values())
    _, rewards, terms, _, infos = step(env, [first_pass(env, a) for a in env.agents])
    assert all(terms.values())
    assert set(rewards.values()) == {0.0}
    assert infos["player_2"]["result"] == {
        "pig": None,
        "first_nose": None,
        "passes": 3,
        "capped": True,
        "race_cut": False,
    }


def test_P4_a_capped_round_in_a_full_game_eliminates_nobody_and_the_deal_passes_on():
    env = make(game="full", max_passes=1)
    decks = [deck_for(ACES_DEALT), deck_for(TWO_COMPLETE)]
    env.reset(seed=0, options={"decks": decks})
    obs, rewards, terms, _, infos = step(env, ["pass J", "pass A", "pass Q", "pass K"])
    assert infos["player_0"]["round_result"]["capped"] is True
    assert not any(terms.values()) and set(rewards.values()) == {0.0}
    assert env.agents == ["player_0", "player_1", "player_2", "player_3"]
    # P4: the next round is dealt at once, by player_0 (the deal passed on), from player_1.
    assert env.game_state.dealer == 0 and env.game_state.round_index == 1
    assert hand(env, 1) == sorted(TWO_COMPLETE[0]) and hand(env, 0) == sorted(TWO_COMPLETE[3])
    assert obs["player_1"]["action_mask"].tolist() == [1, 0, 0, 1, 0, 0]  # J, A of his new hand


def test_P4_one_action_space_for_all_and_removed_ranks_are_never_legal():
    env = make(game="full", num_players=4)
    hands = [["JC", "JD", "JH", "JS"], *ACES_DEALT[1:]]
    hands[2], hands[3] = ["KD", "QD", "KC", "QH"], ["KH", "KS", "QS", "QC"]
    env.reset(seed=1, options={"deck": deck_for(hands)})
    step(env, ["nose", "pass A", "pass Q", "pass K"])
    obs, *_ = step(env, ["wait", "nose", "nose", "wait"])  # player_3 is the pig and leaves
    assert {env.action_space(a).n for a in env.possible_agents} == {6}
    for agent in env.agents:
        assert obs[agent]["action_mask"][0] == 0  # pass J: J left the deck (P5)
        assert legal(env, agent)[0] != "pass J"


# ---------------------------------------------------------------------------------------- P5
def test_P5_full_game_eliminated_agent_leaves_and_the_lowest_rank_leaves_the_deck():
    env = make(game="full")
    round2 = ["AS", "KS", "QS", "JS", "AH", "KH", "QH", "JH", "AD", "KD", "QD", "JD"]
    round2 += ["AC", "KC", "QC", "JC"]
    env.reset(seed=0, options={"decks": [deck_for(ACES_DEALT), round2]})
    step(env, ["pass J", "nose", "pass Q", "pass K"])
    obs, rewards, terms, _, infos = step(env, ["nose", "wait", "wait", "nose"])
    assert infos["player_0"]["round_result"]["pig"] == "player_2"
    assert terms == {"player_0": False, "player_1": False, "player_2": True, "player_3": False}
    assert set(obs) == {"player_0", "player_1", "player_2", "player_3"}
    assert env.agents == ["player_0", "player_1", "player_3"]
    assert rewards == {"player_0": 0.0, "player_1": 0.0, "player_2": -1 / 3, "player_3": 0.0}
    # Round 2: ranks Q K A, dealt at once by player_0 (the deal passed on) from his left
    # (player_1); the Js of the stacked deck are skipped; player_2 is passed over (P1).
    assert env.game_state.ranks == (10, 11, 12) and env.game_state.dealer == 0
    assert hand(env, 1) == ["AC", "AD", "AH", "AS"]
    assert hand(env, 3) == ["KC", "KD", "KH", "KS"]
    assert hand(env, 0) == ["QC", "QD", "QH", "QS"]
    assert hand(env, 2) == []
    assert obs["player_0"]["action_mask"].tolist() == [0, 1, 0, 0, 1, 0]  # pass Q, nose
    with pytest.raises(ValueError, match="player_2"):
        step(env, {"player_0": "pass Q", "player_1": "pass A", "player_2": "pass Q"})
    step(env, {"player_0": "pass Q", "player_1": "pass A", "player_3": "pass K"})
    assert hand(env, 1) == ["AD", "AH", "AS", "QC"]  # from player_0
    assert hand(env, 3) == ["AC", "KD", "KH", "KS"]  # from player_1, skipping player_2
    assert hand(env, 0) == ["KC", "QD", "QH", "QS"]  # from player_3


def test_P5_decks_fix_every_round_so_a_full_game_replays_exactly():
    config = rules.Config(num_players=5, game="full")
    shuffle = np.random.default_rng(11)
    decks = [[CARD_TEXTS[c] for c in shuffle.permutation(config.start_deck)] for _ in range(40)]
    env = make(num_players=5, game="full")
    obs, _ = env.reset(seed=7, options={"decks": decks})
    rng = np.random.default_rng(5)
    history, checked_deals = [], 0
    while env.agents:
        state = env.game_state
        if state.passes == 0 and not state.touched:  # a fresh deal: it is the stacked one
            in_play = set(state.ranks)
            deck = [parse_card(t) for t in decks[state.round_index]]
            deck = [c for c in deck if c % 13 in in_play]
            order = state.seats_in[state.seats_in.index(rules.left_of(state, state.dealer)) :]
            order += state.seats_in[: len(state.seats_in) - len(order)]
            for i, card in enumerate(deck):
                assert card in state.hands[order[i % len(order)]]
            checked_deals += 1
        actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
        history.append(actions)
        obs, _, _, _, infos = env.step(actions)
    result = infos[next(iter(infos))]["result"]
    assert result["rounds"] >= 4 and checked_deals == result["rounds"]
    # The same seed, decks and actions replay the same game, whatever the ties drew.
    replay = make(num_players=5, game="full")
    replay.reset(seed=7, options={"decks": decks})
    for actions in history:
        _, _, _, _, infos = replay.step(actions)
    assert infos[next(iter(infos))]["result"] == result


def test_P5_rounds_beyond_the_decks_are_shuffled_from_the_seed():
    def second_round(seed):
        env = make(game="full", max_passes=1)
        env.reset(seed=seed, options={"decks": [deck_for(ACES_DEALT)]})
        step(env, ["pass J", "pass A", "pass Q", "pass K"])  # capped: round 2 is shuffled
        return [hand(env, s) for s in range(4)]

    assert second_round(4) == second_round(4)
    assert any(second_round(4) != second_round(s) for s in range(5, 9))


def test_P5_stacked_decks_must_be_permutations_of_the_starting_deck():
    env = make(game="full")
    bad = ["10C", *deck_for(ACES_DEALT)[1:]]
    with pytest.raises(ValueError, match=r"options\['decks'\]\[1\] contains 10C, not in"):
        env.reset(options={"decks": [deck_for(ACES_DEALT), bad]})
    with pytest.raises(ValueError, match="missing: JS"):
        env.reset(options={"deck": deck_for(ACES_DEALT)[:-1]})
    with pytest.raises(ValueError, match="more than once"):
        env.reset(options={"deck": ["AC", *deck_for(ACES_DEALT)[1:]]})
    with pytest.raises(ValueError, match="single deal"):
        make().reset(options={"decks": [deck_for(ACES_DEALT)] * 2})
    with pytest.raises(ValueError, match="unknown reset option"):
        make().reset(options={"piles": []})


# ---------------------------------------------------------------------------------------- P6
LOW_HANDS = [["2C", "3C", "4C", "5C"], ["2D", "3D", "4D", "5D"]]
LOW_HANDS += [["2H", "3H", "4H", "5H"], ["2S", "3S", "4S", "5S"]]


def test_P6_dealer_draws_from_the_stock_and_his_right_discards():
    dealt = {c for h in LOW_HANDS for c in h}
    rest = [t for t in CARD_TEXTS[:52] if t not in dealt]
    env = make(stock=True)
    env.reset(seed=0, options={"deck": deck_for(LOW_HANDS, stock=rest)})
    assert len(env.game_state.stock) == 36 and env.game_state.discard == []
    assert env.action_space("player_0").n == 15
    step(env, ["pass 2", "pass 3", "pass 4", "pass 5"])
    assert [CARD_TEXTS[c] for c in env.game_state.discard] == ["4H"]  # player_2: the dealer's right
    assert rest[0] in hand(env, 3) and "5S" not in hand(env, 3)  # the dealer drew the top
    assert "5S" in hand(env, 0) and "2C" in hand(env, 1) and "3D" in hand(env, 2)
    assert len(env.game_state.stock) == 35
    view = env.view("player_1")
    assert (view.stock_size, view.discard_size) == (35, 1)
    obs = env.observe("player_1")["observation"]
    assert env.layout.part(obs, "stock_size")[0] == pytest.approx(35 / 52)


def test_P6_the_stock_turns_over_unshuffled_when_empty():
    env = make(num_players=12, stock=True)
    deck = list(CARD_TEXTS[:52])
    env.reset(seed=0, options={"deck": deck})
    assert [CARD_TEXTS[c] for c in env.game_state.stock] == deck[48:]
    dealer, right = 11, 10
    discarded, drawn = [], []
    for _ in range(7):
        actions = {a: min(env.legal_moves(a)) for a in env.agents}  # pass the lowest rank held
        env.step(actions)
        discarded.append(env.game_state.last_passed[right])
        drawn.append(env.game_state.last_received[dealer])
        env.check_invariants()
    assert [CARD_TEXTS[c] for c in drawn[:4]] == deck[48:]
    # Step 5: the discard pile (with the card just discarded) became the stock, top = first.
    assert drawn[4:] == discarded[:3]
    assert env.game_state.stock == discarded[3:5] and env.game_state.discard == discarded[5:7]


def test_P6_the_first_to_touch_deals_the_next_round_and_no_rank_is_removed():
    env = make(stock=True, game="full")
    dealt = {c for h in ACES_DEALT for c in h}
    stock = [t for t in CARD_TEXTS[:52] if t not in dealt]
    env.reset(seed=0, options={"decks": [deck_for(ACES_DEALT, stock=stock)]})
    step(env, ["pass J", "nose", "pass Q", "pass K"])
    _, _, _, _, infos = step(env, ["nose", "wait", "nose", "wait"])
    assert infos["player_0"]["round_result"]["pig"] == "player_3"
    assert env.game_state.dealer == 1  # player_1 touched first
    assert env.game_state.ranks == tuple(range(13)) and len(env.game_state.stock) == 52 - 12


def test_P6_if_the_first_to_touch_has_left_the_next_player_to_his_left_deals():
    dealt = {c for h in LOW_HANDS for c in h}
    rest = [t for t in CARD_TEXTS[:52] if t not in dealt]
    env = make(stock=True, game="full", false_nose="pig")
    env.reset(seed=0, options={"decks": [deck_for(LOW_HANDS, stock=rest)]})
    _, _, terms, _, infos = step(env, ["pass 2", "nose", "pass 4", "pass 5"])  # a false touch
    assert infos["player_0"]["round_result"]["first_nose"] == "player_1"
    assert terms["player_1"] and env.game_state.eliminated == [1]
    assert env.game_state.dealer == 2


def test_P6_at_most_12_players_and_stacked_decks_are_52_cards():
    with pytest.raises(ValueError, match="between 3 and 12"):
        make(num_players=13, stock=True)
    with pytest.raises(ValueError, match="has 16 cards but the 52-card deck has 52"):
        make(stock=True).reset(options={"deck": deck_for(ACES_DEALT)})


# ---------------------------------------------------------------------------------------- P7


def test_P7_letters_a_player_survives_two_pigs_and_leaves_with_the_third():
    # Every deal gives each player four of a kind (positions i, i+m, … share a rank).
    three = ["QC", "KC", "AC", "QD", "KD", "AD", "QH", "KH", "AH", "QS", "KS", "AS"]
    env = make(num_players=3, game="full", letters=True)
    env.reset(seed=0, options={"decks": [three] * 6})
    for k in (1, 2, 3):
        obs, rewards, terms, _, infos = step(env, ["nose", "nose", first_pass(env, "player_2")])
        assert infos["player_0"]["round_result"]["pig"] == "player_2"
        assert infos["player_0"]["round_result"]["letters"] == [0, 0, k]
        if k < 3:  # P7: a letter turns over; he stays and the deck keeps its ranks
            assert not any(terms.values()) and set(rewards.values()) == {0.0}
            assert env.agents == ["player_0", "player_1", "player_2"]
            assert env.game_state.ranks == (10, 11, 12)
            letters = env.layout.part(obs["player_1"]["observation"], "letters")
            assert letters.tolist() == pytest.approx([0, k / 3, 0])  # player_2 is my left
    assert terms["player_2"] and rewards["player_2"] == -0.5  # -1/(n-1), n = 3 (P9)
    assert env.agents == ["player_0", "player_1"] and env.game_state.ranks == (11, 12)
    for k in (1, 2, 3):  # two players left: player_1 is the pig three times
        _, rewards, terms, _, infos = step(env, ["nose", first_pass(env, "player_1")])
        assert infos["player_0"]["round_result"]["letters"] == [0, k, 3]
    result = infos["player_0"]["result"]
    assert result == {
        "pig": "player_1",
        "first_nose": "player_0",
        "passes": 0,
        "capped": False,
        "race_cut": False,
        "winner": "player_0",
        "eliminated": ["player_2", "player_1"],
        "rounds": 6,
        "letters": [0, 3, 3],
    }
    assert rewards == {"player_0": 1.0, "player_1": -0.5}
    assert all(terms.values()) and env.agents == []


# ---------------------------------------------------------------------------------------- P8
def test_P8_tokens_race_one_fewer_token_than_players_and_the_draw_decides_a_crowd():
    pigs = set()
    for seed in range(30):
        env = make(tokens=True)
        env.reset(seed=seed, options={"deck": deck_for(ACES_DEALT)})
        assert legal(env, "player_1") == ["pass A", "token"]
        with pytest.raises(ValueError, match=r"player_0: action 4 \(token\) is illegal"):
            step(env, ["token", "token", "pass Q", "pass K"])  # nobody before a four's holder
        step(env, ["pass J", "token", "pass Q", "pass K"])
        assert env.view("player_0").tokens_left == 2
        obs = env.observe("player_0")
        assert env.layout.part(obs["observation"], "tokens_left")[0] == pytest.approx(2 / 3)
        assert legal(env, "player_0") == ["token", "wait"] and legal(env, "player_1") == ["wait"]
        _, rewards, _, _, infos = step(env, ["token", "wait", "token", "token"])
        result = infos["player_0"]["result"]
        assert result["first_nose"] == "player_1"  # the first taker (P8)
        assert result["pig"] == f"player_{env.game_state.touched[-1]}"  # three takers, two tokens
        assert rewards[result["pig"]] == -1.0
        pigs.add(result["pig"])
    assert pigs == {"player_0", "player_2", "player_3"}


def test_P8_the_player_left_without_a_token_loses_and_false_nose_applies_to_tokens():
    env = make(tokens=True)
    env.reset(seed=0, options={"deck": deck_for(ACES_DEALT)})
    step(env, ["pass J", "token", "pass Q", "pass K"])
    step(env, ["wait", "wait", "token", "wait"])
    _, _, _, _, infos = step(env, ["token", "wait", "wait", "wait"])
    assert infos["player_0"]["result"]["pig"] == "player_3"
    env = make(tokens=True, false_nose="pig")
    env.reset(seed=0, options={"deck": deck_for(ACES_DEALT)})
    _, _, _, _, infos = step(env, ["token", "pass A", "pass Q", "pass K"])
    assert infos["player_0"]["result"]["pig"] == "player_0"


# ---------------------------------------------------------------------------------------- P9
@pytest.mark.parametrize("n", [3, 5])
def test_P9_round_rewards_pig_minus_one_others_share_one(n):
    ranks = RANKS[13 - n :]
    hands = [[r + s for s in "CDHS"] for r in ranks]  # everyone holds four of a kind
    env = make(num_players=n)
    env.reset(seed=0, options={"deck": deck_for(hands)})
    _, rewards, *_ = step(env, ["nose"] * (n - 1) + [f"pass {ranks[-1]}"])
    assert rewards[f"player_{n - 1}"] == -1.0
    assert all(rewards[f"player_{i}"] == pytest.approx(1 / (n - 1)) for i in range(n - 1))


def test_P9_full_game_rewards_only_at_elimination_and_for_the_winner():
    env = make(num_players=3, game="full")
    three = ["QC", "KC", "AC", "QD", "KD", "AD", "QH", "KH", "AH", "QS", "KS", "AS"]
    env.reset(seed=0, options={"decks": [three] * 2})
    _, rewards, *_ = step(env, ["nose", first_pass(env, "player_1"), "nose"])
    assert rewards == {"player_0": 0.0, "player_1": -0.5, "player_2": 0.0}
    _, rewards, *_ = step(env, {"player_0": first_pass(env, "player_0"), "player_2": "nose"})
    assert rewards == {"player_0": -0.5, "player_2": 1.0}


# --------------------------------------------------------------------------------------- P10
def test_P10_outcome_fields_and_round_results_in_the_step_each_round_ends():
    env = make(game="full", num_players=3, max_passes=2)
    three = ["QC", "KC", "AC", "QD", "KD", "AD", "QH", "KH", "AH", "QS", "KS", "AS"]
    env.reset(seed=0, options={"decks": [three] * 3})
    _, _, _, _, infos = step(env, [first_pass(env, a) for a in env.agents])
    assert infos == {a: {} for a in ("player_0", "player_1", "player_2")}
    _, _, _, _, infos = step(env, [first_pass(env, a) for a in env.agents])
    assert infos["player_1"]["round_result"] == {
        "pig": None,
        "first_nose": None,
        "passes": 2,
        "capped": True,
        "race_cut": False,
        "round": 0,
    }
    assert "result" not in infos["player_1"]
    step(env, ["nose", "nose", first_pass(env, "player_2")])
    _, _, _, _, infos = step(env, {"player_0": "nose", "player_1": first_pass(env, "player_1")})
    expected = {
        "pig": "player_1",
        "first_nose": "player_0",
        "passes": 0,
        "capped": False,
        "race_cut": False,
        "winner": "player_0",
        "eliminated": ["player_2", "player_1"],
        "rounds": 3,
    }
    assert infos["player_0"]["result"] == expected and infos["player_1"]["result"] == expected
    assert infos["player_0"]["round_result"]["round"] == 2
    assert pig_v0.parallel_env(game="full").reset(seed=0)[1] == {
        f"player_{i}": {} for i in range(4)
    }
