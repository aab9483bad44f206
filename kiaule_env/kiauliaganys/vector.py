"""Batched compiled Kiauliaganys (RULES §2): many deals stepped at once, with observations.

The per-game implementation behind ``kiaule_env.vector.make("kiauliaganys", …)``: each slot of
the batch is one episode in one row of a C-contiguous ``int64`` array. A row starts with the
information-set bookkeeping that the compiled twin leaves out and the observation needs (next to
the deal's words, in the same cache lines); the rest of the row is the compiled twin's array
(:mod:`kiaule_env.kiauliaganys.compiled`, its layout and its ``legal``/``apply`` kernels: one
compiled implementation of the rules):

=================  ======  ===============================================================
name (``X_…``)     size    content
=================  ======  ===============================================================
``FACE_UP``        6       per seat, the cards taken face up from the fund, still held (G5),
                           a bit mask of deck positions
``NOT_SUIT``       24      per seat and suit, cards known not of the suit (G4), the
                           engine's ``not_suit`` lower bound
``YEARS``          6       per seat, match years (G11)
``DEALS``          1       deals finished in the episode
``DEALER``         1       this deal's dealer (the next deal of a match starts from him)
``RNG``            ...     the episode's generator (:mod:`kiaule_env.vector.rng`): the
                           later deals of a match are shuffled from it, as the engine does
``MARK``           1       the G10a marker of the records the slot keeps (:func:`_marker`)
``NEWEST``         1       the slot's newest G10a record in the pool (-1: none)
``SHOWN_HAND``     1       the hand the observation's hand slice holds now
``SHOWN_TOP``      1       the card its fund-top slice marks now (-1: none)
``SHOWN_FUND``     1       the cards its fund slice holds now
``SHOWN_UP``       6       per relative seat, the face-up cards its slice holds now
=================  ======  ===============================================================

The twin's part has no history room (its ``CAPACITY`` is 0, so its ``apply`` leaves the G10a
count to this module) and is followed by :data:`KEY`'s ``KEY_WORDS`` words, the packed key
(the twin's ``_pack_key_into``) of the position being counted. A row is 2,200 bytes for every
option.

Each step updates this memory incrementally from the move (a play or drag removes one card
from the face-up set or lowers ``not_suit``, a take adds a face-up card, a search adds the
cards it picked up to ``not_suit``), then writes the slot's observation of the seat to act and
its mask, all in ``numba.njit(cache=True)`` kernels looping over the batch. The observation is
written over the previous one: its bit slices (the hand, the fund and its top, the face-up
cards of each relative seat: 364 of the 441 floats for four players and 52 cards) only where
their cards changed (the ``SHOWN_…`` words remember what they hold), the other entries (the
scalars, counts, ``not_suit``, years and the counting slices) in full; the seat to act changes
with almost every step and they are relative to it. The G4 match chances are looked up in one
table per batch (:func:`_chance_table`, about 100 KB for 52 cards, besides the rows), built with
the counting code's float operations in its order.

G10a history: the positions each slot has to count live in one pool per batch, not in the
rows, so that the memory follows the batch's total history rather than every row being sized
for the longest one. The pool is an ``int64`` array of records (a position's packed key, its
count and its slot in one word, the slot's next older record: a slot's records form a chain from
``NEWEST``), a stack of the free records (``int32``), and an index: an open-addressing table
(linear probing, at most two thirds full) of ``fingerprint << 32 | record + 1``, the fingerprint
a hash of the key and the slot whose low bits are the entry's home. After each turn that ends
with the deal going on and the face-down table empty, the step packs the position with the
twin's ``_pack_key_into``, counts it in the slot's history (a new record for a first occurrence) and
hands the count to the twin's ``_repeated`` (``REPEATS``, the end at the limit): the twin's key
and counting, the pool's bookkeeping. A slot keeps only the positions since the last
irreversible change (:func:`_marker`: a turn had, a seat out, the G8 last turn; older ones can
never recur, so the counts are the engine's); its records are freed when the marker changes,
when its deal ends and when it is reset. Freeing removes a record's index entry with linear
probing's backward shift, so the index holds exactly the live records. Before a step the pool
has a free record for every slot (a step counts at most one position a slot); it grows by an
eighth when it has not, so the count stays exact for any ``max_turns`` (counts are kept in
32 bits: a ``max_turns`` and a ``repetition`` both past ``2**32 - 1`` are refused).

:meth:`KiauliaganysVector.state_bytes` counts the row plus the pool (records, index, free stack)
divided by the slots. In random play at batch 1024 a slot keeps about 28 records on average and
some over 400; the pool holds the batch's peak total plus a step's room.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import fields
from typing import Any

import numpy as np

from kiaule_env.kiauliaganys import compiled as C
from kiaule_env.kiauliaganys import rules
from kiaule_env.kiauliaganys.rules import DRAG, MATCH, OVER, Config, State
from kiaule_env.vector import rng
from kiaule_env.vector.kernels import kernel_decorator

#: G10a records the batch's pool holds at first, per slot (it grows when the batch needs more)
START_RECORDS = 8

# the bookkeeping before the twin's part of a row (``x``: the row's first EXTRA_WORDS words)
X_FACE_UP = 0
X_NOT_SUIT = X_FACE_UP + C.MAX_SEATS
X_YEARS = X_NOT_SUIT + 4 * C.MAX_SEATS
X_DEALS = X_YEARS + C.MAX_SEATS
X_DEALER = X_DEALS + 1
X_RNG = X_DEALER + 1
X_MARK = X_RNG + rng.RNG_WORDS  # the G10a marker (:func:`_marker`) of the records kept
X_NEWEST = X_MARK + 1  # the slot's newest G10a record in the pool (-1: none)
# what the slot's observation holds now in its bit slices (each step writes what changed)
X_SHOWN_HAND = X_NEWEST + 1  # the hand in the hand slice
X_SHOWN_TOP = X_SHOWN_HAND + 1  # the card marked as the fund's top (-1: none)
X_SHOWN_FUND = X_SHOWN_TOP + 1  # the fund's cards
X_SHOWN_UP = X_SHOWN_FUND + 1  # per relative seat, the face-up cards in its slice
#: words of the bookkeeping, the first of a row (the twin's array follows)
EXTRA_WORDS = X_SHOWN_UP + C.MAX_SEATS

_KEY_WORDS = C.key_words(C.MAX_CARDS)  # the most words a packed G10a key has
#: in the twin's part of a row, the packed G10a key of the position being counted (``KEY_WORDS``
#: words where the twin's own arrays start their history: a row's twin array has none)
KEY = C.HISTORY

# a G10a record of the pool: its key's ``KEY_WORDS`` words, then these columns (after the key)
R_TALLY = 0  # the slot whose history it is << 32 | the position's occurrences
R_NEXT = 1  # the slot's next older record, or the next free record (-1: none)
#: columns of a record besides the key
RECORD_EXTRA = 2
# the pool's free records (``_free``, int32): their number, then the records, a stack
FREE_COUNT = 0
_FINGERPRINT = 0x7FFFFFFF  # an index entry: fingerprint << 32 | record + 1 (0: empty)
_RECORD_BITS = 0xFFFFFFFF
_COUNT_BITS = 0xFFFFFFFF  # a record's count in its tally word

# float parameters of the observation (``_params``)
F_SCALE = 0  # 1 / deck size
F_TURNS = 1  # 1 / max_turns
F_YEARS = 2  # 1 / match_years (0 outside a match)
F_REPETITION = 3  # 1 / repetition (0 with G10a off)


#: numba kernels whose cache also goes stale with the twin, the generator or the rules
_kernel = kernel_decorator(C, rng, rules)


# ---------------------------------------------------------------------------------- observation
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
        seat = (me + step) % n
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
) -> None:
    """The observation of the seat to act (``encoding.ObservationEncoder``; zeros once over),
    written over the previous one: the bit slices (hand, fund, face-up cards) only where their
    cards changed, every other entry in full. ``offsets``/``chances``: :func:`_chance_table`,
    ``buf``: scratch."""
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
    fund = 0
    length = s[C.FUND_LEN]
    for i in range(length):
        fund |= 1 << s[C.FUND + i]
    _flip(obs, 2 * d, x[X_SHOWN_FUND], fund)
    x[X_SHOWN_FUND] = fund
    top = s[C.FUND + length - 1] if length else -1
    if top != x[X_SHOWN_TOP]:
        if x[X_SHOWN_TOP] >= 0:
            obs[d + x[X_SHOWN_TOP]] = 0.0
        if top >= 0:
            obs[d + top] = 1.0
        x[X_SHOWN_TOP] = top
    seen = hand | fund
    base = 3 * d
    req = C._required(s)
    for k in range(8):
        obs[base + k] = 0.0
    obs[base + (4 if req < 0 else req)] = 1.0  # G3
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
) -> int:
    """Writes the slot's observation and mask; returns the seat to act (-1 once over)."""
    _write_obs(s, x, obs, f, offsets, chances, buf)
    mask[:] = 0
    if s[C.PHASE] == OVER:
        return -1
    for i in range(C.legal(s, s[C.TO_ACT], buf)):
        mask[buf[i]] = 1
    return s[C.TO_ACT]


