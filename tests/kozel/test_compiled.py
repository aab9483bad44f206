"""Differential test of Kozel's compiled playout twin (``kiaule_env/kozel/compiled.py``).

Seeded random deals over all 108 option combinations (K4 ``trump_card``, K8 ``molodka``, K6
``beat_partner``, K13/K14 ``eggs``/``series``, K15 ``reward``) are played through the Python
engine, the reference, and the compiled twin side by side: at every decision the compiled array
equals ``encode`` of the engine state, the acting seats agree, every seat's legal actions agree,
the reward deltas of every step agree, and the deal ends at the same step. Every game of a series
is a deal of its own (re-encoded at its start). A third of the episodes are dealt molodka-rich
stacked decks, so that K8 claim windows with several holders, claims and declines happen in every
molodka mode; with ``eggs="double"`` some episodes start from a carried eggs streak (K13).

``measure(options, seconds)`` and ``measure_compile()`` give the figures of the report; run
``python -m tests.kozel.test_compiled`` to print them.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")

import kiaule_env
from kiaule_env.cards import CARD_TEXTS
from kiaule_env.core.simulate import (
    CompiledSimulator,
    PythonSimulator,
    simulator,
)
from kiaule_env.kozel import compiled, rules
from kiaule_env.kozel.rules import DECK, Config

GAME = kiaule_env.get_game("kozel")

#: every combination of the Kozel options (eggs="double" only with series, K13)
ALL_OPTIONS: list[dict[str, Any]] = [
    {
        "trump_card": trump_card,
        "molodka": molodka,
        "beat_partner": beat_partner,
        "series": series,
        "eggs": eggs,
        "reward": reward,
    }
    for trump_card, molodka, beat_partner, (series, eggs), reward in itertools.product(
        ("middle", "bottom"),
        ("any", "trumps", None),
        (True, False),
        ((False, None), (True, None), (True, "double")),
        ("loss_points", "win_loss", "card_points"),
    )
]
DEALS_TOTAL = 10_000
DEALS_PER_CONFIG = -(-DEALS_TOTAL // len(ALL_OPTIONS))  # 93, 10,044 deals in all
#: the events of each grid configuration played in this process, by option id (summed by
#: test_grid_covers_rare_events)
GRID_EVENTS: dict[str, Counter] = {}


def option_id(options: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in options.items())


def molodka_rich_deck(rng: np.random.Generator) -> list[str]:
    """A 36-card deck (texts, top first) where every seat is dealt four cards of one suit (K3:
    positions r, r + 4, r + 8, r + 12 go to one seat). Two of the seats dealt positions 1–3
    (not the first game's leader) share a suit whose ninth card is the indicator (deck position
    26, K4), so that even ``molodka="trumps"`` opens K8 windows with two holders."""
    trump = int(rng.integers(4))
    others = [int(s) for s in rng.permutation([s for s in range(4) if s != trump])]
    suits = [others[0], trump, trump, others[1]]
    suits[1:] = [suits[1 + i] for i in rng.permutation(3)]
    by_suit = [[c for c in DECK.cards if rules.SUIT[c] == s] for s in range(4)]
    by_suit = [list(rng.permutation(cards)) for cards in by_suit]
    deck: list[int] = [-1] * DECK.size
    for r in range(4):
        for j in range(4):
            deck[4 * j + r] = int(by_suit[suits[r]].pop())
    deck[26] = int(by_suit[trump].pop())
    rest = [int(c) for s in range(4) for c in by_suit[s]]
    rest = [rest[i] for i in rng.permutation(len(rest))]
    for i in range(16, DECK.size):
        if deck[i] < 0:
            deck[i] = rest.pop()
    return [CARD_TEXTS[c] for c in deck]


def episode_options(options: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """Reset options: a molodka-rich stacked deck (or two, in a series) a third of the time."""
    if rng.random() >= 1 / 3:
        return {}
    if options["series"]:
        return {"decks": [molodka_rich_deck(rng) for _ in range(2)]}
    return {"deck": molodka_rich_deck(rng)}


class Differential:
    """Plays engine states and the compiled twin side by side, asserting agreement every step."""

    def __init__(self, engine: Any):
        self.engine = engine
        self.out = np.empty(64, dtype=np.int64)
        self.act = np.empty(1, dtype=np.int64)
        self.events: Counter = Counter()

    def check_decision(self, s: np.ndarray, state: Any, where: str) -> tuple[int, ...]:
        engine = self.engine
        expected = compiled.encode(state)
        if not np.array_equal(s, expected):
            diff = np.flatnonzero(s != expected)
            raise AssertionError(f"{where}: array differs at {diff}: {s[diff]} != {expected[diff]}")
        seats = tuple(engine.to_act(state))
        n = compiled.to_act(s, self.out)
        assert tuple(self.out[:n]) == seats, f"{where}: to_act"
        for seat in range(4):
            n = compiled.legal(s, seat, self.out)
            assert list(self.out[:n]) == list(engine.legal_actions(state, seat)), (
                f"{where}: legal actions of seat {seat}"
            )
        return seats

    def note(self, s: np.ndarray, state: Any, action: int) -> None:
        """Count the rare events this step shows (the coverage the test asserts)."""
        phase = state.phase
        if phase == rules.PHASE_CLAIM:
            self.events["claim" if action == rules.CLAIM else "decline"] += 1
            if len(state.claim_queue) >= 2:
                self.events["window_of_several"] += 1
        elif (
            phase == rules.PHASE_RESPOND
            and not state.config.beat_partner
            and (state.winner - state.to_act) % 4 == 2
        ):
            self.events["beat_partner_barred"] += 1
        if action < rules.CLAIM and action // 15 == rules.BEAT and state.n_cards >= 2:
            self.events["multi_card_beat"] += 1

    def play_deal(self, state: Any, rng: np.random.Generator, where: str) -> int:
        """One deal from ``state`` (mutated) to its end; returns the steps played."""
        engine = self.engine
        s = compiled.encode(state)
        rewards = np.zeros(4)
        streak = state.eggs_streak
        steps = 0
        while True:
            seats = self.check_decision(s, state, f"{where} step {steps}")
            legal = engine.legal_actions(state, seats[0])
            action = int(legal[int(rng.integers(len(legal)))])
            self.note(s, state, action)
            expected = np.asarray(engine.apply(state, [action]), dtype=np.float64)
            self.act[0] = action
            rewards[:] = 0.0
            done = compiled.apply(s, self.act, rewards)
            steps += 1
            assert np.array_equal(rewards, expected), f"{where} step {steps}: rewards"
            ended = engine.is_over(state) or engine.step_info(state) is not None
            assert done == ended, f"{where} step {steps}: end of the deal"
            if ended:
                break
        assert compiled.to_act(s, self.out) == 0, f"{where}: to_act after the deal's end"
        assert compiled.legal(s, 0, self.out) == 0
        if engine.is_over(state):  # the whole final state agrees too
            assert np.array_equal(s, compiled.encode(state)), f"{where}: final array"
        result = state.finished_games[-1]
        self.events["eggs" if result["eggs"] else "decided"] += 1
        if not result["eggs"] and streak and state.config.eggs == "double":
            self.events["doubled_loss_points"] += 1
        return steps


@pytest.mark.parametrize("options", ALL_OPTIONS, ids=option_id)
def test_differential_random_deals_agree_step_by_step(options):
    """K3–K16: every decision of DEALS_PER_CONFIG seeded random deals agrees with the engine."""
    events = play_grid_config(options)
    assert events["multi_card_beat"] > 0
    if options["molodka"] is not None:  # K8
        assert events["claim"] > 0 and events["decline"] > 0, events
        assert events["window_of_several"] > 0, events
    if not options["beat_partner"]:  # K6
        assert events["beat_partner_barred"] > 0, events
    if options["eggs"] == "double":  # K13
        assert events["doubled_loss_points"] > 0, events


def play_grid_config(options: dict[str, Any]) -> Counter:
    """The differential grid's seeded deals of one configuration, checked step by step; their
    events, also kept in ``GRID_EVENTS``."""
    engine = GAME.make_engine(**options)
    assert compiled.supports(engine.config)
    check = Differential(engine)
    config_seed = ALL_OPTIONS.index(options)
    deals = episode = 0
    while deals < DEALS_PER_CONFIG:
        rng = np.random.default_rng([config_seed, episode])
        chance = np.random.default_rng([config_seed, episode, 1])
        state = engine.new_episode(chance, episode_options(options, rng))
        if options["eggs"] == "double" and rng.random() < 0.3:
            state.eggs_streak = int(rng.integers(1, 3))  # K13: as after 1–2 eggs games
        while deals < DEALS_PER_CONFIG and not engine.is_over(state):
            check.play_deal(state, rng, f"{option_id(options)} episode {episode} deal {deals}")
            deals += 1
        episode += 1
    GRID_EVENTS[option_id(options)] = check.events
    return check.events


def test_grid_covers_rare_events():
    """K13: the grid above saw eggs (60–60) games. It plays the configurations this process has
    not (all of them when run alone; the rest of them where pytest-xdist gave some of the grid
    to another worker), so it never depends on which tests ran before it."""
    for options in ALL_OPTIONS:
        if option_id(options) not in GRID_EVENTS:
            play_grid_config(options)
    assert len(GRID_EVENTS) == len(ALL_OPTIONS)
    grid = sum(GRID_EVENTS.values(), Counter())
    assert grid["eggs"] > 0, grid
    assert grid["decided"] + grid["eggs"] >= DEALS_TOTAL


@pytest.mark.parametrize("options", GAME.variants, ids=option_id)
def test_differential_on_determinized_states(options):
    """Search plays determinized states (``resample_hidden``) from the middle of a deal: the
    twin agrees from there to the deal's end too."""
    engine = GAME.make_engine(**options)
    check = Differential(engine)
    for episode in range(40):
        rng = np.random.default_rng([99, episode])
        state = engine.new_episode(np.random.default_rng([98, episode]), {})
        for _ in range(int(rng.integers(0, 25))):
            legal = engine.legal_actions(state, engine.to_act(state)[0])
            engine.apply(state, [legal[int(rng.integers(len(legal)))]])
            if engine.is_over(state) or engine.step_info(state) is not None:
                break
        if engine.is_over(state):
            continue
        seat = int(rng.integers(4))
        determinized = engine.resample_hidden(state, seat, rng)
        check.play_deal(determinized, rng, f"{option_id(options)} episode {episode}")


