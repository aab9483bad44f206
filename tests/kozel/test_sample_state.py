"""Kozel determinization at K8 claim windows (``sampling.sample_state``): the window's public
information (who was asked to claim, who was passed over) is met by construction, never by
rejection, so a view the env produced always samples, and the draw stays exactly uniform."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.stats import chisquare

from kiaule_env import kozel_v0
from kiaule_env.cards import parse_card
from kiaule_env.kozel import rules
from kiaule_env.kozel.engine import Engine
from tests.kozel.stacking import new_state, set_endgame, stacked

C = parse_card

#: Two trump molodkas and a non-trump one (hearts trump, indicator AH in the stock).
TWO_MOLODKAS = [
    ["6C", "7C", "8C", "9C"],
    ["6H", "7H", "8H", "9H"],
    ["6S", "7S", "8S", "9S"],
    ["10H", "JH", "QH", "KH"],
]


def _suits(hand) -> set[int]:
    return {rules.SUIT[c] for c in hand}


def _is_molodka(hand, mode: str, trump: int) -> bool:
    """K8, restated for the tests: four cards of one suit (the trump suit in "trumps" mode)."""
    return len(hand) == 4 and len(_suits(hand)) == 1 and (mode == "any" or _suits(hand) == {trump})


@pytest.mark.parametrize(("mode", "declines"), [("trumps", 1), ("any", 2)])
def test_K8_window_with_every_hidden_seat_asked_samples_at_once(mode, declines):
    """The deal of the report: the window asks two (trumps) or three (any) hidden seats. A
    uniform deal meets that about once in 10**7 (trumps) or far less (any); the former
    rejection sampler raised ``RuntimeError`` after 200,000 tries here."""
    state = new_state(stacked(TWO_MOLODKAS, indicator="AH"), molodka=mode)
    rules.play(state, "lead 6C")
    for _ in range(declines):
        rules.play(state, "decline")
    assert state.phase == rules.PHASE_CLAIM and state.to_act == 3
    engine = Engine(molodka=mode)
    view = rules.view(state, 0)
    rng = np.random.default_rng(0)
    for _ in range(200):
        sampled = engine.sample_state(view, rng)
        assert rules.view(sampled, 0) == view
        engine.check_invariants(sampled)
        assert _is_molodka(sampled.hands[1], mode, state.trump)
        assert _is_molodka(sampled.hands[3], mode, state.trump)
        assert _is_molodka(sampled.hands[2], mode, state.trump) == (mode == "any")
        assert sampled.claim_queue == [3]


def _window_positions(mode: str | None, games: int, seed: int, reset_seed: int | None = None):
    """Every position of seeded random games that is inside a trick with a K8 window (being
    asked, or after it: someone declined or claimed)."""
    engine = Engine(molodka=mode)
    rng = np.random.default_rng(seed)
    for game in range(games):
        state = engine.new_episode(
            np.random.default_rng(reset_seed if reset_seed is not None else seed + game), {}
        )
        while not engine.is_over(state):
            engine.apply(state, [int(rng.choice(engine.legal_actions(state, state.to_act)))])
            if state.phase == rules.PHASE_CLAIM or state.declined or state.claimed:
                yield engine, state


@pytest.mark.parametrize(("mode", "games"), [("any", 300), ("trumps", 1500), (None, 100)])
def test_K8_many_window_positions_sample_consistently_in_every_molodka_mode(mode, games):
    """Every seat of every window position: the sample has the same view, passes the
    invariants, and its hidden hands agree with the window (asked seats hold a molodka, seats
    passed over do not), judged from the true state's window."""
    rng = np.random.default_rng(1)
    positions = 0
    for engine, state in _window_positions(mode, games=games, seed=100):
        positions += 1
        asked = set(state.declined) | (
            {state.to_act} if state.phase == rules.PHASE_CLAIM else set()
        )
        for seat in range(4):
            view = rules.view(state, seat)
            sampled = engine.sample_state(view, rng)
            assert rules.view(sampled, seat) == view
            engine.check_invariants(sampled)
            for other in asked - {seat}:
                if not any(s == other for s, _, _ in state.trick):
                    assert _is_molodka(sampled.hands[other], mode, state.trump)
            if state.phase == rules.PHASE_CLAIM:
                assert sampled.claim_queue[0] == state.to_act
    if mode is None:
        assert positions == 0  # K8: no windows with molodka=None
    else:
        assert positions >= 80


def test_K8_report_seed_every_window_position_samples_for_player_0():
    """``kozel_v0.env(molodka="trumps")`` reset with seed 1331758212 (the report's seed): the
    windows its randomly played games reach sample for every seat, ``player_0`` included."""
    env = kozel_v0.env(molodka="trumps")
    env.reset(seed=1331758212)
    deal = env.unwrapped.game_state.hands
    rng = np.random.default_rng(2)
    positions = 0
    for engine, state in _window_positions("trumps", games=400, seed=3, reset_seed=1331758212):
        if not positions:  # the env's reset and the engine deal alike
            assert engine.new_episode(np.random.default_rng(1331758212), {}).hands == deal
        positions += 1
        for seat in range(4):
            view = rules.view(state, seat)
            assert rules.view(engine.sample_state(view, rng), seat) == view
    assert positions >= 5


