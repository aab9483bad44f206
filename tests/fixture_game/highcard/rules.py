"""High card's rules (``RULES.md``, H1–H7): configuration, state, legal moves, moves, views.

A pure rules module, as a game's ``kiaule_env/<game>/rules.py`` is: it knows cards, seats and
moves, and imports no RL library. Moves are card ids; the codec (``encoding.py``) maps them to
action indices.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kiaule_env.cards import Deck, deck_of, make_card, parse_card, suit_index
from kiaule_env.core.options import check_choice, check_int

NUM_PLAYERS = 2  # H1
#: H1: 9 10 J Q K A of hearts and spades, canonical order (hearts first, each rank low to high)
DECK: Deck = deck_of([make_card(r, s) for s in "HS" for r in ("9", "10", "J", "Q", "K", "A")], "12")
MAX_HAND = DECK.size // NUM_PLAYERS
NOBODY = -1


@dataclass(frozen=True)
class Config:
    """The constructor keywords of a High card game, validated (H1, H2)."""

    num_players: int = NUM_PLAYERS
    deck: str = DECK.name
    hand_size: int = 4

    def __post_init__(self) -> None:
        check_int("num_players", self.num_players, NUM_PLAYERS, NUM_PLAYERS)  # H1
        object.__setattr__(self, "num_players", int(self.num_players))
        check_choice("deck", self.deck, (DECK.name,))  # H1
        hand_size = check_int("hand_size", self.hand_size, 1, MAX_HAND)  # H2
        object.__setattr__(self, "hand_size", hand_size)


@dataclass
class State:
    """The whole game, hidden cards included.

    ``hands``: per seat, sorted card ids; ``stock``: the undealt cards, top first (H2);
    ``trick``: the current trick's ``(seat, card)`` plays in order; ``leader``: who leads it;
    ``to_act``: the seat to play (``NOBODY`` once over); ``tricks``: tricks taken per seat;
    ``played``: the cards of finished tricks in play order; ``voids``: per seat, the suit
    indices he has shown he lacks (H7); ``step_info``: what the latest move adds to ``info``.
    """

    config: Config
    hands: list[list[int]]
    stock: list[int]
    trick: list[tuple[int, int]] = field(default_factory=list)
    leader: int = 0
    to_act: int = 0
    tricks: list[int] = field(default_factory=lambda: [0] * NUM_PLAYERS)
    played: list[int] = field(default_factory=list)
    voids: list[set[int]] = field(default_factory=lambda: [set() for _ in range(NUM_PLAYERS)])
    step_info: dict[str, Any] | None = None


@dataclass(frozen=True)
class View:
    """What one seat may know (H7): its hand, the public play, the public voids."""

    seat: int
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    trick: tuple[tuple[int, int], ...]
    leader: int
    to_act: int
    tricks: tuple[int, ...]
    played: tuple[int, ...]
    voids: tuple[frozenset[int], ...]
    hand_size: int


def new_deal(config: Config, order: Sequence[int]) -> State:
    """A fresh game from a deck ``order`` (top first): H2's deal, ``player_0`` to lead (H3)."""
    dealt = NUM_PLAYERS * config.hand_size
    hands = [sorted(order[s:dealt:NUM_PLAYERS]) for s in range(NUM_PLAYERS)]
    return State(config=config, hands=hands, stock=list(order[dealt:]))


def is_over(state: State) -> bool:
    return state.to_act == NOBODY


def legal_moves(state: State) -> list[int]:
    """The cards the seat to act may play, ascending (H4: follow the led suit if able)."""
    if is_over(state):
        return []
    hand = state.hands[state.to_act]
    if state.trick:
        led = suit_index(state.trick[0][1])
        follow = [c for c in hand if suit_index(c) == led]
        if follow:
            return follow
    return list(hand)


def trick_winner(trick: Sequence[tuple[int, int]]) -> int:
    """H5: the seat whose card of the led suit is highest."""
    led = suit_index(trick[0][1])
    return max((c, s) for s, c in trick if suit_index(c) == led)[1]


def apply(state: State, card: int) -> list[float] | None:
    """Play ``card`` (legal) for the seat to act; each seat's reward at the end (H6), else None."""
    seat = state.to_act
    if state.trick and suit_index(card) != suit_index(state.trick[0][1]):
        state.voids[seat].add(suit_index(state.trick[0][1]))  # H7: he shows a void
    state.hands[seat].remove(card)
    state.trick.append((seat, card))
    state.step_info = None
    if len(state.trick) < NUM_PLAYERS:
        state.to_act = (seat + 1) % NUM_PLAYERS
        return None
    winner = trick_winner(state.trick)
    state.tricks[winner] += 1
    state.played += [c for _, c in state.trick]
    state.trick = []
    state.leader = state.to_act = winner  # H3
    if state.hands[winner]:
        return None
    state.to_act = NOBODY  # H6
    return rewards(state)