# ------------------------------------------------------------------------------------ playouts
def fresh_arrays(options: dict[str, Any], count: int, seed: int) -> list[tuple[Any, np.ndarray]]:
    engine = GAME.make_engine(**options)
    out = []
    for i in range(count):
        state = engine.new_episode(np.random.default_rng([seed, i]), {})
        out.append((state, compiled.encode(state)))
    return out


@pytest.mark.parametrize("options", GAME.variants, ids=option_id)
def test_random_playout_replays_on_the_engine(options):
    """``random_playout`` is deterministic per seed, plays 12–63 steps (K5–K10: 3–9 tricks of
    four plays and up to three K8 decisions), and its recorded actions, replayed on the Python
    engine, are legal there, end the deal at the same step and give the same rewards (K15)."""
    engine = GAME.make_engine(**options)
    for state, s in fresh_arrays(options, 60, seed=7):
        seed = int(s.sum()) * 7919
        rewards = np.zeros(4)
        steps = compiled.random_playout(s.copy(), rewards, seed)
        again = np.zeros(4)
        assert compiled.random_playout(s.copy(), again, seed) == steps
        assert np.array_equal(again, rewards)
        assert 12 <= steps <= 63
        actions = np.full(64, -1, dtype=np.int64)
        recorded = np.zeros(4)
        assert compiled.random_playout_recorded(s.copy(), recorded, seed, actions) == steps
        assert np.array_equal(recorded, rewards)
        assert (actions[steps:] == -1).all()
        total = np.zeros(4)
        for i, action in enumerate(actions[:steps]):
            assert not (engine.is_over(state) or engine.step_info(state) is not None)
            assert action in engine.legal_actions(state, engine.to_act(state)[0]), i
            total += engine.apply(state, [int(action)])
        assert engine.is_over(state) or engine.step_info(state) is not None
        assert np.array_equal(total, rewards)
        assert rewards[0] == rewards[2] and rewards[1] == rewards[3]
        assert rewards[0] == -rewards[1]  # K15: zero-sum


