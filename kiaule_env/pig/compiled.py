"""Pig's compiled playout twin (numba): one round's rules on a flat ``np.int64`` array.

Why a second implementation
---------------------------
Search agents (PIMC, IS-MCTS; :mod:`kiaule_env.core.simulate`) play the current *deal* — one Pig
round, or the current round of a full game — to its end thousands of times per move, more than the
Python engine (:mod:`kiaule_env.pig.rules`) can play in the time a move has (it slows down with more
players); this module plays the same rules on an ``int64`` array with ``numba.njit(cache=True)``
functions, many times faster (``measure`` of ``tests/pig/test_compiled.py`` times both; the figures
are in ``docs/compiled-twins.md``). The first use compiles; later processes load the cache from
``__pycache__``. The engine stays the reference: the env, the observations, the views and every
public result use it. This twin is only a simulator, verified against the engine by the differential
test ``tests/pig/test_compiled.py``: more than 10,000 seeded random deals over every option variant,
played through both, with the same encoded array, acting seats, legal actions of every seat and
reward deltas after every step, and the deal's end at the same step; full games played to their
winner with a collecting policy (eliminations, letters, two-player stock rounds); the uniformity of
the twin's own chance draws; and :func:`random_playout` replayed through the engine.

What it covers
--------------
Every rule that decides legal moves, transitions and rewards within one round, and every option
of :class:`~kiaule_env.pig.rules.Config` (:func:`supports` is True for all of them):

* P2 simultaneous passing to the left (the next seat still in), lowest suit (C D H S) of the
  chosen rank first; P6 ``stock``: the dealer's right discards, the dealer draws, stock and
  discard pile as one queue (the pile turns over unshuffled), D9 two players;
* P3 the nose race: ``nose`` with four of a kind (judged at the start of the step), no cards move
  in a touching step, ``wait`` only in the race and the only move once touched, the race ending
  when at most one has not touched, ``max_race_steps`` counted after the first touching step
  (D2) and the race cut short with the pig drawn among the untouched; ``false_nose="pig"`` (a
  false touch ends the round at once, D1 the first false toucher of the step's order);
* P4 the ``max_passes`` cap right after the last allowed pass (D4), with no pig and no reward;
* P8 ``tokens`` (D6: the nose race renamed, the same rules and actions);
* P5 ``game="full"`` and P7 ``letters``: the round's end eliminates the pig (with ``letters``
  only at his third letter), P9 rewards: in a round game the pig −1 and every other +1/(n−1);
  in a full game −1/(n−1) to an eliminated pig and +1 to the winner when one player is left —
  exactly the floats the engine returns, on the step the round ends.

The deal ends exactly where the Python engine is over or reports ``round_result`` in
``step_info`` (every round's end, also a capped one); after that :func:`to_act` returns 0. The
next round of a full game (its dealer, its ranks, its shuffle) lies beyond the deal's end. The
engine's memory of the round for the views (``passed_counts``, ``received_counts``,
``last_passed``, ``last_received``), the order of the touches (only ``first_nose`` of the
outcome depends on it) and the split of the queue into stock and discard pile (only the
observation's sizes) affect no legal move, transition or reward and are not in the array.

Randomness inside a deal
------------------------
Pig has chance inside a round: the reaction order of players touching in one step (P3, D3) and
the pig of a race cut short. Of these only the pig affects anything within the deal (a touch's
position in the order is never read again inside the round), and in every case the engine's pig
is uniform over a candidate set: the first false toucher of a uniformly ordered step is uniform
over the false touchers (D1), the last of a step in which everybody left touched is uniform
over that step's touchers, and the cut-short pig is uniform over the untouched. The twin draws
exactly that (``np.random.randint`` of numba's own generator, seeded by :func:`random_playout`
or :func:`seed`), and draws only where a pig must be chosen among two or more candidates. For the
differential test, :func:`apply_with_pig` plays a step with the pig of such a draw given (the
engine's pig, read from its ``round_result``); it raises ``ValueError`` when the given pig is not
a candidate, so a wrong candidate set fails the test. The draw's uniformity is tested on its own.

Rollout policy
--------------
:func:`policy_playout` (``rollout="policy"`` of the search agents, their default here) plays the
deal with a cheap counterpart of ``pig/heuristic`` (``agents/pig.py``) on every seat, because random
continuations say little about a Pig move (PIMC with random playouts loses to the heuristic). In a
determinized world it reads the seat's hand from the array: nose at once with four of a kind (never
a false touch, even with ``false_nose``), nose in the race until touched, then wait (P3, P8);
otherwise keep the rank held most and pass a card of a rank held least among the others, ties drawn
uniformly from numba's generator (the heuristic breaks them with its passing memory, which the array
does not keep). With four cards in hand that passes any rank but the kept one, so the only
randomness is the tie-breaks, which makes playouts from one state differ. A policy round is much
shorter than a random one, which with many players often hits the ``max_passes`` cap (figures in
``docs/compiled-twins.md``; ``measure`` of ``tests/pig/test_rollout_policy.py`` gives its steps/s
and playouts/s). :func:`policy_playout_trace` records its actions for the engine-replay test.

Array layout
------------
Seats are ``0 … N−1``; per-seat blocks have room for 13 seats. Cards are the ids of
:mod:`kiaule_env.cards` (``suit * 13 + rank``, rank index ``0`` = 2 … ``12`` = A); ``-1`` marks an
empty slot. Actions are the codec's indices: ``a < R`` passes rank ``a + RANK0``, ``R`` is
``nose`` (``token``), ``R + 1`` is ``wait``.

===================  =====  ===========================================================
offset               size   content
===================  =====  ===========================================================
``N``                1      players at the start of the episode (seats, P1)
``CFG_FULL``         1      1 with ``game="full"`` (P5)
``CFG_STOCK``        1      1 with ``stock`` (P6)
``CFG_LETTERS``      1      1 with ``letters`` (P7)
``CFG_TOKENS``       1      1 with ``tokens`` (P8; D6: no rule reads it)
``CFG_FALSE_NOSE``   1      1 with ``false_nose="pig"`` (P3)
``CFG_MAX_PASSES``   1      ``max_passes`` (P4)
``CFG_MAX_RACE``     1      ``max_race_steps`` (P3)
``RANK0``            1      lowest rank index of the starting deck (action ``a < R``: rank a+RANK0)
``NUM_RANKS``        1      ``R``, ranks of the starting deck (``nose`` = R, ``wait`` = R + 1)
``PHASE``            1      0 passing, 1 race (P3), 2 over (the deal has ended)
``M``                1      players still in
``DEALER``           1      this round's dealer (P5, P6)
``PASSES``           1      passing steps this round (P4, D4)
``RACE_STEPS``       1      race steps after the first touching step (D2)
``NUM_TOUCHED``      1      players who touched this round
``QUEUE_SIZE``       1      cards in stock + discard pile (52 − 4 M with ``stock``, else 0)
``IN``               13     1 if the seat is still in (P5)
``TOUCHED``          13     1 if the seat touched (took a token) this round (P3, P8)
``LETTERS``          13     letters of P-I-G turned over (P7)
``HANDS``            52     seat ``i``'s hand at ``HANDS + 4 i``, in the engine's list order
                            (a pass removes the card and appends the one received, P2)
``QUEUE``            52     P6 stock then discard pile as one ring of ``QUEUE_SIZE`` cards,
                            the stock's top at ``(PASSES mod QUEUE_SIZE)``: every pass
                            takes the front and puts the discard in its place
===================  =====  ===========================================================

``SIZE`` is the array's length. :func:`encode` builds the array from an engine state (plain
Python); :func:`to_act`, :func:`legal`, :func:`apply`, :func:`apply_with_pig`,
:func:`random_playout`, :func:`random_playout_trace`, :func:`policy_playout`,
:func:`policy_playout_trace` and :func:`seed` are ``njit(cache=True)``.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from kiaule_env.pig import rules

# ---------------------------------------------------------------------- layout
N = 0
CFG_FULL = 1
CFG_STOCK = 2
CFG_LETTERS = 3
CFG_TOKENS = 4
CFG_FALSE_NOSE = 5
CFG_MAX_PASSES = 6
CFG_MAX_RACE = 7
RANK0 = 8
NUM_RANKS = 9
PHASE = 10
M = 11
DEALER = 12
PASSES = 13
RACE_STEPS = 14
NUM_TOUCHED = 15
QUEUE_SIZE = 16
IN = 17
TOUCHED = IN + 13
LETTERS = TOUCHED + 13
HANDS = LETTERS + 13
QUEUE = HANDS + 52
SIZE = QUEUE + 52

#: ``PHASE`` values
PASSING = 0
RACE = 1
OVER = 2

_PHASES = {rules.PASSING: PASSING, rules.RACE: RACE, rules.OVER: OVER}
#: most seats (P1), the size of the per-seat blocks
MAX_SEATS = 13
#: letters before a pig leaves (P7)
_LIVES = rules.LIVES


# ---------------------------------------------------------------------- plain Python
def supports(config: Any) -> bool:
    """Whether the twin covers ``config``: every :class:`~kiaule_env.pig.rules.Config` it does.

    Raises ``TypeError`` for anything that is not a Pig ``Config``.
    """
    if not isinstance(config, rules.Config):
        raise TypeError(
            f"config must be a kiaule_env.pig.rules.Config, got {type(config).__name__}"
        )
    return True


def encode(state: Any) -> np.ndarray:
    """The ``int64`` array (layout in the module docstring) of ``state``'s current round.

    A finished episode gives an array whose :func:`to_act` is 0. A state whose ``step_info``
    reports a finished round is already at the next round (P5), which is what is encoded.
    Raises ``TypeError`` for anything that is not a Pig ``rules.State``.
    """
    if not isinstance(state, rules.State):
        raise TypeError(f"state must be a kiaule_env.pig.rules.State, got {type(state).__name__}")
    config = state.config
    s = np.full(SIZE, -1, dtype=np.int64)
    _encode_config(s, config)
    s[PHASE] = _PHASES[state.phase]
    s[M] = len(state.seats_in)
    s[DEALER] = state.dealer
    s[PASSES] = state.passes
    s[RACE_STEPS] = state.race_steps
    s[NUM_TOUCHED] = len(state.touched)
    s[IN : IN + 3 * MAX_SEATS] = 0
    for seat in state.seats_in:
        s[IN + seat] = 1
    for seat in state.touched:
        s[TOUCHED + seat] = 1
    s[LETTERS : LETTERS + config.num_players] = state.letters
    for seat, hand in enumerate(state.hands):
        s[HANDS + 4 * seat : HANDS + 4 * seat + len(hand)] = hand
    queue = state.stock + state.discard
    s[QUEUE_SIZE] = len(queue)
    for i, card in enumerate(queue):
        s[QUEUE + (state.passes + i) % len(queue)] = card
    return s


def _encode_config(s: np.ndarray, config: rules.Config) -> None:
    """The configuration slots (``N`` … ``NUM_RANKS``)."""
    s[N] = config.num_players
    s[CFG_FULL] = int(config.full)
    s[CFG_STOCK] = int(config.stock)
    s[CFG_LETTERS] = int(config.letters)
    s[CFG_TOKENS] = int(config.tokens)
    s[CFG_FALSE_NOSE] = int(config.false_nose == "pig")
    s[CFG_MAX_PASSES] = config.max_passes
    s[CFG_MAX_RACE] = config.max_race_steps
    s[RANK0] = config.start_ranks[0]
    s[NUM_RANKS] = len(config.start_ranks)


# ---------------------------------------------------------------------- compiled: queries
@numba.njit(cache=True)
def to_act(s: np.ndarray, out: np.ndarray) -> int:
    """Writes the seats still in (ascending) into ``out``; returns their number, 0 once over."""
    if s[PHASE] == OVER:
        return 0
    k = 0
    for seat in range(s[N]):
        if s[IN + seat]:
            out[k] = seat
            k += 1
    return k


@numba.njit(cache=True)
def _has_four(s: np.ndarray, seat: int) -> bool:
    """P3: the seat holds all four cards of one rank."""
    h = HANDS + 4 * seat
    r = s[h] % 13
    return s[h + 1] % 13 == r and s[h + 2] % 13 == r and s[h + 3] % 13 == r


@numba.njit(cache=True)
def legal(s: np.ndarray, seat: int, out: np.ndarray) -> int:
    """Writes ``seat``'s legal codec indices ascending into ``out``; returns their number.

    Passing (P2, P3): ``pass R`` for each rank held, ``nose`` with four of a kind (any hand with
    ``false_nose``). Race (P3): ``nose``, ``wait``; only ``wait`` once touched. None when the
    deal is over or the seat is not in.
    """
    if s[PHASE] == OVER or seat < 0 or seat >= s[N] or s[IN + seat] == 0:
        return 0
    nose = s[NUM_RANKS]
    if s[PHASE] == RACE:
        if s[TOUCHED + seat]:
            out[0] = nose + 1
            return 1
        out[0] = nose
        out[1] = nose + 1
        return 2
    h = HANDS + 4 * seat
    r0 = s[RANK0]
    k = 0
    for i in range(4):  # insert each rank once, keeping out[:k] ascending
        a = s[h + i] % 13 - r0
        j = 0
        while j < k and out[j] < a:
            j += 1
        if j < k and out[j] == a:
            continue
        for t in range(k, j, -1):
            out[t] = out[t - 1]
        out[j] = a
        k += 1
    if s[CFG_FALSE_NOSE] or k == 1:  # k == 1: four of a kind
        out[k] = nose
        k += 1
    return k


# ---------------------------------------------------------------------- compiled: one step
@numba.njit(cache=True)
def seed(value: int) -> None:
    """Seeds numba's generator, from which :func:`apply` draws its pigs."""
    np.random.seed(value)


