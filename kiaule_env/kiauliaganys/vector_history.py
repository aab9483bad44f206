"""The G10a pool of the batched Kiauliaganys env (:mod:`kiaule_env.kiauliaganys.vector`): the
numba kernels that count each slot's positions and free its records, and the Python helpers the
env uses with them (the layout of rows and records: :mod:`kiaule_env.kiauliaganys.vector_layout`).

The positions each slot has to count (G10a) live in one pool per batch, not in the rows, so
that the memory follows the batch's total history rather than every row being sized for the
longest one. The pool is an ``int64`` array of records (a position's packed key, its count and
its slot in one word, the slot's next older record: a slot's records form a chain from
``NEWEST``), a stack of the free records (``int32``), and an index: an open-addressing table
(linear probing, at most two thirds full) of ``fingerprint << 32 | record + 1``, the fingerprint
a hash of the key and the slot whose low bits are the entry's home. A row keeps the key of its
position in the twin's packing, move by move: each move sets the fields of the cards it moved
(:func:`_track_key`, a few fields where packing the whole key visits every card). After each
turn that ends with the deal going on and the face-down table empty, the env's step completes
the key with the position's fields (:func:`_turn_start_key`) and counts it in the slot's history
(:func:`_count_position`, a new record for a first occurrence): the twin's key and counting, the
pool's bookkeeping. A slot keeps only the positions since the last irreversible change
(:func:`_marker`: a turn had, a seat out, the G8 last turn; older ones can never recur, so the
counts are the engine's); its records are freed when the marker changes, when its deal ends and
when it is reset. Freeing removes a record's index entry with linear probing's backward shift,
so the index holds exactly the live records. Its cache misses are overlapped with other work by
prefetches (:func:`_prefetch`): the env's step asks for each count's first index entry in the
pass of the moves, and freeing a chain asks for the next record before unindexing the current
one. The pool's growth and the room for a step are the env's (``KiauliaganysVector._reserve``).

The kernels' cache goes stale with the twin, the generator, the rules and the layout
(:func:`kiaule_env.vector.kernels.kernel_decorator`); the env's kernels that call these are
stamped with this file.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from kiaule_env.kiauliaganys import compiled as C
from kiaule_env.kiauliaganys import rules, vector_layout
from kiaule_env.kiauliaganys.vector_layout import (
    _COUNT_BITS,
    _FINGERPRINT,
    _RECORD_BITS,
    EXTRA_WORDS,
    FREE_COUNT,
    KEY,
    R_NEXT,
    R_TALLY,
    X_MARK,
    X_NEWEST,
)
from kiaule_env.vector import rng
from kiaule_env.vector.kernels import kernel_decorator

#: numba kernels whose cache also goes stale with the twin, the generator, the rules or the layout
_kernel = kernel_decorator(C, rng, rules, vector_layout)

_FIELD_MASK = (1 << C.FIELD_BITS) - 1  # one field of a packed key


def _element_pointer(context: Any, builder: Any, array_type: Any, array: Any, offset: Any) -> Any:
    """Codegen of the intrinsics: a pointer to element ``offset`` of a C-contiguous array
    (read flat)."""
    data = context.make_array(array_type)(context, builder, array).data
    return builder.gep(data, [offset])


@intrinsic
def _prefetch(typingctx: Any, array: Any, offset: Any) -> Any:
    """Asks the CPU to bring element ``offset`` of the C-contiguous ``array`` (read flat) into
    its cache (LLVM's ``prefetch``: a hint, no effect on any value): the pool's records and
    index entries are cache misses, which a prefetch issued early overlaps with other work."""
    signature = types.void(array, offset)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        element = _element_pointer(context, builder, sig.args[0], args[0], args[1])
        address = builder.bitcast(element, cgutils.voidptr_t)
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [cgutils.voidptr_t, i32, i32, i32])
        fn = builder.module.declare_intrinsic("llvm.prefetch", [cgutils.voidptr_t], fnty)
        builder.call(fn, [address, i32(0), i32(3), i32(1)])  # a read, kept, data
        return context.get_dummy_value()

    return signature, codegen


@_kernel
def _fingerprint(key: np.ndarray, base: int, words: int, slot: int) -> int:
    """A 31-bit hash of the packed key ``key[base:base + words]`` in ``slot``'s history: the
    pool index's fingerprint, whose low bits are the record's home entry."""
    h = slot + 1
    for w in range(words):
        h = (h ^ key[base + w]) * C._HASH_MULT
    h ^= h >> 29
    return (h >> 32) & _FINGERPRINT


@_kernel
def _same_key(records: np.ndarray, r: int, s: np.ndarray, words: int) -> bool:
    """Whether record ``r`` holds the key packed at ``s[KEY:]``."""
    w = 0
    while w < words and records[r, w] == s[KEY + w]:
        w += 1
    return w == words


@_kernel
def _count_position(
    s: np.ndarray,
    x: np.ndarray,
    slot: int,
    records: np.ndarray,
    index: np.ndarray,
    free: np.ndarray,
    fp: int,
) -> int:
    """G10a: one more occurrence of the position packed at ``s[KEY:]`` (its
    :func:`_fingerprint` ``fp``) in ``slot``'s history; returns its occurrences. Its first
    takes a free record, the slot's newest (the index: linear probing, fingerprints compared
    before keys)."""
    words = s[C.KEY_WORDS]
    mask = index.shape[0] - 1
    j = fp & mask
    while index[j] != 0:
        entry = index[j]
        if entry >> 32 == fp:
            r = (entry & _RECORD_BITS) - 1
            if records[r, words + R_TALLY] >> 32 == slot and _same_key(records, r, s, words):
                records[r, words + R_TALLY] += 1
                return records[r, words + R_TALLY] & _COUNT_BITS
        j = (j + 1) & mask
    free[FREE_COUNT] -= 1
    r = free[1 + free[FREE_COUNT]]
    for w in range(words):
        records[r, w] = s[KEY + w]
    records[r, words + R_TALLY] = (slot << 32) | 1
    records[r, words + R_NEXT] = x[X_NEWEST]
    x[X_NEWEST] = r
    s[C.RECORDS] += 1
    index[j] = (fp << 32) | (r + 1)
    return 1


@_kernel
def _unindex(records: np.ndarray, index: np.ndarray, r: int, words: int) -> None:
    """Removes record ``r``'s index entry with linear probing's backward shift (the later
    entries of its run move up where their home allows): no tombstones, so the index holds
    only live records and never fills with dead ones."""
    fp = _fingerprint(records[r], 0, words, records[r, words + R_TALLY] >> 32)
    mask = index.shape[0] - 1
    want = (fp << 32) | (r + 1)
    i = fp & mask
    while index[i] != want:
        i = (i + 1) & mask
    j = i
    while True:
        j = (j + 1) & mask
        entry = index[j]
        if entry == 0:
            break
        home = (entry >> 32) & mask
        if ((j - home) & mask) >= ((j - i) & mask):  # its home is not in (i, j]: it moves up
            index[i] = entry
            i = j
    index[i] = 0


@_kernel
def _drop_history(
    s: np.ndarray, x: np.ndarray, records: np.ndarray, index: np.ndarray, free: np.ndarray
) -> None:
    """Frees every G10a record of the slot (its chain from the newest): out of the index,
    onto the free stack."""
    words = s[C.KEY_WORDS]
    r = x[X_NEWEST]
    x[X_NEWEST] = -1
    s[C.RECORDS] = 0
    while r >= 0:
        older = records[r, words + R_NEXT]
        if older >= 0:  # its line loads while this record leaves the index
            _prefetch(records, older * records.shape[1])
        _unindex(records, index, r, words)
        free[1 + free[FREE_COUNT]] = r
        free[FREE_COUNT] += 1
        r = older


@_kernel
def _marker(s: np.ndarray) -> int:
    """G10a: the irreversible part of the position at a turn's start (a function of its key):
    who has had a turn, who has had a turn and holds no cards, and the pending G8 last turn.

    Once the face-down table is empty (the only time positions are taken) it only grows:
    had_turn never goes back; a seat that has had a turn and holds no cards is out (G7), never
    acts again and so never takes a card (cards reach a hand only by its own search or take);
    after a G8 last turn the deal ends. A position with a smaller marker can never recur."""
    had = 0
    empty = 0
    for t in range(s[C.N]):
        if s[C.HAD_TURN + t]:
            had |= 1 << t
            if s[C.HAND + t] == 0:
                empty |= 1 << t
    return had | (empty << C.MAX_SEATS) | (s[C.LAST_TURN] << (2 * C.MAX_SEATS))


@_kernel
def _set_field(s: np.ndarray, k: int, code: int) -> None:
    """Field ``k`` of the key kept at ``s[KEY:]`` (the twin's packing: ``FIELDS_PER_WORD``
    fields of ``FIELD_BITS`` to a word) set to ``code``."""
    at = KEY + k // C.FIELDS_PER_WORD
    shift = C.FIELD_BITS * (k % C.FIELDS_PER_WORD)
    s[at] = (s[at] & ~(_FIELD_MASK << shift)) | (code << shift)


@_kernel
def _track_key(s: np.ndarray, seat: int, hand: int, length: int) -> None:
    """G10a: the card fields of the key at ``s[KEY:]`` after ``seat``'s move, whose hand was
    ``hand`` and the fund ``length`` cards long before it. A move changes few fields: each
    card it put into the hand (a take, a search's misses) now holds the seat's code, and a card
    it put on the fund (a play, a drag, a search's match) its index there (``FUND_CODE`` + the
    index; a card leaving a hand goes to the fund). So, once the face-down table is empty, the
    fields are the twin's ``_pack_key_into`` of the position without packing it whole (every
    card then reached its place by such a move, or is the deal's first fund card,
    :func:`_start_key`)."""
    gained = s[C.HAND + seat] & ~hand
    while gained:
        low = gained & -gained
        _set_field(s, C._popcount(low - 1), seat)
        gained ^= low
    top = s[C.FUND_LEN] - 1
    if top >= length:
        _set_field(s, s[C.FUND + top], C.FUND_CODE + top)


@_kernel
def _start_key(s: np.ndarray) -> None:
    """The key's fields at a deal's start: every hand is empty and the fund holds one card
    (G2); the face-down cards' fields are set when a move takes them off the table."""
    _set_field(s, s[C.FUND], C.FUND_CODE)


