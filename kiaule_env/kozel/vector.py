"""Kozel's batched compiled env (:mod:`kiaule_env.vector`): many games stepped at once in numba.

Each slot's state is one row of an ``int64`` array. The first :data:`compiled.SIZE
<kiaule_env.kozel.compiled.SIZE>` words are the compiled twin's layout, and the twin's kernels
(:func:`~kiaule_env.kozel.compiled.legal`, :func:`~kiaule_env.kozel.compiled.apply`) play the
rules on the row: one compiled implementation of K1–K16. After them comes the public memory the
observation needs (the engine's information-set bookkeeping), kept as 36-bit card masks in kozel
indices (``suit * 9 + strength``) and updated incrementally by each step:

==================  =====  ===========================================================
offset              size   content
==================  =====  ===========================================================
``SEEN``            1      cards seen face up this game that left the hands
``KNOWN``           4      per seat, cards public knowledge puts in his hand (K4, K8)
``MAYBE``           4      per seat, such cards after he discarded: hand or discards
``DISC``            4      per seat, his own face-down discards this game (private)
``TRICK_UP``        4      per seat, his face-up cards in the current trick
``TRICK_PLAYED``    1      bit per seat: has played in the current trick
``TRICK_DISCARDED`` 1      bit per seat: discarded face down in the current trick
``DECLINED``        1      bit per seat: declined a molodka claim this trick (K8)
``TRICK_DPTS``      4      per seat, K11 points of his discard in the current trick
``POINTS_SEEN``     2      per team, K11 points of the face-up cards of its tricks
``DISC_POINTS``     8      per seat and team, points of his discards in that team's tricks
``CARDS_TAKEN``     2      per team, cards in its tricks
``INDICATOR``       1      the trump indicator (kozel index, K4)
``IND_INDEX``       1      its index in the game's stock
``DEALER``          1      this game's dealer
``GAME_INDEX``      1      games finished before this one (K14)
``SERIES_LOSSES``   2      loss points per team over the series (K14)
``CFG_SERIES``      1      1 with ``series=True``
``CFG_BOTTOM``      1      1 with ``trump_card="bottom"`` (K4)
``LAST_LOSS``       2      loss points per team of the latest finished game (K12, K16)
``RNG``             …      the slot's generator (:mod:`kiaule_env.vector.rng`): later deals
==================  =====  ===========================================================

Deals: a new episode draws ``permutation(36)`` from the slot's generator, the twin of the
``numpy.random.Generator`` that ``kozel_v0.raw_env().reset(seed)`` builds, exactly as
:meth:`Deck.shuffled <kiaule_env.cards.Deck.shuffled>` does; in a series each later game draws
the next permutation from the same generator (K14). So a slot's episode is the same deal as the
Python env's with the same seed, checked by ``tests/kozel/test_vector.py``.

The observation of the seat to act is rewritten after each step: it is relative to that seat
(his hand, ``left`` / ``partner`` / ``right``), and the seat changes with almost every step, so
nearly every slice changes with it. What it is built from is the memory above, updated
incrementally, so a step costs the move, the memory it changes, the 490 floats and the mask
(the observation and mask cost about as much as the rules and the memory together).

All options of :class:`~kiaule_env.kozel.rules.Config` are supported. A slot whose action is
-1 waits (``partial_steps``: its row and observation stay), as does a slot never reset.

Size: :data:`WORDS` = 125 ``int64`` words, 1,000 bytes of state per slot, besides the 490
``float32`` observation and the 47-byte mask. Speed and compile time are measured by
``kiaule bench --vector`` (the README's table).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros  # the CPU's count-trailing-zeros

from kiaule_env.cards import SUITS
from kiaule_env.core.options import check_keywords
from kiaule_env.kozel import compiled, moves, rules
from kiaule_env.kozel.compiled import (
    CARD_INDEX,
    EGGS_STREAK,
    FIRST_LEADER,
    HAND_N,
    HANDS,
    LEADER,
    LED,
    N_CARDS,
    N_PLAYED,
    PHASE,
    POINTS,
    POINTS_OF_INDEX,
    STOCK,
    STOCK_N,
    STOCK_POS,
    TO_ACT,
    TRICKS,
    TRUMP,
    WINNER,
    WINNING,
)
from kiaule_env.kozel.encoding import ENCODER
from kiaule_env.kozel.rules import (
    CLAIM,
    DECK,
    DECLINE,
    DISCARD,
    HAND_SIZE,
    NUM_MOVES,
    NUM_PLAYERS,
    PHASE_OVER,
    SERIES_LOSS,
    STOCK_SIZE,
    WIN_POINTS,
    Config,
    State,
)
from kiaule_env.vector import rng as vrng
from kiaule_env.vector.kernels import kernel_decorator

__all__ = ["WORDS", "KozelVector"]

# ------------------------------------------------------------------------------------ kernels
#: numba kernels whose cache also goes stale with the twin, the generator and the
#: rules' tables (kiaule_env.vector.kernels)
_kernel = kernel_decorator(compiled, vrng, rules, moves)


# ------------------------------------------------------------------------------------ layout
DECK_SIZE = DECK.size  # 36
_B = compiled.SIZE
SEEN = _B
KNOWN = _B + 1  # 4
MAYBE = _B + 5  # 4
DISC = _B + 9  # 4
TRICK_UP = _B + 13  # 4
TRICK_PLAYED = _B + 17
TRICK_DISCARDED = _B + 18
DECLINED = _B + 19
TRICK_DPTS = _B + 20  # 4
POINTS_SEEN = _B + 24  # 2
DISC_POINTS = _B + 26  # 8: seat * 2 + team
CARDS_TAKEN = _B + 34  # 2
INDICATOR = _B + 36
IND_INDEX = _B + 37
DEALER = _B + 38
GAME_INDEX = _B + 39
SERIES_LOSSES = _B + 40  # 2
CFG_SERIES = _B + 42
CFG_BOTTOM = _B + 43
LAST_LOSS = _B + 44  # 2
RNG = _B + 46
WORDS = RNG + vrng.RNG_WORDS

#: observation slices the kernels write, in the order of the ``off`` array they receive
_SLICES = (
    "hand", "trump", "indicator", "indicator_where", "indicator_depth", "stock_size",
    "hand_sizes", "phase", "cards_to_play", "leader", "claimed", "trick_me",
    "trick_discarded", "trick_played", "winning_seat", "to_beat", "declined", "seen",
    "known_left", "my_discards", "points_known", "tricks_taken", "cards_taken", "dealer",
    "series_loss", "eggs_streak", "game_index",
)  # fmt: skip
(
    O_HAND, O_TRUMP, O_IND, O_WHERE, O_DEPTH, O_STOCK, O_SIZES, O_PHASE, O_CARDS, O_LEADER,
    O_CLAIMED, O_TRICK, O_DISCARDED, O_PLAYED, O_WINNER, O_TO_BEAT, O_DECLINED, O_SEEN,
    O_KNOWN, O_MY_DISC, O_POINTS, O_TRICKS, O_TAKEN, O_DEALER, O_SERIES, O_EGGS, O_GAME,
) = range(len(_SLICES))  # fmt: skip
_CARD_SLICE = ENCODER.layout.offsets["trick_left"].start - ENCODER.layout.offsets["trick_me"].start


def _offsets() -> np.ndarray:
    starts = ENCODER.layout.offsets
    return np.array([starts[name].start for name in _SLICES], dtype=np.int64)


#: observation position (the deck's canonical order) of every kozel index
_POS: np.ndarray = DECK.position[compiled.CARD_OF_INDEX].astype(np.int64)
#: kozel index of every canonical deck position (what ``permutation(36)`` indexes)
_KOZ_OF_POS: np.ndarray = CARD_INDEX[np.array(DECK.cards)].astype(np.int64)


def _ratios(denominator: int) -> np.ndarray:
    """``x / denominator`` for x = 0 … denominator as the encoder stores it (a float64
    quotient rounded to float32): a lookup instead of a division per feature and step."""
    return np.array([x / denominator for x in range(denominator + 1)], dtype=np.float32)


_DIV4, _DIV9, _DIV20, _DIV36, _DIV120 = (_ratios(d) for d in (4, 9, 20, 36, 120))


# ------------------------------------------------------------------------------------ memory
@_kernel
def _points(cards: int) -> int:
    """K11 points of the cards of a mask."""
    total = 0
    while cards:
        total += POINTS_OF_INDEX[trailing_zeros(cards)]
        cards &= cards - 1
    return total


@_kernel
def _hand_mask(s: np.ndarray, seat: int) -> int:
    base = HANDS + HAND_SIZE * seat
    cards = 0
    for i in range(s[HAND_N + seat]):
        cards |= 1 << s[base + i]
    return cards


@_kernel
def _face_up(s: np.ndarray, seat: int, cards: int) -> None:
    """The engine's ``_played_face_up``: seen, and no longer only publicly known."""
    s[SEEN] |= cards
    s[KNOWN + seat] &= ~cards
    s[MAYBE + seat] &= ~cards


