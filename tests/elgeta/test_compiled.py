"""Elgeta's compiled twin (``kiaule_env/elgeta/compiled.py``) against the Python engine.

The differential test plays seeded random deals of every option variant through both, with at
every decision the same encoded array (the running array equals ``encode`` of the engine state),
the same seat to act, the same legal actions for every seat, after every step the same reward
deltas, and the same last step. Stacked scenarios add the endings random deals almost never
reach (E5 draws and single able players, E8 cycles on and next to the cap, capped ties, all
aces); resampled states check the E8 look-ahead against a history that is not the state's own
past. ``measure`` gives the playout speeds of both simulators (``kiaule bench --engine``
reports them).
"""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")

import kiaule_env
from kiaule_env.cards import CARD_TEXTS
from kiaule_env.core.simulate import CompiledSimulator, PythonSimulator, simulator
from kiaule_env.elgeta import compiled, rules, sampling
from tests.elgeta.helpers import stacked

GAME = kiaule_env.get_game("elgeta")
#: the default configuration and every descriptor variant, as full option dicts
VARIANTS: list[dict[str, Any]] = []
for _options in (GAME.default_options, *({**GAME.default_options, **v} for v in GAME.variants)):
    if dict(_options) not in VARIANTS:  # the default is also a variant
        VARIANTS.append(dict(_options))
#: more short configurations: every player count with small caps (E8 cap, capped ties)
CAPPED: list[dict[str, Any]] = [
    {"num_players": n, "deck": deck, "max_tricks": cap, "stop_on_all_aces": aces}
    for n, deck, cap, aces in [
        (2, "32", 7, False),
        (3, "52", 12, True),
        (4, "36", 20, False),
        (2, "36", 3, True),
        (4, "52", 1, False),
        (3, "36", 30, False),
    ]
]


def _variant_id(options: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in options.items())


# ------------------------------------------------------------------------------ the comparison
def play_both(engine: Any, state: Any, rng: np.random.Generator) -> int:
    """Play ``state`` to its end through the engine and the twin, comparing at every decision;
    returns the number of steps."""
    n = engine.num_players
    s = compiled.encode(state)
    out = np.empty(max(engine.num_actions, n), dtype=np.int64)
    steps = 0
    while True:
        expected = compiled.encode(state)
        if not np.array_equal(s, expected):
            diff = np.flatnonzero(s != expected)
            raise AssertionError(f"step {steps}: arrays differ at {diff.tolist()}")
        seats = tuple(engine.to_act(state))
        count = compiled.to_act(s, out)
        assert tuple(out[:count].tolist()) == seats, f"step {steps}: to_act"
        for seat in range(n):
            count = compiled.legal(s, seat, out)
            assert out[:count].tolist() == list(engine.legal_actions(state, seat)), (
                f"step {steps}: legal of seat {seat}"
            )
        if not seats:
            return steps
        actions = []
        for seat in seats:
            legal = engine.legal_actions(state, seat)
            actions.append(legal[int(rng.integers(len(legal)))])
        py_rewards = list(engine.apply(state, actions))
        rewards = np.zeros(n)
        over = compiled.apply(s, np.asarray(actions, dtype=np.int64), rewards)
        assert rewards.tolist() == py_rewards, f"step {steps}: rewards"
        py_over = engine.is_over(state) or engine.step_info(state) is not None
        assert over == py_over, f"step {steps}: the end of the deal"
        steps += 1


def _deals(options: dict[str, Any], seeds: range) -> int:
    engine = GAME.make_engine(**options)
    steps = 0
    for seed in seeds:
        state = engine.new_episode(np.random.default_rng(seed), {})
        steps += play_both(engine, state, np.random.default_rng([seed, 1]))
    return steps


