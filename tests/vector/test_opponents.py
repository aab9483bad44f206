"""The batched rule-based opponents (``kiaule_env.vector.heuristic_opponent``).

For every game whose descriptor names a ``vector_policy``: the actions are legal in thousands of
states of the batched env (reached by random and by the policy's own play), the same seed gives
the same actions, and bad ``slots`` or ``seed`` are refused with ``ValueError``. For Pig and
Kozel the batched kernel agrees with the twin's single-state ``policy_action`` on the same row
(Pig: also for the second and later seats of a passing step, which decide on the hand of the
step's start, P2).
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from kiaule_env import GAMES, vector
from kiaule_env.vector.opponents import BatchedPolicy

POLICY_GAMES = [name for name, game in GAMES.items() if game.vector_policy]
#: options of each game's batched envs in these tests (a variety of rule variants)
OPTIONS = {
    "pig": [{}, {"num_players": 7, "game": "full", "stock": True}, {"false_nose": "pig"}],
    "kozel": [{}, {"series": True, "molodka": "trumps"}, {"beat_partner": False}],
    "kiauliaganys": [{}, {"num_players": 2, "deck": "36"}, {"num_players": 6, "deck": "54"}],
}


def _states(name: str, options: dict, num_envs: int = 128, steps: int = 24, seed: int = 0):
    """Yields (venv, opponent) at ``steps`` successive states of a batch whose slots move by
    the opponent's choice in even slots and uniformly at random in odd ones."""
    venv = vector.make(name, num_envs=num_envs, seed=seed, **options)
    opponent = vector.heuristic_opponent(venv)
    assert opponent is not None
    obs, _ = venv.reset()
    rng = np.random.default_rng(seed)
    slots = np.arange(num_envs, dtype=np.int64)
    for t in range(steps):
        yield venv, opponent
        actions = vector.random_legal(obs["action_mask"], rng)
        actions[::2] = opponent.act(slots[::2], 1000 + t)
        obs, *_ = venv.step(actions)


def test_games_with_a_batched_policy() -> None:
    assert {"pig"} <= set(POLICY_GAMES)
    for name in POLICY_GAMES:
        assert GAMES[name].vector and GAMES[name].has_decisions


@pytest.mark.parametrize("name", POLICY_GAMES)
def test_actions_legal_in_thousands_of_states(name: str) -> None:
    checked = 0
    for options in OPTIONS[name]:
        for venv, opponent in _states(name, options):
            slots = np.arange(venv.num_envs, dtype=np.int64)
            actions = opponent.act(slots, 7)
            assert actions.dtype == np.int64 and actions.shape == (venv.num_envs,)
            assert venv.impl.mask[slots, actions].all(), f"{name} {options}: illegal action"
            checked += venv.num_envs
    assert checked >= 3000


@pytest.mark.parametrize("name", POLICY_GAMES)
def test_same_seed_same_actions_and_seeds_differ(name: str) -> None:
    differ = False
    for venv, opponent in _states(name, OPTIONS[name][0], steps=12):
        slots = np.arange(venv.num_envs - 1, -1, -3, dtype=np.int64)  # any order, a subset
        first = opponent.act(slots, 5)
        np.testing.assert_array_equal(opponent.act(slots, 5), first)
        differ |= not np.array_equal(opponent.act(slots, 6), first)
        one = opponent.act(slots[:1], 5)  # the first slot decides first: the same draw
        assert one[0] == first[0]
    assert differ, "ties are drawn from the seed: some seed must change some action"


def _twin_agreement(name: str, twin_action, later=lambda row: False) -> tuple[int, int]:
    """Asserts that the batched action of every slot, decided alone, is ``twin_action(row,
    seat, seed)``; returns the number of states compared and of those where ``later(row)``."""
    compared = counted = 0
    for options in OPTIONS[name]:
        for venv, opponent in _states(name, options, num_envs=64, steps=16):
            for i in range(venv.num_envs):
                seed = 31 * i + 3
                got = opponent.act(np.array([i]), seed)[0]
                row = venv.impl.state[i].copy()
                assert got == twin_action(row, int(venv.impl.agent[i]), seed), (options, i)
                compared += 1
                counted += bool(later(row))
    return compared, counted