@numba.njit(cache=True)
def _pick(mask: int, forced: int) -> int:
    """A pig uniform over the seats of the bit set ``mask`` (two or more; D3), or ``forced``.

    ``forced >= 0`` (the differential test): that seat, which must be a candidate.
    """
    if forced >= 0:
        if (mask >> forced) & 1:
            return forced
        raise ValueError("apply_with_pig: the given pig is not a candidate of this step's draw")
    count = 0
    m = mask
    while m:
        count += m & 1
        m >>= 1
    k = np.random.randint(0, count)
    seat = 0
    while True:
        if (mask >> seat) & 1:
            if k == 0:
                return seat
            k -= 1
        seat += 1


@numba.njit(cache=True)
def _only(mask: int, forced: int) -> int:
    """The pig of the candidate set ``mask``: its only seat, else a draw (:func:`_pick`)."""
    if mask & (mask - 1):
        return _pick(mask, forced)
    seat = 0
    while not (mask >> seat) & 1:
        seat += 1
    return seat


@numba.njit(cache=True)
def _pass_cards(s: np.ndarray, actions: np.ndarray) -> None:
    """P2 (P6 with stock): every player in passes the lowest suit of his chosen rank left."""
    n = s[N]
    r0 = s[RANK0]
    k = 0
    last = -1
    for seat in range(n):  # each hand: drop the card, keep it in slot 3 for the rotation
        if s[IN + seat] == 0:
            continue
        rank = actions[k] + r0
        k += 1
        h = HANDS + 4 * seat
        best = -1
        at = 0
        for i in range(4):
            c = s[h + i]
            if c % 13 == rank and (best < 0 or c < best):
                best = c
                at = i
        for i in range(at, 3):
            s[h + i] = s[h + i + 1]
        s[h + 3] = best
        last = seat
    carry = s[HANDS + 4 * last + 3]  # the first seat in receives from the last (wraps)
    for seat in range(n):
        if s[IN + seat]:
            h = HANDS + 4 * seat + 3
            card = s[h]
            s[h] = carry
            carry = card
    if s[CFG_STOCK]:  # P6: the dealer's right discards, the dealer draws (one queue)
        q = s[QUEUE_SIZE]
        front = QUEUE + s[PASSES] % q
        h = HANDS + 4 * s[DEALER] + 3
        drawn = s[front]
        s[front] = s[h]
        s[h] = drawn
    s[PASSES] += 1