@_kernel
def _clear_trick(s: np.ndarray) -> None:
    for seat in range(NUM_PLAYERS):
        s[TRICK_UP + seat] = 0
        s[TRICK_DPTS + seat] = 0
    s[TRICK_PLAYED] = 0
    s[TRICK_DISCARDED] = 0
    s[DECLINED] = 0


@_kernel
def _book_claim(s: np.ndarray, claimant: int) -> None:
    """K8 claim, before the twin plays it: the led cards go back to the leader (public), the
    claimant's four are seen and become the trick's only play."""
    leader = s[FIRST_LEADER]
    led = 0
    for j in range(s[N_CARDS]):
        led |= 1 << s[LED + j]
    s[KNOWN + leader] |= led
    s[SEEN] &= ~led
    cards = _hand_mask(s, claimant)
    _face_up(s, claimant, cards)
    for seat in range(NUM_PLAYERS):
        s[TRICK_UP + seat] = 0
    s[TRICK_UP + claimant] = cards
    s[TRICK_PLAYED] = 1 << claimant
    s[TRICK_DISCARDED] = 0


@_kernel
def _book_play(s: np.ndarray, seat: int, move: int) -> None:
    """A lead, beat or discard (K5, K6), before the twin plays it."""
    subset = move % 15 + 1
    base = HANDS + HAND_SIZE * seat
    cards = 0
    for i in range(s[HAND_N + seat]):
        if subset >> i & 1:
            cards |= 1 << s[base + i]
    s[TRICK_PLAYED] |= 1 << seat
    if move // 15 == DISCARD:  # face down: the cards stay the mover's secret
        s[DISC + seat] |= cards
        s[TRICK_DISCARDED] |= 1 << seat
        s[TRICK_DPTS + seat] = _points(cards)
        s[MAYBE + seat] |= s[KNOWN + seat]
        s[KNOWN + seat] = 0
    else:
        _face_up(s, seat, cards)
        s[TRICK_UP + seat] = cards


