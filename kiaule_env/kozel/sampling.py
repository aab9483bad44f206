"""Kozel determinization (RULES.md "Determinization", K8): :func:`sample_state` draws a full
:class:`~kiaule_env.kozel.rules.State` exactly uniformly from those consistent with one player's
:class:`~kiaule_env.kozel.rules.View`.

Search agents reach it through ``Engine.sample_state``. It lives apart from the rules: it is
counting and drawing (exact weights over suit make-ups and placements), not the game itself.
"""

from __future__ import annotations

import itertools
from bisect import bisect_right
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from kiaule_env.kozel.rules import (
    DECK,
    DISCARD,
    HAND_SIZE,
    NUM_PLAYERS,
    PHASE_CLAIM,
    PHASE_LEAD,
    PHASE_RESPOND,
    POINTS,
    SUIT,
    Config,
    State,
    View,
    has_molodka,
    sort_hand,
)


def sample_state(view: View, config: Config, rng: np.random.Generator) -> State:
    """A full state drawn exactly uniformly from those consistent with ``view``.

    Determinization (RULES.md "Determinization"). Fixed by the view: the own hand and
    discards, every card seen face up, the indicator (K4) at its stock index while there, and
    ``known`` cards in their holder's hand. The unseen cards go to the unseen places: the other
    hands, the stock (in order), the other players' face-down discards of the current trick and
    the other players' face-down discards in the taken tricks ("dead" cards). A ``maybe`` card
    of seat s lies in s's hand, his current discard or the dead cards. The K8 window of the
    current trick is public: a seat asked (``to_act`` in the claim phase, ``declined``) holds a
    molodka, a seat of the window passed over does not (checked only while he still holds the
    hand of the lead). The placement is uniform over all labelled slots: the ``maybe`` cards by
    an exact count over how many of them are dead, the others a uniform shuffle. The K8 window
    is met constructively, never by rejection: the hidden hands of the seats it speaks about are
    drawn first, one seat after another, by their suit make-up (how many free cards and how many
    of his own ``maybe`` cards of each suit), each make-up weighted by its exact number of
    completions (:func:`_claim_hands`); then the rest is placed as above.

    The view does not carry the trick history, so which taken cards lie in which team's pile is
    not pinned: the sample splits the taken face-up cards and own discards so that each team's
    ``points_seen`` and own-discard points match the view (a point-class count, the size of the
    split uniform among the feasible ones), the dead cards fall to the teams at random with the
    sizes that leaves, and each dead card not a ``maybe`` card is attributed to a random other
    player. Stacked decks are empty; the generator for later series games is fresh.
    """
    if not isinstance(view, View):
        raise TypeError(f"view must be a kozel rules.View, got {type(view).__name__}")
    if not isinstance(config, Config):
        raise TypeError(f"config must be a kozel rules.Config, got {type(config).__name__}")
    me = view.seat
    others = [s for s in range(NUM_PLAYERS) if s != me]
    fixed = set(view.hand) | set(view.seen) | set(view.my_discards)
    for k in view.known:
        fixed |= set(k)
    if view.indicator_at >= 0:
        fixed.add(view.indicator)
    unseen = [c for c in DECK.cards if c not in fixed]
    hand_slots = {s: view.hand_sizes[s] - len(view.known[s]) for s in others}
    trick_slots = {s: 0 for s in others}
    for s, kind, _ in view.trick:
        if kind == DISCARD and s != me:
            trick_slots[s] = view.n_cards
    stock_slots = view.stock_size - (view.indicator_at >= 0)
    dead = len(unseen) - sum(hand_slots.values()) - sum(trick_slots.values()) - stock_slots
    if dead < 0 or min(hand_slots.values()) < 0:
        raise ValueError("view is inconsistent: more unseen places than unseen cards")
    maybe = {s: [c for c in view.maybe[s] if c not in fixed] for s in others}
    constrained = {c for s in others for c in maybe[s]}
    free = [c for c in unseen if c not in constrained]
    private = {s: hand_slots[s] + trick_slots[s] for s in others}
    rest_maybe = dict(maybe)
    drawn: dict[int, list[int]] = {}
    checks = _claim_checks(view, config)
    if checks:  # K8: the window's seats get their hands first (exact weights, no rejection)
        drawn = _claim_hands(view, checks, maybe, free, private, dead, rng)
        taken = {c for cards in drawn.values() for c in cards}
        free = [c for c in free if c not in taken]
        for s in drawn:
            rest_maybe[s] = [c for c in maybe[s] if c not in taken]
            private[s] = 0
    splits, cumulative = _maybe_splits(
        tuple((len(rest_maybe[s]), private[s]) for s in others), dead
    )
    if not splits:
        raise ValueError("view is inconsistent: the maybe cards have no place")
    places = _place(rng, others, rest_maybe, free, private, dead, stock_slots, splits, cumulative)
    for s, cards in drawn.items():
        places[s] = cards
    hands = {s: sort_hand([*view.known[s], *places[s][: hand_slots[s]]]) for s in others}
    return _build(view, config, rng, hands, places, hand_slots, maybe)


