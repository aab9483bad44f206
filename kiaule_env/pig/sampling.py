"""Pig determinization (RULES.md D15): :func:`sample_state` draws a full
:class:`~kiaule_env.pig.rules.State` exactly uniformly from those consistent with one player's
:class:`~kiaule_env.pig.rules.PigView`, with passing memories that agree with it (P2, P6).

Search agents reach it through ``Engine.sample_state``. It lives apart from the rules: it is
drawing and reconstructing hidden history, not the game itself.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kiaule_env.pig.rules import (
    HAND_SIZE,
    OVER,
    RACE,
    Config,
    PigView,
    State,
    counts_per_rank,
    left_of,
)

#: where the card the observer passed last lies: ``("hand", seat)``, ``("stock", index)`` or
#: ``("discard", index)``; None when no card of his is in flight
Pin = tuple[str, int] | None


def sample_state(view: PigView, config: Config, rng: np.random.Generator) -> State:
    """A full state drawn exactly uniformly from those consistent with ``view``.

    Determinization (RULES.md D15). ``view.seat`` knows his hand; the card he passed in the
    latest passing step (``last_passed``) has not moved since: his left neighbour holds it, or,
    with ``stock=True`` when the dealer is his left, it lies on the discard pile (its last card;
    the stock's last card after the pile turned over, P6). In the race every player who touched
    in the first touching step holds four of a kind (a false touch ends the round at once, D1):
    all of ``touched`` while ``race_steps == 0``, else at least ``touched[0]`` (the view does
    not say who else touched in that step). Everything else he has not seen is placed uniformly:
    the four-of-a-kind holders' ranks as a uniform injective choice among the ranks still
    possible (every choice leaves the same number of completions), then the other cards a
    uniform shuffle over the other hands, the stock and the discard pile.

    Passing memories (P2): the neighbours' records of what passed between them and
    ``view.seat`` are his own records; the other players' memories are not in the view, so
    they are chosen, not sampled: one history consistent with the sampled hands
    (:func:`_passing_memory`). Not in the view either: the order in which the eliminated
    players left (ascending seats), the outcome of the previous round. Stacked decks are empty;
    the generator is fresh.
    """
    _check_arguments(view, config)
    n = config.num_players
    seat = view.seat
    shell = _shell(view, config)
    mine = set(view.hand)
    unseen = [s * 13 + r for s in range(4) for r in view.ranks if s * 13 + r not in mine]
    others = [s for s in shell.seats_in if s != seat]
    slots = {s: HAND_SIZE for s in others}
    hands: dict[int, list[int]] = {s: [] for s in others}
    pinned_to = _pin_last_passed(view, shell, unseen, hands, slots)
    free = _deal_fours(view, unseen, hands, slots, rng)
    pool = [c for c in unseen if c in free]
    stock, discard = _deal_rest(view, pool, hands, slots, pinned_to, rng)
    shell.hands = [list(view.hand) if s == seat else hands.get(s, []) for s in range(n)]
    shell.stock, shell.discard = stock, discard
    _copy_round(shell, view)
    shell.eliminated = [s for s in range(n) if s not in shell.seats_in]
    shell.round_index = view.round_index
    shell.rng = np.random.default_rng(int(rng.integers(2**63)))
    return shell


def _check_arguments(view: PigView, config: Config) -> None:
    """``TypeError`` / ``ValueError`` for a view or config that :func:`sample_state` cannot use."""
    if not isinstance(view, PigView):
        raise TypeError(f"view must be a pig rules.PigView, got {type(view).__name__}")
    if not isinstance(config, Config):
        raise TypeError(f"config must be a pig rules.Config, got {type(config).__name__}")
    if view.num_players != config.num_players:
        raise ValueError(
            f"view has {view.num_players} players, config has num_players={config.num_players}"
        )


def _shell(view: PigView, config: Config) -> State:
    """The sampled state's public frame (seats, ranks, dealer, letters), its cards still empty."""
    n = config.num_players
    return State(
        config=config,
        decks=(),
        seats_in=list(view.seats_in),
        ranks=view.ranks,
        dealer=view.dealer,
        hands=[[] for _ in range(n)],
        stock=[],
        discard=[],
        letters=list(view.letters),
    )


def _pin_last_passed(
    view: PigView,
    shell: State,
    unseen: list[int],
    hands: dict[int, list[int]],
    slots: dict[int, int],
) -> Pin:
    """P2, P6: where the observer's last passed card lies (it has not moved since). Taken out
    of ``unseen``; put in the left neighbour's hand (one slot fewer) when it lies there."""
    card, seat = view.last_passed, view.seat
    if not (card >= 0 and seat in shell.seats_in and view.phase != OVER):
        return None
    stock_slots, discard_slots = view.stock_size, view.discard_size
    left = left_of(shell, seat)
    pinned_to: tuple[str, int]
    if shell.config.stock and left == view.dealer:  # P6: the dealer's right discards
        if discard_slots:
            pinned_to = ("discard", discard_slots - 1)
        elif stock_slots:
            pinned_to = ("stock", stock_slots - 1)
        else:
            pinned_to = ("hand", left)
    else:
        pinned_to = ("hand", left)
    if card not in unseen:
        raise ValueError(f"view is inconsistent: last_passed {card} is in the own hand")
    unseen.remove(card)
    if pinned_to[0] == "hand":
        hands[left].append(card)
        slots[left] -= 1
    return pinned_to


def _deal_fours(
    view: PigView,
    unseen: list[int],
    hands: dict[int, list[int]],
    slots: dict[int, int],
    rng: np.random.Generator,
) -> set[int]:
    """D1: the other players known to hold four of a kind get a full hand of one rank (the
    pinned card's rank, else a uniform one among the ranks still whole). Returns the unseen
    cards still free."""
    fours = list(view.touched if view.race_steps == 0 else view.touched[:1])
    if view.phase != RACE:
        fours = []
    free = set(unseen)
    for holder in [s for s in fours if s != view.seat]:
        if hands[holder]:  # the pinned card fixes his rank
            rank = hands[holder][0] % 13
            rest = [su * 13 + rank for su in range(4) if su * 13 + rank != hands[holder][0]]
            if not all(c in free for c in rest):
                raise ValueError(f"view is inconsistent: player_{holder} cannot hold four")
        else:
            ranks = [r for r in view.ranks if all(su * 13 + r in free for su in range(4))]
            if not ranks:
                raise ValueError(f"view is inconsistent: player_{holder} cannot hold four")
            rank = ranks[int(rng.integers(len(ranks)))]
            rest = [su * 13 + rank for su in range(4)]
        hands[holder] += rest
        slots[holder] = 0
        free -= set(rest)
    return free


def _deal_rest(
    view: PigView,
    pool: list[int],
    hands: dict[int, list[int]],
    slots: dict[int, int],
    pinned_to: Pin,
    rng: np.random.Generator,
) -> tuple[list[int], list[int]]:
    """The free cards ``pool`` shuffled over the other hands' open slots, the stock and the
    discard pile (the pinned card at its place); returns ``(stock, discard)``."""
    stock_slots, discard_slots = view.stock_size, view.discard_size
    pool = [pool[i] for i in rng.permutation(len(pool))]
    start = 0
    for s in hands:
        hands[s] += pool[start : start + slots[s]]
        start += slots[s]
    stock_free = stock_slots - (pinned_to is not None and pinned_to[0] == "stock")
    stock = pool[start : start + stock_free]
    discard = pool[start + stock_free :]
    if pinned_to is not None and pinned_to[0] == "stock":
        stock.append(view.last_passed)
    if pinned_to is not None and pinned_to[0] == "discard":
        discard.append(view.last_passed)
    if len(discard) != discard_slots or len(stock) != stock_slots:
        raise ValueError("view is inconsistent: the unseen cards do not fill the unseen places")
    return stock, discard


def _copy_round(shell: State, view: PigView) -> None:
    """The round's public progress from ``view``, and passing memories that agree with it
    (:func:`_passing_memory`; a finished round's memory no longer bears on play)."""
    n = len(shell.hands)
    seat, seats_in = view.seat, shell.seats_in
    shell.phase = view.phase
    shell.touched = list(view.touched)
    shell.passes, shell.race_steps = view.passes, view.race_steps
    shell.last_passed, shell.last_received = [-1] * n, [-1] * n
    shell.passed_counts = [[0] * 13 for _ in range(n)]
    shell.received_counts = [[0] * 13 for _ in range(n)]
    if view.passes and view.phase != OVER:
        _passing_memory(shell, view)
    elif view.passes:  # the round is over: its memory no longer bears on play
        for s in seats_in:
            fallback = shell.hands[s][0] if shell.hands[s] else view.ranks[0]
            shell.passed_counts[s][fallback % 13] = view.passes
            shell.received_counts[s][fallback % 13] = view.passes
    shell.passed_counts[seat] = list(view.passed_counts)
    shell.received_counts[seat] = list(view.received_counts)
    shell.last_passed[seat], shell.last_received[seat] = view.last_passed, view.last_received


def _passing_memory(state: State, view: PigView) -> None:
    """Passing memories for every player of a sampled ``state`` that agree with ``view`` (P2).

    Cards go round a ring: every player passes to his left; with ``stock`` (P6) the stock and
    discard pile act as one more member of the ring, between the dealer's right (who discards
    into it) and the dealer (who draws from it). Pinned by the view: the observer's own counts
    and last cards; his left neighbour received exactly what he passed (his ``received_counts``
    are the observer's ``passed_counts``, his ``last_received`` the observer's
    ``last_passed``); his right neighbour passed exactly what he received. Not pinned, so
    chosen: the other members' counts, as one history that could have led to the sampled hands
    (every member's hand at the deal, current cards plus passed minus received, is a real
    hand), with each member's last received card one he holds now (nothing moved since). An
    observer who is out pins nothing: the first player in is given such a memory first.
    """
    seats = state.seats_in
    me = view.seat
    passed, received = list(view.passed_counts), list(view.received_counts)
    last_passed, last_received = view.last_passed, view.last_received
    if me not in seats:  # P5: he left; anchor the ring on a player in
        me = seats[0]
        last_received = max(state.hands[me], key=lambda c: c % 13)
        last_passed = max(state.hands[left_of(state, me)], key=lambda c: c % 13)
        if state.config.stock and left_of(state, me) == state.dealer:
            last_passed = (state.stock + state.discard)[-1]
        received = [0] * 13
        received[last_received % 13] = view.passes
        passed = _rank_counts(received, last_received, -1)
        passed[last_passed % 13] += 1  # his dealt hand: current, less the last in, plus out
    ring: list[int] = []  # clockwise from the observer; -1 is the stock and discard pile
    for s in seats[seats.index(me) :] + seats[: seats.index(me)]:
        if state.config.stock and s == state.dealer:
            ring.append(-1)
        ring.append(s)
    while ring[0] != me:
        ring.append(ring.pop(0))
    queue = state.stock + state.discard  # P6: one queue, the latest discard last
    held = {s: state.hands[s] for s in seats}
    held[-1] = queue
    last_in = {s: state.hands[s][int(np.argmax([c % 13 for c in state.hands[s]]))] for s in seats}
    if queue:
        last_in[-1] = queue[-1]
    last_in[ring[1]] = last_passed  # the observer's card has not moved since (P2)
    last_in[me] = last_received
    # members' last passes: each member's last card came from his right
    last_out = {ring[i - 1]: last_in[ring[i]] for i in range(len(ring))}
    # earlier passes (all but the last), per rank: walk the ring from the observer's left to
    # his right turning what the observer passed into what he received; a member keeps cards
    # of the ranks in excess (he held them before the last pass) and passes on the ranks short
    start = _rank_counts(passed, last_passed, -1)
    target = _rank_counts(received, last_received, -1)
    earlier = {me: start}
    current = start
    for member in ring[1:-1]:
        before = _rank_counts(counts_per_rank(held[member]), last_in[member], -1)
        before[last_out[member] % 13] += 1  # his hand just before the last pass
        nxt = list(current)
        short = [r for r in range(13) for _ in range(max(0, target[r] - current[r]))]
        for r in range(13):
            drop = min(max(0, current[r] - target[r]), before[r])
            nxt[r] -= drop
            for _ in range(drop):
                nxt[short.pop()] += 1
        earlier[member] = current = nxt
    earlier[ring[-1]] = target
    for member in ring:
        if member < 0:
            continue
        state.passed_counts[member] = _rank_counts(earlier[member], last_out[member], +1)
        state.last_passed[member] = last_out[member]
        state.last_received[member] = last_in[member]
    for i, member in enumerate(ring):
        if member >= 0:
            right = ring[i - 1]
            got = _rank_counts(earlier[right], last_out[right], +1)
            state.received_counts[member] = got
    state.passed_counts[me], state.received_counts[me] = passed, received


def _rank_counts(counts: Sequence[int], card: int, sign: int) -> list[int]:
    """``counts`` (per rank) with one card of ``card``'s rank added (+1) or removed (-1)."""
    out = list(counts)
    out[card % 13] += sign
    return out