# ---------------------------------------------------------------------------------- moves
@_kernel
def _forget(s: np.ndarray, x: np.ndarray, seat: int, card: int) -> None:
    """A card leaves ``seat``'s hand (``rules._remove_from_hand``): a face-up card is no longer
    face up; a hidden suited card may have been one of the search pick-ups, so each other
    suit's ``not_suit`` count drops by one (not below 0)."""
    bit = 1 << card
    if x[X_FACE_UP + seat] & bit:
        x[X_FACE_UP + seat] &= ~bit
        return
    suit = s[C.SUIT + card]
    if suit < 0:
        return
    for t in range(4):
        at = X_NOT_SUIT + 4 * seat + t
        if t != suit and x[at] > 0:
            x[at] -= 1


@_kernel
def _apply(s: np.ndarray, x: np.ndarray, action: np.ndarray, rewards: np.ndarray) -> None:
    """The twin's ``apply`` of ``action[0]`` plus the information-set bookkeeping it leaves
    out (G4 ``not_suit``, G5 face-up cards)."""
    a = action[0]
    seat = s[C.TO_ACT]
    d = s[C.D]
    ns = s[C.NSUITED]
    search = d + ns + 4 * (d - ns)
    if a < search:  # a play or a drag: one card leaves the hand
        card = a if a < d else a - d if a < d + ns else ns + (a - d - ns) // 4
        _forget(s, x, seat, card)
        C.apply(s, action, rewards)
    elif a == search:  # G4: the misses are known not of the required suit
        req = C._required(s)
        before = s[C.COUNT + seat]
        C.apply(s, action, rewards)
        picked = s[C.COUNT + seat] - before
        if picked > 0:
            x[X_NOT_SUIT + 4 * seat + req] += picked
    elif a == search + 1:  # G5: the taken card is face up in his hand
        card = s[C.FUND + s[C.FUND_LEN] - 1]
        C.apply(s, action, rewards)
        x[X_FACE_UP + seat] |= 1 << card
    else:
        C.apply(s, action, rewards)


