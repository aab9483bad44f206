"""Kozel's compiled rollout policy (``kiaule_env/kozel/compiled_policy.py``), RULES §1.

Recorded policy playouts are replayed through the Python engine (every action legal there, the
same rewards, the deal's end at the same step, K5–K15); playouts are seeded; at every decision of
games played by the heuristic and by random players the policy's action is the Python
``kozel/heuristic``'s up to its ties (the same move kind and the same value of the rule's key);
and it beats random play clearly and plays as well as the Python heuristic in seat-swapped
duplicate games. ``python -m tests.kozel.test_rollout_policy`` prints the strength figures.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")

import kiaule_env
from agents.kozel import KozelHeuristic, _beat_cost, _discard_gain, _discard_loss
from kiaule_env.kozel import compiled as C
from kiaule_env.kozel import compiled_policy as P
from kiaule_env.kozel import rules
from kiaule_env.kozel.rules import (
    BEAT,
    DISCARD,
    LEAD,
    PHASE_CLAIM,
    PHASE_LEAD,
    POINTS,
    STRENGTH,
    SUIT,
)
from tests.kozel.test_compiled import episode_options, option_id

GAME = kiaule_env.get_game("kozel")

#: a player: (engine, state, seat, seed) -> move
Player = Callable[[Any, Any, int, int], int]


def compiled_player(engine: Any, state: Any, seat: int, seed: int) -> int:
    return int(P.policy_action(C.encode(state), seat, seed))


def heuristic_player(engine: Any, state: Any, seat: int, seed: int) -> int:
    return KozelHeuristic().choose(engine.view(state, seat), engine.legal_actions(state, seat))


def random_player(engine: Any, state: Any, seat: int, seed: int) -> int:
    legal = engine.legal_actions(state, seat)
    return int(legal[np.random.default_rng(seed).integers(len(legal))])


def _reset_options(options: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """A molodka-rich stacked deck a third of the time (K8 windows), as the differential test."""
    return episode_options({"series": options.get("series", False)}, rng)


# ------------------------------------------------------------------------------------ playouts
@pytest.mark.parametrize("options", GAME.variants, ids=option_id)
def test_policy_playout_replays_on_the_engine_K5_K15(options: dict[str, Any]) -> None:
    engine = GAME.make_engine(**options)
    rng = np.random.default_rng(11)
    for i in range(40):
        state = engine.new_episode(np.random.default_rng([5, i]), _reset_options(options, rng))
        s = C.encode(state)
        actions = np.full(64, -1, dtype=np.int64)
        rewards = np.zeros(4)
        steps = P.policy_playout_trace(s.copy(), rewards, i, actions)
        again = np.zeros(4)
        assert P.policy_playout(s.copy(), again, i) == steps  # the trace's draws are the playout's
        np.testing.assert_array_equal(again, rewards)
        assert 12 <= steps <= 63 and (actions[steps:] == -1).all()
        total = np.zeros(4)
        for t, action in enumerate(actions[:steps]):
            assert not (engine.is_over(state) or engine.step_info(state) is not None)
            assert action in engine.legal_actions(state, engine.to_act(state)[0]), t
            total += engine.apply(state, [int(action)])
        assert engine.is_over(state) or engine.step_info(state) is not None
        np.testing.assert_array_equal(total, rewards)


def test_policy_playout_seeded_and_ties_differ() -> None:
    engine = GAME.make_engine()
    traces = set()
    for seed in range(40):
        state = engine.new_episode(np.random.default_rng(3), {})
        s = C.encode(state)
        first = np.full(64, -1, dtype=np.int64)
        P.policy_playout_trace(s.copy(), np.zeros(4), seed, first)
        second = np.full(64, -1, dtype=np.int64)
        P.policy_playout_trace(s.copy(), np.zeros(4), seed, second)
        np.testing.assert_array_equal(first, second)
        traces.add(first.tobytes())
    assert len(traces) > 1  # ties at random: some seed plays another game
    np.testing.assert_array_equal(s, C.encode(state))  # the playouts ran on copies


# ------------------------------------------------------------------------------------ the heuristic
def _key(view: Any, move: int) -> tuple:
    """The value the heuristic's rule minimises (or maximises) for ``move`` (agents/kozel.py)."""
    hand, trump = view.hand, view.trump
    kind = move // 15
    if move >= rules.CLAIM or view.phase == PHASE_CLAIM:
        return (move,)
    if kind == LEAD:
        positions = rules.MASK_POSITIONS[move % 15 + 1]
        lengths = [sum(SUIT[c] == suit for c in hand) for suit in range(4)]
        cards = [hand[i] for i in positions]
        keys = [(SUIT[c] == trump, -lengths[SUIT[c]], STRENGTH[c], POINTS[c]) for c in cards]
        return (LEAD, len(cards), *keys)
    if kind == BEAT:
        return (BEAT, *_beat_cost(hand, move, trump))
    if view.winner == (view.seat + 2) & 3:
        return (DISCARD, *_discard_gain(hand, move, trump))
    return (DISCARD, *_discard_loss(hand, move, trump))


