"""The rule-based Kiauliaganys agent (``kiauliaganys/heuristic``): it beats random play, never
plays an illegal move, is deterministic for a seed, and follows the rules of its docstring."""

from __future__ import annotations

import agents
from agents.arena import play_aec
from agents.base import decision_from_env
from agents.kiauliaganys import KiauliaganysHeuristic, match_chances
from experiments.stats import paired_mean_ci
from kiaule_env import kiauliaganys_v0
from kiaule_env.cards import parse_card
from kiaule_env.kiauliaganys import rules
from tests.kiauliaganys.helpers import do, new_env, stacked

DECKS = 75  # × 4 seat rotations = 300 games


def test_heuristic_beats_random_with_seats_rotated():
    """4 players: the heuristic in one seat, random agents in the other three. Every deck is
    played four times with the heuristic in each seat (duplicate deals); the unit of the interval
    is the deck: the heuristic's reward minus the random seats' mean reward in the same games."""
    env = kiauliaganys_v0.env(num_players=4)
    differences: dict[int, list[float]] = {}
    rewards: dict[int, list[float]] = {}

    def check_legal(decision, action):
        assert action in decision.legal_moves, f"{decision.agent} chose illegal {action}"

    for deck in range(DECKS):
        for seat in range(4):
            lineup = [agents.make("kiauliaganys/random", seed=10 * deck + s) for s in range(4)]
            lineup[seat] = agents.make("kiauliaganys/heuristic", seed=deck)
            outcome = play_aec(env, lineup, seed=deck, on_decision=check_legal)
            mine = outcome.rewards[f"player_{seat}"]
            others = [r for a, r in outcome.rewards.items() if a != f"player_{seat}"]
            rewards.setdefault(deck, []).append(mine)
            differences.setdefault(deck, []).append(mine - sum(others) / 3)
    estimate = paired_mean_ci(differences)
    assert estimate.n == DECKS and estimate.lo > 0, estimate
    assert paired_mean_ci(rewards).lo > 0


def _moves(seed: int) -> list[list]:
    env = kiauliaganys_v0.env(num_players=3, deck="54")
    lineup = [agents.make("kiauliaganys/heuristic", seed=seed + s) for s in range(3)]
    return play_aec(env, lineup, seed=11, record_moves=True).moves


def test_heuristic_is_deterministic_for_a_seed_and_always_legal():
    first = _moves(1)
    assert first == _moves(1)
    env = kiauliaganys_v0.raw_env(num_players=2, deck="36", must_play_from_hand=True)
    lineup = [KiauliaganysHeuristic(seed=s) for s in range(2)]
    for seed in range(20):  # raw env: an illegal action would raise
        play_aec(env, lineup, seed=seed)


def test_registered():
    assert "kiauliaganys/heuristic" in agents.list_agents("kiauliaganys")


def test_plays_from_hand_rather_than_search():
    env = new_env(stacked("7H 2C 9H 3C 4C 5H 6H 8C 10C JC QC"))
    do(env, "search", "drag blind", *["search", "drag blind"] * 3)
    decision = decision_from_env(env, "player_0")
    assert set(decision.legal_moves.values()) == {"play 2C", "search"}
    assert decision.legal_moves[KiauliaganysHeuristic(0).act(decision)] == "play 2C"


def test_drags_the_suit_the_next_player_is_known_to_lack():
    env = new_env(stacked("7H 2C 3C 4C 9H 5D 6D 8H"), num_players=2)
    do(env, "search", "drag 2C", "search")  # P0 keeps 3C 4C, known not hearts; P1 5D 6D 8H
    view = env.view("player_1")
    assert view.not_suit[0] == (0, 0, 2, 0)
    chances = match_chances(view, 0)
    assert chances[2] == 0.0 and chances[1] > 0.0  # hearts: surely not; diamonds: maybe
    decision = decision_from_env(env, "player_1")
    assert decision.legal_moves[KiauliaganysHeuristic(0).act(decision)] == "drag 8H"


def _endgame_view(below: str) -> rules.View:
    """Two players in, no face-down cards: I hold 5H 6H 7C, facing 3H; the opponent holds 9H
    and 10C, both taken face up; ``below`` is the fund card under 3H."""
    config = rules.Config(num_players=2)
    card = parse_card
    return rules.View(
        seat=0,
        config=config,
        hand=(card("7C"), card("5H"), card("6H")),
        fund=(card("2S"), card(below), card("3H")),
        required_suit=2,
        face_down=0,
        hand_sizes=(3, 2),
        face_up=((), (card("10C"), card("9H"))),
        not_suit=((0, 0, 0, 0), (0, 0, 0, 0)),
        out=(False, False),
        had_turn=(True, True),
        to_act=0,
        phase=rules.MATCH,
        last_turn=False,
        turns=40,
        dealer=1,
        last_picked=0,
        match_years=(0, 0),
        deals=0,
    )


def test_two_player_endgame_take_tactics():
    """The opponent would match any drag and shed his last two cards; a take uncovers a suit he
    surely lacks (diamonds), so the agent takes, although it holds hearts. With a heart under the
    top the take would not help, and it plays."""
    legal = {parse_card("5H"): "play 5H", parse_card("6H"): "play 6H", 105: "take"}
    for below, expected in (("2D", "take"), ("4H", "play")):
        view = _endgame_view(below)
        decision = agents.Decision("player_0", None, None, view, legal)
        assert legal[KiauliaganysHeuristic(0).act(decision)].startswith(expected)