def test_random_playout_draws_uniformly_among_legal_actions():
    """The first action of ``random_playout`` from a fixed lead position is uniform over the
    legal leads (a chi-square bound a biased draw, e.g. never the last action, fails)."""
    state, s = fresh_arrays({}, 1, seed=3)[0]
    legal = list(GAME.make_engine().legal_actions(state, 0))
    counts = Counter()
    actions = np.empty(1, dtype=np.int64)
    draws = 3000
    for seed in range(draws):
        compiled.random_playout_recorded(s.copy(), np.zeros(4), seed, actions)
        counts[int(actions[0])] += 1
    assert set(counts) == set(legal)
    expected = draws / len(legal)
    chi2 = sum((counts[a] - expected) ** 2 / expected for a in legal)
    assert chi2 < 3 * len(legal) + 20, (chi2, counts)
    assert len({compiled.random_playout(s.copy(), np.zeros(4), seed) for seed in range(50)}) > 1


def test_simulator_picks_the_twin_and_matches_the_python_simulator():
    """``simulator(engine)`` uses the twin for every configuration, and its API gives the same
    acting seats, legal actions, rewards and end as ``PythonSimulator`` on the same actions."""
    for options in GAME.variants:
        engine = GAME.make_engine(**options)
        fast = simulator(engine)
        assert isinstance(fast, CompiledSimulator)
        slow = PythonSimulator(engine)
        rng = np.random.default_rng(5)
        state = engine.new_episode(np.random.default_rng(6), {})
        a, b = fast.load(state), slow.load(state)
        while not slow.over(b):
            assert not fast.over(a)
            seats = slow.to_act(b)
            assert fast.to_act(a) == seats
            legal = list(slow.legal(b, seats[0]))
            assert fast.legal(a, seats[0]) == legal
            action = legal[int(rng.integers(len(legal)))]
            assert np.array_equal(fast.apply(a, [action]), slow.apply(b, [action]))
        assert fast.over(a)
        copy = fast.copy(fast.load(state))
        assert copy.shape == (compiled.SIZE,)
        assert fast.playout(copy, 1).sum() == 0.0  # K15: zero-sum


