"""The shared card core of RULES §0: card ids, decks, rank orders, text <-> card, points tables.

A card is a small ``int`` id, the same in every game and every deck:

* ``suit_index * 13 + rank_index`` for the 52 suited cards, with suits ``C D H S`` (index 0..3)
  and ranks ``2 3 4 5 6 7 8 9 10 J Q K A`` (index 0..12);
* ``52`` is the red joker ``RJ`` and ``53`` the black joker ``BJ``.

Games keep their own rank *order* (Kozel's 10 ranks between K and A) as a strength table indexed
by card id, so comparing two cards is one array lookup. Decks are named as in RULES §0 (``"32"``,
``"36"``, ``"52"``, ``"54"``); :class:`Deck` maps card ids to compact positions for encoders.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

SUITS: str = "CDHS"
RANKS: tuple[str, ...] = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUIT_SYMBOLS: dict[str, str] = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
SUIT_NAMES: dict[str, str] = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}

NUM_SUITED = 52
RED_JOKER = 52
BLACK_JOKER = 53
NUM_CARD_IDS = 54
JOKER_TEXTS: dict[int, str] = {RED_JOKER: "RJ", BLACK_JOKER: "BJ"}

_RANK_INDEX: dict[str, int] = {r: i for i, r in enumerate(RANKS)}
_SUIT_INDEX: dict[str, int] = {s: i for i, s in enumerate(SUITS)}


def make_card(rank: str, suit: str) -> int:
    """Card id of ``rank`` (``"2"``..``"A"``) and ``suit`` (``"C"``, ``"D"``, ``"H"``, ``"S"``)."""
    return _SUIT_INDEX[suit] * 13 + _RANK_INDEX[rank]


def is_joker(card: int) -> bool:
    return card >= NUM_SUITED


def suit_index(card: int) -> int:
    """Suit index 0..3 (C D H S); jokers have no suit and give -1."""
    return -1 if card >= NUM_SUITED else card // 13


def rank_index(card: int) -> int:
    """Rank index 0..12 (2..A); jokers give -1."""
    return -1 if card >= NUM_SUITED else card % 13


def suit_of(card: int) -> str:
    """Suit letter of a suited card; ``ValueError`` for a joker."""
    if card >= NUM_SUITED:
        raise ValueError(f"a joker ({card_text(card)}) has no suit")
    return SUITS[card // 13]


def rank_of(card: int) -> str:
    """Rank text of a suited card; ``ValueError`` for a joker."""
    if card >= NUM_SUITED:
        raise ValueError(f"a joker ({card_text(card)}) has no rank")
    return RANKS[card % 13]


# Precomputed texts: rendering is on the hot path of legal_moves and render.
CARD_TEXTS: tuple[str, ...] = tuple(
    [RANKS[c % 13] + SUITS[c // 13] for c in range(NUM_SUITED)] + ["RJ", "BJ"]
)
CARD_SYMBOLS: tuple[str, ...] = tuple(
    [RANKS[c % 13] + SUIT_SYMBOLS[SUITS[c // 13]] for c in range(NUM_SUITED)] + ["RJ", "BJ"]
)
_TEXT_TO_CARD: dict[str, int] = {t: c for c, t in enumerate(CARD_TEXTS)}


def card_text(card: int) -> str:
    """ASCII text of a card (RULES §0): rank then suit, ``10H``, ``QS``; jokers ``RJ``/``BJ``."""
    if not 0 <= card < NUM_CARD_IDS:
        raise ValueError(f"card id {card!r} out of range 0..{NUM_CARD_IDS - 1}")
    return CARD_TEXTS[card]


def card_symbol(card: int) -> str:
    """Display text with suit symbols (``10♥``); jokers stay ``RJ``/``BJ``."""
    return CARD_SYMBOLS[card]


def parse_card(text: str) -> int:
    """Parse one card text, case-insensitively (``"10h"``, ``" QS"``, ``"rj"``).

    Raises ``ValueError`` saying what was wrong and what is allowed.
    """
    if not isinstance(text, str):
        raise ValueError(f"a card must be given as text such as '10H' or 'QS', got {text!r}")
    key = text.strip().upper()
    card = _TEXT_TO_CARD.get(key)
    if card is not None:
        return card
    if key.startswith("1") and key[:2] != "10" and len(key) == 2 and key[1] in SUITS:
        hint = " (ten is written '10', e.g. '10H')"
    elif key and key[-1] not in SUITS and key not in ("RJ", "BJ"):
        hint = f" (the suit must be one of {', '.join(SUITS)})"
    else:
        hint = f" (the rank must be one of {' '.join(RANKS)})"
    raise ValueError(
        f"malformed card text {text!r}{hint}; a card is rank then suit like '10H', 'QS', '6C', "
        "or a joker 'RJ'/'BJ'"
    )


def parse_cards(cards: str | Iterable[str | int]) -> list[int]:
    """Parse a space-separated string or a sequence of card texts (ints pass through)."""
    items = cards.split() if isinstance(cards, str) else list(cards)
    out = []
    for item in items:
        if isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            card_text(int(item))  # range check
            out.append(int(item))
        else:
            out.append(parse_card(item))
    return out


def cards_text(cards: Iterable[int]) -> str:
    """Space-separated ASCII texts, in the given order."""
    return " ".join(CARD_TEXTS[c] for c in cards)


DECK_RANKS: dict[str, tuple[str, ...]] = {
    "32": RANKS[5:],  # 7..A
    "36": RANKS[4:],  # 6..A
    "52": RANKS,
    "54": RANKS,
}


@dataclass(frozen=True)
class Deck:
    """A named deck of RULES §0 with a compact position for every card it holds.

    ``cards`` lists the deck's card ids in canonical order (by suit C D H S, then rank low to
    high, jokers last). ``position[card_id]`` is the card's index in ``cards`` or -1.
    """

    name: str
    cards: tuple[int, ...]
    position: np.ndarray = field(repr=False, compare=False)

    @property
    def size(self) -> int:
        return len(self.cards)

    @property
    def ranks(self) -> tuple[str, ...]:
        """Rank texts the deck holds, low to high (for a named deck: ``DECK_RANKS[name]``)."""
        return tuple(RANKS[r] for r in sorted({c % 13 for c in self.cards if c < NUM_SUITED}))

    def __contains__(self, card: int) -> bool:
        return 0 <= card < NUM_CARD_IDS and self.position[card] >= 0

    def parse_permutation(self, cards: Sequence[str | int], what: str = "deck") -> list[int]:
        """Validate that ``cards`` (texts, top first) is a permutation of this deck.

        Raises ``ValueError`` naming the problem: wrong length, unknown text, a card not in the
        deck, a duplicate or a missing card.
        """
        if isinstance(cards, str) or not isinstance(cards, Sequence):
            raise ValueError(
                f"{what} must be a list of card texts (top first), got {type(cards).__name__}"
            )
        parsed = parse_cards(cards)
        foreign = [c for c in parsed if c not in self]
        if foreign:
            raise ValueError(
                f"{what} contains {cards_text(foreign)}, not in the {self.name}-card deck "
                f"(ranks {' '.join(self.ranks)}"
                f"{', jokers RJ BJ' if self.name == '54' else ''})"
            )
        dupes = [c for c, k in Counter(parsed).items() if k > 1]
        if dupes:
            raise ValueError(f"{what} contains {cards_text(dupes)} more than once")
        if len(parsed) != self.size:
            missing = [c for c in self.cards if c not in set(parsed)]
            raise ValueError(
                f"{what} has {len(parsed)} cards but the {self.name}-card deck has {self.size}; "
                f"missing: {cards_text(missing)}"
            )
        return parsed

    def shuffled(self, rng: np.random.Generator) -> list[int]:
        """A uniformly shuffled copy of the deck (top first)."""
        order = rng.permutation(self.size)
        return [self.cards[i] for i in order]


def _build_deck(name: str) -> Deck:
    ranks = DECK_RANKS[name]
    cards = [make_card(r, s) for s in SUITS for r in ranks]
    if name == "54":
        cards += [RED_JOKER, BLACK_JOKER]
    return deck_of(cards, name)


def deck_of(cards: Sequence[int], name: str | None = None) -> Deck:
    """A :class:`Deck` of the given card ids in the given (canonical) order.

    For decks that are not one of the named ones, such as Pig's top-n-ranks deck (P1); the name
    defaults to the card count (it only appears in messages: "not in the 16-card deck").
    """
    cards = [int(c) for c in cards]
    position = np.full(NUM_CARD_IDS, -1, dtype=np.int64)
    position[cards] = np.arange(len(cards))
    return Deck(name=name or str(len(cards)), cards=tuple(cards), position=position)


DECKS: dict[str, Deck] = {name: _build_deck(name) for name in ("32", "36", "52", "54")}


def get_deck(name: str | int, allowed: Iterable[str] = ("32", "36", "52", "54")) -> Deck:
    """The deck named ``name`` (``"36"`` or ``36``), if ``allowed`` for the game."""
    key = str(name)
    allowed = tuple(allowed)
    if key not in allowed:
        raise ValueError(f"deck={name!r} is not allowed here; choose one of {', '.join(allowed)}")
    return DECKS[key]


def rank_strength_table(order_low_to_high: Sequence[str]) -> np.ndarray:
    """Strength of every card id for a rank order (higher beats lower); -1 for absent ranks.

    Jokers get -1 too; games that rank jokers set them explicitly.
    """
    table = np.full(NUM_CARD_IDS, -1, dtype=np.int64)
    for strength, rank in enumerate(order_low_to_high):
        for s in SUITS:
            table[make_card(rank, s)] = strength
    return table


#: Rank orders per game, low to high.
STANDARD_ORDER: tuple[str, ...] = RANKS  # Elgeta (E3), Pig rank removal (P1/P5)
KOZEL_ORDER: tuple[str, ...] = ("6", "7", "8", "9", "J", "Q", "K", "10", "A")  # K2

#: Card points / pips per card id.
_HONOURS = {"A": 11, "10": 10, "K": 4, "Q": 3, "J": 2}


def points_table(face_value_numerals: bool = False) -> np.ndarray:
    """Points per card id: A 11, 10 10, K 4, Q 3, J 2, others 0 (K11, G9), jokers 0.

    With ``face_value_numerals`` the numerals 2–9 count their face value (G9 ``pips="face"``).
    """
    table = np.zeros(NUM_CARD_IDS, dtype=np.int64)
    for s in SUITS:
        for r in RANKS:
            value = _HONOURS.get(r, 0)
            if face_value_numerals and r.isdigit():
                value = int(r)
            table[make_card(r, s)] = value
    return table


CARD_POINTS: np.ndarray = points_table()
FACE_PIPS: np.ndarray = points_table(face_value_numerals=True)
