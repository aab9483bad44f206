"""The observation of the batched Kiauliaganys env (:mod:`kiaule_env.kiauliaganys.vector`): the
numba kernels that write a slot's observation of the seat to act (exactly the AEC env's
``observe``, ``encoding.ObservationEncoder``) and its action mask, and the G4 match chances
table they look up.

The observation is written over the previous one: its bit slices (the hand, the fund and its
top, the face-up cards of each relative seat: 364 of the 441 floats for four players and 52
cards) only where their cards changed (the row's ``SHOWN_…`` words remember what they hold,
:mod:`kiaule_env.kiauliaganys.vector_layout`), the other entries (the scalars, counts,
``not_suit``, years and the counting slices) in full; the seat to act changes with almost every
step and they are relative to it. The G4 match chances are looked up in one table per batch
(:func:`_chance_table`, about 100 KB for 52 cards, besides the rows), built with the counting
code's float operations in its order.

The kernels' cache goes stale with the twin, the generator, the rules and the layout
(:func:`kiaule_env.vector.kernels.kernel_decorator`); the env's kernels that call these are
stamped with this file.
"""

from __future__ import annotations

import numpy as np

from kiaule_env.kiauliaganys import compiled as C
from kiaule_env.kiauliaganys import rules, vector_layout
from kiaule_env.kiauliaganys.rules import ANY, DRAG, OVER
from kiaule_env.kiauliaganys.vector_layout import (
    X_FACE_UP,
    X_NOT_SUIT,
    X_SHOWN_FUND,
    X_SHOWN_HAND,
    X_SHOWN_TOP,
    X_SHOWN_UP,
    X_YEARS,
)
from kiaule_env.vector import rng
from kiaule_env.vector.kernels import kernel_decorator

# float parameters of the observation (``_params``)
F_SCALE = 0  # 1 / deck size
F_TURNS = 1  # 1 / max_turns
F_YEARS = 2  # 1 / match_years (0 outside a match)
F_REPETITION = 3  # 1 / repetition (0 with G10a off)


#: numba kernels whose cache also goes stale with the twin, the generator, the rules or the layout
_kernel = kernel_decorator(C, rng, rules, vector_layout)


@_kernel
def _flip(obs: np.ndarray, base: int, shown: int, mask: int) -> None:
    """The bit slice at ``base`` from ``shown`` to ``mask``: only the entries of the bits that
    differ are written (a slice whose cards did not change is not touched)."""
    diff = shown ^ mask
    while diff:
        low = diff & -diff
        p = C._popcount(low - 1)
        obs[base + p] = (mask >> p) & 1
        diff ^= low


@_kernel
def _spread(obs: np.ndarray, base: int, mask: int, d: int) -> None:
    """The bit slice at ``base`` rewritten whole from ``mask``: one store per entry, no branch
    (for a slice where most bits change, such as the hand when the seat to act changes)."""
    for p in range(d):
        obs[base + p] = (mask >> p) & 1


@_kernel
def _suit_of(s: np.ndarray, card: int) -> int:
    """The suit of a deck position (-1: a joker), the twin's ``SUIT`` table's, read from the
    header's ``SUIT_MASK`` words instead (in the cache with the rest of the header, where the
    table's words are a cache miss of their own)."""
    bit = 1 << card
    for t in range(4):
        if s[C.SUIT_MASK + t] & bit:
            return t
    return -1


@_kernel
def _none_table(d: int) -> np.ndarray:
    """``table[total, others, k]``: the chance that ``k`` cards drawn from ``total`` unseen
    suited cards, ``others`` of them not of a suit, miss the suit (``counting.match_chances``'
    hypergeometric product, its factors multiplied in the same order, so the same floats);
    ``k = others + 1`` holds 0.0 (more draws than misses: one must match)."""
    table = np.zeros((d + 1, d + 1, d + 2))
    for total in range(d + 1):
        for others in range(total + 1):
            none = 1.0
            table[total, others, 0] = none
            for i in range(others):
                none *= (others - i) / (total - i)
                table[total, others, i + 1] = none
    return table


