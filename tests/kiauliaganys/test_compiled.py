"""Differential test of the compiled Kiauliaganys twin (``kiaule_env/kiauliaganys/compiled.py``)
against the Python engine, the reference (RULES §2, G1–G14, G10a).

Seeded random deals over every option variant are played through the Python engine with
uniformly random legal actions; at every decision the compiled array must equal ``encode`` of
the Python state, and ``to_act``, ``legal``, the reward deltas of every ``apply`` and the deal's
end must agree. ``KIAULE_COMPILED_DEALS`` sets the number of deals (default
:data:`DEFAULT_DEALS`); ``python -m tests.kiauliaganys.test_compiled`` prints the
:func:`measure` figures.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")

import kiaule_env
from kiaule_env.core.simulate import CompiledSimulator, PythonSimulator
from kiaule_env.kiauliaganys import compiled as C
from kiaule_env.kiauliaganys import rules, sampling
from kiaule_env.kiauliaganys.rules import Config

GAME = kiaule_env.get_game("kiauliaganys")

#: the descriptor's variants plus every option value they leave out
VARIANTS: tuple[dict[str, Any], ...] = (
    {},
    *(dict(v) for v in GAME.variants),
    {"num_players": 4, "repetition": None},
    {"num_players": 3, "repetition": 2, "reward": "years"},
    {"num_players": 5, "deck": "54", "must_play_from_hand": True, "reward": "years"},
    {"num_players": 4, "deck": "36", "blind_drag_only_when_empty_hand": True},
    {"num_players": 2, "deck": "54", "max_turns": 25, "repetition": 2},
    {"num_players": 3, "match_years": 6, "deck": "54", "reward": "years"},
)

DEFAULT_DEALS = 10_000


#: deals per variant with the whole array (G10a records included) compared at every decision
DEFAULT_FULL_DEALS = 40


def _deals_per_variant() -> int:
    total = int(os.environ.get("KIAULE_COMPILED_DEALS", DEFAULT_DEALS))
    return -(-total // len(VARIANTS))


def _full_deals() -> int:
    return int(os.environ.get("KIAULE_COMPILED_FULL_DEALS", DEFAULT_FULL_DEALS))


class Stats:
    """What the differential runs covered (asserted, so the test cannot pass vacuously)."""

    def __init__(self) -> None:
        self.deals = 0
        self.steps = 0
        self.endings: Counter[str] = Counter()
        self.moves: Counter[str] = Counter()


def _move_kind(engine: Any, action: int) -> str:
    move = engine.codec.moves[action]
    if move.kind == rules.DRAG_CARD and move.suit >= 0:
        return "drag joker"
    return move.text.split()[0] if move.kind != rules.DRAG_BLIND else "drag blind"


def _compare_deal(
    engine: Any, state: rules.State, rng: np.random.Generator, stats: Stats, full: bool = True
) -> None:
    """Play the state's current deal to its end through both, comparing after every step.

    ``full``: the whole array against ``encode`` at every decision; otherwise everything but
    the G10a position records (``encode_head``: the record count and the current position's
    count included) at every decision, and the whole array at the deal's start and end.
    """
    n = engine.num_players
    out = np.empty(engine.num_actions + n, dtype=np.int64)
    s = C.encode(state)
    rewards = np.zeros(n)
    action = np.empty(1, dtype=np.int64)
    head = C.HISTORY
    while True:
        if full:
            assert np.array_equal(s, C.encode(state)), "compiled array != encode(Python state)"
        else:
            assert np.array_equal(s[:head], C.encode_head(state)), "deal arrays differ"
        seats = engine.to_act(state)
        k = C.to_act(s, out)
        assert tuple(out[:k]) == seats
        seat = seats[0]
        legal = list(engine.legal_actions(state, seat))
        k = C.legal(s, seat, out)
        assert out[:k].tolist() == legal, f"legal differ for seat {seat}"
        assert C.legal(s, (seat + 1) % n, out) == 0, "a seat not to act has legal actions"
        a = legal[int(rng.integers(len(legal)))]
        stats.moves[_move_kind(engine, a)] += 1
        deltas = engine.apply(state, [a])
        rewards[:] = 0.0
        action[0] = a
        over = C.apply(s, action, rewards)
        stats.steps += 1
        assert rewards.tolist() == list(deltas), f"rewards differ after action {a}"
        python_over = engine.is_over(state) or engine.step_info(state) is not None
        assert over == python_over, "the deal ended at a different step"
        if over:
            break
    assert C.to_act(s, out) == 0
    assert C.legal(s, 0, out) == 0
    info = engine.step_info(state)  # G11: a deal of a match reports its result here
    result = info["deal_result"] if info is not None else engine.result(state)
    if engine.is_over(state):  # the finished deal is still the state's
        assert np.array_equal(s, C.encode(state)), "final array != encode(final state)"
    ending = rules.ending(result)
    stats.endings[ending] += 1
    stats.deals += 1
    loser = -1 if result["loser"] is None else int(result["loser"].split("_")[1])
    assert s[C.LOSER] == loser
    assert (
        s[C.ENDING]
        == {
            "play": C.ENDED_PLAY,
            "cap": C.ENDED_CAP,
            "repetition": C.ENDED_REPETITION,
        }[ending]
    )


def _compare_episodes(
    options: Mapping[str, Any], deals: int, seed0: int, full: int | None = None
) -> Stats:
    """``deals`` deals (deals of a match count one each) with seeds from ``seed0``, the first
    ``full`` of them (default all) with the whole array compared at every decision."""
    engine = GAME.make_engine(**options)
    stats = Stats()
    seed = seed0
    full = deals if full is None else full
    while stats.deals < deals:
        state = engine.new_episode(np.random.default_rng(seed), {})
        rng = np.random.default_rng(10**6 + seed)
        seed += 1
        while not engine.is_over(state) and stats.deals < deals:
            # G11: the next deal of a match is re-encoded and compared on
            _compare_deal(engine, state, rng, stats, full=stats.deals < full)
    return stats


@pytest.mark.parametrize(
    "options", VARIANTS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default"
)
def test_g1_g14_compiled_matches_python_engine_on_random_deals(options: dict[str, Any]) -> None:
    """Every decision of seeded random deals: same array, acting seat, legal actions (G4–G6,
    G13), reward deltas (G12) and end of deal (G8, G10, G10a, G11)."""
    seed0 = 1000 * len(VARIANTS) * VARIANTS.index(options)
    stats = _compare_episodes(options, _deals_per_variant(), seed0, full=_full_deals())
    assert stats.deals >= _deals_per_variant()
    for kind in ("play", "search", "drag", "take"):
        assert stats.moves[kind] > 0, f"no {kind!r} move was played"
    config = Config(**options)
    if config.deck == "54" and config.max_turns >= 1000:  # G6 a dragged joker names a suit
        assert stats.moves["drag joker"] > 0
    if config.max_turns <= 40:
        assert stats.endings["cap"] > 0, "the G10 cap never ended a deal"


def test_g10a_repetition_and_g10_cap_endings_are_covered() -> None:
    """Random deals do end by G10a repetition (and a low cap by G10) in the differential run."""
    stats = _compare_episodes({"num_players": 2, "repetition": 2}, 150, seed0=7)
    assert stats.endings["repetition"] > 0
    stats = _compare_episodes({"num_players": 3, "max_turns": 30}, 60, seed0=9)
    assert stats.endings["cap"] > 0


def _states_with_empty_table(options: dict[str, Any], count: int) -> list[rules.State]:
    """Mid-deal states (MATCH phase, face-down table gone, positions recorded)."""
    engine = GAME.make_engine(**options)
    found: list[rules.State] = []
    seed = 0
    while len(found) < count:
        state = engine.new_episode(np.random.default_rng(seed), {})
        rng = np.random.default_rng(seed + 500)
        seed += 1
        while not engine.is_over(state):
            if not state.face_down and state.phase == rules.MATCH and len(state.positions) > 3:
                found.append(engine.clone(state))
                break
            legal = engine.legal_actions(state, state.to_act)
            engine.apply(state, [legal[int(rng.integers(len(legal)))]])
    return found


def test_g10a_encode_of_mid_deal_and_determinized_states() -> None:
    """A state with a G10a history, and a determinized one (``sampling.sample_state``: only the
    current position, with the view's count), play on identically through both."""
    options = {"num_players": 3}
    engine = GAME.make_engine(**options)
    stats = Stats()
    for i, state in enumerate(_states_with_empty_table(options, 40)):
        s = C.encode(state)
        assert s[C.RECORDS] == len(state.positions)
        assert s[C.REPEATS] == state.repeats
        _compare_deal(engine, engine.clone(state), np.random.default_rng(i), stats)
        sampled = sampling.sample_state(rules.view(state, 0), np.random.default_rng(i))
        sampled.decks, sampled.rng = [], np.random.default_rng(i)
        assert C.encode(sampled)[C.RECORDS] == 1
        _compare_deal(engine, sampled, np.random.default_rng(i), stats)
    assert stats.deals == 80


def _replay(engine: Any, state: rules.State, actions: np.ndarray) -> tuple[np.ndarray, int]:
    """Python replay of recorded actions to the deal's end: summed rewards and steps."""
    total = np.zeros(engine.num_players)
    steps = 0
    while True:
        legal = engine.legal_actions(state, engine.to_act(state)[0])
        assert int(actions[steps]) in legal, "a recorded action is illegal in the Python engine"
        total += engine.apply(state, [int(actions[steps])])
        steps += 1
        if engine.is_over(state) or engine.step_info(state) is not None:
            return total, steps


@pytest.mark.parametrize("options", [{}, {"num_players": 6, "deck": "54"}, {"match_years": 20}])
def test_random_playout_is_seeded_and_matches_a_python_replay(options: dict[str, Any]) -> None:
    engine = GAME.make_engine(**options)
    n = engine.num_players
    for seed in range(30):
        state = engine.new_episode(np.random.default_rng(seed), {})
        base = C.encode(state)
        first, again, recorded = np.zeros(n), np.zeros(n), np.zeros(n)
        steps = C.random_playout(base.copy(), first, seed)
        assert C.random_playout(base.copy(), again, seed) == steps
        assert first.tolist() == again.tolist()
        record = np.full(3 * engine.config.max_turns + 8, -1, dtype=np.int64)
        assert C.playout_recorded(base.copy(), recorded, seed, record) == steps
        assert recorded.tolist() == first.tolist()
        # G10: a turn is at most three steps (search, play or take, drag)
        assert engine.config.num_players <= steps <= 3 * engine.config.max_turns
        assert record[steps - 1] >= 0 and record[steps] == -1
        total, python_steps = _replay(engine, engine.clone(state), record)
        assert python_steps == steps
        assert total.tolist() == first.tolist()
        assert abs(first.sum()) < 1e-9  # G12 win_loss: −1 and (n−1) × 1/(n−1), or all zero
        sim = CompiledSimulator(engine, C)
        assert sim.playout(sim.load(state), seed).tolist() == first.tolist()
    outcomes = set()
    for seed in range(10):
        r = np.zeros(n)
        C.random_playout(C.encode(engine.new_episode(np.random.default_rng(0), {})), r, seed)
        outcomes.add(tuple(r))
    assert len(outcomes) > 1, "the playout ignores its seed"


def test_supports_and_encode_validation() -> None:
    for options in VARIANTS:
        assert C.supports(Config(**options))
    assert not C.supports(Config(max_turns=C.MAX_HISTORY_TURNS + 1))
    assert C.supports(Config(max_turns=C.MAX_HISTORY_TURNS + 1, repetition=None))
    assert not C.supports({"num_players": 4})
    with pytest.raises(TypeError, match=r"state must be a kiauliaganys rules\.State"):
        C.encode({"hands": []})
    with pytest.raises(ValueError, match="max_turns"):
        C.encode(rules.new_deal(Config(max_turns=C.MAX_HISTORY_TURNS + 1), np.random.default_rng()))


def test_simulator_picks_the_compiled_twin() -> None:
    from kiaule_env.core.simulate import simulator

    sim = simulator(GAME.make_engine())
    assert sim.compiled and sim.module is C


# ---------------------------------------------------------------------------------- measuring
class _CountingPython(PythonSimulator):
    steps = 0

    def apply(self, h: Any, actions: Any) -> np.ndarray:
        self.steps += 1
        return super().apply(h, actions)


def measure(options: Mapping[str, Any] | None = None, seconds: float = 3.0) -> dict[str, float]:
    """Random-playout steps/s of ``CompiledSimulator.playout`` and ``PythonSimulator.playout``
    on freshly encoded deals, each for about ``seconds`` of this process's CPU time (one core;
    on a shared machine wall time would count other processes), compile time excluded (one
    warm-up playout first). Steps are ``apply`` calls (the compiled count from
    ``random_playout`` with the same seeds, outside the timing). Each compiled playout runs on
    a copy of its handle (``Simulator.copy``), as search does."""
    clock = time.process_time
    engine = GAME.make_engine(**dict(options or {}))
    states = [engine.new_episode(np.random.default_rng(seed), {}) for seed in range(200)]
    compiled = CompiledSimulator(engine, C)
    handles = [compiled.load(state) for state in states]
    compiled.playout(compiled.copy(handles[0]), 0)  # warm-up (the cache or a compile)
    playouts = 0
    start = clock()
    while clock() - start < seconds:
        for i, h in enumerate(handles):
            compiled.playout(compiled.copy(h), playouts + i)
        playouts += len(handles)
    compiled_time = clock() - start
    compiled_steps = 0
    for j in range(0, playouts, len(handles)):
        for i, h in enumerate(handles):
            compiled_steps += C.random_playout(h.copy(), np.zeros(engine.num_players), j + i)
    python = _CountingPython(engine)
    start = clock()
    i = 0
    while clock() - start < seconds:
        python.playout(python.load(states[i % len(states)]), i)
        i += 1
    python_time = clock() - start
    return {
        "compiled_steps_per_s": compiled_steps / compiled_time,
        "python_steps_per_s": python.steps / python_time,
        "compiled_steps_per_playout": compiled_steps / playouts,
        "speedup": (compiled_steps / compiled_time) / (python.steps / python_time),
    }


if __name__ == "__main__":
    for opts in ({}, {"num_players": 6, "deck": "54"}, {"num_players": 2, "deck": "36"}):
        print(opts, measure(opts))