@numba.njit(cache=True)
def _end_round(s: np.ndarray, pig: int, rewards: np.ndarray) -> None:
    """P4, P5, P7, P9: the round's rewards (none with ``pig < 0``, a capped round); over."""
    s[PHASE] = OVER
    if pig < 0:
        return
    n = s[N]
    if not s[CFG_FULL]:  # P9: pig −1, the others +1/(n−1)
        share = 1.0 / (n - 1)
        for seat in range(n):
            rewards[seat] += -1.0 if seat == pig else share
        return
    if s[CFG_LETTERS]:
        s[LETTERS + pig] += 1  # P7
    if s[CFG_LETTERS] == 0 or s[LETTERS + pig] >= _LIVES:  # P5, P7: he leaves
        s[IN + pig] = 0
        s[M] -= 1
        rewards[pig] += -1.0 / (n - 1)  # P9
        if s[M] == 1:  # D10: the winner
            for seat in range(n):
                if s[IN + seat]:
                    rewards[seat] += 1.0


@numba.njit(cache=True)
def _touch_step(s: np.ndarray, touchers: int, rewards: np.ndarray, forced: int) -> bool:
    """P3 a step of the nose race (or its first touching step); True if the round ended."""
    n = s[N]
    if s[PHASE] == PASSING:  # the first touching step: no cards move
        false = 0
        for seat in range(n):
            if (touchers >> seat) & 1 and not _has_four(s, seat):
                false |= 1 << seat
        s[PHASE] = RACE
        if false:  # D1: the first false toucher of the step's order
            _end_round(s, _only(false, forced), rewards)
            return True
    else:
        s[RACE_STEPS] += 1
    untouched = 0
    for seat in range(n):
        if (touchers >> seat) & 1:
            s[TOUCHED + seat] = 1
            s[NUM_TOUCHED] += 1
        elif s[IN + seat] and s[TOUCHED + seat] == 0:
            untouched |= 1 << seat
    if s[M] - s[NUM_TOUCHED] == 1:
        _end_round(s, _only(untouched, -1), rewards)
    elif s[M] == s[NUM_TOUCHED]:  # P3: the last of this step's order
        _end_round(s, _only(touchers, forced), rewards)
    elif s[RACE_STEPS] >= s[CFG_MAX_RACE]:  # D2: the race cut short, P3
        _end_round(s, _pick(untouched, forced), rewards)
    else:
        return False
    return True