@_kernel
def _book_trick_end(s: np.ndarray, winner: int, n_cards: int, pos0: int) -> None:
    """K7 the trick to the winner's team (K11 face-up and discarded points apart), K9 who drew
    the indicator (public, K4); then a fresh trick."""
    team = winner & 1
    seen_points = 0
    for seat in range(NUM_PLAYERS):
        seen_points += _points(s[TRICK_UP + seat])
        s[DISC_POINTS + 2 * seat + team] += s[TRICK_DPTS + seat]
    s[POINTS_SEEN + team] += seen_points
    s[CARDS_TAKEN + team] += NUM_PLAYERS * n_cards
    at = s[IND_INDEX]
    if pos0 <= at < s[STOCK_POS]:
        s[KNOWN + (winner + at - pos0) % NUM_PLAYERS] |= 1 << s[INDICATOR]
    _clear_trick(s)


# ------------------------------------------------------------------------------------ deals
@_kernel
def _deal(s: np.ndarray, perm: np.ndarray, dealer: int, first_leader: int) -> None:
    """K3/K4: deal the deck ``_KOZ_OF_POS[perm]`` (top first) by ``dealer``; the game's fields
    and memory start afresh (the episode's fields — series, eggs streak — stay)."""
    for seat in range(NUM_PLAYERS):
        s[HAND_N + seat] = 0
    for i in range(NUM_PLAYERS * HAND_SIZE):  # one at a time from the dealer's left
        seat = (dealer + 1 + i) % NUM_PLAYERS
        card = _KOZ_OF_POS[perm[i]]
        base = HANDS + HAND_SIZE * seat
        j = s[HAND_N + seat]
        while j > 0 and s[base + j - 1] > card:  # sorted hands (the engine's sort_hand)
            s[base + j] = s[base + j - 1]
            j -= 1
        s[base + j] = card
        s[HAND_N + seat] += 1
    first = NUM_PLAYERS * HAND_SIZE
    middle = STOCK_SIZE // 2
    indicator = _KOZ_OF_POS[perm[first + middle]]
    k = 0
    for i in range(STOCK_SIZE):
        if s[CFG_BOTTOM] == 1 and i == middle:
            continue  # K4 "bottom": the indicator goes face up under the stock
        s[STOCK + k] = _KOZ_OF_POS[perm[first + i]]
        k += 1
    if s[CFG_BOTTOM] == 1:
        s[STOCK + k] = indicator
        middle = STOCK_SIZE - 1
    _start_game(s, indicator, middle, dealer, first_leader)