def rewards(state: State) -> list[float]:
    """H6: +1 for more tricks, −1 for fewer, 0 each on equal tricks."""
    a, b = state.tricks
    sign = float(np.sign(a - b))
    return [sign, -sign]


def result(state: State) -> dict[str, Any]:
    """The outcome (H6): tricks per seat and the winner (None on equal tricks)."""
    a, b = state.tricks
    return {"tricks": [a, b], "winner": None if a == b else int(b > a)}


def ending(result: dict[str, Any]) -> str:
    """Every game is decided by play: it has no rule cap."""
    return "play"


def view(state: State, seat: int) -> View:
    return View(
        seat=seat,
        hand=tuple(state.hands[seat]),
        hand_sizes=tuple(len(h) for h in state.hands),
        trick=tuple(state.trick),
        leader=state.leader,
        to_act=state.to_act,
        tricks=tuple(state.tricks),
        played=tuple(state.played),
        voids=tuple(frozenset(v) for v in state.voids),
        hand_size=state.config.hand_size,
    )


def clone(state: State) -> State:
    return copy.deepcopy(state)


def card_locations(state: State) -> dict[str, tuple[int, ...]]:
    """Where every card is: hands sorted, the stock, the trick and the played cards in order."""
    places = {f"hand {s}": tuple(sorted(h)) for s, h in enumerate(state.hands)}
    places["stock"] = tuple(state.stock)
    places["trick"] = tuple(c for _, c in state.trick)
    places["played"] = tuple(state.played)
    return places


def check_invariants(state: State) -> None:
    """Raise ``AssertionError`` naming a broken invariant."""
    cards = [c for h in state.hands for c in h] + state.stock + state.played
    cards += [c for _, c in state.trick]
    if sorted(cards) != sorted(DECK.cards):
        raise AssertionError(f"the cards are not the deck once each: {sorted(cards)}")
    if sum(state.tricks) * NUM_PLAYERS != len(state.played):
        raise AssertionError("tricks taken do not match the played cards")
    sizes = [len(h) for h in state.hands]
    expected = state.config.hand_size - sum(state.tricks)
    for s, size in enumerate(sizes):
        in_trick = any(seat == s for seat, _ in state.trick)
        if size != expected - in_trick:
            raise AssertionError(f"seat {s} holds {size} cards, expected {expected - in_trick}")
    for s, voids in enumerate(state.voids):
        if any(suit_index(c) in voids for c in state.hands[s]):
            raise AssertionError(f"seat {s} holds a card of a suit he showed void (H7)")
    if not is_over(state) and state.to_act != (state.leader + len(state.trick)) % NUM_PLAYERS:
        raise AssertionError("the seat to act is not the next after the trick's plays")


def parse_move(state: State, text: str) -> int:
    """The card of a ``play <card>`` text, if legal now; ``ValueError`` naming the legal ones."""
    word, _, card_text = text.strip().partition(" ")
    if word != "play":
        raise ValueError(f"move {text!r} is not 'play <card>'")
    card = parse_card(card_text.strip())
    legal = legal_moves(state)
    if card not in legal:
        raise ValueError(f"move {text!r} is not legal now (H4)")
    return card


def sample_state(v: View, config: Config, rng: np.random.Generator) -> State:
    """A state drawn exactly uniformly from those consistent with ``v`` (determinization).

    The unseen cards (neither in the seat's hand nor played) are split between the other hand
    and the stock: the other hand is a uniform subset of the unseen cards of the suits he has not
    shown void (H7), the stock a uniform order of the rest. Every consistent state has one such
    split and the same number of stock orders, so the draw is uniform.
    """
    other = 1 - v.seat
    seen = set(v.hand) | set(v.played) | {c for _, c in v.trick}
    unseen = [c for c in DECK.cards if c not in seen]
    allowed = [c for c in unseen if suit_index(c) not in v.voids[other]]
    size = v.hand_sizes[other]
    picked = {allowed[i] for i in rng.choice(len(allowed), size=size, replace=False)}
    stock = [c for c in unseen if c not in picked]
    hands: list[list[int]] = [[], []]
    hands[v.seat] = list(v.hand)
    hands[other] = sorted(picked)
    return State(
        config=config,
        hands=hands,
        stock=[stock[i] for i in rng.permutation(len(stock))],
        trick=list(v.trick),
        leader=v.leader,
        to_act=v.to_act,
        tricks=list(v.tricks),
        played=list(v.played),
        voids=[set(s) for s in v.voids],
    )