def _falling(n: int, k: int) -> int:
    """n (n−1) … (n−k+1): ordered placements of k cards into n labelled slots."""
    out = 1
    for i in range(k):
        out *= n - i
    return out


def _maybe_splits(
    seats: tuple[tuple[int, int], ...], dead: int
) -> tuple[list[tuple[int, ...]], list[int]]:
    """Per other seat (``(maybe cards, private slots)``): every vector of how many of his maybe
    cards are dead, with cumulative weights = the number of labelled placements of all maybe
    cards it allows (the free cards' completions are the same for every vector)."""
    vectors: list[tuple[int, ...]] = []
    cumulative: list[int] = []
    total = 0
    for js in itertools.product(*(range(m + 1) for m, _ in seats)):
        w = _falling(dead, sum(js))
        for (m, slots), j in zip(seats, js, strict=True):
            w *= _comb(m, j) * _falling(slots, m - j)
        if w:
            total += w
            vectors.append(js)
            cumulative.append(total)
    return vectors, cumulative


def _comb(n: int, k: int) -> int:
    return _falling(n, k) // _falling(k, k)


def _place(
    rng: np.random.Generator,
    others: list[int],
    maybe: dict[int, list[int]],
    free: list[int],
    private: dict[int, int],
    dead: int,
    stock_slots: int,
    splits: list[tuple[int, ...]],
    cumulative: list[int],
) -> dict[Any, list[int]]:
    """One uniform labelled placement: per other seat his private slots (hand, then current
    discard), ``"dead"`` and ``"stock"`` (top first, without the indicator)."""
    js = splits[bisect_right(cumulative, _below(rng, cumulative[-1]))]
    places: dict[Any, list[int | None]] = {s: [None] * private[s] for s in others}
    places["dead"] = [None] * dead
    places["stock"] = [None] * stock_slots
    dead_cards: list[int] = []
    for s, j in zip(others, js, strict=True):
        cards = [maybe[s][i] for i in rng.permutation(len(maybe[s]))]
        dead_cards += cards[:j]
        for slot, card in zip(rng.permutation(private[s]), cards[j:], strict=False):
            places[s][int(slot)] = card
    for slot, card in zip(rng.permutation(dead), dead_cards, strict=False):
        places["dead"][int(slot)] = card
    shuffled = iter([free[i] for i in rng.permutation(len(free))])
    for where in places.values():
        for i, card in enumerate(where):
            if card is None:
                where[i] = next(shuffled)
    return places  # type: ignore[return-value]