@_kernel
def _start_game(s: np.ndarray, indicator: int, at: int, dealer: int, first_leader: int) -> None:
    s[INDICATOR] = indicator
    s[IND_INDEX] = at
    s[TRUMP] = indicator // 9
    s[DEALER] = dealer
    s[PHASE] = 0
    s[TO_ACT] = first_leader
    s[LEADER] = first_leader
    s[FIRST_LEADER] = first_leader
    s[compiled.CLAIMED] = 0
    s[N_CARDS] = 0
    s[N_PLAYED] = 0
    s[WINNER] = -1
    s[compiled.TRICK_POINTS] = 0
    s[STOCK_N] = STOCK_SIZE
    s[STOCK_POS] = 0
    for team in range(2):
        s[POINTS + team] = 0
        s[TRICKS + team] = 0
        s[POINTS_SEEN + team] = 0
        s[CARDS_TAKEN + team] = 0
    for j in range(HAND_SIZE):
        s[WINNING + j] = -1
        s[LED + j] = -1
    s[compiled.QUEUE_N] = 0
    for j in range(NUM_PLAYERS - 1):
        s[compiled.QUEUE + j] = -1
    s[SEEN] = 0
    for seat in range(NUM_PLAYERS):
        s[KNOWN + seat] = 0
        s[MAYBE + seat] = 0
        s[DISC + seat] = 0
        s[DISC_POINTS + 2 * seat] = 0
        s[DISC_POINTS + 2 * seat + 1] = 0
    _clear_trick(s)


@_kernel
def _new_episode(s: np.ndarray, seed: int, perm: np.ndarray) -> None:
    """A new episode from ``seed``: the generator ``raw_env.reset(seed)`` builds, game 0 dealt
    by seat 3 and led by seat 0 (§0, K14)."""
    vrng.seed(s, RNG, seed)
    s[EGGS_STREAK] = 0
    s[GAME_INDEX] = 0
    s[SERIES_LOSSES] = 0
    s[SERIES_LOSSES + 1] = 0
    s[LAST_LOSS] = 0
    s[LAST_LOSS + 1] = 0
    vrng.permutation(s, RNG, DECK_SIZE, perm)
    _deal(s, perm, NUM_PLAYERS - 1, 0)


@_kernel
def _end_of_game(s: np.ndarray, streak: int, perm: np.ndarray) -> bool:
    """K12–K14 after the twin scored a game: its loss points, the series, and the next game's
    deal (dealer after the previous one, led by the last trick's winner); True: episode over."""
    p0 = s[POINTS]
    s[LAST_LOSS] = 0
    s[LAST_LOSS + 1] = 0
    if p0 != s[POINTS + 1]:  # K13: eggs pay no loss points
        loser = 0 if p0 < WIN_POINTS else 1
        value = 2 if s[POINTS + loser] >= 31 else (4 if s[TRICKS + loser] > 0 else 6)
        if s[compiled.CFG_EGGS_DOUBLE] == 1:
            value <<= streak
        s[LAST_LOSS + loser] = value
        s[SERIES_LOSSES + loser] += value
    s[GAME_INDEX] += 1
    if s[CFG_SERIES] == 0 or max(s[SERIES_LOSSES], s[SERIES_LOSSES + 1]) >= SERIES_LOSS:
        return True
    vrng.permutation(s, RNG, DECK_SIZE, perm)
    _deal(s, perm, (3 + s[GAME_INDEX]) % NUM_PLAYERS, s[LEADER])
    return False