def test_supports_every_config_and_rejects_other_input():
    for options in ALL_OPTIONS:
        assert compiled.supports(Config(**options))
    with pytest.raises(TypeError, match="config must be"):
        compiled.supports({"molodka": "any"})
    with pytest.raises(TypeError, match="state must be"):
        compiled.encode(np.zeros(compiled.SIZE))
    with pytest.raises(ValueError, match="36-card"):
        compiled.card_index(0)  # 2C is not in the Kozel deck (K2)
    assert compiled.card_index(rules.DECK.cards[0]) == 0


def test_layout_offsets_tile_the_array():
    """The named offsets of the module docstring's table follow each other and fill the array."""
    fields = [
        ("CFG_MOLODKA", 1), ("CFG_BEAT_PARTNER", 1), ("CFG_EGGS_DOUBLE", 1), ("CFG_REWARD", 1),
        ("EGGS_STREAK", 1), ("TRUMP", 1), ("PHASE", 1), ("TO_ACT", 1), ("LEADER", 1),
        ("FIRST_LEADER", 1), ("CLAIMED", 1), ("N_CARDS", 1), ("N_PLAYED", 1), ("WINNER", 1),
        ("TRICK_POINTS", 1), ("STOCK_N", 1), ("STOCK_POS", 1), ("POINTS", 2), ("TRICKS", 2),
        ("HAND_N", 4), ("HANDS", 16), ("WINNING", 4), ("LED", 4), ("QUEUE_N", 1), ("QUEUE", 3),
        ("STOCK", rules.STOCK_SIZE),
    ]  # fmt: skip
    position = 0
    for name, size in fields:
        assert getattr(compiled, name) == position, name
        assert f"``{name}``" in compiled.__doc__, name
        position += size
    assert position == compiled.SIZE