# ------------------------------------------------------------------------------ exactness
#: An end position (hearts trump, stock empty): player_0 leads 6C; player_1 holds four hearts
#: (a trump molodka), player_2 three spades and a heart, the observer player_3 no molodka.
END_HANDS = [
    ["6C", "7S", "9S", "10S"],
    ["6H", "7H", "8H", "9H"],
    ["6S", "8S", "10H", "JH"],
    ["6D", "7D", "8D", "9C"],
]
#: Cards public knowledge puts in a hand (set by hand to keep the space enumerable).
END_KNOWN = {1: ["6H", "7H"], 2: ["6S"]}


def _end_position(mode: str, decline: bool = False) -> rules.State:
    state = new_state(stacked(END_HANDS, indicator="AH"), molodka=mode)
    used = {c for h in END_HANDS for c in h}
    rest = [t for t in (rules.CARD_TEXTS[c] for c in rules.DECK.cards) if t not in used]
    state = set_endgame(state, END_HANDS, [rest[:12], rest[12:]], tricks=[3, 2], leader=0)
    rules.play(state, "lead 6C")
    assert state.phase == rules.PHASE_CLAIM and state.claim_queue == [1]
    for seat, cards in END_KNOWN.items():
        state.known[seat] = [C(t) for t in cards]
    if decline:
        rules.play(state, "decline")
    rules.check_invariants(state)
    return state


def _with_a_maybe_card(state: rules.State) -> rules.State:
    """The end position, but player_1 discarded QD face down in an earlier trick after 6H was
    known to be his: 6H is in his hand or among the dead cards (a ``maybe`` card); player_2's
    8S is known too."""
    qd = C("QD")
    team = next(t for t in (0, 1) if qd in state.piles[t])
    state.seen.remove(qd)
    state.points_seen[team] -= rules.POINTS[qd]
    state.discards[1] = [qd]
    state.discard_points[1][team] += rules.POINTS[qd]
    state.known[1] = [C("7H")]
    state.maybe[1] = [C("6H")]
    state.known[2] = [C("6S"), C("8S")]
    rules.check_invariants(state)
    return state


def _end_allowed(state: rules.State, view: rules.View, mode: str, decline: bool) -> set:
    """Brute force: every split of the observer's unseen cards into the hidden parts of hands
    0, 1, 2 and the dead cards such that player_1 holds a molodka, once the window is over
    player_2 holds none (K8: he was passed over), and a ``maybe`` card of player_1 is in his
    hand or dead."""
    known = {s: list(view.known[s]) for s in range(3)}
    pool = sorted(c for s in range(3) for c in state.hands[s] if c not in known[s])
    pool = sorted(pool + [c for c in state.discards[1]])
    sizes = [len(state.hands[s]) - len(known[s]) for s in range(3)]
    out = set()
    for h0 in itertools.combinations(pool, sizes[0]):
        rest = [c for c in pool if c not in h0]
        for h1 in itertools.combinations(rest, sizes[1]):
            left = [c for c in rest if c not in h1]
            for h2 in itertools.combinations(left, sizes[2]):
                dead = [c for c in left if c not in h2]
                if any(c not in h1 and c not in dead for c in view.maybe[1]):
                    continue
                if not _is_molodka([*known[1], *h1], mode, state.trump):
                    continue
                if decline and _is_molodka([*known[2], *h2], mode, state.trump):
                    continue
                out.add((frozenset(h0), frozenset(h1), frozenset(h2)))
    return out


@pytest.mark.parametrize(
    ("mode", "decline", "maybe", "size"),
    [
        ("any", True, False, 96),
        ("trumps", True, False, 120),
        ("any", False, False, 120),
        ("any", True, True, 316),
    ],
)
def test_K8_window_sample_is_exactly_uniform(mode, decline, maybe, size):
    """Chi-square against the enumeration (p > 0.001). With "any" after the window, player_2
    three hidden spades would make a molodka, so 24 of the 120 splits are excluded; with the
    ``maybe`` card, player_1's hand is drawn partly from it and a dead card is in play."""
    state = _end_position(mode, decline=False)
    if maybe:
        state = _with_a_maybe_card(state)
    if decline:
        rules.play(state, "decline")
    view = rules.view(state, 3)
    allowed = _end_allowed(state, view, mode, decline)
    assert len(allowed) == size
    engine = Engine(molodka=mode)
    rng = np.random.default_rng(4)
    counts = dict.fromkeys(allowed, 0)
    for _ in range(40 * size):
        sampled = engine.sample_state(view, rng)
        assert rules.view(sampled, 3) == view
        key = tuple(
            frozenset(c for c in sampled.hands[s] if c not in view.known[s]) for s in range(3)
        )
        assert key in counts, f"sampled a split the window rules out: {key}"
        counts[key] += 1
    assert chisquare(list(counts.values())).pvalue > 0.001
