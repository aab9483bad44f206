"""Kiauliaganys' batched compiled env (``kiaule_env/kiauliaganys/vector.py``) against the Python
env (RULES §2, G1–G14, G10a).

The differential test (``tests/vector_support.differential``) plays seeded random episodes of
every option variant (the default, the descriptor's, the training configs', the compiled
twin's extra ones, a ``max_cycles`` truncation) through ``vector.make("kiauliaganys", …)`` and,
slot by slot, through ``kiauliaganys_v0.raw_env`` reset with the slot's seed: at every step the
same observation floats, mask, seat to act, every seat's reward, end and result.
``KIAULE_VECTOR_EPISODES`` sets the episodes (default a CI-sized count over all the variants
together). States loaded mid-deal (G10a records, face-up cards, ``not_suit``, a match's years
and generator) go on as the env does; states the seat to act cannot tell apart give the same
observation (the information-set permutation test).
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np
import pytest
import yaml

pytest.importorskip("numba")

import kiaule_env
from kiaule_env import kiauliaganys_v0, vector
from kiaule_env.kiauliaganys import compiled as C
from kiaule_env.kiauliaganys import rules
from kiaule_env.kiauliaganys.rules import Config
from kiaule_env.kiauliaganys.vector import (
    EXTRA_WORDS,
    FREE_COUNT,
    KEY,
    R_NEXT,
    R_TALLY,
    START_RECORDS,
    X_MARK,
    X_NEWEST,
    KiauliaganysVector,
)
from kiaule_env.kiauliaganys.vector_history import _fingerprint, _key_marker
from kiaule_env.kiauliaganys.vector_observation import _chance_table, _none_table
from tests.kiauliaganys.test_compiled import VARIANTS
from tests.vector_support import differential, episode_count, permutation, random_actions

GAME = kiaule_env.get_game("kiauliaganys")
_CONFIGS = os.path.join(os.path.dirname(__file__), "../../experiments/configs")


def _training_options() -> list[dict[str, Any]]:
    """The env_kwargs of the zoo's Kiauliaganys training configs."""
    found = []
    for name in ("kiauliaganys.yaml", "rllib_kiauliaganys.yaml"):
        with open(os.path.join(_CONFIGS, name), encoding="utf-8") as file:
            found.append(dict(yaml.safe_load(file)["env_kwargs"]))
    return found


#: every variant of the differential test, each once
OPTIONS: list[dict[str, Any]] = []
for _options in (*VARIANTS, *_training_options(), {"num_players": 3, "max_cycles": 20}):
    if _options not in OPTIONS:
        OPTIONS.append(_options)
#: episodes of the differential test over all its variants together
EPISODES = episode_count(160)


def _variant_id(options: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in options.items()) or "default"


@pytest.mark.parametrize("options", OPTIONS, ids=_variant_id)
def test_G1_G14_seeded_episodes_agree_with_the_env_step_by_step(options):
    episodes = max(4, math.ceil(EPISODES / len(OPTIONS)))
    steps = differential("kiauliaganys", options, episodes, seed=len(str(options)), num_envs=8)
    assert steps >= episodes * 8


@pytest.mark.parametrize(
    "options",
    [{}, {"num_players": 6, "deck": "54"}, {"num_players": 3, "match_years": 6, "deck": "36"}],
    ids=_variant_id,
)
def test_states_the_seat_to_act_cannot_tell_apart_give_the_same_observation(options):
    # the face-down order and the other hands' hidden cards permuted (engine.resample_hidden)
    assert permutation("kiauliaganys", options, positions=25, seed=5) > 0