def _random_split(config: rules.Config, rng: np.random.Generator) -> list[list[str]]:
    """Stacked piles (RULES §0, E2) holding the cards in play in any distribution: a shuffled
    deck cut at random points, every pile non-empty. Unlike suit deals these run players out
    in ties (E5) and leave single able players."""
    cards = list(config.deck_cards.cards)
    if config.num_players == 3:
        left_out = int(rng.integers(4))
        cards = [c for c in cards if c // 13 != left_out]
    order = [cards[i] for i in rng.permutation(len(cards))]
    cuts = np.sort(rng.choice(np.arange(1, len(cards)), config.num_players - 1, replace=False))
    return [[CARD_TEXTS[c] for c in part] for part in np.split(np.array(order), cuts)]


#: deals per configuration of each differential test below; ``ELGETA_COMPILED_SCALE`` (a
#: float, default 3.4: 10,089 deals in all) multiplies them (not the 52-card variants)
_SCALE = float(os.environ.get("ELGETA_COMPILED_SCALE", "3.4"))


def _count(base: int) -> int:
    return max(1, round(base * _SCALE))


# ------------------------------------------------------------------------------ differential
@pytest.mark.parametrize("options", VARIANTS, ids=_variant_id)
def test_E3_E9_random_deals_of_every_variant_agree_step_by_step(options):
    engine = GAME.make_engine(**options)
    # 52 cards: long games (≈ 1 s each), so few; the count comes from the short configurations
    deals = 6 if options["deck"] == "52" else _count(35)
    for seed in range(deals):
        state = engine.new_episode(np.random.default_rng(seed), {})
        play_both(engine, state, np.random.default_rng([seed, 1]))


@pytest.mark.parametrize("options", CAPPED, ids=_variant_id)
def test_E8_cap_and_all_aces_random_deals_agree_step_by_step(options):
    engine = GAME.make_engine(**options)
    endings = set()
    for seed in range(_count(405)):
        state = engine.new_episode(np.random.default_rng(seed), {})
        play_both(engine, state, np.random.default_rng([seed, 2]))
        endings.add(compiled.encode(state)[compiled.ENDING])
    assert compiled.ENDING_CAPPED in endings


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("deck", ["32", "36", "52"])
def test_E5_random_stacked_splits_agree_step_by_step(num_players, deck):
    # piles of any size (RULES §0 stacked deals): players run out in ties (E5) and beggar
    # themselves in the middle of a trick, which suit deals rarely do
    options = {"num_players": num_players, "deck": deck, "max_tricks": 400}
    options["stop_on_all_aces"] = num_players == 3
    engine = GAME.make_engine(**options)
    rng = np.random.default_rng([num_players, int(deck)])
    for seed in range(_count(20 if deck == "52" else 50)):
        piles = _random_split(engine.config, rng)
        state = engine.new_episode(np.random.default_rng(seed), {"piles": piles})
        play_both(engine, state, np.random.default_rng([seed, 3]))


def cycle_piles() -> list[list[str]]:
    """3 players, 36 cards (as ``test_rules``): after trick 1 a 26-trick cycle (E8)."""
    pairs = "6D JC 7C JD 7D JS 8C QC 8D QD 9C QS 9D KC 9S KD 10C KS 10D AC 10S AD"
    return [["8S", *pairs.split(), "6C"], ["6S", "AS"], ["7S"]]


_RANKS_32 = ["7", "8", "9", "10", "J", "Q", "K", "A"]
SCENARIOS = {
    # E8: the repetition at trick 27; with a cap of 27 it is still a cycle, with 26 a cap
    "E8_cycle": (cycle_piles(), {"num_players": 3, "deck": "36"}, compiled.ENDING_CYCLE, 27),
    "E8_cycle_on_the_cap": (
        cycle_piles(),
        {"num_players": 3, "deck": "36", "max_tricks": 27},
        compiled.ENDING_CYCLE,
        27,
    ),
    "E8_cap_before_the_cycle": (
        cycle_piles(),
        {"num_players": 3, "deck": "36", "max_tricks": 26},
        compiled.ENDING_CAPPED,
        26,
    ),
    "E8_capped_tie": (
        stacked(["AS 8S", "7D 9D"], num_players=2, deck="32"),
        {"num_players": 2, "deck": "32", "max_tricks": 2},
        compiled.ENDING_CAPPED,
        2,
    ),
    "E8_all_aces": (
        stacked(["AH 8H AD 9H", "AS 7S AC 8S"], num_players=2, deck="32"),
        {"num_players": 2, "deck": "32", "stop_on_all_aces": True},
        compiled.ENDING_ALL_ACES,
        2,
    ),
    # E8: the holder of every ace need not be the taker (checked after the first trick)
    "E8_all_aces_held_by_the_loser": (
        stacked(["KS", "7D AS AC AD AH"], num_players=2, deck="32", fill=(0,)),
        {"num_players": 2, "deck": "32", "stop_on_all_aces": True},
        compiled.ENDING_ALL_ACES,
        1,
    ),
    "E5_nobody_can_add": (
        [
            [r + "C" for r in _RANKS_32] + [r + "D" for r in _RANKS_32],
            [r + "H" for r in _RANKS_32] + [r + "S" for r in _RANKS_32],
        ],
        {"num_players": 2, "deck": "32"},
        compiled.ENDING_DRAW,
        1,
    ),
    "E5_one_able_takes_without_adding": (
        stacked(["7S", "7D 8D"], num_players=2, deck="32", fill=(1,)),
        {"num_players": 2, "deck": "32"},
        compiled.ENDING_LAST_PLAYER,
        1,
    ),
    "E5_beggar_at_once_in_a_tie": (
        stacked(["AS 2S", "AD", "5H 3H", "4C KC"], fill=(0, 2, 3)),
        dict(GAME.default_options),
        None,
        None,
    ),
    "E7_three_beggars_after_one_trick": (
        stacked(["7S", "8D", "AH", "9C"], deck="32", fill=(2,)),
        {"num_players": 4, "deck": "32"},
        compiled.ENDING_LAST_PLAYER,
        1,
    ),
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_E5_E8_stacked_scenarios_agree_step_by_step(name):
    piles, options, ending, tricks = SCENARIOS[name]
    engine = GAME.make_engine(**options)
    state = engine.new_episode(np.random.default_rng(0), {"piles": piles})
    play_both(engine, state, np.random.default_rng(0))
    final = compiled.encode(state)
    if ending is not None:
        assert (final[compiled.ENDING], final[compiled.TRICKS]) == (ending, tricks)


def test_E8_the_look_ahead_uses_the_history_before_the_encoded_state():
    # at trick 10 of the cycle the repetition (trick 27) is with a position of the history;
    # the positions ahead alone would first repeat 26 tricks after trick 10
    engine = GAME.make_engine(num_players=3, deck="36")
    state = engine.new_episode(np.random.default_rng(0), {"piles": cycle_piles()})
    while state.tricks < 10:
        engine.apply(state, [0])
    assert compiled.encode(state)[compiled.CYCLE_AT] == 27
    state.positions = set()  # without its history the same state cycles later
    assert compiled.encode(state)[compiled.CYCLE_AT] > 27


@pytest.mark.parametrize("options", VARIANTS[:4], ids=_variant_id)
def test_E8_resampled_states_agree_with_the_engine(options):
    # engine.resample_hidden keeps the real game's position history with reshuffled piles,
    # sampling.sample_state has none (or only the current trick's start): the E8 look-ahead of
    # encode must treat both exactly as the engine does
    engine = GAME.make_engine(**options)
    config = engine.config
    for seed in range(_count(8)):
        rng = np.random.default_rng([seed, 4])
        state = engine.new_episode(rng, {})
        for _ in range(int(rng.integers(1, 400))):
            if engine.is_over(state):
                break
            engine.apply(state, [0])
        if engine.is_over(state):
            continue
        seat = int(rng.integers(engine.num_players))
        play_both(engine, engine.resample_hidden(state, seat, rng), rng)
        sampled = sampling.sample_state(rules.view(state, seat), config, rng)
        play_both(engine, sampled, rng)


# ------------------------------------------------------------------------------ playouts
def _python_steps(engine: Any, state: Any) -> tuple[int, list[float], Any]:
    """Play a clone of ``state`` to its end through the engine: steps, summed rewards, end."""
    state = engine.clone(state)
    total = [0.0] * engine.num_players
    steps = 0
    while not engine.is_over(state):
        rewards = engine.apply(state, [0])
        total = [a + b for a, b in zip(total, rewards, strict=True)]
        steps += 1
    return steps, total, state


@pytest.mark.parametrize("options", VARIANTS + CAPPED, ids=_variant_id)
def test_random_playout_is_the_engine_replay_and_deterministic(options):
    engine = GAME.make_engine(**options)
    sim = simulator(engine)
    assert isinstance(sim, CompiledSimulator)  # every configuration is supported
    python = PythonSimulator(engine)
    for seed in range(_count(6)):
        state = engine.new_episode(np.random.default_rng([seed, 5]), {})
        steps, total, end = _python_steps(engine, state)
        assert steps >= engine.num_players  # at least one whole trick (E3)
        s = compiled.encode(state)
        for playout_seed in (0, seed + 1):
            h = s.copy()
            rewards = np.zeros(engine.num_players)
            assert compiled.random_playout(h, rewards, playout_seed) == steps
            assert rewards.tolist() == total
            assert np.array_equal(h, compiled.encode(end))
        assert sim.playout(sim.load(state), seed).tolist() == total
        assert python.playout(python.load(state), seed).tolist() == total
        assert sum(total) == pytest.approx(0.0, abs=1e-12)  # E9: zero-sum
        assert np.array_equal(s, compiled.encode(state))  # load copies nothing back


def test_a_compiled_loop_over_legal_and_apply_matches_random_playout():
    engine = GAME.make_engine(num_players=3, deck="36")
    for seed in range(_count(20)):
        state = engine.new_episode(np.random.default_rng([seed, 6]), {})
        s = compiled.encode(state)
        expected = np.zeros(3)
        steps = compiled.random_playout(s.copy(), expected, 0)
        rewards = np.zeros(3)
        assert _njit_loop(s, rewards) == steps
        assert rewards.tolist() == expected.tolist()


def _njit_loop(s: np.ndarray, rewards: np.ndarray) -> int:
    """Steps through ``to_act``/``legal``/``apply`` (compiled once per session)."""
    global _LOOP
    if _LOOP is None:
        import numba

        to_act, legal, apply = compiled.to_act, compiled.legal, compiled.apply

        @numba.njit
        def loop(s, rewards):
            out = np.empty(4, dtype=np.int64)
            actions = np.empty(1, dtype=np.int64)
            steps = 0
            while to_act(s, out) == 1:
                if legal(s, out[0], out) != 1:
                    raise ValueError("one legal action expected")
                actions[0] = out[0]
                apply(s, actions, rewards)
                steps += 1
            return steps

        _LOOP = loop
    return _LOOP(s, rewards)


_LOOP = None


# ------------------------------------------------------------------------------ bad input
def test_supports_every_configuration_but_a_cap_beyond_int64():
    for options in VARIANTS + CAPPED:
        assert compiled.supports(GAME.make_engine(**options).config)
    big = GAME.make_engine(max_tricks=2**62)
    assert not compiled.supports(big.config)
    assert isinstance(simulator(big), PythonSimulator)
    with pytest.raises(ValueError, match=r"max_tricks=\d+ is too large"):
        compiled.encode(big.new_episode(np.random.default_rng(0), {}))
    with pytest.raises(TypeError, match="config must be"):
        compiled.supports({"num_players": 4})


def test_bad_states_and_actions_are_refused():
    engine = GAME.make_engine(num_players=2, deck="32")
    state = engine.new_episode(np.random.default_rng(0), {})
    with pytest.raises(TypeError, match="state must be"):
        compiled.encode(rules.view(state, 0))
    s = compiled.encode(state)
    rewards = np.zeros(2)
    for actions in ([1], [0, 0], []):
        with pytest.raises(ValueError, match="actions must be"):
            compiled.apply(s, np.asarray(actions, dtype=np.int64), rewards)
    compiled.random_playout(s, rewards, 0)
    with pytest.raises(ValueError, match="the game is over"):
        compiled.apply(s, np.zeros(1, dtype=np.int64), rewards)
    out = np.empty(2, dtype=np.int64)
    assert compiled.to_act(s, out) == 0 and compiled.legal(s, 0, out) == 0
    state.positions.add(b"short")
    with pytest.raises(ValueError, match="not a position of this game"):
        compiled.encode(state)


# ------------------------------------------------------------------------------ speed
def measure(options: dict[str, Any], seconds: float = 2.0, deals: int = 32) -> dict[str, float]:
    """Random-playout steps per second of the compiled and the Python simulator on one core.

    Both play ``deals`` random deals (encoded / cloned beforehand, compile time excluded) over
    and over for about ``seconds`` each; a step is one ``apply``. Elgeta's playouts have no
    choice, so each deal's step count is known from one compiled playout. Also gives the cost
    of ``load`` (encode, with its E8 look-ahead) per deal.
    """
    engine = GAME.make_engine(**options)
    rng = np.random.default_rng(0)
    states = [engine.new_episode(rng, {}) for _ in range(deals)]
    fast, slow = CompiledSimulator(engine, compiled), PythonSimulator(engine)
    fast.playout(fast.load(states[0]), 0)  # compile or load from the cache: not timed
    start = time.perf_counter()
    handles = [fast.load(state) for state in states]
    encode_s = (time.perf_counter() - start) / deals
    lengths = [compiled.random_playout(h.copy(), np.zeros(engine.num_players), 0) for h in handles]
    figures = {"encode_ms_per_deal": 1e3 * encode_s, "steps_per_deal": float(np.mean(lengths))}
    for name, sim, loaded in (
        ("compiled", fast, handles),
        ("python", slow, [slow.load(state) for state in states]),
    ):
        steps, i, start = 0, 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            sim.playout(sim.copy(loaded[i % deals]), i)
            steps += lengths[i % deals]
            i += 1
        figures[f"{name}_steps_per_s"] = steps / (time.perf_counter() - start)
    figures["speedup"] = figures["compiled_steps_per_s"] / figures["python_steps_per_s"]
    return figures


def test_the_compiled_playout_is_much_faster_than_the_python_engine():
    # the measured figures are in the report (about 40x); a loose floor on a shared machine
    figures = measure(dict(GAME.default_options), seconds=0.5, deals=8)
    assert figures["speedup"] > 5, figures


def compile_times() -> dict[str, float]:
    """Seconds for a fresh process to import the twin, encode a deal and run every function:
    with an empty numba cache (first use: compiles) and again (cache hit). Not a test (the
    first run compiles); ``docs/compiled-twins.md`` quotes it."""
    import subprocess
    import sys
    import tempfile

    code = (
        "import time; t = time.perf_counter(); import numpy as np, kiaule_env; "
        "from kiaule_env.elgeta import compiled as C; "
        "e = kiaule_env.get_game('elgeta').make_engine(); "
        "st = e.new_episode(np.random.default_rng(0), {}); s = C.encode(st); "
        "o = np.empty(4, np.int64); r = np.zeros(4); C.to_act(s, o); C.legal(s, 0, o); "
        "C.apply(s.copy(), np.zeros(1, np.int64), r); C.random_playout(s, r, 0); "
        "print(time.perf_counter() - t)"
    )
    times = {}
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        for name in ("empty_cache_s", "cache_hit_s"):
            done = subprocess.run(
                [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
            )
            times[name] = float(done.stdout.split()[-1])
    return times
