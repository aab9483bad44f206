"""Kozel's compiled playout twin (numba): one game's rules on a flat ``np.int64`` array.

Why a second implementation
---------------------------
Search agents (PIMC, IS-MCTS; :mod:`kiaule_env.core.simulate`) play the current *deal* — one
Kozel game, or the current game of a series — to its end thousands of times per move, more
than the Python engine (:mod:`kiaule_env.kozel.rules`) can play in the time a move has; this
module does the same rules on an ``int64`` array with ``numba.njit(cache=True)`` functions, many
times faster (measured figures: ``docs/compiled-twins.md``, and ``kiaule bench --engine``). The
Python engine stays the reference: the env, the observation and everything public
use it. This twin is a simulator: of the search agents' playouts, and of the batched env
(:mod:`kiaule_env.kozel.vector`), which plays these kernels on the first :data:`SIZE` words of
each slot's row (the information-set memory of its observation after them; a layout change here
must keep that module in step). It is verified against the engine by the differential test
``tests/kozel/test_compiled.py``: thousands of seeded random deals over every option
combination, played through both, with the same encoded array, acting seat, legal actions (for
every seat) and reward deltas after every step, and the deal's end at the same step.

What it covers
--------------
Every rule that decides legal moves, transitions and rewards within one game, and every option
of :class:`~kiaule_env.kozel.rules.Config` (:func:`supports` is True for all of them):

* K5 leads (any non-empty same-suit subset), K6 beats (a one-to-one pairing against the winning
  set, mixed suits allowed) and discards, ``beat_partner=False`` (only discards when the
  partner owns the winning set);
* K7 the trick to the owner of the winning set, K9 refill clockwise from the winner, K10 the end;
* K8 the molodka window after each lead of fewer than four cards (``molodka="any"``,
  ``"trumps"``, ``None``): the queue of holders clockwise from the leader, ``claim`` /
  ``decline``, the led cards back into the leader's hand, the claimant's four as the lead;
* K11–K13 card points, loss points 2 / 4 / 6, eggs (60–60) and ``eggs="double"`` (the current
  eggs streak is part of the array); K15 every ``reward`` mode, paid on the game's last step,
  exactly the floats the engine returns.

``trump_card`` (K4) only changes the stock order at the deal, which :func:`encode` copies, and
``series`` (K14) only what happens after the game: the deal ends where the game ends (the Python
engine is over, or reports ``game_result`` in ``step_info`` and deals the next game), and after
that :func:`to_act` returns 0. The information-set bookkeeping of the engine (``seen``,
``known``, ``maybe``, ``declined``, own discards) affects no legal move, transition or reward and
is not in the array.

Randomness: none inside a deal. The deck is fixed when the game is dealt (shuffled or stacked),
so the stock order is part of the array; the only chance is the next game's deck of a series,
which lies beyond the deal's end. The differential test therefore compares step by step without
any shared generator, re-encoding the Python state at the start of every game of a series.

Array layout
------------
Cards are *kozel indices* ``k = suit * 9 + strength`` (suits C D H S, strength in the K2 order
6 7 8 9 J Q K 10 A), so ascending ``k`` is the engine's sorted-hand order (:func:`rules.sort_hand`)
and within a suit a higher ``k`` beats a lower one. ``-1`` marks an empty slot.

==================  =====  ===========================================================
offset              size   content
==================  =====  ===========================================================
``CFG_MOLODKA``     1      K8 mode: 0 off, 1 ``"any"``, 2 ``"trumps"``
``CFG_BEAT_PARTNER`` 1     K6: 1 a partner's winning set may be beaten, 0 not
``CFG_EGGS_DOUBLE`` 1      K13: 1 with ``eggs="double"``
``CFG_REWARD``      1      K15: 0 ``loss_points``, 1 ``win_loss``, 2 ``card_points``
``EGGS_STREAK``     1      K13: eggs games just before this one
``TRUMP``           1      trump suit 0–3 (K4)
``PHASE``           1      0 lead, 1 respond, 2 claim window, 3 over (the deal has ended)
``TO_ACT``          1      the seat to act (-1 when over)
``LEADER``          1      the trick's leader (the claimant after a claim, K8)
``FIRST_LEADER``    1      who led first this trick
``CLAIMED``         1      1 once a molodka was claimed this trick
``N_CARDS``         1      cards per play this trick (0 before the lead)
``N_PLAYED``        1      plays in the current trick (the engine's ``len(trick)``)
``WINNER``          1      seat owning the set to beat (-1 before the lead)
``TRICK_POINTS``    1      K11 points of all cards in the current trick, discards included
``STOCK_N``         1      cards the game's stock had (20)
``STOCK_POS``       1      index of the next stock card to draw
``POINTS``          2      K11 card points taken per team
``TRICKS``          2      tricks taken per team
``HAND_N``          4      cards in each seat's hand
``HANDS``           16     4 slots per seat, sorted ascending, -1 padded
``WINNING``         4      the set to beat (K6), in play order, -1 padded
``LED``             4      the cards of the trick's first play (the lead), -1 padded
``QUEUE_N``         1      seats still to be asked in the claim window (K8)
``QUEUE``           3      those seats in order, -1 padded
``STOCK``           20     the stock, top first (the whole stock; drawn up to ``STOCK_POS``)
==================  =====  ===========================================================

:data:`SIZE` is the total. Actions are the engine's move numbers (codec indices 0–46).

Speed: ``measure`` in the test module times random playouts of both simulators on one core;
the figures are in ``docs/compiled-twins.md``. The first use compiles; later processes load the
cache (``__pycache__``, no ``NUMBA_CACHE_DIR`` needed).

How it was checked: ``tests/kozel/test_compiled.py`` (differential test over all 108 option
combinations, a third of the deals on stacked molodka-rich decks so that claim windows with
several holders, claims and declines occur in every molodka mode; a replay of recorded
:func:`random_playout_recorded` actions on the Python engine; determinism per seed).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from kiaule_env.kozel import rules
from kiaule_env.kozel.rules import (
    CLAIM,
    DECLINE,
    HAND_SIZE,
    NUM_MOVES,
    NUM_PLAYERS,
    PHASE_CLAIM,
    PHASE_LEAD,
    PHASE_OVER,
    PHASE_RESPOND,
    STOCK_SIZE,
    WIN_POINTS,
    Config,
    State,
)

__all__ = [
    "SIZE",
    "apply",
    "card_index",
    "encode",
    "legal",
    "random_playout",
    "random_playout_recorded",
    "supports",
    "to_act",
]

# ------------------------------------------------------------------------------------ layout
CFG_MOLODKA = 0
CFG_BEAT_PARTNER = 1
CFG_EGGS_DOUBLE = 2
CFG_REWARD = 3
EGGS_STREAK = 4
TRUMP = 5
PHASE = 6
TO_ACT = 7
LEADER = 8
FIRST_LEADER = 9
CLAIMED = 10
N_CARDS = 11
N_PLAYED = 12
WINNER = 13
TRICK_POINTS = 14
STOCK_N = 15
STOCK_POS = 16
POINTS = 17  # 2
TRICKS = 19  # 2
HAND_N = 21  # 4
HANDS = 25  # 16: seat s at HANDS + 4 * s
WINNING = 41  # 4
LED = 45  # 4
QUEUE_N = 49
QUEUE = 50  # 3
STOCK = 53  # 20
SIZE = STOCK + STOCK_SIZE  # 73

MOLODKA_CODES: dict[str | None, int] = {None: 0, "any": 1, "trumps": 2}
REWARD_CODES: dict[str, int] = {"loss_points": 0, "win_loss": 1, "card_points": 2}
_REWARD_WIN_LOSS = 1
_REWARD_CARD_POINTS = 2

_BEAT_BASE = 15  # rules.BEAT * 15
_DISCARD_BASE = 30  # rules.DISCARD * 15

# ------------------------------------------------------------------------------------ cards
#: kozel index of every card id (-1 for cards not in the 36-card deck)
CARD_INDEX: np.ndarray = np.full(54, -1, dtype=np.int64)
for _card in rules.DECK.cards:
    CARD_INDEX[_card] = rules.SUIT[_card] * 9 + rules.STRENGTH[_card]
#: card id of every kozel index
CARD_OF_INDEX: np.ndarray = np.empty(36, dtype=np.int64)
CARD_OF_INDEX[CARD_INDEX[list(rules.DECK.cards)]] = list(rules.DECK.cards)
#: K11 points per kozel index
POINTS_OF_INDEX: np.ndarray = np.array(
    [rules.POINTS[int(c)] for c in CARD_OF_INDEX], dtype=np.int64
)
#: number of set bits of 0..15
POPCOUNT: np.ndarray = np.array([bin(m).count("1") for m in range(16)], dtype=np.int64)


def card_index(card: int) -> int:
    """The kozel index (``suit * 9 + strength``) of a card id of the 36-card deck."""
    if isinstance(card, bool) or not isinstance(card, (int, np.integer)):
        raise TypeError(f"card must be an int card id, got {type(card).__name__}")
    if not 0 <= card < 54 or CARD_INDEX[card] < 0:
        raise ValueError(f"card={card!r} is not a card id of the 36-card Kozel deck (K2)")
    return int(CARD_INDEX[card])


# ------------------------------------------------------------------------------------ python side
def supports(config: Config) -> bool:
    """Whether this twin covers ``config``: every Kozel :class:`Config` (all options, K1–K16)."""
    if not isinstance(config, Config):
        raise TypeError(
            f"config must be a kiaule_env.kozel.rules.Config, got {type(config).__name__}"
        )
    return True


def _cards(cards: Any) -> list[int]:
    return [int(CARD_INDEX[c]) for c in cards]


def _put(s: np.ndarray, offset: int, values: list[int], size: int) -> None:
    s[offset : offset + len(values)] = values
    s[offset + len(values) : offset + size] = -1


def encode(state: State) -> np.ndarray:
    """The array (layout in the module docstring) of the current game of an engine state.

    A plain Python function: the search agents call it once per determinization. A state whose
    episode is over encodes with ``PHASE`` over, so :func:`to_act` returns 0.
    """
    if not isinstance(state, State):
        raise TypeError(f"state must be a kiaule_env.kozel.rules.State, got {type(state).__name__}")
    config = state.config
    s = np.zeros(SIZE, dtype=np.int64)
    s[CFG_MOLODKA] = MOLODKA_CODES[config.molodka]
    s[CFG_BEAT_PARTNER] = int(config.beat_partner)
    s[CFG_EGGS_DOUBLE] = int(config.eggs == "double")
    s[CFG_REWARD] = REWARD_CODES[config.reward]
    s[EGGS_STREAK] = state.eggs_streak
    s[TRUMP] = state.trump
    s[PHASE] = state.phase
    s[TO_ACT] = state.to_act
    s[LEADER] = state.leader
    s[FIRST_LEADER] = state.first_leader
    s[CLAIMED] = int(state.claimed)
    s[N_CARDS] = state.n_cards
    s[N_PLAYED] = len(state.trick)
    s[WINNER] = state.winner
    s[TRICK_POINTS] = sum(rules.POINTS[c] for _, _, cards in state.trick for c in cards)
    if len(state.stock) > STOCK_SIZE:
        raise ValueError(f"state.stock has {len(state.stock)} cards, at most {STOCK_SIZE} (K3)")
    s[STOCK_N] = len(state.stock)
    s[STOCK_POS] = state.stock_pos
    s[POINTS : POINTS + 2] = state.points
    s[TRICKS : TRICKS + 2] = state.tricks
    for seat in range(NUM_PLAYERS):
        hand = state.hands[seat]
        s[HAND_N + seat] = len(hand)
        _put(s, HANDS + HAND_SIZE * seat, _cards(hand), HAND_SIZE)
    _put(s, WINNING, _cards(state.winning), HAND_SIZE)
    _put(s, LED, _cards(state.trick[0][2]) if state.trick else [], HAND_SIZE)
    s[QUEUE_N] = len(state.claim_queue)
    _put(s, QUEUE, list(state.claim_queue), NUM_PLAYERS - 1)
    _put(s, STOCK, _cards(state.stock), STOCK_SIZE)
    return s


# ------------------------------------------------------------------------------------ compiled
@njit(cache=True)
def to_act(s: np.ndarray, out: np.ndarray) -> int:
    """Writes the acting seat into ``out[0]`` and returns 1, or 0 once the deal is over."""
    if s[PHASE] == PHASE_OVER:
        return 0
    out[0] = s[TO_ACT]
    return 1


@njit(cache=True)
def _beats(a: int, b: int, trump: int) -> bool:
    """K6: card ``a`` beats ``b``: same suit and higher (K2), or a trump against a non-trump."""
    suit = a // 9
    if suit == b // 9:
        return a > b
    return suit == trump


@njit(cache=True)
def _adjacency(s: np.ndarray, base: int, h: int, n: int) -> int:
    """Per hand card (4 bits each): which cards of the winning set it beats (K6)."""
    trump = s[TRUMP]
    packed = 0
    for i in range(h):
        card = s[base + i]
        bits = 0
        for j in range(n):
            if _beats(card, s[WINNING + j], trump):
                bits |= 1 << j
        packed |= bits << (4 * i)
    return packed


@njit(cache=True)
def _pairs_off(packed: int, mask: int, n: int) -> bool:
    """K6: the hand cards of ``mask`` can be paired one-to-one with the ``n`` winning cards,
    each beating its partner (a perfect matching, found over subsets of the targets)."""
    reach = 1  # bit S: the cards so far can take exactly the target set S
    for i in range(HAND_SIZE):
        if mask >> i & 1:
            bits = packed >> (4 * i) & 15
            if bits == 0:
                return False
            new = 0
            for taken in range(16):
                if reach >> taken & 1:
                    free = bits & ~taken
                    for j in range(n):
                        if free >> j & 1:
                            new |= 1 << (taken | 1 << j)
            if new == 0:
                return False
            reach = new
    return (reach >> ((1 << n) - 1) & 1) == 1


@njit(cache=True)
def _lead_moves(s: np.ndarray, base: int, h: int, out: np.ndarray) -> int:
    """K5: every non-empty same-suit subset of the hand, ascending."""
    count = 0
    for mask in range(1, 1 << h):
        suit = -1
        same = True
        for i in range(h):
            if mask >> i & 1:
                card_suit = s[base + i] // 9
                if suit < 0:
                    suit = card_suit
                elif card_suit != suit:
                    same = False
                    break
        if same:
            out[count] = mask - 1
            count += 1
    return count


@njit(cache=True)
def _respond_moves(s: np.ndarray, seat: int, base: int, h: int, out: np.ndarray) -> int:
    """K6: the beats that pair off (unless ``beat_partner=False`` bars them), then every discard."""
    n = s[N_CARDS]
    count = 0
    barred = s[CFG_BEAT_PARTNER] == 0 and (s[WINNER] - seat + 4) % 4 == 2
    if not barred:
        packed = _adjacency(s, base, h, n)
        for mask in range(1, 1 << h):
            if POPCOUNT[mask] == n and _pairs_off(packed, mask, n):
                out[count] = _BEAT_BASE + mask - 1
                count += 1
    for mask in range(1, 1 << h):
        if POPCOUNT[mask] == n:
            out[count] = _DISCARD_BASE + mask - 1
            count += 1
    return count


@njit(cache=True)
def legal(s: np.ndarray, seat: int, out: np.ndarray) -> int:
    """Writes ``seat``'s legal actions ascending into ``out[:n]`` and returns ``n`` (0 when the
    seat is not to act or the deal is over)."""
    phase = s[PHASE]
    if phase == PHASE_OVER or seat != s[TO_ACT]:
        return 0
    if phase == PHASE_CLAIM:  # K8
        out[0] = CLAIM
        out[1] = DECLINE
        return 2
    base = HANDS + HAND_SIZE * seat
    h = s[HAND_N + seat]
    if phase == PHASE_LEAD:
        return _lead_moves(s, base, h, out)
    return _respond_moves(s, seat, base, h, out)


@njit(cache=True)
def _insert(s: np.ndarray, seat: int, card: int) -> None:
    """Put ``card`` into ``seat``'s sorted hand (the engine's ``insort``)."""
    base = HANDS + HAND_SIZE * seat
    i = s[HAND_N + seat]
    while i > 0 and s[base + i - 1] > card:
        s[base + i] = s[base + i - 1]
        i -= 1
    s[base + i] = card
    s[HAND_N + seat] += 1


@njit(cache=True)
def _has_molodka(s: np.ndarray, seat: int, only_trumps: bool) -> bool:
    """K8: four cards, all of one suit (of the trump suit with ``molodka="trumps"``)."""
    if s[HAND_N + seat] != HAND_SIZE:
        return False
    base = HANDS + HAND_SIZE * seat
    suit = s[base] // 9
    if suit != s[base + 3] // 9:  # hands are sorted by suit
        return False
    return not only_trumps or suit == s[TRUMP]


@njit(cache=True)
def _open_claim_window(s: np.ndarray, leader: int) -> bool:
    """K8: after a lead of fewer than four cards, queue the molodka holders clockwise."""
    mode = s[CFG_MOLODKA]
    if mode == 0 or s[CLAIMED] == 1 or s[N_CARDS] == HAND_SIZE:
        return False
    count = 0
    for k in range(1, NUM_PLAYERS):
        seat = (leader + k) % 4
        if _has_molodka(s, seat, mode == 2):
            s[QUEUE + count] = seat
            count += 1
    if count == 0:
        return False
    s[QUEUE_N] = count
    s[PHASE] = PHASE_CLAIM
    s[TO_ACT] = s[QUEUE]
    return True


@njit(cache=True)
def _clear_queue(s: np.ndarray) -> None:
    s[QUEUE_N] = 0
    for i in range(NUM_PLAYERS - 1):
        s[QUEUE + i] = -1


@njit(cache=True)
def _claim(s: np.ndarray, claimant: int) -> None:
    """K8: the led cards go back to the leader, the claimant's four become the lead."""
    leader = s[FIRST_LEADER]  # the trick's only play so far is the first leader's lead
    for j in range(s[N_CARDS]):
        _insert(s, leader, s[LED + j])
    base = HANDS + HAND_SIZE * claimant
    points = 0
    for j in range(HAND_SIZE):
        card = s[base + j]
        s[LED + j] = card
        s[WINNING + j] = card
        s[base + j] = -1
        points += POINTS_OF_INDEX[card]
    s[HAND_N + claimant] = 0
    s[TRICK_POINTS] = points
    s[N_PLAYED] = 1
    s[N_CARDS] = HAND_SIZE
    s[LEADER] = claimant
    s[WINNER] = claimant
    s[CLAIMED] = 1
    _clear_queue(s)
    s[PHASE] = PHASE_RESPOND
    s[TO_ACT] = (claimant + 1) % 4