@_kernel
def _step_row(s: np.ndarray, move: np.ndarray, rewards: np.ndarray, perm: np.ndarray) -> bool:
    """Play ``move[0]`` on the row: memory, then the twin's rules, then the trick's and the
    game's end; True once the episode is over."""
    action = move[0]
    seat = s[TO_ACT]
    if action == CLAIM:
        _book_claim(s, seat)
    elif action == DECLINE:
        s[DECLINED] |= 1 << seat
    else:
        _book_play(s, seat, action)
    ends_trick = action < CLAIM and action >= 15 and s[N_PLAYED] == NUM_PLAYERS - 1
    n_cards = s[N_CARDS]
    pos0 = s[STOCK_POS]
    streak = s[EGGS_STREAK]
    over = compiled.apply(s, move, rewards)
    if ends_trick:
        _book_trick_end(s, s[LEADER], n_cards, pos0)
    if over:
        return _end_of_game(s, streak, perm)
    return False


# ------------------------------------------------------------------------------------ observation
@_kernel
def _ones(o: np.ndarray, base: int, cards: int, value: float, pos: np.ndarray) -> None:
    """``o[base + position of card] = value`` for every card of the mask."""
    while cards:
        o[base + pos[trailing_zeros(cards)]] = value
        cards &= cards - 1


@_kernel
def _observe_trick(s: np.ndarray, o: np.ndarray, me: int, off: np.ndarray, pos: np.ndarray) -> None:
    """The current trick's slices (written only while it has a play, as the encoder does)."""
    n = s[N_CARDS]
    o[off[O_CARDS] + n - 1] = 1.0
    o[off[O_LEADER] + ((s[LEADER] - me) & 3)] = 1.0
    o[off[O_WINNER] + ((s[WINNER] - me) & 3)] = 1.0
    for j in range(n):
        o[off[O_TO_BEAT] + pos[s[WINNING + j]]] = 1.0
    if s[compiled.CLAIMED] == 1:
        o[off[O_CLAIMED]] = 1.0
    for seat in range(NUM_PLAYERS):
        r = (seat - me) & 3
        if s[TRICK_PLAYED] >> seat & 1:
            o[off[O_PLAYED] + r] = 1.0
        if s[TRICK_DISCARDED] >> seat & 1:
            o[off[O_DISCARDED] + r] = 1.0
        else:
            _ones(o, off[O_TRICK] + _CARD_SLICE * r, s[TRICK_UP + seat], 1.0, pos)
        if s[DECLINED] >> seat & 1:
            o[off[O_DECLINED] + r] = 1.0


@_kernel
def _indicator_where(s: np.ndarray, me: int, hand: int) -> int:
    """0 in the stock, 1 with me, 2–4 publicly tied to left / partner / right, 5 seen."""
    if s[IND_INDEX] >= s[STOCK_POS]:
        return 0
    bit = 1 << s[INDICATOR]
    if (hand | s[DISC + me]) & bit:
        return 1
    for seat in range(NUM_PLAYERS):
        if seat != me and (s[KNOWN + seat] | s[MAYBE + seat]) & bit:
            return ((seat - me) & 3) + 1
    return 5