def _claim_checks(view: View, config: Config) -> list[tuple[int, bool, bool]]:
    """K8: ``(seat, holds a molodka, trumps only)`` that the current trick's window makes
    public, for the other seats that still hold the hand of the lead."""
    mode = config.molodka
    if mode is None or view.phase == PHASE_LEAD or not view.trick:
        return []
    if view.phase == PHASE_RESPOND and not view.claimed and view.n_cards == HAND_SIZE:
        return []  # no window after a lead of four cards
    trumps = mode == "trumps"
    played = {s for s, _, _ in view.trick}
    order = [(view.first_leader + k) % NUM_PLAYERS for k in (1, 2, 3)]
    if view.phase == PHASE_CLAIM:
        stop = order.index(view.to_act)
        asked = [(s, s in view.declined) for s in order[:stop]] + [(view.to_act, True)]
    elif view.claimed:
        asked = [(s, s in view.declined) for s in order[: order.index(view.leader)]]
    else:
        asked = [(s, s in view.declined) for s in order]
    return [(s, want, trumps) for s, want in asked if s != view.seat and s not in played]


def _below(rng: np.random.Generator, n: int) -> int:
    """A uniform integer in ``[0, n)`` for any positive Python int (counts of deals exceed
    64 bits): random bits, redrawn when ``>= n`` (each draw succeeds with probability > 1/2)."""
    if n <= 2**62:
        return int(rng.integers(n))
    bits = n.bit_length()
    nbytes = (bits + 7) // 8
    while True:
        x = int.from_bytes(rng.bytes(nbytes), "little") >> (8 * nbytes - bits)
        if x < n:
            return x


def _suit_splits(total: int, caps: Sequence[int]) -> list[tuple[int, ...]]:
    """Every way to take ``total`` cards from four suits with ``caps[σ]`` cards of suit σ."""
    out: list[tuple[int, ...]] = []
    for a in range(min(total, caps[0]) + 1):
        for b in range(min(total - a, caps[1]) + 1):
            for c in range(min(total - a - b, caps[2]) + 1):
                d = total - a - b - c
                if d <= caps[3]:
                    out.append((a, b, c, d))
    return out


def _by_suit(cards: Sequence[int]) -> list[list[int]]:
    out: list[list[int]] = [[], [], [], []]
    for c in cards:
        out[SUIT[c]].append(c)
    return out


def _claim_hands(
    view: View,
    checks: list[tuple[int, bool, bool]],
    maybe: dict[int, list[int]],
    free: list[int],
    private: dict[int, int],
    dead: int,
    rng: np.random.Generator,
) -> dict[int, list[int]]:
    """K8: the hidden hand cards of the seats the claim window speaks about, drawn exactly.

    The deals consistent with the view are counted by the suit make-up of these hands: seat
    c's hidden cards are ``a[σ]`` free cards and ``b[σ]`` of his own ``maybe`` cards of suit
    σ (another seat's ``maybe`` card is never in his hand; c has no current discard, he has not
    played in this trick). A make-up is allowed when his whole hand (``known`` cards included)
    is a molodka (K8: four cards of one suit, the trump suit with ``molodka="trumps"``) exactly
    when the window says so. Its weight is the number of card choices it has times the number
    of placements of everything else (:func:`_claim_rest`), which depends only on how many of
    these seats' ``maybe`` cards are left over (they must be dead). The seats are drawn in turn,
    each make-up with probability proportional to its completions, then the cards of each suit
    uniformly: the deal is exactly uniform among those meeting the window.
    """
    seats = _window_seats(view, checks)
    free_suits = _by_suit(free)
    own = {s: _by_suit(maybe[s]) for s, _, _ in seats}
    rest = _claim_rest(view, [s for s, _, _ in seats], maybe, private, dead, len(free))
    window = _Window(view, seats, maybe, own, rest)
    if not window.count(0, tuple(len(x) for x in free_suits), 0):
        raise ValueError("view is inconsistent: no deal meets the K8 claim window")
    return _draw_window_hands(window, free_suits, rng)


def _window_seats(view: View, checks: list[tuple[int, bool, bool]]) -> list[tuple[int, bool, bool]]:
    """The window's seats that could hold a molodka (K8: only a hand of four cards can)."""
    seats: list[tuple[int, bool, bool]] = []
    for s, want, trumps in checks:
        if view.hand_sizes[s] != HAND_SIZE:
            if want:
                raise ValueError(f"view is inconsistent: player_{s} was asked without 4 cards")
            continue  # K8: fewer than four cards are never a molodka
        seats.append((s, want, trumps))
    return seats


