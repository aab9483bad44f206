"""How the replay viewer shows Kozel (found by convention: ``DISPLAY`` in
``experiments/viewer/displays/<game>.py``; see :mod:`experiments.viewer.games`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from experiments.viewer.games import GameDisplay, Row, _symbols
from kiaule_env.cards import CARD_SYMBOLS, SUIT_SYMBOLS, SUITS
from kiaule_env.core.records import GameRecord
from kiaule_env.kozel.rules import PHASE_NAMES


def _kozel_extras(views: Sequence[Any], seat: int | None, record: GameRecord) -> list[Row]:
    v = views[0] if seat is None else views[seat]
    trump = SUITS[v.trump]
    rows: list[Row] = [
        {"label": "trump", "text": f"{SUIT_SYMBOLS[trump]} ({trump})", "cards": []},
        {
            "label": "indicator",
            "text": f"in the stock, {v.indicator_at + 1} from the top"
            if v.indicator_at >= 0
            else ("seen" if v.indicator in v.seen else "drawn"),
            "cards": [CARD_SYMBOLS[v.indicator]],
        },
        {"label": "stock", "text": f"{v.stock_size} cards", "cards": []},
    ]
    # Team card points: the face-up cards in each team's tricks plus the face-down discards;
    # a seat knows only its own discards, the onlooker everybody's (the union of the views).
    discard = [0, 0]
    for s in range(len(views)) if seat is None else (seat,):
        for team in (0, 1):
            discard[team] += views[s].my_discard_points[team]
    points = [v.points_seen[t] + discard[t] for t in (0, 1)]
    known = "" if seat is None else " (known to this player)"
    rows.append(
        {
            "label": "team points",
            "text": f"team 0: {points[0]} · team 1: {points[1]}{known}",
            "cards": [],
        }
    )
    rows.append(
        {
            "label": "tricks",
            "text": f"team 0: {v.tricks[0]} ({v.cards_taken[0]} cards) · "
            f"team 1: {v.tricks[1]} ({v.cards_taken[1]} cards)",
            "cards": [],
        }
    )
    if record.env_kwargs.get("series"):
        rows.append(
            {
                "label": "series",
                "text": f"{v.game_index} game(s) finished; loss points team 0: "
                f"{v.series_loss[0]} · team 1: {v.series_loss[1]}",
                "cards": [],
            }
        )
    for i, (s, kind, cards) in enumerate(v.trick):
        # the onlooker sees a face-down discard in the view of the seat that made it
        shown = views[s].trick[i][2] if seat is None else cards
        word = ("lead", "beat", "discard")[kind]
        face = _symbols(shown) if shown else ["▒"] * v.n_cards
        rows.append({"label": f"player_{s} {word}", "text": "", "cards": face})
    return rows


def _kozel_notes(views: Sequence[Any]) -> list[str]:
    v = views[0]
    notes = []
    for s in range(len(views)):
        parts = [f"team {s % 2}"]
        if s == v.dealer:
            parts.append("dealer")
        if s == v.winner and v.trick:
            parts.append("winning")
        notes.append(", ".join(parts))
    return notes


DISPLAY = GameDisplay(
    name="kozel",
    title="Kozel",
    unit_name="trick",
    unit=lambda v: v.game_index * 1000 + v.tricks[0] + v.tricks[1],
    extras=_kozel_extras,
    notes=_kozel_notes,
    card_fields=frozenset(
        {"hand", "indicator", "winning", "seen", "known", "maybe", "my_discards"}
    ),
    suit_fields=frozenset({"trump"}),
    play_fields=frozenset({"trick"}),
    play_kinds=("lead", "beat", "discard"),
    teams=[[0, 2], [1, 3]],
    seat_fields=frozenset({"to_act", "dealer", "leader", "first_leader", "winner"}),
    phase_names=PHASE_NAMES,
)
