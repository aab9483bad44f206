"""The compiled (numba) playout twin of Kiauliaganys' rules (RULES §2, G1–G14, G10a).

Why a second implementation
---------------------------
Search agents (PIMC, IS-MCTS, ``agents/search.py``) play the current *deal* to its end thousands
of times per move, more than the Python engine (:mod:`kiaule_env.kiauliaganys.rules`) can play
in the time a move has; this module does the same deal-level rules on one flat ``np.int64``
array with ``numba.njit(cache=True)`` functions, many times as fast. The Python engine stays the
reference for the env and everything else; this twin is only behind
:class:`kiaule_env.core.simulate.CompiledSimulator` and is verified against the reference by
the differential test ``tests/kiauliaganys/test_compiled.py`` (seeded random deals over every
option variant: after every step the same array as :func:`encode` of the Python state, the same
acting seat, the same legal actions, the same reward deltas and the deal's end at the same step).

``measure`` in the test times random playouts of fresh deals on one core; the measured speeds,
compile times and the differential test's size are in ``docs/compiled-twins.md``. A process that
finds numba's cache (``__pycache__``, no ``NUMBA_CACHE_DIR`` needed) does not compile again.

What it covers
--------------
Every option of :class:`~kiaule_env.kiauliaganys.rules.Config`: 2–6 players, decks 36/52/54
(jokers: a dragged joker names a suit, G3/G6), ``must_play_from_hand`` and
``blind_drag_only_when_empty_hand`` (G13), ``max_turns`` (G10 cap with its tie-break),
``repetition`` (G10a, exact: the deal's position history is part of the array), ``reward``
``"win_loss"``/``"years"`` (G12), ``match_years`` (G11: the array is the current deal of the
match; the deal ends where the engine reports ``deal_result``) and ``pips`` (G9: piglets are only
part of the result, not of the rewards or the play, so nothing here depends on it).
:func:`supports` refuses only configurations whose exact G10a history would not fit in a
reasonable array (``repetition`` on with ``max_turns`` above :data:`MAX_HISTORY_TURNS`).

There is no randomness inside a deal: the face-down table's order is fixed at the deal's start
(G2) and is part of the array (a determinized state from ``sampling.sample_state`` fixes it too), so
the compiled and the Python engine given the same actions go through exactly the same deal.
:func:`random_playout` draws its actions from numba's own generator, seeded with ``seed``.

What the array leaves out: the public knowledge about hands (``face_up``, ``not_suit``,
``last_picked``), the dealer, match years and the rendered history. None of them changes legal
moves, transitions or rewards before the deal ends.

Rollout policy
--------------
:func:`policy_playout` (``rollout="policy"``, the search agents' default here) plays the deal to
its end with a cheap counterpart of the rule-based agent (``agents/kiauliaganys.py``) on every
seat. Random continuations say little about a move in this game (PIMC with random playouts
loses to the heuristic). Inside a determinized world
every hand and the face-down order are known, so the policy reads them instead of counting
cards. Each decision takes the best legal action (from :func:`legal`) by these rules, ties at
random (so playouts from one state differ); with probability :data:`POLICY_EPSILON` it takes a
uniformly random one instead (its cost and the strength that set the 0.05:
``docs/compiled-twins.md``):

1. **Match** (G4/G5): play from hand when possible, a suited card before a joker; otherwise
   ``search`` while face-down cards remain, else ``take``.
2. **Drag** (G6), aimed at the next player still in (G7): a suited card of the suit that hurts
   him most: one he cannot match (no card of it and no joker), the more so the more cards his
   search for it would pick up (the world fixes the face-down order); otherwise the suit he
   holds fewest of. Ties go to the suit the dragger holds most of. ``drag blind`` comes before
   giving up a joker; a joker names the suit that hurts him most.
3. **Take tactics** (G5/G8, two players still in, table empty): when the opponent holds at most
   two cards and no joker, and every card the mover could drag after his play is of a suit the
   opponent can match, while the card a ``take`` uncovers is one he cannot match, ``take``
   instead of playing (unless the mover holds at most two cards).
4. **Repetition** (G10a): when the turn's position has occurred before
   (``REPEATS`` ≥ 2) and its tie-break (most cards, ties from the player to move) would make
   the mover the swineherd, he moves at random to leave the cycle; otherwise he keeps to rules
   1–3 (deterministic apart from the tie-breaks, so a cycle that favours him tends to recur).

It costs about as much per step as a random playout and its deals are shorter, so search
keeps its number of playouts per move while its continuations become informative.

Array layout
------------
Cards are *deck positions* (``Deck.position``: by suit C D H S, ranks low to high, jokers last),
so ``play`` of position ``p`` is action ``p`` of the codec (``ActionCodec``). A hand is a bit mask
of positions (bit ``p``), at most 54 bits. Offsets (module constants):

=================  ======  ===============================================================
name               size    content
=================  ======  ===============================================================
``N``              1       number of players ``n``
``D``              1       deck size ``d``
``NSUITED``        1       suited cards of the deck (``d`` minus the jokers)
``REWARD``         1       G12: 0 ``win_loss``, 1 ``years``
``MUST_PLAY``      1       G13 ``must_play_from_hand`` (0/1)
``BLIND_EMPTY``    1       G13 ``blind_drag_only_when_empty_hand`` (0/1)
``REP_LIMIT``      1       G10a ``repetition`` (0: the rule is off)
``MAX_TURNS``      1       G10 ``max_turns``
``KEY_WORDS``      1       ``W``: int64 words of one G10a position key
``CAPACITY``       1       position records the history region holds (0 with G10a on: the
                           array's owner counts the positions, as the batched env does)
``SLOTS``          1       slots of the history's hash table (a power of two; 0 without G10a)
``PHASE``          1       MATCH 0, DRAG 1, OVER 2 (as ``rules``)
``TO_ACT``         1       seat to decide, -1 once over
``LAST_TURN``      1       the G8 last turn is being made (0/1)
``NAMED``          1       suit named by a dragged joker on top of the fund (G6), else -1
``TURNS``          1       completed turns of the deal (G10)
``FUND_LEN``       1       cards in the open fund
``FD_LEN``         1       cards on the face-down table
``LOSER``          1       the swineherd once over (-1 if none)
``TAIL``           1       the seat that caught the pig by the tail (-1 if none, G8)
``ENDING``         1       0 running, 1 play (G8), 2 cap (G10), 3 repetition (G10a)
``RECORDS``        1       G10a position records in use
``REPEATS``        1       G10a count of the position the current turn started from
``SUIT_MASK``      4       positions of each suit C D H S (constant)
``JOKER_MASK``     1       positions of the jokers (constant)
``HAND``           6       per seat, the hand's bit mask
``COUNT``          6       per seat, cards held
``HAD_TURN``       6       per seat, has completed a turn (G7)
``OUT``            6       per seat, out of the deal, safe (G7)
``SUIT``           54      suit of each position, -1 for a joker (constant)
``FUND``           54      the open fund bottom first (``FUND_LEN`` used, the rest -1)
``FACE_DOWN``      54      the face-down table, next card to draw last (``FD_LEN`` used, -1)
``HISTORY``        ...     ``CAPACITY`` records of ``W + 1`` words (position key, count), then
                           ``SLOTS`` hash-table entries (record index + 1, 0 empty)
=================  ======  ===============================================================

The G10a position (every hand as a set, the fund in order, the named suit, who has had a turn,
the player to move, the pending G8 last turn) is packed exactly, not hashed: once the table is
empty every card is in a hand or in the fund, so a 6-bit code per card (the holder's seat, or
6 + its index in the fund) plus three 6-bit fields (player to move, last turn and named suit,
who has had a turn), ten fields to a word, determine it and are determined by it. The hash
table (linear probing, keys compared word by word) only finds the record; records are kept in
the order they first occurred, as the engine's ``positions`` dict is, so :func:`encode` of a
Python state rebuilds exactly the table the compiled play built. ``CAPACITY`` is ``max_turns + 1``
(at most one record per turn, plus one scratch record), the same all through a deal.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
from numba import njit

from kiaule_env.cards import get_deck
from kiaule_env.kiauliaganys.rules import ANY, DRAG, MATCH, OVER, Config, State

#: the G10a history may take ``max_turns`` records; above this many turns :func:`supports`
#: refuses the configuration (the array would pass 50 MB) and search uses the Python engine
MAX_HISTORY_TURNS = 1_000_000

MAX_SEATS = 6
MAX_CARDS = 54
FIELD_BITS = 6  # one packed G10a key field
FIELDS_PER_WORD = 10
FUND_CODE = 6  # key code of a fund card: FUND_CODE + its index in the fund

# header (configuration)
N = 0
D = 1
NSUITED = 2
REWARD = 3
MUST_PLAY = 4
BLIND_EMPTY = 5
REP_LIMIT = 6
MAX_TURNS = 7
KEY_WORDS = 8
CAPACITY = 9
SLOTS = 10
# the deal
PHASE = 11
TO_ACT = 12
LAST_TURN = 13
NAMED = 14
TURNS = 15
FUND_LEN = 16
FD_LEN = 17
LOSER = 18
TAIL = 19
ENDING = 20
RECORDS = 21
REPEATS = 22
SUIT_MASK = 23
JOKER_MASK = SUIT_MASK + 4
HAND = JOKER_MASK + 1
COUNT = HAND + MAX_SEATS
HAD_TURN = COUNT + MAX_SEATS
OUT = HAD_TURN + MAX_SEATS
SUIT = OUT + MAX_SEATS
FUND = SUIT + MAX_CARDS
FACE_DOWN = FUND + MAX_CARDS
HISTORY = FACE_DOWN + MAX_CARDS

#: ``ENDING`` values
RUNNING = 0
ENDED_PLAY = 1
ENDED_CAP = 2
ENDED_REPETITION = 3

_HASH_MULT = -7046029254386353131  # 0x9E3779B97F4A7C15 as a signed int64


# ---------------------------------------------------------------------------------- Python side
def supports(config: Any) -> bool:
    """Whether this twin covers ``config``: every Kiauliaganys configuration, except G10a on
    with ``max_turns`` above :data:`MAX_HISTORY_TURNS` (the exact history would be too big)."""
    if not isinstance(config, Config):
        return False
    return config.repetition is None or config.max_turns <= MAX_HISTORY_TURNS


def key_words(d: int) -> int:
    """int64 words of a packed G10a position key for a ``d``-card deck."""
    return -(-(d + 3) // FIELDS_PER_WORD)


def encode(state: State) -> np.ndarray:
    """The array (layout in the module docstring) of ``state``'s current deal.

    A plain Python function (it runs once per loaded state, not per step); ``TypeError`` for
    anything but a Kiauliaganys ``rules.State``.
    """
    if not isinstance(state, State):
        raise TypeError(f"state must be a kiauliaganys rules.State, got {type(state).__name__}")
    config = state.config
    if not supports(config):
        raise ValueError(
            f"max_turns={config.max_turns} with repetition={config.repetition} is not supported "
            f"by the compiled twin (at most {MAX_HISTORY_TURNS} turns with G10a on)"
        )
    head = encode_head(state)
    s = np.zeros(_size(head), dtype=np.int64)
    s[:HISTORY] = head
    positions = state.positions
    if s[CAPACITY] and positions:
        pos = _deck_tables(config.deck)[0]
        words = s[KEY_WORDS]
        cache = _KEYS.setdefault(config.deck, {})
        if len(cache) > _KEY_CACHE_SIZE:
            cache.clear()
        rows = [cache.get(key) or _key(cache, key, pos) for key in positions]
        block = s[HISTORY : HISTORY + len(rows) * (words + 1)].reshape(len(rows), words + 1)
        block[:, :words] = rows
        block[:, words] = list(positions.values())
        s[RECORDS] = len(rows)
        _rebuild_table(s)
    return s


def encode_head(state: State) -> np.ndarray:
    """The first ``HISTORY`` words of :func:`encode`: everything but the G10a position records
    (the cheap part, for tests that compare the deal at every step and the history less
    often)."""
    config = state.config
    capacity = _capacity(config, state.turns, len(state.positions))
    s = _template(config, capacity).copy()
    pos, bit = _deck_tables(config.deck)
    _encode_deal(s, state, pos, bit)
    return s


def _size(head: np.ndarray) -> int:
    """The whole array's size for its header ``head``."""
    return HISTORY + head[CAPACITY] * (head[KEY_WORDS] + 1) + head[SLOTS]