def test_policy_is_the_python_heuristic_up_to_ties_K5_K8() -> None:
    compared = differ = claims = 0
    rng = np.random.default_rng(2)
    for options in GAME.variants:
        engine = GAME.make_engine(**options)
        for i in range(12):
            state = engine.new_episode(np.random.default_rng([9, i]), _reset_options(options, rng))
            player = heuristic_player if i % 2 else random_player
            while not (engine.is_over(state) or engine.step_info(state) is not None):
                seat = engine.to_act(state)[0]
                view = engine.view(state, seat)
                expected = heuristic_player(engine, state, seat, 0)
                for seed in range(3):
                    got = compiled_player(engine, state, seat, seed)
                    assert _key(view, got) == _key(view, expected), (options, i, got, expected)
                    differ += got != expected
                compared += 1
                claims += view.phase == PHASE_CLAIM
                engine.apply(state, [player(engine, state, seat, compared)])
    assert compared > 2000 and claims > 20
    assert differ > 0  # ties are broken at random, not always like the Python agent


def test_lead_keeps_trumps_and_plays_the_longest_suits_lowest_card_K5() -> None:
    engine = GAME.make_engine()
    for i in range(60):
        state = engine.new_episode(np.random.default_rng([1, i]), {})
        seat = engine.to_act(state)[0]
        assert state.phase == PHASE_LEAD
        move = compiled_player(engine, state, seat, i)
        hand = state.hands[seat]
        (card,) = [hand[j] for j in rules.MASK_POSITIONS[move % 15 + 1]]
        if any(SUIT[c] != state.trump for c in hand):
            assert SUIT[card] != state.trump
            longest = max(sum(SUIT[c] == s for c in hand) for s in range(4) if s != state.trump)
            assert sum(SUIT[c] == SUIT[card] for c in hand) == longest


# ------------------------------------------------------------------------------------ search
def test_search_uses_the_policy_only_when_asked_and_defaults_stay_random() -> None:
    from agents.search import PIMCAgent
    from kiaule_env.core.play import LazyDecision
    from kiaule_env.core.simulate import CompiledSimulator, has_policy, simulator

    engine = GAME.make_engine()
    assert not has_policy(engine)  # the search agents' default rollout stays random
    assert simulator(engine)._playout is C.random_playout
    sim = simulator(engine, rollout="policy")
    assert isinstance(sim, CompiledSimulator) and sim._playout is P.policy_playout
    state = engine.new_episode(np.random.default_rng(4), {})
    h = sim.load(state)
    expected = np.zeros(4)
    P.policy_playout(h.copy(), expected, 9)
    np.testing.assert_array_equal(sim.playout(sim.copy(h), 9), expected)
    assert sim.rollout_action(h, 0, 5) == P.policy_action(h, 0, 5)
    seat = engine.to_act(state)[0]
    legal = engine.legal_actions(state, seat)
    for rollout, playout in ((None, C.random_playout), ("policy", P.policy_playout)):
        agent = PIMCAgent("kozel", seed=1, worlds=3, rollout=rollout)
        assert agent.act(LazyDecision(engine, state, seat, legal)) in legal
        assert agent._sim._playout is playout


# ------------------------------------------------------------------------------------ strength
def duplicate(a: Player, b: Player, deals: int, seed: int = 0) -> tuple[float, float]:
    """Mean reward per game of ``a`` (team of seats 0 and 2, then 1 and 3) against ``b`` on
    ``deals`` random deals each played twice with the teams swapped (K12, K15 loss points), and
    the standard error of the per-deal mean."""
    engine = GAME.make_engine()
    rng = np.random.default_rng(seed)
    per_deal = []
    for d in range(deals):
        deal = engine.random_deal(rng)
        total = 0.0
        for a_team in (0, 1):
            state = engine.new_episode(np.random.default_rng([seed, d]), deal)
            rewards = np.zeros(4)
            step = 0
            while not engine.is_over(state):
                seat = engine.to_act(state)[0]
                player = a if seat % 2 == a_team else b
                rewards += engine.apply(state, [player(engine, state, seat, 1000 * d + step)])
                step += 1
            total += rewards[a_team]
        per_deal.append(total / 2)
    values = np.array(per_deal)
    return float(values.mean()), float(values.std(ddof=1) / np.sqrt(deals))


def test_beats_random_clearly_and_matches_the_python_heuristic_K12() -> None:
    mean, _ = duplicate(compiled_player, random_player, 200, seed=1)
    assert mean > 2.0  # loss points a game (K12), out of at most 6
    mean, err = duplicate(compiled_player, heuristic_player, 200, seed=2)
    assert abs(mean) < max(4 * err, 0.3)  # the same rules: differences only from ties


def measure(deals: int = 300) -> dict[str, Any]:
    """The strength figures of the report: duplicate means (± standard error) against random
    and the Python heuristic, and the policy's playouts per second (process CPU time)."""
    figures: dict[str, Any] = {}
    for name, other in (("random", random_player), ("heuristic", heuristic_player)):
        mean, err = duplicate(compiled_player, other, deals, seed=7)
        figures[f"vs {name}"] = f"{mean:+.3f} ± {err:.3f} ({deals} deals x 2)"
    engine = GAME.make_engine()
    arrays = [C.encode(engine.new_episode(np.random.default_rng(i), {})) for i in range(256)]
    for name, playout in (("policy", P.policy_playout), ("random", C.random_playout)):
        playout(arrays[0].copy(), np.zeros(4), 0)
        played = 0
        start = time.process_time()
        while time.process_time() - start < 2.0:
            for i in range(256):
                playout(arrays[i].copy(), np.zeros(4), played + i)
            played += 256
        figures[f"{name} playouts/s"] = round(played / (time.process_time() - start))
    return figures


if __name__ == "__main__":  # python -m tests.kozel.test_rollout_policy
    print(measure())
