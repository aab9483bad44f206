"""Kozel's compiled rollout policy: a cheap numba counterpart of ``kozel/heuristic``.

Why
---
Training on the batched env (:mod:`kiaule_env.vector`) needs the rule-based agent as an opponent
that decides for thousands of slots in one compiled call (:mod:`kiaule_env.kozel.vector_policy`),
and playouts of the twin can use it where random continuations say little. It plays on the
twin's array (:mod:`kiaule_env.kozel.compiled`, whose layout and ``legal``/``apply`` kernels it
uses; its own module because the twin is near the size limit, with :func:`kernel_decorator
<kiaule_env.vector.kernels.kernel_decorator>` so numba's cache goes stale with the twin).

Rollout policy
--------------
The rules of ``agents/kozel.py`` with its default thresholds (``worth_plain=3``,
``worth_trump=0``), each decision the best legal action by them, ties drawn uniformly from
numba's generator (the Python agent takes the first of its ties, in move order):

1. **Lead** (K5) one card: the lowest of the longest non-trump suit; a trump only when nothing
   else is left.
2. **Partner's trick** (K6): discard the most points onto it (then fewest trumps, lowest ranks).
3. **Opponents' trick**: the cheapest beat (fewest trumps, then the lowest rank sum) when it costs
   trumps (the trick also wins the lead and the first draw, K9), or, a plain beat, when the
   trick shows at least 3 points or the seat plays last.
4. Otherwise **discard** the fewest points, no trumps, the lowest ranks.
5. **Claim a molodka** (K8) of trumps always; of another suit when it holds the suit's ace and
   the lead's points plus its own reach 3.

What it reads: the acting seat's own hand, the trump, whose set is winning and the face-up cards
of the trick (the lead and the set to beat; the twin keeps no earlier beats, so on the last
response the stake counts only those two, but there the threshold is not read: the last seat
beats whenever a plain beat exists). Nothing hidden: no other hand, no face-down discard (their
points, in the twin's ``TRICK_POINTS``, are not read), not the stock.

:func:`policy_action` gives one decision (seeded), :func:`policy_playout` plays the deal to its
end with the policy on every seat (the twin's ``random_playout`` contract) and
:func:`policy_playout_trace` also records the actions for the engine-replay test
(``tests/kozel/test_rollout_policy.py``, which also measures its strength). The search agents
play it only with ``rollout="policy"`` asked for (``kozel/pimc:rollout=policy``); their default
stays random playouts (:func:`kiaule_env.core.simulate.has_policy` reads only the twin).
"""

from __future__ import annotations

import numpy as np

from kiaule_env.kozel import compiled as C
from kiaule_env.kozel.rules import CLAIM, DECLINE, HAND_SIZE, NUM_MOVES, PHASE_CLAIM, PHASE_LEAD
from kiaule_env.vector.kernels import kernel_decorator

__all__ = ["policy_action", "policy_playout", "policy_playout_trace"]

#: numba kernels whose cache also goes stale with the twin
_kernel = kernel_decorator(C)

#: the heuristic's default thresholds (``agents/kozel.py``): a plain beat needs this many points
#: of the trick shown, a beat with trumps ``WORTH_TRUMP``
WORTH_PLAIN = 3
WORTH_TRUMP = 0
#: strength of the ace (K2: 6 7 8 9 J Q K 10 A)
_ACE = 8
_BEAT = 1  # move kinds: move // 15 (rules.LEAD, BEAT, DISCARD)
_DISCARD = 2


@_kernel
def _set_points(s, base, n) -> int:
    """K11 points of the ``n`` cards from ``base`` on."""
    total = 0
    for j in range(n):
        total += C.POINTS_OF_INDEX[s[base + j]]
    return total


@_kernel
def _stake(s) -> int:
    """The points the trick shows: the lead, and the set to beat when it is a beat (face up)."""
    n = s[C.N_CARDS]
    stake = _set_points(s, C.LED, n)
    if s[C.WINNER] != s[C.LEADER]:
        stake += _set_points(s, C.WINNING, n)
    return stake


@_kernel
def _move_terms(s, seat, move) -> tuple:
    """(points, trumps, rank sum) of the hand cards a beat or discard ``move`` plays."""
    base = C.HANDS + HAND_SIZE * seat
    mask = move % 15 + 1
    trump = s[C.TRUMP]
    points = trumps = rank = 0
    for i in range(HAND_SIZE):
        if mask >> i & 1:
            card = s[base + i]
            points += C.POINTS_OF_INDEX[card]
            trumps += card // 9 == trump
            rank += card % 9
    return points, trumps, rank


@_kernel
def _keep_least(best, best_key, ties, candidate, key):
    """One step of a reservoir draw of the candidate with the least key, uniform among ties:
    ``(best, best_key, ties)`` after seeing ``candidate`` (``best`` < 0: none seen yet)."""
    if best < 0 or key < best_key:
        return candidate, key, 1
    if key == best_key:
        ties += 1
        if np.random.randint(0, ties) == 0:
            return candidate, key, ties
    return best, best_key, ties


