"""Per-game display knowledge of the viewer: which view fields hold cards, and small extras.

Everything here reads only the public view dataclasses (``env.unwrapped.view(agent)``) and the
game record; the serialisation itself is generic (:func:`experiments.viewer.replay.serialize`).
A :class:`GameDisplay` says

* which view fields hold cards (shown as symbols), suits, ranks, and plays of a trick;
* the seats' hands as the omniscient onlooker sees them (default: each seat's own ``hand``);
* the ``unit`` a frame belongs to (trick or turn), for stepping by trick;
* ``extras``: labelled rows for the table's centre (Kozel: trump and team scores;
  Kiauliaganys: the suit the next player must find), from the views, the seat whose knowledge
  they show (None: the onlooker's) and the record;
* ``notes``: a short public note per seat (out, face-up cards, pile sizes, touched nose).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kiaule_env.cards import CARD_SYMBOLS
from kiaule_env.core.records import GameRecord

#: one centre row: ``{"label": str, "text": str, "cards": [symbol or "▒", …]}``
Row = dict[str, Any]


def _symbols(cards: Sequence[int]) -> list[str]:
    return [CARD_SYMBOLS[c] for c in cards]


def _own_hands(views: Sequence[Any], record: GameRecord) -> list[list[int]]:
    return [list(v.hand) for v in views]


def _own_hand_seen(
    views: Sequence[Any], seat: int, hands: Sequence[Sequence[int]]
) -> list[list[str | None]]:
    """What ``seat`` sees of every hand: his own face up, the others face down (their sizes
    are public in every game)."""
    return [
        _symbols(views[seat].hand) if s == seat else [None] * len(hand)
        for s, hand in enumerate(hands)
    ]


def _no_note(views: Sequence[Any], seat: int) -> str | None:
    return None


@dataclass(frozen=True)
class GameDisplay:
    """How the viewer shows one game (see the module docstring)."""

    name: str
    title: str
    unit_name: str
    unit: Callable[[Any], int]
    extras: Callable[[Sequence[Any], int | None, GameRecord], list[Row]]
    notes: Callable[[Sequence[Any]], list[str]]
    card_fields: frozenset[str] = frozenset()
    suit_fields: frozenset[str] = frozenset()
    rank_fields: frozenset[str] = frozenset()
    play_fields: frozenset[str] = frozenset()
    #: words for the middle element of a play item (Kozel: lead / beat / discard)
    play_kinds: tuple[str, ...] | None = None
    hands: Callable[[Sequence[Any], GameRecord], list[list[int]]] = _own_hands
    seen: Callable[[Sequence[Any], int, Sequence[Sequence[int]]], list[list[str | None]]] = (
        _own_hand_seen
    )
    #: after a move by ``seat``, what it showed that the move text does not say (views after)
    move_note: Callable[[Sequence[Any], int], str | None] = _no_note
    teams: list[list[int]] | None = field(default=None)
    #: every stepping unit is one simultaneous step (Pig's exchange, P2: all pass at once):
    #: the page steps over it whole and never shows a seat "to act" inside it
    simultaneous: bool = False
    #: view fields holding a seat number (-1: nobody), shown as ``player_N`` or ``nobody``
    seat_fields: frozenset[str] = frozenset()
    #: names of the values of an integer ``phase`` field, shown instead of the number
    phase_names: tuple[str, ...] | None = None


def _no_rows(views: Sequence[Any], seat: int | None, record: GameRecord) -> list[Row]:
    return []


def generic_display(name: str) -> GameDisplay:
    """The display of a game without a display module: every view field shown as it is, one
    stepping unit per move."""
    return GameDisplay(
        name=name,
        title=name.title(),
        unit_name="move",
        unit=lambda v: 0,
        extras=_no_rows,
        notes=lambda views: [""] * len(views),
        card_fields=frozenset({"hand"}),
    )


def display_for(env_id: str) -> GameDisplay:
    """The display of a suite env id: ``DISPLAY`` of ``experiments.viewer.displays.<game>`` by
    convention, else :func:`generic_display`; ``ValueError`` naming the known ids otherwise."""
    from kiaule_env import game_of_env_id

    game = game_of_env_id(env_id)
    try:
        module = importlib.import_module(f"experiments.viewer.displays.{game.name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"experiments.viewer.displays.{game.name}":
            raise
        return generic_display(game.name)
    return module.DISPLAY
