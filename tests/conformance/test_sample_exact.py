"""``Engine.sample_state`` is *exactly* uniform: on small positions every consistent state is
enumerated by brute force (independently of the sampler), many samples are drawn with a fixed
seed, and a chi-square test must not reject uniformity (p > 0.001); a marginal (who holds a
given unseen card) is compared with its exact value within 5 standard errors.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy.stats import chisquare

from kiaule_env import GAMES
from kiaule_env.cards import parse_card
from kiaule_env.kiauliaganys import rules as kg

SAMPLES = 12_000


def _chi_square(keys: list, allowed: set) -> float:
    counts = {k: 0 for k in allowed}
    for key in keys:
        assert key in counts, f"sampled an inconsistent state {key}"
        counts[key] += 1
    return float(chisquare(list(counts.values())).pvalue)


# --------------------------------------------------------------------------- Kiauliaganys
def _kiauliaganys_position():
    """3 players, 54 cards: seat 1 hides 3 cards of which at most 1 club (G4 not_suit 2 for
    clubs), seat 2 hides 2 cards with no diamond (not_suit 2 for diamonds), a joker unseen,
    3 face-down cards (the joker must be among them: a hand's unseen card is never a joker)."""
    engine = GAMES["kiauliaganys"].make_engine(num_players=3, deck="54")
    state = engine.new_episode(np.random.default_rng(0), {})
    cards = lambda text: [parse_card(t) for t in text.split()]  # noqa: E731
    unseen = cards("2C 3C 4C 2D 3D 2H RJ 2S")
    state.hands = [cards("AS KS QS"), unseen[:3], unseen[3:5] + cards("AH")]
    state.face_up = [set(), set(), set(cards("AH"))]
    state.not_suit = [[0, 0, 0, 0], [2, 0, 0, 0], [0, 2, 0, 0]]
    state.face_down = unseen[5:]
    used = {c for h in state.hands for c in h} | set(state.face_down)
    state.fund = [c for c in engine.deck.cards if c not in used and c < 52]
    state.fund.append(next(c for c in (52, 53) if c not in used))
    state.named_suit = 3  # the joker on top named spades
    state.had_turn = [True, True, True]
    state.to_act, state.phase = 0, kg.MATCH
    engine.check_invariants(state)
    return engine, state, unseen


def _kiauliaganys_consistent(unseen: list[int]) -> set:
    """Brute force: every (seat 1 hand, seat 2 hand, face-down order) meeting the constraints."""
    out = set()
    for h1 in itertools.combinations(unseen, 3):
        rest = [c for c in unseen if c not in h1]
        for h2 in itertools.combinations(rest, 2):
            table = [c for c in rest if c not in h2]
            if any(c >= 52 for c in h1 + h2):  # G5: no hidden joker in a hand
                continue
            if sum(c // 13 == 0 for c in h1) > 1 or sum(c // 13 == 1 for c in h2) > 0:
                continue  # G4: not_suit
            for order in itertools.permutations(table):
                out.add((frozenset(h1), frozenset(h2), order))
    return out


def _kiauliaganys_key(state, ace_of_hearts: int):
    return (
        frozenset(state.hands[1]),
        frozenset(c for c in state.hands[2] if c != ace_of_hearts),
        tuple(state.face_down),
    )


def test_kiauliaganys_sample_is_exactly_uniform_under_not_suit_g4_g5():
    engine, state, unseen = _kiauliaganys_position()
    allowed = _kiauliaganys_consistent(unseen)
    view = engine.view(state, 0)
    rng = np.random.default_rng(1)
    ah = parse_card("AH")
    keys = [_kiauliaganys_key(engine.sample_state(view, rng), ah) for _ in range(SAMPLES)]
    assert len(set(keys)) == len(allowed)
    assert _chi_square(keys, allowed) > 0.001


def test_kiauliaganys_marginal_of_a_club_matches_enumeration():
    engine, state, unseen = _kiauliaganys_position()
    allowed = _kiauliaganys_consistent(unseen)
    card = parse_card("2C")
    exact = sum(card in h1 for h1, _, _ in allowed) / len(allowed)
    view = engine.view(state, 0)
    rng = np.random.default_rng(2)
    n = 10_000
    hits = sum(card in engine.sample_state(view, rng).hands[1] for _ in range(n))
    tolerance = 5 * math.sqrt(exact * (1 - exact) / n)
    assert abs(hits / n - exact) < tolerance
    # the former sampler (fill seats one by one) is off by more than that here
    assert 0.1 < exact < 0.5


# --------------------------------------------------------------------------- Elgeta
def test_elgeta_sample_is_exactly_uniform_over_pile_orders():
    engine = GAMES["elgeta"].make_engine(num_players=2, deck="32")
    rng = np.random.default_rng(3)
    for seed in range(200):  # a position whose unseen parts are small but not trivial
        state = engine.new_episode(np.random.default_rng(seed), {})
        while not engine.is_over(state):
            unseen = state.unseen
            size = math.prod(math.factorial(u) for u in unseen)
            if 6 <= size <= 150 and min(unseen) >= 2:
                break
            engine.apply(state, [0])
        else:
            continue
        break
    else:
        raise AssertionError("no small position found")
    view = engine.view(state, 0)
    allowed = {
        tuple(itertools.chain.from_iterable((p,) for p in perms))
        for perms in itertools.product(*(itertools.permutations(u) for u in view.unseen))
    }

    def key(s):
        return tuple(tuple(list(p)[:u]) for p, u in zip(s.piles, s.unseen, strict=True))

    keys = [key(engine.sample_state(view, rng)) for _ in range(SAMPLES)]
    assert len(allowed) == size
    assert _chi_square(keys, allowed) > 0.001


# --------------------------------------------------------------------------- Pig
def test_pig_sample_is_exactly_uniform_with_the_passed_card_pinned_p2():
    engine = GAMES["pig"].make_engine(num_players=3)
    state = engine.new_episode(np.random.default_rng(4), {})
    engine.apply(state, [engine.legal_actions(state, s)[0] for s in engine.to_act(state)])
    view = engine.view(state, 0)
    passed = view.last_passed
    assert passed >= 0
    unseen = sorted(set(state.hands[1] + state.hands[2]))
    allowed = {
        (frozenset(h1), frozenset(c for c in unseen if c not in h1))
        for h1 in itertools.combinations(unseen, 4)
        if passed in h1  # P2: player_1, on player_0's left, holds the card he just got
    }
    rng = np.random.default_rng(5)
    keys = []
    for _ in range(SAMPLES // 4):
        s = engine.sample_state(view, rng)
        keys.append((frozenset(s.hands[1]), frozenset(s.hands[2])))
    assert len(allowed) == math.comb(7, 3)
    assert _chi_square(keys, allowed) > 0.001


def test_pig_race_touchers_hold_four_of_a_kind_p3():
    engine = GAMES["pig"].make_engine(num_players=8)
    rng = np.random.default_rng(6)
    for seed in range(2000):
        state = engine.new_episode(np.random.default_rng(seed), {})
        fours = [s for s in range(1, 8) if len({c % 13 for c in state.hands[s]}) == 1]
        if fours:
            break
    nose = [
        a
        for a in engine.legal_actions(state, fours[0])
        if engine.action_text(state, fours[0], a) in ("nose", "token")
    ]
    actions = [engine.legal_actions(state, s)[0] for s in engine.to_act(state)]
    actions[fours[0]] = nose[0]
    engine.apply(state, actions)
    view = engine.view(state, 0)
    assert view.touched == (fours[0],) and view.race_steps == 0
    counts: dict[int, int] = {}
    for _ in range(2000):
        s = engine.sample_state(view, rng)
        hand = s.hands[fours[0]]
        assert len({c % 13 for c in hand}) == 1, "P3: the toucher holds four of a kind"
        counts[hand[0] % 13] = counts.get(hand[0] % 13, 0) + 1
    possible = [r for r in view.ranks if not any(c % 13 == r for c in view.hand)]
    assert sorted(counts) == sorted(possible) and len(possible) > 1
    assert chisquare(list(counts.values())).pvalue > 0.001


# --------------------------------------------------------------------------- Kozel
def _kozel_small_position():
    engine = GAMES["kozel"].make_engine()
    rng = np.random.default_rng(7)
    for seed in range(400):
        state = engine.new_episode(np.random.default_rng(seed), {})
        while not engine.is_over(state):
            if state.stock_size == 0 and state.phase != 2:
                places = _kozel_places(engine, state, 0)
                if places and 20 <= _kozel_count(*places) <= 300:
                    return engine, state, places
            legal = engine.legal_actions(state, state.to_act)
            faceup = [
                a
                for a in legal
                if not engine.action_text(state, state.to_act, a).startswith("discard")
            ]
            engine.apply(state, [int(rng.choice(faceup or legal))])
    raise AssertionError("no small Kozel position found")


def _kozel_places(engine, state, seat):
    """Unseen cards and the sizes of the places they may go (other hands, current discards,
    dead discards), from the view alone."""
    view = engine.view(state, seat)
    fixed = set(view.hand) | set(view.seen) | set(view.my_discards)
    for k in view.known:
        fixed |= set(k)
    unseen = [c for c in range(52) if c % 13 >= 4 and c not in fixed]
    sizes = {}
    for s in range(4):
        if s != seat:
            sizes[("hand", s)] = view.hand_sizes[s] - len(view.known[s])
    for s, kind, _ in view.trick:
        if kind == 2 and s != seat:
            sizes[("trick", s)] = view.n_cards
    sizes["dead"] = len(unseen) - sum(sizes.values())
    return unseen, sizes, view


def _kozel_count(unseen, sizes, view) -> int:
    n = math.factorial(len(unseen))
    for v in sizes.values():
        n //= math.factorial(v)
    return n


def _kozel_all(unseen, sizes, view) -> set:
    names = list(sizes)
    out = set()

    def rec(i, left, acc):
        if i == len(names):
            ok = all(
                c in acc.get(("hand", s), ()) or c in acc.get(("trick", s), ()) or c in acc["dead"]
                for s in range(4)
                if s != view.seat
                for c in view.maybe[s]
                if c in unseen
            )
            if ok:
                out.add(tuple(acc[n] for n in names))
            return
        for pick in itertools.combinations(left, sizes[names[i]]):
            rest = [c for c in left if c not in pick]
            rec(i + 1, rest, {**acc, names[i]: frozenset(pick)})

    rec(0, list(unseen), {})
    return out


def test_kozel_sample_is_exactly_uniform_over_hands_and_discards():
    engine, _, (unseen, sizes, view) = _kozel_small_position()
    allowed = _kozel_all(unseen, sizes, view)
    rng = np.random.default_rng(8)
    seat = view.seat

    def key(s):
        hidden = {}
        for o in range(4):
            if o != seat:
                hidden[("hand", o)] = frozenset(c for c in s.hands[o] if c not in view.known[o])
        for o, kind, cards in s.trick:
            if kind == 2 and o != seat:
                hidden[("trick", o)] = frozenset(cards)
        rest = set(unseen) - set().union(*hidden.values())
        hidden["dead"] = frozenset(rest)
        return tuple(hidden[n] for n in sizes)

    keys = [key(engine.sample_state(view, rng)) for _ in range(SAMPLES)]
    assert len(set(keys)) == len(allowed)
    assert _chi_square(keys, allowed) > 0.001