def _chance_table(d: int) -> tuple[np.ndarray, np.ndarray]:
    """G4's match chances as the observation holds them: ``float32(1 - none)`` of
    :func:`_none_table` (the float the encoder stores), packed without the entries no lookup
    reaches (``k <= others + 1``, ``others <= total``): ``chances[offsets[total, others] + k]``.
    About 100 KB for 52 cards, where the whole float64 table is 1.2 MB: it stays in the cache."""
    none = _none_table(d)
    offsets = np.zeros((d + 1, d + 1), dtype=np.int64)
    parts = []
    at = 0
    for total in range(d + 1):
        for others in range(total + 1):
            offsets[total, others] = at
            parts.append((1.0 - none[total, others, : others + 2]).astype(np.float32))
            at += others + 2
    return offsets, np.concatenate(parts)


@_kernel
def _match_chance(
    s: np.ndarray,
    x: np.ndarray,
    seat: int,
    per: np.ndarray,
    total: int,
    suit: int,
    offsets: np.ndarray,
    chances: np.ndarray,
) -> float:
    """``counting.match_chances`` of ``seat`` for ``suit``: a face-up card of it (or a face-up
    joker) makes it certain; else a hypergeometric draw of his hidden cards from the unseen
    suited cards, less the ``not_suit`` ones (G4), looked up in :func:`_chance_table`."""
    face_up = x[X_FACE_UP + seat]
    if face_up & (s[C.JOKER_MASK] | s[C.SUIT_MASK + suit]):
        return 1.0
    hidden = s[C.COUNT + seat] - C._popcount(face_up)
    free = max(0, hidden - x[X_NOT_SUIT + 4 * seat + suit])
    others = total - per[suit]
    return chances[offsets[total, others] + min(free, others + 1)]


@_kernel
def _write_counting(
    s: np.ndarray,
    x: np.ndarray,
    obs: np.ndarray,
    seen: int,
    at: int,
    f: np.ndarray,
    offsets: np.ndarray,
    chances: np.ndarray,
    per: np.ndarray,
) -> None:
    """The ``counting`` slices (``match_chance`` at ``at``, then ``next_chance``, ``unseen``,
    ``search_length``) of the seat to act, who has seen the cards of ``seen``, every entry
    written (``per``: scratch for the unseen suited cards per suit, no allocation per step)."""
    n = s[C.N]
    d = s[C.D]
    me = s[C.TO_ACT]
    scale = f[F_SCALE]
    unseen_mask = ((1 << d) - 1) & ~seen
    total = 0
    unseen = at + 4 * n + 4
    for t in range(4):
        per[t] = C._popcount(unseen_mask & s[C.SUIT_MASK + t])
        total += per[t]
        # the encoder scales a float32 array here: float32 arithmetic
        obs[unseen + t] = np.float32(per[t]) * np.float32(scale)
    jokers = C._popcount(unseen_mask & s[C.JOKER_MASK])
    obs[unseen + 4] = jokers * scale
    hand = s[C.HAND + me]
    for t in range(4):
        obs[at + t] = 1.0 if hand & (s[C.JOKER_MASK] | s[C.SUIT_MASK + t]) else 0.0
    nxt = -1
    for step in range(1, n):
        seat = me + step if me + step < n else me + step - n  # (me + step) % n, no division
        if s[C.OUT + seat] == 0 and nxt < 0:
            nxt = step
        if s[C.OUT + seat] == 0 and s[C.COUNT + seat] > 0:
            for t in range(4):
                obs[at + 4 * step + t] = _match_chance(s, x, seat, per, total, t, offsets, chances)
        else:
            for t in range(4):
                obs[at + 4 * step + t] = 0.0
    for t in range(4):  # G6: the player my drag sets the suit for
        obs[at + 4 * n + t] = obs[at + 4 * nxt + t] if nxt >= 0 else 0.0
    face_down = s[C.FD_LEN]
    pool = total + jokers
    for t in range(4):  # counting.expected_search
        if face_down > 0 and pool > 0:
            matching = face_down * (per[t] + jokers) / pool
            obs[unseen + 5 + t] = (face_down - matching) / (matching + 1.0) * scale
        else:
            obs[unseen + 5 + t] = 0.0


@_kernel
def _clear_obs(x: np.ndarray, obs: np.ndarray) -> None:
    """All zeros, and the slices' memory with it (a new or loaded slot, a finished deal)."""
    obs[:] = 0.0
    x[X_SHOWN_HAND] = 0
    x[X_SHOWN_TOP] = -1
    x[X_SHOWN_FUND] = 0
    for t in range(C.MAX_SEATS):
        x[X_SHOWN_UP + t] = 0


