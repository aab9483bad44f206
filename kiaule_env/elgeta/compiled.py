"""Elgeta's compiled (numba) playout twin: RULES §4 (E3–E9) on a flat ``int64`` array.

Why a second implementation
---------------------------

Search agents and benchmarks (:mod:`kiaule_env.core.simulate`) play the current deal to its end
thousands of times, which the Python engine (:mod:`kiaule_env.elgeta.engine`) is too slow for. This
module implements the same rules again as ``numba.njit(cache=True)`` functions on one ``int64``
array per state, many times faster (``kiaule bench --engine``). The Python engine stays the
reference (the env, the records and the tests run on it); this twin is only a faster copy of it, and
``tests/elgeta/test_compiled.py`` verifies it against the engine: seeded random deals of every
option variant (and stacked scenarios for the rare endings: E5 draws, E8 cycles, capped ties, all
aces), played through both with the same encoded array, the same acting seat, the same legal actions
and the same reward deltas after every step, and the same last step.

What it covers
--------------

Every configuration of :class:`~kiaule_env.elgeta.rules.Config`: 2, 3 or 4 players, the 52-,
36- and 32-card decks, any ``max_tricks`` that fits an ``int64`` (below ``2**62``;
:func:`supports` is ``False`` above it) and ``stop_on_all_aces``. A *deal* is the whole game
(Elgeta is one deal; its engine never reports a deal's end in ``step_info``).

* E3: one action, ``play`` = 0 (``PLAY_ACTION``); the seat to act is ``queue[queue_pos]``.
* E4/E5: a round's single highest rank takes the trick; a tie starts a round of every player
  still in who has cards (from the leader clockwise), the others becoming beggars at once; one
  able player takes the trick without adding; nobody able is a draw (``ENDING_DRAW``).
* E6/E7: the trick goes under the taker's pile in play order; empty piles are out; the last
  player with cards wins.
* E8: the checks after each trick run in the engine's order: E7, all aces (option), repetition,
  cap (most cards wins, a tie for most is a draw).
* E9: at the step that ends the game the winner gets ``+1.0``, every other seat
  ``-1.0 / (n - 1)``, a draw ``0.0``: exactly the engine's floats.

The E8 repetition rule without a history
----------------------------------------

The engine keeps the position (leader and every pile in order) at the start of every trick and
ends the game as a draw when one repeats. Keeping that history in the array would make it grow
with ``max_tricks``. But Elgeta has no decisions and no chance after the deal, so the rest of the
game is a function of the state: :func:`encode` plays it ahead once (:func:`_cycle_at`, on a copy,
against the engine's position history and the positions it meets) and stores the trick count at
which a repetition would end it in ``CYCLE_AT`` (0: no repetition before another ending). Every
later state of the same game has the same value, which is why a step by step ``apply`` and a
fresh ``encode`` agree (the test checks it at every step), and why a state whose history does not
come from its own past (``engine.resample_hidden`` keeps the real game's history) is handled
exactly like the engine handles it. The look-ahead compares whole positions (a 64-bit hash only
finds the candidates), so it is exact. It makes :func:`encode` cost a few playouts (figures in
``docs/compiled-twins.md``).

Randomness
----------

None inside a deal: E2's shuffle is the deal itself, which :func:`encode` takes from the engine
state. A random playout picks uniformly among the legal actions, and Elgeta always has exactly
one (E3: ``play``), so :func:`random_playout` draws nothing (its ``seed`` is unused and numba's
generator is left alone): every playout of a state is the engine's one continuation, and the
differential test compares the two step by step with nothing to align.

How it was checked
------------------

``tests/elgeta/test_compiled.py`` compares deals at every step (the six descriptor variants and
the default, short capped configurations with and without ``stop_on_all_aces``, stacked random
splits of every player count and deck, stacked scenarios, resampled mid-game states), plus
playouts against an engine replay; ``ELGETA_COMPILED_SCALE`` multiplies its deals. Its
``measure`` times both simulators; the figures are in ``docs/compiled-twins.md``.

Array layout
------------

``SIZE`` (286) ``int64`` values; seats ``0 … n-1`` use the per-seat blocks (``MAX_SEATS`` = 4),
unused slots are 0, so equal states have equal arrays:

=====================  ========================================================================
offset (constant)      content
=====================  ========================================================================
``NUM_PLAYERS``        n (config)
``MAX_TRICKS``         the E8 cap (config)
``STOP_ON_ALL_ACES``   1 if the E8 option is on (config)
``NUM_ACES``           the aces in play (4; 3 with three players)
``OVER``               1 once the game is over
``WINNER``             the winning seat, or -1 (``NOBODY``: running, or a draw)
``ENDING``             ``ENDING_*``: 0 running, 1 last player (E7), 2 E5 draw, 3 all aces,
                       4 cycle, 5 capped (E8)
``TRICKS``             tricks finished (an abandoned E5 trick counts)
``LEADER``             who played first in the current trick
``CYCLE_AT``           the ``TRICKS`` value at which E8 repetition ends the game, 0 for none
                       (0 once over)
``QUEUE_LEN``          seats in the current round's playing order (0 once over)
``QUEUE_POS``          index of the next one to play in it
``ROUND_START``        index in the trick where the newest round begins (E4)
``TRICK_LEN``          cards on the table
``QUEUE`` [4]          the round's seats in playing order
``STILL_IN`` [4]       1 while the seat is not a beggar
``PILE_LEN`` [4]       cards in each pile
``PILES`` [4 × 52]     seat s's pile at ``PILES + s * MAX_CARDS``, top first (card ids of
                       :mod:`kiaule_env.cards`; rank ``card % 13``)
``TRICK`` [52]         the cards on the table in play order
=====================  ========================================================================
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from kiaule_env.elgeta.encoding import PLAY_ACTION
from kiaule_env.elgeta.rules import NOBODY, Config, State

MAX_SEATS = 4
MAX_CARDS = 52
#: ``max_tricks`` must stay below this (the look-ahead uses it as "no cap")
NO_CAP = 2**62

NUM_PLAYERS = 0
MAX_TRICKS = 1
STOP_ON_ALL_ACES = 2
NUM_ACES = 3
OVER = 4
WINNER = 5
ENDING = 6
TRICKS = 7
LEADER = 8
CYCLE_AT = 9
QUEUE_LEN = 10
QUEUE_POS = 11
ROUND_START = 12
TRICK_LEN = 13
QUEUE = 14
STILL_IN = QUEUE + MAX_SEATS
PILE_LEN = STILL_IN + MAX_SEATS
PILES = PILE_LEN + MAX_SEATS
TRICK = PILES + MAX_SEATS * MAX_CARDS
SIZE = TRICK + MAX_CARDS

ENDING_RUNNING = 0
ENDING_LAST_PLAYER = 1  # E7
ENDING_DRAW = 2  # E5: nobody can add
ENDING_ALL_ACES = 3  # E8 option
ENDING_CYCLE = 4  # E8 repetition
ENDING_CAPPED = 5  # E8 max_tricks

ACE_RANK = 12  # card % 13 of an ace (E3: A high)
_SEPARATOR = 255  # ends each pile in a position key, as rules.position_key
_FNV_OFFSET = -3750763034362895579  # 0xcbf29ce484222325 as int64
_FNV_PRIME = 1099511628211
_MIX_1 = -4658895280553007687  # 0xbf58476d1ce4e5b9 as int64 (splitmix64)
_MIX_2 = -7723592293110705685  # 0x94d049bb133111eb as int64

_jit = numba.njit(cache=True)


# ---------------------------------------------------------------------------------- plain Python
def supports(config: Any) -> bool:
    """Whether the twin covers ``config``: every Elgeta configuration with ``max_tricks`` below
    ``2**62`` (an ``int64``; the look-ahead needs one value above every cap)."""
    if not isinstance(config, Config):
        raise TypeError(f"config must be a kiaule_env.elgeta.rules.Config, got {config!r:.80}")
    return config.max_tricks < NO_CAP


def encode(state: State) -> np.ndarray:
    """The array (layout in the module docstring) of an engine state, running or over.

    Runs the game ahead once on a copy to fill ``CYCLE_AT`` (E8, see the module docstring).
    Raises ``TypeError`` for anything but a :class:`~kiaule_env.elgeta.rules.State` and
    ``ValueError`` for a configuration :func:`supports` refuses.
    """
    if not isinstance(state, State):
        raise TypeError(f"state must be a kiaule_env.elgeta.rules.State, got {state!r:.80}")
    config = state.config
    if not supports(config):
        raise ValueError(
            f"max_tricks={config.max_tricks} is too large for the compiled twin; "
            f"it allows max_tricks below 2**62"
        )
    s = np.zeros(SIZE, dtype=np.int64)
    _encode_header(s, state)
    for seat, pile in enumerate(state.piles):
        s[PILE_LEN + seat] = len(pile)
        s[PILES + seat * MAX_CARDS : PILES + seat * MAX_CARDS + len(pile)] = list(pile)
    s[TRICK_LEN] = len(state.trick_cards)
    s[TRICK : TRICK + len(state.trick_cards)] = state.trick_cards
    if not state.over:
        s[CYCLE_AT] = _cycle_at(s, _history(state))
    return s


def _encode_header(s: np.ndarray, state: State) -> None:
    """The scalar fields, the queue and the beggars of ``state`` into ``s``."""
    config = state.config
    s[NUM_PLAYERS] = config.num_players
    s[MAX_TRICKS] = config.max_tricks
    s[STOP_ON_ALL_ACES] = int(config.stop_on_all_aces)
    s[NUM_ACES] = len(state.aces)
    s[OVER] = int(state.over)
    s[WINNER] = state.winner
    s[ENDING] = _ending(state)
    s[TRICKS] = state.tricks
    s[LEADER] = state.leader
    s[ROUND_START] = state.round_start
    if not state.over:
        s[QUEUE_LEN] = len(state.queue)
        s[QUEUE_POS] = state.queue_pos
        s[QUEUE : QUEUE + len(state.queue)] = state.queue
    s[STILL_IN : STILL_IN + config.num_players] = [int(x) for x in state.still_in]


def _ending(state: State) -> int:
    """``ENDING_*`` of the engine's end flags (the order of ``rules.ending``'s checks)."""
    if not state.over:
        return ENDING_RUNNING
    if state.cycle:
        return ENDING_CYCLE
    if state.capped:
        return ENDING_CAPPED
    if state.all_aces:
        return ENDING_ALL_ACES
    return ENDING_DRAW if state.winner == NOBODY else ENDING_LAST_PLAYER


def _history(state: State) -> np.ndarray:
    """The engine's E8 position keys (``rules.position_key`` bytes), one row each, zero-padded
    to whole words and read as little-endian ``int64`` (as :func:`_position_key` packs them).

    All keys of a game have the same length: the leader, every card in play, one separator per
    seat (positions are taken with the table empty).
    """
    width = 1 + len(state.cards_in_play) + state.config.num_players
    keys = list(state.positions)
    if keys and set(map(len, keys)) != {width}:
        raise ValueError(
            f"state.positions holds a key whose length is not {width} (1 + cards in play + "
            "seats): not a position of this game"
        )
    words = (width + 7) // 8
    raw = np.zeros((len(keys), words * 8), dtype=np.uint8)
    raw[:, :width] = np.frombuffer(b"".join(keys), dtype=np.uint8).reshape(len(keys), width)
    return raw.view("<i8").astype(np.int64)


# ---------------------------------------------------------------------------------- the contract
@_jit
def to_act(s: np.ndarray, out: np.ndarray) -> int:
    """The seat to play the next card into ``out[0]``; returns 1, or 0 once the game is over."""
    if s[OVER] != 0:
        return 0
    out[0] = s[QUEUE + s[QUEUE_POS]]
    return 1


@_jit
def legal(s: np.ndarray, seat: int, out: np.ndarray) -> int:
    """``[PLAY_ACTION]`` into ``out`` for the seat to act (E3); 0 actions for anyone else."""
    if s[OVER] != 0 or seat != s[QUEUE + s[QUEUE_POS]]:
        return 0
    out[0] = PLAY_ACTION
    return 1


@_jit
def apply(s: np.ndarray, actions: np.ndarray, rewards: np.ndarray) -> bool:
    """The seat to act plays the top card of his pile (E3); adds the E9 rewards into
    ``rewards`` at the step that ends the game; returns whether it is over.

    Raises ``ValueError`` when the game is over or ``actions`` is not ``[PLAY_ACTION]``.
    """
    if s[OVER] != 0:
        raise ValueError("apply: the game is over; no action is legal")
    if actions.shape[0] != 1 or actions[0] != PLAY_ACTION:
        raise ValueError("apply: actions must be [0] (play, the only move, E3) for the seat to act")
    _play_card(s, rewards)
    return s[OVER] != 0


@_jit
def random_playout(s: np.ndarray, rewards: np.ndarray, seed: int) -> int:
    """Play to the end with uniformly random legal actions; adds the rewards; returns the number
    of steps. Elgeta always has exactly one legal action (E3: ``play``), so there is nothing to
    draw and ``seed`` is not used (numba's generator is left alone)."""
    steps = 0
    while s[OVER] == 0:
        _play_card(s, rewards)
        steps += 1
    return steps


# ---------------------------------------------------------------------------------- the rules
@_jit
def _pop_top(s: np.ndarray, seat: int) -> int:
    """Take the top card of ``seat``'s pile (E3), shifting the rest up."""
    base = PILES + seat * MAX_CARDS
    n = s[PILE_LEN + seat]
    card = s[base]
    for i in range(n - 1):
        s[base + i] = s[base + i + 1]
    s[base + n - 1] = 0
    s[PILE_LEN + seat] = n - 1
    return card


@_jit
def _play_card(s: np.ndarray, rewards: np.ndarray) -> None:
    """One step: the seat to act puts his top card on the table; a full round is decided."""
    seat = s[QUEUE + s[QUEUE_POS]]
    s[TRICK + s[TRICK_LEN]] = _pop_top(s, seat)
    s[TRICK_LEN] += 1
    s[QUEUE_POS] += 1
    if s[QUEUE_POS] == s[QUEUE_LEN]:
        _end_round(s, rewards)


@_jit
def _end_round(s: np.ndarray, rewards: np.ndarray) -> None:
    """E4: the newest round's single highest rank takes the trick; a tie makes everybody still
    in add a card, E5 beggars those who cannot; one able player takes it; nobody is a draw."""
    start = s[ROUND_START]
    best = -1
    top = NOBODY
    tie = False
    for i in range(s[QUEUE_LEN]):  # card i of the round was played by queue[i]
        rank = s[TRICK + start + i] % 13
        if rank > best:
            best, top, tie = rank, s[QUEUE + i], False
        elif rank == best:
            tie = True
    if not tie:
        _take(s, top, rewards)
        return
    n = s[NUM_PLAYERS]
    able = 0
    for k in range(n):  # E4: from the leader clockwise
        seat = (s[LEADER] + k) % n
        if s[STILL_IN + seat] == 0:
            continue
        if s[PILE_LEN + seat] > 0:
            s[QUEUE + able] = seat
            able += 1
        else:  # E5: must add and has nothing: a beggar at once, his cards stay in the trick
            s[STILL_IN + seat] = 0
    if able >= 2:
        for i in range(able, MAX_SEATS):
            s[QUEUE + i] = 0
        s[ROUND_START] = s[TRICK_LEN]
        s[QUEUE_LEN] = able
        s[QUEUE_POS] = 0
    elif able == 1:  # E5: the only one able takes the trick, without adding
        _take(s, s[QUEUE], rewards)
    else:  # E5: nobody can add: a draw, the cards stay on the table
        s[TRICKS] += 1
        _finish(s, NOBODY, ENDING_DRAW, rewards)


@_jit
def _take(s: np.ndarray, taker: int, rewards: np.ndarray) -> None:
    """E6: the trick under the taker's pile in play order; then E7, all aces, E8 repetition and
    the cap, in the engine's order."""
    base = PILES + taker * MAX_CARDS + s[PILE_LEN + taker]
    count = s[TRICK_LEN]
    for i in range(count):
        s[base + i] = s[TRICK + i]
        s[TRICK + i] = 0
    s[PILE_LEN + taker] += count
    s[TRICK_LEN] = 0
    s[TRICKS] += 1
    n = s[NUM_PLAYERS]
    left = 0
    for seat in range(n):  # E7: an empty pile is out
        if s[STILL_IN + seat] != 0 and s[PILE_LEN + seat] == 0:
            s[STILL_IN + seat] = 0
        left += s[STILL_IN + seat]
    if left == 1:  # E7: the last player with cards (the taker) wins
        _finish(s, taker, ENDING_LAST_PLAYER, rewards)
        return
    if s[STOP_ON_ALL_ACES] != 0:
        holder = _ace_holder(s)
        if holder != NOBODY:
            _finish(s, holder, ENDING_ALL_ACES, rewards)
            return
    if s[TRICKS] == s[CYCLE_AT]:  # E8: the position repeats (found by encode's look-ahead)
        _finish(s, NOBODY, ENDING_CYCLE, rewards)
        return
    if s[TRICKS] >= s[MAX_TRICKS]:  # E8 cap: most cards wins, a tie is a draw
        _finish(s, _most_cards(s), ENDING_CAPPED, rewards)
        return
    _start_trick(s, taker)


@_jit
def _ace_holder(s: np.ndarray) -> int:
    """The first seat whose pile holds every ace in play, or ``NOBODY`` (E8 option)."""
    for seat in range(s[NUM_PLAYERS]):
        base = PILES + seat * MAX_CARDS
        aces = 0
        for i in range(s[PILE_LEN + seat]):
            if s[base + i] % 13 == ACE_RANK:
                aces += 1
        if aces > 0 and aces == s[NUM_ACES]:
            return seat
    return NOBODY


@_jit
def _most_cards(s: np.ndarray) -> int:
    """E8 cap: the seat with strictly the most cards, ``NOBODY`` on a tie."""
    best = -1
    seat_best = NOBODY
    for seat in range(s[NUM_PLAYERS]):
        size = s[PILE_LEN + seat]
        if size > best:
            best, seat_best = size, seat
        elif size == best:
            seat_best = NOBODY
    return seat_best


@_jit
def _start_trick(s: np.ndarray, leader: int) -> None:
    """E3: the taker leads; the players still in play from him clockwise."""
    n = s[NUM_PLAYERS]
    s[LEADER] = leader
    s[ROUND_START] = 0
    count = 0
    for k in range(n):
        seat = (leader + k) % n
        if s[STILL_IN + seat] != 0:
            s[QUEUE + count] = seat
            count += 1
    for i in range(count, MAX_SEATS):
        s[QUEUE + i] = 0
    s[QUEUE_LEN] = count
    s[QUEUE_POS] = 0


@_jit
def _finish(s: np.ndarray, winner: int, ending: int, rewards: np.ndarray) -> None:
    """The game is over: E9 rewards (winner +1, the others -1/(n-1), a draw nothing)."""
    s[OVER] = 1
    s[WINNER] = winner
    s[ENDING] = ending
    s[CYCLE_AT] = 0
    for i in range(MAX_SEATS):
        s[QUEUE + i] = 0
    s[QUEUE_LEN] = 0
    s[QUEUE_POS] = 0
    if winner != NOBODY:
        n = s[NUM_PLAYERS]
        for seat in range(n):
            rewards[seat] += 1.0 if seat == winner else -1.0 / (n - 1)


# ---------------------------------------------------------------------------------- E8 look-ahead
@_jit
def _cycle_at(s: np.ndarray, history: np.ndarray) -> int:
    """The ``TRICKS`` value at which the game from ``s`` ends by E8 repetition, or 0.

    Plays a copy (its cycle check and cap off) to the end, keeping every trick-start position in
    a hash set that starts as the engine's ``history`` (keys packed by :func:`_history`); the
    first position already in the set is the repetition. The other endings come first, as in the
    engine: E7 and all aces end the copy, the repetition is checked before the cap.
    """
    t = s.copy()
    t[CYCLE_AT] = 0
    t[MAX_TRICKS] = NO_CAP
    cap = s[MAX_TRICKS]
    capacity = 64
    while capacity < 2 * history.shape[0]:
        capacity *= 2
    rows = np.empty((capacity, history.shape[1]), dtype=np.int64)
    slots = np.full(4 * capacity, -1, dtype=np.int64)  # a power of two, at most 1/4 full
    count = 0
    for r in range(history.shape[0]):
        h = _hash(history[r])
        if _find(rows, slots, history[r], h) < 0:
            rows, slots = _insert(rows, slots, count, history[r], h)
            count += 1
    key = np.empty(history.shape[1], dtype=np.int64)
    dummy = np.zeros(MAX_SEATS, dtype=np.float64)
    while True:
        _play_card(t, dummy)
        if t[OVER] != 0:
            return 0
        if t[TRICK_LEN] != 0:
            continue  # mid-trick (a new trick starts with an empty table)
        _position_key(t, key)
        h = _hash(key)
        if _find(rows, slots, key, h) >= 0:
            return t[TRICKS]
        if t[TRICKS] >= cap:
            return 0
        rows, slots = _insert(rows, slots, count, key, h)
        count += 1


@_jit
def _position_key(s: np.ndarray, key: np.ndarray) -> None:
    """``rules.position_key`` (the leader, then every pile top first, each ending with 255) with
    its bytes packed little-endian into ``int64`` words, zero-padded, as :func:`_history`.
    The word is built in a local and stored when full (cheaper than updating ``key``)."""
    word = s[LEADER]
    shift = 8
    k = 0
    for seat in range(s[NUM_PLAYERS]):
        base = PILES + seat * MAX_CARDS
        size = s[PILE_LEN + seat]
        for i in range(size + 1):
            byte = s[base + i] if i < size else _SEPARATOR
            word |= byte << shift
            shift += 8
            if shift == 64:
                key[k] = word
                k += 1
                word = 0
                shift = 0
    if shift != 0:
        key[k] = word
        k += 1
    for i in range(k, key.shape[0]):
        key[i] = 0


@_jit
def _hash(key: np.ndarray) -> int:
    """A 64-bit hash of the key's words (multiply-xor, then the splitmix64 finalizer so that
    the low bits used as the slot mix every word; wrapping ``int64`` arithmetic)."""
    h = _FNV_OFFSET
    for w in key:
        h = (h ^ w) * _FNV_PRIME
    h = (h ^ (h >> 30)) * _MIX_1
    h = (h ^ (h >> 27)) * _MIX_2
    return h ^ (h >> 31)


@_jit
def _find(rows: np.ndarray, slots: np.ndarray, key: np.ndarray, h: int) -> int:
    """The row index of ``key`` (hash ``h``) in the set, or -1 (linear probing; whole keys are
    compared, so a hash collision cannot make a false repetition)."""
    mask = slots.shape[0] - 1
    i = h & mask
    while slots[i] >= 0:
        r = slots[i]
        same = True
        for j in range(key.shape[0]):
            if rows[r, j] != key[j]:
                same = False
                break
        if same:
            return r
        i = (i + 1) & mask
    return -1


@_jit
def _insert(
    rows: np.ndarray, slots: np.ndarray, count: int, key: np.ndarray, h: int
) -> tuple[np.ndarray, np.ndarray]:
    """Add ``key`` (not in the set) as row ``count``; doubles both arrays when full."""
    if count == rows.shape[0]:
        bigger = np.empty((2 * rows.shape[0], rows.shape[1]), dtype=np.int64)
        bigger[:count] = rows
        rows = bigger
        slots = np.full(4 * rows.shape[0], -1, dtype=np.int64)
        for r in range(count):
            _place(slots, _hash(rows[r]), r)
    rows[count] = key
    _place(slots, h, count)
    return rows, slots


@_jit
def _place(slots: np.ndarray, h: int, index: int) -> None:
    """Put row ``index`` into the first free slot of hash ``h``'s probe sequence."""
    mask = slots.shape[0] - 1
    i = h & mask
    while slots[i] >= 0:
        i = (i + 1) & mask
    slots[i] = index


__all__ = [
    "SIZE",
    "apply",
    "encode",
    "legal",
    "random_playout",
    "supports",
    "to_act",
]