@_kernel
def _observe_counts(s: np.ndarray, o: np.ndarray, me: int, off: np.ndarray) -> None:
    """The scalar slices: stock, hand sizes, points, tricks, cards taken, the series."""
    o[off[O_STOCK]] = _DIV20[s[STOCK_N] - s[STOCK_POS]]
    for seat in range(NUM_PLAYERS):
        o[off[O_SIZES] + ((seat - me) & 3)] = _DIV4[s[HAND_N + seat]]
    mine = me & 1
    theirs = 1 - mine
    o[off[O_POINTS]] = _DIV120[s[POINTS_SEEN + mine] + s[DISC_POINTS + 2 * me + mine]]
    o[off[O_POINTS] + 1] = _DIV120[s[POINTS_SEEN + theirs] + s[DISC_POINTS + 2 * me + theirs]]
    o[off[O_TRICKS]] = _DIV9[s[TRICKS + mine]]
    o[off[O_TRICKS] + 1] = _DIV9[s[TRICKS + theirs]]
    o[off[O_TAKEN]] = _DIV36[s[CARDS_TAKEN + mine]]
    o[off[O_TAKEN] + 1] = _DIV36[s[CARDS_TAKEN + theirs]]
    o[off[O_DEALER] + ((s[DEALER] - me) & 3)] = 1.0
    if s[GAME_INDEX]:
        o[off[O_SERIES]] = min(s[SERIES_LOSSES + mine] / 12, 1.0)
        o[off[O_SERIES] + 1] = min(s[SERIES_LOSSES + theirs] / 12, 1.0)
        o[off[O_EGGS]] = min(s[EGGS_STREAK], 4) / 4
        o[off[O_GAME]] = min(s[GAME_INDEX], 20) / 20


@_kernel
def _observe(
    s: np.ndarray, o: np.ndarray, m: np.ndarray, off: np.ndarray, pos: np.ndarray, moves: np.ndarray
) -> int:
    """Write the seat to act's observation and action mask (the encoder's, bit for bit) and
    return that seat (-1, zeros, once the game is over)."""
    o[:] = 0.0
    m[:] = 0
    if s[PHASE] == PHASE_OVER:
        return -1
    me = s[TO_ACT]
    hand = _hand_mask(s, me)
    _ones(o, off[O_HAND], hand, 1.0, pos)
    _ones(o, off[O_SEEN], s[SEEN], 1.0, pos)
    o[off[O_TRUMP] + s[TRUMP]] = 1.0
    o[off[O_IND] + pos[s[INDICATOR]]] = 1.0
    where = _indicator_where(s, me, hand)
    o[off[O_WHERE] + where] = 1.0
    if where == 0:
        o[off[O_DEPTH]] = _DIV20[s[IND_INDEX] - s[STOCK_POS]]
    o[off[O_PHASE] + s[PHASE]] = 1.0
    if s[N_PLAYED] > 0:
        _observe_trick(s, o, me, off, pos)
    for seat in range(NUM_PLAYERS):
        if seat != me:
            base = off[O_KNOWN] + _CARD_SLICE * (((seat - me) & 3) - 1)
            _ones(o, base, s[MAYBE + seat], 0.5, pos)
            _ones(o, base, s[KNOWN + seat], 1.0, pos)
    _ones(o, off[O_MY_DISC], s[DISC + me], 1.0, pos)
    _observe_counts(s, o, me, off)
    n = compiled.legal(s, me, moves)
    for i in range(n):
        m[moves[i]] = 1
    return me


# ------------------------------------------------------------------------------------ batch kernels
@_kernel
def _step_batch(
    state: np.ndarray,
    actions: np.ndarray,
    rewards: np.ndarray,
    terminated: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
    agent: np.ndarray,
    off: np.ndarray,
    pos: np.ndarray,
) -> None:
    """One step of every slot whose action is not -1 (actions checked legal by the caller)."""
    deltas = np.zeros(NUM_PLAYERS, dtype=np.float64)
    perm = np.empty(DECK_SIZE, dtype=np.int64)
    moves = np.empty(NUM_MOVES, dtype=np.int64)
    for i in range(state.shape[0]):
        s = state[i]
        if actions[i] < 0 or s[PHASE] == PHASE_OVER:  # a waiting slot, or one never reset
            rewards[i, :] = 0.0
            terminated[i] = False
            continue
        deltas[:] = 0.0
        over = _step_row(s, actions[i : i + 1], deltas, perm)
        for seat in range(NUM_PLAYERS):
            rewards[i, seat] = deltas[seat]
        terminated[i] = over
        if not over:
            agent[i] = _observe(s, obs[i], mask[i], off, pos, moves)


