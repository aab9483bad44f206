"""The compiled rollout policy of Kiauliaganys (``policy_playout`` in
``kiaule_env/kiauliaganys/compiled.py``, RULES §2, G1–G14, G10a).

Recorded policy playouts are replayed through the Python engine (every action legal there, the
same rewards, the deal's end at the same step); playouts are seeded; and in constructed
positions the policy does what its docstring says (rules 1–4).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")

from numba import njit

import kiaule_env
from kiaule_env.core.simulate import simulator
from kiaule_env.kiauliaganys import compiled as C
from kiaule_env.kiauliaganys import rules

GAME = kiaule_env.get_game("kiauliaganys")

VARIANTS: tuple[dict[str, Any], ...] = (
    {},
    {"num_players": 2, "deck": "54", "repetition": 2},
    {"num_players": 5, "deck": "54", "must_play_from_hand": True, "reward": "years"},
    {"num_players": 4, "deck": "36", "blind_drag_only_when_empty_hand": True},
    {"num_players": 3, "match_years": 6, "max_turns": 40},
    {"num_players": 6, "deck": "54", "repetition": None},
)


def _replay(engine: Any, state: rules.State, actions: np.ndarray, steps: int) -> np.ndarray:
    """Python replay of ``steps`` recorded actions; each must be legal and the deal must end
    exactly after the last. Returns the summed rewards."""
    total = np.zeros(engine.num_players)
    for i in range(steps):
        seat = engine.to_act(state)[0]
        legal = engine.legal_actions(state, seat)
        assert int(actions[i]) in legal, f"step {i}: action {actions[i]} is illegal for {seat}"
        total += engine.apply(state, [int(actions[i])])
        over = engine.is_over(state) or engine.step_info(state) is not None
        assert over == (i == steps - 1), f"the deal ended at a different step ({i} of {steps})"
    return total


@pytest.mark.parametrize(
    "options", VARIANTS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default"
)
def test_g4_g13_policy_playout_is_legal_and_matches_a_python_replay(options: dict) -> None:
    """Every policy action is legal in the Python engine (G4–G6, G13) and the rewards (G12) and
    the end of the deal (G8, G10, G10a, G11) agree, from fresh deals and mid-deal states."""
    engine = GAME.make_engine(**options)
    n = engine.num_players
    kinds: set[str] = set()
    for seed in range(25):
        state = engine.new_episode(np.random.default_rng(seed), {})
        rng = np.random.default_rng(seed)
        for _ in range(int(rng.integers(0, 12))):  # a random prefix: mid-deal states too
            legal = engine.legal_actions(state, engine.to_act(state)[0])
            engine.apply(state, [legal[int(rng.integers(len(legal)))]])
            if engine.is_over(state) or engine.step_info(state) is not None:
                state = engine.new_episode(np.random.default_rng(seed), {})
                break
        rewards = np.zeros(n)
        record = np.full(3 * engine.config.max_turns + 8, -1, dtype=np.int64)
        steps = C.policy_playout_recorded(C.encode(state), rewards, seed, record, 0.05)
        assert record[steps - 1] >= 0 and record[steps] == -1
        total = _replay(engine, engine.clone(state), record, steps)
        assert total.tolist() == rewards.tolist()
        kinds.update(engine.codec.moves[int(a)].kind for a in record[:steps])
    assert {rules.PLAY, rules.DRAG_CARD, rules.TAKE} <= kinds


def test_policy_playout_is_seeded() -> None:
    """Same seed: same playout (and ``policy_playout`` is the recorded one with
    ``POLICY_EPSILON``, also through the simulator); different seeds: different playouts."""
    engine = GAME.make_engine()
    state = engine.new_episode(np.random.default_rng(3), {})
    base = C.encode(state)
    sim = simulator(engine, rollout="policy")
    records = set()
    for seed in range(12):
        first, again, recorded = np.zeros(4), np.zeros(4), np.zeros(4)
        steps = C.policy_playout(base.copy(), first, seed)
        assert C.policy_playout(base.copy(), again, seed) == steps
        assert first.tolist() == again.tolist()
        record = np.full(3000, -1, dtype=np.int64)
        assert C.policy_playout_recorded(base.copy(), recorded, seed, record, C.POLICY_EPSILON) == (
            steps
        )
        assert recorded.tolist() == first.tolist()
        assert sim.playout(sim.load(state), seed).tolist() == first.tolist()
        records.add(tuple(record[:steps]))
    assert len(records) > 6, "the playout ignores its seed"


# ---------------------------------------------------------------------------------- positions
def _card(text: str) -> int:
    """Deck position of a card like ``"H7"`` (suits C D H S, ranks 2–10 J Q K A), ``"J0"``/
    ``"J1"`` for the jokers of the 54-card deck."""
    if text[0] == "J" and text[1:] in ("0", "1"):
        return 52 + int(text[1])
    ranks = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    return "CDHS".index(text[0]) * 13 + ranks.index(text[1:])


def _world(
    hands: list[list[str]],
    fund: list[str],
    face_down: tuple[str, ...] | list[str] = (),
    phase: int = rules.MATCH,
    to_act: int = 0,
    **options: Any,
) -> np.ndarray:
    """A constructed deal array (every seat has had a turn; ``face_down`` next card last)."""
    engine = GAME.make_engine(num_players=len(hands), **options)
    s = C.encode(engine.new_episode(np.random.default_rng(0), {}))
    for seat, hand in enumerate(hands):
        s[C.HAND + seat] = sum(1 << _card(c) for c in hand)
        s[C.COUNT + seat] = len(hand)
        s[C.HAD_TURN + seat] = 1
        s[C.OUT + seat] = 0
    s[C.FUND : C.FUND + 2 * C.MAX_CARDS] = -1
    s[C.FUND : C.FUND + len(fund)] = [_card(c) for c in fund]
    s[C.FUND_LEN] = len(fund)
    s[C.FACE_DOWN : C.FACE_DOWN + len(face_down)] = [_card(c) for c in face_down]
    s[C.FD_LEN] = len(face_down)
    s[C.PHASE], s[C.TO_ACT], s[C.NAMED] = phase, to_act, -1
    return s


def _choices(s: np.ndarray, epsilon: float = 0.0, seeds: int = 40) -> set[int]:
    """The policy's actions for the seat to act over ``seeds`` seeds (random tie-breaks)."""
    out = np.empty(C.MAX_CARDS * 2 + 11, dtype=np.int64)
    found = set()
    for seed in range(seeds):
        _seed(seed)
        found.add(int(C.policy_action(s.copy(), int(s[C.TO_ACT]), out, epsilon)))
    return found


