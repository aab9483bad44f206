"""Kiauliaganys moves (RULES §2, G4–G6): the move kinds, :class:`Move` and its text, and
:func:`parse_move`; pure values, no game state (:mod:`kiaule_env.kiauliaganys.rules` re-exports
them)."""

from __future__ import annotations

from typing import NamedTuple

from kiaule_env.cards import CARD_TEXTS, NUM_SUITED, SUITS, parse_card

# Move kinds.
PLAY = 0  # G4/G5 `play C`
SEARCH = 1  # G4 `search`
TAKE = 2  # G5 `take`
DRAG_CARD = 3  # G6 `drag C` / `drag RJ H`
DRAG_BLIND = 4  # G6 `drag blind`


class Move(NamedTuple):
    """One decision: ``kind`` (PLAY, SEARCH, TAKE, DRAG_CARD, DRAG_BLIND), the card (-1 if none)
    and, for a dragged joker, the named suit 0..3 (-1 otherwise)."""

    kind: int
    card: int = -1
    suit: int = -1

    @property
    def text(self) -> str:
        """The move text of RULES §2: ``play 10H``, ``search``, ``take``, ``drag QS``,
        ``drag RJ H``, ``drag blind``."""
        kind = self.kind
        if kind == PLAY:
            return "play " + CARD_TEXTS[self.card]
        if kind == SEARCH:
            return "search"
        if kind == TAKE:
            return "take"
        if kind == DRAG_BLIND:
            return "drag blind"
        if self.suit >= 0:
            return f"drag {CARD_TEXTS[self.card]} {SUITS[self.suit]}"
        return "drag " + CARD_TEXTS[self.card]


SEARCH_MOVE = Move(SEARCH)
TAKE_MOVE = Move(TAKE)
BLIND_MOVE = Move(DRAG_BLIND)


def parse_move(text: str) -> Move:
    """Parse a move text (case-insensitive); ``ValueError`` explaining the grammar otherwise."""
    tokens = text.strip().upper().split() if isinstance(text, str) else []
    grammar = (
        "moves are 'play C', 'search', 'take', 'drag C', 'drag RJ H' (a joker names a suit) "
        "or 'drag blind'"
    )
    if tokens == ["SEARCH"]:
        return SEARCH_MOVE
    if tokens == ["TAKE"]:
        return TAKE_MOVE
    if tokens == ["DRAG", "BLIND"]:
        return BLIND_MOVE
    if len(tokens) == 2 and tokens[0] == "PLAY":
        return Move(PLAY, parse_card(tokens[1]))
    if len(tokens) in (2, 3) and tokens[0] == "DRAG":
        card = parse_card(tokens[1])
        if card >= NUM_SUITED:
            if len(tokens) != 3 or tokens[2] not in SUITS:
                raise ValueError(
                    f"a dragged joker must name a suit (C D H S): 'drag {tokens[1]} H'"
                )
            return Move(DRAG_CARD, card, SUITS.index(tokens[2]))
        if len(tokens) == 2:
            return Move(DRAG_CARD, card)
    raise ValueError(f"cannot read move {text!r}; {grammar}")
