"""The rule-based Kiauliaganys agent (``kiauliaganys/heuristic``): it beats random play, never
plays an illegal move, is deterministic for a seed, and follows the rules of its docstring."""

from __future__ import annotations

import agents
from agents.arena import play_aec
from agents.base import decision_from_env
from agents.kiauliaganys import KiauliaganysHeuristic, memory_key, repetition_loser
from experiments.stats import paired_mean_ci
from kiaule_env import kiauliaganys_v0
from kiaule_env.cards import parse_card
from kiaule_env.kiauliaganys import rules
from kiaule_env.kiauliaganys.counting import match_chances
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


# ------------------------------------------------------------------ rule 4: repetition (G10a)
def _at_second_occurrence(other_extra: str, **kwargs):
    """The hand-built cycle of the G10a rule tests, brought to its position P (player_0 to play
    onto 7H holding 9H KS 8C) for the second time; returns the env and player_0's decision."""
    from tests.kiauliaganys.test_rules import CYCLE, _cycle_env

    env = _cycle_env(mover=0, other_extra=other_extra, **kwargs)
    do(env, *CYCLE)
    return env, decision_from_env(env, "player_0")


def _remembering(decision, text: str) -> KiauliaganysHeuristic:
    """A heuristic that did ``text`` when this position occurred before."""
    agent = KiauliaganysHeuristic(0)
    action = {t: a for a, t in decision.legal_moves.items()}[text]
    agent.memory[memory_key(decision.view)] = [action]
    return agent


def test_seeks_a_repetition_the_tie_break_would_win():
    _env, decision = _at_second_occurrence("7C 7D")  # player_1 holds 4 cards to player_0's 3
    assert decision.view.repetitions == 2 and repetition_loser(decision.view) == 1
    assert decision.legal_moves[KiauliaganysHeuristic(0).act(decision)] == "play 9H"  # default
    agent = _remembering(decision, "take")  # last time here it took: it does so again
    assert decision.legal_moves[agent.act(decision)] == "take"
    _env, decision = _at_second_occurrence("7C 7D", repetition=None)
    agent = _remembering(decision, "take")  # G10a off: rule 4 is off
    assert decision.legal_moves[agent.act(decision)] == "play 9H"


def test_avoids_a_repetition_the_tie_break_would_lose():
    _env, decision = _at_second_occurrence("")  # player_0 holds 3 cards to player_1's 2
    assert repetition_loser(decision.view) == 0
    agent = _remembering(decision, "play 9H")  # what it did last time, and the default
    assert decision.legal_moves[agent.act(decision)] == "take"
    assert agent.memory[memory_key(decision.view)] == [
        a for a, t in decision.legal_moves.items() if t in ("play 9H", "take")
    ]
    # once every move has been tried here it falls back to its usual choice
    assert decision.legal_moves[agent.act(decision)] == "play 9H"


def test_repetition_loser_counts_the_match_card_back_in_the_drag_phase():
    env, _decision = _at_second_occurrence("")
    do(env, "play 9H")
    view = env.view("player_0")
    assert view.phase == rules.DRAG and view.hand_sizes == (2, 2)
    assert repetition_loser(view) == 0  # 3 cards at the turn's start


def _heuristic_game(fast: bool, seed: int, n: int = 2):
    from kiaule_env.core.play import play_episode

    lineup = [agents.make("kiauliaganys/heuristic", seed=1000 * seed + s) for s in range(n)]
    env = (kiauliaganys_v0.raw_env if fast else kiauliaganys_v0.env)(num_players=n)
    game = play_episode(env, lineup, seed, record=True, api=not fast)
    return game.moves, game.rewards, game.result


def test_tournament_hooks_play_repetition_endings_as_the_env_does():
    """G10a through the tournament's hook loop and through ``env()``: the same moves, rewards
    and results, in deals that end by repetition and by play."""
    endings = set()
    for seed in (10, 16, 0, 1):
        fast = _heuristic_game(True, seed)
        assert fast == _heuristic_game(False, seed)
        endings.add(rules.ending(fast[2]))
    assert endings == {"repetition", "play"}


def test_heuristics_end_most_two_player_deals_by_play():
    """Rule 4 at work: with G10a off, two heuristics repeat one endgame cycle until the turn cap
    in most of these deals (and without rule 4, G10a would end 80% of them); with it the side
    the tie-break would make the swineherd breaks most cycles."""
    from experiments.endings import kiauliaganys_endings

    before, after = kiauliaganys_endings([2], deals=10)
    assert before["cap_share"] >= 0.5  # repetition=None: the old behaviour, to the cap
    assert after["cap_share"] == 0 and after["repetition_share"] <= 0.3
    assert after["median_turns"] < 100