@_kernel
def _write_obs(
    s: np.ndarray,
    x: np.ndarray,
    obs: np.ndarray,
    f: np.ndarray,
    offsets: np.ndarray,
    chances: np.ndarray,
    buf: np.ndarray,
    fund: int,
    top: int,
) -> None:
    """The observation of the seat to act (``encoding.ObservationEncoder``; zeros once over),
    written over the previous one: the bit slices (hand, fund, face-up cards) only where their
    cards changed, every other entry in full. ``offsets``/``chances``: :func:`_chance_table`,
    ``buf``: scratch; ``fund`` and ``top``: the fund's cards and its top card (-1: empty) when
    the caller knows them (the step, from the move), else ``fund`` -1 (read from the row)."""
    if s[C.PHASE] == OVER:
        _clear_obs(x, obs)
        return
    n = s[C.N]
    d = s[C.D]
    me = s[C.TO_ACT]
    scale = f[F_SCALE]
    hand = s[C.HAND + me]
    if hand != x[X_SHOWN_HAND]:
        _spread(obs, 0, hand, d)
        x[X_SHOWN_HAND] = hand
    length = s[C.FUND_LEN]
    if fund < 0:
        fund = 0
        for i in range(length):
            fund |= 1 << s[C.FUND + i]
        top = s[C.FUND + length - 1] if length else -1
    _flip(obs, 2 * d, x[X_SHOWN_FUND], fund)
    x[X_SHOWN_FUND] = fund
    if top != x[X_SHOWN_TOP]:
        if x[X_SHOWN_TOP] >= 0:
            obs[d + x[X_SHOWN_TOP]] = 0.0
        if top >= 0:
            obs[d + top] = 1.0
        x[X_SHOWN_TOP] = top
    seen = hand | fund
    base = 3 * d
    req = ANY if top < 0 else s[C.NAMED] if top >= s[C.NSUITED] else _suit_of(s, top)  # G3
    for k in range(8):
        obs[base + k] = 0.0
    obs[base + (4 if req < 0 else req)] = 1.0
    obs[base + 5 + (1 if s[C.PHASE] == DRAG else 0)] = 1.0
    obs[base + 7] = 1.0 if s[C.LAST_TURN] else 0.0  # G8
    obs[base + 8] = s[C.FD_LEN] * scale
    obs[base + 9] = length * scale
    obs[base + 10] = s[C.TURNS] * f[F_TURNS]  # G10
    obs[base + 11] = s[C.REPEATS] * f[F_REPETITION] if s[C.REPEATS] else 0.0  # G10a
    to_act = base + 12
    face_up = to_act + 4 * n
    not_suit = face_up + n * d
    for t in range(n):
        rel = t - me if t >= me else t - me + n
        obs[to_act + rel] = 1.0 if rel == 0 else 0.0  # the observer is the seat to act
        obs[to_act + n + rel] = s[C.COUNT + t] * scale
        obs[to_act + 2 * n + rel] = 1.0 if s[C.OUT + t] else 0.0  # G7
        obs[to_act + 3 * n + rel] = 1.0 if s[C.HAD_TURN + t] else 0.0
        up = x[X_FACE_UP + t]
        _flip(obs, face_up + rel * d, x[X_SHOWN_UP + rel], up)  # G5
        x[X_SHOWN_UP + rel] = up
        seen |= up
        for k in range(4):
            obs[not_suit + 4 * rel + k] = x[X_NOT_SUIT + 4 * t + k] * scale  # G4
        years = x[X_YEARS + t]
        obs[not_suit + 4 * n + rel] = min(1.0, years * f[F_YEARS]) if years else 0.0  # G11
    _write_counting(s, x, obs, seen, not_suit + 5 * n, f, offsets, chances, buf)


@_kernel
def _write_slot(
    s: np.ndarray,
    x: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
    f: np.ndarray,
    offsets: np.ndarray,
    chances: np.ndarray,
    buf: np.ndarray,
    fund: int,
    top: int,
) -> int:
    """Writes the slot's observation and mask (``fund``, ``top``: :func:`_write_obs`'s);
    returns the seat to act (-1 once over)."""
    _write_obs(s, x, obs, f, offsets, chances, buf, fund, top)
    mask[:] = 0
    if s[C.PHASE] == OVER:
        return -1
    for i in range(C.legal(s, s[C.TO_ACT], buf)):
        mask[buf[i]] = 1
    return s[C.TO_ACT]