@pytest.mark.skipif("pig" not in POLICY_GAMES, reason="no Pig policy")
def test_pig_agrees_with_the_twins_policy_action_P2() -> None:
    from kiaule_env.pig import compiled as C
    from kiaule_env.pig import vector as V

    def twin(row: np.ndarray, seat: int, seed: int) -> int:
        return C.policy_action(row[: C.SIZE], seat, seed)

    compared, later = _twin_agreement("pig", twin, lambda row: row[V.CUR] > 0)
    assert compared >= 3000 and later > 500  # many seats after the first of a passing step


@pytest.mark.skipif("kozel" not in POLICY_GAMES, reason="no Kozel policy")
def test_kozel_agrees_with_the_twins_policy_action() -> None:
    from kiaule_env.kozel import compiled as C
    from kiaule_env.kozel import compiled_policy as P

    def twin(row: np.ndarray, seat: int, seed: int) -> int:
        assert seat == row[C.TO_ACT]
        return P.policy_action(row[: C.SIZE], seat, seed)

    claims = C.PHASE_CLAIM
    compared, windows = _twin_agreement("kozel", twin, lambda row: row[C.PHASE] == claims)
    assert compared >= 3000 and windows > 0  # K8 claim windows among the states


@pytest.mark.skipif("kiauliaganys" not in POLICY_GAMES, reason="no Kiauliaganys policy")
def test_kiauliaganys_agrees_with_the_twins_policy_action_and_says_it_reads_hidden_cards() -> None:
    from numba import njit

    from kiaule_env.kiauliaganys import compiled as C
    from kiaule_env.kiauliaganys import vector as V
    from kiaule_env.kiauliaganys import vector_policy

    @njit
    def twin_action(s: np.ndarray, seat: int, seed: int, epsilon: float) -> int:
        np.random.seed(seed)
        return C.policy_action(s, seat, np.empty(2 * C.MAX_CARDS + 16, np.int64), epsilon)

    def twin(row: np.ndarray, seat: int, seed: int) -> int:
        assert seat == row[V.EXTRA_WORDS + C.TO_ACT]
        return twin_action(row[V.EXTRA_WORDS :], seat, seed, vector_policy.EPSILON)

    compared, _ = _twin_agreement("kiauliaganys", twin)
    assert compared >= 3000
    venv = vector.make("kiauliaganys", num_envs=1, seed=0)
    assert "reads hidden cards" in vector.heuristic_opponent(venv).name


def kiauliaganys_strength(deals: int, player: str = "policy", seed: int = 0) -> tuple[float, float]:
    """Mean reward per deal (± standard error) of one seat played by the batched opponent's
    policy (``"policy"``: ``compiled.policy_action`` with ``vector_policy.EPSILON`` on the deal's
    full array, as on a batched row) or uniformly at random (``"random"``) among Python
    ``kiauliaganys/heuristic`` players, default options, the seat rotated over all seats of
    each deal (G12 ``win_loss``: the swineherd −1, the others +1/(n−1))."""
    from agents.kiauliaganys import KiauliaganysHeuristic
    from kiaule_env.core.play import LazyDecision
    from kiaule_env.kiauliaganys import compiled as C
    from kiaule_env.kiauliaganys.vector_policy import EPSILON

    engine = GAMES["kiauliaganys"].make_engine()
    n = engine.num_players
    out = np.empty(2 * C.MAX_CARDS + 16, np.int64)
    rng = np.random.default_rng(seed)
    per_deal = []
    for d in range(deals):
        deal = engine.random_deal(rng)
        total = 0.0
        for me in range(n):
            state = engine.new_episode(np.random.default_rng([seed, d]), deal)
            others = [KiauliaganysHeuristic(seed=n * d + t) for t in range(n)]
            rewards = np.zeros(n)
            while not engine.is_over(state):
                seat = engine.to_act(state)[0]
                legal = engine.legal_actions(state, seat)
                if seat != me:
                    action = others[seat].act(LazyDecision(engine, state, seat, legal))
                elif player == "policy":
                    action = int(C.policy_action(C.encode(state), seat, out, EPSILON))
                else:
                    action = int(legal[rng.integers(len(legal))])
                rewards += engine.apply(state, [action])
            total += rewards[me]
        per_deal.append(total / n)
    values = np.array(per_deal)
    return float(values.mean()), float(values.std(ddof=1) / np.sqrt(deals))


