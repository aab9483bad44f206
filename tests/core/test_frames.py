"""The shared frame drawer (:mod:`kiaule_env.core.frames`): layout, card faces, fans that stay
inside the frame, and the clear error when Pillow (the ``render`` extra) is missing."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from kiaule_env.cards import NUM_CARD_IDS
from kiaule_env.core import frames
from kiaule_env.core.frames import FACE_DOWN, Row, Table
from kiaule_env.extras import MissingExtra

BACKGROUND = np.array(frames._BACKGROUND, dtype=np.uint8)


def _table(*rows: Row, status: tuple[str, ...] = ()) -> Table:
    return Table("test", tuple(rows), (), status)


def test_frame_size_depends_only_on_the_row_counts():
    small = frames.draw(_table(Row.of("a", [0]), Row.of("b")))
    large = frames.draw(_table(Row.of("a", list(range(52))), Row.of("b", [FACE_DOWN] * 30)))
    assert small.shape == large.shape == (*frames.frame_size(_table(Row("a"), Row("b"))), 3)
    three = frames.draw(Table("t", (Row("a"),), (Row("b"), Row("c"))))
    assert three.shape[0] == small.shape[0] + frames.ROW_H


def test_every_card_has_its_own_face_and_the_back_differs():
    faces = [np.asarray(frames._sprite(card)).tobytes() for card in range(NUM_CARD_IDS)]
    faces.append(np.asarray(frames._sprite(FACE_DOWN)).tobytes())
    assert len(set(faces)) == NUM_CARD_IDS + 1


def _card_band(frame: np.ndarray, row: int) -> np.ndarray:
    top = frames.MARGIN + frames.TITLE_H + row * frames.ROW_H + frames.LABEL_H
    return frame[top : top + frames.CARD_H]


def _used_columns(band: np.ndarray) -> np.ndarray:
    return np.flatnonzero((band != BACKGROUND).any(axis=(0, 2)))


def test_a_long_row_fans_inside_the_frame():
    frame = frames.draw(_table(Row.of("deck", list(range(NUM_CARD_IDS)))))
    used = _used_columns(_card_band(frame, 0))
    assert used[0] == frames.MARGIN
    assert frames.WIDTH - frames.MARGIN - 3 <= used[-1] < frames.WIDTH - frames.MARGIN


def test_a_short_row_lays_its_cards_side_by_side():
    frame = frames.draw(_table(Row.of("hand", [0, 1, 2])))
    used = _used_columns(_card_band(frame, 0))
    assert used[-1] == frames.MARGIN + 2 * (frames.CARD_W + frames.CARD_GAP) + frames.CARD_W - 1
    gap = frames.MARGIN + frames.CARD_W + 1  # between the first two cards: background
    assert (_card_band(frame, 0)[:, gap] == BACKGROUND).all()


def test_runs_are_kept_apart():
    one = frames.draw(_table(Row("trick", ((0, 1, 2, 3),))))
    two = frames.draw(_table(Row("trick", ((0, 1), (2, 3)))))
    assert not np.array_equal(one, two)
    wider = frames.GROUP_GAP - frames.CARD_GAP
    assert _used_columns(_card_band(two, 0))[-1] == _used_columns(_card_band(one, 0))[-1] + wider


def test_active_row_status_and_notes_are_drawn():
    plain = frames.draw(_table(Row.of("player_0", [5])))
    assert not np.array_equal(plain, frames.draw(_table(Row.of("player_0", [5], active=True))))
    assert not np.array_equal(plain, frames.draw(_table(Row.of("player_0", [5], "dealer"))))
    assert not np.array_equal(plain, frames.draw(_table(Row.of("player_0", [5]), status=("x",))))


def test_suit_symbols_are_written_as_letters():
    assert frames._fit("7♥ A♠ ▒", 500, 13) == "7H AS #"
    assert frames._fit("a" * 400, 100, 13).endswith("...")
    assert frames._font(13).getlength(frames._fit("a" * 400, 100, 13)) <= 100


def test_result_line_reads_like_words():
    line = frames.result_line(
        {"team_points": [66, 54], "eggs": False, "caught_by_tail": None, "capped": True}
    )
    assert line == "over: team points 66 / 54, capped"


def test_missing_pillow_names_the_render_extra(monkeypatch):
    from kiaule_env import kozel_v0

    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(MissingExtra, match=r"pillow.*'render' extra"):
        frames.draw(_table(Row("a")))
    with pytest.raises(MissingExtra, match=r'render_mode="rgb_array" needs pillow'):
        kozel_v0.env(render_mode="rgb_array")
    kozel_v0.env(render_mode="ansi")  # text rendering needs no Pillow
