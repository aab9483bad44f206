"""Batched compiled Kiauliaganys (RULES §2): many deals stepped at once, with observations.

The per-game implementation behind ``kiaule_env.vector.make("kiauliaganys", …)``: each slot of
the batch is one episode in one row of a C-contiguous ``int64`` array. A row starts with the
information-set bookkeeping that the compiled twin leaves out and the observation needs (next to
the deal's words, in the same cache lines); the rest of the row is the compiled twin's array
(:mod:`kiaule_env.kiauliaganys.compiled`, its layout and its ``legal``/``apply`` kernels: one
compiled implementation of the rules), followed by the G10a key of the row's position (in the
twin's packing, kept move by move). The row's layout (a table of the bookkeeping words) is in
:mod:`kiaule_env.kiauliaganys.vector_layout`, whose names this module re-exports. A row is
2,200 bytes for every option.

Each step updates this memory incrementally from the move (a play or drag removes one card
from the face-up set or lowers ``not_suit``, a take adds a face-up card, a search adds the
cards it picked up to ``not_suit``), then writes the slot's observation of the seat to act and
its mask (:mod:`kiaule_env.kiauliaganys.vector_observation`: only what changed), all in
``numba.njit(cache=True)`` kernels looping over the batch.

G10a history: the positions each slot has to count live in one pool per batch, not in the rows
(:mod:`kiaule_env.kiauliaganys.vector_history`: its records, index and free stack, the kernels
that count and free them). After each turn that ends with the deal going on and the face-down
table empty, the step counts the position in the slot's history and hands the count to the
twin's ``_repeated`` (``REPEATS``, the end at the limit). Before a step the pool has a free
record for every slot (a step counts at most one position a slot); it grows by an eighth when it
has not, so the count stays exact for any ``max_turns`` (counts are kept in 32 bits: a
``max_turns`` and a ``repetition`` both past ``2**32 - 1`` are refused).

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
from numba import carray, types
from numba.extending import intrinsic

from kiaule_env.kiauliaganys import compiled as C
from kiaule_env.kiauliaganys import rules, vector_history, vector_layout, vector_observation
from kiaule_env.kiauliaganys.rules import MATCH, OVER, Config, State
from kiaule_env.kiauliaganys.vector_history import (
    _count_position,
    _drop_history,
    _drop_slot,
    _element_pointer,
    _index_size,
    _key_marker,
    _load_record,
    _prefetch,
    _reindex,
    _start_key,
    _track_key,
    _turn_start_key,
)
from kiaule_env.kiauliaganys.vector_layout import (
    _COUNT_BITS,
    EXTRA_WORDS,
    FREE_COUNT,
    RECORD_EXTRA,
    X_DEALER,
    X_DEALS,
    X_FACE_UP,
    X_MARK,
    X_NEWEST,
    X_NOT_SUIT,
    X_RNG,
    X_SHOWN_FUND,
    X_YEARS,
)

# the rest of the layout, re-exported: every name of it reads as ``vector.…`` too
from kiaule_env.kiauliaganys.vector_layout import KEY as KEY
from kiaule_env.kiauliaganys.vector_layout import R_NEXT as R_NEXT
from kiaule_env.kiauliaganys.vector_layout import R_TALLY as R_TALLY
from kiaule_env.kiauliaganys.vector_layout import X_SHOWN_HAND as X_SHOWN_HAND
from kiaule_env.kiauliaganys.vector_layout import X_SHOWN_TOP as X_SHOWN_TOP
from kiaule_env.kiauliaganys.vector_layout import X_SHOWN_UP as X_SHOWN_UP
from kiaule_env.kiauliaganys.vector_observation import (
    _chance_table,
    _clear_obs,
    _suit_of,
    _write_slot,
)
from kiaule_env.vector import rng
from kiaule_env.vector.kernels import kernel_decorator

#: G10a records the batch's pool holds at first, per slot (it grows when the batch needs more)
START_RECORDS = 8
#: words of a step's integer scratch: the action being applied, then the legal actions and
#: a deck's worth of cards
WORK_WORDS = 2 * C.MAX_CARDS + 17

#: numba kernels whose cache also goes stale with the twin, the generator, the rules, the row
#: layout, the G10a pool or the observation (whose kernels the steps call)
_kernel = kernel_decorator(C, rng, rules, vector_layout, vector_history, vector_observation)


# ---------------------------------------------------------------------------------- rows
@intrinsic
def _address(typingctx: Any, array: Any, offset: Any) -> Any:
    """A pointer to the element ``offset`` of the C-contiguous ``array`` read flat."""
    signature = types.CPointer(array.dtype)(array, offset)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return _element_pointer(context, builder, sig.args[0], args[0], args[1])

    return signature, codegen


@_kernel
def _row(array: np.ndarray, i: int, start: int, size: int) -> np.ndarray:
    """``array[i, start:start + size]`` of a C-contiguous 2-D ``array``, as a view that holds
    no reference to it: numba counts a slice's references to its array with atomic operations,
    which took about a tenth of a step with a few views per slot. The kernels use these views
    only while ``array``, their own argument, is alive."""
    return carray(_address(array, i * array.shape[1] + start), (size,))


@_kernel
def _view(array: np.ndarray) -> np.ndarray:
    """A C-contiguous ``array`` as a view that holds no reference to it (:func:`_row`): for
    a kernel's array arguments, which its callers keep alive, passed on to the per-slot
    functions (each call counts its array arguments' references)."""
    return carray(_address(array, 0), array.shape)


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
    suit = _suit_of(s, card)
    if suit < 0:
        return
    for t in range(4):
        at = X_NOT_SUIT + 4 * seat + t
        if t != suit and x[at] > 0:
            x[at] -= 1


@_kernel
def _apply(s: np.ndarray, x: np.ndarray, action: np.ndarray, rewards: np.ndarray) -> int:
    """The twin's ``apply`` of ``action[0]`` plus the information-set bookkeeping it leaves
    out (G4 ``not_suit``, G5 face-up cards) and, with G10a on, the card fields of the row's
    key (:func:`~kiaule_env.kiauliaganys.vector_history._track_key`). Returns the fund's cards
    after the move: those the observation shows (``SHOWN_FUND``, the fund before it) and the
    move's one card, pushed or taken (a move changes the fund's length by at most one)."""
    a = action[0]
    seat = s[C.TO_ACT]
    hand = s[C.HAND + seat]
    length = s[C.FUND_LEN]
    top = s[C.FUND + length - 1] if length > 0 else 0
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
    if s[C.REP_LIMIT] > 0:
        _track_key(s, seat, hand, length)
    fund = x[X_SHOWN_FUND]
    after = s[C.FUND_LEN]
    if after > length:
        fund |= 1 << s[C.FUND + after - 1]
    elif after < length:
        fund &= ~(1 << top)
    return fund


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
    _start_key(s)


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
    words = state.shape[1] - EXTRA_WORDS
    for k in range(slots.shape[0]):
        i = slots[k]
        x = _row(state, i, 0, EXTRA_WORDS)
        s = _row(state, i, EXTRA_WORDS, words)
        _drop_history(s, x, records, index, free)
        rng.seed(x, X_RNG, seeds[k])
        for t in range(C.MAX_SEATS):
            x[X_YEARS + t] = 0
        x[X_DEALS] = 0
        _deal(s, x, s[C.N] - 1, buf)
        view = _row(obs, i, 0, obs.shape[1])
        _clear_obs(x, view)
        agent[i] = _write_slot(
            s, x, view, _row(mask, i, 0, mask.shape[1]), f, offsets, chances, buf, -1, -1
        )


@_kernel
def _take_rewards(rewards: np.ndarray, i: int, deltas: np.ndarray) -> None:
    """Slot ``i``'s reward deltas (float32, as the env's) from ``deltas``, which go back to
    zeros for the next move."""
    for t in range(rewards.shape[1]):
        rewards[i, t] = deltas[t]
        deltas[t] = 0.0


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
    work: np.ndarray,
    deltas: np.ndarray,
) -> None:
    """One step of every slot whose action is not -1: the move (G10a counted in the pool:
    ``records``, ``index``, ``free``, with room for a record per slot), every seat's reward
    delta (G12), the end of the episode, and the next observation and mask of the slots that
    go on (``work``, ``deltas``: the caller's scratch, :data:`WORK_WORDS` and ``MAX_SEATS``).

    In three passes over the batch, each slot's work in its order: the moves (and the G10a
    positions to count, packed), the counts (a short loop, so that the index lookups of many
    slots, cache misses, overlap), then the G10a ends, the episodes' ends and the views."""
    state, rewards, obs, mask = _view(state), _view(rewards), _view(obs), _view(mask)
    f, offsets, chances = _view(f), _view(offsets), _view(chances)
    records, index, free, deltas = _view(records), _view(index), _view(free), _view(deltas)
    buf = carray(_address(work, 1), (WORK_WORDS - 1,))
    action = carray(_address(work, 0), (1,))
    deltas[:] = 0.0  # and again after each use (:func:`_take_rewards`)
    players = rewards.shape[1]
    n = state.shape[0]
    counted = np.empty(n, dtype=np.int64)  # -1, or the position's fingerprint, then its count
    funds = np.empty(n, dtype=np.int64)  # the fund's cards after the move
    tops = np.empty(n, dtype=np.int64)  # the fund's top card after it (-1: none)
    words = state.shape[1] - EXTRA_WORDS
    for i in range(n):
        counted[i] = -1
        if actions[i] < 0:  # a slot that waits (``partial_steps``)
            for t in range(players):
                rewards[i, t] = 0.0
            terminated[i] = False
            continue
        x = _row(state, i, 0, EXTRA_WORDS)
        s = _row(state, i, EXTRA_WORDS, words)
        action[0] = actions[i]
        turns = s[C.TURNS]
        funds[i] = _apply(s, x, action, deltas)
        tops[i] = s[C.FUND + s[C.FUND_LEN] - 1] if s[C.FUND_LEN] else -1  # in the cache now
        _take_rewards(rewards, i, deltas)
        # G10a: a turn ended and the deal goes on (the count the twin's row leaves out)
        if s[C.TURNS] > turns and s[C.PHASE] != OVER and C._counts_position(s):
            counted[i] = _turn_start_key(s, x, i, records, index, free)
            _prefetch(index, counted[i] & (index.shape[0] - 1))  # the count's first probe
    for i in range(n):
        if counted[i] >= 0:
            x = _row(state, i, 0, EXTRA_WORDS)
            s = _row(state, i, EXTRA_WORDS, words)
            counted[i] = _count_position(s, x, i, records, index, free, counted[i])
    for i in range(n):
        if actions[i] < 0:
            continue
        x = _row(state, i, 0, EXTRA_WORDS)
        s = _row(state, i, EXTRA_WORDS, words)
        if counted[i] > 0:  # the twin's G10a count and end (the move itself ended nothing)
            C._repeated(s, counted[i], deltas)
            _take_rewards(rewards, i, deltas)
        done = False
        if s[C.PHASE] == OVER:
            _drop_history(s, x, records, index, free)  # the deal's positions never recur
            done = _deal_over(s, x, target, buf)
            funds[i] = -1  # a match's next deal: its fund is read
        terminated[i] = done
        if not done:
            view, actions_mask = _row(obs, i, 0, obs.shape[1]), _row(mask, i, 0, mask.shape[1])
            agent[i] = _write_slot(
                s, x, view, actions_mask, f, offsets, chances, buf, funds[i], tops[i]
            )


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


