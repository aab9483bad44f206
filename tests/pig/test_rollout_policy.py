"""Pig's compiled rollout policy (``policy_playout`` of ``kiaule_env/pig/compiled.py``).

Recorded policy playouts (``policy_playout_trace``) are replayed through the Python engine: every
action is legal there and the rewards, eliminations and letters match (P3, P5, P7, P9). The
policy is deterministic for a seed and differs across seeds, and it does what its docstring says:
it noses at once with four of a kind and in the race (P3, P8), never makes a false touch, never
passes the rank it holds most, passes a rank held least, and so its rounds end by a
nose where random play runs into the ``max_passes`` cap (P4).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")

from kiaule_env.core.simulate import CompiledSimulator, simulator
from kiaule_env.pig import compiled as C
from kiaule_env.pig import rules
from tests.pig.test_compiled import FOUR_ACES, VARIANTS, _replay_matches, _stacked, make_engine


def _rows(engine) -> int:
    return engine.config.max_passes + engine.config.max_race_steps + 1


def _trace(engine, state, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """A recorded policy playout of ``state``'s deal: (trace, final array, rewards, steps)."""
    end = C.encode(state)
    trace = np.full((_rows(engine), 13), -1, dtype=np.int64)
    total = np.zeros(engine.num_players)
    steps = C.policy_playout_trace(end, total, seed, trace)
    return trace, end, total, steps


def _check_legal_and_rules(engine, state, trace: np.ndarray, steps: int, stats: dict[str, int]):
    """Steps a clone of ``state`` through the trace, asserting every action is legal in the
    engine and the policy's hard rules (P3: nose with four and in the race until touched, no
    false touch; never pass the rank held most when it is unique); counts passes of a rank
    held least into ``stats``."""
    state = engine.clone(state)
    nose, wait = engine.codec.nose, engine.codec.wait
    for t in range(steps):
        seats = list(engine.to_act(state))
        actions = [int(a) for a in trace[t, : len(seats)]]
        for seat, action in zip(seats, actions, strict=True):
            assert action in engine.legal_actions(state, seat), f"step {t}, seat {seat}"
            hand = state.hands[seat]
            if state.phase == rules.RACE:
                assert action == (wait if seat in state.touched else nose), f"race, step {t}"
                continue
            four = rules.has_four(hand)
            assert (action == nose) == four, f"nose iff four of a kind, step {t}"  # P3
            if four:
                continue
            counts = {r: sum(c % 13 == r for c in hand) for r in {c % 13 for c in hand}}
            passed = counts[engine.codec.to_move(action)]
            most = max(counts.values())
            if list(counts.values()).count(most) == 1:
                assert passed < most, f"passed the rank held most, step {t}"
            stats["passes"] += 1
            stats["least"] += passed == min(counts.values())
        engine.apply(state, actions)


@pytest.mark.parametrize("options", VARIANTS, ids=[str(v) for v in VARIANTS])
def test_policy_playout_legal_replays_in_the_engine_P3_P9(options):
    engine = make_engine(options)
    stats = {"passes": 0, "least": 0}
    for seed in range(8):
        state = engine.new_episode(np.random.default_rng(seed), {})
        trace, end, total, steps = _trace(engine, state, seed)
        assert 1 <= steps <= _rows(engine) and C.to_act(end, np.empty(16, dtype=np.int64)) == 0
        if not engine.config.full:  # P9: a round's rewards sum to zero
            assert abs(total.sum()) < 1e-9
        _check_legal_and_rules(engine, state, trace, steps, stats)
        assert _replay_matches(engine, state, trace, steps, end, total)
    assert stats["passes"] > 0 and stats["least"] == stats["passes"]  # "pass a rank held least"


def test_policy_playout_deterministic_for_a_seed_and_seeds_differ():
    engine = make_engine({"num_players": 6})
    state = engine.new_episode(np.random.default_rng(3), {})
    s = C.encode(state)
    _, end, total, steps = _trace(engine, state, 11)
    again, end2 = np.zeros(6), s.copy()
    assert C.policy_playout(end2, again, 11) == steps  # the trace's draws are the playout's
    np.testing.assert_array_equal(again, total)
    np.testing.assert_array_equal(end2, end)
    traces = set()
    outcomes = set()
    for seed in range(30):
        tr, _, tot, n = _trace(engine, state, seed)
        traces.add(tr[:n].tobytes())
        outcomes.add(tuple(tot))
    assert len(traces) > 10 and len(outcomes) > 1  # random ties and passes: playouts differ
    np.testing.assert_array_equal(s, C.encode(state))  # the input array was copied above