@njit
def _seed(seed: int) -> None:
    """Seeds numba's generator (separate from numpy's; only an njit function reaches it)."""
    np.random.seed(seed)


def _drag(card: str, d: int = 52) -> int:
    return d + _card(card)


def _special(d: int, kind: int) -> int:
    """search (0), take (1), drag blind (2) for a ``d``-card deck."""
    ns = 52 if d >= 52 else d
    return d + ns + 4 * (d - ns) + kind


def test_g6_rule2_drags_the_suit_the_next_player_lacks() -> None:
    """Table empty: the next player (seat 1) holds no heart, so the heart is dragged, whatever
    the other suits; uniformly random drags would pick it a third of the time."""
    s = _world(
        [["C5", "H7", "S9"], ["C2", "C3", "S2"], ["H2", "D2"], ["D3"]],
        fund=["D5", "D9"],
        phase=rules.DRAG,
    )
    assert _choices(s) == {_drag("H7")}
    # seat 1 out (G7): the drag is aimed at seat 2, who lacks clubs and spades
    s[C.HAND + 1], s[C.COUNT + 1], s[C.OUT + 1] = 0, 0, 1
    assert _choices(s) == {_drag("C5"), _drag("S9")}


def test_g4_g6_rule2_prefers_the_suit_with_the_longer_search() -> None:
    """Face-down cards left: seat 1 lacks hearts and diamonds; a search for diamonds would
    pick up three cards, one for hearts none, so the diamond is dragged."""
    s = _world(
        [["D5", "H7", "S9"], ["C2", "S2"], ["C3"], ["C4"]],
        fund=["S5", "S6"],
        face_down=["D2", "C9", "C10", "H3"],  # next card last: H3, then C10, C9, D2
        phase=rules.DRAG,
    )
    assert _choices(s) == {_drag("D5")}


