"""How the replay viewer shows Pig (found by convention: ``DISPLAY`` in
``experiments/viewer/displays/<game>.py``; see :mod:`experiments.viewer.games`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from experiments.viewer.games import GameDisplay, Row
from kiaule_env.cards import CARD_SYMBOLS, RANKS
from kiaule_env.core.records import GameRecord


def _pig_extras(views: Sequence[Any], seat: int | None, record: GameRecord) -> list[Row]:
    v = views[0]
    rows: list[Row] = [
        {"label": "round", "text": f"{v.round_index + 1} ({v.phase})", "cards": []},
        {"label": "ranks", "text": " ".join(RANKS[r] for r in v.ranks), "cards": []},
        {"label": "passes", "text": f"{v.passes}", "cards": []},
    ]
    if v.touched:
        rows.append(
            {
                "label": v.nose_word,
                "text": ", ".join(f"player_{s}" for s in v.touched),
                "cards": [],
            }
        )
    if v.stock_size or v.discard_size:
        rows.append(
            {"label": "stock", "text": f"{v.stock_size}, discard {v.discard_size}", "cards": []}
        )
    if seat is not None:
        mine = views[seat]
        if mine.last_passed >= 0 or mine.last_received >= 0:
            shown = [CARD_SYMBOLS[c] for c in (mine.last_passed, mine.last_received) if c >= 0]
            rows.append({"label": "last passed / received", "text": "", "cards": shown})
    return rows


def _pig_notes(views: Sequence[Any]) -> list[str]:
    v = views[0]
    notes = []
    for s in range(len(views)):
        parts = []
        if s not in v.seats_in:
            parts.append("out")
        if s == v.dealer:
            parts.append("dealer")
        if s in v.touched:
            parts.append(f"{v.nose_word} #{v.touched.index(s) + 1}")
        if any(v.letters):
            parts.append("letters " + ("PIG"[: v.letters[s]] or "-"))
        notes.append(", ".join(parts))
    return notes


DISPLAY = GameDisplay(
    name="pig",
    title="Pig",
    unit_name="exchange",
    unit=lambda v: v.round_index * 1_000_000 + v.passes * 1000 + v.race_steps,
    extras=_pig_extras,
    notes=_pig_notes,
    card_fields=frozenset({"hand", "last_passed", "last_received"}),
    rank_fields=frozenset({"start_ranks", "ranks"}),
    simultaneous=True,  # P2: every exchange (and race step) is chosen by all seats at once
    seat_fields=frozenset({"dealer"}),
)