@pytest.mark.skipif("kiauliaganys" not in POLICY_GAMES, reason="no Kiauliaganys policy")
def test_kiauliaganys_policy_plays_as_well_as_the_heuristic_G12() -> None:
    policy, _ = kiauliaganys_strength(40)
    random, _ = kiauliaganys_strength(40, "random")
    assert policy > -0.15 and random < -0.5  # measured over 2,000 deals: +0.003, random -0.78


@pytest.mark.parametrize("name", POLICY_GAMES)
def test_bad_slots_and_seeds_refused(name: str) -> None:
    venv = vector.make(name, num_envs=4, seed=0)
    opponent: BatchedPolicy = vector.heuristic_opponent(venv)
    with pytest.raises(ValueError, match="no seat to act"):  # never reset: nobody acts
        opponent.act(np.array([0]), 0)
    venv.reset()
    assert opponent.act(np.array([], dtype=np.int64), 0).shape == (0,)
    with pytest.raises(ValueError, match=r"slots: 4 is not a slot index in \[0, 4\)"):
        opponent.act(np.array([0, 4]), 0)
    with pytest.raises(ValueError, match="slots: -1 is not a slot index"):
        opponent.act(np.array([-1]), 0)
    with pytest.raises(ValueError, match="1-D integer array"):
        opponent.act(np.zeros((2, 2), np.int64), 0)
    with pytest.raises(ValueError, match="1-D integer array"):
        opponent.act(np.array([0.0, 1.0]), 0)
    for seed in (-1, 2**32, 1.5, True):
        with pytest.raises(ValueError, match=r"seed must be an integer in \[0, 2\*\*32\)"):
            opponent.act(np.array([0]), seed)


def test_a_policy_refuses_another_games_env() -> None:
    from kiaule_env.pig.vector_policy import HeuristicPolicy

    with pytest.raises(ValueError, match="needs a batched env of PigVector"):
        HeuristicPolicy(vector.make("elgeta", num_envs=2, seed=0))


def test_no_policy_for_elgeta_and_not_a_batched_env_refused() -> None:
    assert vector.heuristic_opponent(vector.make("elgeta", num_envs=2, seed=0)) is None
    with pytest.raises(ValueError, match=r"needs a batched env made by kiaule_env\.vector\.make"):
        vector.heuristic_opponent(object())


@pytest.mark.parametrize("name", POLICY_GAMES)
def test_policy_kernels_recompile_after_an_edit_of_the_twin_or_the_row_layout(name: str) -> None:
    import importlib

    import numba

    from kiaule_env.vector.kernels import stamped_with

    module = importlib.import_module(GAMES[name].vector_policy.partition(":")[0])
    twin = importlib.import_module(f"kiaule_env.{name}.compiled")
    batched = importlib.import_module(GAMES[name].vector.partition(":")[0])
    kernels = [f for f in vars(module).values() if isinstance(f, numba.core.dispatcher.Dispatcher)]
    assert kernels
    for kernel in kernels:
        for path in (twin.__file__, batched.__file__):
            assert stamped_with(kernel, path), (name, kernel.__name__, path)


if __name__ == "__main__":  # python -m tests.vector.test_opponents [deals]: the report's figures
    import sys

    deals = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    for who in ("policy", "random"):
        mean, err = kiauliaganys_strength(deals, who, seed=7)
        print(f"kiauliaganys, one {who} seat among heuristics: {mean:+.4f} ± {err:.4f}")
