"""Observation layouts and option validation shared by every game."""

from __future__ import annotations

import numpy as np
import pytest

from kiaule_env.cards import DECKS, card_text
from kiaule_env.core.layout import ObservationLayout, Slice, layout_differences
from kiaule_env.core.options import (
    check_bool,
    check_choice,
    check_int,
    check_option_keys,
    stacked_decks,
)


def test_layout_offsets_decode_and_table():
    layout = ObservationLayout([Slice("hand", 3, "own hand"), Slice("turn", 1, "my turn", -1, 2)])
    assert layout.size == 4 and layout.offsets["turn"] == slice(3, 4)
    obs = layout.new()
    layout.part(obs, "hand")[1] = 1.0
    decoded = layout.decode(obs)
    assert decoded["hand"].tolist() == [0, 1, 0] and decoded["turn"].tolist() == [0]
    assert layout.low.tolist() == [0, 0, 0, -1] and layout.high[-1] == 2
    table = layout.markdown_table()
    assert "| `hand` | 0–2 | 3 | own hand |" in table and "| `turn` | 3 | 1 | my turn |" in table
    with pytest.raises(ValueError, match="shape"):
        layout.decode(np.zeros(5, np.float32))


def test_layout_refuses_duplicate_and_empty_slices():
    with pytest.raises(ValueError, match="duplicate"):
        ObservationLayout([Slice("a", 1, ""), Slice("a", 2, "")])
    with pytest.raises(ValueError, match="positive size"):
        ObservationLayout([Slice("a", 0, "")])


def _two(**turn) -> ObservationLayout:
    spec = {"name": "turn", "size": 1, "description": "my turn", "low": -1.0, "high": 2.0}
    return ObservationLayout([Slice("hand", 3, "own hand"), Slice(**{**spec, **turn})])


def test_layout_fingerprint_is_pinned_and_ignores_descriptions():
    """Model files record this hash: the algorithm must not drift (every zoo file would be
    refused), and rewording a description must not change it."""
    layout = _two()
    assert layout.fingerprint() == "b34d2c633b79d15d"
    assert layout.describe() == [["hand", 3], ["turn", 1]]
    assert _two(description="whose turn it is, reworded").fingerprint() == layout.fingerprint()


@pytest.mark.parametrize(
    "change", [{"name": "seat"}, {"size": 2}, {"low": 0.0}, {"high": 1.0}], ids=str
)
def test_layout_fingerprint_changes_with_names_sizes_and_bounds(change):
    assert _two(**change).fingerprint() != _two().fingerprint()


def test_layout_fingerprint_changes_with_the_order():
    a, b = Slice("a", 2, ""), Slice("b", 2, "")
    assert ObservationLayout([a, b]).fingerprint() != ObservationLayout([b, a]).fingerprint()


def test_layout_differences_name_the_slices():
    old = [["hand", 3], ["turn", 1], ["gone", 2]]
    new = [["hand", 4], ["turn", 1], ["fresh", 5]]
    assert layout_differences(old, new) == [
        "removed 'gone' (size 2)",
        "added 'fresh' (size 5)",
        "resized 'hand' 3 → 4",
    ]
    assert layout_differences(old, old) == []
    assert layout_differences([["a", 1], ["b", 1]], [["b", 1], ["a", 1]]) == ["slices reordered"]


def test_checks_name_the_problem():
    assert check_choice("reward", "a", ("a", "b")) == "a"
    with pytest.raises(ValueError, match="reward='c' is not allowed; choose one of 'a', 'b'"):
        check_choice("reward", "c", ("a", "b"))
    with pytest.raises(ValueError, match="between 2 and 6"):
        check_int("num_players", 7, 2, 6)
    with pytest.raises(ValueError, match="must be an integer"):
        check_int("num_players", True, 2, 6)
    with pytest.raises(ValueError, match="True or False"):
        check_bool("series", 1)
    with pytest.raises(ValueError, match="unknown reset option"):
        check_option_keys({"dek": []}, {"deck", "decks"})


def test_stacked_decks():
    deck = DECKS["36"]
    texts = [card_text(c) for c in deck.cards]
    assert stacked_decks({}, deck, multi_deal=False) == []
    assert stacked_decks({"deck": texts}, deck, False) == [list(deck.cards)]
    assert len(stacked_decks({"decks": [texts, texts[::-1]]}, deck, True)) == 2
    with pytest.raises(ValueError, match="single deal"):
        stacked_decks({"decks": [texts, texts]}, deck, False)
    with pytest.raises(ValueError, match="not both"):
        stacked_decks({"deck": texts, "decks": [texts]}, deck, True)
    with pytest.raises(ValueError, match=r"options\['decks'\]\[1\]"):
        stacked_decks({"decks": [texts, texts[:-1]]}, deck, True)


def test_option_keys_ignore_only_pettingzoos_api_probe():
    assert check_option_keys({"options": 1, "deck": []}, {"deck"}) == {"deck": []}
    with pytest.raises(ValueError, match="accepts 'deck'"):
        check_option_keys({"decks": []}, {"deck"})