# ---------------------------------------------------------------------------------- deals
@_kernel
def _lay_out(s: np.ndarray, x: np.ndarray, dealer: int, deck: np.ndarray) -> None:
    """``rules.new_deal`` in the row: ``deck`` (deck positions, top first) with position 0
    starting the open fund and the rest face down (G2); the player after ``dealer`` acts
    first. Match years, deals and the generator are kept (G11); the slot's G10a records are
    already freed (:func:`_drop_history`)."""
    n = s[C.N]
    d = s[C.D]
    s[C.PHASE] = MATCH
    s[C.TO_ACT] = (dealer + 1) % n
    s[C.LAST_TURN] = 0
    s[C.NAMED] = -1
    s[C.TURNS] = 0
    s[C.FUND_LEN] = 1
    s[C.FD_LEN] = d - 1
    s[C.LOSER] = -1
    s[C.TAIL] = -1
    s[C.ENDING] = C.RUNNING
    s[C.REPEATS] = 0
    for t in range(C.MAX_SEATS):
        s[C.HAND + t] = 0
        s[C.COUNT + t] = 0
        s[C.HAD_TURN + t] = 0
        s[C.OUT + t] = 0
        x[X_FACE_UP + t] = 0
    for k in range(4 * C.MAX_SEATS):
        x[X_NOT_SUIT + k] = 0
    for k in range(2 * C.MAX_CARDS):
        s[C.FUND + k] = -1
    s[C.FUND] = deck[0]
    for k in range(d - 1):
        s[C.FACE_DOWN + k] = deck[d - 1 - k]
    x[X_DEALER] = dealer


