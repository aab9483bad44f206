"""Differential test of Pig's compiled playout twin (``kiaule_env/pig/compiled.py``).

Seeded random deals of every option variant are played through the Python engine (the
reference) and the twin side by side: at every decision the twin's array equals
``encode(engine state)``, the acting seats and every seat's legal actions are equal, after every
step the reward deltas are equal and the deal ends at the same step. A pig left to chance (P3,
D1, D3) is given to the twin as the engine drew it (``apply_with_pig``, which refuses a seat that
is not a candidate); the twin's own draws are tested for uniformity separately.

:func:`measure` gives the steps/s of the compiled and the Python random playouts (run this file
as a script for the figures).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")

import kiaule_env
from kiaule_env.core.simulate import CompiledSimulator, PythonSimulator
from kiaule_env.pig import compiled as C
from kiaule_env.pig import rules
from kiaule_env.pig_v0 import GAME

#: the descriptor's variants, then combinations it lacks: stock with letters, tokens and a
#: false nose, the shortest race cap, a two-player end of a full stock game (D9) and 13 players
#: in a full game
EXTRA_VARIANTS: tuple[dict[str, Any], ...] = (
    {"num_players": 5, "game": "full", "letters": True, "stock": True, "false_nose": "pig"},
    {"num_players": 5, "stock": True, "tokens": True, "max_race_steps": 1},
    {"num_players": 4, "game": "full", "stock": True, "letters": True, "max_passes": 40},
    {"num_players": 13, "game": "full", "max_passes": 60, "max_race_steps": 2},
    {"num_players": 6, "false_nose": "pig", "max_passes": 3},
)
VARIANTS: tuple[dict[str, Any], ...] = (*GAME.variants, *EXTRA_VARIANTS)

#: deals compared per variant (a full game's rounds are deals; at most ``ROUNDS_PER_GAME`` of a
#: game, so that games whose rounds are all capped, D12, do not use the whole budget)
DEALS = (1400, 1400, 500, 150, 600, 700, 80, 80, 1800, 1800, 600, 500, 150, 300, 250, 1800)
ROUNDS_PER_GAME = 40


def make_engine(options: dict[str, Any]):
    return kiaule_env.get_game("pig").make_engine(**{**GAME.default_options, **options})


def _pig_of(info: dict[str, Any] | None) -> int:
    """The seat of the engine's pig in a finished round's ``round_result``, else -1."""
    if info is None or info["round_result"]["pig"] is None:
        return -1
    return int(info["round_result"]["pig"].removeprefix("player_"))


def random_choice(engine, state, seat: int, legal: list[int], rng: np.random.Generator) -> int:
    """A uniformly random legal action (the differential test's policy)."""
    return legal[int(rng.integers(len(legal)))]


def collector_choice(engine, state, seat: int, legal: list[int], rng: np.random.Generator) -> int:
    """Pass a rank held least often, touch with four of a kind, touch in the race half the
    time: rounds get decided, so full games reach their last rounds (D9, P7, D10)."""
    nose = engine.codec.nose
    if nose in legal:
        if state.phase == rules.RACE:
            if rng.random() < 0.5:
                return nose
        elif rules.has_four(state.hands[seat]) or rng.random() < 0.01:  # rare false touches
            return nose
    passes = [a for a in legal if a < nose]
    if not passes:
        return legal[-1]  # wait
    held = [sum(c % 13 == engine.codec.to_move(a) for c in state.hands[seat]) for a in passes]
    fewest = [a for a, k in zip(passes, held, strict=True) if k == min(held)]
    return fewest[int(rng.integers(len(fewest)))]


def compare_deal(
    engine, state, rng: np.random.Generator, out: np.ndarray, choose=random_choice
) -> int:
    """Plays ``state``'s current deal with random legal actions through the engine and the twin,
    asserting equality at every step; returns the number of steps. (Plain comparisons of lists:
    ``np.testing`` would take most of the test's time.)"""
    s = C.encode(state)
    n = engine.num_players
    steps = 0
    while True:
        assert np.array_equal(s, C.encode(state)), f"array at step {steps}"
        seats = list(engine.to_act(state))
        assert out[: C.to_act(s, out)].tolist() == seats, f"to_act at step {steps}"
        actions = []
        for seat in range(n):
            legal = list(engine.legal_actions(state, seat))
            assert out[: C.legal(s, seat, out)].tolist() == legal, f"legal of {seat}, {steps}"
            if legal:
                actions.append(choose(engine, state, seat, legal, rng))
        expected = [float(r) for r in engine.apply(state, actions)]
        info = engine.step_info(state)
        rewards = np.zeros(n)
        ended = C.apply_with_pig(s, np.array(actions, dtype=np.int64), rewards, _pig_of(info))
        steps += 1
        assert rewards.tolist() == expected, f"rewards at step {steps}"
        assert ended == (engine.is_over(state) or info is not None), f"end at step {steps}"
        if ended:
            assert C.to_act(s, out) == 0 and C.legal(s, 0, out) == 0
            # P5, P7: the round's eliminations and letters as the engine has them
            assert [seat for seat in range(n) if s[C.IN + seat]] == state.seats_in
            assert s[C.LETTERS : C.LETTERS + n].tolist() == state.letters
            return steps


def compare_variant(options: dict[str, Any], deals: int, choose=random_choice) -> tuple[int, int]:
    """``deals`` deals of seeded random games of ``options``; (deals, steps) compared."""
    engine = make_engine(options)
    out = np.empty(16, dtype=np.int64)
    done = steps = 0
    seed = 0
    while done < deals:
        state = engine.new_episode(np.random.default_rng(seed), {})
        rng = np.random.default_rng([seed, 1])
        for _ in range(ROUNDS_PER_GAME):
            steps += compare_deal(engine, state, rng, out, choose)
            done += 1
            if engine.is_over(state) or done == deals:
                break
        seed += 1
    return done, steps


def test_deal_counts_cover_every_variant_and_reach_10000():
    assert len(DEALS) == len(VARIANTS)
    assert sum(DEALS) >= 10_000
    keys = set().union(*VARIANTS)
    assert keys == set(GAME.default_options)  # every option varies somewhere


@pytest.mark.parametrize(
    ("options", "deals"), list(zip(VARIANTS, DEALS, strict=True)), ids=[str(v) for v in VARIANTS]
)
def test_differential_random_deals(options, deals):
    """P1–P9: the twin plays every step as the engine does, over every option variant."""
    done, steps = compare_variant(options, deals)
    assert done == deals and steps >= deals


#: full games played to their end with :func:`collector_choice` (their random rounds are mostly
#: capped with a stock): eliminations, letters, two-player stock rounds (D9), the winner (D10)
COLLECTOR_VARIANTS: tuple[dict[str, Any], ...] = (
    {"num_players": 4, "game": "full", "stock": True},
    {"num_players": 4, "game": "full", "stock": True, "letters": True, "tokens": True},
    {"num_players": 6, "game": "full", "letters": True, "false_nose": "pig"},
    {"num_players": 13, "game": "full", "max_race_steps": 1},
)


@pytest.mark.parametrize("options", COLLECTOR_VARIANTS, ids=[str(v) for v in COLLECTOR_VARIANTS])
def test_differential_collector_full_games_to_the_winner_P5_P7_D9_D10(options):
    engine = make_engine(options)
    out = np.empty(16, dtype=np.int64)
    two_player_rounds = winners = 0
    for seed in range(20):
        state = engine.new_episode(np.random.default_rng(seed), {})
        rng = np.random.default_rng([seed, 2])
        while not engine.is_over(state):
            two_player_rounds += len(state.seats_in) == 2
            compare_deal(engine, state, rng, out, collector_choice)
        winners += state.winner is not None
    assert winners == 20 and two_player_rounds > 0


def test_encode_of_a_finished_episode_has_nobody_to_act():
    engine = make_engine({"num_players": 3})
    sim = PythonSimulator(engine)
    h = sim.load(engine.new_episode(np.random.default_rng(3), {}))
    out = np.empty(16, dtype=np.int64)
    assert C.to_act(C.encode(h.state), out) == 3
    sim.playout(h, 0)
    assert engine.is_over(h.state)
    assert C.to_act(C.encode(h.state), out) == 0 and C.legal(C.encode(h.state), 0, out) == 0


# ---------------------------------------------------------------------- chance (P3, D1, D3)
def _deck_of_hands(hands: list[list[str]]) -> list[str]:
    """The stacked deck dealing ``hands[i]`` to player_i (dealer the last seat, §0, P1)."""
    return [hands[i % len(hands)][i // len(hands)] for i in range(4 * len(hands))]


def _stacked(options: dict[str, Any], hands: list[list[str]]):
    engine = make_engine(options)
    state = engine.new_episode(np.random.default_rng(0), {"deck": _deck_of_hands(hands)})
    return engine, state


FOUR_ACES = [["AC", "AD", "AH", "AS"], ["JC", "QC", "KC", "JD"]]
FOUR_ACES += [["QD", "KD", "JH", "QH"], ["KH", "JS", "QS", "KS"]]
ALL_FOURS = [[f"{r}{s}" for s in "CDHS"] for r in "JQKA"]


def _pig_counts(s: np.ndarray, actions: list[int], trials: int) -> np.ndarray:
    """How often each seat is the pig (reward −1) of one ``apply`` from ``s``."""
    n = int(s[C.N])
    counts = np.zeros(n, dtype=np.int64)
    acts = np.asarray(actions, dtype=np.int64)
    C.seed(12345)
    for _ in range(trials):
        rewards = np.zeros(n)
        assert C.apply(s.copy(), acts, rewards)
        counts[int(np.argmin(rewards))] += 1
    return counts


def _uniform(counts: np.ndarray) -> bool:
    """Uniform at the 0.1 % level (chi-square, at most 3 degrees of freedom)."""
    expected = counts.sum() / len(counts)
    return float(((counts - expected) ** 2 / expected).sum()) < 16.3


def test_same_step_false_touches_pig_uniform_over_false_touchers_D1():
    # player_0 holds four aces, all four touch in one step: the pig is the first false toucher
    # of a uniform order, i.e. uniform over players 1-3, never player_0
    engine, state = _stacked({"num_players": 4, "false_nose": "pig"}, FOUR_ACES)
    assert rules.has_four(state.hands[0]) and not rules.has_four(state.hands[1])
    counts = _pig_counts(C.encode(state), [engine.codec.nose] * 4, 3000)
    assert counts[0] == 0 and _uniform(counts[1:])


def test_everybody_touching_at_once_pig_uniform_P3():
    engine, state = _stacked({"num_players": 4}, ALL_FOURS)
    assert all(rules.has_four(h) for h in state.hands)
    counts = _pig_counts(C.encode(state), [engine.codec.nose] * 4, 4000)
    assert _uniform(counts)


def test_race_cut_short_pig_uniform_over_untouched_D2_D3():
    # player_0 touches; with max_race_steps=1 the next step (all wait) cuts the race and the pig
    # is drawn among players 1-3
    engine, state = _stacked({"num_players": 4, "max_race_steps": 1}, FOUR_ACES)
    nose, wait = engine.codec.nose, engine.codec.wait
    s = C.encode(state)
    assert not C.apply(s, np.array([nose, 0, 1, 2], dtype=np.int64), np.zeros(4))
    engine.apply(state, [nose, 0, 1, 2])
    np.testing.assert_array_equal(s, C.encode(state))
    counts = _pig_counts(s, [wait] * 4, 3000)
    assert counts[0] == 0 and _uniform(counts[1:])


def test_given_pig_must_be_a_candidate():
    engine, state = _stacked({"num_players": 4, "false_nose": "pig"}, FOUR_ACES)
    s = C.encode(state)
    acts = np.full(4, engine.codec.nose, dtype=np.int64)
    with pytest.raises(ValueError, match="not a candidate"):
        C.apply_with_pig(s.copy(), acts, np.zeros(4), 0)  # player_0's touch was true (D1)
    rewards = np.zeros(4)
    assert C.apply_with_pig(s.copy(), acts, rewards, 2)
    assert rewards[2] == -1.0 and rewards[0] == 1.0 / 3


# ---------------------------------------------------------------------- random playouts
def _replay_matches(engine, state, trace: np.ndarray, steps: int, end: np.ndarray, total):
    """Replays the trace's actions through the engine; the last step (whose pig may be drawn)
    is retried with other generators until it gives the twin's rewards and eliminations."""
    n = engine.num_players
    for t in range(steps - 1):
        rewards = engine.apply(state, [int(a) for a in trace[t, : len(engine.to_act(state))]])
        assert not any(rewards) and engine.step_info(state) is None and not engine.is_over(state)
    last = [int(a) for a in trace[steps - 1, : len(engine.to_act(state))]]
    for k in range(300):
        trial = engine.clone(state)
        trial.rng = np.random.default_rng(k)
        rewards = np.asarray(engine.apply(trial, last), dtype=np.float64)
        assert engine.is_over(trial) or engine.step_info(trial) is not None
        if (
            np.array_equal(rewards, total)
            and [x for x in range(n) if end[C.IN + x]] == trial.seats_in
            and list(end[C.LETTERS : C.LETTERS + n]) == trial.letters
        ):
            return True
    return False


@pytest.mark.parametrize("options", VARIANTS, ids=[str(v) for v in VARIANTS])
def test_random_playout_deterministic_and_replays_in_the_engine(options):
    engine = make_engine(options)
    config = engine.config
    rows = config.max_passes + config.max_race_steps + 1
    for seed in range(12):
        state = engine.new_episode(np.random.default_rng(seed), {})
        s = C.encode(state)
        trace = np.full((rows, 13), -1, dtype=np.int64)
        total, again = np.zeros(engine.num_players), np.zeros(engine.num_players)
        end, end2 = s.copy(), s.copy()
        steps = C.random_playout_trace(end, total, seed, trace)
        assert C.random_playout(end2, again, seed) == steps  # same seed, same playout
        np.testing.assert_array_equal(again, total)
        np.testing.assert_array_equal(end2, end)
        assert 1 <= steps <= rows and C.to_act(end, np.empty(16, dtype=np.int64)) == 0
        if not config.full:  # P9: a round's rewards sum to zero (a full game's over the game)
            assert abs(total.sum()) < 1e-9
        assert _replay_matches(engine, state, trace, steps, end, total)


def test_random_playout_seeds_differ_and_simulator_uses_the_twin():
    engine = make_engine({"num_players": 4})
    state = engine.new_episode(np.random.default_rng(7), {})
    sim = CompiledSimulator(engine, C)
    h = sim.load(state)
    outcomes = {tuple(sim.playout(sim.copy(h), seed)) for seed in range(40)}
    assert len(outcomes) > 1  # different pigs for different seeds
    np.testing.assert_array_equal(sim.playout(sim.copy(h), 3), sim.playout(sim.copy(h), 3))
    np.testing.assert_array_equal(h, C.encode(state))  # playouts ran on copies


# ---------------------------------------------------------------------- contract and errors
def test_supports_every_variant_and_simulator_picks_the_twin():
    from kiaule_env.core.simulate import simulator

    for options in VARIANTS:
        engine = make_engine(options)
        assert C.supports(engine.config) is True
        assert isinstance(simulator(engine), CompiledSimulator)


def test_bad_arguments_raise_type_errors():
    with pytest.raises(TypeError, match="config must be"):
        C.supports({"num_players": 4})
    with pytest.raises(TypeError, match="state must be"):
        C.encode(np.zeros(C.SIZE, dtype=np.int64))


def test_legal_of_a_seat_not_in_or_out_of_range_is_empty():
    engine = make_engine({"num_players": 4})
    s = C.encode(engine.new_episode(np.random.default_rng(0), {}))
    out = np.empty(16, dtype=np.int64)
    assert C.legal(s, 4, out) == 0 and C.legal(s, -1, out) == 0
    s[C.IN + 2] = 0
    assert C.legal(s, 2, out) == 0 and C.to_act(s, out) == 3


# ---------------------------------------------------------------------- speed
class _CountingSimulator(PythonSimulator):
    """The Python simulator, counting ``apply`` steps."""

    steps = 0

    def apply(self, h, actions):
        self.steps += 1
        return super().apply(h, actions)


def measure(options: dict[str, Any], seconds: float = 2.0) -> dict[str, float]:
    """Random-playout steps/s on fresh deals of ``options``: the compiled twin through
    ``CompiledSimulator.playout`` (compile time excluded, the deals encoded beforehand) and
    ``PythonSimulator.playout``, each for about ``seconds`` of this process's CPU time (one
    core; the machine's other load does not count)."""
    engine = make_engine(options)
    states = [engine.new_episode(np.random.default_rng(i), {}) for i in range(256)]
    csim = CompiledSimulator(engine, C)
    arrays = [csim.load(state) for state in states]
    csim.playout(csim.copy(arrays[0]), 0)  # compile (or load the cache) outside the timing
    playouts, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        for i in range(100):
            csim.playout(csim.copy(arrays[(playouts + i) % 256]), playouts + i)
        playouts += 100
    elapsed = time.process_time() - start
    steps = sum(
        C.random_playout(arrays[i % 256].copy(), np.zeros(engine.num_players), i)
        for i in range(playouts)
    )
    psim = _CountingSimulator(engine)
    played, pstart = 0, time.process_time()
    while time.process_time() - pstart < seconds:
        psim.playout(psim.load(states[played % 256]), played)
        played += 1
    pelapsed = time.process_time() - pstart
    compiled, python = steps / elapsed, psim.steps / pelapsed
    return {"compiled": compiled, "python": python, "ratio": compiled / python}


if __name__ == "__main__":  # the figures of the report: python tests/pig/test_compiled.py
    for opts in ({"num_players": 4}, {"num_players": 8, "game": "full"}, {"num_players": 13}):
        print(opts, {k: round(v) for k, v in measure(opts).items()})