@numba.njit(cache=True)
def apply_with_pig(s: np.ndarray, actions: np.ndarray, rewards: np.ndarray, pig: int) -> bool:
    """:func:`apply`, but a pig drawn among two or more candidates is ``pig`` when ``pig >= 0``
    (``ValueError`` if it is not a candidate). For the differential test."""
    n = s[N]
    nose = s[NUM_RANKS]
    touchers = 0
    k = 0
    for seat in range(n):
        if s[IN + seat]:
            if actions[k] == nose:
                touchers |= 1 << seat
            k += 1
    if s[PHASE] == PASSING and touchers == 0:
        _pass_cards(s, actions)
        if s[PASSES] >= s[CFG_MAX_PASSES]:  # P4 cap (D4)
            _end_round(s, -1, rewards)
            return True
        return False
    return _touch_step(s, touchers, rewards, pig)


@numba.njit(cache=True)
def apply(s: np.ndarray, actions: np.ndarray, rewards: np.ndarray) -> bool:
    """One simultaneous step: ``actions`` one legal codec index per seat of :func:`to_act`, in
    that order (not checked, like the engine's ``validate=False``); adds the reward deltas to
    ``rewards``; True once the deal is over. Pigs left to chance come from numba's generator."""
    return apply_with_pig(s, actions, rewards, -1)


