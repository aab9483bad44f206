"""Kiauliaganys determinization (RULES.md "Determinization", G4, G5, G10a): :func:`sample_state`
draws a full :class:`~kiaule_env.kiauliaganys.rules.State` exactly uniformly from those
consistent with one player's :class:`~kiaule_env.kiauliaganys.rules.View`.

Search agents reach it through ``Engine.sample_state``. It lives apart from the rules: it is
counting and drawing (exact completion counts per suit), not the game itself.
"""

from __future__ import annotations

from bisect import bisect_right
from functools import lru_cache
from math import comb

import numpy as np

from kiaule_env.cards import NUM_SUITED
from kiaule_env.kiauliaganys.rules import MATCH, State, View, position_key


def sample_state(view: View, rng: np.random.Generator) -> State:
    """A full state drawn exactly uniformly from those consistent with ``view``.

    Determinization.

    What ``view.seat`` knows of the cards he has not seen (RULES.md "Determinization"): they lie
    in the face-down table (any order) and in the other players' unseen hand cards (as sets); an
    unseen hand card is never a joker (a joker reaches a hand only face up, G5), and seat s holds
    at least ``not_suit[s][t]`` unseen cards that are not of suit t (G4 search pick-ups), i.e. at
    most ``need - not_suit[s][t]`` of suit t. Every placement meeting these constraints is equally
    likely: the constrained seats' suit counts are drawn one seat at a time, weighted by their
    exact number of completions (:func:`_seat_choices`, a memoized count over the per-suit
    remainders); the cards of each suit are then a uniform subset, and the rest (the
    unconstrained seats and the table, whose number of completions is the same for every choice)
    a uniform shuffle, the jokers on the table.

    G10a: the earlier positions of the deal are not part of a view, so the sampled state's
    history holds only the current position (at the start of a turn) with the view's count: a
    simulation from it ends by repetition when it returns there often enough, not when it
    returns to an earlier position.
    """
    if not isinstance(view, View):
        raise TypeError(f"view must be a kiauliaganys rules.View, got {type(view).__name__}")
    n = view.num_players
    seen = set(view.hand) | set(view.fund)
    for cards in view.face_up:
        seen.update(cards)
    by_suit: list[list[int]] = [[], [], [], []]
    jokers: list[int] = []
    for card in view.config.the_deck.cards:
        if card not in seen:
            (jokers if card >= NUM_SUITED else by_suit[card // 13]).append(card)
    others = [s for s in range(n) if s != view.seat]
    need = {s: view.hand_sizes[s] - len(view.face_up[s]) for s in others}
    unseen = sum(map(len, by_suit)) + len(jokers)
    if sum(need.values()) + view.face_down != unseen or len(jokers) > view.face_down:
        raise ValueError(
            "view is inconsistent: the unseen cards do not fill the unseen places "
            f"({unseen} unseen cards, {sum(need.values())} hidden hand cards, "
            f"{view.face_down} face-down, {len(jokers)} unseen jokers)"
        )
    constrained = [s for s in others if need[s] and any(view.not_suit[s])]
    spec = tuple(
        (need[s], tuple(need[s] - view.not_suit[s][t] for t in range(4))) for s in constrained
    )
    remaining = tuple(map(len, by_suit))
    if _completions(spec, remaining) == 0:
        raise ValueError("view is inconsistent: no deal meets its not_suit constraints")
    for suit in by_suit:  # a uniform order per suit: the next k cards are a uniform k-subset
        suit[:] = [suit[i] for i in rng.permutation(len(suit))]
    taken = [0, 0, 0, 0]
    hidden: dict[int, list[int]] = {}
    for i, seat in enumerate(constrained):
        ks, cumulative, total = _seat_choices(spec[i:], remaining)
        counts = ks[bisect_right(cumulative, _below(rng, total))]
        cards: list[int] = []
        for t in range(4):
            cards += by_suit[t][taken[t] : taken[t] + counts[t]]
            taken[t] += counts[t]
        hidden[seat] = cards
        remaining = tuple(r - k for r, k in zip(remaining, counts, strict=True))
    rest = [c for t in range(4) for c in by_suit[t][taken[t] :]]
    rest = [rest[i] for i in rng.permutation(len(rest))]
    start = 0
    for seat in others:
        if seat not in hidden:
            hidden[seat] = rest[start : start + need[seat]]
            start += need[seat]
    table = rest[start:] + jokers
    face_down = [table[i] for i in rng.permutation(len(table))]
    return _state_from_view(view, hidden, face_down)


def _below(rng: np.random.Generator, total: int) -> int:
    """A uniform integer in ``[0, total)`` for any Python int (exact: rejection on random bits;
    the completion counts exceed 64 bits)."""
    bits = total.bit_length()
    size = (bits + 7) // 8
    while True:
        value = int.from_bytes(rng.bytes(size), "little") >> (8 * size - bits)
        if value < total:
            return value


@lru_cache(maxsize=1 << 16)
def _seat_choices(
    spec: tuple[tuple[int, tuple[int, ...]], ...], remaining: tuple[int, ...]
) -> tuple[list[tuple[int, ...]], list[int], int]:
    """The first seat of ``spec`` (``(need, caps per suit)``, then the seats after it): every
    suit-count vector it may hold out of ``remaining`` unseen cards per suit, with cumulative
    weights = the exact number of placements of these cards and of the later seats' cards
    (``math.comb`` per suit times the later seats' :func:`_completions`), and their total."""
    need, caps = spec[0]
    later = spec[1:]
    r0, r1, r2, r3 = remaining
    m0, m1, m2, m3 = (min(c, r) for c, r in zip(caps, remaining, strict=True))
    ks: list[tuple[int, ...]] = []
    cumulative: list[int] = []
    total = 0
    for k0 in range(min(m0, need) + 1):
        w0 = comb(r0, k0)
        for k1 in range(min(m1, need - k0) + 1):
            w1 = w0 * comb(r1, k1)
            for k2 in range(min(m2, need - k0 - k1) + 1):
                k3 = need - k0 - k1 - k2
                if k3 > m3:
                    continue
                w = w1 * comb(r2, k2) * comb(r3, k3)
                if later:
                    w *= _completions(later, (r0 - k0, r1 - k1, r2 - k2, r3 - k3))
                if w:
                    total += w
                    ks.append((k0, k1, k2, k3))
                    cumulative.append(total)
    return ks, cumulative, total


def _completions(spec: tuple[tuple[int, tuple[int, ...]], ...], remaining: tuple[int, ...]) -> int:
    """How many ways the seats of ``spec`` can take their unseen cards out of ``remaining``."""
    return _seat_choices(spec, remaining)[2] if spec else 1


def _state_from_view(view: View, hidden: dict[int, list[int]], face_down: list[int]) -> State:
    n = view.num_players
    hands = [
        list(view.hand) if s == view.seat else [*view.face_up[s], *hidden[s]] for s in range(n)
    ]
    fund = list(view.fund)
    named = view.required_suit if fund and fund[-1] >= NUM_SUITED else -1
    state = State(
        config=view.config,
        hands=hands,
        face_up=[set(f) for f in view.face_up],
        not_suit=[list(c) for c in view.not_suit],
        fund=fund,
        named_suit=named,
        face_down=face_down,
        dealer=view.dealer,
        to_act=view.to_act,
        phase=view.phase,
        last_turn=view.last_turn,
        had_turn=list(view.had_turn),
        out=list(view.out),
        turns=view.turns,
        last_picked=view.last_picked,
        loser=view.loser,
        caught_by_tail=view.caught_by_tail,
        capped=view.capped,
        match_years=list(view.match_years),
        deals=view.deals,
        positions={},
        repeats=view.repetitions,
        repeated=view.repeated,
    )
    if view.repetitions and view.phase == MATCH and not face_down:  # G10a, see sample_state
        state.positions[position_key(state)] = view.repetitions
    return state