# ------------------------------------------------------------------------------------ measuring
def measure(options: dict[str, Any] | None = None, seconds: float = 2.0) -> dict[str, float]:
    """Random-playout steps/s of ``CompiledSimulator.playout`` (copy + playout of freshly
    encoded deals, compile time excluded) and of ``PythonSimulator.playout``, on one core."""
    options = options or {}
    engine = GAME.make_engine(**options)
    deals = fresh_arrays(options, 200, seed=11)
    fast, slow = CompiledSimulator(engine, compiled), PythonSimulator(engine)
    fast.playout(fast.copy(deals[0][1]), 0)  # compile (or load the cache) outside the timing
    steps_of = [
        [compiled.random_playout(s.copy(), np.zeros(4), seed) for seed in range(8)]
        for _, s in deals
    ]

    def rate(run: Any) -> float:
        steps, i, start = 0, 0, time.perf_counter()
        while time.perf_counter() - start < seconds / 2:
            steps += run(i)
            i += 1
        return steps / (time.perf_counter() - start)

    def compiled_run(i: int) -> int:
        for k in range(len(deals)):
            fast.playout(fast.copy(deals[k][1]), i % 8)
        return sum(steps[i % 8] for steps in steps_of)

    def python_run(i: int) -> int:
        state = deals[i % len(deals)][0]
        h = slow.load(state)
        steps = 0
        rng = np.random.default_rng(i)
        while not slow.over(h):
            legal = slow.legal(h, slow.to_act(h)[0])
            slow.apply(h, [legal[int(rng.integers(len(legal)))]])
            steps += 1
        return steps

    fast_rate, slow_rate = rate(compiled_run), rate(python_run)
    return {
        "compiled_steps_per_s": fast_rate,
        "python_steps_per_s": slow_rate,
        "speedup": fast_rate / slow_rate,
    }


_COMPILE_SCRIPT = """
import time, json
t0 = time.perf_counter()
import numpy as np
from kiaule_env.kozel import compiled, rules
t1 = time.perf_counter()
state = rules.new_deal(rules.Config(), np.random.default_rng(0))
s = compiled.encode(state)
out = np.empty(64, dtype=np.int64)
compiled.to_act(s, out); compiled.legal(s, 0, out)
compiled.apply(s.copy(), np.array([0]), np.zeros(4))
compiled.random_playout(s.copy(), np.zeros(4), 1)
compiled.random_playout_recorded(s.copy(), np.zeros(4), 1, out)
t2 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "first_calls_s": t2 - t1}))
"""


def measure_compile() -> dict[str, dict[str, float]]:
    """First use with an empty numba cache versus a second process start (cache hit)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=root)
        runs = {}
        for name in ("empty_cache", "cache_hit"):
            done = subprocess.run(
                [sys.executable, "-c", _COMPILE_SCRIPT],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            runs[name] = json.loads(done.stdout)
    return runs


def test_measure_reports_a_speedup():
    """A short ``measure``: the twin is much faster than the Python engine (the figures of the
    report come from longer runs, ``python -m tests.kozel.test_compiled``)."""
    figures = measure({}, seconds=1.0)
    assert figures["speedup"] > 5, figures


if __name__ == "__main__":
    report = {option_id(o) or "default": measure(o, 4.0) for o in GAME.variants}
    report["compile"] = measure_compile()
    print(json.dumps(report, indent=1))