@_kernel
def _lead(s, seat) -> int:
    """Rule 1: a lead of one card, the lowest of the longest non-trump suit (ties at random)."""
    base = C.HANDS + HAND_SIZE * seat
    h = s[C.HAND_N + seat]
    trump = s[C.TRUMP]
    lengths = np.zeros(4, np.int64)
    for i in range(h):
        lengths[s[base + i] // 9] += 1
    best = -1
    best_key = 0
    ties = 0
    for i in range(h):
        card = s[base + i]
        suit = card // 9
        key = (suit == trump) * 100 + (HAND_SIZE - lengths[suit]) * 10 + card % 9
        best, best_key, ties = _keep_least(best, best_key, ties, i, key)
    return (1 << best) - 1  # lead code: mask - 1


@_kernel
def _respond(s, seat, buf, k) -> int:
    """Rules 2–4 over the legal beats and discards ``buf[:k]`` (ties at random)."""
    partner = (s[C.WINNER] - seat + 4) % 4 == 2
    best_beat = best_disc = -1
    beat_key = disc_key = 0
    beat_ties = disc_ties = 0
    for j in range(k):
        move = buf[j]
        points, trumps, rank = _move_terms(s, seat, move)
        if move // 15 == _BEAT:
            if partner:
                continue  # rule 2: never beat the partner's set
            key = trumps * 100 + rank  # rule 3: the cheapest
            best_beat, beat_key, beat_ties = _keep_least(best_beat, beat_key, beat_ties, move, key)
            continue
        if partner:  # rule 2: most points, then fewest trumps, lowest ranks (smallest key)
            key = -points * 10000 + trumps * 100 + rank
        else:  # rule 4: fewest points, trumps, ranks
            key = points * 10000 + trumps * 100 + rank
        best_disc, disc_key, disc_ties = _keep_least(best_disc, disc_key, disc_ties, move, key)
    if best_beat >= 0:
        stake = _stake(s)
        if beat_key >= 100:  # costs trumps
            if stake >= WORTH_TRUMP:
                return best_beat
        elif stake >= WORTH_PLAIN or s[C.N_PLAYED] == 3:
            return best_beat
    return best_disc


@_kernel
def _claim_pays(s, seat) -> bool:
    """Rule 5 (K8): four trumps always; four of another suit with its ace when the lead's points
    and the four's reach ``WORTH_PLAIN``."""
    base = C.HANDS + HAND_SIZE * seat
    if s[base] // 9 == s[C.TRUMP]:
        return True
    if s[base + HAND_SIZE - 1] % 9 != _ACE:  # sorted: the ace would be last
        return False
    return _stake(s) + _set_points(s, base, HAND_SIZE) >= WORTH_PLAIN


@_kernel
def _policy_action(s, seat, buf) -> int:
    """The rollout policy's action for ``seat``, the seat to act (module docstring); one of the
    actions :func:`~kiaule_env.kozel.compiled.legal` writes into ``buf``."""
    k = C.legal(s, seat, buf)
    if k == 1:
        return buf[0]
    phase = s[C.PHASE]
    if phase == PHASE_CLAIM:
        return CLAIM if _claim_pays(s, seat) else DECLINE
    if phase == PHASE_LEAD:
        return _lead(s, seat)
    return _respond(s, seat, buf, k)


@_kernel
def policy_action(s, seat, seed) -> int:
    """The rollout policy's action for ``seat`` now, its tie-breaks drawn from numba's generator
    seeded with ``seed`` (its low 32 bits)."""
    np.random.seed(seed & 0xFFFFFFFF)
    buf = np.empty(NUM_MOVES, np.int64)
    return _policy_action(s, seat, buf)


@_kernel
def _policy_run(s, rewards, seed, record) -> int:
    """The body of :func:`policy_playout` and :func:`policy_playout_trace`."""
    np.random.seed(seed & 0xFFFFFFFF)
    buf = np.empty(NUM_MOVES, np.int64)
    action = np.empty(1, np.int64)
    steps = 0
    while s[C.PHASE] != C.PHASE_OVER:
        action[0] = _policy_action(s, s[C.TO_ACT], buf)
        if steps < record.shape[0]:
            record[steps] = action[0]
        C.apply(s, action, rewards)
        steps += 1
    return steps


@_kernel
def policy_playout(s, rewards, seed) -> int:
    """Plays the deal to its end with the rollout policy on every seat, its tie-breaks from
    numba's generator seeded with ``seed`` (its low 32 bits); adds the rewards; returns the
    number of steps (the contract of the twin's ``random_playout``)."""
    return _policy_run(s, rewards, seed, np.empty(0, np.int64))


@_kernel
def policy_playout_trace(s, rewards, seed, record) -> int:
    """:func:`policy_playout`, also writing the actions into ``record`` (as far as it reaches; a
    game has at most 63 decisions), the same draws for the same seed. For tests."""
    return _policy_run(s, rewards, seed, record)
