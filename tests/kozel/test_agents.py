"""``kozel/heuristic``: stronger than random, always legal, deterministic, same on both paths."""

from __future__ import annotations

import math

import numpy as np

import agents
from agents.arena import play_aec
from agents.base import Decision
from agents.kozel import KozelHeuristic
from kiaule_env import kozel_v0
from kiaule_env.core.play import play_episode
from kiaule_env.kozel import rules

DEALS = 300


def test_registered():
    assert "kozel/heuristic" in agents.list_agents("kozel")
    assert isinstance(agents.make("kozel/heuristic", seed=3), KozelHeuristic)


def test_heuristic_team_beats_a_random_team_with_95_percent_confidence():
    """Each deal is played twice, the heuristic team on seats 0+2 and then on 1+3 (paired)."""
    env = kozel_v0.env()
    diffs = []
    for seed in range(DEALS):
        total = 0.0
        for team in (0, 1):
            seats = [
                agents.make("kozel/heuristic", seed=seed)
                if s % 2 == team
                else agents.make("kozel/random", seed=10_000 + 2 * seed + team)
                for s in range(4)
            ]
            outcome = play_aec(env, seats, seed=seed)
            total += outcome.rewards[f"player_{team}"] - outcome.rewards[f"player_{1 - team}"]
        diffs.append(total / 2)
    mean = float(np.mean(diffs))
    half_width = 1.96 * float(np.std(diffs, ddof=1)) / math.sqrt(len(diffs))
    assert mean - half_width > 0, (mean, half_width)


CONFIGS = [
    {},
    {"molodka": "trumps", "trump_card": "bottom"},
    {"molodka": None, "beat_partner": False},
    {"series": True, "eggs": "double"},
]


def test_never_illegal_and_deterministic_for_a_seed():
    for config in CONFIGS:
        env = kozel_v0.raw_env(**config)
        runs = []
        for _ in range(2):
            moves = []

            def check(decision: Decision, action: int, moves=moves):
                assert action in decision.legal_moves, (decision.legal_moves, action)
                moves.append(action)

            for seed in range(25):
                seats = [agents.make("kozel/heuristic", seed=seed) for _ in range(4)]
                play_aec(env, seats, seed=seed, on_decision=check)
            runs.append(moves)
        assert runs[0] == runs[1] and len(runs[0]) > 25 * 20


def test_claims_a_trump_molodka_and_never_beats_the_partner():
    agent = KozelHeuristic()
    env = kozel_v0.raw_env()
    claims = declines = partner_beats = 0
    for seed in range(200):
        env.reset(seed=seed)
        while env.game_state.phase != rules.PHASE_OVER:
            state = env.game_state
            seat = state.to_act
            view = rules.view(state, seat)
            move = agent.choose(view, rules.legal_moves(state))
            if state.phase == rules.PHASE_CLAIM:
                trumps = all(rules.SUIT[c] == state.trump for c in state.hands[seat])
                claims += move == rules.CLAIM
                declines += move == rules.DECLINE
                if trumps:
                    assert move == rules.CLAIM
            elif rules.kind_of(move) == rules.BEAT and state.winner == (seat + 2) % 4:
                partner_beats += 1
            env.step(move)
    assert partner_beats == 0 and claims > 0 and declines > 0


def test_engine_fast_path_plays_the_same_games_as_the_env():
    """The play loop on the engine (lazy decisions) and stepping the env through its public API
    give the heuristic the same decisions: the same moves, rewards and outcome."""
    agent = KozelHeuristic()
    env = kozel_v0.env()
    for seed in range(20):
        fast = play_episode(env, [agent] * 4, seed=seed, record=True)
        public = play_episode(env, [agent] * 4, seed=seed, record=True, api=True)
        assert fast.moves == public.moves and len(fast.moves) > 20
        assert fast.result == public.result and fast.result is not None
        assert fast.rewards == public.rewards


def test_works_without_an_observation_vector():
    env = kozel_v0.raw_env()
    env.reset(seed=1)
    decision = Decision(
        agent="player_0",
        observation=None,
        action_mask=None,
        view=env.view("player_0"),
        legal_moves=env.legal_moves("player_0"),
    )
    assert KozelHeuristic().act(decision) in decision.legal_moves