@_kernel
def _deal(s: np.ndarray, x: np.ndarray, dealer: int, deck: np.ndarray) -> None:
    """A deal shuffled from the slot's generator (``Deck.shuffled``: ``rng.permutation``)."""
    rng.permutation(x, X_RNG, s[C.D], deck)
    _lay_out(s, x, dealer, deck)


@_kernel
def _deal_over(s: np.ndarray, x: np.ndarray, target: int, deck: np.ndarray) -> bool:
    """After a deal's last step: its years (G11) and, in a match not yet decided, the next deal
    (``rules.next_deal``: the loser deals, or the player who caught the pig by the tail, else
    the deal passes to the left). True when the episode is over."""
    n = s[C.N]
    loser = s[C.LOSER]
    x[X_DEALS] += 1
    if loser >= 0:
        x[X_YEARS + loser] += s[C.COUNT + loser]
    if target <= 0:
        return True
    for t in range(n):
        if x[X_YEARS + t] >= target:
            return True
    if loser >= 0:
        dealer = loser
    elif s[C.TAIL] >= 0:
        dealer = s[C.TAIL]
    else:
        dealer = (x[X_DEALER] + 1) % n
    _deal(s, x, dealer, deck)
    return False


@_kernel
def _reset_rows(
    state: np.ndarray,
    slots: np.ndarray,
    seeds: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
    agent: np.ndarray,
    f: np.ndarray,
    offsets: np.ndarray,
    chances: np.ndarray,
    records: np.ndarray,
    index: np.ndarray,
    free: np.ndarray,
) -> None:
    """New episodes in ``slots`` (their G10a records freed first: a slot may be reset in the
    middle of a deal): each generator seeded as ``seeding.np_random(seed)``, the first deal
    shuffled from it (``Engine.new_episode``), dealt by the last seat (RULES §0)."""
    buf = np.empty(2 * C.MAX_CARDS + 16, dtype=np.int64)
    for k in range(slots.shape[0]):
        i = slots[k]
        x = state[i, :EXTRA_WORDS]
        s = state[i, EXTRA_WORDS:]
        _drop_history(s, x, records, index, free)
        rng.seed(x, X_RNG, seeds[k])
        for t in range(C.MAX_SEATS):
            x[X_YEARS + t] = 0
        x[X_DEALS] = 0
        _deal(s, x, s[C.N] - 1, buf)
        _clear_obs(x, obs[i])
        agent[i] = _write_slot(s, x, obs[i], mask[i], f, offsets, chances, buf)