def _capacity(config: Config, turns: int, records: int) -> int:
    """G10a records the array holds: ``max_turns + 1`` (a deal records at most one position per
    turn, so an engine state has at most ``turns`` records and ``max_turns - turns`` to come,
    plus one scratch record); the same all through a deal, so :func:`encode` of every state of
    a deal gives arrays of one size. More only for a state with more records than turns; 0
    with the rule off."""
    if config.repetition is None:
        return 0
    return max(config.max_turns, records + config.max_turns - turns) + 1


@lru_cache(maxsize=64)
def _template(config: Config, capacity: int) -> np.ndarray:
    """The head of a configuration's array before the deal is written: header and constant
    tables for a history of ``capacity`` records (copied by :func:`encode_head`)."""
    deck = config.the_deck
    d = deck.size
    words = key_words(d)
    slots = 1 << (2 * capacity - 1).bit_length() if capacity else 0
    s = np.zeros(HISTORY, dtype=np.int64)
    suits = [c // 13 if c < 52 else -1 for c in deck.cards]
    s[N], s[D], s[NSUITED] = config.num_players, d, sum(t >= 0 for t in suits)
    s[REWARD] = 1 if config.reward == "years" else 0
    s[MUST_PLAY] = int(config.must_play_from_hand)
    s[BLIND_EMPTY] = int(config.blind_drag_only_when_empty_hand)
    s[REP_LIMIT] = config.repetition or 0
    s[MAX_TURNS] = config.max_turns
    s[KEY_WORDS], s[CAPACITY], s[SLOTS] = words, capacity, slots
    s[SUIT : SUIT + MAX_CARDS] = -1
    s[SUIT : SUIT + d] = suits
    for p, t in enumerate(suits):
        if t >= 0:
            s[SUIT_MASK + t] |= 1 << p
        else:
            s[JOKER_MASK] |= 1 << p
    s[FUND : FUND + 2 * MAX_CARDS] = -1
    s.flags.writeable = False  # shared by every encode of the configuration
    return s


@lru_cache(maxsize=8)
def _deck_tables(deck_name: str) -> tuple[list[int], list[int]]:
    """Per card id: its deck position and its hand-mask bit (0 outside the deck)."""
    position = [int(p) for p in get_deck(deck_name).position]
    return position, [1 << p if p >= 0 else 0 for p in position]


def _encode_deal(s: np.ndarray, state: State, pos: list[int], bit: list[int]) -> None:
    """The deal's scalars, hands, fund and face-down table."""
    ending = RUNNING
    if state.phase == OVER:
        ending = ENDED_REPETITION if state.repeated else ENDED_CAP if state.capped else ENDED_PLAY
    s[PHASE : REPEATS + 1] = (
        state.phase,
        state.to_act,
        int(state.last_turn),
        state.named_suit,
        state.turns,
        len(state.fund),
        len(state.face_down),
        state.loser,
        state.caught_by_tail,
        ending,
        len(state.positions),
        state.repeats,
    )
    n = len(state.hands)
    s[HAND : HAND + n] = [sum(map(bit.__getitem__, hand)) for hand in state.hands]
    s[COUNT : COUNT + n] = list(map(len, state.hands))
    s[HAD_TURN : HAD_TURN + n] = state.had_turn
    s[OUT : OUT + n] = state.out
    s[FUND : FUND + len(state.fund)] = list(map(pos.__getitem__, state.fund))
    s[FACE_DOWN : FACE_DOWN + len(state.face_down)] = list(map(pos.__getitem__, state.face_down))


#: packed G10a keys per deck (positions recur across the clones a search makes)
_KEYS: dict[str, dict[tuple, tuple[int, ...]]] = {}
_KEY_CACHE_SIZE = 1 << 16


def _key(cache: dict[tuple, tuple[int, ...]], key: tuple, pos: list[int]) -> tuple[int, ...]:
    """The packed words of a ``rules.position_key`` (the packing of :func:`_pack_key`), stored
    in ``cache``."""
    to_act, last_turn, named, had_turn, fund, *hands = key
    d = sum(map(len, hands)) + len(fund)  # the table is empty: every card is placed
    codes = [0] * (d + 3)
    for seat, hand in enumerate(hands):
        for c in hand:
            codes[pos[c]] = seat
    for i, c in enumerate(fund):
        codes[pos[c]] = FUND_CODE + i
    codes[d] = to_act
    codes[d + 1] = int(last_turn) * 8 + named + 1
    codes[d + 2] = sum(1 << seat for seat, had in enumerate(had_turn) if had)
    words = [0] * key_words(d)
    for k, code in enumerate(codes):
        words[k // FIELDS_PER_WORD] |= code << (FIELD_BITS * (k % FIELDS_PER_WORD))
    packed = tuple(words)
    cache[key] = packed
    return packed


# ---------------------------------------------------------------------------------- compiled
@njit(cache=True)
def to_act(s: np.ndarray, out: np.ndarray) -> int:
    """Writes the seat to act into ``out[0]``; 1, or 0 once the deal is over."""
    if s[PHASE] == OVER:
        return 0
    out[0] = s[TO_ACT]
    return 1


@njit(cache=True)
def _required(s: np.ndarray) -> int:
    """G3: the required suit (ANY for an empty fund or an unnamed joker on top)."""
    length = s[FUND_LEN]
    if length == 0:
        return ANY
    top = s[FUND + length - 1]
    if top >= s[NSUITED]:
        return s[NAMED]
    return s[SUIT + top]


@njit(cache=True)
def _bits(mask: int, base: int, out: np.ndarray, n: int) -> int:
    """Writes ``base + p`` for every set bit ``p`` of ``mask`` ascending from ``out[n]`` (the
    set bits only, lowest first: a hand's bits are random, a test per bit mispredicts)."""
    while mask:
        low = mask & -mask
        out[n] = base + _popcount(low - 1)
        n += 1
        mask ^= low
    return n


@njit(cache=True)
def _plays(s: np.ndarray, hand: int) -> int:
    """G4/G5: the hand's cards that match the required suit (jokers always match)."""
    req = _required(s)
    if req == ANY:
        return hand
    return hand & (s[SUIT_MASK + req] | s[JOKER_MASK])


@njit(cache=True)
def legal(s: np.ndarray, seat: int, out: np.ndarray) -> int:
    """Writes ``seat``'s legal codec indices ascending into ``out``; returns their number."""
    phase = s[PHASE]
    if phase == OVER or seat != s[TO_ACT]:
        return 0
    hand = s[HAND + seat]
    d = s[D]
    ns = s[NSUITED]
    search = d + ns + 4 * (d - ns)
    if phase == MATCH:
        plays = _plays(s, hand)
        n = _bits(plays, 0, out, 0)
        if s[FD_LEN] > 0:  # G4; G13 forbids the search while holding a match
            if plays == 0 or s[MUST_PLAY] == 0:
                out[n] = search
                n += 1
        elif s[FUND_LEN] > 0:  # G5 take (G7: the empty-handed player's only move)
            out[n] = search + 1
            n += 1
        return n
    n = _bits(hand & ((1 << ns) - 1), d, out, 0)  # G6 drag a suited card
    jokers = hand >> ns
    base = d + ns
    while jokers:  # G6: a dragged joker names a suit
        if jokers & 1:
            for t in range(4):
                out[n] = base + t
                n += 1
        jokers >>= 1
        base += 4
    if s[FD_LEN] > 0 and (s[BLIND_EMPTY] == 0 or hand == 0):  # G6, G13
        out[n] = search + 2
        n += 1
    return n


@njit(cache=True)
def apply(s: np.ndarray, actions: np.ndarray, rewards: np.ndarray) -> bool:
    """Makes the decision ``actions[0]`` of the seat to act (G4–G8, G10, G10a); adds the deal's
    rewards (G12) into ``rewards`` at its end; ``True`` once the deal is over."""
    a = actions[0]
    seat = s[TO_ACT]
    d = s[D]
    ns = s[NSUITED]
    search = d + ns + 4 * (d - ns)
    if a < d:  # play
        _remove(s, seat, a)
        _push_fund(s, a, -1)
        _after_match(s, seat, rewards)
    elif a < d + ns:  # drag a suited card
        _remove(s, seat, a - d)
        _push_fund(s, a - d, -1)
        _end_turn(s, seat, rewards)
    elif a < search:  # drag a joker naming a suit (G6)
        j = a - d - ns
        _remove(s, seat, ns + j // 4)
        _push_fund(s, ns + j // 4, j % 4)
        _end_turn(s, seat, rewards)
    elif a == search:
        _search(s, seat, rewards)
    elif a == search + 1:  # take (G5): an uncovered joker means any suit (G3)
        length = s[FUND_LEN] - 1
        card = s[FUND + length]
        s[FUND + length] = -1
        s[FUND_LEN] = length
        s[NAMED] = -1
        s[HAND + seat] |= 1 << card
        s[COUNT + seat] += 1
        _end_turn(s, seat, rewards)
    else:  # drag blind (G6): a blind-dragged joker names no suit
        _push_fund(s, _pop_face_down(s), -1)
        if s[FD_LEN] == 0:
            _update_out(s)
        _end_turn(s, seat, rewards)
    return s[PHASE] == OVER


@njit(cache=True)
def _remove(s: np.ndarray, seat: int, card: int) -> None:
    s[HAND + seat] &= ~(1 << card)
    s[COUNT + seat] -= 1


@njit(cache=True)
def _push_fund(s: np.ndarray, card: int, named: int) -> None:
    s[FUND + s[FUND_LEN]] = card
    s[FUND_LEN] += 1
    s[NAMED] = named


@njit(cache=True)
def _pop_face_down(s: np.ndarray) -> int:
    length = s[FD_LEN] - 1
    card = s[FACE_DOWN + length]
    s[FACE_DOWN + length] = -1
    s[FD_LEN] = length
    return card


@njit(cache=True)
def _search(s: np.ndarray, seat: int, rewards: np.ndarray) -> None:
    """G4: draw until the required suit (or a joker) appears; the misses go to the hand. If the
    table runs out first, the same player goes on as in G5."""
    req = _required(s)
    ns = s[NSUITED]
    while s[FD_LEN] > 0:
        card = _pop_face_down(s)
        if req == ANY or card >= ns or s[SUIT + card] == req:
            _push_fund(s, card, -1)
            if s[FD_LEN] == 0:
                _update_out(s)
            _after_match(s, seat, rewards)
            return
        s[HAND + seat] |= 1 << card
        s[COUNT + seat] += 1
    _update_out(s)


@njit(cache=True)
def _after_match(s: np.ndarray, seat: int, rewards: np.ndarray) -> None:
    """G6: drag next, unless hand and face-down table are both empty (a one-card move)."""
    if s[COUNT + seat] > 0 or s[FD_LEN] > 0:
        s[PHASE] = DRAG
    else:
        _end_turn(s, seat, rewards)


@njit(cache=True)
def _update_out(s: np.ndarray) -> None:
    """G7: out once he has had a turn, holds no cards and the face-down table is empty."""
    if s[FD_LEN] > 0:
        return
    for t in range(s[N]):
        if s[OUT + t] == 0 and s[HAD_TURN + t] == 1 and s[COUNT + t] == 0:
            s[OUT + t] = 1


@njit(cache=True)
def _next_mover(s: np.ndarray, seat: int) -> int:
    """G7/G8: the next player still in after ``seat`` (``LAST_TURN`` set when he is the only
    one), passing out an empty-handed player who has had no turn with nothing to take; -1 when
    nobody is still in."""
    n = s[N]
    while True:
        still = 0
        first = -1
        for t in range(n):
            if s[OUT + t] == 0:
                still += 1
                if first < 0:
                    first = t
        if still == 0:
            return -1
        s[LAST_TURN] = 1 if still == 1 else 0
        if still == 1:
            nxt = first
        else:
            nxt = (seat + 1) % n
            while s[OUT + nxt] == 1:
                nxt = (nxt + 1) % n
        if s[COUNT + nxt] == 0 and s[HAD_TURN + nxt] == 0 and s[FD_LEN] == 0 and s[FUND_LEN] == 0:
            s[OUT + nxt] = 1  # G7: no cards, no turn yet, nothing to take
            continue
        return nxt


@njit(cache=True)
def _end_turn(s: np.ndarray, seat: int, rewards: np.ndarray) -> None:
    """Close a turn (G10) and decide who moves next: G7 passes, G8 last turn, G10 cap, G10a."""
    s[HAD_TURN + seat] = 1
    s[TURNS] += 1
    s[PHASE] = MATCH
    _update_out(s)
    if s[LAST_TURN] == 1:  # G8: the last turn has been made
        if s[COUNT + seat] > 0:
            _finish(s, seat, -1, ENDED_PLAY, rewards)
        else:
            _finish(s, -1, seat, ENDED_PLAY, rewards)
        return
    nxt = _next_mover(s, seat)
    if nxt < 0:  # G8: nobody is still in, no loser
        _finish(s, -1, -1, ENDED_PLAY, rewards)
        return
    if s[TURNS] >= s[MAX_TURNS]:  # G10, even with a G8 last turn pending
        _finish(s, _most_cards(s, nxt), -1, ENDED_CAP, rewards)
        return
    s[TO_ACT] = nxt
    # G10a: the position at the turn's start, once the face-down table is empty (an array
    # without history room leaves the count to its owner: the batched env, which then calls
    # ``_repeated`` itself)
    if s[CAPACITY] > 0 and _counts_position(s):
        _repeated(s, _record(s), rewards)


@njit(cache=True)
def _counts_position(s: np.ndarray) -> bool:
    """G10a: whether the position a turn starts from is counted (the rule is on and the
    face-down table is empty)."""
    return s[REP_LIMIT] > 0 and s[FD_LEN] == 0


@njit(cache=True)
def _repeated(s: np.ndarray, count: int, rewards: np.ndarray) -> None:
    """G10a: the position the turn starts from has now occurred ``count`` times (``REPEATS``);
    at the ``repetition``-th occurrence the deal ends, the player holding the most cards the
    swineherd (ties from the player to move, G10)."""
    s[REPEATS] = count
    if count >= s[REP_LIMIT]:
        _finish(s, _most_cards(s, s[TO_ACT]), -1, ENDED_REPETITION, rewards)


@njit(cache=True)
def _most_cards(s: np.ndarray, first: int) -> int:
    """G10/G10a: the seat holding the most cards, ties to the first clockwise from ``first``."""
    n = s[N]
    best = first
    for i in range(1, n):
        t = (first + i) % n
        if s[COUNT + t] > s[COUNT + best]:
            best = t
    return best


@njit(cache=True)
def _finish(s: np.ndarray, loser: int, tail: int, ending: int, rewards: np.ndarray) -> None:
    """End the deal and add its rewards (G12): swineherd −1, the others +1/(n−1), or with
    ``reward="years"`` the swineherd −years; nothing without a loser."""
    s[PHASE] = OVER
    s[TO_ACT] = -1
    s[LAST_TURN] = 0
    s[LOSER] = loser
    s[TAIL] = tail
    s[ENDING] = ending
    if loser < 0:
        return
    n = s[N]
    if s[REWARD] == 1:
        rewards[loser] -= float(s[COUNT + loser])
        return
    share = 1.0 / (n - 1)
    for t in range(n):
        rewards[t] += -1.0 if t == loser else share


@njit(cache=True)
def _pack_key(s: np.ndarray, base: int) -> None:
    """Writes the G10a key of the current position into ``s[base:base + KEY_WORDS]``
    (:func:`_pack_key_into` the array itself)."""
    _pack_key_into(s, s, base)


@njit(cache=True)
def _pack_key_into(s: np.ndarray, out: np.ndarray, base: int) -> None:
    """Writes the G10a key of the position of ``s`` into ``out[base:base + KEY_WORDS]``: each
    card's code (the holder's seat, or ``FUND_CODE`` + its index in the fund) in deck order,
    then the three position fields, ``FIELDS_PER_WORD`` fields to a word (the batched env packs
    into a scratch array that is in the cache, then copies the words)."""
    d = s[D]
    for w in range(s[KEY_WORDS]):
        out[base + w] = 0
    had = 0
    for seat in range(s[N]):
        mask = s[HAND + seat]
        while mask:  # the set bits only, lowest first (a hand's bits are random)
            low = mask & -mask
            _put_field(out, base, _popcount(low - 1), seat)
            mask ^= low
        if s[HAD_TURN + seat]:
            had |= 1 << seat
    for i in range(s[FUND_LEN]):
        _put_field(out, base, s[FUND + i], FUND_CODE + i)
    _put_field(out, base, d, s[TO_ACT])
    _put_field(out, base, d + 1, s[LAST_TURN] * 8 + s[NAMED] + 1)
    _put_field(out, base, d + 2, had)


@njit(cache=True)
def _put_field(out: np.ndarray, base: int, k: int, code: int) -> None:
    """ORs ``code`` into field ``k`` of the packed key at ``out[base]`` (its words start at
    zero; each field is written once: no scratch array, no allocation per recorded turn)."""
    out[base + k // FIELDS_PER_WORD] |= code << (FIELD_BITS * (k % FIELDS_PER_WORD))


@njit(cache=True)
def _slot(s: np.ndarray, base: int) -> int:
    """The hash-table slot of the key at ``base``: the slot of its record, or the empty slot
    where it belongs."""
    words = s[KEY_WORDS]
    h = 0
    for w in range(words):
        h = (h ^ s[base + w]) * _HASH_MULT
    h ^= h >> 29
    mask = s[SLOTS] - 1
    table = HISTORY + s[CAPACITY] * (words + 1)
    i = h & mask
    while s[table + i] != 0:
        other = HISTORY + (s[table + i] - 1) * (words + 1)
        same = True
        for w in range(words):
            if s[other + w] != s[base + w]:
                same = False
                break
        if same:
            return i
        i = (i + 1) & mask
    return i


@njit(cache=True)
def _record(s: np.ndarray) -> int:
    """G10a: count the current position in the deal's history; returns its occurrences."""
    words = s[KEY_WORDS]
    new = s[RECORDS]
    base = HISTORY + new * (words + 1)
    _pack_key(s, base)
    table = HISTORY + s[CAPACITY] * (words + 1)
    i = _slot(s, base)
    if s[table + i] == 0:
        s[table + i] = new + 1
        s[base + words] = 1
        s[RECORDS] = new + 1
        count = 1
    else:
        for w in range(words):  # the scratch record goes back to zeros
            s[base + w] = 0
        other = HISTORY + (s[table + i] - 1) * (words + 1)
        s[other + words] += 1
        count = s[other + words]
    return count


@njit(cache=True)
def _rebuild_table(s: np.ndarray) -> None:
    """Insert records ``0 … RECORDS-1`` into the empty hash table, in order (:func:`encode`)."""
    words = s[KEY_WORDS]
    table = HISTORY + s[CAPACITY] * (words + 1)
    for r in range(s[RECORDS]):
        i = _slot(s, HISTORY + r * (words + 1))
        s[table + i] = r + 1


@njit(cache=True)
def playout_recorded(s: np.ndarray, rewards: np.ndarray, seed: int, record: np.ndarray) -> int:
    """:func:`random_playout`, also writing the chosen actions into ``record`` (as many as fit;
    tests replay them through the Python engine). Returns the number of ``apply`` steps."""
    np.random.seed(seed)
    out = np.empty(MAX_CARDS * 2 + 3 + 8, dtype=np.int64)
    action = np.empty(1, dtype=np.int64)
    steps = 0
    while s[PHASE] != OVER:
        n = legal(s, s[TO_ACT], out)
        action[0] = out[np.random.randint(0, n)]
        if steps < record.shape[0]:
            record[steps] = action[0]
        apply(s, action, rewards)
        steps += 1
    return steps


@njit(cache=True)
def random_playout(s: np.ndarray, rewards: np.ndarray, seed: int) -> int:
    """Play the deal to its end with uniformly random legal actions from numba's generator
    seeded with ``seed``; adds the rewards; returns the number of ``apply`` steps."""
    return playout_recorded(s, rewards, seed, np.empty(0, dtype=np.int64))


# ---------------------------------------------------------------------------------- rollout policy
#: chance that a policy decision is a uniformly random legal action (playouts from one state
#: differ; see the module docstring, "Rollout policy")
POLICY_EPSILON = 0.05

# move classes of the policy's scores (larger is preferred; each class is wider than the terms
# added inside it, so a class always beats the ones below it)
_CLASS = 1e9
_LACK = 1e6  # the target cannot match the suit (no card of it, no joker)
_PICK = 1e4  # per face-down card his search for it would pick up


@njit(cache=True)
def _popcount(mask: int) -> int:
    """The set bits of a non-negative ``mask`` below ``2**62`` (branch-free: a hand's bits
    are random, a loop over them mispredicts)."""
    mask = mask - ((mask >> 1) & 0x5555555555555555)
    mask = (mask & 0x3333333333333333) + ((mask >> 2) & 0x3333333333333333)
    mask = (mask + (mask >> 4)) & 0x0F0F0F0F0F0F0F0F
    return ((mask * 0x0101010101010101) >> 56) & 0xFF


@njit(cache=True)
def _next_in(s: np.ndarray, seat: int) -> int:
    """The next seat still in after ``seat`` (``seat`` itself if nobody else is): the player a
    drag is aimed at (G7: the players who are out are passed over)."""
    n = s[N]
    for step in range(1, n):
        t = (seat + step) % n
        if s[OUT + t] == 0:
            return t
    return seat


@njit(cache=True)
def _matches(s: np.ndarray, seat: int, suit: int) -> bool:
    """Whether ``seat`` can play onto a required ``suit`` (a card of it or a joker, G4/G5)."""
    return (s[HAND + seat] & (s[SUIT_MASK + suit] | s[JOKER_MASK])) != 0


@njit(cache=True)
def _search_picks(s: np.ndarray, suit: int) -> int:
    """G4: the face-down cards a search for ``suit`` picks up before it finds the suit or a
    joker (all of them if it runs out); the world fixes the table's order."""
    ns = s[NSUITED]
    picks = 0
    for i in range(s[FD_LEN] - 1, -1, -1):
        card = s[FACE_DOWN + i]
        if card >= ns or s[SUIT + card] == suit:
            return picks
        picks += 1
    return picks


@njit(cache=True)
def _drag_pain(s: np.ndarray, target: int, suit: int) -> float:
    """Policy rule 2: how much a drag of ``suit`` hurts ``target``: a suit he cannot match, the
    more so the longer his search for it; among suits he can match, the fewer he holds of it the
    better (he may have to give up his only one)."""
    if _matches(s, target, suit):
        return float(13 - _popcount(s[HAND + target] & s[SUIT_MASK + suit]))
    if s[FD_LEN] > 0:
        return _LACK + _PICK * _search_picks(s, suit)
    return _LACK


@njit(cache=True)
def _still_in(s: np.ndarray) -> int:
    count = 0
    for t in range(s[N]):
        if s[OUT + t] == 0:
            count += 1
    return count


@njit(cache=True)
def _take_instead(s: np.ndarray, seat: int) -> bool:
    """Policy rule 3 (two-player endgame, table empty, G5): ``take`` rather than play when the
    opponent holds at most two cards and can match every suit the agent could drag after a play
    (he would shed his cards and leave the agent the swineherd), while he cannot match the card
    a take uncovers."""
    if s[FD_LEN] > 0 or s[FUND_LEN] == 0 or s[COUNT + seat] <= 2 or _still_in(s) != 2:
        return False
    opponent = _next_in(s, seat)
    if opponent == seat or s[COUNT + opponent] > 2:
        return False
    if s[HAND + opponent] & s[JOKER_MASK]:
        return False  # a joker matches anything: nothing blocks him
    hand = s[HAND + seat]
    required = _required(s)
    for t in range(4):  # a card left for the drag after the play that he cannot match
        left = _popcount(hand & s[SUIT_MASK + t]) - (1 if t == required else 0)
        if left >= 1 and not _matches(s, opponent, t):
            return False
    if hand & s[JOKER_MASK]:
        return False  # a joker kept for the drag can name the suit he lacks
    length = s[FUND_LEN]
    if length < 2:
        return False  # the take empties the fund: he may play anything
    below = s[FUND + length - 2]
    if below >= s[NSUITED]:
        return False  # an uncovered joker means any suit (G3)
    return not _matches(s, opponent, s[SUIT + below])


@njit(cache=True)
def _score(s: np.ndarray, seat: int, a: int, target: int, take_first: bool) -> float:
    """The policy's preference for legal action ``a`` of ``seat`` (module docstring, "Rollout
    policy", rules 1–3); the largest is played, ties at random."""
    d = s[D]
    ns = s[NSUITED]
    search = d + ns + 4 * (d - ns)
    if a < d:  # rule 1: play from hand, a suited card before a joker
        return 3 * _CLASS if a < ns else 2 * _CLASS
    if a < d + ns:  # rule 2: drag a suited card, the suit that hurts the target most
        suit = s[SUIT + a - d]
        held = _popcount(s[HAND + seat] & s[SUIT_MASK + suit])
        return 3 * _CLASS + _drag_pain(s, target, suit) * 16 + held
    if a < search:  # a joker is dragged only when nothing else is left, naming the best suit
        return _drag_pain(s, target, (a - d - ns) % 4)
    if a == search:
        return _CLASS
    if a == search + 1:  # take: rule 3 puts it before any play
        return 4 * _CLASS if take_first else 0.0
    return 2 * _CLASS  # drag blind: before giving up a joker


@njit(cache=True)
def _repetition_loses(s: np.ndarray, seat: int) -> bool:
    """Policy rule 4 (G10a): the current position has occurred before and the next occurrence
    could end the deal, and its tie-break (most cards, ties from the player to move; in the
    drag phase the mover's match card counts back into his hand) makes ``seat`` the swineherd."""
    if s[REP_LIMIT] == 0 or s[FD_LEN] > 0 or s[REPEATS] < 2:
        return False
    mine = s[COUNT + seat] + (1 if s[PHASE] == DRAG else 0)
    most = 0  # the most cards another seat holds
    for t in range(s[N]):
        if t != seat:
            most = max(most, s[COUNT + t])
    return mine >= most  # ties go to the player to move (G10)


@njit(cache=True)
def policy_action(s: np.ndarray, seat: int, out: np.ndarray, epsilon: float) -> int:
    """The rollout policy's action for ``seat`` (the seat to act) in the world ``s``: one of
    the actions :func:`legal` writes into ``out``, uniformly random with probability
    ``epsilon`` or where rule 4 avoids a losing repetition, else the best by :func:`_score`
    with random tie-breaks."""
    n = legal(s, seat, out)
    if n == 1:
        return out[0]
    if np.random.random() < epsilon or _repetition_loses(s, seat):
        return out[np.random.randint(0, n)]
    target = _next_in(s, seat)
    take_first = s[PHASE] == MATCH and out[n - 1] == s[D] + s[NSUITED] + 4 * (s[D] - s[NSUITED]) + 1
    take_first = take_first and _take_instead(s, seat)
    best = out[0]
    best_score = -1.0
    ties = 0
    for i in range(n):
        score = _score(s, seat, out[i], target, take_first)
        if score > best_score:
            best, best_score, ties = out[i], score, 1
        elif score == best_score:
            ties += 1
            if np.random.randint(0, ties) == 0:  # reservoir: a uniform pick among the ties
                best = out[i]
    return best


@njit(cache=True)
def policy_playout_recorded(
    s: np.ndarray, rewards: np.ndarray, seed: int, record: np.ndarray, epsilon: float
) -> int:
    """:func:`policy_playout` with the policy's ``epsilon``, also writing the chosen actions
    into ``record`` (as many as fit; tests replay them through the Python engine). Returns the
    number of ``apply`` steps."""
    np.random.seed(seed)
    out = np.empty(MAX_CARDS * 2 + 3 + 8, dtype=np.int64)
    action = np.empty(1, dtype=np.int64)
    steps = 0
    while s[PHASE] != OVER:
        action[0] = policy_action(s, s[TO_ACT], out, epsilon)
        if steps < record.shape[0]:
            record[steps] = action[0]
        apply(s, action, rewards)
        steps += 1
    return steps


@njit(cache=True)
def policy_playout(s: np.ndarray, rewards: np.ndarray, seed: int) -> int:
    """Play the deal to its end with the rollout policy (module docstring) on every seat, its
    randomness from numba's generator seeded with ``seed``; adds the rewards; returns the number
    of ``apply`` steps."""
    return policy_playout_recorded(s, rewards, seed, np.empty(0, dtype=np.int64), POLICY_EPSILON)