@_kernel
def _turn_start_key(
    s: np.ndarray,
    x: np.ndarray,
    slot: int,
    records: np.ndarray,
    index: np.ndarray,
    free: np.ndarray,
) -> int:
    """G10a in a row (its twin array keeps no history): completes the key at ``s[KEY:]`` of
    the position the turn starts from, whose card fields the moves keep (:func:`_track_key`),
    with its three position fields (the player to move, the G8 last turn and the named suit,
    who has had a turn: the twin's packing); returns its :func:`_fingerprint`, for
    :func:`_count_position`. When the position's marker (:func:`_marker`) changed, the slot's
    older records can never match again: they are freed first, so a slot keeps only the
    positions since the last irreversible change (the counts are the engine's)."""
    d = s[C.D]
    had = 0
    for seat in range(s[C.N]):
        if s[C.HAD_TURN + seat]:
            had |= 1 << seat
    _set_field(s, d, s[C.TO_ACT])
    _set_field(s, d + 1, s[C.LAST_TURN] * 8 + s[C.NAMED] + 1)
    _set_field(s, d + 2, had)
    mark = _marker(s)
    if mark != x[X_MARK]:
        x[X_MARK] = mark
        _drop_history(s, x, records, index, free)
    return _fingerprint(s, KEY, s[C.KEY_WORDS], slot)