@_kernel
def _step_rows(
    state: np.ndarray,
    actions: np.ndarray,
    rewards: np.ndarray,
    terminated: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
    agent: np.ndarray,
    f: np.ndarray,
    offsets: np.ndarray,
    chances: np.ndarray,
    target: int,
    records: np.ndarray,
    index: np.ndarray,
    free: np.ndarray,
) -> None:
    """One step of every slot whose action is not -1: the move (G10a counted in the pool:
    ``records``, ``index``, ``free``, with room for a record per slot), every seat's reward
    delta (G12), the end of the episode, and the next observation and mask of the slots that
    go on.

    In three passes over the batch, each slot's work in its order: the moves (and the G10a
    positions to count, packed), the counts (a short loop, so that the index lookups of many
    slots, cache misses, overlap), then the G10a ends, the episodes' ends and the views."""
    buf = np.empty(2 * C.MAX_CARDS + 16, dtype=np.int64)
    action = np.empty(1, dtype=np.int64)
    deltas = np.zeros(C.MAX_SEATS, dtype=np.float64)
    players = rewards.shape[1]
    n = state.shape[0]
    counted = np.empty(n, dtype=np.int64)  # -1, or the position's fingerprint, then its count
    key = np.empty(_KEY_WORDS, dtype=np.int64)  # the G10a key being packed
    for i in range(n):
        counted[i] = -1
        if actions[i] < 0:  # a slot that waits (``partial_steps``)
            for t in range(players):
                rewards[i, t] = 0.0
            terminated[i] = False
            continue
        x = state[i, :EXTRA_WORDS]
        s = state[i, EXTRA_WORDS:]
        for t in range(players):
            deltas[t] = 0.0
        action[0] = actions[i]
        turns = s[C.TURNS]
        _apply(s, x, action, deltas)
        for t in range(players):
            rewards[i, t] = deltas[t]
        # G10a: a turn ended and the deal goes on (the twin's own count, which its arrays
        # without history room leave out)
        if s[C.TURNS] > turns and s[C.PHASE] != OVER and C._counts_position(s):
            counted[i] = _pack_turn_start(s, x, i, records, index, free, key)
    for i in range(n):
        if counted[i] >= 0:
            x = state[i, :EXTRA_WORDS]
            s = state[i, EXTRA_WORDS:]
            counted[i] = _count_position(s, x, i, records, index, free, counted[i])
    for i in range(n):
        if actions[i] < 0:
            continue
        x = state[i, :EXTRA_WORDS]
        s = state[i, EXTRA_WORDS:]
        if counted[i] > 0:  # the twin's G10a count and end (the move itself ended nothing)
            for t in range(players):
                deltas[t] = 0.0
            C._repeated(s, counted[i], deltas)
            for t in range(players):
                rewards[i, t] = deltas[t]
        done = False
        if s[C.PHASE] == OVER:
            _drop_history(s, x, records, index, free)  # the deal's positions never recur
            done = _deal_over(s, x, target, buf)
        terminated[i] = done
        if not done:
            agent[i] = _write_slot(s, x, obs[i], mask[i], f, offsets, chances, buf)


# ---------------------------------------------------------------------------------- G10a pool
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
def _pack_turn_start(
    s: np.ndarray,
    x: np.ndarray,
    slot: int,
    records: np.ndarray,
    index: np.ndarray,
    free: np.ndarray,
    key: np.ndarray,
) -> int:
    """G10a in a row (its twin array keeps no history): the position the turn starts from,
    packed by the twin's ``_pack_key_into`` the scratch ``key`` (in the cache: packing ORs
    field by field) and copied to ``s[KEY:]``; returns its :func:`_fingerprint`, for
    :func:`_count_position`. When the position's marker (:func:`_marker`) changed, the slot's
    older records can never match again: they are freed first, so a slot keeps only the
    positions since the last irreversible change (the counts are the engine's)."""
    C._pack_key_into(s, key, 0)
    for w in range(s[C.KEY_WORDS]):
        s[KEY + w] = key[w]
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
_RULE_KEYWORDS = tuple(f.name for f in fields(Config))


