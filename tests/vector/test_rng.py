"""The compiled generator draws exactly numpy's numbers (``kiaule_env.vector.rng``)."""

from __future__ import annotations

import numpy as np
import pytest

from kiaule_env.vector import rng as R

OFF = 3  # a non-zero offset, so that the layout's offset handling is exercised


def _seeds() -> list[int]:
    """Small, 32-bit-boundary, large and extreme seeds, plus a few thousand random ones."""
    fixed = [0, 1, 2, 42, 2**31 - 1, 2**32 - 1, 2**32, 2**32 + 1, 2**62]
    fixed += [2**63 - 1, 2**63, 2**64 - 1]
    draws = np.random.default_rng(123).integers(0, 2**64, size=3000, dtype=np.uint64)
    return fixed + [int(x) for x in draws[:1500]] + [int(x) >> 40 for x in draws[1500:]]


def _row(seed: int, dtype=np.int64) -> np.ndarray:
    row = np.zeros(OFF + R.RNG_WORDS + 2, dtype)
    R.seed(row, OFF, np.uint64(seed))
    return row


def test_seeding_and_64_bit_draws_match_numpy_for_thousands_of_seeds() -> None:
    for seed in _seeds():
        row = _row(seed)
        gen = np.random.default_rng(seed)
        want = gen.integers(0, 2**64, size=4, dtype=np.uint64)
        got = [R.next_uint64(row, OFF) for _ in range(4)]
        assert [int(x) for x in got] == [int(x) for x in want], seed


def test_state_words_match_numpys_pcg64_state() -> None:
    for seed in [0, 7, 2**64 - 1]:
        row = _row(seed)
        state = np.random.default_rng(seed).bit_generator.state["state"]
        words = row.view(np.uint64)[OFF : OFF + 4]
        assert (int(words[0]) << 64) | int(words[1]) == state["state"]
        assert (int(words[2]) << 64) | int(words[3]) == state["inc"]
        assert row[OFF - 1] == 0 and row[OFF + R.RNG_WORDS] == 0  # neighbours untouched


def test_a_long_sequence_matches_and_a_uint64_row_works_too() -> None:
    row = _row(2**63 - 1, np.uint64)
    gen = np.random.default_rng(2**63 - 1)
    want = gen.integers(0, 2**64, size=20000, dtype=np.uint64)
    got = np.array([R.next_uint64(row, OFF) for _ in range(20000)], np.uint64)
    assert np.array_equal(got, want)


def test_32_bit_draws_buffer_the_upper_half_like_numpy() -> None:
    row = _row(99)
    gen = np.random.default_rng(99)
    want = gen.integers(0, 2**32, size=101, dtype=np.uint32)  # 32-bit path: next_uint32
    got = [int(R.next_uint32(row, OFF)) for _ in range(101)]
    assert got == [int(x) for x in want]


@pytest.mark.parametrize("seed", [0, 5, 2**40 + 3, 2**64 - 1])
def test_permutation_matches_for_every_n_up_to_60(seed: int) -> None:
    row = _row(seed)
    gen = np.random.default_rng(seed)
    out = np.zeros(60, np.int64)
    for n in list(range(1, 61)) + list(range(60, 0, -7)):
        R.permutation(row, OFF, n, out)
        assert out[:n].tolist() == gen.permutation(n).tolist(), n


def test_shuffle_of_an_array_matches_permutation_of_that_array() -> None:
    row = _row(8)
    gen = np.random.default_rng(8)
    cards = np.array([5, 9, 13, 2, 40, 33, 7, 1, 0, 51], np.int64)
    for _ in range(50):
        want = gen.permutation(cards)
        got = cards.copy()
        R.shuffle(row, OFF, got)
        assert got.tolist() == want.tolist()


BOUNDS = [1, 2, 3, 4, 5, 7, 24, 36, 52, 1000, 2**31 + 11, 2**32 - 1, 2**32, 2**32 + 1, 2**41 + 1]


@pytest.mark.parametrize("high", [*BOUNDS, 2**62 + 12345, 2**63 - 1, 2**63])
def test_integers_matches_for_bounds_below_at_and_above_32_bits(high: int) -> None:
    for seed in [0, 3, 2**63 - 1, 2**64 - 1]:
        row = _row(seed)
        gen = np.random.default_rng(seed)
        want = [int(gen.integers(high)) for _ in range(300)]
        got = [int(R.integers(row, OFF, np.uint64(high))) for _ in range(300)]
        assert got == want, (seed, high)


def test_integers_of_2_63_then_a_new_generator_from_it_like_kiauliaganys() -> None:
    for seed in range(200):
        row = _row(seed)
        child_seed = np.random.default_rng(seed).integers(2**63)
        got = R.integers(row, OFF, np.uint64(2**63))
        assert got == child_seed
        R.seed(row, OFF, got)
        out = np.zeros(52, np.int64)
        R.permutation(row, OFF, 52, out)
        assert out.tolist() == np.random.default_rng(child_seed).permutation(52).tolist()


def test_interleaved_32_and_64_bit_draws_and_mixed_calls_match() -> None:
    """A 32-bit draw leaves half a word buffered; a 64-bit draw does not consume it."""
    plan_rng = np.random.default_rng(0)
    for seed in range(0, 3000, 7):
        row = _row(seed)
        gen = np.random.default_rng(seed)
        for kind in plan_rng.integers(4, size=30):
            if kind == 0:
                assert int(R.next_uint32(row, OFF)) == int(gen.integers(0, 2**32, dtype=np.uint32))
            elif kind == 1:
                assert int(R.next_uint64(row, OFF)) == int(gen.integers(0, 2**64, dtype=np.uint64))
            elif kind == 2:
                high = int(plan_rng.choice(BOUNDS))
                assert R.integers(row, OFF, np.uint64(high)) == gen.integers(high)
            else:
                n = int(plan_rng.integers(1, 40))
                out = np.zeros(n, np.int64)
                R.permutation(row, OFF, n, out)
                assert out.tolist() == gen.permutation(n).tolist()


def test_gymnasium_seeding_builds_the_same_generator() -> None:
    from gymnasium.utils import seeding

    for seed in [0, 17, 2**63 - 1]:
        gen, _ = seeding.np_random(seed)
        row = _row(seed)
        got = [R.integers(row, OFF, 52) for _ in range(40)]
        assert got == [int(gen.integers(52)) for _ in range(40)]