@njit(cache=True)
def _decline(s: np.ndarray) -> None:
    """K8: the asked seat lets the claim pass; ask the next holder, or play on."""
    count = s[QUEUE_N] - 1
    for i in range(count):
        s[QUEUE + i] = s[QUEUE + i + 1]
    s[QUEUE + count] = -1
    s[QUEUE_N] = count
    if count > 0:
        s[TO_ACT] = s[QUEUE]
    else:
        s[PHASE] = PHASE_RESPOND
        s[TO_ACT] = (s[FIRST_LEADER] + 1) % 4


@njit(cache=True)
def _take_cards(s: np.ndarray, seat: int, mask: int, dest: int) -> int:
    """Remove the hand cards of ``mask`` (keeping the hand sorted), writing them from ``dest``
    on when ``dest >= 0``; returns their K11 points."""
    base = HANDS + HAND_SIZE * seat
    h = s[HAND_N + seat]
    kept = 0
    played = 0
    points = 0
    for i in range(h):
        card = s[base + i]
        if mask >> i & 1:
            points += POINTS_OF_INDEX[card]
            if dest >= 0:
                s[dest + played] = card
            played += 1
        else:
            s[base + kept] = card
            kept += 1
    for i in range(kept, h):
        s[base + i] = -1
    s[HAND_N + seat] = kept
    return points


