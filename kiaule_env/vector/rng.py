"""A compiled twin of numpy's ``Generator(PCG64(SeedSequence(seed)))``, state in a few array words.

Why
---
Every env deals with ``gymnasium.utils.seeding.np_random(seed)``, which builds
``np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))`` — the same generator as
``np.random.default_rng(seed)``. A batched env that must deal *the same deal* as
``<game>_v0.raw_env().reset(seed=s)`` in compiled code, one slot at a time, needs the same
numbers: this module reproduces numpy's algorithms exactly in ``numba.njit(cache=True)``
functions, with the generator's state kept in ``RNG_WORDS`` words of the slot's own state row
(no Python object per slot). ``tests/vector/test_rng.py`` checks it against numpy.

What it reproduces (numpy's ``_seed_sequence.pyx``, ``pcg64.h``, ``distributions.c``)
----------------------------------------------------------------------------------
* ``SeedSequence(seed)`` for an int seed in ``[0, 2**64)``: the seed split into 32-bit words
  (least significant first; 0 is one word), mixed into a pool of four words, and
  ``generate_state(4, uint64)``;
* ``PCG64``: the 128-bit LCG (multiplier ``0x2360ED051FC65DA44385DF649FCCF645``) stepped before
  each output, XSL-RR output, seeded as ``pcg64_set_seed``; 128-bit arithmetic on uint64 halves;
* ``next_uint32``: numpy's bit generator keeps the upper half of a 64-bit draw for the next
  32-bit draw (``has_uint32`` / ``uinteger``), so 32-bit and 64-bit draws interleave as numpy's;
* ``Generator.integers(high)`` (int64, ``low=0``): Lemire's bounded method, through the
  buffered 32-bit path when ``high - 1 <= 0xFFFFFFFF`` and the 64-bit path above;
* ``Generator.permutation(n)`` / ``shuffle``: Fisher–Yates from the end with numpy's
  ``random_interval`` (masked rejection, 32-bit draws for bounds that fit in 32 bits).

State layout
------------
``RNG_WORDS`` consecutive words at an offset the game chooses (``off``), in an ``int64`` or
``uint64`` 1-D array (a slot's row; values are stored bit for bit, so int64 words may be
negative):

=========  ==========================================================
``off+0``  LCG state, high 64 bits
``off+1``  LCG state, low 64 bits
``off+2``  LCG increment, high 64 bits
``off+3``  LCG increment, low 64 bits
``off+4``  1 when a buffered upper 32-bit half is waiting, else 0
``off+5``  the buffered upper half
=========  ==========================================================
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: words of generator state (see the module docstring for the layout)
RNG_WORDS = 6

_U32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)
_MULT_HI = np.uint64(0x2360ED051FC65DA4)
_MULT_LO = np.uint64(0x4385DF649FCCF645)

# SeedSequence's hash constants (numpy/random/bit_generator.pyx)
_INIT_A = np.uint64(0x43B0D7E5)
_MULT_A = np.uint64(0x931E8875)
_INIT_B = np.uint64(0x8B51F9DD)
_MULT_B = np.uint64(0x58F38DED)
_MIX_MULT_L = np.uint64(0xCA01F9DD)
_MIX_MULT_R = np.uint64(0x4973F715)
_XSHIFT = np.uint64(16)
_POOL = 4


@njit(cache=True, inline="always")
def _mulhi(a: np.uint64, b: np.uint64) -> np.uint64:
    """The high 64 bits of the 128-bit product ``a * b``."""
    a_lo = a & _U32
    a_hi = a >> _S32
    b_lo = b & _U32
    b_hi = b >> _S32
    lo_lo = a_lo * b_lo
    hi_lo = a_hi * b_lo
    lo_hi = a_lo * b_hi
    hi_hi = a_hi * b_hi
    cross = (lo_lo >> _S32) + (hi_lo & _U32) + lo_hi
    return hi_hi + (hi_lo >> _S32) + (cross >> _S32)


@njit(cache=True, inline="always")
def _step(s, off: int) -> None:
    """One LCG step: ``state = state * MULT + inc`` (mod 2**128)."""
    sh = np.uint64(s[off])
    sl = np.uint64(s[off + 1])
    hi = sh * _MULT_LO + sl * _MULT_HI + _mulhi(sl, _MULT_LO)
    lo = sl * _MULT_LO
    ih = np.uint64(s[off + 2])
    il = np.uint64(s[off + 3])
    new_lo = lo + il
    carry = np.uint64(1) if new_lo < lo else np.uint64(0)
    s[off] = hi + ih + carry
    s[off + 1] = new_lo


@njit(cache=True, inline="always")
def _hashmix(value: np.uint64, hash_const: np.uint64) -> tuple[np.uint64, np.uint64]:
    """SeedSequence's ``hashmix`` in uint32 arithmetic: the mixed value and the next constant."""
    value = (value ^ hash_const) & _U32
    hash_const = (hash_const * _MULT_A) & _U32
    value = (value * hash_const) & _U32
    value ^= value >> _XSHIFT
    return value, hash_const


@njit(cache=True, inline="always")
def _mix(x: np.uint64, y: np.uint64) -> np.uint64:
    """SeedSequence's ``mix`` in uint32 arithmetic."""
    result = (_MIX_MULT_L * x - _MIX_MULT_R * y) & _U32
    result ^= result >> _XSHIFT
    return result