@_kernel
def _reset_batch(
    state: np.ndarray,
    slots: np.ndarray,
    seeds: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
    agent: np.ndarray,
    off: np.ndarray,
    pos: np.ndarray,
) -> None:
    """New episodes in ``slots`` from ``seeds``, and their observations."""
    perm = np.empty(DECK_SIZE, dtype=np.int64)
    moves = np.empty(NUM_MOVES, dtype=np.int64)
    for j in range(slots.shape[0]):
        i = slots[j]
        _new_episode(state[i], seeds[j], perm)
        agent[i] = _observe(state[i], obs[i], mask[i], off, pos, moves)


@_kernel
def _observe_batch(
    state: np.ndarray,
    slots: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
    agent: np.ndarray,
    off: np.ndarray,
    pos: np.ndarray,
) -> None:
    moves = np.empty(NUM_MOVES, dtype=np.int64)
    for j in range(slots.shape[0]):
        i = slots[j]
        agent[i] = _observe(state[i], obs[i], mask[i], off, pos, moves)


# ------------------------------------------------------------------------------------ python side
def _mask_of(cards: Any) -> int:
    bits = 0
    for card in cards:
        bits |= 1 << int(CARD_INDEX[card])
    return bits


class KozelVector:
    """A batch of ``num_envs`` Kozel episodes (the per-game class of :mod:`kiaule_env.vector`).

    ``options`` are the rule keywords of :class:`~kiaule_env.kozel.rules.Config`, validated by
    it (the env's errors); every option is supported.
    """

    num_players = NUM_PLAYERS
    num_actions = NUM_MOVES
    #: a slot whose action is -1 waits: its row, observation and mask stay as they are
    partial_steps = True

    def __init__(self, num_envs: int, options: Mapping[str, Any]) -> None:
        check_keywords(Config, options)
        self.config = Config(**options)
        self.obs_size = ENCODER.size
        self.state = np.zeros((num_envs, WORDS), dtype=np.int64)
        self.state[:, compiled.CFG_MOLODKA] = compiled.MOLODKA_CODES[self.config.molodka]
        self.state[:, compiled.CFG_BEAT_PARTNER] = int(self.config.beat_partner)
        self.state[:, compiled.CFG_EGGS_DOUBLE] = int(self.config.eggs == "double")
        self.state[:, compiled.CFG_REWARD] = compiled.REWARD_CODES[self.config.reward]
        self.state[:, CFG_SERIES] = int(self.config.series)
        self.state[:, CFG_BOTTOM] = int(self.config.trump_card == "bottom")
        self.state[:, compiled.PHASE] = PHASE_OVER
        self.obs = np.zeros((num_envs, self.obs_size), dtype=np.float32)
        self.mask = np.zeros((num_envs, NUM_MOVES), dtype=np.int8)
        self.agent = np.full(num_envs, -1, dtype=np.int64)
        self._off = _offsets()

    def reset_slots(self, slots: np.ndarray, seeds: np.ndarray) -> None:
        """New episodes in ``slots``, each the deal of ``raw_env(**options).reset(seed)``."""
        slots = np.ascontiguousarray(slots, dtype=np.int64)
        seeds = np.ascontiguousarray(seeds, dtype=np.int64)
        _reset_batch(self.state, slots, seeds, self.obs, self.mask, self.agent, self._off, _POS)

    def step(self, actions: np.ndarray, rewards: np.ndarray, terminated: np.ndarray) -> None:
        """Every slot plays its (legal) action, or waits with -1; rewards, ends and the next
        observations."""
        _step_batch(
            self.state,
            np.ascontiguousarray(actions, dtype=np.int64),
            rewards,
            terminated,
            self.obs,
            self.mask,
            self.agent,
            self._off,
            _POS,
        )

    def results(self, slots: np.ndarray) -> list[dict[str, Any]]:
        """K16: the result dicts (``infos[agent]["result"]``) of the episodes just ended."""
        rows = self.state[np.asarray(slots, dtype=np.int64)][:, _RESULT_WORDS].tolist()
        return [_result(row, self.config.series) for row in rows]

    def load_state(self, slot: int, state: Any) -> None:
        """Put an engine :class:`~kiaule_env.kozel.rules.State` (memory included) into
        ``slot`` and write its observation. A series' later deals continue its generator."""
        if not isinstance(state, State):
            raise TypeError(f"state must be a kiaule_env.kozel.rules.State, got {type(state)}")
        if state.config != self.config:
            raise ValueError(f"state.config={state.config} differs from this batch's {self.config}")
        if state.decks:
            raise ValueError("state.decks: stacked decks of later games cannot be loaded")
        if state.config.series and state.rng is None:  # K14: later games are dealt from it
            raise ValueError("a series state needs its generator (state.rng) for later deals")
        s = self.state[slot]
        s[:] = 0
        s[: compiled.SIZE] = compiled.encode(state)
        s[CFG_SERIES] = int(state.config.series)
        s[CFG_BOTTOM] = int(state.config.trump_card == "bottom")
        _load_memory(s, state)
        if state.rng is not None:
            _load_generator(s, state.rng)
        slots = np.array([slot], dtype=np.int64)
        _observe_batch(self.state, slots, self.obs, self.mask, self.agent, self._off, _POS)

    def state_bytes(self) -> int:
        """Bytes of compiled state per slot."""
        return WORDS * self.state.itemsize