def test_g6_rule2_a_joker_on_the_next_hand_matches_every_suit() -> None:
    """Seat 1 holds a joker (G4: it matches anything), so no suit is lacked: the drag goes to
    the suit he holds fewest of (here hearts, none; he holds two clubs)."""
    s = _world(
        [["C5", "H7"], ["C2", "C3", "J0"], ["S2"], ["S3"]],
        fund=["S5", "S6"],
        phase=rules.DRAG,
        deck="54",
    )
    assert _choices(s) == {_drag("H7", 54)}


def test_g6_rule2_blind_before_the_last_joker_and_a_joker_names_the_lacked_suit() -> None:
    """Only a joker in hand: ``drag blind`` while face-down cards remain; without them the
    joker is dragged naming the suit the next player lacks (spades)."""
    s = _world(
        [["J0"], ["C2", "D3", "H4"], ["S2"], ["S3"]],
        fund=["S5", "S6"],
        face_down=["C9", "C10"],
        phase=rules.DRAG,
        deck="54",
    )
    assert _choices(s) == {_special(54, 2)}
    s[C.FD_LEN] = 0
    s[C.FACE_DOWN : C.FACE_DOWN + 2] = -1
    assert _choices(s) == {54 + 52 + 0 * 4 + 3}  # joker 0 naming S


def test_g4_rule1_plays_from_hand_rather_than_search() -> None:
    """Holding the required suit (clubs) with face-down cards left: a club is played, never the
    search; a suited card before the joker."""
    s = _world(
        [["C5", "C9", "H7", "J0"], ["D2"], ["D3"], ["D4"]],
        fund=["C2"],
        face_down=["C3", "C4"],
        deck="54",
    )
    assert _choices(s) == {_card("C5"), _card("C9")}
    s[C.HAND] = (1 << _card("H7")) | (1 << _card("J0"))
    s[C.COUNT] = 2
    assert _choices(s) == {_card("J0")}
    s[C.HAND], s[C.COUNT] = 1 << _card("H7"), 1
    assert _choices(s) == {_special(54, 0)}


def test_g5_rule3_takes_in_the_two_player_endgame() -> None:
    """Two players, table empty, the opponent holds two clubs: after a club play every drag
    would be matched (he would go out and leave me the swineherd, G8), while a take uncovers a
    heart he lacks: take. If he held a heart, the play stands."""
    s = _world([["C5", "C6", "C7"], ["C9", "C10"]], fund=["H2", "C3"])
    take = _special(52, 1)
    assert _choices(s) == {take}
    s[C.HAND + 1] = (1 << _card("C9")) | (1 << _card("H10"))
    assert take not in _choices(s)
    # a card I could drag that he cannot match: play it instead of the take
    s[C.HAND + 1] = (1 << _card("C9")) | (1 << _card("C10"))
    s[C.HAND] = sum(1 << _card(c) for c in ("C5", "C6", "S7"))
    assert _choices(s) == {_card("C5"), _card("C6")}


def test_g10a_rule4_avoids_a_repetition_it_would_lose() -> None:
    """Table empty, the current position occurred twice already (``repetition=3``): if its
    tie-break (most cards) makes the mover the swineherd he plays at random among his legal
    moves; if it makes someone else lose he keeps to the policy (the cycle may come round)."""
    s = _world([["C5", "C6", "C7", "H2"], ["C9", "D2"]], fund=["S2", "C3"])
    clubs = {_card("C5"), _card("C6"), _card("C7")}
    assert _choices(s) == clubs  # rules 1 and 3: a club (the heart is left for the drag)
    s[C.REPEATS] = 2
    assert _choices(s) == clubs | {_special(52, 1)}  # avoids: the take comes up too
    s[C.HAND + 1] = sum(1 << _card(c) for c in ("C9", "D2", "D3", "D4", "D5"))
    s[C.COUNT + 1] = 5
    assert _choices(s) == clubs  # the opponent would lose the repetition: no avoiding