def test_policy_noses_at_once_with_four_and_everybody_races_P3():
    # player_0 holds four aces: he touches in the first step, the three others in the second,
    # the pig is one of them (P3: the last of the step's random order)
    engine, state = _stacked({"num_players": 4}, FOUR_ACES)
    nose, wait = engine.codec.nose, engine.codec.wait
    pigs = set()
    for seed in range(40):
        trace, _, total, steps = _trace(engine, state, seed)
        assert steps == 2
        assert trace[0, 0] == nose and all(trace[0, 1:4] < nose)
        assert trace[1, :4].tolist() == [wait, nose, nose, nose]
        assert total[0] == pytest.approx(1 / 3)
        pigs.add(int(np.argmin(total)))
    assert pigs == {1, 2, 3}


def test_policy_never_touches_falsely_with_false_nose_P3():
    # with false_nose="pig" every hand may touch; the policy touches only with four of a kind
    engine = make_engine({"num_players": 5, "false_nose": "pig"})
    for seed in range(30):
        state = engine.new_episode(np.random.default_rng(seed), {})
        trace, _, _, steps = _trace(engine, state, seed)
        _check_legal_and_rules(engine, state, trace, steps, {"passes": 0, "least": 0})


def test_policy_passes_a_single_and_keeps_the_pair():
    # player_1 holds J C, Q C, K C, J D: he never passes the jacks, and the queen and the king
    # are passed about equally often (a uniform tie-break); player_0's
    # four aces stop the round in the first step, after the choice
    engine, state = _stacked({"num_players": 4}, FOUR_ACES)
    jack, queen, king = (engine.codec.parse(f"pass {r}") for r in "JQK")
    s = C.encode(state)
    firsts = []
    for seed in range(400):
        trace = np.full((_rows(engine), 13), -1, dtype=np.int64)
        C.policy_playout_trace(s.copy(), np.zeros(4), seed, trace)
        firsts.append(int(trace[0, 1]))
    assert jack not in firsts
    assert 150 < firsts.count(queen) < 250 and firsts.count(queen) + firsts.count(king) == 400


def _round_ends(options: dict[str, Any], playout, deals: int) -> float:
    """The share of ``deals`` random deals whose round ends by a nose (not the P4 cap)."""
    engine = make_engine(options)
    decided = 0
    for i in range(deals):
        rewards = np.zeros(engine.num_players)
        playout(C.encode(engine.new_episode(np.random.default_rng(i), {})), rewards, i)
        decided += bool(rewards.any())
    return decided / deals


def test_policy_rounds_end_by_a_nose_where_random_ones_hit_the_cap_P4():
    options = {"num_players": 13, "max_passes": 60}
    policy = _round_ends(options, C.policy_playout, 300)
    random = _round_ends(options, C.random_playout, 300)
    assert policy > 0.98 and random < 0.5


def test_simulator_with_policy_rollout_uses_policy_playout():
    engine = make_engine({"num_players": 4})
    sim = simulator(engine, rollout="policy")
    assert isinstance(sim, CompiledSimulator) and sim._playout is C.policy_playout
    state = engine.new_episode(np.random.default_rng(5), {})
    h = sim.load(state)
    expected = np.zeros(4)
    steps = C.policy_playout(h.copy(), expected, 9)
    np.testing.assert_array_equal(sim.playout(sim.copy(h), 9), expected)
    assert sim.steps == steps


def measure(options: dict[str, Any], seconds: float = 2.0) -> dict[str, float]:
    """Steps/s and playouts/s of ``policy_playout`` and ``random_playout`` on 256 fresh deals of
    ``options`` (process CPU time, one core, compile time excluded)."""
    engine = make_engine(options)
    arrays = [C.encode(engine.new_episode(np.random.default_rng(i), {})) for i in range(256)]
    figures: dict[str, float] = {}
    for name, playout in (("policy", C.policy_playout), ("random", C.random_playout)):
        playout(arrays[0].copy(), np.zeros(engine.num_players), 0)  # compile / load the cache
        steps = played = 0
        start = time.process_time()
        while time.process_time() - start < seconds:
            for i in range(256):
                steps += playout(arrays[i].copy(), np.zeros(engine.num_players), played + i)
            played += 256
        elapsed = time.process_time() - start
        figures[f"{name} steps/s"] = steps / elapsed
        figures[f"{name} playouts/s"] = played / elapsed
        figures[f"{name} steps/playout"] = steps / played
    return figures


if __name__ == "__main__":  # the figures of the report: python tests/pig/test_rollout_policy.py
    for opts in ({"num_players": 4}, {"num_players": 8, "game": "full"}, {"num_players": 13}):
        print(opts, {k: round(v, 1) for k, v in measure(opts).items()})
