"""How the replay viewer shows Elgeta (found by convention: ``DISPLAY`` in
``experiments/viewer/displays/<game>.py``; see :mod:`experiments.viewer.games`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from experiments.viewer.games import GameDisplay, Row, _symbols
from kiaule_env.cards import CARD_SYMBOLS, parse_cards
from kiaule_env.core.records import GameRecord


def _elgeta_piles(views: Sequence[Any], record: GameRecord) -> list[list[int]]:
    """Each pile top first as the onlooker knows it: the unseen cards keep their order from the
    deal (``options["piles"]`` of the record; nobody has moved them), the seen ones below."""
    piles = (record.options or {}).get("piles")
    v = views[0]
    out = []
    for s in range(len(views)):
        unseen = set(v.unseen[s])
        if piles is not None and s < len(piles):
            dealt = [c for c in parse_cards(piles[s]) if c in unseen]
            top = dealt if len(dealt) == len(unseen) else sorted(unseen)
        else:
            top = sorted(unseen)
        out.append(top + list(v.known[s]))
    return out


def _elgeta_seen(
    views: Sequence[Any], seat: int, hands: Sequence[Sequence[int]]
) -> list[list[str | None]]:
    """Everybody knows every pile but the order of its never-seen top (E2, E6)."""
    v = views[seat]
    return [[None] * len(v.unseen[s]) + _symbols(v.known[s]) for s in range(len(views))]


def _elgeta_note(views: Sequence[Any], seat: int) -> str | None:
    """The card the ``play`` turned up: the newest card of the trick, or of the trick it just
    completed."""
    v = views[seat]
    for trick in (v.trick, v.last_trick):
        if trick and trick[-1][0] == seat:
            return CARD_SYMBOLS[trick[-1][1]]
    return None


def _elgeta_extras(views: Sequence[Any], seat: int | None, record: GameRecord) -> list[Row]:
    v = views[0]
    rows: list[Row] = [
        {
            "label": "trick",
            "text": f"{v.tricks + 1}"
            + (f", tie-break round {v.rounds - 1}" if v.rounds > 1 else ""),
            "cards": [],
        }
    ]
    for i, (s, c) in enumerate(v.trick):
        newest = " (newest round)" if i >= v.round_start and v.round_start else ""
        rows.append({"label": f"player_{s}{newest}", "text": "", "cards": [CARD_SYMBOLS[c]]})
    if v.last_taker >= 0:  # its cards: the page's last trick row, under who played them
        rows.append({"label": "last trick taken by", "text": f"player_{v.last_taker}", "cards": []})
    return rows


def _elgeta_notes(views: Sequence[Any]) -> list[str]:
    v = views[0]
    notes = []
    for s in range(len(views)):
        parts = [f"pile {v.pile_sizes[s]} ({len(v.unseen[s])} never seen)"]
        if s == v.leader and not v.over:
            parts.append("leads")
        if not v.still_in[s]:
            parts.append("beggar")
        notes.append(", ".join(parts))
    return notes


DISPLAY = GameDisplay(
    name="elgeta",
    title="Elgeta",
    unit_name="trick",
    unit=lambda v: v.tricks,
    extras=_elgeta_extras,
    notes=_elgeta_notes,
    card_fields=frozenset({"unseen", "known"}),
    play_fields=frozenset({"trick", "last_trick"}),
    hands=_elgeta_piles,
    seen=_elgeta_seen,
    move_note=_elgeta_note,
    seat_fields=frozenset({"to_act", "leader", "last_taker"}),
)