@njit(cache=True)
def _lead(s: np.ndarray, seat: int, mask: int) -> None:
    """K5: the lead becomes the winning set; then the K8 window or the first response."""
    n = POPCOUNT[mask]
    s[TRICK_POINTS] = _take_cards(s, seat, mask, WINNING)
    for j in range(HAND_SIZE):
        s[LED + j] = s[WINNING + j] if j < n else -1
        if j >= n:
            s[WINNING + j] = -1
    s[N_CARDS] = n
    s[N_PLAYED] = 1
    s[WINNER] = seat
    if not _open_claim_window(s, seat):
        s[PHASE] = PHASE_RESPOND
        s[TO_ACT] = (seat + 1) % 4


@njit(cache=True)
def _refill(s: np.ndarray, winner: int) -> None:
    """K9: one card at a time from the top of the stock, clockwise from the trick winner."""
    pos = s[STOCK_POS]
    left = s[STOCK_N] - pos
    need = HAND_SIZE - s[HAND_N + winner]  # hands are equal after a trick
    rounds = min(need, left // NUM_PLAYERS)
    for _ in range(rounds):
        for k in range(NUM_PLAYERS):
            _insert(s, (winner + k) % 4, s[STOCK + pos])
            pos += 1
    s[STOCK_POS] = pos


@njit(cache=True)
def _end_game(s: np.ndarray, rewards: np.ndarray) -> None:
    """K12–K15: loss points, eggs and the rewards of the game's last step; the deal is over."""
    p0 = s[POINTS]
    p1 = s[POINTS + 1]
    mode = s[CFG_REWARD]
    r0 = 0.0
    if p0 == p1:  # K13 eggs
        s[EGGS_STREAK] += 1
    else:
        loser = 0 if p0 < WIN_POINTS else 1
        value = 2 if s[POINTS + loser] >= 31 else (4 if s[TRICKS + loser] > 0 else 6)  # K12
        if s[CFG_EGGS_DOUBLE] == 1:
            value <<= s[EGGS_STREAK]
        s[EGGS_STREAK] = 0
        r0 = 1.0 if mode == _REWARD_WIN_LOSS else float(value)
        if loser == 0:
            r0 = -r0
    if mode == _REWARD_CARD_POINTS:
        r0 = (p0 - 60) / 60
        r1 = (p1 - 60) / 60
    else:
        r1 = -r0 + 0.0  # + 0.0: no -0.0 for eggs
    rewards[0] += r0
    rewards[1] += r1
    rewards[2] += r0
    rewards[3] += r1
    s[PHASE] = PHASE_OVER
    s[TO_ACT] = -1


@njit(cache=True)
def _end_trick(s: np.ndarray, rewards: np.ndarray) -> bool:
    """K7 the trick to the winner, K9 refill and next lead, K10 the game's end."""
    winner = s[WINNER]
    team = winner & 1
    s[POINTS + team] += s[TRICK_POINTS]
    s[TRICKS + team] += 1
    _refill(s, winner)
    for j in range(HAND_SIZE):
        s[WINNING + j] = -1
        s[LED + j] = -1
    s[N_PLAYED] = 0
    s[N_CARDS] = 0
    s[TRICK_POINTS] = 0
    s[WINNER] = -1
    s[CLAIMED] = 0
    s[LEADER] = winner
    s[FIRST_LEADER] = winner
    s[TO_ACT] = winner
    s[PHASE] = PHASE_LEAD
    if s[HAND_N + winner] > 0:
        return False
    _end_game(s, rewards)  # K10: hands are equal after a refill, so all are empty
    return True


@njit(cache=True)
def _apply_move(s: np.ndarray, move: int, rewards: np.ndarray) -> bool:
    """Play the legal ``move`` of the seat to act; True once the deal is over."""
    seat = s[TO_ACT]
    if move == CLAIM:
        _claim(s, seat)
        return False
    if move == DECLINE:
        _decline(s)
        return False
    mask = move % 15 + 1
    kind = move // 15
    if kind == 0:
        _lead(s, seat, mask)
        return False
    if kind == 1:  # K6 beat: the new set to beat
        s[TRICK_POINTS] += _take_cards(s, seat, mask, WINNING)
        s[WINNER] = seat
    else:  # K6 discard, face down; its points go to the trick's taker (K11)
        s[TRICK_POINTS] += _take_cards(s, seat, mask, -1)
    s[N_PLAYED] += 1
    if s[N_PLAYED] < NUM_PLAYERS:
        s[TO_ACT] = (seat + 1) % 4
        return False
    return _end_trick(s, rewards)


@njit(cache=True)
def apply(s: np.ndarray, actions: np.ndarray, rewards: np.ndarray) -> bool:
    """Plays ``actions[0]`` (Kozel has one acting seat), adds the reward deltas into ``rewards``
    (nonzero only on a game's last step, K15); True once the deal is over."""
    return _apply_move(s, actions[0], rewards)


@njit(cache=True)
def _playout(s: np.ndarray, rewards: np.ndarray, seed: int, record: np.ndarray) -> int:
    np.random.seed(seed & 0xFFFFFFFF)
    out = np.empty(NUM_MOVES, dtype=np.int64)
    steps = 0
    while s[PHASE] != PHASE_OVER:
        n = legal(s, s[TO_ACT], out)
        move = out[np.random.randint(0, n)]
        if steps < record.shape[0]:
            record[steps] = move
        _apply_move(s, move, rewards)
        steps += 1
    return steps


@njit(cache=True)
def random_playout(s: np.ndarray, rewards: np.ndarray, seed: int) -> int:
    """Plays the deal to its end with uniformly random legal actions from numba's generator
    seeded with ``seed`` (its low 32 bits); adds the rewards; returns the number of steps."""
    return _playout(s, rewards, seed, np.empty(0, dtype=np.int64))


@njit(cache=True)
def random_playout_recorded(
    s: np.ndarray, rewards: np.ndarray, seed: int, actions: np.ndarray
) -> int:
    """:func:`random_playout`, writing the chosen actions into ``actions`` (as far as it
    reaches; a game has at most 63 decisions) so a test can replay them on the Python engine."""
    return _playout(s, rewards, seed, actions)