def _line_aligned(rows: int, columns: int) -> np.ndarray:
    """``np.zeros((rows, columns), int64)`` starting on a 64-byte cache line: a G10a record of
    64 bytes (52 cards: a 6-word key and 2 columns) then lies in one line, not across two, so
    each record the pool reads or writes is one cache miss, not two."""
    raw = np.zeros(rows * columns + 8, dtype=np.int64)
    skip = (-raw.ctypes.data % 64) // 8
    return raw[skip : skip + rows * columns].reshape(rows, columns)


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
    ``kiaule_env.vector``; the row layout: :mod:`kiaule_env.kiauliaganys.vector_layout`).

    ``obs``/``mask``/``agent`` are the seat to act's observation (exactly the AEC env's
    ``observe``), its action mask and the seat, per slot; a step writes only what changed in
    them, so nothing else may write into them. Every option of the env is supported. A slot
    whose action is -1 waits. The G10a pool (``_records``, ``_index``, ``_free``:
    :mod:`kiaule_env.kiauliaganys.vector_history`) is shared by the slots.
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
        # the words of a row a result reads (``_result``): the deal's end, match years, counts,
        # hands
        twin = [C.LOSER, C.TAIL, C.ENDING, C.TURNS]
        self._result_words = np.array(
            [EXTRA_WORDS + w for w in twin]
            + [X_DEALS, *range(X_YEARS, X_YEARS + n)]
            + [EXTRA_WORDS + C.COUNT + t for t in range(n)]
            + [EXTRA_WORDS + C.HAND + t for t in range(n)]
        )
        # G9: the pips of the cards of each byte of a hand (positions 8k to 8k + 7), by value
        pips = [int(config.pips_table[c]) for c in deck.cards] + [0] * (-d % 8)
        self._pip_bytes = [
            [sum(pips[8 * k + j] for j in range(8) if value >> j & 1) for value in range(256)]
            for k in range(len(pips) // 8)
        ]
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
        # the observation's float parameters, in the order of ``vector_observation.F_…``
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
        # a step's scratch (``_step_rows``): the kernel views it without counting references
        self._work = np.zeros(WORK_WORDS, dtype=np.int64)
        self._deltas = np.zeros(C.MAX_SEATS, dtype=np.float64)

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
            self._work,
            self._deltas,
        )

    def results(self, slots: np.ndarray) -> list[dict[str, Any]]:
        """The result dicts (``rules.result``, G14; in a match also G11's) of the episodes
        that just ended in ``slots``."""
        picked = np.asarray(slots, dtype=np.int64)
        rows = self.state[picked[:, None], self._result_words].tolist()  # Python ints, at once
        return [self._result(row) for row in rows]

    def load_state(self, slot: int, state: Any) -> None:
        """Put an engine ``State`` (information-set bookkeeping included) into ``slot`` and
        write its observation, mask and seat to act. Of its G10a positions the slot keeps
        those with the newest one's marker (``vector_history._marker``: the others can never
        recur)."""
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
        C._pack_key(row, KEY)  # G10a: the card fields, which the moves keep from here on
        buf = np.empty(2 * C.MAX_CARDS + 16, dtype=np.int64)
        _clear_obs(x, self.obs[slot])
        self.agent[slot] = _write_slot(
            row,
            x,
            self.obs[slot],
            self.mask[slot],
            self._params,
            self._offsets,
            self._chances,
            buf,
            -1,
            -1,
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
        records = _line_aligned(size, old.shape[1])
        records[:start] = old
        stack = np.zeros(1 + size, dtype=np.int32)
        stack[: 1 + free] = self._free[: 1 + free]
        stack[1 + free : 1 + free + size - start] = np.arange(size - 1, start - 1, -1)
        stack[FREE_COUNT] = free + size - start
        index = np.zeros(_index_size(size), dtype=np.int64)
        _reindex(self.state, records, index, self._words)
        self._records, self._index, self._free = records, index, stack

    def _result(self, row: list[int]) -> dict[str, Any]:
        """``rules.result`` of the finished deal of a row, from its words
        :attr:`_result_words` (the deal's end, the match's years, each seat's count and
        hand)."""
        n = self.num_players
        loser, tail, ending, turns, deals = row[:5]
        years = piglets = 0
        if loser >= 0:
            years = row[5 + n + loser]
            hand = row[5 + 2 * n + loser]
            for k, table in enumerate(self._pip_bytes):  # his cards' pips (G9), a byte at a time
                piglets += table[hand >> 8 * k & 0xFF]
        result: dict[str, Any] = {
            "loser": f"player_{loser}" if loser >= 0 else None,
            "years": years,
            "piglets": piglets,
            "capped": ending == C.ENDED_CAP,
            "turns": turns,
            "caught_by_tail": f"player_{tail}" if tail >= 0 else None,
            "repetition": ending == C.ENDED_REPETITION,
        }
        if self._target:
            result["match_years"] = {f"player_{t}": y for t, y in enumerate(row[5 : 5 + n])}
            result["deals"] = deals
        return result
