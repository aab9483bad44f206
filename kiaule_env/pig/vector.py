"""Pig's batched env (``kiaule_env.vector.make("pig", ...)``): thousands of games in numba.

Why
---
The PettingZoo envs step one game at a time in Python. :class:`PigVector` keeps a batch of
games in one ``int64`` array, a row per slot, and steps them all in ``numba.njit(cache=True)``
kernels, writing each slot's observation and mask of the seat to act. It is the game's half of
the batched-env contract (``kiaule_env/vector/base.py`` does seeds, action checks and
auto-resets); ``tests/pig/test_vector.py`` plays it against ``pig_v0.raw_env()`` step for step.

Presentation (P2)
-----------------
Pig is simultaneous; the batch presents it as ``pig_v0.env()`` (the AEC version) does: in every
passing step the seats still in choose one after another in seat order, each seeing the
observation of the step's start; the step is played when the last has chosen. Rewards come on
that last agent step (every seat's delta, zero on the others), as in ``env.rewards``.

Row layout
----------
The first :data:`~kiaule_env.pig.compiled.SIZE` words are the compiled twin's layout
(:mod:`kiaule_env.pig.compiled`, whose kernels pass the cards and settle a round here: one
implementation of those rules). The information-set bookkeeping the observation needs follows,
updated as each step happens (a pass adds one count per seat, a touch sets one flag):

=====================  =====  ================================================================
offset                 size   content
=====================  =====  ================================================================
``PASSED``             169    ``13 * seat + rank``: cards of that rank the seat passed (or
                              discarded) this round (his own memory, P2)
``RECEIVED``           169    the same for cards received (or drawn, P6)
``LAST_PASSED``        13     per seat the card passed in the latest passing step (-1: none)
``LAST_RECEIVED``      13     per seat the card received in the latest passing step
``FIRST``              1      the first to touch this round (the first of the reaction order)
``ROUND``              1      rounds started minus one (P5)
``NUM_ELIM``           1      players eliminated so far (P5)
``ELIM``               13     the eliminated seats in order
``WINNER``             1      the last player in (full games), else -1
``LR_PIG`` …           5      the latest finished round: pig, first to touch, passes, capped,
                              race cut (P10; -1 for no seat)
``CUR``                1      how many seats in have chosen this step (the AEC order)
``PENDING``            13     their actions, the k-th seat in at ``PENDING + k``
``RNG``                6      the episode's generator (:mod:`kiaule_env.vector.rng`): deals,
                              reaction orders (P3, D3) and a race cut short draw from it
                              exactly as the engine draws from ``seeding.np_random(seed)``
=====================  =====  ================================================================

The observation row of the seat to act is rewritten at every agent step (the seat changes at
every agent step, and every slice but the public ones is his own); it is a few dozen floats read
straight from the bookkeeping above, never recomputed from the cards' history.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from kiaule_env.core.options import check_keywords
from kiaule_env.pig import compiled as C
from kiaule_env.pig import rules
from kiaule_env.pig.encoding import ActionCodec, ObservationEncoder
from kiaule_env.vector import rng as R
from kiaule_env.vector.kernels import kernel_decorator

# ---------------------------------------------------------------------- compiled kernels
#: numba kernels whose cache also goes stale with the twin and the generator
#: (kiaule_env.vector.kernels)
_kernel = kernel_decorator(C, R)


# ---------------------------------------------------------------------- layout
PASSED = C.SIZE
RECEIVED = PASSED + 169
LAST_PASSED = RECEIVED + 169
LAST_RECEIVED = LAST_PASSED + 13
FIRST = LAST_RECEIVED + 13
ROUND = FIRST + 1
NUM_ELIM = ROUND + 1
ELIM = NUM_ELIM + 1
WINNER = ELIM + 13
LR_PIG = WINNER + 1
LR_FIRST = LR_PIG + 1
LR_PASSES = LR_FIRST + 1
LR_CAPPED = LR_PASSES + 1
LR_RACE_CUT = LR_CAPPED + 1
CUR = LR_RACE_CUT + 1
PENDING = CUR + 1
RNG = PENDING + 13
WORDS = RNG + R.RNG_WORDS

#: observation offsets handed to the kernels, in this order (-1: slice absent in the variant)
_OBS_SLICES = (
    "hand",
    "ranks_in_play",
    "last_passed",
    "last_received",
    "passed",
    "received",
    "players_in",
    "dealer",
    "touched",
    "race",
    "passes",
    "race_steps",
    "letters",
    "stock_size",
    "discard_size",
    "tokens_left",
)
(
    O_HAND,
    O_RANKS,
    O_LAST_PASSED,
    O_LAST_RECEIVED,
    O_PASSED,
    O_RECEIVED,
    O_IN,
    O_DEALER,
    O_TOUCHED,
    O_RACE,
    O_PASSES,
    O_RACE_STEPS,
    O_LETTERS,
    O_STOCK,
    O_DISCARD,
    O_TOKENS,
) = range(len(_OBS_SLICES))


# ---------------------------------------------------------------------- compiled: observation
@_kernel
def _write_obs(s, seat, obs, mask, off, buf) -> None:
    """The observation and mask of ``seat`` (layout of ``pig_v0``; the same floats as
    :class:`~kiaule_env.pig.encoding.ObservationEncoder`, computed in float64 and stored)."""
    n = s[C.N]
    r0 = s[C.RANK0]
    obs[:] = 0.0
    h = C.HANDS + 4 * seat
    for i in range(4):
        obs[off[O_HAND] + s[h + i] % 13 - r0] += 0.25
    m = s[C.M]
    low = 0 if s[C.CFG_STOCK] else 13 - m  # P1, P5: the top m ranks; all 13 with P6
    for rank in range(low, 13):
        obs[off[O_RANKS] + rank - r0] = 1.0
    passes = s[C.PASSES]
    if passes:
        if s[LAST_PASSED + seat] >= 0:
            obs[off[O_LAST_PASSED] + s[LAST_PASSED + seat] % 13 - r0] = 1.0
        if s[LAST_RECEIVED + seat] >= 0:
            obs[off[O_LAST_RECEIVED] + s[LAST_RECEIVED + seat] % 13 - r0] = 1.0
        share = 1.0 / passes
        for rank in range(r0, 13):
            p = s[PASSED + 13 * seat + rank]
            if p:
                obs[off[O_PASSED] + rank - r0] = p * share
            q = s[RECEIVED + 13 * seat + rank]
            if q:
                obs[off[O_RECEIVED] + rank - r0] = q * share
    for other in range(n):
        rel = (other - seat) % n
        if s[C.IN + other]:
            obs[off[O_IN] + rel] = 1.0
        if s[C.TOUCHED + other]:
            obs[off[O_TOUCHED] + rel] = 1.0
        if off[O_LETTERS] >= 0 and s[C.LETTERS + other]:
            obs[off[O_LETTERS] + rel] = s[C.LETTERS + other] / 3.0  # P7
    obs[off[O_DEALER] + (s[C.DEALER] - seat) % n] = 1.0
    if s[C.NUM_TOUCHED] and s[C.PHASE] == C.RACE:
        obs[off[O_RACE]] = 1.0
    obs[off[O_PASSES]] = passes / s[C.CFG_MAX_PASSES]
    obs[off[O_RACE_STEPS]] = s[C.RACE_STEPS] / s[C.CFG_MAX_RACE]
    if off[O_STOCK] >= 0:  # P6: stock and discard pile as one queue (see _pile_sizes)
        q = s[C.QUEUE_SIZE]
        t = passes % (q + 1)
        obs[off[O_STOCK]] = (q - t) / 52.0
        obs[off[O_DISCARD]] = t / 52.0
    if off[O_TOKENS] >= 0:  # P8
        obs[off[O_TOKENS]] = max(0, m - 1 - s[C.NUM_TOUCHED]) / (n - 1)
    mask[:] = 0
    k = C.legal(s, seat, buf)
    for j in range(k):
        mask[buf[j]] = 1


@_kernel
def _first_in(s) -> int:
    """The lowest seat still in (the first to choose in a step, in the AEC order)."""
    seat = 0
    while s[C.IN + seat] == 0:
        seat += 1
    return seat


@_kernel
def _left_of(s, seat) -> int:
    """The next seat clockwise still in (P1); ``seat`` itself need not be in."""
    n = s[C.N]
    for step in range(1, n + 1):
        other = (seat + step) % n
        if s[C.IN + other]:
            return other
    return -1


# ---------------------------------------------------------------------- compiled: deals
@_kernel
def _deal(s, perm) -> None:
    """Deal the round (``rules.deal``, P1, P5, P6): the ranks in play in suit-major order,
    shuffled by ``permutation`` of the episode's generator; card i of the shuffle goes to the
    (i mod m)-th player in from the dealer's left, the rest is the stock, top first."""
    n = s[C.N]
    m = s[C.M]
    nr = 13 if s[C.CFG_STOCK] else m
    low = 13 - nr
    total = 4 * nr
    R.permutation(s, RNG, total, perm)
    for i in range(4 * C.MAX_SEATS):
        s[C.HANDS + i] = -1
    seat = _left_of(s, s[C.DEALER])
    for k in range(m):
        for j in range(4):
            idx = perm[k + j * m]
            s[C.HANDS + 4 * seat + j] = (idx // nr) * 13 + low + idx % nr
        seat = _left_of(s, seat)
    s[C.QUEUE_SIZE] = total - 4 * m if s[C.CFG_STOCK] else 0
    for j in range(52):
        s[C.QUEUE + j] = -1
    for j in range(s[C.QUEUE_SIZE]):
        idx = perm[4 * m + j]
        s[C.QUEUE + j] = (idx // nr) * 13 + low + idx % nr
    s[C.PHASE] = C.PASSING
    s[C.PASSES] = 0
    s[C.RACE_STEPS] = 0
    s[C.NUM_TOUCHED] = 0
    for seat in range(n):
        s[C.TOUCHED + seat] = 0
        s[LAST_PASSED + seat] = -1
        s[LAST_RECEIVED + seat] = -1
    for i in range(169):
        s[PASSED + i] = 0
        s[RECEIVED + i] = 0
    s[FIRST] = -1


@_kernel
def _new_episode(s, template, seed, perm) -> None:
    """``rules.new_game`` with ``seeding.np_random(seed)``: everyone in, the last seat deals."""
    s[:] = template
    R.seed(s, RNG, seed)
    n = s[C.N]
    for seat in range(n):
        s[C.IN + seat] = 1
        s[C.LETTERS + seat] = 0
    s[C.M] = n
    s[C.DEALER] = n - 1
    s[ROUND] = 0
    s[NUM_ELIM] = 0
    s[WINNER] = -1
    s[LR_PIG] = -1
    s[LR_FIRST] = -1
    s[LR_PASSES] = 0
    s[LR_CAPPED] = 0
    s[LR_RACE_CUT] = 0
    s[CUR] = 0
    _deal(s, perm)


@_kernel
def _reset_kernel(state, template, slots, seeds, obs, mask, agent, off) -> None:
    """New episodes in ``slots`` from ``seeds``, their first seat's observation written."""
    perm = np.empty(52, np.int64)
    buf = np.empty(16, np.int64)
    for j in range(slots.shape[0]):
        i = slots[j]
        s = state[i]
        _new_episode(s, template, seeds[j], perm)
        seat = _first_in(s)
        agent[i] = seat
        _write_obs(s, seat, obs[i], mask[i], off, buf)


# ---------------------------------------------------------------------- compiled: one step
#: scratch words of a step: a permutation (52), the touchers, their order, the untouched (13 each)
_WORK = 91


@_kernel
def _pass_step(s, acts) -> None:
    """P2 (P6): the twin passes the cards; the passing memory of every seat in is updated."""
    n = s[C.N]
    r0 = s[C.RANK0]
    k = 0
    for seat in range(n):  # the card that goes: the lowest suit of the rank (P2)
        if s[C.IN + seat] == 0:
            continue
        rank = acts[k] + r0
        k += 1
        h = C.HANDS + 4 * seat
        best = -1
        for i in range(4):
            c = s[h + i]
            if c % 13 == rank and (best < 0 or c < best):
                best = c
        s[LAST_PASSED + seat] = best
        s[PASSED + 13 * seat + rank] += 1
    C._pass_cards(s, acts)
    for seat in range(n):  # the card received (or drawn) is the hand's last (the twin's order)
        if s[C.IN + seat]:
            c = s[C.HANDS + 4 * seat + 3]
            s[LAST_RECEIVED + seat] = c
            s[RECEIVED + 13 * seat + c % 13] += 1


@_kernel
def _finish_round(s, pig, capped, race_cut, rewards, perm) -> bool:
    """``rules._end_round``: the outcome (P10), the twin settles rewards and eliminations (P4,
    P5, P7, P9); a full game deals the next round at once. True when the episode is over."""
    s[LR_PIG] = pig
    s[LR_FIRST] = s[FIRST]
    s[LR_PASSES] = s[C.PASSES]
    s[LR_CAPPED] = capped
    s[LR_RACE_CUT] = race_cut
    C._end_round(s, pig, rewards)
    if not s[C.CFG_FULL]:
        return True
    if pig >= 0 and s[C.IN + pig] == 0:
        s[ELIM + s[NUM_ELIM]] = pig
        s[NUM_ELIM] += 1
    if s[C.M] == 1:  # D10
        s[WINNER] = _first_in(s)
        return True
    first = s[FIRST]
    if s[C.CFG_STOCK] and first >= 0:  # P6: the first to touch deals (or his left)
        s[C.DEALER] = first if s[C.IN + first] else _left_of(s, first)
    else:  # P5 (D5): the deal passes on
        s[C.DEALER] = _left_of(s, s[C.DEALER])
    s[ROUND] += 1
    _deal(s, perm)
    return False


@_kernel
def _touch_step(s, touchers, nt, rewards, work) -> bool:
    """P3 (``rules.apply`` after the passes): the reaction order drawn for two or more
    touchers (D3), false touches (D1), the race's end and a race cut short (D2). ``work``:
    the step's scratch (:data:`_WORK`), no allocation per step."""
    perm = work[:52]
    order = work[65:78]
    untouched = work[78:91]
    if nt >= 2:
        R.permutation(s, RNG, nt, perm)
        for j in range(nt):
            order[j] = touchers[perm[j]]
    else:
        for j in range(nt):
            order[j] = touchers[j]
    if s[C.PHASE] == C.PASSING:  # the first touching step: no cards move
        s[FIRST] = order[0]
        s[C.PHASE] = C.RACE
        for j in range(nt):
            if not C._has_four(s, order[j]):  # D1: the first false toucher of the order
                return _finish_round(s, order[j], 0, 0, rewards, perm)
    else:
        s[C.RACE_STEPS] += 1
    for j in range(nt):
        s[C.TOUCHED + order[j]] = 1
        s[C.NUM_TOUCHED] += 1
    cnt = 0
    for seat in range(s[C.N]):
        if s[C.IN + seat] and s[C.TOUCHED + seat] == 0:
            untouched[cnt] = seat
            cnt += 1
    if cnt == 1:
        return _finish_round(s, untouched[0], 0, 0, rewards, perm)
    if cnt == 0:  # P3: the last of this step's order
        return _finish_round(s, order[nt - 1], 0, 0, rewards, perm)
    if s[C.RACE_STEPS] >= s[C.CFG_MAX_RACE]:  # D2, D3: cut short, the pig drawn
        pig = untouched[R.integers(s, RNG, cnt)]
        return _finish_round(s, pig, 0, 1, rewards, perm)
    return False


@_kernel
def _play(s, rewards, work) -> bool:
    """``rules.apply`` of the step whose actions wait in ``PENDING``; True when it ends the
    episode."""
    acts = s[PENDING : PENDING + C.MAX_SEATS]
    nose = s[C.NUM_RANKS]
    touchers = work[52:65]
    perm = work[:52]
    nt = 0
    k = 0
    for seat in range(s[C.N]):
        if s[C.IN + seat]:
            if acts[k] == nose:
                touchers[nt] = seat
                nt += 1
            k += 1
    if s[C.PHASE] == C.PASSING and nt == 0:
        _pass_step(s, acts)
        if s[C.PASSES] >= s[C.CFG_MAX_PASSES]:  # P4 cap (D4)
            return _finish_round(s, -1, 1, 0, rewards, perm)
        return False
    return _touch_step(s, touchers, nt, rewards, work)


@_kernel
def _step_kernel(state, actions, rewards, terminated, obs, mask, agent, parallel, off) -> None:
    """One agent step in every slot (the AEC order of ``pig_v0.env()``); a slot whose action
    is -1 waits (``partial_steps``). ``parallel`` counts each slot's simultaneous steps."""
    work = np.empty(_WORK, np.int64)
    buf = np.empty(16, np.int64)
    deltas = np.zeros(C.MAX_SEATS, np.float64)
    n = state[0, C.N] if state.shape[0] else 0
    for i in range(state.shape[0]):
        s = state[i]
        for p in range(n):
            rewards[i, p] = 0.0
        terminated[i] = False
        if actions[i] < 0:
            continue
        seat = agent[i]
        s[PENDING + s[CUR]] = actions[i]
        s[CUR] += 1
        if s[CUR] < s[C.M]:  # the next seat in chooses, seeing the step's start
            seat = _left_of(s, seat)
            agent[i] = seat
            _write_obs(s, seat, obs[i], mask[i], off, buf)
            continue
        s[CUR] = 0
        parallel[i] += 1
        deltas[:] = 0.0
        if _play(s, deltas, work):
            terminated[i] = True
            for p in range(n):
                rewards[i, p] = deltas[p]
            continue
        for p in range(n):
            rewards[i, p] = deltas[p]
        seat = _first_in(s)
        agent[i] = seat
        _write_obs(s, seat, obs[i], mask[i], off, buf)


@_kernel
def _observe_slot(state, i, obs, mask, agent, off) -> None:
    """The observation of slot ``i``'s seat to act (after :meth:`PigVector.load_state`)."""
    buf = np.empty(16, np.int64)
    s = state[i]
    s[CUR] = 0
    seat = _first_in(s)
    agent[i] = seat
    _write_obs(s, seat, obs[i], mask[i], off, buf)


# ---------------------------------------------------------------------- the batch
def _agent(seat: int) -> str | None:
    return rules.agent_name(seat if seat >= 0 else None)


class PigVector:
    """A batch of ``num_envs`` Pig games (the batched-env contract; module docstring).

    ``options`` are the rule keywords of ``pig_v0.env()`` (:class:`~kiaule_env.pig.rules.Config`),
    validated as the env validates them; every option is supported.
    """

    def __init__(self, num_envs: int, options: Mapping[str, Any]) -> None:
        check_keywords(rules.Config, options)
        self.config = config = rules.Config(**options)
        #: the rule keywords the batch was made with
        self.options = dict(options)
        encoder = ObservationEncoder(config)
        codec = ActionCodec(config)
        self.num_players = config.num_players
        self.obs_size = encoder.size
        self.num_actions = codec.num_actions
        offsets = {name: sl.start for name, sl in encoder.layout.offsets.items()}
        self._off = np.array([offsets.get(name, -1) for name in _OBS_SLICES], dtype=np.int64)
        self._template = np.full(WORDS, -1, dtype=np.int64)
        C._encode_config(self._template, config)
        self._template[C.IN : C.IN + 3 * C.MAX_SEATS] = 0
        self.state = np.zeros((num_envs, WORDS), dtype=np.int64)
        self.obs = np.zeros((num_envs, self.obs_size), dtype=np.float32)
        self.mask = np.zeros((num_envs, self.num_actions), dtype=np.int8)
        self.agent = np.zeros(num_envs, dtype=np.int64)
        #: simultaneous steps of each slot's episode (``max_cycles`` counts these, as the
        #: parallel env does)
        self.parallel_steps = np.zeros(num_envs, dtype=np.int64)

    #: :meth:`step` leaves a slot whose action is -1 as it is (the base's partial steps)
    partial_steps = True

    def reset_slots(self, slots: np.ndarray, seeds: np.ndarray) -> None:
        """New episodes in ``slots``, each the deal of ``pig_v0.raw_env(**options).reset(seed)``."""
        self.parallel_steps[slots] = 0
        _reset_kernel(
            self.state,
            self._template,
            np.asarray(slots, dtype=np.int64),
            np.asarray(seeds, dtype=np.int64),
            self.obs,
            self.mask,
            self.agent,
            self._off,
        )

    def step(self, actions: np.ndarray, rewards: np.ndarray, terminated: np.ndarray) -> None:
        """One agent step of every slot (actions checked legal by the base)."""
        _step_kernel(
            self.state,
            np.asarray(actions, dtype=np.int64),
            rewards,
            terminated,
            self.obs,
            self.mask,
            self.agent,
            self.parallel_steps,
            self._off,
        )

    def results(self, slots: np.ndarray) -> list[dict[str, Any]]:
        """``rules.result`` of the episodes that just ended in ``slots`` (P10)."""
        return [self._result(self.state[int(i)]) for i in slots]

    def _result(self, s: np.ndarray) -> dict[str, Any]:
        out: dict[str, Any] = {
            "pig": _agent(int(s[LR_PIG])),
            "first_nose": _agent(int(s[LR_FIRST])),
            "passes": int(s[LR_PASSES]),
            "capped": bool(s[LR_CAPPED]),
            "race_cut": bool(s[LR_RACE_CUT]),
        }
        if self.config.full:
            out["winner"] = _agent(int(s[WINNER]))
            out["eliminated"] = [_agent(int(x)) for x in s[ELIM : ELIM + s[NUM_ELIM]]]
            out["rounds"] = int(s[ROUND]) + 1
            if self.config.letters:
                out["letters"] = [int(x) for x in s[C.LETTERS : C.LETTERS + self.num_players]]
        return out

    def load_state(self, slot: int, state: rules.State) -> None:
        """Put an engine state (at the start of a simultaneous step, its generator included)
        into ``slot`` and write the observation of its first seat in."""
        if not isinstance(state, rules.State) or state.config != self.config:
            raise ValueError("load_state needs a Pig rules.State of this batch's options")
        if state.rng is None:
            raise ValueError("load_state needs a state started by an engine (state.rng is None)")
        s = self.state[slot]
        s[:] = self._template
        s[: C.SIZE] = C.encode(state)
        for seat in range(self.num_players):
            s[PASSED + 13 * seat : PASSED + 13 * seat + 13] = state.passed_counts[seat]
            s[RECEIVED + 13 * seat : RECEIVED + 13 * seat + 13] = state.received_counts[seat]
            s[LAST_PASSED + seat] = state.last_passed[seat]
            s[LAST_RECEIVED + seat] = state.last_received[seat]
        s[FIRST] = state.touched[0] if state.touched else -1
        s[ROUND] = state.round_index
        s[NUM_ELIM] = len(state.eliminated)
        s[ELIM : ELIM + len(state.eliminated)] = state.eliminated
        s[WINNER] = -1 if state.winner is None else state.winner
        self._load_last_round(s, state.last_round or {})
        s[RNG : RNG + R.RNG_WORDS] = _rng_words(state.rng)
        self.parallel_steps[slot] = 0
        _observe_slot(self.state, slot, self.obs, self.mask, self.agent, self._off)

    @staticmethod
    def _load_last_round(s: np.ndarray, last: Mapping[str, Any]) -> None:
        def seat(name: str | None) -> int:
            return -1 if name is None else int(name.removeprefix("player_"))

        s[LR_PIG] = seat(last.get("pig"))
        s[LR_FIRST] = seat(last.get("first_nose"))
        s[LR_PASSES] = last.get("passes", 0)
        s[LR_CAPPED] = int(last.get("capped", False))
        s[LR_RACE_CUT] = int(last.get("race_cut", False))

    def state_bytes(self) -> int:
        """Bytes of compiled state per slot (the row)."""
        return WORDS * self.state.itemsize


def _rng_words(generator: np.random.Generator) -> np.ndarray:
    """A numpy PCG64 generator's state as :mod:`kiaule_env.vector.rng`'s words."""
    st = generator.bit_generator.state
    if st["bit_generator"] != "PCG64":
        raise ValueError(f"load_state needs a PCG64 generator, got {st['bit_generator']}")
    mask = (1 << 64) - 1
    state, inc = st["state"]["state"], st["state"]["inc"]
    words = [state >> 64, state & mask, inc >> 64, inc & mask, st["has_uint32"], st["uinteger"]]
    return np.array(words, dtype=np.uint64).view(np.int64)