#: the row words a result is read from (one gather for all finished slots)
_RESULT_WORDS = np.array(
    [
        *(POINTS, POINTS + 1, LAST_LOSS, LAST_LOSS + 1, TRICKS, TRICKS + 1, TRUMP),
        *(SERIES_LOSSES, SERIES_LOSSES + 1, GAME_INDEX),
    ]
)


def _result(row: list[int], series: bool) -> dict[str, Any]:
    """The engine's result dict (K16) from the :data:`_RESULT_WORDS` of a row."""
    p0, p1, l0, l1, t0, t1, trump, s0, s1, games = row
    result: dict[str, Any] = {
        "team_points": [p0, p1],
        "loss_points": [l0, l1],
        "tricks": [t0, t1],
        "eggs": p0 == p1,
        "trump": SUITS[trump],
    }
    if series:
        result["series_loss_points"] = [s0, s1]
        result["games"] = games
    return result


def _load_generator(s: np.ndarray, generator: np.random.Generator) -> None:
    """Copy a numpy ``Generator(PCG64)``'s state into the row's generator words (bit for bit)."""
    bits = generator.bit_generator.state
    if bits.get("bit_generator") != "PCG64":
        raise ValueError(f"state.rng must be a PCG64 Generator, got {bits.get('bit_generator')}")
    words = [
        bits["state"]["state"] >> 64,
        bits["state"]["state"] & (2**64 - 1),
        bits["state"]["inc"] >> 64,
        bits["state"]["inc"] & (2**64 - 1),
        bits["has_uint32"],
        bits["uinteger"],
    ]
    s[RNG : RNG + vrng.RNG_WORDS] = np.array(words, dtype=np.uint64).view(np.int64)


def _load_memory(s: np.ndarray, state: State) -> None:
    """The information-set bookkeeping words of an engine state."""
    s[SEEN] = _mask_of(state.seen)
    for seat in range(NUM_PLAYERS):
        s[KNOWN + seat] = _mask_of(state.known[seat])
        s[MAYBE + seat] = _mask_of(state.maybe[seat])
        s[DISC + seat] = _mask_of(state.discards[seat])
        for team in range(2):
            s[DISC_POINTS + 2 * seat + team] = state.discard_points[seat][team]
    for seat, kind, cards in state.trick:
        s[TRICK_PLAYED] |= 1 << seat
        if kind == DISCARD:
            s[TRICK_DISCARDED] |= 1 << seat
            s[TRICK_DPTS + seat] = sum(rules.POINTS[c] for c in cards)
        else:
            s[TRICK_UP + seat] = _mask_of(cards)
    for seat in state.declined:
        s[DECLINED] |= 1 << seat
    for team in range(2):
        s[POINTS_SEEN + team] = state.points_seen[team]
        s[CARDS_TAKEN + team] = len(state.piles[team])
        s[SERIES_LOSSES + team] = state.series_loss[team]
        if state.last_result:
            s[LAST_LOSS + team] = state.last_result["loss_points"][team]
    s[INDICATOR] = CARD_INDEX[state.indicator]
    s[IND_INDEX] = state.indicator_index
    s[DEALER] = state.dealer
    s[GAME_INDEX] = state.game_index