@_kernel
def _load_record(
    state: np.ndarray,
    slot: int,
    key: np.ndarray,
    count: int,
    records: np.ndarray,
    index: np.ndarray,
    free: np.ndarray,
) -> None:
    """A loaded state's G10a position (packed ``key``, occurring ``count`` times) into the
    slot's history, as its newest record."""
    x = state[slot, :EXTRA_WORDS]
    s = state[slot, EXTRA_WORDS:]
    for w in range(key.shape[0]):
        s[KEY + w] = key[w]
    _count_position(s, x, slot, records, index, free, _fingerprint(s, KEY, key.shape[0], slot))
    records[x[X_NEWEST], s[C.KEY_WORDS] + R_TALLY] = (slot << 32) | count


@_kernel
def _drop_slot(
    state: np.ndarray, slot: int, records: np.ndarray, index: np.ndarray, free: np.ndarray
) -> None:
    """:func:`_drop_history` of one slot (from Python)."""
    _drop_history(state[slot, EXTRA_WORDS:], state[slot, :EXTRA_WORDS], records, index, free)


@_kernel
def _reindex(state: np.ndarray, records: np.ndarray, index: np.ndarray, words: int) -> None:
    """Every slot's records (their chains) into the empty ``index`` (after the pool grew)."""
    mask = index.shape[0] - 1
    for i in range(state.shape[0]):
        r = state[i, X_NEWEST]
        while r >= 0:
            fp = _fingerprint(records[r], 0, words, i)
            j = fp & mask
            while index[j] != 0:
                j = (j + 1) & mask
            index[j] = (fp << 32) | (r + 1)
            r = records[r, words + R_NEXT]


# ---------------------------------------------------------------------------------- Python side
def _key_marker(key: tuple) -> int:
    """:func:`_marker` of a ``rules.position_key``."""
    _, last_turn, _, had_turn, _, *hands = key
    had = sum(1 << t for t, flag in enumerate(had_turn) if flag)
    empty = sum(1 << t for t, flag in enumerate(had_turn) if flag and not hands[t])
    return had | (empty << C.MAX_SEATS) | (int(last_turn) << (2 * C.MAX_SEATS))


def _index_size(records: int) -> int:
    """Entries of the pool's index for ``records`` records: a power of two at least half as
    many again (linear probing at most two thirds full, with every record live)."""
    return 1 << (max(3 * records // 2, 1) - 1).bit_length()