class _Window:
    """Exact completion counts for the K8 window's seats (see :func:`_claim_hands`): seat
    ``i``'s allowed suit make-ups, and the number of deals from seat ``i`` on (memoized)."""

    def __init__(
        self,
        view: View,
        seats: list[tuple[int, bool, bool]],
        maybe: dict[int, list[int]],
        own: dict[int, list[list[int]]],
        rest: Callable[[int], int],
    ) -> None:
        self.view = view
        self.seats = seats
        self.maybe = maybe
        self.own = own
        self.rest = rest
        self.memo: dict[tuple[int, tuple[int, ...], int], int] = {}

    def makeups(
        self, i: int, f: tuple[int, ...]
    ) -> list[tuple[tuple[int, ...], tuple[int, ...], int]]:
        """Seat i's allowed make-ups ``(a, b, ways)`` given ``f`` free cards per suit."""
        view = self.view
        s, want, trumps = self.seats[i]
        known_suits = {SUIT[c] for c in view.known[s]}
        mine = [len(x) for x in self.own[s]]
        h = HAND_SIZE - len(view.known[s])
        out = []
        for k in range(min(h, sum(mine)) + 1):
            for b in _suit_splits(k, mine):
                for a in _suit_splits(h - k, f):
                    suits = known_suits | {su for su in range(4) if a[su] + b[su]}
                    molodka = len(suits) == 1 and (not trumps or view.trump in suits)
                    if molodka != want:
                        continue
                    ways = 1
                    for su in range(4):
                        ways *= _comb(f[su], a[su]) * _comb(mine[su], b[su])
                    out.append((a, b, ways))
        return out

    def count(self, i: int, f: tuple[int, ...], left_over: int) -> int:
        """Completions from seat i on: ``left_over`` maybe cards of earlier seats are dead."""
        if i == len(self.seats):
            return self.rest(left_over)
        key = (i, f, left_over)
        if key not in self.memo:
            s = self.seats[i][0]
            total = 0
            for a, b, ways in self.makeups(i, f):
                nxt = tuple(x - y for x, y in zip(f, a, strict=True))
                total += ways * self.count(i + 1, nxt, left_over + len(self.maybe[s]) - sum(b))
            self.memo[key] = total
        return self.memo[key]


def _draw_window_hands(
    window: _Window, free_suits: list[list[int]], rng: np.random.Generator
) -> dict[int, list[int]]:
    """Draw the window seats' hands in turn: a make-up with probability proportional to its
    completions, then the cards of each suit uniformly (``free_suits`` is consumed)."""
    f = tuple(len(x) for x in free_suits)
    drawn: dict[int, list[int]] = {}
    left_over = 0
    for i, (s, _, _) in enumerate(window.seats):
        options = []
        for a, b, ways in window.makeups(i, f):
            nxt = tuple(x - y for x, y in zip(f, a, strict=True))
            after = left_over + len(window.maybe[s]) - sum(b)
            options.append((a, b, nxt, after, ways * window.count(i + 1, nxt, after)))
        weights = list(itertools.accumulate(o[4] for o in options))
        a, b, nxt, after, _ = options[bisect_right(weights, _below(rng, weights[-1]))]
        cards: list[int] = []
        for su in range(4):
            pool = free_suits[su]
            order = [pool[int(j)] for j in rng.permutation(len(pool))]
            cards += order[: a[su]]
            free_suits[su] = order[a[su] :]
            mine = window.own[s][su]
            cards += [mine[int(j)] for j in rng.permutation(len(mine))[: b[su]]]
        drawn[s] = cards
        f, left_over = nxt, after
    return drawn


