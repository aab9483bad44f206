"""The Elgeta (Beggar) rules engine: RULES §4, rules E1–E10, and the decisions of ``RULES.md``.

Pure game logic, no RL: a :class:`Config`, a :class:`State` changed in place by :func:`apply`,
:func:`view` (what one player knows), :func:`result` and :func:`simulate`, a fast whole-game path
for studies that agrees with :func:`apply` card by card (tested).

Elgeta has no decisions after the deal (E3: the only move is ``play``). One move is one player
putting the top card of his pile on the table; a trick is one or more rounds of such moves (E4).
Cards are the ids of :mod:`kiaule_env.cards`; a card's rank strength is ``card % 13`` (2 low,
A high; suits are equal, E3), which is why this engine needs no strength table.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

import numpy as np

from kiaule_env.cards import DECK_RANKS, SUITS, Deck, cards_text, get_deck, parse_cards
from kiaule_env.core.options import check_bool, check_int

ALLOWED_DECKS: tuple[str, ...] = ("52", "36", "32")  # E1, never jokers
#: E2: the suit of each seat with four players (``player_0`` ♠, ``player_1`` ♣, ``player_2`` ♦,
#: ``player_3`` ♥); with three players one of them is left out and the others keep this order.
SEAT_SUITS: tuple[str, ...] = ("S", "C", "D", "H")
#: E2: two players: ``player_0`` the red suits, ``player_1`` the black.
TWO_PLAYER_SUITS: tuple[tuple[str, ...], ...] = (("D", "H"), ("C", "S"))
PLAY = "play"  # E3: the only move
NOBODY = -1
_SEPARATOR = 255  # not a card id: ends each pile in a position key (E8)


@dataclass(frozen=True)
class Config:
    """The constructor keywords of an Elgeta game, validated (E1, E8)."""

    num_players: int = 4
    deck: str = "52"
    max_tricks: int = 10_000
    stop_on_all_aces: bool = False

    def __post_init__(self) -> None:
        check_int("num_players", self.num_players, 2, 4)  # E1
        object.__setattr__(self, "deck", get_deck(self.deck, ALLOWED_DECKS).name)  # E1
        check_int("max_tricks", self.max_tricks, 1)  # E8
        check_bool("stop_on_all_aces", self.stop_on_all_aces)  # E8

    @property
    def deck_cards(self) -> Deck:
        return get_deck(self.deck, ALLOWED_DECKS)


@dataclass
class State:
    """The whole game, including the face-down order of every pile (hidden from players).

    Fields:

    - ``config``: the :class:`Config`.
    - ``piles``: per seat a ``deque`` of card ids, top first; E3 plays from the left, E6 adds at the
      right.
    - ``unseen``: per seat, how many cards at the top of the pile come from the deal and have
      never been face up. Their set is public (E2: everyone knows who got which suit; a stacked
      deal is treated alike), their order is not; every card below them was seen going there.
    - ``cards_in_play``: the cards dealt (sorted ids), for conservation checks.
    - ``aces``: the aces among them (E8 ``stop_on_all_aces``).
    - ``still_in``: per seat, ``False`` once he is a beggar (E5, E7).
    - ``leader``: the seat that played first in the current trick (E3).
    - ``trick_cards`` / ``trick_seats``: the cards on the table in this trick, in play order, and
      who played each.
    - ``round_start``: index in ``trick_cards`` where the newest round begins (E4: it decides).
    - ``rounds``: rounds in the current trick so far (1 + tie-break rounds).
    - ``queue`` / ``queue_pos``: the seats of the current round in playing order and the index of
      the next one to play.
    - ``tricks``: tricks finished (taken, or abandoned by an E5 draw).
    - ``beggars``: seats in the order they became beggars.
    - ``last_trick_cards`` / ``last_trick_seats`` / ``last_taker``: the previous trick and who took
      it (``NOBODY`` before the first), public, kept for views and rendering.
    - ``positions``: the position key at the start of every trick so far (E8 repetition).
    - ``over``, ``winner`` (seat or ``NOBODY``), ``cycle``, ``capped``, ``all_aces``: how the game
      ended.
    """

    config: Config
    piles: list[deque[int]]
    unseen: list[int]
    cards_in_play: tuple[int, ...]
    aces: tuple[int, ...]
    still_in: list[bool]
    leader: int = 0
    trick_cards: list[int] = field(default_factory=list)
    trick_seats: list[int] = field(default_factory=list)
    round_start: int = 0
    rounds: int = 1
    queue: list[int] = field(default_factory=list)
    queue_pos: int = 0
    tricks: int = 0
    beggars: list[int] = field(default_factory=list)
    last_trick_cards: list[int] = field(default_factory=list)
    last_trick_seats: list[int] = field(default_factory=list)
    last_taker: int = NOBODY
    positions: set[bytes] = field(default_factory=set)
    over: bool = False
    winner: int = NOBODY
    cycle: bool = False
    capped: bool = False
    all_aces: bool = False


@dataclass(frozen=True)
class View:
    """What one player knows (everything in Elgeta is public except the order of dealt cards).

    Seats are absolute; encoders make them relative. ``unseen[s]`` is the *set* (sorted ids) of
    the cards at the top of seat ``s``'s pile that nobody has seen yet; ``known[s]`` the cards
    below them, top first, which everyone saw going there (E6). ``trick`` is the current trick as
    ``(seat, card)`` in play order, its newest round starting at ``round_start``.
    """

    seat: int
    num_players: int
    deck: str
    to_act: int
    leader: int
    tricks: int
    rounds: int
    pile_sizes: tuple[int, ...]
    unseen: tuple[tuple[int, ...], ...]
    known: tuple[tuple[int, ...], ...]
    trick: tuple[tuple[int, int], ...]
    round_start: int
    last_trick: tuple[tuple[int, int], ...]
    last_taker: int
    still_in: tuple[bool, ...]
    beggars: tuple[int, ...]
    over: bool


@dataclass(frozen=True)
class Outcome:
    """How a game ended (E10, with seats; the env turns them into agent names).

    ``winner`` is a seat or ``NOBODY`` (a draw: E5 nobody can add, E8 cycle, or a capped game
    with a tie for most cards). ``cards`` are the pile sizes at the end.
    """

    winner: int
    tricks: int
    cycle: bool
    capped: bool
    all_aces: bool
    beggars: tuple[int, ...]
    cards: tuple[int, ...]


# ---------------------------------------------------------------------------------- the deal
def seat_suits(num_players: int, left_out: str | None = None) -> list[tuple[str, ...]]:
    """The suits each seat is dealt (E2); ``left_out`` is the unused suit with three players."""
    if num_players == 2:
        return list(TWO_PLAYER_SUITS)
    if num_players == 4:
        return [(s,) for s in SEAT_SUITS]
    return [(s,) for s in SEAT_SUITS if s != left_out]


def deal_piles(config: Config, rng: np.random.Generator) -> list[list[int]]:
    """A random deal (E2): suits per seat, each pile shuffled.

    Randomness, in order: with three players one ``rng.integers(4)`` picks the suit left out
    (index into ``SEAT_SUITS``); then one ``rng.permutation`` per seat, seat 0 first.
    """
    left_out = SEAT_SUITS[int(rng.integers(4))] if config.num_players == 3 else None
    ranks = [r for r in config.deck_cards.cards if r < 13]  # ranks of the deck, as in clubs
    piles = []
    for suits in seat_suits(config.num_players, left_out):
        cards = [make_card_rank(rank, suit) for suit in suits for rank in ranks]
        order = rng.permutation(len(cards))
        piles.append([cards[i] for i in order])
    return piles


def make_card_rank(rank_index: int, suit: str) -> int:
    """Card id from a rank index (0 = 2 … 12 = A) and a suit letter."""
    return SUITS.index(suit) * 13 + rank_index


def parse_piles(config: Config, piles: Any) -> list[list[int]]:
    """Validate stacked piles ``[[card texts, top first] per seat]`` (RULES §0, E2).

    The piles must hold exactly the cards in play: the whole deck with two or four players, the
    deck less one whole suit with three. How they are distributed is free (a random deal splits
    them by suit, E2; a stacked deal may not, e.g. the seed's examples), but every pile must have
    a card. Raises ``ValueError`` naming the problem.
    """
    n = config.num_players
    if isinstance(piles, str) or not isinstance(piles, Sequence) or len(piles) != n:
        raise ValueError(
            f"options['piles'] must be a list of {n} piles (one per seat, each a list of card "
            f"texts, top first), got {piles!r:.80}"
        )
    deck = config.deck_cards
    parsed: list[list[int]] = []
    for seat, pile in enumerate(piles):
        what = f"options['piles'][{seat}]"
        if isinstance(pile, str) or not isinstance(pile, Sequence):
            raise ValueError(f"{what} must be a list of card texts (top first), got {pile!r:.80}")
        cards = parse_cards(pile)
        foreign = [c for c in cards if c not in deck]
        if foreign:
            raise ValueError(
                f"{what} contains {cards_text(foreign)}, not in the {deck.name}-card deck "
                f"(ranks {' '.join(DECK_RANKS[deck.name])}, no jokers; E1)"
            )
        if not cards:
            raise ValueError(f"{what} is empty; every player starts with at least one card")
        parsed.append(cards)
    everything = [c for pile in parsed for c in pile]
    seen: set[int] = set()
    dupes = sorted({c for c in everything if c in seen or seen.add(c)})
    if dupes:
        raise ValueError(f"options['piles'] contain {cards_text(dupes)} more than once")
    missing = [c for c in deck.cards if c not in seen]
    if n == 3:
        suits_missing = {c // 13 for c in missing}
        whole_suit = [c for c in deck.cards if c // 13 in suits_missing]
        if len(suits_missing) != 1 or missing != whole_suit:
            raise ValueError(
                "with three players the piles must hold the deck less exactly one whole suit "
                f"(E2); missing: {cards_text(missing) or 'nothing'}"
            )
    elif missing:
        raise ValueError(
            f"options['piles'] must hold the whole {deck.name}-card deck (E2); missing: "
            f"{cards_text(missing)}"
        )
    return parsed


def new_deal(config: Config, rng: np.random.Generator | None = None, piles: Any = None) -> State:
    """The state at the start of a game: ``piles`` (stacked, validated) or a random deal (E2).

    ``player_0`` leads the first trick (E3).
    """
    if piles is not None:
        dealt = parse_piles(config, piles)
    elif rng is None:
        raise ValueError("new_deal needs an rng for a random deal, or stacked piles")
    else:
        dealt = deal_piles(config, rng)
    cards = tuple(sorted(c for pile in dealt for c in pile))
    state = State(
        config=config,
        piles=[deque(p) for p in dealt],
        unseen=[len(p) for p in dealt],
        cards_in_play=cards,
        aces=tuple(c for c in cards if c % 13 == 12),
        still_in=[True] * config.num_players,
    )
    _start_trick(state, 0)
    return state


def clone(state: State) -> State:
    """An independent copy (the position history is copied too: E8 needs it)."""
    return State(
        config=state.config,
        piles=[deque(p) for p in state.piles],
        unseen=list(state.unseen),
        cards_in_play=state.cards_in_play,
        aces=state.aces,
        still_in=list(state.still_in),
        leader=state.leader,
        trick_cards=list(state.trick_cards),
        trick_seats=list(state.trick_seats),
        round_start=state.round_start,
        rounds=state.rounds,
        queue=list(state.queue),
        queue_pos=state.queue_pos,
        tricks=state.tricks,
        beggars=list(state.beggars),
        last_trick_cards=list(state.last_trick_cards),
        last_trick_seats=list(state.last_trick_seats),
        last_taker=state.last_taker,
        positions=set(state.positions),
        over=state.over,
        winner=state.winner,
        cycle=state.cycle,
        capped=state.capped,
        all_aces=state.all_aces,
    )


# ---------------------------------------------------------------------------------- play
def to_act(state: State) -> int:
    """The seat that plays the next card, or ``NOBODY`` when the game is over."""
    return NOBODY if state.over else state.queue[state.queue_pos]


def legal_moves(state: State) -> list[str]:
    """``["play"]`` while the game runs (E3), else ``[]``."""
    return [] if state.over else [PLAY]


def apply(state: State, move: str = PLAY) -> int:
    """The player to act puts the top card of his pile on the table (E3); returns the card.

    Ends the round, the trick and the game as E4–E8 say when this was the round's last card.
    """
    if move != PLAY:
        raise ValueError(f"unknown move {move!r}; the only move in Elgeta is 'play' (E3)")
    if state.over:
        raise ValueError("the game is over; no move is legal")
    seat = state.queue[state.queue_pos]
    card = state.piles[seat].popleft()
    if state.unseen[seat]:
        state.unseen[seat] -= 1
    state.trick_cards.append(card)
    state.trick_seats.append(seat)
    state.queue_pos += 1
    if state.queue_pos == len(state.queue):
        _end_round(state)
    return card


def order_from(state: State, first: int) -> list[int]:
    """Seats still in, clockwise starting at ``first`` (E3)."""
    n = state.config.num_players
    return [s for s in ((first + k) % n for k in range(n)) if state.still_in[s]]


def _end_round(state: State) -> None:
    """E4: the newest round's single highest card takes the trick; a tie starts another round."""
    start = state.round_start
    newest = state.trick_cards[start:]
    best = max(c % 13 for c in newest)
    top = [s for c, s in zip(newest, state.trick_seats[start:], strict=True) if c % 13 == best]
    if len(top) == 1:
        _take(state, top[0])
        return
    able = []
    for seat in order_from(state, state.leader):  # E4: every player still in adds a card
        if state.piles[seat]:
            able.append(seat)
        else:  # E5: he must add a card and has none: a beggar at once, his cards stay
            state.still_in[seat] = False
            state.beggars.append(seat)
    if len(able) >= 2:
        state.round_start = len(state.trick_cards)
        state.rounds += 1
        state.queue = able
        state.queue_pos = 0
    elif len(able) == 1:  # E5: the only player who can add takes the trick (without adding)
        _take(state, able[0])
    else:  # E5: nobody can add: a draw; the cards stay in the trick
        state.tricks += 1
        _finish(state, NOBODY)


def _take(state: State, taker: int) -> None:
    """E6: the trick goes under the taker's pile in play order; then E7 and E8 are checked."""
    state.piles[taker].extend(state.trick_cards)
    state.last_trick_cards = state.trick_cards
    state.last_trick_seats = state.trick_seats
    state.last_taker = taker
    state.trick_cards = []
    state.trick_seats = []
    state.tricks += 1
    for seat in order_from(state, state.leader):  # E7, in playing order of the trick
        if not state.piles[seat]:
            state.still_in[seat] = False
            state.beggars.append(seat)
    if sum(state.still_in) == 1:  # E7: the last player with cards wins
        _finish(state, taker)
        return
    if state.config.stop_on_all_aces:
        holder = _ace_holder(state)
        if holder != NOBODY:  # E8 option
            state.all_aces = True
            _finish(state, holder)
            return
    key = position_key(taker, state.piles)
    if key in state.positions:  # E8: a repeated position never ends
        state.cycle = True
        _finish(state, NOBODY)
        return
    if state.tricks >= state.config.max_tricks:  # E8 cap
        state.capped = True
        _finish(state, most_cards(state.piles))
        return
    _start_trick(state, taker, key)


def _ace_holder(state: State) -> int:
    """The seat whose pile holds every ace in play, or ``NOBODY`` (E8 ``stop_on_all_aces``)."""
    for seat, pile in enumerate(state.piles):
        if pile and all(ace in pile for ace in state.aces):
            return seat
    return NOBODY


def most_cards(piles: Sequence[Sequence[int]]) -> int:
    """E8 cap: the seat with strictly the most cards, or ``NOBODY`` on a tie (a draw)."""
    sizes = [len(p) for p in piles]
    best = max(sizes)
    return sizes.index(best) if sizes.count(best) == 1 else NOBODY


def position_key(leader: int, piles: Sequence[Sequence[int]]) -> bytes:
    """The position at the start of a trick (E8): who leads and every pile in order."""
    key = bytearray((leader,))
    for pile in piles:
        key += bytes(pile)
        key.append(_SEPARATOR)
    return bytes(key)


def _start_trick(state: State, leader: int, key: bytes | None = None) -> None:
    state.positions.add(key if key is not None else position_key(leader, state.piles))
    state.leader = leader
    state.round_start = 0
    state.rounds = 1
    state.queue = order_from(state, leader)
    state.queue_pos = 0


def _finish(state: State, winner: int) -> None:
    state.over = True
    state.winner = winner
    state.queue = []
    state.queue_pos = 0


def rewards(state: State) -> list[float]:
    """E9: winner +1, every other player −1/(n−1); a draw (or a running game) all 0."""
    n = state.config.num_players
    if not state.over or state.winner == NOBODY:
        return [0.0] * n
    return [1.0 if s == state.winner else -1.0 / (n - 1) for s in range(n)]


def result(state: State) -> Outcome:
    """The outcome of a finished game (E10)."""
    if not state.over:
        raise ValueError("the game is not over yet")
    return Outcome(
        winner=state.winner,
        tricks=state.tricks,
        cycle=state.cycle,
        capped=state.capped,
        all_aces=state.all_aces,
        beggars=tuple(state.beggars),
        cards=tuple(len(p) for p in state.piles),
    )


# ---------------------------------------------------------------------------------- views
def view(state: State, seat: int) -> View:
    """What ``seat`` knows: everything except the order of the unseen dealt cards (E2, E6)."""
    counts = list(zip(state.piles, state.unseen))  # noqa: B905 - equal lengths by construction
    unseen = tuple([tuple(sorted(islice(pile, count))) for pile, count in counts])
    known = tuple([tuple(islice(pile, count, None)) for pile, count in counts])
    return View(
        seat=seat,
        num_players=state.config.num_players,
        deck=state.config.deck,
        to_act=to_act(state),
        leader=state.leader,
        tricks=state.tricks,
        rounds=state.rounds,
        pile_sizes=tuple(map(len, state.piles)),
        unseen=unseen,
        known=known,
        trick=tuple(zip(state.trick_seats, state.trick_cards)),  # noqa: B905
        round_start=state.round_start,
        last_trick=tuple(zip(state.last_trick_seats, state.last_trick_cards, strict=True)),
        last_taker=state.last_taker,
        still_in=tuple(state.still_in),
        beggars=tuple(state.beggars),
        over=state.over,
    )


# ---------------------------------------------------------------------------------- checks
def check_invariants(state: State) -> None:
    """Raise ``AssertionError`` naming any broken invariant (soak and tests)."""
    n = state.config.num_players
    on_table = sorted([c for p in state.piles for c in p] + state.trick_cards)
    assert on_table == list(state.cards_in_play), (
        f"cards not conserved: piles+trick hold {len(on_table)} cards "
        f"(expected {len(state.cards_in_play)} distinct)"
    )
    assert len(state.trick_cards) == len(state.trick_seats)
    for seat in range(n):
        assert 0 <= state.unseen[seat] <= len(state.piles[seat]), f"seat {seat} unseen count"
        assert state.still_in[seat] == (seat not in state.beggars), f"seat {seat} beggar status"
    assert len(set(state.beggars)) == len(state.beggars), "a beggar listed twice"
    if state.over:
        assert not state.queue, "a finished game has nobody to act"
        if state.winner != NOBODY:
            assert state.still_in[state.winner], "the winner is a beggar"
        if not (state.cycle or state.capped or state.all_aces) and state.winner != NOBODY:
            assert sum(state.still_in) == 1, "a normal win leaves exactly one player in (E7)"
        return
    assert sum(state.still_in) >= 2, "a running game has two or more players in"
    assert 0 <= state.queue_pos < len(state.queue), "queue position out of range"
    seat = state.queue[state.queue_pos]
    assert state.still_in[seat] and state.piles[seat], f"seat {seat} to act has no card"
    assert state.tricks < state.config.max_tricks, "trick cap passed"
    # every round is played by all players still in, from the leader (E3, E4; E5 removed those
    # who could not add)
    assert state.queue == order_from(state, state.leader), "the round is not everyone still in"
    newest = state.trick_seats[state.round_start :]
    assert newest == state.queue[: state.queue_pos], "the round's cards are not the queue's"


def simulate(
    config: Config, piles: Sequence[Sequence[int]], trace: list[tuple[int, int]] | None = None
) -> Outcome:
    """Play a whole game from dealt ``piles`` (card ids, top first) without building views.

    The fast path for studies: the same rules as :func:`apply` (tested card by card against the
    env), without the per-card bookkeeping of :class:`State`. ``trace``, if given, receives every
    ``(seat, card)`` in the order played.

    E8 repetition is first watched with Brent's cycle detection (one pile comparison per trick
    instead of a position key per trick: ~3× faster). Brent's method proves a cycle exists but
    finds it later than its first repetition, so a game that cycles, or reaches the cap (where an
    earlier repetition must be ruled out), is replayed exactly with every position kept. Both
    are rare; a game that ends otherwise cannot have repeated a position (it would never end).
    """
    if trace is not None:
        trace.clear()
    outcome = _simulate(config, piles, trace, exact=False)
    if outcome is None:
        if trace is not None:
            trace.clear()
        outcome = _simulate(config, piles, trace, exact=True)
    return outcome


def _simulate(
    config: Config,
    piles: Sequence[Sequence[int]],
    trace: list[tuple[int, int]] | None,
    exact: bool,
) -> Outcome | None:
    """:func:`simulate`'s loop; ``None`` when not ``exact`` and a cycle or the cap needs replay."""
    n = config.num_players
    decks = [deque(p) for p in piles]
    still = [True] * n
    beggars: list[int] = []
    rotations = [[(first + k) % n for k in range(n)] for first in range(n)]
    max_tricks = config.max_tricks
    aces = [c for p in piles for c in p if c % 13 == 12] if config.stop_on_all_aces else None
    positions = {position_key(0, decks)} if exact else None
    saved, saved_leader, power, lam = [d.copy() for d in decks], 0, 1, 1  # Brent (not exact)
    leader = 0
    tricks = 0
    cycle = capped = all_aces = False
    while True:
        active = [s for s in rotations[leader] if still[s]]
        trick: list[int] = []
        taker = _play_trick(decks, still, beggars, active, trick, trace)
        tricks += 1
        if taker == NOBODY:  # E5 draw, the cards stay in the trick
            winner = NOBODY
            break
        decks[taker].extend(trick)  # E6
        for s in active:  # E7
            if still[s] and not decks[s]:
                still[s] = False
                beggars.append(s)
        if sum(still) == 1:
            winner = taker
            break
        if aces is not None:
            holder = next(
                (s for s in range(n) if decks[s] and all(a in decks[s] for a in aces)), NOBODY
            )
            if holder != NOBODY:
                winner, all_aces = holder, True
                break
        if exact:
            key = position_key(taker, decks)
            if key in positions:
                winner, cycle = NOBODY, True
                break
            positions.add(key)
        elif taker == saved_leader and decks == saved:
            return None  # a cycle: replay exactly to find its first repetition
        if tricks >= max_tricks:
            if not exact:
                return None
            winner, capped = most_cards(decks), True
            break
        if not exact:
            if lam == power:
                saved, saved_leader, power, lam = [d.copy() for d in decks], taker, power * 2, 0
            lam += 1
        leader = taker
    return Outcome(
        winner=winner,
        tricks=tricks,
        cycle=cycle,
        capped=capped,
        all_aces=all_aces,
        beggars=tuple(beggars),
        cards=tuple(len(d) for d in decks),
    )


def _play_trick(
    decks: list[deque[int]],
    still: list[bool],
    beggars: list[int],
    active: list[int],
    trick: list[int],
    trace: list[tuple[int, int]] | None,
) -> int:
    """Play the rounds of one trick (E3–E5) into ``trick``; return the taker or ``NOBODY``.

    ``active`` are the seats still in, clockwise from the leader; E5 beggars are marked here.
    """
    contributors = active
    while True:
        best = -1
        top = NOBODY
        tie = False
        for s in contributors:
            card = decks[s].popleft()
            trick.append(card)
            if trace is not None:
                trace.append((s, card))
            rank = card % 13
            if rank > best:
                best, top, tie = rank, s, False
            elif rank == best:
                tie = True
        if not tie:  # E4
            return top
        contributors = []
        for s in active:  # E4: everyone still in adds a card; E5: or is a beggar at once
            if not still[s]:
                continue
            if decks[s]:
                contributors.append(s)
            else:
                still[s] = False
                beggars.append(s)
        if len(contributors) <= 1:  # E5: the only one able takes the trick; nobody: a draw
            return contributors[0] if contributors else NOBODY


#: the values of :func:`ending`: how a game ended
ENDINGS: tuple[str, ...] = ("play", "cycle", "cap")


def ending(result: Mapping[str, Any]) -> str:
    """How a finished game ended, from the env's ``infos[agent]["result"]`` (E10): ``"cycle"``
    (E8: a repeated position, a draw), ``"cap"`` (E8 ``max_tricks``) or ``"play"`` (E7 a
    winner, E5 nobody can add, or ``stop_on_all_aces``)."""
    if result.get("cycle"):
        return "cycle"
    if result.get("capped"):
        return "cap"
    return "play"


__all__ = [
    "ENDINGS",
    "NOBODY",
    "PLAY",
    "Config",
    "Outcome",
    "State",
    "View",
    "apply",
    "check_invariants",
    "clone",
    "deal_piles",
    "ending",
    "legal_moves",
    "new_deal",
    "parse_piles",
    "result",
    "rewards",
    "simulate",
    "to_act",
    "view",
]
