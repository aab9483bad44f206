"""Frames of the table for ``render_mode="rgb_array"``: one drawer shared by every game.

PettingZoo's convention for recording videos is ``render()`` returning an ``(H, W, 3)`` ``uint8``
image. Each game only *describes* its table as the omniscient onlooker of ``kiaule view`` sees
it (every hand face up) in a :class:`Table`: one :class:`Row` per seat, a fixed list of centre
rows (the trick, the open fund, the stock, ...) and a few status lines. :func:`draw` turns any
such description into an image with Pillow (the ``render`` extra), so the four games share the
layout, the card faces and their speed.

The frame size depends only on the number of seat and centre rows, which a game keeps the same
for every state of an episode (an empty row stays, with no cards), so the frames of one episode
have one size, as video encoders require. Long rows fan their cards (each card overlaps the
previous one, its corner index staying visible) instead of growing the frame. Drawing is
deterministic: the same table gives the same frame, pixel for pixel.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

import numpy as np

from kiaule_env.cards import CARD_TEXTS, NUM_SUITED, RANKS, RED_JOKER
from kiaule_env.extras import require

#: a card drawn face down in a :class:`Row` (``None`` among the card ids)
FACE_DOWN = None

WIDTH = 720
CARD_W, CARD_H = 34, 48
MARGIN = 10
TITLE_H = 30
LABEL_H = 18
ROW_H = LABEL_H + CARD_H + 8
#: blank pixels between neighbouring cards of a row that fits, and between runs (trick plays)
CARD_GAP = 4
GROUP_GAP = 14
STATUS_LINES = 3
LINE_H = 18

_BACKGROUND = (22, 96, 58)
_ACTIVE = (250, 220, 90)
_TEXT = (240, 240, 230)
_DIM = (175, 205, 185)
_RED = (200, 30, 40)
_BLACK = (20, 20, 20)
_BACK = (40, 70, 160)


#: characters the bundled font lacks, as ASCII (card texts from ``card_symbol`` become ``10H``)
_ASCII = str.maketrans(
    {"♣": "C", "♦": "D", "♥": "H", "♠": "S", "×": "x", "▒": "#", "—": "-", "–": "-"}
)


@dataclass(frozen=True)
class Row:
    """One labelled row of the table: a seat's hand, or a centre place (trick, fund, stock).

    ``groups`` are runs of cards drawn with a small gap between runs (a trick's plays, one run
    per player); a card is its id (``kiaule_env.cards``) or :data:`FACE_DOWN`. ``note`` follows
    the label (``"team 0, dealer"``); ``active`` highlights the seat to act.
    """

    label: str
    groups: tuple[tuple[int | None, ...], ...] = ()
    note: str = ""
    active: bool = False

    @classmethod
    def of(
        cls, label: str, cards: Sequence[int | None] = (), note: str = "", active: bool = False
    ) -> Row:
        """A row with its cards as one run (``cards`` may be any sequence: a hand, a pile)."""
        return cls(label, (tuple(cards),) if cards else (), note, active)


@dataclass(frozen=True)
class Table:
    """What a game shows of one state: a title, a row per seat, its centre rows and at most
    :data:`STATUS_LINES` status lines (who acts, scores, the result)."""

    title: str
    seats: tuple[Row, ...]
    centre: tuple[Row, ...] = ()
    status: tuple[str, ...] = ()


def require_pillow() -> Any:
    """``PIL.Image``, or :class:`~kiaule_env.extras.MissingExtra` naming the ``render`` extra."""
    require("PIL", 'render_mode="rgb_array"')
    from PIL import Image

    return Image


def frame_size(table: Table) -> tuple[int, int]:
    """``(height, width)`` of the frame of ``table`` (depends only on its row counts)."""
    rows = len(table.seats) + len(table.centre)
    height = TITLE_H + rows * ROW_H + STATUS_LINES * LINE_H + MARGIN * 2
    return height, WIDTH


def draw(table: Table) -> np.ndarray:
    """The ``(H, W, 3)`` ``uint8`` image of ``table`` (a new, writable array)."""
    image_module = require_pillow()
    height, width = frame_size(table)
    image = image_module.new("RGB", (width, height), _BACKGROUND)
    _write(image, (MARGIN, MARGIN), _fit(table.title, width - 2 * MARGIN, 16), 16, _TEXT)
    y = MARGIN + TITLE_H
    for row in (*table.seats, *table.centre):
        _draw_row(image, row, y)
        y += ROW_H
    for line in table.status[:STATUS_LINES]:
        _write(image, (MARGIN, y), _fit(line, width - 2 * MARGIN, 13), 13, _TEXT)
        y += LINE_H
    return np.array(image, dtype=np.uint8)


def _draw_row(image: Any, row: Row, y: int) -> None:
    """The label line, then the row's cards fanned to fit the width."""
    text = _fit(("> " if row.active else "") + row.label, WIDTH // 2, 13)
    width = _write(image, (MARGIN, y), text, 13, _ACTIVE if row.active else _TEXT)
    if row.note:
        x = MARGIN + width + 12
        _write(image, (x, y + 1), _fit(row.note, WIDTH - MARGIN - x, 12), 12, _DIM)
    groups = [group for group in row.groups if group]
    step = _step(groups)
    x = float(MARGIN)
    top = y + LABEL_H
    for g, group in enumerate(groups):
        if g:
            x += CARD_W + GROUP_GAP
        for i, card in enumerate(group):
            if i:
                x += step
            image.paste(_sprite(card), (round(x), top))


def _step(groups: Sequence[Sequence[int | None]]) -> float:
    """Distance between neighbouring cards of a run: a small gap when the row fits, less
    (the cards overlapping like a fan) when it would not. The last card of every run shows
    whole, and runs stay :data:`GROUP_GAP` apart."""
    fanned = sum(len(group) for group in groups) - len(groups)
    fixed = len(groups) * CARD_W + (len(groups) - 1) * GROUP_GAP
    room = WIDTH - 2 * MARGIN - fixed
    return min(float(CARD_W + CARD_GAP), room / fanned) if fanned else 0.0


def _write(image: Any, xy: tuple[int, int], text: str, size: int, colour: tuple) -> int:
    """Write ``text`` at ``xy`` in ``colour``; return its width in pixels."""
    mask = _text_mask(text, size)
    image.paste(colour, xy, mask)
    return mask.width


@lru_cache(maxsize=4096)
def _text_mask(text: str, size: int) -> Any:
    """``text`` at font ``size`` as a greyscale mask, drawn once: labels and notes repeat from
    frame to frame, and drawing glyphs is most of a frame's time."""
    image_module = require_pillow()
    from PIL import ImageDraw

    font = _font(size)
    width = max(1, round(font.getlength(text)))
    mask = image_module.new("L", (width, size + size // 2), 0)
    ImageDraw.Draw(mask).text((0, 0), text, fill=255, font=font)
    return mask


@lru_cache(maxsize=4096)
def _fit(text: str, width: int, size: int) -> str:
    """``text`` in the font's characters (:data:`_ASCII`), cut with an ellipsis to fit
    ``width`` pixels at font ``size``."""
    text = text.translate(_ASCII)
    font = _font(size)
    if font.getlength(text) <= width:
        return text
    while text and font.getlength(text + "...") > width:
        text = text[:-1]
    return text + "..."


@cache
def _font(size: int) -> Any:
    """Pillow's bundled font at ``size`` (the same on every machine: frames are reproducible)."""
    require_pillow()
    from PIL import ImageFont

    return ImageFont.load_default(size)


@cache
def _sprite(card: int | None) -> Any:
    """The image of one card (drawn once, then pasted): rank in the corner, a suit pip in the
    middle; a joker says so; a face-down card shows its back."""
    image_module = require_pillow()
    from PIL import ImageDraw

    image = image_module.new("RGB", (CARD_W, CARD_H), _BACKGROUND)
    pen = ImageDraw.Draw(image)
    box = (0, 0, CARD_W - 1, CARD_H - 1)
    if card is None:
        pen.rounded_rectangle(box, radius=4, fill=_BACK, outline=(230, 230, 230))
        for k in range(-CARD_H, CARD_W, 6):
            pen.line((k, CARD_H, k + CARD_H, 0), fill=(70, 100, 190))
        pen.rounded_rectangle(box, radius=4, outline=(230, 230, 230))
        return image
    pen.rounded_rectangle(box, radius=4, fill=(252, 252, 248), outline=(90, 90, 90))
    if card >= NUM_SUITED:
        colour = _RED if card == RED_JOKER else _BLACK
        pen.text((3, 2), "JO", fill=colour, font=_font(13))
        pen.text((3, 16), "KER", fill=colour, font=_font(11))
        return image
    suit = card // 13
    colour = _RED if suit in (1, 2) else _BLACK  # C D H S: diamonds and hearts are red
    pen.text((3, 1), RANKS[card % 13], fill=colour, font=_font(14))
    _pip(pen, suit, CARD_W // 2 + 3, CARD_H // 2 + 8, 9, colour)
    return image


def _pip(pen: Any, suit: int, cx: int, cy: int, r: int, colour: tuple[int, int, int]) -> None:
    """A suit symbol as shapes (the bundled font has no suit glyphs): C D H S = 0..3."""
    if suit == 1:  # diamond
        pen.polygon(
            [(cx, cy - r), (cx + r * 3 // 4, cy), (cx, cy + r), (cx - r * 3 // 4, cy)], colour
        )
        return
    half = r // 2
    if suit == 2:  # heart: two lobes over a point
        pen.ellipse((cx - r, cy - r, cx, cy - r + r), fill=colour)
        pen.ellipse((cx, cy - r, cx + r, cy), fill=colour)
        pen.polygon([(cx - r, cy - half + 1), (cx + r, cy - half + 1), (cx, cy + r)], colour)
        return
    if suit == 3:  # spade: a point over two lobes, and a stem
        pen.polygon([(cx, cy - r), (cx + r, cy + 1), (cx - r, cy + 1)], colour)
        pen.ellipse((cx - r, cy - 2, cx, cy + r - 2), fill=colour)
        pen.ellipse((cx, cy - 2, cx + r, cy + r - 2), fill=colour)
    else:  # club: three leaves and a stem
        pen.ellipse((cx - half, cy - r, cx + half, cy), fill=colour)
        pen.ellipse((cx - r, cy - half + 1, cx, cy + half + 1), fill=colour)
        pen.ellipse((cx, cy - half + 1, cx + r, cy + half + 1), fill=colour)
    pen.polygon([(cx, cy), (cx + half, cy + r), (cx - half, cy + r)], colour)


def result_line(result: dict[str, Any]) -> str:
    """A game's result dict as one readable status line (``team points 66 / 54, ...``): keys
    in words, lists as ``a / b``, flags that did not happen and empty values left out."""
    parts = []
    for key, value in result.items():
        if value is None or value is False or value == []:
            continue
        if isinstance(value, list | tuple):
            value = " / ".join(str(v) for v in value)
        word = key.replace("_", " ")
        parts.append(word if value is True else f"{word} {value}")
    return "over: " + ", ".join(parts)


def cards_text(cards: Sequence[int]) -> str:
    """Cards as ASCII text (``10H QS``): the bundled font has no suit symbols."""
    return " ".join(CARD_TEXTS[c] for c in cards)