def _claim_rest(
    view: View,
    claim_seats: list[int],
    maybe: dict[int, list[int]],
    private: dict[int, int],
    dead: int,
    n_free: int,
) -> Callable[[int], int]:
    """The number of labelled placements of everything outside the window seats' hands, as a
    function of how many of their ``maybe`` cards are left over (all of those are dead).

    The other seats' ``maybe`` cards go to their private slots or the dead ones (the sum of
    :func:`_maybe_splits`), the free cards fill the remaining slots in any order.
    """
    rest_seats = [s for s in range(NUM_PLAYERS) if s != view.seat and s not in claim_seats]
    pairs = [(len(maybe[s]), private[s]) for s in rest_seats]
    hidden = sum(HAND_SIZE - len(view.known[s]) for s in claim_seats)
    own_maybe = sum(len(maybe[s]) for s in claim_seats)
    cache: dict[int, int] = {}

    def rest(left_over: int) -> int:
        if left_over not in cache:
            total = 0
            for js in itertools.product(*(range(m + 1) for m, _ in pairs)):
                w = _falling(dead, sum(js) + left_over)
                for (m, slots), j in zip(pairs, js, strict=True):
                    w *= _comb(m, j) * _falling(slots, m - j)
                total += w
            free_left = n_free - (hidden - (own_maybe - left_over))
            cache[left_over] = total * _falling(free_left, free_left) if free_left >= 0 else 0
        return cache[left_over]

    return rest


def _pile_split(view: View, dead: list[int], rng: np.random.Generator) -> list[list[int]]:
    """The two teams' piles: taken face-up cards and own discards split to match the view's
    points, the dead cards at random into the sizes that leaves (see :func:`sample_state`)."""
    face_up = {c for _, kind, cards in view.trick if kind != DISCARD for c in cards}
    mine_now = {
        c for s, kind, cards in view.trick if kind == DISCARD and s == view.seat for c in cards
    }
    taken = [c for c in view.seen if c not in face_up]
    taken += [c for c in view.my_discards if c not in mine_now]
    target = view.points_seen[0] + view.my_discard_points[0]
    c0, c1 = view.cards_taken
    by_value: dict[int, list[int]] = {}
    for c in sorted(taken):
        by_value.setdefault(POINTS[c], []).append(c)
    values = tuple(sorted(by_value))
    counts = tuple(len(by_value[v]) for v in values)
    options = [
        (n0, ks)
        for (n0, p0), ks in _class_sums(values, counts).items()
        if p0 == target and 0 <= c0 - n0 <= len(dead) and c1 - (len(taken) - n0) >= 0
    ]
    if not options:
        raise ValueError("view is inconsistent: no split of the taken cards meets its points")
    sizes = sorted({n0 for n0, _ in options})
    n0 = sizes[int(rng.integers(len(sizes)))]
    ks = next(k for m, k in options if m == n0)
    pile0: list[int] = []
    pile1: list[int] = []
    for v, k in zip(values, ks, strict=True):
        pile0 += by_value[v][:k]
        pile1 += by_value[v][k:]
    order = [dead[i] for i in rng.permutation(len(dead))]
    pile0 += order[: c0 - n0]
    pile1 += order[c0 - n0 :]
    return [pile0, pile1]


_CLASS_SUMS: dict[tuple, dict[tuple[int, int], tuple[int, ...]]] = {}


def _class_sums(
    values: tuple[int, ...], counts: tuple[int, ...]
) -> dict[tuple[int, int], tuple[int, ...]]:
    """Every (cards, points) a subset of cards with these point ``values`` (``counts`` of each)
    can have, with one witness: how many of each value (memoized)."""
    key = (values, counts)
    known = _CLASS_SUMS.get(key)
    if known is None:
        reach: dict[tuple[int, int], tuple[int, ...]] = {(0, 0): ()}
        for v, cnt in zip(values, counts, strict=True):
            nxt: dict[tuple[int, int], tuple[int, ...]] = {}
            for (n, p), ks in reach.items():
                for k in range(cnt + 1):
                    nxt.setdefault((n + k, p + k * v), (*ks, k))
            reach = nxt
        if len(_CLASS_SUMS) > 4096:
            _CLASS_SUMS.clear()
        known = _CLASS_SUMS[key] = reach
    return known