# ---------------------------------------------------------------------- compiled: playouts
@numba.njit(cache=True)
def _random_actions(s: np.ndarray, seats: np.ndarray, actions: np.ndarray, buf: np.ndarray) -> int:
    """Uniformly random legal actions of every acting seat into ``actions``; their number."""
    m = to_act(s, seats)
    for i in range(m):
        k = legal(s, seats[i], buf)
        actions[i] = buf[np.random.randint(0, k)]
    return m


@numba.njit(cache=True)
def random_playout(s: np.ndarray, rewards: np.ndarray, seed: int) -> int:
    """Plays the deal to its end with uniformly random legal actions from numba's generator
    seeded with ``seed``; adds the rewards; returns the number of ``apply`` steps."""
    np.random.seed(seed)
    seats = np.empty(MAX_SEATS, dtype=np.int64)
    actions = np.empty(MAX_SEATS, dtype=np.int64)
    buf = np.empty(16, dtype=np.int64)
    steps = 0
    while _random_actions(s, seats, actions, buf):
        apply_with_pig(s, actions, rewards, -1)
        steps += 1
    return steps


@numba.njit(cache=True)
def random_playout_trace(s: np.ndarray, rewards: np.ndarray, seed: int, trace: np.ndarray) -> int:
    """:func:`random_playout`, also writing step ``t``'s actions into ``trace[t, :m]`` (a 2-D
    ``int64`` array of at least ``max_passes + max_race_steps + 1`` rows, 13 columns), the same
    draws as :func:`random_playout` for the same seed. For tests and debugging."""
    np.random.seed(seed)
    seats = np.empty(MAX_SEATS, dtype=np.int64)
    actions = np.empty(MAX_SEATS, dtype=np.int64)
    buf = np.empty(16, dtype=np.int64)
    steps = 0
    while True:
        m = _random_actions(s, seats, actions, buf)
        if m == 0:
            return steps
        for i in range(m):
            trace[steps, i] = actions[i]
        apply_with_pig(s, actions, rewards, -1)
        steps += 1


