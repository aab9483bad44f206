"""Elgeta's batched compiled env: the game of :mod:`kiaule_env.elgeta_v0` in many slots at once.

:class:`ElgetaVector` is the per-game part of :mod:`kiaule_env.vector` (``vector.make("elgeta",
num_envs, seed, **options)``): one ``int64`` row of state per slot, stepped by numba kernels
that loop over the batch, and the observation, mask and seat to act of every slot written into
shared buffers. Every slot's game is exactly ``elgeta_v0.env(**options)``'s: the same deal for
the same seed, the same observation floats, the same rewards at the same agent steps and the same
result (``tests/elgeta/test_vector.py`` checks it step by step against the Python env).

One compiled implementation of the rules
----------------------------------------

The first :data:`~kiaule_env.elgeta.compiled.SIZE` words of a row are the compiled twin's layout
(:mod:`kiaule_env.elgeta.compiled`) and every step calls the twin's own ``_play_card`` on the
row, so the rules (E3–E9) exist once in compiled code. The E8 repetition rule works as in the
twin: a new episode's row is played ahead once (the twin's ``_cycle_at``) to find the trick at
which a position would repeat, so no position history is kept per slot.

The public memory after the twin's part
---------------------------------------

Everything in Elgeta is public except the order of the dealt cards (E2), so what the observation
needs beyond the piles and the trick is small, and each step updates only what it changed:

- ``UNSEEN`` [4]: per seat, how many cards at the top of the pile were dealt and never seen
  (their set is public, their order is not; the cards below went there face up, E6). A card
  played from the top of a pile lowers its seat's count.
- ``ROUNDS``: the rounds of the current trick (1 + tie-break rounds, E4).
- ``NUM_BEGGARS`` and ``BEGGARS`` [4]: the beggars in the order they became beggars (E5, E7;
  several after one step in the trick's playing order from its leader), for the result.
- ``TRICK_SEATS`` [52]: who put each card of the current trick on the table.

A row is ``WORDS`` (348) ``int64`` words: 2,784 bytes per slot.

The observation
---------------

Every per-seat part of the observation is in seats relative to the observer, and in Elgeta the
seat to act changes at every step, so every step moves every part: the observation of a slot is
rewritten from its row after each step (cleared, then one write per card and per seat; the rest
stays 0, since at most one cell per card is set in each card part).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from kiaule_env.cards import SUITS
from kiaule_env.elgeta import compiled as twin
from kiaule_env.elgeta import rules as rules_module
from kiaule_env.elgeta.encoding import NUM_ACTIONS, build_layout
from kiaule_env.elgeta.rules import NOBODY, SEAT_SUITS, Config, State, seat_suits
from kiaule_env.vector import rng
from kiaule_env.vector.kernels import kernel_decorator

MAX_SEATS = twin.MAX_SEATS
MAX_CARDS = twin.MAX_CARDS
UNSEEN = twin.SIZE
ROUNDS = UNSEEN + MAX_SEATS
NUM_BEGGARS = ROUNDS + 1
BEGGARS = NUM_BEGGARS + 1
TRICK_SEATS = BEGGARS + MAX_SEATS
WORDS = TRICK_SEATS + MAX_CARDS

#: numba kernels whose cache also goes stale with the twin, the generator or the rules
_jit = kernel_decorator(twin, rng, rules_module)


def _config(options: Mapping[str, Any]) -> Config:
    """The validated ``Config`` of ``options``, refusing what the env refuses and what the
    compiled twin cannot hold (``max_tricks`` from ``2**62``)."""
    allowed = [f for f in Config.__dataclass_fields__]
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ValueError(
            f"unknown keyword(s) {', '.join(map(repr, unknown))} for elgeta; "
            f"allowed: {', '.join(allowed)}"
        )
    config = Config(**options)
    if not twin.supports(config):
        raise ValueError(
            f"max_tricks={config.max_tricks} is not supported by the vector env yet; "
            "it allows max_tricks below 2**62"
        )
    return config


def _suit_table(num_players: int) -> np.ndarray:
    """``[left_out, seat, k]``: the suit index (``cards.SUITS``) of each seat's k-th suit for
    every suit left out with three players (E2, ``rules.seat_suits``), -1 past his suits; the
    same for every ``left_out`` with two or four players."""
    table = np.full((4, MAX_SEATS, 2), -1, dtype=np.int64)
    for left, left_out in enumerate(SEAT_SUITS):
        for seat, suits in enumerate(seat_suits(num_players, left_out)):
            table[left, seat, : len(suits)] = [SUITS.index(suit) for suit in suits]
    return table


class ElgetaVector:
    """The per-game part of :mod:`kiaule_env.vector` for Elgeta (RULES §4, E1–E10).

    ``state`` holds one row of ``WORDS`` ``int64`` per slot (layout in the module docstring);
    ``obs``, ``mask`` and ``agent`` are the seat to act's observation, legal actions and seat in
    every running slot, rewritten in place at every step (copy them to keep them).
    """

    #: ``step`` leaves a slot whose action is -1 as it is (the base's partial steps)
    partial_steps = True

    def __init__(self, num_envs: int, options: Mapping[str, Any]) -> None:
        config = self.config = _config(options)
        n = self.num_players = config.num_players
        deck = config.deck_cards
        size = self.deck_size = deck.size
        self.obs_size = build_layout(config).size
        self.num_actions = NUM_ACTIONS
        self.num_envs = num_envs
        self.state = np.zeros((num_envs, WORDS), dtype=np.int64)
        self.obs = np.zeros((num_envs, self.obs_size), dtype=np.float32)
        self.mask = np.zeros((num_envs, NUM_ACTIONS), dtype=np.int8)
        self.agent = np.zeros(num_envs, dtype=np.int64)
        #: card id -> its compact position in the deck (the encoder's card columns)
        self._position = np.ascontiguousarray(deck.position, dtype=np.int64)
        #: k -> k / size as the encoder computes it (float32 division of the pile sizes)
        self._fraction = np.arange(size + 1, dtype=np.float32) / np.float32(size)
        #: d -> d / size (float64, then stored as float32: known_depth, tie_rounds)
        self._depth = np.array([d / size for d in range(size + 2)], dtype=np.float32)
        self._ranks = np.array([r for r in deck.cards if r < 13], dtype=np.int64)
        self._key_words = (1 + self._cards_in_play() + n + 7) // 8
        self._suits = _suit_table(n)

    def _cards_in_play(self) -> int:
        """E2: the whole deck, less one suit with three players."""
        size = self.deck_size
        return size - size // 4 if self.num_players == 3 else size

    def state_bytes(self) -> int:
        """Bytes of compiled state per slot (the row), besides the observation buffers."""
        return WORDS * self.state.itemsize

    # ------------------------------------------------------------------ episodes
    def reset_slots(self, slots: np.ndarray, seeds: np.ndarray) -> None:
        """New episodes in ``slots``: each the deal of ``elgeta_v0.raw_env(**options)``'s
        ``reset(seed=seed)`` (E2, dealt in compiled code with :mod:`kiaule_env.vector.rng`),
        with its observation, mask and seat to act written."""
        slots = np.ascontiguousarray(slots, dtype=np.int64)
        seeds = np.ascontiguousarray(seeds, dtype=np.int64)
        deal = self._suits, self._ranks, self._header(), self._key_words
        _reset_all(self.state, slots, seeds, *deal, self.obs, self.agent, *self._tables())
        self.mask[slots] = 1

    def deal_piles(self, slot: int, piles: list[list[int]]) -> None:
        """A new game in ``slot`` from stacked ``piles`` (card ids, top first; ``reset``'s
        ``options["piles"]``, parsed), through the same compiled start as ``reset_slots``."""
        flat = np.zeros((MAX_SEATS, MAX_CARDS), dtype=np.int64)
        for seat, pile in enumerate(piles):
            flat[seat, : len(pile)] = pile
        lengths = np.array([len(p) for p in piles] + [0] * (MAX_SEATS - len(piles)), np.int64)
        scratch = np.zeros((2, WORDS), dtype=np.int64)
        _new_game(self.state[slot], flat, lengths, self._header(), self._key_words, scratch)
        self.agent[slot] = _write_obs(self.state[slot], self.obs[slot], *self._tables())
        self.mask[slot] = 1

    def _header(self) -> np.ndarray:
        """(num_players, max_tricks, stop_on_all_aces, aces in play) of the configuration."""
        c = self.config
        aces = 3 if c.num_players == 3 else 4
        return np.array([c.num_players, c.max_tricks, int(c.stop_on_all_aces), aces], np.int64)

    def load_state(self, slot: int, state: Any) -> None:
        """Put a running Python engine state (``env.game_state``: the piles, the unseen counts,
        the trick and its seats, the beggars, the E8 position history) into ``slot`` and write
        its observation, mask and seat to act. ``ValueError`` for a finished game or a state of
        another configuration."""
        if not isinstance(state, State):
            raise TypeError(f"state must be a kiaule_env.elgeta.rules.State, got {state!r:.80}")
        if state.config != self.config:
            raise ValueError(f"state is of {state.config}, this vector env plays {self.config}")
        if state.over:
            raise ValueError("state is a finished game; load_state takes a running one")
        row = self.state[slot]
        row[:] = 0
        row[: twin.SIZE] = twin.encode(state)
        row[UNSEEN : UNSEEN + self.num_players] = state.unseen
        row[ROUNDS] = state.rounds
        row[NUM_BEGGARS] = len(state.beggars)
        row[BEGGARS : BEGGARS + len(state.beggars)] = state.beggars
        row[TRICK_SEATS : TRICK_SEATS + len(state.trick_seats)] = state.trick_seats
        self._write(slot)

    def _write(self, slot: int) -> None:
        """Write ``slot``'s observation, mask and seat to act from its row."""
        row = self.state[slot]
        self.agent[slot] = _write_obs(row, self.obs[slot], *self._tables())
        self.mask[slot] = 1

    def _tables(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self._position, self._fraction, self._depth

    # ------------------------------------------------------------------ steps
    def step(self, actions: np.ndarray, rewards: np.ndarray, terminated: np.ndarray) -> None:
        """One agent step in every slot whose action is ``play`` (0, checked by the caller; a
        slot with -1 waits: ``partial_steps``): every seat's reward delta into ``rewards`` (E9,
        at the step that ends the game), ``terminated``, and the next observation, mask and
        seat for the slots that go on."""
        _step_all(self.state, actions, rewards, terminated, self.obs, self.agent, *self._tables())

    def results(self, slots: np.ndarray) -> list[dict[str, Any]]:
        """The env's result dicts (``infos[agent]["result"]``, E10) of the games that just
        ended in ``slots``."""
        return [self._result(self.state[slot]) for slot in np.asarray(slots).tolist()]

    def _result(self, row: np.ndarray) -> dict[str, Any]:
        n = self.num_players
        winner = int(row[twin.WINNER])
        ending = int(row[twin.ENDING])
        return {
            "winner": f"player_{winner}" if winner != NOBODY else None,
            "tricks": int(row[twin.TRICKS]),
            "cycle": ending == twin.ENDING_CYCLE,
            "capped": ending == twin.ENDING_CAPPED,
            "beggars": [f"player_{s}" for s in row[BEGGARS : BEGGARS + row[NUM_BEGGARS]]],
            "all_aces": ending == twin.ENDING_ALL_ACES,
            "cards": [int(x) for x in row[twin.PILE_LEN : twin.PILE_LEN + n]],
        }


# ---------------------------------------------------------------------------------- kernels
@_jit
def _reset_all(
    state: np.ndarray,
    slots: np.ndarray,
    seeds: np.ndarray,
    suits: np.ndarray,
    ranks: np.ndarray,
    header: np.ndarray,
    words: int,
    obs: np.ndarray,
    agent: np.ndarray,
    position: np.ndarray,
    fraction: np.ndarray,
    depth: np.ndarray,
) -> None:
    """New games in ``slots`` and their observations and seats to act; each dealt as
    ``rules.deal_piles`` with ``default_rng(seed)`` (E2): three players draw ``integers(4)``
    for the suit left out, then every seat, seat 0 first, gets its suits' cards (suit-major,
    ranks ascending) in the order of one ``permutation``. The generator lives in a scratch row:
    Elgeta draws nothing after the deal."""
    n = header[0]
    gen = np.zeros(rng.RNG_WORDS, dtype=np.int64)
    piles = np.zeros((MAX_SEATS, MAX_CARDS), dtype=np.int64)
    lengths = np.zeros(MAX_SEATS, dtype=np.int64)
    cards = np.zeros(MAX_CARDS, dtype=np.int64)
    order = np.zeros(MAX_CARDS, dtype=np.int64)
    scratch = np.zeros((2, state.shape[1]), dtype=np.int64)
    for k in range(slots.shape[0]):
        rng.seed(gen, 0, seeds[k])
        left = rng.integers(gen, 0, 4) if n == 3 else 0
        for seat in range(n):
            count = 0
            for j in range(2):
                suit = suits[left, seat, j]
                if suit < 0:
                    break
                for rank in ranks:
                    cards[count] = suit * 13 + rank
                    count += 1
            rng.permutation(gen, 0, count, order)
            for i in range(count):
                piles[seat, i] = cards[order[i]]
            lengths[seat] = count
        slot = slots[k]
        _new_game(state[slot], piles, lengths, header, words, scratch)
        agent[slot] = _write_obs(state[slot], obs[slot], position, fraction, depth)


@_jit
def _new_game(
    s: np.ndarray,
    piles: np.ndarray,
    lengths: np.ndarray,
    header: np.ndarray,
    words: int,
    scratch: np.ndarray,
) -> None:
    """A fresh game in row ``s`` (``rules.new_deal``): the piles all unseen (E2), ``player_0``
    leads (E3), and the trick at which E8 repetition would end it (``CYCLE_AT``)."""
    s[:] = 0
    n = header[0]
    s[twin.NUM_PLAYERS] = n
    s[twin.MAX_TRICKS] = header[1]
    s[twin.STOP_ON_ALL_ACES] = header[2]
    s[twin.NUM_ACES] = header[3]
    s[twin.WINNER] = NOBODY
    for seat in range(n):
        count = lengths[seat]
        base = twin.PILES + seat * MAX_CARDS
        for i in range(count):
            s[base + i] = piles[seat, i]
        s[twin.PILE_LEN + seat] = count
        s[UNSEEN + seat] = count
        s[twin.STILL_IN + seat] = 1
        s[twin.QUEUE + seat] = seat
    s[twin.QUEUE_LEN] = n
    s[ROUNDS] = 1
    if _ends_without_repeating(s, scratch[0], scratch[1]):
        return
    history = np.zeros((1, words), dtype=np.int64)  # the first trick's position (rules)
    twin._position_key(s, history[0])
    s[twin.CYCLE_AT] = twin._cycle_at(s, history)


@_jit
def _ends_without_repeating(s: np.ndarray, t: np.ndarray, saved: np.ndarray) -> bool:
    """Whether the game from the fresh row ``s`` ends (E5, E7, all aces) within its cap with
    no position repeating (E8), so that ``CYCLE_AT`` is 0: the usual case, found cheaply.

    Plays a copy ``t`` with the twin's rules (cycle check and cap off) and watches for a
    repeated trick-start position with Brent's method, comparing each with one saved position
    (``saved``) instead of keeping them all. A game after a repetition repeats forever (no
    decisions, no chance), so a copy that ends had none. ``False`` when Brent finds a
    repetition or the cap is reached first: then the exact look-ahead (the twin's
    ``_cycle_at``) finds the trick it ends at."""
    t[:] = s
    t[twin.MAX_TRICKS] = twin.NO_CAP
    cap = s[twin.MAX_TRICKS]
    dummy = np.zeros(MAX_SEATS, dtype=np.float64)
    saved[:] = t
    power = lam = 1
    while True:
        twin._play_card(t, dummy)
        if t[twin.OVER] != 0:
            return True
        if t[twin.TRICK_LEN] != 0:
            continue  # mid-trick (a new trick starts with an empty table)
        if t[twin.TRICKS] >= cap or _same_position(t, saved):
            return False
        if lam == power:
            saved[:] = t
            power *= 2
            lam = 0
        lam += 1


@_jit
def _same_position(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two trick-start rows have the same E8 position (leader and every pile)."""
    if a[twin.LEADER] != b[twin.LEADER]:
        return False
    n = a[twin.NUM_PLAYERS]
    for seat in range(n):
        if a[twin.PILE_LEN + seat] != b[twin.PILE_LEN + seat]:
            return False
    for seat in range(n):
        base = twin.PILES + seat * MAX_CARDS
        for i in range(a[twin.PILE_LEN + seat]):
            if a[base + i] != b[base + i]:
                return False
    return True


@_jit
def _step_all(
    state: np.ndarray,
    actions: np.ndarray,
    rewards: np.ndarray,
    terminated: np.ndarray,
    obs: np.ndarray,
    agent: np.ndarray,
    position: np.ndarray,
    fraction: np.ndarray,
    depth: np.ndarray,
) -> None:
    """One step in every slot but those waiting (action -1); the observation and seat of
    every slot that goes on."""
    for i in range(state.shape[0]):
        r = rewards[i]
        for k in range(r.shape[0]):
            r[k] = 0.0
        terminated[i] = False
        if actions[i] < 0:
            continue
        s = state[i]
        over = _step(s, r)
        terminated[i] = over
        if not over:
            agent[i] = _write_obs(s, obs[i], position, fraction, depth)


@_jit
def _step(s: np.ndarray, rewards: np.ndarray) -> bool:
    """The seat to act plays his top card (the twin's ``_play_card``, E3–E9), and the public
    memory after the twin's part follows: the unseen count, who played the card, the tie-break
    rounds (E4) and the new beggars in playing order (E5, E7). Returns whether the game ended."""
    n = s[twin.NUM_PLAYERS]
    seat = s[twin.QUEUE + s[twin.QUEUE_POS]]
    played = s[twin.TRICK_LEN]
    s[TRICK_SEATS + played] = seat
    if s[UNSEEN + seat] > 0:  # the top card was unseen; now it is face up
        s[UNSEEN + seat] -= 1
    if s[twin.QUEUE_POS] + 1 < s[twin.QUEUE_LEN]:  # the round goes on: nothing else changes
        twin._play_card(s, rewards)
        return False
    tricks = s[twin.TRICKS]
    round_start = s[twin.ROUND_START]
    leader = s[twin.LEADER]
    was_in = 0
    for k in range(n):
        if s[twin.STILL_IN + k] != 0:
            was_in |= 1 << k
    twin._play_card(s, rewards)
    for k in range(n):  # E5, E7: in the trick's playing order, from its leader
        other = (leader + k) % n
        if was_in & (1 << other) and s[twin.STILL_IN + other] == 0:
            s[BEGGARS + s[NUM_BEGGARS]] = other
            s[NUM_BEGGARS] += 1
    if s[twin.OVER] != 0:
        return True
    if s[twin.TRICKS] != tricks:  # the trick was taken: a new one starts, table empty
        for j in range(played + 1):
            s[TRICK_SEATS + j] = 0
        s[ROUNDS] = 1
    elif s[twin.ROUND_START] != round_start:  # E4: a tie-break round starts
        s[ROUNDS] += 1
    return False


@_jit
def _write_obs(
    s: np.ndarray, o: np.ndarray, position: np.ndarray, fraction: np.ndarray, depth: np.ndarray
) -> int:
    """The seat to act's observation of row ``s`` into ``o`` (``encoding.build_layout``);
    returns the seat. Every part but the scalars is in seats relative to the observer."""
    n = s[twin.NUM_PLAYERS]
    size = fraction.shape[0] - 1
    me = s[twin.QUEUE + s[twin.QUEUE_POS]]
    o[:] = 0.0
    unseen = 4 * n
    known = unseen + n * size
    trick = known + n * size
    newest = trick + n * size
    for rel in range(n):
        seat = me + rel
        if seat >= n:
            seat -= n
        count = s[twin.PILE_LEN + seat]
        o[rel] = fraction[count]
        if s[twin.STILL_IN + seat] != 0:
            o[n + rel] = 1.0
        pile = s[twin.PILES + seat * MAX_CARDS : twin.PILES + seat * MAX_CARDS + count]
        top = s[UNSEEN + seat]
        # unsigned indices: numba then skips its negative-index wraparound (faster)
        cells = np.uint64(unseen + rel * size)
        for j in range(top):  # the set of unseen cards (E2)
            o[cells + np.uint64(position[np.uint64(pile[np.uint64(j)])])] = 1.0
        cells = np.uint64(known + rel * size)
        for j in range(top, count):  # seen going under the pile (E6): (depth + 1) / size
            o[cells + np.uint64(position[np.uint64(pile[np.uint64(j)])])] = depth[j + 1]
    o[2 * n] = 1.0  # to_act: the observer
    lead = s[twin.LEADER] - me
    o[3 * n + (lead + n if lead < 0 else lead)] = 1.0
    round_start = s[twin.ROUND_START]
    for j in range(s[twin.TRICK_LEN]):
        card = position[s[twin.TRICK + j]]
        rel = s[TRICK_SEATS + j] - me
        o[trick + (rel + n if rel < 0 else rel) * size + card] = 1.0
        if j >= round_start:
            o[newest + card] = 1.0
    o[newest + size] = (s[ROUNDS] - 1) / size
    o[newest + size + 1] = s[twin.TRICKS] / s[twin.MAX_TRICKS]
    return me


__all__ = ["WORDS", "ElgetaVector"]