def _build(
    view: View,
    config: Config,
    rng: np.random.Generator,
    hands: dict[int, list[int]],
    places: dict[Any, list[int]],
    hand_slots: dict[int, int],
    maybe: dict[int, list[int]],
) -> State:
    """The sampled :class:`State` from a placement (see :func:`sample_state`)."""
    me = view.seat
    others = [s for s in range(NUM_PLAYERS) if s != me]
    current = {s: sort_hand(places[s][hand_slots[s] :]) for s in others}
    trick = [
        (s, kind, tuple(current[s]) if kind == DISCARD and s != me else cards)
        for s, kind, cards in view.trick
    ]
    dead = places["dead"]
    discards = _sampled_discards(view, current, maybe, dead, rng)
    piles = _pile_split(view, dead, rng)
    discard_points = _discard_points(view, discards, piles)
    stock = list(places["stock"])
    if view.indicator_at >= 0:
        stock.insert(view.indicator_at, view.indicator)
    all_hands = [list(view.hand) if s == me else hands[s] for s in range(NUM_PLAYERS)]
    state = State(
        config=config,
        rng=np.random.default_rng(int(rng.integers(2**63))),
        decks=[],
        dealer=view.dealer,
        game_index=view.game_index,
        hands=all_hands,
        stock=stock,
        stock_pos=0,
        trump=view.trump,
        indicator=view.indicator,
        indicator_index=view.indicator_at,
        phase=view.phase,
        to_act=view.to_act,
        leader=view.leader,
        first_leader=view.first_leader,
        claimed=view.claimed,
        claim_queue=[],
        declined=list(view.declined),
        trick=trick,
        n_cards=view.n_cards,
        winner=view.winner,
        winning=view.winning,
        seen=list(view.seen),
        known=[list(k) for k in view.known],
        maybe=[list(m) for m in view.maybe],
        discards=discards,
        piles=piles,
        points=[sum(POINTS[c] for c in p) for p in piles],
        points_seen=list(view.points_seen),
        discard_points=discard_points,
        tricks=list(view.tricks),
        last_winner=view.first_leader if sum(view.tricks) else -1,
        series_loss=list(view.series_loss),
        eggs_streak=view.eggs_streak,
    )
    if view.phase == PHASE_CLAIM:  # K8: the rest of the window, judged on the sampled hands
        state.claim_queue = _claim_queue(view, config, all_hands)
    return state


def _sampled_discards(
    view: View,
    current: dict[int, list[int]],
    maybe: dict[int, list[int]],
    dead: list[int],
    rng: np.random.Generator,
) -> list[list[int]]:
    """Each seat's face-down discards: the own ones from the view, the others' current ones,
    and the dead cards (a ``maybe`` card to its seat, any other to a random other seat)."""
    me = view.seat
    others = [s for s in range(NUM_PLAYERS) if s != me]
    discards: list[list[int]] = [[] for _ in range(NUM_PLAYERS)]
    discards[me] = list(view.my_discards)
    owner: dict[int, int] = {}
    for s in others:
        discards[s] += current[s]
        for c in maybe[s]:
            if c in dead:
                owner[c] = s
    for c in dead:
        s = owner.get(c, others[int(rng.integers(len(others)))])
        discards[s].append(c)
    return discards


def _discard_points(
    view: View, discards: list[list[int]], piles: list[list[int]]
) -> list[list[int]]:
    """Per seat and team, the points of his own discards in that team's pile (K11); the
    observer's from the view."""
    me = view.seat
    discard_points = [[0, 0] for _ in range(NUM_PLAYERS)]
    discard_points[me] = list(view.my_discard_points)
    for team, pile in enumerate(piles):
        pile_set = set(pile)
        for s in range(NUM_PLAYERS):
            if s != me:
                discard_points[s][team] = sum(POINTS[c] for c in discards[s] if c in pile_set)
    return discard_points


def _claim_queue(view: View, config: Config, hands: list[list[int]]) -> list[int]:
    """K8: the seat asked now, then the later seats of the window that hold a molodka."""
    order = [(view.first_leader + k) % NUM_PLAYERS for k in (1, 2, 3)]
    trumps = config.molodka == "trumps"
    later = order[order.index(view.to_act) + 1 :]
    return [view.to_act] + [s for s in later if has_molodka(hands[s], view.trump, trumps)]