# ---------------------------------------------------------------------- compiled: rollout policy
@numba.njit(cache=True)
def _uniform_extreme(buf: np.ndarray, k: int, score: np.ndarray, skip: int, sign: int) -> int:
    """Among ``buf[:k]``'s pass actions (below ``nose``, not ``skip``), one whose ``score`` times
    ``sign`` is largest, uniform among ties (a reservoir draw); -1 if there is none."""
    best = -1
    ties = 0
    for j in range(k):
        a = buf[j]
        if a == skip or score[a] < -(1 << 40):
            continue
        if best < 0 or sign * score[a] > sign * score[best]:
            best, ties = a, 1
        elif score[a] == score[best]:
            ties += 1
            if np.random.randint(0, ties) == 0:
                best = a
    return best


@numba.njit(cache=True)
def _policy_action(s: np.ndarray, seat: int, buf: np.ndarray) -> int:
    """The rollout policy's action for ``seat`` (module docstring, "Rollout policy").

    Always one of :func:`legal`'s actions (``buf`` receives them): race (P3, P8) ``nose`` until
    touched, then ``wait``; passing: ``nose`` with four of a kind (never a false touch), else
    keep the rank held most (uniform among ties) and pass a card of a rank held least among the
    others (uniform among ties). With four cards that is any rank but the kept one.
    """
    k = legal(s, seat, buf)
    nose = s[NUM_RANKS]
    if s[PHASE] == RACE:
        return buf[0]  # nose while untouched (P3), else the only move, wait
    if _has_four(s, seat):
        return nose  # P3: touch at once
    counts = np.full(16, -(1 << 41), dtype=np.int64)  # per action; not held: never chosen
    h = HANDS + 4 * seat
    r0 = s[RANK0]
    for i in range(4):
        a = s[h + i] % 13 - r0
        counts[a] = max(counts[a], 0) + 1
    keep = _uniform_extreme(buf, k, counts, nose, 1)
    return _uniform_extreme(buf, k, counts, keep, -1)


@numba.njit(cache=True)
def _policy_run(
    s: np.ndarray, rewards: np.ndarray, seed: int, trace: np.ndarray, record: bool
) -> int:
    """The body of :func:`policy_playout` and :func:`policy_playout_trace`."""
    np.random.seed(seed)
    seats = np.empty(MAX_SEATS, dtype=np.int64)
    actions = np.empty(MAX_SEATS, dtype=np.int64)
    buf = np.empty(16, dtype=np.int64)
    steps = 0
    while True:
        m = to_act(s, seats)
        if m == 0:
            return steps
        for i in range(m):
            actions[i] = _policy_action(s, seats[i], buf)
            if record:
                trace[steps, i] = actions[i]
        apply_with_pig(s, actions, rewards, -1)
        steps += 1


@numba.njit(cache=True)
def policy_action(s: np.ndarray, seat: int, seed: int) -> int:
    """The rollout policy's action for ``seat`` now, its tie-breaks drawn from numba's generator
    seeded with ``seed`` (search: the other seats' cards in a simultaneous first step)."""
    np.random.seed(seed)
    buf = np.empty(16, dtype=np.int64)
    return _policy_action(s, seat, buf)


@numba.njit(cache=True)
def policy_playout(s: np.ndarray, rewards: np.ndarray, seed: int) -> int:
    """Plays the deal to its end with the rollout policy (module docstring) on every seat, its
    draws from numba's generator seeded with ``seed``; adds the rewards; returns the number of
    ``apply`` steps. The same contract as :func:`random_playout`."""
    return _policy_run(s, rewards, seed, np.empty((1, 1), dtype=np.int64), False)


@numba.njit(cache=True)
def policy_playout_trace(s: np.ndarray, rewards: np.ndarray, seed: int, trace: np.ndarray) -> int:
    """:func:`policy_playout`, also writing step ``t``'s actions into ``trace[t, :m]`` (as
    :func:`random_playout_trace`), the same draws for the same seed. For tests."""
    return _policy_run(s, rewards, seed, trace, True)