def _config(options: Mapping[str, Any]) -> Config:
    """The rules ``Config`` of ``options`` (the env's rule keywords), validated as the env
    validates them (``ValueError`` naming the keyword or value and what is allowed)."""
    unknown = sorted(set(options) - set(_RULE_KEYWORDS))
    if unknown:
        raise ValueError(
            f"unknown keyword(s) {', '.join(map(repr, unknown))} for kiauliaganys; "
            f"allowed: {', '.join(_RULE_KEYWORDS)}"
        )
    return Config(**options)


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


def _rng_words(generator: np.random.Generator | None) -> np.ndarray:
    """A numpy ``PCG64`` generator's state as the ``kiaule_env.vector.rng`` words (zeros for
    None: a state with no later deals to shuffle)."""
    words = np.zeros(rng.RNG_WORDS, dtype=np.uint64)
    if generator is None:
        return words.view(np.int64)
    state = generator.bit_generator.state
    if state["bit_generator"] != "PCG64":
        raise ValueError(
            f"the state's generator is {state['bit_generator']}; only PCG64 (what "
            "seeding.np_random builds) can be loaded into a batched slot"
        )
    low = (1 << 64) - 1
    value, inc = state["state"]["state"], state["state"]["inc"]
    words[:] = [
        value >> 64,
        value & low,
        inc >> 64,
        inc & low,
        state["has_uint32"],
        state["uinteger"],
    ]
    return words.view(np.int64)


