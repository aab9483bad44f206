"""How the replay viewer shows Kiauliaganys (found by convention: ``DISPLAY`` in
``experiments/viewer/displays/<game>.py``; see :mod:`experiments.viewer.games`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from experiments.viewer.games import GameDisplay, Row, _symbols
from kiaule_env.cards import SUIT_SYMBOLS, SUITS
from kiaule_env.core.records import GameRecord
from kiaule_env.kiauliaganys.rules import OVER


def _turn_text(v: Any) -> str:
    """The turn under way and the turns played; at the end only the turns played (the
    outcome's ``turns``), not a turn that never starts."""
    if v.phase == OVER:
        return f"{v.turns} played, game over"
    return f"{v.turns + 1} ({v.turns} played)" + (", the last" if v.last_turn else "")


def _kiau_extras(views: Sequence[Any], seat: int | None, record: GameRecord) -> list[Row]:
    v = views[0]
    req = v.required_suit
    must = "any suit" if req < 0 else f"{SUIT_SYMBOLS[SUITS[req]]} ({SUITS[req]})"
    to_act = f"player_{v.to_act}" if v.to_act >= 0 else "nobody"
    rows: list[Row] = [
        {"label": "must find", "text": f"{must}, {to_act} to act", "cards": []},
        {
            "label": "open fund",
            "text": f"{len(v.fund)} card(s), top shown last",
            "cards": _symbols(v.fund[-8:]),
        },
        {"label": "face down", "text": f"{v.face_down} card(s)", "cards": []},
        {"label": "turn", "text": _turn_text(v), "cards": []},
    ]
    if any(v.match_years):
        rows.append(
            {
                "label": "years",
                "text": " · ".join(f"player_{s}: {y}" for s, y in enumerate(v.match_years)),
                "cards": [],
            }
        )
    return rows


def _kiau_notes(views: Sequence[Any]) -> list[str]:
    v = views[0]
    notes = []
    for s in range(len(views)):
        parts = []
        if s == v.dealer:
            parts.append("dealer")
        if v.out[s]:
            parts.append("out")
        if s == v.loser:
            parts.append("SWINEHERD")
        if s == v.caught_by_tail:
            parts.append("caught the pig by the tail")
        if v.face_up[s]:
            parts.append("face up: " + " ".join(_symbols(v.face_up[s])))
        notes.append(", ".join(parts))
    return notes


DISPLAY = GameDisplay(
    name="kiauliaganys",
    title="Kiauliaganys",
    unit_name="turn",
    unit=lambda v: v.deals * 100_000 + v.turns,
    extras=_kiau_extras,
    notes=_kiau_notes,
    card_fields=frozenset({"hand", "fund", "face_up"}),
    suit_fields=frozenset({"required_suit"}),
    seat_fields=frozenset({"to_act", "dealer", "loser", "caught_by_tail"}),
    phase_names=("match", "drag", "over"),  # MATCH, DRAG, OVER of the rules
)