def _late_env(options: dict[str, Any], seed: int, before_end: int) -> Any:
    """A raw env ``before_end`` steps before the end of a seeded random episode (late in the
    last deal: the most G10a records)."""
    env = kiauliaganys_v0.raw_env(**options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions = []
    while not all(env.terminations.values()):
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        actions.append(int(rng.choice(legal)))
        env.step(actions[-1])
    env.reset(seed=seed)
    for action in actions[: max(0, len(actions) - before_end)]:
        env.step(action)
    return env


def _go_on(vec: KiauliaganysVector, slot: int, env: Any, rng: np.random.Generator) -> int:
    """Step the slot and the env with the same random actions to the episode's end, comparing
    every step; returns the steps."""
    n = vec.num_envs
    steps = 0
    while True:
        agent = env.agent_selection
        seen = env.observe(agent)
        where = f"step {steps} after the load"
        assert vec.agent[slot] == env.agent_name_mapping[agent], where
        assert np.array_equal(vec.obs[slot], seen["observation"]), (
            f"{where}: {np.flatnonzero(vec.obs[slot] != seen['observation']).tolist()}"
        )
        assert np.array_equal(vec.mask[slot], seen["action_mask"]), where
        actions = random_actions(vec.mask, rng)
        rewards = np.zeros((n, vec.num_players), dtype=np.float32)
        terminated = np.zeros(n, dtype=bool)
        vec.step(actions, rewards, terminated)
        env.step(int(actions[slot]))
        steps += 1
        want = np.array([env.rewards[a] for a in env.possible_agents], dtype=np.float32)
        assert np.array_equal(rewards[slot], want), where
        assert terminated[slot] == all(env.terminations.values()), where
        if terminated[slot]:
            result = env.infos[env.possible_agents[0]]["result"]
            assert vec.results(np.array([slot])) == [result]
            return steps
        ended = np.flatnonzero(terminated)
        vec.reset_slots(ended, ended + 1000)


@pytest.mark.parametrize(
    "options",
    [{}, {"num_players": 2, "repetition": 2}, {"num_players": 3, "match_years": 6}],
    ids=_variant_id,
)
def test_a_state_loaded_late_in_a_deal_goes_on_as_the_env(options):
    # G10a records past the pool's first room (it grows), face-up cards, not_suit, and in a
    # match the years and the generator that shuffles the next deals (G11)
    rng = np.random.default_rng(11)
    grown = 0
    for seed in range(4):
        env = _late_env(options, seed, before_end=6)
        vec = KiauliaganysVector(3, options)
        vec.reset_slots(np.array([0, 1]), np.array([seed + 100, seed + 200]))
        start = vec.state_bytes()
        vec.load_state(2, env.game_state)
        grown += vec.state_bytes() > start
        _check_pool(vec)
        positions = env.game_state.positions
        if positions:  # the loaded positions with the newest one's marker, with their counts
            mark = _key_marker(next(reversed(positions)))
            want = sorted(n for key, n in positions.items() if _key_marker(key) == mark)
            got = sorted(
                int(vec._records[r, vec._words + R_TALLY]) & 0xFFFFFFFF for r in _chain(vec, 2)
            )
            assert got == want
        assert _go_on(vec, 2, env, rng) >= 1
    if options.get("repetition") == 2 or not options:
        assert grown, f"no loaded state had more than {START_RECORDS * 3} G10a records to keep"


def test_G10a_memory_per_slot_follows_the_batch_s_total_history_not_its_longest():
    """The rows have no history room: the records live in one pool per batch, counted in
    state_bytes (divided by the slots), which grows with the records of all slots together.
    A slot whose history is far longer than the others' does not size every row for it."""
    venv = vector.make("kiauliaganys", num_envs=64, seed=0)
    venv.reset()
    impl = venv.impl
    row = impl.state.shape[1] * 8
    assert row < 2400 and venv.state_bytes() <= 4400
    rng = np.random.default_rng(0)
    longest = 0
    for _ in range(3000):
        venv.step(random_actions(impl.mask, rng))
        longest = max(longest, int(impl.state[:, EXTRA_WORDS + C.RECORDS].max()))
    pool = impl._records.nbytes + impl._index.nbytes + impl._free.nbytes
    assert venv.state_bytes() == row + math.ceil(pool / 64)
    record = impl._records.shape[1] * 8
    assert longest * record > 16000  # rows sized for the longest history would pass 18 KB
    assert venv.state_bytes() < 8000


def test_the_same_seed_deals_the_same_batch_and_another_seed_other_deals():
    a = vector.make("kiauliaganys", num_envs=6, seed=3)
    b = vector.make("kiauliaganys", num_envs=6, seed=3)
    c = vector.make("kiauliaganys", num_envs=6, seed=4)
    (obs_a, info_a), (obs_b, info_b), (obs_c, _) = a.reset(), b.reset(), c.reset()
    assert np.array_equal(info_a["seed"], info_b["seed"])
    assert np.array_equal(obs_a["observation"], obs_b["observation"])
    assert np.array_equal(a.impl.state, b.impl.state)
    assert not np.array_equal(obs_a["observation"], obs_c["observation"])


def test_options_are_checked_as_the_env_checks_them():
    with pytest.raises(ValueError, match=r"unknown keyword.*'colour'.*allowed: num_players"):
        KiauliaganysVector(2, {"colour": "red"})
    bad_options = (
        {"num_players": 7},
        {"deck": "36", "num_players": 5},
        {"repetition": 1},
        {"reward": "points"},
        {"max_turns": 0},
    )
    for bad in bad_options:
        with pytest.raises(ValueError) as vec_error:
            KiauliaganysVector(2, bad)
        with pytest.raises(ValueError) as env_error:
            kiauliaganys_v0.raw_env(**bad)
        assert str(vec_error.value) == str(env_error.value)


def test_G10a_counts_past_32_bits_are_refused():
    # a position's count shares a word with its slot in the pool
    with pytest.raises(ValueError, match=r"max_turns=4294967296 with repetition=4294967296"):
        KiauliaganysVector(1, {"max_turns": 2**32, "repetition": 2**32})
    KiauliaganysVector(1, {"max_turns": 2**32, "repetition": 3})


def test_load_state_refuses_another_configuration_and_other_objects():
    env = kiauliaganys_v0.raw_env(num_players=3)
    env.reset(seed=1)
    with pytest.raises(ValueError, match="configuration"):
        KiauliaganysVector(1, {}).load_state(0, env.game_state)
    with pytest.raises(TypeError, match=r"rules\.State"):
        KiauliaganysVector(1, {}).load_state(0, {"hands": []})


def test_waiting_slots_keep_their_deal_and_the_others_move_as_in_a_full_step():
    # VectorEnv.step(active=…): the kernel skips the slots whose action is -1 (partial_steps)
    full = vector.make("kiauliaganys", num_envs=6, seed=9)
    half = vector.make("kiauliaganys", num_envs=6, seed=9)
    full.reset(), half.reset()
    rng = np.random.default_rng(9)
    even = np.arange(6) % 2 == 0
    compared = 0
    for _ in range(400):
        same = half.impl.obs.copy() == full.impl.obs
        actions = np.where(same.all(axis=1), random_actions(full.impl.mask, rng), -1)
        _, rewards, _, _, info = full.step(actions, active=actions >= 0)
        before = half.impl.obs[~even].copy()
        _, first, ended, _, _ = half.step(actions, active=even & (actions >= 0))
        assert np.array_equal(half.impl.obs[~even], before)
        assert not first[~even].any() and not ended[~even].any()
        _, second, _, _, half_info = half.step(actions, active=~even & (actions >= 0))
        assert np.array_equal(first + second, rewards)
        # a slot whose episode ended may be dealt another seed (seeds go to the slots that end
        # in one call in slot order): from then on it is left out
        kept = (half_info["seed"] == info["seed"]) & (actions >= 0)
        assert np.array_equal(half.impl.obs[kept], full.impl.obs[kept])
        assert np.array_equal(half_info["agent"][kept], info["agent"][kept])
        compared += int(kept.sum())
    assert compared > 1000


def _chain(vec: KiauliaganysVector, slot: int) -> list[int]:
    """The pool records of ``slot``'s G10a history, newest first."""
    found, r = [], int(vec.state[slot, X_NEWEST])
    while r >= 0:
        found.append(r)
        r = int(vec._records[r, vec._words + R_NEXT])
    return found


def _record_marker(vec: KiauliaganysVector, r: int) -> int:
    """The G10a marker (``_key_marker``) of pool record ``r``, decoded from the twin's packed
    key (each card's holder or fund index, then to_act, last_turn/named, had_turn)."""
    s = vec.state[0, EXTRA_WORDS:]
    d, n = int(s[C.D]), int(s[C.N])
    packed = vec._records[r]
    codes = [
        (int(packed[k // C.FIELDS_PER_WORD]) >> (C.FIELD_BITS * (k % C.FIELDS_PER_WORD))) & 63
        for k in range(d + 3)
    ]
    holders = set(codes[:d])
    had = codes[d + 2]
    empty = sum(1 << t for t in range(n) if had >> t & 1 and t not in holders)
    return had | empty << C.MAX_SEATS | (codes[d + 1] // 8) << 2 * C.MAX_SEATS


def _check_pool(vec: KiauliaganysVector) -> int:
    """The pool's invariants; returns the live records. Every slot's chain holds its RECORDS
    records, its own, of its marker, with distinct keys; the free stack holds the rest; the index
    holds exactly one entry per live record, reachable from its home entry (no gap: a record
    freed from the middle of a probe run must not hide the records after it)."""
    words, records, index = vec._words, vec._records, vec._index
    mask = index.shape[0] - 1
    live: set[int] = set()
    for slot in range(vec.num_envs):
        chain = _chain(vec, slot)
        assert len(chain) == vec.state[slot, EXTRA_WORDS + C.RECORDS], slot
        assert all(records[r, words + R_TALLY] >> 32 == slot for r in chain), slot
        markers = {_record_marker(vec, r) for r in chain}
        assert markers <= {int(vec.state[slot, X_MARK])}, (slot, markers)
        assert len({tuple(records[r, :words]) for r in chain}) == len(chain), slot
        live.update(chain)
    free = vec._free[1 : 1 + int(vec._free[FREE_COUNT])].tolist()
    assert len(set(free)) == len(free) and not live & set(free)
    assert len(live) + len(free) == records.shape[0]
    entries = index[index != 0]
    assert sorted(int(e) & 0xFFFFFFFF for e in entries) == sorted(r + 1 for r in live)
    for j in np.flatnonzero(index):
        r = (int(index[j]) & 0xFFFFFFFF) - 1
        home = _fingerprint(records[r], 0, words, int(records[r, words + R_TALLY]) >> 32) & mask
        assert int(index[j]) >> 32 == _fingerprint(
            records[r], 0, words, int(records[r, words + R_TALLY]) >> 32
        )
        k = home
        while k != j:
            assert index[k] != 0, (home, j)
            k = (k + 1) & mask
    return len(live)


def test_G10a_the_marker_of_a_position_only_grows_while_positions_are_taken():
    """The engine's own positions: each deal's marker (who has had a turn, who has had a turn
    and holds no cards, the G8 last turn) never loses a bit, so an older position with a
    smaller marker can never recur and the batched row may forget it."""
    config = Config()
    rng = np.random.default_rng(5)
    changes = 0
    for _ in range(150):
        state = rules.new_deal(config, rng)
        seen = 0
        while state.phase != rules.OVER:
            moves = rules.legal_moves(state)
            rules.apply(state, moves[int(rng.integers(len(moves)))])
            if state.positions:
                marker = _key_marker(next(reversed(state.positions)))
                assert marker & seen == seen, (bin(seen), bin(marker))
                changes += marker != seen
                seen = marker
    assert changes > 150


def test_G10a_a_row_keeps_only_the_records_since_the_last_irreversible_change():
    venv = vector.make("kiauliaganys", num_envs=16, seed=2)
    venv.reset()
    impl = venv.impl
    rng = np.random.default_rng(2)
    records = impl.state[:, EXTRA_WORDS + C.RECORDS].copy()
    turns = impl.state[:, EXTRA_WORDS + C.TURNS].copy()
    forgotten = 0
    for step in range(2500):
        venv.step(random_actions(impl.mask, rng))
        if step % 25 == 0:
            _check_pool(impl)  # a slot's records all have its marker
        for i, row in enumerate(impl.state):
            same_deal = row[EXTRA_WORDS + C.TURNS] > turns[i]
            forgotten += bool(same_deal and row[EXTRA_WORDS + C.RECORDS] < records[i])
        records = impl.state[:, EXTRA_WORDS + C.RECORDS].copy()
        turns = impl.state[:, EXTRA_WORDS + C.TURNS].copy()
    assert forgotten > 0


def test_G4_match_chances_come_from_a_table_of_the_counting_products():
    """Every entry the kernel can look up is the float ``counting.match_chances`` computes,
    and the packed float32 chances are the encoder's ``float32(1 - none)`` of it."""
    d = 52
    table = _none_table(d)
    offsets, chances = _chance_table(d)
    for total in range(d + 1):
        for others in range(total + 1):
            for free in range(d + 2):
                none = 1.0  # counting.match_chances' loop
                for i in range(free):
                    if others - i <= 0:
                        none = 0.0
                        break
                    none *= (others - i) / (total - i)
                looked_up = table[total, others, min(free, others + 1)]
                assert looked_up == none, (total, others, free, looked_up, none)
                chance = chances[offsets[total, others] + min(free, others + 1)]
                assert chance == np.float32(1.0 - none), (total, others, free)


def test_G10a_the_pool_holds_each_live_record_once_and_frees_the_others():
    """Records freed at marker changes, deal ends and resets (also of a slot in the middle of
    a deal, as max_cycles truncation does) leave the index with exactly the live records, each
    reachable from its home entry, and the free stack with the rest, while the pool grows."""
    venv = vector.make("kiauliaganys", num_envs=16, seed=3, max_cycles=150)
    venv.reset()
    impl = venv.impl
    start = impl._records.shape[0]
    rng = np.random.default_rng(3)
    checked = 0
    for step in range(2500):
        venv.step(random_actions(impl.mask, rng))
        if step % 10 == 0:
            checked += _check_pool(impl) > 16
    assert checked > 100 and impl._records.shape[0] > start
    assert impl._records.ctypes.data % 64 == 0  # the grown pool too: a record per cache line


def test_G10a_records_start_on_cache_lines_so_a_record_is_one_line():
    """The pool starts on a 64-byte line and its rows are 64 bytes (52 cards: a 6-word key and
    2 columns), so the record a count or a free reads is one cache miss, not two."""
    impl = KiauliaganysVector(3, {"num_players": 4, "deck": "52"})
    assert impl._records.shape[1] * 8 == 64
    for needed in (1, 100, 1000):
        impl._reserve(int(impl._free[FREE_COUNT]) + needed)
        assert impl._records.ctypes.data % 64 == 0, needed
        assert impl._records.flags.c_contiguous


def _card_fields(d: int, words: int) -> np.ndarray:
    """The bits of a packed G10a key that hold the cards' fields (not the three position
    fields after them)."""
    mask = np.zeros(words, dtype=np.int64)
    for k in range(d):
        mask[k // C.FIELDS_PER_WORD] |= 63 << (C.FIELD_BITS * (k % C.FIELDS_PER_WORD))
    return mask


@pytest.mark.parametrize(
    "options",
    [{}, {"num_players": 6, "deck": "54"}, {"num_players": 2, "deck": "36", "match_years": 4}],
    ids=_variant_id,
)
def test_G10a_the_key_kept_move_by_move_is_the_twin_s_packing(options):
    """Once the face-down table is empty, the card fields the moves keep in a row's key are the
    twin's ``_pack_key_into`` of the position, and a turn's start counted in the slot's
    history is the twin's whole key, held by one of the slot's records."""
    venv = vector.make("kiauliaganys", num_envs=16, seed=4, **options)
    _, info = venv.reset()
    impl = venv.impl
    words = impl._words
    rng = np.random.default_rng(4)
    expected = np.zeros(words, dtype=np.int64)
    fields = None
    compared = counted = 0
    for _ in range(1500):
        turns = impl.state[:, EXTRA_WORDS + C.TURNS].copy()
        seeds = info["seed"]
        _, _, _, _, info = venv.step(random_actions(impl.mask, rng))
        for slot, row in enumerate(impl.state):
            s = row[EXTRA_WORDS:]
            if s[C.FD_LEN] or s[C.PHASE] == rules.OVER:
                continue
            fields = _card_fields(int(s[C.D]), words) if fields is None else fields
            C._pack_key_into(s, expected, 0)
            key = s[KEY : KEY + words]
            assert np.array_equal(key & fields, expected & fields), (slot, key, expected)
            compared += 1
            if (
                s[C.PHASE] == rules.MATCH
                and s[C.TURNS] > turns[slot]
                and info["seed"][slot] == seeds[slot]
            ):
                assert np.array_equal(key, expected), (slot, key, expected)
                held = [
                    r
                    for r in _chain(impl, slot)
                    if np.array_equal(impl._records[r, :words], expected)
                ]
                assert len(held) == 1, slot
                counted += 1
    assert compared > 5000 and counted > 2000
