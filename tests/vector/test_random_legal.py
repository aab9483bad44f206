"""``kiaule_env.vector.random_legal`` (``kiaule_env/vector/learner.py``): numpy's draws, one
compiled pass over the mask for the picks, the same actions as the numpy formulation it
replaced (training runs and benchmarks seeded before it keep their moves)."""

from __future__ import annotations

import numpy as np
import pytest

from kiaule_env.vector import random_legal


def _numpy_picks(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Each row's ``floor(u * count)``-th legal action, with numpy alone."""
    rows, width = mask.shape
    legal = np.flatnonzero(mask)
    counts = np.bincount(legal // width, minlength=rows)
    first = np.cumsum(counts) - counts
    pick = first + (rng.random(rows) * counts).astype(np.int64)
    return legal[pick] - np.arange(rows, dtype=np.int64) * width


@pytest.mark.parametrize("dtype", [np.int8, np.bool_, np.uint8, np.int64, np.float32])
def test_the_picks_are_the_numpy_formulation_s_for_every_mask_type(dtype) -> None:
    draws = np.random.default_rng(1)
    for trial in range(200):
        rows, width = int(draws.integers(1, 200)), int(draws.integers(1, 130))
        mask = draws.random((rows, width)) < draws.random()
        mask[np.arange(rows), draws.integers(0, width, rows)] = True
        mask = mask.astype(dtype)
        expected = _numpy_picks(mask, np.random.default_rng(trial))
        rng = np.random.default_rng(trial)
        picks = random_legal(mask, rng)
        assert picks.dtype == np.int64 and np.array_equal(picks, expected), trial
        assert rng.random() == np.random.default_rng(trial).random(rows + 1)[-1]  # rows draws


def test_a_strided_or_listed_mask_is_read_as_it_reads() -> None:
    mask = np.random.default_rng(2).random((64, 40)) < 0.3
    mask[:, ::2] = True
    view = mask[::2, ::-1].astype(np.int8)
    expected = _numpy_picks(np.ascontiguousarray(view), np.random.default_rng(3))
    assert np.array_equal(random_legal(view, np.random.default_rng(3)), expected)
    assert np.array_equal(random_legal(view.tolist(), np.random.default_rng(3)), expected)


def test_every_legal_action_is_drawn_uniformly() -> None:
    mask = np.zeros((20000, 9), np.int8)
    mask[:, [1, 4, 8]] = 1
    picks = random_legal(mask, np.random.default_rng(4))
    values, counts = np.unique(picks, return_counts=True)
    assert values.tolist() == [1, 4, 8]
    assert np.all(np.abs(counts / 20000 - 1 / 3) < 0.02)


def test_a_row_without_a_legal_action_and_a_flat_mask_are_refused() -> None:
    mask = np.ones((5, 4), np.int8)
    mask[3] = 0
    with pytest.raises(ValueError, match="row 3 of the mask has no legal action"):
        random_legal(mask, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"mask must have shape \(rows, actions\)"):
        random_legal(np.ones(4, np.int8), np.random.default_rng(0))