class KiauliaganysVector:
    """``num_envs`` Kiauliaganys episodes stepped at once (the per-game implementation of
    ``kiaule_env.vector``; the module docstring has the row layout).

    ``obs``/``mask``/``agent`` are the seat to act's observation (exactly the AEC env's
    ``observe``), its action mask and the seat, per slot; a step writes only what changed in
    them, so nothing else may write into them. Every option of the env is supported. A slot
    whose action is -1 waits. The G10a pool (``_records``, ``_index``, ``_free``: the module
    docstring) is shared by the slots.
    """

    #: ``step`` leaves the slots whose action is -1 as they are (``VectorEnv.step(active=…)``)
    partial_steps = True

    def __init__(self, num_envs: int, options: Mapping[str, Any]) -> None:
        config = _config(options)
        if config.repetition is not None and min(config.repetition, config.max_turns) > _COUNT_BITS:
            raise ValueError(
                f"max_turns={config.max_turns} with repetition={config.repetition} is not "
                f"supported by the batched env: a G10a count is kept in 32 bits (max_turns or "
                f"repetition at most {_COUNT_BITS})"
            )
        deck = config.the_deck
        d = deck.size
        suited = sum(1 for c in deck.cards if c < 52)
        n = config.num_players
        self.config = config
        self.num_envs = num_envs
        self.num_players = n
        self.obs_size = 3 * d + 25 + 13 * n + n * d
        self.num_actions = d + suited + 4 * (d - suited) + 3
        self._cards = deck.cards
        self._pips = [int(config.pips_table[c]) for c in deck.cards]
        self._words = C.key_words(d)
        # the twin's array of a row has no history room (CAPACITY 0); the KEY words follow it
        self.state = np.zeros((num_envs, EXTRA_WORDS + C.HISTORY + self._words), dtype=np.int64)
        self.state[:, EXTRA_WORDS : EXTRA_WORDS + C.HISTORY] = C._template(config, 0)
        self.state[:, X_NEWEST] = -1
        # the G10a pool: records, their index, the free stack (empty with the rule off)
        self._records = np.zeros((0, self._words + RECORD_EXTRA), dtype=np.int64)
        self._index = np.zeros(_index_size(0), dtype=np.int64)
        self._free = np.zeros(1, dtype=np.int32)
        self._pooled = config.repetition is not None
        if self._pooled:
            self._reserve(START_RECORDS * num_envs)
        self._target = config.match_years or 0
        self._params = np.array(
            [
                1.0 / d,
                1.0 / config.max_turns,
                1.0 / config.match_years if config.match_years else 0.0,
                1.0 / config.repetition if config.repetition else 0.0,
            ]
        )
        self._offsets, self._chances = _chance_table(d)  # G4's match chances, looked up
        self.obs = np.zeros((num_envs, self.obs_size), dtype=np.float32)
        self.mask = np.zeros((num_envs, self.num_actions), dtype=np.int8)
        self.agent = np.full(num_envs, -1, dtype=np.int64)

    # ------------------------------------------------------------------ the contract
    def reset_slots(self, slots: np.ndarray, seeds: np.ndarray) -> None:
        """New episodes in ``slots``, each the deal of ``raw_env(**options).reset(seed=…)``."""
        slots = np.ascontiguousarray(slots, dtype=np.int64)
        seeds = np.ascontiguousarray(seeds, dtype=np.int64)
        _reset_rows(
            self.state,
            slots,
            seeds,
            self.obs,
            self.mask,
            self.agent,
            self._params,
            self._offsets,
            self._chances,
            self._records,
            self._index,
            self._free,
        )

    def step(self, actions: np.ndarray, rewards: np.ndarray, terminated: np.ndarray) -> None:
        """One legal action per slot (checked by the caller; -1: the slot waits): rewards,
        ends, next views."""
        if self._pooled and self._free[FREE_COUNT] < self.num_envs:
            self._reserve(self.num_envs)  # a record per slot at most
        _step_rows(
            self.state,
            np.ascontiguousarray(actions, dtype=np.int64),
            rewards,
            terminated,
            self.obs,
            self.mask,
            self.agent,
            self._params,
            self._offsets,
            self._chances,
            self._target,
            self._records,
            self._index,
            self._free,
        )

    def results(self, slots: np.ndarray) -> list[dict[str, Any]]:
        """The result dicts (``rules.result``, G14; in a match also G11's) of the episodes
        that just ended in ``slots``."""
        picked = np.asarray(slots, dtype=np.int64)
        rows = self.state[picked, : EXTRA_WORDS + C.HAD_TURN].tolist()  # Python ints, at once
        return [self._result(row[:EXTRA_WORDS], row[EXTRA_WORDS:]) for row in rows]

    def load_state(self, slot: int, state: Any) -> None:
        """Put an engine ``State`` (information-set bookkeeping included) into ``slot`` and
        write its observation, mask and seat to act. Of its G10a positions the slot keeps
        those with the newest one's marker (:func:`_marker`: the others can never recur)."""
        self._check_state(state)
        if self._pooled:
            _drop_slot(self.state, slot, self._records, self._index, self._free)
        x, row = self.state[slot, :EXTRA_WORDS], self.state[slot, EXTRA_WORDS:]
        head = C.encode_head(state)
        row[C.PHASE : C.HISTORY] = head[C.PHASE : C.HISTORY]
        row[C.HISTORY :] = 0
        row[C.RECORDS] = 0
        self._load_memory(x, state)
        x[X_NEWEST] = -1
        if self._pooled and state.positions:
            mark = int(x[X_MARK])
            kept = [(k, n) for k, n in state.positions.items() if _key_marker(k) == mark]
            self._reserve(len(kept) + self.num_envs)
            pos = [int(p) for p in self.config.the_deck.position]
            for key, count in kept:
                packed = np.array(C._key({}, key, pos), dtype=np.int64)
                _load_record(
                    self.state, slot, packed, count, self._records, self._index, self._free
                )
        buf = np.empty(2 * C.MAX_CARDS + 16, dtype=np.int64)
        _clear_obs(x, self.obs[slot])
        self.agent[slot] = _write_slot(
            row, x, self.obs[slot], self.mask[slot], self._params, self._offsets, self._chances, buf
        )

    def state_bytes(self) -> int:
        """Bytes of compiled state per slot: the row, plus the batch's G10a pool (records,
        index, free stack) divided by the slots. The pool grows with the batch's total history
        (the records of all slots at once), never with one slot's longest."""
        pool = self._records.nbytes + self._index.nbytes + self._free.nbytes
        row = self.state.shape[1] * self.state.itemsize
        return int(row + math.ceil(pool / self.num_envs))

    # ------------------------------------------------------------------ helpers
    def _check_state(self, state: Any) -> None:
        if not isinstance(state, State):
            raise TypeError(f"state must be a kiauliaganys rules.State, got {type(state).__name__}")
        if state.config != self.config:
            raise ValueError(
                f"the state's configuration {state.config} is not this batch's {self.config}"
            )
        if len(state.decks) > state.deals + 1:
            raise ValueError(
                "the state has stacked decks for later deals of its match; a batched slot "
                "shuffles later deals from the episode's generator only"
            )

    def _load_memory(self, x: np.ndarray, state: State) -> None:
        """The bookkeeping words ``x`` of ``state`` (face-up cards, not_suit, years, dealer,
        generator)."""
        x[:] = 0
        position = self.config.the_deck.position
        for seat, cards in enumerate(state.face_up):
            x[X_FACE_UP + seat] = sum(1 << int(position[c]) for c in cards)
        for seat, counts in enumerate(state.not_suit):
            x[X_NOT_SUIT + 4 * seat : X_NOT_SUIT + 4 * seat + 4] = counts
        x[X_YEARS : X_YEARS + self.num_players] = state.match_years
        x[X_DEALS] = state.deals
        x[X_DEALER] = state.dealer
        x[X_RNG : X_RNG + rng.RNG_WORDS] = _rng_words(state.rng)
        if state.positions:  # the marker of the newest record (``positions`` keeps its order)
            x[X_MARK] = _key_marker(next(reversed(state.positions)))

    def _reserve(self, needed: int) -> None:
        """At least ``needed`` free G10a records: the pool grows by an eighth (at least what is
        missing), the new records join the free ones and the index is rebuilt."""
        free = int(self._free[FREE_COUNT])
        if free >= needed:
            return
        old = self._records
        start = old.shape[0]
        size = start + max(needed - free, start // 8)
        if size >= 1 << 31:
            raise ValueError(f"a batch's G10a pool cannot pass {(1 << 31) - 1} records")
        records = np.zeros((size, old.shape[1]), dtype=np.int64)
        records[:start] = old
        stack = np.zeros(1 + size, dtype=np.int32)
        stack[: 1 + free] = self._free[: 1 + free]
        stack[1 + free : 1 + free + size - start] = np.arange(size - 1, start - 1, -1)
        stack[FREE_COUNT] = free + size - start
        index = np.zeros(_index_size(size), dtype=np.int64)
        _reindex(self.state, records, index, self._words)
        self._records, self._index, self._free = records, index, stack

    def _result(self, x: list[int], s: list[int]) -> dict[str, Any]:
        """``rules.result`` of the finished deal of a row (bookkeeping ``x``, the twin's array
        ``s`` up to its hands and counts)."""
        loser, tail, ending = s[C.LOSER], s[C.TAIL], s[C.ENDING]
        years = piglets = 0
        if loser >= 0:
            years = s[C.COUNT + loser]
            hand = s[C.HAND + loser]
            while hand:  # his cards' pips (G9), over the set bits only
                low = hand & -hand
                piglets += self._pips[low.bit_length() - 1]
                hand ^= low
        result: dict[str, Any] = {
            "loser": f"player_{loser}" if loser >= 0 else None,
            "years": years,
            "piglets": piglets,
            "capped": ending == C.ENDED_CAP,
            "turns": s[C.TURNS],
            "caught_by_tail": f"player_{tail}" if tail >= 0 else None,
            "repetition": ending == C.ENDED_REPETITION,
        }
        if self._target:
            years_row = x[X_YEARS : X_YEARS + self.num_players]
            result["match_years"] = {f"player_{t}": y for t, y in enumerate(years_row)}
            result["deals"] = x[X_DEALS]
        return result