@njit(cache=True)
def seed(s, off: int, value) -> None:
    """Seed the generator at ``s[off:off + RNG_WORDS]`` as ``np.random.default_rng(value)``.

    ``value``: a non-negative int below ``2**64`` (int64 or uint64; an int64 is taken as it
    reads, so pass uint64 for seeds of ``2**63`` and above)."""
    v = np.uint64(value)
    entropy = np.zeros(2, np.uint64)
    entropy[0] = v & _U32
    entropy[1] = v >> _S32
    n_entropy = 2 if entropy[1] != 0 else 1
    pool = np.zeros(_POOL, np.uint64)
    hash_const = _INIT_A
    for i in range(_POOL):
        word = entropy[i] if i < n_entropy else np.uint64(0)
        pool[i], hash_const = _hashmix(word, hash_const)
    for i_src in range(_POOL):
        for i_dst in range(_POOL):
            if i_src != i_dst:
                mixed, hash_const = _hashmix(pool[i_src], hash_const)
                pool[i_dst] = _mix(pool[i_dst], mixed)
    # generate_state(4, uint64): eight uint32 words cycling over the pool, paired little-endian
    words = np.zeros(8, np.uint64)
    hash_b = _INIT_B
    for i in range(8):
        data = pool[i % _POOL] ^ hash_b
        hash_b = (hash_b * _MULT_B) & _U32
        data = (data * hash_b) & _U32
        data ^= data >> _XSHIFT
        words[i] = data
    st_hi = words[0] | (words[1] << _S32)
    st_lo = words[2] | (words[3] << _S32)
    inc_hi = words[4] | (words[5] << _S32)
    inc_lo = words[6] | (words[7] << _S32)
    # pcg_setseq_128_srandom_r: inc = (initseq << 1) | 1; state = 0; step; state += init; step
    s[off + 2] = (inc_hi << np.uint64(1)) | (inc_lo >> np.uint64(63))
    s[off + 3] = (inc_lo << np.uint64(1)) | np.uint64(1)
    s[off] = 0
    s[off + 1] = 0
    _step(s, off)
    lo = np.uint64(s[off + 1])
    new_lo = lo + st_lo
    carry = np.uint64(1) if new_lo < lo else np.uint64(0)
    s[off] = np.uint64(s[off]) + st_hi + carry
    s[off + 1] = new_lo
    _step(s, off)
    s[off + 4] = 0
    s[off + 5] = 0


@njit(cache=True)
def next_uint64(s, off: int) -> np.uint64:
    """The next 64-bit draw (numpy's ``next_uint64``): step, then XSL-RR of the new state."""
    _step(s, off)
    hi = np.uint64(s[off])
    lo = np.uint64(s[off + 1])
    x = hi ^ lo
    rot = hi >> np.uint64(58)
    return (x >> rot) | (x << ((np.uint64(64) - rot) & np.uint64(63)))


@njit(cache=True)
def next_uint32(s, off: int) -> np.uint64:
    """The next 32-bit draw (numpy's ``next_uint32``): the buffered upper half of the last
    64-bit draw if one waits, else the lower half of a new one (its upper half buffered)."""
    if s[off + 4] != 0:
        s[off + 4] = 0
        return np.uint64(s[off + 5])
    x = next_uint64(s, off)
    s[off + 4] = 1
    s[off + 5] = x >> _S32
    return x & _U32


@njit(cache=True)
def random_interval(s, off: int, max_value: int) -> int:
    """A uniform int in ``[0, max_value]`` by masked rejection (numpy's ``random_interval``,
    which ``shuffle`` and ``permutation`` use)."""
    mx = np.uint64(max_value)
    if mx == 0:
        return 0
    mask = mx
    mask |= mask >> np.uint64(1)
    mask |= mask >> np.uint64(2)
    mask |= mask >> np.uint64(4)
    mask |= mask >> np.uint64(8)
    mask |= mask >> np.uint64(16)
    mask |= mask >> np.uint64(32)
    if mx <= _U32:
        value = next_uint32(s, off) & mask
        while value > mx:
            value = next_uint32(s, off) & mask
    else:
        value = next_uint64(s, off) & mask
        while value > mx:
            value = next_uint64(s, off) & mask
    return np.int64(value)


@njit(cache=True)
def integers(s, off: int, high) -> int:
    """``Generator.integers(high)`` (int64, ``low=0``): a uniform int in ``[0, high)``, for
    ``1 <= high <= 2**63`` (pass ``2**63`` as uint64), by numpy's Lemire method."""
    rng = np.uint64(high) - np.uint64(1)
    if rng == 0:
        return 0
    if rng <= _U32:
        if rng == _U32:
            return np.int64(next_uint32(s, off))
        excl = rng + np.uint64(1)
        m = next_uint32(s, off) * excl
        leftover = m & _U32
        if leftover < excl:
            threshold = (_U32 - rng) % excl
            while leftover < threshold:
                m = next_uint32(s, off) * excl
                leftover = m & _U32
        return np.int64(m >> _S32)
    excl = rng + np.uint64(1)
    x = next_uint64(s, off)
    leftover = x * excl
    if leftover < excl:
        threshold = (np.uint64(0xFFFFFFFFFFFFFFFF) - rng) % excl
        while leftover < threshold:
            x = next_uint64(s, off)
            leftover = x * excl
    return np.int64(_mulhi(x, excl))


@njit(cache=True)
def shuffle(s, off: int, arr) -> None:
    """Shuffle the 1-D array ``arr`` in place as ``Generator.shuffle`` does."""
    for i in range(arr.shape[0] - 1, 0, -1):
        j = random_interval(s, off, i)
        tmp = arr[i]
        arr[i] = arr[j]
        arr[j] = tmp


@njit(cache=True)
def permutation(s, off: int, n: int, out) -> None:
    """Write ``Generator.permutation(n)`` into ``out[:n]`` (a shuffled ``arange(n)``)."""
    for i in range(n):
        out[i] = i
    shuffle(s, off, out[:n])
