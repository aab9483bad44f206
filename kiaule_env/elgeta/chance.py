"""Elgeta's deal as chance nodes, for the OpenSpiel bridge (``kiaule_env.openspiel``): the
deal the descriptor's ``OpenSpielBridge(deal=...)`` names, since an Elgeta deal is not one deck
dealt card by card (E2: each seat gets its own suits). No pyspiel import here."""

from __future__ import annotations

from typing import Any

from kiaule_env.cards import CARD_TEXTS, SUITS
from kiaule_env.elgeta import rules as elgeta_rules


class ElgetaDeal:
    """Elgeta's deal (E2) as chance nodes: with three players first the suit left out (chance
    action ``0..3`` = ``SEAT_SUITS`` index, uniform), then every seat's pile card by card, top
    first, each uniform among that seat's cards not drawn yet (chance action = the card's index
    in the deck); the reset options are ``{"piles": …}``. The same distribution as
    ``rules.deal_piles``."""

    def __init__(self, engine: Any):
        config = self.config = engine.config
        self.deck = engine.deck
        self.n = config.num_players
        self.three = self.n == 3
        self.max_outcomes = max(self.deck.size, 4)
        self.length = int(self.three) + sum(len(p) for p in self._seat_cards(self._left(None)))

    def _left(self, drawn: list[int] | None) -> str | None:
        if not self.three:
            return None
        return elgeta_rules.SEAT_SUITS[drawn[0]] if drawn else elgeta_rules.SEAT_SUITS[0]

    def _seat_cards(self, left_out: str | None) -> list[list[int]]:
        """Deck indices of each seat's cards, canonical order."""
        ranks = [r for r in self.deck.cards if r < 13]
        out = []
        for suits in elgeta_rules.seat_suits(self.n, left_out):
            cards = [SUITS.index(s) * 13 + r for s in suits for r in ranks]
            out.append(sorted(int(self.deck.position[c]) for c in cards))
        return out

    def _piles(self, drawn: list[int]) -> tuple[list[list[int]], list[list[int]]]:
        """(each seat's deck indices, each seat's drawn pile so far)."""
        cards = drawn[1:] if self.three else drawn
        seats = self._seat_cards(self._left(drawn))
        piles, start = [], 0
        for seat in seats:
            piles.append(cards[start : start + len(seat)])
            start += len(seat)
        return seats, piles

    def outcomes(self, drawn: list[int]) -> list[int]:
        if self.three and not drawn:
            return [0, 1, 2, 3]
        seats, piles = self._piles(drawn)
        for seat, pile in zip(seats, piles, strict=True):
            if len(pile) < len(seat):
                taken = set(pile)
                return [i for i in seat if i not in taken]
        return []

    def done(self, drawn: list[int]) -> bool:
        return len(drawn) == self.length

    def options(self, drawn: list[int]) -> dict[str, Any]:
        _, piles = self._piles(drawn)
        return {"piles": [[CARD_TEXTS[self.deck.cards[i]] for i in pile] for pile in piles]}

    def text(self, drawn: list[int], action: int) -> str:
        if self.three and not drawn:
            return f"leave out {elgeta_rules.SEAT_SUITS[action]}"
        seats, piles = self._piles(drawn)
        seat = next(s for s, (c, p) in enumerate(zip(seats, piles, strict=True)) if len(p) < len(c))
        return f"deal {CARD_TEXTS[self.deck.cards[action]]} to player_{seat}"
