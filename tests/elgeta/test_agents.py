"""``elgeta/heuristic`` plays full games through the public API, legally and deterministically.

Elgeta has no decisions (E3), so no beats-random test: every agent gets the same results on the
same deal (checked below with the random agent).
"""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.arena import play_aec
from agents.base import Decision
from kiaule_env import elgeta_v0


def test_registered_with_the_random_agent():
    assert {"elgeta/heuristic", "elgeta/random"} <= set(agents.list_agents("elgeta"))
    assert agents.make("elgeta/heuristic", seed=3).name == "elgeta/heuristic"


@pytest.mark.parametrize(("num_players", "deck"), [(2, "32"), (3, "36"), (4, "52")])
def test_heuristic_plays_full_games_with_legal_moves_only(num_players, deck):
    env = elgeta_v0.env(num_players=num_players, deck=deck)
    seen: list[tuple[Decision, int]] = []

    def check(decision: Decision, action: int) -> None:
        assert decision.action_mask[action] == 1 and decision.legal_moves == {0: "play"}
        seen.append((decision, action))

    for seed in range(3):
        seats = [agents.make("elgeta/heuristic", seed=s) for s in range(num_players)]
        outcome = play_aec(env, seats, seed=seed, on_decision=check)
        assert outcome.result is not None and outcome.result["winner"] is not None
        assert sum(outcome.rewards.values()) == pytest.approx(0.0)
        assert outcome.rewards[outcome.result["winner"]] == 1.0
    assert len(seen) > 100


def test_heuristic_is_deterministic_and_agrees_with_random_on_the_same_deal():
    env = elgeta_v0.env(num_players=4, deck="36")
    heuristic = [agents.make("elgeta/heuristic", seed=s) for s in range(4)]
    first = play_aec(env, heuristic, seed=9, record_moves=True)
    again = play_aec(env, heuristic, seed=9, record_moves=True)
    mixed = [agents.make("elgeta/random", seed=1), *heuristic[1:]]
    other = play_aec(env, mixed, seed=9, record_moves=True)
    assert first.moves == again.moves == other.moves
    assert first.result == again.result == other.result


def test_heuristic_refuses_when_play_is_not_legal():
    agent = agents.make("elgeta/heuristic")
    decision = Decision("player_1", np.zeros(3, np.float32), np.zeros(1, np.int8), None, {})
    with pytest.raises(ValueError, match="'play' is not legal"):
        agent.act(decision)
